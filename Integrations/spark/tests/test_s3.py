"""The direct path on S3 (moto's server on 127.0.0.1, started by the tests): inputs in a bucket,
Parquet written back to it, every row equal to the single-process answers with its line number;
planning reads only windows around the cuts; a task's child killed midway and a task run twice
leave one copy of each answer; a missing object or a denied bucket fails before any task."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pyarrow.parquet as pq
import pytest
import s3_server
from conftest import AT, DataSet, main_in_job_group
from test_direct import DIES_ONCE, PARQUET, command, script
from test_job import assert_same_answers

from tvspark import direct, job, options, ranges, remote
from tvspark.range_writer import write_task
from tvspark.plan import ByteRange, LocalFile, NotDirect, RangeTask
from tvspark.store import Store, locate


def put_dataset(s3: s3_server.S3Server, dataset: DataSet, prefix: str) -> tuple[list[str], dict[str, str]]:
    """The data set's files in the bucket under `prefix` (the folder as a folder); the job's
    --input URLs and each local file's URL."""
    urls = {}
    for path in dataset.files:
        relative = os.path.relpath(path, dataset.root)
        urls[path] = s3_server.upload(s3, path, f"tokens/{prefix}/{relative}")
    folder = os.path.relpath(dataset.inputs[0], dataset.root)
    return [f"s3://tokens/{prefix}/{folder}/", urls[dataset.inputs[1]]], urls


def expected_at(dataset: DataSet, binary: str, urls: dict[str, str]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(urls[path], line): answer for (path, line), answer in dataset.expected(binary).items()}


def s3_argv(tool: str, dataset: DataSet, inputs: list[str], output: str) -> list[str]:
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--output", output, "--direct", "on"]
    for url in inputs:
        argv += ["--input", url]
    return argv


def read_output(s3: s3_server.S3Server, key: str) -> tuple[list[dict[str, Any]], list[str], dict[str, Any]]:
    """The rows of the Parquet parts under `key`, the names there, and the summary."""
    filesystem = s3.filesystem()
    from pyarrow import fs

    names = sorted(info.base_name for info in filesystem.get_file_info(fs.FileSelector(key)))
    with filesystem.open_input_stream(f"{key}/_summary.json") as stream:
        summary = json.loads(stream.read())
    return pq.read_table(key, filesystem=filesystem).to_pylist(), names, summary


@pytest.fixture
def small_ranges(s3_spark: Any) -> Iterator[Any]:
    """maxPartitionBytes at 16 KiB: the set's larger files are cut into several ranges, so the
    lines before a range are counted by the tasks."""
    key = "spark.sql.files.maxPartitionBytes"
    before = s3_spark.conf.get(key)
    s3_spark.conf.set(key, str(16 * 1024))
    try:
        yield s3_spark
    finally:
        s3_spark.conf.set(key, before)


class ReadCounter:
    """Counts the bytes this process reads from the store (the driver's; the tasks are other
    processes)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.bytes = 0
        built = Store.filesystem
        counter = self

        class Reader:
            def __init__(self, inner: Any) -> None:
                self.inner = inner

            def read_at(self, size: int, offset: int) -> Any:
                data = self.inner.read_at(size, offset)
                counter.bytes += len(data)
                return data

        class Filesystem:
            def __init__(self, inner: Any) -> None:
                self.inner = inner

            def __getattr__(self, name: str) -> Any:
                return getattr(self.inner, name)

            def open_input_file(self, path: str) -> Reader:
                return Reader(self.inner.open_input_file(path))

            def open_input_stream(self, path: str) -> Any:
                raise AssertionError(f"the driver streams {path}")

        monkeypatch.setattr(Store, "filesystem", lambda store: Filesystem(built(store)))


def test_s3_rows_equal_the_single_process_answers(small_ranges: Any, s3: s3_server.S3Server, tool: str, binary: str,
                                                  dataset: DataSet, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs, urls = put_dataset(s3, dataset, "plain")
    sizes = [os.path.getsize(path) for path in dataset.files]
    found = direct.plan(small_ranges, direct.inspect(small_ranges, options.parse(s3_argv(tool, dataset, inputs, "s3://tokens/x"))))
    pieces = [piece for task in found.tasks for piece in task.ranges]
    assert sum(1 for piece in pieces if piece.start) >= 4, "the larger files should be cut into several ranges"
    assert all(piece.lines == -1 for piece in pieces), "the driver counted lines of a remote file"
    counter = ReadCounter(monkeypatch)
    summary = job.run(small_ranges, options.parse(s3_argv(tool, dataset, inputs, "s3://tokens/out-plain")))
    monkeypatch.undo()
    cuts = sum(max(1, -(-size // (16 * 1024))) - 1 for size in sizes)
    assert counter.bytes <= cuts * remote.WINDOW + 70_000 * cuts, "the driver read more than the windows at the cuts"
    rows, names, written = read_output(s3, "tokens/out-plain")
    expected = expected_at(dataset, binary, urls)
    assert_same_answers(rows, expected)
    assert summary.execution == "direct" and summary.answered == written["answered"] == len(expected)
    assert "count_lines" in summary.phases, "more tasks than cores: the lines are counted first"
    assert names[:2] == ["_SUCCESS", "_summary.json"] and all(name.startswith("part-") for name in names[2:])


def test_a_child_killed_midway_on_s3_leaves_one_copy(s3_spark: Any, s3: s3_server.S3Server, binary: str, dataset: DataSet,
                                                     tmp_path: Path) -> None:
    inputs, urls = put_dataset(s3, dataset, "retry")
    marker = tmp_path / "died-once"
    wrapper = script(tmp_path / "tokenverify-dies-once",
                     DIES_ONCE.format(python=sys.executable, binary=os.path.abspath(binary), marker=str(marker)))
    summary = job.run(s3_spark, options.parse(s3_argv(wrapper, dataset, inputs, "s3://tokens/out-retry")))
    assert marker.exists(), "no child died, so nothing was retried"
    rows, names, _ = read_output(s3, "tokens/out-retry")
    assert_same_answers(rows, expected_at(dataset, binary, urls))
    assert summary.answered == len(rows)
    assert names[:2] == ["_SUCCESS", "_summary.json"] and all(name.startswith("part-") for name in names[2:])


ALWAYS_DIES = '''#!{python}
import subprocess, sys
child = subprocess.Popen([{binary!r}, *sys.argv[1:]], stdout=subprocess.PIPE)
head = child.stdout.read(4096)
if len(head) == 4096 and "--output-format" in sys.argv:  # a task with answers: half a stream, a failing exit
    sys.stdout.buffer.write(head[:3000])
    child.kill()
    sys.exit(3)
sys.stdout.buffer.write(head + child.stdout.read())
sys.exit(child.wait())
'''


def test_a_failed_job_on_s3_leaves_no_part(s3_spark: Any, s3: s3_server.S3Server, binary: str, dataset: DataSet,
                                           tmp_path: Path) -> None:
    inputs, _ = put_dataset(s3, dataset, "failing")
    wrapper = script(tmp_path / "tokenverify-always-dies", ALWAYS_DIES.format(python=sys.executable, binary=os.path.abspath(binary)))
    with pytest.raises(Exception, match="exited with status 3|status 3"):
        job.run(s3_spark, options.parse(s3_argv(wrapper, dataset, inputs, "s3://tokens/out-failing")))
    from pyarrow import fs

    left = s3.filesystem().get_file_info(fs.FileSelector("tokens/out-failing", allow_not_found=True))
    assert [info.base_name for info in left] == []


def test_store_messages_name_no_secret() -> None:
    store = locate("s3://bucket/key", None).store
    assert store.describe() == "s3"
    assert Store("s3", (("endpoint", "https://user:secret@minio:9000"),)).describe() == "s3 endpoint=https://minio:9000"


def test_a_task_run_twice_leaves_one_object(s3: s3_server.S3Server, binary: str, dataset: DataSet) -> None:
    """As a speculative copy of a task would: the same name, the same rows, one object."""
    url = s3_server.upload(s3, dataset.files[0], "tokens/twice/a.txt")
    where = locate(url, None)
    store = Store("s3", (("endpoint", s3.endpoint),))
    files = [LocalFile(where.path, os.path.getsize(dataset.files[0]), info.mtime_ns, store, url)
             for info in [store.filesystem().get_file_info(where.path)]]
    task = RangeTask(3, tuple(ranges.plan_ranges(files, 1 << 30)))
    tables = []
    for _ in range(2):
        write_task(command(binary, dataset), task, "tokens/twice-out", PARQUET, store)
        tables.append(pq.read_table("tokens/twice-out", filesystem=store.filesystem()))
    from pyarrow import fs

    assert [info.base_name for info in store.filesystem().get_file_info(fs.FileSelector("tokens/twice-out"))] == ["part-00003.parquet"]
    assert tables[0].equals(tables[1])
    assert_same_answers(tables[1].to_pylist(), {(url, answer["line"]): answer
                                                for answer in s3_server_answers(binary, dataset, dataset.files[0])})


def s3_server_answers(binary: str, dataset: DataSet, path: str) -> list[dict[str, Any]]:
    from conftest import verify_file

    return verify_file(binary, path, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT)


def test_a_missing_object_fails_before_any_task(s3_spark: Any, tool: str, dataset: DataSet,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    argv = s3_argv(tool, dataset, ["s3://tokens/no/such/file.txt"], "s3://tokens/out-missing")
    status, jobs = main_in_job_group(s3_spark, argv, "tokenverify-s3-missing")
    assert status == 2 and jobs == []
    assert "--input s3://tokens/no/such/file.txt: no such object or folder" in capsys.readouterr().err


def test_a_denied_bucket_fails_before_any_task(s3_spark: Any, tool: str, dataset: DataSet, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A second server that checks credentials (moto's IAM after its first three requests): a user
    without any policy is refused the bucket."""
    import boto3

    strict = s3_server.start(tmp_path / "moto-strict.log", {"INITIAL_NO_AUTH_ACTION_COUNT": "3"})
    try:
        settings = {"endpoint_url": strict.endpoint, "region_name": "us-east-1"}
        boto3.client("s3", **settings).create_bucket(Bucket="closed")
        iam = boto3.client("iam", **settings)
        iam.create_user(UserName="outsider")
        key = iam.create_access_key(UserName="outsider")["AccessKey"]
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", key["AccessKeyId"])
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key["SecretAccessKey"])
        s3_spark.conf.set("spark.hadoop.fs.s3a.endpoint", strict.endpoint)
        argv = s3_argv(tool, dataset, ["s3://closed/tokens/"], "s3://closed/out")
        status, jobs = main_in_job_group(s3_spark, argv, "tokenverify-s3-denied")
        error = capsys.readouterr().err
        assert status == 2 and jobs == [], error
        assert "--input s3://closed/tokens/: cannot read it on s3 endpoint=" in error and "ACCESS_DENIED" in error, error
        assert key["SecretAccessKey"] not in error
    finally:
        strict.stop()


def test_a_store_pyarrow_cannot_reach_is_left_to_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """No libhdfs, a pyarrow built without Azure: auto takes Spark's path (its Hadoop connectors)."""
    def unreachable(store: Store) -> Any:
        raise OSError("libhdfs.so not found")

    monkeypatch.setattr(Store, "_build", unreachable)
    with pytest.raises(NotDirect, match="--input hdfs://namenode:8020/tokens: pyarrow cannot reach hdfs .*libhdfs"):
        ranges.input_files(["hdfs://namenode:8020/tokens"])


@pytest.mark.parametrize("chunk", [4096, 65536, 1 << 20])
def test_a_range_is_read_in_pieces_that_take_turns_in_two_buffers(s3: s3_server.S3Server, dataset: DataSet,
                                                                   monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """The task's reads (remote.read_chunks, feed_range) with pieces small enough that a range is
    many of them: every byte once, in order, each piece whole; the lines counted as `verify`
    numbers them as soon as the last piece is read (before it is fed), a `\\n` after a last line
    that has none."""
    from test_direct import lines_of

    path = dataset.files[1]  # CR LF, no line break at its end
    data = Path(path).read_bytes()
    url = s3_server.upload(s3, path, f"tokens/pieces-{chunk}/b.jsonl")
    store = Store("s3", (("endpoint", s3.endpoint),))
    where = locate(url, None)
    file = LocalFile(where.path, len(data), store.filesystem().get_file_info(where.path).mtime_ns, store, url)
    monkeypatch.setattr(remote, "READ_CHUNK", chunk)
    start, end = 5, len(data) - 3
    pieces = [bytes(piece) for piece in remote.read_chunks(file, start, end)]
    assert b"".join(pieces) == data[start:end] and len(pieces) == -(-(end - start) // chunk)
    fed: list[bytes] = []
    counted: list[tuple[int, int]] = []  # (lines, pieces fed by then)
    remote.feed_range(ByteRange(0, file, 0, len(data), 0, -1, False), lambda piece: fed.append(bytes(piece)),
                      lambda lines: counted.append((lines, len(fed))))
    assert b"".join(fed) == data + b"\n" and not data.endswith(b"\n")
    assert [lines for lines, _ in counted] == [lines_of(data)]
    assert counted[0][1] < len(fed) - 1, "the lines are known before the last piece goes in"
