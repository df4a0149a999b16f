"""A task failure on demand, for the retry test: the job's partition functions wrapped so that
each output batch is followed by a call of FailOnce on the executor (monkeypatched into tvspark.job
by the test)."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Iterable, Iterator

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


def after_each_batch(partition: Callable[[Any, Iterable[Any]], Iterator[Any]],
                     hook: Callable[[], None]) -> Callable[[Any, Iterable[Any]], Iterator[Any]]:
    """`partition` (lines_partition or table_partition) with `hook` called after each batch it
    yields, once Spark has taken the batch."""

    def wrapped(plan: Any, batches: Iterable[Any]) -> Iterator[Any]:
        for batch in partition(plan, batches):
            yield batch
            hook()

    return wrapped


# The executors' Python cannot import the tests: the class and the wrapper travel by value with
# the partition function's closure.
cloudpickle.register_pickle_by_value(sys.modules[__name__])
