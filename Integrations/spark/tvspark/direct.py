"""The direct path (`--direct`): files of lines to Parquet with Spark only scheduling.

The driver cuts every input file into byte ranges at line starts and shares the ranges among
the tasks in order (ranges.py: a large file's range is a task, small files are gathered), one
Spark task a group (`parallelize(range(n), n)`: partition i holds exactly the index i); each
task streams its ranges unchanged through one `tokenverify verify --output-format arrow` child
and writes the child's Arrow batches as Parquet itself (range_writer.py), returning only its
counts by reason.
No line passes through the JVM, and nothing is read back: the driver adds up the counts of the
one successful attempt Spark keeps per task, writes `_SUCCESS` and the summary.

Possible in classic mode (not Spark Connect) when every input and the output are local paths
(the driver lists and reads the inputs; the tasks write into the output folder), the inputs are
uncompressed regular files or folders of them, and Spark's Parquet codec is one pyarrow writes.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .options import ConfigError, JobOptions
from .range_writer import OUTPUT_SCHEMA, TEMPORARY, ParquetChoices, part_name, write_task
from .ranges import LocalFile, NotDirect, RangeTask, group_ranges, input_files, local_path, plan_ranges, range_size
from .ship import Shipment
from .worker_setup import lighten_worker
from .sizing import conf_bytes
from .summary import Summary, tally, write_summary

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import SparkSession

# Spark's spark.sql.parquet.compression.codec values that pyarrow writes the same way.
_CODECS = {"none": "none", "uncompressed": "none", "snappy": "snappy", "gzip": "gzip", "zstd": "zstd",
           "brotli": "brotli"}


@dataclass(frozen=True)
class DirectInput:
    """What the driver found the direct path possible with: the input files in order, the
    output folder's local path, the Parquet codec, and once planned, the tasks' ranges."""

    files: list[LocalFile]
    output: str
    compression: str
    tasks: tuple[RangeTask, ...] = ()


@dataclass(frozen=True)
class DirectPlan:
    """Everything a direct task needs, pickled with the task function."""

    options: JobOptions
    shipment: Shipment
    at: str
    threads: int
    tasks: tuple[RangeTask, ...]
    output: str
    parquet: ParquetChoices

    def argv(self) -> list[str]:
        return self.options.verify_argv(self.shipment.binary(), self.shipment.resolve, self.at, self.threads)


def inspect(spark: SparkSession, options: JobOptions) -> DirectInput:
    """The direct path's input for this job; NotDirect saying why where it cannot run it."""
    if options.input_format != "lines":
        raise NotDirect(f"--input-format {options.input_format}: it reads files of lines only")
    if options.output_format != "parquet":
        raise NotDirect(f"--output-format {options.output_format}: it writes Parquet only")
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        raise NotDirect("over Spark Connect (it needs classic mode)")
    output = local_path(options.output)
    if output is None:
        raise NotDirect(f"--output {options.output} is not a local path")
    files = input_files(options.inputs)
    compressed = _compressed(spark, files)
    if compressed:
        raise NotDirect(f"{compressed} is compressed (Spark's text source decompresses it)")
    codec = (spark.conf.get("spark.sql.parquet.compression.codec", "snappy") or "snappy").lower()
    if codec not in _CODECS:
        raise NotDirect(f"spark.sql.parquet.compression.codec {codec} is not one it writes ({', '.join(_CODECS)})")
    return DirectInput(files, output, _CODECS[codec])


def plan(spark: SparkSession, found: DirectInput) -> DirectInput:
    """The input with its tasks: the files cut into ranges of the input's bytes a core (within
    Spark's maxPartitionBytes and openCostInBytes), the ranges shared among the tasks;
    ConfigError where a file cannot be read or changed since it was listed."""
    parallelism = int(spark.sparkContext.defaultParallelism)
    open_cost = conf_bytes(spark, "spark.sql.files.openCostInBytes", "4m")
    max_bytes = conf_bytes(spark, "spark.sql.files.maxPartitionBytes", "128m")
    size = range_size(sum(file.size for file in found.files), parallelism, max_bytes, open_cost)
    try:
        tasks = group_ranges(plan_ranges(found.files, size), max_bytes, open_cost, parallelism)
        return replace(found, tasks=tuple(tasks))
    except (OSError, ValueError) as error:
        raise ConfigError(str(error)) from error


def _compressed(spark: SparkSession, files: list[LocalFile]) -> str | None:
    """The first file that Hadoop finds a compression codec for (by its name, as Spark's text
    source does), asked once per file name extension; None when there is none."""
    jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]
    factory = jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(
        spark.sparkContext._jsc.hadoopConfiguration())  # type: ignore[attr-defined]
    asked: dict[str, bool] = {}
    for file in files:
        name = os.path.basename(file.path)
        extension = name[name.rfind("."):] if "." in name else ""
        if extension not in asked:
            asked[extension] = factory.getCodec(jvm.org.apache.hadoop.fs.Path("file:/x" + extension)) is not None
        if asked[extension]:
            return file.path
    return None


# A task's counts: (task, valid, reason, count), as the columns of COUNTS_SCHEMA.
Count = tuple[int, "bool | None", "str | None", int]


def task_partition(plan: DirectPlan, indexes: Iterable[int]) -> Iterator[Count]:
    """The task (mapPartitions over task_indexes): task indexes in, each task's counts out."""
    lighten_worker()
    for index in indexes:
        counts = write_task(plan.argv(), plan.tasks[index], plan.output, plan.parquet)
        yield from zip(*(counts.column(column).to_pylist() for column in range(counts.num_columns)))


def task_indexes(spark: SparkSession, count: int) -> RDD[int]:
    """The indexes 0 … count - 1, each alone in its partition (partition i holds index i), so that
    every group of ranges is a task of its own. An RDD, not a DataFrame: the direct path runs in classic
    mode only, and a job of a few tasks costs the JVM about half as much CPU (0.2 against 0.35
    CPU seconds for two tasks that do nothing here), with no Arrow batch to or from it."""
    return spark.sparkContext.parallelize(range(count), count)


def run(spark: SparkSession, options: JobOptions, found: DirectInput, shipment: Shipment, at: str, threads: int,
        plain_columns: tuple[str, ...], started: float) -> Summary:
    """Runs the job on the direct path (its configuration already checked, its input planned);
    `started` is when the job began, for the phases' times."""
    output, tasks = found.output, found.tasks
    _prepare_output(output, options, found.files)
    os.makedirs(os.path.join(output, TEMPORARY))
    plan = DirectPlan(options, shipment, at, threads, tasks, output,
                      ParquetChoices(found.compression, plain_columns))
    planned = time.monotonic()
    try:
        if tasks:
            rows = task_indexes(spark, len(tasks)).mapPartitions(lambda indexes: task_partition(plan, indexes)).collect()
        else:  # no line at all: one empty file, as Spark writes for an empty result
            _empty_part(output, plan.parquet)
            rows = []
        heard = {row[0] for row in rows}
        if heard != set(range(len(tasks))):
            raise RuntimeError(f"the tasks {sorted(set(range(len(tasks))) - heard)[:10]} did not report")
    except BaseException:
        _remove_partial(output)
        raise
    shutil.rmtree(os.path.join(output, TEMPORARY), ignore_errors=True)
    with open(os.path.join(output, "_SUCCESS"), "wb"):
        pass
    written = time.monotonic()
    summary = tally(((valid, reason, count) for _, valid, reason, count in rows), 0.0, at)
    ended = time.monotonic()
    summary = replace(summary, seconds=ended - started, execution="direct", phases={
        "check_and_plan": planned - started, "verify_and_write": written - planned, "count": ended - written})
    write_summary(options, summary, spark)
    return summary


def _prepare_output(output: str, options: JobOptions, files: list[LocalFile]) -> None:
    """The output folder as Spark's writer treats it: an error where it exists, unless
    --overwrite, which removes it (never when it holds an input)."""
    if not os.path.lexists(output):
        return
    if not options.overwrite:
        raise ConfigError(f"--output {options.output} already exists (--overwrite replaces it)")
    inside = [file.path for file in files if os.path.commonpath([output, file.path]) == output]
    if inside:
        raise ConfigError(f"--overwrite would remove --output {options.output}, which holds the input {inside[0]}")
    if os.path.isdir(output) and not os.path.islink(output):
        shutil.rmtree(output)
    else:
        os.unlink(output)


def _empty_part(output: str, parquet: ParquetChoices) -> None:
    import pyarrow.parquet as pq

    pq.write_table(OUTPUT_SCHEMA.empty_table(), os.path.join(output, part_name(0)), compression=parquet.compression)


def _remove_partial(output: str) -> None:
    """After a failed job: the part files and the temporary folder removed, the output folder
    left empty (as Spark's writer leaves it)."""
    shutil.rmtree(os.path.join(output, TEMPORARY), ignore_errors=True)
    for name in os.listdir(output) if os.path.isdir(output) else []:
        if name.startswith("part-") and name.endswith(".parquet"):
            try:
                os.unlink(os.path.join(output, name))
            except OSError:
                pass
