#!/usr/bin/env bash
# Tries a repaired wheel as a new user would (docs/python.md, "A wheel to
# hand out"): a fresh virtual environment of PYTHON, the wheel installed
# there with pip (numpy and pandas from the package index), then the
# README's Python example run from / in a private mount namespace where
# every shared library the wheel bundles is hidden from the system (each
# file bound over by /dev/null; but those the interpreter itself loads), so
# only the wheel's own copies can load.
# Its released CSV must be byte for byte the one the wheel's own `deid`
# command writes for the same job.
#   scripts/check-wheel.sh WHEEL [PYTHON]     (PYTHON: default python3; needs root for unshare)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheel=$(realpath "$1")
python=${2:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"

# The system's copies of what the wheel bundles (deid.libs/libNAME-HASH.so.X
# is the system's libNAME.so.X).
hide=()
for lib in $(unzip -Z1 "$wheel" | sed -n 's|^deid.libs/||p'); do
  soname=$(echo "$lib" | sed -E 's/-[0-9a-f]{8}(\.|$)/\1/')
  base=${soname%%.so*}.so
  for f in /usr/lib/x86_64-linux-gnu/"$base"* /lib/x86_64-linux-gnu/"$base"*; do
    [ -e "$f" ] && hide+=("$(realpath "$f")")
  done
done
# But not those the interpreter itself loads for the example's imports
# (Debian's python3 links libffi for ctypes, libcrypto for hashlib).
"$work/venv/bin/python" -c 'import ctypes, hashlib, ssl, pandas, numpy
for line in open("/proc/self/maps"):
    print(line.split()[-1])' | grep '^/' | sort -u > "$work/python-libs"
mapfile -t hide < <(printf "%s\n" "${hide[@]}" | sort -u | grep -vxF -f "$work/python-libs" | grep -v "^$")

# The README's example, with the repository's examples/ and a scratch out/.
awk '/^## Python/{p=1} p && /^```python/{c=1; next} c && /^```/{exit} c' "$root/README.md" |
  sed -e "s|\"examples/|\"$root/examples/|g" -e "s|\"out/|\"$work/out/|g" -e "s|\"out\"|\"$work/out\"|g" > "$work/example.py"

cat > "$work/run.sh" <<EOF
set -e
for f in ${hide[*]}; do mount --bind /dev/null "\$f"; done
cd /
"$work/venv/bin/python" "$work/example.py" > "$work/example.out"
"$work/venv/bin/deid" anonymize "$root/examples/adult.yaml" -q --output "$work/out/cli.csv" \
  --result "$work/out/cli.json" --report "$work/out/cli.html"
EOF
unshare -m bash "$work/run.sh"
cmp "$work/out/adult-deid.csv" "$work/out/cli.csv"
echo "$("$work/venv/bin/python" -c 'import sys; print(sys.version.split()[0])'): the example's output equals the CLI's" \
  "($(wc -c < "$work/out/cli.csv") bytes; ${#hide[@]} system libraries hidden)"
