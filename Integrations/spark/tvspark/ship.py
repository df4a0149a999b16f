"""Shipping the binary (or release archive), the key, revocation and step files and this
package with the job, and finding them again on an executor with SparkFiles.get.

Each file is staged on the driver under a name made of its content hash and its own name, so
that two files called keys.jwks never collide and a second job in the same session that ships
the same file re-uses it (Spark refuses one name for two different paths).
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import tarfile
import tempfile
import weakref
import zipfile
from dataclasses import dataclass
from typing import Any

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
_STAGE = os.path.join(tempfile.gettempdir(), f"tokenverify-spark-{os.getuid()}")
# The staged paths each SparkContext (or Spark Connect session) has been given. A staged name is its content, so a later job
# in the session that ships the same file adds nothing: Spark would only warn that the path was
# added already, and PySpark would list the Python zip once more for every task.
_ADDED: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def is_archive(path: str) -> bool:
    return path.endswith(ARCHIVE_SUFFIXES)


# Content hashes by (path, size, modification time): a later job in the process that ships the
# same unchanged file (a 50 MB archive) does not hash it again.
_DIGESTS: dict[tuple[str, int, int], str] = {}


def _digest(path: str) -> str:
    info = os.stat(path)
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    if key in _DIGESTS:
        return _DIGESTS[key]
    sha = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            sha.update(chunk)
    _DIGESTS[key] = sha.hexdigest()[:16]
    return _DIGESTS[key]


def stage(path: str) -> str:
    """A copy of `path` under its content-addressed name; the copy's path."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path}")
    os.makedirs(_STAGE, exist_ok=True)
    staged = os.path.join(_STAGE, f"{_digest(path)}-{os.path.basename(path)}")
    if not os.path.exists(staged):
        partial = f"{staged}.{os.getpid()}.partial"
        shutil.copyfile(path, partial)
        shutil.copymode(path, partial)
        os.replace(partial, staged)
    return staged


def package_zip() -> str:
    """This Python package as a zip for the executors (addPyFile), content-addressed too."""
    here = os.path.dirname(os.path.abspath(__file__))
    sha = hashlib.sha256()
    sources = sorted(glob.glob(os.path.join(here, "*.py")))
    for source in sources:
        with open(source, "rb") as file:
            sha.update(os.path.basename(source).encode() + b"\0" + file.read())
    os.makedirs(_STAGE, exist_ok=True)
    target = os.path.join(_STAGE, f"tvspark-{sha.hexdigest()[:16]}.zip")
    if not os.path.exists(target):
        partial = f"{target}.{os.getpid()}.partial"
        with zipfile.ZipFile(partial, "w") as archive:
            for source in sources:
                archive.write(source, os.path.join("tvspark", os.path.basename(source)))
        os.replace(partial, target)
    return target


def find_binary(root: str) -> str:
    """The tokenverify binary inside an unpacked release archive (NAME/bin/tokenverify)."""
    for pattern in ("*/bin/tokenverify", "bin/tokenverify", "tokenverify"):
        found = sorted(glob.glob(os.path.join(root, pattern)))
        if found and os.path.isfile(found[0]):
            return found[0]
    raise FileNotFoundError(f"no bin/tokenverify in the archive unpacked at {root}")


def unpack_locally(archive: str) -> str:
    """Unpacks the archive on the driver (for the configuration check); the binary's path."""
    target = os.path.join(_STAGE, f"unpacked-{_digest(archive)}")
    if not os.path.isdir(target):
        partial = f"{target}.{os.getpid()}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        if archive.endswith(".zip"):
            with zipfile.ZipFile(archive) as file:
                file.extractall(partial)
        else:
            with tarfile.open(archive) as file:
                file.extractall(partial, filter="tar")
        os.replace(partial, target)
    return find_binary(target)


@dataclass(frozen=True)
class Shipment:
    """What the executors need to find the shipped files: each file given on the job's command
    line mapped to the name SparkFiles knows it by, and the binary's (or archive's) name."""

    names: dict[str, str]
    tokenverify_name: str
    tokenverify_is_archive: bool

    def resolve(self, path: str) -> str:
        from pyspark import SparkFiles

        return SparkFiles.get(self.names[path])

    def binary(self) -> str:
        from pyspark import SparkFiles

        from .child import ensure_executable

        located = SparkFiles.get(self.tokenverify_name)
        if self.tokenverify_is_archive:
            located = find_binary(located)
        return ensure_executable(located)


def _is_connect(spark: object) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def ship(spark: object, tokenverify: str, files: list[str]) -> Shipment:
    """Adds the binary or archive, the files and this package to the session."""
    names: dict[str, str] = {}
    staged_files = []
    for path in files:
        staged = stage(path)
        names[path] = os.path.basename(staged)
        staged_files.append(staged)
    staged_tool = stage(tokenverify)
    archive = is_archive(tokenverify)
    python = package_zip()
    if _is_connect(spark):  # Spark Connect: no SparkContext, artifacts instead (each once a session)
        sent = _ADDED.setdefault(spark, set())
        for staged, kind in [*((staged, "file") for staged in staged_files), (staged_tool, "archive" if archive else "file"),
                             (python, "pyfile")]:
            if staged not in sent:
                spark.addArtifacts(staged, **{kind: True})  # type: ignore[attr-defined]
                sent.add(staged)
    else:
        context = spark.sparkContext  # type: ignore[attr-defined]
        added = _ADDED.setdefault(context, set())
        for staged, add in [*((staged, context.addFile) for staged in staged_files),
                            (staged_tool, context.addArchive if archive else context.addFile),
                            (python, context.addPyFile)]:
            if staged not in added:
                add(staged)
                added.add(staged)
    return Shipment(names=names, tokenverify_name=os.path.basename(staged_tool), tokenverify_is_archive=archive)
