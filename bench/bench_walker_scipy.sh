#!/usr/bin/env bash
# Benchmark (not a test): the passive walker (configs/walker2_gait.toml) run
# by nsdyn's bdf (CVODE) and by SciPy's solve_ivp(method="BDF") on the same
# equations and tolerances; prints wall times, right-hand-side evaluations,
# each one's accuracy against a tight reference, and the speed ratio
# SciPy / nsdyn with PASS/FAIL against 20. See bench/README.md.
#
# usage: bench/bench_walker_scipy.sh [DRIVER] [walker_compare.py options]
#   DRIVER   the bench_walker_bdf executable (default build/bench/bench_walker_bdf)
#   options  e.g. --rtol 1e-6 --atol 1e-10 --max-step 1e-4 --t-end 3 --reps 15
#            --scipy-reps 5 --keep DIR (see bench/walker_compare.py)
# or: cmake --build <build> --target bench_walker_scipy
#
# Needs Debian's python3-scipy for /usr/bin/python3 (scripts/setup-bench.sh);
# PYTHON overrides the interpreter. Exit status: 0 if the checks pass (the
# speed result does not change it), 1 if a check fails, 2 if something is
# missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
driver="$root/build/bench/bench_walker_bdf"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  driver=$1
  shift
fi
python=${PYTHON:-/usr/bin/python3}
if [ ! -x "$driver" ]; then
  echo "bench_walker_scipy: no driver at $driver; build it (cmake --build <build> --target bench_walker_bdf) and pass its path" >&2
  exit 2
fi
if ! "$python" -c 'import numpy, scipy' 2>/dev/null; then
  echo "bench_walker_scipy: $python has no SciPy/NumPy; run scripts/setup-bench.sh (Debian's python3-scipy)" >&2
  exit 2
fi
exec "$python" "$here/walker_compare.py" --driver "$driver" --config "$root/configs/walker2_gait.toml" "$@"
