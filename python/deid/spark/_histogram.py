# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The histogram Spark computes (one row per distinct combination of the
grouped columns, with its count, in order of first appearance), brought to
the driver as Arrow batches and encoded into the engine's grouped Dataset."""
from __future__ import annotations

import time
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .. import _core
from ._common import _INSENSITIVE, _QI, _SENSITIVE, _arrow_batches, _col, _fresh, _order_key, _roles


#: Rows of a sorted table in one range partition. The driver's Python holds
#: one Arrow batch of a partition at a time (spark.sql.execution.arrow.
#: maxRecordsPerBatch rows); its JVM collects one partition, or the next
#: one beside it while Python encodes the current one.
ROWS_PER_FETCH = 1 << 20


def _partition_stream(df: DataFrame, schema: pa.Schema) -> Optional[Tuple[int, Iterator[pa.RecordBatch]]]:
    """`df`'s partitions, and its rows as Arrow record batches in partition
    order, streamed to the driver's Python one batch at a time: one Spark
    job per partition, run on that partition alone (as
    DataFrame.toLocalIterator fetches, but carrying the Arrow batches of
    Spark's own Arrow collection instead of pickled rows; the next partition
    is computed while this one is read). None where the DataFrame has no
    JVM side to ask (Spark Connect) or its Spark lacks these internals."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None or not hasattr(jdf, "toArrowBatchRdd"):
        return None
    try:
        from py4j.protocol import Py4JError
        from pyspark.serializers import NoOpSerializer
        from pyspark.util import _local_iterator_from_socket
    except ImportError:
        return None
    try:
        jvm = df.sparkSession.sparkContext._jvm
        rdd = jdf.toArrowBatchRdd()
        parts = rdd.getNumPartitions()
        sock = jvm.org.apache.spark.api.python.PythonRDD.toLocalIteratorAndServe(rdd, True)
    except (AttributeError, Py4JError):  # another Spark's internals: the filters instead
        return None
    frames = _local_iterator_from_socket(sock, NoOpSerializer())
    # Each frame is one serialized record batch (an IPC message without the
    # schema), read in place.
    return parts, (pa.ipc.read_record_batch(pa.py_buffer(f), schema) for f in frames)


class InOrder:
    """`df` sorted by `by` in range partitions of about ROWS_PER_FETCH rows,
    streamed to the driver in order as Arrow record batches, one Spark job
    per partition: the driver holds a batch at a time, not all of them
    (docs/spark.md, "Memory"). Each partition is sorted once, by its job,
    from the shuffle's output. `drop`: a column of `df` dropped once
    sorted; `reuse`: `df` is read more than once (its rows counted, the
    range partitioner's sample, the shuffle), so keep it on the executors
    meanwhile (for an aggregate; a table read from files is read again).
    `parts`: the number of range partitions, once batches() has started.
    Use as a context manager."""

    def __init__(self, df: DataFrame, by: Column, drop: Optional[str] = None, reuse: bool = False) -> None:
        self._held: List[DataFrame] = []
        try:
            if reuse:
                df = df.persist()
                self._held.append(df)
            self.rows = df.count()
            ordered = df.repartitionByRange(max(1, -(-self.rows // ROWS_PER_FETCH)), by).sortWithinPartitions(by)
            self.df = ordered.drop(drop) if drop else ordered
            self.schema = self.df.limit(0).toArrow().schema
            self.parts = 0
        except BaseException:
            self._release()
            raise

    def batches(self) -> Iterator[pa.RecordBatch]:
        stream = _partition_stream(self.df, self.schema)
        if stream is not None:
            self.parts, streamed = stream
            yield from streamed
            return
        # Without the JVM: the sorted table kept on the executors, and each
        # partition collected whole by a job that filters every partition
        # by its id (so partitions are kept few).
        ordered = self.df.persist()
        self._held.append(ordered)
        ordered.count()
        for h in self._held[:-1]:
            h.unpersist()  # the sorted table is on the executors now
        del self._held[:-1]
        self.parts = ordered.rdd.getNumPartitions()
        for i in range(self.parts):
            batches = _arrow_batches(ordered.where(F.spark_partition_id() == i))
            while batches:
                yield batches.pop(0)

    def _release(self) -> None:
        for h in self._held:
            h.unpersist()
        self._held.clear()

    def __enter__(self) -> "InOrder":
        return self

    def __exit__(self, *exc: object) -> None:
        self._release()


class _Histogram:
    """The histogram Spark computed, encoded into the engine's grouped
    Dataset, with the distinct values of each grouped column (typed as
    Spark has them, for the release's maps).

    grouped: the columns grouped (default: the job's quasi-identifying and
    sensitive ones); checked: the ungrouped text columns whose values that
    start as a formula would are fetched for the engine's formula warnings
    and escaping (default: the insensitive ones)."""

    def __init__(self, df: DataFrame, job: "_core.Job", source: str, order_by: Optional[str],
                 grouped: Optional[Sequence[str]] = None, checked: Optional[Sequence[str]] = None) -> None:
        names = list(df.columns)
        roles = _roles(job, names)
        self.names = names
        self.roles = roles
        self.grouped = list(grouped) if grouped is not None else [
            n for n, r in zip(names, roles) if r in (_QI, _SENSITIVE)]
        self.copied = list(checked) if checked is not None else [n for n, r in zip(names, roles) if r == _INSENSITIVE]
        count = _fresh("__deid_count", names)
        first = _fresh("__deid_first", names)
        key, self.order = _order_key(df, order_by)
        self.key = key  # the rows' order
        keyed = df.select(*[_col(n) for n in self.grouped], key.alias(first))
        hist = (keyed.groupBy(*[_col(n) for n in self.grouped])
                .agg(F.count(F.lit(1)).alias(count), F.min(_col(first)).alias(first)))
        t0 = time.monotonic()
        self.distinct: Dict[str, List[pa.Array]] = {n: [] for n in self.grouped}

        def seen(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for b in batches:
                for n in self.grouped:
                    self.distinct[n].append(pc.unique(b.column(n)))
                yield b

        with InOrder(hist, _col(first), drop=first, reuse=True) as parts:
            reader = pa.RecordBatchReader.from_batches(parts.schema, seen(parts.batches()))
            # The histogram's rows are known: the codes and counts are reserved
            # once rather than grown by doubling (docs/spark.md, "Memory").
            self.table = _core.encode_grouped_arrow_stream(reader.__arrow_c_stream__(), source, names, count,
                                                           rows_hint=parts.rows)
        self.group_ms = (time.monotonic() - t0) * 1000
        self.entries = self.table.rows
        if self.copied:
            self._formula_candidates(df)

    def _formula_candidates(self, df: DataFrame) -> None:
        """As pushdown's second query: the distinct values of the ungrouped
        string columns that start as a formula would, in order of first
        appearance (as the CSV path's dictionary holds them), which the
        engine sorts into those a spreadsheet would run (result warnings,
        escaping)."""
        strings = [n for n in self.copied if df.schema[n].dataType.typeName() == "string"]
        if not strings:
            return
        i, v, f = (_fresh(f"__deid_{s}", self.names) for s in ("i", "v", "f"))
        parts = [df.select(F.lit(k).alias(i), _col(n).alias(v), self.key.alias(f)).where(_col(v).rlike("^[-=+@]"))
                 for k, n in enumerate(strings)]
        union = parts[0]
        for p in parts[1:]:
            union = union.unionByName(p)
        found = (union.groupBy(_col(i), _col(v)).agg(F.min(_col(f)).alias(f)).orderBy(_col(f))
                 .select(_col(i), _col(v)).toArrow())
        for k, n in enumerate(strings):
            values = found.filter(pc.equal(found.column(i), k)).column(v).to_pylist()
            _core.add_formula_candidates(self.table, self.names.index(n), values)

    def values(self, name: str) -> pa.Array:
        """The distinct values of grouped column `name`, as Spark has them."""
        chunks = self.distinct[name]
        if len(chunks) > 1:
            self.distinct[name] = chunks = [pc.unique(pa.chunked_array(chunks))]
        return chunks[0]
