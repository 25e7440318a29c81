#!/usr/bin/env bash
# Installs deid's build dependencies from Debian 12 packages; with --python
# also what the Python package needs (pybind11, the python3 headers and
# venv module, pandas, NumPy, tqdm; `pip install .` and
# scripts/install-python.sh, docs/python.md); with --test all of that
# and what the tests need (ccache, which keeps scripts/test.sh from
# compiling the library twice for the wheel; Chromium, for the test that renders the HTML
# report; pytest, for the Python package's tests; postgresql-15, for the
# tests that start a throwaway PostgreSQL cluster, docs/databases.md; Java 17,
# for Spark's tests, docs/spark.md; Node.js
# and npm, for the browser test of the web app, tests/web) and, with npm ci,
# puppeteer-core (pinned in tests/web/package-lock.json) into
# tests/web/node_modules, and schemathesis (pinned in
# tests/api/requirements.txt, for the API fuzzing test) from PyPI into the
# virtual environment tests/api/.venv, and vncdotool and python-xlib (pinned in
# tests/share/requirements.txt, for the test of deid share with a real VNC
# client; Xvfb, x11vnc, xclip, ffmpeg, bubblewrap, noVNC and websockify from Debian) into tests/share/.venv: the
# downloads apart from Debian's packages.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libabsl-dev libtbb-dev
  libboost-math-dev libssl-dev libpq-dev libcsv-dev liblinear-dev libcpp-httplib-dev libgtest-dev libgmock-dev libbenchmark-dev
)
python=(pybind11-dev python3-dev python3-venv python3-pandas python3-numpy python3-tqdm)
case "${1:-}" in
  --test)   packages+=(chromium nodejs npm clang-14 libfuzzer-14-dev libclang-rt-14-dev postgresql-15 openjdk-17-jre-headless ccache "${python[@]}" python3-pytest
                     xvfb x11vnc xclip ffmpeg bubblewrap novnc websockify) ;;
  --python) packages+=("${python[@]}") ;;
  "") ;;
  *) echo "usage: scripts/install-deps.sh [--python|--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  # A node and npm of another source (NodeSource's nodejs carries npm) will do.
  case "$p" in nodejs|npm) command -v "${p/nodejs/node}" >/dev/null && continue ;; esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The browser test (tests/web): puppeteer-core, pinned in package-lock.json,
# from the npm registry into tests/web/node_modules; it drives the system
# Chromium, so no browser is downloaded.
if [ "${1:-}" = --test ]; then
  (cd "$(dirname "$0")/../tests/web" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
# The API fuzzing test (tests/api): schemathesis, pinned, in a virtual
# environment of its own (never into the system's Python).
if [ "${1:-}" = --test ]; then
  api="$(dirname "$0")/../tests/api"
  [ -x "$api/.venv/bin/pip" ] || python3 -m venv "$api/.venv"
  "$api/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$api/requirements.txt"
fi
# deid share's test with real components (tests/share/vnc_test.py): a VNC
# client and an X client library, pinned, in a virtual environment of their own.
if [ "${1:-}" = --test ]; then
  share="$(dirname "$0")/../tests/share"
  [ -x "$share/.venv/bin/pip" ] || python3 -m venv "$share/.venv"
  "$share/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$share/requirements.txt"
fi
