/* Private to the moreau integrator (and bench/bench_moreau_solver.c): the
 * velocity-level friction-contact problem of one Moreau-Jean step and an
 * own solver for it.
 *
 * Problem (Acary & Brogliato 2008, "Numerical Methods for Nonsmooth
 * Dynamical Systems", Springer LNACM 35, Ch. 10 and 13; Jean 1999, "The
 * non-smooth contact dynamics method", CMAME 177:235-257). For m contacts,
 * local impulses P = (P_1 .. P_m), P_c = (P_n, P_t1, P_t2), and
 *
 *     w = D P + q,
 *     K_c  ∋  P_c  ⊥  ŵ_c = w_c + mu_c ||w_cT|| e_n  ∈  K_c*      (every c)
 *
 * with D the Delassus matrix W M^-1 W^T, K_c = {||P_T|| <= mu_c P_n} the
 * Coulomb cone and K_c* its dual. This is De Saxce's bipotential form of
 * Coulomb's law with Moreau's velocity-level Signorini condition (De Saxce &
 * Feng 1991, "New inequality and functional for contact with friction: the
 * implicit standard material approach", Mech. Struct. Mach. 19:301-325;
 * Acary & Brogliato 2008, Ch. 13); it is the problem Siconos
 * calls a FrictionContactProblem (same D, q, mu). Its solutions are exactly
 * those of: P_n = 0 and w_n >= 0 (open), or w = 0 and ||P_T|| <= mu P_n
 * (stick), or w_n = 0, P_T = -mu P_n w_T/||w_T|| (slide).
 *
 * Layout: 3 rows per contact, always (n, t1, t2). A contact with tangent
 * dimension 1 uses (n, t1) and keeps P_t2 = 0; a frictionless one (mu = 0)
 * keeps P_T = 0. D is (3m) x (3m), row-major.
 *
 * Error measure (used for every solver, the plugin's `tol`): the natural-map
 * residual of the cone complementarity (Acary & Brogliato 2008, Ch. 13),
 *
 *     res_c = (P_c - proj_K_c(P_c - rho_c ŵ_c)) / rho_c,   rho_c = 1 / D_cc,nn,
 *
 * a velocity [m/s] that is zero exactly at a solution; the error is
 * ||res|| / ||q|| (relative to the free velocity; ||res|| itself when q = 0,
 * where P = 0 solves). With rho_c = 1/D_nn every contact is measured in
 * velocity units whatever its mass (Siconos uses rho = 1, which mixes
 * impulse and velocity units).
 *
 * Own solver "nsgs": the non-smooth (block) Gauss-Seidel of Moreau 1994
 * ("Some numerical methods in multibody dynamics: application to granular
 * materials", Eur. J. Mech. A 13:93-114) and Jean 1999: sweep over the
 * contacts, solving each one-contact problem exactly with the others'
 * impulses frozen, until the error is <= tol. One contact is solved in one
 * sweep. The one-contact solver enumerates the cases open / stick / slide:
 *  - 2-D (tangent dimension 1) and frictionless: closed form for each case
 *    (slide to + and to -), the first case whose inequalities hold wins;
 *  - 3-D: open and stick in closed form; slide by the slip angle phi: with
 *    d = (1, -mu cos phi, -mu sin phi), P = P_n d, w_n = 0 gives
 *    P_n = -b_n / (A_n . d) and w_T must be parallel to (cos phi, sin phi):
 *    g(phi) = U(phi) x e(phi) = 0 with U = -b_n A_T d + (A_n . d) b_T,
 *    a trigonometric polynomial of degree 2 (at most 4 roots, cf. the
 *    quartic of Siconos' ONECONTACT_QUARTIC local solver). Newton from the
 *    previous slip angle is tried first; otherwise the roots are bracketed
 *    on 32 samples of g and g' and refined by safeguarded Newton; the
 *    first root with A_n . d > 0 and U . e > 0 wins.
 * Every function here is stateless and allocation free.
 */
#ifndef NSDYN_MOREAU_FC_H
#define NSDYN_MOREAU_FC_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Relative slack on the inequalities of a candidate case of the
 * one-contact solver (rounding of the closed forms, ~1e-15 relative). */
#define MFC_SLACK 1e-12
/* Samples of the slip angle when bracketing the roots of g(phi) (at most
 * 4; see mfc_local_3d for how close pairs are caught). */
#define MFC_PHI_SAMPLES 32
#define MFC_PI 3.14159265358979323846
/* max without a libm call (fmax is not inlined without -ffast-math) */
#define MFC_MAX(a, b) ((a) > (b) ? (a) : (b))

/* A one-contact solver of the caller's: r (3) such that w = A r + b obeys
 * the contact's law (the moreau integrator hands over the contact law
 * plugin's local_impulse). Returns 0, or -1 when it has no solution. */
typedef int (*mfc_local_fn)(void *ctx, size_t c, const double A[9], const double b[3], double r[3]);

typedef struct mfc_problem {
    size_t m;             /* contacts */
    const double *D;      /* (3m) x (3m), row-major */
    const double *q;      /* 3m */
    const double *mu;     /* m, >= 0 */
    const uint32_t *tdim; /* m, 1 or 2 */
    /* NULL: the problem above (Coulomb with Moreau's Signorini condition),
     * solved contact by contact by mfc_local_solve and measured by
     * mfc_error. Set: each contact's law is local's (q then carries no
     * restitution shift), and mfc_nsgs measures a sweep by how much it
     * changes the local velocities, ||A dP|| / ||q|| (a fixed point of the
     * sweep solves every contact's law). */
    mfc_local_fn local;
    void *local_ctx;
} mfc_problem;

typedef struct mfc_info {
    int iterations; /* sweeps done */
    double error;   /* final error (see above) */
    size_t worst;   /* contact with the largest residual */
    int local_fail; /* 1 + the contact whose one-contact problem had no exact
                         case in the last sweep (0: none) */
} mfc_info;

/* ---- cone geometry ------------------------------------------------------- */

/* Projection onto K_mu = {||z_T|| <= mu z_n} (z_T of `nt` components). */
static inline void mfc_proj_cone(double z[3], double mu, unsigned nt) {
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

/* Tangent components a contact uses: 0 (frictionless), 1 or 2. */
static inline unsigned mfc_nt(const mfc_problem *p, size_t c) {
    return p->mu[c] > 0.0 ? (unsigned)p->tdim[c] : 0u;
}

/* w = D P + q (3m). */
static inline void mfc_velocity(const mfc_problem *p, const double *P, double *w) {
    const size_t n3 = 3 * p->m;
    for (size_t i = 0; i < n3; ++i) {
        const double *row = p->D + i * n3;
        double s = p->q[i];
        for (size_t j = 0; j < n3; ++j) s += row[j] * P[j];
        w[i] = s;
    }
}

/* Error of P (see the head of this file); w (3m) receives D P + q, cres (m,
 * may be NULL) the residual norm of each contact [m/s]. */
static inline double mfc_error(const mfc_problem *p, const double *P, double *w, double *cres,
                               size_t *worst) {
    mfc_velocity(p, P, w);
    const size_t n3 = 3 * p->m;
    double r2 = 0.0, q2 = 0.0, wmax = -1.0;
    size_t iw = 0;
    for (size_t c = 0; c < p->m; ++c) {
        const unsigned nt = mfc_nt(p, c);
        const double dnn = p->D[(3 * c) * n3 + 3 * c];
        const double rho = dnn > 0.0 ? 1.0 / dnn : 1.0, irho = dnn > 0.0 ? dnn : 1.0;
        const double *Pc = P + 3 * c, *wc = w + 3 * c;
        const double wt = nt == 2   ? sqrt(wc[1] * wc[1] + wc[2] * wc[2])
                          : nt == 1 ? fabs(wc[1])
                                    : 0.0;
        double z[3] = {Pc[0] - rho * (wc[0] + p->mu[c] * wt), Pc[1] - rho * wc[1],
                       Pc[2] - rho * wc[2]};
        if (nt < 2) z[2] = 0.0;
        if (nt < 1) z[1] = 0.0;
        mfc_proj_cone(z, p->mu[c], nt);
        /* components a contact does not use must be zero: their residual is
         * the impulse itself */
        double e2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            const double ri = (Pc[i] - z[i]) * irho;
            e2 += ri * ri;
        }
        r2 += e2;
        if (cres != NULL) cres[c] = sqrt(e2);
        if (e2 > wmax) {
            wmax = e2;
            iw = c;
        }
        q2 += p->q[3 * c] * p->q[3 * c];
        for (unsigned i = 1; i <= nt; ++i) q2 += p->q[3 * c + i] * p->q[3 * c + i];
    }
    if (worst != NULL) *worst = iw;
    const double qn = sqrt(q2);
    return qn > 0.0 ? sqrt(r2) / qn : sqrt(r2);
}

/* ---- one contact --------------------------------------------------------- */

/* Keep the candidate with the smallest violation; 1 if v is acceptable. */
static inline int mfc_take(double *best_v, double best[3], double v, double r0, double r1,
                           double r2) {
    if (v < *best_v) {
        *best_v = v;
        best[0] = r0;
        best[1] = r1;
        best[2] = r2;
    }
    return v <= 0.0;
}

/* Frictionless: w_n = A_nn P_n + b_n. */
static inline int mfc_local_normal(const double A[9], const double b[3], double r[3]) {
    r[1] = r[2] = 0.0;
    if (!(A[0] > 0.0)) {
        r[0] = 0.0;
        return b[0] >= 0.0 ? 0 : -1;
    }
    r[0] = b[0] < 0.0 ? -b[0] / A[0] : 0.0;
    return 0;
}

/* Tangent dimension 1: (n, t) block of A. */
static inline int mfc_local_2d(const double A[9], const double b[3], double mu, double r[3]) {
    r[2] = 0.0;
    if (b[0] >= 0.0) { /* open: P = 0, w = b, w_n >= 0 */
        r[0] = r[1] = 0.0;
        return 0;
    }
    const double a00 = A[0], a01 = A[1], a10 = A[3], a11 = A[4];
    double best_v = HUGE_VAL, best[3] = {0.0, 0.0, 0.0};
    /* stick: A r = -b */
    const double det = a00 * a11 - a01 * a10;
    if (fabs(det) > 1e3 * DBL_EPSILON * (fabs(a00 * a11) + fabs(a01 * a10))) {
        const double idet = 1.0 / det;
        const double rn = (a01 * b[1] - a11 * b[0]) * idet;
        const double rt = (a10 * b[0] - a00 * b[1]) * idet;
        const double v = MFC_MAX(-rn, fabs(rt) - mu * rn - MFC_SLACK * mu * fabs(rn));
        if (mfc_take(&best_v, best, v, rn, rt, 0.0)) {
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
        const double v = -s * wt - MFC_SLACK * scale;
        if (mfc_take(&best_v, best, v, rn, rt, 0.0)) {
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
typedef struct mfc_trig {
    double k0, k1c, k1s, k2c, k2s;
} mfc_trig;

/* g^(order)(phi) from c = cos phi, s = sin phi (order 0, 1 or 2). */
static inline double mfc_trig_eval(const mfc_trig *g, int order, double c, double s) {
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
static inline double mfc_trig_root(const mfc_trig *g, int order, double a, double b, double sa) {
    double x = 0.5 * (a + b);
    for (int it = 0; it < 100; ++it) {
        const double c = cos(x), sn = sin(x);
        const double f = mfc_trig_eval(g, order, c, sn), df = mfc_trig_eval(g, order + 1, c, sn);
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
static inline int mfc_slide_candidate(const double A[9], const double b[3], double mu, double phi,
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
    const double v = MFC_MAX(-along, across) - MFC_SLACK * scale;
    if (mfc_take(best_v, best, v, rn, r1, r2)) {
        r[0] = rn, r[1] = r1, r[2] = r2;
        return 1;
    }
    return 0;
}

/* Tangent dimension 2, mu > 0. On entry r holds the previous iterate of
 * this contact (a warm start for the slip angle). */
static inline int mfc_local_3d(const double A[9], const double b[3], double mu, double r[3]) {
    const double r_old[3] = {r[0], r[1], r[2]};
    if (b[0] >= 0.0) { /* open */
        r[0] = r[1] = r[2] = 0.0;
        return 0;
    }
    double best_v = HUGE_VAL, best[3] = {0.0, 0.0, 0.0};
    /* stick: A r = -b by Cramer's rule (A is at most 3 x 3) */
    const double c00 = A[4] * A[8] - A[5] * A[7];
    const double c01 = A[5] * A[6] - A[3] * A[8];
    const double c02 = A[3] * A[7] - A[4] * A[6];
    const double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
    const double dscale = fabs(A[0] * c00) + fabs(A[1] * c01) + fabs(A[2] * c02);
    if (fabs(det) > 1e3 * DBL_EPSILON * dscale) {
        const double c10 = A[2] * A[7] - A[1] * A[8];
        const double c11 = A[0] * A[8] - A[2] * A[6];
        const double c12 = A[1] * A[6] - A[0] * A[7];
        const double c20 = A[1] * A[5] - A[2] * A[4];
        const double c21 = A[2] * A[3] - A[0] * A[5];
        const double c22 = A[0] * A[4] - A[1] * A[3];
        /* inverse = adj / det, adj_ij = cofactor_ji */
        const double idet = -1.0 / det;
        const double rn = (c00 * b[0] + c10 * b[1] + c20 * b[2]) * idet;
        const double r1 = (c01 * b[0] + c11 * b[1] + c21 * b[2]) * idet;
        const double r2 = (c02 * b[0] + c12 * b[1] + c22 * b[2]) * idet;
        const double rt = sqrt(r1 * r1 + r2 * r2);
        const double v = MFC_MAX(-rn, rt - mu * rn - MFC_SLACK * mu * fabs(rn));
        if (mfc_take(&best_v, best, v, rn, r1, r2)) {
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
    const mfc_trig g = {0.5 * (Us[0] - Uc[1]), -U0[1], U0[0], -0.5 * (Us[0] + Uc[1]),
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
            const double f = mfc_trig_eval(&g, 0, c, sn), df = mfc_trig_eval(&g, 1, c, sn);
            if (!(df != 0.0)) break;
            double dx = -f / df;
            if (dx > 0.5)
                dx = 0.5;
            else if (dx < -0.5)
                dx = -0.5;
            phi += dx;
            if (fabs(dx) <= 1e-14) {
                if (mfc_slide_candidate(A, b, mu, phi, &best_v, best, r)) return 0;
                break;
            }
        }
    }
    /* All roots: sample g and g' on MFC_PHI_SAMPLES points. A sign change
     * of g brackets a root. Without one, a sign change of g' that turns g
     * towards zero brackets an extremum; if g changes sign there, it
     * brackets two roots (two roots closer than the spacing). Only three
     * or more roots within one interval (a near-triple root) escape. */
    const double step = 2.0 * MFC_PI / MFC_PHI_SAMPLES;
    const double cd = cos(step), sd = sin(step);
    double c = 1.0, sn = 0.0, x = 0.0;
    double g0 = mfc_trig_eval(&g, 0, c, sn), d0 = mfc_trig_eval(&g, 1, c, sn);
    for (int k = 0; k < MFC_PHI_SAMPLES; ++k) {
        /* next sample by rotation (exact end point at the last one) */
        double cn, snn;
        if (k + 1 == MFC_PHI_SAMPLES) {
            cn = 1.0;
            snn = 0.0;
        } else {
            cn = c * cd - sn * sd;
            snn = sn * cd + c * sd;
        }
        const double xn = (k + 1) * step;
        const double g1 = mfc_trig_eval(&g, 0, cn, snn), d1 = mfc_trig_eval(&g, 1, cn, snn);
        double roots[2];
        int nr = 0;
        if (g0 == 0.0) {
            roots[nr++] = x;
        } else if ((g0 < 0.0) != (g1 < 0.0)) {
            roots[nr++] = mfc_trig_root(&g, 0, x, xn, g0);
        } else if ((d0 < 0.0) != (d1 < 0.0) && (d0 < 0.0) == (g0 > 0.0)) {
            const double xm = mfc_trig_root(&g, 1, x, xn, d0);
            const double gm = mfc_trig_eval(&g, 0, cos(xm), sin(xm));
            if (gm == 0.0) {
                roots[nr++] = xm;
            } else if ((gm < 0.0) != (g0 < 0.0)) {
                roots[nr++] = mfc_trig_root(&g, 0, x, xm, g0);
                roots[nr++] = mfc_trig_root(&g, 0, xm, xn, gm);
            }
        }
        for (int i = 0; i < nr; ++i)
            if (mfc_slide_candidate(A, b, mu, roots[i], &best_v, best, r)) return 0;
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
static inline int mfc_local_solve(const double A[9], const double b[3], double mu, unsigned nt,
                                  double r[3]) {
    if (nt == 0) return mfc_local_normal(A, b, r);
    if (nt == 1) return mfc_local_2d(A, b, mu, r);
    return mfc_local_3d(A, b, mu, r);
}

/* ---- non-smooth Gauss-Seidel --------------------------------------------- */

/* |A (r - old)|^2: how much a contact's update changed its local velocity
 * [m^2/s^2]; keeps the contact with the largest change in *worst. */
static inline double mfc_sweep_change(const double A[9], const double old[3], const double r[3],
                                      double *worst2, size_t c, size_t *worst) {
    double d2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        const double dv = A[3 * i] * (r[0] - old[0]) + A[3 * i + 1] * (r[1] - old[1]) +
                          A[3 * i + 2] * (r[2] - old[2]);
        d2 += dv * dv;
    }
    if (d2 > *worst2) {
        *worst2 = d2;
        *worst = c;
    }
    return d2;
}

/* A velocity [m/s] relative to ||q|| (itself when q = 0), as mfc_error. */
static inline double mfc_scaled(const mfc_problem *p, double v) {
    double q2 = 0.0;
    for (size_t i = 0; i < 3 * p->m; ++i) q2 += p->q[i] * p->q[i];
    return q2 > 0.0 ? v / sqrt(q2) : v;
}

/* Solve p to error <= tol in at most max_iter sweeps, starting from P (warm
 * start; zeros are fine). w (3m) receives D P + q. Returns 0 when
 * converged, -1 otherwise (P: the last iterate; mfc_error with cres gives
 * each contact's residual). */
static inline int mfc_nsgs(const mfc_problem *p, double *P, double *w, double tol, int max_iter,
                           mfc_info *info) {
    const size_t m = p->m, n3 = 3 * m;
    info->iterations = 0;
    info->local_fail = 0;
    info->worst = 0;
    /* unused components start (and stay) at zero */
    for (size_t c = 0; c < m; ++c) {
        const unsigned nt = mfc_nt(p, c);
        for (unsigned i = nt + 1; i < 3; ++i) P[3 * c + i] = 0.0;
    }
    for (int it = 1; it <= max_iter; ++it) {
        int moved = 0;
        double change2 = 0.0, worst2 = -1.0;
        info->local_fail = 0;
        for (size_t c = 0; c < m; ++c) {
            double A[9], b[3];
            for (int i = 0; i < 3; ++i) {
                const double *row = p->D + (3 * c + i) * n3;
                double s = p->q[3 * c + i];
                for (size_t e = 0; e < m; ++e) {
                    if (e == c) continue;
                    s += row[3 * e] * P[3 * e] + row[3 * e + 1] * P[3 * e + 1] +
                         row[3 * e + 2] * P[3 * e + 2];
                }
                b[i] = s;
                A[3 * i + 0] = row[3 * c + 0];
                A[3 * i + 1] = row[3 * c + 1];
                A[3 * i + 2] = row[3 * c + 2];
            }
            const double old[3] = {P[3 * c], P[3 * c + 1], P[3 * c + 2]};
            int bad = p->local ? p->local(p->local_ctx, c, A, b, P + 3 * c)
                               : mfc_local_solve(A, b, p->mu[c], mfc_nt(p, c), P + 3 * c);
            if (bad != 0) info->local_fail = (int)c + 1;
            moved |= old[0] != P[3 * c] || old[1] != P[3 * c + 1] || old[2] != P[3 * c + 2];
            change2 += mfc_sweep_change(A, old, P + 3 * c, &worst2, c, &info->worst);
        }
        info->iterations = it;
        if (p->local) {
            /* the contact law found no impulse: no sweep can repair that */
            if (info->local_fail) return -1;
            mfc_velocity(p, P, w);
            info->error = mfc_scaled(p, sqrt(change2));
        } else {
            info->error = mfc_error(p, P, w, NULL, &info->worst);
        }
        if (info->error <= tol) return 0;
        /* a sweep that changed nothing is a fixed point of the sweep: more
         * sweeps cannot help (e.g. a contact without a solution) */
        if (!moved && it > 1) return -1;
    }
    return -1;
}

/* ---- Siconos (optional) -------------------------------------------------- */
#ifdef NSDYN_HAVE_SICONOS
/* The same problem handed to Siconos numerics 4.4 (Debian's
 * libsiconos-numerics-dev): fc2d_driver / fc3d_driver with a dense
 * NumericsMatrix, dimension 2 when every contact has tangent dimension 1,
 * else 3. Options, matrix and buffers are made once (mfc_siconos_init);
 * each solve still allocates inside Siconos (its drivers make their
 * local-problem work space per call: 2 blocks per fc2d solve, about 6 per
 * fc3d solve, bench/README.md). Siconos' own tolerance test uses its error
 * (rho = 1, relative to ||q||); the caller checks the result with
 * mfc_error. Siconos' error state (verbosity, setjmp buffers) is
 * thread-local, so instances on different threads do not interfere.
 *
 * The library is loaded with dlopen() when an instance asks for it, not
 * linked: libsiconos_numerics pulls in some 20 libraries (OpenBLAS, MUMPS,
 * HDF5, ...) and OpenBLAS starts a thread pool when loaded, which every
 * process that merely lists the plugins would otherwise pay (~18 ms and a
 * thread). Only the headers are needed at build time. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "Friction_cst.h"
#include "FrictionContactProblem.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"

#ifndef NSDYN_SICONOS_SONAME
#define NSDYN_SICONOS_SONAME "libsiconos_numerics.so.7"
#endif

/* The Siconos functions used, resolved by dlsym (signatures of Siconos 4.4's
 * SolverOptions.h, NumericsMatrix.h, NonSmoothDrivers.h and
 * sn_error_handling.h). */
typedef struct mfc_siconos_api {
    void *so;
    SolverOptions *(*options_create)(int solver_id);
    void (*options_delete)(SolverOptions *options);
    NumericsMatrix *(*nm_new)(void);
    void (*nm_clear)(NumericsMatrix *m);
    int (*fc2d_driver)(FrictionContactProblem *p, double *r, double *u, SolverOptions *o);
    int (*fc3d_driver)(FrictionContactProblem *p, double *r, double *u, SolverOptions *o);
    jmp_buf *(*get_jmp_buf)(void);
    void (*release_jmp_buf)(void);
} mfc_siconos_api;

typedef struct mfc_siconos {
    mfc_siconos_api api;
    int dim;    /* 2 or 3 */
    size_t cap; /* most contacts */
    SolverOptions *opt;
    NumericsMatrix *M; /* dense, matrix0 = Md (ours) */
    FrictionContactProblem prob;
    double *Md, *q, *mu, *r, *u; /* one block, owned here */
} mfc_siconos;

/* dlsym into a function pointer (object -> function pointer by memcpy, the
 * POSIX way). Returns 0 or -1. */
static inline int mfc_sym(void *so, const char *name, void *fp, size_t size) {
    void *sym = dlsym(so, name);
    if (sym == NULL) return -1;
    memcpy(fp, &sym, size);
    return 0;
}
#define MFC_SYM(api, field, name) mfc_sym((api)->so, name, &(api)->field, sizeof(api)->field)

/* solver_options_delete() of Siconos 4.4 clears an options tree but frees
 * neither the struct it is given nor those of its internal solvers (its
 * source: "double free or corruption // free(op);"), so the caller frees
 * them: detach the internal solvers, delete, free, recurse. (Checked under
 * LeakSanitizer: without this, 120 bytes leak per options struct.) */
static inline void mfc_siconos_options_free(const mfc_siconos_api *api, SolverOptions *op) {
    if (op == NULL) return;
    SolverOptions *kids[8];
    size_t nk = 0;
    if (op->internalSolvers != NULL)
        for (size_t i = 0; i < op->numberOfInternalSolvers; ++i) {
            if (nk < 8) kids[nk++] = op->internalSolvers[i];
            op->internalSolvers[i] = NULL; /* solver_options_delete(NULL) is a no-op */
        }
    api->options_delete(op);
    free(op);
    for (size_t i = 0; i < nk; ++i) mfc_siconos_options_free(api, kids[i]);
}

static inline void mfc_siconos_free(mfc_siconos *s) {
    if (s->M != NULL) {
        s->M->matrix0 = NULL; /* ours, not Siconos' */
        s->api.nm_clear(s->M);
        free(s->M);
    }
    if (s->opt != NULL) mfc_siconos_options_free(&s->api, s->opt);
    free(s->Md);
    if (s->api.so != NULL) dlclose(s->api.so);
    memset(s, 0, sizeof *s);
}

/* solver_id: SICONOS_FRICTION_2D_* or SICONOS_FRICTION_3D_* matching dim.
 * Returns 0, or -1 with a message in err (library not found, out of
 * memory). */
static inline int mfc_siconos_init(mfc_siconos *s, int dim, size_t max_contacts, int solver_id,
                                   double tol, int max_iter, char *err, size_t err_len) {
    memset(s, 0, sizeof *s);
    s->dim = dim;
    s->cap = max_contacts;
    mfc_siconos_api *api = &s->api;
    api->so = dlopen(NSDYN_SICONOS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (api->so == NULL) {
        const char *why = dlerror();
        snprintf(err, err_len, "cannot load Siconos numerics (%s): %s", NSDYN_SICONOS_SONAME,
                 why != NULL ? why : "?");
        return -1;
    }
    if (MFC_SYM(api, options_create, "solver_options_create") != 0 ||
        MFC_SYM(api, options_delete, "solver_options_delete") != 0 ||
        MFC_SYM(api, nm_new, "NM_new") != 0 || MFC_SYM(api, nm_clear, "NM_clear") != 0 ||
        MFC_SYM(api, fc2d_driver, "fc2d_driver") != 0 ||
        MFC_SYM(api, fc3d_driver, "fc3d_driver") != 0 ||
        MFC_SYM(api, get_jmp_buf, "sn_get_jmp_buf") != 0 ||
        MFC_SYM(api, release_jmp_buf, "sn_release_jmp_buf") != 0) {
        const char *why = dlerror();
        snprintf(err, err_len, "%s lacks a function nsdyn needs: %s", NSDYN_SICONOS_SONAME,
                 why != NULL ? why : "?");
        dlclose(api->so);
        api->so = NULL;
        return -1;
    }
    const size_t nd = (size_t)dim * (max_contacts > 0 ? max_contacts : 1);
    s->Md = malloc((nd * nd + 4 * nd) * sizeof(double));
    s->opt = api->options_create(solver_id);
    s->M = api->nm_new();
    if (s->Md == NULL || s->opt == NULL || s->M == NULL) {
        snprintf(err, err_len, "out of memory for the Siconos problem");
        mfc_siconos_free(s);
        return -1;
    }
    s->q = s->Md + nd * nd;
    s->mu = s->q + nd;
    s->r = s->mu + nd;
    s->u = s->r + nd;
    s->opt->dparam[SICONOS_DPARAM_TOL] = tol;
    s->opt->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
    s->M->storageType = NM_DENSE;
    s->M->matrix0 = s->Md;
    s->prob.dimension = dim;
    s->prob.M = s->M;
    s->prob.q = s->q;
    s->prob.mu = s->mu;
    return 0;
}

/* Solve p (p->m <= cap) from the warm start P; P receives the impulses.
 * Returns Siconos' info (0 = converged by its own test), or -2 when
 * Siconos raised a fatal error (sn_fatal_error). *iters: iterations done. */
static inline int mfc_siconos_solve(mfc_siconos *s, const mfc_problem *p, double *P, int *iters) {
    const size_t m = p->m, d = (size_t)s->dim, nd = d * m, n3 = 3 * m;
    /* dense storage is column-major */
    for (size_t c = 0; c < m; ++c)
        for (size_t i = 0; i < d; ++i) {
            const size_t row = d * c + i;
            for (size_t e = 0; e < m; ++e)
                for (size_t k = 0; k < d; ++k)
                    s->Md[(d * e + k) * nd + row] = p->D[(3 * c + i) * n3 + 3 * e + k];
            s->q[row] = p->q[3 * c + i];
            s->r[row] = P[3 * c + i];
        }
    for (size_t c = 0; c < m; ++c) s->mu[c] = p->mu[c];
    s->M->size0 = s->M->size1 = (int)nd;
    s->prob.numberOfContacts = (int)m;
    volatile int info;
    jmp_buf *jb = s->api.get_jmp_buf();
    if (setjmp(*jb) == 0) {
        info = s->dim == 2 ? s->api.fc2d_driver(&s->prob, s->r, s->u, s->opt)
                           : s->api.fc3d_driver(&s->prob, s->r, s->u, s->opt);
        s->api.release_jmp_buf();
    } else {
        s->api.release_jmp_buf();
        info = -2;
    }
    *iters = s->opt->iparam[SICONOS_IPARAM_ITER_DONE];
    /* locals set before setjmp are not trusted after it (-Wclobbered) */
    const size_t dd = (size_t)s->dim, mm = (size_t)s->prob.numberOfContacts;
    for (size_t c = 0; c < mm; ++c)
        for (size_t i = 0; i < 3; ++i) P[3 * c + i] = i < dd ? s->r[dd * c + i] : 0.0;
    return info;
}
#endif

#endif
