#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Load on `deid serve` (docs/web.md): N concurrent API jobs on adult.

Starts `deid serve` on a free loopback port (--data-dir examples/adult,
--workers W), uploads adult once, submits N jobs at once (the adult job of
examples/adult.yaml: 9 quasi-identifiers, k = 5, 5 %, Loss), and while they
run asks GET /jobs/ID for one of them every 50 ms, as the web app's status
calls do. Prints one JSON line: the jobs' latency (submission to done:
median, max), the status calls' latency (median, p99, max, and how many
took over 200 ms), the server's peak RSS (VmHWM from /proc) and the wall
time; then stops the server.

    bench/serve-load.py [--deid build/deid] [--jobs 20] [--workers 2]

Python 3 standard library only. Not a test: nothing is asserted.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QIS = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass",
       "occupation"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deid", default=os.path.join(ROOT, "build", "deid"))
    ap.add_argument("--jobs", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    token = "load-test-token"
    server = subprocess.Popen([args.deid, "serve", "--port", "0", "--token", token, "--workers", str(args.workers),
                               "--data-dir", os.path.join(ROOT, "examples", "adult")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        m = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not m:
            sys.exit(f"serve-load: no address in {line!r}")
        base = f"http://{m.group(1)}:{m.group(2)}/api/v1"

        def call(method, path, body=None, content_type="application/json"):
            req = urllib.request.Request(base + path, data=body, method=method,
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": content_type})
            with urllib.request.urlopen(req, timeout=600) as r:
                return json.loads(r.read() or b"null")

        with open(os.path.join(ROOT, "examples", "adult", "adult.csv"), "rb") as f:
            dataset = call("POST", "/datasets", f.read(), "text/csv")["id"]
        job = {"dataset": dataset, "input": {"delimiter": ";"},
               "attributes": {q: {"role": "quasi-identifying", "hierarchy": f"hierarchies/{q}.csv"} for q in QIS},
               "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 5}}], "suppression-limit": 0.05,
               "quality": {"model": "loss"}}
        body = json.dumps(job).encode()

        t0 = time.monotonic()
        submitted, ids = {}, []
        lock = threading.Lock()

        def submit():
            t = time.monotonic()
            i = call("POST", "/jobs", body)["id"]
            with lock:
                submitted[i] = t
                ids.append(i)

        threads = [threading.Thread(target=submit) for _ in range(args.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        status_ms, done = [], {}
        while len(done) < len(ids):
            for i in ids:
                if i in done:
                    continue
                t = time.monotonic()
                s = call("GET", f"/jobs/{i}")
                status_ms.append((time.monotonic() - t) * 1000)
                if s["status"] in ("done", "failed", "cancelled"):
                    done[i] = (time.monotonic(), s["status"])
                time.sleep(0.05)
        wall = time.monotonic() - t0
        with open(f"/proc/{server.pid}/status") as f:
            hwm = int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) * 1024

        latency = sorted(done[i][0] - submitted[i] for i in ids)
        status_ms.sort()
        print(json.dumps({
            "jobs": args.jobs, "workers": args.workers, "cores": os.cpu_count(),
            "load_before": open("/proc/loadavg").read().split()[:3],
            "statuses": sorted({s for _, s in done.values()}),
            "wall_s": round(wall, 2),
            "job_latency_s": {"median": round(statistics.median(latency), 2), "max": round(latency[-1], 2)},
            "status_call_ms": {"calls": len(status_ms), "median": round(statistics.median(status_ms), 2),
                               "p99": round(status_ms[int(0.99 * (len(status_ms) - 1))], 2),
                               "max": round(status_ms[-1], 2),
                               "over_200ms": sum(1 for x in status_ms if x > 200)},
            "server_peak_rss_mb": round(hwm / 2**20, 1),
        }))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
