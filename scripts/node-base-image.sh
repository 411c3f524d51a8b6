#!/usr/bin/env bash
# Builds localhost/node:20-bookworm-slim into the local podman store when it is absent, for hosts that reach
# Debian's packages but no container registry: Debian bookworm (minbase, merged /usr) plus this machine's
# Node 20 and npm. The Dockerfile's FROM then resolves locally (build with --pull=never). Needs root and
# mmdebstrap. Where a registry is reachable, pull docker.io/library/node:20-bookworm-slim instead.
set -euo pipefail
cd "$(dirname "$0")"
image=localhost/node:20-bookworm-slim

if ./podman.sh image exists "$image"; then
  echo "$image: present"
  exit 0
fi

node_bin="$(command -v node)"
case "$("$node_bin" --version)" in
v20.*) ;;
*)
  echo "node-base-image: $node_bin is $("$node_bin" --version); a Node 20 is needed for $image" >&2
  exit 1
  ;;
esac
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"

work="$(mktemp -d /tmp/queenctl-base-image-XXXXXX)"
trap 'rm -rf "$work"' EXIT
sources=/etc/apt/sources.list.d/debian.sources
[ -f "$sources" ] || sources="deb http://deb.debian.org/debian bookworm main"

mmdebstrap --variant=minbase --mode=root --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
  --customize-hook="copy-in $node_bin /usr/local/bin" \
  --customize-hook='mkdir -p "$1"/usr/local/lib/node_modules' \
  --customize-hook="copy-in $npm_dir /usr/local/lib/node_modules" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1"/usr/local/bin/npm' \
  bookworm "$work/node20.tar" "$sources"
./podman.sh import --change 'CMD ["node"]' "$work/node20.tar" "$image"
