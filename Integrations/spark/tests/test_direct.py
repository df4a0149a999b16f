"""The direct path (--direct): its plan (ranges, tasks, listing, local paths) and its task
(write_task) without Spark, against the command and against children that misbehave; then in
local[2]: the same rows as Spark's path, many ranges of odd lines, a folder of many small files,
a child that dies once, the output folder, and where auto falls back and on refuses."""

from __future__ import annotations

import bisect
import gzip
import json
import os
import random
import stat
import sys
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq
import pytest
from conftest import AT, ODD_LINES, REPO, SPARK_DIR, DataSet, main_in_job_group, verify_file
from test_job import assert_same_answers, job_options

from tvspark import direct, job, options, ranges, stages
from tvspark.child import VerifyError
from tvspark.line_scan import NewlineCounter
from tvspark.range_writer import COUNTS_SCHEMA, OUTPUT_SCHEMA, ParquetChoices, write_task
from tvspark.plan import ByteRange, LocalFile, NotDirect, RangeTask

PARQUET = ParquetChoices("snappy", ("jti", "sub", "aud", "line"))
DEMO = REPO / "Data" / "demo"
DEMO_FLAGS = ["--keys", str(DEMO / "keys.jwks"), "--revocations", str(DEMO / "revocations.jsonl"), "--at", AT]


def lines_of(data: bytes) -> int:
    """Lines as `verify` numbers them: split on `\\n`, blank ones counted, a last one without
    `\\n` counted."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def local_file(path: Path) -> LocalFile:
    info = path.stat()
    return LocalFile(str(path), info.st_size, info.st_mtime_ns)


def script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


# ---- the plan, without Spark ----------------------------------------------------------------

@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 24])
@pytest.mark.parametrize("seed", range(4))
def test_ranges_start_at_lines_and_know_the_lines_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         chunk: int, seed: int) -> None:
    monkeypatch.setattr(ranges, "_SCAN_CHUNK", chunk)
    monkeypatch.setattr(ranges, "_WINDOW", max(1, chunk // 2))
    chooser = random.Random(seed)
    parts = []
    for _ in range(chooser.randrange(0, 300)):
        kind = chooser.randrange(8)
        if kind == 0:
            parts.append(b"")
        elif kind == 1:
            parts.append(b"x" * chooser.choice([1, 50, 300, 2000]))
        else:
            parts.append(b"y" * chooser.randrange(1, 40) + (b"\r" if kind == 2 else b""))
    data = b"\n".join(parts) + (b"\n" if seed % 2 else b"")
    path = tmp_path / "f"
    path.write_bytes(data)
    size = chooser.choice([7, 100, 1000, 10**6])
    got = ranges.plan_ranges([local_file(path)], size)
    if not data:
        assert got == []
        return
    assert got[0].start == 0 and got[-1].end == len(data)
    for before, after in zip(got, got[1:]):
        assert before.end == after.start
    for index, piece in enumerate(got):
        assert piece.index == index and piece.start < piece.end
        assert piece.start == 0 or data[piece.start - 1] == ord("\n")
        assert piece.first_line == data[:piece.start].count(b"\n")
        assert piece.lines == lines_of(data[piece.start:piece.end])
    assert sum(piece.lines for piece in got) == lines_of(data)
    # a cut at the first line start at or after each of the file's n equal parts
    line_starts = [0] + [index + 1 for index, byte in enumerate(data) if byte == ord("\n")]
    pieces = max(1, -(-len(data) // size))
    wanted = set()
    for cut in (len(data) * piece // pieces for piece in range(1, pieces)):
        at = bisect.bisect_left(line_starts, cut)
        if at < len(line_starts) and line_starts[at] < len(data):
            wanted.add(line_starts[at])
    assert [piece.start for piece in got[1:]] == sorted(wanted)


@pytest.mark.parametrize("listed, now", [(b"a\nb\n", b"a\nb\nc\n"), (b"", b"a\n"), (b"a\nb\nc\n", b"a\n")])
def test_a_file_that_changed_since_it_was_listed_is_refused(tmp_path: Path, listed: bytes, now: bytes) -> None:
    path = tmp_path / "f"
    path.write_bytes(listed)
    planned = local_file(path)
    path.write_bytes(now)
    with pytest.raises(ValueError, match="changed"):
        ranges.plan_ranges([planned], 2)


def test_each_file_numbers_its_lines_from_its_start_also_when_listed_twice(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_bytes(b"1\n2\n3\n4\n5")
    second.write_bytes(b"6\n7\n")
    files = [local_file(first), local_file(second), local_file(first)]
    got = [(piece.file.path, piece.start, piece.end, piece.first_line, piece.lines) for piece in ranges.plan_ranges(files, 4)]
    a, b = str(first), str(second)
    # a's 9 bytes in three parts: cuts at bytes 3 and 6 move on to the line starts 4 and 6
    assert got == [(a, 0, 4, 0, 2), (a, 4, 6, 2, 1), (a, 6, 9, 3, 2), (b, 0, 4, 0, 2),
                   (a, 0, 4, 0, 2), (a, 4, 6, 2, 1), (a, 6, 9, 3, 2)]


@pytest.mark.parametrize("piece", [1, 3, 64, 1 << 20])
def test_newlines_are_counted_across_pieces(piece: int) -> None:
    generator = random.Random(piece)
    for length in (0, 1, 63, 64, 65, 1000, 70001):
        data = bytes(generator.choice(b"\n\rab\x00\xff") for _ in range(length))
        counter = NewlineCounter(piece)
        assert counter.count(data) == data.count(b"\n")
        assert counter.count(memoryview(bytearray(data))[1:]) == data[1:].count(b"\n")


def test_a_file_knows_whether_it_ends_with_a_line_break(tmp_path: Path) -> None:
    ended, open_ended = tmp_path / "a", tmp_path / "b"
    ended.write_bytes(b"1\n2\n")
    open_ended.write_bytes(b"1\n2")
    got = ranges.plan_ranges([local_file(ended), local_file(open_ended)], 1 << 20)
    assert [(piece.lines, piece.ends_with_newline) for piece in got] == [(2, True), (2, False)]


def pieces(sizes: list[int], per_file: int = 1) -> list[ByteRange]:
    """Ranges of files of these sizes (`per_file` ranges each), as plan_ranges would number them."""
    made: list[ByteRange] = []
    for number, size in enumerate(sizes):
        file = LocalFile(f"/in/{number}", size * per_file, 0)
        for part in range(per_file):
            made.append(ByteRange(len(made), file, part * size, (part + 1) * size, part, 1))
    return made


def test_a_large_file_keeps_a_task_a_range() -> None:
    tasks = ranges.group_ranges(pieces([106 << 20], per_file=2), 128 << 20, 4 << 20, 2)
    assert [[piece.index for piece in task.ranges] for task in tasks] == [[0], [1]]
    tasks = ranges.group_ranges(pieces([128 << 20], per_file=8), 128 << 20, 4 << 20, 2)
    assert [task.index for task in tasks] == list(range(8)) and all(len(task.ranges) == 1 for task in tasks)


@pytest.mark.parametrize("count, file_size, parallelism, tasks", [
    (64, 3_400_000, 2, 4),  # (212 + 256) MB of cost in partitions of 128 MB
    (100, 1000, 2, 4),  # 4 MB of cost each: 400 MB
    (3, 1000, 2, 2),  # three tiny files on two cores
    (5, 1000, 8, 5),  # never more tasks than ranges
    (40, 100_000_000, 2, 32),  # 4.17 GB of cost in partitions of 128 MiB: 31.05, so 32
])
def test_small_files_are_shared_among_a_multiple_of_the_cores_in_order(count: int, file_size: int, parallelism: int,
                                                                      tasks: int) -> None:
    sizes = [file_size] * count
    grouped = ranges.group_ranges(pieces(sizes), 128 << 20, 4 << 20, parallelism)
    assert len(grouped) == tasks
    assert [piece.index for task in grouped for piece in task.ranges] == list(range(count)), "each once, in order"
    assert [task.index for task in grouped] == list(range(tasks))
    lengths = [len(task.ranges) for task in grouped]
    assert max(lengths) - min(lengths) <= 1, lengths


@pytest.mark.parametrize("seed", range(20))
def test_random_inputs_make_tasks_of_every_range_once_in_order(seed: int) -> None:
    chooser = random.Random(seed)
    sizes = [chooser.choice([1, 100, 10_000, 1 << 20, 50 << 20, 300 << 20]) for _ in range(chooser.randrange(1, 80))]
    parallelism = chooser.choice([1, 2, 3, 8, 16])
    max_bytes, open_cost = chooser.choice([(128 << 20, 4 << 20), (1 << 20, 4 << 20), (1 << 30, 0), (64 << 20, 1)])
    files = [LocalFile(f"/in/{number}", size, 0) for number, size in enumerate(sizes)]
    size = ranges.range_size(sum(sizes), parallelism, max_bytes, open_cost)
    made: list[ByteRange] = []
    for file in files:  # cut as plan_ranges cuts, every range one line
        parts = max(1, -(-file.size // size))
        cuts = [0] + [file.size * part // parts for part in range(1, parts)] + [file.size]
        for start, end in zip(cuts, cuts[1:]):
            made.append(ByteRange(len(made), file, start, end, 0, 1))
    grouped = ranges.group_ranges(made, max_bytes, open_cost, parallelism)
    assert [piece.index for task in grouped for piece in task.ranges] == list(range(len(made)))
    assert [task.index for task in grouped] == list(range(len(grouped))) and all(task.ranges for task in grouped)
    assert len(grouped) == len(made) or len(grouped) % parallelism == 0
    biggest = max(piece.end - piece.start for piece in made)
    shares = [sum(piece.end - piece.start for piece in task.ranges) for task in grouped]
    # no task holds much more than an equal share and one range (at most 1.011 of it in 2,000 seeds)
    assert max(shares) <= 1.1 * (sum(shares) / len(grouped) + biggest), (shares, biggest)


def test_tasks_share_the_bytes_not_the_files() -> None:
    """A large file among small ones: its ranges are tasks of their own, and the small files are
    shared among the other tasks in about equal bytes."""
    made = pieces([50 << 20], per_file=2) + [ByteRange(2 + n, LocalFile(f"/in/s{n}", 1 << 20, 0), 0, 1 << 20, 0, 1)
                                              for n in range(50)]
    assert ranges.range_size(150 << 20, 2, 128 << 20, 4 << 20) == 75 << 20  # so the 100 MB file is cut in two
    grouped = ranges.group_ranges(made, 128 << 20, 4 << 20, 2)
    megabytes = [sum(piece.end - piece.start for piece in task.ranges) >> 20 for task in grouped]
    assert megabytes == [50, 50, 25, 25], megabytes


def test_local_paths_as_spark_takes_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert ranges.local_path("a/../b.txt") == str(tmp_path / "b.txt")
    assert ranges.local_path("/x//y/./z/") == "/x/y/z"
    assert ranges.local_path("//x/y") == "/x/y"
    assert ranges.local_path("file:/x/a b%20c") == "/x/a b%20c"  # taken literally, as Spark does
    assert ranges.local_path("file:///x/y") == "/x/y"
    for remote in ("s3a://bucket/x", "hdfs:///x", "file://host/x", "gs:x", "file:relative"):
        assert ranges.local_path(remote) is None, remote


def test_inputs_are_listed_as_spark_lists_them(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("b.txt", "a.txt", "_SUCCESS", ".hidden", "c.txt._COPYING_"):
        (folder / name).write_text("x\n")
    (folder / "_temporary").mkdir()  # hidden folders are left out too
    single = tmp_path / "single.txt"
    single.write_text("y\n")
    files = ranges.input_files([str(folder), "file:" + str(single)])
    assert [file.path for file in files] == [str(folder / "a.txt"), str(folder / "b.txt"), str(single)]
    assert files[0].size == 2
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = {
        str(tmp_path / "*.txt"): "is a pattern",
        "ftp://host/x": "not a local path",
        str(tmp_path / "missing"): "No such file",
        str(folder / "_SUCCESS"): "start with _ or .",
        str(fifo): "not a regular file",
    }
    for name, reason in refused.items():
        with pytest.raises(NotDirect, match=reason):
            ranges.input_files([name])
    (folder / "sub").mkdir()
    with pytest.raises(NotDirect, match="sub in --input .* is a folder"):
        ranges.input_files([str(folder)])


# ---- one range's task, without Spark ----------------------------------------------------------

def command(binary: str, dataset: DataSet) -> list[str]:
    return [binary, "verify", "--quiet", "--reload-interval", "0", "--keys", dataset.keys,
            "--revocations", dataset.revocations, "--at", AT]


def counted(batches: list[Any]) -> dict[Any, int]:
    totals: dict[Any, int] = {}
    for batch in batches:
        assert batch.schema == COUNTS_SCHEMA
        for row in batch.to_pylist():
            key = "valid" if row["valid"] else row["reason"]
            if row["count"]:
                totals[key] = totals.get(key, 0) + row["count"]
    return totals


def test_ranges_written_alone_give_the_commands_answers(binary: str, dataset: DataSet, tmp_path: Path) -> None:
    source = Path(dataset.files[0])  # blank lines, odd lines, a 70,000-byte line
    output = tmp_path / "out"
    (output / "_temporary").mkdir(parents=True)
    planned = ranges.plan_ranges([local_file(source)], 4096)
    assert len(planned) > 8 and any(piece.first_line for piece in planned)
    counts = [write_task(command(binary, dataset), RangeTask(piece.index, (piece,)), str(output), PARQUET)
              for piece in planned]
    parts = sorted(output.glob("part-*.parquet"))
    assert [part.name for part in parts] == [f"part-{index:05d}.parquet" for index in range(len(planned))]
    assert os.listdir(output / "_temporary") == []
    for part in parts:
        assert pq.read_schema(part).remove_metadata() == OUTPUT_SCHEMA
    rows = [row for part in parts for row in pq.read_table(part).to_pylist()]
    expected = {(str(source), answer["line"]): answer for answer in verify_file(binary, str(source), *command(binary, dataset)[3:])}
    assert_same_answers(rows, expected)
    want: dict[Any, int] = {}
    for answer in expected.values():
        key = "valid" if answer["valid"] else answer["reason"]
        want[key] = want.get(key, 0) + 1
    assert counted(counts) == want


def test_one_child_answers_the_ranges_of_several_files(binary: str, dataset: DataSet, tmp_path: Path) -> None:
    """A task of whole files (one without a line break at its end, one of blank lines only, one
    empty line) in one child: each row gets its own file and line, as the command answers each."""
    blank = tmp_path / "blank.txt"
    blank.write_bytes(b"\n \n\t")
    single = tmp_path / "single.txt"
    single.write_bytes(Path(dataset.files[2]).read_bytes().splitlines()[0])  # one token, no line break
    files = [dataset.files[1], str(blank), dataset.files[0], str(single), dataset.files[2], str(single)]
    planned = ranges.plan_ranges([local_file(Path(path)) for path in files], 1 << 30)
    assert [piece.ends_with_newline for piece in planned] == [False, False, True, False, True, False]
    output = tmp_path / "out"
    (output / "_temporary").mkdir(parents=True)
    counts = write_task(command(binary, dataset), RangeTask(7, tuple(planned)), str(output), PARQUET)
    rows = pq.read_table(output / "part-00007.parquet").to_pylist()
    expected = {}
    for path in files:
        expected.update({(path, answer["line"]): answer for answer in verify_file(binary, path, *command(binary, dataset)[3:])})
    assert_same_answers([row for row in rows if row["source"] != str(single)], {key: value for key, value in expected.items()
                                                                               if key[0] != str(single)})
    assert [(row["source"], row["line"]) for row in rows if row["source"] == str(single)] == [(str(single), 1)] * 2
    assert sum(count for batch in [counts] for count in batch.column("count").to_pylist()) == len(rows)


FAKE_CHILD = '''#!{python}
import io, sys
sys.path.insert(0, {spark_dir!r})
import pyarrow as pa
from tvspark.arrow_child import CHILD_FIELDS
{read}
schema = pa.schema([pa.field(name, kind) for name, kind in CHILD_FIELDS])

def batch(lines, of):
    columns = {{name: [None] * len(lines) for name in of.names}}
    columns["line"], columns["valid"] = lines, [line % 2 == 0 for line in lines]
    columns["reason"] = [None if line % 2 == 0 else "expired" for line in lines]
    return pa.RecordBatch.from_pydict(columns, schema=of)

def stream(*batches, of=schema):
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, of) as writer:
        for lines in batches:
            writer.write_batch(lines if isinstance(lines, pa.RecordBatch) else batch(lines, of))
    return sink.getvalue()

last = pa.Array.from_buffers(pa.string(), 3, [None, pa.py_buffer(pa.array([0, 0, 0, 4], pa.int32()).buffers()[1]),
                                              pa.py_buffer(b"\\xff\\xff\\xff\\xff")])
CUT_AFTER_MARKER_BYTES = pa.RecordBatch.from_arrays([*batch([1, 2, 3], schema).columns[:-1], last], schema=schema)
assert stream(CUT_AFTER_MARKER_BYTES)[-16:-8] == b"\\xff\\xff\\xff\\xff\\x00\\x00\\x00\\x00"

out = sys.stdout.buffer
{body}
'''


def fake_child(tmp_path: Path, body: str, reads_input: bool = True) -> list[str]:
    text = FAKE_CHILD.format(python=sys.executable, spark_dir=str(SPARK_DIR), body=body,
                             read="sys.stdin.buffer.read()" if reads_input else "")
    return [script(tmp_path / "fake-tokenverify", text), "verify"]


def three_lines(tmp_path: Path, size: int = 0) -> RangeTask:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\nb\nc\n" + b"#" * size)
    return RangeTask(4, (ByteRange(4, local_file(path), 0, 6 + size, 10, 3 + (1 if size else 0), not size),))


def test_a_whole_stream_becomes_the_part_file(tmp_path: Path) -> None:
    (tmp_path / "out" / "_temporary").mkdir(parents=True)
    task = three_lines(tmp_path)
    argv = fake_child(tmp_path, "out.write(stream([1, 2], [], [3]))")
    counts = write_task(argv, task, str(tmp_path / "out"), PARQUET)
    rows = pq.read_table(tmp_path / "out" / "part-00004.parquet").to_pylist()
    path = task.ranges[0].file.path
    assert [(row["source"], row["line"], row["valid"]) for row in rows] == [(path, 11, False), (path, 12, True), (path, 13, False)]
    assert counted([counts]) == {"valid": 1, "expired": 2}


@pytest.mark.parametrize("body, message", [
    ("out.write(b'not arrow at all')", "no Arrow stream"),
    ("out.write(stream([1, 2], [3])[:-30])", "broke off"),
    ("out.write(stream([1, 2], [3])[:-8])", "without the end-of-stream marker"),
    # cut off after a batch whose body ends in the marker's own bytes (its last buffer: ff ff ff ff, padding)
    ("out.write(stream(CUT_AFTER_MARKER_BYTES)[:-8])", "without the end-of-stream marker"),
    ("out.write(stream([1, 2], [3]) + b'x')", "more after the end"),
    ("out.write(stream([1, 2, 3])); sys.stderr.write('boom'); sys.exit(3)", "exited with status 3.*boom"),
    ("out.write(stream([1, 3], [2]))", "do not rise strictly"),
    ("out.write(stream([2, 2]))", "do not rise strictly"),
    ("out.write(stream([1, 4]))", "within the task's 3 lines"),
    ("out.write(stream([1], of=pa.schema(list(schema)[:-1])))", "its Arrow columns are"),
])
def test_a_misbehaving_child_fails_the_task_and_leaves_nothing(tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "out" / "_temporary").mkdir(parents=True)
    with pytest.raises(VerifyError, match=message):
        write_task(fake_child(tmp_path, body), three_lines(tmp_path), str(tmp_path / "out"), PARQUET)
    assert sorted(os.listdir(tmp_path / "out")) == ["_temporary"]
    assert os.listdir(tmp_path / "out" / "_temporary") == []


def test_a_child_that_does_not_take_its_whole_range_fails(tmp_path: Path) -> None:
    (tmp_path / "out" / "_temporary").mkdir(parents=True)
    task = three_lines(tmp_path, size=8 << 20)  # more than a pipe holds
    argv = fake_child(tmp_path, "out.write(stream([1, 2, 3]))", reads_input=False)
    with pytest.raises(VerifyError, match="did not go in whole"):
        write_task(argv, task, str(tmp_path / "out"), PARQUET)
    assert not (tmp_path / "out" / "part-00004.parquet").exists()


# ---- the job in local[2] ------------------------------------------------------------------------

def both_paths(spark: Any, argv: list[str], root: Path) -> list[Any]:
    """The job on each path; checks that both wrote the same schema and the same rows, including
    `source` and `line`, and returns them in (source, line) order."""
    frames = {}
    for mode, execution in (("on", "direct"), ("off", "spark")):
        output = root / f"out-{mode}"
        assert job.main([*argv, "--output", str(output), "--direct", mode]) == 0
        assert json.loads((output / "_summary.json").read_text())["execution"] == execution
        frames[mode] = spark.read.parquet(str(output))
    assert frames["on"].schema == frames["off"].schema
    rows = {mode: frame.orderBy("source", "line").collect() for mode, frame in frames.items()}
    assert len(rows["on"]) == len(rows["off"])
    for direct_row, spark_row in zip(rows["on"], rows["off"]):
        assert direct_row == spark_row
    return rows["on"]


def test_both_paths_write_the_same_rows(spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT]
    for path in dataset.inputs:
        argv += ["--input", path]
    assert_same_answers(both_paths(spark, argv, tmp_path), dataset.expected(binary))


def test_both_paths_write_the_same_rows_for_the_demo(spark: Any, tool: str, binary: str, tmp_path: Path) -> None:
    source = str(DEMO / "requests.jsonl")
    rows = both_paths(spark, ["--tokenverify", tool, *DEMO_FLAGS, "--input", source], tmp_path)
    assert any(row["aud"] and row["aud"].startswith("[") for row in rows)
    assert_same_answers(rows, {(source, answer["line"]): answer for answer in verify_file(binary, source, *DEMO_FLAGS)})


@pytest.fixture
def small_ranges(spark: Any) -> Iterator[int]:
    """spark.sql.files.maxPartitionBytes at 4 KiB for one test: a file of 100 KiB is many ranges."""
    key = "spark.sql.files.maxPartitionBytes"
    before = spark.conf.get(key)
    spark.conf.set(key, "4096")
    try:
        yield 4096
    finally:
        spark.conf.set(key, before)


def test_odd_lines_across_many_ranges(spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path,
                                      small_ranges: int) -> None:
    tokens = [line for line in Path(dataset.files[2]).read_bytes().splitlines() if line.strip()]
    requests = Path(dataset.files[1]).read_bytes().split(b"\r\n")
    chooser = random.Random(5)
    lines = []
    for index in range(400):
        kind = chooser.randrange(10)
        if kind == 0:
            lines.append(chooser.choice([b"", b" \t ", b"\r"]))
        elif kind == 1:
            lines.append(tokens[index % len(tokens)] + b"\r")  # a CR LF line
        elif kind == 2:
            lines.append(requests[index % len(requests)])
        elif kind == 3:
            lines.append(ODD_LINES[index % len(ODD_LINES)])  # a 70,000-byte line among them
        else:
            lines.append(tokens[index % len(tokens)])
    folder = tmp_path / "odd name %20 #é"
    folder.mkdir()
    source = folder / "a b%c#é.txt"
    source.write_bytes(b"\n".join([*lines, b"", b"", tokens[1]]))  # blank lines, then a last line without \n
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--input", str(folder)]
    rows = both_paths(spark, argv, tmp_path)
    expected = {(str(source), answer["line"]): answer
                for answer in verify_file(binary, str(source), "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT)}
    assert_same_answers(rows, expected)
    assert max(line for _, line in expected) == len(lines) + 3
    parts = list((tmp_path / "out-on").glob("part-*.parquet"))
    planned = ranges.plan_ranges(ranges.input_files([str(folder)]), small_ranges)
    assert len(parts) == len(planned) > 20, "the file should be cut into many ranges, one part file each"
    assert sum(1 for piece in planned if piece.first_line) == len(planned) - 1


def test_a_folder_of_many_small_files_is_read_by_a_few_children(spark: Any, tool: str, binary: str, dataset: DataSet,
                                                                 tmp_path: Path) -> None:
    lines = [line for path in dataset.files for line in Path(path).read_bytes().split(b"\n")]
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(40):
        part = lines[number::40]
        ending = b"" if number % 3 == 0 else b"\n"  # some files end without a line break
        (folder / f"f{number:03d}.txt").write_bytes(b"\n".join(part) + ending)
    flags = ["--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT]
    rows = both_paths(spark, ["--tokenverify", tool, *flags, "--input", str(folder)], tmp_path)
    expected = {}
    for path in sorted(folder.iterdir()):
        expected.update({(str(path), answer["line"]): answer for answer in verify_file(binary, str(path), *flags)})
    assert_same_answers(rows, expected)
    parts = list((tmp_path / "out-on").glob("part-*.parquet"))
    assert 2 <= len(parts) < 40 and len(parts) % 2 == 0, f"{len(parts)} part files for 40 small files on two cores"


def test_each_index_is_a_task_of_its_own(spark: Any) -> None:
    def where(indexes: Iterator[int]) -> Iterator[tuple[int, int]]:
        from pyspark import TaskContext

        context = TaskContext.get()
        assert context is not None
        for index in indexes:
            yield context.partitionId(), index

    rows = stages.task_indexes(spark, 9).mapPartitions(where).collect()
    assert sorted(rows) == [(index, index) for index in range(9)]


DIES_ONCE = '''#!{python}
import os, subprocess, sys
child = subprocess.Popen([{binary!r}, *sys.argv[1:]], stdout=subprocess.PIPE)
head = child.stdout.read(4096)
if len(head) == 4096 and "--output-format" in sys.argv:
    try:
        os.close(os.open({marker!r}, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        pass
    else:  # the first task with answers to give: half a stream, then a failing exit
        sys.stdout.buffer.write(head[:3000])
        sys.stdout.flush()
        child.kill()
        sys.exit(3)
sys.stdout.buffer.write(head)
for chunk in iter(lambda: child.stdout.read(1 << 16), b""):
    sys.stdout.buffer.write(chunk)
sys.stdout.flush()
sys.exit(child.wait())
'''


def test_a_child_that_dies_mid_stream_is_retried(spark: Any, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    marker = tmp_path / "died-once"
    wrapper = script(tmp_path / "tokenverify-dies-once",
                     DIES_ONCE.format(python=sys.executable, binary=os.path.abspath(binary), marker=str(marker)))
    output = tmp_path / "out"
    summary = job.run(spark, job_options(dataset, wrapper, output, "--direct", "on"))
    assert marker.exists(), "no child died, so nothing was retried"
    expected = dataset.expected(binary)
    assert_same_answers(spark.read.parquet(str(output)).collect(), expected)
    assert summary.answered == len(expected)
    names = sorted(os.listdir(output))
    assert names[:2] == ["_SUCCESS", "_summary.json"] and all(name.startswith("part-") for name in names[2:])


def test_the_output_folder_as_sparks_writer_treats_it(spark: Any, tool: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "out"
    output.mkdir()
    (output / "stale.parquet").write_text("not ours")
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", str(DEMO / "requests.jsonl"), "--output", str(output),
            "--direct", "on"]
    assert job.main(argv) == 2
    assert "already exists (--overwrite replaces it)" in capsys.readouterr().err
    assert (output / "stale.parquet").exists()
    assert job.main([*argv, "--overwrite"]) == 0
    assert not (output / "stale.parquet").exists() and (output / "_SUCCESS").exists()
    assert spark.read.parquet(str(output)).count() == json.loads((output / "_summary.json").read_text())["answered"]
    inside = output / "input.txt"
    inside.write_bytes((DEMO / "requests.jsonl").read_bytes())
    with pytest.raises(options.ConfigError, match="holds the input"):
        job.run(spark, options.parse([*argv[:-6], "--input", str(inside), "--output", str(output), "--overwrite",
                                      "--direct", "on"]))
    assert inside.exists()


def test_an_empty_input_gives_an_empty_table(spark: Any, tool: str, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", str(tmp_path / "empty.txt"), "--direct", "on"]
    summary = job.run(spark, options.parse([*argv, "--output", str(tmp_path / "out")]))
    assert summary.answered == 0 and summary.execution == "direct"
    written = spark.read.parquet(str(tmp_path / "out"))
    assert written.count() == 0
    assert written.schema.simpleString() == "struct<source:string,line:bigint,valid:boolean,reason:string,detail:string," \
                                            "jti:string,sub:string,aud:string,kid:string,alg:string,exp:double,role:string>"


# ---- which path runs --------------------------------------------------------------------------

def test_auto_falls_back_for_json_output(spark: Any, tool: str, tmp_path: Path) -> None:
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", str(DEMO / "requests.jsonl"), "--output", str(tmp_path / "out"),
            "--output-format", "json"]
    summary = job.run(spark, options.parse(argv))
    assert summary.execution == "spark" and summary.answered > 0
    assert list((tmp_path / "out").glob("part-*.json")) and not list((tmp_path / "out").glob("*.parquet"))


class TodaysPath(Exception):
    """Raised by a stand-in for job.verify: the job took Spark's path."""


def test_auto_falls_back_for_a_remote_input(spark: Any, tool: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    def todays_path(*_: Any) -> None:
        raise TodaysPath()

    monkeypatch.setattr(job, "verify", todays_path)  # no remote file system here: stop where Spark's path starts
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", "viewfs://fleet/tokens/", "--output", str(tmp_path / "out")]
    with pytest.raises(TodaysPath):
        job.run(spark, options.parse(argv))
    assert "--input viewfs://fleet/tokens/ is not a local path" in capsys.readouterr().err
    with pytest.raises(options.ConfigError, match="--direct on: .*viewfs://fleet/tokens/ is not a local path"):
        job.run(spark, options.parse([*argv, "--direct", "on"]))


def test_compressed_input_is_left_to_spark(spark: Any, tool: str, tmp_path: Path) -> None:
    packed = tmp_path / "requests.jsonl.gz"
    packed.write_bytes(gzip.compress((DEMO / "requests.jsonl").read_bytes()))
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", str(packed), "--output", str(tmp_path / "out")]
    with pytest.raises(NotDirect, match="compressed"):
        direct.inspect(spark, options.parse(argv))
    assert job.run(spark, options.parse(argv)).execution == "spark"


@pytest.mark.parametrize("argv_tail, message", [
    (["--output-format", "json"], "--output-format json: it writes Parquet only"),
    (["--input-format", "csv"], "--input-format csv: it reads files of lines only"),
])
def test_direct_on_fails_before_any_task_saying_why(spark: Any, tool: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    argv_tail: list[str], message: str) -> None:
    argv = ["--tokenverify", tool, *DEMO_FLAGS, "--input", str(DEMO / "requests.jsonl"), "--output", str(tmp_path / "out"),
            "--direct", "on", *argv_tail]
    status, jobs = main_in_job_group(spark, argv, "tokenverify-direct-on")
    assert status == 2
    assert f"tokenverify-spark: --direct on: the direct path cannot run this job: {message}" in capsys.readouterr().err
    assert jobs == []
    assert not (tmp_path / "out").exists()


def test_a_binary_without_arrow_output(spark: Any, binary: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """auto takes Spark's path with a tokenverify that cannot answer in Arrow; on says so."""
    older = script(tmp_path / "tokenverify-older", "#!/bin/sh\n"
                   'for a in "$@"; do [ "$a" = --output-format ] && { echo "Error: Unknown option \'--output-format\'" >&2; exit 2; }; done\n'
                   f'exec "{os.path.abspath(binary)}" "$@"\n')
    argv = ["--tokenverify", older, *DEMO_FLAGS, "--input", str(DEMO / "requests.jsonl")]
    summary = job.run(spark, options.parse([*argv, "--output", str(tmp_path / "auto")]))
    assert summary.execution == "spark" and summary.answered == len(verify_file(binary, str(DEMO / "requests.jsonl"), *DEMO_FLAGS))
    assert "cannot answer with --output-format arrow" in capsys.readouterr().err
    with pytest.raises(options.ConfigError, match="--direct on: .*cannot answer with --output-format arrow.*Unknown option"):
        job.run(spark, options.parse([*argv, "--output", str(tmp_path / "on"), "--direct", "on"]))
    assert not (tmp_path / "on").exists()
