/* nsdyn compare: the summary of each variant against a numeric parameter,
 * [compare] x = "section.key", summary = [channels], x_label. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "numfmt.h"
#include "output.h"
#include "figures.h"
#include "plot.h"

/* ---- summary against a parameter: [compare] x, summary, x_label ---------- */

static const char *const x_sections[] = {"system", "contact", "friction", "integrator", "run"};

/* The resolved parameters of section `sec` of cfg (NULL if the config has
 * no such section); `owner` names it for messages. */
static const nsd_params *section_params(const nsd_config *cfg, const char *sec, char *owner,
                                        size_t len) {
    const nsd_section *s = strcmp(sec, "system") == 0       ? &cfg->system
                           : strcmp(sec, "contact") == 0    ? &cfg->contact
                           : strcmp(sec, "friction") == 0   ? &cfg->friction
                           : strcmp(sec, "integrator") == 0 ? &cfg->integrator
                                                            : NULL;
    if (s) {
        if (!s->plugin) return NULL;
        snprintf(owner, len, "[%s] (%s)", sec, s->plugin->info->id);
        return &s->params;
    }
    snprintf(owner, len, "[%s]", sec);
    return strcmp(sec, "run") == 0 ? &cfg->run : NULL;
}

static int numeric_param(nsdyn_param_type t) {
    return t == NSDYN_PARAM_REAL || t == NSDYN_PARAM_INT;
}

/* [compare].x = "section.key" against one variant's resolved config: the
 * parameters and index of the key. Returns the number of errors (0 or 1). */
size_t nsd_compare_resolve_x(const nsd_toml_node *x, const nsd_config *cfg,
                             const nsd_params **params, int *index, nsd_diag *diag) {
    const char *dot = strchr(x->str, '.');
    if (!dot || dot == x->str || !dot[1] || strchr(dot + 1, '.') || dot - x->str >= 64) {
        nsd_diag_at(diag, x,
                    "[compare] key 'x': \"%s\" is not \"section.key\" (e.g. \"system.b\"; "
                    "sections: system, contact, friction, integrator, run)",
                    x->str);
        return 1;
    }
    char sec[64], owner[160];
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - x->str), x->str);
    const char *key = dot + 1;
    int known = 0;
    for (size_t i = 0; i < NSDYN_COUNT(x_sections); ++i) known |= strcmp(sec, x_sections[i]) == 0;
    if (!known) {
        const char *near = nsd_did_you_mean(sec, x_sections, NSDYN_COUNT(x_sections));
        nsd_diag_at(diag, x, "[compare] key 'x': '%s' is not a section with parameters%s%s%s", sec,
                    near ? " (did you mean '"
                         : " (sections: system, contact, friction, integrator, run)",
                    near ? near : "", near ? "'?)" : "");
        return 1;
    }
    const nsd_params *p = section_params(cfg, sec, owner, sizeof owner);
    if (!p) {
        nsd_diag_at(
            diag, x,
            "[compare] key 'x': \"%s\" names section [%s], but the config has no [%s] section",
            x->str, sec, sec);
        return 1;
    }
    int i = nsd_params_index(p->decls, p->n, key);
    if (i < 0) {
        const char **names = calloc(p->n ? p->n : 1, sizeof *names);
        if (!names) abort();
        char list[1024] = "";
        size_t k = 0;
        for (size_t j = 0; j < p->n; ++j)
            if (numeric_param(p->decls[j].type)) {
                names[k++] = p->decls[j].name;
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", k > 1 ? ", " : "",
                         p->decls[j].name);
            }
        const char *near = nsd_did_you_mean(key, names, k);
        nsd_diag_at(diag, x, "[compare] key 'x': %s has no parameter '%s' (%s%s%s)", owner, key,
                    near ? "did you mean '"
                    : k  ? "its numeric parameters: "
                         : "it has no numeric parameters",
                    near ? near : list, near ? "'?" : "");
        free(names);
        return 1;
    }
    const nsdyn_param_decl *d = &p->decls[i];
    if (!numeric_param(d->type)) {
        const char *what = d->type == NSDYN_PARAM_BOOL     ? "a boolean"
                           : d->type == NSDYN_PARAM_CHOICE ? "a choice"
                                                           : "an array";
        nsd_diag_at(diag, x,
                    "[compare] key 'x': %s parameter '%s' is %s, not a number (x must name a real "
                    "or integer parameter)",
                    owner, key, what);
        return 1;
    }
    *params = p;
    *index = i;
    return 0;
}

/* Every element of [compare].summary must be a channel of the reference. */
size_t nsd_compare_check_summary(const nsd_toml_node *summary, const nsd_model *m,
                                 const char *ref_name, nsd_diag *diag) {
    size_t errors = 0;
    for (size_t k = 0; k < summary->n_items; ++k) {
        const nsd_toml_node *e = &summary->items[k];
        if (nsd_model_channel(m, e->str) >= 0) continue;
        const char **names = calloc(m->n_channels ? m->n_channels : 1, sizeof *names);
        if (!names) abort();
        char list[1024] = "";
        for (size_t c = 0; c < m->n_channels; ++c) {
            names[c] = m->channels[c].name;
            size_t used = strlen(list);
            if (used + 80 < sizeof list)
                snprintf(list + used, sizeof list - used, "%s%s", c ? ", " : "", names[c]);
            else if (used + 5 < sizeof list && list[used - 1] != '.')
                snprintf(list + used, sizeof list - used, ", ...");
        }
        const char *near = nsd_did_you_mean(e->str, names, m->n_channels);
        nsd_diag_at(diag, e,
                    "[compare] key 'summary': '%s' is not a channel of the reference variant "
                    "\"%s\" (%s%s%s)",
                    e->str, ref_name,
                    near ? "did you mean '" : "its channels: ", near ? near : list,
                    near ? "'?" : "");
        free(names);
        errors++;
    }
    return errors;
}

/* The name of the stop condition in a run's message ("stop condition 'fall'
 * of system ..."), or NULL. */
static const char *stop_name(const char *message, char *buf, size_t len) {
    static const char prefix[] = "stop condition '";
    if (strncmp(message, prefix, sizeof prefix - 1) != 0) return NULL;
    const char *a = message + sizeof prefix - 1, *b = strchr(a, '\'');
    if (!b) return NULL;
    snprintf(buf, len, "%.*s", (int)(b - a), a);
    return buf;
}

/* The x parameter's declaration in the reference's config (checked by
 * nsd_compare_resolve_x), its CSV header "x [unit]" and default axis label
 * (no "[1]"). */
static void summary_x(const nsd_config *ref_cfg, const compare_keys *ck, char *xhead,
                      size_t head_len, char *xaxis, size_t axis_len) {
    char sec[64], owner[160];
    const char *dot = strchr(ck->x->str, '.');
    snprintf(sec, sizeof sec, "%.*s", (int)(dot - ck->x->str), ck->x->str);
    const nsd_params *xp = section_params(ref_cfg, sec, owner, sizeof owner);
    int xi = nsd_params_index(xp->decls, xp->n, dot + 1);
    const char *xunit = xp->decls[xi].unit && *xp->decls[xi].unit ? xp->decls[xi].unit : "1";
    snprintf(xhead, head_len, "%s [%s]", ck->x->str, xunit);
    snprintf(xaxis, axis_len, strcmp(xunit, "1") == 0 ? "%s" : "%s [%s]", ck->x->str, xunit);
}

/* summary.csv and the printed table: val[i * ns + k], channel k at the end
 * of variant i's run. */
static int write_summary_table(const char *dir, const variant *vars, size_t nv, size_t ref,
                               const compare_keys *ck, const double *x, const double *val,
                               const char *xhead, char ***written, size_t *n_written, char *err,
                               size_t err_len) {
    const nsd_toml_node *sm = ck->summary;
    size_t ns = sm->n_items;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *csv = nsd_open_tmp(path, err, err_len);
    if (!csv) return -1;
    fprintf(csv, "variant,%s,outcome", xhead);
    printf("\nsummary: value at the end of each run, against %s\n%-28s %14s %-9s", xhead, "variant",
           ck->x->str, "outcome");
    for (size_t k = 0; k < ns; ++k) {
        int c = nsd_model_channel(&vars[ref].sc.model, sm->items[k].str);
        const char *unit = vars[ref].sc.model.channels[c].unit;
        char head[96];
        fprintf(csv, ",%s [%s]", sm->items[k].str, unit);
        snprintf(head, sizeof head, "%s [%s]", sm->items[k].str, unit);
        printf(" %16s", head);
    }
    fputc('\n', csv);
    printf("\n");
    for (size_t i = 0; i < nv; ++i) {
        const char *outcome = nsd_outcome_text(vars[i].sc.res.outcome, NSD_OUTCOME_TABLE);
        fprintf(csv, "\"%s\",", vars[i].name);
        nsd_num_put(csv, x[i]);
        fprintf(csv, ",%s", outcome);
        printf("%-28.28s %14.6g %-9s", vars[i].name, x[i], outcome);
        for (size_t k = 0; k < ns; ++k) {
            fputc(',', csv), nsd_num_put(csv, val[i * ns + k]);
            printf(" %16.6g", val[i * ns + k]);
        }
        fputc('\n', csv);
        printf("\n");
    }
    if (nsd_commit_file(csv, path, err, err_len) != 0) return -1;
    return nsd_paths_push(written, n_written, path, err, err_len);
}

/* The graph of the summary, one panel per channel, and what its panels
 * point into. */
typedef struct summary_plot {
    const variant *vars;
    size_t nv, ns, ref;
    const nsd_toml_node *sm; /* [compare].summary: the channel names */
    const double *x, *val;
    size_t *order;      /* the completed runs by x, then the others */
    size_t n_ok, n_bad; /* completed runs with a finite x; others */
    double *cx, *cy;    /* the curve: x and each channel's values */
    double *lx, *ly;    /* the vertical lines of the runs that did not complete */
    double xmin, xmax;  /* the x range, padded */
    int log_x;          /* x spans two decades or more */
    nsd_panel *panels;
    nsd_curve *curves;
    char (*ylabels)[200], (*titles)[200];
    char (*legends)[200]; /* legends[i]: variant i's line; legends[nv]: the curve */
} summary_plot;

static void summary_plot_free(summary_plot *P) {
    free(P->order);
    free(P->cx);
    free(P->cy);
    free(P->lx);
    free(P->ly);
    free(P->panels);
    free(P->curves);
    free(P->ylabels);
    free(P->titles);
    free(P->legends);
}

static int summary_plot_alloc(summary_plot *P) {
    size_t nv = P->nv, ns = P->ns;
    P->order = malloc(nv * sizeof *P->order);
    P->cx = malloc(nv * sizeof *P->cx);
    P->cy = malloc((nv * ns) * sizeof *P->cy);
    P->lx = malloc(2 * nv * sizeof *P->lx);
    P->ly = malloc(2 * nv * ns * sizeof *P->ly);
    P->panels = calloc(ns, sizeof *P->panels);
    P->curves = calloc(ns * (nv + 2), sizeof *P->curves);
    P->ylabels = calloc(ns, sizeof *P->ylabels);
    P->titles = calloc(ns, sizeof *P->titles);
    P->legends = calloc(nv + 1, sizeof *P->legends);
    return P->order && P->cx && P->cy && P->lx && P->ly && P->panels && P->curves && P->ylabels &&
                   P->titles && P->legends
               ? 0
               : -1;
}

/* The completed runs in order of x (insertion sort, stable) and the x
 * range: explicit, so that the lines of stopped runs at the ends show; a
 * log x axis when x spans two decades or more. */
static void summary_order(summary_plot *P) {
    const double *x = P->x;
    for (size_t i = 0; i < P->nv; ++i)
        if (P->vars[i].sc.res.outcome == NSD_RUN_COMPLETE && isfinite(x[i])) {
            size_t j = P->n_ok++;
            while (j > 0 && x[P->order[j - 1]] > x[i]) {
                P->order[j] = P->order[j - 1];
                j--;
            }
            P->order[j] = i;
        }
    double xlo = HUGE_VAL, xhi = -HUGE_VAL;
    for (size_t i = 0; i < P->nv; ++i)
        if (isfinite(x[i])) {
            xlo = fmin(xlo, x[i]);
            xhi = fmax(xhi, x[i]);
        }
    P->log_x = xlo > 0 && xhi >= 100 * xlo;
    P->xmin = P->xmax = NAN;
    if (xlo <= xhi) {
        double a = P->log_x ? log10(xlo) : xlo, b = P->log_x ? log10(xhi) : xhi;
        double pad = b > a ? 0.06 * (b - a) : a != 0 ? 0.1 * fabs(a) : 1.0;
        P->xmin = P->log_x ? pow(10, a - pad) : a - pad;
        P->xmax = P->log_x ? pow(10, b + pad) : b + pad;
    }
    for (size_t r = 0; r < P->n_ok; ++r) P->cx[r] = x[P->order[r]];
}

/* Legend of the curve (the variants on it, or how many), and of each run
 * that did not complete: how and when it ended. */
static void summary_legends(summary_plot *P) {
    const variant *vars = P->vars;
    size_t nv = P->nv, used = 0;
    char *curve = P->legends[nv];
    size_t len = sizeof P->legends[nv];
    for (size_t r = 0; r < P->n_ok && used < len; ++r)
        used += (size_t)snprintf(curve + used, len - used, "%s%s", r ? ", " : "",
                                 vars[P->order[r]].name);
    if (used >= 60 || !P->n_ok) snprintf(curve, len, "%zu runs", P->n_ok);
    used = strlen(curve);
    snprintf(curve + used, len - used, ": value at the end");
    for (size_t i = 0; i < nv; ++i) {
        const nsd_run_result *res = &vars[i].sc.res;
        if (res->outcome == NSD_RUN_COMPLETE || !isfinite(P->x[i])) continue;
        char sbuf[64];
        const char *why =
            res->outcome == NSD_RUN_STOPPED ? stop_name(res->message, sbuf, sizeof sbuf) : NULL;
        snprintf(P->legends[i], sizeof P->legends[i], "%s: %s%s%s%s at t = %.4g s", vars[i].name,
                 nsd_outcome_text(res->outcome, NSD_OUTCOME_WORD), why ? " by '" : "",
                 why ? why : "", why ? "'" : "", res->t_reached);
        P->lx[2 * P->n_bad] = P->lx[2 * P->n_bad + 1] = P->x[i];
        P->order[P->n_ok + P->n_bad++] = i;
    }
}

/* Panel k: the completed runs as a line with markers (bigger markers on
 * top), the others as vertical lines at their x (failed: dashed red). */
static void summary_panel(summary_plot *P, size_t k, const char *xlabel) {
    const variant *vars = P->vars;
    size_t nv = P->nv, n_ok = P->n_ok;
    int c = nsd_model_channel(&vars[P->ref].sc.model, P->sm->items[k].str);
    const nsd_channel *ch = &vars[P->ref].sc.model.channels[c];
    double ylo = HUGE_VAL, yhi = -HUGE_VAL;
    for (size_t r = 0; r < n_ok; ++r) {
        double y = P->val[P->order[r] * P->ns + k];
        P->cy[k * nv + r] = y;
        if (isfinite(y)) {
            ylo = fmin(ylo, y);
            yhi = fmax(yhi, y);
        }
    }
    if (!(ylo <= yhi)) ylo = 0, yhi = 1;
    /* values that agree to 8 digits (0.04999999995 and 0.05: one result up to rounding, not
       a trend) get the range of a constant, not one autoscaled onto the rounding */
    double span = yhi - ylo, pad = span > 1e-8 * fmax(fabs(ylo), fabs(yhi)) ? 0.08 * span
                                   : ylo != 0                               ? 0.1 * fabs(ylo)
                                                                            : 1.0;
    nsd_curve *cv = &P->curves[k * (nv + 2)];
    size_t nc = 0;
    if (n_ok) {
        cv[nc++] =
            (nsd_curve){P->cx, &P->cy[k * nv], n_ok, k ? NULL : P->legends[nv], 0, 0, 2.0, 2, 0, 0};
        cv[nc++] = (nsd_curve){P->cx, &P->cy[k * nv], n_ok, NULL, 0, 0, 5.0, 1, 0, 0};
    }
    for (size_t b = 0; b < P->n_bad; ++b) {
        size_t i = P->order[n_ok + b];
        int failed = vars[i].sc.res.outcome == NSD_RUN_FAILED;
        double *ly = &P->ly[2 * (k * nv + b)];
        ly[0] = ylo - pad;
        ly[1] = yhi + pad;
        cv[nc++] = (nsd_curve){&P->lx[2 * b],  ly,  2, k ? NULL : P->legends[i], failed ? 4 : 1,
                               failed ? 2 : 1, 1.5, 0, 0, 0};
    }
    snprintf(P->titles[k], sizeof P->titles[k], "(%c) %s", (int)('a' + k % 26), ch->label);
    if (strcmp(ch->unit, "1") == 0)
        snprintf(P->ylabels[k], sizeof P->ylabels[k], "%s", ch->name);
    else
        snprintf(P->ylabels[k], sizeof P->ylabels[k], "%s [%s]", ch->name, ch->unit);
    /* One legend, on the first panel: where it covers no data (plot.h "best"). */
    int corner = k == 0 ? 5 : 6;
    P->panels[k] = (nsd_panel){P->titles[k], xlabel,  P->ylabels[k], cv,        nc, NULL, 0,
                               P->xmin,      P->xmax, ylo - pad,     yhi + pad, 0,  0,    P->log_x,
                               NULL,         NULL,    corner, NULL, NULL, 0, 0, NULL};
}

/* summary.<fmt>: one panel per summary channel. */
static int write_summary_figure(const char *dir, const nsd_config *cfg, summary_plot *P,
                                const char *xlabel, char ***written, size_t *n_written, char *err,
                                size_t err_len) {
    if (summary_plot_alloc(P) != 0) {
        snprintf(err, err_len, "out of memory for the summary graph");
        return -1;
    }
    summary_order(P);
    summary_legends(P);
    for (size_t k = 0; k < P->ns; ++k) summary_panel(P, k, xlabel);
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    size_t ns = P->ns;
    nsd_figure fig = {.title = cfg->title, .panels = P->panels, .n_panels = ns, .columns = 1,
                      .width_px = 1200, .height_px = ns <= 6 ? (int)(360 * ns + 60) : 0};
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.%s", dir, nsd_plot_format_ext(fmt));
    if (nsd_figure_write(cfg, path, fmt, &fig, err, err_len) != 0) return -1;
    return nsd_paths_push(written, n_written, path, err, err_len);
}

/* summary.csv, the printed table and summary.<fmt>: each summary channel's
 * value at the end of each variant's run against the variant's x. Runs that
 * stopped or failed are listed in the file with their outcome; in the graph
 * they are not points of the curve but dashed vertical lines at their x,
 * named in the legend. */
int nsd_compare_write_summary(const char *dir, const nsd_config *cfg, const variant *vars,
                              size_t nv, size_t ref, const compare_keys *ck, const double *x,
                              int plots, char ***written, size_t *n_written, char *err,
                              size_t err_len) {
    const nsd_toml_node *sm = ck->summary;
    size_t ns = sm->n_items;
    char xhead[200], xaxis[200];
    summary_x(&vars[ref].sc.app.cfg, ck, xhead, sizeof xhead, xaxis, sizeof xaxis);
    /* val[i * ns + k]: channel k at the end of variant i's run */
    double *val = malloc((nv * ns) * sizeof *val);
    if (!val) {
        snprintf(err, err_len, "out of memory for the summary");
        return -1;
    }
    for (size_t i = 0; i < nv; ++i)
        for (size_t k = 0; k < ns; ++k) {
            const nsd_series *s = &vars[i].sc.res.series;
            int c = nsd_model_channel(&vars[i].sc.model, sm->items[k].str);
            val[i * ns + k] = c >= 0 && s->rows ? nsd_series_at(s, s->rows - 1, (size_t)c) : NAN;
        }
    int rc = write_summary_table(dir, vars, nv, ref, ck, x, val, xhead, written, n_written, err,
                                 err_len);
    if (rc == 0 && plots) {
        summary_plot P;
        memset(&P, 0, sizeof P);
        P = (summary_plot){
            .vars = vars, .nv = nv, .ns = ns, .ref = ref, .sm = sm, .x = x, .val = val};
        rc = write_summary_figure(dir, cfg, &P, ck->x_label ? ck->x_label->str : xaxis, written,
                                  n_written, err, err_len);
        summary_plot_free(&P);
    }
    free(val);
    return rc;
}
