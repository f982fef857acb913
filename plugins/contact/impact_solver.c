/* The shared solver of the rigid impact laws (impact_internal.h): the
 * exact one-contact solver, the exact enumeration for several planar
 * contacts and the NSGS iteration (over nsdyn_numeric's driver), from
 * impact.c (issue 14). What they solve and why: newton.c's header (one
 * contact) and the text below.
 *
 * Several contacts, tangent_dim 1, n <= 4 (ENUM_MAX_CONTACTS), exact: every
 * contact is in one of the states open (P = 0, u_n+ + e_i u_n- >= 0),
 * stick, slide+ (P_t = -mu_k P_n, u_t+ >= 0) or slide- (P_t = +mu_k P_n,
 * u_t+ <= 0), the last three closed (u_n+ + e_i u_n- = 0, P_n >= 0). A
 * combination of states fixes a square linear system for the unknown
 * normal impulses of the closed contacts and the tangential impulses of the
 * sticking ones (at most 2n = 8 unknowns); all 4^n combinations are solved
 * (Gaussian elimination with complete pivoting) and a combination is
 * consistent if its equalities and inequalities hold (relative slack
 * ACCEPT_TOL, then the rounding is cleaned off: P_n >= 0 and the cone hold
 * exactly). Several consistent combinations (friction can make the problem
 * non-unique): the one with the largest energy loss, the first in the
 * enumeration on a tie. A singular system with a one-dimensional null
 * space is kept: when a body has fewer freedoms than constraint rows (the
 * curb wheel, 3 velocities, at the curb's edge and on the floor at once: 4
 * rows; a point mass stopped in a corner) the impulses are not unique; the
 * interval of the free parameter where the inequalities hold is computed
 * and the impulse of least norm in it is taken. Null spaces of dimension 2
 * or more are not decided here: if no other combination is consistent, the
 * iteration below takes over. If every combination was decided and none
 * is consistent, the law has no solution (restitution targets that
 * contradict each other, e.g. contacts wedged against each other):
 * NSDYN_ERROR "no consistent impulse".
 *
 * Several contacts otherwise (tangent_dim 2, n > 4, or undecided
 * combinations): the non-smooth block Gauss-Seidel iteration (NSGS) of
 * Moreau and Jean (M. Jean, "The non-smooth contact dynamics method",
 * CMAME 177 (1999) 235-257): sweep over the contacts and solve each
 * one-contact problem EXACTLY (local_solve, the single-contact solver above,
 * with the target u_n+ = -e_i u_n- folded into the free velocity) with the
 * other contacts' impulses frozen. This is the fixed point Y = Psi(Y) of
 * the wheel-curb paper's (106), solved contact by contact. Converged when a
 * sweep changes no contact's velocity by more than NSGS_TOL (1e-13) of the
 * largest pre-impact velocity; at most 10000 sweeps in four attempts (the
 * last three with mu_s := mu_k and under-relaxation, see nsgs()).
 * Not converged, impulses growing without bound, or a contact without a
 * consistent local impulse at the end: NSDYN_ERROR with a message through
 * the host log. This happens when no solution exists or the contacts are
 * strongly coupled: a sphere jammed in a corner whose walls are steeper
 * than the friction angle (Newton's separation targets then need a slip
 * friction forbids), or bodies with large normal-tangential coupling at
 * 2-3 contacts (about 1 in 20 random ellipsoid problems in the test grid,
 * tests/test_impact_laws.c); a sphere in a valley of moderate slopes, or
 * any plastic impact of a sphere, converges in tens to hundreds of sweeps.
 *
 * Limits: at most IMPACT_MAX_CONTACTS = 16 simultaneous contacts (fixed
 * arrays on the stack, nothing is allocated in impact()); beyond that
 * NSDYN_ERROR with a message.
 *
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "impact_internal.h"
#include "nsdyn_numeric.h"

/* Solve A x = b, A k x k (k <= 3, row stride 3), Gaussian elimination with
 * partial pivoting (nsn_lu_solve, the same operations as before the move).
 * Returns 0 if A is singular to working precision (x untouched). */
int solve_small(const double *A, const double *b, int k, double *x) {
    double a[9], y[3];
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) a[3 * i + j] = A[3 * i + j];
        y[i] = b[i];
    }
    if (nsn_lu_solve((size_t)k, a, 3, y, 1e-14, 0.0) != NSN_OK) return 0;
    for (int i = 0; i < k; ++i) x[i] = y[i];
    return 1;
}

/* u+ = u- + G P (3x3). */
void post_velocity(const double *G, const double *um, const double *P, double *up) {
    for (int i = 0; i < 3; ++i)
        up[i] = um[i] + G[3 * i] * P[0] + G[3 * i + 1] * P[1] + G[3 * i + 2] * P[2];
}

/* dT = P.u- + 1/2 P^T G P over m rows (G row stride m), and the size of its
 * terms for the tolerance. */
double energy_change(const double *G, size_t m, const double *um, const double *P, double *size) {
    double pu = 0.0, pgp = 0.0;
    for (size_t i = 0; i < m; ++i) {
        pu += P[i] * um[i];
        for (size_t j = 0; j < m; ++j) pgp += P[i] * G[m * i + j] * P[j];
    }
    *size = fabs(pu) + 0.5 * fabs(pgp);
    return pu + 0.5 * pgp;
}

/* Slide along the unit direction d: P_t = -mu_k P_n d, with P_n = a when
 * the normal is open (fixed impulse), else from u_n + c = 0:
 *   P_n(d) = -(q_n + c) / (G_nn - mu_k G_nt.d),
 * whose denominator must be positive. */
static int slide_eval(const local_problem *lp, int open, const double d[2], double P[3],
                      double u[3]) {
    const double *G = lp->Gi;
    double Pn = lp->a;
    if (!open) {
        double den = G[0] - lp->mu_k * (G[1] * d[0] + G[2] * d[1]);
        if (!(den > 0.0)) return 0;
        Pn = -(lp->q[0] + lp->c) / den;
    }
    P[0] = Pn;
    P[1] = -lp->mu_k * Pn * d[0];
    P[2] = -lp->mu_k * Pn * d[1];
    post_velocity(G, lp->q, P, u);
    return 1;
}

/* Consistency of the 2-D slide search: g(th) = d x u_t(d) with
 * d = (cos th, sin th), scaled by the positive denominator when the normal
 * is closed, g = den (d x u_t) = d x (den q_t - (q_n + c)(G_tn - mu_k G_tt d)),
 * a trigonometric polynomial without the pole of P_n(d) at den = 0 (the
 * form of Siconos' one-contact "quartic" solver). Its sign changes bracket
 * the slip directions even where P_n(d) is large. */
static double slide_residual(const local_problem *lp, int open, double th) {
    const double *G = lp->Gi, *q = lp->q, mu = lp->mu_k, d[2] = {cos(th), sin(th)};
    double U[2];
    for (int j = 0; j < 2; ++j) {
        const double *Gt = G + 3 * (1 + j); /* row t_j: G_tn, G_tt1, G_tt2 */
        double w = Gt[0] - mu * (Gt[1] * d[0] + Gt[2] * d[1]);
        if (open)
            U[j] = q[1 + j] + w * lp->a;
        else
            U[j] = (G[0] - mu * (G[1] * d[0] + G[2] * d[1])) * q[1 + j] - (q[0] + lp->c) * w;
    }
    return d[0] * U[1] - d[1] * U[0];
}

typedef struct slide_best {
    double dT, P[3], u[3];
    int found;
} slide_best;

/* A candidate with a consistent slip direction: check its normal condition
 * and keep the one that dissipates most (local dT = P.q + 1/2 P^T Gi P). */
static void slide_keep(const local_problem *lp, int open, const double P[3], const double u[3],
                       slide_best *b) {
    if (open ? !(u[0] + lp->c >= -lp->tol_u) : !(P[0] >= lp->a - ACCEPT_TOL * lp->a)) return;
    double size, dT = energy_change(lp->Gi, 3, lp->q, P, &size);
    if (dT < b->dT) {
        b->dT = dT;
        memcpy(b->P, P, 3 * sizeof *P);
        memcpy(b->u, u, 3 * sizeof *u);
        b->found = 1;
    }
}

/* The 2-D slide search's callbacks for nsn_angle_roots: g(th), and each
 * root's candidate, kept if its slip is consistent (d.u_t > 0). */
typedef struct slide_scan {
    const local_problem *lp;
    int open;
    slide_best *best;
} slide_scan;

static double scan_residual(void *ctx, double th) {
    const slide_scan *sc = ctx;
    return slide_residual(sc->lp, sc->open, th);
}

static int scan_root(void *ctx, double th) {
    slide_scan *sc = ctx;
    double d[2] = {cos(th), sin(th)}, Pc[3], uc[3];
    if (slide_eval(sc->lp, sc->open, d, Pc, uc) && d[0] * uc[1] + d[1] * uc[2] > 0.0)
        slide_keep(sc->lp, sc->open, Pc, uc, sc->best);
    return 0;
}

/* Sliding solution with d the post-impact slip direction (Routh, (15b)). */
static int slide_search(const local_problem *lp, int open, double *P, double *up) {
    slide_best b = {HUGE_VAL, {0, 0, 0}, {0, 0, 0}, 0};
    double Pc[3], uc[3];
    if (lp->dim == 1) {
        for (int s = -1; s <= 1; s += 2) {
            double d[2] = {(double)s, 0.0};
            if (!slide_eval(lp, open, d, Pc, uc)) continue;
            if (!(s * uc[1] >= 0.0)) continue;
            slide_keep(lp, open, Pc, uc, &b);
        }
    } else {
        /* g is 2 pi-periodic (nsn_angle_roots' periodic end): the sign
         * changes of g on N_ANGLES intervals, refined by bisection down to
         * rounding (1e-15 rad, at most 60 halvings). */
        slide_scan sc = {lp, open, &b};
        nsn_angle_roots(scan_residual, &sc, 0.0, 6.283185307179586, N_ANGLES, 1, 60, 1e-15,
                        scan_root, &sc);
    }
    if (!b.found) return 0;
    memcpy(P, b.P, sizeof b.P);
    memcpy(up, b.u, sizeof b.u);
    return 1;
}

/* Kane's slip rule in a closed contact (tangent_dim 2): slide along +-d0,
 * the slip direction before the impact (the generalisation of (2.80)-(2.81)
 * in kane_single), with the sign for which the slip does not reverse along
 * d0 (d.u_t >= 0); both signs consistent (strong coupling): the more
 * dissipative. Without an initial slip (d0 = 0), d0 is the direction the
 * contact would slip in, against the stick impulse x_t (x from the stick
 * solve, zero if singular). Returns 0 if no sign gives P_n >= 0. */
static int slide_initial(const local_problem *lp, const double x[3], double *P, double *up) {
    double d0[2] = {lp->d0[0], lp->d0[1]};
    if (!(d0[0] != 0.0 || d0[1] != 0.0)) {
        d0[0] = -x[1];
        d0[1] = -x[2];
    }
    const double s = hypot(d0[0], d0[1]);
    if (!(s > 0.0)) return 0;
    slide_best b = {HUGE_VAL, {0, 0, 0}, {0, 0, 0}, 0};
    for (int sg = 1; sg >= -1; sg -= 2) {
        double d[2] = {sg * d0[0] / s, sg * d0[1] / s}, Pc[3], uc[3];
        if (slide_eval(lp, 0, d, Pc, uc) && d[0] * uc[1] + d[1] * uc[2] >= 0.0)
            slide_keep(lp, 0, Pc, uc, &b);
    }
    if (!b.found) return 0;
    memcpy(P, b.P, sizeof b.P);
    memcpy(up, b.u, sizeof b.u);
    return 1;
}

/* The tangent dimension of one contact: the problem's, except that a
 * contact whose t2 row of the block is zero (a planar contact in a problem
 * that also holds spatial ones; contact.h asks for one tangent_dim, a
 * runner may pass the largest) is solved as tangent_dim 1, its P_t2 = 0:
 * with a zero G_t2t2 its stick system would be singular. */
int local_dim(int dim, const double Gi[9]) { return dim == 2 && Gi[8] > 0.0 ? 2 : 1; }

/* The exact one-contact solution. Preference: open (no impulse beyond a:
 * "not approaching, no impulse"), then closed stick, then closed slide (the
 * most dissipative consistent slip direction). Returns LS_*. */
static int local_solve(const local_problem *lp, double P[3], double u[3]) {
    const double *G = lp->Gi, *q = lp->q, a = lp->a, c = lp->c;
    const int dim = lp->dim;
    double x[3] = {0.0, 0.0, 0.0};
    if (!(a > 0.0)) {
        if (q[0] + c >= 0.0) {
            P[0] = P[1] = P[2] = 0.0;
            memcpy(u, q, 3 * sizeof *q);
            return LS_OPEN;
        }
    } else {
        /* Normal impulse fixed at a: stick solves the tangent rows
         * G_tt P_t = -(q_t + G_tn a). */
        double A[9] = {0}, r[3] = {0.0, 0.0, 0.0};
        for (int i = 0; i < dim; ++i) {
            for (int j = 0; j < dim; ++j) A[3 * i + j] = G[3 * (i + 1) + j + 1];
            r[i] = -(q[1 + i] + G[3 * (1 + i)] * a);
        }
        if (solve_small(A, r, dim, x) && hypot(x[0], dim == 2 ? x[1] : 0.0) <= lp->mu_s * a) {
            P[0] = a;
            P[1] = x[0];
            P[2] = dim == 2 ? x[1] : 0.0;
            post_velocity(G, q, P, u);
            if (u[0] + c >= -lp->tol_u) return LS_OPEN_STICK;
        }
        if (slide_search(lp, 1, P, u)) return LS_OPEN_SLIDE;
    }
    /* Closed stick: G P = (-(q_n + c), -q_t) on the first 1 + dim rows. */
    double rhs[3] = {-(q[0] + c), -q[1], -q[2]};
    x[0] = x[1] = x[2] = 0.0;
    if (solve_small(G, rhs, 1 + dim, x) && x[0] >= a - ACCEPT_TOL * a &&
        hypot(x[1], dim == 2 ? x[2] : 0.0) <= lp->mu_s * x[0]) {
        P[0] = x[0];
        P[1] = x[1];
        P[2] = dim == 2 ? x[2] : 0.0;
        post_velocity(G, q, P, u);
        return LS_CLOSED_STICK;
    }
    if (lp->d0 && dim == 2) return slide_initial(lp, x, P, u) ? LS_CLOSED_SLIDE : LS_FAIL;
    if (slide_search(lp, 0, P, u)) return LS_CLOSED_SLIDE;
    return LS_FAIL;
}

/* u = w + G P over all 3n rows. */
static void phase_velocity(const phase_problem *pp, const double *P, double *u) {
    const size_t m = 3 * pp->n;
    for (size_t r = 0; r < m; ++r) {
        double s = pp->w[r];
        for (size_t j = 0; j < m; ++j) s += pp->G[m * r + j] * P[j];
        u[r] = s;
    }
}

/* Non-smooth block Gauss-Seidel (Jean 1999; the paper's (106)): each
 * contact's exact one-contact solution with the others frozen, until a
 * sweep changes no velocity by more than NSGS_TOL us. Four attempts, each
 * continuing from the last iterate (nsgs_attempts):
 *   1. the law as stated (stick within mu_s, slide with mu_k), plain
 *      updates;
 *   2. mu_s replaced by mu_k. With mu_s > mu_k the friction impulse drops
 *      from mu_s P_n to mu_k P_n when a contact starts to slip; with
 *      several coupled contacts this hysteresis can leave no consistent
 *      combination near the stick-slip threshold, and the sweeps cycle
 *      between stick and slip. Coulomb's law with the single coefficient
 *      mu_k has a solution when G is positive definite (the discrete
 *      frictional contact problem; A. Klarbring, J.-S. Pang, "Existence of
 *      solutions to discrete semicoercive frictional contact problems",
 *      SIAM J. Optim. 8 (1998), and the coercive case cited there), and
 *      every such solution is one of the stated law (a stick within mu_k
 *      is within mu_s);
 *   3., 4. as 2. with under-relaxed updates P_i += omega (P_i,local - P_i),
 *      omega = 1/2 and 1/4 (the same fixed points; damps cycling).
 * Stops when the impulses grow without bound (checked every NSGS_CHECK
 * sweeps: a contact's impulse alone changes a velocity by more than
 * 1000 us, half as much again as at the last check). That is a jam: an
 * impulse that squeezes the body between two contacts inside both friction
 * cones changes no velocity (W^T P = 0, G singular: a sphere in a V-groove
 * whose walls are steeper than the friction angle can roll along the
 * groove without slipping at either wall), so the iteration drifts along
 * it; the rigid impact is then indeterminate.
 * Returns 1 converged, 0 not converged, -1 diverged. */
static const struct {
    int kinetic;  /* mu_s := mu_k */
    double omega; /* relaxation */
    int sweeps;
} nsgs_attempts[] = {{0, 1.0, 1000}, {1, 1.0, 1000}, {1, 0.5, 4000}, {1, 0.25, 4000}};

/* The one-contact law for nsn_nsgs: contact c's exact solution with the
 * others frozen (a failed contact keeps its impulse). */
typedef struct nsgs_ctx {
    const phase_problem *pp;
    phase_result *res;
    int kinetic;      /* mu_s := mu_k */
    double last_size; /* the size at the last divergence check */
} nsgs_ctx;

static int nsgs_local(void *ctx, size_t i, const double Gi[9], const double q[3], double r[3]) {
    nsgs_ctx *x = ctx;
    const phase_problem *pp = x->pp;
    double Pi[3], ui[3];
    local_problem lp = {Gi,
                        q,
                        pp->c[i],
                        pp->a[i],
                        x->kinetic ? pp->mu_k[i] : pp->mu_s[i],
                        pp->mu_k[i],
                        local_dim(pp->dim, Gi),
                        ACCEPT_TOL * pp->us,
                        pp->d0 ? pp->d0 + 2 * i : NULL};
    int st = local_solve(&lp, Pi, ui);
    if (!st) return 1;
    memcpy(r, Pi, sizeof Pi);
    x->res->state[i] = st;
    return 0;
}

/* After a sweep: converged, diverged (checked every NSGS_CHECK sweeps), or
 * go on. */
static int nsgs_check(void *ctx, const nsn_sweep *s, const double *P) {
    nsgs_ctx *x = ctx;
    const phase_problem *pp = x->pp;
    x->res->change = s->change;
    x->res->failed_contact = s->failed - 1;
    if (!s->failed && s->change <= NSGS_TOL * pp->us) {
        phase_velocity(pp, P, x->res->u);
        return 1;
    }
    if (s->sweep % NSGS_CHECK == 0) {
        if (s->size > 1000.0 * pp->us && s->size > 1.5 * x->last_size) return -1;
        x->last_size = s->size;
    }
    return 0;
}

static int nsgs(const phase_problem *pp, phase_result *res) {
    const size_t n = pp->n;
    double *P = res->P;
    uint32_t tdim[IMPACT_MAX_CONTACTS];
    for (size_t i = 0; i < n; ++i) {
        P[3 * i] = pp->a[i];
        P[3 * i + 1] = P[3 * i + 2] = 0.0;
        tdim[i] = (uint32_t)pp->dim; /* the change scale uses the problem's dim */
    }
    res->method = M_NSGS;
    res->sweeps = 0;
    nsgs_ctx ctx = {pp, res, 0, HUGE_VAL};
    const nsn_nsgs_problem np = {n, pp->G, pp->w, tdim, nsgs_local, &ctx};
    for (size_t at = 0; at < NSDYN_COUNT(nsgs_attempts); ++at) {
        ctx.kinetic = nsgs_attempts[at].kinetic;
        int r = nsn_nsgs(&np, P, nsgs_attempts[at].omega, nsgs_attempts[at].sweeps, nsgs_check,
                         &ctx, &res->sweeps);
        if (r != 0) return r;
    }
    return 0;
}

/* -- exact enumeration (tangent_dim 1, n <= ENUM_MAX_CONTACTS) -- */

/* Enumeration states: normal open (impulse a) or closed (u_n + c = 0),
 * tangent free (no impulse, only open with a = 0), stick (u_t = 0),
 * slide+ (P_t = -mu_k P_n, u_t >= 0) or slide- (P_t = +mu_k P_n, u_t <= 0). */
enum {
    ES_OPEN_FREE,
    ES_OPEN_STICK,
    ES_OPEN_POS,
    ES_OPEN_NEG,
    ES_CLOSED_STICK,
    ES_CLOSED_POS,
    ES_CLOSED_NEG
};

static int es_closed(int s) { return s >= ES_CLOSED_STICK; }
static int es_stick(int s) { return s == ES_OPEN_STICK || s == ES_CLOSED_STICK; }
static int es_slide(int s) { /* +1, -1 or 0 */
    return s == ES_OPEN_POS || s == ES_CLOSED_POS   ? 1
           : s == ES_OPEN_NEG || s == ES_CLOSED_NEG ? -1
                                                    : 0;
}

/* Impulses of a combination for the unknowns x (normal impulses of closed
 * contacts at kn[i], tangential impulses of sticking ones at kt[i]). */
static void combo_impulse(const phase_problem *pp, const int *st, const int *kn, const int *kt,
                          const double *x, double *P) {
    for (size_t i = 0; i < pp->n; ++i) {
        double Pn = es_closed(st[i]) ? x[kn[i]] : st[i] == ES_OPEN_FREE ? 0.0 : pp->a[i];
        double Pt = es_stick(st[i]) ? x[kt[i]] : -es_slide(st[i]) * pp->mu_k[i] * Pn;
        P[3 * i] = Pn;
        P[3 * i + 1] = Pt;
        P[3 * i + 2] = 0.0;
    }
}

/* The inequalities of a combination at (P, u), each as a value that must be
 * >= -slack; returns their number (<= 3n). */
static int combo_ineq(const phase_problem *pp, const int *st, const double *P, const double *u,
                      double tolP, double tolU, double *g, double *slack) {
    int k = 0;
    for (size_t i = 0; i < pp->n; ++i) {
        double Pn = P[3 * i], Pt = P[3 * i + 1], un = u[3 * i] + pp->c[i], ut = u[3 * i + 1];
        if (es_closed(st[i])) {
            g[k] = Pn - pp->a[i];
            slack[k++] = tolP;
        } else {
            g[k] = un;
            slack[k++] = tolU;
        }
        if (es_stick(st[i])) {
            g[k] = pp->mu_s[i] * Pn - Pt;
            slack[k++] = tolP;
            g[k] = pp->mu_s[i] * Pn + Pt;
            slack[k++] = tolP;
        } else if (es_slide(st[i])) {
            g[k] = es_slide(st[i]) * ut;
            slack[k++] = tolU;
        }
    }
    return k;
}

static double max_abs(const double *v, size_t m) {
    double s = 0.0;
    for (size_t i = 0; i < m; ++i) s = fmax(s, fabs(v[i]));
    return s;
}

/* Does the combination hold at (P, u), equalities and inequalities? */
static int combo_holds(const phase_problem *pp, const int *st, const double *P, const double *u) {
    double g[MAXR], slack[MAXR];
    double tolU = ACCEPT_TOL * pp->us, tolP = ACCEPT_TOL * fmax(max_abs(P, 3 * pp->n), pp->ps);
    int k = combo_ineq(pp, st, P, u, tolP, tolU, g, slack);
    for (int j = 0; j < k; ++j)
        if (!(g[j] >= -slack[j])) return 0;
    for (size_t i = 0; i < pp->n; ++i) {
        if (es_closed(st[i]) && !(fabs(u[3 * i] + pp->c[i]) <= tolU)) return 0;
        if (es_stick(st[i]) && !(fabs(u[3 * i + 1]) <= tolU)) return 0;
    }
    return 1;
}

/* Solve A x = b (k x k, k <= ENUM_MAX_UNKNOWNS, row stride
 * ENUM_MAX_UNKNOWNS) by Gaussian elimination with complete pivoting. Returns
 * the rank (pivots above 1e-12 of the largest |A_ij|), or -1 if the system
 * is inconsistent. x gets a solution with the free unknowns zero; if the
 * rank is k - 1, nul gets the null vector (free unknown one). A and b are
 * overwritten. */

/* Try one combination: 1 consistent (P and u hold its solution), 0 not,
 * -1 undecided (a null space of dimension >= 2). */
static int combo_solve(const phase_problem *pp, const int *st, double *P, double *u) {
    enum { S = ENUM_MAX_UNKNOWNS };
    const size_t n = pp->n, m = 3 * n;
    int kn[ENUM_MAX_CONTACTS], kt[ENUM_MAX_CONTACTS], rows[S], k = 0;
    double cterm[S];
    for (size_t i = 0; i < n; ++i) {
        kn[i] = kt[i] = -1;
        if (es_closed(st[i])) {
            kn[i] = k;
            rows[k] = (int)(3 * i);
            cterm[k++] = pp->c[i];
        }
        if (es_stick(st[i])) {
            kt[i] = k;
            rows[k] = (int)(3 * i + 1);
            cterm[k++] = 0.0;
        }
    }
    /* P is affine in x: P = P0 + sum_k x_k B_k, and u = U0 + sum_k x_k GB_k. */
    double x[S] = {0}, nul[S] = {0}, U0[MAXR], GB[S][3 * ENUM_MAX_CONTACTS];
    combo_impulse(pp, st, kn, kt, x, P);
    phase_velocity(pp, P, U0);
    for (int j = 0; j < k; ++j) {
        double Bj[3 * ENUM_MAX_CONTACTS];
        x[j] = 1.0;
        combo_impulse(pp, st, kn, kt, x, Bj);
        x[j] = 0.0;
        for (size_t r = 0; r < m; ++r) Bj[r] -= P[r];
        for (size_t r = 0; r < m; ++r) {
            double s = 0.0;
            for (size_t q = 0; q < m; ++q) s += pp->G[m * r + q] * Bj[q];
            GB[j][r] = s;
        }
    }
    if (k > 0) {
        double A[S * S], b[S];
        for (int e = 0; e < k; ++e) {
            for (int j = 0; j < k; ++j) A[S * e + j] = GB[j][rows[e]];
            b[e] = -(U0[rows[e]] + cterm[e]);
        }
        int rank = nsn_gauss_complete(k, A, S, b, x, nul);
        if (rank < 0) return 0;      /* inconsistent */
        if (rank < k - 1) return -1; /* a null space of dimension >= 2: undecided */
        if (rank == k - 1) {
            /* One free parameter z: x = x0 + z nul. Every inequality is
             * affine in z; take the impulse of least norm in the interval
             * where they all hold. */
            double P0[3 * ENUM_MAX_CONTACTS], P1[3 * ENUM_MAX_CONTACTS], u0[MAXR], u1[MAXR], x1[S];
            double g0[MAXR], g1[MAXR], s0[MAXR];
            for (int j = 0; j < k; ++j) x1[j] = x[j] + nul[j];
            combo_impulse(pp, st, kn, kt, x, P0);
            combo_impulse(pp, st, kn, kt, x1, P1);
            phase_velocity(pp, P0, u0);
            phase_velocity(pp, P1, u1);
            int ng = combo_ineq(pp, st, P0, u0, 0.0, 0.0, g0, s0);
            combo_ineq(pp, st, P1, u1, 0.0, 0.0, g1, s0);
            double lo = -HUGE_VAL, hi = HUGE_VAL, xn = 0.0, nn = 0.0;
            for (int j = 0; j < ng; ++j) {
                double d = g1[j] - g0[j];
                if (d > 0.0)
                    lo = fmax(lo, -g0[j] / d);
                else if (d < 0.0)
                    hi = fmin(hi, -g0[j] / d);
            }
            for (int j = 0; j < k; ++j) {
                xn += x[j] * nul[j];
                nn += nul[j] * nul[j];
            }
            double z = -xn / nn;
            if (lo <= hi)
                z = fmin(fmax(z, lo), hi);
            else
                z = 0.5 * (lo + hi); /* empty up to rounding: the check decides */
            if (!isfinite(z)) return 0;
            for (int j = 0; j < k; ++j) x[j] += z * nul[j];
        }
    }
    combo_impulse(pp, st, kn, kt, x, P);
    for (size_t r = 0; r < m; ++r) {
        double s = U0[r];
        for (int j = 0; j < k; ++j) s += x[j] * GB[j][r];
        u[r] = s;
    }
    return combo_holds(pp, st, P, u);
}

/* All combinations of states; keeps the consistent one with the largest
 * energy loss (dT = P.w + 1/2 P^T G P, the phase's change of kinetic
 * energy). open_only: the normal impulses fixed at a (poisson's (35b)).
 * Returns 1 if found; 0 if none and every combination was decided (the law
 * has no solution: exact); -1 if none but some combination had a null
 * space of dimension >= 2 and was not decided. */
static int enumerate(const phase_problem *pp, int open_only, phase_result *res) {
    static const int with_a[6] = {ES_OPEN_STICK,   ES_OPEN_POS,   ES_OPEN_NEG,
                                  ES_CLOSED_STICK, ES_CLOSED_POS, ES_CLOSED_NEG};
    static const int without_a[4] = {ES_OPEN_FREE, ES_CLOSED_STICK, ES_CLOSED_POS, ES_CLOSED_NEG};
    const size_t n = pp->n, m = 3 * n;
    int count[ENUM_MAX_CONTACTS], idx[ENUM_MAX_CONTACTS] = {0}, st[ENUM_MAX_CONTACTS];
    int best_st[ENUM_MAX_CONTACTS];
    const int *list[ENUM_MAX_CONTACTS];
    for (size_t i = 0; i < n; ++i) {
        int has_a = pp->a[i] > 0.0;
        list[i] = has_a ? with_a : without_a;
        count[i] = open_only ? (has_a ? 3 : 1) : (has_a ? 6 : 4);
    }
    double best = HUGE_VAL, P[MAXR], u[MAXR];
    int found = 0, undecided = 0;
    for (;;) {
        for (size_t i = 0; i < n; ++i) st[i] = list[i][idx[i]];
        int r = combo_solve(pp, st, P, u);
        undecided |= r < 0;
        if (r > 0) {
            double size, dT = energy_change(pp->G, m, pp->w, P, &size);
            if (!found || dT < best - 1e-12 * fabs(best)) {
                best = dT;
                found = 1;
                memcpy(res->P, P, m * sizeof *P);
                memcpy(res->u, u, m * sizeof *u);
                memcpy(best_st, st, n * sizeof *st);
            }
        }
        size_t i = 0;
        while (i < n && ++idx[i] == count[i]) idx[i++] = 0;
        if (i == n) break;
    }
    if (!found) return undecided ? -1 : 0;
    /* Clean the rounding off the inequalities: P_n >= a, |P_t| <= mu_s P_n. */
    for (size_t i = 0; i < n; ++i) {
        double *Pi = res->P + 3 * i;
        int s = best_st[i];
        if (es_closed(s) && Pi[0] < pp->a[i]) Pi[0] = pp->a[i];
        if (es_slide(s)) Pi[1] = -es_slide(s) * pp->mu_k[i] * Pi[0];
        if (es_stick(s)) Pi[1] = fmax(-pp->mu_s[i] * Pi[0], fmin(Pi[1], pp->mu_s[i] * Pi[0]));
        res->state[i] = s == ES_OPEN_FREE ? LS_OPEN
                        : es_closed(s)    ? (es_stick(s) ? LS_CLOSED_STICK : LS_CLOSED_SLIDE)
                                          : (es_stick(s) ? LS_OPEN_STICK : LS_OPEN_SLIDE);
    }
    phase_velocity(pp, res->P, res->u);
    res->method = M_ENUM;
    return 1;
}

/* Solve one phase: trivially (nothing approaching), exactly (one contact,
 * or enumeration), else by NSGS. Returns 1 on success. */
int solve_phase(phase_problem *pp, phase_result *res) {
    const size_t n = pp->n, m = 3 * n;
    memset(res, 0, sizeof *res);
    res->failed_contact = -1;
    /* Scales: the largest velocity of the used rows, including what the
     * fixed impulses a produce, and the impulse that changes it by us. */
    double us = 0.0, gmax = 0.0;
    int nothing = 1;
    for (size_t i = 0; i < n; ++i) {
        for (size_t r = 0; r <= (size_t)pp->dim; ++r) {
            const double *row = pp->G + m * (3 * i + r);
            double s = fabs(pp->w[3 * i + r]);
            for (size_t j = 0; j < n; ++j) s += fabs(row[3 * j]) * pp->a[j];
            us = fmax(us, s);
            gmax = fmax(gmax, row[3 * i + r]);
        }
        us = fmax(us, fabs(pp->c[i]));
        if (pp->a[i] > 0.0 || !(pp->w[3 * i] + pp->c[i] >= 0.0)) nothing = 0;
    }
    pp->us = us;
    pp->ps = gmax > 0.0 ? us / gmax : 0.0;
    if (nothing) { /* no contact approaching: no impulse */
        memset(res->P, 0, m * sizeof *res->P);
        memcpy(res->u, pp->w, m * sizeof *res->u);
        for (size_t i = 0; i < n; ++i) res->state[i] = LS_OPEN;
        res->method = M_NONE;
        return 1;
    }
    if (n == 1) {
        local_problem lp = {pp->G,
                            pp->w,
                            pp->c[0],
                            pp->a[0],
                            pp->mu_s[0],
                            pp->mu_k[0],
                            local_dim(pp->dim, pp->G),
                            ACCEPT_TOL * us,
                            pp->d0};
        res->method = M_LOCAL;
        res->state[0] = local_solve(&lp, res->P, res->u);
        if (!res->state[0]) res->failed_contact = 0;
        return res->state[0] != LS_FAIL;
    }
    if (pp->dim == 1 && n <= ENUM_MAX_CONTACTS) {
        if (pp->restitution && enumerate(pp, 1, res) > 0) return 1;
        int r = enumerate(pp, 0, res);
        if (r > 0) return 1;
        if (r == 0) { /* every combination decided: no solution exists */
            res->method = M_ENUM;
            return 0;
        }
    }
    int r = nsgs(pp, res);
    res->diverged = r < 0;
    return r > 0;
}

/* The phase problem of pr with velocities w before the phase, normal
 * offsets c and fixed normal impulses a (phase_problem). */
phase_problem phase_of(const nsdyn_impact_problem *pr, const double *w, const double *c,
                       const double *a, int restitution, const double *d0) {
    return (phase_problem){.n = pr->n_contacts,
                           .dim = (int)pr->tangent_dim,
                           .G = pr->delassus,
                           .w = w,
                           .c = c,
                           .a = a,
                           .mu_s = pr->mu_static,
                           .mu_k = pr->mu_kinetic,
                           .restitution = restitution,
                           .d0 = d0};
}

int solve_phase_or_say(phase_problem *pp, phase_result *res, const char *who, char *msg,
                       size_t len) {
    if (solve_phase(pp, res)) return 1;
    phase_failure(msg, len, who, pp, res);
    return 0;
}

/* ---- impact ------------------------------------------------------------- */

/* The phase log's word for a contact's state. */
static const char *state_word(int s, int restitution) {
    switch (s) {
        case LS_OPEN: return "open";
        case LS_OPEN_STICK: return "stick";
        case LS_OPEN_SLIDE: return "slide";
        case LS_CLOSED_STICK: return restitution ? "held stick" : "stick";
        case LS_CLOSED_SLIDE: return restitution ? "held slide" : "slide";
        default: return "?";
    }
}

/* Append "w0, w1, ..." (and the NSGS sweeps) to buf. */
size_t log_states(char *buf, size_t len, size_t at, const phase_result *res, size_t n,
                  int restitution) {
    for (size_t i = 0; i < n && at < len; ++i) {
        int k = snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                         state_word(res->state[i], restitution));
        if (k < 0) return at;
        at += (size_t)k;
    }
    if (res->method == M_NSGS && at < len) {
        int k = snprintf(buf + at, len - at, " (nsgs, %d sweeps)", res->sweeps);
        if (k > 0) at += (size_t)k;
    }
    return at < len ? at : len - 1;
}

/* The message for a phase that found no impulse. */
void phase_failure(char *msg, size_t len, const char *who, const phase_problem *pp,
                   const phase_result *res) {
    if (pp->n == 1) {
        snprintf(msg, len,
                 "%s: no consistent impulse: the contact neither sticks nor slides with "
                 "P_n >= 0 (G_nn - mu_k G_nt.d <= 0 for the slip directions, a "
                 "Painleve-type inconsistency; G_nn = %g 1/kg, mu_k = %g)",
                 who, pp->G[0], pp->mu_k[0]);
    } else if (res->method == M_ENUM) {
        snprintf(msg, len,
                 "%s: no consistent impulse for %zu simultaneous contacts: no combination of "
                 "open, sticking and sliding contacts satisfies the law (the restitution "
                 "targets and friction cones cannot all be met: a wedged configuration or a "
                 "Painleve-type coupling)",
                 who, pp->n);
    } else if (res->diverged) {
        snprintf(msg, len,
                 "%s: no bounded impulse for %zu simultaneous contacts: the impulses of the "
                 "non-smooth Gauss-Seidel iteration (NSGS) grow without bound (%d sweeps): the "
                 "contacts jam (a squeeze between them inside the friction cones changes no "
                 "velocity) or their restitution targets cannot all be met",
                 who, pp->n, res->sweeps);
    } else if (res->failed_contact >= 0) {
        size_t i = (size_t)res->failed_contact, m = 3 * pp->n;
        snprintf(msg, len,
                 "%s: no consistent impulse for %zu simultaneous contacts: after %d "
                 "NSGS sweeps contact %zu neither sticks nor slides with P_n >= 0 given "
                 "the others (a Painleve-type inconsistency; G_nn = %g 1/kg, mu_k = %g)",
                 who, pp->n, res->sweeps, i, pp->G[m * 3 * i + 3 * i], pp->mu_k[i]);
    } else {
        snprintf(msg, len,
                 "%s: the non-smooth Gauss-Seidel iteration (NSGS) did not converge for %zu "
                 "simultaneous contacts (tangent_dim %d): a sweep still changes a contact "
                 "velocity by %.3g m/s after %d sweeps (tolerance %.3g m/s; strongly "
                 "coupled contacts, possibly without a solution)",
                 who, pp->n, pp->dim, res->change, res->sweeps, NSGS_TOL * pp->us);
    }
}

/* The largest |u-| over the used rows (n, t1 and, for tangent_dim 2, t2). */
double velocity_scale(const double *um, size_t n, int dim) {
    double us = 0.0;
    for (size_t i = 0; i < n; ++i)
        for (int r = 0; r <= dim; ++r) us = fmax(us, fabs(um[3 * i + r]));
    return us;
}
