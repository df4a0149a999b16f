#!/usr/bin/env python3
"""Verifies every token of a set of files or a table on Apache Spark.

Usage:
    spark-submit [spark options] Integrations/spark/tokenverify_spark.py \\
      --tokenverify ARCHIVE_OR_BINARY --keys K.jwks [--revocations R.jsonl …] [--at T] \\
      --input PATH [--input PATH …] [--input-format lines|parquet|csv] --output DIR

Each partition is piped through one `tokenverify verify` process on its executor; the answers
are written to DIR (Parquet or JSON lines) with the counts by reason in DIR/_summary.json. Local
files of lines written as Parquet take the direct path (--direct auto|on|off; see README.md).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tvspark.job import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
