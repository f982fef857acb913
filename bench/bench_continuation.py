#!/usr/bin/env python3
"""Old build against new on a continuation (`nsdyn periodic` of a config with
[periodic.continuation], docs/periodic.md), interleaved A B A B ... so drift in
the machine's load hits both alike. Prints each build's wall and CPU (user +
sys of the process) seconds as median (min - max), the ratio new/old pair by
pair, and the load average before and after (issue 21 item 1: the points change
their parameter in one data on the opened config's model instead of creating a
scenario each).

    python3 bench/bench_continuation.py OLD_BUILD NEW_BUILD [--pairs N] [--config TOML]
"""
import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def one(build: str, cfg: str, out: pathlib.Path) -> tuple:
    """One continuation into a fresh folder: (wall s, cpu s)."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run([f"{build}/core/nsdyn", "periodic", cfg, "-o", str(out), "--set",
                        "plot.enabled=false"], capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"bench_continuation.py: the run of {build} failed:\n{p.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def spread(xs) -> str:
    return f"{statistics.median(xs):.3f} ({min(xs):.3f} - {max(xs):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--config", default=str(ROOT / "configs" / "impact_oscillator_grazing.toml"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out"
        print(f"before: load {os.getloadavg()}")
        one(a.old, a.config, out), one(a.new, a.config, out)  # warm-up: page cache, plugins
        old, new = [], []
        for _ in range(a.pairs):
            old.append(one(a.old, a.config, out))
            new.append(one(a.new, a.config, out))
        print(f"after:  load {os.getloadavg()}")
    print(f"{a.config}: {a.pairs} pairs")
    for k, name in ((0, "wall s"), (1, "cpu s")):
        print(f"  {name:7s} old {spread([r[k] for r in old])}  new {spread([r[k] for r in new])}"
              f"  new/old {spread([b[k] / x[k] for x, b in zip(old, new)])}")


if __name__ == "__main__":
    main()
