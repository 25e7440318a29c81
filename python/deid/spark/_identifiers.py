# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Released identifiers on Spark (docs/spark.md, "Identifiers"): pseudonyms,
masks and date shifts computed on the executors by the engine's own code,
through the binding (deid._core.IdentifierActions) in Arrow UDFs, so that
every value is the one `deid anonymize` writes; and the checks the command
makes before the search (a date that does not parse, a date without a
person, pseudonyms that collide), with the counts the result reports, made
by one Spark job.

The driver reads the secret (load_secret, as the command does). The
executors get it in a broadcast: the IdentifierActions object, pickled
with the secret's bytes, as Spark ships every broadcast (docs/spark.md,
"The secret").
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .. import _core
from .._core import InputError, JobError
from ._common import _col, _fresh

_PSEUDONYM, _DATE_SHIFT = "pseudonym", "date-shift"


def _arrow_udf() -> Any:
    udf = getattr(F, "arrow_udf", None)
    if udf is None:
        raise JobError("the identifiers' actions (pseudonym, mask, date-shift) run on Spark's executors in Arrow UDFs, "
                       "which need PySpark 4.1 or later (pyspark.sql.functions.arrow_udf); upgrade PySpark or run "
                       "the job with deid anonymize")
    return udf


def _stream(names: List[str], arrays: Tuple[pa.Array, ...]) -> Any:
    """The batch as the Arrow C stream the binding reads (one column per name)."""
    return pa.table(dict(zip(names, arrays))).__arrow_c_stream__()


class Identifiers:
    """The job's released identifying columns on `df`: made on the driver
    (which reads the secret), they give each column's released values as a
    Spark expression, and check() runs the command's checks and counts."""

    def __init__(self, df: DataFrame, job: "_core.Job", source: str, order_by: Optional[str]) -> None:
        """`order_by`: the column that names rows in messages (not an
        identifying one), or None."""
        if job.output_linkage:
            raise JobError("output.linkage: deid.spark does not write the linkage table (each value beside its "
                           "pseudonym, for the custodian); write it with deid anonymize on the rows, or leave "
                           "output.linkage out")
        self._udf = _arrow_udf()
        self.actions = _core.IdentifierActions(job, source)
        self.columns: List[Tuple[str, str, int]] = list(self.actions.columns)
        self.person: str = self.actions.person
        self._df = df
        self._source = source
        self._order_by = order_by
        self._broadcast: Any = None

    def _inputs(self, name: str, action: str) -> List[str]:
        """The columns the values of `name` are computed from: the column,
        and for a date shift the person column."""
        return [name] if action != _DATE_SHIFT or self.person == name else [name, self.person]

    def _shipped(self) -> Any:
        """The broadcast that carries the actions (and the secret) to the executors."""
        if self._broadcast is None:
            self._broadcast = self._df.sparkSession.sparkContext.broadcast(self.actions)
        return self._broadcast

    def _expression(self, name: str, action: str, check: bool) -> Column:
        """A UDF of the column (and the person's) that gives its released
        value per row, or with `check` the struct check() counts."""
        shipped = self._shipped()
        inputs = self._inputs(name, action)
        if check:
            kind = "text string, released string, formula boolean, error string"

            def checked(*arrays: pa.Array) -> pa.Array:
                texts, released, formulas, error = shipped.value.check(name, _stream(inputs, arrays))
                errors: List[Optional[str]] = [None] * len(texts)
                if error is not None:
                    errors[error[0]] = error[1]
                return pa.StructArray.from_arrays(
                    [pa.array(texts, pa.string()), pa.array(released, pa.string()), pa.array(formulas, pa.bool_()),
                     pa.array(errors, pa.string())], names=["text", "released", "formula", "error"])
            f = checked
        else:
            kind = "string"

            def released(*arrays: pa.Array) -> pa.Array:
                # An empty released value is null, as an empty label is.
                values = shipped.value.released(name, _stream(inputs, arrays))
                return pa.array([v if v else None for v in values], pa.string())
            f = released
        # arrow_udf reads the function's kind from its type hints.
        if len(inputs) == 1:
            def one(a: pa.Array) -> pa.Array:
                return f(a)
            g: Any = one
        else:
            def two(a: pa.Array, b: pa.Array) -> pa.Array:
                return f(a, b)
            g = two
        return self._udf(g, kind)(*[_col(n) for n in inputs])

    def released(self, name: str) -> Optional[Column]:
        """The released values of column `name` (None: not released)."""
        for n, action, _ in self.columns:
            if n == name:
                return self._expression(n, action, False)
        return None

    def check(self, order: Column) -> List[Tuple[str, int, int, str]]:
        """The command's checks of the released columns (a date that does not
        parse, a date whose person is empty or that moves out of the years 1
        to 9999: InputError naming the column and the value; two values of
        a column with one pseudonym: InputError), in one Spark job, and what
        the result counts of each column: (name, distinct values, values
        released as formulas, the first of them) in the job's order, for
        _core.anonymize. `order`: the rows' order (the histogram's), which
        decides the first error and the first formula. Columns the
        DataFrame lacks are left to the engine, which names them."""
        df = self._df
        needed = {n for name, action, _ in self.columns for n in self._inputs(name, action)}
        if not needed <= set(df.columns):
            return [(name, 0, 0, "") for name, _, _ in self.columns]
        taken = list(df.columns)
        k, s, key = (_fresh(f"__deid_{x}", taken) for x in ("k", "s", "key"))
        entries = [F.struct(F.lit(i).alias(k), self._expression(name, action, True).alias(s))
                   for i, (name, action, _) in enumerate(self.columns)]
        long = (df.select(F.explode(F.array(*entries)).alias("e"), order.alias(key))
                .select(F.col(f"e.{k}").alias(k), F.col(f"e.{s}.*"), _col(key)))
        pseudonyms = [i for i, (_, action, _) in enumerate(self.columns) if action == _PSEUDONYM]
        # Per column, one group per value: its text, or for a pseudonym the
        # pseudonym, whose group then holds two texts when two values collide.
        group = F.when(_col(k).isin(pseudonyms), _col("released")).otherwise(_col("text")) if pseudonyms \
            else _col("text")
        failed = F.when(_col("error").isNotNull(), _col(key))
        groups = (long.groupBy(_col(k), group.alias("g"))
                  .agg(F.min("text").alias("lo"), F.max("text").alias("hi"), F.min_by(_col(key), _col("text"))
                       .alias("lo_key"), F.max_by(_col(key), _col("text")).alias("hi_key"),
                       F.min(_col(key)).alias("first"), F.min("released").alias("released"),
                       F.max(_col("formula").cast("int")).alias("formula"),
                       F.min(failed).alias("error_key"), F.min_by(_col("error"), failed).alias("error")))
        collided = F.when(_col("lo") != _col("hi"), _col("first"))
        formula = F.when(_col("formula") == 1, _col("first"))
        rows = (groups.groupBy(_col(k))
                .agg(F.count(F.lit(1)).alias("distinct"),
                     F.min_by(F.struct("g", "lo_key", "hi_key"), collided).alias("collision"),
                     F.sum("formula").alias("formulas"), F.min_by("released", formula).alias("example"),
                     F.min_by("error", _col("error_key")).alias("error"),
                     F.min("error_key").alias("error_key"))
                .collect())
        by_column: Dict[int, Any] = {r[k]: r for r in rows}
        counted = []
        for i, (name, action, length) in enumerate(self.columns):
            r = by_column.get(i)
            if r is None:  # an empty DataFrame
                counted.append((name, 0, 0, ""))
                continue
            if r["error"] is not None:
                raise InputError(r["error"] + self._at([r["error_key"]]))
            if r["collision"] is not None:
                c = r["collision"]
                raise InputError(f"{self._source} (column '{name}'): two values of '{name}' have the same "
                                 f"pseudonym {c['g']}{self._at([c['lo_key'], c['hi_key']])}: give the pseudonyms "
                                 f"more digits (length, now {length}) so that none collide")
            counted.append((name, int(r["distinct"]), int(r["formulas"] or 0), r["example"] or ""))
        return counted

    def _at(self, keys: List[Any]) -> str:
        """Where rows are, for a message: by the values of the order_by
        column (not an identifying one), as the rows have no line numbers;
        else nothing."""
        if self._order_by is None or any(v is None for v in keys):
            return ""
        if len(keys) == 1:
            return f" (the row with {self._order_by} '{keys[0]}')"
        return f" (the rows with {self._order_by} '{keys[0]}' and '{keys[1]}')"
