/* nsdyn compare: the summary of each variant against a numeric parameter,
 * [compare] x = "section.key", summary = [channels], x_label. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "output.h"
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

const char *nsd_compare_outcome_text(const nsd_run_result *r) {
    return r->outcome == NSD_RUN_FAILED    ? "FAILED"
           : r->outcome == NSD_RUN_STOPPED ? "stopped"
                                           : "complete";
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
    const nsd_params *xp = NULL;
    int xi = -1;
    char owner[160];
    {
        char sec[64];
        const char *dot = strchr(ck->x->str, '.');
        snprintf(sec, sizeof sec, "%.*s", (int)(dot - ck->x->str), ck->x->str);
        xp = section_params(&vars[ref].cfg, sec, owner, sizeof owner);
        xi = nsd_params_index(xp->decls, xp->n, dot + 1);
    }
    const char *xunit = xp->decls[xi].unit && *xp->decls[xi].unit ? xp->decls[xi].unit : "1";
    char xhead[200], xaxis[200]; /* CSV header; default axis label (no "[1]") */
    snprintf(xhead, sizeof xhead, "%s [%s]", ck->x->str, xunit);
    snprintf(xaxis, sizeof xaxis, strcmp(xunit, "1") == 0 ? "%s" : "%s [%s]", ck->x->str, xunit);
    /* values[i * ns + k]: channel k at the end of variant i's run */
    double *val = malloc((nv * ns) * sizeof *val);
    if (!val) abort();
    for (size_t i = 0; i < nv; ++i)
        for (size_t k = 0; k < ns; ++k) {
            const nsd_series *s = &vars[i].res.series;
            int c = nsd_model_channel(&vars[i].model, sm->items[k].str);
            val[i * ns + k] = c >= 0 && s->rows ? nsd_series_at(s, s->rows - 1, (size_t)c) : NAN;
        }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    FILE *csv = nsd_open_tmp(path, err, err_len);
    if (!csv) {
        free(val);
        return -1;
    }
    fprintf(csv, "variant,%s,outcome", xhead);
    printf("\nsummary: value at the end of each run, against %s\n%-28s %14s %-9s", xhead, "variant",
           ck->x->str, "outcome");
    for (size_t k = 0; k < ns; ++k) {
        int c = nsd_model_channel(&vars[ref].model, sm->items[k].str);
        fprintf(csv, ",%s [%s]", sm->items[k].str, vars[ref].model.channels[c].unit);
        {
            char head[96];
            snprintf(head, sizeof head, "%s [%s]", sm->items[k].str,
                     vars[ref].model.channels[c].unit);
            printf(" %16s", head);
        }
    }
    fputc('\n', csv);
    printf("\n");
    for (size_t i = 0; i < nv; ++i) {
        fprintf(csv, "\"%s\",%.9g,%s", vars[i].name, x[i], nsd_compare_outcome_text(&vars[i].res));
        printf("%-28.28s %14.6g %-9s", vars[i].name, x[i], nsd_compare_outcome_text(&vars[i].res));
        for (size_t k = 0; k < ns; ++k) {
            fprintf(csv, ",%.9g", val[i * ns + k]);
            printf(" %16.6g", val[i * ns + k]);
        }
        fputc('\n', csv);
        printf("\n");
    }
    if (nsd_commit_file(csv, path, err, err_len) != 0) {
        free(val);
        return -1;
    }
    *written = realloc(*written, (*n_written + 1) * sizeof **written);
    if (!*written) abort();
    (*written)[(*n_written)++] = strdup(path);
    if (!plots) {
        free(val);
        return 0;
    }

    /* The graph: one panel per channel. Points of the runs that completed,
     * in order of x; a log x axis when x spans two decades or more. */
    size_t *order = malloc(nv * sizeof *order), n_ok = 0, n_bad = 0;
    double *cx = malloc(nv * sizeof *cx), *cy = malloc((nv * ns) * sizeof *cy);
    double *lx = malloc(2 * nv * sizeof *lx), *ly = malloc(2 * nv * ns * sizeof *ly);
    nsd_panel *panels = calloc(ns, sizeof *panels);
    nsd_curve *curves = calloc(ns * (nv + 2), sizeof *curves);
    char(*ylabels)[200] = calloc(ns, sizeof *ylabels), (*titles)[200] = calloc(ns, sizeof *titles);
    char(*legends)[200] = calloc(nv + 1, sizeof *legends);
    if (!order || !cx || !cy || !lx || !ly || !panels || !curves || !ylabels || !titles || !legends)
        abort();
    for (size_t i = 0; i < nv; ++i)
        if (vars[i].res.outcome == NSD_RUN_COMPLETE && isfinite(x[i])) {
            size_t j = n_ok++; /* insertion sort by x, stable */
            while (j > 0 && x[order[j - 1]] > x[i]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
    double xlo = HUGE_VAL, xhi = -HUGE_VAL;
    for (size_t i = 0; i < nv; ++i)
        if (isfinite(x[i])) {
            xlo = fmin(xlo, x[i]);
            xhi = fmax(xhi, x[i]);
        }
    int log_x = xlo > 0 && xhi >= 100 * xlo;
    double xmin = NAN, xmax = NAN;
    if (xlo <= xhi) { /* explicit, so that the lines of stopped runs at the ends show */
        double a = log_x ? log10(xlo) : xlo, b = log_x ? log10(xhi) : xhi;
        double pad = b > a ? 0.06 * (b - a) : a != 0 ? 0.1 * fabs(a) : 1.0;
        xmin = log_x ? pow(10, a - pad) : a - pad;
        xmax = log_x ? pow(10, b + pad) : b + pad;
    }
    for (size_t r = 0; r < n_ok; ++r) cx[r] = x[order[r]];
    /* Legend of the curve: the variants on it, or how many. */
    size_t used = 0;
    for (size_t r = 0; r < n_ok && used < sizeof legends[nv]; ++r)
        used += (size_t)snprintf(legends[nv] + used, sizeof legends[nv] - used, "%s%s",
                                 r ? ", " : "", vars[order[r]].name);
    if (used >= 60 || !n_ok) snprintf(legends[nv], sizeof legends[nv], "%zu runs", n_ok);
    used = strlen(legends[nv]);
    snprintf(legends[nv] + used, sizeof legends[nv] - used, ": value at the end");
    for (size_t i = 0; i < nv; ++i) {
        if (vars[i].res.outcome == NSD_RUN_COMPLETE || !isfinite(x[i])) continue;
        char sbuf[64];
        const char *why = vars[i].res.outcome == NSD_RUN_STOPPED
                              ? stop_name(vars[i].res.message, sbuf, sizeof sbuf)
                              : NULL;
        snprintf(legends[i], sizeof legends[i], "%s: %s%s%s%s at t = %.4g s", vars[i].name,
                 vars[i].res.outcome == NSD_RUN_FAILED ? "failed" : "stopped", why ? " by '" : "",
                 why ? why : "", why ? "'" : "", vars[i].res.t_reached);
        lx[2 * n_bad] = lx[2 * n_bad + 1] = x[i];
        order[n_ok + n_bad++] = i;
    }
    for (size_t k = 0; k < ns; ++k) {
        int c = nsd_model_channel(&vars[ref].model, sm->items[k].str);
        const nsd_channel *ch = &vars[ref].model.channels[c];
        double ylo = HUGE_VAL, yhi = -HUGE_VAL;
        for (size_t r = 0; r < n_ok; ++r) {
            double y = val[order[r] * ns + k];
            cy[k * nv + r] = y;
            if (isfinite(y)) {
                ylo = fmin(ylo, y);
                yhi = fmax(yhi, y);
            }
        }
        if (!(ylo <= yhi)) ylo = 0, yhi = 1;
        double span = yhi - ylo, pad = span > 1e-12 * fmax(fabs(ylo), fabs(yhi)) ? 0.08 * span
                                       : ylo != 0                                ? 0.1 * fabs(ylo)
                                                                                 : 1.0;
        nsd_curve *cv = &curves[k * (nv + 2)];
        size_t nc = 0;
        if (n_ok) { /* line with markers, and bigger markers on top */
            cv[nc++] = (nsd_curve){cx, &cy[k * nv], n_ok, k ? NULL : legends[nv], 0, 0, 2.0, 2};
            cv[nc++] = (nsd_curve){cx, &cy[k * nv], n_ok, NULL, 0, 0, 5.0, 1};
        }
        for (size_t b = 0; b < n_bad; ++b) {
            size_t i = order[n_ok + b];
            ly[2 * (k * nv + b)] = ylo - pad;
            ly[2 * (k * nv + b) + 1] = yhi + pad;
            cv[nc++] = (nsd_curve){&lx[2 * b],
                                   &ly[2 * (k * nv + b)],
                                   2,
                                   k ? NULL : legends[i],
                                   vars[i].res.outcome == NSD_RUN_FAILED ? 4 : 1,
                                   vars[i].res.outcome == NSD_RUN_FAILED ? 2 : 1,
                                   1.5,
                                   0};
        }
        snprintf(titles[k], sizeof titles[k], "(%c) %s", (int)('a' + k % 26), ch->label);
        if (strcmp(ch->unit, "1") == 0)
            snprintf(ylabels[k], sizeof ylabels[k], "%s", ch->name);
        else
            snprintf(ylabels[k], sizeof ylabels[k], "%s [%s]", ch->name, ch->unit);
        /* The legend (first panel only) goes into the corner with the
         * fewest points: it covers about half the width and a third of
         * the height. */
        int corner = 0;
        if (k == 0) {
            size_t best = SIZE_MAX;
            for (int q = 0; q < 4; ++q) {
                size_t hits = 0;
                for (size_t r = 0; r < n_ok; ++r) {
                    double u = log_x ? (log10(cx[r]) - log10(xmin)) / (log10(xmax) - log10(xmin))
                                     : (cx[r] - xmin) / (xmax - xmin);
                    double w = (cy[k * nv + r] - (ylo - pad)) / (yhi - ylo + 2 * pad);
                    int right = q == 0 || q == 2, top = q < 2;
                    hits += (right ? u > 0.45 : u < 0.55) && (top ? w > 0.62 : w < 0.38);
                }
                if (hits < best) {
                    best = hits;
                    corner = q;
                }
            }
        }
        panels[k] = (nsd_panel){titles[k],  ck->x_label ? ck->x_label->str : xaxis,
                                ylabels[k], cv,
                                nc,         NULL,
                                0,          xmin,
                                xmax,       ylo - pad,
                                yhi + pad,  0,
                                0,          log_x,
                                NULL,       NULL,
                                corner};
    }
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    nsd_figure fig = {cfg->title, panels, ns, 1, 1200, ns <= 6 ? (int)(360 * ns + 60) : 0};
    snprintf(path, sizeof path, "%s/summary.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nsd_plot_write(path, fmt, &fig, err, err_len);
    if (rc == 0) {
        *written = realloc(*written, (*n_written + 1) * sizeof **written);
        if (!*written) abort();
        (*written)[(*n_written)++] = strdup(path);
    }
    free(order);
    free(cx);
    free(cy);
    free(lx);
    free(ly);
    free(panels);
    free(curves);
    free(ylabels);
    free(titles);
    free(legends);
    free(val);
    return rc;
}
