#!/usr/bin/env python3
"""The host API's cost from Python (issue 24, bench/README.md).

1. A loop of N short runs (the bouncing ball of bouncing_ball_newton.toml
   to just after its first impact, t_end = 0.46 s, the restitution changed
   before each run, the rebound speed read from the events and the last vy
   from the samples) in Python with nsdyn.Model.run, against the same loop
   in C through the host API (bench_host_loop). Interleaved rounds; the
   per-run time's min/median/max of each, the ratio of medians, the load.
   Both loops must give the same checksum (same runs, same numbers).
2. Reading a run of 10^6 samples into NumPy: the time of Data.result()
   (one copy of the block) and the time of the run itself.

    bench_host_loop.py --c-loop BUILD/bench/bench_host_loop --lib BUILD/core/libnsdyn_host.so
                       --config configs/bouncing_ball_newton.toml [--runs 10000] [--rounds 5]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--c-loop", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--config", required=True)
ap.add_argument("--runs", type=int, default=10000)
ap.add_argument("--rounds", type=int, default=5)
a = ap.parse_args()
os.environ["NSDYN_HOST_LIB"] = a.lib
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import nsdyn  # noqa: E402


def py_loop(model, n):
    s, w0, c0 = 0.0, time.perf_counter(), time.process_time()
    for i in range(n):
        r = model.run(0.46, params={"contact.e": 0.3 + 0.6 * i / n})
        s += r.events["u_after"][0][0] + r["vy"][-1]
    return (time.perf_counter() - w0) / n, (time.process_time() - c0) / n, s


def c_loop(n):
    out = subprocess.run([a.c_loop, a.config, str(n)], check=True, capture_output=True, text=True)
    wall, cpu, s = out.stdout.split()
    return float(wall), float(cpu), float(s)


model = nsdyn.load(a.config)
py_loop(model, 200)  # warm-up
c_loop(200)
py, c, pyc, cc = [], [], [], []
for k in range(a.rounds):
    tp, cp, sp = py_loop(model, a.runs)
    tc, ccpu, sc = c_loop(a.runs)
    if abs(sp - sc) > 1e-9 * abs(sc):
        sys.exit(f"checksums differ: Python {sp!r}, C {sc!r}")
    py.append(tp)
    c.append(tc)
    pyc.append(cp)
    cc.append(ccpu)


def fmt(xs):
    return f"min {min(xs) * 1e6:7.1f}  median {statistics.median(xs) * 1e6:7.1f}  " \
           f"max {max(xs) * 1e6:7.1f} us/run"


print(f"{a.rounds} interleaved rounds of {a.runs} runs (bouncing ball to first impact, "
      f"contact.e changed each run)")
for clock, cs, ps in (("wall", c, py), ("CPU", cc, pyc)):
    print(f"  {clock:4} C      (host API)   {fmt(cs)}")
    print(f"  {clock:4} Python (nsdyn)      {fmt(ps)}")
    ratios = [p / q for p, q in zip(ps, cs)]
    print(f"  {clock:4} ratio Python / C per round: median {statistics.median(ratios):.2f} "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f}); target <= 1.5")

# 10^6 samples: output_dt = 1e-6 s over 1 s
big = nsdyn.load(a.config, **{"run.output_dt": 1e-6, "run.t_end": 1.0})
d = big.data()
w0 = time.perf_counter()
d.run()
t_run = time.perf_counter() - w0
reads = []
for _ in range(5):
    w0 = time.perf_counter()
    r = d.result()
    reads.append(time.perf_counter() - w0)
n = r.samples.shape[0]
print(f"10^6-sample run: {n} samples x {r.samples.shape[1]} channels; run {t_run:.3f} s; "
      f"into NumPy (one block copy, columns are views) min {min(reads) * 1e3:.1f} ms, "
      f"median {statistics.median(reads) * 1e3:.1f} ms, max {max(reads) * 1e3:.1f} ms "
      f"({min(reads) / n * 1e9:.1f} ns/sample)")
print("load:", open("/proc/loadavg").read().strip())
