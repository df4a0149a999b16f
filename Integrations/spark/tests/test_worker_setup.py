"""worker_setup: only the importers of Spark's own archives keep their directories; the objects
alive at a worker's first task are frozen once."""

from __future__ import annotations

import gc
import sys
import zipfile
import zipimport
from pathlib import Path

from tvspark import worker_setup
from tvspark.worker_setup import keep_spark_archive_directories, lighten_worker


def _archive(path: Path, module: str = "first_module") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}.py", "")
    return str(path)


def test_spark_archives_keep_their_directory_and_other_zips_do_not(tmp_path: Path) -> None:
    spark_zip = _archive(tmp_path / "python" / "lib" / "pyspark.zip")
    py4j_zip = _archive(tmp_path / "python" / "lib" / "py4j-0.10.9.9-src.zip")
    core_jar = _archive(tmp_path / "jars" / "spark-core_2.13-4.1.4.jar")
    user_zip = _archive(tmp_path / "files" / "pyspark.zip")  # a job's own zip, not in Spark's lib
    user_jar = _archive(tmp_path / "files" / "spark-core_2.13-4.1.4.jar")  # nor in Spark's jars
    other_jar = _archive(tmp_path / "jars" / "library.jar")  # in Spark's jars, not its core
    importers = {path: zipimport.zipimporter(path) for path in (spark_zip, py4j_zip, core_jar, user_zip, user_jar, other_jar)}
    package = zipimport.zipimporter(spark_zip + "/package")  # a package's importer inside Spark's zip
    sys.path_importer_cache.update(importers)
    sys.path_importer_cache[spark_zip + "/package"] = package
    try:
        assert keep_spark_archive_directories() >= 4
        for path, importer in importers.items():
            _archive(Path(path), "second_module")  # the archive changes on disk
            importer.invalidate_caches()
            kept = path in (spark_zip, py4j_zip, core_jar)  # Spark's archives keep the directory they read; others read it again
            assert (importer.find_spec("first_module") is not None) is kept
            assert (importer.find_spec("second_module") is not None) is not kept
        assert package.invalidate_caches is importers[spark_zip].invalidate_caches
    finally:
        sys.path_importer_cache.pop(spark_zip + "/package", None)
        for path in importers:
            sys.path_importer_cache.pop(path, None)


def _in_collected_generations(probe: object) -> bool:
    """Whether the collector still examines `probe` (frozen objects leave its generations)."""
    return any(tracked is probe for tracked in gc.get_objects())


def test_the_first_task_freezes_what_is_alive_then_and_later_ones_do_not() -> None:
    worker_setup._frozen = False
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    try:
        made_before = [[index] for index in range(10)]
        lighten_worker()
        frozen = gc.get_freeze_count()
        assert frozen > 0 and not _in_collected_generations(made_before)
        made_later = [[index] for index in range(1000)]  # tracked by the collector, made after the freeze
        lighten_worker()
        # Nothing more is frozen (frozen objects that die meanwhile, other threads' among them,
        # leave the count: it may fall, never rise).
        assert gc.get_freeze_count() <= frozen
        assert _in_collected_generations(made_later)
    finally:
        gc.unfreeze()
        worker_setup._frozen = False
