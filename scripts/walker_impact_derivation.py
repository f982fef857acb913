#!/usr/bin/env python3
"""Derive the impact walker's swing equations and heel-strike map (Koop & Wu
2013, Appendix B) with sympy and compare them with the printed (B2)-(B19).
docs/walker.md quotes its output. Run: python3 scripts/walker_impact_derivation.py

Model: walker2's coordinates p = (x, y, th_a, th_b), mass matrix M4 (3) with
the leg inertia m(b^2 + r_g^2), a stance foot of radius rho (offset delta)
rolling without slip: p' = A(q) q', A = [[-bt, 0], [-a, 0], [1, 0], [0, 1]].
Swing: the reduced mass matrix A^T M4 A. Impact: plastic at the new foot, so
A_new^T M4 (p'+ - p'-) = 0: Q+ v+ = Q- v- with Q+ = S A_new^T M4 A_new and
Q- = S A_new^T M4 A_old, S = [[1, 1], [0, 1]] turning the rows into the
paper's two laws (whole walker about the new contact point; the old stance
leg about the hip)."""
import sympy as sp

m, M, l, b, rg, rho, dl = sp.symbols("m M l b r_g rho delta", positive=True)
st, sw = sp.symbols("theta_st theta_sw", real=True)
c = l - b


def M4(ta, tb):
    mt, J, mb = M + 2 * m, m * (b**2 + rg**2), m * b
    return sp.Matrix([[mt, 0, mb * sp.cos(ta), mb * sp.cos(tb)],
                      [0, mt, mb * sp.sin(ta), mb * sp.sin(tb)],
                      [mb * sp.cos(ta), mb * sp.sin(ta), J, 0],
                      [mb * sp.cos(tb), mb * sp.sin(tb), 0, J]])


def rolling(th, slot):
    a = l * sp.sin(th) - rho * sp.sin(th - dl)
    bt = l * sp.cos(th) - rho * sp.cos(th - dl) + rho
    A = sp.zeros(4, 2)
    A[0, 0], A[1, 0], A[slot, 0], A[5 - slot, 1] = -bt, -a, 1, 1
    return A


def same(x, y):
    return sp.simplify(sp.expand_trig(sp.expand(x - y))) == 0


# swing: slots 2 = stance, 3 = swing
A = rolling(st, 2)
Mr = (A.T * M4(st, sw) * A).applyfunc(sp.simplify)
B2 = (m + M) * l**2 + m * (c**2 + rg**2) + 2 * rho**2 * (2 * m + M) * (1 - sp.cos(st - dl)) \
    + 2 * rho * ((m + M) * l + m * c) * (sp.cos(st) - sp.cos(dl))
B3 = -m * l * b * sp.cos(st - sw) + m * rho * b * (sp.cos(st - sw - dl) - sp.cos(sw))
B5 = m * (b**2 + rg**2)
print("(B2) = A^T M4 A [1,1]:", same(Mr[0, 0], B2))
print("(B3) = (B4) = [1,2] = [2,1]:", same(Mr[0, 1], B3), same(Mr[1, 0], B3))
print("(B5) = [2,2]:", same(Mr[1, 1], B5))

# impact: pre-impact stance st (slot 2), swing sw (slot 3); after, the
# stance is sw (slot 3), the swing st (slot 2). Written in the post-impact
# angles (st+ = sw, sw+ = st) for Q+, in the pre-impact ones for Q-.
Mi = M4(st, sw)
Ao, An = rolling(st, 2), rolling(sw, 3)
S = sp.Matrix([[1, 1], [0, 1]])
Qp = (S * An.T * Mi * An).applyfunc(sp.simplify)
Qm = (S * An.T * Mi * Ao).applyfunc(sp.simplify)
# printed, with theta_st, theta_sw as the paper's (pre-impact for Q-,
# post-impact for Q+; post-impact st+ = sw, sw+ = st)
ps, pw = sw, st  # post-impact angles
B13 = rho**2 * (2 * m + M) * (1 - sp.cos(st - dl) - sp.cos(sw - dl) + sp.cos(st - sw)) \
    + rho * (((m + M) * l + m * c) * (sp.cos(st) + sp.cos(sw) - sp.cos(st - sw - dl)
                                       - sp.cos(st - sw + dl)) + m * b * (sp.cos(dl) - sp.cos(st)))
B14 = m * rho * b * (sp.cos(dl) - sp.cos(sw)) - m * b * c
B15 = m * rho * b * (sp.cos(dl) - sp.cos(st)) - m * b * c
B16 = 2 * rho**2 * (2 * m + M) * (1 - sp.cos(ps - dl)) + rho * (
    2 * ((m + M) * l + m * c) * (sp.cos(ps) - sp.cos(dl))
    + m * b * (sp.cos(ps - pw - dl) - sp.cos(pw))) + (m + M) * l**2 + m * c**2 \
    - m * l * b * sp.cos(ps - pw)
B17 = m * rho * b * (sp.cos(ps - pw - dl) - sp.cos(pw)) + m * b**2 - m * l * b * sp.cos(ps - pw)
B18 = m * rho * b * (sp.cos(ps - pw - dl) - sp.cos(pw)) - m * l * b * sp.cos(ps - pw)
B19 = m * b**2
for name, ours, printed in [("Q-_11 (B13)", Qm[0, 0], B13), ("Q-_12 (B14)", Qm[0, 1], B14),
                            ("Q-_21 (B15)", Qm[1, 0], B15), ("Q-_22 (0)", Qm[1, 1], 0),
                            ("Q+_11 (B16)", Qp[0, 0], B16), ("Q+_12 (B17)", Qp[0, 1], B17),
                            ("Q+_21 (B18)", Qp[1, 0], B18), ("Q+_22 (B19)", Qp[1, 1], B19)]:
    d = sp.simplify(sp.expand_trig(sp.expand(ours - printed)))
    print(f"{name}: ours - printed = {d}")
print("ours Q-_11 =", sp.simplify(Qm[0, 0]))
print("ours Q-_11 at rho = 0:", sp.simplify(Qm[0, 0].subs(rho, 0)))
