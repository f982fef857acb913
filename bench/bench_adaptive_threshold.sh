#!/usr/bin/env bash
# The adaptive threshold search against the uniform grid (issue 25 item 4)
# on the tumbleweed thresholds that exist in reading F (the thesis model
# with a spin flip at every model change, t_end 3000 s; docs/tumbleweed.md
# "Reading F", thresholds on the 0.01 grid of the four studies), each at
# its design point (b, J/m) with the study's 51 speeds per e:
#   III  study III (Mars, deep),   b = 2 m, J/m = 0.1 b^2: mean(height) > -15 m   (grid: e15 = 0.73)
#   IV   study IV (Earth, deep),   b = 1 m, J/m = 0.1 b^2: mean(height) > -15 m   (grid: e15 = 0.84)
#   I1   study I (Mars, shallow),  b = 1 m, J/m = 0.1 b^2: fraction(crossed) >= 0.8 (grid: e80 = 0.89)
#   I2   study I (Mars, shallow),  b = 2 m, J/m = 0.1 b^2: fraction(crossed) >= 0.8 (grid: e80 = 0.94)
#   II   study II (Earth, shallow), b = 2 m, J/m = 0.3 b^2: fraction(crossed) >= 0.8 (grid: none)
#   map  study III, b = 2 m, the two-axis map of mean(height) > -15 m over e (0.6 .. 1.0, coarse
#        step 0.1, finest 0.1/2^MAPLEVELS) and J/m (0.4 .. 1.2 m^2, i.e. 0.1 .. 0.3 b^2, coarse
#        0.4, finest 0.2), against the uniform grid of that finest lattice: every mixed lattice
#        cell of the grid inside a mixed cell of the map, and the run counts
# For each case the threshold is found
# (1) by [sweep.adaptive] over e in [0.6, 1.0] to TOL (bisection),
# (2) by a uniform grid of e at step TOL: its first e where the target
#     holds, the smallest e from which it holds throughout (the docs'
#     definition), and how often the target flips along e.
# Prints both answers, run counts, wall times and the load.
# usage: bench/bench_adaptive_threshold.sh NSDYN [TOL] [JOBS] [CASES] [MAPLEVELS]
#   (default 0.001, 2, "III IV I1 I2 II", 4; II's grid is skipped: the
#   target fails at e = 1, so the search stops after its two ends; "map"
#   only when named)
set -euo pipefail
trap 'echo "bench_adaptive_threshold.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
nsdyn=$1 tol=${2:-0.001} jobs=${3:-2} cases=${4:-III IV I1 I2 II} levels=${5:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/nsdyn-adapt-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
uptime
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

map_case() { # the two-axis map against the uniform grid of its finest lattice
    python3 - "$here/configs/sweep_tumbleweed_study3.toml" "$tmp" "$levels" << 'PY'
import sys
s = open(sys.argv[1]).read()
tmp, levels = sys.argv[2], int(sys.argv[3])
k = ('name = "k"            # J/(m b^2)\nvalues = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.67]\n'
     'per = "system.b^2"')
for a, r in [('name = "b"\nstart = 1.0\nstop = 6.0\nstep = 1.0', 'name = "b"\nvalues = [2.0]'),
             ('model = "physical"', 'model = "thesis"\nspin_flip = true'),
             ('t_end = 300.0', 't_end = 3000.0')]:
    assert a in s, a
    s = s.replace(a, r)
e = 'start = 0.6\nstop = 1.0\nstep = 0.01'
assert e in s and k in s
s = s.replace('group = "k"', 'group = "jm"')
fine = 4 * 2**levels + 1
jm = 'name = "jm"\nstart = 0.4\nstop = 1.2\ncount = %d'
open(tmp + "/map.toml", "w").write(
    s.replace(e, e[:-11] + "count = 5").replace(k, jm % 3) +
    '[sweep.adaptive]\naxes = ["e", "jm"]\ncell = [%.17g, 0.2]\ntarget = "mean(height) > -15"\n'
    % (0.1 / 2**levels))
open(tmp + "/uniform.toml", "w").write(s.replace(e, e[:-11] + "count = %d" % fine).replace(k, jm % 5))
PY
    echo "== case map: study 3, b = 2.0 m, e x J/m, mean(height) > -15, finest e step $(python3 -c "print(0.1 / 2**$levels)")"
    rm -rf "$tmp/m" "$tmp/u"
    local t0 t1 t2
    t0=$(date +%s.%N)
    "$nsdyn" sweep "$tmp/map.toml" -o "$tmp/m" -q -j "$jobs" --no-graphs > "$tmp/answer" \
        2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "map: $(cat "$tmp/answer") [$(secs "$t0" "$t1") s]"
    grep -i warning "$tmp/err" || true
    "$nsdyn" sweep "$tmp/uniform.toml" -o "$tmp/u" -q -j "$jobs" --no-graphs 2> "$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    t2=$(date +%s.%N)
    python3 - "$tmp/u/runs.csv" "$tmp/m/runs.csv" "$tmp/m/boundary.csv" "$(secs "$t1" "$t2")" << 'PY'
import csv, sys
from collections import defaultdict
def points(path):
    at = defaultdict(list)
    for r in csv.DictReader(open(path)):
        h = float(r["height [m]"]) if r["status"] == "ok" and r["height [m]"] else None
        at[(round(float(r["e [1]"]), 9), round(float(r["jm [m^2]"]), 9))].append(h)
    return {p: None not in v and sum(v) / len(v) > -15 for p, v in at.items()}, \
        sum(len(v) for v in at.values())
uni, n_uni = points(sys.argv[1])
mp, n_map = points(sys.argv[2])
same = sum(uni[p] == mp[p] for p in mp if p in uni)
es = sorted({p[0] for p in uni}); js = sorted({p[1] for p in uni})
mixed = [(es[i], es[i + 1], js[j], js[j + 1]) for i in range(len(es) - 1)
         for j in range(len(js) - 1)
         if len({uni[(a, b)] for a in es[i:i + 2] for b in js[j:j + 2]}) == 2]
cells = [tuple(map(float, r)) for r in list(csv.reader(open(sys.argv[3])))[1:]]
def inside(c):
    return any(abs(x - ex) <= dx / 2 + 1e-9 and abs(x2 - ex) <= dx / 2 + 1e-9 and
               abs(y - ey) <= dy / 2 + 1e-9 and abs(y2 - ey) <= dy / 2 + 1e-9
               for ex, dx, ey, dy in cells for x, x2, y, y2 in [c])
missed = [c for c in mixed if not inside(c)]
print(f"uniform: {n_uni} runs ({len(uni)} points) [{sys.argv[4]} s]; map: {n_map} runs "
      f"({len(mp)} points, {100 * n_map / n_uni:.1f} %), its points' targets equal the "
      f"uniform's at {same} of {len(mp)}; uniform mixed lattice cells {len(mixed)}, "
      f"{len(mixed) - len(missed)} inside the map's {len(cells)} mixed cells, missed: {missed}")
for j in js:  # the threshold along e per J/m, first e where it holds
    col = [e for e in es if uni[(e, j)]]
    print(f"  J/m = {j} m^2: uniform first e holding {col[0] if col else None}, "
          f"flips {sum(uni[(es[i], j)] != uni[(es[i + 1], j)] for i in range(len(es) - 1))}")
PY
}
for c in $cases; do
    if [[ $c == map ]]; then
        map_case
        continue
    fi
    python3 - "$here/configs" "$tmp" "$tol" "$c" << 'PY'
import sys
cfgs, tmp, tol, case = sys.argv[1:]
study, b, k, target, column = {
    "III": (3, 2.0, 0.1, "mean(height) > -15", "height"),
    "IV": (4, 1.0, 0.1, "mean(height) > -15", "height"),
    "I1": (1, 1.0, 0.1, "fraction(crossed) >= 0.8", "crossed"),
    "I2": (1, 2.0, 0.1, "fraction(crossed) >= 0.8", "crossed"),
    "II": (2, 2.0, 0.3, "fraction(crossed) >= 0.8", "crossed"),
}[case]
s = open(f"{cfgs}/sweep_tumbleweed_study{study}.toml").read()
t_end = "t_end = 300.0" if study >= 3 else "t_end = 120.0"
for a, r in [('name = "b"\nstart = 1.0\nstop = 6.0\nstep = 1.0', f'name = "b"\nvalues = [{b}]'),
             ('values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.67]', f'values = [{k}]'),
             ('model = "physical"', 'model = "thesis"\nspin_flip = true'),
             (t_end, 't_end = 3000.0')]:
    assert a in s, a
    s = s.replace(a, r)
e = 'start = 0.6\nstop = 1.0\nstep = 0.01'
assert e in s
open(f"{tmp}/grid.toml", "w").write(s.replace(e, e[:-4] + tol))
open(f"{tmp}/adaptive.toml", "w").write(
    s + f'[sweep.adaptive]\naxis = "e"\ntarget = "{target}"\ntolerance = {tol}\n')
open(f"{tmp}/case", "w").write(f"{target}|{column}|study {study}, b = {b} m, J/m = {k} b^2\n")
PY
    IFS='|' read -r target column where < "$tmp/case"
    echo "== case $c: $where: $target"
    rm -rf "$tmp/a" "$tmp/g"
    t0=$(date +%s.%N)
    rc=0
    "$nsdyn" sweep "$tmp/adaptive.toml" -o "$tmp/a" -q -j "$jobs" --no-graphs > "$tmp/answer" \
        2> "$tmp/err" || rc=$?
    t1=$(date +%s.%N)
    if [[ $rc != 0 ]]; then
        runs=$(sqlite3 "$tmp/a/sweep.sqlite" "SELECT count(*) FROM runs" 2>/dev/null || echo "?")
        echo "adaptive: exit $rc after $runs runs: $(grep -m1 error "$tmp/err" || true) [$(secs "$t0" "$t1") s]"
        [[ $c == II ]] && continue
        exit 1
    fi
    echo "adaptive: $(cat "$tmp/answer") [$(secs "$t0" "$t1") s]"
    "$nsdyn" sweep "$tmp/grid.toml" -o "$tmp/g" -q -j "$jobs" --no-graphs 2> "$tmp/err" ||
        { cat "$tmp/err" >&2; exit 1; }
    t2=$(date +%s.%N)
    python3 - "$tmp/g/runs.csv" "$t1" "$t2" "$column" << 'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
col = sys.argv[4]
name = next(h for h in rows[0] if h == col or h.startswith(col + " ["))
at = defaultdict(list)
for r in rows:
    v = r[name]
    ok = r["status"] == "ok" and v != ""
    at[float(r["e [1]"])].append(float(v) if ok else None)
es = sorted(at)
def holds(e):
    v = at[e]
    if col == "height":  # a failed run: no mean (the search counts it as not reaching)
        return None not in v and sum(v) / len(v) > -15
    return sum(1 for x in v if x is not None and x > 0) / len(v) >= 0.8
h = [holds(e) for e in es]
first = next(i for i, x in enumerate(h) if x)
flips = sum(h[i] != h[i + 1] for i in range(len(es) - 1))
tail = len(es) - 1
while tail > 0 and h[tail - 1]:
    tail -= 1
bad = sum(1 for e in es for x in at[e] if x is None)
print(f"grid: first e where it holds {es[first]!r} (not at {es[first - 1]!r}); smallest e from "
      f"which it holds throughout {es[tail]!r}; {len(rows)} runs ({bad} not ok); the target "
      f"flips {flips} time(s) along e [{float(sys.argv[3]) - float(sys.argv[2]):.1f} s]")
PY
done
uptime
