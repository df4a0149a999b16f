"""How the direct path runs its tasks on Spark: task `i` alone in partition `i`, in classic mode
an RDD of the indexes, over Spark Connect (no SparkContext there) a DataFrame of them
(`spark.range`) through `mapInArrow`; either as a barrier stage where the tasks must run at
once (line_numbers.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import SparkSession


def is_connect(spark: SparkSession) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def task_indexes(spark: SparkSession, count: int) -> RDD[int]:
    """The indexes 0 … count - 1, each alone in its partition (partition i holds index i), so that
    every group of ranges is a task of its own. An RDD in classic mode: a job of a few tasks costs
    the JVM about half as much CPU as a DataFrame's (0.2 against 0.35 CPU seconds for two tasks
    that do nothing here), with no Arrow batch to or from it."""
    return spark.sparkContext.parallelize(range(count), count)


def arrow_tasks(work: Callable[[int], Any], batches: Iterable[Any]) -> Iterator[Any]:
    """The task over Spark Connect (mapInArrow over spark.range): Arrow batches of indexes in
    (column `id`), each task's result batch out."""
    for batch in batches:
        for index in batch.column(0).to_pylist():
            yield work(index)


def run_tasks(spark: SparkSession, count: int, work: Callable[[int], Any], schema: str,
              barrier: bool = False) -> list[tuple[Any, ...]]:
    """Runs `work` (index → a result batch of `schema`) for the indexes 0 … count - 1, one task
    each, over Spark Connect: a DataFrame of the indexes (spark.range, partition i holding i)
    through mapInArrow (a barrier stage where `barrier`); the rows of every task's batch."""
    frame = spark.range(0, count, 1, count).mapInArrow(lambda batches: arrow_tasks(work, batches), schema,
                                                       barrier=barrier)
    if barrier:  # a shuffle after it, so that Spark restarts the stage if a task fails (direct._run_stage)
        frame = frame.repartition(1)
    return [tuple(row) for row in frame.collect()]
