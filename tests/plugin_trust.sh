#!/usr/bin/env bash
# Plugins opened only by choice (issue 28; core/src/plugin_trust.c): a
# config's plugin_path is searched only with --trust-config-plugins or an
# allow-list of the user's, never by `nsdyn keys`, never in a folder anyone
# may write to, never from a [[variant]]; a FIFO named like a plugin does
# not hang; a record re-run checks its plugins' SHA-256.
# usage: plugin_trust.sh NSDYN MARKER_SO
set -uo pipefail
nsdyn=$1 marker_so=$2
tmp=$(mktemp -d /tmp/nsdyn-trust.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
unset NSDYN_TRUST_CONFIG_PLUGINS NSDYN_NO_CONFIG_PLUGINS NSDYN_PLUGIN_PATH NSDYN_ACCEPT_PLUGIN_CHANGE
export XDG_CONFIG_HOME=$tmp/xdg NSDYN_FIXTURE_MARKER=$tmp/marker
mkdir -p "$tmp/c" "$tmp/xdg/nsdyn"
chmod 755 "$tmp/c"
cp "$marker_so" "$tmp/c/nsdyn_friction_marker_friction.so"
body='[system]
id = "towed_wheel"
[friction]
id = "marker_friction"
[integrator]
id = "rk4"
h = 0.01
[run]
t_end = 0.1
progress = false
[plot]
enabled = false'
printf 'plugin_path = ["c"]\n%s\n' "$body" > "$tmp/c.toml"
run() { timeout 20 "$nsdyn" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; }

# 1. Not trusted: refused before anything is opened (the constructor leaves the marker).
run run "$tmp/c.toml" -o "$tmp/o1" -q; st=$?
[[ $st == 2 ]] || fail "untrusted plugin_path: exit $st, want 2"
grep -q "plugin_path: folder '$tmp/c' is not trusted" "$tmp/err.txt" || fail "no 'not trusted' message: $(cat "$tmp/err.txt")"
[[ ! -e $tmp/marker ]] || fail "an untrusted plugin_path was opened"
# 2. keys never opens it, even with the flag.
run keys "$tmp/c.toml" --trust-config-plugins; st=$?
[[ $st == 2 ]] || fail "keys: exit $st, want 2"
grep -q "not searched by \`nsdyn keys\`" "$tmp/err.txt" || fail "keys message: $(cat "$tmp/err.txt")"
[[ ! -e $tmp/marker ]] || fail "nsdyn keys opened a config's plugin"
# 3. An allow-list writable by others is ignored; a safe one is honoured.
echo "$tmp/c" > "$tmp/xdg/nsdyn/trusted-plugin-paths"
chmod 666 "$tmp/xdg/nsdyn/trusted-plugin-paths"
run run "$tmp/c.toml" -o "$tmp/o2" -q; st=$?
[[ $st == 2 && ! -e $tmp/marker ]] || fail "a group/world-writable allow-list was honoured (exit $st)"
grep -q "the allow-list is ignored" "$tmp/err.txt" || fail "no allow-list warning: $(cat "$tmp/err.txt")"
chmod 600 "$tmp/xdg/nsdyn/trusted-plugin-paths"
run run "$tmp/c.toml" -o "$tmp/o2" -q; st=$?
[[ $st == 0 && -e $tmp/marker ]] || fail "allow-listed folder: exit $st: $(cat "$tmp/err.txt")"
rm -f "$tmp/marker" "$tmp/xdg/nsdyn/trusted-plugin-paths"
# 4. The flag trusts it, but never a folder anyone may write to.
run run "$tmp/c.toml" -o "$tmp/o3" -q --trust-config-plugins; st=$?
[[ $st == 0 ]] || fail "--trust-config-plugins: exit $st: $(cat "$tmp/err.txt")"
rm -f "$tmp/marker"
chmod 777 "$tmp/c"
run run "$tmp/c.toml" -o "$tmp/o4" -q --trust-config-plugins; st=$?
[[ $st == 2 && ! -e $tmp/marker ]] || fail "world-writable plugin_path: exit $st"
grep -q "is writable by everyone: refused" "$tmp/err.txt" || fail "world-writable message: $(cat "$tmp/err.txt")"
NSDYN_PLUGIN_PATH=$tmp/c run run "$tmp/o3/run.toml" -o "$tmp/o4" -q --no-config-plugins
grep -q "warning: NSDYN_PLUGIN_PATH folder '$tmp/c' is writable by everyone" "$tmp/err.txt" || fail "world-writable NSDYN_PLUGIN_PATH not warned: $(cat "$tmp/err.txt")"
chmod 755 "$tmp/c"
# 5. plugin_path inside a [[variant]]: refused, not ignored.
printf '%s\n[[variant]]\nname = "a"\nplugin_path = ["c"]\n' "${body/marker_friction/coulomb_regularized}" > "$tmp/v.toml"
run compare "$tmp/v.toml" -o "$tmp/o5" -q --trust-config-plugins; st=$?
[[ $st == 2 ]] || fail "[[variant]] plugin_path: exit $st"
grep -q "plugin_path cannot change in a \[\[variant\]\]" "$tmp/err.txt" || fail "variant message: $(cat "$tmp/err.txt")"
# 6. A FIFO named like a plugin neither hangs nor is opened.
mkdir -m 755 "$tmp/f" && mkfifo "$tmp/f/nsdyn_friction_fifo.so"
NSDYN_PLUGIN_PATH=$tmp/f run run "$tmp/v.toml" -o "$tmp/o6" -q --set friction.id=fifo; st=$?
[[ $st == 2 ]] || fail "FIFO plugin: exit $st (124: hung)"
grep -q "not a regular file" "$tmp/err.txt" || fail "FIFO message: $(cat "$tmp/err.txt")"
NSDYN_PLUGIN_PATH=$tmp/f run plugins; st=$?
[[ $st != 124 ]] || fail "nsdyn plugins hung on a FIFO"
# 7. A record re-run checks the SHA-256 of its plugins.
run run "$tmp/o3/run.toml" -o "$tmp/o7" -q --trust-config-plugins; st=$?
[[ $st == 0 ]] || fail "re-run of an unchanged record: exit $st: $(cat "$tmp/err.txt")"
printf '\0' >> "$tmp/c/nsdyn_friction_marker_friction.so" # a rebuilt plugin
run run "$tmp/o3/run.toml" -o "$tmp/o8" -q --trust-config-plugins; st=$?
[[ $st == 2 && ! -e $tmp/o8 ]] || fail "re-run with a changed plugin: exit $st"
grep -q "provenance.friction: plugin 'marker_friction' resolves to .*nsdyn_friction_marker_friction.so, whose SHA-256" "$tmp/err.txt" || fail "hash message: $(cat "$tmp/err.txt")"
run run "$tmp/o3/run.toml" -o "$tmp/o8" -q --trust-config-plugins --accept-plugin-change; st=$?
[[ $st == 0 ]] || fail "--accept-plugin-change: exit $st: $(cat "$tmp/err.txt")"
grep -q "accepted (--accept-plugin-change)" "$tmp/err.txt" || fail "no warning when accepted"
# 8. A resumed sweep checks the plugins its database recorded.
printf 'plugin_path = ["c"]\n%s\n[[sweep.axis]]\nkey = "system.B2"\nname = "B2"\nstart = 0.2\nstop = 0.3\nstep = 0.1\n[sweep.summary]\npsi_max = "max(psi)"\n' "$body" > "$tmp/s.toml"
run sweep "$tmp/s.toml" -o "$tmp/s" -q --no-graphs --trust-config-plugins; st=$?
[[ $st == 0 ]] || fail "sweep: exit $st: $(cat "$tmp/err.txt")"
run sweep "$tmp/s.toml" -o "$tmp/s" -q --no-graphs --trust-config-plugins; st=$?
[[ $st == 0 ]] || fail "sweep resumed, plugins unchanged: exit $st: $(cat "$tmp/err.txt")"
printf '\0' >> "$tmp/c/nsdyn_friction_marker_friction.so"
run sweep "$tmp/s.toml" -o "$tmp/s" -q --no-graphs --trust-config-plugins; st=$?
[[ $st == 2 ]] || fail "sweep resumed with a rebuilt plugin: exit $st"
grep -q "the plugins changed since this database was written: now 'friction marker_friction $tmp/c/nsdyn_friction_marker_friction.so" "$tmp/err.txt" || fail "sweep hash message: $(cat "$tmp/err.txt")"
run sweep "$tmp/s.toml" -o "$tmp/s" -q --no-graphs --trust-config-plugins --accept-plugin-change; st=$?
[[ $st == 0 ]] || fail "sweep --accept-plugin-change: exit $st: $(cat "$tmp/err.txt")"
[[ $fails == 0 ]] && echo "plugin trust: all checks passed"
exit $((fails > 0))
