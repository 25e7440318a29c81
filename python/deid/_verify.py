# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.verify: the independent verifier, as `deid verify` runs it."""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Optional

import pandas as pd

from ._job import load_job


def verify(job: Any, *, output: Any = None, result: "Optional[str | os.PathLike[str]]" = None,
           input: Any = None) -> Dict[str, Any]:
    """Checks a released table against its job with the independent verifier
    (docs/verify.md), as ``deid verify JOB --output FILE --result FILE``.

    The verifier reads files or PostgreSQL tables (it shares no code with
    the engine, not even the reader; a table is fetched with COPY and parsed
    by the verifier's reader, its rows paired with the input's by their
    values: docs/verify.md, "Tables"): `output` is the released CSV
    (default: the job's output.path or output table), `input` the input CSV
    (default: the job's input.path or input table); either may also be a
    DataFrame or an Arrow table (pyarrow, or any object with
    ``__arrow_c_stream__``), written into a temporary CSV file first,
    `result` the JSON result whose counts and SHA-256s are checked too
    (optional). Write them with Result.to_csv and Result.save_result, or
    verify a run in memory with Result.verify() (SuppressionResult.verify()),
    which writes these files into a temporary directory for you.

    Returns the table of checks as ``deid verify --json`` writes it:
    {"output": ..., "valid": bool, "checks": [{"check", "status", "detail",
    ...}, ...]}. A failed check is not an exception: see "valid".
    """
    from . import _core
    from ._frame import is_path
    parsed = load_job(job, False, None)
    if all(x is None or is_path(x) for x in (input, output)):
        f = lambda p: "" if p is None else os.fspath(p)  # noqa: E731
        return json.loads(_core.verify(parsed, f(input), f(output), f(result)))
    with tempfile.TemporaryDirectory(prefix="deid-verify-") as d:
        input_path = _as_file(input, d, "input.csv", parsed.input_delimiter or ",")
        if input is not None and not is_path(input):
            parsed.input_delimiter = parsed.input_delimiter or ","
        # The verifier reads the output with output.delimiter, else the input's.
        output_path = _as_file(output, d, "output.csv", parsed.output_delimiter or parsed.input_delimiter or ",")
        return json.loads(_core.verify(parsed, input_path, output_path, "" if result is None else os.fspath(result)))


def _as_file(table: Any, directory: str, name: str, delimiter: str) -> str:
    """The path of a table given as a file, or the CSV file it is written to:
    a DataFrame as ``DataFrame.to_csv(index=False)`` writes it, an Arrow
    table as the text the engine reads from it."""
    from ._frame import ArrowSource, is_arrow, is_path
    if table is None:
        return ""
    if is_path(table):
        return os.fspath(table)
    path = os.path.join(directory, name)
    if isinstance(table, pd.DataFrame):
        table.to_csv(path, index=False, sep=delimiter)
    elif is_arrow(table):
        ArrowSource(table).write_csv(path, delimiter)
    else:
        raise TypeError("expected the path of a CSV file, a pandas DataFrame or an Arrow table, "
                        f"not {type(table).__name__}")
    return path
