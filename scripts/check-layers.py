#!/usr/bin/env python3
"""The host's layering holds: no loop between files, no arrow down the layers.

    python3 scripts/check-layers.py SRC [--objects DIR_OR_FILE.o]... [--list]

SRC is core/src. Its folders are the layers, in the order of the table in
SRC/README.md (lowest first). A unit is one file stem: foo.c with foo.h (a
header without a source, such as sweep.h, is a unit of its own). Unit A
depends on unit B when a file of A includes a header of B (quoted includes,
resolved by file name among SRC's files), and, with --objects, when an object
file of A leaves undefined a symbol that B's object defines (`nm`: the call
graph, calls through function pointers aside). Exit 1 when

  - units depend on each other in a loop (a strongly connected component of
    more than one unit), each loop printed with the includes and names that
    tie it; or
  - a unit depends on a unit of a later (higher) layer in README.md.

--list prints every unit and the units it depends on; --folders each layer
(top first) with the layers it uses and how many unit-to-unit dependencies
run there (the map in docs/architecture.md)."""
import argparse, collections, pathlib, re, subprocess, sys

# The allocation probe (analysis/alloc_probe.c, linked into the executable)
# replaces the C library's allocator: a call of these is no call into it.
LIBC_REPLACED = {"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layers_of(src):
    """Folder names in the order of README.md's table (`| `name/` | ...`)."""
    rows = re.findall(r"^\|\s*`([a-z_]+)/`\s*\|", (src / "README.md").read_text(), re.M)
    if not rows:
        sys.exit(f"{src}/README.md: no layer table (rows '| `folder/` | ...')")
    return rows


def unit_of(src, path):
    rel = path.relative_to(src)
    return str(rel.with_suffix(""))


def include_edges(src, files):
    by_name = collections.defaultdict(list)
    for f in files:
        by_name[f.name].append(f)
    edges = collections.defaultdict(set)  # (a, b) -> reasons
    for f in files:
        text = re.sub(r"/\*.*?\*/", "", f.read_text(errors="replace"), flags=re.S)
        for name in INCLUDE.findall(text):
            hits = by_name.get(pathlib.Path(name).name, [])
            if len(hits) > 1:
                sys.exit(f"{f}: #include \"{name}\" is ambiguous: {', '.join(map(str, hits))}")
            if not hits:
                continue  # generated, numeric layer, ABI, system
            a, b = unit_of(src, f), unit_of(src, hits[0])
            if a != b:
                edges[(a, b)].add(f"{f.name} includes {name}")
    return edges


def nm_symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == "U":
            undefined.add(p[1])
        elif len(p) == 3 and p[1] in "TDBRVWGS":  # global definitions only
            defined.add(p[2])
    return defined, undefined


def call_edges(src, obj_dirs):
    units = {}
    objs = []
    for d in map(pathlib.Path, obj_dirs):
        objs += [d] if d.suffix == ".o" else sorted(d.rglob("*.o"))
    for obj in objs:
        # CMake names an object after its source: .../src/model/model.c.o;
        # an object whose source is gone (a stale one) is not read
        parts = obj.parts
        if "src" not in parts:
            continue
        rel = pathlib.Path(*parts[len(parts) - parts[::-1].index("src"):])
        source = src / rel.with_suffix("")
        if source.exists():
            units[unit_of(src, source)] = nm_symbols(str(obj))
    owner = {}
    for u, (defined, _) in units.items():
        for s in defined - LIBC_REPLACED:
            owner[s] = u
    edges = collections.defaultdict(set)
    for u, (_, undefined) in units.items():
        for s in undefined:
            if s in owner and owner[s] != u:
                edges[(u, owner[s])].add(s)
    return edges, len(units)


def loops(nodes, succ):
    """Tarjan's strongly connected components of more than one node."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("--objects", action="extend", nargs="+", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--folders", action="store_true", help="each layer and the layers it uses")
    a = ap.parse_args()
    src = pathlib.Path(a.src).resolve()
    layers = layers_of(src)
    rank = {name: i for i, name in enumerate(layers)}
    files = sorted(p for p in src.rglob("*") if p.suffix in (".c", ".h", ".cpp"))
    for f in files:
        if f.parent == src or f.relative_to(src).parts[0] not in rank:
            sys.exit(f"{f}: not in a layer folder of {src}/README.md")
    edges = include_edges(src, files)
    n_objects = 0
    if a.objects:
        calls, n_objects = call_edges(src, a.objects)
        for k, names in calls.items():
            edges[k] |= {f"calls {s}" for s in names}
    nodes = {unit_of(src, f) for f in files}
    succ = collections.defaultdict(set)
    for x, y in edges:
        succ[x].add(y)
    layer = lambda u: u.split("/")[0]
    bad = 0
    for comp in loops(nodes, succ):
        bad += 1
        print(f"loop of {len(comp)} units: {', '.join(comp)}")
        for x, y in sorted(edges):
            if x in comp and y in comp:
                print(f"  {x} -> {y}: {'; '.join(sorted(edges[(x, y)])[:6])}")
    for (x, y), why in sorted(edges.items()):
        if rank[layer(y)] > rank[layer(x)]:
            bad += 1
            print(f"up the layers: {x} ({layer(x)}) -> {y} ({layer(y)}): "
                  f"{'; '.join(sorted(why)[:6])}")
    if a.list:
        for u in sorted(nodes, key=lambda u: (rank[layer(u)], u)):
            print(f"{u}: {' '.join(sorted(succ[u]))}")
    if a.folders:
        uses = collections.defaultdict(collections.Counter)
        for x, y in edges:
            if layer(x) != layer(y):
                uses[layer(x)][layer(y)] += 1
        for name in reversed(layers):
            used = sorted(uses[name], key=lambda l: -rank[l])
            n_files = sum(1 for f in files if f.relative_to(src).parts[0] == name)
            print(f"{name}/ ({n_files} files): " +
                  (", ".join(f"{l} {uses[name][l]}" for l in used) or "-"))
    print(f"{len(nodes)} units in {len(layers)} layers, {len(edges)} dependencies "
          f"({n_objects} object files read); {bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
