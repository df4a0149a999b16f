"""Fixtures: the tokenverify under test, one Spark session for every test, and a generated set
of input files with the single-process answers for every line.

The tool is TOKENVERIFY_SPARK_TOOL (the release archive or a binary; scripts/test-spark sets it
to the archive that scripts/package built), else dist/*.tar.gz, else .build/{release,debug}.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

HERE = Path(__file__).resolve().parent
SPARK_DIR = HERE.parent
REPO = SPARK_DIR.parent.parent
sys.path.insert(0, str(SPARK_DIR))

import s3_server  # noqa: E402
from tvspark.ship import is_archive, unpack_locally  # noqa: E402

AT = "1800000000"


def missing(reason: str) -> None:
    """A required input is missing: a failure under CI, a skip (with the reason) elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required for CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def tool() -> str:
    """The archive or binary the job ships."""
    given = os.environ.get("TOKENVERIFY_SPARK_TOOL")
    if given:
        if not os.path.isfile(given):
            pytest.fail(f"TOKENVERIFY_SPARK_TOOL={given}: no such file")
        return os.path.abspath(given)
    candidates = sorted(glob.glob(str(REPO / "dist" / "tokenverify-*.tar.gz")))
    candidates += [str(REPO / ".build" / "release" / "tokenverify"), str(REPO / ".build" / "debug" / "tokenverify")]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    missing("no tokenverify: run scripts/package (or swift build), or set TOKENVERIFY_SPARK_TOOL")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def binary(tool: str) -> str:
    """The same tokenverify as a local executable (the archive unpacked)."""
    return unpack_locally(tool) if is_archive(tool) else tool


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for all tests: 2 cores, a task may fail twice (local[2,2]: the
    retry test needs one retry), small Arrow batches and small file splits so that every
    partition sees several batches and files are read in several splits."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing("pyspark is not installed (scripts/install-dependencies sets up .venv-spark)")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s3_server.use_test_credentials()  # before the JVM starts: its Python workers inherit them
    session = (
        SparkSession.builder.master("local[2,2]")
        .appName("tokenverify-spark-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
        .config("spark.sql.files.maxPartitionBytes", str(48 * 1024))
        .config("spark.sql.files.openCostInBytes", "1024")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[s3_server.S3Server]:
    """moto's S3 server on 127.0.0.1 for the session, stopped after; the bucket `tokens`."""
    try:
        import moto  # noqa: F401
    except ImportError:
        missing("moto is not installed (scripts/install-dependencies --spark sets up .venv-spark)")
    s3_server.use_test_credentials()
    server = s3_server.start(tmp_path_factory.mktemp("s3") / "moto.log")
    try:
        server.filesystem().create_dir("tokens")
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_spark(spark: Any, s3: s3_server.S3Server) -> Iterator[Any]:
    """The Spark session pointed at the S3 server by Spark's own setting (fs.s3a.endpoint)."""
    key = "spark.hadoop.fs.s3a.endpoint"
    spark.conf.set(key, s3.endpoint)
    try:
        yield spark
    finally:
        spark.conf.unset(key)


def main_in_job_group(spark: Any, argv: list[str], group: str) -> tuple[int, list[int]]:
    """Runs the job's main with `argv` inside Spark job group `group`: its exit status, and the
    Spark jobs it started (none, for a job refused before any task)."""
    from tvspark import job

    spark.sparkContext.setJobGroup(group, f"tokenverify-spark test: {group}")
    try:
        status = job.main(argv)
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    return status, list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


def verify_file(binary: str, path: str, *flags: str) -> list[dict[str, Any]]:
    """The single-process answers for one file."""
    result = subprocess.run([binary, "verify", "--quiet", *flags, path], capture_output=True, check=True)
    return [json.loads(line) for line in result.stdout.splitlines()]


@dataclass(frozen=True)
class DataSet:
    root: Path
    keys: str
    revocations: str
    files: list[str]  # every input file
    inputs: list[str]  # what the job is given: a folder and a file
    requests: list[dict[str, Any]]  # gen's requests.jsonl, parsed

    def expected(self, binary: str, *flags: str) -> dict[tuple[str, int], dict[str, Any]]:
        """(file, line) → the answer `tokenverify verify` gives that line at AT."""
        answers = {}
        for path in self.files:
            for answer in verify_file(binary, path, "--keys", self.keys, "--revocations", self.revocations,
                                      "--at", AT, *flags):
                answers[(path, answer["line"])] = answer
        return answers


ODD_LINES: list[bytes] = [
    b"not-a-token",
    b"a.b.c",
    b'  \t{"id":"own-id","token":"x.y.z"}\t ',
    b'{"token":1}',
    b'{"token":"x.y.z","extra":1}',
    b'{"token":"a","token":"b"}',
    b"{bad json",
    b"{}",
    b'tok"en\\with"quotes',
    b"caf\xc3\xa9.token.\xe2\x82\xac",
    b"\xff\xfe not utf-8",
    b"x" * 70000,
]


@pytest.fixture(scope="session")
def dataset(binary: str, tmp_path_factory: pytest.TempPathFactory) -> DataSet:
    """gen's set split into three files (one in a folder of two) with blank lines, CR LF line
    ends, spaces around lines, malformed and odd lines, context requests and revocations."""
    root = tmp_path_factory.mktemp("set")
    subprocess.run([binary, "gen", "--count", "600", "--seed", "11", "--realistic", "--out", str(root / "gen")],
                   check=True, capture_output=True)
    tokens = (root / "gen" / "tokens.txt").read_bytes().splitlines()
    requests = (root / "gen" / "requests.jsonl").read_bytes().splitlines()
    folder = root / "in"
    folder.mkdir()
    first = folder / "a.txt"
    lines: list[bytes] = []
    for index, token in enumerate(tokens[:250]):
        lines.append(token)
        if index % 37 == 0:
            lines.append(b"")
        if index % 41 == 0:
            lines.append(b" \t ")
        if index % 29 == 0:
            lines.append(ODD_LINES[(index // 29) % len(ODD_LINES)])
    lines[5] = b"  " + lines[5] + b"\t"
    lines.extend(ODD_LINES)
    first.write_bytes(b"\n".join(lines) + b"\n")
    second = folder / "b.jsonl"  # context requests with their own ids, CR LF, no final line break
    second.write_bytes(b"\r\n".join(requests[:300]))
    third = root / "c.txt"  # the rest, a file given by itself
    third.write_bytes(b"\n".join(tokens[250:] + [b"", b'{"token":"' + tokens[0] + b'","at":1}']) + b"\n")
    parsed = [json.loads(line) for line in requests]
    return DataSet(root=root, keys=str(root / "gen" / "keys.jwks"), revocations=str(root / "gen" / "revocations.jsonl"),
                   files=[str(first), str(second), str(third)], inputs=[str(folder), str(third)], requests=parsed)
