#!/usr/bin/env bash
# Sweep isolation (issue 28; core/src/sweep_procs.c): a sweep over a
# system that segfaults, aborts, exits, hangs or leaks at t = 0.05 s (by
# its `fault` parameter, tests/fixtures/crashing_system.c), with -j 2: each
# bad run is a failed row naming its reason, the good runs are all there,
# the sweep exits 0; a resume retries no crashed row unless asked.
# Under the sanitizers (SANITIZE = 1) the shadow memory rules out an
# address-space limit (no leak run) and ASan turns a SIGSEGV into exit 1.
# usage: sweep_isolation.sh NSDYN FIXTURE_DIR [SANITIZE]
set -uo pipefail
nsdyn=$1 fixtures=$2 sanitize=${3:-0}
tmp=$(mktemp -d /tmp/nsdyn-iso.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export NSDYN_PLUGIN_PATH=$fixtures
unset NSDYN_SWEEP_RETRY_CRASHED
cat > "$tmp/s.toml" << 'TOML'
[system]
id = "crashing"
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.1
progress = false
[plot]
enabled = false
[sweep]
run_timeout = 3.0
run_max_memory = 512
[[sweep.axis]]
key = "system.fault"
name = "fault"
values = [0, 1, 2, 3, 4, 5, 0, 0]
[sweep.summary]
y_end = "final(y)"
TOML
if [[ $sanitize == 1 ]]; then
    sed -i -e '/run_max_memory/d' -e 's/values = \[0, 1, 2, 3, 4, 5, 0, 0\]/values = [0, 1, 2, 3, 4, 0, 0, 0]/' "$tmp/s.toml"
fi
q() { sqlite3 "$tmp/o/sweep.sqlite" "$1"; }
timeout 60 "$nsdyn" sweep "$tmp/s.toml" -o "$tmp/o" -j 2 -q --no-graphs 2> "$tmp/err.txt"; st=$?
[[ $st == 0 ]] || fail "sweep with crashing runs: exit $st: $(cat "$tmp/err.txt")"
[[ $(q "SELECT count(*) FROM runs") == 8 ]] || fail "rows: $(q 'SELECT count(*) FROM runs')"
[[ $(q "SELECT count(*) FROM runs WHERE status = 'ok'") == $((sanitize == 1 ? 4 : 3)) ]] || fail "ok rows: $(q "SELECT run, status, message FROM runs")"
want() { # fault, pattern of its message
    local m
    m=$(q "SELECT message FROM runs WHERE fault = $1 AND status = 'failed'")
    [[ $m == *"$2"* ]] || fail "fault $1: message '$m', want '$2'"
}
if [[ $sanitize == 1 ]]; then want 1 "crashed: the run's process"; else want 1 "crashed: the run's process was killed by signal 11"; fi
want 2 "crashed: the run's process was killed by signal 6"
want 3 "crashed: the run's process exited with status 0 in the middle of the run"
want 4 "crashed: the run took longer than [sweep] run_timeout = 3 s and was killed"
# the leak: refused memory ends it (a signal), or on a loaded machine the time limit comes first
[[ $sanitize == 1 ]] || want 5 "crashed: the run"
for v in $(q "SELECT y_end FROM runs WHERE status = 'ok'"); do
    python3 -c "import sys; y=float('$v'); sys.exit(0 if abs(y - (1 - 9.81*0.1**2/2)) < 1e-9 else 1)" ||
        fail "a good run's final y = $v (free fall: 0.95095 m)"
done
grep -q "$((sanitize == 1 ? 4 : 5)) failed" "$tmp/err.txt" || fail "summary: $(cat "$tmp/err.txt")"
# Resume: nothing left to run, no crashed row retried.
timeout 60 "$nsdyn" sweep "$tmp/s.toml" -o "$tmp/o" -j 2 -q --no-graphs 2> "$tmp/err.txt"; st=$?
[[ $st == 0 ]] || fail "resume: exit $st"
grep -q "0 runs done (8 skipped" "$tmp/err.txt" || fail "resume retried: $(cat "$tmp/err.txt")"
# Asked: the crashed ones run again (and crash again).
timeout 60 "$nsdyn" sweep "$tmp/s.toml" -o "$tmp/o" -j 2 -q --no-graphs --retry-crashed 2> "$tmp/err.txt"
grep -q "$((sanitize == 1 ? 4 : 5)) runs done ($((sanitize == 1 ? 4 : 3)) skipped" "$tmp/err.txt" || fail "--retry-crashed: $(cat "$tmp/err.txt")"
# Many short runs, so the writer keeps several queued to each worker
# (sweep_procs.c queue_depth): a worker that aborts or exits takes its
# queued runs with it, and they must go to the others. Crashes at random
# places (the seed is printed on failure): every run once, exactly the
# faulty ones failed.
seed=$RANDOM
vals=$(python3 -c "import random; r = random.Random($seed); print(', '.join(str(r.choice([2, 3]) if r.random() < 0.06 else 0) for _ in range(240)))")
sed -e "s/^values = .*/values = [$vals]/" -e '/run_max_memory/d' "$tmp/s.toml" > "$tmp/many.toml"
timeout 100 "$nsdyn" sweep "$tmp/many.toml" -o "$tmp/many" -j 2 -q --no-graphs 2> "$tmp/err.txt"; st=$?
m() { sqlite3 "$tmp/many/sweep.sqlite" "$1"; }
n_bad=$(python3 -c "print(sum(v != 0 for v in [$vals]))")
[[ $st == 0 ]] || fail "many runs with crashes (seed $seed): exit $st: $(cat "$tmp/err.txt")"
[[ $(m "SELECT count(*), count(DISTINCT run) FROM runs") == "240|240" ]] ||
    fail "many runs (seed $seed): rows $(m 'SELECT count(*), count(DISTINCT run) FROM runs'), want 240|240"
[[ $(m "SELECT count(*) FROM runs WHERE status = 'ok' AND fault = 0") == $((240 - n_bad)) ]] ||
    fail "many runs (seed $seed): ok rows $(m "SELECT count(*) FROM runs WHERE status = 'ok'"), want $((240 - n_bad))"
[[ $(m "SELECT count(*) FROM runs WHERE status = 'failed' AND fault != 0 AND message LIKE 'crashed: %'") == "$n_bad" ]] ||
    fail "many runs (seed $seed): crashed rows $(m "SELECT run, fault, status FROM runs WHERE status != 'ok' OR fault != 0")"
# compare and run: a crash or exit() names the variant, keeps the finished ones.
cat > "$tmp/c.toml" << 'TOML'
[system]
id = "crashing"
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.1
progress = false
[plot]
enabled = false
[[variant]]
name = "fine"
[[variant]]
name = "bad one"
system = { fault = 1 }
TOML
# (UBSan reports the NULL store before it faults: there the plugin aborts instead)
want_st=139 how='a plugin crashed (signal SIGSEGV, segmentation fault)'
if [[ $sanitize == 1 ]]; then
    sed -i 's/fault = 1/fault = 2/' "$tmp/c.toml"
    want_st=134 how='a plugin aborted (signal SIGABRT)'
fi
timeout 60 "$nsdyn" compare "$tmp/c.toml" -o "$tmp/cmp" -q 2> "$tmp/err.txt"; st=$?
[[ $st == "$want_st" ]] || fail "compare with a crashing variant: exit $st, want $want_st"
grep -qF "$how"' while running variant "bad one" (2 of 2); the finished variants are kept in '"$tmp/cmp.INCOMPLETE" "$tmp/err.txt" || fail "compare crash message: $(cat "$tmp/err.txt")"
[[ -f $tmp/cmp.INCOMPLETE/variant-01/run.toml ]] || fail "the finished variant was not kept in DIR.INCOMPLETE"
sed -i 's/fault = [12]/fault = 3/' "$tmp/c.toml"
rm -rf "$tmp/cmp.INCOMPLETE"
timeout 60 "$nsdyn" compare "$tmp/c.toml" -o "$tmp/cmp" -q 2> "$tmp/err.txt"; st=$?
[[ $st == 3 ]] || fail "compare with a variant calling exit(0): exit $st, want 3"
grep -q 'a plugin called exit() while running variant "bad one"' "$tmp/err.txt" || fail "compare exit message: $(cat "$tmp/err.txt")"
timeout 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/r" -q --set system.fault=3 2> "$tmp/err.txt"; st=$?
[[ $st == 3 ]] || fail "run with a plugin calling exit(0): exit $st, want 3"
grep -q "a plugin called exit() while running" "$tmp/err.txt" || fail "run exit message: $(cat "$tmp/err.txt")"
# run.timeout: a slow run stops between steps with its data kept (exit 128 + SIGALRM);
# a callback that never returns: the data so far kept all the same (cmd_run.c abandon_run).
slow=(--set integrator.h=1e-7 --set run.t_end=100 --set run.timeout=1)
timeout 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/t" -q "${slow[@]}" 2> "$tmp/err.txt"; st=$?
[[ $st == 142 ]] || fail "run.timeout: exit $st, want 142"
grep -q "run.timeout = 1 s reached" "$tmp/err.txt" || fail "run.timeout message: $(cat "$tmp/err.txt")"
[[ -s $tmp/t.INCOMPLETE/timeseries.INCOMPLETE.csv ]] || fail "run.timeout: the data so far were not kept"
timeout 60 "$nsdyn" run "$tmp/c.toml" -o "$tmp/t2" -q "${slow[@]}" --set system.fault=4 2> "$tmp/err.txt"; st=$?
[[ $st == 142 ]] || fail "run.timeout in a looping callback: exit $st, want 142"
grep -q "inside a plugin callback" "$tmp/err.txt" || fail "looping callback message: $(cat "$tmp/err.txt")"
[[ -s $tmp/t2.INCOMPLETE/timeseries.INCOMPLETE.csv ]] || fail "run.timeout in a looping callback: the data so far were not kept"
[[ $fails == 0 ]] && echo "sweep isolation: all checks passed"
exit $((fails > 0))
