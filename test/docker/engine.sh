#!/usr/bin/env bash
# A private Docker engine for the image and containers lanes on a machine without one (root only, no registry):
#
#   bash test/docker/engine.sh start   # prints DOCKER_HOST=unix://… on its last line
#   bash test/docker/engine.sh stop
#
# start: installs docker.io + debootstrap (apt) when dockerd is missing, starts dockerd with the vfs
# storage driver, no iptables and no bridge on its own socket, then makes the base image the
# Dockerfile's FROM names (node:MAJOR-bookworm-slim) when the engine does not have it yet: a
# debootstrap minbase bookworm tree plus the official Node release of that major from the npm
# registry (test/stack/node-versions names it, test/stack/node-runtime.sh installs it; its binary
# and headers), this machine's npm, laid out as the official image lays them (/usr/local/bin/node,
# /usr/local/include/node), and this machine's CA bundle (npm and Node in the build trust what the
# host trusts, e.g. a TLS-inspecting egress), `docker import`ed.
# Containers and builds must use `--network host` (there is no bridge).
#
#   THUND_CACHE         cache root (default ~/.cache/thund); engine state lives in $THUND_CACHE/docker
#   THUND_BASE_IMAGE    tag to import (default: the image docker/Dockerfile's first FROM names)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

cache="${THUND_CACHE:-$HOME/.cache/thund}/docker"
sock="$cache/docker.sock"
pidfile="$cache/dockerd.pid"
base_image="${THUND_BASE_IMAGE:-$(awk 'toupper($1) == "FROM" { print $2; exit }' "$repo/docker/Dockerfile")}"
docker_cli=/usr/bin/docker # the engine's own client (same API version as dockerd)

log() { printf 'engine.sh: %s\n' "$*" >&2; }

running() { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; }

install_tools() {
  if command -v dockerd >/dev/null && command -v debootstrap >/dev/null; then return; fi
  [[ $EUID -eq 0 ]] || { log "dockerd/debootstrap missing and not root: cannot install"; exit 1; }
  log "installing docker.io and debootstrap (apt)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
}

start_daemon() {
  if running; then return; fi
  mkdir -p "$cache/data" "$cache/exec"
  log "starting dockerd (log: $cache/dockerd.log)"
  dockerd --storage-driver=vfs --iptables=false --ip6tables=false --bridge=none \
    --host="unix://$sock" --data-root="$cache/data" --exec-root="$cache/exec" \
    --pidfile="$pidfile" >"$cache/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    if DOCKER_HOST="unix://$sock" "$docker_cli" info >/dev/null 2>&1; then return; fi
    sleep 1
  done
  log "dockerd did not answer within 60 s; log tail:"
  tail -n 30 "$cache/dockerd.log" >&2
  exit 1
}

debian_mirror() {
  local uri
  uri="$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1 || true)"
  if [[ -z "$uri" ]]; then
    uri="$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -n 1 || true)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

make_base_image() {
  if DOCKER_HOST="unix://$sock" "$docker_cli" image inspect "$base_image" >/dev/null 2>&1; then return; fi
  local major version node_bin npm_dir headers rootfs tarball="$cache/bookworm-minbase.tar"
  [[ "$base_image" =~ ^node:([0-9]+)- ]] || { log "cannot make $base_image: only node:MAJOR-… bases are made here"; exit 1; }
  major="${BASH_REMATCH[1]}"
  version="$(grep -E "^$major\." "$repo/test/stack/node-versions" | tail -n 1)"
  [[ -n "$version" ]] || { log "test/stack/node-versions names no Node $major release for $base_image"; exit 1; }
  node_bin="$(bash "$repo/test/stack/node-runtime.sh" "$version" | sed -n 1p)/node"
  npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
  headers="$(dirname "$(dirname "$node_bin")")/include/node"
  [[ -f "$headers/node.h" ]] || { log "node headers not found at $headers"; exit 1; }
  if [[ ! -f "$tarball" ]]; then
    rootfs="$(mktemp -d "$cache/rootfs.XXXX")"
    log "debootstrap minbase bookworm from $(debian_mirror)"
    debootstrap --variant=minbase bookworm "$rootfs" "$(debian_mirror)" >"$cache/debootstrap.log" 2>&1
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb
    tar -C "$rootfs" -cf "$tarball" .
    rm -rf "$rootfs"
  fi
  rootfs="$(mktemp -d "$cache/rootfs.XXXX")"
  tar -C "$rootfs" -xf "$tarball"
  # This folder becomes the image's /: mktemp's (and the tar's "./") 0700 would lock out non-root users.
  chmod 755 "$rootfs"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules" "$rootfs/usr/local/include"
  cp "$node_bin" "$rootfs/usr/local/bin/node"
  cp -r "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  cp -r "$headers" "$rootfs/usr/local/include/node"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  mkdir -p "$rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  log "importing $base_image (node $("$node_bin" --version), npm $(npm --version))"
  tar -C "$rootfs" -c . | DOCKER_HOST="unix://$sock" "$docker_cli" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV npm_config_cafile=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$base_image" >/dev/null
  rm -rf "$rootfs"
}

case "${1:-}" in
  start)
    mkdir -p "$cache"
    install_tools
    start_daemon
    make_base_image
    echo "DOCKER_HOST=unix://$sock"
    ;;
  stop)
    if running; then
      kill "$(cat "$pidfile")"
      for _ in $(seq 1 20); do running || break; sleep 1; done
    fi
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
