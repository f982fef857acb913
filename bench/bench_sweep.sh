#!/usr/bin/env bash
# nsdyn sweep on the thesis's full 87 822-run grid (bench/sweep_full_grid.toml;
# docs/sweep.md has the figures): wall and CPU time, runs/s, the cost split
# and the peak memory with -j 2, then -j 1 (thread speed-up) and, in an MPI
# build (-DNSDYN_MPI=ON), mpirun -n 3 (one writer and two workers) against
# one process; the machine's load (uptime) before and after each. With an
# OLD_BUILD_DIR (a build of the baseline, e.g. main before issue 25), first
# the fair comparison on a shared machine: the reduced tumbleweed study
# (330 runs) with the old and the new build interleaved, A B A B ..., at
# -j 2 and -j 1 (bench/bench_sphere_planes.sh), median (min - max).
# Target (issue 25): the full grid <= 60 s with -j 2 on the 2-core machine.
# usage: bench/bench_sweep.sh [BUILD_DIR] [CONFIG] [OLD_BUILD_DIR] [PAIRS]
#   (default build/, the full grid, no comparison, 7 pairs)
set -euo pipefail
# never end silently: a failing command under set -e says where and what
trap 'echo "bench_sweep.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
config=${2:-$root/bench/sweep_full_grid.toml}
old=${3:-}
pairs=${4:-7}
nsdyn=$build/core/nsdyn
out=$(mktemp -d /tmp/nsdyn_bench_sweep_XXXXXX)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ -n "$old" ]; then
  for j in 2 1; do
    echo "== reduced study, old $old against new $build, -j $j, $pairs pairs"
    bash "$root/bench/bench_sphere_planes.sh" "$old" "$build" "$pairs" "$j"
  done
  # the same study without its min(gap) summary: its runs sample t and the
  # states only (sweep_summary.c nsd_sweep_sampled_channels), as the full grid's do
  grep -v '^gap_min' "$root/configs/sweep_tumbleweed_reduced.toml" > "$out/reduced_states.toml"
  echo "== reduced study without min(gap) (states-only samples), -j 2, $pairs pairs"
  bash "$root/bench/bench_sphere_planes.sh" "$old" "$build" "$pairs" 2 "$out/reduced_states.toml"
fi

# one run of the sweep: its summary lines, wall and CPU time, peak memory
measure() {
  local name=$1; shift
  echo "load before: $(uptime)"
  /usr/bin/time -f "$name: %e s wall, %U s user, %S s sys, peak memory %M kB" "$@" \
    -o "$out/$name" -q --no-graphs 2> "$out/$name.err" || { cat "$out/$name.err"; exit 1; }
  # the sweep's own lines (a run without them is reported, not fatal)
  grep -E "^sweep:| x " "$out/$name.err" || echo "($name: no summary line from nsdyn sweep)"
  # the wall time /usr/bin/time measured: its line alone ("NAME: W s wall, ..."),
  # not the sweep's "sweep: W s wall" (two numbers would go into the ratio)
  local line
  line=$(grep -E "^$name: [0-9.]+ s wall, " "$out/$name.err" || true)
  if [ -z "$line" ]; then
    echo "bench_sweep.sh: no wall time from /usr/bin/time for $name:" >&2
    cat "$out/$name.err" >&2
    exit 1
  fi
  echo "$line"
  echo "$line" | cut -d' ' -f2 > "$out/$name.wall"
  echo "load after:  $(uptime)"
}

echo "== $config ($(nproc) cores)"
measure j2 "$nsdyn" sweep "$config" -j 2
measure j1 "$nsdyn" sweep "$config" -j 1
ratio() { awk -v a="$(cat "$out/$1.wall")" -v b="$(cat "$out/$2.wall")" 'BEGIN { printf "%.2f", a / b }'; }
echo "speed-up 1 -> 2 threads (wall): $(ratio j1 j2)"
# not `ldd | grep -q` under pipefail: grep -q ends first, ldd gets SIGPIPE
# and the pipeline fails, so an MPI build looked like a serial one
if ldd "$nsdyn" | grep libmpi >/dev/null; then
  measure mpi3 mpirun -n 3 --oversubscribe "$nsdyn" sweep "$config"
  echo "speed-up 1 process -> 3 MPI ranks (1 writer, 2 workers): $(ratio j1 mpi3)"
  measure mpi2j2 mpirun -n 2 --oversubscribe "$nsdyn" sweep "$config" -j 2
  echo "speed-up 1 process -> 2 MPI ranks (1 writer, 1 worker of 2 threads): $(ratio j1 mpi2j2)"
else
  echo "(not an MPI build: configure with -DNSDYN_MPI=ON for the MPI figures)"
fi
