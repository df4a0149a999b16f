"""The files a `verify` follows, written from the model's state, and the `verify` processes that read them.

Layout under `root`: keys/keys.jwks, anchors/int/, anchors/prod/, revocations.jsonl, status-lists/<slot>.
Every file is written beside its place and renamed into it, as an operator does.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from pathlib import Path

from .model import Key, Revocation, StatusList, Token, Trust
from .pool import CHAINS, Pool

RELOAD_PARTS = ("keys", "revocations", "trust anchors", "status lists")


def write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name("." + path.name + ".new")
    temporary.write_bytes(data)
    os.replace(temporary, path)


class Files:
    """Writes the state's files into `root`."""

    def __init__(self, pool: Pool, root: Path) -> None:
        self.pool = pool
        self.root = root
        for folder in ("keys", "anchors/int", "anchors/prod", "status-lists"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        self.written: dict[str, StatusList] = {}

    def verify_args(self) -> list[str]:
        return [
            "--keys",
            str(self.root / "keys"),
            "--trust-anchors",
            f"int={self.root / 'anchors/int'}",
            "--trust-anchors",
            f"prod={self.root / 'anchors/prod'}",
            "--revocations",
            str(self.root / "revocations.jsonl"),
            "--status-lists",
            str(self.root / "status-lists"),
        ]

    def write(self, trust: Trust) -> None:
        """Brings every file in line with `trust` (only what differs is written)."""
        self._keys(trust.keys)
        self._anchors(trust.anchors)
        self._revocations(trust.revocations)
        for slot in set(self.written) - set(trust.files):
            (self.root / "status-lists" / slot).unlink()
            del self.written[slot]
        for slot, sl in trust.files.items():
            if self.written.get(slot) != sl:
                write_atomic(self.root / "status-lists" / slot, self.pool.list_bytes(sl))
                self.written[slot] = sl

    def touch(self, slot: str) -> None:
        """Writes the slot's same bytes again (a new inode and mtime)."""
        path = self.root / "status-lists" / slot
        write_atomic(path, path.read_bytes())

    def _keys(self, keys: dict[str, Key]) -> None:
        entries = []
        for kid, key in sorted(keys.items()):
            jwk = dict(self.pool.public[kid])
            if key.iss is not None:
                jwk["iss"] = key.iss
            if key.env is not None:
                jwk["env"] = key.env
            entries.append(jwk)
        data = json.dumps({"keys": entries}).encode()
        path = self.root / "keys" / "keys.jwks"
        if not path.exists() or path.read_bytes() != data:
            write_atomic(path, data)

    def _anchors(self, anchors: set[str]) -> None:
        for chain in CHAINS.values():
            path = self.root / "anchors" / str(chain.tag) / f"{chain.root}.pem"
            if chain.root in anchors and not path.exists():
                write_atomic(path, Path(self.pool.pem(chain.root)).read_bytes())
            elif chain.root not in anchors and path.exists():
                path.unlink()

    def _revocations(self, revocations: list[Revocation]) -> None:
        lines = []
        for revocation in revocations:
            entry: dict[str, object] = {revocation.kind: self.pool.thumbprints[(revocation.kind, revocation.target)]}
            if revocation.since is not None:
                entry["since"] = revocation.since
            if revocation.issued_before is not None:
                entry["issued_before"] = revocation.issued_before
            lines.append(json.dumps(entry) + "\n")
        data = "".join(lines).encode()
        path = self.root / "revocations.jsonl"
        if not path.exists() or path.read_bytes() != data:
            write_atomic(path, data)


def request_lines(pool: Pool, tokens: list[Token], times: list[int]) -> list[str]:
    """One request a (token, time), the id naming both."""
    return [
        json.dumps({"id": f"{token.name}@{t}", "token": pool.token(token), "at": t}) for token in tokens for t in times
    ]


class LiveVerify:
    """A long-running `verify` fed request lines (`--reload-interval 0`: files are not polled, SIGHUP reloads all)."""

    def __init__(self, binary: str, args: list[str]) -> None:
        self.process = subprocess.Popen(
            [binary, "verify", *args, "--reload-interval", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.errors: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.rstrip("\n"))
            self.errors.put(line.rstrip("\n"))
        self.errors.put(None)

    def reload(self, timeout: float = 15.0) -> list[str]:
        """SIGHUP, then waits for the line of each part (reloaded or not); "reloaded" lines come after the swap."""
        self.process.send_signal(signal.SIGHUP)
        seen: set[str] = set()
        lines: list[str] = []
        while seen != set(RELOAD_PARTS):
            line = self.errors.get(timeout=timeout)
            if line is None:
                raise RuntimeError("verify ended during a reload: " + "\n".join(self.stderr[-20:]))
            lines.append(line)
            for part in RELOAD_PARTS:
                if line.startswith(f"tokenverify: {part} reloaded (SIGHUP)") or line.startswith(
                    f"tokenverify: {part} not reloaded (SIGHUP)"
                ):
                    seen.add(part)
        return lines

    def ask(self, lines: list[str]) -> list[dict[str, object]]:
        """Writes the lines and reads one answer each (a missing answer raises)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()
        answers = []
        for _ in lines:
            text = self.process.stdout.readline()
            if not text:
                raise RuntimeError("verify stopped answering: " + "\n".join(self.stderr[-20:]))
            answers.append(json.loads(text))
        return answers

    def stop(self) -> int:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def one_shot(binary: str, args: list[str], lines: list[str]) -> tuple[int, list[dict[str, object]], str]:
    """A `verify` that reads the lines and ends: its exit status, answers and stderr."""
    done = subprocess.run(
        [binary, "verify", *args, "--quiet"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, answers, done.stderr
