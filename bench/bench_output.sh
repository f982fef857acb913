#!/usr/bin/env bash
# Whole-process cost of a run that writes a sample every step: the bouncing
# ball under moreau (bench/bouncing_ball_every_step.toml, 300 000 steps,
# 300 001 rows of 9 numbers), two nsdyn executables in turn (A B A B ...),
# CPU time (user + sys, from /usr/bin/time) and wall time of each process,
# min / median / max over the runs, and the machine load beside them.
#
#   bench/bench_output.sh OLD_NSDYN NEW_NSDYN [runs]     (default 11 runs)
#
# OLD_NSDYN: e.g. a build of the tree before issue 26 (fprintf "%.12g");
# NEW_NSDYN: build/core/nsdyn. Each run writes into a fresh folder under
# $TMPDIR (deleted after), plots off. A run without output (output_dt = t_end)
# is timed too, for the simulation's own share.
set -euo pipefail
old=$1 new=$2 runs=${3:-11}
here=$(cd "$(dirname "$0")" && pwd)
cfg=$here/bouncing_ball_every_step.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load before: $(uptime)"
one() { # exe label extra-args...: appends "cpu wall" to $work/label
    local exe=$1 label=$2
    shift 2
    rm -rf "$work/out"
    /usr/bin/time -f "%U %S %e" -o "$work/t" "$exe" run "$cfg" -o "$work/out" -q "$@" > /dev/null
    awk '{printf "%.3f %.3f\n", $1 + $2, $3}' "$work/t" >> "$work/$label"
}
for exe in "$old" "$new"; do one "$exe" warm; done
for ((i = 0; i < runs; i++)); do
    one "$old" old
    one "$new" new
    one "$old" old_nooutput --set run.output_dt=30
    one "$new" new_nooutput --set run.output_dt=30
done
echo "load after:  $(uptime)"
stats() { # file column -> min median max
    cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR] = $1} END {printf "%7.3f %7.3f %7.3f", v[1], v[int((NR + 1) / 2)], v[NR]}'
}
printf "%-34s %23s   %23s\n" "seconds per process ($runs runs)" "CPU min / median / max" \
    "wall min / median / max"
for label in old new old_nooutput new_nooutput; do
    printf "%-34s %23s   %23s\n" "$label" "$(stats "$work/$label" 1)" "$(stats "$work/$label" 2)"
done
paste -d' ' "$work/old" "$work/new" | awk '{printf "%.4f\n", $1 / $3}' | sort -g |
    awk '{v[NR] = $1} END {printf "CPU ratio old/new, pair by pair: min %.2f median %.2f max %.2f\n",
                           v[1], v[int((NR + 1) / 2)], v[NR]}'
