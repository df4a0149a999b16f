"""Spares a reused PySpark worker a cost it pays before every task.

Before each task, PySpark's worker calls `importlib.invalidate_caches()` (`setup_spark_files`),
which makes every zip importer on `sys.path` read its archive's directory again. The worker's
path holds Spark's own `pyspark.zip` and py4j's source zip (`$SPARK_HOME/python/lib`), thousands
of entries: here about 0.15 CPU seconds a task, more than a 2-task job's own Python work. Those
two archives never change while a worker lives, so their importers are told to keep their
directories; any other importer (a zip the job adds with addPyFile, a folder) is left as it is.
"""

from __future__ import annotations

import os
import sys
import zipimport

# Spark's own archives on a worker's path: `pyspark.zip` and `py4j-<version>-src.zip`.
_SPARK_ARCHIVES = ("pyspark.zip", "py4j-")


def _keeps_directory() -> None:
    """An importer's invalidate_caches that keeps the directory it read."""


def keep_spark_archive_directories() -> int:
    """Makes the importers of Spark's own zips skip `invalidate_caches`; returns how many."""
    kept = 0
    for path, importer in list(sys.path_importer_cache.items()):
        name = os.path.basename(path or "")
        if (isinstance(importer, zipimport.zipimporter) and name.endswith(".zip")
                and name.startswith(_SPARK_ARCHIVES) and os.path.basename(os.path.dirname(path)) == "lib"):
            if importer.invalidate_caches is not _keeps_directory:
                importer.invalidate_caches = _keeps_directory  # type: ignore[method-assign]
            kept += 1
    return kept
