#!/usr/bin/env bash
# A study samples only the channels its summaries read (issue 25, docs/sweep.md
# "What a run samples"): the four tumbleweed studies, each reduced to 495 runs
# (b = 1, 3.5, 6 m; e = 0.6 .. 1.0 by 0.1; J/(m b^2) = 0.1, 0.4, 0.67; 11
# speeds over the study's range), run by the old and the new build:
#  1. runs.csv of each identical in every column but wall (the rows' results
#     do not depend on what a run samples);
#  2. CPU per run, old and new interleaved (bench_sphere_planes.sh: median,
#     min - max, uptime before and after), -j J;
#  3. with CALLGRIND=1, instructions of the reduced study I at -j 1
#     in process (valgrind --tool=callgrind), total and the sampling
#     (nsd_run_record with its callees).
#   bash bench/bench_sample_channels.sh OLD_BUILD NEW_BUILD [PAIRS] [J]
set -euo pipefail
old=${1:?old build dir} new=${2:?new build dir} pairs=${3:-5} j=${4:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in 1 2 3 4; do # the reduced study i: its axes thinned, nothing else changed
    python3 - "$root/configs/sweep_tumbleweed_study$i.toml" "$tmp/study$i.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'(key = "system.b"\nname = "b"\nstart = 1.0\nstop = 6.0\nstep = )1.0', r'\g<1>2.5', text)
text = re.sub(r'(key = "contact.e"\nname = "e"\nstart = 0.6\nstop = 1.0\nstep = )0.01', r'\g<1>0.1', text)
text = text.replace('values = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.67]', 'values = [0.1, 0.4, 0.67]')
text, n = re.subn(r'(key = "system.v0"\nname = "speed"\nstart = [0-9.]+\nstop = [0-9.]+\nstep = )0.1',
                  r'\g<1>0.5', text)
assert n == 1 and text.count("step = 2.5") == 1 and text.count("step = 0.1\n") == 1, sys.argv[1]
open(sys.argv[2], "w").write(text)
PY
done
cmp_csv() { # runs.csv of two folders: identical but for wall?
    python3 - "$1/runs.csv" "$2/runs.csv" <<'PY'
import csv, sys
def load(p):
    rows = list(csv.reader(open(p)))
    keep = [i for i, h in enumerate(rows[0]) if not h.startswith("wall")]
    return [[r[i] for i in keep] for r in rows]
a, b = load(sys.argv[1]), load(sys.argv[2])
same = a == b
print(f"{sys.argv[1].split('/')[-2]}: {len(a) - 1} runs, runs.csv identical but wall: {same}")
sys.exit(0 if same else 1)
PY
}
echo "== 1. runs.csv, old $old against new $new"
for i in 1 2 3 4; do
    for b in old new; do
        dir=$old; [ $b = new ] && dir=$new
        "$dir/core/nsdyn" sweep "$tmp/study$i.toml" -o "$tmp/$b$i" -q -j 2 --no-graphs \
            >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
    done
    mv "$tmp/old$i" "$tmp/study$i"
    cmp_csv "$tmp/study$i" "$tmp/new$i"
done
echo "== 2. CPU, interleaved, $pairs pairs, -j $j"
for i in 1 2 3 4; do
    echo "-- reduced study $i"
    bash "$root/bench/bench_sphere_planes.sh" "$old" "$new" "$pairs" "$j" "$tmp/study$i.toml"
done
if [ "${CALLGRIND:-0}" = 1 ]; then
    echo "== 3. callgrind, reduced study 1, -j 1 --in-process"
    for b in old new; do
        dir=$old; [ $b = new ] && dir=$new
        rm -rf "$tmp/cg"
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$b" "$dir/core/nsdyn" sweep \
            "$tmp/study1.toml" -o "$tmp/cg" -q -j 1 --in-process --no-graphs >/dev/null 2>&1
        total=$(callgrind_annotate "$tmp/cg.$b" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' || true)
        rec=$(callgrind_annotate --inclusive=yes "$tmp/cg.$b" 2>/dev/null |
            awk '/nsd_run_record/ {gsub(",", "", $1); print $1; exit}' || true)
        echo "$b: total $total instructions, sampling (nsd_run_record inclusive) ${rec:-0}"
    done
fi
