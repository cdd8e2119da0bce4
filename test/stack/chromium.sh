#!/usr/bin/env bash
# Prints the path of a headless-capable Chromium for the status-page test, installing Debian's
# `chromium` package when none is found and this runs as root (apt-get reaches the Debian mirror
# here; no other download). $THUND_CHROMIUM names one to use instead.
#
#   chromium.sh   → /usr/bin/chromium
set -euo pipefail

if [[ -n "${THUND_CHROMIUM:-}" ]]; then
  echo "$THUND_CHROMIUM"
  exit 0
fi
for name in chromium chromium-browser; do
  if command -v "$name" > /dev/null; then
    command -v "$name"
    exit 0
  fi
done
if [[ "$(id -u)" != 0 ]]; then
  echo "chromium.sh: no chromium found, and not root to install Debian's package (set THUND_CHROMIUM)" >&2
  exit 1
fi
echo "chromium.sh: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends chromium > /dev/null 2>&1 || {
  apt-get update > /dev/null
  apt-get install -y --no-install-recommends chromium > /dev/null
}
command -v chromium
