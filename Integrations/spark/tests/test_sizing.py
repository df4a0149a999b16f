"""Line offsets of file splits: counted on the driver for local uncompressed files, against
Spark's own counting pass."""

from __future__ import annotations

import bz2
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import DataSet

from tvspark import job, sizing


def odd_file(path: Path, seed: int) -> None:
    """Lines of every length around the tests' 48 KiB split (longer than a split, ending right at
    one), blank lines, CR LF ends, and no final line break."""
    chooser = random.Random(seed)
    lines = []
    for _ in range(900):
        kind = chooser.randrange(10)
        if kind == 0:
            lines.append(b"")
        elif kind == 1:
            lines.append(b"x" * chooser.choice([49151, 49152, 49153, 70000, 100000]))
        else:
            lines.append(b"y" * chooser.randrange(1, 400) + (b"\r" if kind == 2 else b""))
    path.write_bytes(b"\n".join(lines))


def offsets_both_ways(spark: Any, inputs: list[str]) -> tuple[dict[tuple[str, int], int], dict[tuple[str, int], int] | None]:
    lines = job.read_lines(spark, inputs)
    sizes = sizing.input_sizes(spark, lines)
    assert sizes is not None
    exact = sizing.split_size(spark, sizes)
    assert exact is not None
    by_spark = {key: offset for key, offset in sizing.line_offsets(lines, exact).items() if key[1] != 0}
    return by_spark, sizing.local_line_offsets(spark, sizes, exact)


def test_local_counts_equal_the_counting_pass(spark: Any, dataset: DataSet, tmp_path: Path) -> None:
    folder = tmp_path / "odd name %20 #é"
    folder.mkdir()
    odd_file(folder / "a b%c#é.txt", 1)
    odd_file(folder / "ends.txt", 2)
    (folder / "ends.txt").write_bytes((folder / "ends.txt").read_bytes() + b"\n\n")
    by_spark, local = offsets_both_ways(spark, [str(folder), *dataset.inputs])
    assert local is not None
    assert len(by_spark) > 20, "the inputs should be read in many splits"
    # every split the pass saw lines in, with the same offset; the driver also counts the splits
    # that hold no line start (inside a line longer than a split), which no task asks for
    assert {key: local.get(key) for key in by_spark} == by_spark
    assert len(local) > len(by_spark)


def test_compressed_files_are_left_to_the_counting_pass(spark: Any, tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    odd_file(plain, 3)
    packed = tmp_path / "packed.txt.bz2"  # bzip2 is split by Spark: its offsets are not the bytes'
    packed.write_bytes(bz2.compress(random.Random(4).randbytes(200_000)))
    lines = job.read_lines(spark, [str(plain), str(packed)])
    sizes = sizing.input_sizes(spark, lines)
    assert sizes is not None and len(sizes) == 2
    exact = sizing.split_size(spark, sizes)
    assert exact is not None and all(size > exact for size in sizes.values())
    assert sizing.local_line_offsets(spark, sizes, exact) is None
    only_plain = {uri: size for uri, size in sizes.items() if uri.endswith("plain.txt")}
    assert sizing.local_line_offsets(spark, only_plain, exact)


@pytest.mark.parametrize("chunk", [1, 3, 4, 7, 1 << 24])
def test_newlines_before_each_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(sizing, "_COUNT_CHUNK", chunk)
    data = b"\nab\n\ncd\r\nefg\n\n\nh"
    path = tmp_path / "f"
    path.write_bytes(data)
    positions = range(0, len(data) + 1, 1)
    assert sizing._newlines_before(str(path), positions) == [data[:p].count(b"\n") for p in positions]
    assert sizing._newlines_before(str(path), range(3, len(data), 5)) == [data[:p].count(b"\n") for p in range(3, len(data), 5)]
    with pytest.raises(ValueError, match="shorter"):
        sizing._newlines_before(str(path), range(len(data) + 1, len(data) + 2))
