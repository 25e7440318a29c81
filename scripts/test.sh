#!/usr/bin/env bash
# Builds deid and runs the whole test suite.
#   scripts/test.sh            Release build in build/, with the Python package
#                              (DEID_PYTHON; its pytest suite runs in ctest)
#   scripts/test.sh sanitize   ASan + UBSan build in build-sanitize/, without
#                              the Python package (an ASan library cannot be
#                              loaded into an uninstrumented python3)
# Both build with -Wall -Wextra -Werror.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-release}
case "$mode" in
  release)  dir=build;          flags=(-DCMAKE_BUILD_TYPE=Release -DDEID_PYTHON=ON) ;;
  sanitize) dir=build-sanitize; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDEID_SANITIZE=ON -DDEID_BUILD_BENCH=OFF
                                       -DDEID_PYTHON=OFF) ;;
  *) echo "usage: scripts/test.sh [release|sanitize]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja -DDEID_WERROR=ON "${flags[@]}" > /dev/null
cmake --build "$dir"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
