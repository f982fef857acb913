#!/usr/bin/env python3
"""Random rigid-contact campaign through the nsdyn CLI: penetration and
missed impacts, against a max_step = 1e-4 reference.

Usage: python3 scripts/rigid-campaign.py BINARY [--n 200] [--kinds sphere,curb]
           [--integrator dopri5] [--jobs N] [--keep DIR]

BINARY is an `nsdyn` executable (any build, old or new: only `nsdyn run
CONFIG -o DIR --set ...`, timeseries.csv and events.csv are used). It draws
the random scenarios of tests/test_rigid_properties.c with the same
generator and seeds (sphere k and curb k here are sphere k and curb k
there), runs each twice, as drawn (no max_step) and with
integrator.max_step = 1e-4, and prints per kind:

  scenarios         how many, and how many runs failed (exit status 3)
  max penetration   the deepest penetration of the run: by the system's gap
                    channels (gap*, at every output sample), and by the
                    geometry computed here, independently of the system
                    (at every sample and at every impact, the state there
                    reconstructed from the last sample before it when the
                    motion in between is free flight)
  penetrating       scenarios whose penetration exceeds contact_tolerance
                    (1e-9 m), twice that (the test's bound), and 1e-6 m
  missed impacts    impacts of the reference not in the run (same contact,
                    time within HORIZON_DELTA / v + 1e-9 s, approach speed
                    >= V_SIG), compared up to the horizon where the two
                    runs' positions first differ by more than HORIZON_DELTA
                    at a common sample (the test's rule and tolerances),
                    and impacts of the run not in the reference

Contacts closed by the accumulation rule rest at -contact_tolerance (impacts
after a bounce are located where the gap falls through -contact_tolerance),
so "> contact_tolerance" also counts rounding beyond that; the deeper
columns are the ones that show missed impacts.

Standard library only. --keep DIR keeps the configs of the scenarios that
penetrate or miss impacts. A binary from another build tree finds its
libnsdyn through its RUNPATH, and its plugins in the directory compiled into
it; to run an older build as it was built, point LD_LIBRARY_PATH at its
core/ and NSDYN_PLUGIN_PATH at its nsdyn-plugins/.
"""
import argparse
import concurrent.futures
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile

CONTACT_TOL = 1e-9
HORIZON_DELTA = 1e-6
V_SIG = 1e-2
SPHERE_SEED = 20240611
CURB_SEED = 20240612
DEG = math.pi / 180.0
MASK = (1 << 64) - 1


# ---- the generator (tests/test_rigid_properties.c) -------------------------

class Lcg:
    def __init__(self, seed):
        self.s = seed

    def u(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) & MASK
        return (self.s >> 11) * 2.0 ** -53

    def range(self, a, b):
        return a + (b - a) * self.u()

    def int(self, n):
        return int(self.u() * n)


def r3(x):
    return round(x * 1000.0) / 1000.0


def g15(x):
    return '%.15g' % x


def sphere_geometry(S):
    x, z = -20.0, 0.0
    segs = []
    for i, (a, L) in enumerate(zip(S['ang'], S['len'])):
        c, s = math.cos(a * DEG), math.sin(a * DEG)
        if abs(a) == 90.0:
            c = 0.0
        g = {'x': x, 'z': z, 'c': c, 's': s, 'lo': 0.0, 'hi': L, 'convex': False}
        x = g['x'] + L * c
        z = g['z'] + L * s
        if i > 0:
            p = segs[-1]
            g['convex'] = math.atan2(s, c) - math.atan2(p['s'], p['c']) <= 0.0
        segs.append(g)
    segs[0]['lo'] = -math.inf
    segs[-1]['hi'] = math.inf
    return segs


def sphere_rest_height(S, segs, x):
    zr, b = -math.inf, S['b']
    for g in segs:
        if g['c'] > 0.0:
            z = g['z'] + (x - g['x']) * g['s'] / g['c'] + b / g['c']
            sa = g['c'] * (x - g['x']) + g['s'] * (z - g['z'])
            if g['lo'] <= sa <= g['hi']:
                zr = max(zr, z)
        for t in (g['lo'], g['hi']):
            if not math.isfinite(t):
                continue
            ex, ez = g['x'] + t * g['c'], g['z'] + t * g['s']
            dx = x - ex
            if abs(dx) <= b:
                zr = max(zr, ez + math.sqrt(b * b - dx * dx))
    return zr


def sphere_draw(r):
    gs = (1.62, 3.71, 9.81)
    while True:
        S = {}
        S['b'] = r3(r.range(0.2, 1.0))
        S['jm'] = r3(S['b'] * S['b'] * r.range(0.4, 0.67))
        S['g'] = gs[r.int(3)]
        ang, lens = [0.0], [20.0]
        nf = 2 + r.int(4)
        z = zmin = 0.0
        for _ in range(nf):
            typ = r.int(3)
            if typ == 0:
                a = r3(r.range(-50.0, 50.0))
                L = r3(r.range(0.5, 3.0))
            elif typ == 1:
                a = 90.0 if r.u() < 0.5 else -90.0
                L = r3(r.range(0.05, 0.8))
            else:
                a = 0.0
                L = r3(r.range(0.5, 3.0))
            ang.append(a)
            lens.append(L)
            z += L * math.sin(a * DEG)
            zmin = min(zmin, z)
        ang.append(-60.0)
        lens.append(r3((z - zmin + 0.5) / math.sin(60.0 * DEG)))
        ang.append(0.0)
        lens.append(20.0)
        S['ang'], S['len'] = ang, lens
        segs = sphere_geometry(S)
        x_end = segs[-2]['x']
        S['x0'] = r3(r.range(-1.0, x_end))
        S['H'] = 0.0 if r.u() < 0.2 else r3(r.range(0.05, 2.0))
        S['v'] = [r3(r.range(-3.0, 5.0)), r3(r.range(-0.5, 0.5)), r3(r.range(-3.0, 3.0))]
        S['w'] = [r3(r.range(-4.0, 4.0)) for _ in range(3)]
        S['kane'] = r.u() < 0.5
        S['e'] = r3(r.range(0.3, 0.95) if S['kane'] else r.range(0.0, 0.9))
        S['friction'] = S['kane'] or r.u() < 0.8
        S['mu_k'] = r3(r.range(0.1, 0.7))
        S['mu_s'] = r3(S['mu_k'] + r.range(0.0, 0.2))
        zr = sphere_rest_height(S, segs, S['x0'])
        same = math.isfinite(zr)
        for g in segs[1:]:
            if not same:
                break
            if not g['convex']:
                continue
            a0 = g['c'] * (S['x0'] - g['x']) + g['s'] * (zr - g['z'])
            a1 = g['c'] * (S['x0'] - g['x']) + g['s'] * (zr + S['H'] - g['z'])
            same = (a0 > 0.0) == (a1 > 0.0)
        if same:
            S['segs'] = segs
            S['z_rest'] = zr
            return S


def sphere_toml(S):
    t = ['[system]', 'id = "sphere_planes"', 'terrain = "profile"',
         'angles = [%s]' % ', '.join(g15(a) for a in S['ang']),
         'lengths = [%s]' % ', '.join(g15(L) for L in S['len']),
         'x_start = -20.0', 'z_start = 0.0', 'b = ' + g15(S['b']), 'm = 1.0',
         'j_over_m = ' + g15(S['jm']), 'g = ' + g15(S['g']), 'x0 = ' + g15(S['x0']),
         'v0 = 0.0', 'rolling0 = false',
         '[contact]', 'id = "%s"' % ('kane_impulse' if S['kane'] else 'newton'), 'e = ' + g15(S['e'])]
    if S['friction']:
        t += ['[friction]', 'id = "coulomb"', 'mu_s = ' + g15(S['mu_s']), 'mu_k = ' + g15(S['mu_k'])]
    t += ['[integrator]', 'id = "dopri5"', 'rtol = 1e-10', 'atol = 1e-12', '[initial]']
    t += ['%s = %s' % (k, g15(v)) for k, v in zip(('wx', 'wy', 'wz'), S['w'])]
    t += ['%s = %s' % (k, g15(v)) for k, v in zip(('vx', 'vy', 'vz'), S['v'])]
    if S['H'] > 0.0:
        t.append('z = %.17g' % (S['z_rest'] + S['H']))
    t += ['[run]', 't_end = 3', 'output_dt = 1e-3', 'progress = false', '[plot]', 'enabled = false']
    return '\n'.join(t) + '\n'


CURB_M, CURB_R, CURB_G = 10.0, 0.1, 9.81


def curb_rest_height(C, x):
    r, l1 = CURB_R, C['l'] - CURB_R
    if x <= l1:
        return r + C['h']
    d = x - l1
    return max(C['h'] + math.sqrt(r * r - d * d), r) if d < r else r


def curb_draw(r):
    C = {}
    C['J'] = r3(r.range(0.02, 0.08))
    C['h'] = r3(r.range(0.02, 0.08))
    C['l'] = r3(r.range(0.4, 0.6))
    l1 = C['l'] - CURB_R
    C['x'] = r3(max(r.range(l1 - 0.2, l1 + 0.3), CURB_R + 0.01))
    C['H'] = 0.0 if r.u() < 0.15 else r3(r.range(0.005, 0.3))
    C['xd'] = r3(r.range(-5.0, -0.3))
    C['yd'] = r3(r.range(-3.0, 2.0))
    C['pd'] = r3(r.range(-40.0, 40.0))
    C['poisson'] = r.u() < 0.5
    C['e'] = r3(r.range(0.0, 0.8))
    C['mu_k'] = r3(r.range(0.1, 0.8))
    C['mu_s'] = r3(C['mu_k'] + r.range(0.0, 0.2))
    return C


def curb_toml(C):
    t = ['[system]', 'id = "curb_wheel"', 'm = 10', 'J = ' + g15(C['J']), 'r = 0.1',
         'h = ' + g15(C['h']), 'l = ' + g15(C['l']), 'g = 9.81', '[contact]']
    t += ['id = "poisson"', 'beta = ' + g15(C['e'])] if C['poisson'] else ['id = "newton"', 'e = ' + g15(C['e'])]
    t += ['[friction]', 'id = "coulomb"', 'mu_s = ' + g15(C['mu_s']), 'mu_k = ' + g15(C['mu_k']),
          '[integrator]', 'id = "dopri5"', 'rtol = 1e-10', 'atol = 1e-12', '[initial]',
          'x = ' + g15(C['x']), 'y = %.17g' % (curb_rest_height(C, C['x']) + C['H']), 'phi = 0.0',
          'xdot = ' + g15(C['xd']), 'ydot = ' + g15(C['yd']), 'phidot = ' + g15(C['pd']),
          '[run]', 't_end = 1', 'output_dt = 5e-4', 'progress = false', '[plot]', 'enabled = false']
    return '\n'.join(t) + '\n'


# ---- geometry, independently of the systems ---------------------------------

def seg_dist(ax, az, bx, bz, lo, hi, x, z):
    dx, dz = bx - ax, bz - az
    L2 = dx * dx + dz * dz
    s = ((x - ax) * dx + (z - az) * dz) / L2 if L2 > 0 else 0.0
    s = min(max(s, lo), hi)
    return math.hypot(x - ax - s * dx, z - az - s * dz)


def sphere_true_gap(S, x, z):
    segs, n = S['segs'], len(S['segs'])
    d, below, found = math.inf, False, False
    for i, g in enumerate(segs):
        ex, ez = g['x'] + S['len'][i] * g['c'], g['z'] + S['len'][i] * g['s']
        d = min(d, seg_dist(g['x'], g['z'], ex, ez, -math.inf if i == 0 else 0.0,
                            math.inf if i == n - 1 else 1.0, x, z))
        spans = g['c'] > 0.0 and (i == 0 or x >= g['x']) and (i == n - 1 or x <= ex)
        if spans and not found:
            below = z < g['z'] + (x - g['x']) * g['s'] / g['c']
            found = True
    return (-d if below else d) - S['b']


def curb_true_gap(C, x, y):
    l1, h = C['l'] - CURB_R, C['h']
    d = min(seg_dist(0.0, h, 0.0, h + 1.0, 0.0, math.inf, x, y),
            seg_dist(0.0, h, l1, h, 0.0, 1.0, x, y),
            seg_dist(l1, h, l1, 0.0, 0.0, 1.0, x, y),
            seg_dist(l1, 0.0, l1 + 1.0, 0.0, 0.0, math.inf, x, y))
    inside = x < 0.0 or y < 0.0 or (x <= l1 and y < h)
    return (-d if inside else d) - CURB_R


class Kind:
    def __init__(self, name, seed, draw, toml, pos, vel, gravity_axis, true_gap):
        self.name, self.seed, self.draw, self.toml = name, seed, draw, toml
        self.pos, self.vel = pos, vel          # column names of the positions and their rates
        self.gravity_axis = gravity_axis       # index into pos of the vertical coordinate
        self.true_gap = true_gap               # (scenario, position values) -> clearance [m]


KINDS = {
    'sphere': Kind('sphere', SPHERE_SEED, sphere_draw, sphere_toml, ('x', 'y', 'z'), ('vx', 'vy', 'vz'), 2,
                   lambda S, p: sphere_true_gap(S, p[0], p[2])),
    'curb': Kind('curb', CURB_SEED, curb_draw, curb_toml, ('x', 'y'), ('xdot', 'ydot'), 1,
                 lambda C, p: curb_true_gap(C, p[0], p[1])),
}


def gravity(kind, scn):
    return scn['g'] if kind.name == 'sphere' else CURB_G


# ---- running and reading ----------------------------------------------------

def run(binary, cfg, out, extra, timeout):
    cmd = [binary, 'run', cfg, '-o', out, '--set', 'plot.enabled=false'] + [a for s in extra for a in ('--set', s)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        status = p.returncode
        message = (p.stderr or p.stdout).strip().splitlines()[:1]
    except subprocess.TimeoutExpired:
        status, message = 'timeout', ['timed out after %g s' % timeout]
    res = {'status': status, 'message': message[0] if message else '', 'rows': [], 'cols': {}, 'events': []}
    # a failed run's data are in OUT.INCOMPLETE/ (older builds: in OUT itself)
    folders = (out, out + '.INCOMPLETE')
    for name, folder in [(n, d) for d in folders for n in ('timeseries.csv', 'timeseries.INCOMPLETE.csv')]:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            with open(path) as f:
                rd = csv.reader(f)
                head = next(rd)
                res['cols'] = {h.split(' [')[0]: i for i, h in enumerate(head)}
                res['rows'] = [[float(v) for v in row] for row in rd if row]
            break
    path = os.path.join(out, 'events.csv')
    if not os.path.exists(path):
        path = os.path.join(out + '.INCOMPLETE', 'events.csv')
    if os.path.exists(path):
        with open(path) as f:
            for row in csv.DictReader(f):
                ev = {k.split(' [')[0]: v for k, v in row.items()}
                res['events'].append({'t': float(ev['t']), 'contact': ev['contact'], 'kind': ev['kind'],
                                      'un': float(ev['u_n_before'])})
    return res


def analyse(kind, scn, res):
    rows, cols = res['rows'], res['cols']
    if not rows or any(n not in cols for n in kind.pos + kind.vel):
        return {'pen_gap': -math.inf, 'pen_geo': -math.inf, 'impacts': []}
    gap_cols = [i for n, i in cols.items() if n.startswith('gap')]
    ip = [cols[n] for n in kind.pos]
    iv = [cols[n] for n in kind.vel]
    A = {'pen_gap': -math.inf, 'pen_geo': -math.inf, 'impacts': []}
    for row in rows:
        if gap_cols:
            A['pen_gap'] = max(A['pen_gap'], -min(row[i] for i in gap_cols))
        A['pen_geo'] = max(A['pen_geo'], -kind.true_gap(scn, [row[i] for i in ip]))
    g = gravity(kind, scn)
    times = [row[0] for row in rows]
    closed, nxt, evs = set(), 0, res['events']
    for j, ev in enumerate(evs):
        if ev['kind'] != 'impact':
            continue
        A['impacts'].append((ev['t'], ev['contact'], -ev['un']))
        # the last sample strictly before the impact, in free flight
        lo, hi = 0, len(times)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if times[mid] < ev['t']:
                lo = mid
            else:
                hi = mid
        if not times or not times[lo] < ev['t']:
            continue
        ts = times[lo]
        while nxt < len(evs) and evs[nxt]['t'] < ts:
            p = evs[nxt]
            nxt += 1
            if p['kind'] in ('close', 'rest'):
                closed.add(p['contact'])
            elif p['kind'] == 'open':
                closed.discard(p['contact'])
        if closed or evs[nxt]['t'] < ev['t']:
            continue
        dt = ev['t'] - ts
        pos = [rows[lo][i] + dt * rows[lo][k] for i, k in zip(ip, iv)]
        pos[kind.gravity_axis] -= 0.5 * g * dt * dt
        A['pen_geo'] = max(A['pen_geo'], -kind.true_gap(scn, pos))
    return A


def horizon(kind, a, b):
    ia = [a['cols'][n] for n in kind.pos]
    ib = [b['cols'][n] for n in kind.pos]
    for ra, rb in zip(a['rows'], b['rows']):
        if abs(ra[0] - rb[0]) > 1e-9:
            return min(ra[0], rb[0])
        if any(abs(ra[i] - rb[j]) > HORIZON_DELTA for i, j in zip(ia, ib)):
            return ra[0]
    return math.inf


def unmatched(xs, ys, t_h):
    """Impacts of xs (before t_h, not slower than V_SIG) with no impact of ys
    at the same contact within HORIZON_DELTA / v + 1e-9 s."""
    n = 0
    for t, c, v in xs:
        if not t < t_h or v < V_SIG:
            continue
        tol = HORIZON_DELTA / v + 1e-9
        if not any(c2 == c and abs(t2 - t) <= tol for t2, c2, _ in ys):
            n += 1
    return n


def scenario(binary, kind, k, scn, work, integrator, timeout):
    d = os.path.join(work, '%s_%d' % (kind.name, k))
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, 'scenario.toml')
    with open(cfg, 'w') as f:
        f.write(kind.toml(scn).replace('id = "dopri5"', 'id = "%s"' % integrator))
    res = run(binary, cfg, os.path.join(d, 'run'), [], timeout)
    ref = run(binary, cfg, os.path.join(d, 'ref'), ['integrator.max_step=1e-4'], timeout)
    A, B = analyse(kind, scn, res), analyse(kind, scn, ref)
    out = {'k': k, 'cfg': cfg, 'status': res['status'], 'ref_status': ref['status'], 'message': res['message'],
           'pen_gap': A['pen_gap'], 'pen_geo': A['pen_geo'], 'impacts': len(A['impacts']), 'missed': 0, 'extra': 0}
    if res['status'] != 3 and ref['status'] == 0 and res['rows'] and ref['rows']:
        t_h = horizon(kind, res, ref)
        t_end = min(res['rows'][-1][0], ref['rows'][-1][0]) + 1e-9
        t_h = min(t_h, t_end)
        out['missed'] = unmatched(B['impacts'], A['impacts'], t_h)
        out['extra'] = unmatched(A['impacts'], B['impacts'], t_h)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('binary')
    ap.add_argument('--n', type=int, default=200, help='scenarios of each kind (default 200)')
    ap.add_argument('--kinds', default='sphere,curb')
    ap.add_argument('--integrator', default='dopri5', choices=('dopri5', 'bdf'))
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--timeout', type=float, default=120.0, help='per run [s]')
    ap.add_argument('--keep', help='copy the configs of penetrating or missing scenarios here')
    args = ap.parse_args()
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        sys.exit('%s: not an executable' % binary)
    work = tempfile.mkdtemp(prefix='rigid-campaign-')
    print('binary %s, integrator %s, %d scenarios of each kind' % (binary, args.integrator, args.n))
    try:
        for name in args.kinds.split(','):
            kind = KINDS[name]
            r = Lcg(kind.seed)
            scns = [kind.draw(r) for _ in range(args.n)]
            with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
                futs = [ex.submit(scenario, binary, kind, k, s, work, args.integrator, args.timeout)
                        for k, s in enumerate(scns)]
                results = [f.result() for f in futs]
            report(kind, results, args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(kind, results, keep):
    n = len(results)
    failed = [o for o in results if o['status'] not in (0,)]
    ref_failed = [o for o in results if o['ref_status'] not in (0,)]
    pg = max((o['pen_gap'] for o in results), default=0.0)
    pq = max((o['pen_geo'] for o in results), default=0.0)
    over = lambda key, lim: sum(1 for o in results if o[key] > lim)
    missed = sum(o['missed'] for o in results)
    extra = sum(o['extra'] for o in results)
    print('%s: %d scenarios, %d impacts; runs failed: %d (reference: %d)' %
          (kind.name, n, sum(o['impacts'] for o in results), len(failed), len(ref_failed)))
    print('  max penetration: %.3g m (gap channels), %.3g m (geometry)' % (pg, pq))
    for lim, what in ((CONTACT_TOL, 'contact_tolerance'), (2 * CONTACT_TOL, '2 contact_tolerance'),
                      (1e-6, '1e-6 m')):
        print('  penetration > %-19s: %3d scenarios (gap channels), %3d (geometry)' %
              (what, over('pen_gap', lim), over('pen_geo', lim)))
    print('  missed impacts against the max_step = 1e-4 reference: %d in %d scenarios; extra impacts: %d' %
          (missed, sum(1 for o in results if o['missed']), extra))
    for o in failed:
        print('    %s %d: exit %s: %s' % (kind.name, o['k'], o['status'], o['message'][:160]))
    if keep:
        os.makedirs(keep, exist_ok=True)
        for o in results:
            if o['pen_geo'] > 2 * CONTACT_TOL or o['pen_gap'] > 2 * CONTACT_TOL or o['missed'] or o['extra']:
                shutil.copy(o['cfg'], os.path.join(keep, '%s_%d.toml' % (kind.name, o['k'])))
    sys.stdout.flush()


if __name__ == '__main__':
    main()
