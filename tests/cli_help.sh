#!/usr/bin/env bash
# The command line's help, man page, completion, keys and describe
# (core/src/cli/help.c): every command documented, the generated files valid.
# usage: cli_help.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

commands=$("$nsdyn" help --bash-completion | sed -n 's/.*compgen -W "\([^$"]*\)" -- "$cur"))$/\1/p' | head -1)
[[ -n $commands ]] || fail "no command list in the completion script"
for c in $commands; do
    out=$("$nsdyn" "$c" --help) || fail "nsdyn $c --help exits $?"
    [[ $out == "usage: nsdyn $c"* ]] || fail "nsdyn $c --help: '$out'"
    [[ $("$nsdyn" help "$c") == "$out" ]] || fail "nsdyn help $c differs from nsdyn $c --help"
    "$nsdyn" --help | grep -q "^  $c" || fail "the overview does not list $c"
done
"$nsdyn" help nonsense > /dev/null 2>&1; [[ $? == 2 ]] || fail "nsdyn help nonsense: want exit 2"
msg=$("$nsdyn" run --frobnicate x.toml 2>&1)
[[ $msg == *"nsdyn run --help"* ]] || fail "unknown option hint: $msg"

# The man page: valid roff without warnings.
if command -v groff > /dev/null; then
    warn=$("$nsdyn" help --man | groff -man -Tutf8 -ww -z 2>&1)
    [[ -z $warn ]] || fail "man page: $warn"
fi
# The completion script: valid bash; completes commands, ids and keys.
script=$("$nsdyn" help --bash-completion)
bash -n <(echo "$script") || fail "completion script is not valid bash"
complete_words() { # words... (the last is completed)
    bash -c 'source /dev/stdin; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _nsdyn 2>/dev/null
             echo "${COMPREPLY[*]}"' _ "$@" <<< "$script"
}
[[ $(complete_words "$nsdyn" ru) == run ]] || fail "completion of 'ru'"
[[ $(complete_words "$nsdyn" describe towed_w) == towed_wheel ]] || fail "completion of an id"
[[ $(complete_words "$nsdyn" run "$configs/towed_wheel_unstable.toml" --set system.B2) == \
   "system.B2=" ]] || fail "completion of a --set key"

# keys on every shipped config; describe on every plugin.
for cfg in "$configs"/*.toml; do
    "$nsdyn" keys "$cfg" > /dev/null || fail "nsdyn keys $cfg"
done
"$nsdyn" keys "$configs/towed_wheel_unstable.toml" --set system.B2=0.9 | grep -q '^B2 = 0.9  # set$' \
    || fail "keys does not show a --set value"
"$nsdyn" keys "$configs/towed_wheel_unstable.toml" --set system.nonsense=1 > /dev/null 2>&1
[[ $? == 2 ]] || fail "keys with a bad --set: want exit 2"
for id in $("$nsdyn" plugins --ids); do
    "$nsdyn" describe "$id" > /dev/null || fail "nsdyn describe $id"
done
msg=$("$nsdyn" describe run 2>&1)
[[ $msg == *"'run' is a command, not a plugin: nsdyn help run"* ]] || fail "describe run: $msg"
"$nsdyn" describe towed_wheel | grep -q "^  psi  *\[rad\]" || fail "describe lists no states"
"$nsdyn" describe lugre | grep -q "internal states" || fail "describe lists no friction states"
echo "$fails failure(s)"
[[ $fails == 0 ]]
