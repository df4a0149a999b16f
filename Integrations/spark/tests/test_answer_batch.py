"""Answer batches: read in bulk, checked against their requests, spread into columns."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from tvspark.answer_batch import AnswerBatch, AnswerError, AnswerReader, answer_columns, first_mismatch, python_columns
from tvspark.protocol import ANSWER_FIELDS
from tvspark.request_batch import RequestBatch


class Trickle(io.RawIOBase):
    """A stream that hands out at most `step` bytes a read, like a pipe under load."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.at = data, step, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        piece = self.data[self.at:self.at + min(self.step, len(buffer))]
        buffer[:len(piece)] = piece
        self.at += len(piece)
        return len(piece)


def batch_of(lines: list[bytes]) -> AnswerBatch:
    data = b"".join(line + b"\n" for line in lines)
    ends = np.cumsum([len(line) + 1 for line in lines], dtype=np.int64)
    return AnswerBatch(data, np.concatenate(([0], ends)).astype(np.int64))


def requests(first_seq: int, has_id: list[bool]) -> RequestBatch:
    return RequestBatch(b"", first_seq, np.array(has_id, bool))


VALID = b'{"line":%d,"id":%d,"valid":true,"jti":"j%d","sub":"phone-1","aud":"car-1","kid":"k","alg":"Ed25519","exp":1802592000,"role":"owner"}'
INVALID = b'{"line":%d,"valid":false,"reason":"expired","detail":"expired at \\"2027\\" \\u00e9"}'


def test_lines_are_taken_a_batch_at_a_time_from_small_reads() -> None:
    lines = [VALID % (n, n, n) for n in range(1, 40)]
    reader = AnswerReader(io.BufferedReader(Trickle(b"".join(line + b"\n" for line in lines), 7)))  # type: ignore[arg-type]
    got = reader.take(3).lines() + reader.take(0).lines() + reader.take(30).lines()
    last = reader.take(10)  # six remain
    assert got + last.lines() == lines and last.count == 6
    assert reader.remainder(100) == b""


def test_a_line_without_its_line_break_is_not_an_answer() -> None:
    reader = AnswerReader(io.BufferedReader(io.BytesIO(b'{"line":1}\n{"line":2')))
    assert reader.take(2).lines() == [b'{"line":1}']


def test_identity_is_checked_for_every_answer() -> None:
    good = batch_of([VALID % (5, 5, 5), INVALID % 6, VALID % (7, 7, 7)])
    assert first_mismatch(good, requests(5, [True, False, True])) is None
    assert first_mismatch(good, requests(5, [True, True, True])) == 1  # our id missing
    assert first_mismatch(good, requests(4, [True, False, True])) == 0
    swapped = batch_of([VALID % (5, 5, 5), VALID % (6, 7, 6), INVALID % 7])
    assert first_mismatch(swapped, requests(5, [True, True, False])) == 1
    other_order = batch_of([b'{"valid":true,"id":9,"line":9}', b'{"line":10,"id":"own","valid":false}'])
    assert first_mismatch(other_order, requests(9, [True, False])) is None
    short = batch_of([b'{"line":1', b'{"line":2,"valid":true}'])
    with pytest.raises(AnswerError):
        first_mismatch(short, requests(1, [False, False]))


def test_columns_from_arrow_equal_columns_from_python() -> None:
    lines = [VALID % (n, n, n) if n % 3 else INVALID % n for n in range(1, 200)]
    got = answer_columns(batch_of(lines))
    assert got.to_pylist() == python_columns(lines).to_pylist()
    assert got.column("exp").to_pylist()[0] == 1802592000.0
    assert got.column("detail").to_pylist()[2] == 'expired at "2027" é'


def test_an_audience_list_keeps_its_row_and_becomes_json_text() -> None:
    listed = b'{"line":%d,"valid":true,"jti":"j","sub":"s","aud":["car-1","caf\\u00e9"],"kid":"k","alg":"ES256","exp":1.5}'
    lines = [VALID % (1, 1, 1), listed % 2, INVALID % 3, listed % 4, VALID % (5, 5, 5)]
    rows = answer_columns(batch_of(lines)).to_pylist()
    assert [row["aud"] for row in rows] == ["car-1", '["car-1","café"]', None, '["car-1","café"]', "car-1"]
    assert [row["valid"] for row in rows] == [True, True, False, True, True]
    assert rows[1]["exp"] == 1.5 and list(rows[0]) == list(ANSWER_FIELDS)


@pytest.mark.parametrize("line", [b'{"line":1,"valid":"yes"}', b'{"line":1}', b'{"line":1,"valid":true,"exp":"soon"}',
                                  b'{"line":1,"valid":true}{"line":2,"valid":true}', b"[1]", b'{"line":1,"valid":true,"sub":5}'])
def test_an_answer_that_cannot_be_read_fails(line: bytes) -> None:
    with pytest.raises(AnswerError):
        answer_columns(batch_of([VALID % (1, 1, 1), line]))


def test_unknown_members_are_left_out() -> None:
    line = json.dumps({"line": 1, "id": {"own": [1]}, "valid": False, "reason": "expired", "reasons": ["expired"]})
    assert answer_columns(batch_of([line.encode()])).to_pylist()[0]["reason"] == "expired"
