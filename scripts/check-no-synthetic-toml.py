#!/usr/bin/env python3
"""No config tree made up in code (issue 21): a study, an analysis or the
host API changes a value through parameter overrides
(core/src/config/overrides.h, nsd_scenario_override), never by building
TOML tables of its own and deriving a scenario from them, nor by writing
into a config's tree. Outside the files that own the tree (the TOML
adapter and params/, config.c's --set and [[variant]] merge, overrides.c's
leaf values), this fails on:

  - nsd_toml_table_set / nsd_toml_table_remove (writing a tree);
  - an nsd_toml_node made in code: `nsd_toml_node x = {`, `x[N] = {`,
    `(nsd_toml_node){`, or `.type = NSD_TOML_TABLE`;
  - a cast that takes const off a key or name to put it into a node
    (`.key = (char *)`).

Usage: check-no-synthetic-toml.py ROOT (the source tree); exit 1 with the
places when one is found."""
import pathlib, re, sys

ALLOWED = {
    "core/src/params/toml_adapter.cpp", "core/src/params/toml_adapter.h",
    "core/src/params/params.c", "core/src/params/diag.c",
    "core/src/config/config.c",     # --set values and [[variant]] tables, from the file
    "core/src/config/overrides.c",  # an override's value: one leaf
}
PATTERNS = [
    (re.compile(r"\bnsd_toml_table_(set|remove)\s*\("), "writes into a TOML tree"),
    (re.compile(r"\bnsd_toml_node\s+\w+\s*(\[[^\]]*\])?\s*=\s*\{"), "makes a TOML node in code"),
    (re.compile(r"\(\s*nsd_toml_node\s*\)\s*\{"), "makes a TOML node in code"),
    (re.compile(r"\.type\s*=\s*NSD_TOML_TABLE\b"), "makes a TOML table in code"),
    (re.compile(r"\.key\s*=\s*\(\s*char\s*\*\s*\)"), "casts const away into a node's key"),
]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = []
    for path in sorted((root / "core" / "src").rglob("*")):
        if path.suffix not in (".c", ".h", ".cpp"):
            continue
        rel = path.relative_to(root).as_posix()
        if rel in ALLOWED:
            continue
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for rx, why in PATTERNS:
                if rx.search(line):
                    found.append(f"{rel}:{no}: {why}: {line.strip()}")
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} place(s) build or write config trees in code: change values "
              "through nsd_overrides (core/src/config/overrides.h) and nsd_scenario_override")
        return 1
    print("no synthetic TOML outside the config's own files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
