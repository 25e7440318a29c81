# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.spark.verify without the rows on the driver: the input and output
rows joined by the key on Spark and grouped by the values the verifier
needs, each group sent once with its count (docs/spark.md, "Verify")."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _core
from .._frame import ArrowSource
from ._common import _IDENTIFYING, _QI, _SENSITIVE, _col, _fresh, _roles
from ._histogram import InOrder

# Characters the report and the result escape (checks.h): a value holding
# one may be written differently from itself, so it stays a candidate.
_ESCAPED = "&<>\"'\\"


def _text(c: Column) -> Column:
    return c.cast(T.StringType())


def write_grouped(job: "_core.Job", input: DataFrame, output: DataFrame, key: str, d: str,
                  out_delimiter: str) -> Tuple[str, str, str, str]:
    """Writes, in the directory `d`, the grouped pairs: input.csv and
    output.csv (the columns of each table, the group's values rendered by
    the Arrow path as the row path renders them), weights.txt (the rows
    each group stands for) and keys.txt (its smallest key, which names it in
    failed checks); groups in the order of those keys. A column compared row
    by row (neither quasi-identifying nor sensitive) is sent only where the
    two differ (as Spark's text), empty in both where they agree; an
    identifying column of the input is sent empty (its values are checked
    on Spark: identifier_values_line)."""
    roles = dict(zip(input.columns, _roles(job, input.columns)))
    kept = {c for c, r in roles.items() if r in (_QI, _SENSITIVE)}
    i_names = [f"__deid_i{n}" for n in range(len(input.columns))]
    o_names = [f"__deid_o{n}" for n in range(len(output.columns))]
    k = _fresh("__deid_k", i_names + o_names)
    weight, first = _fresh("__deid_w", i_names + o_names + [k]), _fresh("__deid_f", i_names + o_names + [k])
    left = input.select([_col(c).alias(n) for c, n in zip(input.columns, i_names)] + [_text(_col(key)).alias(k)])
    right = output.select([_col(c).alias(n) for c, n in zip(output.columns, o_names)] +
                          [_text(_col(key)).alias(k + "_o")])
    joined = left.join(right, left[k] == right[k + "_o"], "inner")
    out_index = {c: n for c, n in zip(output.columns, o_names)}
    i_cols: List[Column] = []
    o_cols: Dict[str, Column] = {n: _col(n) for n in o_names}
    for c, n in zip(input.columns, i_names):
        if roles.get(c) == _IDENTIFYING:
            i_cols.append(F.lit(None).cast(input.schema[c].dataType).alias(n))
        elif c in kept or c not in out_index:
            i_cols.append(_col(n))
        else:
            o = out_index[c]
            same = _text(_col(n)).eqNullSafe(_text(_col(o)))
            i_cols.append(F.when(same, F.lit(None)).otherwise(_col(n)).alias(n))
            o_cols[o] = F.when(same, F.lit(None)).otherwise(_col(o)).alias(o)
    grouped = (joined.select(i_cols + list(o_cols.values()) + [_col(k)])
               .groupBy(i_names + o_names).agg(F.count(F.lit(1)).alias(weight), F.min(_col(k)).alias(first)))
    tables: Tuple[List[pa.RecordBatch], List[pa.RecordBatch]] = ([], [])
    paths = tuple(os.path.join(d, f) for f in ("input.csv", "output.csv", "weights.txt", "keys.txt"))
    with InOrder(grouped, _col(first).asc_nulls_first()) as parts, \
            open(paths[2], "w", encoding="utf-8") as weights, open(paths[3], "w", encoding="utf-8") as keys:
        for b in parts.batches():
            for w in b.column(weight).to_pylist():
                weights.write(f"{w}\n")
            for v in b.column(first).to_pylist():
                keys.write(("" if v is None else str(v)).replace("\n", " ") + "\n")
            tables[0].append(pa.RecordBatch.from_arrays([b.column(n) for n in i_names], names=list(input.columns)))
            tables[1].append(pa.RecordBatch.from_arrays([b.column(n) for n in o_names], names=list(output.columns)))
    for batches, frame, path, delimiter in ((tables[0], input, paths[0], ","), (tables[1], output, paths[1],
                                                                                out_delimiter)):
        schema = batches[0].schema if batches else pa.schema([(c, pa.string()) for c in frame.columns])
        ArrowSource(pa.Table.from_batches(batches, schema)).write_csv(path, delimiter)
    return paths  # type: ignore[return-value]


def identifying_values(job: "_core.Job", input: DataFrame) -> Optional[DataFrame]:
    """(src, v): the input's values of its identifying columns, non-empty,
    but those the input also holds in a column it releases (such a value
    names nobody: "F" in a name column and in sex), as the verifier
    gathers them (cli/verify_mapping.cc, identifying_values)."""
    roles = _roles(job, input.columns)
    ident = [c for c, r in zip(input.columns, roles) if r == _IDENTIFYING]
    if not ident:
        return None
    src, v = "__deid_src", "__deid_v"
    values = None
    for c in ident:
        part = input.select(F.lit(c).alias(src), _text(_col(c)).alias(v))
        values = part if values is None else values.unionByName(part)
    values = values.where(_col(v).isNotNull() & (_col(v) != "")).distinct()
    others = [c for c in input.columns if c not in ident]
    if others:
        released = None
        for c in others:
            part = input.select(_text(_col(c)).alias(v))
            released = part if released is None else released.unionByName(part)
        values = values.join(released.distinct(), v, "left_anti")
    return values


def identifier_values_line(values: Optional[DataFrame], output: DataFrame, key: str) -> Dict[str, Any]:
    """The verifier's "identifier values" check computed by Spark: no input
    value of an identifying column (`values`, identifying_values's) is a
    cell of any output row, in a column other than its own."""
    name = "identifier values"
    detail = "no input value of an identifying column in any row of the output (a date: in its own row)"
    if values is None:
        return {"check": name, "status": "ok", "detail": detail}
    src, v, k, col = "__deid_src", "__deid_v", "__deid_k", "__deid_col"
    cells = None
    for c in output.columns:
        part = output.select(_text(_col(key)).alias(k), F.lit(c).alias(col), _text(_col(c)).alias(v))
        cells = part if cells is None else cells.unionByName(part)
    hits = cells.join(values, v).where(_col(col) != _col(src))
    found = (hits.groupBy(src).agg(F.countDistinct(_col(k)).alias("rows"), F.min(F.struct(_col(k), _col(col)))
                                   .alias("first")).orderBy(src).collect())
    if not found:
        return {"check": name, "status": "ok", "detail": detail}
    r = found[0]
    return {"check": name, "status": "FAILED", "key": r["first"][0],
            "detail": f"the input's value of identifying column '{r[src]}' is in {r['rows']} output row(s); first "
                      f"at the row with {key} {r['first'][0]!r}, column '{r['first'][1]}'"}


def text_lines(values: Optional[DataFrame], texts: Sequence[Tuple[str, str]]) -> List[Dict[str, Any]]:
    """The verifier's lines on the report and the result (`texts`: what,
    text): Spark keeps the identifying values that occur in the text (or
    hold a character it escapes), and the verifier's own check judges
    those (checks.h, check_text_for_identifiers)."""
    lines = []
    for what, text in texts:
        candidates: List[Tuple[str, str]] = []
        if values is not None:
            hit = F.instr(F.lit(text), _col("__deid_v")) > 0
            for ch in _ESCAPED:
                hit = hit | (F.instr(_col("__deid_v"), F.lit(ch)) > 0)
            candidates = [(r[0], r[1]) for r in values.where(hit).orderBy("__deid_src", "__deid_v").collect()]
        lines.append(_core.check_text_for_identifiers(what, text, candidates))
    return lines


def stripped_result(claims: Dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in claims.items() if k != "files"})
