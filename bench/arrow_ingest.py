# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Ingest into the engine: a table from Arrow, from pandas and from CSV
(bench/README.md, "Arrow and pandas ingest").

    python bench/arrow_ingest.py CSV MODE [--repeat N]

MODE is one of
  arrow    a pyarrow.Table (read from CSV by pyarrow), through __arrow_c_stream__
  reader   the same table as a pyarrow.RecordBatchReader of 64 Ki-row batches
  pandas   the same table as a pandas DataFrame (Table.to_pandas())
  csv      the CSV file, read by the engine's own reader (deid anonymize --input)
and prints, as one JSON line: the rows, the in-memory table's size (Arrow:
Table.nbytes; pandas: memory_usage(deep=True)), the seconds to encode it into
the engine's table (each run; the table loaded beforehand is not counted),
and the most the process grew above its size with the table loaded (VmHWM
after a reset through /proc/self/clear_refs, minus VmRSS before), plus a
digest of the encoded labels, equal across modes when they encode alike.
"""
import argparse
import hashlib
import json
import time
from pathlib import Path

from deid import _core
from deid._frame import ArrowSource, encode_frame


def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("mode", choices=["arrow", "reader", "pandas", "csv"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    table = frame = None
    size = 0
    if args.mode != "csv":
        import pyarrow.csv
        table = pyarrow.csv.read_csv(args.csv)
        size = table.nbytes
        if args.mode == "pandas":
            frame = table.to_pandas()
            table = None
            size = int(frame.memory_usage(deep=True).sum())
    seconds, growth, digest, rows = [], 0, None, 0
    for _ in range(args.repeat):
        base = status("VmRSS")
        Path("/proc/self/clear_refs").write_text("5")
        t0 = time.perf_counter()
        if args.mode == "arrow":
            encoded = ArrowSource(table).encode(",")
        elif args.mode == "reader":
            import pyarrow as pa
            encoded = ArrowSource(pa.RecordBatchReader.from_batches(
                table.schema, table.to_batches(max_chunksize=65536))).encode(",")
        elif args.mode == "pandas":
            encoded = encode_frame(frame, ",")
        else:
            encoded = _core.read_table(args.csv, ",")
        seconds.append(round(time.perf_counter() - t0, 3))
        growth = max(growth, status("VmHWM") - base)
        h = hashlib.sha256()
        for c in range(len(encoded.names)):
            h.update(json.dumps(encoded.labels(c)).encode())
        digest, rows = h.hexdigest()[:16], encoded.rows
        del encoded
    print(json.dumps({"mode": args.mode, "rows": rows, "table_mb": round(size / 2**20, 1), "seconds": seconds,
                      "peak_growth_mb": round(growth / 2**20, 1), "labels_sha256": digest}))


if __name__ == "__main__":
    main()
