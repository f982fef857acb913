#!/usr/bin/env python3
"""Run every shipped config with two builds and compare the data they write.

    python3 scripts/same-outputs.py OLD_BUILD NEW_BUILD [--configs DIR] [--work DIR]

A refactor that promises "outputs unchanged" (issue 14) is checked with this:
each config runs under the command it is written for (compare for a
[compare] config, limits for a [limits] one, run otherwise), graphs off,
and every .csv the two runs write must be byte-identical (columns named for
wall time aside). Exit 1 on any
difference, listing it; run.toml is not compared (it records paths and
hashes of the binaries)."""
import argparse, csv, os, re, pathlib, subprocess, sys, tempfile


def command_for(config: pathlib.Path) -> str:
    text = config.read_text()
    if "[compare]" in text or "[[variant]]" in text:
        return "compare"
    if re.search(r"nsdyn limits \S*" + re.escape(config.name), text):  # says so in its header
        return "limits"
    return "run"


def same_csv(a: pathlib.Path, b: pathlib.Path) -> bool:
    """Equal field by field, except columns whose header names a wall time."""
    ra, rb = (list(csv.reader(p.open(newline=""))) for p in (a, b))
    if len(ra) != len(rb) or not ra or ra[0] != rb[0]:
        return ra == rb
    keep = [i for i, h in enumerate(ra[0]) if "wall" not in h]
    cut = lambda row: [c for i, c in enumerate(row) if i in keep]
    return all(cut(x) == cut(y) for x, y in zip(ra, rb))


def run(build: pathlib.Path, cmd: str, config: pathlib.Path, out: pathlib.Path):
    exe = build / "core" / "nsdyn"
    p = subprocess.run([str(exe), cmd, str(config), "-o", str(out), "-q", "--set",
                        "plot.enabled=false"], capture_output=True, text=True, timeout=1800)
    return p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=pathlib.Path)
    ap.add_argument("new", type=pathlib.Path)
    ap.add_argument("--configs", type=pathlib.Path,
                    default=pathlib.Path(__file__).resolve().parent.parent / "configs")
    ap.add_argument("--work", type=pathlib.Path, default=None)
    a = ap.parse_args()
    work = a.work or pathlib.Path(tempfile.mkdtemp(prefix="same-outputs-"))
    bad = 0
    for config in sorted(a.configs.glob("*.toml")):
        cmd = command_for(config)
        outs = [work / "old" / config.stem, work / "new" / config.stem]
        rcs = [run(b, cmd, config, o) for b, o in zip((a.old, a.new), outs)]
        csvs = sorted({p.relative_to(o) for o in outs if o.exists() for p in o.rglob("*.csv")})
        diff = [str(c) for c in csvs
                if not all((o / c).exists() for o in outs) or
                not same_csv(outs[0] / c, outs[1] / c)]
        ok = rcs[0] == rcs[1] and not diff and csvs
        bad += not ok
        print(f"{'same' if ok else 'DIFFERENT'}  {cmd:8s} {config.name}  exit {rcs[0]}/{rcs[1]}, "
              f"{len(csvs)} csv" + (f"; differ: {', '.join(diff)}" if diff else ""))
    print(f"{bad} config(s) differ" if bad else "every config's data are identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
