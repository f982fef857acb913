#!/usr/bin/env bash
# Install those of the given Debian packages that are missing (through sudo
# when not root). Used by setup-debian.sh and setup-bench.sh.
# Usage: apt-install-missing.sh LABEL PACKAGE...
set -euo pipefail
label=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$label: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "$label: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
