#!/usr/bin/env bash
# bench_towed_wheel_rk4 in both build types, several runs each, with the
# spread over the runs (bench/README.md).
#
#   RelWithDebInfo (-O2): the README's build, what scripts/build.sh makes,
#                         in $NSDYN_BUILD_DIR or build/
#   Release (-O3):        in build-release/ (configured here if missing)
#
# Usage: bench/bench_towed_wheel_builds.sh [runs (default 5)] [repetitions per run (default 7)]
#
# The runs alternate between the two builds, so drift in the machine's load
# hits both alike. Each run is one bench_towed_wheel_rk4 (its own checks:
# exit status 1 when composed and fused disagree or the hot path allocates;
# this script then stops). Printed per build: every run's best composed,
# bare and fused ns/step (thread CPU time) and ratio, then the ratio's
# min / median / max over the runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
reps=${2:-7}
jobs=${NSDYN_JOBS:-2}
dirs=("${NSDYN_BUILD_DIR:-$root/build}" "$root/build-release")
types=(RelWithDebInfo Release)

for i in 0 1; do
  dir=${dirs[$i]} type=${types[$i]}
  if [[ ! -f $dir/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE="$type" > "$dir.configure.log" 2>&1 \
      || { cat "$dir.configure.log"; exit 1; }
  fi
  have=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$dir/CMakeCache.txt")
  if [[ $have != "$type" ]]; then
    echo "bench: $dir is a $have build, expected $type" >&2
    exit 2
  fi
  cmake --build "$dir" --target bench_towed_wheel_rk4 -j"$jobs" > "$dir.bench-build.log" 2>&1 \
    || { tail -30 "$dir.bench-build.log"; exit 1; }
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= runs; ++r)); do
  for i in 0 1; do
    log=$out/${types[$i]}.$r
    if ! "${dirs[$i]}/bench/bench_towed_wheel_rk4" "$reps" > "$log"; then
      cat "$log"
      echo "bench: run $r of the ${types[$i]} build failed its checks" >&2
      exit 1
    fi
  done
done

for i in 0 1; do
  echo "${types[$i]} (${dirs[$i]}): $runs runs of best of $reps, ns/step (thread CPU time)"
  printf "  %4s %9s %9s %9s %8s %14s\n" run composed bare fused ratio "ratio medians"
  for ((r = 1; r <= runs; ++r)); do
    awk -v r="$r" '
      /^composed: plugin ABI/ { c = $(NF - 2) }
      /^bare: /               { b = $(NF - 2) }
      /^fused: /              { f = $(NF - 2) }
      /^ratio composed\/fused/ { q = $4; m = $6; sub(/\):?/, "", m) }
      END { printf "  %4d %9s %9s %9s %8s %14s\n", r, c, b, f, q, m }' "$out/${types[$i]}.$r"
  done
  cat "$out/${types[$i]}".* | awk '/^ratio composed\/fused/ { print $4 }' | sort -g |
    awk -v target=1.15 '{ v[NR] = $1 }
      END { printf "  ratio over the runs: min %s, median %s, max %s (target <= %s)\n",
                   v[1], v[int((NR + 1) / 2)], v[NR], target }'
done
