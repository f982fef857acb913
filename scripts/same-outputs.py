#!/usr/bin/env python3
"""Run every shipped config with two builds and compare the data they write.

    python3 scripts/same-outputs.py OLD_BUILD NEW_BUILD [--configs DIR] [--work DIR]

A refactor that promises "outputs unchanged" (issue 14) is checked with this:
each config runs under the command it is written for (compare for a
[compare] config, limits for a [limits] one, run otherwise), graphs off,
and every .csv the two runs write must hold the same data (columns named for
wall time aside): the same text, or the same numbers where the number format
changed (same_field: issue 26 writes shortest round-trip numbers where older
builds wrote %.9g/%.12g/%.15g). Exit 1 on any
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


def sig_digits(text: str) -> int:
    """Significant digits of a number as %g writes it (0 if not a number)."""
    m = re.fullmatch(r"[-+]?(\d*)\.?(\d*)(?:[eE][-+]?\d+)?", text)
    if not m or not (m.group(1) + m.group(2)):
        return 0
    return len((m.group(1) + m.group(2)).lstrip("0").rstrip("0")) or 1


def same_field(old: str, new: str, digits: int) -> bool:
    """The same text, or the same number: the new build writes every number
    as the shortest text that reads back as the same double (issue 26,
    core/src/numfmt.h), where older builds wrote %.9g, %.12g or %.15g. Then
    the new number, rounded to the digits the old one's column carries,
    must read as the old number: a change within those digits is a
    difference, one beyond them is the old format's rounding."""
    if old == new:
        return True
    try:
        a, b = float(old), float(new)
    except ValueError:
        return False
    if a == b or (a != a and b != b):  # same double (or both NaN)
        return True
    return 0 < digits < 17 and float(f"{b:.{digits}g}") == a


def same_csv(a: pathlib.Path, b: pathlib.Path) -> bool:
    """Equal field by field, except columns whose header names a wall time;
    numbers compared as numbers (same_field) at their column's precision in
    the old file (the most significant digits any of its fields shows)."""
    ra, rb = (list(csv.reader(p.open(newline=""))) for p in (a, b))
    if len(ra) != len(rb) or not ra or ra[0] != rb[0]:
        return ra == rb
    keep = [i for i, h in enumerate(ra[0]) if "wall" not in h]
    digits = [max((sig_digits(r[i]) for r in ra[1:] if i < len(r)), default=0)
              for i in range(len(ra[0]))]
    for x, y in zip(ra[1:], rb[1:]):
        if len(x) != len(y):
            return False
        if not all(same_field(x[i], y[i], digits[i]) for i in keep if i < len(x)):
            return False
    return True


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
