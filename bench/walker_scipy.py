#!/usr/bin/python3
"""The passive walker of configs/walker2_gait.toml, integrated with SciPy's
solve_ivp(method="BDF"): the reference of bench/bench_walker_scipy.sh.

Run with Debian's Python (/usr/bin/python3, packages python3-scipy and
python3-numpy; scripts/setup-bench.sh installs them):

    /usr/bin/python3 bench/walker_scipy.py [--rtol 1e-6] [--atol 1e-10]
        [--max-step 0] [--t-end 3] [--reps 5] [--json FILE] [--grid-dt 1e-3]

Model. The same equations as nsdyn's walker2 system (plugins/systems/walker2.c)
composed with the hunt_crossley contact law (plugins/contact/compliant.c) and
the lugre friction law (plugins/friction/lugre.c) by the host
(core/src/model/model_create.c), with the parameters of configs/walker2_gait.toml (the
walker's defaults: Tables 6-8, CoM position L#4; Table 7 contact and
friction). Equation numbers refer to P. C. Koop, C. Q. Wu, "Passive dynamic
biped walking - Part I", ASME J. Comput. Nonlinear Dyn. 8 (2013) 041007
(../shared/papers/passive-walker-hunt-crossley-lugre.txt); the errata are
those walker2.c applies and explains (inertia m(b^2 + r_g^2) in (3), the
second entry of (4), the y-velocity of (9)).

State (Appendix A's ten states, (19)), units m, rad, m/s, rad/s, m:
    y = [x_hip, y_hip, th1, th2, vx_hip, vy_hip, w1, w2, z1, z2].
The frame is the ramp's: x down the ramp, y along its normal, ramp surface
y = 0.

Discrete mode (stepping stones, Sec. 2.3): the stance foot and a
double-support flag. In single support only the stance foot makes contact
force; in double support both feet do. A foot that makes no force (switched
off, or off the ground) holds its LuGre state z (rate 0), as the host does.

Events, in the host's order (stop conditions first, then the system's
switches; all count falling crossings only, all terminal):
    0 fall               y_hip - fall_height * l
    1 leg_angle          pi/2 - max(|th1|, |th2|)
    2 heel_strike        c_y(swing) in single support while the swing leg
                         leads by more than alpha0, else -l
    3 double_support_end N(old stance) - n_lift in double support,
                         else 1 + (M + 2m) g
A switch event ends the solve_ivp call; the mode is updated exactly as
walker2.c's on_switch() does (a heel-strike crossing that is not a strike
leaves the mode as it is), and a new solve_ivp call starts from the event
state, as nsdyn's runner restarts CVODE (CVodeReInit) after every switch.

Timed: the integration only, i.e. the loop of solve_ivp calls from t = 0
to t_end with the mode switches between them (the solver's setup at each
restart included, as nsdyn's timing includes CVODE's). Not timed: building
the model, the initial state, printing. A first, untimed recording run with
dense output samples q on a grid (for the accuracy measure of
bench/walker_compare.py); every timed run must reproduce its final state.
"""

import argparse
import json
import math
import sys
import time

import numpy as np
import scipy
from scipy.integrate import solve_ivp

DEG = math.pi / 180.0

# Parameters as configs/walker2_gait.toml resolves them, in the config's
# units (the angles gamma, delta, alpha0 in degrees, like walker2's
# parameters). Keys "section.name" as bench_walker_bdf prints them, so that
# bench/walker_compare.py can check both runs use the same numbers.
PARAMS = {
    # [system] walker2 defaults: Table 6, Table 8 (L#4), Table 7 (alpha0),
    # validation-targets.md's start that walks.
    "system.l": 0.4143,          # m, leg length
    "system.rho": 0.0860,        # m, foot arc radius
    "system.delta": 0.0,         # deg, foot arc offset
    "system.gamma": 2.05,        # deg, ramp angle
    "system.m": 5.1587,          # kg, leg mass
    "system.M": 1.2826,          # kg, hip mass
    "system.b": 0.1930,          # m, hip to leg centre of mass
    "system.r_g": 0.1067,        # m, leg radius of gyration
    "system.g": 9.81,            # m/s^2
    "system.alpha0": 10.0,       # deg, least lead of the swing leg at a heel strike
    "system.mode0": 0,           # "auto": stance = the leg with the larger theta
    "system.theta1_0": 0.2,      # rad
    "system.theta2_0": -0.2,     # rad
    "system.omega1_0": -1.5,     # rad/s
    "system.omega2_0": -1.0,     # rad/s
    "system.h0": 2.45e-3,        # m, initial penetration of the stance foot
    "system.n_lift": 1e-3,       # N, end of double support
    "system.fall_height": 0.5,   # fraction of l
    # [contact] hunt_crossley, Table 7: F = k h^n + c h^p h'^q, (12)-(13)
    "contact.k": 9.3920e5,       # N/m^(3/2)
    "contact.c": 1.6879e7,       # N s/m^(5/2)
    "contact.n": 1.5,
    "contact.p": 1.5,
    "contact.q": 1.0,
    # [friction] lugre, normalized by the normal force, Table 7: (14)-(16)
    "friction.sigma0": 1.0e5,              # 1/m
    "friction.sigma1": 632.4555320336759,  # s/m, 2 sqrt(sigma0)
    "friction.sigma2": 0.0,                # s/m
    "friction.mu_s": 0.38,
    "friction.mu_k": 0.30,
    "friction.v_s": 1.0e-4,                # m/s
}

EVENT_NAMES = ("fall", "leg_angle", "heel_strike", "double_support_end")
N_STOPS = 2


class Walker:
    """walker2 + hunt_crossley + lugre as the nsdyn host composes them."""

    def __init__(self, p):
        if p["contact.n"] != 1.5 or p["contact.p"] != 1.5 or p["contact.q"] != 1.0:
            raise ValueError("this model is written for Hunt-Crossley n = p = 3/2, q = 1")
        if p["system.mode0"] != 0:
            raise ValueError("this model is written for mode0 = auto")
        self.l, self.rho = p["system.l"], p["system.rho"]
        self.delta = p["system.delta"] * DEG
        self.gamma = p["system.gamma"] * DEG
        self.m, self.M = p["system.m"], p["system.M"]
        self.b, self.rg, self.g = p["system.b"], p["system.r_g"], p["system.g"]
        self.alpha0 = p["system.alpha0"] * DEG
        self.th0 = (p["system.theta1_0"], p["system.theta2_0"])
        self.w0 = (p["system.omega1_0"], p["system.omega2_0"])
        self.h0, self.n_lift = p["system.h0"], p["system.n_lift"]
        self.fall = p["system.fall_height"]
        self.k, self.c = p["contact.k"], p["contact.c"]
        self.sigma0, self.sigma1, self.sigma2 = (p["friction.sigma0"], p["friction.sigma1"],
                                                 p["friction.sigma2"])
        self.mu_s, self.mu_c, self.v_s = p["friction.mu_s"], p["friction.mu_k"], p["friction.v_s"]
        # Derived, as walker2.c's create()
        self.mt = self.M + 2.0 * self.m                      # kg, M + 2m
        self.J = self.m * (self.b ** 2 + self.rg ** 2)       # kg m^2, leg about the hip, (3) corrected
        self.mb = self.m * self.b                            # kg m
        self.sg, self.cg = math.sin(self.gamma), math.cos(self.gamma)
        self.sdel, self.cdel = math.sin(self.delta), math.cos(self.delta)
        self.kappa = self.mb ** 2 / self.mt                  # kg m^2, (mb)^2/(M + 2m)
        self.stance0 = 1 if self.th0[1] > self.th0[0] else 0  # "auto": the leg with the larger theta
        self.rhs_calls = 0
        self.reset()

    def reset(self):
        """Initial mode: single support on stance0; no steps yet."""
        self.stance, self.dbl = self.stance0, False
        self.steps = 0

    # ---- geometry ------------------------------------------------------

    def leg(self, s, c):
        """Foot of a leg from s = sin th, c = cos th: its contact point
        minus the hip (8), (cx, cy) [m], and the Jacobian entries of the
        contact point's normal velocity, a = d c_y/d th (from differentiating
        (8); the y-velocity of (9) has two sign errors), and of its sliding
        velocity, bt ((9), (17)), both in m/rad."""
        sd = s * self.cdel - c * self.sdel       # sin(th - delta)
        cd = c * self.cdel + s * self.sdel       # cos(th - delta)
        cx = self.l * s - self.rho * sd
        cy = -self.l * c + self.rho * (cd - 1.0)
        bt = self.l * c - self.rho * cd + self.rho
        return cx, cy, cx, bt                    # a = cx = l sin th - rho sin(th - delta)

    def foot(self, th):
        return self.leg(math.sin(th), math.cos(th))

    def initial_state(self):
        """walker2's initial_state(): the stance foot sinks h0 into the ramp
        and rolls without slip (u = W v = 0); friction states zero."""
        s = self.stance0
        _, cy, a, bt = self.foot(self.th0[s])
        y = np.zeros(10)
        y[1] = -self.h0 - cy                     # c_y(stance) = -h0
        y[2], y[3] = self.th0
        y[6], y[7] = self.w0
        y[4] = -self.w0[s] * bt                  # no slip: u_t = 0
        y[5] = -self.w0[s] * a                   # constant penetration: u_n = 0
        return y

    # ---- contact forces -------------------------------------------------

    def force(self, on, gap, gap_rate, v, z):
        """Normal force N [N], friction force Ft [N] and bristle rate z'
        [m/s] of a foot, as core/src/model/model_create.c's contact_forces() composes
        them from walker2's contacts(), hunt_crossley and lugre.
        on: the foot may make force in this mode; gap = c_y [m] of (8) and
        its rate [m/s]; v: slip [m/s] (17); z: bristle deflection [m]."""
        if not on:
            return 0.0, 0.0, 0.0                 # switched off in this mode: z held
        h = -gap                                 # penetration (10)
        if not h > 0.0:
            return 0.0, 0.0, 0.0                 # off the ground: no force, z held
        h32 = h * math.sqrt(h)
        N = self.k * h32 + self.c * h32 * -gap_rate   # (12) as k h^3/2 + c h^3/2 h', h' of (11)
        if not N > 0.0:
            return 0.0, 0.0, 0.0                 # (13): no pulling force; z held
        sv = abs(v)
        r = sv / self.v_s
        gL = self.mu_c + (self.mu_s - self.mu_c) * math.exp(-r * r)   # (16)
        zdot = v - self.sigma0 * sv / gL * z                            # (15)
        Ft = -(self.sigma0 * z + self.sigma1 * zdot + self.sigma2 * v) * N  # (14), normalized by N
        return N, Ft, zdot

    def contact(self, i, y):
        """force() of foot i at state y."""
        _, cy, a, bt = self.foot(y[2 + i])
        om = y[6 + i]
        return self.force(self.dbl or i == self.stance, y[1] + cy, y[5] + om * a,
                          y[4] + om * bt, y[8 + i])

    # ---- right-hand side (18) / (A1)-(A5) ------------------------------

    def rhs(self, t, y):
        self.rhs_calls += 1
        _, yh, th1, th2, vx, vy, w1, w2, z1, z2 = y.tolist()   # plain floats: faster than numpy scalars
        s1, c1, s2, c2 = math.sin(th1), math.cos(th1), math.sin(th2), math.cos(th2)
        _, cy1, a1, bt1 = self.leg(s1, c1)
        _, cy2, a2, bt2 = self.leg(s2, c2)
        N1, F1, zd1 = self.force(self.dbl or self.stance == 0, yh + cy1, vy + w1 * a1,
                                 vx + w1 * bt1, z1)
        N2, F2, zd2 = self.force(self.dbl or self.stance == 1, yh + cy2, vy + w2 * a2,
                                 vx + w2 * bt2, z2)
        mb, mt, g = self.mb, self.mt, self.g
        # F - H - G of (1), written out as (A20) with (6) = W^T (N, Ft):
        fx = mb * (w1 * w1 * s1 + w2 * w2 * s2) + mt * g * self.sg + F1 + F2
        fy = -mb * (w1 * w1 * c1 + w2 * w2 * c2) - mt * g * self.cg + N1 + N2
        ft1 = -mb * g * math.sin(th1 - self.gamma) + N1 * a1 + F1 * bt1
        ft2 = -mb * g * math.sin(th2 - self.gamma) + N2 * a2 + F2 * bt2
        # M(q) q'' = F - H - G with M of (3): block elimination of the hip
        # coordinates (the closed-form inverse (A8)-(A19) in another form):
        # Schur complement S = [[J - kappa, -kappa C], [-kappa C, J - kappa]].
        kappa = self.kappa
        C = c1 * c2 + s1 * s2                    # cos(th1 - th2), C_m of (A14)
        r1 = ft1 - mb * (c1 * fx + s1 * fy) / mt
        r2 = ft2 - mb * (c2 * fx + s2 * fy) / mt
        d = self.J - kappa
        det = d * d - kappa * kappa * C * C
        al1 = (d * r1 + kappa * C * r2) / det    # th1'' [rad/s^2]
        al2 = (kappa * C * r1 + d * r2) / det    # th2''
        ax = (fx - mb * (c1 * al1 + c2 * al2)) / mt   # x_hip'' [m/s^2]
        ay = (fy - mb * (s1 * al1 + s2 * al2)) / mt   # y_hip''
        return np.array([vx, vy, w1, w2, ax, ay, al1, al2, zd1, zd2])

    # ---- events ----------------------------------------------------------

    def lead(self, y):
        """Lead of the swing leg over the stance leg [rad]."""
        return y[2 + (1 - self.stance)] - y[2 + self.stance]

    def ev_fall(self, t, y):
        return y[1] - self.fall * self.l

    def ev_leg_angle(self, t, y):
        return 0.5 * math.pi - max(abs(y[2]), abs(y[3]))

    def ev_heel_strike(self, t, y):
        # A negative constant outside single support with lead > alpha0:
        # see walker2.c's header for why (no false falling jump in mid-swing).
        if not self.dbl and self.lead(y) > self.alpha0:
            return y[1] + self.foot(y[2 + (1 - self.stance)])[1]
        return -self.l

    def ev_double_support_end(self, t, y):
        if self.dbl:
            return self.contact(self.stance, y)[0] - self.n_lift
        return 1.0 + self.mt * self.g

    def events(self):
        evs = [self.ev_fall, self.ev_leg_angle, self.ev_heel_strike, self.ev_double_support_end]
        for e in evs:
            e.__func__.terminal = True
            e.__func__.direction = -1
        return evs

    def on_switch(self, index, t, y):
        """walker2.c's on_switch(); returns True when the mode changed.
        index: 0 heel_strike, 1 double_support_end (switch numbering)."""
        if index == 0:
            cy = y[1] + self.foot(y[2 + (1 - self.stance)])[1]
            if self.dbl or not self.lead(y) > self.alpha0 or cy > 1e-6 * self.l:
                return False                     # not a strike: the mode stays
            self.steps += 1
            self.dbl = True
            return True
        if not self.dbl:
            return False
        self.dbl = False
        self.stance = 1 - self.stance            # single support on the foot that struck
        return True


def simulate(w, t_end, rtol, atol, max_step, grid_dt=None):
    """Integrate from the initial state to t_end with solve_ivp(BDF),
    restarting at every switch. Returns a result dict (without timing).
    grid_dt: also sample q on the grid t_k = k grid_dt from the solver's
    dense output (for the accuracy measure; dense output does not change
    the steps, but costs time, so the timed runs go without)."""
    w.reset()
    w.rhs_calls = 0
    y = w.initial_state()
    t = 0.0
    evs = w.events()
    opts = dict(method="BDF", rtol=rtol, atol=atol, events=evs, dense_output=grid_dt is not None)
    if max_step > 0:
        opts["max_step"] = max_step
    grid = []
    steps = njev = nlu = 0
    log, outcome, message = [], "complete", ""
    while t < t_end:
        sol = solve_ivp(w.rhs, (t, t_end), y, **opts)
        steps += len(sol.t) - 1
        njev += sol.njev
        nlu += sol.nlu
        if sol.status < 0:
            outcome, message = "failed", sol.message
            break
        if grid_dt is not None:
            while len(grid) * grid_dt <= sol.t[-1] + 1e-9 * grid_dt:
                tk = min(len(grid) * grid_dt, sol.t[-1])
                grid.append([float(v) for v in sol.sol(tk)[:4]])
        t, y = float(sol.t[-1]), sol.y[:, -1].copy()
        if sol.status == 0:
            break
        # A terminal event: the one located at sol.t[-1] (lowest index on a tie, as bdf.c).
        fired = min(i for i, te in enumerate(sol.t_events) if len(te) and te[-1] == sol.t[-1])
        if fired < N_STOPS:
            outcome, message = "stopped", f"stop condition '{EVENT_NAMES[fired]}' at t = {t:.9g} s"
            break
        applied = w.on_switch(fired - N_STOPS, t, y)
        log.append({"t": t, "event": EVENT_NAMES[fired], "applied": applied})
    return {
        "outcome": outcome, "message": message, "t": t, "y": [float(v) for v in y],
        "steps": steps, "rhs_evals": w.rhs_calls, "jacobian_evals": njev, "lu_decompositions": nlu,
        "switches": log, "heel_strikes": w.steps, "grid_dt": grid_dt, "grid_q": grid,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--max-step", type=float, default=0.0, help="s; 0 = unlimited (default)")
    ap.add_argument("--t-end", type=float, default=3.0, help="s (default 3: six steps)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions, best of (default 5)")
    ap.add_argument("--json", help="write the result to this file")
    ap.add_argument("--grid-dt", type=float, default=1e-3,
                    help="s, grid of the recorded q (default 1e-3)")
    a = ap.parse_args()

    w = Walker(PARAMS)
    # Recording run (untimed; also the warm-up): switches and the q grid.
    res = simulate(w, a.t_end, a.rtol, a.atol, a.max_step, grid_dt=a.grid_dt)
    walls = []
    for _ in range(max(a.reps, 1)):
        t0 = time.perf_counter()
        r = simulate(w, a.t_end, a.rtol, a.atol, a.max_step)
        walls.append(time.perf_counter() - t0)
        if r["y"] != res["y"] or r["steps"] != res["steps"]:
            print("FAIL: a timed run differs from the recording run", file=sys.stderr)
            return 1
    res.update({
        "solver": f"scipy {scipy.__version__} solve_ivp BDF (numpy {np.__version__}, "
                  f"Python {sys.version.split()[0]})",
        "rtol": a.rtol, "atol": a.atol, "max_step": a.max_step, "t_end": a.t_end,
        "wall_best": min(walls), "wall_median": float(np.median(walls)), "walls": walls,
        "y0": [float(v) for v in w.initial_state()], "params": PARAMS,
    })
    print(f"{res['solver']}: rtol {a.rtol:g}, atol {a.atol:g}, max_step "
          f"{a.max_step if a.max_step > 0 else 'unlimited'}, t = 0 .. {a.t_end:g} s")
    print(f"  outcome {res['outcome']} {res['message']}")
    print(f"  wall time best {res['wall_best'] * 1e3:.1f} ms, median {res['wall_median'] * 1e3:.1f} ms "
          f"({len(walls)} runs)")
    print(f"  steps {res['steps']}, rhs evaluations {res['rhs_evals']} (Jacobian columns included), "
          f"Jacobians {res['jacobian_evals']}, LU {res['lu_decompositions']}")
    hs = [e["t"] for e in res["switches"] if e["event"] == "heel_strike" and e["applied"]]
    print(f"  heel strikes {len(hs)} at t = " + ", ".join(f"{x:.6f}" for x in hs) + " s")
    print("  final state " + ", ".join(f"{v:.9g}" for v in res["y"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0 if res["outcome"] == "complete" else 1


if __name__ == "__main__":
    sys.exit(main())
