"""Input sizing: which files Spark reads as one split, and the line offset of every other
split, so that each row gets its line number in its file."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .partitions import source_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


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
