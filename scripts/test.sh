#!/usr/bin/env bash
# Builds deid and runs the whole test suite.
#   scripts/test.sh            Release build in build/; the Python package is
#                              built as a wheel (scripts/wheel.sh), installed
#                              into a fresh virtual environment (build/python-venv,
#                              python/requirements-test.txt and
#                              requirements-spark.txt) and its pytest
#                              suite runs there, in ctest
#   scripts/test.sh sanitize   ASan + UBSan build in build-sanitize/ with
#                              clang-14 at -O1 with line tables (a quarter of
#                              GCC's -O2 -g compile time, the same checks),
#                              without the benchmarks and the Python package
#                              (an ASan library cannot be loaded into an
#                              uninstrumented python3); the suites that run a
#                              browser or repeat ARX's reference runs, whose
#                              code the other tests cover under the
#                              sanitizers, run in the release build only
# Both build with -Wall -Wextra -Werror (GCC 12 and clang-14).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-release}
exclude=
venv=$PWD/build/python-venv
case "$mode" in
  # Position-independent code as in the wheel, whose build then finds the
  # library's objects in ccache (scripts/wheel.sh).
  release)  dir=build;          flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DDEID_PYTHON=OFF
                                       -DDEID_PYTHON_VENV="$venv") ;;
  sanitize) dir=build-sanitize; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDEID_SANITIZE=ON -DDEID_BUILD_BENCH=OFF
                                       "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
                                       -DCMAKE_CXX_COMPILER=clang++-14 -DDEID_PYTHON=OFF -DDEID_PYTHON_VENV=)
            # Run once, in the release build: the browser suites and ARX's
            # reference runs (every other test runs under the sanitizers).
            exclude='^web_session$|^ReportBrowserTest[.]|/Arx|^Postgres/ReferenceFromTable[.]|^NoLeak[.]ReferenceRuns' ;;
  *) echo "usage: scripts/test.sh [release|sanitize]" >&2; exit 2 ;;
esac
if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD; fi
# One compiler name for build/ and the wheel (ccache tells them apart).
export CXX=${CXX:-g++}
# Each step prints its wall time (the CI's stage figures).
step() { local start=$SECONDS; "$@"; echo "test.sh $mode: '$*' took $((SECONDS - start)) s" >&2; }
cmake -S . -B "$dir" -G Ninja -DDEID_WERROR=ON "${flags[@]}" > /dev/null
step cmake --build "$dir"
if [ "$mode" = release ]; then
  step scripts/wheel.sh
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-test.txt \
    -r python/requirements-spark.txt dist/deid-*.whl
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
# A leak glibc leaves in threads that outlive the run (tests/lsan.supp).
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A failing test's output is printed when it ends, in the middle of the
# log; on failure the failing tests' own lines are printed again last, where
# the tail of a CI log shows them: every line that says it failed, then the
# test's last lines.
if ! step ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" ${exclude:+-E "$exclude"}; then
  awk '/^[0-9]+\/[0-9]+ Test: /    { name = $3; n = 0; out = 0; next }
       /^Output:$/                  { out = 1; getline; next }
       /^<end of output>$/          { out = 0; next }
       out                          { line[n++] = $0; next }
       /^Test Failed\.$/ {
         print "test.sh " mode ": " name " failed; its lines that say so, then its last 20:"
         shown = 0
         for (i = 0; i < n && shown < 30; i++)
           if (line[i] ~ /FAIL|Failure|[Ee]rror|Timeout|Assertion/) { print "  | " line[i]; shown++ }
         print "  ..."
         for (i = (n > 20 ? n - 20 : 0); i < n; i++) print "  | " line[i]
       }' mode="$mode" "$dir/Testing/Temporary/LastTest.log" >&2
  exit 1
fi
