# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The release as a Spark plan, and SparkResult, what anonymize returns."""
from __future__ import annotations

import json
import os
import uuid
from typing import Any, Dict, Optional, Tuple

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .. import _core
from ._commit import write_atomically, write_table
from ._common import _IDENTIFYING, _col, _fresh
from ._histogram import _Histogram
from ._identifiers import Identifiers


class SparkResult:
    """What deid.spark.anonymize found, and the release as a Spark plan.

    `result` is the JSON result of ``deid anonymize`` for the same job on
    the same rows (docs/result.md), as a dict; `data` the released table,
    a lazy DataFrame that Spark computes only when it is written or
    collected; `write()` writes it whole or not at all.
    """

    def __init__(self, df: DataFrame, run: "_core.Run", histogram: _Histogram, result: Dict[str, Any],
                 identifiers: Optional[Identifiers] = None) -> None:
        self._df = df
        self._run = run
        self._histogram = histogram
        self._identifiers = identifiers
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
        transformation was found): identifying columns dropped, or with an
        action their pseudonyms, masks or shifted dates (text, computed on
        the executors; an empty value as null), each quasi-identifier
        replaced by its generalization's label (text, an empty label as
        null), '*' in every quasi-identifier of a suppressed record, the
        other columns as they are. Its rows are the input's, one for one,
        in no particular order."""
        if not self.found:
            return None
        if self._data is None:
            self._data = _release(self._df, self._run, self._histogram, self._identifiers)
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


def _release(df: DataFrame, run: "_core.Run", histogram: _Histogram, identifiers: Optional[Identifiers]) -> DataFrame:
    """The release as a Spark plan: the counterpart of PostgreSQL's INSERT
    ... SELECT (docs/databases.md, "Pushdown"), with broadcast joins; the
    released identifiers by Arrow UDFs (_identifiers)."""
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
            # In place, from the input's values (a date shift also reads the
            # person column's, which the joins above leave as they are).
            value = identifiers.released(name) if identifiers else None
            if value is not None:
                selected.append(value.alias(name))
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
