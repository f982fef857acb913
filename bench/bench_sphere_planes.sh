#!/usr/bin/env bash
# Old build against new on the reduced tumbleweed study (330 sphere_planes
# runs), interleaved A B A B ... so drift in the machine's load hits both
# alike; prints each build's wall and CPU (user + sys) seconds as median
# (min - max) and the load average before and after (issue 25, item 2).
#   bash bench/bench_sphere_planes.sh OLD_BUILD NEW_BUILD [PAIRS] [J] [CONFIG]
# (CONFIG: another study instead, e.g. bench_sweep.sh's variant of it)
set -euo pipefail
old=${1:?old build dir} new=${2:?new build dir} pairs=${3:-9} j=${4:-1}
cfg=${5:-$(cd "$(dirname "$0")/.." && pwd)/configs/sweep_tumbleweed_reduced.toml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() { # build label: one sweep into a fresh folder, appends "wall cpu"
    rm -rf "$tmp/out"
    # a failing build is said with its messages, not a silent end under set -e
    if ! /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$1/core/nsdyn" sweep "$cfg" -o "$tmp/out" -q \
        -j "$j" --set plot.enabled=false >"$tmp/log" 2>&1; then
        echo "bench_sphere_planes.sh: the $2 run ($1) failed:" >&2
        cat "$tmp/log" >&2
        exit 1
    fi
    awk '{print $1, $2 + $3}' "$tmp/t" >>"$tmp/$2"
}
echo "before: $(uptime)"
one "$old" warm && one "$new" warm # warm-up: page cache, plugin loading
for ((i = 0; i < pairs; ++i)); do
    one "$old" old
    one "$new" new
done
echo "after:  $(uptime)"
stats() { # column of file: median (min - max)
    sort -g <(cut -d' ' -f"$2" "$tmp/$1") | awk '{v[NR]=$1} END {
        m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        printf "%.3f (%.3f - %.3f)", m, v[1], v[NR]}'
}
paste -d' ' "$tmp/old" "$tmp/new" | awk '{print $3/$1, $4/$2}' >"$tmp/ratio"
printf "%-5s %-26s %-26s\n" build "wall [s]" "cpu [s]"
for b in old new; do printf "%-5s %-26s %-26s\n" $b "$(stats $b 1)" "$(stats $b 2)"; done
printf "%-5s %-26s %-26s\n" new/old "$(stats ratio 1)" "$(stats ratio 2)"
