#!/usr/bin/env bash
# Install the Debian packages the benchmarks in bench/ need beyond
# scripts/setup-debian.sh (Debian 12): SciPy and NumPy for Debian's own
# /usr/bin/python3, used by bench/bench_walker_scipy.sh. Safe to run again:
# it installs only what is missing.
set -euo pipefail
packages=(
  python3 python3-numpy python3-scipy  # bench/walker_scipy.py: solve_ivp(method="BDF")
)
bash "$(dirname "$0")/apt-install-missing.sh" setup-bench "${packages[@]}"
