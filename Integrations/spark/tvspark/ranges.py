"""The direct path's plan: the local files an input names (as Spark's text source lists them),
cut into byte ranges at line boundaries, with the number of lines before each range, and the
ranges shared among the job's tasks (a task's ranges are read by one child, one after the other).
The values (files, ranges, tasks) are in plan.py; inputs on a store are listed and cut by
remote.py.
"""

from __future__ import annotations

import os
import stat
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Sequence

from . import remote
from .line_scan import SCAN_CHUNK, NewlineCounter, starts_at_cuts
from .plan import ByteRange, LocalFile, NotDirect, RangeTask, is_hidden, is_pattern
from .store import is_remote

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Bytes read at a time: to count lines, and to find a line start after a cut.
_SCAN_CHUNK = SCAN_CHUNK
_WINDOW = 1 << 16


def local_path(name: str) -> str | None:
    """The absolute local path an --input or --output names: a plain path (relative ones from
    the working directory), or a `file:` URI taken literally as Spark takes it (`file:/x`,
    `file:///x`, no percent-decoding); None for any other scheme. Normalized as Hadoop's Path
    normalizes (`.`, `..`, repeated and trailing slashes)."""
    colon, slash = name.find(":"), name.find("/")
    if colon >= 0 and (slash < 0 or colon < slash):  # Hadoop's Path: a scheme before the first slash
        if name[:colon].lower() != "file":
            return None
        name = name[colon + 1:]
        if name.startswith("//"):
            if not name.startswith("///"):
                return None  # file://HOST/…: another machine's file
            name = name[2:]
        if not name.startswith("/"):
            return None
    absolute = os.path.abspath(name)
    return "/" + absolute.lstrip("/")


def input_files(inputs: Sequence[str], spark: SparkSession | None = None) -> list[LocalFile]:
    """Every file the inputs name, in order: a file itself, a folder's files in name order
    (hidden names left out, as Spark lists a folder); NotDirect where the driver cannot read
    them as Spark would (another file system, a pattern, a subfolder, no such path, not a
    regular file, not readable). Remote URLs are listed on their store (remote.py), with
    Spark's settings for it."""
    files: list[LocalFile] = []
    for name in inputs:
        if is_remote(name):
            files.extend(remote.list_inputs(name, spark))
            continue
        path = local_path(name)
        if path is None:
            raise NotDirect(f"--input {name} is not a local path")
        if is_pattern(name):
            raise NotDirect(f"--input {name} is a pattern (Spark expands it)")
        try:
            info = os.stat(path)
        except OSError as error:
            raise NotDirect(f"--input {name}: {error.strerror or error}") from error
        if stat.S_ISDIR(info.st_mode):
            for entry in sorted(os.listdir(path)):
                if is_hidden(entry):
                    continue
                files.append(_regular_file(os.path.join(path, entry), f"{entry} in --input {name}"))
        else:
            if is_hidden(os.path.basename(path)):
                raise NotDirect(f"--input {name}: Spark leaves out names that start with _ or .")
            files.append(_regular_file(path, f"--input {name}"))
    return files


def _regular_file(path: str, named: str) -> LocalFile:
    try:
        info = os.stat(path)
    except OSError as error:
        raise NotDirect(f"{named}: {error.strerror or error}") from error
    if stat.S_ISDIR(info.st_mode):
        raise NotDirect(f"{named} is a folder (Spark reads a folder's subfolders as partitions)")
    if not stat.S_ISREG(info.st_mode):
        raise NotDirect(f"{named} is not a regular file")
    if not os.access(path, os.R_OK):
        raise NotDirect(f"{named} is not readable here")
    return LocalFile(path, info.st_size, info.st_mtime_ns)


def range_size(total_bytes: int, parallelism: int, max_bytes: int, min_bytes: int) -> int:
    """The size to cut ranges to: the input shared among the cores, but no more than
    `max_bytes` (spark.sql.files.maxPartitionBytes) and no less than `min_bytes`
    (spark.sql.files.openCostInBytes)."""
    per_core = -(-total_bytes // max(1, parallelism))
    return max(1, min(max_bytes, max(min_bytes, per_core)))


def plan_ranges(files: Sequence[LocalFile], size: int) -> list[ByteRange]:
    """Each file cut into about `size`-byte ranges at line starts (a file of n × `size` bytes
    into n equal parts, each moved on to the next line start; a line longer than a part takes
    the cuts inside it), numbered in order; an empty file has none. The ranges' lines are
    counted in parallel, a thread a core, so that the plan reads the input at the speed of all
    the driver's cores. ValueError when a file is not as long as it was listed (it changed
    while the job started)."""
    pieces: list[tuple[LocalFile, int, int]] = []
    for file in files:
        parts = max(1, -(-file.size // size))
        cuts = [file.size * part // parts for part in range(1, parts)]
        if file.store is not None:
            starts = remote.line_starts(file, cuts)
        else:
            starts = line_starts(file, cuts)
        pieces.extend((file, start, end) for start, end in zip(starts, [*starts[1:], file.size]))
    workers = max(1, min(len(pieces), os.cpu_count() or 1))
    if workers > 1:
        with ThreadPoolExecutor(workers, thread_name_prefix="tokenverify-plan") as pool:
            counts = list(pool.map(lambda piece: _lines_here(*piece), pieces))
    else:
        counts = [_lines_here(*piece) for piece in pieces]
    ranges: list[ByteRange] = []
    first_line = 0
    for (file, start, end), (lines, ends_with_newline) in zip(pieces, counts):
        first_line = first_line if start else 0  # a file's ranges come in order, from its start
        if file.store is not None and start:
            first_line = -1  # counted by a Spark job before the verify job (remote.py)
        ranges.append(ByteRange(len(ranges), file, start, end, first_line, lines, ends_with_newline))
        first_line += lines
    return ranges


def group_ranges(ranges: Sequence[ByteRange], max_bytes: int, open_cost: int, parallelism: int) -> list[RangeTask]:
    """The ranges, in order, as the job's tasks. How many: as Spark counts the partitions of a
    file scan, each range costing its bytes plus `open_cost` (spark.sql.files.openCostInBytes)
    and a partition at most max(`open_cost`, the cost a core) and `max_bytes`
    (spark.sql.files.maxPartitionBytes), so that many small files make a few tasks; rounded up
    to a multiple of `parallelism` so that the cores finish together, never more than the
    ranges. The ranges are shared among them in order and in about equal bytes (the work a
    child does): a large file keeps a task a range, small files fill the other tasks."""
    if not ranges:
        return []
    parallelism = max(1, parallelism)
    total_cost = sum(piece.end - piece.start + open_cost for piece in ranges)
    wanted = -(-total_cost // range_size(total_cost, parallelism, max_bytes, open_cost))
    count = min(len(ranges), -(-wanted // parallelism) * parallelism)
    rest = sum(piece.end - piece.start for piece in ranges)
    groups: list[tuple[ByteRange, ...]] = []
    current: list[ByteRange] = []
    current_bytes = 0
    for position, piece in enumerate(ranges):
        length = piece.end - piece.start
        left = count - len(groups)  # groups still to fill, the current one included
        if current and left > 1:
            # the next group starts here when this range's middle lies past the current group's
            # share of the bytes still to share, or when the ranges left are just enough for
            # the groups left
            past_share = (2 * current_bytes + length) * left > 2 * (current_bytes + rest)
            if past_share or len(ranges) - position == left - 1:
                groups.append(tuple(current))
                current, current_bytes = [], 0
        current.append(piece)
        current_bytes += length
        rest -= length
    groups.append(tuple(current))
    return [RangeTask(index, group) for index, group in enumerate(groups)]


def _lines_here(file: LocalFile, start: int, end: int) -> tuple[int, bool]:
    """count_lines for a local file; (-1, True) for a remote one (its tasks count its lines)."""
    return (-1, True) if file.store is not None else count_lines(file, start, end)


def line_starts(file: LocalFile, cuts: Sequence[int]) -> list[int]:
    """The starts of a file's ranges: 0, then the first line start at or after each of the
    ascending `cuts` that is inside the file, each once (a line starts at p when byte p - 1 is
    `\n`); none for an empty file. Reads only around the cuts."""
    with open(file.path, "rb", buffering=0) as reader:
        size = os.fstat(reader.fileno()).st_size
        if size != file.size:
            raise ValueError(f"{file.path} has {size} bytes, not the {file.size} listed (it changed while the job started?)")
        if not size:
            return []
        return starts_at_cuts(
            cuts,
            size,
            lambda position: os.pread(reader.fileno(), _WINDOW, position),
            lambda position: _changed(file, position),
        )


def count_lines(file: LocalFile, start: int, end: int) -> tuple[int, bool]:
    """The lines in bytes `start` to `end` of a file, where `start` is a line start and `end`
    one too or the file's end (its `\n`s, and one more for a last line without `\n`), and
    whether the bytes end with `\n`."""
    buffer = bytearray(min(_SCAN_CHUNK, max(1, end - start)))
    counter = NewlineCounter(len(buffer))
    lines = 0
    last_byte = ord("\n")
    with open(file.path, "rb", buffering=0) as reader:
        position = start
        while position < end:
            view = memoryview(buffer)[:min(len(buffer), end - position)]
            got = os.preadv(reader.fileno(), [view], position)
            if not got:
                raise ValueError(_changed(file, position))
            lines += counter.count(view[:got])
            last_byte = buffer[got - 1]
            position += got
    ends_with_newline = last_byte == ord("\n")
    return lines + int(end == file.size and not ends_with_newline), ends_with_newline


def _changed(file: LocalFile, position: int) -> str:
    return f"{file.path} ends at byte {position}, not at the {file.size} listed (it changed while the job started?)"
