"""How remote ranges learn their first lines (line_numbers.py), on S3 (moto's server): in one
barrier stage where the tasks fit at once (no count job; a child killed midway restarts the
stage and leaves one copy), from a count job where they do not or where Spark refuses the
barrier stage; every row equal to the single-process answers with its line number."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
import s3_server
from conftest import AT, DataSet, verify_file
from test_direct import DIES_ONCE, script
from test_job import assert_same_answers
from test_s3 import read_output, s3_argv

from tvspark import direct, job, line_numbers, options
from tvspark.plan import ByteRange, LocalFile, RangeTask
from tvspark.store import Store


@pytest.fixture
def whole_ranges(s3_spark: Any) -> Iterator[Any]:
    """maxPartitionBytes at 1 GiB: the input is cut a core's share a range, so that a file of
    more than half the bytes is two ranges and the job two tasks (this session's two cores)."""
    key = "spark.sql.files.maxPartitionBytes"
    before = s3_spark.conf.get(key)
    s3_spark.conf.set(key, str(1 << 30))
    try:
        yield s3_spark
    finally:
        s3_spark.conf.set(key, before)


def two_files(s3: s3_server.S3Server, dataset: DataSet, tmp_path: Path, prefix: str) -> tuple[list[str], dict[str, str]]:
    """A small file and a large one (the set's first and third files together) in the bucket: the
    plan is two tasks, the small file and the large one's first range, then its second range,
    whose first line the first task counts. The --input URLs and each local file's URL."""
    first, third = (Path(dataset.files[index]).read_bytes() for index in (0, 2))
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small.write_bytes(b"\n".join(first.split(b"\n")[:30]) + b"\n")
    large.write_bytes(first + b"\n\n" + third)
    urls = {str(path): s3_server.upload(s3, str(path), f"tokens/{prefix}/{path.name}") for path in (small, large)}
    return list(urls.values()), urls


def expected_answers(binary: str, dataset: DataSet, urls: dict[str, str]) -> dict[tuple[str, int], dict[str, Any]]:
    flags = ("--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT)
    return {(url, answer["line"]): answer for path, url in urls.items() for answer in verify_file(binary, path, *flags)}


def refuse_count_job(*_: Any) -> Any:
    raise AssertionError("the driver ran a count job")


def test_a_barrier_stage_numbers_the_lines_when_the_tasks_fit(whole_ranges: Any, s3: s3_server.S3Server, tool: str,
                                                              binary: str, dataset: DataSet, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    inputs, urls = two_files(s3, dataset, tmp_path, "barrier")
    argv = s3_argv(tool, dataset, inputs, "s3://tokens/out-barrier")
    found = direct.plan(whole_ranges, direct.inspect(whole_ranges, options.parse(argv)))
    assert [len(task.ranges) for task in found.tasks] == [2, 1] and line_numbers.needs_counts(found.tasks)
    monkeypatch.setattr(line_numbers, "count_job", refuse_count_job)
    summary = job.run(whole_ranges, options.parse(argv))
    assert "count_lines" not in summary.phases
    rows, names, written = read_output(s3, "tokens/out-barrier")
    expected = expected_answers(binary, dataset, urls)
    assert_same_answers(rows, expected)
    assert written["answered"] == summary.answered == len(expected)
    assert names == ["_SUCCESS", "_summary.json", "part-00000.parquet", "part-00001.parquet"]


def test_a_child_killed_midway_restarts_the_barrier_stage_and_leaves_one_copy(
        whole_ranges: Any, s3: s3_server.S3Server, binary: str, dataset: DataSet, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    inputs, urls = two_files(s3, dataset, tmp_path, "barrier-retry")
    marker = tmp_path / "died-once"
    wrapper = script(tmp_path / "tokenverify-dies-once",
                     DIES_ONCE.format(python=sys.executable, binary=os.path.abspath(binary), marker=str(marker)))
    monkeypatch.setattr(line_numbers, "count_job", refuse_count_job)
    summary = job.run(whole_ranges, options.parse(s3_argv(wrapper, dataset, inputs, "s3://tokens/out-barrier-retry")))
    assert marker.exists(), "no child died, so nothing was retried"
    rows, names, _ = read_output(s3, "tokens/out-barrier-retry")
    assert_same_answers(rows, expected_answers(binary, dataset, urls))
    assert summary.answered == len(rows)
    assert names == ["_SUCCESS", "_summary.json", "part-00000.parquet", "part-00001.parquet"]


def test_a_refused_barrier_stage_counts_the_lines_first(whole_ranges: Any, s3: s3_server.S3Server, tool: str, binary: str,
                                                        dataset: DataSet, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """As Spark refuses a barrier stage under dynamic allocation: the job counts first instead."""
    inputs, urls = two_files(s3, dataset, tmp_path, "refused")
    run_stage = direct._run_stage

    def refusing(spark: Any, plan: direct.DirectPlan) -> Any:
        if plan.barrier:
            raise RuntimeError("Barrier execution mode does not support dynamic resource allocation for now.")
        return run_stage(spark, plan)

    monkeypatch.setattr(direct, "_run_stage", refusing)
    summary = job.run(whole_ranges, options.parse(s3_argv(tool, dataset, inputs, "s3://tokens/out-refused")))
    assert "count_lines" in summary.phases
    rows, _, _ = read_output(s3, "tokens/out-refused")
    assert_same_answers(rows, expected_answers(binary, dataset, urls))


class Settings:
    """A session's settings only (spark.conf.get), as barrier_fits reads them."""

    def __init__(self, **values: str) -> None:
        self.values = {key.replace("_", "."): value for key, value in values.items()}
        self.conf = self

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)


def test_a_barrier_stage_only_where_every_task_fits_at_once() -> None:
    local = Settings(spark_master="local[4]")
    assert line_numbers.barrier_fits(local, 4, 4)
    assert not line_numbers.barrier_fits(local, 5, 4), "more tasks than slots"
    assert not line_numbers.barrier_fits(Settings(spark_master="local[4]", spark_task_cpus="2"), 3, 4), "two cores a task"
    assert line_numbers.barrier_fits(Settings(spark_master="local[4]", spark_dynamicAllocation_enabled="true"), 4, 4)
    assert not line_numbers.barrier_fits(Settings(spark_master="yarn", spark_dynamicAllocation_enabled="true"), 2, 4)
    assert line_numbers.barrier_fits(Settings(spark_master="yarn"), 2, 4)
    assert line_numbers.is_refusal(RuntimeError("... Barrier execution mode does not allow run a barrier stage ..."))
    assert not line_numbers.is_refusal(RuntimeError("a task failed"))


class Exchange:
    """BarrierTaskContext.get() with allGather answering the messages given."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.sent: list[str] = []

    def allGather(self, message: str) -> list[str]:  # noqa: N802 - PySpark's name
        self.sent.append(message)
        return self.replies


def test_each_task_takes_its_first_lines_from_the_counts_every_task_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyspark

    store = Store("s3")
    one, two = LocalFile("b/one", 300, 0, store, "s3://b/one"), LocalFile("b/two", 50, 0, store, "s3://b/two")
    tasks = (RangeTask(0, (ByteRange(0, one, 0, 100, 0, -1), ByteRange(1, one, 100, 200, -1, -1))),
             RangeTask(1, (ByteRange(2, one, 200, 300, -1, -1), ByteRange(3, two, 0, 50, 0, -1))))
    exchange = Exchange(['[[0, 7], [1, 5]]', '[]'])
    monkeypatch.setattr(pyspark.BarrierTaskContext, "get", classmethod(lambda cls: exchange))
    numbered = line_numbers.gather(tasks, tasks[1], [9, 4])
    assert [piece.first_line for piece in numbered.ranges] == [12, 0]
    assert exchange.sent == ["[]"], "a file's last range is nobody's business"
    assert [piece.first_line for piece in line_numbers.gather(tasks, tasks[0], [7, 5]).ranges] == [0, 7]
    exchange.replies = ['[[0, 7]]', '[]']
    with pytest.raises(ValueError, match="gave the lines of 1 ranges; 2 tasks and 2 ranges expected"):
        line_numbers.gather(tasks, tasks[1], [9, 4])
