#!/usr/bin/env bash
# The pinned tools that build and check the Python package's wheel and sdist
# (python/requirements-wheel.txt: build, auditwheel, ...), in a virtual
# environment of Debian's python3, build-wheel-tools/, made again when the
# pins change. Prints its directory (relative to the repository).
#   tools=$(scripts/wheel-tools.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
tools=build-wheel-tools
if ! cmp -s python/requirements-wheel.txt "$tools/requirements.txt"; then
  rm -rf "$tools"
  /usr/bin/python3 -m venv "$tools" >&2
  "$tools/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-wheel.txt >&2
  cp python/requirements-wheel.txt "$tools/requirements.txt"
fi
echo "$tools"
