"""worker_imports: only the importers of Spark's own archives keep their directories."""

from __future__ import annotations

import sys
import zipfile
import zipimport
from pathlib import Path

from tvspark.worker_imports import keep_spark_archive_directories


def _archive(path: Path, module: str = "first_module") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}.py", "")
    return str(path)


def test_spark_archives_keep_their_directory_and_other_zips_do_not(tmp_path: Path) -> None:
    spark_zip = _archive(tmp_path / "python" / "lib" / "pyspark.zip")
    py4j_zip = _archive(tmp_path / "python" / "lib" / "py4j-0.10.9.9-src.zip")
    user_zip = _archive(tmp_path / "files" / "pyspark.zip")  # a job's own zip, not in Spark's lib
    importers = {path: zipimport.zipimporter(path) for path in (spark_zip, py4j_zip, user_zip)}
    sys.path_importer_cache.update(importers)
    try:
        assert keep_spark_archive_directories() >= 2
        for path, importer in importers.items():
            _archive(Path(path), "second_module")  # the archive changes on disk
            importer.invalidate_caches()
            kept = path != user_zip  # Spark's archives keep the directory they read; others read it again
            assert (importer.find_spec("first_module") is not None) is kept
            assert (importer.find_spec("second_module") is not None) is not kept
    finally:
        for path in importers:
            sys.path_importer_cache.pop(path, None)
