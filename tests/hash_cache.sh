#!/usr/bin/env bash
# The plugin SHA-256 cache (issue 28, round 3; core/src/plugins/sha256_cache.c):
# run.toml names each plugin by the hash of its file, from the user's cache
# when the file's device, inode, size, mtime and ctime match. A plugin
# rewritten in place with its old size and mtime (touch -r) must be hashed
# again: a re-run of the record then refuses the changed plugin, and the
# new record carries the new hash. Malformed cache lines are ignored.
# usage: hash_cache.sh NSDYN FIXTURE_DIR
set -uo pipefail
nsdyn=$1 fixtures=$2
tmp=$(mktemp -d /tmp/nsdyn-hash.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export XDG_CACHE_HOME=$tmp/cache NSDYN_NO_HASH_CACHE=0
mkdir -m 755 "$tmp/p"
so=$tmp/p/nsdyn_system_crashing.so
cp "$fixtures/nsdyn_system_crashing.so" "$so"
export NSDYN_PLUGIN_PATH=$tmp/p
cat > "$tmp/c.toml" << 'TOML'
[system]
id = "crashing"
fault = 0
[integrator]
id = "rk4"
h = 0.001
[run]
t_end = 0.01
progress = false
[plot]
enabled = false
TOML
recorded() { sed -n 's/^system = .*sha256 = "\([0-9a-f]*\)".*/\1/p' "$1/run.toml"; }
"$nsdyn" run "$tmp/c.toml" -o "$tmp/o1" -q || fail "first run"
want=$(sha256sum "$so" | cut -d' ' -f1)
[[ $(recorded "$tmp/o1") == "$want" ]] || fail "recorded hash $(recorded "$tmp/o1"), sha256sum $want"
grep -q " $want $so\$" "$tmp/cache/nsdyn/plugin-sha256" 2> /dev/null ||
    fail "the hash was not cached: $(cat "$tmp/cache/nsdyn/plugin-sha256" 2> /dev/null)"
"$nsdyn" run "$tmp/c.toml" -o "$tmp/o2" -q || fail "second run"
[[ $(recorded "$tmp/o2") == "$want" ]] || fail "hash from the cache $(recorded "$tmp/o2"), want $want"
# rewrite in place: same size, same mtime, one byte of its summary text changed
cp -p "$so" "$tmp/ref"
python3 - "$so" << 'PY'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
i = b.index(b"a falling mass")
open(p, "r+b").write(b[:i] + b"A" + b[i + 1:])
PY
touch -r "$tmp/ref" "$so"
[[ $(stat -c '%s %Y' "$so") == $(stat -c '%s %Y' "$tmp/ref") ]] || fail "the rewrite changed size or mtime"
new=$(sha256sum "$so" | cut -d' ' -f1)
[[ $new != "$want" ]] || fail "the rewrite did not change the file"
"$nsdyn" run "$tmp/o1/run.toml" -o "$tmp/o3" -q 2> "$tmp/err.txt"; st=$?
[[ $st == 2 ]] || fail "re-run of the record with the rewritten plugin: exit $st, want 2 (a stale cached hash accepted it)"
grep -q "whose SHA-256" "$tmp/err.txt" || fail "changed-plugin message: $(cat "$tmp/err.txt")"
"$nsdyn" run "$tmp/c.toml" -o "$tmp/o4" -q || fail "run after the rewrite"
[[ $(recorded "$tmp/o4") == "$new" ]] || fail "after the rewrite: recorded $(recorded "$tmp/o4"), sha256sum $new"
# malformed lines are ignored, the hash still right
printf 'garbage\n1 2 3 4.5 6.7 ZZZ /x\n' >> "$tmp/cache/nsdyn/plugin-sha256"
"$nsdyn" run "$tmp/c.toml" -o "$tmp/o5" -q || fail "run with a malformed cache"
[[ $(recorded "$tmp/o5") == "$new" ]] || fail "with malformed lines: recorded $(recorded "$tmp/o5")"
[[ $fails == 0 ]] && echo "hash cache: all checks passed"
exit $((fails > 0))
