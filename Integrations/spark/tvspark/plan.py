"""The direct path's plan as values: the input files (local or on a store), the byte ranges they
are cut into and the tasks that read them; NotDirect, which says why a job cannot take the
direct path; and the naming rules Spark's listing follows (hidden names, patterns). ranges.py
lists local inputs and makes the plan, calling remote.py for inputs on a store; remote.py
builds on this module alone, never on ranges.py.

A range starts at the start of a line and ends after a `\\n` (or at the end of its file), so the
child that reads it alone numbers its lines 1, 2, 3, … exactly as `tokenverify verify FILE`
numbers them from the range's first line on: line k of the range is line `first_line + k` of
the file (blank lines counted, lines split on `\\n` only, a last line without `\\n` counted).
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import Store

# Characters that make Spark read a path as a glob pattern (SparkHadoopUtil.isGlobPath).
_GLOB = set("{}[]*?\\")


class NotDirect(Exception):
    """The direct path cannot run this job; the message says why."""


@dataclass(frozen=True)
class LocalFile:
    """An input file: its absolute path (the `source` of its rows), and its size and
    modification time when the job was planned (a task refuses a file that changed since). On
    a remote store (remote.py): `store`, the path in it, and `url`, the `source` of its rows."""

    path: str
    size: int
    mtime_ns: int
    store: Store | None = None
    url: str = ""

    @property
    def source(self) -> str:
        return self.url or self.path


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
    lines: int  # -1 on a remote store: the task counts them as it streams the range
    ends_with_newline: bool = True  # False only for a file's last range whose last line has no `\n`


@dataclass(frozen=True)
class RangeTask:
    """One direct task's work: ranges in order (whole small files, or one range of a large one),
    answered by one child that reads them one after the other, into part file `index`."""

    index: int
    ranges: tuple[ByteRange, ...]

    @property
    def lines(self) -> int:
        return sum(piece.lines for piece in self.ranges)


def is_hidden(name: str) -> bool:
    """True for a file name Spark's listing leaves out (HadoopFSUtils.shouldFilterOutPathName)."""
    return name.startswith(("_", ".")) or name.endswith("._COPYING_")


def is_pattern(name: str) -> bool:
    """True for an --input Spark expands as a glob pattern (the direct path lists no patterns)."""
    return any(character in _GLOB for character in name)
