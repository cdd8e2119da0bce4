#!/usr/bin/env bash
# Docker Compose v2 (the `docker compose` the README's commands use) for the private engine. Debian
# bookworm packages only Compose 1.29, which has neither `up --wait` nor the `!reset` tag, so the
# release pinned below is built once from the Go module proxy into the cache. Prints the path of
# the binary (a standalone `docker-compose` that takes the same arguments as `docker compose`).
#
#   compose-cli.sh
#
#   THUND_CACHE   cache folder (default ~/.cache/thund)
set -euo pipefail

version=v5.6.0
cache="${THUND_CACHE:-$HOME/.cache/thund}/compose/$version"
binary="$cache/docker-compose"
mkdir -p "$cache"
exec 9>"$cache.lock"
flock 9

if [[ ! -x "$binary" ]]; then
  log="$cache/build.log"
  src="$(mktemp -d "$cache/src.XXXX")"
  trap 'rm -rf "$src"' EXIT
  # `go install pkg@version` refuses a module whose go.mod has replace directives: build inside a copy.
  if ! module="$(go mod download -json "github.com/docker/compose/v5@$version" 2>"$log")"; then
    echo "compose-cli.sh: go mod download of docker/compose $version failed (log: $log)" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  dir="$(printf '%s' "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  cp -r "$dir/." "$src"
  chmod -R u+w "$src"
  if ! (cd "$src" && go build -trimpath -ldflags "-s -w -X github.com/docker/compose/v5/internal.Version=$version" -o "$binary.tmp" ./cmd) >>"$log" 2>&1; then
    echo "compose-cli.sh: building docker/compose $version failed (log: $log)" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  mv "$binary.tmp" "$binary"
fi
echo "$binary"
