#!/usr/bin/env bash
# The cost of sweep isolation (issue 28; core/src/study/sweep_procs.c): the same
# study run in worker processes (the default) and in threads
# (--in-process), interleaved by farm-bench (A B A B ...; min/median/max
# and the pair-by-pair ratio A/B), each run into a fresh folder (a sweep
# into its own folder would resume and run nothing). Target: <= 10 %.
# usage: bench/bench_sweep_isolation.sh [BUILD_DIR] [CONFIG] [J] [RUNS]
#   default: build/, configs/sweep_tumbleweed_reduced.toml (330 runs), -j 2, 9 pairs
set -euo pipefail
if [[ ${1:-} == --once ]]; then # one sweep into a fresh folder: --once NSDYN CONFIG J [FLAG]
  d=$(mktemp -d /tmp/nsdyn_iso_XXXXXX)
  trap 'rm -rf "$d"' EXIT
  "$2" sweep "$3" -o "$d" -j "$4" -q --no-graphs --no-csv ${5:+"$5"}
  exit
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
config=${2:-$root/configs/sweep_tumbleweed_reduced.toml}
j=${3:-2}
runs=${4:-9}
me=$root/bench/bench_sweep_isolation.sh
echo "== $config, -j $j ($(nproc) cores); uptime: $(uptime)"
farm-bench -n "$runs" --timeout 900 --vs "bash $me --once $build/core/nsdyn $config $j --in-process" \
  -- bash "$me" --once "$build/core/nsdyn" "$config" "$j"
echo "uptime after: $(uptime)"
