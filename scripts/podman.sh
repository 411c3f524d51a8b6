#!/usr/bin/env bash
# podman with the settings hosts without a container engine need (docs/deploy.md, "Build"):
# its own storage.conf and containers.conf in QUEENCTL_PODMAN_DIR (default /tmp/queenctl-podman), never /etc.
# runc because crun refuses hybrid cgroups there; ulimits at the host's hard limits because podman's defaults
# exceed them. The container tests and .ci/run call podman through this script. Usage: scripts/podman.sh ARGS
set -euo pipefail

dir="${QUEENCTL_PODMAN_DIR:-/tmp/queenctl-podman}"
mkdir -p "$dir/storage" "$dir/run" "$dir/tmp"

if [ ! -f "$dir/storage.conf" ]; then
  cat >"$dir/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$dir/storage"
runroot = "$dir/run"
EOF
fi

# The host's hard limit, capped: podman's defaults are refused, and so was nproc=96367 (the hard limit on
# one such host) when a build step started, while 32768 works.
capped() { local value; value="$(ulimit -H "$1")"; [ "$value" = unlimited ] || [ "$value" -gt "$2" ] && value="$2"; echo "$value"; }

if [ ! -f "$dir/containers.conf" ]; then
  nofile="$(capped -n 20000)"
  nproc="$(capped -u 32768)"
  cat >"$dir/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$dir/run/events.log"
EOF
fi

export CONTAINERS_STORAGE_CONF="$dir/storage.conf"
export CONTAINERS_CONF="$dir/containers.conf"
export TMPDIR="$dir/tmp"
exec podman "$@"
