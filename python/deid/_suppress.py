# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.suppress: local cell suppression, as `deid suppress` runs it."""
from __future__ import annotations

import io
import json
import os
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _core
from ._job import job_and_table
from ._result import write_json


class SuppressionResult:
    """The outcome of ``deid.suppress`` (docs/cell-suppression.md).

    ``info`` is the JSON result of ``deid suppress`` as a dict; ``data`` the
    released table (each quasi-identifier replaced by its released columns,
    suppressed cells as the job's marker; strings, with the input's index
    when the input was a DataFrame); ``samples`` the samples the job asks
    for. ``to_csv`` writes the table byte for byte as the command line
    writes output.path.
    """

    def __init__(self, info_text: str, table: bytes, samples: List[bytes], delimiter: str,
                 index: Optional[pd.Index]) -> None:
        self._info_text = info_text
        self.info: Dict[str, Any] = json.loads(info_text)
        self._table = table
        self._samples = samples
        self._delimiter = delimiter
        self._index = index
        self._data: Optional[pd.DataFrame] = None

    def _read(self, text: bytes) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(text), sep=self._delimiter, dtype=str, keep_default_na=False,
                           na_filter=False, encoding="utf-8")

    @property
    def data(self) -> pd.DataFrame:
        if self._data is None:
            self._data = self._read(self._table)
            if self._index is not None:
                self._data.index = self._index
        return self._data

    @property
    def samples(self) -> List[pd.DataFrame]:
        return [self._read(s) for s in self._samples]

    @property
    def suppressed_cells(self) -> int:
        return int(self.info["information_loss"]["suppressed_cells"])

    def to_csv(self, path: "str | os.PathLike[str]") -> None:
        """Writes the released table as ``deid suppress`` writes output.path."""
        _core.write_file(os.fspath(path), "output table", self._table)

    def save_result(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``info`` as ``deid suppress`` writes output.result (atomically)."""
        write_json(path, "result", self._info_text)

    def __repr__(self) -> str:
        l = self.info["information_loss"]
        return (f"<deid.SuppressionResult k={self.info['k']}, {l['suppressed_cells']} of {l['cells']} cells "
                f"suppressed, {l['records_with_suppression']} of {l['records']} records touched>")


def suppress(data: Any, job: Any, *, threads: Optional[int] = None) -> SuppressionResult:
    """Local cell suppression for combinations of quasi-identifiers (the
    job's 'cell-suppression' section, papers/003), as ``deid suppress``.

    data: a DataFrame, a CSV path, or None for the job's input. job: as for
    deid.anonymize. Writes no file (see SuppressionResult.to_csv).
    """
    from . import _threads
    n = _threads(threads)
    parsed, table, frame = job_and_table(job, data, None)
    delimiter = parsed.output_delimiter or table.delimiter
    info, text, samples = _core.suppress(parsed, table, n)
    return SuppressionResult(info, text, list(samples), delimiter,
                             frame.index if frame is not None else None)
