#!/usr/bin/env bash
# The survey table in PostgreSQL at several sizes (bench/README.md,
# "postgres-scale.sh"): for each size, the same
# job run three ways, each timed as a whole with /usr/bin/time -v:
#
#   pushdown   table → table: the database groups the rows and writes the
#              release (docs/databases.md, "Pushdown")
#   export     \copy the table to a CSV file, then deid on the file, writing
#              a CSV file (what one does without database support)
#   streamed   table → table with pushdown: false (rows through deid)
#
# The cluster is a throwaway one (tests/postgres/cluster.sh: a Unix socket
# in a temporary directory, fsync off), stopped at the end, also on failure.
#
#   bench/postgres-scale.sh [--deid BUILD/deid] [--gen BUILD/bench/gen_survey]
#                           [--work DIR] [--ways "pushdown export streamed"]
#                           [--qis "YEAR QUARTER ..."] SCALE...
#
# --qis: the quasi-identifiers (default: all nine); the others are
# insensitive, copied to the release. Fewer of them give a histogram much
# smaller than the table, the case pushdown is for.
#
# SCALE is a multiple of 1,193,504 rows (1, 4, 16). One line of JSON per
# size and way: wall seconds, peak RSS of deid (and of psql for export),
# deid's own phases (time_ms), the histogram's entries and the optimum.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
deid=$here/../build/deid
gen=$here/../build/bench/gen_survey
work=${TMPDIR:-/tmp}/deid-pg-scale
ways="pushdown export streamed"
attrs="YEAR QUARTER REGION PERNUM AGE MARSTAT SEX RACEA EDUC"
scales=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deid) deid=$2; shift 2 ;;
    --gen) gen=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --ways) ways=$2; shift 2 ;;
    --qis) attrs=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) scales+=("$1"); shift ;;
  esac
done
[ ${#scales[@]} -gt 0 ] || scales=(1 4 16)
deid=$(realpath "$deid")
gen=$(realpath "$gen")
mkdir -p "$work"
state=$work/cluster
"$here/../tests/postgres/cluster.sh" start "$state"
trap '"$here/../tests/postgres/cluster.sh" stop "$state"' EXIT
sock=$(cat "$state")
conn="host=$sock port=5432 user=deid dbname=postgres"
export PGOPTIONS="-c client_min_messages=warning"

job() {  # job FILE INPUT OUTPUT: the survey's k=5 job with the given input and output blocks
  {
    echo "$2"
    echo "attributes:"
    for a in $attrs; do echo "  $a: {role: quasi-identifying, hierarchy: hierarchies/$a.csv}"; done
    echo "default-role: insensitive"
    echo "privacy:"
    echo "  - k-anonymity: {k: 5}"
    echo "suppression-limit: 0.05"
    echo "quality: {model: loss}"
    echo "search: {algorithm: optimal}"
    echo "output:"
    echo "$3"
  } > "$1"
}

timed() {  # timed LOG COMMAND...: runs COMMAND under /usr/bin/time -v into LOG
  /usr/bin/time -v -o "$1" "${@:2}"
}
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {print $2 * 1024}' "$1"; }

for scale in "${scales[@]}"; do
  rows=$((1193504 * scale))
  dir=$work/survey-$scale
  if [ ! -f "$dir/survey.csv" ]; then "$gen" "$dir" "$rows" 1 > /dev/null; fi
  table=survey_$scale
  if [ "$(psql "$conn" -Atc "SELECT to_regclass('$table') IS NOT NULL")" != t ]; then
    psql "$conn" -qc "CREATE TABLE $table (\"YEAR\" integer, \"QUARTER\" integer, \"REGION\" text, \"PERNUM\" integer,
      \"AGE\" integer, \"MARSTAT\" text, \"SEX\" text, \"RACEA\" text, \"EDUC\" text)"
    psql "$conn" -qc "\\copy $table FROM '$dir/survey.csv' (FORMAT csv, HEADER true)"
    psql "$conn" -qc "VACUUM ANALYZE $table"
  fi
  size=$(psql "$conn" -Atc "SELECT pg_total_relation_size('$table')")
  for way in $ways; do
    out=$dir/$way-$(echo $attrs | wc -w)
    mkdir -p "$out"
    rm -f "$out"/*.json "$out"/*.csv
    psql "$conn" -qc "DROP TABLE IF EXISTS ${table}_released" > /dev/null
    export_s=0 export_rss=0
    case "$way" in
      pushdown|streamed)
        job "$out/job.yaml" "input:
  postgres: {connection: \"$conn\", table: $table, pushdown: $([ "$way" = pushdown ] && echo true || echo false)}" \
          "  postgres: {table: ${table}_released, mode: create}
  result: result.json"
        ;;
      export)
        timed "$out/export.time" psql "$conn" -qc "\\copy $table TO '$out/export.csv' (FORMAT csv, HEADER true)"
        export_s=$(wall "$out/export.time")
        export_rss=$(rss "$out/export.time")
        job "$out/job.yaml" "input: {path: export.csv}" "  path: released.csv
  result: result.json"
        ;;
    esac
    ln -sfn "$dir/hierarchies" "$out/hierarchies"
    timed "$out/deid.time" "$deid" --quiet anonymize "$out/job.yaml"
    python3 - "$out/result.json" "$scale" "$rows" "$way" "$(wall "$out/deid.time")" "$(rss "$out/deid.time")" \
      "$export_s" "$export_rss" "$size" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(json.dumps({
    "scale": int(sys.argv[2]), "rows": int(sys.argv[3]), "way": sys.argv[4], "qis": len(r["quasi_identifiers"]),
    "deid_wall_s": float(sys.argv[5]), "deid_peak_rss": int(sys.argv[6]),
    "export_wall_s": float(sys.argv[7]), "export_peak_rss": int(sys.argv[8]),
    "table_bytes": int(sys.argv[9]),
    "time_ms": r["time_ms"], "histogram_entries": r["check"]["histogram_entries"],
    "histogram_bytes": r["check"]["histogram_bytes"], "memory": r["check"]["memory"],
    "rss_over_histogram": round(int(sys.argv[6]) / max(1, r["check"]["histogram_bytes"]), 2),
    "checks": r["search"]["transformations_checked"], "transformation": r["transformation"],
    "information_loss": r["information_loss"], "suppressed_records": r["suppressed_records"]}))
PY
    rm -f "$out/export.csv" "$out/released.csv"
  done
done
