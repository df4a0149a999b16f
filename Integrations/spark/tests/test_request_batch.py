"""Request batches built column-wise equal the ones built row by row (protocol.py's rules)."""

from __future__ import annotations

import datetime
import random

import numpy as np
import pyarrow as pa
from conftest import ODD_LINES

from tvspark.protocol import DEFAULT_MAX_LINE_BYTES, is_blank, line_request
from tvspark.request_batch import RequestBatch, line_requests, table_requests, table_requests_by_row

TOKEN = b"eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJwaG9uZS0xIn0.c2lnbmF0dXJl"


def by_row(lines: list[bytes | None], first_seq: int, limit: int) -> tuple[np.ndarray, RequestBatch]:
    keep, requests = [], []
    for line in lines:
        answered = line is not None and not is_blank(line)
        keep.append(answered)
        if answered:
            requests.append(line_request(line, first_seq + len(requests), limit))
    return np.array(keep, bool), RequestBatch.of(requests, first_seq)


def assert_same(lines: list[bytes | None], first_seq: int = 1, limit: int = DEFAULT_MAX_LINE_BYTES) -> None:
    keep, batch = line_requests(pa.array(lines, pa.binary()), first_seq, limit)
    want_keep, want = by_row(lines, first_seq, limit)
    assert keep.tolist() == want_keep.tolist()
    assert bytes(batch.payload) == bytes(want.payload)
    assert batch.has_id.tolist() == want.has_id.tolist()
    assert batch.first_seq == first_seq and batch.count == want.count


def test_a_file_of_tokens_is_wrapped_in_one_pass() -> None:
    lines: list[bytes | None] = [TOKEN + b"%d" % index for index in range(50)]
    keep, batch = line_requests(pa.array(lines, pa.binary()), 7, DEFAULT_MAX_LINE_BYTES)
    assert keep.all() and batch.has_id.all()
    assert bytes(batch.payload).splitlines()[0] == b'{"id":7,"token":"%s0"}' % TOKEN
    assert_same(lines, 7)


def test_requests_blank_lines_and_odd_lines_match_the_row_rules() -> None:
    lines: list[bytes | None] = [TOKEN, b"", b" \t", b"\r", b" \t\r", b"\r\r", TOKEN + b"\r", b" " + TOKEN,
                                 TOKEN + b"\t", b'{"token":"a.b.c"}', b'\t{"id":1}', b'{"id":"x"} ', None,
                                 *ODD_LINES, b"x" * (DEFAULT_MAX_LINE_BYTES - 20), b"x" * (DEFAULT_MAX_LINE_BYTES - 10)]
    assert_same(lines)
    assert_same(lines, first_seq=123_456_789_012)  # longer ids: the limit counts their digits


def test_random_lines_match_the_row_rules() -> None:
    alphabet = [b"a", b"Z", b"0", b".", b"-", b"_", b" ", b"\t", b"\r", b"{", b"}", b'"', b"\\", b"\x01", b"\xff",
                "é".encode(), b":"]
    generator = random.Random(20261123)
    for _ in range(200):
        lines: list[bytes | None] = []
        for _ in range(generator.randint(0, 30)):
            line = b"".join(generator.choice(alphabet) for _ in range(generator.randint(0, 12)))
            lines.append(None if generator.random() < 0.02 else line)
        assert_same(lines, generator.randint(1, 10_000), limit=generator.choice([14, 24, 40, DEFAULT_MAX_LINE_BYTES]))


def test_an_empty_batch() -> None:
    keep, batch = line_requests(pa.array([], pa.binary()), 5, DEFAULT_MAX_LINE_BYTES)
    assert len(keep) == 0 and batch.count == 0 and bytes(batch.payload) == b""


def test_table_rows_match_the_row_rules() -> None:
    moment = datetime.datetime(2027, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    table = pa.table({
        "token": pa.array(["a.b.c", None, 'quo"te', "tab\tx", "café", "", "ctl\x01"]),
        "device": pa.array(["phone-1", None, "phone-2", 'p"3', "phöne", "x", None]),
        "channel": pa.array([1, 2, None, 4, 5, 6, 7], pa.int64()),
        "at": pa.array(["1800000000", " 17.5 ", "2027-01-01T00:00:00Z", None, "x", "1e3", "-5"]),
        "command": pa.array([moment, None, moment, moment, None, moment, None], pa.timestamp("us", tz="UTC")),
        "object": pa.array([1.5, None, 2.0, 3.25, None, 1e20, 0.0]),
        "other": pa.array([1, 2, 3, 4, 5, 6, 7]),
    })
    for batch in table.to_batches(max_chunksize=3):
        context = ("device", "channel", "at", "command", "object")
        got = table_requests(batch, "token", context, 40)
        want = table_requests_by_row(batch, "token", context, 40)
        assert bytes(got.payload) == bytes(want.payload)
        assert got.has_id.all() and got.count == batch.num_rows
    only_tokens = table.select(["token"]).to_batches()[0]
    assert bytes(table_requests(only_tokens, "token", (), 1).payload) == bytes(
        table_requests_by_row(only_tokens, "token", (), 1).payload)
