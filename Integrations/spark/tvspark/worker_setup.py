"""Spares a reused PySpark worker two costs it pays around every task (each task calls
`lighten_worker()` first; a worker serves task after task).

- Before each task, PySpark's worker calls `importlib.invalidate_caches()` (`setup_spark_files`),
  which makes every zip importer on `sys.path` read its archive's directory again. The worker's
  path holds Spark's own `pyspark.zip` and py4j's source zip (`$SPARK_HOME/python/lib`) and the
  jar of Spark's core classes (`$SPARK_HOME/jars/spark-core_*.jar`, put there by PySpark), and
  each package looked up in them has an importer of its own that reads the whole archive again:
  tens of thousands of entries, about 0.1 CPU seconds a task here. Those archives never change
  while a worker lives, so their importers are told to keep their directories; any other
  importer (a zip the job adds with addPyFile, a folder) is left as it is.
- After each task, the worker runs a full garbage collection, which walks every object of
  pyspark, pyarrow and numpy the worker imported. The first task in a worker moves the objects
  alive then to the collector's permanent generation (`gc.freeze()`, as forking servers do), so
  that later collections walk only what later tasks made.
"""

from __future__ import annotations

import gc
import os
import sys
import zipimport

# Spark's own archives on a worker's path, by folder: `pyspark.zip` and `py4j-<version>-src.zip`
# in `python/lib`, the core jar (`spark-core_<scala>-<version>.jar`) in `jars`.
_SPARK_ARCHIVES = {"lib": (("pyspark.zip", "py4j-"), ".zip"), "jars": (("spark-core_",), ".jar")}
_frozen = False


def lighten_worker() -> None:
    """Both of the above: the archives' importers on every call, the freeze once a worker."""
    global _frozen
    keep_spark_archive_directories()
    if not _frozen:
        gc.freeze()
        _frozen = True


def _keeps_directory() -> None:
    """An importer's invalidate_caches that keeps the directory it read."""


def keep_spark_archive_directories() -> int:
    """Makes the importers of Spark's own zips skip `invalidate_caches`; returns how many."""
    kept = 0
    for importer in list(sys.path_importer_cache.values()):
        if not isinstance(importer, zipimport.zipimporter):
            continue
        archive = importer.archive  # the zip file, also for a package's importer inside it
        name = os.path.basename(archive)
        prefixes, suffix = _SPARK_ARCHIVES.get(os.path.basename(os.path.dirname(archive)), ((), ""))
        if prefixes and name.startswith(prefixes) and name.endswith(suffix):
            importer.invalidate_caches = _keeps_directory  # type: ignore[method-assign]
            kept += 1
    return kept
