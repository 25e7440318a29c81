# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Hierarchy builders: ``deid hierarchy intervals|masking|dates|grouping``.

Each builder takes the values to cover (a Series, a list, an array: their
distinct values in order of first appearance, as text by the rule of
docs/python.md, "Values") and returns the hierarchy as a DataFrame in ARX's
layout: one row per value, one column per level (columns 0, 1, ..., the
last is the top, '*'), all strings: what ``pd.read_csv(FILE, sep=';',
header=None, dtype=str, keep_default_na=False)`` reads from the file
``deid hierarchy`` writes. Pass it to ``deid.anonymize(...,
hierarchies={'age': h})`` or write it with ``to_csv``.
"""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

import pandas as pd

from . import _core
from ._frame import distinct_texts
from ._job import hierarchy_rows

__all__ = ["intervals", "masking", "dates", "grouping", "to_csv"]


def _frame(rows: List[List[str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, dtype=object)


def intervals(values: Any, *, min: float, max: float, widths: Sequence[float],
              bottom_coding: bool = False, top_coding: bool = False) -> pd.DataFrame:
    """Intervals for numbers: level i groups values into bins of widths[i-1]
    from `min` (each width divides the next); values below `min` are
    bottom-coded ("<min"), at or above `max` top-coded (">=max"), when
    allowed. Labels are half-open intervals "[lo, hi)"."""
    return _frame(_core.build_intervals(distinct_texts(values), float(min), float(max),
                                        [float(w) for w in widths], bool(bottom_coding), bool(top_coding)))


def masking(values: Any, *, levels: int = 0, mask_char: str = "*", from_left: bool = False) -> pd.DataFrame:
    """Masking for codes: level i replaces the last i characters (the first i
    with from_left) by mask_char; `levels` limits the masked levels (0: all)."""
    return _frame(_core.build_masking(distinct_texts(values), mask_char, bool(from_left), int(levels)))


def dates(values: Any, *, month: bool = True, year: bool = True, decade: bool = True) -> pd.DataFrame:
    """Dates YYYY-MM-DD: day -> month -> year -> decade -> '*' (the levels kept)."""
    return _frame(_core.build_dates(distinct_texts(values), bool(month), bool(year), bool(decade)))


def grouping(values: Any, *, order: Sequence[Any], sizes: Sequence[int]) -> pd.DataFrame:
    """Grouping of ordered categories: level i puts sizes[i-1] consecutive
    categories of `order` together (each size divides the next)."""
    return _frame(_core.build_grouping(distinct_texts(values), distinct_texts(list(order)),
                                       [int(s) for s in sizes]))


def to_csv(hierarchy: Any, path: "str | os.PathLike[str]", delimiter: str = ";") -> None:
    """Writes a hierarchy (a DataFrame or a dict value -> levels) as an ARX
    hierarchy file, as ``deid hierarchy`` writes it."""
    _core.write_file(os.fspath(path), "hierarchy", _core.hierarchy_to_csv(hierarchy_rows("hierarchy", hierarchy), delimiter))
