"""The child's answer lines for one request batch: read in bulk, checked against the requests
they answer, and spread into the answer's columns.

Identity is checked column-wise: every answer must begin with the prefix `verify` writes for
its request (`{"line":N,"id":N,` for a request that carries the job's id, `{"line":N,` for one
sent unchanged); an answer that does not is parsed in full (`protocol.is_answer_to`, another
member order) and fails the task if it still does not match. The columns come from Arrow's
JSON reader; the rare answer whose `aud` is an array, and any answer that reader refuses, are
read with Python's `json` instead, and one that cannot be read either fails the task.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from .arrow_bytes import concatenated, decimal_texts, literal, value_bounds
from .protocol import ANSWER_FIELDS, is_answer_to
from .request_batch import RequestBatch

# The answer's columns as Arrow types (`aud`: the string, or an array as its compact JSON text;
# `exp`: a double, since a NumericDate may have a fraction).
ANSWER_ARROW_FIELDS: tuple[pa.Field, ...] = tuple(
    pa.field(name, {"valid": pa.bool_(), "exp": pa.float64()}.get(name, pa.string())) for name in ANSWER_FIELDS)
ANSWER_ARROW_SCHEMA = pa.schema(list(ANSWER_ARROW_FIELDS))

_READ_CHUNK = 1 << 20


class AnswerError(ValueError):
    """An answer line that does not answer its request, or that cannot be read."""


@dataclass(frozen=True)
class AnswerBatch:
    """Answer lines back to back in `data`, each ending in `\\n`; answer k is
    `data[starts[k]:starts[k + 1] - 1]`."""

    data: bytes
    starts: np.ndarray  # int64, count + 1 entries

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    def line(self, index: int) -> bytes:
        return self.data[int(self.starts[index]):int(self.starts[index + 1]) - 1]

    def lines(self) -> list[bytes]:
        return [self.line(index) for index in range(self.count)]


class AnswerReader:
    """Reads a given number of lines at a time from a binary stream, in large reads."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.rest = b""

    def take(self, count: int) -> AnswerBatch:
        """The next `count` lines, or fewer where the stream ends first (a last line without
        its `\\n` is left out: no complete answer ends that way)."""
        pieces, newlines = [self.rest], self.rest.count(b"\n")
        while newlines < count:
            data = self.stream.read1(_READ_CHUNK)  # type: ignore[attr-defined]
            if not data:
                break
            pieces.append(data)
            newlines += data.count(b"\n")
        data = b"".join(pieces) if len(pieces) > 1 else pieces[0]
        ends = np.flatnonzero(np.frombuffer(data, np.uint8) == ord("\n"))[:count] + 1
        cut = int(ends[-1]) if len(ends) else 0
        self.rest = data[cut:]
        return AnswerBatch(data[:cut], np.concatenate(([0], ends)).astype(np.int64))

    def remainder(self, limit: int) -> bytes:
        """Up to `limit` bytes that follow the lines taken (after the last batch: nothing)."""
        return self.rest[:limit] if self.rest else self.stream.read(limit)


def _prefixes(requests: RequestBatch) -> pa.Array:
    """What `verify` writes first for each request: `{"line":N,"id":N,` or `{"line":N,`."""
    numbers = decimal_texts(requests.first_seq, requests.count)
    with_id = concatenated(literal(b'{"line":'), numbers, literal(b',"id":'), numbers, literal(b","))
    line_only = concatenated(literal(b'{"line":'), numbers, literal(b","))
    return pc.if_else(pa.array(requests.has_id), with_id, line_only)


def first_mismatch(answers: AnswerBatch, requests: RequestBatch) -> int | None:
    """The index of the first answer that is not the answer to its request, or None."""
    if answers.count != requests.count:
        raise ValueError(f"{answers.count} answers for {requests.count} requests")
    if not answers.count:
        return None
    bounds, expected = value_bounds(_prefixes(requests))
    lengths = np.diff(bounds)
    data = np.frombuffer(answers.data, np.uint8)
    # byte j of prefix k sits at starts[k] + j in the answers; past an answer's end the compare
    # meets its "\n", which no prefix holds, so a short answer cannot pass
    positions = np.repeat(answers.starts[:-1] - bounds[:-1], lengths) + np.arange(len(expected))
    same = data[np.minimum(positions, len(data) - 1)] == expected
    wrong = np.flatnonzero(np.add.reduceat(~same, bounds[:-1]) > 0)
    for index in wrong:  # another shape than verify writes: read it in full
        try:
            matches = is_answer_to(answers.line(int(index)), requests.first_seq + int(index),
                                   bool(requests.has_id[index]))
        except ValueError as error:
            raise AnswerError(f"unreadable answer: {error}") from error
        if not matches:
            return int(index)
    return None


def answer_columns(answers: AnswerBatch) -> pa.RecordBatch:
    """The answer's columns, one row an answer, in order (AnswerError when one cannot be read)."""
    table = _answer_table(answers)
    if not table.num_rows:
        return pa.RecordBatch.from_pylist([], schema=ANSWER_ARROW_SCHEMA)
    return table.combine_chunks().to_batches()[0]


def _answer_table(answers: AnswerBatch) -> pa.Table:
    if not answers.count:
        return ANSWER_ARROW_SCHEMA.empty_table()
    by_python = _rows_with(answers, b'"aud":[')  # an array where the schema has a string
    if not len(by_python):
        return _read_or_fall_back(answers.data, answers)
    by_arrow = np.setdiff1d(np.arange(answers.count), by_python, assume_unique=True)
    lines = pa.LargeBinaryArray.from_buffers(pa.large_binary(), answers.count,
                                             [None, pa.py_buffer(answers.starts), pa.py_buffer(answers.data)])
    offsets, arrow_bytes = value_bounds(lines.take(pa.array(by_arrow)))
    arrow_data = arrow_bytes.tobytes()
    arrow_table = _read_or_fall_back(arrow_data, AnswerBatch(arrow_data, offsets))
    python_table = python_columns([answers.line(int(index)) for index in by_python])
    merged = pa.concat_tables([arrow_table, python_table])
    order = np.argsort(np.concatenate([by_arrow, by_python]), kind="stable")
    return merged.take(pa.array(order))


def _rows_with(answers: AnswerBatch, needle: bytes) -> np.ndarray:
    found = []
    position = answers.data.find(needle)
    while position >= 0:
        found.append(position)
        position = answers.data.find(needle, position + 1)
    if not found:
        return np.zeros(0, np.int64)
    return np.unique(np.searchsorted(answers.starts, np.array(found), side="right") - 1)


def _read_or_fall_back(data: bytes, answers: AnswerBatch) -> pa.Table:
    if not data:
        return ANSWER_ARROW_SCHEMA.empty_table()
    try:
        table = pa_json.read_json(
            pa.py_buffer(data),
            read_options=pa_json.ReadOptions(use_threads=False, block_size=max(len(data) + 1, 1 << 16)),
            parse_options=pa_json.ParseOptions(explicit_schema=ANSWER_ARROW_SCHEMA, unexpected_field_behavior="ignore"))
    except pa.ArrowInvalid:
        return python_columns(answers.lines())
    if table.num_rows != answers.count or table.column("valid").null_count:
        return python_columns(answers.lines())  # blank or doubled lines, a missing "valid": say which
    return table.select(list(ANSWER_FIELDS))


def python_columns(lines: Sequence[bytes]) -> pa.Table:
    """The answer's columns read with Python's json (arrays in `aud` become their JSON text)."""
    columns: dict[str, list[Any]] = {name: [] for name in ANSWER_FIELDS}
    for line in lines:
        try:
            answer = json.loads(line)
        except ValueError as error:
            raise AnswerError(f"unreadable answer {line[:200]!r}: {error}") from error
        if not isinstance(answer, dict) or not isinstance(answer.get("valid"), bool):
            raise AnswerError(f"not an answer line: {line[:200]!r}")
        for name in ANSWER_FIELDS:
            columns[name].append(_column_value(name, answer.get(name), line))
    return pa.table(columns, schema=ANSWER_ARROW_SCHEMA)


# The escapes of tokenverify's JSON writer: `\"`, `\\`, `\n`, `\r`, `\t`, and `\u00xx` for every other
# control character (Python's json writes `\b` and `\f` for two of them).
_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)} | {
    0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def audience_text(audience: list[Any]) -> str:
    """An audience list as its compact JSON text, written as tokenverify writes it (so the
    `aud` column reads the same on Spark's path, on the direct path and in the JSON answer)."""
    if all(isinstance(item, str) for item in audience):
        return "[" + ",".join(f'"{item.translate(_ESCAPES)}"' for item in audience) + "]"
    return json.dumps(audience, separators=(",", ":"), ensure_ascii=False)


def _column_value(name: str, value: Any, line: bytes) -> Any:
    if value is None or name == "valid":
        return value
    if name == "exp":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(value, str):
        return value
    elif name == "aud" and isinstance(value, list):
        return audience_text(value)
    raise AnswerError(f"unexpected {name} {value!r} in answer {line[:200]!r}")
