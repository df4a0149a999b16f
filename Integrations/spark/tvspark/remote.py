"""The direct path on a remote store (store.py): listing the inputs as Spark lists them, finding
line starts near each cut by reading a small window there, counting the lines of ranges in the
tasks, streaming a range into a child, and putting a finished part file in place.

Nothing here reads a whole input on the driver. Line numbers: a file's first range starts at
line 0; the task that verifies a range counts its lines as it streams them (the feeder sees
every byte), and the lines before a later range are the lines of its file's earlier ranges,
which other tasks count (line_numbers.py says how they learn them: from one another in a
barrier stage, or from a short count job before the verify job). A single-range file (most
files of a folder) needs no count.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from .line_scan import NewlineCounter, starts_at_cuts
from .options import ConfigError
from .plan import ByteRange, LocalFile, NotDirect, is_hidden, is_pattern
from .store import Location, Store, StoreError, explain, locate

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Bytes a task reads from the store at a time (one request each, the next one already on its
# way while the child takes this one), and the window read to find a line start after a cut.
READ_CHUNK = 32 << 20
WINDOW = 1 << 16


def list_inputs(name: str, spark: SparkSession | None) -> list[LocalFile]:
    """The files a remote --input names, as Spark lists them (a file, or a folder's files in
    name order, hidden names left out); ConfigError where it is missing or cannot be read (a
    denied bucket), NotDirect where Spark would read it otherwise (a pattern, a subfolder)."""
    from pyarrow import fs

    if is_pattern(name):
        raise NotDirect(f"--input {name} is a pattern (Spark expands it)")
    try:
        where = locate(name, spark)
    except StoreError as error:
        raise NotDirect(str(error)) from error
    try:
        filesystem = where.store.filesystem()
    except (OSError, StoreError, AttributeError, ImportError) as error:  # no libhdfs, a pyarrow without Azure, …
        raise NotDirect(f"--input {name}: pyarrow cannot reach {where.store.describe()} here ({error})") from error
    try:
        info = filesystem.get_file_info(where.path)
        if info.type == fs.FileType.NotFound:
            raise ConfigError(f"--input {name}: no such object or folder on {where.store.describe()}")
        entries = [info]
        if info.type == fs.FileType.Directory:
            entries = sorted(filesystem.get_file_info(fs.FileSelector(where.path)), key=lambda entry: entry.path)
    except OSError as error:
        raise ConfigError(explain(error, f"--input {name}", where.store)) from error
    files = []
    for entry in entries:
        if is_hidden(entry.base_name):
            if entry is info:
                raise NotDirect(f"--input {name}: Spark leaves out names that start with _ or .")
            continue
        if entry.type == fs.FileType.Directory:
            raise NotDirect(f"{entry.base_name} in --input {name} is a folder (Spark reads a folder's subfolders as partitions)")
        files.append(LocalFile(entry.path, entry.size, entry.mtime_ns or 0, where.store, where.source(entry.path)))
    return files


def line_starts(file: LocalFile, cuts: Sequence[int]) -> list[int]:
    """As ranges.line_starts, for a remote file: a window read around each cut, no more."""
    assert file.store is not None
    if not file.size:
        return []
    try:
        reader = file.store.filesystem().open_input_file(file.path)
        return starts_at_cuts(
            cuts,
            file.size,
            lambda position: reader.read_at(min(WINDOW, file.size - position), position),
            lambda position: f"{file.source} ends at byte {position}, not at the {file.size} listed",
        )
    except OSError as error:
        raise ValueError(explain(error, file.source, file.store)) from error


@dataclass(frozen=True)
class CountSpan:
    """Bytes `start` to `end` of a remote file, inside range `range_index`: a count task's work."""

    range_index: int
    file: LocalFile
    start: int
    end: int


def count_spans(ranges: Sequence[ByteRange], parallelism: int) -> list[CountSpan]:
    """The spans whose lines must be counted for every range to know its first line: each
    range of a remote file but its last, cut into about equal spans, about one a core."""
    wanted = [piece for piece in ranges if piece.file.store is not None and piece.end < piece.file.size]
    total = sum(piece.end - piece.start for piece in wanted)
    if not total:
        return []
    size = max(1 << 20, -(-total // max(1, parallelism)))
    spans: list[CountSpan] = []
    for piece in wanted:
        parts = max(1, -(-(piece.end - piece.start) // size))
        cuts = [piece.start + (piece.end - piece.start) * part // parts for part in range(parts + 1)]
        spans.extend(CountSpan(piece.index, piece.file, start, end) for start, end in zip(cuts, cuts[1:]))
    return spans


def count_newlines(span: CountSpan) -> int:
    """The `\\n`s in a span (a count task)."""
    counter = NewlineCounter()
    return sum(counter.count(chunk) for chunk in read_chunks(span.file, span.start, span.end))


def span_lines(spans: Sequence[CountSpan], counts: Sequence[int]) -> dict[int, int]:
    """The lines of each counted range (by its index): the `\\n`s of its spans added up."""
    lines: dict[int, int] = {}
    for span, count in zip(spans, counts):
        lines[span.range_index] = lines.get(span.range_index, 0) + count
    return lines


def with_first_lines(ranges: Sequence[ByteRange], lines: Mapping[int, int]) -> list[ByteRange]:
    """The job's ranges in order, each remote one with its first line: the lines of its file's
    earlier ranges (`lines`, by range index); ValueError where a count is missing."""
    from dataclasses import replace

    result: list[ByteRange] = []
    for piece in ranges:
        if piece.file.store is not None and piece.start:
            before = result[-1]
            if before.file != piece.file or before.end != piece.start or before.index not in lines:
                raise ValueError(f"{piece.file.source}: no count for the range before byte {piece.start}")
            piece = replace(piece, first_line=before.first_line + lines[before.index])
        result.append(piece)
    return result


def read_chunks(file: LocalFile, start: int, end: int, counted: Callable[[int], None] | None = None) -> Iterator[memoryview]:
    """Bytes `start` to `end` of a remote file in pieces of READ_CHUNK bytes at most, the next
    one read while the caller uses this one; ValueError when the file is shorter or changed
    since the job was planned. Two buffers made once take turns (no new memory a piece), so a
    piece is good until the caller asks for the next. With `counted`, the reading thread counts
    the lines of the bytes as the pieces arrive (their `\\n`s, and a last line without one at
    the file's end) and calls `counted(lines)` once the last piece is in, before the caller has
    used it."""
    assert file.store is not None
    filesystem = file.store.filesystem()
    info = filesystem.get_file_info(file.path)
    if (info.size, info.mtime_ns or 0) != (file.size, file.mtime_ns):
        raise ValueError(f"{file.source} changed since the job was planned ({info.size} bytes, {file.size} planned)")
    reader = filesystem.open_input_file(file.path)
    offsets = list(range(start, end, READ_CHUNK))
    buffers = [bytearray(min(READ_CHUNK, end - start)) for _ in offsets[:2]]
    lines = _LineCount(counted, end == file.size, len(offsets))

    def fill(number: int) -> memoryview:  # only the one reading thread moves the reader
        offset = offsets[number]
        piece = memoryview(buffers[number % 2])[:min(READ_CHUNK, end - offset)]
        reader.seek(offset)
        got = 0
        while got < len(piece):
            read = reader.readinto(piece[got:])
            if not read:
                raise ValueError(f"{file.source} ends at byte {offset + got}, before byte {end}")
            got += read
        lines.add(piece)
        return piece

    with ThreadPoolExecutor(1, thread_name_prefix="tokenverify-read") as pool:
        pending = pool.submit(fill, 0) if offsets else None
        for number in range(len(offsets)):
            assert pending is not None
            piece = pending.result()
            pending = pool.submit(fill, number + 1) if number + 1 < len(offsets) else None
            yield piece


class _LineCount:
    """The lines of a range's pieces, counted as they are read; `counted(lines)` called after
    the last of `pieces` (at once where there are none)."""

    def __init__(self, counted: Callable[[int], None] | None, at_file_end: bool, pieces: int) -> None:
        self.counted = counted
        self.at_file_end = at_file_end
        self.left = pieces
        self.lines = 0
        self.counter = NewlineCounter() if counted is not None else None
        if counted is not None and not pieces:
            counted(0)

    def add(self, piece: memoryview) -> None:
        if self.counter is None or self.counted is None:
            return
        self.lines += self.counter.count(piece)
        self.left -= 1
        if not self.left:
            self.counted(self.lines + int(self.at_file_end and piece[-1] != 10))


def feed_range(piece: ByteRange, write: Callable[[Any], None], counted: Callable[[int], None]) -> None:
    """Streams a remote range through `write` (a `\\n` added after a file's last line that has
    none, as for local files); `counted(lines)` gets the range's lines as soon as its last piece
    is read (read_chunks)."""
    last = 10
    for chunk in read_chunks(piece.file, piece.start, piece.end, counted):
        last = chunk[-1]
        write(chunk)
    if piece.end == piece.file.size and last != 10:
        write(b"\n")


def scratch_folder() -> str | None:
    """Where a task keeps its local files: SPARK_LOCAL_DIRS' first folder, as Spark's own
    scratch space, else None (the temporary folder)."""
    return (os.environ.get("SPARK_LOCAL_DIRS") or "").split(",")[0] or None


def staged_part() -> str:
    """A local file to write a part in before it goes to the store (in the scratch folder)."""
    handle, path = tempfile.mkstemp(prefix="tokenverify-part-", suffix=".parquet", dir=scratch_folder())
    os.close(handle)
    return path


def upload(local: str, store: Store, target: str) -> None:
    """Puts a finished local file at `target` in the store: the object appears only once all of
    it is there (one PUT, or a multipart upload completed at the end)."""
    from pyarrow import fs

    fs.copy_files(local, target, source_filesystem=fs.LocalFileSystem(), destination_filesystem=store.filesystem())


def output_location(name: str, spark: SparkSession | None) -> Location:
    try:
        return locate(name, spark)
    except StoreError as error:
        raise NotDirect(str(error)) from error
