#!/usr/bin/env bash
# The adaptive threshold search against the uniform grid (issue 25 item 4),
# on a tumbleweed threshold that exists: study III's design point (Mars,
# deep valley, b = 2 m, J/m = 0.1 b^2, reading F: thesis model with spin
# flips, t_end 3000 s; docs/tumbleweed.md: e15 = 0.73 on the 0.01 grid),
# 51 speeds per e. The threshold: the smallest e where the mean height on
# the incline over the speeds exceeds -15 m,
# (1) by [sweep.adaptive] over e in [0.6, 1.0] to TOL,
# (2) by a uniform grid of e at step TOL (its first e where the target
#     holds, and how often the target flips along e).
# Prints both answers, run counts, wall times and the load.
# usage: bench/bench_adaptive_threshold.sh NSDYN [TOL] [JOBS]
set -euo pipefail
nsdyn=$1 tol=${2:-0.001} jobs=${3:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/nsdyn-adapt-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
uptime
python3 - "$here/configs/sweep_tumbleweed_study3.toml" "$tmp" "$tol" << 'PY'
import sys
s = open(sys.argv[1]).read()
for a, b in [('name = "b"\nstart = 1.0\nstop = 6.0\nstep = 1.0', 'name = "b"\nvalues = [2.0]'),
             ('values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.67]', 'values = [0.1]'),
             ('model = "physical"', 'model = "thesis"\nspin_flip = true'),
             ('t_end = 300.0', 't_end = 3000.0')]:
    assert a in s, a
    s = s.replace(a, b)
e = 'start = 0.6\nstop = 1.0\nstep = 0.01'
assert e in s
open(sys.argv[2] + "/grid.toml", "w").write(s.replace(e, e[:-4] + sys.argv[3]))
open(sys.argv[2] + "/adaptive.toml", "w").write(
    s + '[sweep.adaptive]\naxis = "e"\ntarget = "mean(height) > -15"\ntolerance = %s\n' % sys.argv[3])
PY
t0=$(date +%s.%N)
"$nsdyn" sweep "$tmp/adaptive.toml" -o "$tmp/a" -q -j "$jobs" --no-graphs > "$tmp/answer"
t1=$(date +%s.%N)
echo "adaptive: $(cat "$tmp/answer") [$(python3 -c "print(f'{$t1 - $t0:.1f}')") s]"
"$nsdyn" sweep "$tmp/grid.toml" -o "$tmp/g" -q -j "$jobs" --no-graphs
t2=$(date +%s.%N)
python3 - "$tmp/g/runs.csv" "$t1" "$t2" << 'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
at = defaultdict(list)
for r in rows:
    at[float(r["e [1]"])].append(float(r["height [m]"]))
es = sorted(at)
holds = [sum(at[e]) / len(at[e]) > -15 for e in es]
first = next(i for i, h in enumerate(holds) if h)
flips = sum(holds[i] != holds[i + 1] for i in range(len(es) - 1))
tail = len(es) - 1
while tail > 0 and holds[tail - 1]:
    tail -= 1
print(f"grid: first e where it holds {es[first]!r} (not at {es[first - 1]!r}); smallest e from "
      f"which it holds throughout {es[tail]!r}; {len(rows)} runs; the target flips {flips} "
      f"time(s) along e [{float(sys.argv[3]) - float(sys.argv[2]):.1f} s]")
PY
uptime
