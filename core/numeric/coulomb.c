/* The exact one-contact Coulomb solver (nsdyn_numeric.h): w = A r + b,
 * De Saxce's Coulomb law with Moreau's velocity-level Signorini condition
 * (De Saxce & Feng 1991, Mech. Struct. Mach. 19:301-325; Acary & Brogliato
 * 2008, "Numerical Methods for Nonsmooth Dynamical Systems", Springer LNACM
 * 35, Ch. 13). It enumerates the cases open / stick / slide:
 *  - tangent dimension 1 and frictionless: a closed form for each case
 *    (slide to + and to -), the first case whose inequalities hold wins;
 *  - tangent dimension 2: open and stick in closed form; slide by the slip
 *    angle phi: with d = (1, -mu cos phi, -mu sin phi), P = P_n d, w_n = 0
 *    gives P_n = -b_n / (A_n . d) and w_T must be parallel to
 *    (cos phi, sin phi): g(phi) = U(phi) x e(phi) = 0 with
 *    U = -b_n A_T d + (A_n . d) b_T, a trigonometric polynomial of degree 2
 *    (at most 4 roots, cf. the quartic of Siconos' ONECONTACT_QUARTIC local
 *    solver). Newton from the previous slip angle is tried first; otherwise
 *    the roots are bracketed on 32 samples of g and g' and refined by
 *    safeguarded Newton; the first root with A_n . d > 0 and U . e > 0 wins.
 * Moved from plugins/integrators/moreau_fc.h (issue 14), unchanged but for
 * the stick solves, now nsn_solve2/nsn_solve3 (the same operations). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "nsdyn_numeric.h"

/* Relative slack on the inequalities of a candidate case (rounding of the
 * closed forms, ~1e-15 relative). */
#define NSN_SLACK 1e-12
/* Samples of the slip angle when bracketing the roots of g(phi) (at most
 * 4; see local_3d for how close pairs are caught). */
#define NSN_PHI_SAMPLES 32
#define NSN_PI 3.14159265358979323846
/* max without a libm call (fmax is not inlined without -ffast-math) */
#define NSN_MAX(a, b) ((a) > (b) ? (a) : (b))

/* ---- cone geometry ------------------------------------------------------- */

/* Projection onto K_mu = {||z_T|| <= mu z_n} (z_T of `nt` components). */
void nsn_proj_cone(double z[3], double mu, unsigned nt) {
    const double zt = nt == 2 ? sqrt(z[1] * z[1] + z[2] * z[2]) : fabs(z[1]);
    if (z[0] >= 0.0 && zt <= mu * z[0]) return; /* inside */
    if (mu * zt <= -z[0]) {                     /* inside the polar cone */
        z[0] = z[1] = z[2] = 0.0;
        return;
    }
    const double zn = (mu * zt + z[0]) / (1.0 + mu * mu);
    const double f = zt > 0.0 ? mu * zn / zt : 0.0;
    z[0] = zn;
    z[1] *= f;
    z[2] = nt == 2 ? z[2] * f : 0.0;
}

/* ---- one contact --------------------------------------------------------- */

/* Keep the candidate with the smallest violation; 1 if v is acceptable. */
static int take(double *best_v, double best[3], double v, double r0, double r1, double r2) {
    if (v < *best_v) {
        *best_v = v;
        best[0] = r0;
        best[1] = r1;
        best[2] = r2;
    }
    return v <= 0.0;
}

/* Frictionless: w_n = A_nn P_n + b_n. */
static int local_normal(const double A[9], const double b[3], double r[3]) {
    r[1] = r[2] = 0.0;
    if (!(A[0] > 0.0)) {
        r[0] = 0.0;
        return b[0] >= 0.0 ? 0 : -1;
    }
    r[0] = b[0] < 0.0 ? -b[0] / A[0] : 0.0;
    return 0;
}

/* Tangent dimension 1: (n, t) block of A. */
static int local_2d(const double A[9], const double b[3], double mu, double r[3]) {
    r[2] = 0.0;
    if (b[0] >= 0.0) { /* open: P = 0, w = b, w_n >= 0 */
        r[0] = r[1] = 0.0;
        return 0;
    }
    const double a00 = A[0], a01 = A[1], a10 = A[3], a11 = A[4];
    double best_v = HUGE_VAL, best[3] = {0.0, 0.0, 0.0};
    /* stick: A r = -b */
    const double A2[4] = {a00, a01, a10, a11}, mb2[2] = {-b[0], -b[1]};
    double x[2];
    if (nsn_solve2(A2, mb2, x) == NSN_OK) {
        const double rn = x[0], rt = x[1];
        const double v = NSN_MAX(-rn, fabs(rt) - mu * rn - NSN_SLACK * mu * fabs(rn));
        if (take(&best_v, best, v, rn, rt, 0.0)) {
            r[0] = rn, r[1] = rt;
            return 0;
        }
    }
    /* slide with w_t of sign s: P_t = -s mu P_n, w_n = 0 */
    for (int k = 0; k < 2; ++k) {
        const double s = k == 0 ? 1.0 : -1.0;
        const double den = a00 - s * mu * a01;
        if (!(den > 0.0)) continue;
        const double rn = -b[0] / den, rt = -s * mu * rn;
        const double wt = a10 * rn + a11 * rt + b[1];
        const double scale = fabs(a10 * rn) + fabs(a11 * rt) + fabs(b[1]);
        const double v = -s * wt - NSN_SLACK * scale;
        if (take(&best_v, best, v, rn, rt, 0.0)) {
            r[0] = rn, r[1] = rt;
            return 0;
        }
    }
    memcpy(r, best, 3 * sizeof(double));
    return -1;
}

/* The slide condition of the 3-D case, g(phi) = U(phi) x e(phi), where
 * U(phi) = U0 + Uc cos phi + Us sin phi (2-vectors): expanding
 * U_1 sin phi - U_2 cos phi with cos^2, sin^2, sin cos in terms of 2 phi,
 *   g = k0 + k1c cos phi + k1s sin phi + k2c cos 2phi + k2s sin 2phi,
 *   k0 = (Us_1 - Uc_2)/2, k1c = -U0_2, k1s = U0_1,
 *   k2c = -(Us_1 + Uc_2)/2, k2s = (Uc_1 - Us_2)/2,
 * a trigonometric polynomial of degree 2: at most 4 roots, and its
 * derivatives are of the same form. */
typedef struct trig {
    double k0, k1c, k1s, k2c, k2s;
} trig;

/* g^(order)(phi) from c = cos phi, s = sin phi (order 0, 1 or 2). */
static double trig_eval(const trig *g, int order, double c, double s) {
    const double c2 = c * c - s * s, s2 = 2.0 * c * s;
    switch (order) {
        case 0: return g->k0 + g->k1c * c + g->k1s * s + g->k2c * c2 + g->k2s * s2;
        case 1: return -g->k1c * s + g->k1s * c - 2.0 * g->k2c * s2 + 2.0 * g->k2s * c2;
        default: return -g->k1c * c - g->k1s * s - 4.0 * g->k2c * c2 - 4.0 * g->k2s * s2;
    }
}

/* Root of g^(order) in [a, b], where it has the sign sa at a and the
 * opposite sign at b: Newton on g^(order) with g^(order+1), falling back to
 * bisection when the Newton point leaves the bracket (rtsafe, Press et
 * al., "Numerical Recipes", 3rd ed., Sec. 9.4). */
static double trig_root(const trig *g, int order, double a, double b, double sa) {
    double x = 0.5 * (a + b);
    for (int it = 0; it < 100; ++it) {
        const double c = cos(x), sn = sin(x);
        const double f = trig_eval(g, order, c, sn), df = trig_eval(g, order + 1, c, sn);
        if (f == 0.0) return x;
        if ((f < 0.0) == (sa < 0.0))
            a = x;
        else
            b = x;
        double xn = df != 0.0 ? x - f / df : 0.5 * (a + b);
        if (!(xn > a && xn < b)) xn = 0.5 * (a + b);
        if (fabs(xn - x) <= 4.0 * DBL_EPSILON * (1.0 + fabs(x)) || b - a <= 8.0 * DBL_EPSILON)
            return xn;
        x = xn;
    }
    return x;
}

/* Check the 3-D slide candidate of slip angle phi; 1 and r set if valid. */
static int slide_candidate(const double A[9], const double b[3], double mu, double phi,
                           double *best_v, double best[3], double r[3]) {
    const double pc = cos(phi), ps = sin(phi);
    const double den = A[0] - mu * (A[1] * pc + A[2] * ps);
    if (!(den > 0.0)) return 0;
    const double rn = -b[0] / den;
    const double r1 = -mu * rn * pc, r2 = -mu * rn * ps;
    /* w_T of this candidate: must point along +e(phi) */
    const double w1 = A[3] * rn + A[4] * r1 + A[5] * r2 + b[1];
    const double w2 = A[6] * rn + A[7] * r1 + A[8] * r2 + b[2];
    const double along = w1 * pc + w2 * ps, across = fabs(w1 * ps - w2 * pc);
    const double scale = fabs(A[3] * rn) + fabs(A[4] * r1) + fabs(A[5] * r2) + fabs(b[1]) +
                         fabs(A[6] * rn) + fabs(A[7] * r1) + fabs(A[8] * r2) + fabs(b[2]);
    const double v = NSN_MAX(-along, across) - NSN_SLACK * scale;
    if (take(best_v, best, v, rn, r1, r2)) {
        r[0] = rn, r[1] = r1, r[2] = r2;
        return 1;
    }
    return 0;
}

/* Tangent dimension 2, mu > 0. On entry r holds the previous iterate of
 * this contact (a warm start for the slip angle). */
static int local_3d(const double A[9], const double b[3], double mu, double r[3]) {
    const double r_old[3] = {r[0], r[1], r[2]};
    if (b[0] >= 0.0) { /* open */
        r[0] = r[1] = r[2] = 0.0;
        return 0;
    }
    double best_v = HUGE_VAL, best[3] = {0.0, 0.0, 0.0};
    /* stick: A r = -b by Cramer's rule (A is at most 3 x 3) */
    const double mb[3] = {-b[0], -b[1], -b[2]};
    double xs[3];
    if (nsn_solve3(A, mb, xs) == NSN_OK) {
        const double rn = xs[0], r1 = xs[1], r2 = xs[2];
        const double rt = sqrt(r1 * r1 + r2 * r2);
        const double v = NSN_MAX(-rn, rt - mu * rn - NSN_SLACK * mu * fabs(rn));
        if (take(&best_v, best, v, rn, r1, r2)) {
            r[0] = rn, r[1] = r1, r[2] = r2;
            return 0;
        }
    }
    /* slide: U(phi) = -b_n A_T d + (A_n . d) b_T, d = (1, -mu c, -mu s) */
    double U0[2], Uc[2], Us[2];
    for (int i = 0; i < 2; ++i) {
        const double *At = A + 3 * (i + 1); /* row t_{i+1} */
        U0[i] = -b[0] * At[0] + A[0] * b[i + 1];
        Uc[i] = mu * b[0] * At[1] - mu * A[1] * b[i + 1];
        Us[i] = mu * b[0] * At[2] - mu * A[2] * b[i + 1];
    }
    const trig g = {0.5 * (Us[0] - Uc[1]), -U0[1], U0[0], -0.5 * (Us[0] + Uc[1]),
                    0.5 * (Uc[0] - Us[1])};
    /* First Newton from a guess: the previous slip angle when the previous
     * iterate slid (-P_T points along the slip), else the direction of w_T
     * after a frictionless normal impulse (exact when A has no
     * normal-tangent coupling and an isotropic tangent block). The root it
     * finds is checked like any other; if it fails, all roots are sought. */
    {
        double phi;
        if (r_old[0] > 0.0 &&
            r_old[1] * r_old[1] + r_old[2] * r_old[2] > 0.25 * mu * mu * r_old[0] * r_old[0])
            phi = atan2(-r_old[2], -r_old[1]);
        else {
            const double rn0 = A[0] > 0.0 ? -b[0] / A[0] : 0.0;
            phi = atan2(A[6] * rn0 + b[2], A[3] * rn0 + b[1]);
        }
        for (int it = 0; it < 20; ++it) {
            const double c = cos(phi), sn = sin(phi);
            const double f = trig_eval(&g, 0, c, sn), df = trig_eval(&g, 1, c, sn);
            if (!(df != 0.0)) break;
            double dx = -f / df;
            if (dx > 0.5)
                dx = 0.5;
            else if (dx < -0.5)
                dx = -0.5;
            phi += dx;
            if (fabs(dx) <= 1e-14) {
                if (slide_candidate(A, b, mu, phi, &best_v, best, r)) return 0;
                break;
            }
        }
    }
    /* All roots: sample g and g' on NSN_PHI_SAMPLES points. A sign change
     * of g brackets a root. Without one, a sign change of g' that turns g
     * towards zero brackets an extremum; if g changes sign there, it
     * brackets two roots (two roots closer than the spacing). Only three
     * or more roots within one interval (a near-triple root) escape. */
    const double step = 2.0 * NSN_PI / NSN_PHI_SAMPLES;
    const double cd = cos(step), sd = sin(step);
    double c = 1.0, sn = 0.0, x = 0.0;
    double g0 = trig_eval(&g, 0, c, sn), d0 = trig_eval(&g, 1, c, sn);
    for (int k = 0; k < NSN_PHI_SAMPLES; ++k) {
        /* next sample by rotation (exact end point at the last one) */
        double cn, snn;
        if (k + 1 == NSN_PHI_SAMPLES) {
            cn = 1.0;
            snn = 0.0;
        } else {
            cn = c * cd - sn * sd;
            snn = sn * cd + c * sd;
        }
        const double xn = (k + 1) * step;
        const double g1 = trig_eval(&g, 0, cn, snn), d1 = trig_eval(&g, 1, cn, snn);
        double roots[2];
        int nr = 0;
        if (g0 == 0.0) {
            roots[nr++] = x;
        } else if ((g0 < 0.0) != (g1 < 0.0)) {
            roots[nr++] = trig_root(&g, 0, x, xn, g0);
        } else if ((d0 < 0.0) != (d1 < 0.0) && (d0 < 0.0) == (g0 > 0.0)) {
            const double xm = trig_root(&g, 1, x, xn, d0);
            const double gm = trig_eval(&g, 0, cos(xm), sin(xm));
            if (gm == 0.0) {
                roots[nr++] = xm;
            } else if ((gm < 0.0) != (g0 < 0.0)) {
                roots[nr++] = trig_root(&g, 0, x, xm, g0);
                roots[nr++] = trig_root(&g, 0, xm, xn, gm);
            }
        }
        for (int i = 0; i < nr; ++i)
            if (slide_candidate(A, b, mu, roots[i], &best_v, best, r)) return 0;
        c = cn;
        sn = snn;
        g0 = g1;
        d0 = d1;
        x = xn;
    }
    memcpy(r, best, 3 * sizeof(double));
    return -1;
}

/* Exact solution of the one-contact problem w = A r + b (A: 3 x 3 row-major
 * block, only the rows and columns the contact uses are read; r holds the
 * previous iterate on entry, a warm start for the 3-D slip angle). Returns 0
 * when a case holds, -1 when none does (singular or non-positive block,
 * Painleve-like configuration); r is then the least-violating candidate. */
int nsn_coulomb_local(const double A[9], const double b[3], double mu, unsigned nt, double r[3]) {
    if (nt == 0) return local_normal(A, b, r);
    if (nt == 1) return local_2d(A, b, mu, r);
    return local_3d(A, b, mu, r);
}
