#!/usr/bin/env bash
# Install the Debian packages nsdyn needs (Debian 12). Safe to run again:
# it installs only what is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config     # C17/C++17 toolchain and build
  libtomlplusplus-dev                  # TOML 1.0 configs (behind a C adapter)
  libplplot-dev plplot-driver-cairo    # graphs: pngcairo, svgcairo, pdfcairo
  libsundials-dev                      # CVODE: BDF integrator, root finding
  libsiconos-numerics-dev              # Siconos: optional contact solver of moreau
  check libsubunit-dev                 # unit tests
)
bash "$(dirname "$0")/apt-install-missing.sh" setup "${packages[@]}"
