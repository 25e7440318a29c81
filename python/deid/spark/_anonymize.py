# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.spark.anonymize: the histogram grouped by Spark, the search on the driver."""
from __future__ import annotations

import json
import time
from typing import Any, Mapping, Optional

from pyspark.sql import DataFrame

from .. import _core
from .._core import JobError
from .._job import load_job
from .._progress import Hooks
from ._common import _IDENTIFYING, _roles, _source_name
from ._histogram import _Histogram
from ._identifiers import Identifiers
from ._release import SparkResult


def anonymize(df: DataFrame, job: Any, *, hierarchies: Optional[Mapping[str, Any]] = None,
              order_by: Optional[str] = None, threads: Optional[int] = None, progress: Any = None) -> SparkResult:
    """Finds the transformation that satisfies the job's privacy models with
    the least information loss on the rows of `df`, and returns the release
    as a Spark plan.

    df: a Spark DataFrame (its values read as the Arrow path reads them:
        strings as they are, numbers, booleans and dates as text,
        docs/python.md "Arrow tables"; null is the empty value).
    job: as for deid.anonymize: a dict in the job-file schema, YAML text or
        the path of a job file; its input and output are not read or written.
    hierarchies: per attribute, a hierarchy that replaces the job's (as for
        deid.anonymize).
    order_by: a column whose order is the rows' order, for first
        appearance (codes, tie-breaks); it should be a key. Default: the
        files' order (by path, then position) for a DataFrame read from
        files, else the order of Spark's partitions (docs/spark.md, "Row order").
    threads, progress: as for deid.anonymize (the search on the driver).

    Spark runs one job here, the histogram (and one more for the formula
    check of insensitive text columns, and one for the checks and counts of
    identifying columns released by an action); the release runs when
    `.data` is written or collected. Pseudonyms, masks and date shifts are
    computed on the executors, which need deid installed; the secret
    reaches them in a broadcast (docs/spark.md, "Identifiers"). What needs
    the records one by one (a research subset, differential privacy's
    sample, microaggregation, the kl-divergence quality model) is a
    JobError, as with pushdown.
    """
    from .. import _threads
    n = _threads(threads)
    if not isinstance(df, DataFrame):
        raise TypeError(f"deid.spark.anonymize takes a Spark DataFrame, not {type(df).__name__}")
    parsed = load_job(job, True, hierarchies)
    if not parsed.has_privacy:
        raise JobError("the job has no privacy model, only a 'cell-suppression' section: run 'deid suppress'")
    if parsed.local_recoding_line is not None:
        # Before any Spark job: each record is recoded on its own, and
        # Spark gives the driver the histogram only.
        where = f"{parsed.path}:{parsed.local_recoding_line}: " if parsed.path else ""
        raise JobError(f"{where}local-recoding recodes the records one by one, which deid.spark does not hold on the "
                       "driver (it groups them on the cluster): run the job on the rows with deid.anonymize or "
                       "'deid anonymize'")
    source = _source_name(df)
    parsed.input_path = source
    identifiers = None
    if parsed.releases_identifiers:
        # The secret is read here, on the driver, before any Spark job.
        named = order_by is not None and dict(zip(df.columns, _roles(parsed, df.columns))).get(order_by) != _IDENTIFYING
        identifiers = Identifiers(df, parsed, source, order_by if named else None)
    t0 = time.monotonic()
    histogram = _Histogram(df, parsed, source, order_by)
    counted = identifiers.check(histogram.key) if identifiers else []
    hooks = Hooks(progress)
    try:
        run = _core.anonymize(parsed, histogram.table, n, hooks.callback(), True,
                              identifiers.actions if identifiers else None, counted)
    except JobError as e:
        # The engine's refusal of a grouped input names PostgreSQL's switch;
        # on Spark there is no switch to set.
        text = str(e)
        at = text.find("with a PostgreSQL input set pushdown: false")
        if at >= 0:
            raise JobError(text[:at] + "deid.spark groups the rows on the cluster; run this job on the rows "
                           "(deid.anonymize) instead") from None
        raise
    finally:
        hooks.close()
    result = json.loads(run.result_json())
    times = result.get("time_ms", {})
    times["read"] = round(histogram.group_ms, 3)
    times["total"] = round((time.monotonic() - t0) * 1000, 3)
    result["time_ms"] = times
    if "skipped" in result.get("utility", {}):
        result["utility"]["skipped"] = ("the input was grouped by Spark: the analysis needs the rows; run "
                                        "deid utility on the release exported to CSV")
    result["files"] = [{"role": "input", "path": source, "sha256": None, "bytes": 0, "pushdown": "histogram",
                        "row_order": histogram.order}]
    return SparkResult(df, run, histogram, result, identifiers)
