"""Byte-level helpers for Arrow binary columns: the one place that reads an array's buffers.

Everything here works on `large_binary` arrays (64-bit offsets): their values sit back to back
in one data buffer, value k between offsets k and k + 1, so a whole batch of lines can be
written to a pipe, scanned with numpy or handed to Arrow's JSON reader without a copy per row.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def as_large_binary(array: pa.Array) -> pa.Array:
    """The array as large_binary (the joins built on it may outgrow 2 GiB in a batch of long
    lines); strings are reinterpreted, not checked."""
    return array if array.type == pa.large_binary() else array.cast(pa.large_binary())


def literal(text: bytes) -> pa.Scalar:
    """A large_binary scalar, to stand for the same bytes in every row of a concatenation."""
    return pa.scalar(text, pa.large_binary())


def concatenated(*parts: pa.Array | pa.Scalar) -> pa.Array:
    """Row by row, the parts one after another (a null part makes the row null)."""
    return pc.binary_join_element_wise(*parts, literal(b""))


def decimal_texts(first: int, count: int) -> pa.Array:
    """`first`, `first + 1`, … written in decimal, `count` of them."""
    return pc.cast(pa.array(np.arange(first, first + count, dtype=np.int64)), pa.string()).cast(pa.large_binary())


def value_bounds(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A large_binary (or large_string) array's values: the offsets of its len + 1 bounds, and
    the bytes from the first value's start to the last one's end (offsets shifted to match)."""
    offsets = np.frombuffer(array.buffers()[1], np.int64)[array.offset:array.offset + len(array) + 1]
    data = array.buffers()[2]
    if data is None or not len(array):
        return np.zeros(len(array) + 1, np.int64), np.zeros(0, np.uint8)
    start = int(offsets[0])
    return offsets - start, np.frombuffer(data, np.uint8)[start:int(offsets[-1])]


def values_bytes(array: pa.Array) -> memoryview:
    """The bytes of a large_binary array's values, back to back, without a copy."""
    return memoryview(value_bounds(array)[1]).cast("B")  # type: ignore[arg-type]  # an ndarray is a buffer
