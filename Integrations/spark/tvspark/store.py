"""Where the direct path's inputs and output live, as pyarrow file systems (`pyarrow.fs`): the
local disk, S3 (`s3://`, `s3a://`, `s3n://`), Google Cloud Storage (`gs://`), Azure (`abfs://`,
`abfss://`) and HDFS (`hdfs://`).

A Store names the file system and its settings that are not secret (endpoint, region, the
transport): the driver takes them from the URL and Spark's own settings (`spark.hadoop.fs.s3a.*`,
per bucket too), pickles the Store with the tasks, and each task builds its file system from it.
Credentials never travel with the job and are never logged: each machine's SDK finds its own, as
it does for any program there (for S3: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or
AWS_PROFILE, ~/.aws, the instance's role; for GCS and Azure: their default credential chains).
An S3 endpoint not given in Spark's settings comes from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SCHEMES = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gcs", "gcs": "gcs", "abfs": "abfs", "abfss": "abfs",
            "hdfs": "hdfs"}
# Spark's (Hadoop's S3A) settings the S3 store takes, as (setting, option); a per-bucket setting
# (spark.hadoop.fs.s3a.bucket.BUCKET.endpoint) wins over the global one.
_S3A_SETTINGS = (("endpoint", "endpoint"), ("endpoint.region", "region"), ("connection.ssl.enabled", "ssl"))
_FILESYSTEMS: dict[Store, Any] = {}


class StoreError(Exception):
    """A URL the direct path cannot reach through pyarrow; the message says why."""


@dataclass(frozen=True)
class Store:
    """A file system: its kind ("s3", "gcs", "abfs", "hdfs") and its settings, none secret."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    def filesystem(self) -> Any:
        """The pyarrow file system, built once per process (credentials found here)."""
        found = _FILESYSTEMS.get(self)
        if found is None:
            found = _FILESYSTEMS[self] = self._build()
        return found

    def _build(self) -> Any:
        from pyarrow import fs

        if self.kind == "s3":
            endpoint = self.option("endpoint") or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
            scheme = "http" if self.option("ssl") == "false" else None
            if endpoint and "://" in endpoint:
                scheme, endpoint = endpoint.split("://", 1)
            settings: dict[str, Any] = {"endpoint_override": endpoint or None, "region": self.option("region")}
            if scheme:
                settings["scheme"] = scheme
            return fs.S3FileSystem(**{key: value for key, value in settings.items() if value is not None})
        if self.kind == "gcs":
            return fs.GcsFileSystem()
        if self.kind == "abfs":
            return fs.AzureFileSystem(account_name=self.option("account") or "")
        if self.kind == "hdfs":
            return fs.HadoopFileSystem(self.option("host") or "default", int(self.option("port") or 0))
        raise StoreError(f"no file system for {self.kind}")

    def describe(self) -> str:
        """The store in words for messages: its settings, none secret (an endpoint's user and
        password, were one given in its URL, left out)."""
        return self.kind + "".join(f" {name}={_without_userinfo(value)}" for name, value in self.options)


@dataclass(frozen=True)
class Location:
    """A URL as the direct path reads it: the store, the path inside it (pyarrow's form:
    `bucket/key` on object stores), and the URL's own scheme and authority to name its files by."""

    store: Store
    path: str
    prefix: str  # e.g. "s3://bucket/": prefix + path without the bucket is the file's `source`

    def source(self, path: str) -> str:
        """The `source` of a file's rows: its URL with the scheme the input gave."""
        if self.store.kind == "hdfs":
            return self.prefix + path
        return self.prefix + path.split("/", 1)[1]  # the bucket or container is in the prefix


def is_remote(name: str) -> bool:
    """True for a URL of a store this module reaches (by its scheme)."""
    return urlsplit(name).scheme.lower() in _SCHEMES and "://" in name


def locate(name: str, spark: SparkSession | None) -> Location:
    """The Location of a remote URL, with Spark's settings for its store; StoreError when it
    names no bucket, container or path."""
    parts = urlsplit(name)
    scheme = parts.scheme.lower()
    kind = _SCHEMES.get(scheme)
    if kind is None or not parts.netloc:
        raise StoreError(f"{name}: not a URL of a store the direct path reads (s3, s3a, gs, abfs, abfss, hdfs)")
    key = parts.path.strip("/")
    if kind in ("s3", "gcs"):
        options = _s3_options(spark, parts.netloc) if kind == "s3" else ()
        path = parts.netloc + ("/" + key if key else "")
        return Location(Store(kind, options), path, f"{scheme}://{parts.netloc}/")
    if kind == "abfs":
        container, _, host = parts.netloc.partition("@")
        if not container or not host:
            raise StoreError(f"{name}: an abfs URL names CONTAINER@ACCOUNT.dfs.core.windows.net")
        store = Store(kind, (("account", host.split(".", 1)[0]),))
        return Location(store, container + ("/" + key if key else ""), f"{scheme}://{parts.netloc}/")
    store = Store(kind, (("host", parts.hostname or "default"), ("port", str(parts.port or 0))))
    return Location(store, "/" + key, f"{scheme}://{parts.netloc}")


def _s3_options(spark: SparkSession | None, bucket: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for setting, option in _S3A_SETTINGS:
        value = _conf(spark, f"spark.hadoop.fs.s3a.bucket.{bucket}.{setting}") or _conf(spark, f"spark.hadoop.fs.s3a.{setting}")
        if value:
            found.append((option, value.strip()))
    return tuple(found)


def _conf(spark: SparkSession | None, key: str) -> str | None:
    if spark is None:
        return None
    try:
        value = spark.conf.get(key, None)
    except Exception:  # noqa: BLE001 - a setting Spark refuses to show is one we do not have
        return None
    return str(value) if value else None


def _without_userinfo(value: str) -> str:
    scheme, separator, rest = value.rpartition("://")
    host = rest.rpartition("@")[2]
    return f"{scheme}{separator}{host}"


def explain(error: BaseException, name: str, store: Store) -> str:
    """A clear message for a store's error on `name` (pyarrow's own words, one line)."""
    text = " ".join(str(error).split())
    return f"{name}: cannot read it on {store.describe()}: {text}"
