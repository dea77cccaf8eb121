#!/usr/bin/env bash
# Builds the sandbox images intercode-studio/<image>:latest from the Dockerfiles in docker/, each
# on its local base image (built first with mmdebstrap when missing or its recipe changed; kept
# otherwise). The same table as IMAGE_BUILDS in lib/sandbox/docker-hosts.ts:
#   bash python sql ctf   docker/Dockerfile.<env>   on intercode-studio/base:bookworm
#   bash-intercode        docker/Dockerfile.bash    on intercode-studio/base:bullseye (profile intercode)
# Needs a running engine (scripts/start-dockerd.sh). No registry access is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The two bases build side by side (each is mostly one dpkg process and downloads).
bash docker/build-base-image.sh bookworm & bookworm=$!
bash docker/build-base-image.sh bullseye & bullseye=$!
status=0
wait "$bookworm" || status=$?
wait "$bullseye" || status=$?
[ "$status" = 0 ] || { echo "building a base image failed" >&2; exit "$status"; }

build() { # image dockerfile base
  echo "building intercode-studio/$1:latest" >&2
  docker build --quiet --network none --build-arg "BASE_IMAGE=$3" \
    -f "docker/$2" -t "intercode-studio/$1:latest" docker >/dev/null
}
for env in bash python sql ctf; do
  build "$env" "Dockerfile.$env" intercode-studio/base:bookworm
done
build bash-intercode Dockerfile.bash intercode-studio/base:bullseye
docker image ls 'intercode-studio/*' >&2
