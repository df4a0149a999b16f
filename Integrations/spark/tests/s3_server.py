"""A local S3 API for the tests: moto's server mode (`python -m moto.server`) on a free loopback
port, started and stopped by the tests, and the test credentials every process of the tests
uses (the Spark fixture puts them in the environment before the JVM starts, so that its Python
workers find them as the AWS SDK finds credentials anywhere)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START_SECONDS = 60
# Test credentials (moto accepts any unless told to check them); no instance metadata lookups.
ENVIRONMENT = {"AWS_ACCESS_KEY_ID": "tokenverify-test", "AWS_SECRET_ACCESS_KEY": "tokenverify-test-secret",
               "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
UNSET = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3")


def use_test_credentials() -> None:
    """This process's environment (and so its children's) with the test credentials only."""
    for name in UNSET:
        os.environ.pop(name, None)
    os.environ.update(ENVIRONMENT)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class S3Server:
    """A running moto server: its endpoint URL, process and log."""

    endpoint: str
    process: subprocess.Popen[bytes]
    log: Path

    def filesystem(self, **credentials: str) -> Any:
        """A pyarrow S3 file system on this server that may create buckets (for the tests' set-up)."""
        from pyarrow import fs

        return fs.S3FileSystem(endpoint_override=self.endpoint, region="us-east-1", allow_bucket_creation=True,
                               allow_bucket_deletion=True, access_key=credentials.get("access_key", ENVIRONMENT["AWS_ACCESS_KEY_ID"]),
                               secret_key=credentials.get("secret_key", ENVIRONMENT["AWS_SECRET_ACCESS_KEY"]))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(log: Path, environment: dict[str, str] | None = None) -> S3Server:
    """moto's server on a free 127.0.0.1 port, listening within START_SECONDS (else an error
    with its log)."""
    port = free_port()
    env = {**os.environ, **ENVIRONMENT, **(environment or {})}
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                   stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.monotonic() + START_SECONDS
    while not listening(port):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"moto's S3 server did not listen on {port} within {START_SECONDS} s:\n"
                               f"{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)
    return S3Server(f"http://127.0.0.1:{port}", process, log)


def upload(server: S3Server, local: str, key: str) -> str:
    """Puts a local file at `key` (BUCKET/PATH); its s3:// URL."""
    filesystem = server.filesystem()
    with open(local, "rb") as source, filesystem.open_output_stream(key) as target:
        target.write(source.read())
    return f"s3://{key}"
