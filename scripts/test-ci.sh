#!/usr/bin/env bash
# Installs and starts everything the test suites need on a fresh Debian machine (as root), then
# runs every suite: types, unit + integration (local and docker sandboxes, SQLite, MariaDB and
# PostgreSQL), the hardening suite, and the browser tests against a production build.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  step "apt packages"
  need=()
  # tree..psmisc: tools the NL2Bash gold commands call (lib/datasets/fs-check.int.test.ts);
  # xxd..python3: tools the demo CTF solutions use (lib/datasets/demo-ctf.int.test.ts);
  # openssl: the TLS certificates of the second Docker engine (lib/sandbox/docker-hosts.int.test.ts);
  # redis-server: the evaluation queue (lib/runs/queue/queue.int.test.ts);
  # zstd, python3-pydantic: zstd .eval entries and Harbor's ATIF validator (lib/trajectories/ecosystem.int.test.ts;
  # the validator needs pydantic 2: Debian 13's package, or a python3 on PATH that has it);
  # python3-scipy: the oracle of the paired statistics (lib/stats/paired.test.ts: binomtest, bootstrap).
  for pkg in bubblewrap docker.io mariadb-server mmdebstrap chromium git iproute2 procps util-linux \
    tree cpio rename ncal bind9-dnsutils iputils-ping ncompress hashdeep jq psmisc \
    xxd unzip sqlite3 binutils python3 postgresql openssl redis-server \
    zstd python3-pydantic python3-scipy; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if [ "${#need[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
fi

step "docker engine and images"
bash scripts/start-dockerd.sh
bash scripts/build-images.sh
export IC_REQUIRE_DOCKER=1
# On the development machines the engine twice vanished mid-run (SIGKILLed, cause not found).
# Tests still fail clearly when it is gone; this restarts it so one loss does not sink the rest.
( while sleep 5; do docker info >/dev/null 2>&1 || bash scripts/start-dockerd.sh >&2 || true; done ) &
watchdog=$!
trap 'kill "$watchdog" 2>/dev/null || true' EXIT

step "MariaDB"
eval "$(bash scripts/start-mariadb.sh)"
export IC_SQL_URL IC_REQUIRE_MYSQL=1

step "PostgreSQL (the store suite runs on SQLite and on PostgreSQL)"
eval "$(bash scripts/start-postgres.sh)"
export IC_REQUIRE_PG=1

step "Redis (the evaluation queue: lib/runs/queue, icstudio worker)"
eval "$(bash scripts/start-redis.sh)"
export IC_REQUIRE_REDIS=1

step "InterCode task sets (from ../shared/intercode)"
npm run --silent icstudio -- datasets fetch intercode --from ../shared/intercode

step "import rules (folder cycles in lib/, IC_* read only in lib/config.ts)"
node scripts/check-imports.mjs --graph

step "lint and format (Biome: biome.jsonc)"
npm run --silent lint

step "typecheck"
npm run --silent typecheck

step "unit and integration tests"
npm test

# The hardening suite's server tests and the browser tests run the production build.
step "production build"
npm run --silent build

step "hardening suite"
npm run test:hardening

step "browser tests"
npm run test:e2e

step "done"
