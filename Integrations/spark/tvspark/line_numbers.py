"""How the direct path's tasks learn the first line of each remote range after its file's first:
the lines of the file's earlier ranges, which other tasks read (the driver reads no whole input).

- **Barrier stage**, where every task fits at once: the tasks run as one barrier stage. Each
  streams its ranges into its child and counts their lines as they are read, while the child
  writes its answers to a local spool file (arrow_child.py); once its ranges are read (a piece
  before the child has them all), the tasks swap the line counts that others need
  (`BarrierTaskContext.allGather`, which takes a second at least: Spark 4.1 looks for the
  answer once a second), and each writes its Parquet from the spool with its ranges' first
  lines once its child is done. The input is read once. A failed task restarts the whole
  stage (Spark's rule for a barrier stage that is a shuffle's map stage, which direct._run_stage
  makes it); every attempt writes the same rows under the same names, so the output stays
  exactly once.
- **Count job**, where the tasks do not fit at once (more tasks than slots, or dynamic allocation,
  which barrier stages refuse outside local mode): a short job before the verify job counts the
  `\\n`s of every remote range but each file's last, in spans of about equal bytes, one a core;
  the driver adds them up. Those bytes are read twice.

A range's lines count as `tokenverify verify` numbers lines: every `\\n`, and a last line without
one. `Integrations/spark/bench/run --store s3` measures the barrier stage (one 212 MB file, two
tasks on two cores); README.md's Benchmark section has its figures against the count job's.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Sequence

from . import remote
from .plan import ByteRange, RangeTask
from .stages import is_connect, run_tasks, task_indexes
from .worker_setup import lighten_worker

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# What Spark says when it refuses a barrier stage at once (BarrierJobRunWithDynamicAllocationException
# and its kin): the job then counts lines with a count job instead.
_REFUSALS = ("Barrier execution mode does not",)


def needs_counts(tasks: Sequence[RangeTask]) -> bool:
    """True where some range's first line is not known from the plan (a remote range after its
    file's first)."""
    return any(piece.first_line < 0 for task in tasks for piece in task.ranges)


def barrier_fits(spark: SparkSession, task_count: int, parallelism: int) -> bool:
    """True where the tasks can run as one barrier stage: no more tasks than slots (`parallelism`
    cores, spark.task.cpus each), and no dynamic allocation unless Spark runs in local mode.
    Where the default parallelism promises more cores than a cluster has, Spark waits for the
    slots (spark.scheduler.barrier.maxConcurrentTasksCheck.*) and then refuses the stage, and
    the job counts first (is_refusal)."""
    cpus = int(_setting(spark, "spark.task.cpus") or "1")
    if task_count > max(1, parallelism // max(1, cpus)):
        return False
    local = (_setting(spark, "spark.master") or "").startswith("local")
    return local or (_setting(spark, "spark.dynamicAllocation.enabled") or "false").lower() != "true"


def is_refusal(error: BaseException) -> bool:
    """True for Spark's refusal to run a barrier stage (before any task ran)."""
    return any(text in str(error) for text in _REFUSALS)


def _setting(spark: SparkSession, key: str) -> str | None:
    try:
        return spark.conf.get(key, None)
    except Exception:  # noqa: BLE001 - a setting a Connect server does not show
        return None


def shared(task: RangeTask) -> list[ByteRange]:
    """The task's ranges whose line counts other tasks need: remote ranges before their file's end."""
    return [piece for piece in task.ranges if piece.file.store is not None and piece.end < piece.file.size]


def gather(tasks: Sequence[RangeTask], task: RangeTask, lines: Sequence[int]) -> RangeTask:
    """In a barrier stage's task: `task` (one of `tasks`, the job's) with the first line of each
    of its ranges, from the line counts every task gives (`lines`: this task's, a count a range).
    ValueError where a count is missing."""
    from pyspark import BarrierTaskContext

    counts = dict(zip((piece.index for piece in task.ranges), lines))
    message = json.dumps([[piece.index, counts[piece.index]] for piece in shared(task)])
    replies = BarrierTaskContext.get().allGather(message)
    gathered = {index: count for reply in replies for index, count in json.loads(reply)}
    wanted = {piece.index for each in tasks for piece in shared(each)}
    if len(replies) != len(tasks) or set(gathered) != wanted:
        raise ValueError(f"the barrier stage's {len(replies)} tasks gave the lines of {len(gathered)} ranges; "
                         f"{len(tasks)} tasks and {len(wanted)} ranges expected")
    return _numbered([task], tasks, gathered)[0]


def count_job(spark: SparkSession, tasks: tuple[RangeTask, ...], parallelism: int) -> tuple[RangeTask, ...]:
    """The tasks, each remote range with its first line: the lines before it counted by a Spark
    job of spans (remote.count_spans) before the verify job."""
    ranges = [piece for task in tasks for piece in task.ranges]
    spans = remote.count_spans(ranges, parallelism)
    if not spans:
        return tasks
    work = functools.partial(_count_span, tuple(spans))
    if is_connect(spark):
        rows = run_tasks(spark, len(spans), work, "span bigint, lines bigint")
    else:
        rows = task_indexes(spark, len(spans)).map(lambda index: (index, work(index).column(1)[0].as_py())).collect()
    found = dict(rows)
    return tuple(_numbered(tasks, tasks, remote.span_lines(spans, [found[number] for number in range(len(spans))])))


def _numbered(these: Sequence[RangeTask], tasks: Sequence[RangeTask], lines: dict[int, int]) -> list[RangeTask]:
    """`these` (some of the job's `tasks`), each range with its first line from the lines of the
    ranges before it (`lines`, by range index; remote.with_first_lines)."""
    numbered = {piece.index: piece for piece in remote.with_first_lines([piece for task in tasks for piece in task.ranges], lines)}
    return [replace(task, ranges=tuple(numbered[piece.index] for piece in task.ranges)) for task in these]


def _count_span(spans: tuple[Any, ...], index: int) -> Any:
    import pyarrow as pa

    lighten_worker()
    return pa.RecordBatch.from_pydict({"span": [index], "lines": [remote.count_newlines(spans[index])]})
