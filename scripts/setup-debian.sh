#!/usr/bin/env bash
# Install the Debian packages nsdyn needs (Debian 12). Safe to run again:
# it installs only what is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config     # C17/C++17 toolchain and build
  libtomlplusplus-dev                  # TOML 1.0 configs (behind a C adapter)
  libplplot-dev plplot-driver-cairo    # graphs: pngcairo, svgcairo, pdfcairo
  libsundials-dev                      # CVODE: BDF integrator, root finding
  check libsubunit-dev                 # unit tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
