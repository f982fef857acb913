#!/usr/bin/env bash
# The command line's help, man page, completion, keys and describe
# (core/src/cli/help.c): every command documented, the generated files valid.
# usage: cli_help.sh NSDYN CONFIG_DIR
set -uo pipefail
nsdyn=$1 configs=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

commands=$("$nsdyn" help --bash-completion | sed -n 's/^ *local commands="\([^"]*\)"$/\1/p')
[[ -n $commands ]] || fail "no command list in the completion script"
for c in $commands; do
    out=$("$nsdyn" "$c" --help) || fail "nsdyn $c --help exits $?"
    [[ $out == "usage: nsdyn $c"* ]] || fail "nsdyn $c --help: '$out'"
    [[ $("$nsdyn" help "$c") == "$out" ]] || fail "nsdyn help $c differs from nsdyn $c --help"
    "$nsdyn" --help | grep "^  $c" > /dev/null || fail "the overview does not list $c"
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

# Each command is offered its own options only (issue 26).
[[ " $(complete_words "$nsdyn" sweep --) " == *" --db "* ]] || fail "sweep: no --db offered"
[[ " $(complete_words "$nsdyn" sweep -) " == *" -j "* ]] || fail "sweep: no -j offered"
[[ " $(complete_words "$nsdyn" sweep --) " != *" --names "* ]] || fail "sweep offered --names"
[[ $(complete_words "$nsdyn" run --n) == "--no-config-plugins" ]] || fail "run --n: $(complete_words "$nsdyn" run --n)"
[[ $(complete_words "$nsdyn" keys --na) == "--names" ]] || fail "keys --na"
[[ $(complete_words "$nsdyn" compare --rep) == "--repeat" ]] || fail "compare --rep"
[[ $(complete_words "$nsdyn" help --z) == "--zsh-completion" ]] || fail "help --z"
# zsh and fish: the scripts parse, and name every command's options.
if command -v zsh > /dev/null; then
    zsh_script=$("$nsdyn" help --zsh-completion)
    zsh -n <<< "$zsh_script" || fail "zsh completion does not parse"
    [[ $zsh_script == *"'--db=["* ]] || fail "zsh completion: no --db"
fi
if command -v fish > /dev/null; then
    fish_script=$("$nsdyn" help --fish-completion)
    fish -n <<< "$fish_script" || fail "fish completion does not parse"
    [[ $fish_script == *"from sweep' -s j -l jobs"* ]] || fail "fish: no -j"
fi

# One argument syntax for every command (getopt_long): --output=DIR, -oDIR,
# -o DIR all write there; trailing garbage in a number, an option the
# command does not take, a value given to a flag, a folder as the config:
# exit 2 with the reason.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ball=$configs/bouncing_ball_newton.toml
short=(--set run.t_end=0.01 --set=plot.enabled=false -q)
"$nsdyn" run "$ball" --output="$tmp/a" "${short[@]}" && [[ -f $tmp/a/timeseries.csv ]] \
    || fail "--output=DIR"
"$nsdyn" run "${short[@]}" -o"$tmp/b" "$ball" && [[ -f $tmp/b/timeseries.csv ]] || fail "-oDIR"
"$nsdyn" run "$ball" --out "$tmp/c" "${short[@]}" && [[ -f $tmp/c/timeseries.csv ]] \
    || fail "--out DIR (a unique prefix)"
expect_error() { # "message part" args...: exit 2 and the message
    local want=$1
    shift
    local msg
    msg=$("$nsdyn" "$@" 2>&1)
    local rc=$?
    [[ $rc == 2 && $msg == *"$want"* ]] || fail "nsdyn $*: exit $rc, '$msg' (want '$want')"
}
expect_error "-j '2x': expected a whole number from 1 to 1024" sweep -j2x "$ball"
expect_error "-j '0': expected a whole number" sweep -j 0 "$ball"
expect_error "--repeat '3x': expected a whole number from 1 to 100" compare --repeat=3x "$ball"
expect_error "unknown option '--names' (nsdyn run --help)" run --names "$ball"
expect_error "unknown option '-o' (nsdyn keys --help)" keys -o x "$ball"
expect_error "--quiet takes no value" run --quiet=1 "$ball"
expect_error "-o needs a value (DIR)" run "$ball" -o
expect_error "is a directory, not a file" run "$configs"
expect_error "is a directory, not a file" sweep "$configs"
expect_error "No such file or directory" limits "$tmp/nothing.toml"
expect_error "unexpected argument" run "$ball" "$ball"
expect_error "usage: nsdyn describe ID" describe
expect_error "is a directory, not a file" check "$tmp"
"$nsdyn" run -h | grep "^usage: nsdyn run" > /dev/null || fail "run -h"
"$nsdyn" sweep --help "$ball" | grep "^usage: nsdyn sweep" > /dev/null || fail "sweep --help"
"$nsdyn" run "$ball" --set initial.vx=-0.1 -o "$tmp/d" "${short[@]}" && [[ -d $tmp/d ]] \
    || fail "a --set value that starts with -"

# keys on every shipped config; describe on every plugin.
for cfg in "$configs"/*.toml; do
    "$nsdyn" keys "$cfg" > /dev/null || fail "nsdyn keys $cfg"
done
"$nsdyn" keys "$configs/towed_wheel_unstable.toml" --set system.B2=0.9 | grep '^B2 = 0.9  # set$' > /dev/null \
    || fail "keys does not show a --set value"
"$nsdyn" keys "$configs/towed_wheel_unstable.toml" --set system.nonsense=1 > /dev/null 2>&1
[[ $? == 2 ]] || fail "keys with a bad --set: want exit 2"
for id in $("$nsdyn" plugins --ids); do
    "$nsdyn" describe "$id" > /dev/null || fail "nsdyn describe $id"
done
msg=$("$nsdyn" describe run 2>&1)
[[ $msg == *"'run' is a command, not a plugin: nsdyn help run"* ]] || fail "describe run: $msg"
"$nsdyn" describe towed_wheel | grep "^  psi  *\[rad\]" > /dev/null || fail "describe lists no states"
"$nsdyn" describe lugre | grep "internal states" > /dev/null || fail "describe lists no friction states"
echo "$fails failure(s)"
[[ $fails == 0 ]]
