# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.inspect: what each column of a raw table holds, which columns
identify people, and a starter job, as ``deid inspect`` gives them
(docs/inspect.md)."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _core
from ._frame import is_path, table_of


class Inspection:
    """The inspection of one table: the JSON of ``deid inspect --json`` as a
    dict (``info``, ``to_dict()``, ``json``), tables of its parts
    (``columns``, ``identifiers``, ``combinations``) and the starter job
    (``job``, ``write_job``)."""

    def __init__(self, core: "_core.Inspection", input_path: Optional[str]) -> None:
        self._core = core
        self._input_path = input_path  # the CSV file inspected, absolute; None for a table in memory
        self.info: Dict[str, Any] = json.loads(core.json())

    # --- the JSON --------------------------------------------------------
    @property
    def json(self) -> str:
        """The JSON text ``deid inspect --json`` writes (same bytes)."""
        return self._core.json(2) + "\n"

    def to_dict(self) -> Dict[str, Any]:
        """The JSON of ``deid inspect --json`` as a dict (a copy)."""
        return json.loads(self._core.json())

    def save_json(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``json`` to `path` atomically."""
        _core.write_inspection_file(os.fspath(path), "inspection JSON", self.json, self._input_path or "")

    # --- its parts ---------------------------------------------------------
    @property
    def source(self) -> str:
        return self.info["source"]

    @property
    def records(self) -> int:
        return self.info["records"]

    @property
    def columns(self) -> pd.DataFrame:
        """One row per column (indexed by name): type, date format, counts,
        uniqueness, range, suggested role and its reason, and the HIPAA
        identifiers found (their letters, most confident first)."""
        rows = []
        for c in self.info["columns"]:
            rng = c.get("range") or {}
            rows.append({
                "name": c["name"], "type": c["type"], "date_format": c.get("date_format"),
                "distinct": c["distinct"], "missing": c["missing"], "uniqueness": c["uniqueness"],
                "conforming": c["conforming"], "non_conforming": c["non_conforming"],
                "min": rng.get("min"), "max": rng.get("max"), "role": c["role"], "reason": c["reason"],
                "identifiers": [f["hipaa"] for f in c["identifiers"]],
            })
        return pd.DataFrame(rows).set_index("name")

    @property
    def identifiers(self) -> pd.DataFrame:
        """One row per HIPAA Safe Harbor identifier found: column, type,
        paragraph letter, method, confidence, evidence, cells and lines."""
        rows = []
        for c in self.info["columns"]:
            for f in c["identifiers"]:
                rows.append({"column": c["name"], "type": f["type"], "hipaa": f["hipaa"], "method": f["method"],
                             "confidence": f["confidence"], "evidence": f["evidence"], "cells": f.get("cells"),
                             "lines": f["lines"]})
        return pd.DataFrame(rows, columns=["column", "type", "hipaa", "method", "confidence", "evidence", "cells",
                                           "lines"])

    @property
    def roles(self) -> Dict[str, str]:
        """The suggested role of each column."""
        return {c["name"]: c["role"] for c in self.info["columns"]}

    @property
    def quasi_identifiers(self) -> List[str]:
        return list(self.info["quasi_identifiers"])

    @property
    def combinations(self) -> pd.DataFrame:
        """The attribute risk of each combination of quasi-identifiers, most
        unique first: columns (a tuple), classes, unique records,
        alpha-distinction and alpha-separation."""
        rows = [{"columns": tuple(r["columns"]), "classes": r["classes"], "unique_records": r["unique_records"],
                 "distinction": r["distinction"], "separation": r["separation"]} for r in self.info["combinations"]]
        return pd.DataFrame(rows, columns=["columns", "classes", "unique_records", "distinction", "separation"])

    # --- the starter job ---------------------------------------------------
    def _job_for(self, job_path: Optional[str]) -> str:
        if self._input_path is None:
            return self._core.starter_job("", "")
        stem = os.path.splitext(os.path.basename(self._input_path))[0]
        if job_path is None:
            return self._core.starter_job(self._input_path, stem)
        return self._core.starter_job(_relative_to(self._input_path, job_path), stem)

    @property
    def job(self) -> str:
        """The starter job (YAML) ``deid inspect --job`` writes: for a CSV file
        its input is the file's absolute path and its output
        STEM-deid.csv; for a table in memory it has neither (run it with
        ``deid.anonymize(data, inspection.job)``)."""
        return self._job_for(None)

    def write_job(self, path: "str | os.PathLike[str]") -> None:
        """Writes the starter job to `path` (atomically), its paths relative
        to the job's directory as ``deid inspect --job`` writes them."""
        path = os.fspath(path)
        _core.write_inspection_file(path, "starter job", self._job_for(path), self._input_path or "")

    # --- display -----------------------------------------------------------
    def summary(self) -> str:
        """The summary ``deid inspect`` prints."""
        return self._core.text()

    def __repr__(self) -> str:
        return (f"<deid.Inspection of {self.source}: {self.records} records, {len(self.info['columns'])} columns, "
                f"quasi-identifiers {self.quasi_identifiers}>")


def _relative_to(data_path: str, job_path: str) -> str:
    """`data_path` as a job at `job_path` names it: relative to the job's
    directory when the two share more than the root (as ``deid inspect``
    writes it), else absolute."""
    job_dir = os.path.dirname(os.path.abspath(job_path))
    relative = os.path.relpath(data_path, job_dir)
    parts = relative.split(os.sep)
    depth = len([p for p in job_dir.split(os.sep) if p])
    if parts.count("..") >= depth:
        return data_path
    return relative.replace(os.sep, "/")


def inspect(data: Any, max_combination_size: int, delimiter: Optional[str], threads: int) -> Inspection:
    """deid.inspect (its documentation is in deid/__init__.py)."""
    if isinstance(max_combination_size, bool) or not isinstance(max_combination_size, int):
        raise TypeError(f"max_combination_size must be an integer, got {max_combination_size!r}")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n'):
        raise ValueError(f"delimiter {delimiter!r}: expected one character other than a quote or a line break")
    if data is None:
        raise TypeError("data must be a pandas DataFrame, an Arrow table or the path of a CSV file, not None")
    if is_path(data) and os.fspath(data).lower().endswith(".parquet"):
        raise ValueError("deid.inspect reads CSV files; read a Parquet file with pyarrow.parquet.read_table and "
                         "pass the table")
    table, _ = table_of(data, delimiter)
    input_path = os.path.abspath(os.fspath(data)) if is_path(data) else None
    return Inspection(_core.inspect(table, max_combination_size, threads), input_path)
