# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Writing a release whole or not at all: a directory written aside and
moved into place in one step, or a catalog table through a staging table."""
from __future__ import annotations

import ctypes
import fcntl
import re
import os
import shutil
import socket
import uuid
from typing import Optional

from py4j.protocol import Py4JJavaError
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession

from .. import _core
from .._core import InputError
from ._hadoopfs import HadoopFs, atomic_rename_schemes, scheme


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
    if mode == "replace" and exists:
        location = _relocatable(data, name)
        if location is not None:
            return _replace_location(data, name, location, records)
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


def _relocatable(data: DataFrame, name: str) -> Optional[str]:
    """The location of table `name` when mode replace can switch it to new
    files in one catalog operation (ALTER TABLE SET LOCATION): a managed,
    unpartitioned Parquet table of the release's columns and types. None
    otherwise (a view, an external or partitioned table, another format or
    schema), which is replaced by two renames."""
    spark = data.sparkSession
    try:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED {_table_sql(name)}").collect()
    except AnalysisException:
        return None
    info = {r[0]: r[1] for r in rows}
    if (info.get("Type") != "MANAGED" or str(info.get("Provider", "")).lower() != "parquet" or not info.get("Location")
            or "# Partition Information" in info):
        return None
    fields = lambda schema: [(f.name, f.dataType) for f in schema.fields]  # noqa: E731
    if fields(spark.table(name).schema) != fields(data.schema):
        return None
    return str(info["Location"])


def _hadoop_delete(spark: SparkSession, location: str) -> None:
    """Removes a directory through Hadoop's file system (any store Spark writes)."""
    fs = HadoopFs(spark, location)
    fs.delete(fs.root)


def _replace_location(data: DataFrame, name: str, location: str, records: int) -> int:
    """Mode replace in one catalog operation: the release is written as
    Parquet files beside the table's directory (LOCATION__deid_<random>), its
    rows counted, and the table switched to them by ALTER TABLE SET
    LOCATION; the old directory is removed afterwards. Until the switch the
    table is the old one; after it, the new one."""
    spark = data.sparkSession
    fresh = f"{location.rstrip('/')}__deid_{uuid.uuid4().hex[:12]}"
    switched = False
    try:
        data.write.format("parquet").mode("errorifexists").save(fresh)
        rows = spark.read.parquet(fresh).count()
        if rows != records:
            raise _core.InternalError(f"table {name}: Spark wrote {rows} rows for {records} input records; nothing "
                                      "was published")
        spark.sql(f"ALTER TABLE {_table_sql(name)} SET LOCATION '{_sql_string(fresh)}'")
        switched = True
        return rows
    finally:
        try:
            _hadoop_delete(spark, location if switched else fresh)
        except Exception:  # noqa: BLE001 - after the switch the table is replaced; a directory is left over
            if not switched:
                raise


def _sql_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


_RENAME_EXCHANGE = 2


def _exchange(a: str, b: str) -> None:
    """Swaps two paths in one step (Linux renameat2 RENAME_EXCHANGE)."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd = -100
    if libc.renameat2(at_fdcwd, a.encode(), at_fdcwd, b.encode(), _RENAME_EXCHANGE) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"cannot replace {b} by {a}: {os.strerror(e)}")


def _local(path: str) -> Optional[str]:
    """The local path of `path`, or None when it is a URL of another file
    system (hdfs://, s3a://, ...)."""
    kind = scheme(path)
    if kind is None:
        return path
    return path[len("file:"):] if kind == "file" else None


def write_atomically(data: DataFrame, path: str, mode: str, format: str, records: int) -> int:
    """Writes `data` to the directory `path` whole or not at all (see
    SparkResult.write); returns the rows written.

    Spark writes into `.NAME.deid-<random>` beside the target, whose lock
    file `.NAME.deid-<random>.lock` this process holds (flock) while the
    directory exists; a directory whose lock is free belongs to a run that
    died (killed with SIGKILL) and is removed by the next write of the same
    output."""
    if mode not in ("create", "replace"):
        raise ValueError(f"mode must be 'create' or 'replace', not {mode!r}")
    local = _local(path)
    if local is None:
        return _write_hadoop(data, path, mode, format, records)
    target = os.path.abspath(local)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise InputError(f"{path}: the directory {parent} does not exist")
    if mode == "create" and os.path.lexists(target):
        raise InputError(f"{path}: the output exists (mode create); use mode replace to replace it")
    tmp = os.path.join(parent, f".{os.path.basename(target)}.deid-{uuid.uuid4().hex}")
    lock = _hold(tmp + ".lock")
    try:
        remove_stale(target)
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
        _release_lock(tmp + ".lock", lock)


def _write_hadoop(data: DataFrame, path: str, mode: str, format: str, records: int) -> int:
    """write_atomically on a Hadoop file system whose directory rename is
    atomic (ATOMIC_RENAME): Spark writes `.NAME.deid-<random>` beside the
    target, the rows are counted, and a FileContext rename (which fails if
    the target appeared) moves it into place. Mode replace renames the old
    output aside first (`.NAME.deid-<random>.old`, removed after), so for an
    instant the target does not exist; never is it partial."""
    spark = data.sparkSession
    kind = scheme(path)
    if kind not in atomic_rename_schemes(spark):
        raise InputError(f"{path}: {kind}:// has no atomic rename of a directory (an object store copies), so deid "
                         "cannot publish a release there whole or not at all; write into a table (output.table) "
                         "or add the scheme to spark.deid.atomicRenameSchemes if its rename is atomic "
                         "(docs/spark.md, \"Writing\")")
    fs = HadoopFs(spark, path)
    target = fs.root
    parent = target.getParent()
    if parent is None or not fs.is_dir(parent):
        raise InputError(f"{path}: the directory {parent} does not exist")
    if mode == "create" and fs.exists(target):
        raise InputError(f"{path}: the output exists (mode create); use mode replace to replace it")
    tag = uuid.uuid4().hex
    tmp = fs.path(parent.toString(), f".{target.getName()}.deid-{tag}")
    old = fs.path(parent.toString(), f".{target.getName()}.deid-{tag}.old")
    try:
        data.write.format(format).mode("errorifexists").save(tmp.toString())
        rows = spark.read.format(format).load(tmp.toString()).count()
        if rows != records:
            raise _core.InternalError(f"{path}: Spark wrote {rows} rows for {records} input records; nothing "
                                      "was published")
        if fs.exists(target):
            if mode == "create":
                raise InputError(f"{path}: the output appeared while the job ran (mode create)")
            fs.rename(target, old)
            try:
                fs.rename(tmp, target)
            except BaseException:
                fs.rename(old, target)  # the old output back in place
                raise
            fs.delete(old)
        else:
            try:
                fs.rename(tmp, target)
            except Py4JJavaError as e:
                if "FileAlreadyExistsException" in str(e.java_exception):
                    raise InputError(f"{path}: the output appeared while the job ran (mode create)") from None
                raise
        return rows
    finally:
        if fs.exists(tmp):
            fs.delete(tmp)


def _hold(lock: str) -> int:
    """Creates the lock file `lock` already locked (flock, exclusive): it is
    written and locked under a name of its own, then renamed, so that no
    other run ever sees it unlocked while its owner lives. Returns its
    descriptor (the lock goes with the process)."""
    pending = f"{lock}.{os.getpid()}"
    fd = os.open(pending, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, f"deid.spark write: host {socket.gethostname()} pid {os.getpid()}\n".encode())
        os.rename(pending, lock)
    except BaseException:
        os.close(fd)
        os.unlink(pending)
        raise
    return fd


def _release_lock(lock: str, fd: int) -> None:
    try:
        os.unlink(lock)
    except FileNotFoundError:
        pass
    os.close(fd)


def remove_stale(target: str) -> "list[str]":
    """Removes the temporary directories of writes of `target` whose owner
    died: those whose lock file (.NAME.deid-<hex>.lock) can be locked. A
    directory without a lock file, or whose lock is held, is left alone.
    Returns the directories removed."""
    local = _local(os.fspath(target))
    if local is None:
        raise InputError(f"{target}: remove_stale takes a local path; on another file system remove "
                         ".NAME.deid-* directories with its own tools (docs/spark.md, \"Writing\")")
    parent, base = os.path.split(os.path.abspath(local))
    pattern = re.compile(r"\." + re.escape(base) + r"\.deid-[0-9a-f]{32}\.lock")
    removed = []
    for entry in os.listdir(parent):
        if not pattern.fullmatch(entry):
            continue
        lock = os.path.join(parent, entry)
        try:
            fd = os.open(lock, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # held: its run is alive (or the file system has no locks)
            stale = lock[:-len(".lock")]
            shutil.rmtree(stale, ignore_errors=True)
            if not os.path.lexists(stale):
                try:
                    os.unlink(lock)
                except FileNotFoundError:
                    pass  # another run removed it first
                removed.append(stale)
        finally:
            os.close(fd)
    return removed
