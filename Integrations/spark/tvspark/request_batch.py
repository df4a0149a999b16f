"""A batch of request lines for the child, built column-wise from an Arrow batch.

The per-row rules are `protocol.line_request` and `protocol.table_request`; this module applies
them to a whole Arrow column at once for the rows that need no more than a prefix and a suffix
(a bare token of base64url characters and dots, a line that starts with `{`, a plain string
cell), and calls the per-row functions for the rest (blank-looking lines, odd bytes, long lines,
dates). Both paths give the same bytes: `tests/test_request_batch.py` checks them against each
other. Python does no work per row on the common path, which is what keeps a task's Python
worker from costing more than the verification it feeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow_bytes import as_large_binary, concatenated, decimal_texts, literal, value_bounds, values_bytes
from .protocol import CONTEXT_COLUMNS, Request, is_blank, json_value, line_request

# Bytes of a bare token that can be wrapped as a JSON string without escaping or trimming.
TOKEN_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
_TOKEN_LINE = r"^[A-Za-z0-9_.\-]+$"
# A string cell that needs no escaping inside JSON quotes (json.dumps with ensure_ascii=False).
_PLAIN_STRING = r'^[^"\\\x00-\x1f]*$'
# `{"id":` N `,"token":"` … `"}`: what wrapping adds to a token, besides the digits of N.
_WRAP_BYTES = len(b'{"id":,"token":""}')


@dataclass(frozen=True)
class RequestBatch:
    """Request lines for one child: `payload` holds them, each ending in `\\n`; request k of the
    batch is line `first_seq + k` of the child's input and carries `id` = that number when
    `has_id[k]`."""

    payload: bytes | memoryview
    first_seq: int
    has_id: np.ndarray  # bool, one a request

    @property
    def count(self) -> int:
        return len(self.has_id)

    def head(self, count: int) -> RequestBatch:
        """The first `count` requests' numbering, without their payload (for checking answers)."""
        return RequestBatch(b"", self.first_seq, self.has_id[:count])

    @staticmethod
    def of(requests: Sequence[Request], first_seq: int) -> RequestBatch:
        """A batch of requests built one by one (the reference path, and tests)."""
        payload = b"".join(request.text + b"\n" for request in requests)
        return RequestBatch(payload, first_seq, np.fromiter((r.has_id for r in requests), bool, len(requests)))


def _all_bytes_in(lines: pa.Array, allowed: bytes) -> bool:
    """True when every byte of every value is one of `allowed` (one pass over the whole batch)."""
    return not value_bounds(lines)[1].tobytes().translate(None, allowed)


def line_requests(values: pa.Array, first_seq: int, max_line_bytes: int) -> tuple[np.ndarray, RequestBatch]:
    """Which input lines are answered (the non-blank ones), and their requests, numbered from
    `first_seq` in order: `protocol.line_request` for every such line."""
    lines = as_large_binary(values.fill_null(b"") if values.null_count else values)
    count = len(lines)
    offsets, data = value_bounds(lines)
    lengths = np.diff(offsets)
    nonempty = lengths > 0
    first_byte = np.zeros(count, np.uint8)
    first_byte[nonempty] = data[offsets[:-1][nonempty]]
    raw_request = nonempty & (first_byte == ord("{"))  # sent unchanged, matched by its line
    token = nonempty & ~raw_request & (lengths + _WRAP_BYTES + 20 <= max_line_bytes)
    if token.any():
        if token.all() and _all_bytes_in(lines, TOKEN_BYTES):
            pass  # the common case of a token file: one pass, no per-row test
        else:
            token &= pc.match_substring_regex(lines, _TOKEN_LINE).to_numpy(zero_copy_only=False)
    by_row = nonempty & ~raw_request & ~token
    keep = nonempty.copy()
    rows = np.flatnonzero(by_row)
    python_lines = [lines[int(row)].as_py() for row in rows]
    for row, line in zip(rows, python_lines):
        keep[row] = not is_blank(line)
    seq_of_row = np.cumsum(keep) - 1 + first_seq  # the child's line number of each kept row
    kept = np.flatnonzero(keep)
    if not len(kept):
        return keep, RequestBatch(b"", first_seq, np.zeros(0, bool))
    wanted = lines if len(kept) == count else lines.take(pa.array(kept))
    has_id = token[kept]
    sent: pa.Array | None = None
    if has_id.any():
        sent = concatenated(literal(b'{"id":'), decimal_texts(first_seq, len(kept)), literal(b',"token":"'), wanted, literal(b'"}\n'))
    if not has_id.all():
        as_read = concatenated(wanted, literal(b"\n"))
        sent = as_read if sent is None else pc.if_else(pa.array(has_id), sent, as_read)
    by_row_kept = [(row, line) for row, line in zip(rows, python_lines) if keep[row]]
    if by_row_kept:
        position = np.searchsorted(kept, [row for row, _ in by_row_kept])
        built = [line_request(line, int(seq_of_row[row]), max_line_bytes) for row, line in by_row_kept]
        mask = np.zeros(len(kept), bool)
        mask[position] = True
        sent = pc.replace_with_mask(sent, pa.array(mask), pa.array([r.text + b"\n" for r in built], pa.large_binary()))
        has_id[position] = [r.has_id for r in built]
    return keep, RequestBatch(values_bytes(sent), first_seq, has_id)


def json_texts(name: str, column: pa.Array) -> pa.Array:
    """Each cell of a table column as the JSON text `protocol.json_value` gives it (null stays
    null): plain strings and integers column-wise, anything else cell by cell."""
    kind = column.type
    if pa.types.is_integer(kind):
        return pc.cast(column, pa.string()).cast(pa.large_binary())
    if (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and name != "at":
        quoted = concatenated(literal(b'"'), as_large_binary(column), literal(b'"'))
        plain = pc.fill_null(pc.match_substring_regex(column, _PLAIN_STRING), True)
        if pc.all(plain).as_py():
            return quoted
        odd = np.flatnonzero(~plain.to_numpy(zero_copy_only=False))
        texts = [json_value(name, column[int(row)].as_py()).encode("utf-8") for row in odd]
        mask = np.zeros(len(column), bool)
        mask[odd] = True
        return pc.replace_with_mask(quoted, pa.array(mask), pa.array(texts, pa.large_binary()))
    values = column.to_pylist()
    return pa.array([None if value is None else json_value(name, value).encode("utf-8") for value in values],
                    pa.large_binary())


def table_requests(batch: pa.RecordBatch, token_column: str, context_columns: Sequence[str],
                   first_seq: int) -> RequestBatch:
    """One request for every row of a table batch, numbered from `first_seq`:
    `protocol.table_request` for every row."""
    count = batch.num_rows
    token = pc.fill_null(json_texts("token", batch.column(token_column)), literal(b"null"))
    parts: list[pa.Array | pa.Scalar] = [literal(b'{"id":'), decimal_texts(first_seq, count), literal(b',"token":'), token]
    for name in CONTEXT_COLUMNS:
        if name in context_columns:
            member = concatenated(literal(b',"%s":' % name.encode()), json_texts(name, batch.column(name)))
            parts.append(pc.fill_null(member, literal(b"")))
    sent = concatenated(*parts, literal(b"}\n"))
    return RequestBatch(values_bytes(sent), first_seq, np.ones(count, bool))


def table_requests_by_row(batch: pa.RecordBatch, token_column: str, context_columns: Sequence[str],
                          first_seq: int) -> RequestBatch:
    """The same batch built row by row with `protocol.table_request` (the reference for tests)."""
    from .protocol import table_request

    tokens = batch.column(token_column).to_pylist()
    context: Mapping[str, list[Any]] = {name: batch.column(name).to_pylist() for name in context_columns}
    requests = [table_request(first_seq + row, token, {name: values[row] for name, values in context.items()})
                for row, token in enumerate(tokens)]
    return RequestBatch.of(requests, first_seq)
