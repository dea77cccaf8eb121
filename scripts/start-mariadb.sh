#!/usr/bin/env bash
# Starts a MariaDB server for the Studio's MySQL-compatible SQL backend, the way InterCode's MySQL
# ran (lower_case_table_names=1, utf8mb4 with a case-insensitive collation), on 127.0.0.1.
#
# For CI and fresh machines, as root, after `apt-get install mariadb-server` (the service need
# not be running). Idempotent: a server it started before is reused. Logs go to stderr; stdout
# holds one line to eval:  IC_SQL_URL=mysql://user:pass@127.0.0.1:port
#
#   eval "$(bash scripts/start-mariadb.sh)"
#
# Settings (environment): IC_MYSQL_PORT (3306), IC_MYSQL_DATADIR (/var/lib/mysql),
# IC_MYSQL_USER (icstudio), IC_MYSQL_PASSWORD (icstudio).
set -euo pipefail

PORT="${IC_MYSQL_PORT:-3306}"
DATADIR="${IC_MYSQL_DATADIR:-/var/lib/mysql}"
RUNDIR="/run/mysqld-icstudio"
SOCK="$RUNDIR/mysqld.sock"
DBUSER="${IC_MYSQL_USER:-icstudio}"
DBPASS="${IC_MYSQL_PASSWORD:-icstudio}"

log() { echo "start-mariadb: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it starts mariadbd as the mysql user)"
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || die "mariadbd not found: apt-get install -y mariadb-server"
MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
id mysql >/dev/null 2>&1 || die "no 'mysql' system user: reinstall mariadb-server"

root_sql() { mariadb --protocol=socket -S "$SOCK" -uroot -N -B -e "$1"; }

mkdir -p "$RUNDIR"
chown mysql:mysql "$RUNDIR"

if ! root_sql "SELECT 1" >/dev/null 2>&1; then
  if mariadb-admin -h127.0.0.1 -P"$PORT" --connect-timeout=2 ping >/dev/null 2>&1; then
    die "another server already listens on 127.0.0.1:$PORT (stop it, e.g. 'service mariadb stop', or set IC_MYSQL_PORT)"
  fi
  if [ ! -d "$DATADIR/mysql" ]; then
    log "initialising a data directory in $DATADIR"
    mkdir -p "$DATADIR"
    chown mysql:mysql "$DATADIR"
    mariadb-install-db --no-defaults --user=mysql --datadir="$DATADIR" \
      --auth-root-authentication-method=socket >/dev/null 2>&1 || die "mariadb-install-db failed"
  fi
  log "starting mariadbd on 127.0.0.1:$PORT (data: $DATADIR)"
  setsid "$MARIADBD" --no-defaults --user=mysql --datadir="$DATADIR" \
    --socket="$SOCK" --pid-file="$RUNDIR/mysqld.pid" --port="$PORT" --bind-address=127.0.0.1 \
    --log-error="$RUNDIR/error.log" --lower_case_table_names=1 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --max-connections=500 --skip-name-resolve \
    </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 120); do
    root_sql "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.5
  done
  root_sql "SELECT 1" >/dev/null 2>&1 || { tail -n 20 "$RUNDIR/error.log" >&2 || true; die "mariadbd did not become ready in 60 s"; }
else
  log "a server started by this script is already running"
fi

lctn="$(root_sql "SELECT @@lower_case_table_names")"
[ "$lctn" = 1 ] || die "the running server has lower_case_table_names=$lctn, expected 1 (restart it through this script)"

# The Studio's account: it creates and drops a scratch database and a user per episode.
root_sql "CREATE USER IF NOT EXISTS '$DBUSER'@'%' IDENTIFIED BY '$DBPASS';
ALTER USER '$DBUSER'@'%' IDENTIFIED BY '$DBPASS';
GRANT ALL PRIVILEGES ON *.* TO '$DBUSER'@'%' WITH GRANT OPTION;
FLUSH PRIVILEGES;" || die "could not create the user $DBUSER"

log "ready"
echo "IC_SQL_URL=mysql://$DBUSER:$DBPASS@127.0.0.1:$PORT"
