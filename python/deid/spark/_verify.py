# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.spark.verify: the checks of ``deid verify`` on a release computed
by Spark, its rows paired with the input's by a key column the user names."""
from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Any, Dict, List, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _core
from .._core import JobError
from .._frame import ArrowSource
from .._job import load_job
from ._common import _col, _fresh, _source_name
from ._histogram import InOrder
from ._verify_grouped import identifier_values_line, identifying_values, stripped_result, text_lines, write_grouped


def verify(job: Any, *, input: DataFrame, output: DataFrame, key: str,
           result: "Optional[Dict[str, Any] | str | os.PathLike[str]]" = None,
           grouped: Optional[bool] = None) -> Dict[str, Any]:
    """Checks a release computed by Spark against its input with the
    independent verifier of ``deid verify`` (docs/verify.md), the rows of
    the two DataFrames paired by the column `key`.

    input: the DataFrame the release was computed from; output: the
    released DataFrame (SparkResult.data, or the table it was written to,
    read back); key: a column of both whose value names a record, once in
    each (it is checked as a column of the job like any other: the release
    must keep it, so a key the job marks identifying fails 'identifying
    columns'); result: the JSON result (SparkResult.result, or the path of
    the file SparkResult.save_result wrote), whose counts and levels are
    checked too (optional).

    Spark checks the key (`key` line: every value once in each table) and
    joins the two tables by it. grouped (the default, unless the job
    releases identifiers): the pairs of rows are grouped on Spark by the
    values the verifier needs and each group comes to the driver once with
    its count, so the driver holds about the release's histogram, never its
    rows; the identifying values are looked for on Spark. grouped=False:
    both tables, sorted by the key, come to the driver an Arrow batch at a
    time into CSV files in a temporary directory (docs/spark.md,
    "Verify"). Returns the table of checks as ``deid verify --json`` writes
    it: {"output", "valid", "checks": [{"check", "status", "detail",
    ...}]}; a failed check names its record by its "key". A failed check is
    not an exception: see "valid".
    """
    for name, df in (("input", input), ("output", output)):
        if not isinstance(df, DataFrame):
            raise TypeError(f"deid.spark.verify: {name} must be a Spark DataFrame, not {type(df).__name__}")
        if key not in df.columns:
            raise JobError(f"key '{key}' is not a column of the {name} DataFrame (its columns: "
                           f"{', '.join(df.columns[:20])})")
    parsed = load_job(job, True, None)
    if grouped is None:
        grouped = not parsed.releases_identifiers
    elif grouped and parsed.releases_identifiers:
        raise JobError("deid.spark.verify: a job that releases identifiers (pseudonyms, masks, shifted dates) is "
                       "verified row by row: pass grouped=False")
    in_name, out_name = _source_name(input), _source_name(output)
    # The verifier reads the input with input.delimiter and the release with
    # output.delimiter, else the input's; the files are written with those.
    parsed.input_delimiter = ","
    out_delimiter = parsed.output_delimiter or ","
    claims = _result_dict(result)
    key_line, input_rows, output_rows = _check_key(input, output, key)
    if grouped and key_line["status"] == "FAILED":
        return _unpaired(key_line, input_rows, output_rows, out_name)
    with tempfile.TemporaryDirectory(prefix="deid-spark-verify-") as d:
        weights = ""
        if grouped:
            in_csv, out_csv, weights, keys_txt = write_grouped(parsed, input, output, key, d, out_delimiter)
        else:
            in_csv, out_csv, keys_txt = (os.path.join(d, f) for f in ("input.csv", "output.csv", "keys.txt"))
            _write_sorted(input, key, in_csv, ",", None)
            _write_sorted(output, key, out_csv, out_delimiter, keys_txt)
        result_path = ""
        if claims is not None:
            result_path = os.path.join(d, "result.json")
            with open(result_path, "w", encoding="utf-8") as f:
                f.write(stripped_result(claims))
        report = json.loads(_core.verify(parsed, in_csv, out_csv, result_path, weights))
        checks: List[Dict[str, Any]] = [key_line]
        replaced, texts = _spark_lines(parsed, input, output, key, result_path) if grouped else ({}, [])
        for c in report["checks"]:
            name = c.get("check", "")
            if texts and (name == "result counts" or name.startswith("sha256")):
                checks.extend(texts)  # where the row path puts them: before the result's lines
                texts = []
            if name == "sha256" and claims is not None and "files" in claims:
                checks.extend(_file_lines(claims, output_rows))
                continue
            if name in replaced:
                checks.append(replaced[name])
                continue
            checks.append(_located(c, keys_txt, key, {in_csv: in_name, out_csv: out_name}))
        checks.extend(texts)
    report["checks"] = checks
    report["output"] = out_name
    report["valid"] = all(c.get("status") != "FAILED" for c in checks)
    return report


def _unpaired(key_line: Dict[str, Any], input_rows: int, output_rows: int, out_name: str) -> Dict[str, Any]:
    """The grouped verification of tables the key does not pair: the key's
    line, the rows', and nothing else (which rows part is a question for
    the row-by-row verification, grouped=False)."""
    rows = {"check": "rows", "status": "ok" if input_rows == output_rows else "FAILED",
            "detail": f"{input_rows} input rows, {output_rows} output rows"}
    if input_rows != output_rows:
        rows["detail"] = (f"the output has {output_rows} rows, the input {input_rows} (one output row per input row "
                          "is required)")
    rest = {"check": "release", "status": "skipped",
            "detail": "the key does not pair the rows, so no row can be compared; verify with grouped=False to see "
                      "where the tables part"}
    return {"output": out_name, "valid": False, "checks": [key_line, rows, rest]}


def _spark_lines(parsed: Any, input: DataFrame, output: DataFrame, key: str,
                 result_path: str) -> "tuple[Dict[str, Dict[str, Any]], List[Dict[str, Any]]]":
    """The lines about identifying values, which the grouped tables cannot
    answer (their identifying columns are sent empty), computed on Spark:
    the "identifier values" line, to replace the verifier's, and the lines
    on the report and the result (when the input has identifying columns
    and those files exist), which the verifier then leaves out."""
    values = identifying_values(parsed, input)  # one plan for both checks
    replaced = {"identifier values": identifier_values_line(values, output, key)}
    texts = []
    if values is not None:
        for what, path in (("report", parsed.output_report), ("result", result_path or parsed.output_result)):
            if path and os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    texts.append((what, f.read()))
    return replaced, text_lines(values, texts)


def _result_dict(result: Any) -> Optional[Dict[str, Any]]:
    if result is None or isinstance(result, dict):
        return result
    with open(os.fspath(result), encoding="utf-8") as f:
        return json.load(f)


def _check_key(input: DataFrame, output: DataFrame, key: str) -> "tuple[Dict[str, Any], int, int]":
    """One Spark job: each key's rows in the input and in the output. The
    key holds when every key is one row of each, none null."""
    k = _fresh("__deid_key", [key])
    i, o = _fresh("__deid_in", [key]), _fresh("__deid_out", [key])
    sides = (input.select(_col(key).cast(T.StringType()).alias(k), F.lit(1).alias(i), F.lit(0).alias(o))
             .unionByName(output.select(_col(key).cast(T.StringType()).alias(k), F.lit(0).alias(i),
                                        F.lit(1).alias(o))))
    per_key = sides.groupBy(_col(k)).agg(F.sum(_col(i)).alias(i), F.sum(_col(o)).alias(o))
    bad = (_col(k).isNull()) | (_col(i) != 1) | (_col(o) != 1)
    row = per_key.agg(F.sum(_col(i)).alias("inputs"), F.sum(_col(o)).alias("outputs"),
                      F.sum(F.when(bad, 1).otherwise(0)).alias("bad")).collect()[0]
    inputs, outputs, wrong = int(row["inputs"] or 0), int(row["outputs"] or 0), int(row["bad"] or 0)
    name = f"key ({key})"
    if wrong == 0:
        return ({"check": name, "status": "ok",
                 "detail": f"every one of the {inputs} input rows pairs with one output row by '{key}'"}, inputs,
                outputs)
    examples = []
    for r in per_key.where(bad).orderBy(_col(k)).limit(3).collect():
        value = "null" if r[k] is None else repr(r[k])
        examples.append(f"{key}={value}: {r[i]} input row{'s' if r[i] != 1 else ''}, "
                        f"{r[o]} output row{'s' if r[o] != 1 else ''}")
    detail = (f"{wrong} key value{'s' if wrong != 1 else ''} not once in each table ({inputs} input rows, "
              f"{outputs} output rows), e.g. " + "; ".join(examples))
    return {"check": name, "status": "FAILED", "detail": detail}, inputs, outputs


def _write_sorted(df: DataFrame, key: str, path: str, delimiter: str, keys_path: Optional[str]) -> None:
    """`df` sorted by `key`, streamed a batch at a time (InOrder), written
    as the CSV text the Arrow path reads from it (and its keys, one a line,
    to name the records of failed checks)."""
    by = _fresh("__deid_by", df.columns)
    keyed = df.withColumn(by, _col(key).cast(T.StringType()))
    with InOrder(keyed, _col(by).asc_nulls_first(), drop=by) as parts:
        keys = open(keys_path, "w", encoding="utf-8") if keys_path else None
        try:
            def batches():
                for b in parts.batches():
                    if keys is not None:
                        for v in b.column(key).to_pylist():
                            keys.write(("" if v is None else str(v)).replace("\n", " ") + "\n")
                    yield b

            import pyarrow as pa
            ArrowSource(pa.RecordBatchReader.from_batches(parts.schema, batches())).write_csv(path, delimiter)
        finally:
            if keys is not None:
                keys.close()


def _located(check: Dict[str, Any], keys_path: str, key: str, names: Dict[str, str]) -> Dict[str, Any]:
    """A check of the verifier with its record named by its key rather than
    by a row of the temporary files, and the files by the tables' names."""
    c = dict(check)
    c.pop("line", None)
    row = c.pop("row", None)
    rows = {int(m) for m in re.findall(r"data row (\d+)", c.get("detail", ""))}
    if isinstance(row, int):
        rows.add(row)
    keys = _keys_at(keys_path, rows)
    if isinstance(row, int) and row in keys:
        c["key"] = keys[row]
    if isinstance(c.get("detail"), str):
        detail = c["detail"]
        for path, name in names.items():
            detail = detail.replace(path, name)
        c["detail"] = re.sub(r"data row (\d+)", lambda m: f"the row with {key} {keys.get(int(m.group(1)), '?')!r}",
                             detail)
    return c


def _keys_at(keys_path: str, rows: "set[int]") -> Dict[int, str]:
    """The keys of the given rows (counted from 1) of the sorted output."""
    found: Dict[int, str] = {}
    if not rows:
        return found
    last = max(rows)
    with open(keys_path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if n in rows:
                found[n] = line.rstrip("\n")
            if n >= last:
                break
    return found


def _file_lines(claims: Dict[str, Any], output_rows: int) -> List[Dict[str, Any]]:
    """The result's files, as the verifier judges a pushdown's: the input
    grouped by Spark has no digest of its rows; the output's rows that
    Spark wrote are compared with the release's."""
    files = claims.get("files") or []
    lines = []
    entry = next((f for f in files if f.get("role") == "input"), None)
    if entry is None:
        lines.append({"check": "sha256 input", "status": "FAILED",
                      "detail": 'the result lists no file of role "input"'})
    else:
        lines.append({"check": "sha256 input", "status": "skipped",
                      "detail": "the input was grouped by Spark (pushdown): no byte of it passed through deid"})
    entry = next((f for f in files if f.get("role") == "output"), None)
    if entry is None or entry.get("rows") is None:
        lines.append({"check": "sha256 output", "status": "skipped",
                      "detail": "the result lists no output written by Spark (SparkResult.write)"})
    elif int(entry["rows"]) != output_rows:
        lines.append({"check": "sha256 output", "status": "FAILED",
                      "detail": f"the output has {output_rows} rows, the result says Spark wrote {entry['rows']} "
                                f"to {entry.get('path')}"})
    else:
        lines.append({"check": "sha256 output", "status": "ok",
                      "detail": f"{output_rows} rows, as the result says Spark wrote to {entry.get('path')}"})
    return lines
