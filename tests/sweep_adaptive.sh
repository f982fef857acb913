#!/usr/bin/env bash
# The adaptive threshold search ([sweep.adaptive], issue 25 item 4;
# core/src/study/sweep_adaptive.c) against a closed form. A ball (centre
# at y0, radius r) dropped under g with Newton restitution e first hits at
# t0 = sqrt(2 (y0 - r) / g) and again at t0 (1 + 2e): within t_end it
# makes one impact only iff e > e* = (t_end / t0 - 1) / 2. With two drop
# heights, "fraction(n > 1.5) <= 0.5" (one run or both with one impact)
# holds from the smaller e* on and "<= 0" from the larger. Random heights and t_end (seeded, printed): the
# bracket found holds e* with width <= tolerance, the runs are 2 per
# evaluated value (each run once), and a target that holds at the start
# or a malformed target are clear errors.
# usage: sweep_adaptive.sh NSDYN [SEED]
set -uo pipefail
. "$(dirname "$0")/drop_ball_util.sh"
nsdyn=$1 seed=${2:-$RANDOM}
tmp=$(mktemp -d /tmp/nsdyn-adapt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL (seed $seed): $*"; fails=$((fails + 1)); }
for case in 1 2 3; do
    read -r ya yb tend ea eb < <(python3 - "$seed" "$case" << 'PY'
import math, random, sys
rng = random.Random(int(sys.argv[1]) * 10 + int(sys.argv[2]))
g, r = 9.81, 0.05
while True:
    ya, yb = rng.uniform(0.3, 2.0), rng.uniform(0.3, 2.0)
    ta, tb = (math.sqrt(2 * (y - r) / g) for y in (ya, yb))
    tend = ta * (1 + 2 * rng.uniform(0.15, 0.85))
    ea, eb = (tend / ta - 1) / 2, (tend / tb - 1) / 2
    if 0.1 < eb < 0.9 and abs(ea - eb) > 0.01:
        break
print(repr(ya), repr(yb), repr(tend), repr(ea), repr(eb))
PY
)
    for want in 0.5 0; do
        { drop_ball_config "$tend"; cat << TOML
[[sweep.axis]]
key = "initial.y"
name = "y0"
values = [$ya, $yb]
[[sweep.axis]]
key = "contact.e"
name = "e"
start = 0.05
stop = 1.0
count = 2
[sweep.summary]
n = "count(impact)"
[sweep.adaptive]
axis = "e"
target = "fraction(n > 1.5) <= $want"
tolerance = 0.001
TOML
        } > "$tmp/a.toml"
        out="$tmp/o$case$want"
        "$nsdyn" sweep "$tmp/a.toml" -o "$out" -q -j 2 > "$tmp/answer" 2> "$tmp/err" ||
            { fail "case $case: exit $?: $(cat "$tmp/err")"; continue; }
        python3 - "$tmp/answer" "$out/runs.csv" "$ea" "$eb" "$want" << 'PY' || fail "case $case target <= $want: $(cat "$tmp/answer")"
import csv, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"holds at (\S+), not at (\S+);", text)
hi, lo = float(m.group(1)), float(m.group(2))
ea, eb, want = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
star = min(ea, eb) if want > 0 else max(ea, eb)
rows = list(csv.DictReader(open(sys.argv[2])))
es = sorted({float(r["e [1]"]) for r in rows})
ok = lo < star <= hi and hi - lo <= 1e-3 and len(rows) == 2 * len(es) and len(es) <= 14
print(f"e* = {star:.9f}, bracket [{lo}, {hi}], {len(rows)} runs ({len(es)} values of e)")
sys.exit(0 if ok else 1)
PY
    done
done
# a target that already holds at the start, and one that is not a target
sed -i 's/^target = .*/target = "fraction(n) >= 0.5"/' "$tmp/a.toml"
"$nsdyn" sweep "$tmp/a.toml" -o "$tmp/h" -q > /dev/null 2> "$tmp/err"; st=$?
[[ $st == 4 ]] && grep -q 'holds at e = 0.05: it must fail at the axis' "$tmp/err" || fail "holds at start: exit $st: $(cat "$tmp/err")"
sed -i 's/^target = .*/target = "fraction(nope) >= 0.5"/' "$tmp/a.toml"
"$nsdyn" sweep "$tmp/a.toml" -o "$tmp/b" -q > /dev/null 2> "$tmp/err"; st=$?
[[ $st == 2 ]] && grep -q 'a.toml:[0-9]*:[0-9]*: \[sweep.adaptive\] .target' "$tmp/err" || fail "bad target: exit $st: $(cat "$tmp/err")"
[[ $fails == 0 ]] && echo "adaptive search: all checks passed (seed $seed)"
exit $((fails > 0))
