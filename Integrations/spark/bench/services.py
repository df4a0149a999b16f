"""The benchmark's optional services: moto's S3 server holding the inputs and receiving the
output (`--store s3`), and a Spark Connect server the job reaches with a remote session
(`--connect`), both children of the benchmark on 127.0.0.1, stopped at its end. Their CPU seconds
count in the job's tree (TreeCPU); the S3 server's are also read apart (`cpu_seconds`), so that
the job's figures can be given without the local store's share. Both are stopped at exit, also
when the benchmark fails."""

from __future__ import annotations

import atexit
import glob
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SPARK_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(SPARK_DIR / "tests"))

import s3_server  # noqa: E402

CONNECT_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def cpu_seconds(pid: int) -> float:
    """The CPU seconds (user + system, its reaped children's too) process `pid` has used."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def start_s3(work: Path) -> s3_server.S3Server:
    """moto's S3 server with the bucket `bench`; the test credentials in this environment."""
    s3_server.use_test_credentials()
    server = s3_server.start(work / "moto.log")
    atexit.register(server.stop)  # also when the benchmark fails
    server.filesystem().create_dir("bench")
    return server


def put_inputs(server: s3_server.S3Server, inputs: list[Path], prefix: str) -> str:
    """The input files in the bucket under `prefix` (skipped when already there at their size);
    the job's --input URL (the file, or the folder of files)."""
    filesystem = server.filesystem()
    for path in inputs:
        key = f"bench/{prefix}/{path.name}"
        if filesystem.get_file_info(key).size != path.stat().st_size:
            with path.open("rb") as source, filesystem.open_output_stream(key) as target:
                for chunk in iter(lambda: source.read(16 << 20), b""):
                    target.write(chunk)
    return f"s3://bench/{prefix}/" + (inputs[0].name if len(inputs) == 1 else "")


class ConnectServer:
    """A Spark Connect server in local[cores] on a free loopback port (the JVM options and the S3
    endpoint as the benchmark's classic session has them)."""

    def __init__(self, work: Path, cores: int, jvm_options: str, s3_endpoint: str | None) -> None:
        import pyspark

        home = os.path.dirname(os.path.abspath(pyspark.__file__))
        jar = glob.glob(os.path.join(home, "jars", "spark-connect_*.jar"))[0]
        self.port = s3_server.free_port()
        command = [os.path.join(home, "bin", "spark-submit"), "--master", f"local[{cores}]", "--class", CONNECT_CLASS,
                   "--driver-memory", "2g", "--conf", f"spark.driver.extraJavaOptions={jvm_options}",
                   "--conf", f"spark.connect.grpc.binding.port={self.port}", "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                   "--conf", "spark.ui.enabled=false", "--conf", "spark.log.level=WARN"]
        if s3_endpoint:
            command += ["--conf", f"spark.hadoop.fs.s3a.endpoint={s3_endpoint}"]
        env = {**os.environ, "SPARK_HOME": home, "PYSPARK_PYTHON": sys.executable}
        env.pop("SPARK_REMOTE", None)
        with open(work / "connect.log", "wb") as log:
            self.process = subprocess.Popen([*command, jar], stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        atexit.register(self.stop)  # also when the benchmark fails
        deadline = time.monotonic() + 300
        while not s3_server.listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the Spark Connect server did not start (see {work / 'connect.log'})")
            time.sleep(0.5)

    def session(self) -> Any:
        from pyspark.sql import SparkSession

        return SparkSession.builder.remote(f"sc://127.0.0.1:{self.port}").getOrCreate()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
