/* Continuation of a periodic orbit along a parameter (periodic_branch.h). */
#define _GNU_SOURCE
#include "periodic_branch.h"
#include "figures.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "params.h"
#include "plot.h"

typedef struct branch_point {
    double p;
    int solved, converged, stable;
    double period, residual;
    double jac_error;  /* the multipliers' h/2h difference (periodic.h mult_error) */
    double *y;         /* n */
    double *re, *im;   /* k */
    double *rep;       /* pc->n_report: the report channels on the orbit */
    const double *par; /* the row of parameter values */
    char mark[160];    /* a crossing of the unit circle between the previous point and this */
} branch_point;

typedef struct branch {
    size_t n, k, np, nr; /* states, free states, points, report channels */
    branch_point *pt;
    /* The scenario the points are solved in: the opened config's model,
     * one data whose parameters each point sets (nsd_scenario_point). */
    nsd_scenario at;
    int at_ready;
} branch;

static void branch_free(branch *b) {
    if (b->at_ready) nsd_scenario_destroy(&b->at);
    for (size_t i = 0; b->pt && i < b->np; ++i) {
        free(b->pt[i].y);
        free(b->pt[i].re);
        free(b->pt[i].im);
        free(b->pt[i].rep);
    }
    free(b->pt);
}

/* Multipliers outside the unit circle, by kind: real > 1, real < -1,
 * complex. LAPACK returns real eigenvalues with an imaginary part of
 * exactly zero. */
static void count_outside(const branch_point *p, size_t k, int out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (size_t i = 0; i < k; ++i) {
        if (p->im[i] != 0.0)
            out[2] += hypot(p->re[i], p->im[i]) > 1.0;
        else if (p->re[i] > 1.0)
            out[0]++;
        else if (p->re[i] < -1.0)
            out[1]++;
    }
}

static void mark_crossings(branch_point *prev, branch_point *cur, size_t k) {
    int a[3], b[3];
    count_outside(prev, k, a);
    count_outside(cur, k, b);
    const char *what[3] = {"a real multiplier crosses +1 (fold or branch point)",
                           "a real multiplier crosses -1 (period doubling)",
                           "a complex pair crosses the unit circle (Neimark-Sacker)"};
    for (int i = 0; i < 3; ++i)
        if (a[i] != b[i]) {
            size_t used = strlen(cur->mark);
            snprintf(cur->mark + used, sizeof cur->mark - used, "%s%s", used ? "; " : "", what[i]);
        }
}

/* A period-2k orbit (crossings even) whose map over k crossings already
 * returns is the period-k orbit counted twice: the branch has slid onto
 * the one below its doubling (issue 27). 1 with why, else 0. */
static int collapsed(nsd_scenario *d, const nsd_periodic_spec *sp, const double *y, char *why,
                     size_t len) {
    if (sp->crossings < 2 || sp->crossings % 2) return 0;
    nsd_periodic_spec half = *sp;
    half.crossings = sp->crossings / 2;
    double *y1 = malloc(d->model.n * sizeof *y1), T, r = HUGE_VAL;
    char miss[256];
    if (y1 && nsd_periodic_map(d, &half, y, y1, &T, miss, sizeof miss) == 0) {
        r = 0.0;
        for (size_t i = 0; i < sp->n_free; ++i) {
            size_t f = sp->free[i];
            r = fmax(r, fabs(y1[f] - y[f]) / fmax(fabs(y[f]), sp->scale[i]));
        }
    }
    free(y1);
    if (!(r < 1e3 * sp->tol)) return 0;
    snprintf(why, len,
             "the orbit returns after %zu of its %zu crossings (scaled residual %.1e): it is the "
             "period-%zu orbit counted twice, the branch has collapsed onto the one below the "
             "period doubling; the branch stops here",
             half.crossings, sp->crossings, r, half.crossings);
    return 1;
}

/* The orbit at parameter value p from the guess: the branch's scenario
 * with the parameter set, Newton. Returns 0 when converged. */
static int solve_at(nsd_scenario *s, branch *b, const nsd_periodic_config *pc, branch_point *bp,
                    const double *guess, size_t n, size_t k, char *why, size_t why_len) {
    nsd_overrides over = {0};
    /* the keys name real parameters (periodic_config.c) */
    for (size_t j = 0; j < pc->n_par; ++j)
        nsd_overrides_set_real(&over, pc->cont_section[j], pc->cont_key[j], bp->par[j],
                               (nsd_where){"[periodic.continuation]", 0, 0}, why, why_len);
    nsd_scenario *d = &b->at;
    nsd_diag diag = {0};
    int rc = -1;
    size_t errors = nsd_scenario_point(d, &b->at_ready, s, s, &over, &diag);
    nsd_overrides_free(&over);
    if (errors) {
        snprintf(why, why_len, "%s.%s = %g: %s", pc->cont_section[0], pc->cont_key[0], bp->p,
                 diag.n ? diag.lines[0] : "the config does not take this value");
    } else {
        d->app.cfg.settings = s->app.cfg.settings; /* the shooting settings */
        nsd_periodic_result r;
        if (nsd_periodic_result_init(&r, n, k) == 0) {
            rc = nsd_periodic_solve(d, &pc->spec, guess, &r, NULL);
            bp->converged = rc == 0;
            bp->residual = r.residual;
            bp->period = r.period;
            bp->stable = r.stable;
            bp->jac_error = r.mult_error;
            memcpy(bp->y, r.y, n * sizeof *bp->y);
            memcpy(bp->re, r.mult_re, k * sizeof *bp->re);
            memcpy(bp->im, r.mult_im, k * sizeof *bp->im);
            if (rc != 0) snprintf(why, why_len, "%s", r.message);
            if (rc == 0 && collapsed(d, &pc->spec, r.y, why, why_len)) rc = 2;
            if (rc == 0 && nsd_periodic_report(d, &pc->spec, r.y, pc->report, pc->n_report, bp->rep,
                                               why, why_len) != 0) {
                for (size_t i = 0; i < pc->n_report; ++i) bp->rep[i] = NAN;
            }
            nsd_periodic_result_free(&r);
        }
    }
    nsd_diag_free(&diag);
    return rc;
}

/* continuation.csv: one row per parameter value solved; `unfinished`
 * (a checkpoint while the branch is traced, or NULL) as a first line
 * "# INCOMPLETE: ...". */
static int write_csv(const char *dir, const nsd_scenario *s, const nsd_periodic_config *pc,
                     const branch *b, const char *unfinished, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/continuation.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    if (unfinished) fprintf(f, "# INCOMPLETE: %s\n", unfinished);
    const nsd_model *m = &s->model;
    for (size_t j = 0; j < pc->n_par; ++j)
        fprintf(f, "%s.%s,", pc->cont_section[j], pc->cont_key[j]);
    fprintf(f, "converged,stable,period [s],residual,mu error (h/2h),max |mu|");
    for (size_t j = 0; j < b->nr; ++j)
        fprintf(f, ",%s [%s]", m->channels[pc->report[j]].name, m->channels[pc->report[j]].unit);
    for (size_t j = 0; j < b->k; ++j)
        fprintf(f, ",%s [%s]", m->channels[1 + pc->spec.free[j]].name,
                m->channels[1 + pc->spec.free[j]].unit);
    for (size_t j = 0; j < b->k; ++j) fprintf(f, ",mu%zu re,mu%zu im", j + 1, j + 1);
    fprintf(f, ",event\n");
    for (size_t i = 0; i < b->np; ++i) {
        const branch_point *p = &b->pt[i];
        if (!p->solved) continue;
        for (size_t j = 0; j < pc->n_par; ++j) fprintf(f, "%.12g,", p->par[j]);
        fprintf(f, "%d,%d,%.12g,%.3e,%.3e,%.9g", p->converged, p->stable, p->period, p->residual,
                p->jac_error, p->converged ? hypot(p->re[0], p->im[0]) : NAN);
        for (size_t j = 0; j < b->nr; ++j) fprintf(f, ",%.12g", p->converged ? p->rep[j] : NAN);
        for (size_t j = 0; j < b->k; ++j) fprintf(f, ",%.12g", p->y[pc->spec.free[j]]);
        for (size_t j = 0; j < b->k; ++j) fprintf(f, ",%.9g,%.9g", p->re[j], p->im[j]);
        fprintf(f, ",\"%s\"\n", p->mark);
    }
    return nsd_commit_file(f, path, err, len);
}

/* continuation.<fmt>: |mu|, Re mu and the period along the branch, the
 * marked crossings as vertical lines. */
/* The report channels along the branch as panels after the first
 * three (up to NR_PANELS), into panels[3..]; the curves into cv. */
enum { NR_PANELS = 3 };
static size_t report_panels(const nsd_scenario *s, const nsd_periodic_config *pc, const branch *b,
                            const double *P, double *R, const double *vl, size_t nv, const char *xl,
                            nsd_curve *cv, nsd_panel *panels, char (*yl)[96]) {
    size_t np = b->np, nr = b->nr < NR_PANELS ? b->nr : NR_PANELS;
    for (size_t j = 0; j < nr; ++j) {
        const nsd_channel *ch = &s->model.channels[pc->report[j]];
        for (size_t i = 0; i < np; ++i) R[j * np + i] = b->pt[i].converged ? b->pt[i].rep[j] : NAN;
        cv[j] = (nsd_curve){P, R + j * np, np, NULL, 1, 0, 2.0, 2, 0, 0};
        snprintf(yl[j], sizeof yl[j], "%s [%s]", ch->name, ch->unit);
        panels[j] = (nsd_panel){ch->label, xl, yl[j], &cv[j], 1,    vl, nv,   NAN,  NAN, NAN, NAN,
                                0,         0,  0,     NULL,   NULL, 0,  NULL, NULL, 0,   0,   NULL};
    }
    return nr;
}

/* continuation.<fmt>: |mu|, Re mu, the period and the report channels
 * along the branch, the marked crossings as vertical lines. */
static int write_graph(const char *dir, const nsd_scenario *s, const nsd_periodic_config *pc,
                       const branch *b, char *err, size_t len) {
    /* the CSV has every multiplier; the graph the six largest (by modulus,
     * so a curve is the i-th largest, not one multiplier followed) */
    size_t np = b->np, k = b->k < 6 ? b->k : 6;
    double *buf = calloc((2 * k + 3 + NR_PANELS) * np + 4 + np, sizeof *buf);
    nsd_curve *cv = calloc(2 * k + 3 + NR_PANELS, sizeof *cv);
    char(*leg)[32] = calloc(k, sizeof *leg);
    if (!buf || !cv || !leg) {
        free(buf), free(cv), free(leg);
        snprintf(err, len, "out of memory");
        return -1;
    }
    double *P = buf, *T = P + np, *one = T + np, *vl = one + 4, *mod = vl + np, *re = mod + k * np;
    double *R = re + k * np;
    size_t nv = 0;
    for (size_t i = 0; i < np; ++i) {
        P[i] = b->pt[i].p;
        T[i] = b->pt[i].converged ? b->pt[i].period : NAN;
        if (b->pt[i].mark[0] && i > 0) vl[nv++] = 0.5 * (b->pt[i - 1].p + b->pt[i].p);
        for (size_t j = 0; j < k; ++j) {
            int c = b->pt[i].converged;
            mod[j * np + i] = c ? hypot(b->pt[i].re[j], b->pt[i].im[j]) : NAN;
            re[j * np + i] = c ? b->pt[i].re[j] : NAN;
        }
    }
    double ends[2] = {P[0], P[np - 1]};
    one[0] = one[1] = 1.0;
    one[2] = one[3] = -1.0;
    for (size_t j = 0; j < k; ++j) {
        char name[32];
        snprintf(name, sizeof name, "mu%zu", j + 1);
        nsd_plot_symbol(name, leg[j], sizeof leg[j]); /* μ₁, μ₂, ... */
        cv[j] = (nsd_curve){P, mod + j * np, np, leg[j], (int)j, 0, 1.5, 2, 0, 0};
        cv[k + 1 + j] = (nsd_curve){P, re + j * np, np, NULL, (int)j, 0, 1.5, 2, 0, 0};
    }
    cv[k] = (nsd_curve){ends, one, 2, "|μ| = 1", 6, 1, 1.0, 0, 0, 0};
    cv[2 * k + 1] = (nsd_curve){ends, one + 2, 2, "μ = −1", 6, 1, 1.0, 0, 0, 0};
    cv[2 * k + 2] = (nsd_curve){P, T, np, NULL, 0, 0, 2.0, 2, 0, 0};
    char xl[128], title[600], sym[64];
    nsd_plot_symbol(pc->cont_key[0], sym, sizeof sym); /* "gamma": γ */
    snprintf(xl, sizeof xl, "%s [%s]", sym,
             nsd_figures_key_unit(&s->app.cfg, pc->cont_section[0], pc->cont_key[0]));
    snprintf(title, sizeof title, "periodic orbits along %s.%s (grey lines: a multiplier crosses)",
             pc->cont_section[0], pc->cont_key[0]);
    nsd_panel panels[3 + NR_PANELS] = {
        {"Floquet multipliers |μ|",
         xl,
         "|μ| [1]",
         cv,
         k + 1,
         vl,
         nv,
         NAN,
         NAN,
         0.0,
         NAN,
         0,
         0,
         0,
         NULL,
         NULL,
         4,
         NULL,
         NULL,
         0,
         0,
         NULL},
        {"real parts", xl,   "Re μ [1]", cv + k + 1, k + 1, vl, nv, NAN, NAN, NAN, NAN, 0, 0, 0,
         NULL,         NULL, 5,          NULL,       NULL,  0,  0,  NULL},
        {"period", xl, "period [s]", cv + 2 * k + 2, 1, vl,   nv,   NAN, NAN, NAN, NAN, 0,
         0,        0,  NULL,         NULL,           0, NULL, NULL, 0,   0,   NULL},
    };
    char yl[NR_PANELS][96];
    size_t npanels = 3 + report_panels(s, pc, b, P, R, vl, nv, xl, cv + 2 * k + 3, panels + 3, yl);
    nsd_figure fig = {title, panels, npanels, npanels > 3 ? 2 : 1, 1600, 1200, 0, 0, 0, 0};
    /* one parameter axis per column: its ticks and label under the lowest panel only */
    for (size_t i = 0; i + fig.columns < npanels; ++i) panels[i].shared_x = 1;
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&s->app.cfg, "format");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/continuation.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nsd_figure_write(&s->app.cfg, path, fmt, &fig, err, len);
    free(buf), free(cv), free(leg);
    return rc;
}

static int branch_alloc(branch *b, size_t np) {
    b->pt = calloc(np, sizeof *b->pt);
    if (!b->pt) return -1;
    b->np = np;
    for (size_t i = 0; i < np; ++i) {
        b->pt[i].y = calloc(b->n, sizeof(double));
        b->pt[i].re = calloc(b->k, sizeof(double));
        b->pt[i].im = calloc(b->k, sizeof(double));
        b->pt[i].rep = calloc(b->nr + 1, sizeof(double));
        if (!b->pt[i].y || !b->pt[i].re || !b->pt[i].im || !b->pt[i].rep) return -1;
    }
    return 0;
}

/* Newton failed at point i, continuing in direction dir: mark it, and
 * say whether the last orbit before it points to a fold (a real
 * multiplier near +1, which natural continuation cannot pass) or not. */
static void branch_end(branch *b, size_t i, int dir, char *why, size_t len) {
    snprintf(b->pt[i].mark, sizeof b->pt[i].mark, "the branch ends: Newton failed");
    long j = (long)i - dir;
    if (j < 0 || j >= (long)b->np || !b->pt[j].converged) return;
    double near = HUGE_VAL;
    for (size_t k = 0; k < b->k; ++k)
        if (b->pt[j].im[k] == 0.0 && fabs(b->pt[j].re[k] - 1.0) < fabs(near - 1.0))
            near = b->pt[j].re[k];
    size_t used = strlen(why);
    if (used + 1 >= len) return;
    if (fabs(near - 1.0) < 0.1)
        snprintf(why + used, len - used,
                 " (the last orbit has a real multiplier %.4f: a fold is likely between the two "
                 "values; natural continuation cannot pass it)",
                 near);
    else
        snprintf(why + used, len - used,
                 " (no real multiplier near +1 at the last orbit: not a fold; the orbit ends "
                 "some other way, e.g. the walker no longer gets over its stance leg)");
}

/* The row of values nearest the config's own parameter values (relative
 * distance): the branch starts there, from the orbit the command found. */
static size_t start_index(const nsd_scenario *s, const nsd_periodic_config *pc) {
    const nsd_config *cfg = &s->app.cfg;
    size_t best = 0;
    double best_d = HUGE_VAL;
    for (size_t i = 0; i < pc->n_values; ++i) {
        double d = 0.0;
        for (size_t j = 0; j < pc->n_par; ++j) {
            const char *sec = pc->cont_section[j];
            const nsd_section *S = !strcmp(sec, "system")    ? &cfg->system
                                   : !strcmp(sec, "contact") ? &cfg->contact
                                                             : &cfg->friction;
            double v0 = nsd_params_num(&S->params, pc->cont_key[j]);
            d += fabs(pc->values[i * pc->n_par + j] - v0) / fmax(fabs(v0), 1e-300);
        }
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

static void print_point(FILE *progress, const nsd_scenario *s, const nsd_periodic_config *pc,
                        const branch *b, const branch_point *bp, int rc) {
    fprintf(progress, "  %s.%s = %-10.6g %s period %.8g s, max |mu| = %.6f", pc->cont_section[0],
            pc->cont_key[0], bp->p, rc == 0 ? (bp->stable ? "stable  " : "UNSTABLE") : "FAILED  ",
            bp->period, hypot(bp->re[0], bp->im[0]));
    for (size_t j = 0; rc == 0 && j < b->nr; ++j)
        fprintf(progress, ", %s %.6g", s->model.channels[pc->report[j]].name, bp->rep[j]);
    fprintf(progress, "\n");
}

/* Point i from its neighbours toward the start (i - dir, i - 2 dir): the
 * last orbit, or the secant through the last two, as the guess. */
static int solve_point(nsd_scenario *s, const nsd_periodic_config *pc, branch *b, size_t i, int dir,
                       const double *y_start, double *guess, char *why, size_t len) {
    branch_point *bp = &b->pt[i];
    bp->par = pc->values + i * pc->n_par;
    bp->p = bp->par[0];
    long j1 = (long)i - dir, j2 = (long)i - 2 * dir;
    int have1 = j1 >= 0 && j1 < (long)b->np && b->pt[j1].solved && b->pt[j1].converged;
    int have2 = have1 && j2 >= 0 && j2 < (long)b->np && b->pt[j2].solved && b->pt[j2].converged;
    if (!have1)
        memcpy(guess, y_start, b->n * sizeof *guess);
    else if (!have2 || b->pt[j1].p == b->pt[j2].p)
        memcpy(guess, b->pt[j1].y, b->n * sizeof *guess);
    else {
        double f = (bp->p - b->pt[j1].p) / (b->pt[j1].p - b->pt[j2].p);
        for (size_t j = 0; j < b->n; ++j)
            guess[j] = b->pt[j1].y[j] + f * (b->pt[j1].y[j] - b->pt[j2].y[j]);
    }
    bp->solved = 1;
    return solve_at(s, b, pc, bp, guess, b->n, b->k, why, len);
}

void nsd_branch_summary_free(nsd_branch_summary *sum) {
    free(sum->solved);
    free(sum->stable_raw);
    free(sum->period_raw);
    free(sum->par);
    free(sum->residual);
    free(sum->mu_error);
    free(sum->x);
    free(sum->mu_re);
    free(sum->mu_im);
    free(sum->mark);
    free(sum->p);
    free(sum->period);
    free(sum->max_mu);
    free(sum->rep);
    free(sum->converged);
    free(sum->stable);
    memset(sum, 0, sizeof *sum);
}

/* The columns of continuation.csv that the summary's first part leaves
 * out, into sum. 0 or -1 (out of memory). */
static int summarize_rows(const branch *b, const nsd_periodic_config *pc, nsd_branch_summary *sum) {
    size_t np = b->np, k = b->k;
    sum->n_par = pc->n_par;
    sum->k = k;
    sum->solved = calloc(np, sizeof *sum->solved);
    sum->stable_raw = calloc(np, sizeof *sum->stable_raw);
    sum->period_raw = calloc(np, sizeof *sum->period_raw);
    sum->par = calloc(np * pc->n_par + 1, sizeof *sum->par);
    sum->residual = calloc(np, sizeof *sum->residual);
    sum->mu_error = calloc(np, sizeof *sum->mu_error);
    sum->x = calloc(np * k + 1, sizeof *sum->x);
    sum->mu_re = calloc(np * k + 1, sizeof *sum->mu_re);
    sum->mu_im = calloc(np * k + 1, sizeof *sum->mu_im);
    sum->mark = calloc(np, sizeof *sum->mark);
    if (!sum->solved || !sum->stable_raw || !sum->period_raw || !sum->par || !sum->residual ||
        !sum->mu_error || !sum->x || !sum->mu_re || !sum->mu_im || !sum->mark)
        return -1;
    for (size_t i = 0; i < np; ++i) {
        const branch_point *bp = &b->pt[i];
        sum->solved[i] = bp->solved;
        sum->stable_raw[i] = bp->stable;
        sum->period_raw[i] = bp->period;
        memcpy(sum->par + i * pc->n_par, bp->par, pc->n_par * sizeof *sum->par);
        sum->residual[i] = bp->residual;
        sum->mu_error[i] = bp->jac_error;
        for (size_t j = 0; j < k; ++j) {
            sum->x[i * k + j] = bp->y[pc->spec.free[j]];
            sum->mu_re[i * k + j] = bp->re[j];
            sum->mu_im[i * k + j] = bp->im[j];
        }
        memcpy(sum->mark[i], bp->mark, sizeof sum->mark[i]);
    }
    return 0;
}

/* The branch's points into sum. 0 or -1 (out of memory). */
static int summarize(const branch *b, const nsd_periodic_config *pc, nsd_branch_summary *sum) {
    if (summarize_rows(b, pc, sum) != 0) return -1;
    size_t np = b->np, nr = b->nr;
    sum->np = np;
    sum->nr = nr;
    sum->p = calloc(np, sizeof *sum->p);
    sum->period = calloc(np, sizeof *sum->period);
    sum->max_mu = calloc(np, sizeof *sum->max_mu);
    sum->rep = calloc(np * nr + 1, sizeof *sum->rep);
    sum->converged = calloc(np, sizeof *sum->converged);
    sum->stable = calloc(np, sizeof *sum->stable);
    if (!sum->p || !sum->period || !sum->max_mu || !sum->rep || !sum->converged || !sum->stable)
        return -1;
    for (size_t i = 0; i < np; ++i) {
        const branch_point *bp = &b->pt[i];
        int c = bp->solved && bp->converged;
        sum->p[i] = bp->p;
        sum->converged[i] = c;
        sum->stable[i] = c && bp->stable;
        sum->period[i] = c ? bp->period : NAN;
        sum->max_mu[i] = c ? hypot(bp->re[0], bp->im[0]) : NAN;
        for (size_t j = 0; j < nr; ++j) sum->rep[i * nr + j] = c ? bp->rep[j] : NAN;
    }
    return 0;
}

/* The branch so far into continuation.csv after each point, marked
 * incomplete: what a command keeps when a later point never comes back (a
 * plugin callback that loops, the process killed; cli/run_watched.h). A
 * point costs Newton on many runs of the map; the file, microseconds. A
 * write that fails is left to the final one to report. */
static void checkpoint(const char *dir, const nsd_scenario *s, const nsd_periodic_config *pc,
                       const branch *b, size_t tried) {
    if (!dir) return;
    char note[160], err[PATH_MAX + 256];
    snprintf(note, sizeof note,
             "the branch so far, %zu of %zu values tried; the continuation did not finish", tried,
             b->np);
    (void)write_csv(dir, s, pc, b, note, err, sizeof err);
}

int nsd_periodic_branch(nsd_scenario *s, const nsd_periodic_config *pc,
                        const nsd_periodic_result *r, const char *dir, FILE *progress,
                        nsd_branch_summary *sum, char *err, size_t err_len) {
    branch b = {.n = s->model.n, .k = pc->spec.n_free, .nr = pc->n_report};
    double *guess = malloc(b.n * sizeof *guess);
    if (!guess || branch_alloc(&b, pc->n_values) != 0) {
        free(guess);
        branch_free(&b);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < b.np; ++i) { /* unsolved points keep their place in the graph */
        b.pt[i].par = pc->values + i * pc->n_par;
        b.pt[i].p = b.pt[i].par[0];
    }
    int converged = 0;
    size_t tried = 0;
    char why[1024] = "";
    size_t i0 = start_index(s, pc);
    if (progress)
        fprintf(progress, "continuation along %s.%s%s, %zu values, from the config's own (%g):\n",
                pc->cont_section[0], pc->cont_key[0], pc->n_par > 1 ? " (and more parameters)" : "",
                pc->n_values, pc->values[i0 * pc->n_par]);
    /* from the start outwards, up, then down */
    for (int d = 1; d >= -1; d -= 2)
        for (long i = d > 0 ? (long)i0 : (long)i0 - 1; i >= 0 && i < (long)b.np; i += d) {
            int rc = solve_point(s, pc, &b, (size_t)i, d, r->y, guess, why, sizeof why);
            converged += rc == 0;
            if (progress) print_point(progress, s, pc, &b, &b.pt[i], rc);
            checkpoint(dir, s, pc, &b, ++tried);
            if (rc == 2) { /* collapsed: not a point of this branch */
                b.pt[i].converged = 0;
                snprintf(b.pt[i].mark, sizeof b.pt[i].mark,
                         "the branch collapsed onto the period-%zu orbit", pc->spec.crossings / 2);
                if (progress)
                    fprintf(progress, "  the branch stops at %s.%s = %g: %s\n", pc->cont_section[0],
                            pc->cont_key[0], b.pt[i].p, why);
                break;
            }
            if (rc != 0) {
                branch_end(&b, (size_t)i, d, why, sizeof why);
                if (progress)
                    fprintf(progress, "  the branch ends at %s.%s = %g: %s\n", pc->cont_section[0],
                            pc->cont_key[0], b.pt[i].p, why);
                break;
            }
        }
    for (size_t i = 1; i < b.np; ++i)
        if (b.pt[i - 1].converged && b.pt[i].converged) {
            mark_crossings(&b.pt[i - 1], &b.pt[i], b.k);
            if (progress && b.pt[i].mark[0])
                fprintf(progress, "  between %s.%s = %g and %g: %s\n", pc->cont_section[0],
                        pc->cont_key[0], b.pt[i - 1].p, b.pt[i].p, b.pt[i].mark);
        }
    int ok = !dir || (write_csv(dir, s, pc, &b, NULL, err, err_len) == 0 &&
                      (converged < 2 || write_graph(dir, s, pc, &b, err, err_len) == 0));
    if (ok && sum && summarize(&b, pc, sum) != 0) {
        snprintf(err, err_len, "out of memory");
        ok = 0;
    }
    branch_free(&b);
    free(guess);
    return ok ? converged : -1;
}
