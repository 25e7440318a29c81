#!/usr/bin/env python3
"""Wide tables, deid and ARX 3.9.2 side by side in one run.

    bench/wide-tables.py [--tables synthetic,census] [--qis 15,20,30,50] [--budgets 10,60,600]
                         [--deid-algorithms best-first,bottom-up,top-down,genetic]
                         [--arx-algorithms bottom-up,top-down,genetic] [--prove 15] [--prove-cap 1200]
                         [--work out/wide] [--jsonl FILE] [--deid build/deid] [--data ../shared/data]

For each table and number of quasi-identifiers (the table's first N columns)
it runs, one after another, each in a process of its own: ARX's heuristic
searches (bench/arx/ArxWide.java: BEST_EFFORT_BOTTOM_UP, BEST_EFFORT_TOP_DOWN,
BEST_EFFORT_GENETIC, ARX's defaults, setHeuristicSearchTimeLimit) and deid's
searches (`search: {algorithm: A, time-limit: S}`) with every time budget,
5-anonymity, suppression limit 5 %, Loss (gs-factor 0.5, geometric mean).
Then `deid anonymize --transformation` of every ARX optimum, which must give
ARX's loss (the two tools' Loss agree; `same_loss` in the line).

Each run prints one JSON line (also appended to --jsonl, default
WORK/runs.jsonl): the tool, algorithm, table, QIs, budget, the best loss,
the checks, the wall time, user and system CPU and peak RSS of the process
(GNU time), and for deid the seconds from the process's start until its best
loss first reached the target: the lowest loss any ARX heuristic reported at
the largest budget run for that table and width (`reach_target_s`, read from
deid's progress line, which the script shows on a pseudo-terminal: one
reading every 0.25 s, losses to 6 significant digits, so the time is that of
the first reading at or below the target so rounded, and only when the
final loss is at or below the target itself; losses within a relative 1e-10
count as equal, see SAME). Runs already in the JSONL file
are skipped, so an interrupted run resumes. At the end it prints a Markdown
table of all runs in the file.

--prove N runs best-first on N quasi-identifiers of the synthetic table
without a time limit (at most --prove-cap seconds) and records whether it
proved the optimum and how long it took.

The tables: `synthetic` is bench/make_synthetic_dataset.py --wide (adult and
cup records joined; needs the shared data folder, --data), `census` is
bench/make_census_dataset.py (a census-like extract). Both are written into
WORK once. Needs python3, GNU time (/usr/bin/time), java and javac 17, ARX
3.9.2's libarx-3.9.2.jar (ARX_JAR, or ARX_DIR with jars/ under it) and a
Release build of deid (--deid, default build/deid).
"""

import argparse
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TABLES = {
    "synthetic": ("synthetic.csv", "make_synthetic_dataset.py"),
    "census": ("census.csv", "make_census_dataset.py"),
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def parse_time_v(path):
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("Maximum resident set size (kbytes):"):
                out["peak_rss_kb"] = int(line.split(":")[1])
            elif line.startswith("User time (seconds):"):
                out["user_s"] = float(line.split(":")[1])
            elif line.startswith("System time (seconds):"):
                out["system_s"] = float(line.split(":")[1])
            elif line.startswith("Elapsed (wall clock) time"):
                v = line.split(": ", 1)[1].strip()
                parts = [float(x) for x in v.split(":")]
                secs = 0.0
                for p in parts:
                    secs = secs * 60 + p
                out["wall_s"] = round(secs, 2)
    return out


def run_timed(cmd, time_file, pty_stderr=False, cap=None):
    """Runs cmd under /usr/bin/time -v. With pty_stderr, standard error is a
    pseudo-terminal (200 columns) and the progress readings are returned as
    (seconds since start, best loss shown)."""
    full = ["/usr/bin/time", "-v", "-o", time_file] + cmd
    readings = []
    start = time.monotonic()
    if not pty_stderr:
        p = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=cap)
        return p.returncode, p.stdout, p.stderr, readings
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    env = dict(os.environ, DEID_PROGRESS_AFTER="0")
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    buf = b""
    text = []
    rx = re.compile(rb"best loss ([0-9.eE+-]+)")
    killed = False
    while True:
        if cap is not None and time.monotonic() - start > cap and not killed:
            p.kill()
            killed = True
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            now = time.monotonic() - start
            buf += chunk
            *lines, buf = re.split(rb"[\r\n]", buf)
            for line in lines:
                m = rx.search(line)
                if m:
                    try:
                        readings.append((round(now, 2), float(m.group(1))))
                    except ValueError:
                        pass
                elif line.strip():
                    text.append(line.decode(errors="replace"))
        elif p.poll() is not None:
            break
    os.close(master)
    stdout = p.stdout.read().decode(errors="replace")
    p.wait()
    return (None if killed else p.returncode), stdout, "\n".join(text), readings


def ensure_table(args, name):
    d = os.path.join(args.work, name)
    csv_name, script = TABLES[name]
    if os.path.exists(os.path.join(d, csv_name)):
        return d
    cmd = [sys.executable, os.path.join(HERE, script), d]
    if name == "synthetic":
        cmd += ["--wide"] + (["--data", args.data] if args.data else [])
    log("writing", name, "table:", " ".join(cmd))
    subprocess.run(cmd, check=True)
    return d


def columns(table_dir, name):
    with open(os.path.join(table_dir, TABLES[name][0]), encoding="utf-8") as f:
        return f.readline().rstrip("\n").split(";")


def write_job(path, table_dir, name, qis, algorithm, budget):
    lines = [
        f"# bench/wide-tables.py: {name}, {len(qis)} quasi-identifiers, {algorithm}, "
        + (f"time limit {budget} s" if budget else "no time limit"),
        "input:",
        f"  path: {os.path.join(table_dir, TABLES[name][0])}",
        '  delimiter: ";"',
        "attributes:",
    ]
    for q in qis:
        lines.append(f"  {q}: {{role: quasi-identifying, hierarchy: {os.path.join(table_dir, 'hierarchies', q + '.csv')}}}")
    lines += [
        "default-role: insensitive",
        "privacy:",
        "  - k-anonymity: {k: 5}",
        "suppression-limit: 0.05",
        "quality: {model: loss, aggregate: geometric-mean, gs-factor: 0.5}",
        "search: {algorithm: %s%s}" % (algorithm, f", time-limit: {budget}s" if budget else ""),
        "output: {utility: false}",
    ]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def key(r):
    return (r["tool"], r["algorithm"], r["table"], r["qis"], r.get("budget_s"), r.get("kind", "search"))


def load(path):
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    return out


def emit(args, rec):
    line = json.dumps(rec, sort_keys=False)
    print(line, flush=True)
    with open(args.jsonl, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def arx_classes(args):
    jar = os.environ.get("ARX_JAR") or (os.path.join(os.environ["ARX_DIR"], "jars", "libarx-3.9.2.jar")
                                        if os.environ.get("ARX_DIR") else None)
    if not jar or not os.path.exists(jar):
        sys.exit("wide-tables: set ARX_JAR to ARX 3.9.2's libarx-3.9.2.jar (or ARX_DIR); see bench/README.md")
    classes = os.path.join(args.work, "arx-classes")
    src = os.path.join(HERE, "arx", "ArxWide.java")
    stamp = os.path.join(classes, "ArxWide.class")
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(src):
        os.makedirs(classes, exist_ok=True)
        subprocess.run(["javac", "-nowarn", "-cp", jar, "-d", classes, src], check=True)
    return jar, classes


def run_arx(args, jar, classes, table, tdir, qis, algorithm, budget, steps=None):
    tf = os.path.join(args.work, "time.txt")
    cmd = ["java"] + args.java_opts.split() + ["-cp", f"{jar}:{classes}", "ArxWide",
                                               os.path.join(tdir, TABLES[table][0]), os.path.join(tdir, "hierarchies"),
                                               ",".join(qis), algorithm, str(budget), "5", "0.05"]
    if steps is not None:
        cmd.append(str(steps))
    rc, out, err, _ = run_timed(cmd, tf)
    rec = {"tool": "arx", "algorithm": algorithm, "table": table, "qis": len(qis), "budget_s": budget}
    if rc != 0:
        rec.update({"error": err.strip()[-500:]})
        return rec
    r = json.loads(out.strip().splitlines()[-1])
    rec.update({"loss": r["information_loss"], "checks": r["checks"], "search_s": r["search_s"],
                "transformation": r["transformation"]})
    rec.update(parse_time_v(tf))
    return rec


def run_deid(args, table, tdir, qis, algorithm, budget, target, cap=None, kind="search"):
    jobs = os.path.join(args.work, "jobs")
    os.makedirs(jobs, exist_ok=True)
    job = os.path.join(jobs, f"{table}-{len(qis)}-{algorithm}-{budget or 'none'}.yaml")
    write_job(job, tdir, table, qis, algorithm, budget)
    result = os.path.join(args.work, "result.json")
    if os.path.exists(result):
        os.remove(result)
    tf = os.path.join(args.work, "time.txt")
    cmd = [args.deid, "--threads", str(args.threads), "anonymize", job, "--output", os.path.join(args.work, "out.csv"),
           "--result", result]
    rc, out, err, readings = run_timed(cmd, tf, pty_stderr=True, cap=cap)
    rec = {"tool": "deid", "algorithm": algorithm, "table": table, "qis": len(qis), "budget_s": budget}
    if kind != "search":
        rec["kind"] = kind
    if rc is None:
        rec.update({"killed_after_s": cap})
        rec.update(parse_time_v(tf) if os.path.exists(tf) else {})
        if readings:
            rec["loss_shown_last"] = readings[-1][1]
        return rec
    if rc not in (0, 1) or not os.path.exists(result):
        rec.update({"error": (err or out).strip()[-500:]})
        return rec
    with open(result, encoding="utf-8") as f:
        res = json.load(f)
    s = res.get("search", {})
    rec.update({"loss": res.get("information_loss"), "checks": s.get("transformations_checked"),
                "optimal": res.get("optimal"), "time_to_best_ms": s.get("time_to_best_ms"),
                "checks_to_best": s.get("checks_to_best"),
                "search_ms": res.get("time_ms", {}).get("search")})
    rec.update(parse_time_v(tf))
    if target is not None:
        rec["target"] = target
        rec["reach_target_s"] = reach(readings, rec["loss"], target)
    rec["progress"] = thin(readings)
    return rec


# Losses within this relative difference count as equal: deid's Loss of ARX's own transformation differs
# from ARX's by up to 4e-11 here (ARX sums doubles, deid integers, before both truncate to 10 digits).
SAME = 1e-10


def reach(readings, final, target):
    if final is None or final > target * (1 + SAME):
        return None
    shown = float(f"{target:.6g}")
    for t, v in readings:
        if v <= shown:
            return t
    return None


def thin(readings):
    """Each change of the loss shown, with its time."""
    out = []
    for t, v in readings:
        if not out or out[-1][1] != v:
            out.append([t, v])
    return out


def given(args, table, tdir, qis, transformation):
    jobs = os.path.join(args.work, "jobs")
    os.makedirs(jobs, exist_ok=True)
    job = os.path.join(jobs, f"{table}-{len(qis)}-given.yaml")
    write_job(job, tdir, table, qis, "best-first", None)
    result = os.path.join(args.work, "given.json")
    t = ",".join(f"{q}={transformation[q]}" for q in qis)
    p = subprocess.run([args.deid, "-q", "anonymize", job, "--transformation", t, "--output",
                        os.path.join(args.work, "out.csv"), "--result", result], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None
    with open(result, encoding="utf-8") as f:
        return json.load(f).get("information_loss")


def reach_runs(args, jar, classes):
    """ARX's time to ARX's best loss, for the searches both tools share (bottom-up, top-down, genetic: the
    same checks in the same order): deid's checks until its best (rerun briefly when the record lacks them),
    then ARX's same search with that step limit; its search time is ARX's time to that loss."""
    records = load(args.jsonl)
    tg = targets(records)
    done = {key(r) for r in records if "error" not in r}
    for (table, n), (target, top) in sorted(tg.items()):
        tdir = ensure_table(args, table)
        qis = columns(tdir, table)[:n]
        for a in ("bottom-up", "top-down", "genetic"):
            runs = [r for r in records if r["tool"] == "deid" and r["algorithm"] == a and r["table"] == table
                    and r["qis"] == n and r.get("kind", "search") == "search" and r.get("loss") is not None]
            if not runs:
                continue
            r = max(runs, key=lambda r: r["budget_s"])
            if r["loss"] > target * (1 + SAME) or ("arx", a, table, n, top, "reach") in done:
                continue
            checks = r.get("checks_to_best")
            if checks is None:
                # Deterministic: a run long enough to find the same best has the same checks until it.
                budget = int(r["time_to_best_ms"] / 1000 * 2 + 3)
                log(f"deid {a}, {table}, {n} QIs, {budget} s, for its checks to the best")
                again = run_deid(args, table, tdir, qis, a, budget, None)
                if again.get("loss") != r["loss"]:
                    log("  not the same best; skipped")
                    continue
                checks = again["checks_to_best"]
            log(f"ARX {a}, {table}, {n} QIs, up to {checks} checks")
            rec = run_arx(args, jar, classes, table, tdir, qis, a, 3600, steps=checks)
            rec.update({"kind": "reach", "budget_s": top, "step_limit": checks, "deid_time_to_best_ms": r["time_to_best_ms"],
                        "deid_loss": r["loss"]})
            rec.pop("transformation", None)
            emit(args, rec)


def fmt_loss(v):
    return "—" if v is None else f"{v:.6f}"


def targets(records):
    """(table, QIs) -> the lowest loss an ARX heuristic reported at the largest budget run."""
    arx = [r for r in records if r["tool"] == "arx" and r.get("loss") is not None and r.get("kind", "search") == "search"]
    out = {}
    for k in {(r["table"], r["qis"]) for r in arx}:
        runs = [r for r in arx if (r["table"], r["qis"]) == k]
        top = max(r["budget_s"] for r in runs)
        out[k] = (min(r["loss"] for r in runs if r["budget_s"] == top), top)
    return out


def table_md(records):
    """One row per table, width and algorithm; one column per budget."""
    budgets = sorted({r["budget_s"] for r in records if r.get("kind", "search") == "search" and r.get("budget_s")})
    tg = targets(records)
    rows = {}
    for r in records:
        if r.get("kind", "search") != "search" or not r.get("budget_s"):
            continue
        k = (r["table"], r["qis"], r["tool"], r["algorithm"])
        rows.setdefault(k, {})[r["budget_s"]] = r
    out = ["| table | QIs | tool | search | " + " | ".join(f"loss after {b:g} s" for b in budgets)
           + " | reaches ARX's best | checks (largest budget) | peak RSS (MB) |",
           "|---|---|---|---|" + "---|" * len(budgets) + "---|---|---|"]
    order = {"arx": 0, "deid": 1}
    for k in sorted(rows, key=lambda k: (k[0], k[1], order[k[2]], k[3])):
        cells = []
        rss = 0
        target = tg.get((k[0], k[1]))
        reach_cell = ""
        for b in budgets:
            r = rows[k].get(b)
            cells.append("" if r is None else "error" if "error" in r else fmt_loss(r.get("loss")))
            if r is not None:
                rss = max(rss, r.get("peak_rss_kb", 0))
        if target is not None:
            runs = [rows[k][b] for b in budgets if b in rows[k] and rows[k][b].get("loss") is not None]
            if k[2] == "arx":
                hit = [r["budget_s"] for r in runs if r["loss"] <= target[0] * (1 + SAME)]
                reach_cell = f"within {min(hit):g} s" if hit else "no"
            elif runs:
                longest = max(runs, key=lambda r: r["budget_s"])
                t = reach([tuple(x) for x in longest.get("progress", [])], longest["loss"], target[0])
                reach_cell = "no" if t is None else f"{t:.1f} s"
        done = [rows[k][b] for b in budgets if b in rows[k] and rows[k][b].get("checks") is not None]
        checks = f"{done[-1]['checks']:,}" if done else ""
        out.append(f"| {k[0]} | {k[1]} | {'ARX 3.9.2' if k[2] == 'arx' else 'deid'} | {k[3]} | " + " | ".join(cells)
                   + f" | {reach_cell} | {checks} | {rss / 1024:.0f} |")
    for (table, n), (loss, top) in sorted(tg.items()):
        out.append("")
        out.append(f"{table}, {n} QIs: ARX's best loss at {top:g} s (the target) {loss:.10g}")
    for r in records:
        if r["tool"] == "arx" and r.get("loss_relative_difference", 0) > SAME:
            out.append(f"WARNING: deid's loss of ARX's transformation differs: {r}")
    given = [r for r in records if r["tool"] == "arx" and "same_loss" in r]
    if given:
        worst = max(r.get("loss_relative_difference", 0) for r in given)
        out.append("")
        out.append(f"ARX's transformations checked by deid: {len(given)}, the same loss to the last bit in "
                   f"{sum(1 for r in given if r['same_loss'])}, largest relative difference {worst:.2g}")
    reach_recs = [r for r in records if r.get("kind") == "reach"]
    if reach_recs:
        out.append("")
        out.append("| table | QIs | search | checks to ARX's best | ARX: search time to it | deid: search time to it | deid / ARX |")
        out.append("|---|---|---|---|---|---|---|")
        for r in sorted(reach_recs, key=lambda r: (r["table"], r["qis"], r["algorithm"])):
            if r.get("search_s") is None:
                continue
            same = r.get("loss") is not None and abs(r["loss"] - r["deid_loss"]) <= SAME * r["deid_loss"]
            d = r["deid_time_to_best_ms"] / 1000
            out.append(f"| {r['table']} | {r['qis']} | {r['algorithm']} | {r['step_limit']:,} | {r['search_s']:.1f} s"
                       f"{'' if same else ' (another loss: ' + fmt_loss(r.get('loss')) + ')'} | {d:.1f} s | "
                       f"{d / r['search_s']:.2f} |")
    for r in [r for r in records if r.get("kind") == "prove"]:
        out.append("")
        if r.get("killed_after_s"):
            out.append(f"best-first, {r['table']} {r['qis']} QIs, no time limit: stopped after {r['killed_after_s']:g} s "
                       "without proving the optimum")
        else:
            out.append(f"best-first, {r['table']} {r['qis']} QIs, no time limit: optimal={r.get('optimal')}, loss "
                       f"{fmt_loss(r.get('loss'))}, {r.get('checks')} checks, {r.get('wall_s')} s wall, "
                       f"{r.get('user_s')} s user CPU, {r.get('peak_rss_kb', 0) / 1024:.0f} MB")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="synthetic,census")
    ap.add_argument("--qis", default="15,20,30,50")
    ap.add_argument("--budgets", default="10,60,600")
    ap.add_argument("--deid-algorithms", default="best-first,bottom-up,top-down,genetic")
    ap.add_argument("--arx-algorithms", default="bottom-up,top-down,genetic")
    ap.add_argument("--prove", type=int, default=0, help="best-first without a time limit on this many QIs (synthetic)")
    ap.add_argument("--prove-table", default="synthetic")
    ap.add_argument("--prove-cap", type=float, default=1200)
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "wide"))
    ap.add_argument("--jsonl")
    ap.add_argument("--deid", default=os.path.join(ROOT, "build", "deid"))
    ap.add_argument("--data", help="the shared data folder with adult/ and cup/ (make_synthetic_dataset.py's default)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--java-opts", default=os.environ.get("ARX_JAVA_OPTS", ""))
    ap.add_argument("--table-only", action="store_true", help="print the Markdown table of the JSONL file and stop")
    ap.add_argument("--reach", action="store_true",
                    help="for each deid heuristic that reached ARX's best: ARX's same search up to deid's checks to it")
    args = ap.parse_args()
    args.work = os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    args.jsonl = args.jsonl or os.path.join(args.work, "runs.jsonl")
    if args.table_only:
        print(table_md(load(args.jsonl)))
        return

    done = {key(r) for r in load(args.jsonl) if "error" not in r}
    budgets = [float(b) if "." in b else int(b) for b in args.budgets.split(",") if b]
    jar, classes = arx_classes(args) if args.arx_algorithms or args.reach else (None, None)
    for table in [t for t in args.tables.split(",") if t]:
        tdir = ensure_table(args, table)
        cols = columns(tdir, table)
        for n in [int(x) for x in args.qis.split(",") if x]:
            qis = cols[:n]
            for budget in budgets:
                for a in [a for a in args.arx_algorithms.split(",") if a]:
                    if ("arx", a, table, n, budget, "search") in done:
                        continue
                    log(f"ARX {a}, {table}, {n} QIs, {budget} s")
                    rec = run_arx(args, jar, classes, table, tdir, qis, a, budget)
                    if rec.get("transformation"):
                        dl = given(args, table, tdir, qis, rec["transformation"])
                        rec["deid_loss_of_transformation"] = dl
                        rec["same_loss"] = dl == rec["loss"]
                        if dl is not None:
                            rec["loss_relative_difference"] = abs(dl - rec["loss"]) / max(abs(rec["loss"]), 1e-300)
                    emit(args, rec)
            # deid, with ARX's best loss at the largest budget run so far as the target.
            for budget in budgets:
                arx = [r for r in load(args.jsonl) if r["tool"] == "arx" and r["table"] == table and r["qis"] == n
                       and r.get("loss") is not None]
                target = None
                if arx:
                    top = max(r["budget_s"] for r in arx)
                    target = min(r["loss"] for r in arx if r["budget_s"] == top)
                for a in [a for a in args.deid_algorithms.split(",") if a]:
                    if ("deid", a, table, n, budget, "search") in done:
                        continue
                    log(f"deid {a}, {table}, {n} QIs, {budget} s")
                    emit(args, run_deid(args, table, tdir, qis, a, budget, target, cap=budget * 3 + 120))
    if args.reach:
        reach_runs(args, jar, classes)
    if args.prove:
        table = args.prove_table
        tdir = ensure_table(args, table)
        qis = columns(tdir, table)[:args.prove]
        if ("deid", "best-first", table, args.prove, None, "prove") not in done:
            log(f"deid best-first, {table}, {args.prove} QIs, no time limit (at most {args.prove_cap} s)")
            emit(args, run_deid(args, table, tdir, qis, "best-first", None, None, cap=args.prove_cap, kind="prove"))
    print(table_md(load(args.jsonl)))


if __name__ == "__main__":
    main()
