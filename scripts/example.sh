#!/usr/bin/env bash
# Builds the deid command (Release; only the tool, not the tests or the
# benchmarks) and runs the bundled example: 5-anonymity on the adult data.
# Writes out/adult-deid.csv (the de-identified table), out/adult-deid.json
# (the result) and out/adult-deid.html (the report: open it in a browser).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build --target deid_cli
mkdir -p out
build/deid anonymize examples/adult.yaml --report out/adult-deid.html
