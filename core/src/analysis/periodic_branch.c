/* Continuation of a periodic orbit along a parameter (periodic_branch.h). */
#define _GNU_SOURCE
#include "periodic_branch.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plot.h"

typedef struct branch_point {
    double p;
    int converged, stable;
    double period, residual;
    double *y;       /* n */
    double *re, *im; /* k */
    char mark[160];  /* a crossing of the unit circle between the previous point and this */
} branch_point;

typedef struct branch {
    size_t n, k, np;
    branch_point *pt;
} branch;

static void branch_free(branch *b) {
    for (size_t i = 0; b->pt && i < b->np; ++i) {
        free(b->pt[i].y);
        free(b->pt[i].re);
        free(b->pt[i].im);
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

/* The orbit at parameter value p from the guess: a scenario derived from
 * s with the parameter set, Newton. Returns 0 when converged. */
static int solve_at(nsd_scenario *s, const nsd_periodic_config *pc, double p, const double *guess,
                    branch_point *bp, size_t n, size_t k, char *why, size_t why_len) {
    nsd_toml_node val = {.type = NSD_TOML_FLOAT,
                         .source = "[periodic.continuation]",
                         .key = (char *)pc->cont_key,
                         .real = p};
    nsd_toml_node sec = {.type = NSD_TOML_TABLE,
                         .source = "[periodic.continuation]",
                         .key = (char *)pc->cont_section,
                         .items = &val,
                         .n_items = 1};
    nsd_toml_node table = {
        .type = NSD_TOML_TABLE, .source = "[periodic.continuation]", .items = &sec, .n_items = 1};
    nsd_scenario d;
    nsd_diag diag = {0};
    int rc = -1;
    d.no_graphs = 1;
    size_t errors = nsd_scenario_derive(&d, s, &table, &diag);
    d.no_graphs = 1;
    if (!errors) errors = nsd_scenario_create(&d, &diag);
    if (errors) {
        snprintf(why, why_len, "%s = %g: %s", pc->cont_key, p,
                 diag.n ? diag.lines[0] : "the config does not take this value");
    } else {
        d.app.cfg.settings = s->app.cfg.settings; /* the shooting settings */
        nsd_periodic_result r;
        if (nsd_periodic_result_init(&r, n, k) == 0) {
            rc = nsd_periodic_solve(&d, &pc->spec, guess, &r, NULL);
            bp->converged = rc == 0;
            bp->residual = r.residual;
            bp->period = r.period;
            bp->stable = r.stable;
            memcpy(bp->y, r.y, n * sizeof *bp->y);
            memcpy(bp->re, r.mult_re, k * sizeof *bp->re);
            memcpy(bp->im, r.mult_im, k * sizeof *bp->im);
            if (rc != 0) snprintf(why, why_len, "%s", r.message);
            nsd_periodic_result_free(&r);
        }
    }
    nsd_diag_free(&diag);
    nsd_scenario_destroy(&d);
    return rc;
}

/* continuation.csv: one row per parameter value. */
static int write_csv(const char *dir, const nsd_scenario *s, const nsd_periodic_config *pc,
                     const branch *b, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/continuation.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    const nsd_model *m = &s->model;
    fprintf(f, "%s.%s,converged,stable,period [s],residual,max |mu|", pc->cont_section,
            pc->cont_key);
    for (size_t j = 0; j < b->k; ++j)
        fprintf(f, ",%s [%s]", m->channels[1 + pc->spec.free[j]].name,
                m->channels[1 + pc->spec.free[j]].unit);
    for (size_t j = 0; j < b->k; ++j) fprintf(f, ",mu%zu re,mu%zu im", j + 1, j + 1);
    fprintf(f, ",event\n");
    for (size_t i = 0; i < b->np; ++i) {
        const branch_point *p = &b->pt[i];
        fprintf(f, "%.12g,%d,%d,%.12g,%.3e,%.9g", p->p, p->converged, p->stable, p->period,
                p->residual, p->converged ? hypot(p->re[0], p->im[0]) : NAN);
        for (size_t j = 0; j < b->k; ++j) fprintf(f, ",%.12g", p->y[pc->spec.free[j]]);
        for (size_t j = 0; j < b->k; ++j) fprintf(f, ",%.9g,%.9g", p->re[j], p->im[j]);
        fprintf(f, ",\"%s\"\n", p->mark);
    }
    return nsd_commit_file(f, path, err, len);
}

/* continuation.<fmt>: |mu|, Re mu and the period along the branch, the
 * marked crossings as vertical lines. */
static int write_graph(const char *dir, const nsd_scenario *s, const nsd_periodic_config *pc,
                       const branch *b, char *err, size_t len) {
    /* the CSV has every multiplier; the graph the six largest (by modulus,
     * so a curve is the i-th largest, not one multiplier followed) */
    size_t np = b->np, k = b->k < 6 ? b->k : 6;
    double *buf = calloc((2 * k + 3) * np + 4 + np, sizeof *buf);
    nsd_curve *cv = calloc(2 * k + 3, sizeof *cv);
    char(*leg)[32] = calloc(k, sizeof *leg);
    if (!buf || !cv || !leg) {
        free(buf), free(cv), free(leg);
        snprintf(err, len, "out of memory");
        return -1;
    }
    double *P = buf, *T = P + np, *one = T + np, *vl = one + 4, *mod = vl + np, *re = mod + k * np;
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
        snprintf(leg[j], sizeof leg[j], "mu%zu", j + 1);
        cv[j] = (nsd_curve){P, mod + j * np, np, leg[j], (int)j, 0, 1.5, 2};
        cv[k + 1 + j] = (nsd_curve){P, re + j * np, np, NULL, (int)j, 0, 1.5, 2};
    }
    cv[k] = (nsd_curve){ends, one, 2, "|mu| = 1", 6, 1, 1.0, 0};
    cv[2 * k + 1] = (nsd_curve){ends, one + 2, 2, "mu = -1", 6, 1, 1.0, 0};
    cv[2 * k + 2] = (nsd_curve){P, T, np, NULL, 0, 0, 2.0, 2};
    char xl[128], title[600];
    snprintf(xl, sizeof xl, "%s.%s", pc->cont_section, pc->cont_key);
    snprintf(title, sizeof title, "periodic orbits along %s (grey lines: a multiplier crosses)",
             xl);
    nsd_panel panels[3] = {
        {"Floquet multipliers |mu|", xl, "|mu|", cv, k + 1, vl, nv, NAN, NAN, 0.0, NAN, 0, 0, 0,
         NULL, NULL, 4},
        {"real parts", xl, "Re mu", cv + k + 1, k + 1, vl, nv, NAN, NAN, NAN, NAN, 0, 0, 0, NULL,
         NULL, 0},
        {"period", xl, "period [s]", cv + 2 * k + 2, 1, vl, nv, NAN, NAN, NAN, NAN, 0, 0, 0, NULL,
         NULL, 0},
    };
    nsd_figure fig = {title, panels, 3, 1, 1200, 1200};
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&s->app.cfg, "format");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/continuation.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nsd_plot_write(path, fmt, &fig, err, len);
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
        if (!b->pt[i].y || !b->pt[i].re || !b->pt[i].im) return -1;
    }
    return 0;
}

int nsd_periodic_branch(nsd_scenario *s, const nsd_periodic_config *pc,
                        const nsd_periodic_result *r, const char *dir, FILE *progress, char *err,
                        size_t err_len) {
    branch b = {.n = s->model.n, .k = pc->spec.n_free};
    double *guess = malloc(b.n * sizeof *guess);
    if (!guess || branch_alloc(&b, pc->n_values) != 0) {
        free(guess);
        branch_free(&b);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int converged = 0;
    size_t last = 0; /* points solved */
    char why[1024] = "";
    if (progress)
        fprintf(progress, "continuation along %s.%s, %zu values:\n", pc->cont_section, pc->cont_key,
                pc->n_values);
    for (size_t i = 0; i < pc->n_values; ++i, last = i) {
        branch_point *bp = &b.pt[i];
        bp->p = pc->values[i];
        /* predictor: the last orbit, or the secant through the last two */
        if (i == 0)
            memcpy(guess, r->y, b.n * sizeof *guess);
        else if (i == 1 || !b.pt[i - 2].converged)
            memcpy(guess, b.pt[i - 1].y, b.n * sizeof *guess);
        else {
            double f = (bp->p - b.pt[i - 1].p) / (b.pt[i - 1].p - b.pt[i - 2].p);
            for (size_t j = 0; j < b.n; ++j)
                guess[j] = b.pt[i - 1].y[j] + f * (b.pt[i - 1].y[j] - b.pt[i - 2].y[j]);
        }
        int rc = solve_at(s, pc, bp->p, guess, bp, b.n, b.k, why, sizeof why);
        if (rc == 0) {
            converged++;
            if (i > 0) mark_crossings(&b.pt[i - 1], bp, b.k);
        } else
            snprintf(bp->mark, sizeof bp->mark, "the branch ends: Newton failed");
        if (progress)
            fprintf(progress, "  %s.%s = %-12.6g %s period %.8g s, max |mu| = %.6f%s%s\n",
                    pc->cont_section, pc->cont_key, bp->p,
                    rc == 0 ? (bp->stable ? "stable  " : "UNSTABLE") : "FAILED  ", bp->period,
                    hypot(bp->re[0], bp->im[0]), bp->mark[0] ? "  <- " : "", bp->mark);
        if (rc != 0) {
            if (progress)
                fprintf(progress,
                        "  the branch ends at %s.%s = %g: %s (natural continuation cannot pass "
                        "a fold: a multiplier near +1 before it points to one)\n",
                        pc->cont_section, pc->cont_key, bp->p, why);
            last = i + 1;
            break;
        }
    }
    b.np = last;
    int ok = b.np == 0 || (write_csv(dir, s, pc, &b, err, err_len) == 0 &&
                           (b.np < 2 || write_graph(dir, s, pc, &b, err, err_len) == 0));
    b.np = pc->n_values; /* free every point */
    branch_free(&b);
    free(guess);
    return ok ? converged : -1;
}
