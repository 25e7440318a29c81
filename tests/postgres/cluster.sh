#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of tests/postgres
# (docs/databases.md, "Tests"): ctest runs `start` before those tests
# (FIXTURES_SETUP) and `stop` after them, also when they fail
# (FIXTURES_CLEANUP).
#
#   cluster.sh start STATE   initdb into a new temporary directory, start a
#                            server listening only on a Unix socket in it,
#                            write the directory's path to STATE
#   cluster.sh stop STATE    stop that server, remove the directory and STATE
#
# As root the cluster belongs to the unprivileged user `nobody` (PostgreSQL
# refuses to run as root). Authentication is `trust`, on a socket only the
# tests know. Without the PostgreSQL binaries `start` fails, unless
# DEID_SKIP_POSTGRES_TESTS=1 says to skip the tests (they then report
# themselves skipped). DEID_PG_BINDIR overrides where the binaries are.
set -euo pipefail
cmd=${1:-} state=${2:-}
if [ -z "$cmd" ] || [ -z "$state" ]; then
  echo "usage: cluster.sh start|stop STATE_FILE" >&2
  exit 2
fi
bindir=${DEID_PG_BINDIR:-/usr/lib/postgresql/15/bin}
as_owner=()
[ "$(id -u)" -ne 0 ] || as_owner=(runuser -u nobody --)

stop() {
  [ -f "$state" ] || return 0
  local dir
  dir=$(cat "$state")
  if [ "$dir" != skip ] && [ -d "$dir" ]; then
    if [ -f "$dir/data/postmaster.pid" ]; then
      "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null || true
    fi
    rm -rf "$dir"
  fi
  rm -f "$state"
}

case "$cmd" in
  start)
    stop  # a cluster an interrupted run left behind
    if [ "${DEID_SKIP_POSTGRES_TESTS:-}" = 1 ]; then
      echo skip > "$state"
      echo "cluster.sh: DEID_SKIP_POSTGRES_TESTS=1: the PostgreSQL tests will be skipped" >&2
      exit 0
    fi
    for b in initdb pg_ctl; do
      if [ ! -x "$bindir/$b" ]; then
        echo "cluster.sh: $bindir/$b not found: install postgresql-15 (scripts/install-deps.sh --test)," \
             "or set DEID_SKIP_POSTGRES_TESTS=1 to skip the PostgreSQL tests" >&2
        exit 1
      fi
    done
    dir=$(mktemp -d /tmp/deid-pg.XXXXXX)
    [ ${#as_owner[@]} -eq 0 ] || chown nobody "$dir"
    if ! "${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U deid --auth=trust -E UTF8 --no-locale \
           > "$dir/initdb.log" 2>&1; then
      cat "$dir/initdb.log" >&2
      rm -rf "$dir"
      exit 1
    fi
    cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = 5432
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 40
CONF
    echo "$dir" > "$state"
    if ! "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start > /dev/null; then
      cat "$dir/server.log" >&2 || true
      stop
      exit 1
    fi
    ;;
  stop) stop ;;
  *) echo "usage: cluster.sh start|stop STATE_FILE" >&2; exit 2 ;;
esac
