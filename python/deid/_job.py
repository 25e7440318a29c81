# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Jobs from dicts, YAML text or files, parsed by the library's own parser.

Every job goes through deid's job parser, so keys, types and ranges are
checked exactly as for ``deid anonymize JOB.yaml`` and errors carry the
same messages, with the lines of the job's own text (hierarchies given
beside the job are handed to the parser separately, not merged into the
text). A dict is handed over as JSON text (JSON is YAML); its relative
paths are resolved against the current directory, those of a job file
against the file's directory.
"""
from __future__ import annotations

import json
import os
from typing import Any, List, Mapping, Optional, Tuple

import numpy as np
import pandas as pd

from . import _core
from ._frame import ARROW_SOURCE, DATAFRAME_SOURCE, is_path, value_texts

DICT_JOB = "<job dict>"
TEXT_JOB = "<job text>"
_NEEDS_INPUT = "the job needs 'input' with a 'path'"


def _is_builder(h: Any) -> bool:
    return isinstance(h, Mapping) and isinstance(h.get("type"), str)


def hierarchy_rows(name: str, h: Any) -> List[List[str]]:
    """The rows (value, level 1, ..., top) of a hierarchy given as a
    DataFrame (ARX's layout, one column per level) or a dict value -> levels."""
    if isinstance(h, pd.DataFrame):
        columns = []
        for i in range(h.shape[1]):
            col = h.iloc[:, i]
            mask = col.isna().to_numpy()
            texts = np.asarray(value_texts(col.astype(object).where(~mask, "").to_numpy()), dtype=object)
            columns.append(texts)
        return [list(r) for r in zip(*columns)] if columns else []
    if isinstance(h, Mapping):
        rows = []
        for value, levels in h.items():
            if isinstance(levels, (str, bytes)) or not hasattr(levels, "__iter__"):
                levels = [levels]
            rows.append([_text(value)] + [_text(x) for x in levels])
        return rows
    raise TypeError(
        f"hierarchies['{name}']: expected a DataFrame, a dict value -> [levels], a file path or a builder dict "
        f"such as {{'type': 'intervals', ...}}, not {type(h).__name__}")


def _text(v: Any) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return ""
    return value_texts(np.asarray([v]))[0] if not isinstance(v, str) else v


def given_hierarchies(hierarchies: Mapping[str, Any]) -> List[Tuple[str, str, Any, str]]:
    """The hierarchies given beside a job as the core takes them:
    (attribute, kind, value, source) with kind 'table' (rows), 'builder'
    (its YAML text: JSON) or 'path'. The job's text is parsed as it is, so
    messages keep its lines (deid::HierarchyOverride)."""
    out = []
    for name, h in hierarchies.items():
        name = str(name)
        source = f"hierarchies['{name}']"
        if is_path(h):
            out.append((name, "path", os.fspath(h), source))
        elif _is_builder(h):
            out.append((name, "builder", json.dumps(dict(h), indent=1, ensure_ascii=False, default=_json_default),
                        source))
        else:
            kind = "DataFrame" if isinstance(h, pd.DataFrame) else "dict"
            out.append((name, "table", hierarchy_rows(name, h), f"{source} ({kind})"))
    return out


def _parse(text: str, name: str, base_dir: str, data_given: bool, given: List[Any]) -> "_core.Job":
    try:
        return _core.parse_job(text, name, base_dir, given)
    except _core.JobError as e:
        # With the data given, a job may leave out its input.
        if not (data_given and str(e).endswith(_NEEDS_INPUT)):
            raise
    return _core.parse_job(text + "\ninput: {path: " + json.dumps(DATAFRAME_SOURCE) + "}\n", name, base_dir, given)


def load_job(job: Any, data_given: bool, hierarchies: Optional[Mapping[str, Any]] = None) -> "_core.Job":
    """Parses `job` (dict, YAML text or path) with `hierarchies` given beside it."""
    given = given_hierarchies(hierarchies or {})
    if isinstance(job, Mapping):
        d = dict(job)
        if data_given and "input" not in d:
            d["input"] = {"path": DATAFRAME_SOURCE}
        text = json.dumps(d, indent=1, ensure_ascii=False, default=_json_default)
        return _parse(text, DICT_JOB, os.getcwd(), data_given, given)
    if isinstance(job, os.PathLike) or (isinstance(job, str) and _looks_like_path(job)):
        path = os.fspath(job)
        try:
            return _core.read_job(path, given)
        except _core.JobError as e:
            if not (data_given and str(e).endswith(_NEEDS_INPUT)):
                raise
        with open(path, encoding="utf-8") as f:
            return _parse(f.read(), path, os.path.dirname(path), data_given, given)
    if isinstance(job, str):
        return _parse(job, TEXT_JOB, os.getcwd(), data_given, given)
    raise TypeError(f"job must be a dict, YAML text or the path of a job file, not {type(job).__name__}")


def _json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    raise TypeError(f"a job value of type {type(v).__name__} cannot be written in a job")


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and not (":" in s and not os.path.exists(s)) and not s.lstrip().startswith("{")


def job_and_table(job: Any, data: Any, hierarchies: Optional[Mapping[str, Any]],
                  database_jobs: bool = False) -> Tuple["_core.Job", Optional["_core.Table"], Optional[pd.DataFrame]]:
    """The parsed job and the table it runs on: `data` (a DataFrame, an
    Arrow table, or the path of a CSV or Parquet file, which replaces the
    job's input) or else the job's input (its CSV or Parquet file, or its
    PostgreSQL table streamed). With `database_jobs`, a job
    without data whose input or output is a table gets no table (None): the
    caller runs it as the command does."""
    from ._frame import table_of
    parsed = load_job(job, data is not None, hierarchies)
    if data is None and database_jobs and (parsed.input_postgres or parsed.output_postgres):
        return parsed, None, None
    if data is None and (parsed.input_postgres or parsed.input_parquet):
        return parsed, _core.read_input(parsed), None
    if is_path(data) and os.fspath(data).lower().endswith(".parquet"):
        parsed.input_path = os.fspath(data)  # a Parquet file, read through pyarrow (_parquet.py)
        return parsed, _core.read_input(parsed), None
    if data is None:
        table, frame = table_of(parsed.input_path, parsed.input_delimiter)
    else:
        if is_path(data):
            parsed.input_path = os.fspath(data)
        elif isinstance(data, pd.DataFrame):
            parsed.input_path = DATAFRAME_SOURCE
        else:
            parsed.input_path = ARROW_SOURCE
        table, frame = table_of(data, parsed.input_delimiter)
    return parsed, table, frame
