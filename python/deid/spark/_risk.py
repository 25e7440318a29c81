# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.spark.risk: the re-identification risk of a DataFrame, as ``deid
risk`` measures it, from the histogram of its quasi-identifiers grouped by
Spark."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from pyspark.sql import DataFrame

from .. import _core
from .._core import JobError
from .._job import load_job
from .._risk import RiskResult
from ._common import _QI, _roles, _source_name
from ._histogram import _Histogram


def risk(df: DataFrame, job: Any, *, threshold: Optional[float] = None,
         populations: Optional[Mapping[str, float]] = None, order_by: Optional[str] = None,
         threads: Optional[int] = None) -> RiskResult:
    """The re-identification risk of the rows of `df` over the job's
    quasi-identifiers: the report of ``deid risk JOB --input FILE`` and of
    deid.risk (sample risks, the attacker models, the risk profile,
    population uniques, warnings), computed from the histogram of the
    quasi-identifiers that Spark groups (one row per distinct combination,
    with its count); no row comes to the driver.

    df: an input or a released table (records with '*' in every
    quasi-identifier count as suppressed), its values read as
    deid.spark.anonymize reads them. job, threshold, populations: as for
    deid.risk. order_by: as for deid.spark.anonymize (only the example
    values quoted in warnings depend on the rows' order).
    """
    from .. import _threads
    n = _threads(threads)
    if not isinstance(df, DataFrame):
        raise TypeError(f"deid.spark.risk takes a Spark DataFrame, not {type(df).__name__}")
    parsed = load_job(job, True, None)
    source = _source_name(df)
    parsed.input_path = source
    names = list(df.columns)
    roles = _roles(parsed, names)
    if not any(role == _QI for _, role in parsed.attributes):
        raise JobError(f"{parsed.path}: the job lists no quasi-identifying attribute to measure risk over")
    qis = [c for c, r in zip(names, roles) if r == _QI]
    # The report's warnings cover every column, as deid risk reads them all.
    others = [c for c in names if c not in qis]
    histogram = _Histogram(df, parsed, source, order_by, grouped=qis, checked=others)
    pops = None if populations is None else [(str(k), float(v)) for k, v in populations.items()]
    return RiskResult(_core.risk(parsed, histogram.table, threshold, pops, n, False), parsed)
