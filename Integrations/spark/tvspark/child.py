"""One `tokenverify verify` child process per partition, fed and drained at the same time.

A feeder thread pulls the partition's request batches, writes them to the child's stdin and
queues each batch for the output; the calling thread reads as many answer lines from stdout as the
batch had requests, checks them against the lines (and `id`s) they answer, and yields them with
the batch. Neither pipe can fill up and block the other side, and the child is never asked to hold
more than its own queues. Any disagreement in counts or identities fails the task loudly.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from typing import IO, Any, Generic, Iterable, Iterator, Sequence, TypeVar

from .answer_batch import AnswerBatch, AnswerError, AnswerReader, first_mismatch
from .request_batch import RequestBatch

Meta = TypeVar("Meta")

_STDERR_KEEP = 16384


class VerifyError(RuntimeError):
    """The child failed, or its answers do not match the requests it was sent."""


_DONE = object()


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The explicit environment of a child: a fixed PATH and the C locale, nothing inherited
    (an executor's environment is the cluster's, not the job's)."""
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
    environment.update(extra or {})
    return environment


class VerifyProcess(Generic[Meta]):
    """Runs `argv` (a `tokenverify verify …` command) over batches of requests.

    `batches` yields (meta, RequestBatch) pairs, numbered on from 1; `run` yields (meta,
    AnswerBatch) pairs in the same order, one answer line per request, each checked to be the
    answer to its request.
    """

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = child_environment() if env is None else env

    def run(self, batches: Iterable[tuple[Meta, RequestBatch]]) -> Iterator[tuple[Meta, AnswerBatch]]:
        process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, bufsize=1 << 16,
        )
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        for pipe in (stdin, stdout):
            widen(pipe)
        pending: queue.Queue[Any] = queue.Queue()
        feed_error: list[BaseException] = []

        def feed() -> None:
            seq = 0
            try:
                for meta, requests in batches:
                    if requests.first_seq != seq + 1:
                        raise ValueError(f"a batch starts at line {requests.first_seq}, not {seq + 1}")
                    pending.put((meta, requests))
                    seq += requests.count
                    if requests.count:
                        stdin.write(requests.payload)
            except BaseException as error:  # noqa: BLE001 - handed to the reading thread
                feed_error.append(error)
            finally:
                try:
                    stdin.close()
                except OSError:
                    pass
                pending.put(_DONE)

        feeder = threading.Thread(target=feed, name="tokenverify-feed", daemon=True)
        feeder.start()
        stderr_tail = StderrTail(stderr)

        def fail(message: str) -> VerifyError:
            if process.poll() is None:
                process.kill()
            process.wait()
            stderr = stderr_tail.text()
            detail = f"; exit status {process.returncode}" + (f"; its stderr: {stderr}" if stderr else "")
            cause = f"; feeding it failed: {feed_error[0]!r}" if feed_error else ""
            return VerifyError(f"tokenverify verify ({' '.join(self.argv)}): {message}{detail}{cause}")

        reader = AnswerReader(stdout)
        answered = 0
        try:
            while True:
                item = pending.get()
                if item is _DONE:
                    break
                meta, requests = item
                answers = reader.take(requests.count)
                try:  # the answers that came, before their count: a wrong one says more than a missing one
                    wrong = first_mismatch(answers, requests.head(answers.count))
                except AnswerError as error:
                    raise fail(str(error)) from error
                if wrong is not None:
                    seq = requests.first_seq + wrong
                    raise fail(f"answer {answered + wrong + 1} ({answers.line(wrong)[:80]!r}) is not for line {seq}"
                               + (f" (id {seq})" if requests.has_id[wrong] else ""))
                answered += answers.count
                if answers.count < requests.count:
                    raise fail(f"answered {answered} lines, but {requests.first_seq + answers.count} or more "
                               "requests were sent")
                yield meta, answers
            extra = reader.remainder(1 << 12)
            if feed_error:
                raise fail(f"the input failed after {answered} requests")
            if extra:
                raise fail(f"answered more lines than the {answered} requests sent: {extra[:200]!r}")
            status = process.wait()
            stderr_tail.text()
            if status != 0:
                raise fail(f"exited with status {status} after answering all {answered} requests")
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (stdout, stderr):
                stream.close()


class StderrTail:
    """Drains a child's stderr on a thread of its own (so that the child never blocks on it),
    keeping its last bytes for an error message."""

    def __init__(self, stream: IO[bytes], keep: int = _STDERR_KEEP) -> None:
        self.tail = bytearray()
        self.keep = keep
        self.thread = threading.Thread(target=self._drain, args=(stream,), name="tokenverify-stderr", daemon=True)
        self.thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        for chunk in iter(lambda: stream.read(4096), b""):
            self.tail.extend(chunk)
            del self.tail[:-self.keep]

    def text(self, timeout: float = 5) -> str:
        """What the child wrote last, once it closed its stderr (or after `timeout` seconds)."""
        self.thread.join(timeout=timeout)
        return self.tail.decode("utf-8", "replace").strip()


def widen(pipe: Any, size: int = 1 << 20) -> None:
    """Asks for a larger pipe buffer (Linux; up to /proc/sys/fs/pipe-max-size), so that the child
    and the task move their data in fewer, larger reads and writes. Best effort."""
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (OSError, ImportError, ValueError):
        pass


def run_once(argv: Sequence[str], env: dict[str, str] | None = None, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Runs the command to its end on a small input (the driver's configuration check)."""
    return subprocess.run(list(argv), input=stdin, capture_output=True,
                          env=child_environment() if env is None else env, check=False)


def ensure_executable(path: str) -> str:
    """Makes a shipped binary executable (some fetchers drop the mode bits)."""
    if not os.access(path, os.X_OK):
        os.chmod(path, os.stat(path).st_mode | 0o755)
    return path

