"""The child process wrapper against the real binary and against stand-ins that misbehave."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from conftest import AT, DataSet, verify_file

from tvspark.child import VerifyError, VerifyProcess
from tvspark.protocol import line_request
from tvspark.request_batch import RequestBatch


def batches(lines: list[bytes], size: int) -> list[tuple[int, RequestBatch]]:
    requests = [line_request(line, seq) for seq, line in enumerate(lines, 1)]
    return [(start, RequestBatch.of(requests[start:start + size], start + 1)) for start in range(0, len(requests), size)]


def test_answers_come_back_matched_in_batches(binary: str, dataset: DataSet) -> None:
    lines = [line for line in Path(dataset.files[2]).read_bytes().splitlines() if line.strip()]
    argv = [binary, "verify", "--quiet", "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT]
    got = [answer for _, answers in VerifyProcess(argv).run(batches(lines, 17)) for answer in answers.lines()]
    want = verify_file(binary, dataset.files[2], "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT)
    assert len(got) == len(lines) == len(want)
    for seq, (answer, expected) in enumerate(zip(got, want), 1):
        answer_json = json.loads(answer)
        assert answer_json["line"] == seq  # the child's own numbering: no blank line was sent
        assert {k: v for k, v in answer_json.items() if k not in ("line", "id")} == {
            k: v for k, v in expected.items() if k not in ("line", "id")}


def stand_in(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-tokenverify"
    script.write_text("#!/usr/bin/env python3\nimport sys, json\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


ECHO = "for n, line in enumerate(sys.stdin, 1):\n    {}\n"


@pytest.mark.parametrize("behaviour, message", [
    ("if n != 4: print(json.dumps({'line': n, 'id': n, 'valid': True}))", "answered 3 lines"),
    ("if n != 3: print(json.dumps({'line': n, 'id': n, 'valid': True}))", "not for line 3 (id 3)"),
    ("print(json.dumps({'line': n, 'id': n, 'valid': True})); print(json.dumps({'line': n, 'valid': True})) if n == 2 else None",
     "not for line 3"),
    ("print(json.dumps({'line': n, 'id': n + 1, 'valid': True}))", "not for line 1 (id 1)"),
])
def test_a_count_or_identity_mismatch_fails_loudly(tmp_path: Path, behaviour: str, message: str) -> None:
    fake = stand_in(tmp_path, ECHO.format(behaviour))
    lines = [b"a.b.c"] * 4
    with pytest.raises(VerifyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        for _ in VerifyProcess([fake]).run(batches(lines, 2)):
            pass


def test_extra_answers_and_a_failing_exit_fail_loudly(tmp_path: Path) -> None:
    extra = stand_in(tmp_path, ECHO.format("print(json.dumps({'line': n, 'id': n, 'valid': True}))") +
                     "print(json.dumps({'line': 99, 'valid': True}))\n")
    with pytest.raises(VerifyError, match="more lines"):
        list(VerifyProcess([extra]).run(batches([b"a.b.c"], 1)))
    crash = stand_in(tmp_path, ECHO.format("print(json.dumps({'line': n, 'id': n, 'valid': True}))") +
                     "sys.stderr.write('boom'); sys.exit(3)\n")
    with pytest.raises(VerifyError, match="status 3.*boom"):
        list(VerifyProcess([crash]).run(batches([b"a.b.c"], 1)))
