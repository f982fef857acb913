#!/usr/bin/env python3
"""A config-mutation campaign over the shipped configs (issue 28; docs/fuzzing.md).

    python3 fuzz/mutate_configs.py NSDYN CONFIG_DIR [-n MUTANTS] [--seed S]
                                   [--timeout SECONDS] [--keep DIR] [--strict]

Each mutant is a shipped config (configs/*.toml, not the sweeps, periodic orbits
or maps, which take minutes) with one to three line mutations: a value replaced
by a hostile one (1e300, inf, nan, -1, 0, 1e-320, a string, an array, a table),
a number scaled by 10^k or negated, a line deleted or duplicated, a table
header dropped. It runs `nsdyn run` (or `compare` for a config with
[[variant]]s) end to end, plots off, into a folder that holds an earlier
result (a sentinel run.toml), under a wall-time bound, and is counted as:

  refused cleanly  exit 2 with an "error: " line (a config error found before running)
  failed honestly  exit 3 with an error message (the run stopped and said why)
  ran fine         exit 0, every number written finite
  crash            killed by a signal, a sanitizer report, or an exit status nsdyn never uses
  hang             not done within --timeout seconds
  silent wrong     exit 0 with nan or inf in a written CSV or run.toml, or a time
                   series value beyond 1e15 (too large to take a step's increments)
  data lost        not exit 0, and the earlier result in the folder is gone or changed

Prints the table; --strict exits 1 when any crash, hang, silent wrong or data
lost was seen (the short ctest). --keep DIR keeps every bad mutant there.
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile

HOSTILE = ["1e300", "-1e300", "inf", "-inf", "nan", "0", "-0.0", "-1", "1e-320", "9e18",
           "-9223372036854775808", '""', '"x"', "[]", "{}", "true", "[1e300, nan]", "1e-300"]
SENTINEL = "# an earlier result: must survive a failed run\n"
BAD = ("crash", "hang", "silent wrong", "data lost")


def shipped(config_dir):
    out = []
    for name in sorted(os.listdir(config_dir)):
        if not name.endswith(".toml") or name.startswith("sweep_"):
            continue
        text = open(os.path.join(config_dir, name)).read()
        if re.search(r"^\[(periodic|pcmap|sweep)", text, re.M) or "periodic" in name:
            continue
        out.append((name, text))
    return out


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        assigns = [i for i, l in enumerate(lines) if re.match(r"\s*[A-Za-z_][\w.]*\s*=", l)]
        headers = [i for i, l in enumerate(lines) if l.startswith("[")]
        op = rng.random()
        if assigns and op < 0.55:
            i = rng.choice(assigns)
            key = lines[i].split("=", 1)[0]
            lines[i] = key + "= " + rng.choice(HOSTILE)
        elif assigns and op < 0.75:
            i = rng.choice(assigns)
            key, val = lines[i].split("=", 1)
            m = re.match(r"\s*(-?[\d.]+(?:e-?\d+)?)", val)
            if m:
                v = float(m.group(1)) if re.match(r"-?[\d.]", m.group(1)) else 1.0
                scaled = -v if rng.random() < 0.3 else v * 10.0 ** rng.choice([-300, -12, -3, 3, 12, 300])
                lines[i] = key + "= " + repr(scaled)
        elif assigns and op < 0.87:
            i = rng.choice(assigns)
            if rng.random() < 0.5:
                del lines[i]
            else:
                lines.insert(i, lines[i])
        elif headers:
            del lines[rng.choice(headers)]
    return "\n".join(lines)


def unrepresentable(path):
    """A number of a time series beyond 1e15 (doubles there are more than 0.1
    apart: a state that cannot take a step's increments, x = 1e300 at 5 m/s)."""
    with open(path, errors="replace") as h:
        next(h, None)
        for line in h:
            for v in line.split(","):
                try:
                    if abs(float(v)) >= 1e15:
                        return True
                except ValueError:
                    pass
    return False


def nonfinite(folder):
    for root, _, files in os.walk(folder):
        for f in files:
            if f == "timeseries.csv" and unrepresentable(os.path.join(root, f)):
                return os.path.join(root, f) + " (|value| >= 1e15)"
            if f.endswith(".csv") or f == "run.toml":
                with open(os.path.join(root, f), errors="replace") as h:
                    for line in h:
                        if re.search(r"(?<![A-Za-z_])(nan|inf)(?![A-Za-z_])", line, re.I) and not line.lstrip().startswith("#"):
                            if f == "run.toml" and ("=" in line and line.split("=", 1)[1].strip().startswith('"')):
                                continue  # a message quoting a value
                            return os.path.join(root, f)
    return None


def classify(nsdyn, path, variants, work, timeout):
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out + ".INCOMPLETE", ignore_errors=True)
    os.makedirs(out)
    with open(os.path.join(out, "run.toml"), "w") as f:
        f.write(SENTINEL)
    cmd = [nsdyn, "compare" if variants else "run", path, "-o", out, "-q",
           "--set", "plot.enabled=false", "--set", "run.progress=false"]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", "timeout"
    err = p.stderr
    if p.returncode < 0 or "AddressSanitizer" in err or "runtime error:" in err or \
            p.returncode not in (0, 2, 3, 4):
        return "crash", "status %d: %s" % (p.returncode, err[-300:])
    if p.returncode == 0:
        bad = nonfinite(out)
        return ("silent wrong", bad) if bad else ("ran fine", "")
    kept = os.path.join(out, "run.toml")
    if not os.path.exists(kept) or open(kept).read() != SENTINEL:
        return "data lost", err[-300:]
    if "error: " not in err:
        return "crash", "status %d without a message" % p.returncode
    return ("refused cleanly" if p.returncode == 2 else "failed honestly"), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nsdyn")
    ap.add_argument("configs")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--keep")
    ap.add_argument("--strict", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bases = shipped(a.configs)
    counts = {k: 0 for k in ("refused cleanly", "failed honestly", "ran fine") + BAD}
    work = tempfile.mkdtemp(prefix="nsdyn-mutants-")
    try:
        for k in range(a.n):
            name, text = rng.choice(bases)
            mutant = mutate(text, rng)
            path = os.path.join(work, "m.toml")
            with open(path, "w") as f:
                f.write(mutant)
            kind, why = classify(a.nsdyn, path, "[[variant]]" in mutant, work, a.timeout)
            counts[kind] += 1
            if kind in BAD:
                print("%s: mutant %d of %s: %s" % (kind, k, name, why.strip()[:300]))
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(path, os.path.join(a.keep, "%s-%d-%s" % (kind.replace(" ", "_"), k, name)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| tried | refused cleanly | failed honestly | ran fine | crash | hang | silent wrong | data lost |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    print("| %d | %s |" % (a.n, " | ".join(str(counts[k]) for k in
                                               ("refused cleanly", "failed honestly", "ran fine") + BAD)))
    return 1 if a.strict and any(counts[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
