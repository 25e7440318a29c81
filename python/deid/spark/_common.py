# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""What every part of deid.spark shares: column names as Spark reads them,
the columns' roles, the rows' order and the input's name."""
from __future__ import annotations

import os
from typing import List, Optional, Sequence, Tuple

import pyarrow as pa
from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .. import _core
from .._core import JobError

#: The input's name in messages and in the result when the DataFrame has no files.
SPARK_SOURCE = "Spark DataFrame"

_QI, _SENSITIVE, _INSENSITIVE, _IDENTIFYING = "quasi-identifying", "sensitive", "insensitive", "identifying"


def _col(name: str) -> Column:
    """The column `name` exactly as written (dots and backticks are not syntax)."""
    return F.col("`" + name.replace("`", "``") + "`")


def _fresh(prefix: str, taken: Sequence[str]) -> str:
    """A column name starting with `prefix` that is none of `taken`."""
    name, i = prefix, 0
    while name in taken:
        i += 1
        name = f"{prefix}{i}"
    return name


def _roles(job: "_core.Job", names: Sequence[str]) -> List[Optional[str]]:
    """Each column's role, as the engine reads it (None: no role, which
    the engine reports)."""
    given = dict(job.attributes)
    return [given.get(n, job.default_role) for n in names]


def _order_key(df: DataFrame, order_by: Optional[str]) -> Tuple[Column, str]:
    """The row order that first appearance follows (docs/spark.md, "Row
    order"), as a column whose minimum per group orders the histogram, and
    its description for the result."""
    if order_by is not None:
        if order_by not in df.columns:
            raise JobError(f"order_by names '{order_by}', which is not a column of the DataFrame "
                           f"(its columns: {', '.join(df.columns[:20])})")
        return _col(order_by), f"column '{order_by}'"
    try:
        if not df.inputFiles():
            return F.monotonically_increasing_id(), "partitions"
        # A DataFrame read from files: the files by path, then the position
        # in the file (the split's start, then the row within the split:
        # monotonically_increasing_id grows along a partition's rows).
        key = F.struct(F.col("_metadata.file_path"), F.col("_metadata.file_block_start"),
                       F.monotonically_increasing_id())
        df.select(key).schema  # resolves the plan: raises when the DataFrame has no files
        return key, "files"
    except AnalysisException:
        return F.monotonically_increasing_id(), "partitions"


def _source_name(df: DataFrame) -> str:
    try:
        files = df.inputFiles()
    except Exception:  # noqa: BLE001 - a plan Spark cannot list files of
        files = []
    files = [f[len("file://"):] if f.startswith("file:///") else f for f in files]
    if len(files) == 1:
        return files[0]
    if files:
        return f"{SPARK_SOURCE} ({len(files)} files under {os.path.commonpath(files)})"
    return SPARK_SOURCE


def _arrow_batches(df: DataFrame) -> List[pa.RecordBatch]:
    """The DataFrame's rows collected to the driver as Arrow record batches
    (of the histogram only: its size is the number of distinct groups)."""
    collect = getattr(df, "_collect_as_arrow", None)
    if collect is not None:
        return collect()
    return df.toArrow().to_batches()
