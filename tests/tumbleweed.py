#!/usr/bin/env python3
"""The tumbleweed thesis's transitions and studies (docs/tumbleweed.md), through the CLI.

usage: tumbleweed.py NSDYN SOURCE_DIR

1. Each transition rule against a hand calculation, under both models (`model = "physical"`
   and `"thesis"`), over a few random angles, inertias, restitutions and speeds:
   - floor -> incline: a sphere rolling on the floor at v meets the incline (angle theta) with
     u_n = -v sin(theta) and u_t1 = -v (1 - cos(theta)); Kane's impact (2.46), (2.51), (2.59)-(2.65)
     with stick gives P_n = m (1 + e) v sin(theta), P_t1 = m v (1 - cos(theta)) k/(1 + k), k = J/(m b^2),
     u_n+ = e v sin(theta), u_t1+ = 0, and the floor carries no impulse;
   - decline -> floor: rolling down the decline from x0 at v0, it reaches the floor at V with
     V^2 = v0^2 + 2 g dz/(1 + k) ((3.25)-(3.26)), and meets it with u_n = -V sin(beta), u_t1 =
     -V (1 - cos(beta)); the same impulses with beta;
   - bouncing -> rolling: a rolling sphere dropped from h onto the floor ends the accumulation
     (Sec. 2.1.3, "until u5 = 0") rolling at the same vx, having lost exactly m g h of energy,
     at t = t1 (1 + 2 e/(1 - e)) (t1 = sqrt(2 h/g)) within the accumulation rule's bound.
   Tolerances: the impacts are located to 1e-12 s; the thesis model's plane switch fires
   1e-7 b before the corner's bisector, a free flight of about 1e-7 b/v s that changes u_n by
   g 1e-7 b/v (< 1e-7 m/s here): 1e-6 (relative to v) covers both.
2. Energy bookkeeping across every impact of the Sec. 4.2 and Case III/IV runs, both models and
   both spin readings: between two samples bracketing one impact, in flight or rolling (no
   sliding: no friction work), the energy drop equals the impulses' work
   P . (u- + u+)/2 (Kane's impulse-momentum (2.7) with the constant W), to 1e-6 of the energy
   scale (dopri5 at rtol 1e-10 conserves energy in flight to ~1e-9 relatively), and no impact
   gains energy.
3. The reduced study (configs/sweep_tumbleweed_reduced.toml), both models, both spin
   readings, and the thesis model with reading F (spin_flip): every graph's percentage
   crossed and mean height equal the values recomputed from the runs' own classification
   (the stop that ended each run: `crossed` or `rolled_back`), and each run's declared values
   agree with that classification. Reading F against reading B: a run of F whose only flip is
   the one on leaving the near rim, started fast enough to leave it at once (v0^2 > g b), is
   reading B's run (backspin0) and must give its outcome and height. Reading F's percentage
   crossed at J/m = 0.1 b^2 rises at every step of e (the regression of docs/tumbleweed.md Sec. 4).
4. Reading F (spin_flip, docs/tumbleweed.md Sec. 1.3), against hand calculations:
   - on a level floor, a sphere dropped from h with backspin wy = -v/b and e = 0: the flip at
     the start (it is in flight: Ch. 2) makes it roll in the air; the plastic impact at
     t1 = sqrt(2 h/g) gives no tangential impulse; the contact closes (Ch. 3) and the flip makes
     it slip at u_t1 = 2 v; Coulomb friction mu' brakes the slip at mu' g (1 + 1/k) (thesis
     (3.2)-(3.3)), so it rolls again at t1 + 2 v/(mu' g (1 + 1/k)) with vx = v (1 - k)/(1 + k)
     (angular momentum about the contact point). Tolerances: the 2-D slip ends at |u_t| =
     run.rest_velocity = 1e-5 m/s (docs/event-driven.md), early by 1e-5/(mu' g (1 + 1/k)) s, and
     its projection changes vx by at most 1e-5 m/s. The control: without spin_flip, the same
     flight with the rolling spin the first flip gives rolls on at v (the checks can fail).
   - in the Sec. 4.2 and Case III/IV runs (and at e = 0.6, more accumulations): one
     system_reset in events.csv at each change between "some contact closed" (Ch. 3) and
     "all open" (Ch. 2), counted from the log's close/rest/open records (the start counts as
     Ch. 3), none elsewhere; each keeps u_n and u_t2 (only wy flips) and the energy
     (run.toml system_reset_energy = 0); after a flip onto a closed contact that leaves it
     slipping, the host chose the modes again (a slip record at the same instant).
"""
import csv
import math
import os
import random
import sqlite3
import subprocess
import sys
import tempfile

NSDYN, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="nsdyn_tumbleweed_")
FAIL = []


def check(cond, msg):
    if not cond:
        FAIL.append(msg)
        print("FAIL:", msg)


def run(cfg, tag, sets):
    out = os.path.join(TMP, tag)
    args = [NSDYN, "run", os.path.join(SRC, "configs", cfg), "-o", out, "--set", "plot.enabled=false"]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    events = list(csv.DictReader(open(os.path.join(out, "events.csv"))))
    series = list(csv.DictReader(open(os.path.join(out, "timeseries.csv"))))
    return events, series


def num(row, key):
    for k, v in row.items():
        if k.split(" ")[0] == key:
            return float(v)
    raise KeyError(key)


def first_impact(events, contact):
    for e in events:
        if e["contact"] == contact and e["kind"] == "impact":
            return e
    return None


def impact_closed_form(v, ang, k, e):
    """Single-plane Kane impact of a sphere rolling along the previous plane at v onto a plane
    turned up by ang (rad), m = 1 kg: (u_n-, u_t1-, P_n, P_t1, u_n+)."""
    un = -v * math.sin(ang)
    ut = -v * (1 - math.cos(ang))
    return un, ut, -(1 + e) * un, -ut * k / (1 + k), -e * un


def compare_impact(ev, cf, v, what):
    names = ["u_n_before", "u_t1_before", "P_n", "P_t1", "u_n_after"]
    for name, want in zip(names, cf):
        got = num(ev, name)
        check(abs(got - want) <= 1e-6 * v, f"{what}: {name} = {got:.12g}, hand calculation {want:.12g}")
    check(abs(num(ev, "u_t1_after")) <= 1e-6 * v, f"{what}: u_t1 after = {num(ev, 'u_t1_after')}")


def transitions():
    rnd = random.Random(16)
    for case in range(4):
        th = rnd.uniform(10, 40)
        k = rnd.choice([0.1, 0.4, 0.67])
        e = rnd.uniform(0.6, 0.95)
        v = rnd.uniform(1.0, 4.0)
        for model in ("physical", "thesis"):
            what = f"floor->incline {model} theta={th:.2f} k={k} e={e:.3f} v={v:.3f}"
            sets = [f'system.model="{model}"', f"system.theta={th}", f"system.beta={th}",
                    f"system.j_over_m={k}", f"contact.e={e}", f"system.v0={v}",
                    f"system.x0={10 / math.tan(math.radians(th)) + 22}", "run.t_end=10"]
            events, _ = run("tumbleweed_sec42_thesis.toml", f"fi{case}{model}", sets)
            ev = first_impact(events, "incline")
            check(ev is not None, what + ": no impact on the incline")
            if ev:
                compare_impact(ev, impact_closed_form(v, math.radians(th), k, e), v, what)
                t = float(ev["t [s]"])
                for f in events:  # the floor gets no impulse at that instant
                    if f["contact"] == "floor" and abs(float(f["t [s]"]) - t) < 1e-9:
                        check(abs(num(f, "P_n")) < 1e-12, what + ": the floor carried impulse")
            # decline -> floor, rolling down from x0 on the decline
            be = th
            what = f"decline->floor {model} beta={be:.2f} k={k} e={e:.3f} v0={v:.3f}"
            events, series = run("tumbleweed_sec42_thesis.toml", f"df{case}{model}",
                                 sets + [f"system.x0={10 / math.tan(math.radians(th)) - 6}"])
            ev = first_impact(events, "floor")
            check(ev is not None, what + ": no impact on the floor")
            if ev:
                g, dh, b = 3.71, -10.0, 1.0
                dz = num(series[0], "z") - (dh + b)
                V = math.sqrt(v * v + 2 * g * dz / (1 + k))
                compare_impact(ev, impact_closed_form(V, math.radians(be), k, e), V, what)


def bounce_to_roll():
    for model in ("physical", "thesis"):
        for e, h in ((0.5, 1.0), (0.8, 2.5)):
            g, v = 3.71, 2.0
            what = f"bouncing->rolling {model} e={e} h={h}"
            T = math.sqrt(2 * h / g) * (1 + 2 * e / (1 - e))  # the accumulation's end
            sets = [f'system.model="{model}"', f"contact.e={e}", f"system.v0={v}", "system.x0=18.5",
                    f"initial.z={-10 + 1 + h}", f"run.t_end={T + 1}", "run.output_dt=0.001"]
            events, series = run("tumbleweed_sec42_thesis.toml", f"br{model}{e}", sets)
            last = series[-1]
            check(abs(num(last, "vx") - v) < 1e-9, f"{what}: vx = {num(last, 'vx')}, want {v}")
            check(abs(num(last, "vz")) < 1e-9, f"{what}: vz = {num(last, 'vz')}")
            check(abs(num(last, "wy") - v) < 1e-9, f"{what}: not rolling, wy = {num(last, 'wy')}")
            de = num(series[0], "energy") - num(last, "energy")
            check(abs(de - g * h) < 1e-6 * g * h, f"{what}: energy lost {de}, want m g h = {g * h}")
            t1 = math.sqrt(2 * h / g)
            T = t1 * (1 + 2 * e / (1 - e))
            rest = [float(r["t [s]"]) for r in events if r["kind"] in ("rest", "close") and r["contact"] == "floor"]
            t_rest = max(rest) if rest else float("nan")
            bound = 2 * math.sqrt(2 * 3.71 * 1e-9) / (g * (1 - e)) + 1e-9 + 2 * 1e-6 * math.sqrt(2 * g * h) / (g * (1 - e))
            check(T - bound - 1e-9 <= t_rest <= T + 1e-9, f"{what}: at rest at {t_rest}, closed form {T} (bound {bound})")


def energy_bookkeeping():
    for cfg in ("tumbleweed_sec42", "tumbleweed_case3", "tumbleweed_case4"):
        for model in ("physical", "thesis"):
            for bs in ("false", "true"):
                tag = f"eb_{cfg}_{model}_{bs}"
                events, series = run(cfg + "_thesis.toml", tag,
                                     [f'system.model="{model}"', f"system.backspin0={bs}"])
                t = [float(r["t [s]"]) for r in series]
                E = [num(r, "energy") for r in series]
                scale = max(abs(x) for x in E) + 1.0
                times = sorted(float(r["t [s]"]) for r in events)
                n_checked = 0
                for r in events:
                    if r["kind"] != "impact":
                        continue
                    ti = float(r["t [s]"])
                    work = sum(num(r, "P_" + c) * 0.5 * (num(r, f"u_{c}_before") + num(r, f"u_{c}_after"))
                               for c in ("n", "t1", "t2"))
                    check(work <= 1e-9 * scale, f"{tag}: the impact at {ti} gains {work} J")
                    i = next((j for j in range(len(t)) if t[j] > ti), None)
                    if i is None or i == 0:
                        continue
                    others = [x for x in times if t[i - 1] < x < t[i] and abs(x - ti) > 1e-12]
                    quiet = all(num(series[j], "slip") < 1e-9 or num(series[j], "gap") > 1e-9 for j in (i - 1, i))
                    if others or not quiet:
                        continue
                    drop = E[i - 1] - E[i]
                    check(abs(drop + work) <= 1e-6 * scale,
                          f"{tag}: impact at {ti}: energy drop {drop}, impulses' work {-work}")
                    n_checked += 1
                check(n_checked >= 3, f"{tag}: only {n_checked} impacts could be checked")


def reduced_study():
    cfg = os.path.join(SRC, "configs", "sweep_tumbleweed_reduced.toml")
    variants = [(m, bs, "false") for m in ("physical", "thesis") for bs in ("false", "true")]
    variants.append(("thesis", "false", "true"))  # reading F
    per_variant = {}
    for model, bs, flip in variants:
            out = os.path.join(TMP, f"study_{model}_{bs}_{flip}")
            subprocess.run([NSDYN, "sweep", cfg, "-j", "2", "-q", "-o", out,
                            "--set", f'system.model="{model}"', "--set", f"system.backspin0={bs}",
                            "--set", f"system.spin_flip={flip}"]
                           # reading F leaves some rovers rolling slowly on the floor (a flip at
                           # an accumulation's end keeps (1 - k)/(1 + k) of the speed): they
                           # reach the incline and roll back within a few hundred seconds
                           + (["--set", "run.t_end=3000"] if flip == "true" else []),
                           check=True, stdout=subprocess.DEVNULL)
            con = sqlite3.connect(os.path.join(out, "sweep.sqlite"))
            rows = con.execute("select b, e, k, speed, crossed, height, floor_height, rebound, outcome, "
                               "status, resets from runs").fetchall()
            per_variant[(model, bs, flip)] = rows
            if flip == "false":
                check(all(r[10] == 0 for r in rows if r[9] == "ok"), f"{model}/{bs}: resets without spin_flip")
            check(len(rows) == 330, f"{model}/{bs}: {len(rows)} runs, want 330")
            ok = [r for r in rows if r[9] == "ok"]
            check(len(ok) >= 320, f"{model}/{bs}: only {len(ok)} runs ok")
            for b, e, k, sp, crossed, h, fh, reb, outcome, _, _ in ok:
                tag = f"{model}/{bs} b={b} e={e} k={k} v={sp}"
                check(outcome in ("crossed", "rolled_back"), f"{tag}: ended by {outcome}")
                check(crossed == (outcome == "crossed"), f"{tag}: crossed = {crossed}, stop {outcome}")
                check(abs(fh - h - 3.0) < 1e-9, f"{tag}: floor_height {fh} != height {h} + 3")
                check((reb is None) == (outcome == "crossed"), f"{tag}: rebound {reb} with stop {outcome}")
            by = {}
            for b, e, k, sp, crossed, h, fh, reb, outcome, _, _ in ok:
                by.setdefault((b, round(e, 2)), []).append((outcome == "crossed", h))
            graph = list(csv.DictReader(open(os.path.join(out, "crossed_vs_e_by_b.csv"))))
            check(len(graph) == 10, f"{model}/{bs}: {len(graph)} graph rows")
            for g in graph:
                runs = by[(float(g["b"]), round(float(g["e"]), 2))]
                want = sum(c for c, _ in runs) / len(runs)
                check(int(g["n"]) == len(runs) and abs(float(g["mean"]) - want) < 1e-12,
                      f"{model}/{bs}: b={g['b']} e={g['e']}: graph {g['mean']} of {g['n']}, runs {want} of {len(runs)}")
            hg = list(csv.DictReader(open(os.path.join(out, "height_vs_e_by_b.csv"))))
            for g in hg:
                hs = [h for _, h in by[(float(g["b"]), round(float(g["e"]), 2))]]
                m = sum(hs) / len(hs)
                check(abs(float(g["mean"]) - m) < 1e-9, f"{model}/{bs}: height mean {g['mean']} != {m}")
    reading_f_is_b(per_variant[("thesis", "true", "false")], per_variant[("thesis", "false", "true")])
    # The regression of reading F's finding (docs/tumbleweed.md Sec. 4): the percentage crossed
    # rises with e. At J/m = 0.1 b^2 (over b and speed) it rises at every step of e; it was
    # 27, 41, 59, 73, 86 % (e = 0.6 .. 1.0) when this was written. R and B show no such rise.
    f_rows = [r for r in per_variant[("thesis", "false", "true")] if r[9] == "ok" and abs(r[2] - 0.1) < 1e-9]
    pc = [sum(r[4] for r in f_rows if abs(r[1] - e) < 1e-9) / max(1, sum(abs(r[1] - e) < 1e-9 for r in f_rows))
          for e in (0.6, 0.7, 0.8, 0.9, 1.0)]
    check(all(b > a for a, b in zip(pc, pc[1:])) and pc[0] < 0.4 and pc[-1] > 0.75,
          f"reading F: crossed at J/m = 0.1 b^2 against e: {pc}")


def reading_f_is_b(rows_b, rows_f):
    """F's runs with the single flip on leaving the rim at once (v0^2 > g b) are B's runs."""
    g = 3.71
    B = {tuple(round(x, 9) for x in r[:4]): r for r in rows_b if r[9] == "ok"}
    n_same = n_more = 0
    for r in rows_f:
        if r[9] != "ok":
            continue
        check(r[10] >= 1, f"F b={r[0]} e={r[1]} k={r[2]} v={r[3]}: no flip on leaving the rim")
        n_more += r[10] > 1
        rb = B.get(tuple(round(x, 9) for x in r[:4]))
        if r[10] != 1 or rb is None or not r[3] ** 2 > 1.05 * g * r[0]:
            continue
        n_same += 1
        tag = f"F vs B b={r[0]} e={r[1]} k={r[2]} v={r[3]}"
        check(r[4] == rb[4] and r[8] == rb[8], f"{tag}: outcome {r[8]} vs {rb[8]}")
        check(abs(r[5] - rb[5]) <= 1e-6, f"{tag}: height {r[5]} vs {rb[5]}")
    check(n_same >= 50 and n_more >= 50, f"F vs B: only {n_same} single-flip and {n_more} multi-flip runs")
    print(f"reading F vs B: {n_same} single-flip runs equal to B's, {n_more} runs with more flips")


def spin_flip_hand():
    rnd = random.Random(1606)
    for case in range(4):
        k, b = rnd.choice([0.1, 0.2, 0.4, 0.67]), rnd.choice([1.0, 2.0])
        v, g, muk, h = rnd.uniform(1, 6), rnd.choice([1.6, 3.71, 9.81]), rnd.uniform(0.2, 0.9), rnd.uniform(0.3, 2)
        t1 = math.sqrt(2 * h / g)
        rate = muk * g * (1 + 1 / k)  # deceleration of the slip u_t1 [m/s^2]
        t_stick = t1 + 2 * v / rate
        vr = 1e-5  # run.rest_velocity
        what = f"spin flip on a floor k={k} b={b} v={v:.3f} g={g} mu'={muk:.3f} h={h:.3f}"
        base = ['system.terrain="profile"', "system.angles=[0.0]", "system.lengths=[100.0]",
                "system.x_start=-50", "system.z_start=0", f"system.b={b}", f"system.j_over_m={k * b * b}",
                f"system.g={g}", "system.x0=0", f"system.v0={v}", f"initial.z={b + h}",
                f"initial.wy={-v / b}", "contact.e=0", f"friction.mu_k={muk}",
                f"run.t_end={t_stick + 0.5}", "run.output_dt=0.001"]
        events, series = run("tumbleweed_sec42_thesis.toml", f"sf{case}", base + ["system.spin_flip=true"])
        resets = [r for r in events if r["kind"] == "system_reset"]
        check(len(resets) == 2, f"{what}: {len(resets)} flips, want 2 (start in flight, touch-down)")
        if len(resets) == 2:
            check(float(resets[0]["t [s]"]) == 0 and abs(num(resets[0], "u_t1_after")) < 1e-12,
                  f"{what}: the start's flip: {resets[0]}")
            check(abs(float(resets[1]["t [s]"]) - t1) < 1e-9 and abs(num(resets[1], "u_t1_after") - 2 * v) < 1e-9 * v,
                  f"{what}: the touch-down flip at {resets[1]['t [s]']} (t1 = {t1}), u_t1 {num(resets[1], 'u_t1_after')} (2 v = {2 * v})")
        imp = first_impact(events, "seg1")
        check(imp is not None and abs(num(imp, "P_t1")) < 1e-12 and abs(num(imp, "u_n_before") + g * t1) < 1e-9 * v,
              f"{what}: impact {imp}")
        sticks = [float(r["t [s]"]) for r in events if r["kind"] == "stick" and float(r["t [s]"]) > t1 + 1e-9]
        early = vr / rate
        check(len(sticks) == 1 and t_stick - early - 1e-9 <= sticks[0] <= t_stick + 1e-9,
              f"{what}: rolls again at {sticks}, closed form {t_stick} (minus up to {early})")
        last = series[-1]
        vf = v * (1 - k) / (1 + k)
        check(abs(num(last, "vx") - vf) <= vr + 1e-9, f"{what}: vx = {num(last, 'vx')}, want v (1-k)/(1+k) = {vf}")
        check(abs(num(last, "wy") * b - num(last, "vx")) <= 1e-9, f"{what}: not rolling at the end")
        # the control: the same flight with the rolling spin the first flip gave, without flips
        _, ctrl = run("tumbleweed_sec42_thesis.toml", f"sf{case}c", base + [f"initial.wy={v / b}"])
        check(abs(num(ctrl[-1], "vx") - v) <= 1e-9, f"{what}: control without flip ends at {num(ctrl[-1], 'vx')}")


def run_toml_value(tag, key):
    for line in open(os.path.join(TMP, tag, "run.toml")):
        if line.startswith(key + " "):
            return float(line.split("=")[1].split("#")[0])
    raise KeyError(key)


def spin_flip_count():
    cases = [(c, []) for c in ("tumbleweed_sec42", "tumbleweed_case3", "tumbleweed_case4")]
    cases += [(c, ["contact.e=0.6"]) for c in ("tumbleweed_sec42", "tumbleweed_case3", "tumbleweed_case4")]
    total = 0
    for n, (cfg, sets) in enumerate(cases):
        tag = f"fc{n}"
        events, _ = run(cfg + "_thesis.toml", tag, ["system.spin_flip=true"] + sets)
        closed, phase, state_prev, n_changes, n_resets = set(), True, True, 0, 0
        for i, r in enumerate(events):
            kind, t = r["kind"], float(r["t [s]"])
            if kind in ("close", "rest"):
                closed.add(r["contact"])
            elif kind == "open":
                closed.discard(r["contact"])
            elif kind == "system_reset":
                n_resets += 1
                check(bool(closed) != phase, f"{cfg}{sets}: a flip at {t} without a model change")
                phase = bool(closed)
                for c in ("u_n", "u_t2"):
                    check(num(r, c + "_before") == num(r, c + "_after"), f"{cfg}{sets}: flip at {t} changed {c}")
                if phase and abs(num(r, "u_t1_after")) > 1e-5:
                    check(any(x["kind"] == "slip" and float(x["t [s]"]) == t for x in events[i + 1:]),
                          f"{cfg}{sets}: no slip after the flip at {t}")
            if i + 1 == len(events) or float(events[i + 1]["t [s]"]) != t:  # end of an instant
                check(bool(closed) == phase, f"{cfg}{sets}: a model change at {t} without a flip")
                n_changes += bool(closed) != state_prev
                state_prev = bool(closed)
        check(n_resets == n_changes and n_resets >= 1, f"{cfg}{sets}: {n_resets} flips, {n_changes} model changes")
        check(run_toml_value(tag, "system_reset_energy") == 0, f"{cfg}{sets}: the flips changed the energy")
        total += n_resets
    check(total >= 12, f"only {total} flips in the single runs")
    print(f"reading F: {total} flips in {len(cases)} single runs, each at a model change")


def uncovered_switch():
    """A bouncing sphere crosses the floor -> incline corner's bisector in flight, the step
    guard cuts the integrator's step at the next floor impact, and the uncut step (through the
    floor) had carried the corner switch's function back below zero: the switch was lost, the
    sphere bounced on along the floor's plane under the incline (found by study IV with reading
    F). The runner now locates the switch the cut uncovers (core/src/runner/run.c). Against the same
    run with steps short enough that none reaches under the floor (max_step 0.05 s)."""
    sets = ["system.spin_flip=true", "system.b=3", "system.j_over_m=6.03", "contact.e=0.98",
            "system.v0=5.0", "run.t_end=3000"]
    ends = []
    for tag, extra in (("us", []), ("us_short", ["integrator.max_step=0.05"])):
        _, series = run("tumbleweed_case4_thesis.toml", tag, sets + extra)
        gmin = min(num(r, "gap") for r in series)
        check(gmin >= -1e-6, f"uncovered switch {tag}: the sphere sank {gmin} m into a plane")
        msg = next(l for l in open(os.path.join(TMP, tag, "run.toml")) if l.startswith("message"))
        check("rolled_back" in msg, f"uncovered switch {tag}: {msg}")
        ends.append(float(series[-1]["t [s]"]))
    check(abs(ends[0] - ends[1]) < 1e-6, f"uncovered switch: stops at {ends[0]} and {ends[1]} s")


transitions()
bounce_to_roll()
uncovered_switch()
energy_bookkeeping()
reduced_study()
spin_flip_hand()
spin_flip_count()
print(f"tumbleweed: {len(FAIL)} failures")
sys.exit(1 if FAIL else 0)
