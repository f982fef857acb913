#!/usr/bin/env bash
# Generate the fuzzers' seed corpus from the tree (nothing is copied into git):
#   OUT/config/  every configs/*.toml and tests/bad-configs/*.toml (fuzz_config)
#   OUT/set/     --set inputs (fuzz_set): each "section.key = value" line of
#                configs/*.toml as "section.key=value", applied to that config
#                when fuzz_entry.c lists it as a base ("@N" first line), else to
#                base 0; and the "# args: --set ..." lines of tests/bad-configs/
# Names say where an input comes from (set-<config>-<line>, set-args-<file>).
# Usage: fuzz/make-corpus.sh OUT
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: make-corpus.sh OUT}
rm -rf "$out/config" "$out/set"
mkdir -p "$out/config" "$out/set"

cp "$root"/configs/*.toml "$root"/tests/bad-configs/*.toml "$out/config/"

# The base configs of fuzz_set, in the order of fuzz_entry.c's bases[].
mapfile -t bases < <(sed -n '/^static const char \*const bases\[\]/,/^};/p' "$root/fuzz/fuzz_entry.c" |
                     grep -o '"[A-Za-z0-9_]*\.toml"' | tr -d '"')

# "section.key=value" of every one-line key of a config (tables and inline
# tables of [[variant]] left out; comments stripped outside strings).
set_lines() {
  awk '
    /^[ \t]*\[\[/ { section = "-"; next }
    /^[ \t]*\[/ { s = $0; sub(/^[ \t]*\[/, "", s); sub(/\].*$/, "", s); section = s; next }
    /^[ \t]*[A-Za-z0-9_]+[ \t]*=/ {
      if (section == "-") next
      line = $0
      key = line; sub(/^[ \t]*/, "", key); sub(/[ \t]*=.*$/, "", key)
      val = line; sub(/^[^=]*=[ \t]*/, "", val)
      out = ""; q = ""
      for (i = 1; i <= length(val); i++) {
        c = substr(val, i, 1)
        if (q == "" && c == "#") break
        if (q == "" && (c == "\"" || c == "\047")) q = c
        else if (q != "" && c == q) q = ""
        out = out c
      }
      sub(/[ \t]+$/, "", out)
      opens = gsub(/\[/, "[", out); closes = gsub(/\]/, "]", out)
      if (out == "" || opens != closes || out ~ /^\{/) next
      print (section == "" ? "" : section ".") key "=" out
    }' "$1"
}

for f in "$root"/configs/*.toml; do
  name=$(basename "$f" .toml)
  base=0
  for i in "${!bases[@]}"; do [ "${bases[$i]}" = "$name.toml" ] && base=$i; done
  set_lines "$f" | awk -v dir="$out/set" -v name="$name" -v base="$base" \
    '{ file = sprintf("%s/set-%s-%03d", dir, name, NR); printf "@%d\n%s\n", base, $0 > file; close(file) }'
done

# The --set arguments of the bad-config corpus (one input per file).
awk -v dir="$out/set" '
  FNR == 1 { n = split(FILENAME, parts, "/"); stem = parts[n]; sub(/\.toml$/, "", stem) }
  /^# args: / {
    k = split(substr($0, 9), w, " "); file = dir "/set-args-" stem; text = ""
    for (i = 1; i < k; i++) if (w[i] == "--set") text = text w[i + 1] "\n"
    if (text != "") { printf "%s", text > file; close(file) }
  }' "$root"/tests/bad-configs/*.toml
# Plugin swaps (a section's id changes, its file keys dropped).
for s in "integrator.id=rk4" "integrator.id=dopri5" "integrator.id=moreau" "contact.id=newton" \
         "friction.id=coulomb" "friction.id=lugre" "system.id=point_mass" "system.id=walker2"; do
  for b in "${!bases[@]}"; do printf '@%d\n%s\n' "$b" "$s" > "$out/set/set-swap-$b-${s//[^a-z0-9]/_}"; done
done

echo "fuzz corpus: $(ls "$out/config" | wc -l) config inputs, $(ls "$out/set" | wc -l) --set inputs in $out"
