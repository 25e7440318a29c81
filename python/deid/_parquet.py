# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Parquet tables for the engine, through pyarrow (docs/python.md, "Parquet").

The core (python/src/cli.cc) registers these two functions as the library's
Parquet codec when the package is imported, so that jobs with
``input: {parquet: PATH}`` or ``output: {parquet: PATH}`` (and files named
``*.parquet`` on the command line) run under ``python -m deid`` and the
package's functions. pyarrow is imported only when a Parquet table is met.
"""
from __future__ import annotations

import csv
import io
from typing import Any, List, Tuple


def _pyarrow() -> Any:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.csv  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        raise ImportError("Parquet tables need pyarrow: pip install 'deid[arrow]' (or pyarrow)") from e
    return pyarrow


def read(path: str) -> Tuple[Any, int]:
    """The Arrow C stream of the Parquet file at ``path`` and its row count.
    Columns of types the engine does not read are cast to strings as for any
    Arrow table (ArrowSource)."""
    pa = _pyarrow()
    from ._frame import _readable_arrow_types
    table = pa.parquet.read_table(path)
    table = _readable_arrow_types(table)
    return table.__arrow_c_stream__(), int(table.num_rows)


def _header(text: memoryview, delimiter: str) -> List[str]:
    """The column names of the CSV text's first record (quoted names may hold
    the delimiter or a line break): up to the first line break outside
    quotes, read without copying the rest of the text."""
    raw = bytes(text[:1 << 20])
    end = raw.find(b"\n")
    while end >= 0 and raw.count(b'"', 0, end) % 2:
        end = raw.find(b"\n", end + 1)
    head = raw if end < 0 else raw[:end + 1]
    return next(csv.reader(io.StringIO(head.decode("utf-8"), newline=""), delimiter=delimiter, quotechar='"',
                           doublequote=True, strict=True))


def write(text: memoryview, delimiter: str, sink: Any) -> None:
    """Writes the released table, given as the CSV text the engine writes
    (header, then one record per row), to ``sink`` as Parquet: one string
    column per CSV column, every cell's text as it is (an empty cell is the
    empty string, never null)."""
    pa = _pyarrow()
    names = _header(text, delimiter)
    generated = [f"c{i}" for i in range(len(names))]
    table = pa.csv.read_csv(
        pa.BufferReader(pa.py_buffer(text)),
        read_options=pa.csv.ReadOptions(skip_rows=1, column_names=generated, block_size=1 << 24),
        parse_options=pa.csv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True, escape_char=False,
                                          newlines_in_values=True, ignore_empty_lines=False),
        convert_options=pa.csv.ConvertOptions(column_types={g: pa.string() for g in generated},
                                              strings_can_be_null=False, quoted_strings_can_be_null=False,
                                              null_values=[], check_utf8=True))
    table = table.rename_columns(names)
    pa.parquet.write_table(table, sink)
