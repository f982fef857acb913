/* Variational equations and saltation matrices along a run
 * (periodic_tangent.h). */
#define _GNU_SOURCE
#include "periodic_tangent.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affine.h"
#include "modes.h"
#include "plugin_calls.h"

/* Relative steps of the central differences: cbrt(eps) balances the
 * O(d^2) truncation against the O(eps / d) rounding of a smooth function
 * (the right-hand side, the event functions); the jumps get a smaller one,
 * since a system's reset may be guarded by a tolerance (walker_impact's
 * strike: swing foot within 1e-6 l of the ramp) that a larger step would
 * cross. */
#define TANGENT_FD_REL 6e-6
#define TANGENT_JUMP_REL 1e-7
/* A column of the rhs Jacobian is differenced again at a 100 times smaller
 * step while a row's second difference exceeds this fraction of its first
 * (jacobian() below), at most TANGENT_FD_LEVELS steps in all (6e-6 down to
 * 6e-10 relative: rounding then costs about eps / 6e-10 ~ 4e-7 relative). */
#define TANGENT_SMOOTH_RATIO 1e-3
#define TANGENT_FD_LEVELS 3
/* The probes of the rate after a jump, relative to max(|t|, 1 s)
 * (rate_after() below). */
#define TANGENT_PROBE_REL 1e-9
/* The runner's state after a jump against the jump reproduced here. */
#define TANGENT_JUMP_TOL 1e-8

struct nsd_tangent {
    nsd_run_observer obs;
    const nsd_model *m;
    nsd_data *d; /* the data of the runs it observes */
    size_t n;
    int substeps;
    int hermite;                        /* fa, fb hold the slopes at the current step's ends */
    double *scale;                      /* n */
    double *Phi, *Om, *A1, *A2, *E, *T; /* n^2 each */
    double *ya, *yb, *fa, *fb, *yp, *fp, *fm, *yc, *f0, *ok; /* n each */
    double *g; /* n_events event functions, then nc gaps and nc gap rates */
    /* the jump being crossed: what jump_before found, for jump_after */
    int pending;
    int kind; /* jump_kind() of the pending jump */
    nsd_event_source src;
    double t_jump, h_t;
    double *G, *dh, *f_minus, *g_pred, *g_t, *y_minus; /* n^2, n, n, n, n, n */
    unsigned long long rhs_evals;
    unsigned long long one_sided; /* entries of A differenced one-sided */
    size_t jumps;
    char message[768];
};

static double step_of(const nsd_tangent *tg, size_t i, double y, double rel) {
    return rel * fmax(fabs(y), tg->scale[i]);
}

static int fail(nsd_tangent *tg, const char *fmt, const char *detail) {
    snprintf(tg->message, sizeof tg->message, fmt, detail);
    return -1;
}

static int rhs(nsd_tangent *tg, double t, const double *y, double *f) {
    tg->rhs_evals++;
    if (nsd_model_rhs(tg->m, tg->d, t, y, f) <= NSDYN_WARNING) return 0;
    return fail(tg, "variational equations: the right-hand side failed: %s", tg->d->failure);
}

/* Column j of A where the central difference at step d straddles no
 * non-smooth point of the right-hand side: row i is accepted when its second
 * difference fp - 2 f0 + fm is small against its first, |fp - fm| / 2, or
 * at the level of rounding (smooth: the ratio is O(d f''/f'); a jump or a
 * kink within d of y makes it O(1)). Accepted rows are marked in ok. The
 * number of rows still open. */
static size_t accept_rows(nsd_tangent *tg, size_t j, double d, double *A, double *ok) {
    size_t n = tg->n, open = 0;
    for (size_t i = 0; i < n; ++i) {
        if (ok[i] != 0.0) continue;
        double p = tg->fp[i], o = tg->f0[i], m = tg->fm[i];
        double second = fabs(p - 2.0 * o + m), first = 0.5 * fabs(p - m);
        double noise = 64.0 * DBL_EPSILON * (fabs(p) + fabs(o) + fabs(m));
        if (second <= TANGENT_SMOOTH_RATIO * first || second <= noise) {
            A[i * n + j] = (p - m) / (2.0 * d);
            ok[i] = 1.0;
        } else
            ++open;
    }
    return open;
}

/* A = df/dy at (t, y) by central differences, into A (n x n row-major).
 * The right-hand side of a compliant contact is not smooth everywhere:
 * LuGre's bristle rate has |v| (a kink at zero slip), and the host holds a
 * friction state while its contact carries no load (dz/dt = v - k z
 * inside, 0 outside: a jump across the load surface N = 0). Right after a
 * contact closes the trajectory lies within any difference step of that
 * surface, and a central difference across it puts (v - k z) / 2d into A
 * where the right value is O(1); and the velocity step 6e-6 m/s is 6% of
 * LuGre's Stribeck speed 1e-4 m/s on walker2 (a smooth 0.1 s window 1.7%
 * off; with plain central differences walker2's multipliers include a pair
 * at |mu| = 0.53 instead of 0.43; docs/periodic.md). So a
 * column whose second difference says it straddles a non-smooth point is
 * differenced again with a step 100 times smaller, down to
 * TANGENT_FD_LEVELS steps; a row still straddling at the smallest step
 * takes the one-sided difference of smaller magnitude (a jump makes the
 * other one O(jump / d): it is the side across the surface, away from the
 * state's own phase). 2 n + 1 evaluations where everything is smooth. */
static int jacobian(nsd_tangent *tg, double t, const double *y, double *A) {
    size_t n = tg->n;
    if (rhs(tg, t, y, tg->f0) != 0) return -1;
    memcpy(tg->yp, y, n * sizeof *y);
    for (size_t j = 0; j < n; ++j) {
        double d = step_of(tg, j, y[j], TANGENT_FD_REL);
        size_t open = n;
        memset(tg->ok, 0, n * sizeof *tg->ok);
        for (int level = 0; open > 0 && level < TANGENT_FD_LEVELS; ++level, d *= 0.01) {
            tg->yp[j] = y[j] + d;
            if (rhs(tg, t, tg->yp, tg->fp) != 0) return -1;
            tg->yp[j] = y[j] - d;
            if (rhs(tg, t, tg->yp, tg->fm) != 0) return -1;
            tg->yp[j] = y[j];
            open = accept_rows(tg, j, d, A, tg->ok);
        }
        d *= 100.0; /* the last level's step */
        for (size_t i = 0; open > 0 && i < n; ++i) {
            if (tg->ok[i] != 0.0) continue;
            double up = (tg->fp[i] - tg->f0[i]) / d, down = (tg->f0[i] - tg->fm[i]) / d;
            A[i * n + j] = fabs(up) < fabs(down) ? up : down;
            tg->one_sided++;
        }
    }
    return 0;
}

/* C = A B (n x n); C must not alias A or B. */
static void matmul(size_t n, const double *A, const double *B, double *C) {
    for (size_t i = 0; i < n; ++i) {
        double *c = C + i * n;
        memset(c, 0, n * sizeof *c);
        for (size_t k = 0; k < n; ++k) {
            double a = A[i * n + k];
            if (a == 0.0) continue;
            for (size_t j = 0; j < n; ++j) c[j] += a * B[k * n + j];
        }
    }
}

/* E = expm(Om) by scaling and squaring of the Taylor series: Om / 2^s has
 * norm <= 1/2, where 16 terms leave 0.5^17 / 17! ~ 2e-20. Om is
 * overwritten. Uses tg->T, tg->X. */
static void expm(nsd_tangent *tg, double *Om, double *E) {
    size_t n = tg->n, nn = n * n;
    double norm = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double r = 0.0;
        for (size_t j = 0; j < n; ++j) r += fabs(Om[i * n + j]);
        norm = fmax(norm, r);
    }
    int s = norm > 0.5 ? (int)ceil(log2(norm / 0.5)) : 0;
    double f = ldexp(1.0, -s);
    for (size_t i = 0; i < nn; ++i) Om[i] *= f;
    /* Horner: E = I + X/1 (I + X/2 (... (I + X/16))) */
    memset(E, 0, nn * sizeof *E);
    for (size_t i = 0; i < n; ++i) E[i * n + i] = 1.0;
    for (int k = 16; k >= 1; --k) {
        matmul(n, Om, E, tg->T);
        for (size_t i = 0; i < nn; ++i) E[i] = tg->T[i] / k;
        for (size_t i = 0; i < n; ++i) E[i * n + i] += 1.0;
    }
    for (int k = 0; k < s; ++k) {
        matmul(n, E, E, tg->T);
        memcpy(E, tg->T, nn * sizeof *E);
    }
}

/* The state at t inside the step (ta, ya) .. (tb, yb): the integrator's
 * dense output, or where it has none (or refuses: CVODE's right after a
 * restart) the cubic Hermite interpolant, with the slopes fa, fb
 * evaluated once per step. 0 or -1. */
static int state_at(nsd_tangent *tg, nsd_ig_call *ig, double ta, double tb, double t, double *y) {
    if (ig->ig->dense && (ig->ig->info.provides & NSDYN_CAP_DENSE_OUTPUT) &&
        nsd_ig_dense(ig, t, y) <= NSDYN_WARNING)
        return 0;
    if (!tg->hermite && (rhs(tg, ta, tg->ya, tg->fa) != 0 || rhs(tg, tb, tg->yb, tg->fb) != 0))
        return -1;
    tg->hermite = 1;
    double h = tb - ta, s = (t - ta) / h, s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t i = 0; i < tg->n; ++i)
        y[i] = h00 * tg->ya[i] + h10 * h * tg->fa[i] + h01 * tg->yb[i] + h11 * h * tg->fb[i];
    return 0;
}

/* One Magnus step over [a, b] of the integrator step [ta, tb]. */
static int magnus(nsd_tangent *tg, nsd_ig_call *ig, double ta, double tb, double a, double b) {
    size_t n = tg->n, nn = n * n;
    double h = b - a, c = sqrt(3.0) / 6.0;
    if (state_at(tg, ig, ta, tb, a + (0.5 - c) * h, tg->yc) != 0 ||
        jacobian(tg, a + (0.5 - c) * h, tg->yc, tg->A1) != 0 ||
        state_at(tg, ig, ta, tb, a + (0.5 + c) * h, tg->yc) != 0 ||
        jacobian(tg, a + (0.5 + c) * h, tg->yc, tg->A2) != 0)
        return -1;
    matmul(n, tg->A2, tg->A1, tg->Om);
    matmul(n, tg->A1, tg->A2, tg->T);
    double w = sqrt(3.0) / 12.0 * h * h;
    for (size_t i = 0; i < nn; ++i)
        tg->Om[i] = 0.5 * h * (tg->A1[i] + tg->A2[i]) + w * (tg->Om[i] - tg->T[i]);
    expm(tg, tg->Om, tg->E);
    matmul(n, tg->E, tg->Phi, tg->T);
    memcpy(tg->Phi, tg->T, nn * sizeof *tg->Phi);
    return 0;
}

static int on_step(void *ctx, double t0, const double *y0, double t1, const double *y1,
                   nsd_ig_call *ig) {
    nsd_tangent *tg = ctx;
    if (!(t1 > t0)) return 0;
    memcpy(tg->ya, y0, tg->n * sizeof *y0);
    memcpy(tg->yb, y1, tg->n * sizeof *y1);
    tg->hermite = 0;
    for (int k = 0; k < tg->substeps; ++k) {
        double a = t0 + (t1 - t0) * k / tg->substeps;
        double b = k + 1 == tg->substeps ? t1 : t0 + (t1 - t0) * (k + 1) / tg->substeps;
        if (magnus(tg, ig, t0, t1, a, b) != 0) return -1;
    }
    return 0;
}

/* The event function of src in the table (the step guard hands its own
 * copy of a contact source). */
static long event_slot(const nsd_model *m, const nsd_event_source *src) {
    for (size_t e = 0; e < m->n_events; ++e)
        if (m->event_sources[e].kind == src->kind && m->event_sources[e].index == src->index)
            return (long)e;
    return -1;
}

/* The impact at rigid contact c alone (the contact law's local impulse):
 * v += M^-1 W^T P. 1 if it applied, 0 when the contact does not approach
 * (no impact: the jump is none), -1 on failure. */
static int impact_jump(nsd_tangent *tg, size_t c, double t, double *y) {
    const nsd_model *m = tg->m;
    nsd_data *d = tg->d;
    size_t nq = m->nq, nv = m->nv;
    nsd_model_ask_contacts(m, d, NSD_ROWS_NONE);
    d->jac[c] = d->W + c * 3 * nv;
    if (nsd_model_contacts_now(m, d, t, y, y + nq) > NSDYN_WARNING) return -1;
    double u[3] = {d->ce[c].u[0], d->ce[c].u[1], d->ce[c].u[2]};
    if (!(u[0] < 0.0)) return 0;
    memset(d->lambda, 0, 3 * m->nc * sizeof *d->lambda);
    const size_t comp[3] = {3 * c, 3 * c + 1, 3 * c + 2};
    double *B = tg->T; /* 3 x nv rows of (M^-1 W^T)^T */
    if (nsd_affine_base(m, d, t, y, y + nq) > NSDYN_WARNING ||
        nsd_affine_columns(m, d, t, y, y + nq, 3, comp, NULL, B) > NSDYN_WARNING)
        return -1;
    const double *Wc = d->W + c * 3 * nv;
    double Gd[9] = {0}, P[3] = {0};
    for (size_t a = 0; a < 3; ++a)
        for (size_t b = 0; b < 3; ++b)
            for (size_t k = 0; k < nv; ++k) Gd[3 * a + b] += Wc[a * nv + k] * B[b * nv + k];
    nsdyn_local_impact p = {.struct_size = sizeof p,
                            .tangent_dim = m->layout.contacts[c].tangent_dim,
                            .G = Gd,
                            .u_free = u,
                            .u_start = u,
                            .mu_static = d->mu_static,
                            .mu_kinetic = d->mu_kinetic};
    if (nsd_contact_local_impulse(m->contact, d->contact_inst, &p, P) > NSDYN_WARNING) return -1;
    for (size_t k = 0; k < nv; ++k)
        y[nq + k] += B[k] * P[0] + B[nv + k] * P[1] + B[2 * nv + k] * P[2];
    return 1;
}

/* What kind of jump src makes (0 none, 1 switch map, 2 impact at contact
 * src->index / 2, 3 the velocity projection of a stick/slip event),
 * decided at the state before it. A tangential event of the event-driven
 * runner ends in its velocity projection onto the new modes' constraints
 * (modes.h nsd_modes_project): a 2-D slip stops at run.rest_velocity and
 * the rest is projected away, a 1-D one at its sign change (the projection
 * moves it by the root finder's residual, but its derivative still erases
 * the velocity along the stuck tangent). The modes are known only after
 * the runner chose them (stick, or slip on: a reversal), so kind 3 is
 * reproduced and differenced in jump_after. */
static int jump_kind(const nsd_tangent *tg, const nsd_event_source *src) {
    const nsd_model *m = tg->m;
    if (src->kind == NSD_SOURCE_CONTACT && src->index % 2 == 1 && m->ed.on) return 3;
    if (src->kind == NSD_SOURCE_SWITCH) {
        size_t has = offsetof(nsdyn_system, switch_map) + sizeof m->sys->switch_map;
        return m->sys->info.struct_size >= has && m->sys->switch_map ? 1 : 0;
    }
    if (src->kind == NSD_SOURCE_CONTACT && src->index % 2 == 0 && m->contact &&
        nsd_contact_has_local_impulse(&m->contact->info))
        return 2;
    return 0;
}

/* y <- g(t, y) for the pending jump of kind k. 0 or -1 (tg->message). */
static int apply_jump(nsd_tangent *tg, int k, double t, double *y) {
    const nsd_model *m = tg->m;
    nsd_data *d = tg->d;
    if (k == 1 && m->sys->switch_map(d->sys_inst, tg->src.index, t, y, y + m->nq) > NSDYN_WARNING)
        return fail(tg, "variational equations: switch_map of switch '%s' failed",
                    m->layout.switches[tg->src.index]);
    if (k == 2 && impact_jump(tg, tg->src.index / 2, t, y) < 0)
        return fail(tg, "variational equations: the impact could not be reproduced: %s",
                    d->failure);
    if (k == 3 && nsd_modes_project(m, d, t, y) > NSDYN_WARNING)
        return fail(tg, "variational equations: the stick projection could not be reproduced: %s",
                    d->failure);
    return 0;
}

/* "switch 'heel_strike'", "contact 'stop' (normal)" for messages. */
static void describe_src(const nsd_model *m, const nsd_event_source *src, char *buf, size_t len) {
    if (src->kind == NSD_SOURCE_SWITCH)
        snprintf(buf, len, "switch '%s'", m->layout.switches[src->index]);
    else if (src->kind == NSD_SOURCE_CONTACT)
        snprintf(buf, len, "contact '%s' (%s)", m->layout.contacts[src->index / 2].name,
                 src->index % 2 ? "tangential" : "normal");
    else
        snprintf(buf, len, "the gap rate of contact '%s'",
                 src->index < m->nc ? m->layout.contacts[src->index].name : "?");
}

/* The event function of slot e at (t, y) into *h. An open rigid contact's
 * impact is the step guard's, at its gap (modes_phase.c: its entry in the
 * table is a constant then). */
static int event_value(nsd_tangent *tg, long e, double t, const double *y, double *h) {
    const nsd_model *m = tg->m;
    nsd_data *d = tg->d;
    const nsd_event_source *src = &m->event_sources[e];
    tg->rhs_evals++;
    if (src->kind == NSD_SOURCE_CONTACT && src->index % 2 == 0 && m->ed.on) {
        double *f = tg->g + m->n_events, *df = f + m->nc;
        if (nsd_modes_gaps(m, d, t, y, f, df) > NSDYN_WARNING)
            return fail(tg, "variational equations: the contact gaps failed: %s", d->failure);
        if (isfinite(f[src->index / 2])) {
            *h = f[src->index / 2];
            return 0;
        }
    }
    if (nsd_model_event_functions(m, d, t, y, tg->g) > NSDYN_WARNING)
        return fail(tg, "variational equations: the event functions failed: %s", d->failure);
    *h = tg->g[e];
    return 0;
}

/* grad h and h_t at the state before the jump, by central differences. */
static int event_gradient(nsd_tangent *tg, long e, double t, const double *y) {
    size_t n = tg->n;
    double hp, hm;
    memcpy(tg->yp, y, n * sizeof *y);
    for (size_t j = 0; j < n; ++j) {
        double d = step_of(tg, j, y[j], TANGENT_FD_REL);
        tg->yp[j] = y[j] + d;
        if (event_value(tg, e, t, tg->yp, &hp) != 0) return -1;
        tg->yp[j] = y[j] - d;
        if (event_value(tg, e, t, tg->yp, &hm) != 0) return -1;
        tg->yp[j] = y[j];
        tg->dh[j] = (hp - hm) / (2.0 * d);
    }
    double dt = TANGENT_FD_REL * fmax(fabs(t), 1.0);
    if (event_value(tg, e, t + dt, y, &hp) != 0 || event_value(tg, e, t - dt, y, &hm) != 0)
        return -1;
    tg->h_t = (hp - hm) / (2.0 * dt);
    return 0;
}

/* G = dg/dy and g_t by central differences of the jump of kind k; the two
 * one-sided differences must agree (a guard of the reset crossed by a
 * step would make them differ: no derivative to take). */
static int jump_jacobian(nsd_tangent *tg, int k, double t, const double *y) {
    size_t n = tg->n;
    /* the projection has no guard: the smooth functions' step (its rounding
     * at the jumps' step, eps / 1e-7, was 5e-9 in the belt's multipliers) */
    double rel = k == 3 ? TANGENT_FD_REL : TANGENT_JUMP_REL;
    for (size_t j = 0; j <= n; ++j) {
        double d = j < n ? step_of(tg, j, y[j], rel) : rel * fmax(fabs(t), 1.0);
        memcpy(tg->fp, y, n * sizeof *y);
        memcpy(tg->fm, y, n * sizeof *y);
        if (j < n) {
            tg->fp[j] += d;
            tg->fm[j] -= d;
        }
        if (apply_jump(tg, k, j < n ? t : t + d, tg->fp) != 0 ||
            apply_jump(tg, k, j < n ? t : t - d, tg->fm) != 0)
            return -1;
        for (size_t i = 0; i < n; ++i) {
            double up = (tg->fp[i] - tg->g_pred[i]) / d, down = (tg->g_pred[i] - tg->fm[i]) / d;
            double c = 0.5 * (up + down);
            double w = j < n ? tg->scale[j] / tg->scale[i] : 1.0; /* to scaled variables */
            if (fabs(up - down) * w > 1e-4 * (1.0 + fabs(c) * w)) {
                char what[160];
                describe_src(tg->m, &tg->src, what, sizeof what);
                return fail(tg,
                            "variational equations: the jump at %s is not differentiable at the "
                            "event (the two one-sided differences of its reset differ: a guard of "
                            "the reset lies within the difference step)",
                            what);
            }
            if (j < n)
                tg->G[i * n + j] = c;
            else
                tg->g_t[i] = c;
        }
    }
    return 0;
}

static int on_jump_before(void *ctx, const nsd_event_source *src, double t, const double *y) {
    nsd_tangent *tg = ctx;
    size_t n = tg->n;
    const nsd_model *m = tg->m;
    long e = event_slot(m, src);
    tg->pending = 0;
    if (e < 0) return fail(tg, "variational equations: an event outside the model's table%s", "");
    tg->src = *src;
    tg->t_jump = t;
    memcpy(tg->y_minus, y, n * sizeof *y);
    if (rhs(tg, t, y, tg->f_minus) != 0 || event_gradient(tg, e, t, y) != 0) return -1;
    int k = jump_kind(tg, src);
    tg->kind = k;
    memcpy(tg->g_pred, y, n * sizeof *y);
    memset(tg->G, 0, n * n * sizeof *tg->G);
    memset(tg->g_t, 0, n * sizeof *tg->g_t);
    for (size_t i = 0; i < n; ++i) tg->G[i * n + i] = 1.0;
    if (k != 3 && apply_jump(tg, k, t, tg->g_pred) != 0) return -1;
    if (k != 0 && k != 3 && jump_jacobian(tg, k, t, y) != 0) return -1;
    tg->pending = 1;
    return 0;
}

/* The runner's state after the jump against g(y-): the largest scaled
 * difference and its entry. */
static double jump_mismatch(const nsd_tangent *tg, const double *y, size_t *at) {
    double worst = 0.0;
    for (size_t i = 0; i < tg->n; ++i) {
        double d = fabs(tg->g_pred[i] - y[i]) / fmax(fabs(y[i]), tg->scale[i]);
        if (!(d <= worst)) {
            worst = d;
            *at = i;
        }
    }
    return worst;
}

/* f+ into tg->fb: the right-hand side's limit from the new phase, by
 * linear extrapolation back to the event from two probes along the flow,
 * y + e f and y + 2 e f, with e = TANGENT_PROBE_REL max(|t|, 1) s (error
 * O(e^2 |f''|)). Not simply f(y+): the root finder may leave the state on
 * the event's surface itself, where the new phase has not begun: a foot
 * that has struck but not yet penetrates carries no load, the host still
 * holds its friction state, and f(y+) has the old bristle rate 0. The
 * saltation matrix then lacks its (f+ - f-) term: on walker2 every such
 * heel strike put an O(1) error into Phi (leading multiplier 0.545 against
 * 0.451; docs/periodic.md). 0 or -1. */
static int rate_after(nsd_tangent *tg, double t, const double *y) {
    size_t n = tg->n;
    double e = TANGENT_PROBE_REL * fmax(fabs(t), 1.0);
    if (rhs(tg, t, y, tg->fb) != 0) return -1;
    for (size_t i = 0; i < n; ++i) tg->yp[i] = y[i] + e * tg->fb[i];
    if (rhs(tg, t + e, tg->yp, tg->fp) != 0) return -1;
    for (size_t i = 0; i < n; ++i) tg->yp[i] = y[i] + 2.0 * e * tg->fb[i];
    if (rhs(tg, t + 2.0 * e, tg->yp, tg->fm) != 0) return -1;
    for (size_t i = 0; i < n; ++i) tg->fb[i] = 2.0 * tg->fp[i] - tg->fm[i];
    return 0;
}

static int on_jump_after(void *ctx, const nsd_event_source *src, double t, const double *y) {
    nsd_tangent *tg = ctx;
    const nsd_model *m = tg->m;
    nsd_data *d = tg->d;
    size_t n = tg->n, at = 0;
    char what[160], detail[600];
    describe_src(m, src, what, sizeof what);
    if (!tg->pending || tg->src.kind != src->kind || tg->src.index != src->index || tg->t_jump != t)
        return fail(tg, "variational equations: the jump at %s came without its event", what);
    tg->pending = 0;
    if (tg->kind == 3 &&
        (apply_jump(tg, 3, t, tg->g_pred) != 0 || jump_jacobian(tg, 3, t, tg->y_minus) != 0))
        return -1;
    double worst = jump_mismatch(tg, y, &at);
    size_t at0 = 0;
    if (!(worst <= TANGENT_JUMP_TOL)) { /* a crossing the system's on_switch() left alone? */
        memcpy(tg->fa, tg->g_pred, n * sizeof *y);
        memcpy(tg->g_pred, tg->y_minus, n * sizeof *y);
        if (jump_mismatch(tg, y, &at0) <= TANGENT_JUMP_TOL) {
            worst = 0.0;
            memset(tg->G, 0, n * n * sizeof *tg->G);
            memset(tg->g_t, 0, n * sizeof *tg->g_t);
            for (size_t i = 0; i < n; ++i) tg->G[i * n + i] = 1.0;
        } else
            memcpy(tg->g_pred, tg->fa, n * sizeof *y);
    }
    if (!(worst <= TANGENT_JUMP_TOL)) {
        snprintf(detail, sizeof detail,
                 "%s: the runner left %s = %.12g, the jump reproduced here %.12g (scaled "
                 "difference %.2e): several events at one instant, an accumulation of impacts or "
                 "a reset the system does not expose through switch_map (ABI 2.3); use [periodic] "
                 "jacobian = \"differences\"",
                 what, m->channels[1 + at].name, y[at], tg->g_pred[at], worst);
        return fail(tg, "variational equations: the jump at %s", detail);
    }
    if (rate_after(tg, t, y) != 0) return -1;
    double hdot = tg->h_t, size = fabs(tg->h_t);
    for (size_t j = 0; j < n; ++j) {
        hdot += tg->dh[j] * tg->f_minus[j];
        size += fabs(tg->dh[j] * tg->f_minus[j]);
    }
    if (!(fabs(hdot) > 1e-12 * size) || !isfinite(hdot)) {
        snprintf(detail, sizeof detail,
                 "%s at t = %.12g s is crossed tangentially (dh/dt = %.3g): the saltation matrix "
                 "is unbounded at a grazing",
                 what, t, hdot);
        return fail(tg, "variational equations: the event %s", detail);
    }
    /* S = G + (f+ - G f- - g_t) grad(h)^T / hdot, then Phi <- S Phi. At
     * the Poincare section the map ends at the perturbed crossing itself,
     * not at the nominal time: no flow after it, so no f+ term. */
    int section = src->kind == NSD_SOURCE_SWITCH && d->section_switch == src->index + 1;
    for (size_t i = 0; i < n; ++i) {
        double r = (section ? 0.0 : tg->fb[i]) - tg->g_t[i];
        for (size_t k = 0; k < n; ++k) r -= tg->G[i * n + k] * tg->f_minus[k];
        for (size_t j = 0; j < n; ++j) tg->E[i * n + j] = tg->G[i * n + j] + r * tg->dh[j] / hdot;
    }
    matmul(n, tg->E, tg->Phi, tg->T);
    memcpy(tg->Phi, tg->T, n * n * sizeof *tg->Phi);
    tg->jumps++;
    return 0;
}

static const char *on_message(void *ctx) { return ((nsd_tangent *)ctx)->message; }

nsd_tangent *nsd_tangent_new(const nsd_model *m, nsd_data *d, const double *scale, int substeps) {
    nsd_tangent *tg = calloc(1, sizeof *tg);
    if (!tg) return NULL;
    size_t n = m->n, nn = n * n, ne = m->n_events + 2 * m->nc + 1; /* events, gaps and rates */
    tg->m = m;
    tg->d = d;
    tg->n = n;
    tg->substeps = substeps < 1 ? 1 : substeps;
    /* 7 n^2 matrices, 16 n vectors (scale, 10 work, 5 of the jump) */
    tg->Phi = calloc(7 * nn + 16 * n, sizeof(double));
    tg->g = calloc(ne, sizeof(double));
    if (!tg->Phi || !tg->g) {
        nsd_tangent_free(tg);
        return NULL;
    }
    double **mats[] = {&tg->Om, &tg->A1, &tg->A2, &tg->E, &tg->T, &tg->G};
    double *p = tg->Phi + nn;
    for (size_t i = 0; i < sizeof mats / sizeof *mats; ++i, p += nn) *mats[i] = p;
    double **vecs[] = {&tg->scale, &tg->ya,      &tg->yb, &tg->fa, &tg->fb,      &tg->yp,
                       &tg->fp,    &tg->fm,      &tg->yc, &tg->dh, &tg->f_minus, &tg->g_pred,
                       &tg->g_t,   &tg->y_minus, &tg->f0, &tg->ok};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; ++i, p += n) *vecs[i] = p;
    for (size_t i = 0; i < n; ++i) tg->scale[i] = scale && scale[i] > 0.0 ? scale[i] : 1.0;
    tg->obs = (nsd_run_observer){.ctx = tg,
                                 .step = on_step,
                                 .jump_before = on_jump_before,
                                 .jump_after = on_jump_after,
                                 .message = on_message};
    return tg;
}

void nsd_tangent_free(nsd_tangent *tg) {
    if (!tg) return;
    free(tg->Phi);
    free(tg->g);
    free(tg);
}

void nsd_tangent_set_substeps(nsd_tangent *tg, int substeps) {
    tg->substeps = substeps < 1 ? 1 : substeps;
}

void nsd_tangent_begin(nsd_tangent *tg) {
    size_t n = tg->n;
    memset(tg->Phi, 0, n * n * sizeof *tg->Phi);
    for (size_t i = 0; i < n; ++i) tg->Phi[i * n + i] = 1.0;
    tg->pending = 0;
    tg->message[0] = '\0';
    tg->d->observer = &tg->obs;
}

void nsd_tangent_end(nsd_tangent *tg) { tg->d->observer = NULL; }

const double *nsd_tangent_matrix(const nsd_tangent *tg) { return tg->Phi; }
unsigned long long nsd_tangent_rhs_evals(const nsd_tangent *tg) { return tg->rhs_evals; }
size_t nsd_tangent_jumps(const nsd_tangent *tg) { return tg->jumps; }
unsigned long long nsd_tangent_one_sided(const nsd_tangent *tg) { return tg->one_sided; }
