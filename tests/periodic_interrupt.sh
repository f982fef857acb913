#!/usr/bin/env bash
# The first Ctrl-C inside a plugin callback that loops, in nsdyn periodic
# (issue 28, round 4): the kicked spiral of tests/fixtures/kicked_spiral.c
# built to loop for ever in derivatives() when kick >= 2 (from t = 0.1 s).
# The shooting runs the integrator outside any watched run, so before this
# round the first SIGINT was ignored (the process hung until a second one).
#  1. a natural continuation in kick from 1 up: the points below 2 solve,
#     the first one at 2 hangs; one SIGINT ends the command at once (exit
#     130), the orbit's tables and the branch so far are kept in
#     DIR.INCOMPLETE (continuation.csv marked INCOMPLETE), each kept point
#     the closed-form orbit r* = kick / (1 - e^(aT)), T = (2 pi - beta) / w;
#  2. [[variant]]s: the second variant's guess (kick = 2.5) hangs while the
#     variants are checked, before any output: nothing to keep, said, exit
#     130 at once, the variant named;
#  3. a config whose guess already hangs: exit 130 at once, nothing written.
# usage: periodic_interrupt.sh NSDYN FIXTURE_DIR
set -uo pipefail
nsdyn=$1 fixtures=$2
tmp=$(mktemp -d /tmp/nsdyn-perint.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export NSDYN_PLUGIN_PATH=$fixtures
cat > "$tmp/p.toml" << 'TOML'
[system]
id = "kicked_spiral_hang"
a = -0.1
kick = 1.0
beta = 0.5
x0 = -0.5
y0 = 5.0
[integrator]
id = "dopri5"
rtol = 1e-10
atol = 1e-10
[run]
t_end = 5.0
progress = false
[plot]
enabled = false
[periodic]
section = "section"
free = ["x", "y"]
tol = 1e-9
[periodic.continuation]
parameter = "system.kick"
values = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2]
TOML
. "$(dirname "$0")/interrupt_util.sh"
# Run periodic on $1 into $2 in the background; one SIGINT once $3 holds;
# the exit status must be 130 and stderr must hold the message $4.
interrupted() {
    "$nsdyn" periodic "$1" -o "$2" > "$tmp/out.txt" 2> "$tmp/err.txt" &
    interrupt_when $! "$3"
    [[ $dt == ignored ]] && fail "periodic ($4): the first SIGINT inside a looping callback was ignored"
    [[ $st == 130 ]] || fail "periodic ($4): exit $st, want 130: $(cat "$tmp/err.txt")"
    grep -qF "$4" "$tmp/err.txt" || fail "periodic message, want '$4': $(cat "$tmp/err.txt")"
}

# 1. the natural continuation, stuck at kick = 2
interrupted "$tmp/p.toml" "$tmp/o" 'grep -qs "^1.8," "$tmp"/.o.tmp-*/continuation.csv' \
    "interrupted by signal 2 inside a plugin callback (the continuation)"
[[ -e $tmp/o ]] && fail "an interrupted periodic wrote $tmp/o"
for f in orbit.csv multipliers.csv newton.csv continuation.csv; do
    [[ -s $tmp/o.INCOMPLETE/$f ]] || fail "$f not kept in $tmp/o.INCOMPLETE"
done
python3 - "$tmp/o.INCOMPLETE/continuation.csv" << 'PY' || fail "the kept branch is not the branch so far"
import csv, math, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("# INCOMPLETE: the branch so far"), lines[0]
rows = list(csv.DictReader(lines[1:]))
kicks = [float(r["system.kick"]) for r in rows]
assert kicks == [1.0, 1.2, 1.4, 1.6, 1.8], kicks  # the points before the hang, no more
a, w, beta = -0.1, 2 * math.pi, 0.5
T = (2 * math.pi - beta) / w
mu = math.exp(a * T)
for r, k in zip(rows, kicks):
    assert r["converged"] == "1", r
    rs = k / (1 - mu)  # the closed-form post-reset radius
    x, y = float(r["x [1]"]), float(r["y [1]"])
    assert abs(x + rs * math.sin(beta)) < 1e-6 * rs and abs(y - rs * math.cos(beta)) < 1e-6 * rs, (k, x, y, rs)
    assert abs(float(r["period [s]"]) - T) < 1e-6, r
    assert abs(float(r["mu1 re"]) - mu) < 1e-5, r
PY
echo "periodic: SIGINT in a looping callback honoured in ${dt} s"

# 2. [[variant]]s: the second one's guess hangs (kick = 2.5) while the
#    variants are prepared, before any output
sed -i '/^\[periodic.continuation\]/,$d' "$tmp/p.toml"
printf '[[variant]]\nname = "fine"\n[[variant]]\nname = "stuck one"\nsystem = { kick = 2.5 }\n' >> "$tmp/p.toml"
interrupted "$tmp/p.toml" "$tmp/v" true \
    'inside a plugin callback (variant "stuck one", the check of the initial guess)'
grep -qF "nothing was written yet, nothing to keep" "$tmp/err.txt" || fail "periodic variants: $(cat "$tmp/err.txt")"
ls -d "$tmp"/v* > /dev/null 2>&1 && fail "an interrupted periodic left $(ls -d "$tmp"/v*)"

# 3. the guess itself hangs
sed -i '/^\[\[variant\]\]/,$d; s/^kick = 1.0/kick = 3.0/' "$tmp/p.toml"
interrupted "$tmp/p.toml" "$tmp/g" true "inside a plugin callback (the check of the initial guess)"
ls -d "$tmp"/g* > /dev/null 2>&1 && fail "an interrupted periodic left $(ls -d "$tmp"/g*)"
[[ $fails == 0 ]] && echo "periodic interrupt: all checks passed"
exit $((fails > 0))
