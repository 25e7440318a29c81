#!/usr/bin/env bash
# Builds the Python package's wheel for Debian's python3 and repairs it with
# auditwheel into a manylinux wheel that carries the shared libraries it
# needs (yaml-cpp, oneTBB, libpq, OpenSSL, fmt, abseil, ...), so that it
# installs and imports where none of the -dev packages are (docs/python.md,
# "A wheel to hand out"). The pinned tools (python/requirements-wheel.txt)
# live in build-wheel-tools/ (scripts/wheel-tools.sh); the build backend is
# pinned in pyproject.toml. ccache is used when installed.
#   scripts/wheel.sh        -> dist/deid-VERSION-cpXY-cpXY-manylinux_2_NN_x86_64.whl
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --python
tools=$(scripts/wheel-tools.sh)
if command -v ccache >/dev/null; then
  # The wheel's build directory (build-<tag>) is as deep as build/, so the
  # objects of a Release build with the same flags are found again.
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD
fi
# One compiler name for build/ and the wheel (ccache tells them apart).
export CXX=${CXX:-g++}
rm -rf build-wheel-raw dist
start=$(date +%s)
# -Werror as in every build of the project's scripts (scripts/test.sh): the
# same compiler flags as build/, so that ccache finds its objects.
"$tools/bin/python" -m pip wheel . --no-deps --disable-pip-version-check --config-settings=cmake.define.DEID_WERROR=ON \
  -w build-wheel-raw
PATH="$PWD/$tools/bin:$PATH" auditwheel repair -w dist build-wheel-raw/deid-*.whl
wheel=$(ls dist/deid-*.whl)
echo "$wheel: $(du -k "$wheel" | cut -f1) KB, built and repaired in $(( $(date +%s) - start )) s"
