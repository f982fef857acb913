#!/usr/bin/env bash
# Configure and build nsdyn into build/ (extra cmake arguments pass through).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NSDYN_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)"
# `import nsdyn` for Debian's python3 (docs/python.md); not for sanitizer builds
case " $* " in *NSDYN_SANITIZE=ON*) ;; *) bash "$root/scripts/install-python.sh" "$build" ;; esac
