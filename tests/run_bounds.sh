#!/usr/bin/env bash
# Bounds of a run and of a compare variant (issue 28, round 3), with the
# looping / leaking system of tests/fixtures/crashing_system.c:
#  - the first SIGINT is honoured at once even inside a plugin callback
#    that loops (nsdyn run and nsdyn compare): the data so far kept in
#    DIR.INCOMPLETE, marked incomplete;
#  - run.max_memory bounds `nsdyn run` (the message names the key);
#  - run.timeout is honoured per compare variant, the variant named, and
#    the other variants go on.
# usage: run_bounds.sh NSDYN FIXTURE_DIR [SANITIZE]
set -uo pipefail
. "$(dirname "$0")/interrupt_util.sh"
nsdyn=$1 fixtures=$2 sanitize=${3:-0}
tmp=$(mktemp -d /tmp/nsdyn-bounds.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export NSDYN_PLUGIN_PATH=$fixtures
cat > "$tmp/c.toml" << 'TOML'
[system]
id = "crashing"
fault = 4
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.1
output_dt = 0.001
progress = false
[plot]
enabled = false
TOML
# 1. Ctrl-C inside a looping callback (the loop starts at t = 0.05 s).
"$nsdyn" run "$tmp/c.toml" -o "$tmp/r" -q 2> "$tmp/err.txt" &
pid=$!
# the loop starts within 2 s, as before the shared helper
interrupt_when $pid "sleep 1.5"
[[ $dt == ignored ]] && fail "run: the first SIGINT inside a looping callback was ignored (still running after 10 s)"
[[ $st == 130 ]] || fail "run interrupted in a callback: exit $st, want 130 (128 + SIGINT)"
grep -q "inside a plugin callback" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
csv=$tmp/r.INCOMPLETE/timeseries.INCOMPLETE.csv
if [[ -s $csv ]]; then
    # the samples before the loop: t = 0 .. 0.05 s every 1 ms, free fall from 1 m
    python3 - "$csv" << 'PY' || fail "the kept data are not the run's samples so far"
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
head, data = rows[0], [list(map(float, r)) for r in rows[1:]]
t = [r[0] for r in data]
assert 40 <= len(data) <= 52, len(data)
assert all(abs(b - a - 1e-3) < 1e-9 for a, b in zip(t, t[1:])), "grid"
for r in data:  # y = 1 - g t^2 / 2 (rk4 is exact on a quadratic)
    assert abs(r[1] - (1 - 9.81 * r[0] ** 2 / 2)) < 1e-9, r
PY
else
    fail "run interrupted in a callback: no $csv"
fi
grep -q 'outcome = "failed' "$tmp/r.INCOMPLETE/run.toml" 2> /dev/null ||
    fail "run.toml does not mark the run failed: $(cat "$tmp/r.INCOMPLETE/run.toml" 2> /dev/null)"
[[ -e $tmp/r ]] && fail "an interrupted run wrote $tmp/r"
echo "run: SIGINT in a looping callback honoured in ${dt} s"

# 2. run.max_memory: a leaking callback (fault 5) ends on a refused
#    allocation, the message naming the key; a limit below what the
#    process maps before the run is refused up front.
if [[ $sanitize != 1 ]]; then # ASan's shadow memory rules out an address-space limit
    timeout -k 5 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/m" -q --set system.fault=5 --set run.max_memory=400 2> "$tmp/err.txt"; st=$?
    [[ $st == 134 || $st == 139 || $st == 3 ]] || fail "run.max_memory: exit $st, want a crash status: $(cat "$tmp/err.txt")"
    grep -q "run.max_memory = 400 MiB" "$tmp/err.txt" || fail "run.max_memory message: $(cat "$tmp/err.txt")"
    timeout -k 5 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/m" -q --set system.fault=0 --set run.max_memory=400 2> "$tmp/err.txt"; st=$?
    [[ $st == 0 ]] || fail "run.max_memory with a run that fits: exit $st: $(cat "$tmp/err.txt")"
    timeout -k 5 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/m2" -q --set system.fault=0 --set run.max_memory=17 2> "$tmp/err.txt"; st=$?
    [[ $st == 2 ]] || fail "run.max_memory below the mapped size: exit $st, want 2"
    grep -q "error: run.max_memory = 17 MiB: expected more than" "$tmp/err.txt" || fail "small run.max_memory message: $(cat "$tmp/err.txt")"
fi

# 3. run.timeout per compare variant: the slow one fails named, the next runs.
cat > "$tmp/cmp.toml" << 'TOML'
[system]
id = "crashing"
fault = 0
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.1
timeout = 1.0
progress = false
[plot]
enabled = false
[[variant]]
name = "fine"
[[variant]]
name = "slow one"
integrator = { h = 1e-7 }
run = { t_end = 100.0 }
[[variant]]
name = "after"
TOML
timeout -k 5 60 "$nsdyn" compare "$tmp/cmp.toml" -o "$tmp/cmp" -q 2> "$tmp/err.txt"; st=$?
[[ $st == 0 ]] || fail "compare with a variant past run.timeout: exit $st, want 0: $(cat "$tmp/err.txt")"
grep -q 'warning: variant "slow one": run.timeout = 1 s reached in variant "slow one"' "$tmp/err.txt" ||
    fail "compare timeout message: $(cat "$tmp/err.txt")"
grep -q 'outcome = "complete"' "$tmp/cmp/variant-03/run.toml" 2> /dev/null ||
    fail "the variant after the timed-out one did not run to its end"
grep -q 'outcome = "failed' "$tmp/cmp/variant-02/run.toml" 2> /dev/null ||
    fail "the timed-out variant is not recorded as failed"
# a variant stuck in a callback: ended 0.5 s after its limit, named, the
# finished variants and the stuck one's data so far kept
sed -i 's/^integrator = { h = 1e-7 }/system = { fault = 4 }/; s/^run = { t_end = 100.0 }//' "$tmp/cmp.toml"
timeout -k 5 60 "$nsdyn" compare "$tmp/cmp.toml" -o "$tmp/cmp2" -q 2> "$tmp/err.txt"; st=$?
[[ $st == 142 ]] || fail "compare with a variant stuck in a callback: exit $st, want 142"
grep -qF 'variant "slow one" (2 of 3): run.timeout = 1 s reached: interrupted by signal 14 inside a plugin callback' "$tmp/err.txt" ||
    fail "compare stuck message: $(cat "$tmp/err.txt")"
[[ -f $tmp/cmp2.INCOMPLETE/variant-01/run.toml ]] || fail "the finished variant was not kept"
[[ -s $tmp/cmp2.INCOMPLETE/variant-02/timeseries.INCOMPLETE.csv ]] || fail "the stuck variant's data were not kept"

# 4. Ctrl-C while a compare variant loops in a callback: honoured at once
#    (not only at run.timeout), the finished variant and the stuck one's
#    samples so far kept, the variant named.
sed -i 's/^timeout = 1.0/timeout = 0/; s/^\[run\]/[run]\noutput_dt = 0.001/' "$tmp/cmp.toml"
"$nsdyn" compare "$tmp/cmp.toml" -o "$tmp/cmp3" -q 2> "$tmp/err.txt" &
pid=$!
# the loop starts within 2 s, as before the shared helper
interrupt_when $pid "sleep 1.5"
[[ $dt == ignored ]] && fail "compare: the first SIGINT inside a looping callback was ignored (still running after 10 s)"
[[ $st == 130 ]] || fail "compare interrupted in a callback: exit $st, want 130 (128 + SIGINT)"
grep -qF 'variant "slow one" (2 of 3): interrupted by signal 2 inside a plugin callback' "$tmp/err.txt" ||
    fail "compare SIGINT message: $(cat "$tmp/err.txt")"
grep -q 'outcome = "complete"' "$tmp/cmp3.INCOMPLETE/variant-01/run.toml" 2> /dev/null ||
    fail "compare SIGINT: the finished variant was not kept"
csv=$tmp/cmp3.INCOMPLETE/variant-02/timeseries.INCOMPLETE.csv
python3 - "$csv" << 'PY' || fail "compare SIGINT: the stuck variant's kept data are not its samples so far"
import sys
rows = [l.split(",") for l in open(sys.argv[1]) if not l.startswith("#")][1:]
t = [float(r[0]) for r in rows]
assert 40 <= len(t) <= 52 and all(abs(b - a - 1e-3) < 1e-9 for a, b in zip(t, t[1:])), t
PY
[[ -e $tmp/cmp3 ]] && fail "an interrupted compare wrote $tmp/cmp3"
echo "compare: SIGINT in a looping callback honoured in ${dt} s"
[[ $fails == 0 ]] && echo "run bounds: all checks passed"
exit $((fails > 0))
