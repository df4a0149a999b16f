"""The job in local[2] against the single-process answers of `tokenverify verify`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import AT, REPO, SPARK_DIR, DataSet, main_in_job_group, missing, verify_file
from fail_once import FailOnce, after_each_batch

from tvspark import direct, job, options, partitions
from tvspark.protocol import ANSWER_FIELDS

# The lines tests run on both paths: the direct one (Spark schedules, each task streams a byte
# range through its child and writes Parquet itself) and Spark's (Spark reads and writes).
PATHS = pytest.mark.parametrize("direct_mode", ["on", "off"])
EXECUTION = {"on": "direct", "off": "spark"}


def job_options(dataset: DataSet, tool: str, output: Path, *extra: str) -> options.JobOptions:
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--output", str(output)]
    for path in dataset.inputs:
        argv += ["--input", path]
    return options.parse([*argv, *extra])


def answer_columns(answer: dict[str, Any]) -> dict[str, Any]:
    """The output columns an answer line gives (aud as JSON text when it is an array)."""
    columns = {name: answer.get(name) for name in ANSWER_FIELDS}
    if isinstance(columns["aud"], list):
        columns["aud"] = json.dumps(columns["aud"], separators=(",", ":"), ensure_ascii=False)
    if columns["exp"] is not None:
        columns["exp"] = float(columns["exp"])
    return columns


def assert_same_answers(rows: list[Any], expected: dict[tuple[str, int], dict[str, Any]]) -> None:
    keys = [(row["source"], row["line"]) for row in rows]
    assert len(keys) == len(set(keys)), "a line was answered twice"
    assert set(keys) == set(expected), (
        f"rows for lines the command did not answer: {sorted(set(keys) - set(expected))[:5]}; "
        f"lines without a row: {sorted(set(expected) - set(keys))[:5]}")
    for row in rows:
        want = answer_columns(expected[(row["source"], row["line"])])
        got = {name: row[name] for name in ANSWER_FIELDS}
        assert got == want, f"{row['source']}:{row['line']}"


def summary_of(rows: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        if not row["valid"]:
            counts[row["reason"]] = counts.get(row["reason"], 0) + 1
    return counts


@PATHS
def test_lines_equal_the_single_process_answers(spark: Any, tool: str, binary: str, dataset: DataSet,
                                                tmp_path: Path, direct_mode: str) -> None:
    expected = dataset.expected(binary)
    summary = job.run(spark, job_options(dataset, tool, tmp_path / "out", "--direct", direct_mode))
    assert summary.execution == EXECUTION[direct_mode]
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert_same_answers(rows, expected)
    reasons = {answer.get("reason") for answer in expected.values()}
    # the set exercises what it claims to: malformed lines, context checks, revocations
    assert {"malformed_request", "malformed_token", "revoked_token", "expired"} <= reasons
    assert any(reason in reasons for reason in ("wrong_device", "command_not_permitted", "channel_not_permitted"))
    assert summary.answered == len(expected)
    assert summary.valid == sum(1 for answer in expected.values() if answer["valid"])
    assert summary.reasons == summary_of(rows)
    written = json.loads((tmp_path / "out" / "_summary.json").read_text())
    assert written["answered"] == len(expected) and written["reasons"] == summary.reasons
    assert written["at"] == AT and written["execution"] == EXECUTION[direct_mode]
    assert set(written["phases_seconds"]) == {"check_and_plan", "verify_and_write", "count"}
    assert (tmp_path / "out" / "_SUCCESS").exists()
    assert_plain_where_unique(tmp_path / "out", unique={"line", "jti", "sub", "aud"})


def assert_plain_where_unique(output: Path, unique: set[str]) -> None:
    """The Parquet files write the nearly unique columns without a dictionary; the others (here:
    reason) keep theirs."""
    import pyarrow.parquet as pq

    dictionary: dict[str, set[bool]] = {}
    for part in sorted(output.glob("part-*.parquet")):
        metadata = pq.ParquetFile(part).metadata
        for group in range(metadata.num_row_groups):
            row_group = metadata.row_group(group)
            for index in range(row_group.num_columns):
                column = row_group.column(index)
                if column.statistics is not None and column.statistics.null_count == row_group.num_rows:
                    continue  # nothing but nulls: no values to encode
                encoded = any("DICTIONARY" in encoding for encoding in column.encodings)
                dictionary.setdefault(column.path_in_schema, set()).add(encoded)
    assert unique <= set(dictionary)
    assert all(dictionary[name] == {False} for name in unique), dictionary
    assert dictionary["reason"] == {True}


@PATHS
def test_a_retried_task_yields_each_row_once(spark: Any, tool: str, binary: str, dataset: DataSet,
                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct_mode: str) -> None:
    marker_dir = tmp_path / "fail-once"
    marker_dir.mkdir()
    fail = FailOnce(str(marker_dir))
    # The partition lambdas of job.py and direct.py look these names up in their modules when
    # Spark pickles them. On the direct path, partition 0 fails after its part file is in place
    # and its counts were handed over: the retry replaces the file, and counts once.
    monkeypatch.setattr(job, "lines_partition", after_each_batch(partitions.lines_partition, fail))
    monkeypatch.setattr(job, "table_partition", after_each_batch(partitions.table_partition, fail))
    monkeypatch.setattr(direct, "task_partition", after_each_batch(direct.task_partition, fail))
    summary = job.run(spark, job_options(dataset, tool, tmp_path / "out", "--direct", direct_mode))
    assert summary.execution == EXECUTION[direct_mode]
    assert (marker_dir / "failed-once").exists(), "partition 0 did not fail, so nothing was retried"
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    expected = dataset.expected(binary)
    assert_same_answers(rows, expected)
    assert summary.answered == len(expected) and summary.reasons == summary_of(rows)


@PATHS
def test_a_bad_key_file_fails_before_any_task_with_tokenverifys_message(
        spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        direct_mode: str) -> None:
    bad = tmp_path / "bad.jwks"
    bad.write_text('{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":"not base64url!"}]}')
    own = subprocess.run([binary, "verify", "--keys", str(bad)], capture_output=True, input=b"")
    assert own.returncode == 2 and own.stderr
    argv = ["--tokenverify", tool, "--keys", str(bad), "--at", AT, "--input", dataset.files[0],
            "--output", str(tmp_path / "out"), "--direct", direct_mode]
    status, jobs = main_in_job_group(spark, argv, "tokenverify-bad-keys")
    assert status == 2
    assert own.stderr.decode().strip() in capsys.readouterr().err
    assert jobs == []
    assert not (tmp_path / "out").exists()


def table_rows(dataset: DataSet) -> list[dict[str, Any]]:
    rows = []
    for index, request in enumerate(dataset.requests[:240]):
        row = {"ref": f"r{index}", "token": request["token"]}
        for name in ("device", "object", "channel", "command"):
            row[name] = request.get(name) if index % 5 else None
        row["at"] = None if index % 7 else 1700000000 + index
        rows.append(row)
    rows[3]["token"] = None
    rows[4]["token"] = "not a token"
    return rows


def table_expected(binary: str, dataset: DataSet, rows: list[dict[str, Any]], tmp_path: Path) -> list[dict[str, Any]]:
    lines = []
    for row in rows:
        request = {"token": row["token"]}
        request.update({name: row[name] for name in ("device", "object", "channel", "command", "at") if row[name] is not None})
        lines.append(json.dumps(request))
    path = tmp_path / "table-requests.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return verify_file(binary, str(path), "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT)


def test_a_parquet_table_keeps_its_columns(spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    rows = table_rows(dataset)
    schema = "ref string, token string, device string, object string, channel string, command string, at bigint"
    spark.createDataFrame(rows, schema).repartition(3).write.parquet(str(tmp_path / "table"))
    expected = {row["ref"]: answer for row, answer in zip(rows, table_expected(binary, dataset, rows, tmp_path))}
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--input", str(tmp_path / "table"), "--input-format", "parquet", "--output", str(tmp_path / "out")]
    assert job.main(argv) == 0
    out = spark.read.parquet(str(tmp_path / "out"))
    assert out.columns == ["ref", "token", "device", "object", "channel", "command", "at", *ANSWER_FIELDS]
    got = out.collect()
    assert sorted(row["ref"] for row in got) == sorted(expected)
    by_ref = {row["ref"]: row for row in rows}
    for row in got:
        assert {name: row[name] for name in ANSWER_FIELDS} == answer_columns(expected[row["ref"]]), row["ref"]
        assert row["token"] == by_ref[row["ref"]]["token"] and row["device"] == by_ref[row["ref"]]["device"]
    assert expected["r3"]["reason"] == "malformed_request" and expected["r4"]["reason"] == "malformed_token"


def test_a_csv_table_to_json_lines(spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    rows = table_rows(dataset)[:60]
    schema = "ref string, token string, device string, object string, channel string, command string, at bigint"
    spark.createDataFrame(rows, schema).coalesce(1).write.option("header", True).csv(str(tmp_path / "csv"))
    expected = {row["ref"]: answer for row, answer in zip(rows, table_expected(binary, dataset, rows, tmp_path))}
    argv = ["--tokenverify", tool, "--keys", dataset.keys, "--revocations", dataset.revocations, "--at", AT,
            "--input", str(tmp_path / "csv"), "--input-format", "csv",
            "--output", str(tmp_path / "out"), "--output-format", "json"]
    assert job.main(argv) == 0
    got = [json.loads(line) for part in sorted((tmp_path / "out").glob("part-*.json")) for line in part.read_text().splitlines()]
    assert sorted(row["ref"] for row in got) == sorted(expected)
    for row in got:
        want = {name: value for name, value in answer_columns(expected[row["ref"]]).items() if value is not None}
        assert {name: row[name] for name in ANSWER_FIELDS if name in row} == want, row["ref"]


@PATHS
def test_step_files_are_forwarded(spark: Any, tool: str, binary: str, dataset: DataSet, tmp_path: Path,
                                  direct_mode: str) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text('{"unlock":["trustedPhone","deviceActivation"],"*":["trustedPhone"]}')
    steps = tmp_path / "steps.jsonl"
    devices = sorted({request["device"] for request in dataset.requests if "device" in request})
    steps.write_text("".join(json.dumps({"sub": device, "done": ["trustedPhone"]}) + "\n" for device in devices[::2]))
    flags = ("--step-policy", str(policy), "--device-steps", str(steps))
    expected = dataset.expected(binary, *flags)
    assert any(answer.get("reason") == "step_required" for answer in expected.values())
    summary = job.run(spark, job_options(dataset, tool, tmp_path / "out", *flags, "--direct", direct_mode))
    assert summary.execution == EXECUTION[direct_mode]
    assert_same_answers(spark.read.parquet(str(tmp_path / "out")).collect(), expected)


def test_spark_submit_runs_the_script(tool: str, binary: str, dataset: DataSet, tmp_path: Path) -> None:
    """The documented command itself, in a spark-submit of its own."""
    spark_submit = Path(sys.executable).parent / "spark-submit"
    if not spark_submit.exists():
        missing(f"no spark-submit beside {sys.executable}")
    env = dict(os.environ, PATH=f"{spark_submit.parent}:{os.environ.get('PATH', '')}", PYSPARK_PYTHON=sys.executable)
    out = tmp_path / "out"
    command = [str(spark_submit), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
               str(SPARK_DIR / "tokenverify_spark.py"), "--tokenverify", tool, "--keys", dataset.keys,
               "--revocations", dataset.revocations, "--at", AT, "--input", dataset.files[1],
               "--output", str(out), "--output-format", "json"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env)
    assert result.returncode == 0, result.stderr[-4000:]
    expected = dataset.expected(binary)
    want = [answer for (path, _), answer in expected.items() if path == dataset.files[1]]
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["execution"] == "spark"  # JSON lines out: not the direct path's
    assert summary["answered"] == len(want)
    assert summary["valid"] == sum(1 for answer in want if answer["valid"])
    # spark-submit runs the script under the JVM, which passes its stderr on to its stdout
    assert f"tokenverify-spark: {len(want)} answered" in result.stdout + result.stderr


@PATHS
def test_the_demo_stream_with_an_audience_list(spark: Any, tool: str, binary: str, tmp_path: Path, direct_mode: str) -> None:
    """Data/demo: two key types, a retired key, an `aud` array (kept as JSON text)."""
    demo = REPO / "Data" / "demo"
    flags = ["--keys", str(demo / "keys.jwks"), "--revocations", str(demo / "revocations.jsonl"), "--at", AT]
    source = str(demo / "requests.jsonl")
    expected = {(source, answer["line"]): answer for answer in verify_file(binary, source, *flags)}
    assert any(isinstance(answer.get("aud"), list) for answer in expected.values())
    assert job.main(["--tokenverify", tool, *flags, "--input", source, "--output", str(tmp_path / "out"),
                     "--direct", direct_mode]) == 0
    assert json.loads((tmp_path / "out" / "_summary.json").read_text())["execution"] == EXECUTION[direct_mode]
    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert_same_answers(rows, expected)
    assert any(row["aud"] and row["aud"].startswith("[") for row in rows)
