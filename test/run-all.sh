#!/usr/bin/env bash
# The project's test command (`npm test`): typecheck, build, then every test lane under test/,
# then the evidence map (docs/EVIDENCE.md) against that run, then the unit and end-to-end tests
# again on each other Node.js LTS release in test/stack/node-versions (test/node-lane.sh).
# Extra arguments go to vitest, e.g. `npm test -- test/unit/pipeline`.
#
#   THUND_FIXTURES    foreign-written Iceberg fixtures (default: <repo>/../shared/fixtures)
#   CI=true           integration tests fail, not skip, when a service they need is missing
#   THUND_NODE_LANES  the Node releases of those lanes, space-separated (default: the file's; `none` for none)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

step() { printf '\n== %s\n' "$*"; }

default_fixtures="$(cd "$repo/.." && pwd)/shared/fixtures"
export THUND_FIXTURES="${THUND_FIXTURES:-$default_fixtures}"
if [[ ! -d "$THUND_FIXTURES" ]]; then
  echo "run-all.sh: fixtures folder not found: $THUND_FIXTURES (set THUND_FIXTURES)" >&2
  exit 1
fi
echo "fixtures: $THUND_FIXTURES"

step "python env for independent readers (pyiceberg)"
python="$(bash test/stack/python-env.sh | tail -n 1)"
echo "python: $python"

step "typecheck"
npx tsc -p tsconfig.json --noEmit

step "build (dist/ is needed by CLI tests)"
npm run build

step "API report (the package's public surface against etc/thund.api.md)"
npm run --silent api:check

step "npm audit of the production dependencies (fails on high or critical)"
npm run --silent audit:check

step "tests (vitest) on node $(node --version)"
report_dir="$(mktemp -d)"
trap 'rm -rf "$report_dir"' EXIT
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report_dir/report.json" "$@" || status=$?

# One plain closing line with the counts, read from vitest's JSON report.
if [[ -f "$report_dir/report.json" ]]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`\nnode-${process.versions.node}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
    if (r.numTotalTests === 0) { console.error("run-all.sh: no test ran"); process.exit(1); }
  ' "$report_dir/report.json" || status=1

  # docs/EVIDENCE.md against this run: extra arguments select a subset of the tests, which cannot
  # prove every Available capability, so only the static rules hold then.
  step "evidence map"
  subset_flag=""
  [[ $# -eq 0 ]] || subset_flag="--subset"
  npx tsx test/evidence/check.ts "$report_dir/report.json" $subset_flag || status=1
else
  echo "run-all.sh: vitest wrote no report" >&2
  [[ $status -ne 0 ]] || status=1
fi

lanes="${THUND_NODE_LANES:-$(grep -E '^[0-9]' test/stack/node-versions | tr '\n' ' ')}"
[[ "$lanes" != none ]] || lanes=""
reports=("$report_dir/report.json")
for version in $lanes; do
  [[ "v$version" != "$(node --version)" ]] || continue
  step "unit and end-to-end tests on node v$version"
  bash test/node-lane.sh "$version" "$report_dir/node-$version.json" "$@" || status=1
  reports+=("$report_dir/node-$version.json")
done

# The closing line: every run above, added up (each Node's own line is printed above).
node -e '
  const fs = require("node:fs");
  const runs = process.argv.slice(1).filter((file) => fs.existsSync(file)).map((file) => JSON.parse(fs.readFileSync(file, "utf8")));
  const sum = (key) => runs.reduce((total, r) => total + (typeof key === "function" ? key(r) : r[key]), 0);
  console.log(`\ntests: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum((r) => r.numPendingTests + r.numTodoTests)} skipped`);
' "${reports[@]}"
exit "$status"
