#!/usr/bin/env bash
# The first Ctrl-C inside a plugin callback that loops, in nsdyn sweep
# --in-process (issue 28, round 4; tests/fixtures/crashing_system.c fault
# 4: derivatives() loops for ever from t = 0.05 s). The worker threads run
# the plugin in the writer's process, so before this round the first
# SIGINT was ignored (the writer waited for the stuck thread for ever).
# Now: exit 130 at once; the finished rows committed; the stuck run a
# failed row with its reason; the same command then goes on with the rest
# without re-running the stuck one (--retry-crashed would), and the study
# ends with every row, each finished one the closed form.
# usage: sweep_interrupt.sh NSDYN FIXTURE_DIR
set -uo pipefail
nsdyn=$1 fixtures=$2
tmp=$(mktemp -d /tmp/nsdyn-swint.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export NSDYN_PLUGIN_PATH=$fixtures
# 120 runs of some 10 ms; run 3 loops
vals=$(python3 -c "print(', '.join('4' if i == 3 else '0' for i in range(120)))")
cat > "$tmp/s.toml" << TOML
[system]
id = "crashing"
fault = 0
[integrator]
id = "rk4"
h = 0.00001
[run]
t_end = 0.2
progress = false
[plot]
enabled = false
[sweep.summary]
y_end = "final(y)"
[[sweep.axis]]
key = "system.fault"
name = "fault"
values = [$vals]
TOML
check_db() { # run 3 failed with its reason, every other row the closed form; $2: the rows wanted
    python3 - "$1" "$2" << 'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT run, status, message, y_end FROM runs").fetchall()
by = {r[0]: r for r in rows}
assert 3 in by, "the stuck run has no row"
assert by[3][1] == "failed" and by[3][2].startswith(
    "crashed: interrupted by signal 2 inside a plugin callback"), by[3]
for r in rows:  # free fall from 1 m for 0.2 s; rk4 is exact on a quadratic
    assert r[0] == 3 or (r[1] == "ok" and abs(r[3] - (1 - 9.81 * 0.2 ** 2 / 2)) < 1e-9), r
assert sys.argv[2] == "any" or sorted(by) == list(range(int(sys.argv[2]))), sorted(by)
print(len(rows))
PY
}
. "$(dirname "$0")/interrupt_util.sh"
# Interrupt a sweep 1.5 s in (run 3 is stuck by then); $1: -j
interrupt() {
    "$nsdyn" sweep "$tmp/s.toml" -o "$tmp/o$1" -j "$1" --in-process --no-graphs -q 2> "$tmp/err.txt" &
    interrupt_when $! "sleep 1"
    [[ $dt == ignored ]] && fail "sweep --in-process -j $1: the first SIGINT inside a looping callback was ignored (10 s)"
    [[ $st == 130 ]] || fail "sweep -j $1 interrupted in a callback: exit $st, want 130: $(cat "$tmp/err.txt")"
    grep -qF "1 worker thread was stuck in a plugin callback" "$tmp/err.txt" || fail "-j $1 message: $(cat "$tmp/err.txt")"
    [[ -s $tmp/o$1/runs.csv ]] || fail "-j $1: no runs.csv after the interrupt"
}
# -j 1: runs 0 to 2 finished and committed, run 3 failed, nothing else
interrupt 1
check_db "$tmp/o1/sweep.sqlite" 4 > /dev/null || fail "-j 1: the interrupted study's database is wrong"
echo "sweep --in-process -j 1: SIGINT in a looping callback honoured in ${dt} s"
# the same command goes on (-j 2): the stuck run is not run again (it would loop)
timeout -k 5 90 "$nsdyn" sweep "$tmp/s.toml" -o "$tmp/o1" -j 2 --in-process --no-graphs -q 2> "$tmp/err.txt"; st=$?
[[ $st == 0 ]] || fail "the resumed study: exit $st: $(cat "$tmp/err.txt")"
check_db "$tmp/o1/sweep.sqlite" 120 > /dev/null || fail "the resumed study's database is wrong"
# -j 2: the other thread stops at a step boundary (or has finished), the stuck one is failed
interrupt 2
n=$(check_db "$tmp/o2/sweep.sqlite" any) || fail "-j 2: the interrupted study's database is wrong"
echo "sweep --in-process -j 2: SIGINT in a looping callback honoured in ${dt} s, $n rows kept"
[[ $fails == 0 ]] && echo "sweep interrupt: all checks passed"
exit $((fails > 0))
