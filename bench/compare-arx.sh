#!/usr/bin/env bash
# Same-run comparison with ARX: runs one deid job in deid and in ARX 3.9.2 back to back on this machine and
# prints one JSON line and a table: deid's wall time (the whole `deid --quiet anonymize` process, median of N
# runs, /usr/bin/time -v), ARX's wall time (its anonymize() call, median of N runs in one warmed-up JVM, from
# bench/arx/ArxRun.java), the ratio deid / ARX (of wall times, and of CPU times: deid's process, the JVM's CPU
# during anonymize()), the transformations each checked, both optima and information losses, and whether
# they agree.
#
#   bench/compare-arx.sh JOB.yaml [--runs N] [--threads T] [--warmup W]
#
#   --runs N     runs of each tool (default 3); the medians are compared
#   --threads T  deid --threads T (ARX is run as it is)
#   --warmup W   unmeasured ARX runs in the JVM before the N measured ones (default 1; short jobs need 3 to 5)
#
# Environment:
#   DEID          the deid binary (default build/deid of this repository)
#   ARX_JAR       ARX's library jar with its dependencies (libarx-3.9.2.jar), or
#   ARX_DIR       an ARX source tree where `ant jar-libs` was run (the jar is ARX_DIR/jars/libarx-*.jar)
#   BENCH_DIR     work files and the compiled harness (default /tmp/deid-bench); nothing is written to the repository
#   JAVA, JAVAC   (default java, javac); ARX_JAVA_OPTS: options of the JVM (default none)
#
# The job file is translated by python3 (Debian python3-yaml) into the harness's options; a job that uses what
# the harness does not express (cell suppression, a time or check limit) is rejected with exit 2. Inline
# hierarchies are written with `deid hierarchy` first. ARX always runs its globally optimal search (FLASH).
# Needs java/javac 17 (Debian openjdk-17-jdk), GNU time (Debian time). Exit codes: 0 compared (whether or not
# the tools agree), 2 missing tool, ARX build or bad job, 3 a tool failed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "compare-arx: error: $*" >&2; exit 2; }

job="" runs=3 threads="" warmup=1
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a number"; threads=$2; shift 2 ;;
    --warmup) [ $# -ge 2 ] || die "--warmup needs a number"; warmup=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$job" ] || die "one job file only ('$job', '$1')"; job=$1; shift ;;
  esac
done
[ -n "$job" ] || { usage >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer, got '$runs'"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup must be a non-negative integer, got '$warmup'"
[ -z "$threads" ] || [[ $threads =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer, got '$threads'"
[ -f "$job" ] || die "job file '$job' not found"
job=$(cd "$(dirname "$job")" && pwd)/$(basename "$job")

arx_help() {
  cat >&2 <<'EOF'
compare-arx: ARX 3.9.2 was not found. Set ARX_JAR to its library jar, or ARX_DIR to a built source tree.
ARX is not shipped with deid; build it from its public repository (Debian packages: ant, openjdk-17-jdk):

  git clone https://github.com/arx-deidentifier/arx.git arx-3.9.2
  cd arx-3.9.2
  git checkout v3.9.2
  ant jar-libs        # compiles ARX; writes jars/libarx-3.9.2.jar (ARX with the libraries of lib/ant)
  export ARX_JAR=$PWD/jars/libarx-3.9.2.jar    # or: export ARX_DIR=$PWD

Then run bench/compare-arx.sh again. (bench/README.md, "Same-run comparison with ARX", has the details.)
EOF
  exit 2
}

# ARX's jar.
if [ -n "${ARX_JAR:-}" ]; then
  [ -f "$ARX_JAR" ] || { echo "compare-arx: ARX_JAR=$ARX_JAR does not exist" >&2; arx_help; }
  arx_jar=$ARX_JAR
elif [ -n "${ARX_DIR:-}" ]; then
  arx_jar=""
  for f in "$ARX_DIR"/jars/libarx-*.jar; do
    case $f in *-min.jar|*-src.jar|*-doc.jar) ;; *) [ -f "$f" ] && { arx_jar=$f; break; } ;; esac
  done
  [ -n "$arx_jar" ] || { echo "compare-arx: no jars/libarx-VERSION.jar in ARX_DIR=$ARX_DIR" >&2; arx_help; }
else
  arx_help
fi
arx_jar=$(cd "$(dirname "$arx_jar")" && pwd)/$(basename "$arx_jar")

# The other tools.
deid=${DEID:-$root/build/deid}
[ -x "$deid" ] || die "deid binary '$deid' not found; build it (cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build deid_cli) or set DEID"
java=${JAVA:-java}
javac=${JAVAC:-javac}
command -v "$java" > /dev/null || die "'$java' not found (Debian package openjdk-17-jdk)"
command -v "$javac" > /dev/null || die "'$javac' not found (Debian package openjdk-17-jdk)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
python=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" > /dev/null && "$p" -c 'import yaml' 2> /dev/null; then python=$p; break; fi
done
[ -n "$python" ] || die "python3 with the yaml module not found (Debian packages python3, python3-yaml)"

bench=${BENCH_DIR:-/tmp/deid-bench}
mkdir -p "$bench"
bench=$(cd "$bench" && pwd)

# The harness, compiled once per (source, jar) into the cache.
key=$( { sha256sum "$root/bench/arx/ArxRun.java"; echo "$arx_jar"; stat -c '%s %Y' "$arx_jar"; } | sha256sum | cut -c1-16)
classes=$bench/arx-harness/$key
if [ ! -f "$classes/ArxRun.class" ]; then
  mkdir -p "$classes.tmp.$$"
  "$javac" -nowarn -cp "$arx_jar" -d "$classes.tmp.$$" "$root/bench/arx/ArxRun.java" \
    || { rm -rf "$classes.tmp.$$"; echo "compare-arx: compiling bench/arx/ArxRun.java against $arx_jar failed" >&2; exit 3; }
  rm -rf "$classes"; mv "$classes.tmp.$$" "$classes"
fi

name=$(basename "$job" .yaml)
work=$bench/compare-arx/$name
rm -rf "$work"; mkdir -p "$work"

# The job, translated into the harness's options (NUL-separated in $work/arx.args) and deid's extra options.
"$python" - "$job" "$work" "$deid" <<'PY' || exit $?
import csv, itertools, json, os, subprocess, sys
import yaml

job_path, work, deid = sys.argv[1:4]
job_dir = os.path.dirname(job_path)

def reject(msg):
    print(f"compare-arx: error: {job_path}: {msg}", file=sys.stderr)
    sys.exit(2)

def num(value, what):
    # PyYAML reads 318.9e6 (no sign in the exponent) as a string: take numbers in either form.
    if isinstance(value, bool):
        reject(f"{what} must be a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        reject(f"{what} must be a number, got {value!r}")

def text(value):
    return repr(value) if isinstance(value, float) else str(value)

files = itertools.count(1)  # numbers the files written to the work directory

def path(p):
    return p if os.path.isabs(p) else os.path.normpath(os.path.join(job_dir, p))

def detect(first_line):  # deid's rule: the most frequent of ; , tab | (earlier on a tie), ',' when none
    counts = [(first_line.count(c), -i, c) for i, c in enumerate(";,\t|")]
    best = max(counts)
    return best[2] if best[0] > 0 else ","

try:
    with open(job_path, encoding="utf-8") as f:
        job = yaml.safe_load(f)
except yaml.YAMLError as e:
    reject(f"not valid YAML ({str(e).splitlines()[0]}); `deid anonymize` names the line")
if not isinstance(job, dict):
    reject("not a mapping")

known = {"input", "attributes", "default-role", "privacy", "suppression-limit", "quality", "search", "output", "risk",
         "cell-suppression", "cost-benefit", "subset"}
for key in job:
    if key not in known:
        reject(f"unknown key '{key}'")
if "cell-suppression" in job:
    reject("a cell-suppression job (deid suppress) has no ARX counterpart in this comparison")
search = job.get("search") or {}
for key in ("time-limit", "max-checks", "transformation"):
    if key in search:
        reject(f"search.{key} is not supported: ARX runs its optimal search to the end, so a limited deid "
               "search is not comparable (remove the limit)")
notes = []
algorithm = search.get("algorithm", "auto")
if algorithm not in ("auto", "optimal"):
    notes.append(f"deid runs search.algorithm {algorithm}; ARX runs its optimal search (FLASH)")

inp = job.get("input") or {}
if "path" not in inp:
    reject("input.path is missing")
data = path(inp["path"])
if not os.path.isfile(data):
    reject(f"input {data} not found")
delimiter = inp.get("delimiter")
if delimiter in ("\\t", "tab"):
    delimiter = "\t"
with open(data, encoding="utf-8-sig", newline="") as f:
    first = f.readline()
if delimiter is None:
    delimiter = detect(first)
header = next(csv.reader([first.rstrip("\r\n")], delimiter=delimiter))

args = ["--data", data, "--delimiter", delimiter]
attributes = job.get("attributes") or {}
default_role = job.get("default-role")
roles = {}
for column in header:
    if column in attributes:
        roles[column] = (attributes[column] or {}).get("role")
    elif default_role is not None:
        roles[column] = default_role
    else:
        reject(f"column '{column}' has no role and the job has no default-role")
for name in attributes:
    if name not in header:
        reject(f"attribute '{name}' is not a column of {data}")

def hierarchy(name, spec):
    if isinstance(spec, str):
        return path(spec)
    if not isinstance(spec, dict) or "type" not in spec:
        reject(f"attribute '{name}': hierarchy must be a path or an inline definition")
    # An inline definition: deid writes it with `deid hierarchy` (the same table the job builds).
    t = spec["type"]
    cmd = [deid, "hierarchy", t, "--input", data, "--column", name, "--delimiter", delimiter]
    flags = {"intervals": {"min": "--min", "max": "--max", "widths": "--widths", "bottom-coding": "--bottom-coding",
                           "top-coding": "--top-coding"},
             "masking": {"levels": "--levels", "from-left": "--from-left", "mask-char": "--mask-char"},
             "dates": {"month": "--no-month", "year": "--no-year", "decade": "--no-decade"},
             "grouping": {"order": "--order", "sizes": "--sizes"}}
    if t not in flags:
        reject(f"attribute '{name}': unknown hierarchy type '{t}'")
    for key, value in spec.items():
        if key == "type":
            continue
        if key not in flags[t]:
            reject(f"attribute '{name}': unknown key '{key}' of a {t} hierarchy")
        flag = flags[t][key]
        if t == "dates":
            if value is False:
                cmd.append(flag)
        elif isinstance(value, bool):
            if value:
                cmd.append(flag)
        elif isinstance(value, list):
            items = [text(v) for v in value]
            if any("," in v for v in items):
                reject(f"attribute '{name}': a {key} value contains ',' (cannot be passed to deid hierarchy)")
            cmd += [flag, ",".join(items)]
        else:
            cmd += [flag, text(value)]
    out = os.path.join(work, f"hierarchy-{next(files)}-{t}.csv")
    cmd += ["-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        reject(f"attribute '{name}': deid hierarchy failed: {r.stderr.strip()}")
    return out

privacy = job.get("privacy") or []
if not isinstance(privacy, list) or not privacy:
    reject("privacy must be a non-empty list")
with_model = set()
model_args = []
for entry in privacy:
    if not isinstance(entry, dict) or len(entry) != 1:
        reject("each privacy entry must be a mapping with one model")
    (model, p), = entry.items()
    p = p or {}
    if model == "k-anonymity":
        k = num(p.get("k"), "k-anonymity k")
        if k != int(k) or k < 1:
            reject("k-anonymity k must be a positive integer")
        model_args += ["--k", str(int(k))]
    elif model == "l-diversity":
        variant = p.get("variant", "distinct")
        l = num(p.get("l"), "l-diversity l")
        c = num(p["c"], "l-diversity c") if "c" in p else None
        if variant == "recursive" and c is None:
            reject("recursive l-diversity needs c")
        with_model.add(p.get("attribute"))
        if variant == "entropy" and p.get("estimator", "shannon") == "grassberger":
            variant = "grassberger"
        model_args += ["--ldiv", p.get("attribute"), variant, text(l), text(c) if c is not None else "-"]
    elif model == "t-closeness":
        distance = p.get("distance", "equal")
        with_model.add(p.get("attribute"))
        model_args += ["--tclose", p.get("attribute"), distance, text(num(p.get("t"), "t-closeness t"))]
    elif model == "population-uniqueness":
        size = num(p.get("population-size"), "population-size")
        if size != int(size):
            reject("population-size must be an integer for ARX (ARXPopulationModel.create(long))")
        model_args += ["--pu", text(num(p.get("threshold"), "threshold")), str(int(size)),
                       p.get("estimator", "dankar")]
    elif model == "average-risk":
        highest = p.get("highest-risk")
        model_args += ["--avg-risk", text(num(p.get("threshold"), "threshold")),
                       text(num(highest, "highest-risk")) if highest is not None else "-",
                       text(num(p.get("records-at-risk", 0), "records-at-risk"))]
    elif model == "k-map" and "population-size" not in p:
        model_args += ["--kmap-table", str(int(num(p.get("k"), "k")))]
    elif model == "delta-presence":
        model_args += ["--dpresence", text(num(p.get("min"), "min")), text(num(p.get("max"), "max"))]
    elif model == "k-map":
        size = num(p.get("population-size"), "population-size")
        model_args += ["--kmap", str(int(num(p.get("k"), "k"))), text(num(p.get("significance", 0.01), "significance")),
                       str(int(size)), p.get("estimator", "poisson")]
    elif model == "profitability":
        prefix = "journalist-" if p.get("attacker", "prosecutor") == "journalist" else ""
        model_args += ["--profitability", prefix + ("attack" if p.get("attack", True) else "no-attack")]
    elif model == "sample-uniqueness":
        model_args += ["--sample-uniqueness", text(num(p.get("threshold"), "threshold"))]
    elif model == "delta-disclosure":
        with_model.add(p.get("attribute"))
        model_args += ["--ddisclosure", p.get("attribute"), text(num(p.get("delta"), "delta"))]
    elif model == "beta-likeness":
        with_model.add(p.get("attribute"))
        model_args += ["--blikeness", p.get("attribute"), p.get("variant", "enhanced"),
                       text(num(p.get("beta"), "beta"))]
    elif model == "differential-privacy":
        # ArxRun runs EDDifferentialPrivacy in ARX's deterministic mode, which is deid's `seed: arx`.
        if p.get("seed") != "arx":
            notes.append("ARX runs differential privacy with its deterministic seed; only a job with seed: arx "
                         "samples and searches as ARX does")
        model_args += ["--dp", text(num(p.get("epsilon"), "epsilon")), text(num(p.get("delta"), "delta"))]
        if "generalization" in p:
            for name, level in (p.get("generalization") or {}).items():
                model_args += ["--dp-generalization", name, str(int(level))]
        else:
            model_args += ["--dp-budget", text(num(p.get("search-budget", 0.1), "search-budget")),
                           "--dp-steps", str(int(num(p.get("steps", 100), "steps")))]
    else:
        reject(f"privacy model '{model}' is not supported by the ARX harness")

for column in header:
    role = roles[column]
    spec = attributes.get(column) or {}
    micro = spec.get("transformation") == "microaggregation"
    generalized = not micro or bool(spec.get("generalize-before", False))
    if role == "quasi-identifying" and micro:
        args += ["--microaggregate", column, spec.get("function", "mean"), "true" if generalized else "false"]
    if role == "quasi-identifying" and not generalized:
        if "weight" in spec:
            args += ["--weight", column, text(num(spec["weight"], "weight"))]
    elif role == "quasi-identifying":
        if "hierarchy" not in spec:
            reject(f"quasi-identifier '{column}' has no hierarchy")
        args += ["--qi", column, hierarchy(column, spec["hierarchy"])]
        for key, option in (("min-level", "--min-level"), ("max-level", "--max-level")):
            if key in spec:
                args += [option, column, str(int(spec[key]))]
        if "weight" in spec:
            args += ["--weight", column, text(num(spec["weight"], "weight"))]
    elif role == "sensitive" and column in with_model:
        args += ["--sensitive", column]
        if "hierarchy" in spec:
            args += ["--sensitive-hierarchy", column, hierarchy(column, spec["hierarchy"])]
        if "order" in spec:
            order_file = os.path.join(work, f"order-{next(files)}.txt")
            with open(order_file, "w", encoding="utf-8") as f:
                for v in spec["order"]:
                    f.write(text(v) + "\n")
            args += ["--order", column, order_file]
    elif role == "identifying":
        args += ["--identifying", column]
    elif role in ("sensitive", "insensitive"):
        # A sensitive attribute without l-diversity or t-closeness is kept as it is, like an insensitive one
        # (ARX refuses a sensitive attribute without a model).
        args += ["--insensitive", column]
    else:
        reject(f"attribute '{column}': unknown role '{role}'")
args += model_args

args += ["--suppression", text(num(job.get("suppression-limit", 0), "suppression-limit"))]
quality = job.get("quality") or {}
args += ["--quality", quality.get("model", "loss")]
if "aggregate" in quality:
    args += ["--aggregate", quality["aggregate"]]
if "gs-factor" in quality:
    args += ["--gs-factor", text(num(quality["gs-factor"], "gs-factor"))]
if quality.get("monotonic"):
    args += ["--monotonic"]
cost_benefit = job.get("cost-benefit")
if cost_benefit:
    defaults = {"publisher-benefit": 1200, "publisher-loss": 300, "adversary-gain": 300, "adversary-cost": 4}
    args += ["--cost-benefit"] + [text(num(cost_benefit.get(k, d), k)) for k, d in defaults.items()]
if quality.get("attacker") == "journalist":
    args += ["--journalist"]
subset = job.get("subset")
if subset:
    if "file" not in subset:
        reject("subset: only the 'file' form translates to ARX (a table of the subset's records)")
    args += ["--subset", path(subset["file"])]
responses = quality.get("response-variables", [])
for name in [responses] if isinstance(responses, str) else responses:
    args += ["--response", name]

deid_extra = []
if (job.get("output") or {}).get("report"):
    deid_extra = ["--report", os.path.join(work, "deid-report.html")]
    notes.append("the job writes an HTML report: deid's time includes it")
if (job.get("output") or {}).get("utility", True) is not False:
    notes.append("deid's time includes its utility analysis, which ARX's anonymize() does not do "
                 "(output.utility: false in the job leaves it out)")

with open(os.path.join(work, "arx.args"), "wb") as f:
    for a in args:
        f.write(a.encode("utf-8") + b"\0")
with open(os.path.join(work, "deid.args"), "wb") as f:
    for a in deid_extra:
        f.write(a.encode("utf-8") + b"\0")
with open(os.path.join(work, "notes.json"), "w") as f:
    json.dump(notes, f)
PY

mapfile -d '' arx_args < "$work/arx.args"
mapfile -d '' deid_extra < "$work/deid.args"
deid_threads=()
[ -z "$threads" ] || deid_threads=(--threads "$threads")

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "compare-arx: $name: deid $runs run(s), then ARX $runs run(s) after $warmup warm-up (load before: $load)" >&2

# deid: N processes back to back.
for i in $(seq 1 "$runs"); do
  set +e
  /usr/bin/time -v -o "$work/deid-$i.time" "$deid" --quiet "${deid_threads[@]}" anonymize "$job" \
    --output "$work/deid-out.csv" --result "$work/deid-$i.json" "${deid_extra[@]}" 2> "$work/deid-$i.err"
  rc=$?
  set -e
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    cat "$work/deid-$i.err" >&2
    echo "compare-arx: deid failed with exit code $rc" >&2
    exit 3
  fi
done

# ARX: one JVM, W warm-up runs and N measured runs.
set +e
# shellcheck disable=SC2086
/usr/bin/time -v -o "$work/arx.time" "$java" ${ARX_JAVA_OPTS:-} -cp "$arx_jar:$classes" ArxRun "${arx_args[@]}" \
  --runs "$runs" --warmup "$warmup" > "$work/arx.json" 2> "$work/arx.err"
rc=$?
set -e
if [ $rc -ne 0 ]; then
  cat "$work/arx.err" >&2
  echo "compare-arx: the ARX harness failed with exit code $rc" >&2
  exit 3
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

"$python" - "$work" "$name" "$runs" "$load" "$load_after" "${threads:-all}" "$arx_jar" <<'PY'
import glob, json, os, re, statistics, sys

work, name, runs, load, load_after, threads, arx_jar = sys.argv[1:8]
runs = int(runs)

def gnu_time(path):
    t = open(path).read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", t).group(1)
    wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
    return wall_s, user + system, rss / 1024

deid_runs = [gnu_time(os.path.join(work, f"deid-{i}.time")) for i in range(1, runs + 1)]
deid_wall = statistics.median(r[0] for r in deid_runs)
deid_cpu = statistics.median(r[1] for r in deid_runs)
deid_rss = max(r[2] for r in deid_runs)
d = json.load(open(os.path.join(work, f"deid-{runs}.json")))
a = json.load(open(os.path.join(work, "arx.json")))
arx_proc_wall, arx_proc_cpu, arx_rss = gnu_time(os.path.join(work, "arx.time"))
arx_wall = a["anonymize_ms_median"] / 1000
arx_cpu = a["anonymize_cpu_ms_median"] / 1000 if a.get("anonymize_cpu_ms_median") is not None else None

def levels(t):
    return None if t is None else {k: t[k] for k in sorted(t)}

dl, al = d.get("information_loss"), a.get("information_loss")
# Differential privacy: ARX reports the SafePub search's score as the information loss (deid: search.score),
# and counts the records outside the sample as suppressed (deid: subset.suppressed_outside).
if "dp" in a:
    if "score" in (d.get("search") or {}):
        dl = d["search"]["score"]
    if d.get("suppressed_records") is not None and d.get("subset"):
        d["suppressed_records"] += d["subset"].get("suppressed_outside", 0)
same_solution_found = bool(d.get("solution_found")) == bool(a.get("solution_found"))
if dl is None or al is None:
    loss_equal = dl is None and al is None
    rel = None
else:
    rel = abs(dl - al) / max(abs(dl), abs(al), 1e-300) if dl != al else 0.0
    loss_equal = rel <= 1e-9
same_levels = levels(d.get("transformation")) == levels(a.get("transformation"))
agree = same_solution_found and loss_equal

line = {
    "job": name, "date": __import__("datetime").date.today().isoformat(), "runs": runs, "threads": threads,
    "load_before": load, "load_after": load_after, "cores": os.cpu_count(),
    "deid_wall_s": round(deid_wall, 3), "deid_cpu_s": round(deid_cpu, 3), "deid_peak_rss_mb": round(deid_rss, 1),
    "deid_wall_runs_s": [round(r[0], 3) for r in deid_runs],
    "arx_wall_s": round(arx_wall, 3), "arx_wall_runs_s": [round(x / 1000, 3) for x in a["anonymize_ms"]],
    "arx_cpu_s": round(arx_cpu, 3) if arx_cpu is not None else None,
    "arx_load_s": round(a["load_ms_median"] / 1000, 3),
    "arx_process": {"wall_s": round(arx_proc_wall, 2), "cpu_s": round(arx_proc_cpu, 2),
                    "peak_rss_mb": round(arx_rss, 1), "warmup": a["warmup"]},
    "ratio_deid_arx": round(deid_wall / arx_wall, 3) if arx_wall > 0 else None,
    "ratio_deid_arx_cpu": round(deid_cpu / arx_cpu, 3) if arx_cpu else None,
    "deid_checks": d["search"]["transformations_checked"], "arx_checks": a["checks"],
    "arx_checked_nodes": a["checked_nodes"], "lattice_size": a["lattice_size"],
    "deid_transformation": levels(d.get("transformation")), "arx_transformation": levels(a.get("transformation")),
    "deid_information_loss": dl, "arx_information_loss": al,
    "deid_suppressed": d.get("suppressed_records"), "arx_suppressed": a.get("suppressed_records"),
    "deid_optimal": d.get("optimal"), "arx_optimal": a.get("optimal"),
    "same_transformation": same_levels, "loss_relative_difference": rel, "agree": agree,
    "arx": a["tool"], "arx_quality_model": a["quality_model"],
    "notes": json.load(open(os.path.join(work, "notes.json"))),
}
print(json.dumps(line))

def fmt_levels(t):
    return "none" if t is None else ", ".join(f"{k}={v}" for k, v in t.items())

rows = [
    ("", "deid", a["tool"]),
    ("wall (median)", f"{deid_wall:.3f} s", f"{arx_wall:.3f} s"),
    ("wall of each run", " ".join(f"{r[0]:.3f}" for r in deid_runs),
     " ".join(f"{x / 1000:.3f}" for x in a["anonymize_ms"])),
    ("what is timed", "whole process", f"anonymize(), after {a['warmup']} warm-up run(s)"),
    ("CPU (median)", f"{deid_cpu:.3f} s", "n/a" if arx_cpu is None else f"{arx_cpu:.3f} s (all JVM threads)"),
    ("JVM process", "", f"{arx_proc_wall:.1f} s wall, {arx_proc_cpu:.1f} s CPU for {a['warmup'] + runs} runs "
                        f"and the start"),
    ("peak RSS", f"{deid_rss:.0f} MB", f"JVM {arx_rss:.0f} MB"),
    ("checks", f"{line['deid_checks']:,}", f"{a['checks']:,} ({a['checked_nodes']:,} evaluated)"),
    ("information loss", repr(dl), repr(al)),
    ("suppressed records", str(d.get("suppressed_records")), str(a.get("suppressed_records"))),
    ("optimal", str(d.get("optimal")), str(a.get("optimal"))),
]
w0 = max(len(r[0]) for r in rows)
w1 = max(len(r[1]) for r in rows)
out = [f"{name}: {runs} run(s) each, deid threads {threads}, {os.cpu_count()} cores, "
       f"load {load} before, {load_after} after"]
for r in rows:
    out.append(f"  {r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]}")
out.append(f"  deid optimum  {fmt_levels(line['deid_transformation'])}")
out.append(f"  ARX optimum   {fmt_levels(line['arx_transformation'])}")
ratio = line["ratio_deid_arx"]
out.append(f"  ratio deid / ARX: wall {ratio}, CPU {line['ratio_deid_arx_cpu']}")
verdict = ("agree: neither found a solution" if dl is None and al is None else
           "agree: same information loss" + (" and transformation" if same_levels else
           " (ties broken differently: different transformation)")) if agree else \
          "DISAGREE: " + ("one found a solution, the other did not" if not same_solution_found else
                          f"information loss differs (relative {rel:.3g})")
out.append(f"  {verdict}")
for n in line["notes"]:
    out.append(f"  note: {n}")
print("\n".join(out))
PY
