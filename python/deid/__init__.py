# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid: de-identification of structured health data, from pandas and Arrow.

    import deid
    result = deid.anonymize(df, {
        "attributes": {"age": {"role": "quasi-identifying",
                               "hierarchy": {"type": "intervals", "min": 0, "max": 120, "widths": [5, 10, 20]}},
                       "zip": {"role": "quasi-identifying", "hierarchy": {"type": "masking"}}},
        "default-role": "insensitive",
        "privacy": [{"k-anonymity": {"k": 5}}],
        "suppression-limit": 0.05,
    })
    result.data            # the released DataFrame
    result.info            # the JSON result of `deid anonymize`, as a dict

The same engine as the ``deid`` command: the same job schema
(docs/job-file.md), the same answers byte for byte, the same error
messages. docs/python.md is the reference.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from . import _core, hierarchy
from ._core import InputError, InternalError, JobError
from ._inspect import Inspection
from ._inspect import inspect as _inspect
from ._job import job_and_table
from ._progress import Hooks, Progress
from ._result import Released, Reported, Result
from ._risk import RiskResult, risk
from ._suppress import SuppressionResult, suppress
from ._verify import verify

__all__ = [
    "anonymize", "inspect", "risk", "suppress", "verify", "hierarchy",
    "Result", "Inspection", "RiskResult", "SuppressionResult", "Released", "Reported", "Progress",
    "InputError", "JobError", "InternalError",
]
__version__ = "0.1.0"


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= 1024:
        raise ValueError(f"threads must be an integer from 1 to 1024, got {threads!r}")
    return threads


def anonymize(data: Any, job: Any, *, hierarchies: Optional[Mapping[str, Any]] = None,
              threads: Optional[int] = None, progress: Any = None) -> Result:
    """Finds the transformation that satisfies the job's privacy models with
    the least information loss, and releases the data under it.

    data: a pandas DataFrame, an Arrow table (a pyarrow Table or
        RecordBatchReader, or any object with __arrow_c_stream__: polars,
        DuckDB; read from the Arrow buffers, docs/python.md "Arrow tables"),
        the path of a CSV file (or a Parquet file, named *.parquet: read
        through pyarrow), or None for the job's input (its input.path or
        input.parquet, or its PostgreSQL table).
    job: a dict in the job-file schema (docs/job-file.md; 'input' may be left
        out when data is given), YAML text, or the path of a job file. Its
        output files are not written: use Result.to_csv, save_report,
        save_result. With data None, a job whose input or output is a
        PostgreSQL table runs as ``deid anonymize`` runs it: the input table
        is read (grouped by the database when the output is a table there:
        pushdown, docs/databases.md) and the output table is written.
    hierarchies: per attribute, a hierarchy that replaces the job's: a
        DataFrame in ARX's layout (one row per value, one column per level),
        a dict value -> [level 1, level 2, ...], the path of a hierarchy
        file, or a builder dict such as {"type": "intervals", "min": 0,
        "max": 100, "widths": [10, 20]}. An attribute the job does not list
        becomes quasi-identifying.
    threads: at most this many threads (default: all cores); the result is
        the same for any number.
    progress: True for a progress bar (tqdm when installed, else a line of
        text on standard error), or a callable that receives deid.Progress
        updates (at most every 100 ms of search).

    The search runs without the GIL; Ctrl-C (KeyboardInterrupt) stops it
    within about 100 ms. Raises JobError or InputError (both ValueError)
    with the command line's messages, InternalError for failures of deid.
    A job that no transformation satisfies is not an error: the Result has
    found == False and no data.
    """
    n = _threads(threads)
    parsed, table, frame = job_and_table(job, data, hierarchies, database_jobs=True)
    hooks = Hooks(progress)
    try:
        if table is None:  # a job with PostgreSQL tables, run as the command runs it
            run = _core.anonymize_job(parsed, n, hooks.callback(), True)
        else:
            run = _core.anonymize(parsed, table, n, hooks.callback(), True)
    finally:
        hooks.close()
    return Result(run, frame)


def inspect(data: Any, *, max_combination_size: int = 3, delimiter: Optional[str] = None,
            threads: Optional[int] = None) -> Inspection:
    """Profiles a raw table as ``deid inspect`` does (docs/inspect.md): each
    column's type, distinct and missing values, uniqueness and the values
    that do not conform; the HIPAA Safe Harbor identifiers it shows; a
    suggested role with its reason; the attribute risk of every combination
    of 1 to max_combination_size suggested quasi-identifiers; and a starter
    job.

    data: what deid.anonymize takes: a pandas DataFrame, an Arrow table (a
        pyarrow Table or RecordBatchReader, or any object with
        __arrow_c_stream__), or the path of a CSV file. Values are read as
        for deid.anonymize (docs/python.md, "Values"), so a DataFrame gives
        the inspection ``deid inspect`` gives for its ``to_csv(index=False)``.
    max_combination_size: combinations of 1 to this many quasi-identifiers
        are measured (1 to 8).
    delimiter: of a CSV file (default: detected from its header).
    threads: at most this many threads (default: all cores); the result is
        the same for any number.

    Returns a deid.Inspection: ``info`` / ``to_dict()`` (the JSON of
    ``deid inspect --json``), ``json`` (its text), ``columns``,
    ``identifiers``, ``combinations`` (DataFrames), ``roles``,
    ``quasi_identifiers``, ``summary()``, and the starter job: ``job``
    (YAML text) and ``write_job(path)``. Raises InputError or JobError
    with the command line's messages.
    """
    return _inspect(data, max_combination_size, delimiter, _threads(threads))
