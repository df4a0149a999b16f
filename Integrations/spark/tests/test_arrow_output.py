"""`tokenverify verify --output-format arrow`, read with pyarrow (the reference reader): the same
answers as the JSON lines, column for member, on generated sets (JWS and CWT, with and without
--audit), odd lines and the demo; the schema as documented; a valid stream for empty input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
import pytest
from conftest import AT, ODD_LINES, REPO, DataSet

COLUMNS = ["line", "id", "valid", "reason", "detail", "jti", "sub", "aud", "kid", "alg", "exp", "role", "format"]
TEXTS = ("reason", "detail", "jti", "sub", "kid", "alg", "role", "format")


def run(binary: str, *arguments: str, stdin: bytes = b"") -> bytes:
    return subprocess.run([binary, "verify", "--quiet", *arguments], input=stdin, capture_output=True,
                          check=True).stdout


def arrow_rows(binary: str, *arguments: str, stdin: bytes = b"") -> pa.Table:
    table = ipc.open_stream(pa.py_buffer(run(binary, "--output-format", "arrow", *arguments, stdin=stdin))).read_all()
    table.validate(full=True)
    return table


def assert_same(binary: str, *arguments: str, stdin: bytes = b"") -> pa.Table:
    """Runs both formats and compares every answer with its row; returns the Arrow table."""
    answers = [json.loads(line) for line in run(binary, *arguments, stdin=stdin).splitlines()]
    table = arrow_rows(binary, *arguments, stdin=stdin)
    audit = "--audit" in arguments
    assert table.column_names == COLUMNS + (["reasons", "details"] if audit else [])
    rows = table.to_pylist()
    assert len(rows) == len(answers) > 0
    for row, answer in zip(rows, answers):
        assert row["line"] == answer["line"] and row["valid"] is answer["valid"], (row, answer)
        assert (json.loads(row["id"]) if row["id"] is not None else None) == answer.get("id"), (row, answer)
        for name in TEXTS:
            assert row[name] == answer.get(name), (name, row, answer)
        aud = answer.get("aud")
        assert (json.loads(row["aud"]) if isinstance(aud, list) else row["aud"]) == aud, (row, answer)
        assert row["exp"] == answer.get("exp"), (row, answer)
        if audit:
            assert row["reasons"] == answer.get("reasons") and row["details"] == answer.get("details"), (row, answer)
    return table


@pytest.mark.parametrize("audit", [False, True], ids=["plain", "audit"])
def test_the_generated_files_answer_alike(binary: str, dataset: DataSet, audit: bool) -> None:
    flags = ["--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT] + (["--audit"] if audit else [])
    for path in dataset.files:
        table = assert_same(binary, *flags, path)
        assert set(table.column("valid").to_pylist()) == {True, False}


def test_cwt_tokens_and_requests(binary: str, tmp_path: Path) -> None:
    subprocess.run([binary, "gen", "--count", "400", "--seed", "5", "--realistic", "--cwt-share", "0.5",
                    "--out", str(tmp_path)], check=True, capture_output=True)
    flags = ["--keys", str(tmp_path / "keys.jwks"), "--revocations", str(tmp_path / "revocations.jsonl"), "--at", AT]
    for name in ("tokens.txt", "requests.jsonl"):
        table = assert_same(binary, *flags, str(tmp_path / name))
        assert table.column("format").to_pylist().count("cwt") > 100


def test_odd_lines_and_an_oversize_line(binary: str, dataset: DataSet) -> None:
    flags = ["--keys", dataset.keys, "--at", AT, "--max-line-bytes", "60000"]
    table = assert_same(binary, *flags, stdin=b"\n".join(ODD_LINES) + b"\n")
    assert set(table.column("reason").to_pylist()) >= {"malformed_request", "malformed_token"}


def test_the_demo_with_an_audience_list(binary: str) -> None:
    demo = REPO / "Data" / "demo"
    table = assert_same(binary, "--keys", str(demo / "keys.jwks"), "--revocations", str(demo / "revocations.jsonl"),
                        "--at", AT, str(demo / "requests.jsonl"))
    assert any(text and text.startswith("[") for text in table.column("aud").to_pylist())


def test_an_audience_list_reads_the_same_on_both_of_the_jobs_paths(binary: str, tmp_path: Path) -> None:
    """Control characters in an audience list: the direct path keeps the child's `aud` text, and
    Spark's path writes the list it reads from the JSON answer as the same text."""
    from test_answer_batch import batch_of
    from tvspark.answer_batch import answer_columns

    pair = json.loads(subprocess.run([binary, "keygen", "--alg", "Ed25519", "--kid", "k1"], capture_output=True,
                                     check=True).stdout)
    (tmp_path / "k1.jwk").write_text(json.dumps(pair["private_jwk"]))
    (tmp_path / "k1.jwks").write_text(json.dumps(pair["public_jwks"]))
    audience = ["car\b1", "c\fx\x1f\"q\\z\x7f", "café", "\u2028", "t\tn\nr\r"]
    claims = {"iss": "issuer", "sub": "phone-1", "aud": audience, "jti": "j1", "iat": 1700000000,
              "exp": 1900000000, "cmd": ["unlock"], "ch": ["ble"], "role": "owner"}
    token = subprocess.run([binary, "sign", "--key", str(tmp_path / "k1.jwk")], input=json.dumps(claims).encode(),
                           capture_output=True, check=True).stdout
    flags = ("--keys", str(tmp_path / "k1.jwks"), "--at", AT)
    table = assert_same(binary, *flags, stdin=token)
    direct_text = table.column("aud").to_pylist()[0]
    assert json.loads(direct_text) == audience and "\\u0008" in direct_text and "\\u000c" in direct_text
    spark_text = answer_columns(batch_of(run(binary, *flags, stdin=token).splitlines())).column("aud").to_pylist()[0]
    assert spark_text == direct_text


def test_the_schema_and_an_empty_input(binary: str, dataset: DataSet) -> None:
    table = arrow_rows(binary, "--keys", dataset.keys, "--at", AT, stdin=b"\n  \n")
    assert table.num_rows == 0
    types: dict[str, Any] = {"line": pa.int64(), "valid": pa.bool_(), "exp": pa.float64()}
    assert [(f.name, f.type, f.nullable) for f in table.schema] == [
        (name, types.get(name, pa.string()), name not in ("line", "valid")) for name in COLUMNS]
    audit = arrow_rows(binary, "--keys", dataset.keys, "--at", AT, "--audit", stdin=b"")
    assert audit.schema.field("reasons").type == pa.list_(pa.field("item", pa.string(), nullable=False))


def test_unordered_answers_every_line_once(binary: str, dataset: DataSet) -> None:
    flags = ["--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT, "--threads", "2"]
    ordered = arrow_rows(binary, *flags, dataset.files[0])
    unordered = arrow_rows(binary, *flags, "--unordered", dataset.files[0])
    assert sorted(unordered.to_pylist(), key=lambda row: row["line"]) == ordered.to_pylist()
