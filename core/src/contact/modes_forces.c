/* Event-driven rigid contact: the unknown forces of the current modes from
 * their linear system A x = b (modes_phase.c builds it; notation there),
 * unique even when the constraints are redundant (docs/event-driven.md,
 * "Redundant contacts").
 *
 * 1. The minimum-norm solution (nsn_least_norm: QR with column pivoting
 *    and a complete orthogonal decomposition, rank to NSD_FORCE_RANK_RTOL;
 *    at full rank the same solution by the LU the host always used).
 *    A full-rank A has one solution; a redundant one (two corners of a
 *    block at rest share their tangent row, four corners of a box their
 *    tangent rows and one normal combination) a family x0 + null(A), of
 *    which x0 is the least |x|.
 * 2. If x0 is not admissible (a closed contact pulls, N < 0, or a sticking
 *    contact's force leaves the cone |F_t| <= mu_s N) while an admissible
 *    member of the family exists, the admissible member of least norm: the
 *    projection of x0 onto {A x = b} intersected with the cones K, by
 *    Dykstra's alternating projections (the affine set needs no
 *    correction term). For x with A x = b, |x|^2 = |x0|^2 + |x - x0|^2
 *    (x0 is orthogonal to null(A)), so the projection of x0 is the least
 *    |x| among the admissible forces: unique (a strictly convex norm on a
 *    closed convex set) and continuous in the state. A box on a 30 degree
 *    incline with mu = 0.7 is the case: the least-norm split gives the
 *    four corners equal tangential forces but the uphill corners less
 *    normal force (the moment of the friction), 0.81 of their normal force
 *    at the uphill corners, outside the cone; the admissible split sticks
 *    at all four. Without an admissible member x0 stays (the mode choice
 *    makes a contact slip or open). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <string.h>

#include "modes_work.h"
#include "nsdyn_numeric.h"

/* Relative rank tolerance of the force system (nsn_least_norm's rcond).
 * Its entries are W C_k with C_k = v'(lambda + e_k) - v'(lambda), one
 * derivatives() call apart: each carries an absolute rounding of ~eps |v'|,
 * i.e. a relative error up to eps |v'| m_eff / (1 N) of the column, 2e-16
 * g m_eff: about 1e-12 for a 500 kg body under gravity. Two constraint
 * rows equal to that rounding (two corners of a block at rest on flat
 * ground, four of a box: the same tangent row) then leave a singular value
 * of 1e-16 .. 1e-12 of the largest, which a test at 1e-10 drops whatever
 * the scale of the system; rows at a relative angle delta apart keep a
 * singular value ~delta^2 of the largest, so they count as independent down
 * to delta ~ 1e-5 (contacts 10 um apart on a 1 m body), below which the
 * forces that would tell them apart exceed 1e10 times the load. */
#define NSD_FORCE_RANK_RTOL 1e-10
/* A rank-deficient system is consistent when its least-squares residual is
 * rounding: below 1e-8 of |A| |x| + |b| (max norms), four orders above the
 * columns' relative rounding above; an inconsistent one (a Painleve-type
 * singularity, or rows the drift terms tell apart) fails. */
#define NSD_FORCE_RESIDUAL_RTOL 1e-8
/* Dykstra's iteration stops when the cone step moves no component by more
 * than this fraction of the force scale (the forces are then admissible
 * to that fraction); it gives up after NSD_ADMISSIBLE_ITER sweeps (an
 * empty intersection never converges). */
#define NSD_ADMISSIBLE_TOL 1e-13
#define NSD_ADMISSIBLE_ITER 4000
/* The cones projected onto are mu_s (1 - NSD_CONE_MARGIN): the least-norm
 * admissible force of a redundant contact lies on its cone, where the stick
 * event mu_s N - |F_t| would read zero, and rounding of 1e-13 would make
 * it fire at every step; 1e-9 of the bound inside, far above that rounding
 * and far below any physical tolerance, it fires only when the load really
 * leaves the cone. */
#define NSD_CONE_MARGIN 1e-9

/* The base force of contact c (fixed parts in d->lambda: a persistent or
 * compliant contact's load, a slipping contact's friction per N) plus the
 * unknowns of x. */
static void contact_force(const nsd_data *data, const double *x, size_t c, double *f) {
    const nsd_modes_work *w = data->ed.work;
    f[0] = data->lambda[3 * c], f[1] = data->lambda[3 * c + 1], f[2] = data->lambda[3 * c + 2];
    for (size_t k = 0; k < w->n_unknown; ++k)
        if (w->unk[k] / 3 == c) f[w->unk[k] % 3] += x[k];
}

/* Unknown index of component comp of contact c, or nu if it is no unknown. */
static size_t unknown_of(const nsd_modes_work *w, size_t c, size_t comp) {
    for (size_t k = 0; k < w->n_unknown; ++k)
        if (w->unk[k] == 3 * c + comp) return k;
    return w->n_unknown;
}

/* Whether the forces x satisfy N >= 0 at closed rigid contacts and
 * |F_t| <= mu_s N at sticking ones, to slack times the force scale. */
static int admissible(const nsd_model *m, nsd_data *data, const double *x, double slack) {
    for (size_t c = 0; c < m->nc; ++c) {
        if (!data->ce[c].active || !data->ed.mode[c].closed) continue;
        double f[3];
        contact_force(data, x, c, f);
        if (unknown_of(data->ed.work, c, 0) < data->ed.work->n_unknown && f[0] < -slack) return 0;
        if (m->friction && data->ed.mode[c].stick &&
            hypot(f[1], f[2]) > data->mu_static * fmax(f[0], 0.0) + slack)
            return 0;
    }
    return 1;
}

/* x onto K, contact by contact: a closed rigid contact's N >= 0 (the
 * half-line) or, sticking, (N, F_t) onto the cone |F_t| <= mu_s N
 * (nsn_proj_cone); a sticking contact with a given N (persistent,
 * compliant) F_t onto the disc of radius mu_s N. Unknowns only. */
static void project_cones(const nsd_model *m, nsd_data *data, double *x) {
    const nsd_modes_work *w = data->ed.work;
    size_t nu = w->n_unknown;
    for (size_t c = 0; c < m->nc; ++c) {
        if (!data->ce[c].active || !data->ed.mode[c].closed) continue;
        size_t kn = unknown_of(w, c, 0), k1 = unknown_of(w, c, 1), k2 = unknown_of(w, c, 2);
        int stick = m->friction && data->ed.mode[c].stick && k1 < nu;
        if (!stick) {
            if (kn < nu) x[kn] = fmax(x[kn], -data->lambda[3 * c]);
            continue;
        }
        double f[3],
            base[3] = {data->lambda[3 * c], data->lambda[3 * c + 1], data->lambda[3 * c + 2]};
        contact_force(data, x, c, f);
        unsigned nt = k2 < nu ? 2u : 1u;
        double mu = data->mu_static * (1.0 - NSD_CONE_MARGIN);
        if (kn < nu) {
            nsn_proj_cone(f, mu, nt);
            x[kn] = f[0] - base[0];
        } else {
            double r = mu * fmax(f[0], 0.0), s = hypot(f[1], f[2]);
            if (s > r) f[1] *= r / s, f[2] *= r / s;
        }
        x[k1] = f[1] - base[1];
        if (k2 < nu) x[k2] = f[2] - base[2];
    }
}

/* x onto {A x = b}: x0 + Z Z^T (x - x0), Z (nu x d, column-major in
 * w->adm_Z) an orthonormal basis of null(A). */
static void project_affine(const nsd_modes_work *w, size_t nu, size_t d, const double *x0,
                           double *x) {
    double *y = w->adm_y;
    for (size_t j = 0; j < d; ++j) {
        double s = 0.0;
        for (size_t i = 0; i < nu; ++i) s += w->adm_Z[j * nu + i] * (x[i] - x0[i]);
        y[j] = s;
    }
    for (size_t i = 0; i < nu; ++i) {
        double s = x0[i];
        for (size_t j = 0; j < d; ++j) s += w->adm_Z[j * nu + i] * y[j];
        x[i] = s;
    }
}

/* Largest violation of admissibility at x: max over closed contacts of
 * -N (rigid) and |F_t| - mu_s (1 - margin) N (sticking) [N]; convex in x. */
static double violation(const nsd_model *m, nsd_data *data, const double *x) {
    double v = -INFINITY, mu = data->mu_static * (1.0 - NSD_CONE_MARGIN);
    for (size_t c = 0; c < m->nc; ++c) {
        if (!data->ce[c].active || !data->ed.mode[c].closed) continue;
        double f[3];
        contact_force(data, x, c, f);
        if (unknown_of(data->ed.work, c, 0) < data->ed.work->n_unknown) v = fmax(v, -f[0]);
        if (m->friction && data->ed.mode[c].stick) v = fmax(v, hypot(f[1], f[2]) - mu * f[0]);
    }
    return v;
}

/* violation(, ->d) along x0 + s z (z: the first column of w->adm_Z). */
static double line_violation(const nsd_model *m, nsd_data *data, size_t nu, double s) {
    const nsd_modes_work *w = data->ed.work;
    for (size_t i = 0; i < nu; ++i) w->adm_xk[i] = w->adm_x0[i] + s * w->adm_Z[i];
    return violation(m, data, w->adm_xk);
}

/* One free direction (d = 1, the common case: a block or a wheel on two
 * corners, a wheel wedged in a corner): the admissible s form an interval
 * (violation is convex along the line), possibly one point (the wedged
 * wheel: N = F = 0 at the wall is the only admissible split). Its point
 * nearest s = 0, the least-norm one, by golden-section search for the least
 * violation over |s| <= 1e3 scale and bisection between 0 and it. Exact to
 * rounding where Dykstra's iteration converges sublinearly (a one-point
 * intersection). Returns 1 with x in w->x, 0 if the interval is empty. */
static int admissible_on_line(const nsd_model *m, nsd_data *data, size_t nu, double scale) {
    nsd_modes_work *w = data->ed.work;
    const double slack = 1e-12 * scale, phi = 0.5 * (sqrt(5.0) - 1.0);
    double lo = -1e3 * scale, hi = 1e3 * scale;
    for (int it = 0; it < 200 && hi - lo > 1e-15 * scale; ++it) {
        double a = hi - phi * (hi - lo), b = lo + phi * (hi - lo);
        if (line_violation(m, data, nu, a) < line_violation(m, data, nu, b))
            hi = b;
        else
            lo = a;
    }
    double best = 0.5 * (lo + hi);
    if (line_violation(m, data, nu, best) > slack) return 0;
    double in = best, out = 0.0; /* s = 0 is not admissible (the caller's test) */
    for (int it = 0; it < 200 && fabs(in - out) > 1e-16 * scale; ++it) {
        double mid = 0.5 * (in + out);
        if (line_violation(m, data, nu, mid) <= 0.0)
            in = mid;
        else
            out = mid;
    }
    if (line_violation(m, data, nu, in) > slack) in = best;
    for (size_t i = 0; i < nu; ++i) w->x[i] = w->adm_x0[i] + in * w->adm_Z[i];
    return 1;
}

/* The least-norm admissible forces (2. above) into w->x, from the
 * least-norm x0 in w->x. Returns 1 if found, 0 if not (w->x untouched). */
static int admissible_forces(const nsd_model *m, nsd_data *data, size_t nu, double scale) {
    nsd_modes_work *w = data->ed.work;
    /* null(A): the right singular vectors of A beyond its rank are the
     * left ones of A^T, which is what row-major A is to LAPACK */
    memcpy(w->adm_work, w->A, nu * nu * sizeof *w->A);
    int d = nsn_null_space(nu, w->adm_work, NSD_FORCE_RANK_RTOL, w->adm_Z, w->adm_work + nu * nu,
                           w->adm_len - nu * nu);
    if (d <= 0) return 0;
    double *x0 = w->adm_x0, *x = w->adm_xk, *p = w->adm_p, *yk = w->adm_q;
    memcpy(x0, w->x, nu * sizeof *x0);
    if (d == 1) return admissible_on_line(m, data, nu, scale);
    memcpy(x, x0, nu * sizeof *x);
    memset(p, 0, nu * sizeof *p);
    double tol = NSD_ADMISSIBLE_TOL * scale;
    for (int it = 0; it < NSD_ADMISSIBLE_ITER; ++it) {
        for (size_t i = 0; i < nu; ++i) yk[i] = x[i] + p[i];
        project_cones(m, data, yk);
        double moved = 0.0;
        for (size_t i = 0; i < nu; ++i) {
            p[i] += x[i] - yk[i];
            moved = fmax(moved, fabs(x[i] - yk[i]));
        }
        memcpy(x, yk, nu * sizeof *x);
        project_affine(w, nu, (size_t)d, x0, x);
        if (moved <= tol && admissible(m, data, x, 1e3 * tol)) {
            memcpy(w->x, x, nu * sizeof *x);
            return 1;
        }
    }
    return 0;
}

/* Whether every unknown is the tangential force of a sticking compliant
 * contact (the normal force is the law's). Then a rank-deficient system
 * whose rows disagree is kept in the least-squares sense, not refused:
 * two corners of a block resting on a compliant floor have tangent rows
 * (1, 0, b cos th -+ a sin th) a relative angle ~ 2 (a/b) th apart, and
 * while the block rocks on the springs the rows ask for forces
 * ~ (normal torque) / (2 a th), beyond any cone as th -> 0: with both
 * sticking exactly, rigid kinematics forbids the rocking the springs
 * drive. Below the rank tolerance (th ~ 1e-5 rad for a 1 m block) the
 * least-squares forces hold both corners' tangential accelerations as
 * close to zero as any force can (Filippov's solution on the intersection
 * of the two sticking surfaces: the component no admissible force can
 * change, the corners' relative tangential acceleration 2 a sin th omega',
 * is left to the motion, split evenly; no force works on it). Above it
 * the forces leave the cone and a corner slips, as before. Only while that
 * left-over acceleration (`residual`, m/s^2) is below NSD_COMPLIANT_RESIDUAL
 * of the largest free acceleration (v' without contact forces, about g):
 * a resting block's is 1e-31 .. 1e-5 of it, its last rocking up to 3e-3
 * (tests/test_resting_forces.c); the Section 5 rimless wheel's two tips
 * sliding at theta near 0 leave 3e-2 (a omega^2, no rest: release_stick's
 * rule, the slip goes on, as validation-targets.md's sequence has it).
 * Rigid contacts keep the refusal (a Painleve-type inconsistency). */
#define NSD_COMPLIANT_RESIDUAL 1e-2
static int compliant_sticking(const nsd_model *m, nsd_data *data, double residual) {
    const nsd_modes_work *w = data->ed.work;
    double a_free = 0.0;
    for (size_t i = 0; i < m->nv; ++i) a_free = fmax(a_free, fabs(data->a0[i]));
    if (!(residual <= NSD_COMPLIANT_RESIDUAL * a_free)) return 0;
    for (size_t k = 0; k < w->n_unknown; ++k) {
        size_t c = w->unk[k] / 3;
        if (w->unk[k] % 3 == 0 || !is_compliant(m, c) || !data->ed.mode[c].stick) return 0;
    }
    return 1;
}

int nsd_modes_solve_forces(const nsd_model *m, nsd_data *data, size_t nu) {
    nsd_modes_work *w = data->ed.work;
    memcpy(w->u_minus, w->x, nu * sizeof *w->x);
    int rank =
        nsn_least_norm(nu, w->A, w->x, NSD_FORCE_RANK_RTOL, w->ln_work, w->ln_len, w->ln_jpvt);
    if (rank < 0) return -1;
    if ((size_t)rank == nu) {
        /* Full rank: the one solution, taken from the LU of before (partial
         * pivoting, nsd_solve_small), so a run whose force systems are never
         * singular keeps its numbers to the bit (QR's differ by rounding,
         * which a long run amplifies: 6e-7 relative in the rimless walk's
         * pc_x); dgelsy's own if that LU refuses. */
        memcpy(w->D, w->A, nu * nu * sizeof *w->A);
        memcpy(w->adm_x0, w->u_minus, nu * sizeof *w->x);
        if (nsd_solve_small(w->D, w->adm_x0, nu) == 0) memcpy(w->x, w->adm_x0, nu * sizeof *w->x);
        return 0;
    }
    double amax = 0.0, xmax = 0.0, bmax = 0.0, rmax = 0.0;
    for (size_t r = 0; r < nu; ++r) {
        double res = -w->u_minus[r];
        for (size_t k = 0; k < nu; ++k) {
            res += w->A[r * nu + k] * w->x[k];
            amax = fmax(amax, fabs(w->A[r * nu + k]));
        }
        xmax = fmax(xmax, fabs(w->x[r]));
        bmax = fmax(bmax, fabs(w->u_minus[r]));
        rmax = fmax(rmax, fabs(res));
    }
    if (rmax > NSD_FORCE_RESIDUAL_RTOL * (amax * xmax + bmax) && !compliant_sticking(m, data, rmax))
        return -1;
    double scale = xmax;
    for (size_t k = 0; k < 3 * m->nc; ++k) scale = fmax(scale, fabs(data->lambda[k]));
    if (!admissible(m, data, w->x, 1e-12 * scale)) admissible_forces(m, data, nu, scale);
    return 0;
}
