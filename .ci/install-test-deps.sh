#!/usr/bin/env bash
# What the tests need beyond Python packages: Debian's chromium (the HTML report's browser test)
# and git. Installs only what is missing; uses sudo when not root. Part of the README's test
# command, which CI (.ci/run) runs as written.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium fonts-dejavu-core)
command -v git >/dev/null 2>&1 || need+=(git)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: please install ${need[*]} (no apt-get on this machine)" >&2
  exit 1
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
