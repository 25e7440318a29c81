#!/usr/bin/env bash
# The benchmark suite: the standard job (k=5, 5 % suppression, Loss, optimal search) on adult, cup and a
# generated 1.2 M-row survey-like table (bench/tools/gen_survey.cc); one JSON line per job with rows,
# quasi-identifiers, lattice size, transformations checked, rolled-up vs from-histogram checks, wall time
# per phase and peak RSS (from the job's own result and /usr/bin/time -v).
#
#   bench/run-suite.sh            adult, cup (when ../shared/data/cup exists), survey 1x
#   bench/run-suite.sh --scaling  also the survey table at 4x and 16x rows (about 19 M rows, 1 GB of CSV)
#   bench/run-suite.sh --population-uniqueness
#                                 instead the 1 % population-uniqueness job of papers/002 (Dankar et al.'s
#                                 rule, USA population 318.9 M, suppression limit 100 %, Loss, optimal search)
#                                 on adult, cup and survey 1x: bench/jobs/adult-pu.yaml, bench/jobs/cup-pu.yaml,
#                                 and the survey job with its privacy model replaced (jobs named *-pu)
#
# Needs python3 and GNU time (Debian packages python3, time). Work files go to $BENCH_DIR (/tmp/deid-bench);
# the build to $BUILD_DIR (build).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-/tmp/deid-bench}
build=${BUILD_DIR:-build}
mkdir -p "$work"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build" --target deid_cli gen_survey > /dev/null

run() {  # name job
  local name=$1 job=$2
  /usr/bin/time -v -o "$work/$name.time" "$build/deid" --quiet anonymize "$job" \
    --output "$work/$name-out.csv" --result "$work/$name.json" || true
  python3 - "$name" "$work/$name.json" "$work/$name.time" <<'PY'
import json, re, sys
name, result, timing = sys.argv[1:4]
r = json.load(open(result))
t = open(timing).read()
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
user = float(re.search(r"User time \(seconds\): ([\d.]+)", t).group(1))
system = float(re.search(r"System time \(seconds\): ([\d.]+)", t).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", t).group(1)
wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall.split(":"))))
line = {
    "job": name, "rows": r["records"], "quasi_identifiers": len(r["quasi_identifiers"]),
    "lattice_size": r["search"]["lattice_size"], "checked": r["search"]["transformations_checked"],
    "rolled_up": r["check"]["rolled_up"], "from_histogram": r["check"]["from_histogram"],
    "information_loss": r["information_loss"],
    "time_ms": {k: round(v, 1) for k, v in r["time_ms"].items()},
    "after_read_ms": round(r["time_ms"]["total"] - r["time_ms"]["read"], 1),
    "user_cpu_s": user, "sys_cpu_s": system, "wall_s": round(wall_s, 2), "peak_rss_mb": round(rss_kb / 1024, 1),
}
print(json.dumps(line))
PY
}

survey() {  # scale: generates the table once
  [ -f "$work/survey-$1/survey.csv" ] || "$build/bench/gen_survey" "$work/survey-$1" "$((1193504 * $1))" > /dev/null
}

if [ "${1:-}" = "--population-uniqueness" ]; then
  run adult-pu bench/jobs/adult-pu.yaml
  if [ -f ../shared/data/cup/cup.csv ]; then run cup-pu bench/jobs/cup-pu.yaml; fi
  survey 1
  sed -e 's/^  - k-anonymity: {k: 5}$/  - population-uniqueness: {threshold: 0.01, population-size: 318.9e6, estimator: dankar}/' \
      -e 's/^suppression-limit: 0.05$/suppression-limit: 1.0/' "$work/survey-1/survey.yaml" > "$work/survey-1/survey-pu.yaml"
  grep -q population-uniqueness "$work/survey-1/survey-pu.yaml"
  run survey-1x-pu "$work/survey-1/survey-pu.yaml"
  exit 0
fi

run adult examples/adult.yaml
if [ -f ../shared/data/cup/cup.csv ]; then run cup bench/jobs/cup.yaml; fi
scales=(1)
[ "${1:-}" = "--scaling" ] && scales=(1 4 16)
for s in "${scales[@]}"; do
  survey "$s"
  run "survey-${s}x" "$work/survey-$s/survey.yaml"
done
