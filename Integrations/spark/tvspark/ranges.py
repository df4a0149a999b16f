"""The direct path's plan: the local files an input names (as Spark's text source lists them),
cut into byte ranges at line boundaries, with the number of lines before each range.

A range starts at the start of a line and ends after a `\\n` (or at the end of its file), so the
child that reads it alone numbers its lines 1, 2, 3, … exactly as `tokenverify verify FILE`
numbers them from the range's first line on: line k of the range is line `first_line + k` of
the file (blank lines counted, lines split on `\\n` only, a last line without `\\n` counted).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Sequence

import numpy as np

_SCAN_CHUNK = 1 << 24
# Characters that make Spark read a path as a glob pattern (SparkHadoopUtil.isGlobPath).
_GLOB = set("{}[]*?\\")


class NotDirect(Exception):
    """The direct path cannot run this job; the message says why."""


@dataclass(frozen=True)
class LocalFile:
    """An input file: its absolute path (the `source` of its rows), and its size and
    modification time when the job was planned (a task refuses a file that changed since)."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class ByteRange:
    """Bytes `start` to `end` of a file, whole lines; `first_line` lines of the file come before
    it and it holds `lines` (blank ones and a last one without `\\n` counted). `index` numbers
    the job's ranges from 0 and names the range's part file."""

    index: int
    file: LocalFile
    start: int
    end: int
    first_line: int
    lines: int


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


def is_hidden(name: str) -> bool:
    """True for a file name Spark's listing leaves out (HadoopFSUtils.shouldFilterOutPathName)."""
    return name.startswith(("_", ".")) or name.endswith("._COPYING_")


def input_files(inputs: Sequence[str]) -> list[LocalFile]:
    """Every file the inputs name, in order: a file itself, a folder's files in name order
    (hidden names left out, as Spark lists a folder); NotDirect where the driver cannot read
    them as Spark would (another file system, a pattern, a subfolder, no such path, not a
    regular file, not readable)."""
    files: list[LocalFile] = []
    for name in inputs:
        path = local_path(name)
        if path is None:
            raise NotDirect(f"--input {name} is not a local path")
        if any(character in _GLOB for character in name):
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
    (spark.sql.files.openCostInBytes), as Spark sizes its file splits."""
    per_core = -(-total_bytes // max(1, parallelism))
    return max(1, min(max_bytes, max(min_bytes, per_core)))


def plan_ranges(files: Sequence[LocalFile], size: int) -> list[ByteRange]:
    """Each file cut into about `size`-byte ranges at line starts (a file of n × `size` bytes
    into n equal parts, each moved on to the next line start; a line longer than a part takes
    the cuts inside it), numbered in order; an empty file has none. Reads every file once."""
    ranges: list[ByteRange] = []
    for file in files:
        pieces = max(1, -(-file.size // size))
        cuts = [file.size * piece // pieces for piece in range(1, pieces)]
        for start, end, first_line, lines in file_ranges(file, cuts):
            ranges.append(ByteRange(len(ranges), file, start, end, first_line, lines))
    return ranges


def file_ranges(file: LocalFile, cuts: Sequence[int]) -> list[tuple[int, int, int, int]]:
    """(start, end, lines before, lines) of the ranges one file is cut into at the first line
    start at or after each of the ascending `cuts`, from one read of the file. ValueError when
    the file is not as long as it was listed (it changed while the job started)."""
    boundaries: list[tuple[int, int]] = []  # (a line start, the `\n` before it)
    newlines = 0
    seen = 0
    last_byte = ord("\n")
    pending = 0
    buffer = bytearray(_SCAN_CHUNK)
    values = np.frombuffer(buffer, np.uint8)  # counted with numpy: several times bytearray.count's speed
    with open(file.path, "rb", buffering=0) as reader:
        while True:
            got = reader.readinto(buffer)
            if not got:
                break
            while pending < len(cuts):
                look = max(cuts[pending] - 1, seen) - seen  # a line starts at p when byte p - 1 is `\n`
                if look >= got:
                    break
                found = buffer.find(b"\n", look, got)
                if found < 0:
                    break
                boundary = seen + found + 1
                if boundary < file.size and (not boundaries or boundaries[-1][0] != boundary):
                    boundaries.append((boundary, newlines + int(np.count_nonzero(values[:found + 1] == ord("\n")))))
                pending += 1
            newlines += int(np.count_nonzero(values[:got] == ord("\n")))
            last_byte = int(values[got - 1])
            seen += got
    if seen != file.size:
        raise ValueError(f"{file.path} has {seen} bytes, not the {file.size} listed (it changed while the job started?)")
    if not file.size:
        return []
    starts = [(0, 0), *boundaries]
    ends = [*boundaries, (file.size, newlines + int(last_byte != ord("\n")))]
    return [(start, end, before, after - before) for (start, before), (end, after) in zip(starts, ends)]
