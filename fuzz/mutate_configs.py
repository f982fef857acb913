#!/usr/bin/env python3
"""A config-mutation campaign over the shipped configs (issue 28; docs/fuzzing.md).

    python3 fuzz/mutate_configs.py NSDYN CONFIG_DIR [-n MUTANTS] [--seed S]
                                   [--timeout SECONDS] [--keep DIR] [--strict]
                                   [--also MUTANT.toml ...]

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
  stopped by Ctrl-C  not done within --timeout seconds, then one SIGINT ended it
                   within 5 s with exit 130, the earlier result untouched and the
                   data so far in DIR.INCOMPLETE (a slow run, not a hang: e.g. a
                   stiff one that its integrator's max_steps ends after minutes)
  hang             not done within --timeout seconds and deaf to one SIGINT
  silent wrong     exit 0 with nan or inf in a written CSV or run.toml, or a time
                   series value beyond 1e15 (too large to take a step's increments)
  data lost        not exit 0, and the earlier result in the folder is gone or changed

--also runs the given mutants first (fuzz/mutants/: ones a campaign found).
Prints the table; --strict exits 1 when any crash, hang, silent wrong or data
lost was seen (the short ctest). --keep DIR keeps every bad mutant there.
"""
import argparse, os, random, re, shutil, signal, subprocess, sys, tempfile

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
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, errors="replace")
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)  # the first Ctrl-C: nsdyn must stop and keep its data
        try:
            _, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "hang", "timeout, and deaf to a SIGINT for 5 s"
        kept = os.path.join(out, "run.toml")
        if not os.path.exists(kept) or open(kept).read() != SENTINEL:
            return "data lost", "after a SIGINT at the bound: " + err[-300:]
        if p.returncode != 128 + signal.SIGINT or not os.path.isdir(out + ".INCOMPLETE"):
            return "crash", "after a SIGINT at the bound: status %d, %s" % (p.returncode, err[-300:])
        return "stopped by Ctrl-C", err[-300:]
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
    ap.add_argument("--also", nargs="*", default=[])
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bases = shipped(a.configs)
    kinds = ("refused cleanly", "failed honestly", "ran fine", "stopped by Ctrl-C") + BAD
    counts = {k: 0 for k in kinds}
    work = tempfile.mkdtemp(prefix="nsdyn-mutants-")
    try:
        also = [(os.path.basename(f), open(f).read()) for f in a.also]
        for k in range(len(also) + a.n):
            if k < len(also):
                name, mutant = also[k]
            else:
                name, text = rng.choice(bases)
                mutant = mutate(text, rng)
            path = os.path.join(work, "m.toml")
            with open(path, "w") as f:
                f.write(mutant)
            kind, why = classify(a.nsdyn, path, "[[variant]]" in mutant, work, a.timeout)
            counts[kind] += 1
            if kind in BAD or kind == "stopped by Ctrl-C":
                print("%s: mutant %d of %s: %s" % (kind, k, name, why.strip()[:300]))
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    shutil.copy(path, os.path.join(a.keep, "%s-%d-%s" % (kind.replace(" ", "_"), k, name)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| tried | " + " | ".join(kinds) + " |")
    print("| --- " * (len(kinds) + 1) + "|")
    print("| %d | %s |" % (len(a.also) + a.n, " | ".join(str(counts[k]) for k in kinds)))
    return 1 if a.strict and any(counts[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
