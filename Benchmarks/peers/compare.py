"""Interleaved rounds of tokenverify, its raw back ends and the peers on the same token sets.

Run by Benchmarks/compare, which installs and builds everything first. Per alg (ed25519, es256),
one generated set; each round runs every tool once on that set's tokens.txt with the same
threads and check time (the order rotates from round to round), and each tool's tokens per
CPU-second is its count over its own CPU time (user + sys). The medians table gives
tokenverify's ratio to each peer, to the fastest peer and to the raw back end.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CHECK_TIME = 1_800_000_000
ALGS = {"ed25519": "0", "es256": "1"}  # alg -> gen --es256-share
PEERS = ("jwt-kit", "golang-jwt", "jsonwebtoken")
PEER_LINE = re.compile(
    r"^(?P<name>[\w-]+): (?P<count>\d+) tokens, (?P<valid>\d+) valid, \d+ invalid, [\d.]+ s wall, "
    r"(?P<rate>\d+) tokens/s, [\d.]+ s CPU, (?P<per_cpu>\d+) tokens/CPU-s, \d+ threads$",
    re.MULTILINE,
)
TOKENVERIFY_LINE = re.compile(
    r"(?P<count>\d+) answered \((?P<valid>\d+) valid, \d+ invalid\) in [\d.]+ s, (?P<rate>\d+) tokens/s"
)
RAW_LINE = re.compile(r"(?P<rate>\d+) verifies/s")
GEN_LINE = re.compile(r"wrote (?P<count>\d+) tokens? \((?P<valid>\d+) valid at")


@dataclass(frozen=True)
class Tools:
    """Paths of the built programs."""

    tokenverify: Path
    tokenbench: Path
    jwtkit: Path
    golang_jwt: Path
    jsonwebtoken: Path


@dataclass(frozen=True)
class TokenSet:
    """One generated set: its directory, token count and how many are valid at CHECK_TIME."""

    alg: str
    directory: Path
    count: int
    valid: int


@dataclass(frozen=True)
class Result:
    """One run of one tool: tokens per wall second and per CPU-second, and the valid count."""

    rate: float
    per_cpu: float
    valid: int | None


def run_counting_cpu(command: list[str], output: Path | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """Runs a child to its end (its stdout into `output` when given); returns it and the CPU
    seconds (user + sys) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if output is None:
        done = subprocess.run(command, capture_output=True, text=True)
    else:
        with output.open("w") as answers:
            done = subprocess.run(command, stdout=answers, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"compare: {' '.join(command)} failed ({done.returncode}):\n{done.stderr}{done.stdout}")
    return done, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def match(pattern: re.Pattern[str], text: str, what: str) -> re.Match[str]:
    found = pattern.search(text)
    if found is None:
        sys.exit(f"compare: no summary from {what} in:\n{text}")
    return found


def generate(tools: Tools, alg: str, count: int, work: Path, check: bool) -> TokenSet:
    """A set of `count` tokens of `alg`; with `check`, a tenth expired and a tenth tampered."""
    directory = work / alg
    shares = ["--expired-share", "0.1", "--tampered-share", "0.1"] if check else []
    done, _ = run_counting_cpu(
        [
            str(tools.tokenverify),
            "gen",
            "--count",
            str(count),
            "--seed",
            "7",
            "--es256-share",
            ALGS[alg],
            "--ed-alg",
            "EdDSA",
            "--at",
            str(CHECK_TIME),
            *shares,
            "--force",
            "--out",
            str(directory),
        ]
    )
    found = match(GEN_LINE, done.stderr, "tokenverify gen")
    return TokenSet(alg, directory, int(found["count"]), int(found["valid"]))


def run_tokenverify(tools: Tools, tokens: TokenSet, threads: int, path: str | None = None) -> Result:
    """tokenverify verify on the bare tokens; its CPU is the whole child's (getrusage). `path`
    forces a signature path (TOKENVERIFY_SIGNATURE_PATH: `tables` leaves the wide path off)."""
    done, cpu = run_counting_cpu(
        (["env", f"TOKENVERIFY_SIGNATURE_PATH={path}"] if path else [])
        + [
            str(tools.tokenverify),
            "verify",
            "--keys",
            str(tokens.directory / "keys.jwks"),
            "--at",
            str(CHECK_TIME),
            "--threads",
            str(threads),
            str(tokens.directory / "tokens.txt"),
        ],
        output=tokens.directory / "answers.jsonl",
    )
    found = match(TOKENVERIFY_LINE, done.stderr, "tokenverify verify")
    return Result(float(found["rate"]), int(found["count"]) / cpu, int(found["valid"]))


def run_peer(program: Path, tokens: TokenSet, threads: int) -> Result:
    """A peer of Benchmarks/peers: its own wall and CPU time over the verification only."""
    done, _ = run_counting_cpu(
        [
            str(program),
            str(tokens.directory / "keys.jwks"),
            str(tokens.directory / "tokens.txt"),
            str(threads),
            str(CHECK_TIME),
        ]
    )
    found = match(PEER_LINE, done.stdout, str(program))
    return Result(float(found["rate"]), float(found["per_cpu"]), int(found["valid"]))


def run_raw(tools: Tools, backend: str, threads: int, seconds: float) -> Result:
    """tokenbench --raw-only: verifies per second; per CPU-second over the whole child."""
    done, cpu = run_counting_cpu(
        [str(tools.tokenbench), "--raw-only", backend, "--raw-seconds", str(seconds), "--threads", str(threads)]
    )
    rate = float(match(RAW_LINE, done.stdout, f"tokenbench --raw-only {backend}")["rate"])
    return Result(rate, rate * seconds / cpu, None)


def raw_backends(tools: Tools, alg: str) -> list[str]:
    """The raw back ends for `alg`: also its per-key table path when this tokenbench has it."""
    help_text = subprocess.run([str(tools.tokenbench), "--help"], capture_output=True, text=True).stdout
    per_key = f"{alg}-per-key"
    return [alg, per_key] if per_key in help_text else [alg]


def run_round(tools: Tools, tokens: TokenSet, threads: int, raw_seconds: float, round_index: int) -> dict[str, Result]:
    """Every tool once on `tokens`, starting one further along the list each round."""
    runs: list[tuple[str, object]] = [
        (f"raw {backend}", backend) for backend in (raw_backends(tools, tokens.alg) if raw_seconds > 0 else [])
    ]
    runs += [
        ("tokenverify", None),
        ("tokenverify (tables)", "path:tables"),
        ("jwt-kit", tools.jwtkit),
        ("golang-jwt", tools.golang_jwt),
        ("jsonwebtoken", tools.jsonwebtoken),
    ]
    shift = round_index % len(runs)
    results: dict[str, Result] = {}
    for name, what in runs[shift:] + runs[:shift]:
        if isinstance(what, str) and what.startswith("path:"):
            results[name] = run_tokenverify(tools, tokens, threads, what.removeprefix("path:"))
        elif isinstance(what, str):
            results[name] = run_raw(tools, what, threads, raw_seconds)
        elif isinstance(what, Path):
            results[name] = run_peer(what, tokens, threads)
        else:
            results[name] = run_tokenverify(tools, tokens, threads)
        if results[name].valid is not None and results[name].valid != tokens.valid:
            sys.exit(
                f"compare: {name} found {results[name].valid} valid tokens of {tokens.count} in {tokens.directory}; "
                f"the set has {tokens.valid} valid at {CHECK_TIME}"
            )
    return results


def print_medians(alg: str, rounds: list[dict[str, Result]]) -> None:
    """Each tool's median per CPU-second and wall rate; tokenverify's ratio to each."""
    names = list(rounds[0])
    per_cpu = {name: statistics.median(r[name].per_cpu for r in rounds) for name in names}
    rate = {name: statistics.median(r[name].rate for r in rounds) for name in names}
    ours = per_cpu["tokenverify"]
    fastest_peer = max(PEERS, key=lambda name: per_cpu[name])
    print(f"\n{alg}: medians of {len(rounds)} rounds")
    print(f"{'tool':<22} {'tokens/CPU-s':>12} {'tokens/s':>10} {'tv ratio':>9}")
    for name in sorted(names, key=lambda name: -per_cpu[name]):
        ratio = "" if name == "tokenverify" else f"{ours / per_cpu[name]:.2f}"
        print(f"{name:<22} {per_cpu[name]:>12.0f} {rate[name]:>10.0f} {ratio:>9}")
    print(f"tokenverify ÷ fastest peer ({fastest_peer}): {ours / per_cpu[fastest_peer]:.2f} per CPU-second")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokenverify", type=Path, required=True)
    parser.add_argument("--tokenbench", type=Path, required=True)
    parser.add_argument("--jwt-kit", type=Path, required=True)
    parser.add_argument("--golang-jwt", type=Path, required=True)
    parser.add_argument("--jsonwebtoken", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True, help="directory for the sets and answers")
    parser.add_argument("--count", type=int, default=200_000, help="tokens per set")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--raw-seconds", type=float, default=3, help="per raw measurement; 0 leaves raw out")
    parser.add_argument(
        "--check",
        action="store_true",
        help="one round on sets with a tenth expired and a tenth tampered; checks every valid count",
    )
    arguments = parser.parse_args()
    if arguments.count < 1 or arguments.rounds < 1 or arguments.threads < 1:
        parser.error("--count, --rounds and --threads must be positive")
    tools = Tools(
        arguments.tokenverify, arguments.tokenbench, arguments.jwt_kit, arguments.golang_jwt, arguments.jsonwebtoken
    )
    sets = [generate(tools, alg, arguments.count, arguments.work, arguments.check) for alg in ALGS]
    raw_seconds = 0 if arguments.check else arguments.raw_seconds
    rounds = 1 if arguments.check else arguments.rounds
    results: dict[str, list[dict[str, Result]]] = {tokens.alg: [] for tokens in sets}
    print(f"{arguments.count} tokens a set, {arguments.threads} threads, check time {CHECK_TIME}")
    print(f"{'alg':<8} {'round':>5} {'tool':<22} {'valid':>8} {'tokens/s':>10} {'tokens/CPU-s':>12}")
    for round_index in range(rounds):
        for tokens in sets:
            round_results = run_round(tools, tokens, arguments.threads, raw_seconds, round_index)
            results[tokens.alg].append(round_results)
            for name, result in round_results.items():
                valid = "" if result.valid is None else str(result.valid)
                print(
                    f"{tokens.alg:<8} {round_index + 1:>5} {name:<22} {valid:>8} "
                    f"{result.rate:>10.0f} {result.per_cpu:>12.0f}",
                    flush=True,
                )
    if arguments.check:
        print(
            "check: every tool found the valid count of each set "
            + ", ".join(f"({t.alg}: {t.valid} of {t.count})" for t in sets)
        )
        return
    for alg, alg_rounds in results.items():
        print_medians(alg, alg_rounds)


if __name__ == "__main__":
    main()
