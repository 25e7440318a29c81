# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.suppress: local cell suppression, as `deid suppress` runs it."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from . import _core
from ._job import job_and_table
from ._result import Released, ReleasedColumn, released_frame, write_json


class SuppressionResult(Released):
    """The outcome of ``deid.suppress`` (docs/cell-suppression.md).

    ``info`` is the JSON result of ``deid suppress`` as a dict; ``data`` the
    released table, built as ``deid.Result.data`` is (the input's index;
    identifying columns dropped; each quasi-identifier replaced by its
    released columns, categoricals of their labels with suppressed cells as
    the job's marker; the other columns the input's own arrays, or
    categoricals of their text from a CSV input or with
    output.escape-formulas); ``samples`` the samples the job asks for, the
    same columns on the rows drawn (their index the input's). ``to_csv``
    writes the table byte for byte as the command line writes output.path.
    """

    def __init__(self, info_text: str, table: bytes, samples: List[bytes], columns: List[Tuple[Any, ...]],
                 sample_rows: List[np.ndarray], job: "_core.Job", frame: Any) -> None:
        self._info_text = info_text
        self.info: Dict[str, Any] = json.loads(info_text)
        self._table = table
        self._samples = samples
        self._columns = columns
        self._sample_rows = sample_rows
        self._job = job
        self._frame = frame
        self._data: Optional[pd.DataFrame] = None

    def _released_columns(self) -> Tuple[List[ReleasedColumn], Any]:
        unchanged = not self._job.escape_formulas
        columns: List[ReleasedColumn] = [
            (input_column, name, input_column >= 0 and unchanged, lambda codes=codes, labels=labels: (codes, labels))
            for name, input_column, codes, labels in self._columns]
        return columns, self._frame

    @property
    def data(self) -> pd.DataFrame:
        """The released table (see the class)."""
        if self._data is None:
            columns, given = self._released_columns()
            self._data = released_frame(columns, given, int(self.info["records"]))
        return self._data

    @property
    def samples(self) -> List[pd.DataFrame]:
        """Each sample of the job's cell-suppression.samples: the rows of
        ``data`` drawn, in the order written."""
        return [self.data.iloc[rows] for rows in self._sample_rows]

    @property
    def suppressed_cells(self) -> int:
        return int(self.info["information_loss"]["suppressed_cells"])

    def to_csv(self, path: "str | os.PathLike[str]") -> None:
        """Writes the released table as ``deid suppress`` writes output.path."""
        _core.write_file(os.fspath(path), "output table", self._table, self._job)

    def samples_csv(self) -> List[bytes]:
        """The samples as the bytes ``deid suppress`` writes to their files."""
        return list(self._samples)

    def save_result(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``info`` as ``deid suppress`` writes output.result (atomically)."""
        write_json(path, "result", self._info_text, self._job)

    def _verification(self) -> Tuple["_core.Job", Any]:
        return self._job, self._frame

    def __repr__(self) -> str:
        l = self.info["information_loss"]
        return (f"<deid.SuppressionResult k={self.info['k']}, {l['suppressed_cells']} of {l['cells']} cells "
                f"suppressed, {l['records_with_suppression']} of {l['records']} records touched>")


def suppress(data: Any, job: Any, *, threads: Optional[int] = None) -> SuppressionResult:
    """Local cell suppression for combinations of quasi-identifiers (the
    job's 'cell-suppression' section, papers/003), as ``deid suppress``.

    data: a DataFrame, a CSV or Parquet path, or None for the job's input. job: as for
    deid.anonymize. Writes no file (see SuppressionResult.to_csv).
    """
    from . import _threads
    n = _threads(threads)
    parsed, table, frame = job_and_table(job, data, None)
    info, text, samples, columns, sample_rows = _core.suppress(parsed, table, n)
    return SuppressionResult(info, text, list(samples), list(columns), list(sample_rows), parsed, frame)
