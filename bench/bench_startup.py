#!/usr/bin/env python3
"""Start-up of `nsdyn run` without plots (issue 28, round 3; issue 26: the
heavy libraries in modules opened only where used, core/src/module/): the
plugin SHA-256 cache (core/src/plugins/sha256_cache.c) against hashing every
plugin file at every start, optionally against another build, and the same
short run with its default graphs.

    python3 bench/bench_startup.py [BUILD_DIR] [--old NSDYN] [--graphs] [--format FMT]... [-n PAIRS]

A tiny run (impact oscillator, dopri5, t_end = 1 ms, [plot] off) is timed as
a whole process, interleaved A B (C) A B (C) ...: A the build with its hash
cache, B the same build with NSDYN_NO_HASH_CACHE=1 (every file hashed, the
behaviour before the cache), C an older nsdyn if given, D (--graphs) the
build on the same run with [plot] left to its defaults (every run graph;
svg-text since issue 26's round 7, PNG before), E (--old and --graphs) the older nsdyn on that
run, and per --format FMT (png, svg, pdf, svg-text) the build on that run with
`[plot] format = FMT` (F: the graphs' options, each against A; G: the older nsdyn on
it, with --old). Targets: A <= 5 ms
of start-up; D <= 2 A. Per command: wall and
CPU (user + sys of the child, from wait4) as min / median / max, and the
pair-by-pair CPU ratio A/B; the machine load (uptime) before and after.
"""
import argparse, os, pathlib, statistics, subprocess, sys, tempfile, time

CONFIG = """[system]
id = "impact_oscillator"
[contact]
id = "newton"
e = 0.8
[integrator]
id = "dopri5"
[run]
t_end = 0.001
progress = false
[plot]
enabled = false
"""


def once(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.read().decode()}")
    return wall, ru.ru_utime + ru.ru_stime


def spread(xs):
    return f"{1e3 * min(xs):8.2f} {1e3 * statistics.median(xs):8.2f} {1e3 * max(xs):8.2f}"


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=str(root / "build"))
    ap.add_argument("--old", help="another nsdyn to time beside it")
    ap.add_argument("--graphs", action="store_true", help="time the run with its default graphs")
    ap.add_argument("--format", action="append", default=[],
                    help="also time the graphs in this [plot] format (repeatable)")
    ap.add_argument("-n", type=int, default=30, help="pairs (default 30)")
    a = ap.parse_args()
    nsdyn = str(pathlib.Path(a.build) / "core" / "nsdyn")
    tmp = tempfile.mkdtemp(prefix="nsdyn_startup_")
    cfg = os.path.join(tmp, "tiny.toml")
    open(cfg, "w").write(CONFIG)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"), NSDYN_NO_HASH_CACHE="0")
    graphs = os.path.join(tmp, "graphs.toml")
    open(graphs, "w").write(CONFIG[: CONFIG.index("[plot]")])
    cmds = {"A cached": ([nsdyn], env, cfg),
            "B hashed": ([nsdyn], dict(env, NSDYN_NO_HASH_CACHE="1"), cfg)}
    if a.old:
        cmds["C old"] = ([a.old], env, cfg)
    if a.graphs:
        cmds["D graphs"] = ([nsdyn], env, graphs)
    if a.graphs and a.old:
        cmds["E old gr."] = ([a.old], env, graphs)
    for fmt in a.format:
        path = os.path.join(tmp, f"graphs_{fmt}.toml")
        open(path, "w").write(CONFIG[: CONFIG.index("[plot]")] + f'[plot]\nformat = "{fmt}"\n')
        cmds[f"F {fmt}"] = ([nsdyn], env, path)
        if a.old:
            cmds[f"G old {fmt}"] = ([a.old], env, path)
    print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    res = {k: ([], []) for k in cmds}
    for i in range(a.n + 1):  # the first round warms the caches and is not counted
        for k, (exe, e, conf) in cmds.items():
            w, c = once(exe + ["run", conf, "-o", os.path.join(tmp, "o"), "-q"], e)
            if i:
                res[k][0].append(w)
                res[k][1].append(c)
    print("uptime after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{a.n} rounds; [ms]              min   median      max")
    for k, (w, c) in res.items():
        print(f"{k:14s} wall {spread(w)}")
        print(f"{k:14s} cpu  {spread(c)}")
    ca, cb = res["A cached"][1], res["B hashed"][1]
    r = [x / y for x, y in zip(ca, cb) if y > 0]
    print(f"cpu A/B pair by pair: min {min(r):.3f} median {statistics.median(r):.3f} max {max(r):.3f}")
    pairs = (("C old", "A/C", ca), ("D graphs", "D/A", ca),
             ("E old gr.", "D/E", res.get("D graphs", ([], []))[1]),
             ("E old gr.", "E/C", res.get("C old", ([], []))[1]))
    pairs += tuple((f"F {fmt}", f"{fmt}/A", ca) for fmt in a.format)
    pairs += tuple((f"G old {fmt}", f"{fmt}: F/G", res[f"F {fmt}"][1])
                   for fmt in a.format if a.old)
    for k, name, base in pairs:
        if k not in res:
            continue
        x, y = (base, res[k][1]) if name in ("A/C", "D/E") or "F/G" in name else (res[k][1], base)
        r = [p / q for p, q in zip(x, y) if q > 0]
        print(f"cpu {name} pair by pair: min {min(r):.3f} median {statistics.median(r):.3f} "
              f"max {max(r):.3f}")
        if name == "D/A" or k.startswith("F "):  # the graphs' cost: wall too
            w = [p / q for p, q in zip(res[k][0], res["A cached"][0]) if q > 0]
            print(f"wall {name} pair by pair: min {min(w):.3f} median {statistics.median(w):.3f} "
                  f"max {max(w):.3f}")
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
