#!/usr/bin/env python3
"""Benchmark: one token set through the single-process command and through the Spark job in
local[N] on the same N cores; prints both rates, their ratio, and Spark's start-up apart.

    .venv-spark/bin/python Integrations/spark/bench/bench.py [--count 1000000] [--cores N] [--files K] [--rounds R]
        [--direct auto|on|off] [--store local|s3] [--connect]

The single process is `tokenverify verify --threads N` writing its answers to a file; the job
runs N tasks at a time, each piping its partition (on the direct path: its byte range of a
file) through `tokenverify verify --threads 1`, and writes Parquet. Both check the same set at
the same --at. The job's time is everything `job.run` does (driver check and plan, verify and
write, the counts: read back on Spark's path, added up from the tasks' on the direct one); Spark's
start-up (JVM, session) is timed separately, and the first job (on a JVM whose compiler has not yet
seen the hot paths) is reported apart from the warm rounds after it. The two alternate for R
rounds so that both see the same load; figures on a shared machine are noisy: compare the ratios
within one run. Each round
also reports the CPU seconds (user + system) of this process's whole tree — the command alone,
or the JVM, its Python workers and their children — which other load on the machine inflates
much less than wall time.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

SPARK_DIR = Path(__file__).resolve().parent.parent
REPO = SPARK_DIR.parent.parent
sys.path.insert(0, str(SPARK_DIR))

import services  # noqa: E402
from tvspark import job, options  # noqa: E402
from tvspark.ship import is_archive, unpack_locally  # noqa: E402

AT = "1800000000"
# The JVM's options by default: the throughput collector suits a batch job; on the direct path
# the JVM only schedules, and its C2 compiler cost more CPU than it saved (0.1-0.8 s a job over
# a session's first dozen jobs, against about 0.1 s of the JVM's own work: see the Spark README),
# so it stops at C1. Spark's own path runs every row through the JVM and keeps C2.
SPARK_JVM_OPTIONS = "-XX:+UseParallelGC"
DIRECT_JVM_OPTIONS = "-XX:+UseParallelGC -XX:TieredStopAtLevel=1"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    archives = sorted(glob.glob(str(REPO / "dist" / "tokenverify-*.tar.gz")))
    p.add_argument("--tokenverify", default=archives[-1] if archives else None,
                   help="release archive or binary (default: the newest dist/ archive)")
    p.add_argument("--count", type=int, default=1_000_000, help="tokens in the set (default: %(default)s)")
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="N (default: every core)")
    p.add_argument("--input", choices=("tokens", "requests"), default="requests",
                   help="gen's bare tokens or its context requests (default: %(default)s)")
    p.add_argument("--files", type=int, default=1,
                   help="split the input into this many files in one folder (default: %(default)s, one file)")
    p.add_argument("--rounds", type=int, default=3,
                   help="single/spark pairs, alternating; the first job runs on a cold JVM (default: %(default)s)")
    p.add_argument("--jvm-options",
                   help="the JVM's options (spark.driver.extraJavaOptions; in local mode the driver runs the tasks) "
                        f"(default: {DIRECT_JVM_OPTIONS!r}, with --direct off {SPARK_JVM_OPTIONS!r})")
    p.add_argument("--direct", choices=options.DIRECT_MODES, default="auto",
                   help="the job's --direct: auto takes the direct path where it can (default: %(default)s)")
    p.add_argument("--store", choices=("local", "s3"), default="local",
                   help="where the job's inputs and output are: local files, or moto's S3 server on 127.0.0.1 started "
                        "here (its CPU seconds are reported apart too) (default: %(default)s)")
    p.add_argument("--connect", action="store_true",
                   help="run the job over Spark Connect: a local Spark Connect server started here, a remote session")
    p.add_argument("--workdir", default="/tmp/tokenverify-spark-bench")
    p.add_argument("--json", help="also write the figures to this file")
    return p.parse_args()


def timed(command: list[str], **kwargs: object) -> float:
    started = time.monotonic()
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]
    return time.monotonic() - started


class Reading(NamedTuple):
    """One process's CPU seconds (user + system) at a reading, with those of the children it
    reaped; its parent; what kind of process it is (KINDS)."""

    with_reaped: float
    parent: int
    kind: str


# What a process of the tree is, by its command line: the bench itself (the driver, also the
# Spark Connect client), the JVM (Spark's driver and executor in local mode, or the Connect
# server), a Python worker, a tokenverify child, the S3 server, anything else.
KINDS = ("bench", "jvm", "python", "tokenverify", "s3 server", "other")
_KIND_OF: dict[tuple[int, int], str] = {}


def _kind(pid: int, started: int) -> str:
    key = (pid, started)
    if key not in _KIND_OF:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                words = file.read().split(b"\0")
        except OSError:
            words = [b""]
        program = os.path.basename(words[0]).decode(errors="replace")
        text = b" ".join(words[:4]).decode(errors="replace")
        _KIND_OF[key] = ("bench" if pid == os.getpid() else "jvm" if program == "java"
                         else "s3 server" if "moto" in text else "tokenverify" if program.endswith("tokenverify")
                         else "python" if program.startswith("python") else "other")
    return _KIND_OF[key]


def _tree_cpu() -> dict[int, Reading]:
    """A reading of each process of this process's tree (this process, the JVM, its Python
    workers, their tokenverify children, the S3 server)."""
    parents: dict[int, int] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        stats[int(entry)] = fields
    tree, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    ticks = os.sysconf("SC_CLK_TCK")
    return {pid: Reading(sum(int(value) for value in stats[pid][11:15]) / ticks,  # utime stime cutime cstime
                         parents[pid], _kind(pid, int(stats[pid][19])))
            for pid in tree if pid in stats}


def _ignores_sigchld(pid: int) -> bool:
    """True when the process lets the kernel reap its children (SIGCHLD ignored), so that their
    times never reach its own count of reaped children (PySpark's daemon does this)."""
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & (1 << (17 - 1)))  # SIGCHLD is 17
    except OSError:
        pass
    return False


class TreeCPU:
    """The CPU seconds this process's tree uses while the `with` block runs: a measure of the
    work done that other load on the machine does not inflate, unlike wall time.

    The tree is read a few times a second. A process still there at the end counts what it and
    its reaped children used since the start. A process that ended in between counts up to its
    last reading, unless its parent is still there and reaped it (its whole life is then in the
    parent's count, less what it had used before the start). PySpark's daemon ignores SIGCHLD, so
    its workers' times never reach it: they are counted by their own readings, and lose what
    they used after the last one (a fraction of a second, when a worker ends).

    `by_kind` splits the seconds by KINDS: each process's own seconds to its kind, and what a
    parent's count holds of children it reaped after their last reading (the last fraction of a
    second of a child's life) to the parent's kind."""

    def __init__(self, interval: float = 0.25) -> None:
        self.interval = interval
        self.seconds = 0.0
        self.by_kind: dict[str, float] = {}

    def __enter__(self) -> TreeCPU:
        self.start = _tree_cpu()
        self.last = dict(self.start)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="tree-cpu", daemon=True)
        self.thread.start()
        return self

    def _watch(self) -> None:
        while not self.done.wait(self.interval):
            self.last.update(_tree_cpu())

    def __exit__(self, *_: object) -> None:
        self.done.set()
        self.thread.join()
        end = _tree_cpu()
        used = 0.0
        kinds = dict.fromkeys(KINDS, 0.0)
        for pid, reading in {**self.last, **end}.items():
            before = self.start[pid].with_reaped if pid in self.start else 0.0
            kinds[reading.kind] += reading.with_reaped - before
            if pid in end or reading.parent not in end or _ignores_sigchld(reading.parent):
                used += reading.with_reaped - before
            else:  # reaped by a parent still here: its life is in the parent's count
                used -= before
                kinds[end[reading.parent].kind] -= reading.with_reaped
        self.seconds = used
        self.by_kind = kinds


def split_into(source: Path, folder: Path, files: int, lines: int) -> None:
    partial = folder.with_suffix(".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    per_file = -(-lines // files)
    with source.open("rb") as reader:
        for index in range(files):
            with (partial / f"part-{index:04d}.txt").open("wb") as writer:
                for _ in range(per_file):
                    line = reader.readline()
                    if not line:
                        break
                    writer.write(line)
    partial.rename(folder)


def session(args: argparse.Namespace, s3_endpoint: str | None) -> tuple[Any, services.ConnectServer | None]:
    """The job's Spark session in local[cores]: classic, or remote on a Connect server started
    here; pointed at the S3 server (fs.s3a.endpoint) where there is one."""
    if args.connect:
        server = services.ConnectServer(Path(args.workdir), args.cores, args.jvm_options, s3_endpoint)
        return server.session(), server
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(f"local[{args.cores}]").appName("tokenverify-bench")
               .config("spark.ui.enabled", "false").config("spark.driver.memory", "2g")
               .config("spark.driver.extraJavaOptions", args.jvm_options))
    if s3_endpoint:
        builder = builder.config("spark.hadoop.fs.s3a.endpoint", s3_endpoint)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, None


@dataclass(frozen=True)
class Setup:
    """What every round runs: the single process's command and the job's options, over `lines`
    requests; the S3 server where there is one."""

    args: argparse.Namespace
    lines: int
    single_command: list[str]
    single_out: Path
    job_options: options.JobOptions
    store: Any


def one_round(setup: Setup, spark: Any, number: int) -> dict[str, Any] | None:
    """The single process, then the job; their figures (None, said on stderr, where the job's
    counts differ from the command's)."""
    args, lines, store = setup.args, setup.lines, setup.store
    with setup.single_out.open("wb") as out, TreeCPU() as cpu:
        single = timed(setup.single_command, stdout=out)
    single_cpu = cpu.seconds
    single_valid = sum(1 for line in setup.single_out.open("rb") if b'"valid":true' in line)
    store_before = services.cpu_seconds(store.process.pid) if store is not None else 0.0
    with TreeCPU() as cpu:
        summary = job.run(spark, setup.job_options)
    spark_cpu = cpu.seconds
    store_cpu = services.cpu_seconds(store.process.pid) - store_before if store is not None else 0.0
    if summary.answered != lines or summary.valid != single_valid:
        print(f"bench: the job answered {summary.answered} ({summary.valid} valid), the command {lines} "
              f"({single_valid} valid)", file=sys.stderr)
        return None
    return {
        "round": number, "execution": summary.execution, "single_seconds": round(single, 2), "single_rate": round(lines / single),
        "spark_job_seconds": round(summary.seconds, 2),
        "spark_phases_seconds": {name: round(value, 2) for name, value in summary.phases.items()},
        "spark_rate": round(lines / summary.seconds), "ratio": round(single / summary.seconds, 3),
        "single_rate_per_core": round(lines / single / args.cores),
        "spark_rate_per_core": round(lines / summary.seconds / args.cores),
        "single_cpu_seconds": round(single_cpu, 1), "spark_cpu_seconds": round(spark_cpu, 1),
        "spark_cpu_seconds_by_kind": {kind: round(value, 2) for kind, value in cpu.by_kind.items() if round(value, 2)},
        "single_tokens_per_cpu_second": round(lines / single_cpu),
        "spark_tokens_per_cpu_second": round(lines / spark_cpu),
        "cpu_ratio": round(single_cpu / spark_cpu, 3),
        "store_cpu_seconds": round(store_cpu, 1),
        "cpu_ratio_without_store": round(single_cpu / (spark_cpu - store_cpu), 3),
        # an estimate: the job's wall less the time the server's CPU seconds took from the cores
        "ratio_without_store_estimate": round(single / (summary.seconds - store_cpu / args.cores), 3),
    }


def round_line(figures: dict[str, Any], cores: int, s3: bool) -> str:
    return (f"round {figures['round']}: single process (verify --threads {cores}): {figures['single_seconds']:.2f} s, "
            f"{figures['single_rate']} tokens/s ({figures['single_rate_per_core']} per core); "
            f"spark local[{cores}] ({figures['execution']} path): {figures['spark_job_seconds']:.2f} s, "
            f"{figures['spark_rate']} tokens/s ({figures['spark_rate_per_core']} per core), "
            f"phases {figures['spark_phases_seconds']}; ratio spark/single {figures['ratio']:.3f}; "
            f"CPU seconds single {figures['single_cpu_seconds']:.1f}, spark {figures['spark_cpu_seconds']:.1f} "
            f"({figures['single_tokens_per_cpu_second']} vs {figures['spark_tokens_per_cpu_second']} tokens per "
            f"CPU second, ratio {figures['cpu_ratio']:.3f}; by process {figures['spark_cpu_seconds_by_kind']})"
            + (f"; the S3 server's CPU seconds {figures['store_cpu_seconds']:.1f}, ratio without them "
               f"{figures['cpu_ratio_without_store']:.3f} (by wall, estimated: {figures['ratio_without_store_estimate']:.3f})"
               if s3 else ""))


def summary_line(rounds: list[dict[str, Any]], lines: int, args: argparse.Namespace, source: str, startup: float) -> str:
    warm = rounds[1:] or rounds  # after the first job, the JVM has compiled the hot paths
    ratios = sorted(r["ratio"] for r in warm)
    executions = "/".join(sorted({r["execution"] for r in rounds}))
    kinds = {kind: round(statistics.median(r["spark_cpu_seconds_by_kind"].get(kind, 0.0) for r in warm), 2) for kind in KINDS}
    return (f"{lines} tokens ({source}, {args.files} file(s)), {args.cores} cores, {args.rounds} rounds, "
            f"{executions} path: "
            f"first job (cold JVM) ratio spark/single {rounds[0]['ratio']:.3f}; warm (rounds 2-{len(rounds)}) "
            f"median {statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f}), "
            f"by CPU seconds median {statistics.median(r['cpu_ratio'] for r in warm):.3f}"
            + (f" ({statistics.median(r['cpu_ratio_without_store'] for r in warm):.3f} without the S3 server's, "
               f"median {statistics.median(r['store_cpu_seconds'] for r in warm):.1f} CPU s; by wall without them, "
               f"estimated as the wall less those seconds over the cores, "
               f"{statistics.median(r['ratio_without_store_estimate'] for r in warm):.3f})" if args.store == "s3" else "")
            + f"; CPU seconds (warm medians) single {statistics.median(r['single_cpu_seconds'] for r in warm):.1f}, "
            f"the job's by process {{{', '.join(f'{kind}: {value}' for kind, value in kinds.items() if value)}}}; "
            f"spark rate per core (warm median) {statistics.median(r['spark_rate_per_core'] for r in warm):.0f}; "
            f"spark start-up {startup:.2f} s apart")


def prepare_inputs(args: argparse.Namespace, binary: str) -> tuple[Path, list[Path], int, str, str]:
    """The generated set (made once, cached in --workdir): the source file, the inputs (the
    source, or its split files), its requests, the key and revocation files."""
    gen_dir = Path(args.workdir) / f"set-{args.count}-{args.seed}"
    if not (gen_dir / "requests.jsonl").exists():
        shutil.rmtree(gen_dir, ignore_errors=True)
        seconds = timed([binary, "gen", "--count", str(args.count), "--seed", str(args.seed), "--realistic",
                         "--out", str(gen_dir)])
        print(f"bench: generated {args.count} tokens in {seconds:.1f} s into {gen_dir}", file=sys.stderr)
    source = gen_dir / ("tokens.txt" if args.input == "tokens" else "requests.jsonl")
    lines = sum(1 for line in source.open("rb") if line.strip())
    inputs = [source]
    if args.files > 1:  # a folder of files, as a fleet's store would hand them over
        folder = gen_dir / f"{source.stem}-{args.files}-files"
        if not folder.is_dir():
            split_into(source, folder, args.files, lines)
        inputs = sorted(folder.iterdir())
    return source, inputs, lines, str(gen_dir / "keys.jwks"), str(gen_dir / "revocations.jsonl")


def main() -> int:
    args = parse_args()
    if args.jvm_options is None:
        args.jvm_options = SPARK_JVM_OPTIONS if args.direct == "off" else DIRECT_JVM_OPTIONS
    if not args.tokenverify:
        print("bench: no archive in dist/; run scripts/package or pass --tokenverify", file=sys.stderr)
        return 2
    binary = unpack_locally(args.tokenverify) if is_archive(args.tokenverify) else args.tokenverify
    work = Path(args.workdir)
    source, inputs, lines, keys, revocations = prepare_inputs(args, binary)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    store = services.start_s3(work) if args.store == "s3" else None
    job_input, output = str(inputs[0].parent if args.files > 1 else source), str(work / "spark-out")
    if store is not None:
        job_input = services.put_inputs(store, inputs, f"{source.stem}-{args.count}-{args.files}")
        output = "s3://bench/spark-out"
    started = time.monotonic()
    spark, connect = session(args, store.endpoint if store is not None else None)
    startup = time.monotonic() - started
    print(f"spark start-up (JVM and session, apart): {startup:.2f} s; JVM options: {args.jvm_options or '(none)'}; "
          f"store {args.store}{'; over Spark Connect' if connect else ''}")
    setup = Setup(args, lines,
                  [binary, "verify", "--quiet", "--threads", str(args.cores), "--keys", keys, "--revocations", revocations,
                   "--at", AT, *map(str, inputs)],
                  work / "single-answers.jsonl",
                  options.parse(["--tokenverify", args.tokenverify, "--keys", keys, "--revocations", revocations, "--at", AT,
                                 "--input", job_input, "--output", output, "--overwrite", "--direct", args.direct]),
                  store)
    rounds = []
    for number in range(1, args.rounds + 1):  # alternating, so that both see the same load
        figures = one_round(setup, spark, number)
        if figures is None:
            return 1
        rounds.append(figures)
        print(round_line(figures, args.cores, store is not None))
    for service in (spark, connect, store):
        if service is not None:
            service.stop()
    print(summary_line(rounds, lines, args, source.name, startup))
    if args.json:
        Path(args.json).write_text(json.dumps({"tokens": lines, "cores": args.cores, "input": source.name,
                                               "files": args.files, "spark_startup_seconds": round(startup, 2),
                                               "jvm_options": args.jvm_options, "direct": args.direct,
                                               "store": args.store, "connect": args.connect,
                                               "rounds": rounds}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
