#!/usr/bin/env bash
# Outputs that never lie (issue 28): a sweep writes its CSVs into a new
# file renamed into place, never through a symbolic link planted in its
# folder; on a full disk it says which file, exits 4 and leaves no
# truncated CSV (the earlier one, if any, untouched). The full disk is a
# 16 KiB tmpfs (mounted directly, or in a user namespace; skipped, exit
# 77, where neither is allowed).
# usage: outputs_never_lie.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
tmp=$(mktemp -d /tmp/nsdyn-out.XXXXXX)
trap 'umount "$tmp/full" "$tmp/full2" 2> /dev/null; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cfg=$configs/sweep_tumbleweed_reduced.toml
small=(--set 'sweep.design="random"' --set sweep.samples=12 -q)
# 1. Links planted in the output folder are replaced, not written through.
mkdir -p "$tmp/s"
echo "precious" > "$tmp/victim"
for f in runs.csv runs.csv.tmp crossed_vs_e_by_k.csv crossed_vs_e_by_k.csv.tmp; do
    ln -s "$tmp/victim" "$tmp/s/$f"
done
"$nsdyn" sweep "$cfg" -o "$tmp/s" "${small[@]}" 2> "$tmp/err.txt"; st=$?
[[ $st == 0 ]] || fail "sweep: exit $st: $(cat "$tmp/err.txt")"
[[ $(cat "$tmp/victim") == precious ]] || fail "a sweep wrote through a planted link"
[[ -f $tmp/s/runs.csv && ! -L $tmp/s/runs.csv ]] || fail "runs.csv is not a regular file"
[[ -f $tmp/s/crossed_vs_e_by_k.csv && ! -L $tmp/s/crossed_vs_e_by_k.csv ]] || fail "the graph CSV is not a regular file"
# 2. A full disk.
mkdir "$tmp/full"
run_full() { # the sweep with its folder on the small tmpfs
    "$nsdyn" sweep "$cfg" -o "$tmp/full/s" --db "$tmp/full.sqlite" --no-graphs -q 2> "$tmp/err.txt"
    echo $? > "$tmp/status"
    ls -A "$tmp/full/s" > "$tmp/left" 2> /dev/null
}
if mount -t tmpfs -o size=16k tmpfs "$tmp/full" 2> /dev/null; then
    run_full
elif unshare -rm true 2> /dev/null; then
    export -f run_full
    export nsdyn cfg tmp
    unshare -rm bash -c 'mount -t tmpfs -o size=16k tmpfs "$tmp/full" && run_full'
else
    echo "skipped: cannot mount a small tmpfs here"
    [[ $fails == 0 ]] && exit 77
    exit 1
fi
st=$(cat "$tmp/status")
[[ $st == 4 ]] || fail "full disk: exit $st, want 4: $(cat "$tmp/err.txt")"
grep -q "cannot write $tmp/full/s/runs.csv.tmp: No space left on device" "$tmp/err.txt" || fail "full disk message: $(cat "$tmp/err.txt")"
[[ ! -s $tmp/left ]] || fail "left behind on the full disk: $(cat "$tmp/left")"
# 3. A graph that does not fit (round 3): `nsdyn run` on a 256 KiB tmpfs,
#    where the data (about 180 KiB) fit and the PNGs do not: the failed
#    PNG named, exit 4, the data and the record kept in DIR.INCOMPLETE
#    (the record saying the outputs are incomplete), nothing at DIR.
mkdir "$tmp/full2"
run_graphs_full() {
    "$nsdyn" run "$configs/bouncing_ball_newton.toml" -o "$tmp/full2/r" -q 2> "$tmp/err2.txt"
    echo $? > "$tmp/status2"
    ls -A "$tmp/full2/r.INCOMPLETE" > "$tmp/left2" 2> /dev/null
    grep '^message' "$tmp/full2/r.INCOMPLETE/run.toml" > "$tmp/msg2" 2> /dev/null
    [[ -e $tmp/full2/r ]] && echo "r" > "$tmp/mark2"
}
if mount -t tmpfs -o size=256k tmpfs "$tmp/full2" 2> /dev/null; then
    run_graphs_full
    umount "$tmp/full2"
else
    export -f run_graphs_full
    export nsdyn configs tmp
    unshare -rm bash -c 'mount -t tmpfs -o size=256k tmpfs "$tmp/full2" && run_graphs_full'
fi
st=$(cat "$tmp/status2")
[[ $st == 4 ]] || fail "graphs on a full disk: exit $st, want 4: $(cat "$tmp/err2.txt")"
grep -q "error: plot: incomplete output in '.*\.svg\.tmp' (disk full?)" "$tmp/err2.txt" || fail "graph failure not named: $(cat "$tmp/err2.txt")"
grep -q "the data and the record are kept in $tmp/full2/r.INCOMPLETE" "$tmp/err2.txt" || fail "graph failure message: $(cat "$tmp/err2.txt")"
grep -qx "timeseries.INCOMPLETE.csv" "$tmp/left2" && grep -qx "run.toml" "$tmp/left2" ||
    fail "the data and record were not kept: $(cat "$tmp/left2")"
grep -q "the graphs could not be written" "$tmp/msg2" || fail "the record does not say the graphs failed: $(cat "$tmp/msg2")"
[[ -e $tmp/mark2 ]] && fail "graphs on a full disk: the incomplete outputs were put at DIR"
[[ $fails == 0 ]] && echo "outputs never lie: all checks passed"
exit $((fails > 0))
