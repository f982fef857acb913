#!/usr/bin/env python3
"""Worked example (docs/python.md): the passive walker of the Hunt-Crossley
/ LuGre paper (/work/shared/papers/passive-walker-hunt-crossley-lugre.txt,
docs/walker.md), its Figures 10 and 11 from Python.

  Figure 10: leg 1's phase portrait theta1-omega1, the double-support
             phase drawn thick;
  Figure 11: foot 1's normal and friction force over one step: an impact
             peak of about 520 N at heel strike, then the stance load.

    python3 python/examples/walker_figures.py [--out DIR]

Writes DIR/walker_fig10_fig11.png (default: out/python-example) and checks
what the figures show: the gait is periodic (step lengths agree to 1e-3
relative over the last steps), and the impact peak of the normal force is
the paper's (about 520 N; 450-600 N accepted, the paper gives it only as
a graph)."""
import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))  # the package, when not installed
import nsdyn  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="out/python-example")
a = ap.parse_args()

model = nsdyn.load(here.parent.parent / "configs" / "walker2_gait.toml")
r = model.run()  # the config's t_end: about 12 steps
print(r.summary_line)

t, th1, om1 = r["t"], r["theta1"], r["omega1"]
ds = r["double_support"] > 0.5
N, Ft = r["foot1.N"], r["foot1.Ft1"]
strikes = r.events["t"][r.events["kind"] == "switch"] if len(r.events) else np.array([])

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
ax1.plot(th1, om1, lw=0.8, color="C0", label="single support")
ax1.plot(np.where(ds, th1, np.nan), np.where(ds, om1, np.nan), lw=2.6, color="C3",
         label="double support")
ax1.set_xlabel(r"$\theta_1$ [rad]")
ax1.set_ylabel(r"$\dot\theta_1$ [rad/s]")
ax1.set_title("leg 1: phase portrait (paper Fig. 10)")
ax1.legend(loc="best", fontsize=8)

# the last full stance of foot 1: from the last rise of N above zero
on = np.flatnonzero((N[1:] > 0) & (N[:-1] <= 0)) + 1
i0 = on[-2] if len(on) >= 2 else 0
i1 = on[-1] if len(on) >= 2 else len(t) - 1
sl = slice(max(i0 - 20, 0), i1)
ax2.plot(t[sl], N[sl], color="C0", label=f"normal force [{r.units['foot1.N']}]")
ax2.plot(t[sl], Ft[sl], color="C1", label=f"friction force [{r.units['foot1.Ft1']}]")
ax2.set_xlabel(f"t [{r.units['t']}]")
ax2.set_ylabel("force [N]")
ax2.set_title("foot 1 over one stance (paper Fig. 11)")
ax2.legend(loc="best", fontsize=8)
fig.tight_layout()
out = pathlib.Path(a.out)
out.mkdir(parents=True, exist_ok=True)
fig.savefig(out / "walker_fig10_fig11.png", dpi=110)
print(f"wrote {out / 'walker_fig10_fig11.png'}")

peak = N[sl].max()
steps = r["step_length"]
last = steps[-1]
held = steps[t > t[-1] - 1.0]
print(f"impact peak of foot 1's normal force {peak:.0f} N (paper: about 520 N); "
      f"step length {last:.4f} m")
ok = 450 <= peak <= 600 and last > 0 and np.ptp(held) <= 1e-3 * abs(last)
sys.exit(0 if ok else 1)
