"""The Spark job: check the configuration on the driver, then either the direct path (lines to
Parquet, local files or a store's, classic or over Spark Connect: direct.py) or Spark's: read the input, pipe every partition through
`tokenverify verify` (mapInArrow), write the answers, and count them by reason."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Sequence

from . import direct
from . import options as options_module
from .arrow_child import ARROW_FLAGS, empty_stream_problem
from .child import run_once
from .options import ConfigError, JobOptions
from .partitions import TaskPlan, lines_partition, table_partition
from .protocol import ANSWER_FIELDS, ANSWER_SCHEMA, CONTEXT_COLUMNS
from .plan import NotDirect
from .ship import Shipment, is_archive, ship, unpack_locally
from .sizing import input_sizes, line_offsets, local_line_offsets, single_split_size, split_size
from .summary import Summary, count_answers, write_summary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def _run_check(options: JobOptions, at: str, extra: Sequence[str] = ()) -> subprocess.CompletedProcess[bytes]:
    """The binary run once on the driver with the job's flags (and `extra`) on empty input."""
    binary = options.tokenverify
    if not os.path.isfile(binary):
        raise ConfigError(f"--tokenverify {binary}: no such file")
    if is_archive(binary):
        try:
            binary = unpack_locally(binary)
        except (OSError, ValueError) as error:
            raise ConfigError(f"--tokenverify {options.tokenverify}: {error}") from error
    for path in options.shipped_files():
        if not os.path.isfile(path):
            raise ConfigError(f"{path}: no such file")
    try:
        return run_once([*options.verify_argv(os.path.abspath(binary), os.path.abspath, at, 1), *extra])
    except OSError as error:
        raise ConfigError(f"cannot run {binary}: {error}") from error


def check_configuration(options: JobOptions, at: str) -> None:
    """Runs the binary once on the driver with the job's flags and no input: a bad key file, a
    bad flag or a binary that does not run fails here, before any task, with its own message."""
    result = _run_check(options, at)
    if result.returncode != 0 or result.stdout:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise ConfigError(message or f"{options.tokenverify} verify exited with status {result.returncode} on empty input")


def arrow_output_problem(options: JobOptions, at: str, result: subprocess.CompletedProcess[bytes]) -> str | None:
    """What the configuration check with `--output-format arrow` (the direct path's children)
    found: None when the binary answered empty input with an empty Arrow stream of the expected
    columns; else why it cannot serve the direct path, once check_configuration has passed (it
    raises ConfigError where the configuration itself is bad)."""
    problem = empty_stream_problem(result.stdout) if result.returncode == 0 else None
    if result.returncode == 0 and problem is None:
        return None
    check_configuration(options, at)
    if problem is None:
        message = result.stderr.decode("utf-8", "replace").strip()
        problem = f"exit status {result.returncode}" + (f": {message}" if message else "")
    return f"{options.tokenverify} cannot answer with --output-format arrow ({problem})"


def direct_input(spark: SparkSession, options: JobOptions, at: str) -> direct.DirectInput | None:
    """Runs the configuration check and picks the path: the direct path's input, planned, where
    it runs the job; None where Spark reads and writes (--direct off; auto where the direct path
    cannot run, said on stderr for lines to Parquet). With --direct on, ConfigError saying why
    not. The check (the binary with `--output-format arrow` on empty input, which also checks
    the configuration) runs while the driver inspects and plans the input; a bad configuration
    is reported before any problem with the input."""
    if options.direct == "off":
        check_configuration(options, at)
        return None
    found: direct.DirectInput | None = None
    reason: str | None = None
    planning: ConfigError | None = None
    with ThreadPoolExecutor(1, thread_name_prefix="tokenverify-check") as pool:
        arrow_check = pool.submit(_run_check, options, at, ARROW_FLAGS)
        try:
            found = direct.plan(spark, direct.inspect(spark, options))
        except NotDirect as error:
            reason = str(error)
        except ConfigError as error:
            planning = error
        problem = arrow_output_problem(options, at, arrow_check.result())
    if reason is None and planning is None:
        reason = problem
    if reason is not None:
        if options.direct == "on":
            raise ConfigError(f"--direct on: the direct path cannot run this job: {reason}")
        if options.input_format == "lines" and options.output_format == "parquet":
            print(f"tokenverify-spark: Spark reads and writes (the direct path cannot: {reason})", file=sys.stderr)
        return None
    if planning is not None:
        raise planning
    return found


def read_lines(spark: SparkSession, inputs: Sequence[str]) -> DataFrame:
    from pyspark.sql import functions as F

    return spark.read.option("lineSep", "\n").text(list(inputs)).select(
        F.col("_metadata.file_path").alias("file_path"),
        F.col("_metadata.file_block_start").alias("block_start"),
        F.col("value").cast("binary").alias("value"),
        F.col("_metadata.file_size").alias("file_size"),
    )


def read_table(spark: SparkSession, options: JobOptions) -> DataFrame:
    if options.input_format == "parquet":
        return spark.read.parquet(*options.inputs)
    return spark.read.option("header", True).csv(list(options.inputs))


def verify(spark: SparkSession, options: JobOptions, at: str | None = None) -> tuple[DataFrame, str]:
    """The answers DataFrame (lazy) and the check time every task uses; runs the configuration
    check first unless given the check time (then the caller has checked)."""
    if at is None:
        at = options.at or str(int(time.time()))
        check_configuration(options, at)
    threads = child_threads(spark, options)
    if options.input_format == "lines":
        lines = read_lines(spark, options.inputs)
        shipment = shipped(spark, options)
        offsets = _line_offsets(spark, lines)
        plan = TaskPlan(options, shipment, at, threads, offsets)
        answers = lines.select("file_path", "block_start", "value").mapInArrow(
            lambda batches: lines_partition(plan, batches), f"source string, line bigint, {ANSWER_SCHEMA}")
        return answers, at
    table = read_table(spark, options)
    if options.token_column not in table.columns:
        raise ConfigError(f"the input has no column {options.token_column!r} (--token-column); "
                          f"its columns: {', '.join(table.columns)}")
    clash = [name for name in ANSWER_FIELDS if name in table.columns]
    if clash:
        raise ConfigError(f"the input already has columns named like the answer's: {', '.join(clash)}")
    shipment = shipped(spark, options)
    context = tuple(name for name in CONTEXT_COLUMNS if name in table.columns)
    plan = TaskPlan(options, shipment, at, threads, {}, options.token_column, context)
    from pyspark.sql.types import BooleanType, DoubleType, StringType, StructField, StructType

    types = {"valid": BooleanType(), "exp": DoubleType()}
    answer_fields = [StructField(name, types.get(name, StringType())) for name in ANSWER_FIELDS]
    return table.mapInArrow(lambda batches: table_partition(plan, batches),
                            StructType([*table.schema.fields, *answer_fields])), at


def _line_offsets(spark: SparkSession, lines: DataFrame) -> dict[tuple[str, int], int]:
    """The line offset of every split after a file's first: none where every file is one split;
    counted here for local uncompressed files (no Spark job); else by a counting pass."""
    sizes = input_sizes(spark, lines)
    single_split = single_split_size(spark, sizes)
    if sizes is not None and max(sizes.values(), default=0) <= single_split:
        return {}
    exact = split_size(spark, sizes)
    local = local_line_offsets(spark, sizes, exact) if sizes is not None and exact is not None else None
    return local if local is not None else line_offsets(lines, single_split)


def child_threads(spark: SparkSession, options: JobOptions) -> int:
    """The verify threads of each child: --child-threads, else spark.task.cpus."""
    return options.child_threads or int(spark.conf.get("spark.task.cpus", "1") or "1")


def shipped(spark: SparkSession, options: JobOptions) -> Shipment:
    """The binary and the state files shipped with the job, keyed by the paths as the options
    give them (what verify_argv resolves)."""
    shipment = ship(spark, os.path.abspath(options.tokenverify), [os.path.abspath(p) for p in options.shipped_files()])
    names = {path: shipment.names[os.path.abspath(path)] for path in options.shipped_files()}
    return Shipment(names, shipment.tokenverify_name, shipment.tokenverify_is_archive)


# Columns whose values are (nearly) all different: a Parquet dictionary for them costs a hash
# lookup a value and is given up once it outgrows its page (jti names one token, sub and aud one
# device and object of a fleet, line one line), so they are written plain from the start.
UNIQUE_COLUMNS = ("jti", "sub", "aud")


def plain_columns(options: JobOptions) -> tuple[str, ...]:
    """The output columns written without a Parquet dictionary (on either path)."""
    return UNIQUE_COLUMNS + (("line",) if options.input_format == "lines" else ())


def parquet_options(options: JobOptions) -> dict[str, str]:
    """The Parquet writer's options (Hadoop settings; `#column` for one column)."""
    return {f"parquet.enable.dictionary#{name}": "false" for name in plain_columns(options)}


def run(spark: SparkSession, options: JobOptions) -> Summary:
    """Runs the whole job; raises ConfigError before any task when the configuration is bad."""
    started = time.monotonic()
    at = options.at or str(int(time.time()))
    found = direct_input(spark, options, at)
    if found is not None:
        return direct.run(spark, options, found, shipped(spark, options), at, child_threads(spark, options),
                          plain_columns(options), started)
    answers, at = verify(spark, options, at)
    planned = time.monotonic()
    writer = answers.write.mode("overwrite" if options.overwrite else "error")  # Connect knows "error", not "errorifexists"
    if options.output_format == "parquet":
        writer.options(**parquet_options(options)).parquet(options.output)
    else:
        writer.json(options.output)
    written = time.monotonic()
    summary = count_answers(spark, options, 0.0, at)
    ended = time.monotonic()
    summary = dataclasses.replace(summary, seconds=ended - started, phases={
        "check_and_plan": planned - started, "verify_and_write": written - planned, "count": ended - written})
    write_summary(options, summary, spark)
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    options = options_module.parse(sys.argv[1:] if argv is None else argv)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("tokenverify")
    if options.remote:  # Spark Connect: the DataFrame API only; the files go as artifacts (ship.py)
        builder = builder.remote(options.remote)
    spark = builder.getOrCreate()
    try:
        summary = run(spark, options)
    except ConfigError as error:
        print(f"tokenverify-spark: {error}", file=sys.stderr)
        return 2
    print(summary.line(), file=sys.stderr)
    print(f"tokenverify-spark: check time {summary.at}; wrote {options.output} "
          f"({options.output_format}) and {options.output.rstrip('/')}/_summary.json", file=sys.stderr)
    return 0
