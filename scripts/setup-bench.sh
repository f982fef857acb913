#!/usr/bin/env bash
# Install the Debian packages the benchmarks in bench/ need beyond
# scripts/setup-debian.sh (Debian 12): SciPy and NumPy for Debian's own
# /usr/bin/python3, used by bench/bench_walker_scipy.sh. Safe to run again:
# it installs only what is missing.
set -euo pipefail
packages=(
  python3 python3-numpy python3-scipy  # bench/walker_scipy.py: solve_ivp(method="BDF")
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-bench: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup-bench: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
