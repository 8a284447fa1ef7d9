#!/usr/bin/env bash
# CI only (.ci/run calls it before `npm run test:e2e`; `npm test` needs no system package): the e2e report tests
# open reports in headless Chromium, Debian's package at /usr/bin/chromium. Installs it when missing and this
# user may (root with apt-get); otherwise says in one line what to do and fails.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
[ -x "$chromium" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "$chromium is missing: installing Debian's chromium package for the e2e report tests" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  [ -x "$chromium" ] && exit 0
  echo "apt-get installed chromium, but $chromium is still missing: set CHROMIUM_PATH" >&2
  exit 1
fi
echo "$chromium is missing: install it (e.g. 'sudo apt-get install chromium') or set CHROMIUM_PATH, to run the e2e report tests" >&2
exit 1
