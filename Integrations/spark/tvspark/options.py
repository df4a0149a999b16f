"""The job's command line and the `tokenverify verify` command line it derives for each child."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .protocol import DEFAULT_MAX_LINE_BYTES

INPUT_FORMATS = ("lines", "parquet", "csv")
OUTPUT_FORMATS = ("parquet", "json")
DIRECT_MODES = ("auto", "on", "off")


class ConfigError(Exception):
    """The job cannot start; the message is for the user (tokenverify's own where it has one)."""


@dataclass(frozen=True)
class JobOptions:
    tokenverify: str
    keys: list[str]
    inputs: list[str]
    output: str
    revocations: list[str] = field(default_factory=list)
    step_policy: str | None = None
    device_steps: list[str] = field(default_factory=list)
    status_lists: list[str] = field(default_factory=list)
    skip_status_lists: bool = False
    trust_anchors: list[str] = field(default_factory=list)
    at: str | None = None
    env: str | None = None
    issuer: str | None = None
    leeway: str | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    input_format: str = "lines"
    token_column: str = "token"
    output_format: str = "parquet"
    overwrite: bool = False
    child_threads: int | None = None
    remote: str | None = None
    direct: str = "auto"

    def status_list_files(self) -> list[str]:
        """The Status List Token files: each file given, and each folder's regular files (names
        starting with "." left out, as `verify` does), in order."""
        return expand_folders(self.status_lists)

    def trust_anchor_files(self) -> list[tuple[str | None, str]]:
        """Each `--trust-anchors [ENV=]PATH` as (environment, file), folders expanded as for the
        status lists (spec §3b: an `ENV=` prefix names `int` or `prod`, else the whole is a path)."""
        files: list[tuple[str | None, str]] = []
        for item in self.trust_anchors:
            environment, equals, path = item.partition("=")
            if not equals or environment not in ("int", "prod"):
                environment, path = "", item
            files += [(environment or None, file) for file in expand_folders([path])]
        return files

    def shipped_files(self) -> list[str]:
        """Every file the children read, in a fixed order."""
        files = [*self.keys, *self.revocations, *self.device_steps]
        if self.step_policy:
            files.append(self.step_policy)
        return files + self.status_list_files() + [file for _, file in self.trust_anchor_files()]

    def verify_argv(self, binary: str, resolve: Callable[[str], str], at: str, threads: int) -> list[str]:
        """`tokenverify verify` with this job's flags; `resolve` maps each file given on the job's
        command line to the path where this process finds it (the driver's own path, or the
        SparkFiles copy on an executor). No revocation reloading: a batch job reads one snapshot."""
        argv = [binary, "verify", "--quiet", "--reload-interval", "0", "--threads", str(threads),
                "--at", at, "--max-line-bytes", str(self.max_line_bytes)]
        for path in self.keys:
            argv += ["--keys", resolve(path)]
        for path in self.revocations:
            argv += ["--revocations", resolve(path)]
        if self.step_policy:
            argv += ["--step-policy", resolve(self.step_policy)]
        for path in self.device_steps:
            argv += ["--device-steps", resolve(path)]
        for path in self.status_list_files():
            argv += ["--status-lists", resolve(path)]
        if self.skip_status_lists:
            argv.append("--skip-status-lists")
        for environment, path in self.trust_anchor_files():
            argv += ["--trust-anchors", (environment + "=" if environment else "") + resolve(path)]
        if self.env is not None:
            argv += ["--env", self.env]
        if self.issuer is not None:
            argv += ["--issuer", self.issuer]
        if self.leeway is not None:
            argv += ["--leeway", self.leeway]
        return argv


def expand_folders(paths: Sequence[str]) -> list[str]:
    """Each path that is a folder replaced by its regular files in name order, hidden ones left out."""
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            names = sorted(name for name in os.listdir(path) if not name.startswith("."))
            files += [os.path.join(path, name) for name in names if os.path.isfile(os.path.join(path, name))]
        else:
            files.append(path)
    return files


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tokenverify_spark.py",
        description="Verify every token of a set of files or a table on Apache Spark: each "
                    "partition is piped through one `tokenverify verify` process on its executor.",
        epilog="Run with spark-submit [spark options] tokenverify_spark.py …; see "
               "Integrations/spark/README.md.",
    )
    p.add_argument("--tokenverify", required=True, metavar="ARCHIVE_OR_BINARY",
                   help="the release archive (scripts/package) or a tokenverify binary")
    p.add_argument("--keys", action="append", default=[], metavar="K.jwks",
                   help="JWKS key file (repeatable; at least one unless --trust-anchors is given)")
    p.add_argument("--trust-anchors", action="append", default=[], metavar="[ENV=]PATH",
                   help="trust anchor PEM file or folder (repeatable), shipped and forwarded to verify: tokens "
                        "carrying certificate chains are verified with their leaf (spec §3b)")
    p.add_argument("--revocations", action="append", default=[], metavar="R.jsonl",
                   help="revocation list (repeatable)")
    p.add_argument("--step-policy", metavar="P.json", help="step policy, forwarded to verify")
    p.add_argument("--device-steps", action="append", default=[], metavar="D.jsonl",
                   help="device steps, forwarded to verify (repeatable)")
    p.add_argument("--status-lists", action="append", default=[], metavar="PATH",
                   help="Status List Token file, or a folder of them (repeatable), shipped and "
                        "forwarded to verify")
    p.add_argument("--skip-status-lists", action="store_true",
                   help="leave the status of tokens that name a status list unchecked")
    p.add_argument("--at", metavar="T", help="check time, NumericDate or RFC 3339 (default: the job's "
                                             "start, the same for every task)")
    p.add_argument("--env", metavar="E", help="accept only this environment (int or prod)")
    p.add_argument("--issuer", metavar="I", help="require this iss")
    p.add_argument("--leeway", metavar="S", help="clock skew allowed on nbf and exp, in seconds")
    p.add_argument("--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES, metavar="B",
                   help="longest accepted line, forwarded to verify (default: %(default)s)")
    p.add_argument("--input", action="append", required=True, metavar="PATH",
                   help="input file or folder (repeatable)")
    p.add_argument("--input-format", choices=INPUT_FORMATS, default="lines",
                   help="lines: every non-blank line is a token or a JSON request (default); "
                        "parquet, csv: a table with a token column and optional device, object, "
                        "channel, command, at columns")
    p.add_argument("--token-column", default="token", help="the token column of a table (default: token)")
    p.add_argument("--output", required=True, metavar="DIR", help="output folder")
    p.add_argument("--output-format", choices=OUTPUT_FORMATS, default="parquet")
    p.add_argument("--overwrite", action="store_true", help="replace DIR if it exists")
    p.add_argument("--child-threads", type=int, metavar="N",
                   help="verify threads of each child (default: spark.task.cpus)")
    p.add_argument("--remote", metavar="sc://HOST:PORT",
                   help="run over Spark Connect at this address (default: $SPARK_REMOTE; without either, "
                        "the session spark-submit or PySpark starts)")
    p.add_argument("--direct", choices=DIRECT_MODES, default="auto",
                   help="lines to Parquet, local files or a store's (s3://, gs://, abfs://, hdfs://): Spark only schedules, "
                        "each task streams a byte range of a large file (or a run of small files) through its child and writes the child's Arrow "
                        "answers as Parquet itself. auto: "
                        "where possible (default); on: or fail saying why not; off: Spark reads and writes")
    return p


def parse(argv: Sequence[str]) -> JobOptions:
    p = parser()
    args = p.parse_args(list(argv))
    if not args.keys and not args.trust_anchors:
        p.error("at least one --keys file (or --trust-anchors, for tokens with chains) is required")
    return JobOptions(
        tokenverify=args.tokenverify, keys=args.keys, inputs=args.input, output=args.output,
        revocations=args.revocations, step_policy=args.step_policy, device_steps=args.device_steps,
        status_lists=args.status_lists, skip_status_lists=args.skip_status_lists,
        trust_anchors=args.trust_anchors, at=args.at, env=args.env, issuer=args.issuer, leeway=args.leeway,
        max_line_bytes=args.max_line_bytes, input_format=args.input_format,
        token_column=args.token_column, output_format=args.output_format, overwrite=args.overwrite,
        child_threads=args.child_threads, remote=args.remote or os.environ.get("SPARK_REMOTE") or None,
        direct=args.direct,
    )
