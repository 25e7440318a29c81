# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Jobs from dicts, YAML text or files, parsed by the library's own parser.

Every job goes through deid's job parser, so keys, types and ranges are
checked exactly as for ``deid anonymize JOB.yaml`` and errors carry the
same messages. A dict is handed over as JSON text (JSON is YAML); its
relative paths are resolved against the current directory, those of a job
file against the file's directory.
"""
from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import pandas as pd

from . import _core
from ._frame import DATAFRAME_SOURCE, is_path, value_texts

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


def _merge_hierarchies(d: Dict[str, Any], hierarchies: Mapping[str, Any]) -> Dict[str, Any]:
    """Puts each hierarchy given by path or builder into the job dict; those
    held in memory get a placeholder the binding replaces."""
    attrs = d.setdefault("attributes", {})
    if not isinstance(attrs, dict):
        return d  # the parser reports it
    for name, h in hierarchies.items():
        spec = attrs.get(name)
        if spec is None:
            spec = attrs[name] = {"role": "quasi-identifying"}
        elif not isinstance(spec, dict):
            continue  # the parser reports it
        if is_path(h):
            spec["hierarchy"] = os.fspath(h)
        elif _is_builder(h):
            spec["hierarchy"] = dict(h)
        else:
            spec["hierarchy"] = f"<in memory: {name}>"
    return d


def _parse(text: str, name: str, base_dir: str, data_given: bool) -> "_core.Job":
    try:
        return _core.parse_job(text, name, base_dir)
    except _core.JobError as e:
        # With the data given, a job may leave out its input.
        if not (data_given and str(e).endswith(_NEEDS_INPUT)):
            raise
    return _core.parse_job(text + "\ninput: {path: " + json.dumps(DATAFRAME_SOURCE) + "}\n", name, base_dir)


def _load_yaml(text: str, where: str) -> Dict[str, Any]:
    try:
        import yaml  # PyYAML (Debian python3-yaml)
    except ImportError as e:  # pragma: no cover - python3-yaml is a dependency
        raise _core.JobError(
            f"{where}: hierarchies= with a job given as YAML needs PyYAML (python3-yaml); "
            "or give the job as a dict") from e
    try:
        d = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise _core.JobError(f"{where}: invalid YAML: {e}") from None
    if not isinstance(d, dict):
        raise _core.JobError(f"{where}: the job must be a mapping")
    return d


def load_job(job: Any, data_given: bool, hierarchies: Optional[Mapping[str, Any]] = None) -> "_core.Job":
    """Parses `job` (dict, YAML text or path) with `hierarchies` applied."""
    hierarchies = dict(hierarchies or {})
    if isinstance(job, Mapping):
        d = copy.deepcopy(dict(job))
        if data_given and "input" not in d:
            d["input"] = {"path": DATAFRAME_SOURCE}
        name, base_dir = DICT_JOB, os.getcwd()
    elif isinstance(job, os.PathLike) or (isinstance(job, str) and _looks_like_path(job)):
        path = os.fspath(job)
        if not hierarchies:
            try:
                parsed = _core.read_job(path)
            except _core.JobError as e:
                if not (data_given and str(e).endswith(_NEEDS_INPUT)):
                    raise
                with open(path, encoding="utf-8") as f:
                    parsed = _parse(f.read(), path, os.path.dirname(path), data_given)
            return _with_tables(parsed, hierarchies)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise _core.InputError(f"{path}: cannot open the job file ({e.strerror})") from None
        d = _load_yaml(text, path)
        if data_given and "input" not in d:
            d["input"] = {"path": DATAFRAME_SOURCE}
        name, base_dir = path, os.path.dirname(path)
    elif isinstance(job, str):
        if not hierarchies:
            return _parse(job, TEXT_JOB, os.getcwd(), data_given)
        d = _load_yaml(job, TEXT_JOB)
        if data_given and "input" not in d:
            d["input"] = {"path": DATAFRAME_SOURCE}
        name, base_dir = TEXT_JOB, os.getcwd()
    else:
        raise TypeError(f"job must be a dict, YAML text or the path of a job file, not {type(job).__name__}")
    _merge_hierarchies(d, hierarchies)
    text = json.dumps(d, indent=1, ensure_ascii=False, default=_json_default)
    return _with_tables(_parse(text, name, base_dir, data_given), hierarchies)


def _json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    raise TypeError(f"a job value of type {type(v).__name__} cannot be written in a job")


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and not (":" in s and not os.path.exists(s)) and not s.lstrip().startswith("{")


def _with_tables(job: "_core.Job", hierarchies: Mapping[str, Any]) -> "_core.Job":
    for name, h in hierarchies.items():
        if is_path(h) or _is_builder(h):
            continue
        source = f"hierarchy of '{name}' ({'DataFrame' if isinstance(h, pd.DataFrame) else 'dict'})"
        job.set_hierarchy_table(name, hierarchy_rows(name, h), source)
    return job


def job_and_table(job: Any, data: Any, hierarchies: Optional[Mapping[str, Any]]) -> Tuple["_core.Job", "_core.Table", Optional[pd.DataFrame]]:
    """The parsed job and the table it runs on: `data` (a DataFrame or a
    CSV path, which replaces input.path) or else the job's input."""
    from ._frame import table_of
    parsed = load_job(job, data is not None, hierarchies)
    if data is None:
        table, frame = table_of(parsed.input_path, parsed.input_delimiter)
    else:
        if is_path(data):
            parsed.input_path = os.fspath(data)
        else:
            parsed.input_path = DATAFRAME_SOURCE
        table, frame = table_of(data, parsed.input_delimiter)
    return parsed, table, frame
