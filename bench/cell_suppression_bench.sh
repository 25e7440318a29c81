#!/usr/bin/env bash
# Benchmark of `deid suppress` on a synthetic national discharge file the
# size of papers/003's (2.4 M records, k = 20 i.e. tau = 0.05), with the
# example job's release levels and combinations (examples/discharge).
#
#   bench/cell_suppression_bench.sh [BUILD_DIR] [ROWS] [WORK_DIR]
#
# Defaults: build-cells, 2400000, /tmp/deid_cells_bench. Generates the data
# once (bench/tools/gen_discharge, seed 2011), then runs
#  1. the combinations algorithm alone, under /usr/bin/time -v (wall time,
#     CPU time and peak memory of the whole command: read, release, suppress,
#     report, write the file and two 10% samples);
#  2. the same with compare-complete, for the cells suppressed by the
#     combinations and the complete algorithm.
# Prints the figures docs/cell-suppression.md reports.
set -euo pipefail
BUILD=${1:-build-cells}
ROWS=${2:-2400000}
WORK=${3:-/tmp/deid_cells_bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[[ "$BUILD" = /* ]] || BUILD="$ROOT/$BUILD"
ninja -C "$BUILD" deid_cli bench/gen_discharge >/dev/null
mkdir -p "$WORK"
if [[ ! -f "$WORK/discharge.csv" || "$(($(wc -l <"$WORK/discharge.csv") - 1))" != "$ROWS" ]]; then
  "$BUILD/bench/gen_discharge" --rows "$ROWS" --seed 2011 --out "$WORK"
fi

job() {  # $1: compare-complete true|false, $2: file name
  sed -e "s#tau: 0.2#tau: 0.05#" \
      -e "s#compare-complete: true#compare-complete: $1#" \
      -e "s#path: discharge.csv#path: $WORK/discharge.csv#" \
      -e "s#hierarchies/#$WORK/hierarchies/#" \
      -e "s#population: census.csv#population: $WORK/census.csv#" \
      -e "s#\.\./\.\./out/#$WORK/out-$1-#" \
      "$ROOT/examples/discharge/discharge.yaml" >"$WORK/$2"
}
job false job.yaml
job true job-compare.yaml

echo "== combinations algorithm, k = 20, $ROWS records"
/usr/bin/time -v "$BUILD/deid" -q suppress "$WORK/job.yaml" 2>"$WORK/time.txt"
grep -E "Elapsed|User time|System time|Maximum resident" "$WORK/time.txt"
python3 - "$WORK/out-false-discharge-suppressed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t, s, l = r["time_ms"], r["suppression"], r["information_loss"]
print(f"time_ms: read {t['read']:.0f}, release {t['encode']:.0f}, suppress {t['suppress']:.0f} "
      f"(CPU {t['suppress_cpu']:.0f}: phase 1 {s['time_ms']['phase1']:.0f}, phase 2 {s['time_ms']['phase2']:.0f}), "
      f"write {t['write']:.0f}, total {t['total']:.0f}")
print(f"rounds {s['rounds']}, phase-2 passes {s['phase2_passes']}; cells suppressed {l['suppressed_cells']} "
      f"of {l['quasi_identifier_cells']} ({100*l['suppressed_cells_fraction']:.2f}%), records with a suppressed "
      f"cell {100*l['records_with_suppression_fraction']:.2f}%")
PY

echo "== combinations vs complete"
"$BUILD/deid" -q suppress "$WORK/job-compare.yaml"
python3 - "$WORK/out-true-discharge-suppressed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a, c = r["information_loss"], r["complete"]
print(f"{'column':<14} {'combinations':>14} {'complete':>14}")
for name in a["columns"]:
    print(f"{name:<14} {100*a['columns'][name]['fraction']:>13.2f}% {100*c['columns'][name]['fraction']:>13.2f}%")
print(f"{'all cells':<14} {100*a['suppressed_cells_fraction']:>13.2f}% {100*c['suppressed_cells_fraction']:>13.2f}%")
print(f"cells: combinations {a['suppressed_cells']}, complete {c['suppressed_cells']}; "
      f"entropy of combinations = {r['entropy_percent_of_complete']['total']:.1f}% of complete's; "
      f"complete phase 2 {c['suppression']['time_ms']['phase2']:.0f} ms wall")
PY
