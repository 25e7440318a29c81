#!/usr/bin/python3
# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The Python package's overhead (bench/README.md, "Python package").

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py JOB.yaml [--repeat N]

Reads the job's input with pandas (not timed), then times, for the same job,
the steps of deid.anonymize on the DataFrame: the DataFrame encoded to the
engine's table (`encode`), the engine's work (prepare + search, with the
GIL released: `engine`, and the search alone as the result reports it),
the released DataFrame built (`release`), and the whole call. Memory: the
DataFrame's own size (memory_usage(deep=True)) and the most the process
grew above its size with the DataFrame loaded while the steps ran (the
peak resident set, VmHWM, reset before through /proc/self/clear_refs).
Prints one JSON line (medians of N runs for the times) with the answer
(transformation, loss, suppressed records), to compare with the CLI's.
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import pandas as pd

import deid
from deid import _core
from deid._frame import encode_frame
from deid._job import load_job


def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def reset_peak():
    Path("/proc/self/clear_refs").write_text("5")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("job")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    job = load_job(args.job, False, None)
    sep = job.input_delimiter or ","
    t = time.perf_counter()
    frame = pd.read_csv(job.input_path, sep=sep)
    read_s = time.perf_counter() - t
    frame_bytes = int(frame.memory_usage(deep=True).sum())

    times = {"encode": [], "engine": [], "search": [], "release": [], "total": []}
    peak_growth = 0
    for _ in range(args.repeat):
        base = status("VmRSS")
        reset_peak()
        t0 = time.perf_counter()
        table = encode_frame(frame, sep)
        t1 = time.perf_counter()
        run = _core.anonymize(load_job(args.job, True, None), table, 0, None, True)
        t2 = time.perf_counter()
        result = deid.Result(run, frame)
        released = result.data
        t3 = time.perf_counter()
        peak_growth = max(peak_growth, status("VmHWM") - base)
        times["encode"].append(t1 - t0)
        times["engine"].append(t2 - t1)
        times["search"].append(result.info["time_ms"]["search"] / 1000)
        times["release"].append(t3 - t2)
        times["total"].append(t3 - t0)
        answer = {"transformation": result.info["transformation"], "information_loss": result.info["information_loss"],
                  "suppressed_records": result.info.get("suppressed_records")}
        del table, run, result, released
    out = {"job": args.job, "rows": len(frame), "columns": frame.shape[1], "pandas_read_s": round(read_s, 3),
           "frame_bytes": frame_bytes, "peak_growth_bytes": peak_growth,
           "peak_growth_over_frame": round(peak_growth / frame_bytes, 3)}
    for k, v in times.items():
        out[k + "_s"] = round(statistics.median(v), 4)
    out["conversion_s"] = round(out["encode_s"] + out["release_s"], 4)
    out.update(answer)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
