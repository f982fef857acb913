#!/usr/bin/env bash
# The adaptive two-axis map ([sweep.adaptive] axes/cell, issue 25 item 4;
# core/src/study/sweep_adaptive_map.c) against a closed form. A ball
# (centre at h, radius r) dropped under g with Newton restitution e first
# hits at t0(h) = sqrt(2 (h - r) / g) and again at t0 (1 + 2e): within
# t_end it makes one impact only iff e > e*(h) = (t_end / t0(h) - 1) / 2,
# a curve decreasing in h: one piece of boundary that crosses a coarse edge
# once, so the map follows all of it (core/src/study/sweep_map_trace.c).
# Random coarse grids, t_end and finest cells (seeded, printed): every
# finest mixed cell of boundary.csv contains the curve, every point of the
# curve inside the plane lies in one of them, each (h, e) runs once, the
# runs are far below the uniform grid's at the finest resolution (and
# counted right), a second identical command runs nothing new; bad input
# (cell <= 0, an axis not in the sweep or twice, three axes, a log axis)
# is a located error.
# usage: sweep_adaptive_map.sh NSDYN [SEED]
set -uo pipefail
. "$(dirname "$0")/drop_ball_util.sh"
nsdyn=$1 seed=${2:-$RANDOM}
tmp=$(mktemp -d /tmp/nsdyn-adaptmap.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL (seed $seed): $*"; fails=$((fails + 1)); }
for case in 1 2 3; do
    read -r hs hf ch es ef ce tend dh de < <(python3 - "$seed" "$case" << 'PY'
import math, random, sys
rng = random.Random(int(sys.argv[1]) * 10 + int(sys.argv[2]))
g, r = 9.81, 0.05
hs, hf = rng.uniform(0.2, 0.6), rng.uniform(1.2, 2.5)
es, ef = rng.uniform(0.02, 0.2), rng.uniform(0.8, 1.0)
hm = rng.uniform(hs + 0.3 * (hf - hs), hs + 0.7 * (hf - hs))
tend = math.sqrt(2 * (hm - r) / g) * (1 + 2 * rng.uniform(0.3, 0.7))
print(hs, hf, rng.randint(2, 6), es, ef, rng.randint(2, 6), repr(tend),
      (hf - hs) / rng.uniform(50, 110), (ef - es) / rng.uniform(50, 110))
PY
)
    # case 1: two runs per point (a list axis the outcome does not depend on)
    extra=""
    [[ $case == 1 ]] && extra=$'[[sweep.axis]]\nkey = "integrator.rtol"\nvalues = [1e-10, 1e-11]'
    { drop_ball_config "$tend"; cat << TOML
[[sweep.axis]]
key = "initial.y"
name = "h"
start = $hs
stop = $hf
count = $ch
[[sweep.axis]]
key = "contact.e"
name = "e"
start = $es
stop = $ef
count = $ce
$extra
[sweep.summary]
n = "count(impact)"
[sweep.adaptive]
axes = ["h", "e"]
cell = [$dh, $de]
target = "fraction(n > 1.5) <= 0"
TOML
    } > "$tmp/a.toml"
    out="$tmp/o$case"
    "$nsdyn" sweep "$tmp/a.toml" -o "$out" -q -j 2 > "$tmp/answer" 2> "$tmp/err" ||
        { fail "case $case: exit $?: $(cat "$tmp/err")"; continue; }
    grep -q warning "$tmp/err" && fail "case $case: $(cat "$tmp/err")"
    per=1
    [[ $case == 1 ]] && per=2
    python3 - "$tmp/answer" "$out" "$hs" "$hf" "$ch" "$es" "$ef" "$ce" "$tend" "$dh" "$de" "$per" << 'PY' || fail "case $case: $(cat "$tmp/answer")"
import csv, math, re, sys
ans, out = open(sys.argv[1]).read(), sys.argv[2]
hs, hf, ch, es, ef, ce, tend, dh, de, per = (float(v) for v in sys.argv[3:])
g, r = 9.81, 0.05
estar = lambda h: (tend / math.sqrt(2 * (h - r) / g) - 1) / 2
m = re.search(r"(\d+) mixed cells .* after (\d+) runs \(the uniform grid at that resolution: (\d+) runs", ans)
n_mixed, runs, uniform = (int(v) for v in m.groups())
cells = [tuple(float(v) for v in row) for row in list(csv.reader(open(out + "/boundary.csv")))[1:]]
rows = list(csv.DictReader(open(out + "/runs.csv")))
ok = True
def bad(msg):
    global ok
    ok = False
    print("  " + msg)
# the finest lattice: the coarse step halved until at most the cell size
def lattice(lo, hi, n, cell):
    L = 0
    while (hi - lo) / (n - 1) / 2**L > cell * (1 + 1e-12):
        L += 1
    return int(n - 1) * 2**L
nh, ne = lattice(hs, hf, ch, dh), lattice(es, ef, ce, de)
if uniform != (nh + 1) * (ne + 1) * per: bad(f"uniform {uniform} != {(nh + 1) * (ne + 1) * per}")
if len(rows) != runs or n_mixed != len(cells): bad(f"{len(rows)} rows for {runs} runs, {len(cells)} cells")
results = {"run", "n [1]", "status", "message", "wall [s]", "config_hash", "log_warnings [1]", "log_first"}
keys = [tuple(v for k, v in r.items() if k not in results) for r in rows]
if len(set(keys)) != len(keys): bad("a point ran twice")
if any(r["status"] != "ok" for r in rows): bad("failed runs")
# slack: the impact times are located to ~1e-12 s (dopri5 rtol 1e-10):
# e* is then known to ~1e-9; 1e-7 leaves room and is far below a cell.
slack = 1e-7
for hc, hw, ec, ew in cells:
    if abs(hw - (hf - hs) / nh) > 1e-9 or abs(ew - (ef - es) / ne) > 1e-9: bad(f"cell size {hw} {ew}")
    h0, h1, e0, e1 = hc - hw / 2, hc + hw / 2, ec - ew / 2, ec + ew / 2
    if not (estar(h1) <= e1 + slack and estar(h0) >= e0 - slack):
        bad(f"mixed cell at ({hc}, {ec}) does not hold the curve: e*({h0}) = {estar(h0)}, e*({h1}) = {estar(h1)}")
        break
sampled = missed = 0
for k in range(20001):
    h = hs + (hf - hs) * k / 20000
    e = estar(h)
    if not (es < e < ef): continue
    sampled += 1
    if not any(abs(h - hc) <= hw / 2 + 1e-9 and abs(e - ec) <= ew / 2 + 1e-9 for hc, hw, ec, ew in cells):
        missed += 1
        if missed == 1: bad(f"the curve at ({h}, {e}) is in no mixed cell")
if sampled < 100: bad(f"the curve crosses the plane at {sampled} samples only")
if runs > 0.25 * uniform: bad(f"{runs} runs against {uniform} on the uniform grid")
print(f"  {ch:.0f}x{ce:.0f} coarse, finest {nh}x{ne}: {len(cells)} mixed cells hold the curve "
      f"({sampled} samples covered); {runs} runs against {uniform} ({100 * runs / uniform:.1f} %)")
sys.exit(0 if ok else 1)
PY
    # the same command again: every run is in the database, nothing new runs
    cp "$out/runs.csv" "$tmp/runs1.csv"
    "$nsdyn" sweep "$tmp/a.toml" -o "$out" -q -j 2 > "$tmp/answer2" 2> "$tmp/err" &&
        cmp -s "$tmp/answer" "$tmp/answer2" &&
        [[ $(wc -l < "$out/runs.csv") == $(wc -l < "$tmp/runs1.csv") ]] &&
        grep -q "0 runs done" "$tmp/err" ||
        fail "case $case: the second command: $(cat "$tmp/answer2" "$tmp/err")"
done
# bad input: a located error (file:line:col and key), exit 2, nothing run
bad() { # sed expression, expected message
    sed "$1" "$tmp/a.toml" > "$tmp/b.toml"
    "$nsdyn" sweep "$tmp/b.toml" -o "$tmp/bad" -q > /dev/null 2> "$tmp/err"; st=$?
    [[ $st == 2 ]] && grep -q "b.toml:[0-9]*:[0-9]*: \[sweep.adaptive\] $2" "$tmp/err" ||
        fail "bad input ($1): exit $st: $(cat "$tmp/err")"
}
bad 's/^cell = .*/cell = [0.0, 0.01]/' "'cell' item 1: expected a positive size"
bad 's/^cell = .*/cell = [0.01, -1]/' "'cell' item 2: expected a positive size"
bad 's/^axes = .*/axes = ["h", "nope"]/' "'axes' item 2: expected the name of a linear range axis"
bad 's/^axes = .*/axes = ["h", "e", "h"]/' "'axes': expected the names of two axes"
bad 's/^axes = .*/axes = ["e", "e"]/' "'axes' item 2: expected the name of a linear range axis"
bad 's/^start = 0\.[0-9]*$/&\nscale = "log"/' "'axes' item 1: expected the name of a linear range axis"
[[ $fails == 0 ]] && echo "adaptive map: all checks passed (seed $seed)"
exit $((fails > 0))
