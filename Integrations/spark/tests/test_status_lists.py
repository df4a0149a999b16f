"""Status lists (spec §4c) in the job: Status List Token files and folders are shipped with the
job like the other state files, and every row gets the single-process answer."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from conftest import AT, verify_file
from test_job import assert_same_answers

from tvspark import job, options


def status_set(binary: str, root: Path) -> Path:
    """A gen set where most tokens name an entry of its status lists (a JWS list, a CWT list)."""
    out = root / "set"
    subprocess.run([binary, "gen", "--count", "400", "--seed", "21", "--realistic", "--cwt-share", "0.3",
                    "--status-share", "0.8", "--status-invalid-share", "0.2", "--status-suspended-share", "0.1",
                    "--out", str(out)], check=True, capture_output=True)
    return out


def test_a_folder_of_status_lists_is_shipped(spark: Any, tool: str, binary: str, tmp_path: Path) -> None:
    root = status_set(binary, tmp_path)
    requests = str(root / "requests.jsonl")
    flags = ["--keys", str(root / "keys.jwks"), "--revocations", str(root / "revocations.jsonl"), "--at", AT]
    lists = str(root / "status-lists")
    expected = {(requests, answer["line"]): answer for answer in verify_file(binary, requests, *flags, "--status-lists", lists)}
    reasons = {answer.get("reason") for answer in expected.values()}
    assert {"status_invalid", "status_suspended"} <= reasons, reasons
    argv = ["--tokenverify", tool, *flags, "--status-lists", lists, "--input", requests, "--output", str(tmp_path / "out")]
    parsed = options.parse(argv)
    assert parsed.status_list_files() == [f"{lists}/cwt.statuslist.cwt", f"{lists}/jws.statuslist.jwt"]
    job.run(spark, parsed)
    assert_same_answers(spark.read.parquet(str(tmp_path / "out")).collect(), expected)


def test_without_lists_a_token_that_names_one_is_unavailable_unless_skipped(tmp_path: Path, binary: str) -> None:
    root = status_set(binary, tmp_path)
    flags = ["--keys", str(root / "keys.jwks"), "--at", AT]
    plain = options.parse(["--tokenverify", binary, *flags, "--input", "x", "--output", "y"])
    skipping = options.parse(["--tokenverify", binary, *flags, "--skip-status-lists", "--input", "x", "--output", "y"])
    assert "--skip-status-lists" in skipping.verify_argv(binary, str, AT, 1)
    assert "--skip-status-lists" not in plain.verify_argv(binary, str, AT, 1)
    answers = verify_file(binary, str(root / "tokens.txt"), *flags)
    assert sum(1 for answer in answers if answer.get("reason") == "status_unavailable") > 250
    skipped = verify_file(binary, str(root / "tokens.txt"), *flags, "--skip-status-lists")
    assert not any(answer.get("reason", "").startswith("status_") for answer in skipped)


DEMO = Path(__file__).resolve().parents[3] / "Data" / "demo"


def test_trust_anchors_are_shipped_and_chained_tokens_verify(spark: Any, tool: str, binary: str, tmp_path: Path) -> None:
    """spec §3b on Spark: the anchor file is shipped like the other state files, with its
    environment, and the demo's chained tokens get the single-process answers."""
    requests = str(DEMO / "chain-requests.jsonl")
    flags = ["--keys", str(DEMO / "keys.jwks"), "--trust-anchors", f"int={DEMO / 'anchors.pem'}", "--at", AT]
    expected = {(requests, answer["line"]): answer for answer in verify_file(binary, requests, *flags)}
    assert sum(1 for answer in expected.values() if answer["valid"]) == 2, expected
    parsed = options.parse(["--tokenverify", tool, *flags, "--input", requests, "--output", str(tmp_path / "out")])
    assert parsed.trust_anchor_files() == [("int", str(DEMO / "anchors.pem"))]
    assert str(DEMO / "anchors.pem") in parsed.shipped_files()
    argv = parsed.verify_argv(binary, str, AT, 1)
    assert argv[argv.index("--trust-anchors") + 1] == f"int={DEMO / 'anchors.pem'}"
    job.run(spark, parsed)
    assert_same_answers(spark.read.parquet(str(tmp_path / "out")).collect(), expected)
