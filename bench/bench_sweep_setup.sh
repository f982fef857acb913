#!/usr/bin/env bash
# A sweep's per-run set-up (issue 25 item 3: the config hashed once per
# study, not once per run; core/src/study/sweep_exec.c). Runs the same
# study with an old and a new build in turn, A B A B ..., in one thread in
# process (-j 1 --in-process: no worker process, no second thread), and
# reads the sweep's own line "per run X ms (simulation Y ms, set-up and
# summaries Z ms)": Z is each run's wall outside the simulation (derive,
# create, the old per-run hash, summaries, destroy), measured inside the
# run. Prints per build Z and Y as median (min - max) over the pairs, and
# the load before and after.
# usage: bench/bench_sweep_setup.sh OLD_BUILD NEW_BUILD [CONFIG] [PAIRS]
#   (default the reduced tumbleweed study, 330 runs, 7 pairs). Each build
#   runs with its own core/ first on LD_LIBRARY_PATH.
set -euo pipefail
trap 'echo "bench_sweep_setup.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
root=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?old build dir} new=${2:?new build dir}
cfg=${3:-$root/configs/sweep_tumbleweed_reduced.toml} pairs=${4:-7}
tmp=$(mktemp -d /tmp/nsdyn_bench_setup_XXXXXX)
trap 'rm -rf "$tmp"' EXIT

one() { # build label: one sweep; appends "setup_ms sim_ms" to $tmp/label
    local build=$1 label=$2
    rm -rf "$tmp/out"
    LD_LIBRARY_PATH="$build/core" "$build/core/nsdyn" sweep "$cfg" -o "$tmp/out" -q -j 1 \
        --in-process --no-graphs --set plot.enabled=false 2>"$tmp/err" ||
        { echo "the $label sweep failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    sed -n 's/.*(simulation \([0-9.]*\) ms, set-up and summaries \([0-9.]*\) ms).*/\2 \1/p' \
        "$tmp/err" >>"$tmp/$label"
    [[ -s $tmp/$label ]] || { echo "no per-run line from the $label build:" >&2; cat "$tmp/err" >&2; exit 1; }
}

stats() { # file column: median (min - max)
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.4f (%.4f - %.4f)", m, v[1], v[NR] }'
}

echo "load before: $(uptime)"
for ((i = 0; i < pairs; ++i)); do
    one "$old" old
    one "$new" new
done
echo "load after:  $(uptime)"
echo "config: $cfg, $pairs pairs, -j 1 --in-process"
for b in old new; do
    echo "$b: set-up and summaries per run $(stats "$tmp/$b" 1) ms; simulation per run $(stats "$tmp/$b" 2) ms"
done
paste "$tmp/old" "$tmp/new" | awk '{ print $3 / $1 }' >"$tmp/ratio"
echo "new/old set-up, pair by pair: $(stats "$tmp/ratio" 1)"
