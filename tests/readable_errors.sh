#!/usr/bin/env bash
# Errors that stay readable and databases that are not believed blindly
# (issue 28): a config with 3000 unknown keys prints a screenful, not 3000
# lines; a sweep database with rows nsdyn never writes (a negative run, a
# text wall time) is refused on resume, naming the row.
# usage: readable_errors.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
tmp=$(mktemp -d /tmp/nsdyn-errs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
{
    printf '[system]\nid = "point_mass"\n[integrator]\nid = "rk4"\n[run]\nt_end = 1\n'
    for i in $(seq 3000); do echo "bogus_$i = 1"; done
} > "$tmp/many.toml"
"$nsdyn" run "$tmp/many.toml" -o "$tmp/o" -q 2> "$tmp/err.txt"; st=$?
[[ $st == 2 ]] || fail "3000 unknown keys: exit $st"
n=$(wc -l < "$tmp/err.txt")
((n <= 25)) || fail "3000 unknown keys printed $n lines"
grep -q "and 2980 more errors" "$tmp/err.txt" || fail "no count of the rest: $(tail -1 "$tmp/err.txt")"
# Bogus rows in a sweep database.
cfg=$configs/sweep_tumbleweed_reduced.toml
"$nsdyn" sweep "$cfg" -o "$tmp/s" -q --no-graphs --no-csv --set 'sweep.design="random"' --set sweep.samples=4 2> "$tmp/err.txt" || fail "sweep: $(cat "$tmp/err.txt")"
sqlite3 "$tmp/s/sweep.sqlite" "INSERT INTO runs(run, status, wall) VALUES(-5, 'ok', 0.1)"
"$nsdyn" sweep "$cfg" -o "$tmp/s" -q --no-graphs --no-csv --set 'sweep.design="random"' --set sweep.samples=4 2> "$tmp/err.txt"; st=$?
[[ $st == 2 ]] || fail "negative run row accepted on resume: exit $st"
grep -q "row run = -5 is not a run of this sweep" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
sqlite3 "$tmp/s/sweep.sqlite" "DELETE FROM runs WHERE run = -5; UPDATE runs SET wall = 'fast' WHERE run = 1"
"$nsdyn" sweep "$cfg" -o "$tmp/s" -q --no-graphs --no-csv --set 'sweep.design="random"' --set sweep.samples=4 2> "$tmp/err.txt"; st=$?
[[ $st == 2 ]] || fail "text wall time accepted on resume: exit $st"
grep -q "row run = 1 holds status 'ok' and wall 'fast'" "$tmp/err.txt" || fail "message: $(cat "$tmp/err.txt")"
[[ $fails == 0 ]] && echo "readable errors: all checks passed"
exit $((fails > 0))
