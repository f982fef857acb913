/* Arclength continuation, the numerical core (periodic_arc_core.h): the map at
 * a parameter value, its Jacobian, the branch's tangent, the corrector. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn_numeric.h"
#include "periodic_arc_core.h"

int arc_point_alloc(const arc_ctx *c, arc_point *pt, size_t crossings) {
    size_t k = c->k;
    memset(pt, 0, sizeof *pt);
    pt->u = calloc(2 * (k + 1) + k * k + 3 * k + crossings, sizeof(double));
    if (!pt->u) return -1;
    pt->t = pt->u + k + 1;
    pt->J = pt->t + k + 1;
    pt->Jp = pt->J + k * k;
    pt->re = pt->Jp + k;
    pt->im = pt->re + k;
    pt->iter = pt->im + k;
    return 0;
}

void arc_point_free(arc_point *pt) {
    free(pt->u);
    pt->u = NULL;
}

void arc_point_copy(const arc_ctx *c, arc_point *dst, const arc_point *src, size_t crossings) {
    double *keep = dst->u;
    size_t k = c->k;
    *dst = *src;
    dst->u = keep;
    dst->t = keep + k + 1;
    dst->J = dst->t + k + 1;
    dst->Jp = dst->J + k * k;
    dst->re = dst->Jp + k;
    dst->im = dst->re + k;
    dst->iter = dst->im + k;
    memcpy(dst->u, src->u, (2 * (k + 1) + k * k + 3 * k + crossings) * sizeof(double));
}

int arc_ctx_init(arc_ctx *c, nsd_scenario *s, const nsd_periodic_config *pc,
                 const nsd_arc_config *ac, const double *y_orbit, double p0) {
    size_t n = s->model.n, k = pc->spec.n_free;
    c->s = s, c->pc = pc, c->ac = ac, c->spec = pc->spec, c->n = n, c->k = k;
    c->ps = fabs(ac->to - ac->from);
    c->sx = calloc(k, sizeof(double));
    c->base = calloc(3 * n, sizeof(double));
    c->xt = calloc(4 * (k + 1) + (k + 1) * (k + 1) + 4 * (k + 1), sizeof(double));
    c->ipiv = calloc(k + 1, sizeof(int));
    if (!c->sx || !c->base || !c->xt || !c->ipiv) return -1;
    c->y = c->base + n, c->y_end = c->y + n;
    c->Pt = c->xt + k + 1, c->Pm = c->Pt + k + 1, c->b = c->Pm + k + 1;
    c->M = c->b + k + 1, c->wk = c->M + (k + 1) * (k + 1);
    memcpy(c->base, y_orbit, n * sizeof(double));
    for (size_t i = 0; i < k; ++i)
        c->sx[i] = fmax(fabs(y_orbit[pc->spec.free[i]]), pc->spec.scale[i]);
    (void)p0;
    return 0;
}

void arc_ctx_free(arc_ctx *c) {
    for (int i = 0; i < ARC_CACHE; ++i)
        if (c->cache_used[i]) nsd_scenario_destroy(&c->cache[i]);
    for (size_t b = 0; b < c->nbr; ++b) {
        for (size_t i = 0; i < c->br[b].np; ++i) arc_point_free(&c->br[b].pt[i]);
        free(c->br[b].pt);
    }
    free(c->sx), free(c->base), free(c->xt), free(c->ipiv);
}

/* A scenario with the parameter at p (the config with "SECTION.KEY = p"
 * on s's model, kept for the last few values; a slot not used lately
 * takes the new value: nsd_scenario_point). NULL with c->why when the
 * config does not take p. */
nsd_scenario *arc_scenario_at(arc_ctx *c, double p) {
    int oldest = 0;
    for (int i = 0; i < ARC_CACHE; ++i) {
        if (c->cache_used[i] && c->cache_p[i] == p) {
            c->cache_used[i] = ++c->cache_clock;
            return &c->cache[i];
        }
        if (c->cache_used[i] < c->cache_used[oldest]) oldest = i;
    }
    const nsd_periodic_config *pc = c->pc;
    nsd_overrides over = {0};
    /* the key names a real parameter (periodic_config.c) */
    nsd_overrides_set_real(&over, pc->cont_section[0], pc->cont_key[0], p,
                           (nsd_where){"[periodic.continuation]", 0, 0}, c->why, sizeof c->why);
    nsd_scenario *d = &c->cache[oldest];
    nsd_diag diag = {0};
    int ready = c->cache_used[oldest] != 0;
    size_t errors = nsd_scenario_point(d, &ready, c->s, c->s, &over, &diag);
    nsd_overrides_free(&over);
    c->cache_p[oldest] = NAN;      /* no value of its own until it takes p */
    c->cache_used[oldest] = ready; /* holds a scenario: the first to take the next value */
    if (errors) {
        snprintf(c->why, sizeof c->why, "%s.%s = %.10g: %s", pc->cont_section[0], pc->cont_key[0],
                 p, diag.n ? diag.lines[0] : "the config does not take this value");
        nsd_diag_free(&diag);
        return NULL;
    }
    nsd_diag_free(&diag);
    d->app.cfg.settings = c->s->app.cfg.settings; /* the shooting settings */
    c->cache_p[oldest] = p;
    c->cache_used[oldest] = ++c->cache_clock;
    return d;
}

int arc_map(arc_ctx *c, const double *u, double *Px, double *T) {
    nsd_scenario *d = arc_scenario_at(c, arc_p(c, u));
    if (!d) return -1;
    memcpy(c->y, c->base, c->n * sizeof(double));
    for (size_t i = 0; i < c->k; ++i) c->y[c->spec.free[i]] = u[i] * c->sx[i];
    c->out->map_evals++;
    int rc = nsd_periodic_map(d, &c->spec, c->y, c->y_end, T, c->why, sizeof c->why);
    c->out->rhs_evals += d->res.stats.rhs_evals;
    if (rc != 0) return -1;
    nsd_event_counts ec;
    nsd_run_count_events(&d->res, &ec);
    memcpy(c->last_ev, ec.contact, sizeof c->last_ev);
    const nsd_event_log *log = &d->res.contact_log;
    c->last_seq.n = log->n;
    for (size_t i = 0; i < log->n && i < ARC_SEQ_MAX; ++i) {
        c->last_seq.ev[i] =
            (unsigned short)(log->rec[i].contact * NSD_EVENT_KIND_COUNT + log->rec[i].kind);
        c->last_seq.t[i] = log->rec[i].t - d->app.cfg.settings.t_start;
    }
    for (size_t i = 0; i < c->k; ++i) Px[i] = c->y_end[c->spec.free[i]];
    return 0;
}

long arc_seq_code(const arc_seq *q) {
    unsigned long h = 1469598103934665603UL ^ q->n; /* FNV-1a over the kept events */
    for (size_t i = 0; i < q->n && i < ARC_SEQ_MAX; ++i) h = (h ^ q->ev[i]) * 1099511628211UL;
    return (long)(h >> 1);
}

void arc_take_events(const arc_ctx *c, arc_point *pt) {
    memcpy(pt->ev, c->last_ev, sizeof pt->ev);
    pt->seq = c->last_seq;
}

/* dP/dx at u from the variational equations and saltation matrices
 * (jacobian = "variational", nsd_periodic_map_tangent) into pt->J. 0 or -1. */
static int tangent_jacobian(arc_ctx *c, const double *u, arc_point *pt) {
    nsd_scenario *d = arc_scenario_at(c, arc_p(c, u));
    if (!d) return -1;
    memcpy(c->y, c->base, c->n * sizeof(double));
    for (size_t i = 0; i < c->k; ++i) c->y[c->spec.free[i]] = u[i] * c->sx[i];
    c->out->map_evals++;
    size_t jumps = 0;
    double T;
    int rc = nsd_periodic_map_tangent(d, &c->spec, 1, c->y, c->y_end, &T, pt->J, &c->out->rhs_evals,
                                      &jumps, c->why, sizeof c->why);
    c->out->rhs_evals += d->res.stats.rhs_evals;
    return rc;
}

/* Central differences of P at u (scaled steps fd_step in each of the
 * k + 1 unknowns) into pt->J, pt->Jp (unscaled); with jacobian =
 * "variational" only the parameter's column, pt->J from the variational
 * equations. 0 or -1. */
static int jacobian(arc_ctx *c, const double *u, arc_point *pt) {
    size_t k = c->k;
    double h = c->spec.fd_step, T;
    int variational = c->spec.jacobian == NSD_PERIODIC_JAC_VARIATIONAL;
    /* the caller has just run the map at u: its events are the orbit's */
    long centre = arc_seq_code(&c->last_seq);
    pt->straddles = 0;
    if (variational && tangent_jacobian(c, u, pt) != 0) return -1;
    for (size_t j = variational ? k : 0; j <= k; ++j) {
        memcpy(c->xt, u, (k + 1) * sizeof(double));
        double hj = h * fmax(fabs(u[j]), 1.0);
        c->xt[j] = u[j] + hj;
        if (arc_map(c, c->xt, c->Pt, &T) != 0) return -1;
        pt->straddles |= arc_seq_code(&c->last_seq) != centre;
        c->xt[j] = u[j] - hj;
        if (arc_map(c, c->xt, c->Pm, &T) != 0) return -1;
        pt->straddles |= arc_seq_code(&c->last_seq) != centre;
        double step = 2.0 * hj * (j < k ? c->sx[j] : c->ps); /* unscaled */
        for (size_t i = 0; i < k; ++i) {
            double d = (c->Pt[i] - c->Pm[i]) / step;
            if (j < k)
                pt->J[i * k + j] = d;
            else
                pt->Jp[i] = d;
        }
    }
    pt->have_J = 1;
    return 0;
}

/* The bordered matrix [[S^-1 (J - I) S, S^-1 Jp ps], [t^T]] into c->M. */
void arc_bordered(arc_ctx *c, const arc_point *pt, const double *t) {
    size_t k = c->k, m = k + 1;
    for (size_t i = 0; i < k; ++i) {
        for (size_t j = 0; j < k; ++j)
            c->M[i * m + j] = (pt->J[i * k + j] - (i == j)) * c->sx[j] / c->sx[i];
        c->M[i * m + k] = pt->Jp[i] * c->ps / c->sx[i];
    }
    for (size_t j = 0; j < m; ++j) c->M[k * m + j] = t[j];
}

static int by_modulus(const void *a, const void *b) {
    const double *p = a, *q = b;
    double ma = hypot(p[0], p[1]), mb = hypot(q[0], q[1]);
    return ma < mb ? 1 : ma > mb ? -1 : (p[1] < q[1]) - (p[1] > q[1]);
}

static int multipliers(arc_ctx *c, arc_point *pt) {
    size_t k = c->k;
    double *A = c->M, pairs[2 * 64];
    memcpy(A, pt->J, k * k * sizeof *A);
    if (k > 64 || nsn_eigenvalues(k, A, pt->re, pt->im, c->wk) != NSN_OK) {
        snprintf(c->why, sizeof c->why, "the multipliers did not converge (LAPACK dgeev)");
        return -1;
    }
    for (size_t i = 0; i < k; ++i) pairs[2 * i] = pt->re[i], pairs[2 * i + 1] = pt->im[i];
    qsort(pairs, k, 2 * sizeof *pairs, by_modulus);
    pt->stable = 1;
    for (size_t i = 0; i < k; ++i) {
        pt->re[i] = pairs[2 * i], pt->im[i] = pairs[2 * i + 1];
        if (!(hypot(pt->re[i], pt->im[i]) < 1.0)) pt->stable = 0;
    }
    return 0;
}

int arc_point_eval(arc_ctx *c, const double *u, const double *t_prev, arc_point *pt) {
    size_t k = c->k, m = k + 1;
    if (pt->u != u) memcpy(pt->u, u, m * sizeof *u);
    if (arc_map(c, u, c->Pt, &pt->period) != 0) return -1;
    arc_take_events(c, pt);
    if (jacobian(c, u, pt) != 0 || multipliers(c, pt) != 0) return -1;
    /* the tangent: [A; t_prev^T] t = e_(k+1), normalised */
    arc_bordered(c, pt, t_prev);
    memset(c->b, 0, m * sizeof *c->b);
    c->b[k] = 1.0;
    if (nsn_solve(m, c->M, c->b, c->ipiv) != NSN_OK) {
        snprintf(c->why, sizeof c->why,
                 "the tangent is undetermined: [dF/dx dF/dp] has a rank below k (a branch point "
                 "where two branches cross)");
        return -1;
    }
    double nrm = 0.0;
    for (size_t j = 0; j < m; ++j) nrm += c->b[j] * c->b[j];
    nrm = sqrt(nrm);
    for (size_t j = 0; j < m; ++j) pt->t[j] = c->b[j] / nrm;
    return 0;
}

/* Scaled residual max_i |P_i - x_i| / sx_i at u, P into Px. */
double arc_residual(const arc_ctx *c, const double *u, const double *Px, double *F) {
    double r = 0.0;
    for (size_t i = 0; i < c->k; ++i) {
        F[i] = (Px[i] - u[i] * c->sx[i]) / c->sx[i];
        r = fmax(r, fabs(F[i]));
    }
    return r;
}

int arc_correct(arc_ctx *c, const double *u_pred, const double *t, const arc_point *from,
                arc_point *pt) {
    size_t k = c->k, m = k + 1;
    double *u = pt->u, F[65], T, res_prev = HUGE_VAL;
    if (k > 64) return -1;
    memcpy(u, u_pred, m * sizeof *u);
    if (from && from != pt) {
        memcpy(pt->J, from->J, k * k * sizeof *pt->J);
        memcpy(pt->Jp, from->Jp, k * sizeof *pt->Jp);
        pt->have_J = from->have_J;
    } else
        pt->have_J = 0;
    int refreshes = 0, iters = c->chord_only || c->patient ? 40 : 16;
    for (int it = 0; it < iters; ++it) {
        if (arc_map(c, u, c->Pt, &T) != 0) return -1;
        double res = arc_residual(c, u, c->Pt, F);
        double arc = 0.0;
        for (size_t j = 0; j < m; ++j) arc += t[j] * (u[j] - u_pred[j]);
        if (res <= c->spec.tol && c->chord_only) {
            arc_take_events(c, pt);
            pt->period = T;
            return 0;
        }
        if (res <= c->spec.tol) return arc_point_eval(c, u, t, pt);
        if (!pt->have_J ||
            (!c->chord_only && res > 0.5 * res_prev && (refreshes < 3 || c->patient))) {
            if (jacobian(c, u, pt) != 0) return -1;
            refreshes++;
        }
        res_prev = res;
        arc_bordered(c, pt, t);
        for (size_t i = 0; i < k; ++i) c->b[i] = -F[i];
        c->b[k] = -arc;
        if (nsn_solve(m, c->M, c->b, c->ipiv) != NSN_OK) {
            snprintf(c->why, sizeof c->why, "the corrector's bordered matrix is singular");
            return -1;
        }
        for (size_t j = 0; j < m; ++j) u[j] += c->b[j];
    }
    snprintf(c->why, sizeof c->why,
             "the corrector did not converge in %d iterations (residual %.3e, tolerance %.1e)",
             iters, res_prev, c->spec.tol);
    return -1;
}

void arc_set_crossings(arc_ctx *c, size_t crossings) {
    c->spec.crossings = crossings;
    /* the swap is a symmetry the flow commutes with (the walker's legs):
     * over m periods of the swapped map it is applied m times, so not at
     * all when m is even */
    size_t m = crossings / (c->pc->spec.crossings ? c->pc->spec.crossings : 1);
    c->spec.n_swap = m % 2 ? c->pc->spec.n_swap : 0;
}

int arc_iterates(arc_ctx *c, arc_point *pt, size_t crossings) {
    nsd_periodic_spec one = c->spec;
    one.crossings = 1;
    one.n_swap = 0;
    nsd_scenario *d = arc_scenario_at(c, arc_p(c, pt->u));
    if (!d) return -1;
    memcpy(c->y, c->base, c->n * sizeof(double));
    for (size_t i = 0; i < c->k; ++i) c->y[c->spec.free[i]] = pt->u[i] * c->sx[i];
    pt->iter[0] = c->y[c->spec.free[0]];
    for (size_t j = 1; j < crossings; ++j) {
        double T;
        if (nsd_periodic_map(d, &one, c->y, c->y_end, &T, c->why, sizeof c->why) != 0) return -1;
        c->out->map_evals++;
        c->out->rhs_evals += d->res.stats.rhs_evals;
        memcpy(c->y, c->y_end, c->n * sizeof(double));
        pt->iter[j] = c->y[c->spec.free[0]];
    }
    return 0;
}

void arc_count_outside(const arc_point *pt, size_t k, int out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (size_t i = 0; i < k; ++i) {
        if (pt->im[i] != 0.0)
            out[2] += hypot(pt->re[i], pt->im[i]) > 1.0;
        else if (pt->re[i] > 1.0)
            out[0]++;
        else if (pt->re[i] < -1.0)
            out[1]++;
    }
}

double arc_half_residual(arc_ctx *c, const arc_point *pt, size_t crossings) {
    if (crossings < 2 || crossings % 2) return HUGE_VAL;
    nsd_periodic_spec keep = c->spec;
    arc_set_crossings(c, crossings / 2);
    double F[65], T, r = HUGE_VAL;
    if (c->k <= 64 && arc_map(c, pt->u, c->Pt, &T) == 0) r = arc_residual(c, pt->u, c->Pt, F);
    c->spec = keep;
    return r;
}

int arc_eigenvector(arc_ctx *c, const arc_point *pt, double mu, double *w) {
    size_t k = c->k;
    /* inverse iteration on S^-1 (J - mu' I) S, mu' a hair off mu */
    for (size_t i = 0; i < k; ++i) w[i] = 1.0 / sqrt((double)k) * (1.0 + 0.1 * (double)i);
    double shift = mu + 1e-7 * fmax(1.0, fabs(mu));
    for (int it = 0; it < 4; ++it) {
        for (size_t i = 0; i < k; ++i)
            for (size_t j = 0; j < k; ++j)
                c->M[i * k + j] = (pt->J[i * k + j] - shift * (i == j)) * c->sx[j] / c->sx[i];
        if (nsn_solve(k, c->M, w, c->ipiv) != NSN_OK) return 0; /* exact: w is the vector */
        double nrm = 0.0;
        for (size_t i = 0; i < k; ++i) nrm += w[i] * w[i];
        nrm = sqrt(nrm);
        if (!(nrm > 0.0) || !isfinite(nrm)) return -1;
        for (size_t i = 0; i < k; ++i) w[i] /= nrm;
    }
    return 0;
}
