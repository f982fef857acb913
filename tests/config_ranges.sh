#!/usr/bin/env bash
# Analysis ranges and nested --set (issue 28, round 3):
#  - [periodic.continuation] from / to / values that are inf, nan, outside
#    the parameter's declared range, from = to (a step of 0), steps = 0:
#    refused before any run with file:line:col, the key, expected and found;
#  - --set reaches nested tables (periodic.continuation.to=...), and its
#    errors name the key.
# usage: config_ranges.sh NSDYN SOURCE_DIR
set -uo pipefail
nsdyn=$1 src=$2
tmp=$(mktemp -d /tmp/nsdyn-ranges.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
base=$src/tests/fixtures/impact_oscillator_period2_natural.toml
# One bad line: KEY = VALUE replaces the continuation's KEY line (line L), or is added.
refused() { # key value want-pattern
    local key=$1 value=$2 want=$3 line
    sed "/^\[periodic.continuation\]/,\$ { /^$key = /d }" "$base" > "$tmp/c.toml"
    echo "$key = $value" >> "$tmp/c.toml"
    line=$(wc -l < "$tmp/c.toml")
    timeout -k 5 60 "$nsdyn" periodic "$tmp/c.toml" -o "$tmp/o" -q > /dev/null 2> "$tmp/err.txt"; st=$?
    [[ $st == 2 ]] || fail "$key = $value: exit $st, want 2 (refused before any run)"
    grep -qF "$tmp/c.toml:$line:" "$tmp/err.txt" || fail "$key = $value: no file:line:col ($line): $(cat "$tmp/err.txt")"
    grep -qF "$want" "$tmp/err.txt" || fail "$key = $value: message $(cat "$tmp/err.txt"), want '$want'"
    [[ -e $tmp/o ]] && fail "$key = $value: wrote $tmp/o"
}
range="expected a finite number > 0 (the range of system.omega)"
refused from inf "key 'from': $range, found inf"
refused from -inf "key 'from': $range, found -inf"
refused from nan "key 'from': $range, found nan"
refused to inf "key 'to': $range, found inf"
refused to nan "key 'to': $range, found nan"
refused from -1.0 "key 'from': $range, found -1"
refused to 0.0 "key 'to': $range, found 0"
refused to 1.17828565431 "key 'to': expected a value other than 'from' = 1.17828565431 (a step of 0)"
refused steps 0 "key 'steps': expected an integer in [1, 100000], found 0"
refused steps -3 "key 'steps': expected an integer in [1, 100000], found -3"
refused values "[1.18, nan]" "key 'values': $range, found nan"
refused values "[1.18, -2.0]" "key 'values': $range, found -2"
refused values "[1.18, inf]" "key 'values': $range, found inf"
# --set on nested tables: the value reaches [periodic.continuation] ...
setrun() { timeout -k 5 60 "$nsdyn" periodic "$base" -o "$tmp/s" -q "$@" > /dev/null 2> "$tmp/err.txt"; }
setrun --set periodic.continuation.to=inf; st=$?
[[ $st == 2 ]] || fail "--set periodic.continuation.to=inf: exit $st, want 2"
grep -qF "error: --set periodic.continuation.to=inf: [periodic.continuation] key 'to': $range, found inf" "$tmp/err.txt" ||
    fail "--set nested: $(cat "$tmp/err.txt")"
setrun --set periodic.continuation.tto=0.3; st=$?
[[ $st == 2 ]] && grep -qF "unknown key 'tto' (did you mean 'to'?)" "$tmp/err.txt" || fail "--set nested unknown key: $(cat "$tmp/err.txt")"
setrun --set system.omega.x=1; st=$?
[[ $st == 2 ]] && grep -qF "key 'system.omega': expected a table, found a float" "$tmp/err.txt" || fail "--set through a value: $(cat "$tmp/err.txt")"
setrun --set periodic..to=1; st=$?
[[ $st == 2 ]] && grep -qF "key 'periodic..to': expected section.key=value, found an empty key part" "$tmp/err.txt" || fail "--set empty part: $(cat "$tmp/err.txt")"
# ... and is the one used: the branch ends at omega = 1.18, where the
# period-2 orbit's period is two forcing periods, 4 pi / omega
setrun --set periodic.continuation.to=1.18 --set periodic.continuation.steps=1; st=$?
[[ $st == 0 ]] || fail "--set periodic.continuation.to=1.18: exit $st: $(head -5 "$tmp/err.txt")"
if [[ -f $tmp/s/continuation.csv ]]; then
    python3 - "$tmp/s/continuation.csv" << 'PY' || fail "the continuation did not use the --set value 1.18"
import math, sys
rows = [l.split(",") for l in open(sys.argv[1]) if not l.startswith("#")][1:]
omega, period = float(rows[-1][0]), float(rows[-1][3])
assert len(rows) == 2 and abs(omega - 1.18) < 1e-12, rows
assert abs(period - 4 * math.pi / 1.18) < 1e-8, period
PY
else
    fail "no continuation.csv: $(ls "$tmp/s" 2> /dev/null)"
fi
[[ $fails == 0 ]] && echo "config ranges: all checks passed"
exit $((fails > 0))
