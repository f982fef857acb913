#!/usr/bin/env python3
"""A shipped config run with its default graphs against the same run without them
(issue 26, item 2: "a short run with default graphs at most 2x a run without them"),
interleaved pair by pair as whole processes; CPU is user + sys of the child (wait4).

    python3 bench/bench_graphs_ratio.py [--build BUILD] [-n PAIRS] CONFIG...
"""
import argparse, os, pathlib, statistics, subprocess, tempfile, time


def once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)}: failed")
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--build", default=str(root / "build"))
    ap.add_argument("-n", type=int, default=10, help="pairs (default 10)")
    a = ap.parse_args()
    nsdyn = str(pathlib.Path(a.build) / "core" / "nsdyn")
    out = os.path.join(tempfile.mkdtemp(prefix="nsdyn_graphs_"), "o")
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for cfg in a.configs:
        rc, rw, wa, wb = [], [], [], []
        for i in range(a.n + 1):  # the first pair warms the caches and is not counted
            w0, c0 = once([nsdyn, "run", cfg, "-o", out, "-q", "--set", "plot.enabled=false"])
            w1, c1 = once([nsdyn, "run", cfg, "-o", out, "-q"])
            if i and c0 > 0:
                rc.append(c1 / c0)
                rw.append(w1 / w0)
                wa.append(w0)
                wb.append(w1)
        print(f"{os.path.basename(cfg)}: CPU ratio {statistics.median(rc):.2f} "
              f"({min(rc):.2f}-{max(rc):.2f}), wall ratio {statistics.median(rw):.2f} "
              f"({min(rw):.2f}-{max(rw):.2f}); wall medians {1e3 * statistics.median(wa):.1f} "
              f"/ {1e3 * statistics.median(wb):.1f} ms")
    print("uptime after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    subprocess.run(["rm", "-rf", os.path.dirname(out)])


if __name__ == "__main__":
    main()
