#!/usr/bin/python3
"""nsdyn's bdf against SciPy's solve_ivp(method="BDF") on the passive walker:
runs both, checks that they integrate the same equations and agree, measures
each one's accuracy against a tight reference, and prints the speed ratio.
Called by bench/bench_walker_scipy.sh (see bench/README.md); run it with
Debian's /usr/bin/python3 (python3-scipy).

    walker_compare.py --driver BUILD/bench/bench_walker_bdf
        [--config configs/walker2_gait.toml] [--t-end 3] [--rtol 1e-6]
        [--atol 1e-10] [--max-step 0] [--reps 15] [--scipy-reps 5]
        [--target 20] [--keep DIR]

Runs (each prints its own report; JSON files go to a temporary directory):
  reference  nsdyn bdf at rtol 1e-10, atol 1e-14 (differs from rtol 1e-12
             by about 3e-9 rad): the "exact" trajectory.
  validation SciPy at the same tight tolerances. It must match the
             reference to VALIDATE_TOL on the grid: the two programs
             integrate the same equations, parameters, start and switches.
  nsdyn      bdf at --rtol/--atol/--max-step, best of --reps.
  SciPy      solve_ivp BDF at the same tolerances, best of --scipy-reps.
  ladder     nsdyn at tighter rtol (1-2-5 steps), down to the loosest one
             that is at least as accurate as SciPy at --rtol; then, for
             information, SciPy at looser rtol up to the loosest one that is
             still as accurate as nsdyn at --rtol.

Accuracy of a run: e_theta = max over the 1 ms grid of |theta_i - theta_i^ref|
(i = 1, 2; rad; from each solver's dense output), and e_hs = max over the
heel strikes of |t_hs - t_hs^ref| (s).

Checks (exit status 1 if one fails): the parameters and initial states of
the C and Python models are identical; the validation run matches the
reference; at --rtol both runs take the same switch sequence (same heel
strikes), agree with each other to AGREE_FACTOR * rtol on the grid, and
each is within AGREE_FACTOR * rtol of the reference.

Speed: the ratio SciPy time / nsdyn time at the same accuracy (SciPy at
--rtol, as the issue fixes its tolerances; nsdyn at the loosest ladder rtol
whose e_theta is at most SciPy's; both times best of their repetitions) is
printed with PASS or FAIL against --target. Also printed: the ratio at the
same tolerances, and the ratio at nsdyn's accuracy at --rtol (SciPy
loosened). The speed result does not change
the exit status (timings depend on the machine).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REF_RTOL, REF_ATOL = 1e-10, 1e-14
VALIDATE_TOL = 1e-7     # rad: SciPy at rtol 1e-10 against the reference
AGREE_FACTOR = 100.0    # grid agreement at rtol r: |d theta| <= 100 r rad (6 steps of global error)


def run_nsdyn(a, tmp, name, rtol, atol, reps):
    path = os.path.join(tmp, f"nsdyn_{name}.json")
    cmd = [a.driver, a.config, "--set", f"run.t_end={a.t_end!r}",
           "--set", f"integrator.rtol={rtol!r}", "--set", f"integrator.atol={atol!r}",
           "--set", f"integrator.max_step={a.max_step!r}", "--reps", str(reps), "--json", path]
    subprocess.run(cmd, check=True)
    with open(path) as f:
        return json.load(f)


def run_scipy(a, tmp, name, rtol, atol, reps, must=True):
    """must: a run that does not complete stops the benchmark; otherwise
    (ladder) it comes back with outcome != "complete"."""
    path = os.path.join(tmp, f"scipy_{name}.json")
    cmd = [sys.executable, os.path.join(HERE, "walker_scipy.py"), "--rtol", repr(rtol),
           "--atol", repr(atol), "--max-step", repr(a.max_step), "--t-end", repr(a.t_end),
           "--reps", str(reps), "--json", path]
    done = subprocess.run(cmd, check=must)
    if done.returncode != 0 and not os.path.exists(path):
        return {"outcome": "failed"}
    with open(path) as f:
        return json.load(f)


def heel_strikes(r):
    return [e["t"] for e in r["switches"] if e["event"] == "heel_strike" and e["applied"]]


def switch_sequence(r):
    return [e["event"] for e in r["switches"] if e["applied"]]


def errors(r, ref):
    """(e_theta [rad], e_hs [s]) of run r against run ref."""
    gq, gr = r["grid_q"], ref["grid_q"]
    if len(gq) != len(gr):
        return math.inf, math.inf
    e_theta = max(max(abs(p[2] - q[2]), abs(p[3] - q[3])) for p, q in zip(gq, gr))
    hs, hr = heel_strikes(r), heel_strikes(ref)
    e_hs = max((abs(x - y) for x, y in zip(hs, hr)), default=0.0) if len(hs) == len(hr) else math.inf
    return e_theta, e_hs


def ladder(rtol, down=True):
    """Tolerances in 1-2-5 steps from rtol (excluded) down to the
    reference's, or up to 1e-3."""
    grid = [float(f"{m}e{k}") for k in range(-3, int(math.log10(REF_RTOL)) - 1, -1) for m in (5, 2, 1)]
    grid = [r for r in grid if REF_RTOL <= r <= 1e-3]
    if down:
        return [r for r in grid if r < rtol * (1 - 1e-9)]
    return sorted(r for r in grid if r > rtol * (1 + 1e-9))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--driver", required=True, help="path of the bench_walker_bdf executable")
    ap.add_argument("--config",
                    default=os.path.normpath(os.path.join(HERE, "..", "configs", "walker2_gait.toml")))
    ap.add_argument("--t-end", type=float, default=3.0, help="s (default 3: six steps)")
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--max-step", type=float, default=0.0, help="s; 0 = unlimited (default)")
    ap.add_argument("--reps", type=int, default=15, help="nsdyn repetitions, best of")
    ap.add_argument("--scipy-reps", type=int, default=5, help="SciPy repetitions, best of")
    ap.add_argument("--target", type=float, default=20.0)
    ap.add_argument("--keep", help="write the JSON results to this directory")
    a = ap.parse_args()

    tmp_ctx = None
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        tmp = a.keep
    else:
        tmp_ctx = tempfile.TemporaryDirectory(prefix="nsdyn-walker-bench-")
        tmp = tmp_ctx.name
    failures = []

    print("== reference: nsdyn bdf, rtol %g, atol %g" % (REF_RTOL, REF_ATOL))
    ref = run_nsdyn(a, tmp, "ref", REF_RTOL, REF_ATOL, 1)
    print("== validation: SciPy BDF at the reference's tolerances")
    val = run_scipy(a, tmp, "ref", REF_RTOL, REF_ATOL, 1)
    print(f"== nsdyn bdf at rtol {a.rtol:g}")
    nsd = run_nsdyn(a, tmp, "run", a.rtol, a.atol, a.reps)
    print(f"== SciPy BDF at rtol {a.rtol:g}")
    sci = run_scipy(a, tmp, "run", a.rtol, a.atol, a.scipy_reps)

    # Same model: parameters and initial state.
    bad = [k for k, v in val["params"].items()
           if k not in ref["params"] or abs(ref["params"][k] - v) > 1e-12 * max(1.0, abs(v))]
    if bad:
        failures.append("parameters differ between the C and Python models: " + ", ".join(bad))
    dy0 = max(abs(x - y) for x, y in zip(ref["y0"], val["y0"]))
    if dy0 > 1e-15:
        failures.append(f"initial states differ by {dy0:.3g}")

    e_val = errors(val, ref)
    e_nsd = errors(nsd, ref)
    e_sci = errors(sci, ref)
    e_ns = errors(nsd, sci)
    if not e_val[0] <= VALIDATE_TOL or switch_sequence(val) != switch_sequence(ref):
        failures.append(f"SciPy at rtol {REF_RTOL:g} differs from the reference by "
                        f"{e_val[0]:.3g} rad (limit {VALIDATE_TOL:g}) or in its switches")
    lim = AGREE_FACTOR * a.rtol
    if switch_sequence(nsd) != switch_sequence(sci):
        failures.append("nsdyn and SciPy take different switch sequences")
    for label, e in (("nsdyn vs SciPy", e_ns), ("nsdyn vs reference", e_nsd),
                     ("SciPy vs reference", e_sci)):
        if not e[0] <= lim:
            failures.append(f"{label}: max |d theta| = {e[0]:.3g} rad > {lim:.3g} rad")

    # Ladder: nsdyn at tighter tolerances until it is as accurate as SciPy.
    rows = [(a.rtol, nsd, e_nsd)]
    match = (a.rtol, nsd, e_nsd) if e_nsd[0] <= e_sci[0] else None
    for r in ([] if match else ladder(a.rtol)):
        print(f"== ladder: nsdyn bdf at rtol {r:g}")
        res = run_nsdyn(a, tmp, f"rtol{r:g}", r, a.atol, a.reps)
        e = errors(res, ref)
        rows.append((r, res, e))
        if e[0] <= e_sci[0]:
            match = (r, res, e)
            break
    # The other way round (information): SciPy at looser tolerances, up to
    # the loosest one still as accurate as nsdyn at --rtol.
    srows = [(a.rtol, sci, e_sci)]
    smatch = (a.rtol, sci, e_sci) if e_sci[0] <= e_nsd[0] else None
    for r in ([] if not smatch else ladder(a.rtol, down=False)):
        print(f"== ladder: SciPy BDF at rtol {r:g}")
        res = run_scipy(a, tmp, f"rtol{r:g}", r, a.atol, a.scipy_reps, must=False)
        if res["outcome"] != "complete":
            break
        e = errors(res, ref)
        srows.append((r, res, e))
        if not e[0] <= e_nsd[0]:
            break
        smatch = (r, res, e)

    ms = "unlimited" if not a.max_step > 0 else f"{a.max_step:g} s"
    print(f"\npassive walker ({os.path.basename(a.config)}), t = 0 .. {a.t_end:g} s, "
          f"atol {a.atol:g}, max_step {ms}")
    print(f"reference: nsdyn bdf rtol {REF_RTOL:g}, atol {REF_ATOL:g}; "
          f"{ref['heel_strikes']} heel strikes")
    print(f"validation: SciPy at the reference's tolerances differs from it by max |d theta| = "
          f"{e_val[0]:.2e} rad, heel strikes by {e_val[1]:.2e} s")
    print(f"nsdyn vs SciPy at rtol {a.rtol:g}: max |d theta| = {e_ns[0]:.2e} rad, heel strikes "
          f"{e_ns[1]:.2e} s, same switch sequence: {switch_sequence(nsd) == switch_sequence(sci)}")
    print()
    hdr = (f"{'run':<26} {'best [ms]':>10} {'median [ms]':>12} {'steps':>7} {'rhs evals':>10} "
           f"{'e_theta [rad]':>14} {'e_hs [s]':>10}")
    print(hdr)
    print("-" * len(hdr))

    def row(label, r, e):
        print(f"{label:<26} {1e3 * r['wall_best']:>10.2f} {1e3 * r['wall_median']:>12.2f} "
              f"{r['steps']:>7d} {r['rhs_evals']:>10d} {e[0]:>14.2e} {e[1]:>10.2e}")

    for r, res, e in srows:
        row(f"SciPy BDF rtol {r:g}", res, e)
    for r, res, e in rows:
        row(f"nsdyn bdf rtol {r:g}", res, e)
    print()
    same_tol = sci["wall_best"] / nsd["wall_best"]
    print(f"speed at the same tolerances (rtol {a.rtol:g}): SciPy / nsdyn = {same_tol:.1f}")
    if match:
        ratio = sci["wall_best"] / match[1]["wall_best"]
        print(f"speed at the same accuracy (nsdyn at rtol {match[0]:g}: e_theta {match[2][0]:.2e} <= "
              f"SciPy's {e_sci[0]:.2e} rad): SciPy / nsdyn = {ratio:.1f}: "
              f"{'PASS' if ratio >= a.target else 'FAIL'} (target >= {a.target:g})")
    else:
        print("speed at the same accuracy: nsdyn did not reach SciPy's accuracy on the ladder: FAIL")
    if smatch:
        print(f"  the other way round (information): SciPy at rtol {smatch[0]:g} (e_theta "
              f"{smatch[2][0]:.2e} <= nsdyn's {e_nsd[0]:.2e} rad at rtol {a.rtol:g}): SciPy / nsdyn = "
              f"{smatch[1]['wall_best'] / nsd['wall_best']:.1f}")

    if failures:
        print("\nchecks FAILED:")
        for f in failures:
            print("  " + f)
    else:
        print("\nchecks passed: same parameters and start, SciPy matches the reference at "
              f"rtol {REF_RTOL:g}, same switches, agreement within {lim:.3g} rad at rtol {a.rtol:g}")
    if tmp_ctx:
        tmp_ctx.cleanup()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
