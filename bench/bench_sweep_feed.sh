#!/usr/bin/env bash
# Are a sweep's worker processes kept fed? (issue 25 item 1,
# core/src/study/sweep_procs.c). Runs the same study with an old and a new
# build in turn, A B A B ..., and samples every process's
# /proc/PID/schedstat (time on a CPU, time waiting for one) every 0.2 s:
# a worker's "blocked" share (alive, neither running nor waiting to run)
# is the time it sat on its empty task pipe waiting for the writer. Prints
# per build the workers' blocked share, the wall and CPU seconds, each as
# median (min - max), and the load before and after.
# usage: bench/bench_sweep_feed.sh OLD_BUILD NEW_BUILD [CONFIG] [PAIRS] [J]
#   (default the reduced tumbleweed study, 3 pairs, -j 2). Each build runs
#   with its own core/ first on LD_LIBRARY_PATH, so a copied build works.
set -euo pipefail
trap 'echo "bench_sweep_feed.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?old build dir} new=${2:?new build dir}
cfg=${3:-$root/configs/sweep_tumbleweed_reduced.toml} pairs=${4:-3} j=${5:-2}
tmp=$(mktemp -d /tmp/nsdyn_bench_feed_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

one() { # build label: one sweep; appends "blocked_percent wall cpu" to $tmp/label
    local build=$1 label=$2 t0 t1
    rm -rf "$tmp/out"
    declare -A first last
    t0=$(date +%s.%N)
    LD_LIBRARY_PATH="$build/core" "$build/core/nsdyn" sweep "$cfg" -o "$tmp/out" -q -j "$j" \
        --no-graphs --set plot.enabled=false 2>"$tmp/err" &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        for p in $(pgrep -P "$pid" || true); do
            local s now
            s=$(cat "/proc/$p/schedstat" 2>/dev/null) || continue
            now=$(date +%s.%N)
            [[ -n ${first[$p]:-} ]] || first[$p]="$now $s"
            last[$p]="$now $s"
        done
        sleep 0.2
    done
    wait "$pid" || { echo "the $label sweep failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    local alive=0 blocked=0 a r1 w1 b r2 w2 x
    for p in "${!last[@]}"; do
        read -r a r1 w1 x <<<"${first[$p]}"
        read -r b r2 w2 x <<<"${last[$p]}"
        alive=$(awk -v s="$alive" -v a="$a" -v b="$b" 'BEGIN { print s + b - a }')
        blocked=$(awk -v s="$blocked" -v a="$a" -v b="$b" -v r=$((r2 - r1)) -v w=$((w2 - w1)) \
            'BEGIN { print s + (b - a) - (r + w) / 1e9 }')
    done
    # CPU: the children's run time is in their schedstat; the whole
    # process tree's from /proc of the shell's reaped children would need
    # /usr/bin/time, which hides the worker pids: here the sum of the
    # workers' on-CPU time stands for the CPU
    local cpu=0
    for p in "${!last[@]}"; do
        read -r a r1 w1 x <<<"${first[$p]}"
        read -r b r2 w2 x <<<"${last[$p]}"
        cpu=$(awk -v s="$cpu" -v r=$((r2 - r1)) 'BEGIN { print s + r / 1e9 }')
    done
    awk -v bl="$blocked" -v al="$alive" -v t0="$t0" -v t1="$t1" -v c="$cpu" \
        'BEGIN { printf "%.3f %.3f %.3f\n", (al > 0 ? 100 * bl / al : 0), t1 - t0, c }' >>"$tmp/$label"
}

stats() { # file column: median (min - max)
    sort -g <(cut -d' ' -f"$2" "$tmp/$1") | awk '{v[NR]=$1} END {
        m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        printf "%.2f (%.2f - %.2f)", m, v[1], v[NR]}'
}

echo "study: $cfg, -j $j, $pairs pairs, $(nproc) cores"
echo "before: $(uptime)"
one "$old" warm && one "$new" warm
for ((i = 0; i < pairs; ++i)); do
    one "$old" old
    one "$new" new
done
echo "after:  $(uptime)"
printf "%-5s %-28s %-28s %-28s\n" build "workers blocked [%]" "wall [s]" "workers on CPU [s]"
for b in old new; do
    printf "%-5s %-28s %-28s %-28s\n" $b "$(stats $b 1)" "$(stats $b 2)" "$(stats $b 3)"
done
