#!/usr/bin/env bash
# Prepares the Python venv of the independent readers (pyiceberg) and prints its python path as
# the last line of stdout. Idempotent: the venv lives outside the repo, keyed by the hash of the
# requirements file, and a stamp file makes a rerun instant. Quiet unless something fails.
#
#   python-env.sh [REQUIREMENTS [CHECK]]
#     REQUIREMENTS  another pinned requirements file gets its own venv (default: requirements-interop.txt)
#     CHECK         Python statement that must run in the new venv (default: the pyiceberg imports
#                   for the default file, nothing for another file)
#
#   THUND_CACHE   cache folder (default ~/.cache/thund)
#   THUND_PYTHON  interpreter to build the venv from (default python3.11, else python3 if 3.11)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
default_requirements="$(realpath "$here/requirements-interop.txt")"
requirements="$(realpath "${1:-$default_requirements}")"
if [[ "$requirements" == "$default_requirements" ]]; then
  check="${2:-import pyiceberg.catalog.sql, pyarrow, sqlalchemy}"
else
  check="${2:-pass}"
fi
cache="${THUND_CACHE:-$HOME/.cache/thund}"

hash="$(sha256sum "$requirements" | cut -c1-16)"
venv="$cache/py311-$hash"
stamp="$venv/.thund-installed"
python="$venv/bin/python"

if [[ -f "$stamp" && -x "$python" ]]; then
  echo "$python"
  exit 0
fi

pick_python() {
  local candidate
  for candidate in "${THUND_PYTHON:-}" python3.11 python3; do
    [[ -n "$candidate" ]] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "python-env.sh: no Python 3.11 found (tried \$THUND_PYTHON, python3.11, python3)" >&2
  return 1
}

mkdir -p "$cache"
# Parallel test workers may call this at once: one builds, the others wait and reuse.
exec 9>"$venv.lock"
flock 9
if [[ -f "$stamp" && -x "$python" ]]; then
  echo "$python"
  exit 0
fi

base_python="$(pick_python)"
log="$cache/py311-$hash.install.log"
rm -rf "$venv"
if ! {
  "$base_python" -m venv "$venv" &&
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" &&
    "$python" -c "$check"
} >"$log" 2>&1; then
  echo "python-env.sh: installing $requirements into $venv failed; log follows ($log):" >&2
  cat "$log" >&2
  rm -rf "$venv"
  exit 1
fi
echo "$hash" >"$stamp"
echo "$python"
