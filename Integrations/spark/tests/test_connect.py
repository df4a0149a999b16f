"""The job over Spark Connect: a local Spark Connect server started from the installed PySpark,
the job run against it with --remote, every row compared with the single-process answers (the
same equality as local mode's test): local files on either path, and on the direct path files in
an S3 bucket (moto's server, which the Connect server is pointed at by fs.s3a.endpoint), with a
child killed midway."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from conftest import AT, SPARK_DIR, DataSet, missing
from s3_server import S3Server, free_port, listening
from test_direct import DIES_ONCE, script
from test_job import assert_same_answers
from test_s3 import expected_at, put_dataset, read_output

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
START_SECONDS = 240


@pytest.fixture(scope="module")
def connect_address(tmp_path_factory: pytest.TempPathFactory, s3: S3Server) -> Iterator[str]:
    """A Spark Connect server in local[2,2] (a task may fail once) on a free loopback port,
    pointed at the S3 server, ranges of 16 KiB, stopped after the module."""
    import pyspark

    home = os.path.dirname(os.path.abspath(pyspark.__file__))
    jars = glob.glob(os.path.join(home, "jars", "spark-connect_*.jar"))
    if not jars:
        missing(f"the installed PySpark ({home}) has no spark-connect jar")
    port = free_port()
    log_path = tmp_path_factory.mktemp("connect") / "server.log"
    env = {**os.environ, "SPARK_HOME": home, "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_REMOTE", None)
    command = [os.path.join(home, "bin", "spark-submit"), "--master", "local[2,2]", "--class", SERVER_CLASS,
               "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
               "--conf", f"spark.hadoop.fs.s3a.endpoint={s3.endpoint}", "--conf", f"spark.sql.files.maxPartitionBytes={16 * 1024}",
               "--conf", "spark.ui.enabled=false", "--conf", "spark.log.level=WARN", jars[0]]
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-3000:]
                pytest.fail(f"the Spark Connect server did not listen on {port} within {START_SECONDS} s "
                            f"(exit {server.poll()}):\n{tail}")
            time.sleep(1)
        yield f"sc://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def run_remote(connect_address: str, tool: str, dataset: DataSet, inputs: list[str], output: str,
               *extra: str) -> subprocess.CompletedProcess[str]:
    """The job as a command (tokenverify_spark.py --remote), bounded in time."""
    argv = [sys.executable, str(SPARK_DIR / "tokenverify_spark.py"), "--remote", connect_address,
            "--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--output", output, *extra]
    for path in inputs:
        argv += ["--input", path]
    env = {key: value for key, value in os.environ.items() if key != "SPARK_REMOTE"}
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("direct_mode, execution", [("auto", "direct"), ("off", "spark")])
def test_lines_over_spark_connect_equal_the_single_process_answers(
        spark: Any, connect_address: str, tool: str, binary: str, dataset: DataSet, tmp_path: Path,
        direct_mode: str, execution: str) -> None:
    output = tmp_path / "out"
    run = run_remote(connect_address, tool, dataset, dataset.inputs, str(output), "--direct", direct_mode)
    assert run.returncode == 0, run.stderr[-3000:]
    expected = dataset.expected(binary)
    assert f"{len(expected)} answered" in run.stderr
    rows = spark.read.parquet(str(output)).collect()
    assert_same_answers(rows, expected)
    assert json.loads((output / "_summary.json").read_text())["execution"] == execution


def test_s3_over_spark_connect_equal_the_single_process_answers(
        connect_address: str, s3: S3Server, tool: str, binary: str, dataset: DataSet) -> None:
    inputs, urls = put_dataset(s3, dataset, "connect")
    run = run_remote(connect_address, tool, dataset, inputs, "s3://tokens/out-connect", "--direct", "on")
    assert run.returncode == 0, run.stderr[-3000:]
    rows, names, summary = read_output(s3, "tokens/out-connect")
    assert_same_answers(rows, expected_at(dataset, binary, urls))
    assert summary["execution"] == "direct" and summary["answered"] == len(rows)
    assert names[:2] == ["_SUCCESS", "_summary.json"] and all(name.startswith("part-") for name in names[2:])
    assert len(names) - 2 >= 4, "the set should be several tasks"


def test_a_child_killed_midway_over_spark_connect_leaves_one_copy(
        connect_address: str, s3: S3Server, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    inputs, urls = put_dataset(s3, dataset, "connect-retry")
    marker = tmp_path / "died-once"
    wrapper = script(tmp_path / "tokenverify-dies-once",
                     DIES_ONCE.format(python=sys.executable, binary=os.path.abspath(binary), marker=str(marker)))
    run = run_remote(connect_address, wrapper, dataset, inputs, "s3://tokens/out-connect-retry", "--direct", "on")
    assert run.returncode == 0, run.stderr[-3000:]
    assert marker.exists(), "no child died, so nothing was retried"
    rows, names, summary = read_output(s3, "tokens/out-connect-retry")
    assert_same_answers(rows, expected_at(dataset, binary, urls))
    assert summary["answered"] == len(rows)
    assert names[:2] == ["_SUCCESS", "_summary.json"] and all(name.startswith("part-") for name in names[2:])


def test_the_remote_address_comes_from_spark_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvspark import options

    base = ["--tokenverify", "t", "--keys", "k", "--input", "i", "--output", "o"]
    monkeypatch.setenv("SPARK_REMOTE", "sc://cluster:15002")
    assert options.parse(base).remote == "sc://cluster:15002"
    assert options.parse([*base, "--remote", "sc://other:15002"]).remote == "sc://other:15002"
    monkeypatch.delenv("SPARK_REMOTE")
    assert options.parse(base).remote is None


# A job over Spark Connect whose session reads ranges of a core's share (maxPartitionBytes at
# 1 GiB, a session setting): the phases of its summary printed.
WHOLE_RANGES_JOB = '''
import json, sys
sys.path.insert(0, {spark_dir!r})
from pyspark.sql import SparkSession
from tvspark import job, options
spark = SparkSession.builder.remote({address!r}).getOrCreate()
spark.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 30))
print(json.dumps(job.run(spark, options.parse({argv!r})).phases))
'''


@pytest.mark.parametrize("dies_once", [False, True])
def test_a_barrier_stage_over_spark_connect_numbers_the_lines(
        connect_address: str, s3: S3Server, binary: str, dataset: DataSet, tmp_path: Path, dies_once: bool) -> None:
    """Two tasks, the second's first line counted by the first (test_line_numbers.two_files):
    the tasks swap their counts in a barrier stage (no count job), also when a child dies
    midway and the stage starts again."""
    from test_line_numbers import expected_answers, two_files
    from test_s3 import s3_argv

    inputs, urls = two_files(s3, dataset, tmp_path, f"connect-barrier-{dies_once}")
    tool, marker = binary, tmp_path / "died-once"
    if dies_once:
        tool = script(tmp_path / "tokenverify-dies-once",
                      DIES_ONCE.format(python=sys.executable, binary=os.path.abspath(binary), marker=str(marker)))
    output = f"s3://tokens/out-connect-barrier-{dies_once}"
    text = WHOLE_RANGES_JOB.format(spark_dir=str(SPARK_DIR), address=connect_address, argv=s3_argv(tool, dataset, inputs, output))
    env = {key: value for key, value in os.environ.items() if key != "SPARK_REMOTE"}
    run = subprocess.run([sys.executable, "-c", text], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "count_lines" not in json.loads(run.stdout.strip().splitlines()[-1])
    assert marker.exists() == dies_once
    rows, names, summary = read_output(s3, output.removeprefix("s3://"))
    assert_same_answers(rows, expected_answers(binary, dataset, urls))
    assert summary["answered"] == len(rows)
    assert names == ["_SUCCESS", "_summary.json", "part-00000.parquet", "part-00001.parquet"]
