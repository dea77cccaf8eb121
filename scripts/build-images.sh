#!/usr/bin/env bash
# Builds the sandbox images intercode-studio/<env>:latest (bash, python, sql, ctf) from the
# Dockerfiles in docker/, on the local base image (built first with mmdebstrap when missing).
# Needs a running engine (scripts/start-dockerd.sh). No registry access is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${BASE_TAG:-intercode-studio/base:bookworm}
recipe=$(sha256sum docker/build-base-image.sh | cut -c1-16)
if [ "$(docker image inspect -f '{{ index .Config.Labels "studio.recipe" }}' "$base" 2>/dev/null)" != "$recipe" ]; then
  bash docker/build-base-image.sh
fi
for env in bash python sql ctf; do
  echo "building intercode-studio/$env:latest" >&2
  docker build --quiet --network none --build-arg "BASE_IMAGE=$base" \
    -f "docker/Dockerfile.$env" -t "intercode-studio/$env:latest" docker >/dev/null
done
docker image ls 'intercode-studio/*' >&2
