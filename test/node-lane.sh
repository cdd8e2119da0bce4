#!/usr/bin/env bash
# Runs the unit project (unit and end-to-end tests: everything that needs no service) on another
# Node.js release, in a copy of this checkout whose better-sqlite3 addon is built for that
# release's ABI (the only native addon that is not Node-API). The built CLI (dist/) is copied as
# it is, so the end-to-end tests run the same bundle on the other Node.
#
#   bash test/node-lane.sh VERSION REPORT_JSON [vitest args…]
#
# The release and its addon come from test/stack/node-runtime.sh (cached under THUND_CACHE).
# Prints vitest's own output, then one closing line: `node-VERSION: N passed, N failed, N skipped`.
set -euo pipefail

version="${1:?usage: node-lane.sh VERSION REPORT_JSON [vitest args…]}"
report="${2:?usage: node-lane.sh VERSION REPORT_JSON [vitest args…]}"
shift 2
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ -f "$repo/dist/bin/thund.js" ]] || { echo "node-lane.sh: build first (npm run build): the end-to-end tests run dist/bin/thund.js" >&2; exit 1; }

runtime="$(bash "$repo/test/stack/node-runtime.sh" "$version")"
node_bin="$(sed -n 1p <<<"$runtime")"
sqlite_home="$(sed -n 2p <<<"$runtime")"

lane="$(mktemp -d "${TMPDIR:-/tmp}/thund-node-$version.XXXX")"
trap 'rm -rf "$lane"' EXIT

# The checkout as it stands (tracked and new files, not ignored ones; a deleted file is skipped),
# the build, and node_modules as hard links (a copy where links cannot be made) but for
# better-sqlite3, which is this release's build.
(cd "$repo" && git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$lane" -xf -
cp -a "$repo/dist" "$lane/dist"
cp -al "$repo/node_modules" "$lane/node_modules" 2>/dev/null || cp -a "$repo/node_modules" "$lane/node_modules"
rm -rf "$lane/node_modules/better-sqlite3"
cp -a "$sqlite_home" "$lane/node_modules/better-sqlite3"

# Tests find the foreign-written fixtures relative to the checkout; the copy is elsewhere.
export THUND_FIXTURES="${THUND_FIXTURES:-$(cd "$repo/.." && pwd)/shared/fixtures}"

status=0
# npm_config_nodedir: a test that installs the packed package builds better-sqlite3 there, for this
# release (a machine-wide npm config may name another Node's headers). Two workers: a test file's
# own time is about half its fork's start and imports, time a second worker fills.
(cd "$lane" && PATH="$node_bin:$PATH" npm_config_nodedir="$(dirname "$node_bin")" THUND_STACK=none \
  "$node_bin/node" node_modules/vitest/vitest.mjs run --project unit --maxWorkers=2 \
  --passWithNoTests --reporter=default --reporter=json --outputFile.json="$report" "$@") || status=$?

if [[ -f "$report" ]]; then
  "$node_bin/node" -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    console.log(`\nnode-${process.versions.node}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  ' "$report"
else
  echo "node-lane.sh: vitest on Node $version wrote no report" >&2
  [[ $status -ne 0 ]] || status=1
fi
exit "$status"
