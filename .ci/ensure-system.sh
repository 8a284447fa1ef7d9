#!/usr/bin/env bash
# CI only (.ci/run calls it before `npm run test:e2e`; `npm test` needs no system package). The e2e tests need:
#   chromium                  the report tests open reports headless (Debian's package at /usr/bin/chromium)
#   openjdk-17-jre-headless   Specmatic's contract tests against the stub run on Java 17
#   time                      GNU /usr/bin/time measures the command's peak memory in the staging e2e tests
# Installs what is missing when this user may (root with apt-get); otherwise says in one line what to do and fails.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
missing=()
[ -x "$chromium" ] || missing+=(chromium)
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
[ -x /usr/bin/time ] || missing+=(time)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's ${missing[*]} for the e2e tests" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  [ -x "$chromium" ] || { echo "apt-get installed chromium, but $chromium is still missing: set CHROMIUM_PATH" >&2; exit 1; }
  exit 0
fi
echo "missing for the e2e tests: ${missing[*]}; install them (e.g. 'sudo apt-get install ${missing[*]}')" >&2
exit 1
