# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.risk: the re-identification risk of a table, as `deid risk` measures it."""
from __future__ import annotations

import html
import json
import os
from typing import Any, Dict, Mapping, Optional

import pandas as pd

from . import _core
from ._job import job_and_table
from ._result import Reported, write_json


class RiskResult(Reported):
    """The risk report of ``deid risk`` (docs/risk-models.md).

    ``info`` is the report's JSON as a dict (``deid risk --json``); ``text``
    the table ``deid risk`` prints; ``profile``, ``populations`` and
    ``class_sizes`` are its tables as DataFrames.
    """

    def __init__(self, report: "_core.RiskReport", job: "Optional[_core.Job]" = None) -> None:
        self._report = report
        self._job = job
        self.info: Dict[str, Any] = json.loads(report.json())

    @property
    def text(self) -> str:
        return self._report.text()

    @property
    def profile(self) -> pd.DataFrame:
        """The risk profile: per bin of prosecutor risk, the share of records."""
        return pd.DataFrame(self.info.get("risk_profile", []))

    @property
    def populations(self) -> pd.DataFrame:
        """Population uniques per population: one row each, the estimate of
        each model (None where it has none; info has why)."""
        rows = []
        for p in self.info.get("population_uniques", []):
            row = {k: v for k, v in p.items() if not isinstance(v, dict)}
            for model in ("zayatz", "pitman", "snb", "dankar"):
                if isinstance(p.get(model), dict):
                    row[model] = p[model].get("uniques")
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def class_sizes(self) -> pd.DataFrame:
        """How many classes have each size."""
        return pd.DataFrame(self.info.get("class_size_frequencies", []), columns=["size", "classes"])

    def save_report(self, path: "str | os.PathLike[str]") -> None:
        """Writes the HTML report of ``deid risk --report``."""
        self._report.save_report(os.fspath(path), self._job)

    def save_json(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``info`` as ``deid risk --json`` does (the same bytes)."""
        write_json(path, "risk JSON", self._report.json(2), self._job)

    def report_html(self) -> str:
        return self._report.html()

    def __repr__(self) -> str:
        return f"<deid.RiskResult\n{self.text}>"

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text)}</pre>"


def risk(data: Any, job: Any, *, threshold: Optional[float] = None,
         populations: Optional[Mapping[str, float]] = None, threads: Optional[int] = None) -> RiskResult:
    """The re-identification risk of `data` over the job's quasi-identifiers,
    as ``deid risk JOB --input FILE`` reports it: sample risks, the attacker
    models, the risk profile, population uniques.

    data: a DataFrame (an input or a released table: records with '*' in
        every quasi-identifier count as suppressed), a CSV or Parquet path, or None for
        the job's input. job: as for deid.anonymize. threshold: the risk
        above which a record is at risk (default: the job's risk.threshold,
        else 0.2). populations: name -> size, replacing the job's list.
    """
    from . import _threads
    n = _threads(threads)
    parsed, table, _ = job_and_table(job, data, None)
    pops = None if populations is None else [(str(k), float(v)) for k, v in populations.items()]
    # data None measures the job's input: that report is labelled custodian
    # only (it may quote input values and never travels with a release).
    return RiskResult(_core.risk(parsed, table, threshold, pops, n, data is None), parsed)
