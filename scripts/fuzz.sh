#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang-14, ASan+UBSan) in
# build-fuzz/ and runs them at once, each for SECONDS of a core (default 60).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      TARGET: fuzz_csv fuzz_hierarchy fuzz_job fuzz_rfb (default: all)
#
# Each target runs on a copy of its seed corpus (tests/fuzz/corpus/TARGET) in
# a temporary directory, so the seeds are never written, with its dictionary,
# -rss_limit_mb=2048 and -timeout=10. Crash, timeout and out-of-memory
# inputs go to $DEID_FUZZ_ARTIFACTS (default build-fuzz/artifacts/). Prints
# per target the executions and executions per second; exits 1 when any
# target found a defect (its log is printed), 0 otherwise.
# docs/fuzzing.md explains what each target feeds.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_csv fuzz_hierarchy fuzz_job fuzz_rfb)
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$t" ] || { echo "fuzz.sh: unknown target '$t' (no tests/fuzz/corpus/$t)" >&2; exit 2; }
done

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DDEID_FUZZ=ON -DDEID_BUILD_TESTS=OFF \
  -DDEID_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  "${launcher[@]}" >/dev/null
cmake --build build-fuzz --target "${targets[@]}"

artifacts=${DEID_FUZZ_ARTIFACTS:-build-fuzz/artifacts}
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/deid-fuzz.XXXXXX")
# A target still running when the script stops (interrupted) is stopped too.
trap 'pids=$(jobs -p); if [ -n "$pids" ]; then kill $pids 2>/dev/null || true; fi; wait; rm -rf "$work"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The targets run at once, each a process on one core. With more targets
# than cores each runs longer, so that every target still gets SECONDS of a
# core: 4 targets on 2 cores run 120 s each for SECONDS=60.
cores=$(nproc)
n=${#targets[@]}
wall=$seconds
if [ "$n" -gt "$cores" ]; then wall=$(( (seconds * n + cores - 1) / cores )); fi
echo "Fuzzing $n target(s) at once on $cores core(s), ${wall} s each (${seconds} s of a core each); artifacts go to $artifacts"
declare -A pid
for t in "${targets[@]}"; do
  cp -r "tests/fuzz/corpus/$t" "$work/corpus-$t"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  "build-fuzz/tests/fuzz/$t" -max_total_time="$wall" -rss_limit_mb=2048 -timeout=10 "${dict[@]}" \
    -artifact_prefix="$artifacts/$t-" "$work/corpus-$t" >"$work/$t.log" 2>&1 &
  pid[$t]=$!
done
failed=()
for t in "${targets[@]}"; do
  rc=0
  wait "${pid[$t]}" || rc=$?
  # libFuzzer's last line on a clean run: "Done 123456 runs in 60 second(s)".
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$work/$t.log" | tail -n 1 || true)
  if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
    runs=$(echo "$done_line" | awk '{print $2}')
    secs=$(echo "$done_line" | awk '{print $5}')
    corpus=$(find "$work/corpus-$t" -type f | wc -l)
    printf '%-16s ok      %12s executions in %4s s  %8s exec/s  corpus %s\n' "$t" "$runs" "$secs" \
      "$(( runs / (secs > 0 ? secs : 1) ))" "$corpus"
  else
    failed+=("$t")
    printf '%-16s FAILED  (exit %s); log:\n' "$t" "$rc"
    grep -vE '^#[0-9]+' "$work/$t.log" | tail -n 60
    ls -1 "$artifacts" | grep "^$t-" | sed 's/^/  artifact: /' || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} target(s) found a defect: ${failed[*]} (inputs in $artifacts)" >&2
  exit 1
fi
