#!/usr/bin/env bash
# Install the Debian packages nsdyn needs (Debian 12). Safe to run again:
# it installs only what is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config     # C17/C++17 toolchain and build
  libtomlplusplus-dev                  # TOML 1.0 configs (behind a C adapter)
  libplplot-dev plplot-driver-cairo    # graphs: memcairo, svgcairo, pdfcairo
  libpng-dev zlib1g-dev                # graphs: PNG encoding of memcairo's pixels (plot_png.c)
  libfreetype-dev fonts-dejavu-core    # graphs: svg-text widths measured in DejaVu Sans (plot_ftext.c)
  librsvg2-bin                         # tests: check_figures.py renders the svg-text figures
  libsundials-dev                      # CVODE: BDF integrator, root finding
  liblapacke-dev                       # LAPACKE: dense solves above 3x3 (core/numeric)
  libsiconos-numerics-dev              # Siconos: optional contact solver of moreau
  libsqlite3-dev                       # nsdyn sweep: results database (docs/sweep.md)
  libhdf5-dev hdf5-tools python3-h5py  # run.data_format = "csv+hdf5" (docs/configs.md), its test
  ffmpeg                               # nsdyn animate: MP4/GIF of a run (docs/figures.md)
  libopenmpi-dev openmpi-bin           # nsdyn sweep across machines (-DNSDYN_MPI=ON, optional)
  check libsubunit-dev                 # unit tests
  clang libclang-rt-14-dev             # fuzz targets: clang 14 and libFuzzer (fuzz/, docs/fuzzing.md)
  universal-ctags python3              # tests: scripts/check-lengths.py (function and file lengths)
  python3-numpy python3-pytest python3-matplotlib  # the Python package nsdyn, its tests and example (docs/python.md)
  libmujoco-dev                        # the mjcf system: MuJoCo model files (docs/mjcf.md)
  zsh fish                             # tests/cli_help.sh: the zsh and fish completions parse
)
bash "$(dirname "$0")/apt-install-missing.sh" setup "${packages[@]}"
