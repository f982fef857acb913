/* Lyapunov exponents on the section map by Benettin's method with
 * finite-difference tangent maps (lyapunov.h). */
#define _GNU_SOURCE
#include "lyapunov.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "plot.h"
#include "figures.h"

int nsd_lyap_wanted(const nsd_periodic_config *pc) {
    return pc->table && nsd_toml_get(pc->table, "lyapunov") != NULL;
}

static size_t lyap_int(const nsd_toml_node *t, const char *key, int def, int lo, int hi, int *out,
                       nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, key);
    *out = def;
    if (!e) return 0;
    if (e->type == NSD_TOML_INTEGER && e->integer >= lo && e->integer <= hi) {
        *out = (int)e->integer;
        return 0;
    }
    nsd_diag_at(diag, e, "[periodic.lyapunov] key '%s': expected an integer in [%d, %d]", key, lo,
                hi);
    return 1;
}

size_t nsd_lyap_read(const nsd_periodic_config *pc, nsd_lyap_config *lc, nsd_diag *diag) {
    const nsd_toml_node *t = nsd_toml_get(pc->table, "lyapunov");
    static const char *const keys[] = {"transient", "periods", "count", "d0"};
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "[periodic] key 'lyapunov': expected a table, found %s",
                    nsd_toml_type_name(t->type));
        return 1;
    }
    size_t errors = nsd_diag_unknown_keys(diag, t, "[periodic.lyapunov]", keys, 4);
    int k = (int)pc->spec.n_free;
    errors += lyap_int(t, "transient", 200, 0, 10000000, &lc->transient, diag);
    errors += lyap_int(t, "periods", 1000, 2, 10000000, &lc->periods, diag);
    errors += lyap_int(t, "count", k < 16 ? k : 16, 1, k < 16 ? k : 16, &lc->count, diag);
    lc->d0 = 1e-7;
    const nsd_toml_node *d = nsd_toml_get(t, "d0");
    if (d && (!nsd_toml_is_number(d) || !(d->real > 0.0) || !(d->real < 1e-2))) {
        nsd_diag_at(diag, d, "[periodic.lyapunov] key 'd0': expected a number in (0, 0.01)");
        errors++;
    } else if (d)
        lc->d0 = d->real;
    return errors;
}

void nsd_lyap_result_free(nsd_lyap_result *r) {
    free(r->hist);
    r->hist = NULL;
}

typedef struct lyap_work {
    nsd_scenario *s;
    const nsd_periodic_spec *sp;
    nsd_lyap_result *out;
    size_t n, k, m;
    double d0;
    double *y, *y1, *yp, *yq, *sx, *q, *z; /* n, n, n, n, k, m k, m k */
    double *J;                             /* k^2: jacobian = "variational" */
} lyap_work;

static int map(lyap_work *w, const nsd_periodic_spec *sp, const double *y, double *y1, double *T) {
    w->out->map_evals++;
    int rc = nsd_periodic_map(w->s, sp, y, y1, T, w->out->message, sizeof w->out->message);
    w->out->rhs_evals += w->s->res.stats.rhs_evals;
    return rc;
}

/* One period: carry the vectors by differences of the map, QR, add
 * ln R_jj into sum. 0 or -1. */
static int step(lyap_work *w, double *sum, double *T) {
    size_t k = w->k, m = w->m;
    const size_t *fr = w->sp->free;
    if (w->sp->jacobian == NSD_PERIODIC_JAC_VARIATIONAL) {
        /* the vectors carried by the map's Jacobian from the variational
         * equations and saltation matrices: one run, no difference step */
        size_t jumps;
        w->out->map_evals++;
        if (nsd_periodic_map_tangent(w->s, w->sp, 1, w->y, w->y1, T, w->J, &w->out->rhs_evals,
                                     &jumps, w->out->message, sizeof w->out->message) != 0)
            return -1;
        w->out->rhs_evals += w->s->res.stats.rhs_evals;
        for (size_t j = 0; j < m; ++j)
            for (size_t i = 0; i < k; ++i) {
                double zi = 0.0;
                for (size_t l = 0; l < k; ++l) zi += w->J[i * k + l] * w->q[j * k + l] * w->sx[l];
                w->z[j * k + i] = zi / w->sx[i];
            }
    } else if (map(w, w->sp, w->y, w->y1, T) != 0)
        return -1;
    for (size_t j = 0; j < m && w->sp->jacobian != NSD_PERIODIC_JAC_VARIATIONAL; ++j) {
        memcpy(w->yp, w->y, w->n * sizeof *w->yp);
        for (size_t i = 0; i < k; ++i) w->yp[fr[i]] += w->d0 * w->q[j * k + i] * w->sx[i];
        double T2;
        if (map(w, w->sp, w->yp, w->yq, &T2) != 0) return -1;
        for (size_t i = 0; i < k; ++i)
            w->z[j * k + i] = (w->yq[fr[i]] - w->y1[fr[i]]) / (w->d0 * w->sx[i]);
    }
    /* modified Gram-Schmidt: z_j = R_jj q_j + earlier q's */
    for (size_t j = 0; j < m; ++j) {
        double *zj = w->z + j * k;
        for (size_t l = 0; l < j; ++l) {
            const double *ql = w->z + l * k;
            double dot = 0.0;
            for (size_t i = 0; i < k; ++i) dot += zj[i] * ql[i];
            for (size_t i = 0; i < k; ++i) zj[i] -= dot * ql[i];
        }
        double r = 0.0;
        for (size_t i = 0; i < k; ++i) r += zj[i] * zj[i];
        r = sqrt(r);
        if (r == 0.0) {
            /* the map sent this direction to zero: a sticking phase (or a
             * rest) in which every nearby state ends at the same one.
             * The finite-time exponent is -infinity; counted, and the
             * vector reseeded orthogonal to the earlier ones */
            w->out->collapses++;
            for (size_t i = 0; i < k; ++i) zj[i] = (i == j);
            for (size_t l = 0; l < j; ++l) {
                const double *ql = w->z + l * k;
                double dot = ql[j];
                for (size_t i = 0; i < k; ++i) zj[i] -= dot * ql[i];
            }
            for (size_t i = 0; i < k; ++i) r += zj[i] * zj[i];
            r = sqrt(r);
            for (size_t i = 0; i < k; ++i) zj[i] /= r;
            continue;
        }
        if (!isfinite(r)) {
            snprintf(w->out->message, sizeof w->out->message,
                     "a tangent vector overflowed (R_jj = %g)", r);
            return -1;
        }
        sum[j] += log(r);
        for (size_t i = 0; i < k; ++i) zj[i] /= r;
    }
    memcpy(w->q, w->z, m * k * sizeof *w->q);
    memcpy(w->y, w->y1, w->n * sizeof *w->y);
    return 0;
}

/* The transient: `crossings` applications in one run ([run] t_end bounds
 * one period, so it is stretched for this run). */
static int transient(lyap_work *w, int crossings) {
    if (crossings == 0) return 0;
    nsd_periodic_spec tr = *w->sp;
    tr.crossings = (size_t)crossings;
    nsd_run_settings *rs = &w->s->app.cfg.settings, keep = *rs;
    rs->t_end = rs->t_start + (keep.t_end - keep.t_start) * (crossings + 1.0);
    rs->output_dt = rs->t_end - rs->t_start;
    double T;
    int rc = map(w, &tr, w->y, w->y1, &T);
    *rs = keep;
    if (rc == 0) memcpy(w->y, w->y1, w->n * sizeof *w->y);
    return rc;
}

int nsd_lyapunov(nsd_scenario *s, const nsd_periodic_spec *sp, const nsd_lyap_config *lc,
                 nsd_lyap_result *out, FILE *progress) {
    memset(out, 0, sizeof *out);
    size_t n = s->model.n, k = sp->n_free, m = (size_t)lc->count;
    lyap_work w = {s, sp, out, n, k, m, lc->d0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    double *buf = calloc(4 * n + k + 2 * m * k + m + k * k, sizeof *buf);
    out->m = m;
    out->hist = calloc((size_t)lc->periods * (2 + m), sizeof *out->hist);
    if (!buf || !out->hist || m > 16) {
        free(buf);
        snprintf(out->message, sizeof out->message, "out of memory");
        return -1;
    }
    w.y = buf, w.y1 = w.y + n, w.yp = w.y1 + n, w.yq = w.yp + n, w.sx = w.yq + n;
    w.q = w.sx + k, w.z = w.q + m * k;
    double *sum = w.z + m * k;
    w.J = sum + m;
    memcpy(w.y, s->data->y0, n * sizeof *w.y);
    int rc = transient(&w, lc->transient);
    for (size_t i = 0; i < k; ++i) w.sx[i] = fmax(fabs(w.y[sp->free[i]]), sp->scale[i]);
    for (size_t j = 0; j < m; ++j) w.q[j * k + j] = 1.0;
    double t = 0.0;
    for (int p = 0; rc == 0 && p < lc->periods; ++p) {
        double T;
        if ((rc = step(&w, sum, &T)) != 0) break;
        t += T;
        double *h = out->hist + out->n_hist++ * (2 + m);
        h[0] = p + 1, h[1] = t;
        for (size_t j = 0; j < m; ++j) h[2 + j] = sum[j] / t;
        if (progress && (p + 1) % (lc->periods / 10 > 0 ? lc->periods / 10 : 1) == 0)
            fprintf(progress, "  %d periods, %.6g s: largest exponent %.6g 1/s\n", p + 1, t, h[2]);
    }
    free(buf);
    if (rc != 0) {
        char why[sizeof out->message];
        snprintf(why, sizeof why, "%s", out->message);
        snprintf(out->message, sizeof out->message,
                 "after %zu of %d periods the map could not be run: %.900s", out->n_hist,
                 lc->periods, why);
        return -1;
    }
    out->time = t;
    const double *last = out->hist + (out->n_hist - 1) * (2 + m),
                 *half = out->hist + (out->n_hist / 2 - 1) * (2 + m);
    for (size_t j = 0; j < m; ++j) {
        out->exponent[j] = last[2 + j];
        out->change = fmax(out->change, fabs(last[2 + j] - half[2 + j]));
    }
    return 0;
}

int nsd_lyap_write(const nsd_scenario *s, const nsd_lyap_result *r, const char *dir, char *err,
                   size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/lyapunov.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    size_t m = r->m, w = 2 + m;
    fprintf(f, "crossing,time [s]");
    for (size_t j = 0; j < m; ++j) fprintf(f, ",lambda%zu [1/s]", j + 1);
    fprintf(f, "\n");
    for (size_t i = 0; i < r->n_hist; ++i) {
        fprintf(f, "%.0f,%.12g", r->hist[i * w], r->hist[i * w + 1]);
        for (size_t j = 0; j < m; ++j) fprintf(f, ",%.9g", r->hist[i * w + 2 + j]);
        fprintf(f, "\n");
    }
    if (nsd_commit_file(f, path, err, len) != 0) return -1;
    double *buf = calloc((m + 1) * r->n_hist + 1, sizeof *buf);
    nsd_curve cv[17];
    char leg[16][48];
    if (!buf) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    double *t = buf;
    for (size_t i = 0; i < r->n_hist; ++i) t[i] = r->hist[i * w + 1];
    for (size_t j = 0; j < m; ++j) {
        double *y = buf + (j + 1) * r->n_hist;
        for (size_t i = 0; i < r->n_hist; ++i) y[i] = r->hist[i * w + 2 + j];
        snprintf(leg[j], sizeof leg[j], "λ%zu = %.4g 1/s", j + 1, r->exponent[j]);
        cv[j] = (nsd_curve){t, y, r->n_hist, leg[j], (int)j, 0, 2.0, 0, 0, 0};
    }
    char title[700];
    char sub[200];
    snprintf(title, sizeof title, "%s", s->app.cfg.title);
    snprintf(sub, sizeof sub,
             "Lyapunov exponents: running means on the section map (the last half changed them "
             "by %.2g 1/s)",
             r->change);
    nsd_panel panel = {.title = sub,
                       .xlabel = "time measured [s]",
                       .ylabel = "exponent [1/s]",
                       .curves = cv,
                       .n_curves = m,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .log_x = 1,
                       .legend_position = 5}; /* best */
    nsd_figure fig = {title, &panel, 1, 1, 1400, 700, 0, 0, 0, 0};
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&s->app.cfg, "format");
    snprintf(path, sizeof path, "%s/lyapunov.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nsd_figure_write(&s->app.cfg, path, fmt, &fig, err, len);
    free(buf);
    return rc;
}
