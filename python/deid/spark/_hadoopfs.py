# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Locations given as URLs (hdfs://, viewfs://, s3a://, ...): reached
through Hadoop's file systems in Spark's JVM, with the session's Hadoop
configuration, as Spark itself reaches them."""
from __future__ import annotations

import re
from typing import Optional

from pyspark.sql import SparkSession

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")

#: File systems whose rename of a directory is one namespace operation:
#: HDFS (and WebHDFS, which calls it), and ViewFs within one mount point.
#: Object stores (s3a, gs, abfs, ...) copy on rename; the Spark setting
#: spark.deid.atomicRenameSchemes adds schemes the custodian knows to rename
#: atomically (docs/spark.md, "Writing").
ATOMIC_RENAME = ("hdfs", "viewfs", "webhdfs", "swebhdfs")


def scheme(location: str) -> Optional[str]:
    """The URL scheme of `location` in lower case, or None for a path."""
    m = _SCHEME.match(location)
    return m.group(1).lower() if m else None


def atomic_rename_schemes(spark: SparkSession) -> "set[str]":
    extra = spark.conf.get("spark.deid.atomicRenameSchemes", "") or ""
    return set(ATOMIC_RENAME) | {s.strip().lower() for s in extra.split(",") if s.strip()}


class HadoopFs:
    """The Hadoop file system of one URL, with FileContext's renames (which,
    unlike FileSystem.rename, fail rather than move into an existing
    directory)."""

    def __init__(self, spark: SparkSession, location: str):
        self._jvm = spark._jvm  # type: ignore[attr-defined]
        self._gateway = spark.sparkContext._gateway  # type: ignore[attr-defined]
        self._conf = spark._jsc.hadoopConfiguration()  # type: ignore[attr-defined]
        self.root = self.path(location)
        self.fs = self.root.getFileSystem(self._conf)
        self._fc = self._jvm.org.apache.hadoop.fs.FileContext.getFileContext(self.root.toUri(), self._conf)

    def path(self, location: str, name: Optional[str] = None):
        Path = self._jvm.org.apache.hadoop.fs.Path
        return Path(location) if name is None else Path(location, name)

    def exists(self, p) -> bool:
        return bool(self.fs.exists(p))

    def is_dir(self, p) -> bool:
        return self.exists(p) and bool(self.fs.getFileStatus(p).isDirectory())

    def head(self, p, n: int) -> bytes:
        """The first `n` bytes of the file `p` (fewer when it is shorter)."""
        stream = self.fs.open(p)
        try:
            out = bytearray()
            while len(out) < n:
                b = stream.read()
                if b < 0:
                    break
                out.append(b)
            return bytes(out)
        finally:
            stream.close()

    def rename(self, src, dst) -> None:
        """Renames `src` to `dst` in one operation of the file system; fails
        (FileAlreadyExistsException) when `dst` exists."""
        Rename = getattr(self._jvm.org.apache.hadoop.fs, "Options$Rename")
        options = self._gateway.new_array(Rename, 1)
        options[0] = Rename.NONE
        self._fc.rename(src, dst, options)

    def delete(self, p) -> None:
        self.fs.delete(p, True)
