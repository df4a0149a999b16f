"""Input sizing: which files Spark reads as one split, and the line offset of every other
split, so that each row gets its line number in its file."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from .partitions import source_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_COUNT_CHUNK = 1 << 24


def input_sizes(spark: SparkSession, lines: DataFrame) -> dict[str, int] | None:
    """The size of every input file by its URI, from Spark's own listing (inputFiles, no job):
    local files with os.stat, others through the JVM's Hadoop file system; None where neither
    is possible."""
    sizes = {}
    for uri in lines.inputFiles():
        if uri.startswith("file:"):
            sizes[uri] = os.path.getsize(source_name(uri))
            continue
        try:
            jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]
            path = jvm.org.apache.hadoop.fs.Path(uri)
            configuration = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[attr-defined]
            sizes[uri] = path.getFileSystem(configuration).getFileStatus(path).getLen()
        except Exception:  # noqa: BLE001 - Spark Connect: no JVM here
            return None
    return sizes


def single_split_size(spark: SparkSession, sizes: Mapping[str, int] | None) -> int:
    """A size up to which Spark reads a file as one split, never more than the one it uses:
    `split_size` where it is known, else min(maxPartitionBytes, openCostInBytes)."""
    exact = split_size(spark, sizes)
    if exact is not None:
        return exact
    return min(conf_bytes(spark, "spark.sql.files.maxPartitionBytes", "128m"),
               conf_bytes(spark, "spark.sql.files.openCostInBytes", "4m"))


def split_size(spark: SparkSession, sizes: Mapping[str, int] | None) -> int | None:
    """The size of the splits Spark cuts the input's files into, by its own rule
    (FilePartition.maxSplitBytes: min(maxPartitionBytes, max(openCostInBytes, bytes per core)))
    over the input's sizes; None where the sizes or the session's parallelism are unknown."""
    max_partition = conf_bytes(spark, "spark.sql.files.maxPartitionBytes", "128m")
    open_cost = conf_bytes(spark, "spark.sql.files.openCostInBytes", "4m")
    configured = (spark.conf.get("spark.sql.files.minPartitionNum", None)
                  or spark.conf.get("spark.sql.leafNodeDefaultParallelism", None))
    parallelism: int | None = int(configured) if configured else None
    if not parallelism:
        try:
            parallelism = int(spark.sparkContext.defaultParallelism)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - no SparkContext over Spark Connect
            parallelism = None
    if sizes is None or not parallelism:
        return None
    total = sum(sizes.values()) + len(sizes) * open_cost
    return min(max_partition, max(open_cost, total // max(1, parallelism)))


def conf_bytes(spark: SparkSession, key: str, default: str) -> int:
    """A size setting of the session (`128m`, `4m`, a number of bytes) in bytes."""
    return _bytes(spark.conf.get(key, default) or default)


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


def local_line_offsets(spark: SparkSession, sizes: Mapping[str, int], split: int) -> dict[tuple[str, int], int] | None:
    """The offsets `line_offsets` finds, counted here without a Spark job where every file
    larger than `split` (the exact split size, `split_size`) is a local file that Hadoop reads
    uncompressed; None otherwise (a remote or compressed file, or no JVM to ask: Spark Connect).

    Spark cuts such a file into splits at 0, `split`, 2 × `split`, …, and Hadoop's line reader
    gives a split the lines that start after its first byte and no later than its end (the first
    split: from byte 0), so the lines before a split at byte s are the one at byte 0 and one after
    each `\n` in bytes 0 to s - 1: 1 + that count of `\n`."""
    big = [uri for uri, size in sizes.items() if size > split]
    if not all(uri.startswith("file:") for uri in big):
        return None
    names = _uncompressed_file_paths(spark, big)
    if names is None:
        return None
    offsets: dict[tuple[str, int], int] = {}
    for uri, name in zip(big, names):
        starts = range(split, sizes[uri], split)
        counts = _newlines_before(source_name(uri), starts)
        offsets.update({(name, start): 1 + count for start, count in zip(starts, counts)})
    return offsets


def _uncompressed_file_paths(spark: SparkSession, uris: list[str]) -> list[str] | None:
    """Each file as a task's `_metadata.file_path` names it (`file:/x` where the listing says
    `file:///x`), when Hadoop finds no compression codec for any of them (by the name, as
    Spark's text source does); None where one has a codec or the JVM cannot be asked (Spark
    Connect)."""
    try:
        jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]
        factory = jvm.org.apache.hadoop.io.compress.CompressionCodecFactory(
            spark.sparkContext._jsc.hadoopConfiguration())  # type: ignore[attr-defined]
        if any(factory.getCodec(jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI(uri))) is not None for uri in uris):
            return None
    except Exception:  # noqa: BLE001 - Spark Connect: no JVM here
        return None
    return ["file:" + uri[len("file://"):] if uri.startswith("file:///") else uri for uri in uris]


def _newlines_before(path: str, positions: range) -> list[int]:
    """For each of the ascending `positions`, the number of `\n` bytes before it in the file."""
    counts = []
    buffer = bytearray(_COUNT_CHUNK)
    seen = 0  # bytes of the file read so far
    total = 0  # newlines in them
    with open(path, "rb") as file:
        for position in positions:
            while seen < position:
                wanted = min(len(buffer), position - seen)
                got = file.readinto(memoryview(buffer)[:wanted])
                if not got:
                    raise ValueError(f"{path} is shorter than {position} bytes (it changed while the job started?)")
                total += buffer.count(b"\n", 0, got)
                seen += got
            counts.append(total)
    return counts
