"""Request lines and answer parsing, without Spark."""

from __future__ import annotations

import json

import pytest

from tvspark.protocol import content, is_answer_to, is_blank, line_request, table_request


def test_a_bare_token_is_wrapped_with_the_job_id() -> None:
    request = line_request(b"  aaa.bbb.ccc\r", 7)
    assert request.has_id
    assert json.loads(request.text) == {"id": 7, "token": "aaa.bbb.ccc"}


def test_odd_tokens_are_json_escaped() -> None:
    for raw in [b'tok"en\\x', "caf\u00e9\u20ac".encode(), b"tab\there", b"ctl\x01"]:
        request = line_request(raw, 1)
        assert request.has_id
        assert json.loads(request.text)["token"] == raw.decode().strip(" \t")


def test_requests_and_unwrappable_lines_are_sent_unchanged() -> None:
    for raw in [b'{"id":"mine","token":"a.b.c"}', b"\t{bad", b"\xff\xfe", b"x" * 65536]:
        request = line_request(raw, 3)
        assert not request.has_id and request.text == raw
    assert line_request(b"x" * 65520, 3).text == b"x" * 65520  # wrapping would cross the limit


def test_blank_lines() -> None:
    assert is_blank(b" \t\r") and is_blank(b"") and not is_blank(b" a ")
    assert content(b" a.b.c \r") == b"a.b.c"


def test_table_requests() -> None:
    text = table_request(4, "t.o.k", {"device": "phone-1", "object": None, "at": "1800000000", "command": 'un"lock'}).text
    assert json.loads(text) == {"id": 4, "token": "t.o.k", "device": "phone-1", "command": 'un"lock', "at": 1800000000}
    assert json.loads(table_request(5, None, {}).text) == {"id": 5, "token": None}
    assert json.loads(table_request(6, "t", {"at": "2027-01-01T00:00:00Z"}).text)["at"] == "2027-01-01T00:00:00Z"


def test_answers_are_matched_by_line_and_id() -> None:
    assert is_answer_to(b'{"line":2,"id":2,"valid":true}', 2, True)
    assert is_answer_to(b'{"line":2,"id":"own","valid":false}', 2, False)
    assert not is_answer_to(b'{"line":2,"id":3,"valid":true}', 2, True)
    assert not is_answer_to(b'{"line":12,"valid":true}', 1, False)
    assert not is_answer_to(b'{"line":2,"valid":true}', 2, True)  # our id missing
    assert is_answer_to(b'{"valid":true, "id":2, "line":2}', 2, True)  # another member order
    with pytest.raises(ValueError):
        is_answer_to(b'{"line":2', 2, False)
