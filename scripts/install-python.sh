#!/usr/bin/env bash
# Builds the Python package `deid` (docs/python.md) for Debian's system
# python3 (/usr/bin/python3) and installs it, offline (Debian packages only,
# no pip), idempotently (a second run replaces the package whole).
#   scripts/install-python.sh          into /usr/local/lib/python3.X/dist-packages
#                                      (site.getsitepackages()[0]; through sudo when not root)
#   scripts/install-python.sh --user   into the user's site-packages (no sudo)
#   scripts/install-python.sh --uninstall [--user]
# Then: /usr/bin/python3 -c 'import deid; print(deid.__version__)'
set -euo pipefail
cd "$(dirname "$0")/.."
python=/usr/bin/python3
user=0 uninstall=0
for arg in "$@"; do
  case "$arg" in
    --user) user=1 ;;
    --uninstall) uninstall=1 ;;
    *) echo "usage: scripts/install-python.sh [--user] [--uninstall]" >&2; exit 2 ;;
  esac
done
# First what the package needs, python3 itself included (a fresh Debian 12
# may have no /usr/bin/python3 before this).
[ "$uninstall" = 1 ] || scripts/install-deps.sh --python
as_root=()
if [ "$user" = 1 ]; then
  site=$("$python" -c 'import site; print(site.getusersitepackages())')
else
  site=$("$python" -c 'import site; print(site.getsitepackages()[0])')
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
fi
if [ "$uninstall" = 1 ]; then
  "${as_root[@]}" rm -rf "$site/deid"
  echo "removed $site/deid"
  exit 0
fi

build=build-python
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDEID_PYTHON=ON -DDEID_PYTHON_EXECUTABLE="$python" \
  -DDEID_BUILD_TESTS=OFF -DDEID_BUILD_BENCH=OFF > /dev/null
cmake --build "$build" --target deid_python

# Replace the package whole: a new directory, then one rename over the old.
"${as_root[@]}" mkdir -p "$site"
staging="$site/.deid-install-$$"
"${as_root[@]}" rm -rf "$staging"
"${as_root[@]}" cp -r "$build/python/deid" "$staging"
"${as_root[@]}" rm -rf "$site/deid"
"${as_root[@]}" mv "$staging" "$site/deid"
# Import it from elsewhere, so that the source tree cannot stand in for it.
(cd / && "$python" -c 'import deid, sys; print(f"deid {deid.__version__} installed for {sys.executable} in {deid.__path__[0]}")')
