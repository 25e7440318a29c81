#!/usr/bin/env bash
# Builds deid (Release) and runs the bundled example: 5-anonymity on the adult data.
# Writes out/adult-deid.csv and out/adult-deid.json.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build
mkdir -p out
build/deid anonymize examples/adult.yaml
