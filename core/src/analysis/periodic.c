/* Newton shooting on a Poincare section map (periodic.h). */
#define _GNU_SOURCE
#include "periodic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nsdyn_numeric.h"
#include "periodic_tangent.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int nsd_periodic_result_init(nsd_periodic_result *out, size_t n, size_t n_free) {
    memset(out, 0, sizeof *out);
    size_t k = n_free ? n_free : 1;
    out->y = calloc(n ? n : 1, sizeof *out->y);
    out->J = calloc(k * k, sizeof *out->J);
    out->mult_re = calloc(k, sizeof *out->mult_re);
    out->mult_im = calloc(k, sizeof *out->mult_im);
    if (out->y && out->J && out->mult_re && out->mult_im) return 0;
    nsd_periodic_result_free(out);
    return -1;
}

void nsd_periodic_result_free(nsd_periodic_result *out) {
    free(out->y);
    free(out->J);
    free(out->mult_re);
    free(out->mult_im);
    out->y = out->J = out->mult_re = out->mult_im = NULL;
}

/* Why the run of the map did not reach the section. */
static void explain_miss(const nsd_scenario *s, const nsd_periodic_spec *sp, char *why,
                         size_t len) {
    const nsd_run_result *res = &s->res;
    const nsd_model *m = &s->model;
    const char *name = m->layout.switches[sp->section];
    if (res->outcome == NSD_RUN_COMPLETE)
        snprintf(why, len,
                 "the section (switch '%s') was crossed %zu of %zu time%s before the run reached "
                 "t_end = %.9g s ([run] t_end bounds the period)",
                 name, res->section_crossings, sp->crossings, sp->crossings == 1 ? "" : "s",
                 s->app.cfg.settings.t_end);
    else
        snprintf(why, len,
                 "the section (switch '%s') was crossed %zu of %zu time%s: the run %s: %s", name,
                 res->section_crossings, sp->crossings, sp->crossings == 1 ? "" : "s",
                 res->outcome == NSD_RUN_STOPPED ? "stopped" : "failed", res->message);
}

int nsd_periodic_map(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y0, double *y_end,
                     double *period, char *why, size_t why_len) {
    const nsd_model *m = &s->model;
    nsd_data *d = s->data;
    memcpy(d->y0, y0, m->n * sizeof *y0);
    d->section_switch = sp->section + 1;
    d->section_count = sp->crossings;
    nsd_diag diag = {0};
    size_t errors = nsd_scenario_run(s, NULL, &diag);
    d->section_switch = 0;
    if (errors) {
        snprintf(why, why_len, "the run could not start: %s",
                 diag.n ? diag.lines[0] : "a config error");
        nsd_diag_free(&diag);
        return -1;
    }
    nsd_diag_free(&diag);
    const nsd_run_result *res = &s->res;
    if (res->outcome != NSD_RUN_STOPPED || res->section_crossings < sp->crossings ||
        res->series.rows == 0) {
        explain_miss(s, sp, why, why_len);
        return -1;
    }
    const double *row = res->series.data + (res->series.rows - 1) * res->series.n_channels;
    for (size_t i = 0; i < m->n; ++i) y_end[i] = row[1 + i];
    for (size_t k = 0; k < sp->n_swap; ++k) {
        size_t a = sp->swap[2 * k], b = sp->swap[2 * k + 1];
        double t = y_end[a];
        y_end[a] = y_end[b];
        y_end[b] = t;
    }
    *period = row[0] - s->app.cfg.settings.t_start;
    /* A crossing at the start is no period: the state lies where the
     * switch's event function falls through zero at once (a system may
     * ignore such a crossing, like the walkers' lead shrinking back
     * through alpha0, but the runner counts it). Newton must not take it
     * for a fixed point of period 0. */
    const nsd_run_settings *rs = &s->app.cfg.settings;
    if (!(*period > 1e-9 * (rs->t_end - rs->t_start))) {
        snprintf(why, why_len,
                 "the section (switch '%s') was crossed at the start (t = %.9g s): the state lies "
                 "on the section, not just after it",
                 m->layout.switches[sp->section], row[0]);
        return -1;
    }
    return 0;
}

/* The solver's working state: the scenario, the full states around the
 * free entries, the residual. */
typedef struct shooter {
    nsd_scenario *s;
    const nsd_periodic_spec *sp;
    nsd_periodic_result *out;
    size_t n, k;             /* states, free entries */
    double *base;            /* n: the full state the free entries go into */
    double *y, *y_end;       /* n */
    double *x, *Px, *F;      /* k: free entries, their image, the scaled residual */
    double *xt, *Pt, *Ft;    /* k: a trial point */
    double *A, *b, *J2, *wk; /* k^2, k, k^2, 4k */
    int *ipiv;               /* k */
    int fresh;               /* out->J is a finite-difference Jacobian at x, not a Broyden update */
    int have_J;              /* out->J may be used for the next step */
} shooter;

static double scale_of(const shooter *sh, size_t i, double x) {
    return fmax(fabs(x), sh->sp->scale[i]);
}

/* P at the free entries x into Px (and the full end state into sh->y_end),
 * the period into *T. 0 or -1 (out->message). */
static int eval(shooter *sh, const double *x, double *Px, double *T) {
    memcpy(sh->y, sh->base, sh->n * sizeof *sh->y);
    for (size_t i = 0; i < sh->k; ++i) sh->y[sh->sp->free[i]] = x[i];
    sh->out->map_evals++;
    int rc = nsd_periodic_map(sh->s, sh->sp, sh->y, sh->y_end, T, sh->out->message,
                              sizeof sh->out->message);
    sh->out->rhs_evals += sh->s->res.stats.rhs_evals;
    if (rc != 0) return -1;
    for (size_t i = 0; i < sh->k; ++i) Px[i] = sh->y_end[sh->sp->free[i]];
    return 0;
}

/* Scaled residual F = (P - x) / scale and its max norm. */
static double residual(const shooter *sh, const double *x, const double *Px, double *F) {
    double r = 0.0;
    for (size_t i = 0; i < sh->k; ++i) {
        F[i] = (Px[i] - x[i]) / scale_of(sh, i, x[i]);
        r = fmax(r, fabs(F[i]));
    }
    return r;
}

int nsd_periodic_map_tangent(nsd_scenario *s, const nsd_periodic_spec *sp, int substeps_mult,
                             const double *y0, double *y_end, double *period, double *J,
                             unsigned long long *rhs_evals, size_t *jumps, char *why,
                             size_t why_len) {
    size_t n = s->model.n, k = sp->n_free;
    double *scale = malloc(n * sizeof *scale);
    size_t *row = malloc(n * sizeof *row);
    nsd_tangent *tg = NULL;
    int rc = -1;
    if (!scale || !row) goto done;
    for (size_t i = 0; i < n; ++i) scale[i] = 1.0, row[i] = i;
    for (size_t i = 0; i < k; ++i) scale[sp->free[i]] = sp->scale[i];
    for (size_t p = 0; p < sp->n_swap; ++p) { /* as nsd_periodic_map swaps the end state */
        size_t a = sp->swap[2 * p], b = sp->swap[2 * p + 1], t = row[a];
        row[a] = row[b];
        row[b] = t;
    }
    tg = nsd_tangent_new(&s->model, s->data, scale,
                         substeps_mult * (sp->substeps > 0 ? sp->substeps : 1));
    if (!tg) goto done;
    nsd_tangent_begin(tg);
    rc = nsd_periodic_map(s, sp, y0, y_end, period, why, why_len);
    nsd_tangent_end(tg);
    *rhs_evals += nsd_tangent_rhs_evals(tg);
    *jumps = nsd_tangent_jumps(tg);
    if (rc == 0 && s->res.drift_corrections) {
        snprintf(why, why_len,
                 "variational equations: the run projected sustained contacts back onto their "
                 "surfaces %llu time%s (drift corrections), which the variational equations do "
                 "not follow; use [periodic] jacobian = \"differences\"",
                 (unsigned long long)s->res.drift_corrections,
                 s->res.drift_corrections == 1 ? "" : "s");
        rc = -1;
    }
    const double *Phi = nsd_tangent_matrix(tg);
    for (size_t i = 0; rc == 0 && i < k; ++i)
        for (size_t j = 0; j < k; ++j) J[i * k + j] = Phi[row[sp->free[i]] * n + sp->free[j]];
done:
    if (!scale || !row || !tg) snprintf(why, why_len, "out of memory");
    nsd_tangent_free(tg);
    free(scale);
    free(row);
    return rc;
}

/* dP/dx at x from one run with the variational equations and saltation
 * matrices (nsd_periodic_map_tangent), mult times the configured Magnus
 * substeps. 0 or -1 (out->message). */
static int tangent_jacobian(shooter *sh, const double *x, double mult, double *J) {
    double T;
    memcpy(sh->y, sh->base, sh->n * sizeof *sh->y);
    for (size_t i = 0; i < sh->k; ++i) sh->y[sh->sp->free[i]] = x[i];
    sh->out->map_evals++;
    int rc = nsd_periodic_map_tangent(sh->s, sh->sp, (int)mult, sh->y, sh->y_end, &T, J,
                                      &sh->out->rhs_evals, &sh->out->jumps, sh->out->message,
                                      sizeof sh->out->message);
    sh->out->rhs_evals += sh->s->res.stats.rhs_evals;
    return rc;
}

/* dP/dx at x (whose image is Px) by central differences with steps
 * `mult` times the base step, into J (k x k row-major). Where one side
 * cannot be evaluated (the walker falls on that side of a gait near its
 * edge) the column is a one-sided difference, O(h) instead of O(h^2).
 * 0 or -1 (neither side). */
static int jacobian(shooter *sh, const double *x, const double *Px, double mult, double *J) {
    size_t k = sh->k;
    double T;
    if (sh->sp->jacobian == NSD_PERIODIC_JAC_VARIATIONAL) return tangent_jacobian(sh, x, mult, J);
    for (size_t j = 0; j < k; ++j) {
        double h = mult * sh->sp->fd_step * scale_of(sh, j, x[j]);
        memcpy(sh->xt, x, k * sizeof *x);
        sh->xt[j] = x[j] + h;
        int up = eval(sh, sh->xt, sh->Pt, &T) == 0;
        sh->xt[j] = x[j] - h;
        int down = eval(sh, sh->xt, sh->Ft, &T) == 0;
        if (!up && !down) return -1;
        const double *hi = up ? sh->Pt : Px, *lo = down ? sh->Ft : Px;
        double span = (up ? h : 0.0) + (down ? h : 0.0);
        for (size_t i = 0; i < k; ++i) J[i * k + j] = (hi[i] - lo[i]) / span;
    }
    return 0;
}

static int by_modulus(const void *a, const void *b) {
    const double *p = a, *q = b;
    double ma = hypot(p[0], p[1]), mb = hypot(q[0], q[1]);
    return ma < mb ? 1 : ma > mb ? -1 : (p[1] < q[1]) - (p[1] > q[1]);
}

/* Multipliers of out->J into out->mult_*, sorted by modulus. 0 or -1. */
static int multipliers(shooter *sh) {
    size_t k = sh->k;
    nsd_periodic_result *out = sh->out;
    memcpy(sh->A, out->J, k * k * sizeof *sh->A);
    if (nsn_eigenvalues(k, sh->A, out->mult_re, out->mult_im, sh->wk) != NSN_OK) {
        snprintf(out->message, sizeof out->message,
                 "the eigenvalues of the map's Jacobian did not converge (LAPACK dgeev)");
        return -1;
    }
    double *pairs = sh->J2; /* k^2 >= 2k when k >= 2; k = 1 needs 2 */
    double one[2];
    if (k == 1) pairs = one;
    for (size_t i = 0; i < k; ++i) {
        pairs[2 * i] = out->mult_re[i];
        pairs[2 * i + 1] = out->mult_im[i];
    }
    qsort(pairs, k, 2 * sizeof *pairs, by_modulus);
    out->stable = 1;
    for (size_t i = 0; i < k; ++i) {
        out->mult_re[i] = pairs[2 * i];
        out->mult_im[i] = pairs[2 * i + 1];
        if (!(hypot(pairs[2 * i], pairs[2 * i + 1]) < 1.0)) out->stable = 0;
    }
    return 0;
}

/* The Newton step from sh->x: solve (J - I) dx = -(P - x), then halve it
 * until the residual falls (or a few halvings). On success sh->x, Px, F
 * and *res hold the new point. 0, or -1 with out->message. */
/* Broyden's rank-one update of out->J after the step dx = xt - x with
 * image change dP = Pt - Px (before they are copied), in the scaled
 * variables: J += (dP - J dx)(W dx)^T / (dx^T W dx), W = diag(1/s^2). */
static void broyden(shooter *sh) {
    size_t k = sh->k;
    double *J = sh->out->J, den = 0.0;
    for (size_t j = 0; j < k; ++j) {
        double w = scale_of(sh, j, sh->x[j]), dx = sh->xt[j] - sh->x[j];
        den += dx * dx / (w * w);
    }
    if (!(den > 0.0)) return;
    for (size_t i = 0; i < k; ++i) {
        double r = sh->Pt[i] - sh->Px[i];
        for (size_t j = 0; j < k; ++j) r -= J[i * k + j] * (sh->xt[j] - sh->x[j]);
        for (size_t j = 0; j < k; ++j) {
            double w = scale_of(sh, j, sh->x[j]);
            J[i * k + j] += r * (sh->xt[j] - sh->x[j]) / (w * w) / den;
        }
    }
}

/* The Newton step from sh->x: solve (J - I) dx = -(P - x), then halve it
 * until the residual falls (or a few halvings). J is a fresh
 * finite-difference Jacobian, or the last one with Broyden's updates
 * while full steps keep halving the residual (a chord method: each saved
 * Jacobian saves 2 n_free runs). On success sh->x, Px, F and *res hold
 * the new point. 0, or -1 with out->message. */
static int newton_step(shooter *sh, double *res, double *T) {
    size_t k = sh->k;
    nsd_periodic_result *out = sh->out;
    if (!sh->have_J) {
        if (jacobian(sh, sh->x, sh->Px, 1.0, out->J) != 0) return -1;
        sh->have_J = sh->fresh = 1;
    }
    for (size_t i = 0; i < k * k; ++i) sh->A[i] = out->J[i];
    for (size_t i = 0; i < k; ++i) {
        sh->A[i * k + i] -= 1.0;
        sh->b[i] = sh->x[i] - sh->Px[i];
    }
    if (nsn_solve(k, sh->A, sh->b, sh->ipiv) != NSN_OK) {
        snprintf(out->message, sizeof out->message,
                 "dP/dx - I is singular: a multiplier is 1 (a neutral direction: a free entry "
                 "the map does not restore, such as a position along a uniform ramp, or a fold)");
        sh->have_J = 0;
        return -1;
    }
    char miss[sizeof out->message] = "";
    for (double lam = 1.0; lam > 1.0 / 64.0; lam *= 0.5) {
        for (size_t i = 0; i < k; ++i) sh->xt[i] = sh->x[i] + lam * sh->b[i];
        double Tt;
        if (eval(sh, sh->xt, sh->Pt, &Tt) != 0) {
            snprintf(miss, sizeof miss, "%s", out->message);
            continue;
        }
        double rt = residual(sh, sh->xt, sh->Pt, sh->Ft);
        if (rt < *res || lam <= 1.0 / 32.0) {
            if (lam == 1.0 && rt <= 0.5 * *res) { /* keep J, updated */
                broyden(sh);
                sh->fresh = 0;
            } else
                sh->have_J = 0;
            memcpy(sh->x, sh->xt, k * sizeof *sh->x);
            memcpy(sh->Px, sh->Pt, k * sizeof *sh->x);
            memcpy(sh->F, sh->Ft, k * sizeof *sh->x);
            *res = rt;
            *T = Tt;
            return 0;
        }
    }
    snprintf(out->message, sizeof out->message,
             "no step along the Newton direction could be evaluated: %s", miss);
    sh->have_J = 0;
    return -1;
}

static int shooter_alloc(shooter *sh) {
    size_t n = sh->n, k = sh->k ? sh->k : 1;
    sh->base = calloc(n, sizeof(double));
    sh->y = calloc(n, sizeof(double));
    sh->y_end = calloc(n, sizeof(double));
    sh->x = calloc(13 * k + 2 * k * k, sizeof(double)); /* 7k vectors, 4k work, 2 k^2 */
    sh->ipiv = calloc(k, sizeof(int));
    if (!sh->base || !sh->y || !sh->y_end || !sh->x || !sh->ipiv) return -1;
    sh->Px = sh->x + k;
    sh->F = sh->Px + k;
    sh->xt = sh->F + k;
    sh->Pt = sh->xt + k;
    sh->Ft = sh->Pt + k;
    sh->b = sh->Ft + k;
    sh->wk = sh->b + k;     /* 4k */
    sh->A = sh->wk + 4 * k; /* k^2 */
    sh->J2 = sh->A + k * k; /* k^2 */
    return 0;
}

static void shooter_free(shooter *sh) {
    free(sh->base);
    free(sh->y);
    free(sh->y_end);
    free(sh->x);
    free(sh->ipiv);
}

/* At the converged point: the Jacobian at h and 2h, the multipliers. */
static int finish(shooter *sh) {
    nsd_periodic_result *out = sh->out;
    size_t k = sh->k;
    if (jacobian(sh, sh->x, sh->Px, 1.0, out->J) != 0 ||
        jacobian(sh, sh->x, sh->Px, 2.0, sh->J2) != 0)
        return -1;
    /* the difference in the scaled variables x_i / s_i, which the
     * multipliers do not depend on */
    out->jac_error = 0.0;
    for (size_t i = 0; i < k; ++i)
        for (size_t j = 0; j < k; ++j) {
            double d = fabs(out->J[i * k + j] - sh->J2[i * k + j]) * scale_of(sh, j, sh->x[j]) /
                       scale_of(sh, i, sh->x[i]);
            if (d > out->jac_error) {
                out->jac_error = d;
                out->jac_error_at[0] = i;
                out->jac_error_at[1] = j;
            }
        }
    /* the multipliers of J_2h (before multipliers() reuses J2's buffer),
     * then J_h's, each matched to its nearest of J_2h's */
    double *wr = sh->Pt, *wi = sh->Ft;
    memcpy(sh->A, sh->J2, k * k * sizeof *sh->A);
    int have2 = nsn_eigenvalues(k, sh->A, wr, wi, sh->wk) == NSN_OK;
    if (multipliers(sh) != 0) return -1;
    out->mult_error = have2 ? 0.0 : NAN;
    for (size_t i = 0; have2 && i < k; ++i) {
        double d = HUGE_VAL;
        for (size_t j = 0; j < k; ++j)
            d = fmin(d, hypot(out->mult_re[i] - wr[j], out->mult_im[i] - wi[j]));
        out->mult_error = fmax(out->mult_error, d);
    }
    return 0;
}

int nsd_periodic_solve(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y_guess,
                       nsd_periodic_result *out, FILE *progress) {
    double wall0 = now_seconds();
    shooter sh = {.s = s, .sp = sp, .out = out, .n = s->model.n, .k = sp->n_free};
    int rc = -1;
    double T = 0.0;
    if (shooter_alloc(&sh) != 0) {
        snprintf(out->message, sizeof out->message, "out of memory");
        goto done;
    }
    memcpy(sh.base, y_guess, sh.n * sizeof *sh.base);
    for (size_t i = 0; i < sh.k; ++i) sh.x[i] = y_guess[sp->free[i]];
    if (eval(&sh, sh.x, sh.Px, &T) != 0) goto done;
    double res = residual(&sh, sh.x, sh.Px, sh.F);
    rc = 1;
    for (int it = 0;; ++it) {
        out->history[it] = res;
        out->iterations = it;
        out->residual = res;
        if (progress)
            fprintf(progress, "  Newton %2d: residual %.3e (period %.9g s)\n", it, res, T);
        if (res <= sp->tol) {
            rc = 0;
            break;
        }
        if (it >= sp->max_iter) {
            snprintf(out->message, sizeof out->message,
                     "Newton did not converge in %d iterations: the residual is %.3e, the "
                     "tolerance %.3e",
                     sp->max_iter, res, sp->tol);
            break;
        }
        int fresh = !sh.have_J || sh.fresh;
        if (newton_step(&sh, &res, &T) != 0 && (fresh || newton_step(&sh, &res, &T) != 0))
            break; /* history[0..it] stands; an updated Jacobian gets one retry, fresh */
    }
    /* the orbit's state: the free entries where Newton ended */
    memcpy(out->y, sh.base, sh.n * sizeof *out->y);
    for (size_t i = 0; i < sh.k; ++i) out->y[sp->free[i]] = sh.x[i];
    out->period = T;
    out->converged = rc == 0;
    if (rc == 0 && finish(&sh) != 0) rc = -1;
done:
    shooter_free(&sh);
    out->wall_seconds = now_seconds() - wall0;
    return rc;
}

double nsd_periodic_repeat(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y, int k,
                           char *why, size_t why_len) {
    size_t n = s->model.n;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), worst = 0.0, T;
    if (!a || !b) {
        snprintf(why, why_len, "out of memory");
        worst = -1.0;
    } else {
        memcpy(a, y, n * sizeof *a);
        for (int r = 0; r < k && worst >= 0.0; ++r) {
            if (nsd_periodic_map(s, sp, a, b, &T, why, why_len) != 0) {
                worst = -1.0;
                break;
            }
            for (size_t i = 0; i < sp->n_free; ++i) {
                size_t f = sp->free[i];
                worst = fmax(worst, fabs(b[f] - y[f]) / fmax(fabs(y[f]), sp->scale[i]));
            }
            memcpy(a, b, n * sizeof *a);
        }
    }
    free(a);
    free(b);
    return worst;
}

int nsd_periodic_report(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y,
                        const size_t *ch, size_t n, double *out, char *why, size_t why_len) {
    if (n == 0) return 0;
    nsd_periodic_spec two = *sp;
    two.crossings = 2 * sp->crossings;
    two.n_swap = 0; /* the end state is not compared */
    double *y_end = malloc(s->model.n * sizeof *y_end), T;
    if (!y_end) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int rc = nsd_periodic_map(s, &two, y, y_end, &T, why, why_len);
    free(y_end);
    if (rc != 0) return -1;
    const nsd_series *ser = &s->res.series;
    for (size_t i = 0; i < n; ++i) out[i] = nsd_series_at(ser, ser->rows - 1, ch[i]);
    return 0;
}
