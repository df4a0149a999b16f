"""The job's summary: answers counted by reason (read back from the written output, or, on the
direct path, added up from the tasks' counts)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from .options import JobOptions

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Reason codes in check order (spec §5), for the summary's order; unknown codes follow.
REASON_ORDER = (
    "malformed_request", "malformed_token", "unsupported_alg", "bad_header", "unknown_key", "untrusted_chain",
    "key_alg_mismatch", "wrong_environment", "wrong_issuer", "not_yet_valid", "expired",
    "revoked_key", "revoked_token", "revoked_device", "revoked_object", "revoked_grant",
    "status_invalid", "status_suspended", "status_unavailable",
    "wrong_device", "wrong_object", "channel_not_permitted", "command_not_permitted", "step_required",
    "bad_signature",
)



@dataclass(frozen=True)
class Summary:
    answered: int
    valid: int
    reasons: dict[str, int]
    seconds: float
    at: str
    phases: dict[str, float] = field(default_factory=dict)
    execution: str = "spark"  # "direct" where the direct path ran the job (job.py)

    def line(self) -> str:
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.reasons.items())
        rate = self.answered / self.seconds if self.seconds > 0 else 0.0
        return (f"tokenverify-spark: {self.answered} answered ({self.valid} valid, "
                f"{self.answered - self.valid} invalid) in {self.seconds:.2f} s, {rate:.0f} tokens/s"
                + (f"; {reasons}" if reasons else ""))

    def as_json(self) -> dict[str, Any]:
        return {"answered": self.answered, "valid": self.valid, "invalid": self.answered - self.valid,
                "reasons": self.reasons, "seconds": round(self.seconds, 3), "at": self.at,
                "phases_seconds": {name: round(value, 3) for name, value in self.phases.items()},
                "execution": self.execution}


def count_answers(spark: SparkSession, options: JobOptions, seconds: float, at: str) -> Summary:
    """Counts by reason, read back from the written output (exact under task retries)."""
    if options.output_format == "parquet":
        written = spark.read.parquet(options.output)
    else:
        written = spark.read.schema("valid boolean, reason string").json(options.output)
    rows = written.groupBy("valid", "reason").count().collect()
    return tally(((row["valid"], row["reason"], row["count"]) for row in rows), seconds, at)


def tally(counts: Iterable[tuple[bool | None, str | None, int]], seconds: float, at: str) -> Summary:
    """The summary of (valid, reason, count) triples (a reason may come more than once)."""
    by_reason: dict[str, int] = {}
    valid = 0
    for is_valid, reason, count in counts:
        if is_valid:
            valid += count
        elif count:
            by_reason[reason or "unknown"] = by_reason.get(reason or "unknown", 0) + count
    ordered = {reason: by_reason[reason] for reason in REASON_ORDER if reason in by_reason}
    ordered.update({reason: count for reason, count in sorted(by_reason.items()) if reason not in ordered})
    return Summary(answered=valid + sum(by_reason.values()), valid=valid, reasons=ordered, seconds=seconds, at=at)


def summary_text(summary: Summary) -> str:
    """The summary as `_summary.json` holds it."""
    return json.dumps(summary.as_json(), indent=2) + "\n"


def write_summary(options: JobOptions, summary: Summary, spark: SparkSession) -> None:
    text = summary_text(summary)
    target = options.output.rstrip("/") + "/_summary.json"
    local = target[len("file:"):] if target.startswith("file:") else target
    if "://" not in target or target.startswith("file:"):
        with open(local, "w", encoding="utf-8") as file:
            file.write(text)
        return
    if type(spark).__module__.startswith("pyspark.sql.connect"):  # no JVM on a Spark Connect client
        print(f"tokenverify-spark: over Spark Connect, {target} is not written (the counts are above)", file=sys.stderr)
        return
    jvm: Any = spark.sparkContext._jvm  # type: ignore[attr-defined]  # a remote file system (hdfs://, s3a://)
    path = jvm.org.apache.hadoop.fs.Path(target)
    stream = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).create(path, True)  # type: ignore[attr-defined]
    stream.write(bytearray(text.encode("utf-8")))
    stream.close()
