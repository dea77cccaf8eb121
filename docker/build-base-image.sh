#!/usr/bin/env bash
# Builds the local base image `intercode-studio/base:bookworm` with mmdebstrap piped into
# `docker import`: no container registry needed, only a Debian mirror (or an apt cache).
# Every tool the environment images need is installed here, so their Dockerfiles build offline.
set -euo pipefail

tag=${BASE_TAG:-intercode-studio/base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=(
  bash coreutils findutils grep sed gawk diffutils util-linux procps psmisc less
  git file tree bc python3 ca-certificates
  tar gzip bzip2 xz-utils zip unzip
  sqlite3 xxd binutils netcat-openbsd curl
  cpio rename ncal bind9-dnsutils iputils-ping ncompress hashdeep jq
  bsdextrautils cron  # column and cron: InterCode's NL2Bash image had both (bsdmainutils, cron)
)
# The recipe's hash goes on the image, so build-images.sh rebuilds it when this list changes.
recipe=$(sha256sum "$0" | cut -c1-16)

if ! command -v mmdebstrap >/dev/null; then
  echo "mmdebstrap not found: apt-get install -y mmdebstrap" >&2
  exit 1
fi

include=$(IFS=,; echo "${packages[*]}")
echo "building $tag (bookworm, minbase + ${#packages[@]} packages)" >&2
mmdebstrap --variant=minbase --include="$include" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  bookworm - "$mirror" \
  | docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'ENV LANG=C.UTF-8' \
      --change 'CMD ["/bin/bash"]' \
      --change "LABEL studio.recipe=$recipe" \
      - "$tag"
echo "built $tag" >&2
