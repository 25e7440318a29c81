#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Load and abuse on `deid serve` (docs/web.md, "Connections"), all on 127.0.0.1.

Starts `deid serve` on a free loopback port and, for --seconds, runs:

- --clients well-behaved clients (default 200), in four equal groups:
  sessions (upload a small table, submit a job on it, follow its /events
  to the end, fetch the result, delete the table), streamers (submit a job
  on a shared table and follow its /events), submitters (submit a job on
  the shared table, poll GET /jobs/ID until it ends), pollers (GET
  /jobs/ID, /datasets/ID, /version in a loop);
- --slow slow clients (default 50): half send a request head one byte a
  second, never finishing it; half request adult's released table and read
  it 256 bytes a second through a small receive buffer.

Every status call (GET /jobs/ID) is timed. Prints one JSON line: requests
made and failed by the well-behaved clients (a failure is a reset, a
timeout, a 5xx, or any status other than the one expected), the status
calls' p50/p99/max, what the slow clients saw, and the server's peak RSS
(VmHWM). Exit status 1 when a well-behaved request failed.

    bench/serve-load.py [--deid build/deid] [--seconds 30] [--clients 200] [--slow 50] [--procs 4]

Python 3 standard library only. The clients are threads of --procs
processes (default 4), so that one interpreter lock does not add its waits
to the latencies; they still share the machine's cores with the server.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QIS = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass",
       "occupation"]
SMALL = ("name,age,sex,zip\n" + "".join(f"p{i},{30 + i % 40},{'male' if i % 2 else 'female'},{81000 + i % 50}\n"
                                         for i in range(200))).encode()


def small_job(dataset):
    return {"dataset": dataset,
            "attributes": {"name": {"role": "identifying"},
                           "age": {"role": "quasi-identifying",
                                   "hierarchy": {"type": "intervals", "min": 0, "max": 100, "widths": [10, 50]}},
                           "sex": {"role": "quasi-identifying", "hierarchy": [["male", "*"], ["female", "*"]]},
                           "zip": {"role": "quasi-identifying", "hierarchy": {"type": "masking", "levels": 5}}},
            "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 2}}], "suppression-limit": 0}


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.failures = {}
        self.status_ms = []

    def ok(self):
        with self.lock:
            self.requests += 1

    def fail(self, what):
        with self.lock:
            self.requests += 1
            self.failures[what] = self.failures.get(what, 0) + 1


class Client:
    """One keep-alive connection with the token; reconnects when the server closed it."""

    def __init__(self, port, token, stats):
        self.port, self.token, self.stats = port, token, stats
        self.conn = None

    def call(self, method, path, body=None, ctype="application/json", expect=(200,), timed=False):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            t = time.monotonic()
            try:
                self.conn.request(method, path, body=body,
                                  headers={"Authorization": f"Bearer {self.token}", "Content-Type": ctype})
                r = self.conn.getresponse()
                data = r.read()
            except (http.client.RemoteDisconnected, BrokenPipeError) as e:
                # The server closes an idle kept-alive connection after 5 s;
                # a request that met that close is sent again, once.
                self.conn.close()
                self.conn = None
                if attempt == 0:
                    continue
                self.stats.fail(type(e).__name__)
                return None
            except OSError as e:
                self.conn.close()
                self.conn = None
                self.stats.fail(type(e).__name__)
                return None
            ms = (time.monotonic() - t) * 1000
            if r.getheader("Connection", "").lower() == "close":
                self.conn.close()
                self.conn = None
            if r.status not in expect:
                self.stats.fail(f"{method} {re.sub('[0-9a-f]{32}', 'ID', path)} {r.status}")
                return None
            self.stats.ok()
            if timed:
                with self.stats.lock:
                    self.stats.status_ms.append(ms)
            return json.loads(data) if data and r.getheader("Content-Type", "").startswith("application/json") \
                else data

    def follow(self, job):
        """Reads /events to the last event on a connection of its own; its final status."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            conn.request("GET", f"/api/v1/jobs/{job}/events", headers={"Authorization": f"Bearer {self.token}"})
            r = conn.getresponse()
            if r.status != 200:
                self.stats.fail(f"GET /jobs/ID/events {r.status}")
                r.read()
                return None
            event = None
            while True:
                line = r.readline()
                if not line:
                    break
                if line.startswith(b"event: ") and line[7:].strip() in (b"done", b"failed", b"cancelled"):
                    event = line[7:].strip().decode()
                    break
            self.stats.ok() if event else self.stats.fail("events ended early")
            return event
        except OSError as e:
            self.stats.fail(type(e).__name__)
            return None
        finally:
            conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deid", default=os.path.join(ROOT, "build", "deid"))
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--slow", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--procs", type=int, default=4, help="client processes (the clients are split among them)")
    args = ap.parse_args()

    token = "load-test-token"
    # The quota of jobs is raised: the clients submit thousands in a run.
    server = subprocess.Popen([args.deid, "serve", "--port", "0", "--token", token, "--workers", str(args.workers),
                               "--max-jobs", "1000000", "--data-dir", os.path.join(ROOT, "examples", "adult")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        m = re.search(r"http://([0-9.]+):(\d+)/", server.stdout.readline())
        if not m:
            sys.exit("serve-load: the server printed no address")
        port = int(m.group(2))
        stats = Stats()
        setup = Client(port, token, stats)
        shared = setup.call("POST", "/api/v1/datasets?name=small.csv", SMALL, "text/csv", expect=(201,))["id"]
        adult = setup.call("POST", "/api/v1/datasets", json.dumps({"file": "adult.csv"}).encode(),
                           expect=(201,))["id"]
        job = {"dataset": adult, "input": {"delimiter": ";"},
               "attributes": {q: {"role": "quasi-identifying", "hierarchy": f"hierarchies/{q}.csv"} for q in QIS},
               "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 5}}], "suppression-limit": 0.05}
        adult_job = setup.call("POST", "/api/v1/jobs", json.dumps(job).encode(), expect=(202,))["id"]
        while setup.call("GET", f"/api/v1/jobs/{adult_job}")["status"] not in ("done", "failed", "cancelled"):
            time.sleep(0.2)
        stats.requests = 0  # the setup is not measured
        small_body = json.dumps(small_job(shared)).encode()
        end = time.monotonic() + args.seconds

        def session():
            c = Client(port, token, stats)
            while time.monotonic() < end:
                r = c.call("POST", "/api/v1/datasets?name=s.csv", SMALL, "text/csv", expect=(201,))
                if not r:
                    continue
                d = r["id"]
                j = c.call("POST", "/api/v1/jobs", json.dumps(small_job(d)).encode(), expect=(202,))
                if j and c.follow(j["id"]) == "done":
                    c.call("GET", f"/api/v1/jobs/{j['id']}/result")
                c.call("DELETE", f"/api/v1/datasets/{d}", expect=(204,))

        def streamer():
            c = Client(port, token, stats)
            while time.monotonic() < end:
                j = c.call("POST", "/api/v1/jobs", small_body, expect=(202,))
                if j:
                    c.follow(j["id"])

        def submitter():
            c = Client(port, token, stats)
            while time.monotonic() < end:
                j = c.call("POST", "/api/v1/jobs", small_body, expect=(202,))
                while j and time.monotonic() < end + 60:
                    s = c.call("GET", f"/api/v1/jobs/{j['id']}", timed=True)
                    if not s or s["status"] in ("done", "failed", "cancelled"):
                        break
                    time.sleep(0.05)

        def poller():
            c = Client(port, token, stats)
            while time.monotonic() < end:
                c.call("GET", f"/api/v1/jobs/{adult_job}", timed=True)
                c.call("GET", f"/api/v1/datasets/{shared}")
                c.call("GET", "/api/v1/version")
                time.sleep(0.02)

        slow = {"heads": 0, "head_answers": {}, "readers": 0, "read_bytes": 0, "reader_ends": {}}
        slow_lock = threading.Lock()

        def slow_head():
            while time.monotonic() < end:
                s = socket.create_connection(("127.0.0.1", port))
                head = f"GET /api/v1/jobs/{adult_job} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: " + "a" * 100
                s.settimeout(1)
                answer = b""
                try:
                    for ch in head.encode():
                        if time.monotonic() >= end:
                            break
                        s.send(bytes([ch]))
                        try:
                            answer = s.recv(200) or b"closed"
                            break  # the server's answer (408), or its close
                        except socket.timeout:
                            pass  # the one-second pause between bytes
                except OSError as e:
                    answer = type(e).__name__.encode()
                s.close()
                key = answer[:12].decode(errors="replace") if answer else "none"
                with slow_lock:
                    slow["heads"] += 1
                    slow["head_answers"][key] = slow["head_answers"].get(key, 0) + 1

        def slow_reader():
            while time.monotonic() < end:
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(("127.0.0.1", port))
                s.sendall(f"GET /api/v1/jobs/{adult_job}/output HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          f"Authorization: Bearer {token}\r\n\r\n".encode())
                s.settimeout(5)
                how = "ended"
                try:
                    while time.monotonic() < end:
                        chunk = s.recv(256)
                        if not chunk:
                            how = "closed by server"
                            break
                        with slow_lock:
                            slow["read_bytes"] += len(chunk)
                        time.sleep(1)
                except OSError as e:
                    how = type(e).__name__
                s.close()
                with slow_lock:
                    slow["readers"] += 1
                    slow["reader_ends"][how] = slow["reader_ends"].get(how, 0) + 1

        groups = [session, streamer, submitter, poller]

        def run_share(share, queue):
            """Runs clients share, share + procs, ... of this run in threads of
            one process; sends back what they counted."""
            threads = [threading.Thread(target=groups[i % 4]) for i in range(share, args.clients, args.procs)]
            threads += [threading.Thread(target=slow_head if i % 2 == 0 else slow_reader)
                        for i in range(share, args.slow, args.procs)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            queue.put({"requests": stats.requests, "failures": stats.failures, "status_ms": stats.status_ms,
                       "slow": slow})

        # The clients in several processes: threads of one Python process
        # share its interpreter lock, which would add its waits to the
        # latencies measured.
        queue = multiprocessing.get_context("fork").Queue()
        procs = [multiprocessing.get_context("fork").Process(target=run_share, args=(i, queue))
                 for i in range(args.procs)]
        t0 = time.monotonic()
        for p in procs:
            p.start()
        shares = [queue.get() for _ in procs]
        for p in procs:
            p.join()
        for sh in shares:
            stats.requests += sh["requests"]
            stats.status_ms += sh["status_ms"]
            for k, v in sh["failures"].items():
                stats.failures[k] = stats.failures.get(k, 0) + v
        slow = {"heads": sum(sh["slow"]["heads"] for sh in shares),
                "readers": sum(sh["slow"]["readers"] for sh in shares),
                "read_bytes": sum(sh["slow"]["read_bytes"] for sh in shares),
                "head_answers": {}, "reader_ends": {}}
        for sh in shares:
            for key in ("head_answers", "reader_ends"):
                for k, v in sh["slow"][key].items():
                    slow[key][k] = slow[key].get(k, 0) + v
        wall = time.monotonic() - t0
        with open(f"/proc/{server.pid}/status") as f:
            status = f.read()
        hwm = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024
        threads_now = int(re.search(r"Threads:\s+(\d+)", status).group(1))
        ms = sorted(stats.status_ms)

        def pct(p):
            return round(ms[min(len(ms) - 1, int(p * (len(ms) - 1)))], 2) if ms else None

        print(json.dumps({
            "clients": args.clients, "slow_clients": args.slow, "seconds": args.seconds, "wall_s": round(wall, 1),
            "cores": os.cpu_count(), "load_before": open("/proc/loadavg").read().split()[:3],
            "requests": stats.requests, "failed": sum(stats.failures.values()), "failures": stats.failures,
            "status_call_ms": {"calls": len(ms), "p50": pct(0.5), "p99": pct(0.99), "max": pct(1.0),
                               "over_100ms": sum(1 for x in ms if x > 100)},
            "slow": slow, "server_peak_rss_mb": round(hwm / 2**20, 1), "server_threads_at_end": threads_now,
        }))
        return 1 if stats.failures else 0
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
