#!/usr/bin/env bash
# Set up, build, and run every test: the full suite on a normal build, then
# again on an AddressSanitizer/UBSan build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup-debian.sh"
bash "$root/scripts/build.sh" -DNSDYN_MPI=ON   # the MPI sweep test runs 2 and 3 ranks
(cd "$root/build" && ctest --output-on-failure -j2)
NSDYN_BUILD_DIR="$root/build-asan" bash "$root/scripts/build.sh" -DNSDYN_SANITIZE=ON -DNSDYN_BUILD_BENCH=OFF
(cd "$root/build-asan" && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$root/scripts/lsan.supp" \
   ctest --output-on-failure -j2)
