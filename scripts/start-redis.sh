#!/usr/bin/env bash
# Starts a Redis server for the evaluation queue (lib/runs/queue, `icstudio worker`) on 127.0.0.1, with
# no persistence: the queue's tests and the bench need a real server, not a durable one.
#
# Idempotent: a server it started before (same port) is reused. Logs go to stderr; stdout holds
# one line to eval:  export IC_TEST_REDIS_URL=redis://127.0.0.1:port
#
#   eval "$(bash scripts/start-redis.sh)"
#
# Settings (environment): IC_REDIS_PORT (56379), IC_REDIS_DIR (/tmp/icstudio-redis-<port>).
set -euo pipefail

PORT="${IC_REDIS_PORT:-56379}"
DIR="${IC_REDIS_DIR:-/tmp/icstudio-redis-$PORT}"

log() { echo "start-redis: $*" >&2; }
die() { log "error: $*"; exit 1; }

command -v redis-server >/dev/null || die "redis-server not found: apt-get install -y redis-server"
ping() { redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -qx PONG; }

if ping; then
  log "a server already answers on 127.0.0.1:$PORT"
else
  mkdir -p "$DIR"
  log "starting redis-server on 127.0.0.1:$PORT (files: $DIR)"
  # maxmemory-policy noeviction: BullMQ must never have its keys evicted.
  redis-server --port "$PORT" --bind 127.0.0.1 --daemonize yes --dir "$DIR" \
    --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" --save "" --appendonly no \
    --maxmemory-policy noeviction >/dev/null
  for _ in $(seq 1 50); do ping && break; sleep 0.1; done
  ping || { tail -n 20 "$DIR/redis.log" >&2 || true; die "redis-server did not answer on port $PORT in 5 s"; }
fi
echo "export IC_TEST_REDIS_URL=redis://127.0.0.1:$PORT"
