#!/usr/bin/env bash
# Starts a Docker engine in the background unless one already answers; waits until it does.
# Idempotent. Needs root and the docker.io package (dockerd, containerd, runc).
set -euo pipefail

if docker info >/dev/null 2>&1; then
  echo "docker engine already running" >&2
  exit 0
fi

if ! command -v dockerd >/dev/null; then
  echo "dockerd not found: apt-get install -y docker.io" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "starting dockerd needs root" >&2
  exit 1
fi

log=${DOCKERD_LOG:-/var/log/dockerd.log}
mkdir -p "$(dirname "$log")"
# A stale pid file from a killed engine stops dockerd from starting.
if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
  rm -f /var/run/docker.pid
fi
nohup dockerd >"$log" 2>&1 &
echo "dockerd started (pid $!), log in $log" >&2

for _ in $(seq 1 120); do
  if docker info >/dev/null 2>&1; then
    echo "docker engine ready" >&2
    exit 0
  fi
  sleep 0.5
done
echo "docker engine did not answer within 60 s; see $log" >&2
tail -n 20 "$log" >&2 || true
exit 1
