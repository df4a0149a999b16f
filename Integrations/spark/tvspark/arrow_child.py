"""One `tokenverify verify --output-format arrow` child over a task's byte ranges (the direct
path): a feeder thread streams the ranges unchanged into the child's stdin, one after the other
(sendfile, no copy through Python; a `\n` after a file's last line that has none, so that it
stays a line of its own), and the caller reads the child's answers from its stdout as an Arrow
IPC stream, one record batch at a time. The stream is whole only when it ends with Arrow's
end-of-stream marker, nothing follows it, every byte of the ranges went in and the child exits
0; anything else raises VerifyError with the child's exit status and the tail of its stderr.

Spooled (`spool=True`, for a barrier stage's task, line_numbers.py): the child writes its stream
to a local file that has no name (nothing is left behind when the task is killed), the caller
waits until every range's lines are counted (`counted()`: a remote range's as soon as its last
piece is read, while the child still works on it), and reads the batches once the child has
exited.
"""

from __future__ import annotations

import errno
import functools
import io
import itertools
import os
import subprocess
import tempfile
import threading
from typing import IO, Any, Iterator, Sequence

import pyarrow as pa

from .child import StderrTail, VerifyError, child_environment, widen
from .plan import RangeTask
from .remote import feed_range, scratch_folder

# What `verify --output-format arrow` writes: the JSON answer's members as columns, in this order
# (`id` as its JSON text, `aud` as a string or an array's compact JSON text, `format` "cwt" for a
# CWT); null where the JSON answer lacks the member.
CHILD_FIELDS: tuple[tuple[str, pa.DataType], ...] = (
    ("line", pa.int64()), ("id", pa.string()), ("valid", pa.bool_()), ("reason", pa.string()),
    ("detail", pa.string()), ("jti", pa.string()), ("sub", pa.string()), ("aud", pa.string()),
    ("kid", pa.string()), ("alg", pa.string()), ("exp", pa.float64()), ("role", pa.string()),
    ("format", pa.string()),
)
ARROW_FLAGS = ("--output-format", "arrow")

_END_OF_STREAM = b"\xff\xff\xff\xff\x00\x00\x00\x00"
_COPY_CHUNK = 1 << 20
_SENDFILE_CHUNK = 1 << 30


def schema_problem(schema: Any) -> str | None:
    """What is wrong with the child's Arrow schema, or None when it has CHILD_FIELDS' names and
    types in their order (nullability aside)."""
    got = [(field.name, field.type) for field in schema]
    if got == list(CHILD_FIELDS):
        return None
    return ("its Arrow columns are " + ", ".join(f"{name} {kind}" for name, kind in got)
            + "; expected " + ", ".join(f"{name} {kind}" for name, kind in CHILD_FIELDS))


def empty_stream_problem(data: bytes) -> str | None:
    """What is wrong with the child's output on empty input (the driver's check), or None when
    it is a whole Arrow stream of CHILD_FIELDS without a row."""
    stream = _TailTracking(io.BytesIO(data))
    try:
        reader = pa.ipc.open_stream(stream)
        rows = sum(batch.num_rows for batch in reader)
    except (pa.ArrowInvalid, OSError) as error:
        return f"its output is not an Arrow stream ({error})"
    if not stream.ended_whole():
        return "its Arrow stream has no end-of-stream marker"
    if stream.stream.read(1):
        return "it wrote more after the end of its Arrow stream"
    if rows:
        return f"it answered {rows} rows to empty input"
    return schema_problem(reader.schema)


class _TailTracking:
    """A binary stream that remembers the last bytes read from it and whether a read met its
    end: the Arrow reader stops right after the end-of-stream marker, or when its input ends
    (a stream cut off between two messages, which it takes for a whole one)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.tail = b""
        self.met_end = False
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        if size < 0 or len(data) < size:
            self.met_end = True
        self.tail = (self.tail + data[-len(_END_OF_STREAM):])[-len(_END_OF_STREAM):]
        return data

    def ended_whole(self) -> bool:
        """True when the reader stopped at the end-of-stream marker, not at the input's end."""
        return self.tail == _END_OF_STREAM and not self.met_end


class AnswerStream:
    """The child for one task: `with AnswerStream(argv, task) as answers:` starts it and its
    feeder; `answers.batches()` yields its record batches; `answers.finish()` checks that the
    stream and the child ended well. Leaving the block any other way kills the child."""

    def __init__(self, argv: Sequence[str], task: RangeTask, env: dict[str, str] | None = None,
                 spool: bool = False) -> None:
        self.argv = [*argv, *ARROW_FLAGS]
        self.task = task
        self.env = child_environment() if env is None else env
        self.feed_error: BaseException | None = None
        self.spool: IO[bytes] | None = tempfile.TemporaryFile(dir=scratch_folder()) if spool else None
        # The task's line number after each range fed so far (the lines of the ranges up to it):
        # known from the plan for local files; for remote ones the feeder counts them and adds
        # each range's before it writes a byte of the next, so that an answer the child gives
        # for a line past the last end here is in the range being fed.
        known = all(piece.lines >= 0 for piece in task.ranges)
        self.ends: list[int] = list(itertools.accumulate(piece.lines for piece in task.ranges)) if known else []
        self.counting = not known
        # Each range's lines: from the plan, or counted as a remote range is read (before the
        # child has it all); `all_counted` is set once every range's are known, or the feeder ended.
        self.lines: list[int | None] = [piece.lines if piece.lines >= 0 else None for piece in task.ranges]
        self.all_counted = threading.Event()

    def __enter__(self) -> AnswerStream:
        out = self.spool if self.spool is not None else subprocess.PIPE
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE, env=self.env)
        stdin, stdout, stderr = self.process.stdin, self.process.stdout, self.process.stderr
        assert stdin is not None and stderr is not None
        widen(stdin)
        if stdout is not None:
            widen(stdout)
            self.stdout = _TailTracking(stdout)
        self.stderr = StderrTail(stderr)
        self.feeder = threading.Thread(target=self._feed, args=(stdin,), name="tokenverify-feed", daemon=True)
        self.feeder.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.feeder.join(timeout=5)
        self.stderr.text()
        for stream in (self.process.stdout, self.process.stderr, self.spool):
            if stream is not None:
                stream.close()

    def _feed(self, stdin: IO[bytes]) -> None:
        try:
            fed = 0
            self._count(-1, 0)  # every range's lines may be known from the plan
            for number, piece in enumerate(self.task.ranges):
                if piece.file.store is not None:
                    feed_range(piece, lambda data: _write_all(stdin.fileno(), data), functools.partial(self._count, number))
                    lines = self.lines[number]
                    if lines is None:  # read_chunks counts a range before it hands out its last piece
                        raise VerifyError(f"{piece.file.source} bytes {piece.start}-{piece.end}: its lines were not counted")
                    fed += lines
                    self.ends.append(fed)
                    continue
                fed += piece.lines
                if self.counting:
                    self.ends.append(fed)
                with open(piece.file.path, "rb") as source:
                    info = os.fstat(source.fileno())
                    if (info.st_size, info.st_mtime_ns) != (piece.file.size, piece.file.mtime_ns):
                        raise VerifyError(f"{piece.file.path} changed since the job was planned "
                                          f"({info.st_size} bytes, {piece.file.size} planned)")
                    send_range(source.fileno(), stdin.fileno(), piece.start, piece.end)
                if not piece.ends_with_newline:
                    _write_all(stdin.fileno(), b"\n")
        except BaseException as error:  # noqa: BLE001 - reported by finish() or the failure it causes
            self.feed_error = error
        finally:
            self.all_counted.set()
            try:
                stdin.close()
            except OSError:
                pass

    def _count(self, number: int, lines: int) -> None:
        """Range `number`'s lines are known (called by the reading thread); `all_counted` set
        once every range's are."""
        if number >= 0:
            self.lines[number] = lines
        if all(count is not None for count in self.lines):
            self.all_counted.set()

    def fail(self, message: str) -> VerifyError:
        """The error for the task: `message`, the child's exit status, its stderr, and why
        feeding it failed, if it did (the child is stopped first)."""
        if self.process.poll() is None:
            self.process.kill()
        status = self.process.wait()
        self.feeder.join(timeout=5)
        stderr = self.stderr.text()
        pieces = self.task.ranges
        where = "; ".join(f"{piece.file.source} bytes {piece.start}-{piece.end}" for piece in pieces[:3])
        where += f" and {len(pieces) - 3} more ranges" if len(pieces) > 3 else ""
        detail = f"; exit status {status}" + (f"; its stderr: {stderr}" if stderr else "")
        cause = f"; feeding it failed: {self.feed_error!r}" if self.feed_error is not None else ""
        return VerifyError(f"tokenverify verify ({' '.join(self.argv)}) on {where}: {message}{detail}{cause}")

    def counted(self) -> list[int]:
        """Waits until every range's lines are counted (a remote range's once its last piece is
        read, while the child still works); their counts. VerifyError where feeding failed first."""
        self.all_counted.wait()
        lines = [count for count in self.lines if count is not None]
        if len(lines) < len(self.lines):
            raise self.fail("its input did not go in whole")
        return lines

    def batches(self) -> Iterator[Any]:
        """The child's record batches, in order, each checked to have CHILD_FIELDS (spooled: once
        the child has exited)."""
        if self.spool is not None:
            self.process.wait()
            self.feeder.join()  # every range's end is known (self.ends)
            self.spool.seek(0)
            self.stdout = _TailTracking(self.spool)
        try:
            reader = pa.ipc.open_stream(self.stdout)
        except (pa.ArrowInvalid, OSError) as error:
            raise self.fail(f"no Arrow stream on its stdout ({error})") from error
        problem = schema_problem(reader.schema)
        if problem:
            raise self.fail(problem)
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, OSError) as error:
                raise self.fail(f"its Arrow stream broke off ({error})") from error
            yield batch

    def finish(self) -> None:
        """Checks, after the last batch, that the stream ended with its marker, that nothing
        follows, that the whole range went in and that the child exited 0."""
        if not self.stdout.ended_whole():
            raise self.fail("its Arrow stream ended without the end-of-stream marker")
        extra = self.stdout.stream.read(256)
        if extra:
            raise self.fail(f"it wrote more after the end of its Arrow stream: {extra[:64]!r}")
        status = self.process.wait()
        self.feeder.join()
        if self.feed_error is not None:
            # a child stopped by SIGTERM or SIGINT ends its stream whole and exits 0 (verify's
            # graceful stop) before its input is in: only the feeder's error shows it
            early = " (it stopped reading early: a stop signal?)" if status == 0 else ""
            raise self.fail(f"its input did not go in whole{early}")
        if status != 0:
            raise self.fail(f"exited with status {status} after a whole Arrow stream")


def send_range(source: int, pipe: int, start: int, end: int) -> None:
    """Writes bytes `start` to `end` of the file `source` into `pipe`: with sendfile where the
    kernel can (no copy through this process), else in large reads and writes. ValueError when
    the file ends first."""
    position = start
    while position < end:
        try:
            sent = os.sendfile(pipe, source, position, min(end - position, _SENDFILE_CHUNK))
        except OSError as error:
            if error.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
            _copy_range(source, pipe, position, end)
            return
        if not sent:
            raise ValueError(f"the file ends at byte {position}, before byte {end}")
        position += sent


def _copy_range(source: int, pipe: int, position: int, end: int) -> None:
    while position < end:
        data = os.pread(source, min(end - position, _COPY_CHUNK), position)
        if not data:
            raise ValueError(f"the file ends at byte {position}, before byte {end}")
        _write_all(pipe, data)
        position += len(data)


def _write_all(pipe: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(pipe, view):]
