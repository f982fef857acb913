#!/usr/bin/env bash
# bench_towed_wheel_rk4 of two builds, interleaved: the plugin overhead
# before and after a change (bench/README.md, "Where the overhead goes").
#
# Usage: bench/bench_towed_wheel_pair.sh OLD_BUILD NEW_BUILD [runs (5)] [repetitions (7)]
#        bench/bench_towed_wheel_pair.sh --instructions OLD_BUILD NEW_BUILD
#
# Timing: the two builds' bench_towed_wheel_rk4 alternate `runs` times (OLD,
# NEW, OLD, ...), each run the best and median of `repetitions` of every
# variant (thread CPU time; the bench's own checks must pass, else exit 1).
# Printed: each run's best composed, bare and fused ns/step and the ratio
# composed/fused (of the bests and of the medians), then per build the
# ratio's min / median / max over the runs, with `uptime` before and after.
#
# --instructions: the load-independent figure. Each variant's stepping loop
# (composed_run, bare_run, fused_run) under callgrind, one run of 200 000
# steps, instructions per step of the loop and everything it calls.
set -euo pipefail
count=0
if [[ ${1:-} == --instructions ]]; then
  count=1
  shift
fi
old=${1:?usage: OLD_BUILD NEW_BUILD [runs] [repetitions]}
new=${2:?usage: OLD_BUILD NEW_BUILD [runs] [repetitions]}
runs=${3:-5}
reps=${4:-7}
dirs=("$old" "$new")
names=(old new)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

if ((count)); then
  command -v valgrind > /dev/null || { echo "bench: valgrind is not installed" >&2; exit 2; }
  printf "%-5s %10s %10s %10s   instructions per step (callgrind)\n" build composed bare fused
  for i in 0 1; do
    row=()
    for v in composed bare fused; do
      f=$out/$i.$v.cg
      valgrind --tool=callgrind --toggle-collect="${v}_run" --callgrind-out-file="$f" \
        "${dirs[$i]}/bench/bench_towed_wheel_rk4" 1 "$v" > /dev/null 2>&1
      total=$(sed -n 's/^totals: *//p' "$f")
      row+=("$(awk -v t="$total" 'BEGIN { printf "%.0f", t / 200000 }')")
    done
    printf "%-5s %10s %10s %10s   %s\n" "${names[$i]}" "${row[@]}" "${dirs[$i]}"
  done
  exit 0
fi

echo "before: $(uptime)"
for ((r = 1; r <= runs; ++r)); do
  for i in 0 1; do
    log=$out/${names[$i]}.$r
    if ! "${dirs[$i]}/bench/bench_towed_wheel_rk4" "$reps" > "$log"; then
      cat "$log"
      echo "bench: run $r of ${dirs[$i]} failed its checks" >&2
      exit 1
    fi
  done
done
echo "after:  $(uptime)"

for i in 0 1; do
  echo "${names[$i]} (${dirs[$i]}): $runs runs of best of $reps, ns/step (thread CPU time)"
  printf "  %4s %9s %9s %9s %8s %14s\n" run composed bare fused ratio "ratio medians"
  for ((r = 1; r <= runs; ++r)); do
    awk -v r="$r" '
      /^composed: plugin ABI/ { c = $(NF - 2); cm = $(NF - 1) }
      /^bare: /               { b = $(NF - 2) }
      /^fused: /              { f = $(NF - 2); fm = $(NF - 1) }
      END { printf "  %4d %9.1f %9.1f %9.1f %8.3f %14.3f\n", r, c, b, f, c / f, cm / fm }
    ' "$out/${names[$i]}.$r"
  done | tee "$out/${names[$i]}.table"
  awk '{ print $5 }' "$out/${names[$i]}.table" | sort -g | awk '
    { v[NR] = $1 }
    END { printf "  ratio over the runs: min %.3f, median %.3f, max %.3f\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
done
