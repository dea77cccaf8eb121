#!/usr/bin/env bash
# Starts a PostgreSQL 15 server for the Studio's store tests (IC_DB=postgresql://...), on
# 127.0.0.1 only, in its own data directory (Debian's postgresql package; the packaged service
# need not run). The cluster uses the C.UTF-8 locale, so text sorts by code point as SQLite does.
#
# For CI and fresh machines, as root. Idempotent: a server it started before is reused. Logs go to
# stderr; stdout holds one line to eval:  export IC_TEST_PG_URL=postgresql://user:pass@127.0.0.1:port/db
#
#   eval "$(bash scripts/start-postgres.sh)"
#
# Settings (environment): IC_PG_PORT (55432), IC_PG_DATADIR (/var/lib/icstudio-postgres),
# IC_PG_USER (icstudio), IC_PG_PASSWORD (icstudio), IC_PG_DB (icstudio_test).
set -euo pipefail

PORT="${IC_PG_PORT:-55432}"
DATADIR="${IC_PG_DATADIR:-/var/lib/icstudio-postgres}"
DBUSER="${IC_PG_USER:-icstudio}"
DBPASS="${IC_PG_PASSWORD:-icstudio}"
DBNAME="${IC_PG_DB:-icstudio_test}"
RUNDIR="/run/icstudio-postgres-$PORT"

log() { echo "start-postgres: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it starts postgres as the postgres user)"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
[ -n "$BIN" ] && [ -x "$BIN/pg_ctl" ] || die "PostgreSQL not found under /usr/lib/postgresql: apt-get install -y postgresql"
id postgres >/dev/null 2>&1 || die "no 'postgres' system user: reinstall postgresql"

as_pg() { runuser -u postgres -- "$@"; }
psql_root() { as_pg "$BIN/psql" -h "$RUNDIR" -p "$PORT" -d postgres -v ON_ERROR_STOP=1 -qAt -c "$1"; }

mkdir -p "$RUNDIR"
chown postgres:postgres "$RUNDIR"

if ! as_pg "$BIN/pg_isready" -q -h "$RUNDIR" -p "$PORT" 2>/dev/null; then
  if as_pg "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" 2>/dev/null; then
    die "another server already listens on 127.0.0.1:$PORT (set IC_PG_PORT)"
  fi
  if [ ! -f "$DATADIR/PG_VERSION" ]; then
    log "initialising a cluster in $DATADIR"
    mkdir -p "$DATADIR"
    chown postgres:postgres "$DATADIR"
    chmod 700 "$DATADIR"
    as_pg "$BIN/initdb" -D "$DATADIR" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null || die "initdb failed"
  fi
  log "starting postgres on 127.0.0.1:$PORT (data: $DATADIR)"
  as_pg "$BIN/pg_ctl" -D "$DATADIR" -l "$RUNDIR/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $RUNDIR -c max_connections=200 -c shared_buffers=1GB -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { tail -n 20 "$RUNDIR/postgres.log" >&2 || true; die "postgres did not start"; }
else
  log "a server started by this script is already running"
fi

psql_root "DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$DBUSER') THEN CREATE ROLE \"$DBUSER\" LOGIN CREATEDB PASSWORD '$DBPASS';
  ELSE ALTER ROLE \"$DBUSER\" LOGIN CREATEDB PASSWORD '$DBPASS'; END IF; END \$\$;" || die "could not create the role $DBUSER"
if [ "$(psql_root "SELECT 1 FROM pg_database WHERE datname = '$DBNAME'")" != 1 ]; then
  psql_root "CREATE DATABASE \"$DBNAME\" OWNER \"$DBUSER\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'" || die "could not create the database $DBNAME"
fi

log "ready"
echo "export IC_TEST_PG_URL=postgresql://$DBUSER:$DBPASS@127.0.0.1:$PORT/$DBNAME"
