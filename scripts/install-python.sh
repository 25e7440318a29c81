#!/usr/bin/env bash
# Installs the Python package `deid` (docs/python.md) with pip into a
# virtual environment, created when missing (Debian's python3 by default):
#   scripts/install-python.sh [VENV]     (default .venv; PYTHON=... for another interpreter)
# the same as `python3 -m venv .venv && . .venv/bin/activate && pip install .`
# after installing the build dependencies (scripts/install-deps.sh --python).
# Running it again after a `git pull` rebuilds what changed and reinstalls.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv}
scripts/install-deps.sh --python
[ -x "$venv/bin/python" ] || "${PYTHON:-/usr/bin/python3}" -m venv "$venv"
if command -v ccache >/dev/null; then export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD; fi
"$venv/bin/python" -m pip install --disable-pip-version-check .
(cd / && "$venv/bin/python" -c 'import deid, sys; print(f"deid {deid.__version__} installed for {sys.executable} in {deid.__path__[0]}")')
