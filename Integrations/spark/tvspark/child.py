"""One `tokenverify verify` child process per partition, fed and drained at the same time.

A feeder thread pulls the partition's input batches, writes their request lines to the child's
stdin and queues what each batch needs for its output; the calling thread reads the answers from
stdout, checks each one against the line (and `id`) it was sent as, and yields the batch with its
answers. Neither pipe can fill up and block the other side, and the child is never asked to hold
more than its own queues. Any disagreement in counts or identities fails the task loudly.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
from dataclasses import dataclass
from typing import Any, Generic, Iterable, Iterator, Sequence, TypeVar

from .protocol import Request, is_answer_to

Meta = TypeVar("Meta")

_STDERR_KEEP = 16384


class VerifyError(RuntimeError):
    """The child failed, or its answers do not match the requests it was sent."""


@dataclass
class _Batch(Generic[Meta]):
    meta: Meta
    first_seq: int
    has_id: list[bool]


_DONE = object()


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The explicit environment of a child: a fixed PATH and the C locale, nothing inherited
    (an executor's environment is the cluster's, not the job's)."""
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
    environment.update(extra or {})
    return environment


class VerifyProcess(Generic[Meta]):
    """Runs `argv` (a `tokenverify verify …` command) over batches of requests.

    `batches` yields (meta, requests) pairs; `run` yields (meta, answers) pairs in the same order,
    one answer line (bytes, without its line break) per request, each checked to be the answer to
    that request.
    """

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.env = child_environment() if env is None else env

    def run(self, batches: Iterable[tuple[Meta, Sequence[Request]]]) -> Iterator[tuple[Meta, list[bytes]]]:
        process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.env, bufsize=1 << 16,
        )
        stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        pending: queue.Queue[Any] = queue.Queue()
        feed_error: list[BaseException] = []
        stderr_tail = bytearray()

        def feed() -> None:
            seq = 0
            try:
                for meta, requests in batches:
                    chunk = bytearray()
                    has_id = []
                    for request in requests:
                        chunk += request.text
                        chunk += b"\n"
                        has_id.append(request.has_id)
                    pending.put(_Batch(meta, seq + 1, has_id))
                    seq += len(has_id)
                    if chunk:
                        stdin.write(chunk)
            except BaseException as error:  # noqa: BLE001 - handed to the reading thread
                feed_error.append(error)
            finally:
                try:
                    stdin.close()
                except OSError:
                    pass
                pending.put(_DONE)

        def drain_stderr() -> None:
            for chunk in iter(lambda: stderr.read(4096), b""):
                stderr_tail.extend(chunk)
                del stderr_tail[:-_STDERR_KEEP]

        feeder = threading.Thread(target=feed, name="tokenverify-feed", daemon=True)
        drainer = threading.Thread(target=drain_stderr, name="tokenverify-stderr", daemon=True)
        feeder.start()
        drainer.start()

        def fail(message: str) -> VerifyError:
            if process.poll() is None:
                process.kill()
            process.wait()
            drainer.join(timeout=5)
            stderr = stderr_tail.decode("utf-8", "replace").strip()
            detail = f"; exit status {process.returncode}" + (f"; its stderr: {stderr}" if stderr else "")
            cause = f"; feeding it failed: {feed_error[0]!r}" if feed_error else ""
            return VerifyError(f"tokenverify verify ({' '.join(self.argv)}): {message}{detail}{cause}")

        answered = 0
        try:
            while True:
                item = pending.get()
                if item is _DONE:
                    break
                answers = []
                for offset, has_id in enumerate(item.has_id):
                    seq = item.first_seq + offset
                    text = stdout.readline()
                    if not text:
                        raise fail(f"answered {answered} lines, but {seq} or more requests were sent")
                    answered += 1
                    try:
                        matches = is_answer_to(text, seq, has_id)
                    except ValueError as error:
                        raise fail(f"unreadable answer {answered}: {error}") from error
                    if not matches:
                        raise fail(f"answer {answered} ({text[:80]!r}) is not for line {seq}"
                                   + (f" (id {seq})" if has_id else ""))
                    answers.append(text.rstrip(b"\r\n"))
                yield item.meta, answers
            extra = stdout.read(1 << 12)
            if feed_error:
                raise fail(f"the input failed after {answered} requests")
            if extra:
                raise fail(f"answered more lines than the {answered} requests sent: {extra[:200]!r}")
            status = process.wait()
            drainer.join(timeout=5)
            if status != 0:
                raise fail(f"exited with status {status} after answering all {answered} requests")
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (stdout, stderr):
                stream.close()


def run_once(argv: Sequence[str], env: dict[str, str] | None = None, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Runs the command to its end on a small input (the driver's configuration check)."""
    return subprocess.run(list(argv), input=stdin, capture_output=True,
                          env=child_environment() if env is None else env, check=False)


def ensure_executable(path: str) -> str:
    """Makes a shipped binary executable (some fetchers drop the mode bits)."""
    if not os.access(path, os.X_OK):
        os.chmod(path, os.stat(path).st_mode | 0o755)
    return path

