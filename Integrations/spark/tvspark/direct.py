"""The direct path (`--direct`): files of lines to Parquet with Spark only scheduling.

The driver cuts every input file into byte ranges at line starts and shares the ranges among
the tasks in order (ranges.py: a large file's range is a task, small files are gathered), one
Spark task a group (partition i holds exactly the index i); each task streams its ranges
unchanged through one `tokenverify verify --output-format arrow` child and writes the child's
Arrow batches as Parquet itself (range_writer.py), returning only its counts by reason.
No line passes through the JVM, and nothing is read back: the driver adds up the counts of the
one successful attempt Spark keeps per task, writes `_SUCCESS` and the summary.

Inputs and output are local paths or URLs of a store pyarrow reaches (store.py, remote.py: S3,
GCS, Azure, HDFS). In classic mode the tasks are an RDD of indexes; over Spark Connect a
DataFrame of them (`spark.range`) through `mapInArrow`, the same task function (stages.py).
Where a remote range's first line is not known from the plan, the tasks learn it from one
another in a barrier stage, or from a count job first (line_numbers.py). Possible where
the inputs are uncompressed files or folders of them and Spark's Parquet codec is one pyarrow
writes.

Exactly once on a store without rename: every attempt of task i writes the same rows (the same
ranges through the same binary at the same --at) to the same name, `part-0000i.parquet`, and the
object appears only whole (remote.upload: written locally, then one upload completed at its
end); a failed attempt puts nothing there, a retried or speculative one the same rows again.
No commit step copies parts (a store without rename would copy each one); the driver writes
`_SUCCESS` and the summary after every task reported, and removes the parts after a failure.
"""

from __future__ import annotations

import functools
import os
import shutil
import time
import weakref
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from . import line_numbers
from .options import ConfigError, JobOptions
from .range_writer import OUTPUT_SCHEMA, TEMPORARY, ParquetChoices, part_name, write_task
from .plan import LocalFile, NotDirect, RangeTask
from .ranges import group_ranges, input_files, local_path, plan_ranges, range_size
from .ship import Shipment
from .stages import is_connect, run_tasks, task_indexes
from .store import Store, StoreError, explain, is_remote
from .worker_setup import lighten_worker
from .sizing import conf_bytes
from .summary import Summary, summary_text, tally, write_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Spark's spark.sql.parquet.compression.codec values that pyarrow writes the same way.
_CODECS = {"none": "none", "uncompressed": "none", "snappy": "snappy", "gzip": "gzip", "zstd": "zstd",
           "brotli": "brotli"}
_PARALLELISM: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
# The name endings of Hadoop's default codecs (CompressionCodecFactory), where no JVM is at hand to ask.
_HADOOP_SUFFIXES = (".deflate", ".gz", ".bz2", ".lz4", ".snappy", ".zst")


@dataclass(frozen=True)
class DirectInput:
    """What the driver found the direct path possible with: the input files in order, the
    output folder's local path, the Parquet codec, and once planned, the tasks' ranges."""

    files: list[LocalFile]
    output: str  # a local path, or the folder's path in `store`
    compression: str
    tasks: tuple[RangeTask, ...] = ()
    store: Store | None = None  # the output's store; None for a local folder
    parallelism: int = 1


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
    store: Store | None = None
    barrier: bool = False  # one barrier stage whose tasks swap their ranges' line counts (line_numbers.py)

    def argv(self) -> list[str]:
        return self.options.verify_argv(self.shipment.binary(), self.shipment.resolve, self.at, self.threads)


def inspect(spark: SparkSession, options: JobOptions) -> DirectInput:
    """The direct path's input for this job; NotDirect saying why where it cannot run it."""
    if options.input_format != "lines":
        raise NotDirect(f"--input-format {options.input_format}: it reads files of lines only")
    if options.output_format != "parquet":
        raise NotDirect(f"--output-format {options.output_format}: it writes Parquet only")
    output = local_path(options.output)
    store = None
    if output is None:
        if not is_remote(options.output):
            raise NotDirect(f"--output {options.output} is not a local path or a store's URL")
        from .remote import output_location

        where = output_location(options.output, spark)
        output, store = where.path, where.store
        try:
            store.filesystem()
        except (OSError, StoreError, AttributeError, ImportError) as error:  # no libhdfs, a pyarrow without Azure, …
            raise NotDirect(f"--output {options.output}: pyarrow cannot reach {store.describe()} here ({error})") from error
    files = input_files(options.inputs, spark)
    compressed = _compressed(spark, files)
    if compressed:
        raise NotDirect(f"{compressed} is compressed (Spark's text source decompresses it)")
    codec = (spark.conf.get("spark.sql.parquet.compression.codec", "snappy") or "snappy").lower()
    if codec not in _CODECS:
        raise NotDirect(f"spark.sql.parquet.compression.codec {codec} is not one it writes ({', '.join(_CODECS)})")
    return DirectInput(files, output, _CODECS[codec], store=store)


def plan(spark: SparkSession, found: DirectInput) -> DirectInput:
    """The input with its tasks: the files cut into ranges of the input's bytes a core (within
    Spark's maxPartitionBytes and openCostInBytes), the ranges shared among the tasks;
    ConfigError where a file cannot be read or changed since it was listed."""
    parallelism = default_parallelism(spark)
    open_cost = conf_bytes(spark, "spark.sql.files.openCostInBytes", "4m")
    max_bytes = conf_bytes(spark, "spark.sql.files.maxPartitionBytes", "128m")
    size = range_size(sum(file.size for file in found.files), parallelism, max_bytes, open_cost)
    try:
        tasks = group_ranges(plan_ranges(found.files, size), max_bytes, open_cost, parallelism)
        return replace(found, tasks=tuple(tasks), parallelism=parallelism)
    except (OSError, ValueError) as error:
        raise ConfigError(str(error)) from error


def default_parallelism(spark: SparkSession) -> int:
    """The session's default parallelism: the SparkContext's; over Spark Connect (no context)
    spark.default.parallelism, else the partitions of a `spark.range` (a small job)."""
    try:
        return int(spark.sparkContext.defaultParallelism)
    except Exception:  # noqa: BLE001 - PySparkNotImplementedError over Spark Connect
        pass
    configured = spark.conf.get("spark.default.parallelism", None)
    if configured:
        return int(configured)
    if spark not in _PARALLELISM:  # asked once a session
        from pyspark.sql import functions as F

        partitions = spark.range(0, 1 << 16).select(F.spark_partition_id().alias("partition")).agg(F.max("partition"))
        _PARALLELISM[spark] = int(partitions.first()[0]) + 1  # type: ignore[index]
    return _PARALLELISM[spark]


def _compressed(spark: SparkSession, files: list[LocalFile]) -> str | None:
    """The first file that Hadoop finds a compression codec for (by its name, as Spark's text
    source does), asked once per file name extension; None when there is none. Without a JVM
    (Spark Connect) or for remote files, by the endings of Hadoop's default codecs."""
    if type(spark).__module__.startswith("pyspark.sql.connect") or any(file.store is not None for file in files):
        return next((file.source for file in files if file.path.lower().endswith(_HADOOP_SUFFIXES)), None)
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
COUNTS_DDL = "task bigint, valid boolean, reason string, count bigint"
Count = tuple[int, "bool | None", "str | None", int]


def write_one(plan: DirectPlan, index: int) -> Any:
    """Task `index`'s work: its ranges verified and written; its counts (COUNTS_SCHEMA)."""
    lighten_worker()
    numbering = functools.partial(line_numbers.gather, plan.tasks) if plan.barrier else None
    return write_task(plan.argv(), plan.tasks[index], plan.output, plan.parquet, plan.store, numbering)


def task_partition(plan: DirectPlan, indexes: Iterable[int]) -> Iterator[Count]:
    """The task (mapPartitions over task_indexes): task indexes in, each task's counts out."""
    for index in indexes:
        counts = write_one(plan, index)
        yield from zip(*(counts.column(column).to_pylist() for column in range(counts.num_columns)))


def run(spark: SparkSession, options: JobOptions, found: DirectInput, shipment: Shipment, at: str, threads: int,
        plain_columns: tuple[str, ...], started: float) -> Summary:
    """Runs the job on the direct path (its configuration already checked, its input planned);
    `started` is when the job began, for the phases' times (`count_lines`: a count job's, where
    one ran)."""
    output, store = found.output, found.store
    _prepare(found, options)
    planned = time.monotonic()
    phases: dict[str, float] = {"check_and_plan": planned - started}
    try:
        plan = DirectPlan(options, shipment, at, threads, found.tasks, output, ParquetChoices(found.compression, plain_columns), store)
        rows = _verify_and_write(spark, found, plan, phases)
        heard = {row[0] for row in rows}
        if heard != set(range(len(found.tasks))):
            raise RuntimeError(f"the tasks {sorted(set(range(len(found.tasks))) - heard)[:10]} did not report")
    except BaseException:
        _remove_partial(found)
        raise
    if store is None:
        shutil.rmtree(os.path.join(output, TEMPORARY), ignore_errors=True)
    _write(found, "_SUCCESS", "")
    written = time.monotonic()
    summary = tally(((valid, reason, count) for _, valid, reason, count in rows), 0.0, at)
    ended = time.monotonic()
    phases["verify_and_write"] = written - planned - phases.get("count_lines", 0.0)
    phases["count"] = ended - written
    summary = replace(summary, seconds=ended - started, execution="direct", phases=phases)
    if store is None:
        write_summary(options, summary, spark)
    else:
        _write(found, "_summary.json", summary_text(summary))
    return summary


def _verify_and_write(spark: SparkSession, found: DirectInput, plan: DirectPlan, phases: dict[str, float]) -> list[Count]:
    """Every task run; their counts' rows. Remote ranges learn their first lines in one barrier
    stage where the tasks fit at once, else from a count job first (line_numbers.py; its time
    in `phases`)."""
    if not plan.tasks:  # no line at all: one empty file, as Spark writes for an empty result
        _empty_part(found, plan.parquet)
        return []
    if line_numbers.needs_counts(plan.tasks):
        if line_numbers.barrier_fits(spark, len(plan.tasks), found.parallelism):
            try:
                return _run_stage(spark, replace(plan, barrier=True))
            except Exception as error:
                if not line_numbers.is_refusal(error):  # refused before any task ran: counted first instead
                    raise
        counting = time.monotonic()
        plan = replace(plan, tasks=line_numbers.count_job(spark, plan.tasks, found.parallelism))
        phases["count_lines"] = time.monotonic() - counting
    return _run_stage(spark, plan)


def _run_stage(spark: SparkSession, plan: DirectPlan) -> list[Count]:
    """The plan's tasks as one stage; their counts' rows. A barrier stage (plan.barrier) hands
    its rows on through a shuffle: Spark restarts a failed barrier stage only when it is a
    shuffle's map stage (a failed barrier result stage aborts the job)."""
    if is_connect(spark):
        rows = run_tasks(spark, len(plan.tasks), functools.partial(write_one, plan), COUNTS_DDL, plan.barrier)
        return [(row[0], row[1], row[2], row[3]) for row in rows]
    indexes = task_indexes(spark, len(plan.tasks))
    if plan.barrier:
        return indexes.barrier().mapPartitions(lambda numbers: task_partition(plan, numbers)).repartition(1).collect()
    return indexes.mapPartitions(lambda numbers: task_partition(plan, numbers)).collect()


def _prepare(found: DirectInput, options: JobOptions) -> None:
    """The output folder made ready (_prepare_output), and its _temporary folder where local."""
    if found.store is not None:
        try:
            _prepare_remote_output(found, options)
        except OSError as error:
            raise ConfigError(explain(error, f"--output {options.output}", found.store)) from error
        return
    _prepare_output(found.output, options, found.files)
    os.makedirs(os.path.join(found.output, TEMPORARY))


def _prepare_remote_output(found: DirectInput, options: JobOptions) -> None:
    """As _prepare_output, on a store: an error where the folder has objects, unless
    --overwrite, which removes them (never when it holds an input); its bucket must exist."""
    from pyarrow import fs

    assert found.store is not None
    filesystem = found.store.filesystem()
    bucket = found.output.split("/", 1)[0]
    if found.store.kind in ("s3", "gcs", "abfs") and filesystem.get_file_info(bucket).type == fs.FileType.NotFound:
        raise ConfigError(f"--output {options.output}: no such bucket {bucket} on {found.store.describe()}")
    info = filesystem.get_file_info(found.output)
    if info.type == fs.FileType.NotFound:
        return
    if not options.overwrite:
        raise ConfigError(f"--output {options.output} already exists (--overwrite replaces it)")
    inside = [file.source for file in found.files if file.store == found.store and file.path.startswith(found.output.rstrip("/") + "/")]
    if inside:
        raise ConfigError(f"--overwrite would remove --output {options.output}, which holds the input {inside[0]}")
    if info.type == fs.FileType.Directory:
        filesystem.delete_dir_contents(found.output, missing_dir_ok=True)
    else:
        filesystem.delete_file(found.output)


def _write(found: DirectInput, name: str, text: str) -> None:
    """A small file the driver writes into the output folder (_SUCCESS, the summary)."""
    path = os.path.join(found.output, name)
    if found.store is None:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)
        return
    with found.store.filesystem().open_output_stream(path) as stream:
        stream.write(text.encode("utf-8"))


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


def _empty_part(found: DirectInput, parquet: ParquetChoices) -> None:
    import pyarrow.parquet as pq

    filesystem = found.store.filesystem() if found.store is not None else None
    pq.write_table(OUTPUT_SCHEMA.empty_table(), os.path.join(found.output, part_name(0)), compression=parquet.compression,
                   filesystem=filesystem)


def _remove_partial(found: DirectInput) -> None:
    """After a failed job: the part files (and the local temporary folder) removed, the output
    folder left empty (as Spark's writer leaves it)."""
    if found.store is not None:
        from pyarrow import fs

        try:
            filesystem = found.store.filesystem()
            for info in filesystem.get_file_info(fs.FileSelector(found.output, allow_not_found=True)):
                if info.base_name.startswith("part-") and info.base_name.endswith(".parquet"):
                    filesystem.delete_file(info.path)
        except OSError:
            pass
        return
    output = found.output
    shutil.rmtree(os.path.join(output, TEMPORARY), ignore_errors=True)
    for name in os.listdir(output) if os.path.isdir(output) else []:
        if name.startswith("part-") and name.endswith(".parquet"):
            try:
                os.unlink(os.path.join(output, name))
            except OSError:
                pass
