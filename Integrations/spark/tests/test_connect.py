"""The job over Spark Connect: a local Spark Connect server started from the installed PySpark,
the job run against it with --remote, every row compared with the single-process answers (the
same equality as local mode's test)."""

from __future__ import annotations

import glob
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from conftest import AT, SPARK_DIR, DataSet, missing
from test_job import assert_same_answers

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
START_SECONDS = 240


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="module")
def connect_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Spark Connect server in local[2] on a free loopback port, stopped after the module."""
    import pyspark

    home = os.path.dirname(os.path.abspath(pyspark.__file__))
    jars = glob.glob(os.path.join(home, "jars", "spark-connect_*.jar"))
    if not jars:
        missing(f"the installed PySpark ({home}) has no spark-connect jar")
    port = free_port()
    log_path = tmp_path_factory.mktemp("connect") / "server.log"
    env = {**os.environ, "SPARK_HOME": home, "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_REMOTE", None)
    command = [os.path.join(home, "bin", "spark-submit"), "--master", "local[2]", "--class", SERVER_CLASS,
               "--conf", f"spark.connect.grpc.binding.port={port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
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


def test_lines_over_spark_connect_equal_the_single_process_answers(
        spark: Any, connect_address: str, tool: str, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    output = tmp_path / "out"
    argv = [sys.executable, str(SPARK_DIR / "tokenverify_spark.py"), "--remote", connect_address,
            "--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--output", str(output)]
    for path in dataset.inputs:
        argv += ["--input", path]
    env = {key: value for key, value in os.environ.items() if key != "SPARK_REMOTE"}
    run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    expected = dataset.expected(binary)
    assert f"{len(expected)} answered" in run.stderr
    rows = spark.read.parquet(str(output)).collect()
    assert_same_answers(rows, expected)


def test_the_remote_address_comes_from_spark_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvspark import options

    base = ["--tokenverify", "t", "--keys", "k", "--input", "i", "--output", "o"]
    monkeypatch.setenv("SPARK_REMOTE", "sc://cluster:15002")
    assert options.parse(base).remote == "sc://cluster:15002"
    assert options.parse([*base, "--remote", "sc://other:15002"]).remote == "sc://other:15002"
    monkeypatch.delenv("SPARK_REMOTE")
    assert options.parse(base).remote is None
