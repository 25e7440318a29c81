# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""DataFrames to deid tables and back.

A column reaches the engine as codes and the text of each distinct value.
The text is what the command line would read from the CSV that
``DataFrame.to_csv(index=False)`` writes, so a DataFrame and that CSV give
the same answer byte for byte (docs/python.md, "Values"):

- strings as they are; other objects as ``str(value)``;
- integers and booleans as ``str`` writes them (``42``, ``True``);
- floats as NumPy's shortest repr (``0.1``, ``1e+20``, ``3.0``), so an
  integer column with a missing value (float in pandas) reads ``3.0``;
- dates, times, periods, intervals and extension types as pandas writes
  them (dates at midnight as ``2020-01-31``);
- categoricals by their codes, their categories written as above;
- a missing value (``None``, ``NaN``, ``NaT``, ``pd.NA``) is the empty
  string, a value of its own, as an empty field of a CSV file is.
"""
from __future__ import annotations

import csv
import io
import os
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import _core

# pandas 1.x calls it PandasArray, 2.x NumpyExtensionArray.
_NUMPY_ARRAY = getattr(pd.arrays, "NumpyExtensionArray", None) or getattr(pd.arrays, "PandasArray")

#: The name a DataFrame has in messages: "DataFrame:LINE:COLUMN (column 'x')",
#: LINE being the line of the CSV pandas would write (row i on line i + 2).
DATAFRAME_SOURCE = "DataFrame"


def _via_to_csv(values: Any) -> List[str]:
    """The text pandas' to_csv writes for each of `values` (no missing)."""
    text = pd.Series(values).to_csv(index=False, header=False, lineterminator="\n")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if len(rows) != len(values):
        raise _core.InternalError("cannot render the values of a column as pandas writes them")
    return [r[0] if r else "" for r in rows]


def value_texts(values: Any) -> List[str]:
    """The text of each of `values` (distinct, none missing) under the rule above."""
    arr = values.array if isinstance(values, (pd.Index, pd.Series)) else values
    if isinstance(arr, np.ndarray):
        kind = arr.dtype.kind
        if kind in "iubfU":
            return arr.astype(str).tolist()
        if kind == "O":
            return [v if isinstance(v, str) else str(v) for v in arr]
    elif isinstance(arr, _NUMPY_ARRAY):
        return value_texts(arr.to_numpy())
    elif isinstance(arr, pd.arrays.StringArray):
        return [str(v) for v in arr]
    return _via_to_csv(values)


def factorize_floats(values: np.ndarray) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """pd.factorize for floats that keeps -0.0 and 0.0 apart, as their texts
    in a CSV are (pandas' factorize takes them as one key): the bit patterns
    are factorized, every NaN is missing (-1). The uniques include the NaNs'
    patterns, which no code refers to. None for a float type without an
    integer type of its size (long double)."""
    try:
        as_int = np.dtype(f"i{values.dtype.itemsize}")
    except TypeError:
        return None
    values = np.ascontiguousarray(values)
    codes, bits = pd.factorize(values.view(as_int), sort=False)
    missing = np.isnan(values)
    if missing.any():
        codes[missing] = -1
    return codes, np.asarray(bits).view(values.dtype)


def column_codes(column: pd.Series) -> Tuple[np.ndarray, List[str]]:
    """Codes (-1: missing) and the text of each code for one column."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(), value_texts(dtype.categories)
    if dtype == object:
        inferred = pd.api.types.infer_dtype(column, skipna=True)
        if inferred not in ("string", "empty"):
            # Mixed objects: 1, 1.0 and True are equal keys for pandas but
            # different texts in a CSV; render first, then factorize.
            mask = column.isna().to_numpy()
            texts = np.array([str(v) for v in column.to_numpy()], dtype=object)
            texts[mask] = None
            column = pd.Series(texts, copy=False)
    if getattr(dtype, "kind", None) == "f":  # NumPy floats, pandas' Float32 and Float64
        # A NumPy column as it is (no copy); pandas' NA as NaN.
        floats = column.to_numpy() if isinstance(dtype, np.dtype) else column.to_numpy(dtype.numpy_dtype, na_value=np.nan)
        factorized = factorize_floats(floats)
        if factorized is not None:
            codes, uniques = factorized
            return codes, value_texts(uniques if isinstance(dtype, np.dtype) else pd.array(uniques, dtype=dtype))
    codes, uniques = pd.factorize(column, sort=False)
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":
        # factorize widens float32 to float64, whose shortest repr differs.
        uniques = np.asarray(uniques).astype(dtype, copy=False)
    return codes, value_texts(uniques)


def encode_frame(frame: pd.DataFrame, delimiter: Optional[str] = None) -> "_core.Table":
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    names = [str(c) for c in frame.columns]
    codes = []
    labels = []
    for i in range(frame.shape[1]):
        c, l = column_codes(frame.iloc[:, i])
        codes.append(c)
        labels.append(l)
    return _core.encode_columns(names, codes, labels, DATAFRAME_SOURCE, delimiter or ",")


def is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


#: The name an Arrow table has in messages: "Arrow:LINE:COLUMN (column 'x')",
#: LINE counted as for a DataFrame (row i on line i + 2).
ARROW_SOURCE = "Arrow"


def _pyarrow() -> Any:
    import sys
    return sys.modules.get("pyarrow")  # only when the caller's table is pyarrow's


def _readable_arrow_types(table: Any) -> Any:
    """A pyarrow Table whose columns of types the engine does not read
    (timestamps, decimals, ...) are cast to strings by Arrow's own cast."""
    pa = _pyarrow()
    import pyarrow.compute as pc
    readable = (pa.types.is_string, pa.types.is_large_string, pa.types.is_integer, pa.types.is_floating,
                pa.types.is_boolean, pa.types.is_date, pa.types.is_null, pa.types.is_dictionary,
                getattr(pa.types, "is_string_view", lambda t: False))
    for i, field in enumerate(table.schema):
        t = field.type
        if pa.types.is_floating(t) and t.bit_width == 16:
            table = table.set_column(i, field.name, pc.cast(table.column(i), pa.float32()))
        elif not any(is_type(t) for is_type in readable):
            table = table.set_column(i, field.name, pc.cast(table.column(i), pa.string()))
    return table


class ArrowSource:
    """A table given as Arrow: anything with ``__arrow_c_stream__`` (a
    pyarrow Table or RecordBatchReader, a polars DataFrame, a DuckDB
    result, ...). Its batches are encoded by the core from the Arrow buffers
    (python/src/arrow.cc); the object is kept for Result.to_arrow and for
    verify, which reads the input again (a one-shot stream cannot be)."""

    def __init__(self, data: Any) -> None:
        self.data = data
        pa = _pyarrow()
        self.table = data if pa is not None and isinstance(data, pa.Table) else None
        self.one_shot = pa is not None and isinstance(data, pa.RecordBatchReader)
        self._read = False

    def encode(self, delimiter: Optional[str]) -> "_core.Table":
        if self._read and self.one_shot:
            raise ValueError("the Arrow stream was read already (a RecordBatchReader is read once); "
                             "pass a pyarrow Table to read it again")
        self._read = True
        data = self.data if self.table is None else _readable_arrow_types(self.table)
        rows = getattr(data, "num_rows", 0) if self.table is not None else 0
        return _core.encode_arrow_stream(data.__arrow_c_stream__(), ARROW_SOURCE, delimiter or ",", int(rows))

    def write_csv(self, path: str, delimiter: Optional[str]) -> None:
        """The table as the CSV text the engine read from it."""
        self.encode(delimiter).write_csv(path)


def is_arrow(data: Any) -> bool:
    return hasattr(data, "__arrow_c_stream__") and not isinstance(data, pd.DataFrame)


def _arrow_backed(frame: pd.DataFrame) -> bool:
    """Whether every column of ``frame`` is held in Arrow arrays
    (``pd.ArrowDtype``) of a type the engine reads straight from Arrow
    (strings, integers, floats, booleans, dates), whose text is the same
    from Arrow as from pandas: the table then takes the Arrow path."""
    arrow_dtype = getattr(pd, "ArrowDtype", None)
    if arrow_dtype is None or frame.shape[1] == 0 or not all(isinstance(n, str) for n in frame.columns):
        return False
    # Only then pyarrow, which a frame of Arrow dtypes implies: the package
    # works without it on every other frame.
    if not all(isinstance(dtype, arrow_dtype) for dtype in frame.dtypes):
        return False
    import pyarrow as pa
    for dtype in frame.dtypes:
        t = dtype.pyarrow_dtype
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)
                or (pa.types.is_floating(t) and t.bit_width > 16) or pa.types.is_boolean(t)
                or pa.types.is_date(t)):
            return False
    return True


#: An input given in memory: a DataFrame, or an Arrow table.
InMemory = Any


def table_of(data: Any, delimiter: Optional[str]) -> Tuple["_core.Table", InMemory]:
    """The table of `data` (a DataFrame, an Arrow table or stream, or a CSV
    path) and the object given in memory, if any (a DataFrame, or an
    ArrowSource)."""
    if isinstance(data, pd.DataFrame):
        if _arrow_backed(data):
            # Its Arrow arrays as they are (no Python object per cell); the
            # text of each value is the one pandas' to_csv writes.
            import pyarrow as pa
            return ArrowSource(pa.Table.from_pandas(data, preserve_index=False)).encode(delimiter), data
        return encode_frame(data, delimiter), data
    if is_path(data):
        return _core.read_table(os.fspath(data), delimiter), None
    if is_arrow(data):
        source = ArrowSource(data)
        return source.encode(delimiter), source
    raise TypeError("data must be a pandas DataFrame, an Arrow table (pyarrow, or any object with "
                    f"__arrow_c_stream__) or the path of a CSV file, not {type(data).__name__}")


def write_input_csv(given: InMemory, path: str, delimiter: str) -> None:
    """Writes an input given in memory as the CSV the engine read from it."""
    if isinstance(given, pd.DataFrame):
        given.to_csv(path, index=False, sep=delimiter)
    else:
        given.write_csv(path, delimiter)


def categorical(codes: np.ndarray, labels: Sequence[str]) -> pd.Categorical:
    """Codes and their texts as a Categorical of strings."""
    if len(set(labels)) == len(labels):
        return pd.Categorical.from_codes(codes, categories=pd.Index(labels, dtype=object))
    return pd.Categorical(np.asarray(labels, dtype=object)[codes])


def distinct_texts(values: Any) -> List[str]:
    """The distinct texts of `values` in order of first appearance, missing
    values as the empty string: the values a hierarchy must cover."""
    if isinstance(values, pd.DataFrame):
        raise TypeError("expected one column of values, not a DataFrame")
    if isinstance(values, pd.Series):
        series = values
    elif isinstance(values, (np.ndarray, pd.Index, pd.api.extensions.ExtensionArray)):
        series = pd.Series(values)
    else:
        series = pd.Series(list(values), dtype=object)
    codes, labels = column_codes(series)
    out: List[str] = []
    seen = set()
    for code in pd.unique(codes):
        text = "" if code < 0 else labels[code]
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out
