#!/usr/bin/env bash
# Installs deid's build dependencies from Debian 12 packages; with --python
# also what the Python package needs (pybind11, the python3 headers, pandas,
# NumPy, tqdm; scripts/install-python.sh); with --test all of that
# and what the tests need (Chromium, for the test that renders the HTML
# report; pytest, for the Python package's tests; postgresql-15, for the
# tests that start a throwaway PostgreSQL cluster, docs/databases.md).
# Runs apt-get directly as root, through sudo otherwise. Nothing else is downloaded.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libabsl-dev libtbb-dev
  libboost-math-dev libssl-dev libpq-dev libcsv-dev liblinear-dev libcpp-httplib-dev libgtest-dev libgmock-dev libbenchmark-dev
)
python=(pybind11-dev python3-dev python3-pandas python3-numpy python3-tqdm)
case "${1:-}" in
  --test)   packages+=(chromium clang-14 libfuzzer-14-dev postgresql-15 "${python[@]}" python3-pytest) ;;
  --python) packages+=("${python[@]}") ;;
  "") ;;
  *) echo "usage: scripts/install-deps.sh [--python|--test]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
