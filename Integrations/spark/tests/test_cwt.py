"""CWT lines (spec §2b: base64url of a COSE_Sign1 message, no dot) and CWT token columns pass
through the job's request building unchanged, and the child answers them as tokenverify does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow as pa
from conftest import AT, verify_file

from tvspark.child import VerifyProcess
from tvspark.protocol import DEFAULT_MAX_LINE_BYTES, line_request, table_request
from tvspark.request_batch import RequestBatch, line_requests, table_requests, table_requests_by_row

# A CWT as written on a line: base64url of the CBOR bytes, no dot (this one from `sign --format cwt`).
CWT = (b"0oRHogEyBEJrMaBYQ6kBYm9wAmRkZXYxA2RjYXIxB2J0MQQacT-zAGJjaIFjYmxlY2NtZIFmdW5sb2NrZHJvbGVlb3duZXJjZW52ZHBy"
       b"b2RYQDMmpxGg0Cl3X3GA5rFBuBLHR0xWzdmQsEOM-ZaaEP3gtaG7Ezm9_0U4Yn-NKqLg3mgrkAKLZlmzchuLgWLGPAA")
JWS = b"eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJwaG9uZS0xIn0.c2lnbmF0dXJl"


def test_a_cwt_line_is_wrapped_as_a_token_unchanged() -> None:
    request = line_request(b"  " + CWT + b"\r", 7)
    assert request.has_id
    assert json.loads(request.text) == {"id": 7, "token": CWT.decode()}


def test_a_mixed_column_of_cwt_and_jws_lines_keeps_every_token() -> None:
    lines: list[bytes | None] = [CWT, JWS, CWT + b"\t", b"", b'{"token":"%s"}' % CWT, JWS]
    keep, batch = line_requests(pa.array(lines, pa.binary()), 1, DEFAULT_MAX_LINE_BYTES)
    assert keep.tolist() == [True, True, True, False, True, True]
    sent = bytes(batch.payload).splitlines()
    assert [json.loads(line)["token"].encode() for line in sent] == [CWT, JWS, CWT, CWT, JWS]
    assert batch.has_id.tolist() == [True, True, True, False, True]
    by_row = RequestBatch.of([line_request(line, seq) for seq, line in enumerate([CWT, JWS, CWT + b"\t"], 1)], 1)
    assert sent[:3] == bytes(by_row.payload).splitlines()


def test_a_cwt_token_column_is_sent_unchanged() -> None:
    batch = pa.RecordBatch.from_pydict({"token": [CWT.decode(), JWS.decode(), None], "device": ["phone-1", None, "x"]})
    sent = bytes(table_requests(batch, "token", ["device"], 5).payload).splitlines()
    assert sent == bytes(table_requests_by_row(batch, "token", ["device"], 5).payload).splitlines()
    assert [json.loads(line)["token"] for line in sent] == [CWT.decode(), JWS.decode(), None]
    assert json.loads(table_request(9, CWT.decode(), {"device": "phone-1"}).text) == {"id": 9, "token": CWT.decode(),
                                                                                       "device": "phone-1"}


def test_the_child_answers_cwt_lines_as_tokenverify_does(binary: str, tmp_path: Path) -> None:
    subprocess.run([binary, "gen", "--count", "300", "--seed", "5", "--realistic", "--cwt-share", "0.5",
                    "--out", str(tmp_path / "set")], check=True, capture_output=True)
    tokens = tmp_path / "set" / "tokens.txt"
    lines = tokens.read_bytes().splitlines()
    assert any(b"." not in line for line in lines) and any(b"." in line for line in lines)
    flags = ["--keys", str(tmp_path / "set" / "keys.jwks"), "--revocations", str(tmp_path / "set" / "revocations.jsonl"), "--at", AT]
    requests = [line_request(line, seq) for seq, line in enumerate(lines, 1)]
    batches = [(start, RequestBatch.of(requests[start:start + 64], start + 1)) for start in range(0, len(requests), 64)]
    got = [json.loads(answer) for _, answers in VerifyProcess[int]([binary, "verify", "--quiet", *flags]).run(batches)
           for answer in answers.lines()]
    want = verify_file(binary, str(tokens), *flags)
    assert len(got) == len(want) == len(lines)
    for line, answer, expected in zip(lines, got, want):
        assert {k: v for k, v in answer.items() if k not in ("line", "id")} == {k: v for k, v in expected.items() if k not in ("line", "id")}
        assert (answer.get("format") == "cwt") == (b"." not in line and answer.get("reason") != "malformed_token")
