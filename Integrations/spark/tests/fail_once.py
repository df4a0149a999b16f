"""A task failure on demand, for the retry test: the job calls it on the executor after each
output batch (job.run's after_batch)."""

from __future__ import annotations

import os
import sys

from pyspark import TaskContext, cloudpickle


class FailOnce:
    """Makes partition 0's first attempt fail after its first output batch, leaving a marker
    file in `directory` that shows it did."""

    def __init__(self, directory: str) -> None:
        self.marker = os.path.join(directory, "failed-once")

    def __call__(self) -> None:
        context = TaskContext.get()
        if context and context.partitionId() == 0 and context.attemptNumber() == 0:
            with open(self.marker, "x"):
                pass
            raise RuntimeError("tokenverify-spark: forced failure of partition 0, attempt 0 (tests/fail_once.py)")


# The executors' Python cannot import the tests: the class travels by value with the plan.
cloudpickle.register_pickle_by_value(sys.modules[__name__])
