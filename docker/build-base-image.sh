#!/usr/bin/env bash
# Builds a local base image with mmdebstrap piped into `docker import`: no container registry
# needed, only a Debian mirror (or an apt cache). Every tool the environment images need is
# installed here, so their Dockerfiles build offline.
#
#   build-base-image.sh [bookworm|bullseye]     (default bookworm)
#
# - bookworm -> intercode-studio/base:bookworm, the Studio's own images (every environment).
# - bullseye -> intercode-studio/base:bullseye, the bash image of the `intercode` profile: as near
#   InterCode's NL2Bash image (Ubuntu 22.04) as a Debian mirror gets: bash 5.1 and readline 8.1,
#   mawk as awk, and only the packages that image had (its published package list, and what its
#   logs show: /etc/group had _ssh and messagebus, so openssh-client (git's recommend) and dbus).
# The image is rebuilt only when its recipe (the suite, its packages, the build command) changed.
set -euo pipefail

suite=${1:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case "$suite" in
  bookworm)
    packages=(
      bash coreutils findutils grep sed gawk diffutils util-linux procps psmisc less
      git file tree bc python3 ca-certificates
      tar gzip bzip2 xz-utils zip unzip
      sqlite3 xxd binutils netcat-openbsd curl
      cpio rename ncal bind9-dnsutils iputils-ping ncompress hashdeep jq
      bsdextrautils cron  # column and cron: InterCode's NL2Bash image had both (bsdmainutils, cron)
    )
    hooks=()  # bookworm's / is merged-/usr already
    ;;
  bullseye)
    # InterCode's list (bash python3 psmisc bsdmainutils cron dnsutils git tree net-tools
    # iputils-ping coreutils curl cpio jq; imagemagick left out: nothing in the task sets or logs
    # uses it and it triples the image), git's recommends (less openssh-client patch), dbus,
    # ca-certificates and procps (its logs run ps, uptime and free). No gawk (minbase's mawk is
    # awk), no xxd, md5deep or rename.
    packages=(
      bash coreutils psmisc bsdmainutils cron dnsutils git tree net-tools iputils-ping curl cpio jq
      python3 less openssh-client patch dbus ca-certificates procps
    )
    # Ubuntu 22.04's / is merged (bin -> usr/bin ...); bullseye's is not unless made so before
    # the first package unpacks (as debootstrap --merged-usr does; bullseye has no usr-is-merged).
    merged='usr/bin usr/sbin usr/lib'
    [ "$(dpkg --print-architecture)" = amd64 ] && merged="$merged usr/lib32 usr/lib64 usr/libx32"
    hooks=(--setup-hook="for d in $merged; do mkdir -p \"\$1/\$d\"; ln -s \"\$d\" \"\$1/\${d#usr/}\"; done")
    # openssh-client names its ssh-agent group `ssh` up to 8.4 (bullseye) and `_ssh` from 8.9 on
    # (Ubuntu 22.04, whose /etc/group InterCode's logs print): the group gets Ubuntu's name.
    hooks+=(--customize-hook='chroot "$1" groupmod -n _ssh ssh')
    # The sandbox has no network, so no DNS: names resolve through /etc/hosts alone, and an
    # unknown name is "Name or service not known" (as a name that does not exist was for
    # InterCode's online containers) rather than a "Temporary failure" of a resolver never reachable.
    hooks+=(--customize-hook='sed -i "s/^hosts:.*/hosts:          files/" "$1/etc/nsswitch.conf"')
    ;;
  *)
    echo "build-base-image.sh: unknown suite '$suite' (expected bookworm or bullseye)" >&2
    exit 2
    ;;
esac
tag=intercode-studio/base:$suite

build() {
  local id
  # Imported untagged, and tagged only when mmdebstrap succeeded (a failed run still streams a tar).
  id=$(mmdebstrap --variant=minbase --include="$(IFS=,; echo "${packages[*]}")" \
    --dpkgopt=force-unsafe-io "${hooks[@]}" \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
    "$suite" - "$mirror" \
    | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["/bin/bash"]' \
        --change "LABEL studio.recipe=$recipe" \
        -) || { [ -n "${id:-}" ] && docker rmi "$id" >/dev/null; return 1; }
  docker tag "$id" "$tag"
}

# The recipe's hash goes on the image; an image already carrying it is kept.
recipe=$({ echo "$suite"; printf '%s\n' "${packages[@]}" "${hooks[@]}"; declare -f build; } | sha256sum | cut -c1-16)
if [ "$(docker image inspect -f '{{ index .Config.Labels "studio.recipe" }}' "$tag" 2>/dev/null)" = "$recipe" ]; then
  echo "$tag is up to date" >&2
  exit 0
fi
if ! command -v mmdebstrap >/dev/null; then
  echo "mmdebstrap not found: apt-get install -y mmdebstrap" >&2
  exit 1
fi
echo "building $tag ($suite, minbase + ${#packages[@]} packages)" >&2
build
echo "built $tag" >&2
