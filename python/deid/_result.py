# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The result of deid.anonymize."""
from __future__ import annotations

import html
import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from . import _core
from ._frame import categorical


def write_json(path: "str | os.PathLike[str]", role: str, text: str, job: "Optional[_core.Job]" = None) -> None:
    """Writes JSON text from the core (formatted as the command line's)
    atomically, never over a file ``job`` reads."""
    _core.write_file(os.fspath(path), role, text + "\n", job)


#: One column of a released table: the input column it comes from (-1:
#: none), its name when it has none, whether it is that column unchanged, and
#: a function giving its codes and labels (called only when needed).
ReleasedColumn = Tuple[int, str, bool, Callable[[], Tuple[np.ndarray, Sequence[str]]]]


def released_frame(columns: List[ReleasedColumn], given: Any, rows: int) -> pd.DataFrame:
    """A released table as a DataFrame: the input's index, a column of the
    input (unchanged, and not escaped) as the input's own array, any other
    as a categorical of the text written; labels as in the input."""
    frame = given if isinstance(given, pd.DataFrame) else None
    data: Dict[int, Any] = {}
    labels: List[Any] = []
    for input_column, name, unchanged, codes_labels in columns:
        if unchanged and frame is not None:
            data[len(labels)] = frame.iloc[:, input_column].array
        else:
            data[len(labels)] = categorical(*codes_labels())
        labels.append(frame.columns[input_column] if frame is not None and input_column >= 0 else name)
    index = frame.index if frame is not None else pd.RangeIndex(rows)
    out = pd.DataFrame(data, index=index, copy=False)
    same_kind = frame is not None and all(c[0] >= 0 for c in columns)
    out.columns = pd.Index(labels, dtype=frame.columns.dtype) if same_kind else pd.Index(labels)
    return out


def released_arrow(columns: List[ReleasedColumn], given: Any) -> Any:
    """A released table as a pyarrow Table: each column a dictionary array of
    the text written (codes and labels, no Python object per cell), but a
    column of the input unchanged (and not escaped), which is the input's own
    array (converted by pyarrow from a DataFrame)."""
    import pyarrow as pa
    from ._frame import ArrowSource
    arrays = []
    names = []
    for input_column, name, unchanged, codes_labels in columns:
        array = None
        if unchanged and isinstance(given, ArrowSource) and given.table is not None:
            array = given.table.column(input_column)
        elif unchanged and isinstance(given, pd.DataFrame):
            array = pa.array(given.iloc[:, input_column], from_pandas=True)
        if array is None:
            codes, labels = codes_labels()
            array = pa.DictionaryArray.from_arrays(pa.array(np.asarray(codes)),
                                                   pa.array(list(labels), type=pa.string()))
        arrays.append(array)
        names.append(name)
    return pa.table(arrays, names=names)


class Released:
    """What a run that releases a table gives: ``info`` (its JSON result as a
    dict), ``data``, ``to_arrow``, ``to_csv``, ``save_result`` and ``verify``."""

    info: Dict[str, Any]

    def _verification(self) -> Tuple["_core.Job", Any]:
        """The job the run ran and its input given in memory (a DataFrame or
        an ArrowSource; None: a CSV file, the job's input.path)."""
        raise NotImplementedError

    def _released_columns(self) -> Tuple[List[ReleasedColumn], Any]:
        """The released columns and the input given in memory."""
        raise NotImplementedError

    @property
    def data(self) -> Optional[pd.DataFrame]:
        raise NotImplementedError

    def to_arrow(self) -> Any:
        """The released table as a pyarrow Table (pyarrow must be installed):
        the columns of ``data``, quasi-identifiers and any column whose text
        was rewritten as dictionary arrays of the released text (built from
        codes, without a Python object per cell), the input's other columns
        as they were given. Hand it to polars, DuckDB or Parquet as it is::

            import pyarrow.parquet as pq
            table = pq.read_table("people.parquet")
            released = deid.anonymize(table, "job.yaml").to_arrow()
            pq.write_table(released, "people-deid.parquet")
        """
        columns, given = self._released_columns()
        return released_arrow(columns, given)

    def to_csv(self, path: "str | os.PathLike[str]") -> None:
        raise NotImplementedError

    def save_result(self, path: "str | os.PathLike[str]") -> None:
        raise NotImplementedError

    def verify(self) -> Dict[str, Any]:
        """Checks this release with the independent verifier (docs/verify.md),
        as ``deid verify`` checks the files of a command-line run: in a
        private temporary directory, the input DataFrame is written as
        ``DataFrame.to_csv(index=False)`` writes it (the text the run read;
        separated by input.delimiter, else ","), the released table as
        ``to_csv`` writes it and ``info`` as the result whose counts are
        checked; an Arrow input as the text the run read from it (read
        again; a one-shot RecordBatchReader from the run's encoded input);
        a CSV or Parquet input is read where it is. Returns what deid.verify
        returns: {"output", "valid", "checks": [...]}. The directory is
        removed before returning."""
        job, frame = self._verification()
        job = job.copy()
        with tempfile.TemporaryDirectory(prefix="deid-verify-") as d:
            input_path = ""
            if frame is not None:
                from ._frame import write_input_csv
                delimiter = job.input_delimiter or ","
                input_path = os.path.join(d, "input.csv")
                from ._frame import ArrowSource
                if isinstance(frame, ArrowSource) and frame.one_shot and hasattr(self, "_run"):
                    # A RecordBatchReader is read once: the text the run read.
                    self._run.write_input_csv(input_path)
                else:
                    write_input_csv(frame, input_path, delimiter)
                job.input_delimiter = delimiter
            info = self.info
            # A run that wrote its output table (a job with tables, data None)
            # is verified on the tables, with the result's "files" (the input
            # table's digest, the rows the database wrote); otherwise nothing
            # was written, so the result lists no files to digest.
            if job.output_postgres and "files" in info:
                output = ""
            else:
                output = os.path.join(d, "output.csv")
                self.to_csv(output)
                info = {k: v for k, v in info.items() if k != "files"}
            result = os.path.join(d, "result.json")
            write_json(result, "result", json.dumps(info))
            return json.loads(_core.verify(job, input_path, output, result))


class Reported:
    """What a run with an HTML report gives: ``info``, ``report_html``,
    ``save_report`` and a notebook display."""

    info: Dict[str, Any]

    def report_html(self) -> str:
        """The HTML report as a string."""
        raise NotImplementedError

    def save_report(self, path: "str | os.PathLike[str]") -> None:
        raise NotImplementedError


class Result(Released, Reported):
    """What ``deid.anonymize`` found and released.

    ``info`` is the JSON result of ``deid anonymize`` as a dict (the same
    keys: transformation, information_loss, records, classes, search, ...;
    docs/job-file.md, "The result"); the properties below are shortcuts into
    it. ``data`` is the released table; ``to_csv`` writes it byte for byte as
    the command line writes ``output.path``.
    """

    def __init__(self, run: "_core.Run", frame: Any) -> None:
        self._run = run
        self._frame = frame
        self._data: Optional[pd.DataFrame] = None
        self.info: Dict[str, Any] = json.loads(run.result_json())

    # --- the figures -------------------------------------------------------
    @property
    def found(self) -> bool:
        """Whether a transformation satisfies the job (else nothing is released)."""
        return bool(self.info["solution_found"])

    @property
    def transformation(self) -> Optional[Dict[str, int]]:
        """The chosen generalization level of each quasi-identifier."""
        return self.info["transformation"]

    @property
    def information_loss(self) -> Optional[float]:
        return self.info["information_loss"]

    @property
    def optimal(self) -> bool:
        """Whether the search proved the transformation optimal."""
        return bool(self.info["optimal"])

    @property
    def suppressed_records(self) -> int:
        return int(self.info.get("suppressed_records", 0))

    @property
    def best_solutions(self) -> pd.DataFrame:
        """The best solutions the search checked, best first: one row each, the
        level of each quasi-identifier, the information loss and the records
        suppressed."""
        rows = []
        for s in self.info["search"]["best_solutions"]:
            row = dict(s["transformation"])
            row["information_loss"] = s["information_loss"]
            row["suppressed_records"] = s["suppressed_records"]
            rows.append(row)
        columns = list(self.info["quasi_identifiers"]) + ["information_loss", "suppressed_records"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def frontier(self) -> pd.DataFrame:
        """The risk-utility frontier of the solutions the search checked, by
        increasing information loss: one row each, the level of each
        quasi-identifier, the information loss, the highest and average
        re-identification risk (prosecutor model) and the records suppressed.
        Release one with ``search: {transformation: {...}}`` in the job."""
        rows = []
        for s in self.info["search"].get("frontier", []):
            row = dict(s["transformation"])
            for key in ("information_loss", "highest_risk", "average_risk", "suppressed_records"):
                row[key] = s[key]
            rows.append(row)
        columns = list(self.info["quasi_identifiers"]) + ["information_loss", "highest_risk", "average_risk",
                                                          "suppressed_records"]
        return pd.DataFrame(rows, columns=columns)

    @property
    def local_recoding(self) -> Optional[Dict[str, Any]]:
        """The passes of local recoding after the global optimum (the result's
        ``local_recoding`` section, docs/job-file.md), or None when the job
        has no ``local-recoding``."""
        return self.info.get("local_recoding")

    @property
    def classes(self) -> pd.DataFrame:
        """The equivalence classes of the released table: the generalized value
        of each quasi-identifier, the class size and whether the class was
        suppressed (its records released with '*'); largest first. With
        local recoding, the records grouped by their released values (each
        pass's records at its own levels)."""
        self._require_found()
        names, labels, counts, suppressed = self._run.classes()
        df = pd.DataFrame({n: pd.Categorical(l) for n, l in zip(names, labels)})
        df["size"] = counts
        df["suppressed"] = suppressed
        return df.sort_values("size", ascending=False, kind="stable").reset_index(drop=True)

    @property
    def data(self) -> Optional[pd.DataFrame]:
        """The released table (None when no transformation satisfies the job).

        Same index and column order as the input, identifying columns
        dropped (or, with an action, categoricals of their pseudonyms, masks
        or shifted dates: docs/identifiers.md). Quasi-identifiers are categoricals of their released labels
        ('*' in every quasi-identifier of a suppressed record); the other
        columns are the input's own, unchanged (with output.escape-formulas
        or a CSV input: categoricals of the values' text, as written).
        """
        if not self.found:
            return None
        self._require_rows()
        if self._data is None:
            self._data = self._build_data()
        return self._data

    def _build_data(self) -> pd.DataFrame:
        columns, given = self._released_columns()
        return released_frame(columns, given, self._run.rows)

    def _released_columns(self) -> Tuple[List[ReleasedColumn], Any]:
        self._require_found()
        self._require_rows()
        run = self._run
        roles = run.roles
        qi = {c: q for q, c in enumerate(run.qi_columns)}
        micro = {c: m for m, c in enumerate(run.microaggregated_columns)}
        unchanged = not run.escape_formulas
        columns: List[ReleasedColumn] = []
        released = set(run.released_identifiers())
        for c, name in enumerate(run.names):
            if roles[c] == "identifying":
                if c in released:  # a pseudonym, mask or shifted date (docs/identifiers.md)
                    columns.append((c, name, False, lambda c=c: run.released_identifier(c)))
                continue
            if c in micro:  # its classes' aggregates, generalized before or not
                columns.append((c, name, False, lambda m=micro[c]: run.released_aggregates(m)))
            elif c in qi:
                columns.append((c, name, False, lambda q=qi[c]: run.released_column(q)))
            else:
                columns.append((c, name, unchanged, lambda c=c: run.column(c)))
        if run.local_recoding_column is not None:  # each record's pass, last (docs/search.md)
            columns.append((-1, run.local_recoding_column, False, run.pass_column))
        return columns, self._frame

    def _verification(self) -> Tuple["_core.Job", Any]:
        self._require_found()
        return self._run.job, self._frame

    def _require_found(self) -> None:
        if not self.found:
            raise ValueError("no transformation satisfies the job: nothing was released")

    def _require_rows(self) -> None:
        if self._run.grouped:
            raise ValueError("the database grouped the input and wrote the released table itself (pushdown, "
                             "docs/databases.md): no row passed through deid; read the output table, or set "
                             "input.postgres.pushdown: false")

    # --- files ---------------------------------------------------------------
    def to_csv(self, path: "str | os.PathLike[str]") -> None:
        """Writes the released table as ``deid anonymize`` writes output.path
        (same bytes; atomically: the file is replaced whole or not at all)."""
        self._require_found()
        self._require_rows()
        self._run.write_csv(os.fspath(path))

    def save_report(self, path: "str | os.PathLike[str]") -> None:
        """Writes the HTML report of ``deid anonymize --report``."""
        self._run.save_report(os.fspath(path))

    def save_result(self, path: "str | os.PathLike[str]") -> None:
        """Writes ``info`` as ``deid anonymize`` writes output.result (as the
        CLI formats it; atomically)."""
        write_json(path, "result", self._run.result_json(2), self._run.job)

    def report_html(self) -> str:
        """The HTML report as a string."""
        return self._run.report_html()

    # --- display -------------------------------------------------------------
    def summary(self) -> str:
        """The summary ``deid anonymize`` prints."""
        r = self.info
        if not self.found and r["search"].get("stopped_by"):
            return (f"The search stopped at search.{r['search']['stopped_by']} after "
                    f"{r['search']['transformations_checked']} of {r['search']['lattice_size']} transformations "
                    "checked, before it found one that satisfies the job; the job may still be satisfiable: "
                    "raise or remove the limit.")
        if not self.found:
            return (f"No transformation satisfies the job ({r['search']['transformations_checked']} "
                    "transformations checked).")
        levels = ", ".join(f"{k}={v}" for k, v in r["transformation"].items())
        s = r["search"]
        return "\n".join([
            f"Transformation   {levels}",
            f"Information loss {r['information_loss']:.6f} ({r['quality_model']})"
            + (", optimal" if r["optimal"] else ", not proven optimal"),
            f"Records          {r['records']} ({r['suppressed_records']} suppressed, limit "
            f"{r['suppression_limit_records']})",
            f"Classes          {r['classes']} (smallest {r['smallest_class_size']}, average "
            f"{r['average_class_size']:.1f})",
            f"Search           {s['algorithm']}: {s['transformations_checked']} of {s['lattice_size']} "
            f"transformations checked in {r['time_ms']['search']:.0f} ms",
        ])

    def __repr__(self) -> str:
        return f"<deid.Result\n{self.summary()}\n>"

    def _repr_html_(self) -> str:
        r = self.info
        rows = [("Solution", "found" if self.found else "none")]
        if self.found:
            rows += [
                ("Transformation", ", ".join(f"{k}={v}" for k, v in r["transformation"].items())),
                ("Information loss", f"{r['information_loss']:.6f} ({r['quality_model']})"
                 + (", optimal" if r["optimal"] else ", not proven optimal")),
                ("Records", f"{r['records']} ({r['suppressed_records']} suppressed, limit "
                            f"{r['suppression_limit_records']})"),
                ("Classes", f"{r['classes']} (smallest {r['smallest_class_size']}, average "
                            f"{r['average_class_size']:.1f})"),
            ]
        s = r["search"]
        rows.append(("Search", f"{s['algorithm']}: {s['transformations_checked']} of {s['lattice_size']} "
                               f"transformations checked in {r['time_ms']['search']:.0f} ms"))
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                       f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>" for k, v in rows)
        return f"<div><b>deid.Result</b><table>{body}</table></div>"
