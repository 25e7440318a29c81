# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid on Apache Spark: de-identify a DataFrame that lives on a cluster.

    from pyspark.sql import SparkSession
    import deid.spark

    spark = SparkSession.builder.getOrCreate()
    df = spark.read.parquet("survey.parquet")
    r = deid.spark.anonymize(df, "job.yaml")
    r.result["transformation"]      # the JSON result of `deid anonymize`
    r.data                          # the release: a lazy Spark DataFrame
    r.write("released.parquet")     # written aside, committed by rename

The work splits as in PostgreSQL's pushdown (docs/databases.md): Spark's
executors group the rows into the histogram the search needs (one row per
distinct combination of the quasi-identifying and sensitive values, with
its count, in order of first appearance); the histogram comes to the
driver as Arrow record batches into the engine's grouped path; the search
runs on the driver; and the release is a Spark plan that joins every row
with a broadcast map per quasi-identifier and the broadcast suppressed
classes. No row is ever collected to the driver. docs/spark.md is the
reference; ``python -m deid.spark JOB.yaml`` runs a job file.
"""
from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import time
import uuid
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from . import _core
from ._core import InputError, JobError
from ._job import load_job
from ._progress import Hooks

__all__ = ["anonymize", "SparkResult", "SPARK_SOURCE"]

#: The input's name in messages and in the result when the DataFrame has no files.
SPARK_SOURCE = "Spark DataFrame"

_QI, _SENSITIVE, _INSENSITIVE, _IDENTIFYING = "quasi-identifying", "sensitive", "insensitive", "identifying"


def _col(name: str) -> Column:
    """The column `name` exactly as written (dots and backticks are not syntax)."""
    return F.col("`" + name.replace("`", "``") + "`")


def _fresh(prefix: str, taken: Sequence[str]) -> str:
    """A column name starting with `prefix` that is none of `taken`."""
    name, i = prefix, 0
    while name in taken:
        i += 1
        name = f"{prefix}{i}"
    return name


def _roles(job: "_core.Job", names: Sequence[str]) -> List[Optional[str]]:
    """Each column's role, as the engine reads it (None: no role, which
    the engine reports)."""
    given = dict(job.attributes)
    return [given.get(n, job.default_role) for n in names]


def _order_key(df: DataFrame, order_by: Optional[str]) -> Tuple[Column, str]:
    """The row order that first appearance follows (docs/spark.md, "Row
    order"), as a column whose minimum per group orders the histogram, and
    its description for the result."""
    if order_by is not None:
        if order_by not in df.columns:
            raise JobError(f"order_by names '{order_by}', which is not a column of the DataFrame "
                           f"(its columns: {', '.join(df.columns[:20])})")
        return _col(order_by), f"column '{order_by}'"
    try:
        if not df.inputFiles():
            return F.monotonically_increasing_id(), "partitions"
        # A DataFrame read from files: the files by path, then the position
        # in the file (the split's start, then the row within the split:
        # monotonically_increasing_id grows along a partition's rows).
        key = F.struct(F.col("_metadata.file_path"), F.col("_metadata.file_block_start"),
                       F.monotonically_increasing_id())
        df.select(key).schema  # resolves the plan: raises when the DataFrame has no files
        return key, "files"
    except AnalysisException:
        return F.monotonically_increasing_id(), "partitions"


def _source_name(df: DataFrame) -> str:
    try:
        files = df.inputFiles()
    except Exception:  # noqa: BLE001 - a plan Spark cannot list files of
        files = []
    files = [f[len("file://"):] if f.startswith("file:///") else f for f in files]
    if len(files) == 1:
        return files[0]
    if files:
        return f"{SPARK_SOURCE} ({len(files)} files under {os.path.commonpath(files)})"
    return SPARK_SOURCE


def _arrow_batches(df: DataFrame) -> List[pa.RecordBatch]:
    """The DataFrame's rows collected to the driver as Arrow record batches
    (of the histogram only: its size is the number of distinct groups)."""
    collect = getattr(df, "_collect_as_arrow", None)
    if collect is not None:
        return collect()
    return df.toArrow().to_batches()


class _Histogram:
    """The histogram Spark computed, encoded into the engine's grouped
    Dataset, with the distinct values of each quasi-identifier (typed as
    Spark has them, for the release's maps)."""

    def __init__(self, df: DataFrame, job: "_core.Job", source: str, order_by: Optional[str]) -> None:
        names = list(df.columns)
        roles = _roles(job, names)
        self.names = names
        self.roles = roles
        self.grouped = [n for n, r in zip(names, roles) if r in (_QI, _SENSITIVE)]
        self.copied = [n for n, r in zip(names, roles) if r == _INSENSITIVE]
        count = _fresh("__deid_count", names)
        first = _fresh("__deid_first", names)
        key, self.order = _order_key(df, order_by)
        keyed = df.select(*[_col(n) for n in self.grouped], key.alias(first))
        hist = (keyed.groupBy(*[_col(n) for n in self.grouped])
                .agg(F.count(F.lit(1)).alias(count), F.min(_col(first)).alias(first))
                .orderBy(_col(first)).drop(first))
        t0 = time.monotonic()
        # The sorted histogram is kept on the executors and fetched one
        # range partition at a time, in order, so that the driver holds
        # one partition's Arrow batches beside the encoded histogram, not
        # all of them (docs/spark.md, "Memory").
        hist = hist.persist()
        try:
            parts = hist.rdd.getNumPartitions()
            first_batches = _arrow_batches(hist.where(F.spark_partition_id() == 0))
            schema = first_batches[0].schema if first_batches else hist.limit(0).toArrow().schema
            self.distinct: Dict[str, List[pa.Array]] = {n: [] for n in self.grouped}

            def stream():
                batches = first_batches
                for i in range(parts):
                    if i > 0:
                        batches = _arrow_batches(hist.where(F.spark_partition_id() == i))
                    while batches:
                        b = batches.pop(0)
                        for n in self.grouped:
                            self.distinct[n].append(pc.unique(b.column(n)))
                        yield b

            reader = pa.RecordBatchReader.from_batches(schema, stream())
            self.table = _core.encode_grouped_arrow_stream(reader.__arrow_c_stream__(), source, names, count)
        finally:
            hist.unpersist()
        self.group_ms = (time.monotonic() - t0) * 1000
        self.entries = self.table.rows
        if self.copied:
            self._formula_candidates(df)

    def _formula_candidates(self, df: DataFrame) -> None:
        """As pushdown's second query: the distinct values of the insensitive
        string columns that start as a formula would, which the engine sorts
        into those a spreadsheet would run (result warnings, escaping)."""
        strings = [n for n in self.copied if df.schema[n].dataType.typeName() == "string"]
        if not strings:
            return
        i, v = _fresh("__deid_i", self.names), _fresh("__deid_v", self.names)
        parts = [df.select(F.lit(k).alias(i), _col(n).alias(v)).where(_col(v).rlike("^[-=+@]"))
                 for k, n in enumerate(strings)]
        union = parts[0]
        for p in parts[1:]:
            union = union.unionByName(p)
        found = union.distinct().toArrow()
        for k, n in enumerate(strings):
            values = found.filter(pc.equal(found.column(i), k)).column(v).to_pylist()
            _core.add_formula_candidates(self.table, self.names.index(n), values)

    def values(self, name: str) -> pa.Array:
        """The distinct values of grouped column `name`, as Spark has them."""
        chunks = self.distinct[name]
        if len(chunks) > 1:
            self.distinct[name] = chunks = [pc.unique(pa.chunked_array(chunks))]
        return chunks[0]


class SparkResult:
    """What deid.spark.anonymize found, and the release as a Spark plan.

    `result` is the JSON result of ``deid anonymize`` for the same job on
    the same rows (docs/result.md), as a dict; `data` the released table,
    a lazy DataFrame that Spark computes only when it is written or
    collected; `write()` writes it whole or not at all.
    """

    def __init__(self, df: DataFrame, run: "_core.Run", histogram: _Histogram, result: Dict[str, Any]) -> None:
        self._df = df
        self._run = run
        self._histogram = histogram
        self.result = result
        self._data: Optional[DataFrame] = None

    @property
    def found(self) -> bool:
        """Whether a transformation satisfies the job (else nothing is released)."""
        return bool(self._run.found)

    @property
    def transformation(self) -> Optional[Dict[str, int]]:
        """The chosen level of each quasi-identifier."""
        return self.result.get("transformation")

    @property
    def information_loss(self) -> Optional[float]:
        return self.result.get("information_loss")

    @property
    def suppressed_records(self) -> int:
        return int(self.result.get("suppressed_records", 0))

    @property
    def records(self) -> int:
        """The input's records (the sum of the histogram's counts)."""
        return int(self._run.records)

    @property
    def data(self) -> Optional[DataFrame]:
        """The released table as a lazy Spark DataFrame (None when no
        transformation was found): identifying columns dropped, each
        quasi-identifier replaced by its generalization's label (text, an
        empty label as null), '*' in every quasi-identifier of a suppressed
        record, the other columns as they are. Its rows are the input's,
        one for one, in no particular order."""
        if not self.found:
            return None
        if self._data is None:
            self._data = _release(self._df, self._run, self._histogram)
        return self._data

    def summary(self) -> str:
        r = self.result
        if not self.found:
            return "deid.spark: no transformation satisfies the job"
        return (f"deid.spark: transformation {r.get('transformation')}, information loss "
                f"{r.get('information_loss')}, {r.get('suppressed_records')} of {self.records} records suppressed")

    def __repr__(self) -> str:
        return f"<SparkResult {self.summary()}>"

    def save_result(self, path: "str | os.PathLike[str]") -> None:
        """Writes `result` as ``deid anonymize`` writes output.result (whole or not at all)."""
        path = os.fspath(path)
        tmp = os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(json.dumps(self.result, indent=2, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def write(self, path: "str | os.PathLike[str]", mode: str = "create", format: str = "parquet") -> int:
        """Writes the release to `path` (a directory of `format` files, as
        Spark writes them) whole or not at all: Spark writes it beside the
        target, the rows written are counted against the input's records,
        and the directory replaces the target in one rename (docs/spark.md,
        "Writing"). mode: 'create' (the target must not exist) or 'replace'.
        A failed or killed job leaves the old output as it was. Returns the
        rows written; the result's files list the output."""
        if not self.found:
            raise ValueError("no transformation satisfies the job: nothing was released")
        rows = write_atomically(self.data, os.fspath(path), mode, format, self.records)
        self._written(os.fspath(path), rows)
        return rows

    def write_table(self, name: str, mode: str = "create") -> int:
        """Writes the release into the table `name` of the session's catalog
        (output.table) whole or not at all: Spark writes a staging table,
        its rows are counted against the input's records, and then mode
        'create' renames it to `name`, 'replace' renames the old table
        aside, the staging table in and drops the old one, 'append' inserts
        it in one Spark job (docs/spark.md, "Tables"). Returns the rows
        written."""
        if not self.found:
            raise ValueError("no transformation satisfies the job: nothing was released")
        rows = write_table(self.data, name, mode, self.records)
        self._written(f"spark table {name}", rows)
        return rows

    def _written(self, path: str, rows: int) -> None:
        files = [f for f in self.result.get("files", []) if f.get("role") != "output"]
        files.append({"role": "output", "path": path, "sha256": None, "bytes": 0, "pushdown": "spark", "rows": rows})
        self.result["files"] = files


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


def _release(df: DataFrame, run: "_core.Run", histogram: _Histogram) -> DataFrame:
    """The release as a Spark plan: the counterpart of PostgreSQL's INSERT
    ... SELECT (docs/databases.md, "Pushdown"), with broadcast joins."""
    spark = df.sparkSession
    names = list(run.names)
    roles = list(run.roles)
    qi_columns = list(run.qi_columns)
    taken = set(names)
    out = df
    generalized: Dict[str, Tuple[str, str]] = {}
    for q, c in enumerate(qi_columns):
        name = names[c]
        values = histogram.values(name)
        classes, labels = run.release_map(q, pa.table({name: values}).__arrow_c_stream__())
        v, k, g = (_fresh(f"__deid_{s}{q}", taken) for s in ("v", "c", "g"))
        taken.update((v, k, g))
        m = spark.createDataFrame(pa.table({v: values, k: pa.array(classes, pa.int32()),
                                            g: pa.array(labels, pa.string())}))
        out = out.join(F.broadcast(m), _col(name).eqNullSafe(_col(v)), "left")
        generalized[name] = (k, g)
    suppressed = run.suppressed_classes()
    flag = None
    if len(suppressed):
        cols = [_fresh(f"__deid_s{q}", taken) for q in range(len(qi_columns))]
        flag = _fresh("__deid_suppressed", taken)
        table = {c: pa.array(suppressed[:, q], pa.int32()) for q, c in enumerate(cols)}
        table[flag] = pa.array([True] * len(suppressed))
        s = spark.createDataFrame(pa.table(table))
        cond = None
        for q, c in enumerate(cols):
            e = _col(generalized[names[qi_columns[q]]][0]) == _col(c)
            cond = e if cond is None else cond & e
        out = out.join(F.broadcast(s), cond, "left")
    escape = bool(run.escape_formulas)
    selected = []
    for c, (name, role) in enumerate(zip(names, roles)):
        if role == _IDENTIFYING:
            continue
        if name in generalized:
            code, label = _col(generalized[name][0]), _col(generalized[name][1])
            # Every value is in its map, which comes from the histogram of
            # the same input: one that is not means the input changed
            # between the two jobs, and the write fails (nothing published).
            missing = F.raise_error(F.lit(f"attribute '{name}': a value that is not in the histogram the search "
                                          "ran on (the input changed between the two reads)"))
            value = (F.when(code.isNull(), missing).when(label == "", F.lit(None).cast("string"))
                     .otherwise(label))
            if flag is not None:
                value = F.when(_col(flag).isNotNull(), F.lit("*")).otherwise(value)
            selected.append(value.alias(name))
            continue
        value = _col(name)
        escaped = run.formula_values(c) if escape and df.schema[name].dataType.typeName() == "string" else []
        if escaped:
            value = F.when(value.isin(escaped), F.concat(F.lit("'"), value)).otherwise(value)
        selected.append(value.alias(name))
    return out.select(*selected)


# --- writing whole or not at all --------------------------------------------------

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


# --- the run ----------------------------------------------------------------------

def anonymize(df: DataFrame, job: Any, *, hierarchies: Optional[Mapping[str, Any]] = None,
              order_by: Optional[str] = None, threads: Optional[int] = None, progress: Any = None) -> SparkResult:
    """Finds the transformation that satisfies the job's privacy models with
    the least information loss on the rows of `df`, and returns the release
    as a Spark plan.

    df: a Spark DataFrame (its values read as the Arrow path reads them:
        strings as they are, numbers, booleans and dates as text,
        docs/python.md "Arrow tables"; null is the empty value).
    job: as for deid.anonymize: a dict in the job-file schema, YAML text or
        the path of a job file; its input and output are not read or written.
    hierarchies: per attribute, a hierarchy that replaces the job's (as for
        deid.anonymize).
    order_by: a column whose order is the rows' order, for first
        appearance (codes, tie-breaks); it should be a key. Default: the
        files' order (by path, then position) for a DataFrame read from
        files, else the order of Spark's partitions (docs/spark.md, "Row order").
    threads, progress: as for deid.anonymize (the search on the driver).

    Spark runs one job here, the histogram (and one more for the formula
    check of insensitive text columns); the release runs when `.data` is
    written or collected. What needs the records one by one (a research
    subset, differential privacy's sample, microaggregation, the
    kl-divergence quality model) is a JobError, as with pushdown.
    """
    from . import _threads
    n = _threads(threads)
    if not isinstance(df, DataFrame):
        raise TypeError(f"deid.spark.anonymize takes a Spark DataFrame, not {type(df).__name__}")
    parsed = load_job(job, True, hierarchies)
    if not parsed.has_privacy:
        raise JobError("the job has no privacy model, only a 'cell-suppression' section: run 'deid suppress'")
    source = _source_name(df)
    parsed.input_path = source
    t0 = time.monotonic()
    histogram = _Histogram(df, parsed, source, order_by)
    hooks = Hooks(progress)
    try:
        run = _core.anonymize(parsed, histogram.table, n, hooks.callback(), True)
    except JobError as e:
        # The engine's refusal of a grouped input names PostgreSQL's switch;
        # on Spark there is no switch to set.
        text = str(e)
        at = text.find("with a PostgreSQL input set pushdown: false")
        if at >= 0:
            raise JobError(text[:at] + "deid.spark groups the rows on the cluster; run this job on the rows "
                           "(deid.anonymize) instead") from None
        raise
    finally:
        hooks.close()
    result = json.loads(run.result_json())
    times = result.get("time_ms", {})
    times["read"] = round(histogram.group_ms, 3)
    times["total"] = round((time.monotonic() - t0) * 1000, 3)
    result["time_ms"] = times
    if "skipped" in result.get("utility", {}):
        result["utility"]["skipped"] = ("the input was grouped by Spark: the analysis needs the rows; run "
                                        "deid utility on the release exported to CSV")
    result["files"] = [{"role": "input", "path": source, "sha256": None, "bytes": 0, "pushdown": "histogram",
                        "row_order": histogram.order}]
    return SparkResult(df, run, histogram, result)


# --- python -m deid.spark JOB.yaml --------------------------------------------------

def _read_input(spark: SparkSession, path: str, delimiter: Optional[str]) -> DataFrame:
    """A Parquet file or directory (by its name or its magic bytes), else CSV
    read as text (every value as the file has it)."""
    local = _local(path)
    parquet = local.endswith(".parquet") or os.path.isdir(local)
    if not parquet and os.path.isfile(local):
        with open(local, "rb") as f:
            parquet = f.read(4) == b"PAR1"
    if parquet:
        return spark.read.parquet(path)
    return (spark.read.option("header", True).option("sep", delimiter or ",").option("quote", '"')
            .option("escape", '"').option("multiLine", True).option("mode", "FAILFAST")
            .option("nullValue", "\u0000").option("emptyValue", "").csv(path))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m deid.spark JOB.yaml [options]`` (or spark-submit with
    this module): the job's input read by Spark, grouped there, searched
    here, and the release written by Spark (docs/spark.md). Exit codes as
    ``deid anonymize``: 0 released, 1 no transformation, 2 a job or input
    error, 3 another failure."""
    import argparse
    import sys
    p = argparse.ArgumentParser(prog="python -m deid.spark",
                                description="De-identify a table with Spark: deid anonymize's job, grouped and "
                                            "released by Spark, searched on the driver (docs/spark.md).")
    p.add_argument("job", help="the job file (docs/job-file.md)")
    p.add_argument("--input", help="the input: a Parquet file or directory, or a CSV file (default: the job's "
                                   "input.path)")
    p.add_argument("--output", help="the released table: a Parquet directory, written aside and renamed into "
                                    "place")
    p.add_argument("--mode", choices=["create", "replace"], default="create",
                   help="create (default): the output must not exist; replace: replaces it in one rename")
    p.add_argument("--result", help="the JSON result (default: the job's output.result, if any)")
    p.add_argument("--order-by", help="a key column whose order is the rows' order (default: the files' order)")
    p.add_argument("--master", help="Spark's master URL (default: spark-submit's, or local[*])")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable), as spark-submit's --conf")
    p.add_argument("--threads", type=int, help="threads of the search on the driver (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on standard error")
    args = p.parse_args(argv)

    def fail(code: int, message: str) -> int:
        print(f"deid.spark: {message}", file=sys.stderr)
        return code

    try:
        job = load_job(args.job, args.input is not None)
        source = args.input or job.input_path
        table = None if args.input else (job.input_table or None)
        if not (source or table) or job.input_postgres:
            return fail(2, f"{args.job}: the job's input must be a file (input.path), a Spark table (input.table) "
                           "or given with --input")
        if job.output_path and not job.output_parquet and not args.output:
            return fail(2, f"{args.job}: output.path names a CSV file; deid.spark writes Parquet: give "
                           "output.parquet, --output DIR or output.table")
        out_table = None if args.output else (job.output_table or None)
        if not args.output and job.output_parquet:
            args.output = job.output_path
        builder = SparkSession.builder.appName("deid")
        if args.master:
            builder = builder.master(args.master)
        for setting in args.conf:
            key, eq, value = setting.partition("=")
            if not eq:
                return fail(2, f"--conf {setting}: expected KEY=VALUE")
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        if out_table:
            exists = spark.catalog.tableExists(out_table)
            if job.output_mode == "create" and exists:
                return fail(2, f"table {out_table}: it exists (output.mode create); use replace or append")
            if job.output_mode == "append" and not exists:
                return fail(2, f"table {out_table}: it does not exist (output.mode append)")
        df = spark.table(table) if table else _read_input(spark, source, job.input_delimiter)
        if not args.quiet:
            print(f"deid.spark: grouping {table or source} on Spark ({spark.sparkContext.master})", file=sys.stderr)
        r = anonymize(df, args.job, order_by=args.order_by, threads=args.threads,
                      progress=None if args.quiet else True)
        if not args.quiet:
            print(r.summary(), file=sys.stderr)
        if r.found and args.output:
            if not args.quiet:
                print(f"deid.spark: writing {args.output}", file=sys.stderr)
            r.write(args.output, mode=args.mode)
        elif r.found and out_table:
            if not args.quiet:
                print(f"deid.spark: writing table {out_table}", file=sys.stderr)
            r.write_table(out_table, mode=job.output_mode)
        result = args.result or job.output_result
        if result:
            r.save_result(result)
        return 0 if r.found else 1
    except (JobError, InputError, ValueError) as e:
        return fail(2, str(e))
    except AnalysisException as e:
        return fail(2, str(e).splitlines()[0])
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except Exception as e:  # noqa: BLE001 - the CLI's exit code 3
        return fail(3, f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    raise SystemExit(main())
