#!/usr/bin/env bash
# The HTML report test opens reports in headless Chromium (Debian's package). Installs it when missing
# and this user may (root with apt-get); otherwise says in one line what to do.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium is missing: installing Debian's chromium package for the HTML report test" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "chromium is missing: install it (e.g. 'sudo apt-get install chromium') to run the HTML report test" >&2
exit 1
