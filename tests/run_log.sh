#!/usr/bin/env bash
# One log per run (issue 21; core/src/params/runlog.h): a system that logs
# a numbered line at create and every 0.01 s, tagged with its parameter
# (tests/fixtures/logging_system.c):
#  - nsdyn run: its lines reach run.log in the run folder, in order, and
#    the command line prints them;
#  - nsdyn sweep over the tag in 4 threads (--in-process) and in 3 worker
#    processes: every row counts its own warnings and starts with its own
#    first one (log_warnings, log_first in runs.csv), every kept run's
#    run.log holds exactly its own lines in order (no line of another
#    run: threads never mix), and nothing of a run reaches the sweep's
#    stderr.
# usage: run_log.sh NSDYN FIXTURE_DIR
set -uo pipefail
nsdyn=$1 fixtures=$2
tmp=$(mktemp -d /tmp/nsdyn-runlog.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export NSDYN_PLUGIN_PATH=$fixtures

# The lines run.log must hold for tag T: create's, then count warnings.
expect() {
    echo "info: tag $1: created"
    for k in 1 2 3 4 5; do echo "warning: tag $1: message $k at t = "; done
}
# run.log without the times (the step's t where each threshold passed).
strip_times() { sed -E 's/ at t = [0-9.]+ s$/ at t = /' "$1"; }

cat > "$tmp/one.toml" << 'TOML'
[system]
id = "logging"
tag = 7
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.1
progress = false
[plot]
enabled = false
TOML
"$nsdyn" run "$tmp/one.toml" -o "$tmp/one" -q 2> "$tmp/one.err" || fail "nsdyn run exited $?"
if [[ -f $tmp/one/run.log ]]; then
    diff <(strip_times "$tmp/one/run.log") <(expect 7) > "$tmp/d" || fail "run.log: $(cat "$tmp/d")"
else
    fail "nsdyn run wrote no run.log"
fi
grep -q "^warning: tag 7: message 5 at t = " "$tmp/one.err" || fail "the command did not print the log"

sed -e '/^\[plot\]/i [sweep]\nkeep = "all"\n\n[[sweep.axis]]\nkey = "system.tag"\nname = "tag"\nvalues = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22]\n\n[sweep.summary]\ny_end = "final(y)"\n' \
    "$tmp/one.toml" > "$tmp/sweep.toml"
for mode in "--in-process -j 4" "-j 3"; do
    out=$tmp/sweep-${mode// /}
    # shellcheck disable=SC2086
    "$nsdyn" sweep "$tmp/sweep.toml" $mode -q --no-graphs -o "$out" 2> "$out.err" ||
        fail "$mode: nsdyn sweep exited $?"
    grep -q "tag " "$out.err" && fail "$mode: a run's message reached the sweep's stderr"
    python3 - "$out/runs.csv" << 'PY' || fail "$mode: runs.csv (above)"
import csv, sys
# the header gives numbers' units ("tag [1]"): the columns by their names
rows = [{k.split(" [")[0]: v for k, v in r.items()} for r in csv.DictReader(open(sys.argv[1]))]
bad = 0
if len(rows) != 12: print("rows:", len(rows)); bad = 1
for r in rows:
    want = f"tag {r['tag']}: message 1 at t = "
    if r.get("log_warnings") != "5" or not r.get("log_first", "").startswith(want):
        print("row", r["run"], "tag", r["tag"], "log_warnings", r.get("log_warnings"),
              "log_first", repr(r.get("log_first"))); bad = 1
sys.exit(bad)
PY
    n=0
    for d in "$out"/runs/run-*; do
        n=$((n + 1))
        tag=$(sed -nE 's/^info: tag ([0-9]+): created$/\1/p' "$d/run.log")
        [[ -n $tag ]] || { fail "$mode: $d/run.log has no create line"; continue; }
        diff <(strip_times "$d/run.log") <(expect "$tag") > "$tmp/d" ||
            fail "$mode: $d/run.log is not its own run's lines: $(head -5 "$tmp/d")"
    done
    [[ $n == 12 ]] || fail "$mode: $n kept runs, expected 12"
done

echo "$fails failure(s)"
[[ $fails == 0 ]]
