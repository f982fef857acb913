/* The kinematics of a system's contacts at one state, proved numerically
 * (conformance_system.h). For each contact, with W its Jacobian rows and
 * u = W v + w its local velocity (system.h):
 *   - every value finite, and u the same with and without a Jacobian
 *     request;
 *   - u affine in v, and W the change of u per unit of each velocity
 *     (exact: u(v + e_j) - u(v) = W e_j);
 *   - u_n the rate of the gap along the motion: d/ds gap(t + s, q + s q')
 *     at s = 0 (a unilateral contact);
 *   - the drift u' - W v' along the motion with the contact forces zero;
 *   - the work of a unit contact force (each row): with E the energy
 *     output, dE/dv (v'(f) - v'(0)) = f . W v, i.e. derivatives() applies
 *     the forces along the same rows contacts() reports (W^T f). This is
 *     the check on the tangent rows: a tangent row that is not the contact
 *     point's velocity in the direction the force acts fails it.
 * The derivatives along the motion are central differences at two steps;
 * their difference bounds their error, so a kink of a piecewise gap (a
 * terrain vertex) within a step is excused, a wrong row is not.
 * Tolerance: 1e-6 of the size of the terms, plus that error bound. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conformance_system.h"
#include "contact_eval.h"

enum { MAXN = NSD_CF_MAXN, MAXC = NSD_CF_MAXC };
#define REL_TOL 1e-6
#define STEP_S 1e-4 /* [s] the step of the differences along the motion */

/* The contacts at one point. */
typedef struct kin {
    nsdyn_contact_eval e[MAXC];
    double W[MAXC][3 * MAXN];
    nsdyn_status st;
} kin;

static void eval(nsd_cf_sys *y, double t, const double *q, const double *v, int jac, kin *k) {
    double *rows[MAXC];
    for (size_t c = 0; c < MAXC; ++c) rows[c] = k->W[c];
    nsd_cf_at(y->c, "contacts() at %s", y->state);
    k->st =
        nsd_contacts_evaluate(y->s, y->inst, t, q, v, y->L->n_contacts, 0, jac ? rows : NULL, k->e);
}

static nsdyn_status accel(nsd_cf_sys *y, double t, const double *q, const double *v,
                          const double *f, double *qd, double *vd) {
    nsd_cf_at(y->c, "derivatives() at %s", y->state);
    return y->s->derivatives(y->inst, t, q, v, f, qd, vd);
}

static int all_finite(const double *x, size_t n, size_t *at) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(x[i])) return *at = i, 0;
    return 1;
}

static void mismatch(nsd_cf_sys *y, size_t k, int kind, const char *fmt, double have, double want,
                     double tol) {
    if (!nsd_cf_sys_first(y, k, kind)) return;
    char what[300];
    snprintf(what, sizeof what, fmt, nsd_cf_sys_contact(y, k));
    nsd_cf_finding(y->c, "%s: %.9g, expected %.9g (error %.3g, tolerance %.2g) at %s", what, have,
                   want, fabs(have - want), tol, y->state);
}

/* Non-finite values and failures: reported as such; 0 when the state
 * cannot be checked further. */
static int check_finite(nsd_cf_sys *y, const kin *k, const double *qd, const double *vd,
                        nsdyn_status dst) {
    const nsdyn_system_layout *L = y->L;
    size_t at, nc = L->n_contacts;
    if (dst > NSDYN_WARNING || k->st > NSDYN_WARNING) {
        if (nsd_cf_sys_first(y, nc, NSD_CFK_FAILS))
            nsd_cf_finding(y->c, "%s fails at %s",
                           dst > NSDYN_WARNING ? "derivatives()" : "contacts()", y->state);
        return 0;
    }
    int ok = 1;
    if (!all_finite(qd, L->nq, &at) || !all_finite(vd, L->nv, &at)) {
        if (nsd_cf_sys_first(y, nc, NSD_CFK_NONFINITE))
            nsd_cf_finding(y->c, "derivatives() gives a non-finite %s'[%zu] at %s",
                           all_finite(qd, L->nq, &at) ? "v" : "q", at, y->state);
        ok = 0;
    }
    for (size_t c = 0; c < nc; ++c) {
        const nsdyn_contact_eval *e = &k->e[c];
        const char *bad = !isfinite(e->gap)                      ? "gap"
                          : !all_finite(e->u, 3, &at)            ? "velocity u"
                          : !all_finite(e->drift, 3, &at)        ? "drift"
                          : !all_finite(k->W[c], 3 * L->nv, &at) ? "Jacobian row"
                                                                 : NULL;
        if (bad && nsd_cf_sys_first(y, c, NSD_CFK_NONFINITE))
            nsd_cf_finding(y->c, "contacts(): contact '%s' has a non-finite %s at %s",
                           L->contacts[c].name, bad, y->state);
        ok &= !bad;
    }
    return ok;
}

/* u affine in v, W its change per unit of each velocity, and the same u
 * without a Jacobian request. */
static void check_rows(nsd_cf_sys *y, double t, const double *q, const double *v, const kin *k0) {
    const nsdyn_system_layout *L = y->L;
    kin kj, kh;
    double vj[MAXN], vh[MAXN];
    eval(y, t, q, v, 0, &kj);
    for (size_t c = 0; c < L->n_contacts; ++c)
        for (int r = 0; r < 3; ++r)
            if (!nsd_cf_same(&kj.e[c].u[r], &k0->e[c].u[r], 1))
                mismatch(y, c, NSD_CFK_REQUEST,
                         "contacts(): contact '%s' gives another u without a Jacobian request",
                         kj.e[c].u[r], k0->e[c].u[r], 0.0);
    for (size_t j = 0; j < L->nv; ++j) {
        memcpy(vj, v, L->nv * sizeof *v);
        memcpy(vh, v, L->nv * sizeof *v);
        vj[j] += 1.0, vh[j] += 0.5;
        eval(y, t, q, vj, 0, &kj);
        eval(y, t, q, vh, 0, &kh);
        if (kj.st > NSDYN_WARNING || kh.st > NSDYN_WARNING) return;
        for (size_t c = 0; c < L->n_contacts; ++c)
            for (uint32_t r = 0; r <= L->contacts[c].tangent_dim; ++r) {
                double u0 = k0->e[c].u[r], u1 = kj.e[c].u[r], uh = kh.e[c].u[r];
                double size = fabs(u0) + fabs(u1) + fabs(k0->W[c][r * L->nv + j]);
                double tol = 1e-9 * size + 1e-300;
                char fmt[200];
                if (!(fabs(uh - 0.5 * (u0 + u1)) <= tol)) {
                    snprintf(fmt, sizeof fmt,
                             "contacts(): contact '%%s' u[%u] is not affine in v (%s): "
                             "u at half a step",
                             r, L->v[j].name);
                    mismatch(y, c, NSD_CFK_AFFINE, fmt, uh, 0.5 * (u0 + u1), tol);
                } else if (!(fabs(k0->W[c][r * L->nv + j] - (u1 - u0)) <= tol)) {
                    snprintf(fmt, sizeof fmt,
                             "contacts(): contact '%%s' Jacobian row %u, column %s disagrees "
                             "with the change of u[%u] per unit %s",
                             r, L->v[j].name, r, L->v[j].name);
                    mismatch(y, c, NSD_CFK_JACOBIAN, fmt, k0->W[c][r * L->nv + j], u1 - u0, tol);
                }
            }
    }
}

/* The contacts at (t + s, q + s qd, v + s vd) for s = +-h, +-h/2; the
 * central differences of the gap and u at h and h/2. Returns 0 when a call
 * fails (a state the plugin refuses). */
static int along(nsd_cf_sys *y, double t, const double *q, const double *v, const double *qd,
                 const double *vd, double dg[2][MAXC], double du[2][MAXC][3], double *size) {
    const nsdyn_system_layout *L = y->L;
    const double s[4] = {STEP_S, -STEP_S, 0.5 * STEP_S, -0.5 * STEP_S};
    kin k[4];
    double qs[MAXN], vs[MAXN];
    *size = 0.0;
    for (int i = 0; i < 4; ++i) {
        for (size_t j = 0; j < L->nq; ++j) qs[j] = q[j] + s[i] * qd[j];
        for (size_t j = 0; j < L->nv; ++j) vs[j] = v[j] + s[i] * vd[j];
        eval(y, t + s[i], qs, vs, 0, &k[i]);
        if (k[i].st > NSDYN_WARNING) return 0;
    }
    for (size_t c = 0; c < L->n_contacts; ++c) {
        for (int i = 0; i < 2; ++i) {
            dg[i][c] = (k[2 * i].e[c].gap - k[2 * i + 1].e[c].gap) / (2 * s[2 * i]);
            for (int r = 0; r < 3; ++r)
                du[i][c][r] = (k[2 * i].e[c].u[r] - k[2 * i + 1].e[c].u[r]) / (2 * s[2 * i]);
        }
        /* rounding: the values' size times eps over the smaller step */
        double big = fabs(k[0].e[c].gap) + fabs(k[0].e[c].u[0]) + fabs(k[0].e[c].u[1]) +
                     fabs(k[0].e[c].u[2]);
        *size = fmax(*size, 64 * 2.2e-16 * big / STEP_S);
    }
    return 1;
}

/* u_n = d(gap)/dt and drift = du/dt - W v' along the motion (forces zero). */
static void check_motion(nsd_cf_sys *y, double t, const double *q, const double *v, const kin *k0,
                         const double *qd, const double *vd) {
    const nsdyn_system_layout *L = y->L;
    double dg[2][MAXC], du[2][MAXC][3], round;
    if (!along(y, t, q, v, qd, vd, dg, du, &round)) return;
    for (size_t c = 0; c < L->n_contacts; ++c) {
        const nsdyn_contact_eval *e = &k0->e[c];
        if (L->contacts[c].type == NSDYN_CONTACT_UNILATERAL && e->active) {
            double fd_err = fabs(dg[0][c] - dg[1][c]), size = fabs(e->u[0]) + fabs(dg[1][c]);
            double tol = REL_TOL * size + 4 * fd_err + round;
            if (!(fabs(e->u[0] - dg[1][c]) <= tol))
                mismatch(y, c, NSD_CFK_GAP_RATE,
                         "contacts(): contact '%s' normal velocity u_n (the Jacobian row times v) "
                         "against the rate of its gap along the motion",
                         e->u[0], dg[1][c], tol);
        }
        for (uint32_t r = 0; r <= L->contacts[c].tangent_dim; ++r) {
            double Wvd = 0.0, terms = 0.0;
            for (size_t j = 0; j < L->nv; ++j) {
                Wvd += k0->W[c][r * L->nv + j] * vd[j];
                terms += fabs(k0->W[c][r * L->nv + j] * vd[j]);
            }
            double want = du[1][c][r] - Wvd, fd_err = fabs(du[0][c][r] - du[1][c][r]);
            double tol =
                REL_TOL * (terms + fabs(du[1][c][r]) + fabs(e->drift[r])) + 4 * fd_err + round;
            char fmt[160];
            snprintf(fmt, sizeof fmt,
                     "contacts(): contact '%%s' drift[%u] (u' - W v') against du[%u]/dt - W v' "
                     "along the motion",
                     r, r);
            if (!(fabs(e->drift[r] - want) <= tol))
                mismatch(y, c, NSD_CFK_DRIFT, fmt, e->drift[r], want, tol);
        }
    }
}

/* The energy output at (t, q, v), forces zero; NAN when it fails. */
static double energy_at(nsd_cf_sys *y, double t, const double *q, const double *v) {
    double out[NSD_CF_MAXOUT], f[3 * MAXC] = {0};
    nsd_cf_at(y->c, "outputs() at %s", y->state);
    if (y->s->outputs(y->inst, t, q, v, f, out) > NSDYN_WARNING) return NAN;
    return out[y->energy];
}

/* The work of a unit force on each row of each active contact against
 * f . W v: derivatives() applies W^T f with the rows contacts() reports. */
static void check_power(nsd_cf_sys *y, double t, const double *q, const double *v, const kin *k0,
                        const double *vd0) {
    const nsdyn_system_layout *L = y->L;
    double f[3 * MAXC] = {0}, vd[MAXN], d[MAXN], vp[MAXN], vm[MAXN];
    for (size_t c = 0; c < L->n_contacts; ++c) {
        if (!k0->e[c].active) continue;
        for (uint32_t r = 0; r <= L->contacts[c].tangent_dim; ++r) {
            f[3 * c + r] = 1.0;
            nsdyn_status st = accel(y, t, q, v, f, NULL, vd);
            f[3 * c + r] = 0.0;
            if (st > NSDYN_WARNING) return;
            double dmax = 0.0;
            for (size_t j = 0; j < L->nv; ++j) d[j] = vd[j] - vd0[j], dmax = fmax(dmax, fabs(d[j]));
            if (!(dmax > 0.0)) continue; /* a force that moves nothing: no work to compare */
            /* E is quadratic in v: the central difference is exact up to rounding */
            double h = 1e-3 / dmax;
            for (size_t j = 0; j < L->nv; ++j) vp[j] = v[j] + h * d[j], vm[j] = v[j] - h * d[j];
            double Ep = energy_at(y, t, q, vp), Em = energy_at(y, t, q, vm);
            double have = (Ep - Em) / (2 * h), want = 0.0, terms = 0.0;
            for (size_t j = 0; j < L->nv; ++j) {
                want += k0->W[c][r * L->nv + j] * v[j];
                terms += fabs(k0->W[c][r * L->nv + j] * v[j]);
            }
            double tol = REL_TOL * (terms + fabs(have)) + 1e3 * 2.2e-16 * fabs(Ep) / h;
            char fmt[200];
            snprintf(fmt, sizeof fmt,
                     "derivatives(): the power of a unit force on contact '%%s' row %u (the rate "
                     "of the energy output) against that row times v: the force is not applied "
                     "along the row contacts() reports",
                     r);
            if (isfinite(have) && !(fabs(have - want) <= tol))
                mismatch(y, c, NSD_CFK_POWER, fmt, have, want, tol);
        }
    }
}

void nsd_cf_motion(nsd_cf_sys *y, double t, const double *q, const double *v) {
    const nsdyn_system_layout *L = y->L;
    double f[3 * MAXC] = {0}, qd[MAXN], vd[MAXN];
    kin k0;
    nsdyn_status dst = accel(y, t, q, v, f, qd, vd);
    eval(y, t, q, v, 1, &k0);
    if (!check_finite(y, &k0, qd, vd, dst)) return;
    check_rows(y, t, q, v, &k0);
    check_motion(y, t, q, v, &k0, qd, vd);
    if (y->energy >= 0 && L->n_outputs <= NSD_CF_MAXOUT) check_power(y, t, q, v, &k0, vd);
}

/* A CONSERVATIVE system with every contact force zero keeps its energy:
 * classical Runge-Kutta, 200 steps of 0.5 ms; its error on a smooth system
 * is O(h^4), far below the tolerance 1e-6 of the energy's size. */
void nsd_cf_free_flight(nsd_cf_sys *y, double t, const double *q, const double *v) {
    const nsdyn_system_layout *L = y->L;
    const size_t nq = L->nq, nv = L->nv;
    const double h = 5e-4;
    double x[2 * MAXN], k[4][2 * MAXN], xs[2 * MAXN], f[3 * MAXC] = {0};
    memcpy(x, q, nq * sizeof *x), memcpy(x + nq, v, nv * sizeof *x);
    double E0 = energy_at(y, t, x, x + nq), Emax = fabs(E0), E = E0;
    if (!isfinite(E0)) return;
    for (int n = 0; n < 200; ++n) {
        static const double a[4] = {0.0, 0.5, 0.5, 1.0};
        for (int s = 0; s < 4; ++s) {
            for (size_t j = 0; j < nq + nv; ++j) xs[j] = x[j] + (s ? a[s] * h * k[s - 1][j] : 0.0);
            if (accel(y, t + a[s] * h, xs, xs + nq, f, k[s], k[s] + nq) > NSDYN_WARNING) return;
        }
        for (size_t j = 0; j < nq + nv; ++j)
            x[j] += h / 6 * (k[0][j] + 2 * k[1][j] + 2 * k[2][j] + k[3][j]);
        t += h;
        E = energy_at(y, t, x, x + nq);
        if (!isfinite(E)) return;
        Emax = fmax(Emax, fabs(E));
    }
    double tol = REL_TOL * Emax + 1e-300;
    if (!(fabs(E - E0) <= tol))
        mismatch(y, L->n_contacts, NSD_CFK_ENERGY,
                 "derivatives(): declares CONSERVATIVE, but %s's energy output after 0.1 s of "
                 "free flight (every contact force zero)",
                 E, E0, tol);
}
