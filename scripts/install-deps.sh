#!/usr/bin/env bash
# Installs deid's build dependencies from Debian 12 packages; with --test also
# what the tests need (Chromium, for the test that renders the HTML report).
# Runs apt-get directly as root, through sudo otherwise. Nothing else is downloaded.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libabsl-dev libtbb-dev
  libboost-math-dev libssl-dev libcsv-dev libgtest-dev libgmock-dev libbenchmark-dev
)
if [ "${1:-}" = "--test" ]; then
  packages+=(chromium clang-14 libfuzzer-14-dev)
fi
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
