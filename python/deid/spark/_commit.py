# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Writing a release whole or not at all: a directory written aside and
moved into place in one step, or a catalog table through a staging table."""
from __future__ import annotations

import ctypes
import os
import shutil
import uuid

from pyspark.sql import DataFrame

from .. import _core
from .._core import InputError


def _table_sql(name: str) -> str:
    """A table name for SQL: each dotted part quoted."""
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


def write_table(data: DataFrame, name: str, mode: str, records: int) -> int:
    """Writes `data` into the catalog table `name` whole or not at all (see
    SparkResult.write_table); returns the rows written."""
    if mode not in ("create", "replace", "append"):
        raise ValueError(f"mode must be 'create', 'replace' or 'append', not {mode!r}")
    spark = data.sparkSession
    exists = spark.catalog.tableExists(name)
    if mode == "create" and exists:
        raise InputError(f"table {name}: it exists (mode create); use mode replace or append")
    if mode == "append" and not exists:
        raise InputError(f"table {name}: it does not exist (mode append)")
    tag = uuid.uuid4().hex[:12]
    prefix, _, base = name.rpartition(".")
    staging = f"{prefix + '.' if prefix else ''}{base}__deid_{tag}"
    aside = f"{prefix + '.' if prefix else ''}{base}__deid_old_{tag}"
    try:
        data.write.format("parquet").mode("errorifexists").saveAsTable(staging)
        rows = spark.table(staging).count()
        if rows != records:
            raise _core.InternalError(f"table {name}: Spark wrote {rows} rows for {records} input records; nothing "
                                      "was published")
        if mode == "append":
            spark.table(staging).write.insertInto(name)
        elif mode == "replace" and exists:
            spark.sql(f"ALTER TABLE {_table_sql(name)} RENAME TO {_table_sql(aside)}")
            spark.sql(f"ALTER TABLE {_table_sql(staging)} RENAME TO {_table_sql(name)}")
            spark.sql(f"DROP TABLE IF EXISTS {_table_sql(aside)}")
        else:
            spark.sql(f"ALTER TABLE {_table_sql(staging)} RENAME TO {_table_sql(name)}")
        return rows
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {_table_sql(staging)}")


_RENAME_EXCHANGE = 2


def _exchange(a: str, b: str) -> None:
    """Swaps two paths in one step (Linux renameat2 RENAME_EXCHANGE)."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd = -100
    if libc.renameat2(at_fdcwd, a.encode(), at_fdcwd, b.encode(), _RENAME_EXCHANGE) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"cannot replace {b} by {a}: {os.strerror(e)}")


def _local(path: str) -> str:
    if "://" in path and not path.startswith("file:"):
        raise InputError(f"{path}: deid.spark writes to a file system the driver sees (a local or shared "
                         "directory), not to a URL; write the DataFrame (SparkResult.data) there yourself")
    return path[len("file:"):] if path.startswith("file:") else path


def write_atomically(data: DataFrame, path: str, mode: str, format: str, records: int) -> int:
    """Writes `data` to the directory `path` whole or not at all (see
    SparkResult.write); returns the rows written."""
    if mode not in ("create", "replace"):
        raise ValueError(f"mode must be 'create' or 'replace', not {mode!r}")
    target = os.path.abspath(_local(path))
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise InputError(f"{path}: the directory {parent} does not exist")
    if mode == "create" and os.path.lexists(target):
        raise InputError(f"{path}: the output exists (mode create); use mode replace to replace it")
    tmp = os.path.join(parent, f".{os.path.basename(target)}.deid-{uuid.uuid4().hex}")
    try:
        data.write.format(format).mode("errorifexists").save("file://" + tmp)
        rows = data.sparkSession.read.format(format).load("file://" + tmp).count()
        if rows != records:
            raise _core.InternalError(f"{path}: Spark wrote {rows} rows for {records} input records; nothing "
                                      "was published")
        if os.path.lexists(target):
            if mode == "create":
                raise InputError(f"{path}: the output appeared while the job ran (mode create)")
            _exchange(tmp, target)  # tmp now holds the old output, removed below
        else:
            os.rename(tmp, target)
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
