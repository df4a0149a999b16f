"""Tests of compare.py's parsing, count check and medians (run: python3 -m pytest Benchmarks/peers)."""

from __future__ import annotations

from pathlib import Path

import pytest

import compare

GOLANG_JWT = (
    "golang-jwt: 2000 tokens, 1612 valid, 388 invalid, 0.405 s wall, 4933 tokens/s, "
    "0.188 s CPU, 10659 tokens/CPU-s, 2 threads\n"
)
TOKENVERIFY = "tokenverify: 2000 answered (1615 valid, 385 invalid) in 0.45 s, 4483 tokens/s; expired 194\n"


def fake_peer(tmp_path: Path, line: str, summary: str = "") -> Path:
    """A program that prints `line` (a peer's) and `summary` on stderr (tokenverify's)."""
    program = tmp_path / "peer"
    program.write_text(f"#!/bin/sh\nprintf '%s\\n' '{line.strip()}'\nprintf '%s\\n' '{summary.strip()}' >&2\n")
    program.chmod(0o755)
    return program


def test_peer_line_gives_rate_per_cpu_and_valid() -> None:
    found = compare.match(compare.PEER_LINE, GOLANG_JWT, "golang-jwt")
    assert (found["name"], found["valid"], found["rate"], found["per_cpu"]) == ("golang-jwt", "1612", "4933", "10659")


def test_tokenverify_summary_gives_count_valid_and_rate() -> None:
    found = compare.match(compare.TOKENVERIFY_LINE, TOKENVERIFY, "tokenverify")
    assert (found["count"], found["valid"], found["rate"]) == ("2000", "1615", "4483")


def test_missing_summary_stops() -> None:
    with pytest.raises(SystemExit):
        compare.match(compare.PEER_LINE, "golang-jwt: crashed", "golang-jwt")


def test_run_peer_reads_the_peer_line(tmp_path: Path) -> None:
    tokens = compare.TokenSet("ed25519", tmp_path, 2000, 1612)
    result = compare.run_peer(fake_peer(tmp_path, GOLANG_JWT), tokens, 2)
    assert result == compare.Result(4933.0, 10659.0, 1612)


def test_a_peer_with_another_valid_count_stops_the_round(tmp_path: Path) -> None:
    tokens = compare.TokenSet("ed25519", tmp_path, 2000, 1615)  # tokenverify says 1615, the peers 1612
    peer = fake_peer(tmp_path, GOLANG_JWT, TOKENVERIFY)
    tools = compare.Tools(peer, peer, peer, peer, peer)
    with pytest.raises(SystemExit, match="jwt-kit found 1612 valid tokens"):
        compare.run_round(tools, tokens, threads=2, raw_seconds=0, round_index=0)


def test_medians_give_ratios_to_each_tool_and_the_fastest_peer(capsys: pytest.CaptureFixture[str]) -> None:
    def round_of(ours: float) -> dict[str, compare.Result]:
        peers = {"jwt-kit": 5000.0, "golang-jwt": 8000.0, "jsonwebtoken": 10000.0}
        return {"tokenverify": compare.Result(ours, ours, 1)} | {n: compare.Result(r, r, 1) for n, r in peers.items()}

    compare.print_medians("es256", [round_of(11000), round_of(13000), round_of(1000)])
    output = capsys.readouterr().out
    assert "tokenverify ÷ fastest peer (jsonwebtoken): 1.10 per CPU-second" in output
    assert "jwt-kit                        5000       5000      2.20" in output


def test_the_tables_run_forces_the_path_through_the_environment(tmp_path: Path) -> None:
    """`tokenverify (tables)` is the same binary with TOKENVERIFY_SIGNATURE_PATH=tables."""
    program = tmp_path / "tokenverify"
    program.write_text(
        "#!/bin/sh\n"
        '[ "$TOKENVERIFY_SIGNATURE_PATH" = tables ] || exit 9\n'
        f"printf '%s\\n' '{TOKENVERIFY.strip()}' >&2\n"
    )
    program.chmod(0o755)
    tokens = compare.TokenSet("ed25519", tmp_path, 2000, 1615)
    tools = compare.Tools(program, program, program, program, program)
    assert compare.run_tokenverify(tools, tokens, 2, "tables").valid == 1615
    with pytest.raises(SystemExit, match="failed \\(9\\)"):
        compare.run_tokenverify(tools, tokens, 2)
