#!/usr/bin/env bash
# nsdyn sweep on the thesis's full 87 822-run grid (bench/sweep_full_grid.toml;
# docs/sweep.md has the figures): wall time, runs/s, the cost split and the
# peak memory with -j 2, then -j 1 (thread speed-up) and, in an MPI build
# (-DNSDYN_MPI=ON), mpirun -n 3 (one writer and two workers) against one
# process. Target: <= 3 minutes with -j 2 on the 2-core machine.
# usage: bench/bench_sweep.sh [BUILD_DIR] [CONFIG]   (default build/, the full grid)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
config=${2:-$root/bench/sweep_full_grid.toml}
nsdyn=$build/core/nsdyn
out=$(mktemp -d /tmp/nsdyn_bench_sweep_XXXXXX)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# one run of the sweep: its summary lines, wall time and peak memory
measure() {
  local name=$1; shift
  /usr/bin/time -f "$name: %e s wall, peak memory %M kB" "$@" -o "$out/$name" -q --no-graphs \
    2> "$out/$name.err" || { cat "$out/$name.err"; exit 1; }
  grep -E "^sweep:|wall, peak| x " "$out/$name.err"
  grep -oE "[0-9.]+ s wall, peak" "$out/$name.err" | cut -d' ' -f1 > "$out/$name.wall"
}

echo "== $config ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
measure j2 "$nsdyn" sweep "$config" -j 2
measure j1 "$nsdyn" sweep "$config" -j 1
ratio() { awk -v a="$(cat "$out/$1.wall")" -v b="$(cat "$out/$2.wall")" 'BEGIN { printf "%.2f", a / b }'; }
echo "speed-up 1 -> 2 threads: $(ratio j1 j2)"
if ldd "$nsdyn" | grep -q libmpi; then
  measure mpi3 mpirun -n 3 --oversubscribe "$nsdyn" sweep "$config"
  echo "speed-up 1 process -> 3 MPI ranks (1 writer, 2 workers): $(ratio j1 mpi3)"
else
  echo "(not an MPI build: configure with -DNSDYN_MPI=ON for the MPI figures)"
fi
