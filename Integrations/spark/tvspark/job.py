"""The Spark job: read the input, check the configuration on the driver, pipe every partition
through `tokenverify verify` (mapInArrow), write the answers, and count them by reason."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from . import options as options_module
from .child import VerifyError, VerifyProcess, run_once
from .options import JobOptions
from .protocol import ANSWER_FIELDS, ANSWER_SCHEMA, CONTEXT_COLUMNS
from .ship import Shipment, is_archive, ship, unpack_locally

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from .request_batch import RequestBatch

# Reason codes in check order (SPEC §5), for the summary's order; unknown codes follow.
REASON_ORDER = (
    "malformed_request", "malformed_token", "unsupported_alg", "bad_header", "unknown_key",
    "key_alg_mismatch", "wrong_environment", "wrong_issuer", "not_yet_valid", "expired",
    "revoked_key", "revoked_token", "revoked_device", "revoked_object", "revoked_grant",
    "wrong_device", "wrong_object", "channel_not_permitted", "command_not_permitted", "step_required",
    "bad_signature",
)


class ConfigError(Exception):
    """The job cannot start; the message is for the user (tokenverify's own where it has one)."""


@dataclass(frozen=True)
class TaskPlan:
    """Everything a task needs, pickled with the partition function."""

    options: JobOptions
    shipment: Shipment
    at: str
    threads: int
    line_offsets: dict[tuple[str, int], int]
    token_column: str = "token"
    context_columns: tuple[str, ...] = ()

    def process(self) -> VerifyProcess[Any]:
        return VerifyProcess(self.options.verify_argv(self.shipment.binary(), self.shipment.resolve,
                                                      self.at, self.threads))


def source_name(file_path: str) -> str:
    """The input file's path as the user gave it: a local file's plain path, else its URI."""
    if file_path.startswith("file:"):
        return urllib.parse.unquote(urllib.parse.urlparse(file_path).path)
    return file_path


class _FailOnce:
    """Tests only: makes partition 0's first attempt fail after its first output batch."""

    def __init__(self, directory: str | None) -> None:
        from pyspark import TaskContext

        context = TaskContext.get()
        self.armed = bool(directory and context and context.partitionId() == 0 and context.attemptNumber() == 0)
        self.marker = os.path.join(directory, "failed-once") if directory else ""

    def after_batch(self) -> None:
        if self.armed:
            with open(self.marker, "x"):
                pass
            raise RuntimeError("tokenverify-spark: forced failure of partition 0, attempt 0 (--test-fail-once)")


def lines_partition(plan: TaskPlan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """file_path, block_start, value (one row per line of a file split, in file order) in;
    source, line and the answer's columns out, one row per non-blank line."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .answer_batch import ANSWER_ARROW_FIELDS, answer_columns
    from .request_batch import line_requests

    def requests() -> Iterator[tuple[tuple[pa.Array, pa.Array], RequestBatch]]:
        split: tuple[str, int] | None = None
        number = 0  # the line number of the split's last row so far
        seq = 1
        for batch in batches:
            rows = batch.num_rows
            if not rows:
                continue
            paths, values = batch.column(0), batch.column(2)
            starts = batch.column(1).to_numpy(zero_copy_only=False)
            # runs of rows from one file split (a partition may read several splits in turn)
            changes = np.zeros(rows, bool)
            if rows > 1:
                changes[1:] = pc.not_equal(paths.slice(1), paths.slice(0, rows - 1)).to_numpy(zero_copy_only=False)
                changes[1:] |= starts[1:] != starts[:-1]
            firsts = np.flatnonzero(changes | (np.arange(rows) == 0))
            ends = np.append(firsts[1:], rows)
            numbers = np.empty(rows, np.int64)
            names = []
            for first, end in zip(firsts, ends):
                here = (paths[int(first)].as_py(), int(starts[first]))
                if here != split:
                    split = here
                    if here[1] == 0:
                        number = 0
                    elif here in plan.line_offsets:
                        number = plan.line_offsets[here]
                    else:
                        raise VerifyError(f"no line count for split {here} (the input changed while the job ran?)")
                names.append(source_name(here[0]))
                numbers[first:end] = np.arange(number + 1, number + 1 + end - first)
                number += int(end - first)
            keep, request_batch = line_requests(values, seq, plan.options.max_line_bytes)
            seq += request_batch.count
            run_of_row = np.repeat(np.arange(len(firsts)), ends - firsts)
            sources = pa.array(names, pa.string()).take(pa.array(run_of_row[keep]))
            yield (sources, pa.array(numbers[keep])), request_batch

    fail_once = _FailOnce(plan.options.fail_once_dir)
    schema = pa.schema([pa.field("source", pa.string()), pa.field("line", pa.int64()), *ANSWER_ARROW_FIELDS])
    for (sources, lines), answers in plan.process().run(requests()):
        yield pa.RecordBatch.from_arrays([sources, lines, *answer_columns(answers).columns], schema=schema)
        fail_once.after_batch()


def table_partition(plan: TaskPlan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A table's rows in; the same rows with the answer's columns added out."""
    import pyarrow as pa

    from .answer_batch import ANSWER_ARROW_FIELDS, answer_columns
    from .request_batch import table_requests

    def requests() -> Iterator[tuple[pa.RecordBatch, RequestBatch]]:
        seq = 1
        for batch in batches:
            request_batch = table_requests(batch, plan.token_column, plan.context_columns, seq)
            seq += request_batch.count
            yield batch, request_batch

    fail_once = _FailOnce(plan.options.fail_once_dir)
    for batch, answers in plan.process().run(requests()):
        schema = pa.schema([*batch.schema, *ANSWER_ARROW_FIELDS])
        yield pa.RecordBatch.from_arrays([*batch.columns, *answer_columns(answers).columns], schema=schema)
        fail_once.after_batch()


def check_configuration(options: JobOptions, at: str) -> None:
    """Runs the binary once on the driver with the job's flags and no input: a bad key file, a
    bad flag or a binary that does not run fails here, before any task, with its own message."""
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
        result = run_once(options.verify_argv(os.path.abspath(binary), os.path.abspath, at, 1))
    except OSError as error:
        raise ConfigError(f"cannot run {binary}: {error}") from error
    if result.returncode != 0 or result.stdout:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise ConfigError(message or f"{binary} verify exited with status {result.returncode} on empty input")


def input_sizes(spark: SparkSession, lines: DataFrame) -> list[int] | None:
    """The size of every input file, from Spark's own listing (inputFiles, no job): local files
    with os.stat, others through the JVM's Hadoop file system; None where neither is possible."""
    sizes = []
    for uri in lines.inputFiles():
        if uri.startswith("file:"):
            sizes.append(os.path.getsize(source_name(uri)))
            continue
        try:
            jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]
            path = jvm.org.apache.hadoop.fs.Path(uri)
            configuration = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[attr-defined]
            sizes.append(path.getFileSystem(configuration).getFileStatus(path).getLen())
        except Exception:  # noqa: BLE001 - Spark Connect: no JVM here
            return None
    return sizes


def single_split_size(spark: SparkSession, sizes: list[int] | None) -> int:
    """A size up to which Spark reads a file as one split, never more than the one it uses: its
    own rule (FilePartition.maxSplitBytes: min(maxPartitionBytes, max(openCostInBytes, bytes per
    core))) over the input's sizes, or min(maxPartitionBytes, openCostInBytes) where the sizes or
    the session's parallelism are unknown."""
    max_partition = _bytes(spark.conf.get("spark.sql.files.maxPartitionBytes", "128m") or "128m")
    open_cost = _bytes(spark.conf.get("spark.sql.files.openCostInBytes", "4m") or "4m")
    configured = (spark.conf.get("spark.sql.files.minPartitionNum", None)
                  or spark.conf.get("spark.sql.leafNodeDefaultParallelism", None))
    parallelism: int | None = int(configured) if configured else None
    if not parallelism:
        try:
            parallelism = int(spark.sparkContext.defaultParallelism)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - no SparkContext over Spark Connect
            parallelism = None
    if sizes is None or not parallelism:
        return min(max_partition, open_cost)
    total = sum(sizes) + len(sizes) * open_cost
    return min(max_partition, max(open_cost, total // max(1, parallelism)))


def _bytes(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    text = text.strip().lower().removesuffix("b")
    return int(text[:-1]) * units[text[-1]] if text and text[-1] in units else int(text)


def line_offsets(lines: DataFrame, single_split: int) -> dict[tuple[str, int], int]:
    """For each split after the first of each file, the number of lines before it in its file,
    from one pass that only counts: Spark reads a split's lines in order, so a row's line number
    is its split's offset plus its place in the split (the first split's offset is 0). Files no
    larger than `single_split` are one split and are left out of the pass (Spark prunes them by
    their size before reading)."""
    from pyspark.sql import functions as F

    big = lines.where(F.col("file_size") > single_split)
    counts: dict[str, list[tuple[int, int]]] = {}
    for row in big.groupBy("file_path", "block_start").count().collect():
        counts.setdefault(row["file_path"], []).append((row["block_start"], row["count"]))
    offsets: dict[tuple[str, int], int] = {}
    for path, splits in counts.items():
        before = 0
        for start, count in sorted(splits):
            offsets[(path, start)] = before
            before += count
    return offsets


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


def verify(spark: SparkSession, options: JobOptions) -> tuple[DataFrame, str]:
    """The answers DataFrame (lazy) and the check time every task uses."""
    at = options.at or str(int(time.time()))
    check_configuration(options, at)
    threads = options.child_threads or int(spark.conf.get("spark.task.cpus", "1") or "1")
    if options.input_format == "lines":
        lines = read_lines(spark, options.inputs)
        shipment = ship(spark, os.path.abspath(options.tokenverify), [os.path.abspath(p) for p in options.shipped_files()])
        shipment = _keyed_by_given_paths(shipment, options)
        sizes = input_sizes(spark, lines)
        single_split = single_split_size(spark, sizes)
        offsets = {} if sizes is not None and max(sizes, default=0) <= single_split else line_offsets(lines, single_split)
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
    shipment = ship(spark, os.path.abspath(options.tokenverify), [os.path.abspath(p) for p in options.shipped_files()])
    shipment = _keyed_by_given_paths(shipment, options)
    context = tuple(name for name in CONTEXT_COLUMNS if name in table.columns)
    plan = TaskPlan(options, shipment, at, threads, {}, options.token_column, context)
    from pyspark.sql.types import BooleanType, DoubleType, StringType, StructField, StructType

    types = {"valid": BooleanType(), "exp": DoubleType()}
    answer_fields = [StructField(name, types.get(name, StringType())) for name in ANSWER_FIELDS]
    return table.mapInArrow(lambda batches: table_partition(plan, batches),
                            StructType([*table.schema.fields, *answer_fields])), at


def _keyed_by_given_paths(shipment: Shipment, options: JobOptions) -> Shipment:
    """The shipment keyed by the paths as the options give them (what verify_argv resolves)."""
    names = {path: shipment.names[os.path.abspath(path)] for path in options.shipped_files()}
    return Shipment(names, shipment.tokenverify_name, shipment.tokenverify_is_archive)


@dataclass(frozen=True)
class Summary:
    answered: int
    valid: int
    reasons: dict[str, int]
    seconds: float
    at: str
    phases: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.reasons.items())
        rate = self.answered / self.seconds if self.seconds > 0 else 0.0
        return (f"tokenverify-spark: {self.answered} answered ({self.valid} valid, "
                f"{self.answered - self.valid} invalid) in {self.seconds:.2f} s, {rate:.0f} tokens/s"
                + (f"; {reasons}" if reasons else ""))

    def as_json(self) -> dict[str, Any]:
        return {"answered": self.answered, "valid": self.valid, "invalid": self.answered - self.valid,
                "reasons": self.reasons, "seconds": round(self.seconds, 3), "at": self.at,
                "phases_seconds": {name: round(value, 3) for name, value in self.phases.items()}}


def count_answers(spark: SparkSession, options: JobOptions, seconds: float, at: str) -> Summary:
    """Counts by reason, read back from the written output (exact under task retries)."""
    if options.output_format == "parquet":
        written = spark.read.parquet(options.output)
    else:
        written = spark.read.schema("valid boolean, reason string").json(options.output)
    rows = written.groupBy("valid", "reason").count().collect()
    counts: dict[str, int] = {}
    valid = 0
    for row in rows:
        if row["valid"]:
            valid += row["count"]
        else:
            reason = row["reason"] or "unknown"
            counts[reason] = counts.get(reason, 0) + row["count"]
    ordered = {reason: counts[reason] for reason in REASON_ORDER if reason in counts}
    ordered.update({reason: count for reason, count in sorted(counts.items()) if reason not in ordered})
    return Summary(answered=valid + sum(counts.values()), valid=valid, reasons=ordered, seconds=seconds, at=at)


def write_summary(options: JobOptions, summary: Summary, spark: SparkSession) -> None:
    text = json.dumps(summary.as_json(), indent=2) + "\n"
    target = options.output.rstrip("/") + "/_summary.json"
    local = target[len("file:"):] if target.startswith("file:") else target
    if "://" not in target or target.startswith("file:"):
        with open(local, "w", encoding="utf-8") as file:
            file.write(text)
        return
    jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]  # a remote file system (hdfs://, s3a://)
    path = jvm.org.apache.hadoop.fs.Path(target)
    stream = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).create(path, True)  # type: ignore[attr-defined]
    stream.write(bytearray(text.encode("utf-8")))
    stream.close()


def run(spark: SparkSession, options: JobOptions) -> Summary:
    """Runs the whole job; raises ConfigError before any task when the configuration is bad."""
    started = time.monotonic()
    answers, at = verify(spark, options)
    planned = time.monotonic()
    writer = answers.write.mode("overwrite" if options.overwrite else "errorifexists")
    if options.output_format == "parquet":
        writer.parquet(options.output)
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

    spark = SparkSession.builder.appName("tokenverify").getOrCreate()
    try:
        summary = run(spark, options)
    except ConfigError as error:
        print(f"tokenverify-spark: {error}", file=sys.stderr)
        return 2
    print(summary.line(), file=sys.stderr)
    print(f"tokenverify-spark: check time {summary.at}; wrote {options.output} "
          f"({options.output_format}) and {options.output.rstrip('/')}/_summary.json", file=sys.stderr)
    return 0
