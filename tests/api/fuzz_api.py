#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fuzzes the REST API of `deid serve` against docs/openapi.yaml with schemathesis.

Starts `deid serve` on a free port of 127.0.0.1 (--data-dir examples/adult,
read only; --share with a token store and audit log made here), opens adult and submits one job so that real ids exist, then
runs schemathesis over every operation of the spec for a bounded number of
examples per operation and a bounded time, with these checks: no 5xx, the
status codes, content types and response bodies the spec declares, and
methods the spec does not list answered 405. The server is stopped at the
end, also when schemathesis fails or the script is interrupted.

    tests/api/fuzz_api.py --deid build/deid [--examples 20] [--max-time 120] [--schemathesis PATH]

Exit status: schemathesis's (0: no failure found).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_share(deid, state):
    """A share for the /share paths (docs/web.md, "Sharing"): a token store
    with recipients and an audit log with a refused connection and a
    session, in `state`; its configuration's path."""
    share = os.path.join(state, "share")
    os.mkdir(share)
    with open(os.path.join(share, "share.yaml"), "w") as f:
        f.write("upstream: {address: 127.0.0.1:5900}\ntokens: tokens.json\naudit: audit.jsonl\n")
    for name in ("alice", "bob", "carol"):
        subprocess.run([deid, "share", "token", "add", "--tokens", os.path.join(share, "tokens.json"),
                        "--recipient", name], check=True, capture_output=True)
    lines = [{"session": "s1", "event": "connection", "peer": "127.0.0.1:1"},
             {"session": "s1", "event": "refused", "peer": "127.0.0.1:1", "reason": "unknown token"},
             {"session": "s2", "event": "connection", "peer": "127.0.0.1:2"},
             {"session": "s2", "recipient": "alice", "event": "session-start", "peer": "127.0.0.1:2",
              "width": 640, "height": 480},
             {"session": "s2", "recipient": "alice", "event": "key", "verdict": "forwarded", "down": True,
              "keysym": "0x0061"},
             {"session": "s2", "recipient": "alice", "event": "session-end", "reason": "the proxy stopped",
              "keys": 1, "keys-dropped": 0}]
    with open(os.path.join(share, "audit.jsonl"), "w") as f:
        for i, line in enumerate(lines):
            f.write(json.dumps({"time": f"2026-11-29T08:00:0{i}.000000Z", **line}) + "\n")
    return os.path.join(share, "share.yaml")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deid", required=True)
    ap.add_argument("--schemathesis", default=os.path.join(ROOT, "tests", "api", ".venv", "bin", "schemathesis"))
    ap.add_argument("--examples", type=int, default=20)
    ap.add_argument("--max-time", type=int, default=120)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--report-dir", default=None)
    args = ap.parse_args()
    if not os.path.exists(args.schemathesis):
        sys.exit(f"fuzz_api: no {args.schemathesis}: run scripts/install-deps.sh --test")

    token = "api-fuzz-token"
    with tempfile.TemporaryDirectory(prefix="deid-api-fuzz-") as state:
        share = make_share(args.deid, state)
        server = subprocess.Popen(
            [args.deid, "serve", "--port", "0", "--token", token, "--workers", "1", "--state-dir", state,
             "--max-upload-mb", "16", "--data-dir", os.path.join(ROOT, "examples", "adult"), "--share", share],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", server.stdout.readline())
            if not m:
                sys.exit("fuzz_api: the server printed no address")
            base = f"http://127.0.0.1:{m.group(1)}/api/v1"

            def call(method, path, body=None):
                req = urllib.request.Request(base + path, data=body, method=method,
                                             headers={"Authorization": f"Bearer {token}",
                                                      "Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=60) as r:
                    return json.loads(r.read())

            dataset = call("POST", "/datasets", json.dumps({"file": "adult.csv"}).encode())["id"]
            job = call("POST", "/jobs", json.dumps({
                "dataset": dataset, "input": {"delimiter": ";"},
                "attributes": {"sex": {"role": "quasi-identifying", "hierarchy": "hierarchies/sex.csv"}},
                "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 5}}]}).encode())["id"]
            for _ in range(600):
                if call("GET", f"/jobs/{job}")["status"] in ("done", "failed", "cancelled"):
                    break
                time.sleep(0.1)
            # The spec's examples of an id are these: the coverage and
            # examples phases then reach real resources, not only 404s.
            cmd = [args.schemathesis, "run", os.path.join(ROOT, "docs", "openapi.yaml"), "--url", base,
                   "-H", f"Authorization: Bearer {token}",
                   "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                               "response_schema_conformance,unsupported_method",
                   "--max-examples", str(args.examples), "--seed", str(args.seed), "--max-time", str(args.max_time),
                   # One worker: schemathesis 4.32's generator is not thread-safe
                   # (it failed with a SystemError from Python's AST with two).
                   "--workers", "1", "--request-timeout", "30", "--suppress-health-check", "all",
                   "--phases", "examples,coverage,fuzzing"]
            if args.report_dir:
                cmd += ["--report", "junit", "--report-dir", args.report_dir]
            env = dict(os.environ, DEID_DATASET=dataset, DEID_JOB=job, SCHEMATHESIS_HOOKS="")
            print("fuzz_api:", " ".join(cmd), flush=True)
            rc = subprocess.call(cmd, env=env)
            # The server survived the run: it still answers.
            alive = call("GET", "/version")["name"] == "deid"
            print(f"fuzz_api: schemathesis exit {rc}; server still answers: {alive}", flush=True)
            return rc if alive else 3
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


if __name__ == "__main__":
    sys.exit(main())
