#!/usr/bin/env bash
# Tries the source distribution as a user of another interpreter would:
# builds the sdist (`python -m build --sdist`, pinned in
# python/requirements-wheel.txt), has PYTHON's pip build a wheel from it
# alone (the sdist carries only what pyproject.toml's sdist.include names,
# so a file the build needs and the sdist lacks fails here), then runs
# scripts/check-wheel.sh on that wheel: a fresh virtual environment of
# PYTHON, the README's Python example from /, its output byte for byte the
# wheel's own `deid` command's. The wheel is not repaired: it loads the
# system's libraries (scripts/install-deps.sh --python).
#   scripts/check-sdist.sh [PYTHON]     (PYTHON: default python3; needs root for unshare)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
scripts/install-deps.sh --python
tools=$(scripts/wheel-tools.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
"$tools/bin/python" -m build --sdist -o "$work/sdist" . > "$work/build.log"
sdist=$(ls "$work"/sdist/deid-*.tar.gz)
# The build directory (build-<tag>) lies inside pip's unpacked copy of the
# sdist; ccache, when installed, finds objects of builds as deep as it.
if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=${TMPDIR:-/tmp}; fi
export CXX=${CXX:-g++}
"$python" -m pip wheel -q --no-deps --disable-pip-version-check "$sdist" -w "$work/wheel"
echo "$(basename "$sdist"): $(du -k "$sdist" | cut -f1) KB; wheel built from it in $(( $(date +%s) - start )) s"
scripts/check-wheel.sh "$(ls "$work"/wheel/deid-*.whl)" "$python"
