/* nsdyn compare CONFIG: a base scenario and variants that swap plugins or
 * parameters; run each, overlay their graphs, tabulate cost and the
 * largest deviation of each channel from the reference variant. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "figures.h"
#include "output.h"
#include "run_output.h"

typedef struct variant {
    const char *name;
    nsd_config cfg;
    nsd_model model;
    nsd_run_result res;
    int resolved;
} variant;

/* |x_v(t) - x_ref(t)| at every reference sample, x_v linearly
 * interpolated; NaN where t lies outside the variant's time range.
 * Returns the largest (NaN if there is no overlap). */
static double deviations(const nsd_series *ref, size_t c_ref, const nsd_series *var, size_t c_var,
                         double *out) {
    double worst = -1.0;
    size_t j = 0;
    for (size_t r = 0; r < ref->rows; ++r) {
        double t = nsd_series_at(ref, r, 0);
        out[r] = NAN;
        if (!var->rows || t < nsd_series_at(var, 0, 0) - 1e-12 ||
            t > nsd_series_at(var, var->rows - 1, 0) + 1e-12)
            continue;
        while (j + 1 < var->rows && nsd_series_at(var, j + 1, 0) < t) j++;
        double x;
        if (j + 1 < var->rows) {
            double t0 = nsd_series_at(var, j, 0), t1 = nsd_series_at(var, j + 1, 0);
            double x0 = nsd_series_at(var, j, c_var), x1 = nsd_series_at(var, j + 1, c_var);
            double s = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
            if (s < 0) s = 0;
            if (s > 1) s = 1;
            x = x0 + s * (x1 - x0);
        } else x = nsd_series_at(var, j, c_var);
        out[r] = fabs(x - nsd_series_at(ref, r, c_ref));
        if (out[r] > worst || isnan(out[r])) worst = out[r];
    }
    return worst < 0 ? NAN : worst;
}

/* Graphs only a comparison has: the deviation of the first compared
 * channel from the reference against time (log scale), and accuracy
 * against cost (largest deviation vs right-hand-side evaluations). */
static int write_deviation_figures(const char *dir, const nsd_config *cfg, const variant *vars,
                                   size_t nv, size_t ref, const char *channel, double **dev,
                                   const double *max_dev, char ***written, size_t *n_written,
                                   char *err, size_t err_len) {
    int c_ref = nsd_model_channel(&vars[ref].model, channel);
    if (c_ref < 0) return 0;
    const nsd_series *rs = &vars[ref].res.series;
    double *t = malloc((rs->rows ? rs->rows : 1) * sizeof *t);
    nsd_curve *curves = calloc(nv, sizeof *curves);
    nsd_curve *points = calloc(nv, sizeof *points);
    double *cost = calloc(nv, sizeof *cost);
    if (!t || !curves || !points || !cost) abort();
    for (size_t r = 0; r < rs->rows; ++r) t[r] = nsd_series_at(rs, r, 0);
    size_t nc = 0, np = 0;
    for (size_t i = 0; i < nv; ++i) {
        if (i == ref || !dev[i]) continue;
        curves[nc++] = (nsd_curve){t, dev[i], rs->rows, vars[i].name, (int)(i % NSD_PLOT_PALETTE_SIZE), 0, 1.2, 0};
        cost[i] = (double)vars[i].res.stats.rhs_evals;
        if (max_dev[i] > 0 && cost[i] > 0)
            points[np++] = (nsd_curve){&cost[i], &max_dev[i], 1, vars[i].name, (int)(i % NSD_PLOT_PALETTE_SIZE), 0, 0, 1};
    }
    const nsd_channel *ch = &vars[ref].model.channels[c_ref];
    char ylabel[200], sub[400], ylabel2[200], path[PATH_MAX + 32];
    snprintf(ylabel, sizeof ylabel, "|%s - reference| [%s]", ch->name, ch->unit);
    snprintf(ylabel2, sizeof ylabel2, "largest |%s - reference| [%s]", ch->name, ch->unit);
    snprintf(sub, sizeof sub, "deviation from the reference \"%s\"", vars[ref].name);
    nsd_panel panels[2] = {
        {sub, "time t [s]", ylabel, curves, nc, NULL, 0, NAN, NAN, NAN, NAN, 0, 1, 0, NULL, NULL, 4},
        {"accuracy against cost", "right-hand-side evaluations", ylabel2, points, np, NULL, 0, NAN, NAN, NAN, NAN, 0, 1, 1, NULL, NULL, 4},
    };
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    nsd_figure fig = {cfg->title, panels, 2, 1, 1400, 1100};
    snprintf(path, sizeof path, "%s/deviation.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nc ? nsd_plot_write(path, fmt, &fig, err, err_len) : 0;
    if (nc && rc == 0) {
        *written = realloc(*written, (*n_written + 1) * sizeof **written);
        (*written)[(*n_written)++] = strdup(path);
    }
    free(t);
    free(curves);
    free(points);
    free(cost);
    return rc;
}

/* The [compare] table's keys, checked for form here; the ones that depend
 * on the plugins (x, summary) are checked against the variants later. */
typedef struct compare_keys {
    const char *reference;
    const nsd_toml_node *channels;
    const nsd_toml_node *x;       /* "section.key" string */
    const nsd_toml_node *x_label; /* string */
    const nsd_toml_node *summary; /* array of channel names */
} compare_keys;

static int string_array(const nsd_toml_node *e) {
    int ok = e->type == NSD_TOML_ARRAY;
    for (size_t k = 0; ok && k < e->n_items; ++k) ok = e->items[k].type == NSD_TOML_STRING;
    return ok;
}

static size_t check_compare_section(const nsd_config *cfg, const nsd_toml_node **variants,
                                    compare_keys *ck, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *cmp = nsd_toml_get(&cfg->root, "compare");
    memset(ck, 0, sizeof *ck);
    if (cmp) {
        if (cmp->type != NSD_TOML_TABLE) {
            nsd_diag_at(diag, cmp, "'compare' must be a table, found %s", nsd_toml_type_name(cmp->type));
            return 1;
        }
        static const char *const keys[] = {"reference", "channels", "x", "x_label", "summary"};
        for (size_t i = 0; i < cmp->n_items; ++i) {
            const nsd_toml_node *e = &cmp->items[i];
            if (strcmp(e->key, "reference") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(diag, e, "[compare] key 'reference': expected a string (a variant name), found %s",
                                nsd_toml_type_name(e->type));
                    errors++;
                } else ck->reference = e->str;
            } else if (strcmp(e->key, "channels") == 0) {
                if (!string_array(e)) {
                    nsd_diag_at(diag, e, "[compare] key 'channels': expected an array of channel names, found %s",
                                e->type == NSD_TOML_ARRAY ? "an array with a non-string element" : nsd_toml_type_name(e->type));
                    errors++;
                } else ck->channels = e;
            } else if (strcmp(e->key, "x") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(diag, e, "[compare] key 'x': expected a string \"section.key\" naming a numeric parameter (e.g. \"system.b\"), found %s",
                                nsd_toml_type_name(e->type));
                    errors++;
                } else ck->x = e;
            } else if (strcmp(e->key, "x_label") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(diag, e, "[compare] key 'x_label': expected a string (the x axis label of the summary graph), found %s",
                                nsd_toml_type_name(e->type));
                    errors++;
                } else ck->x_label = e;
            } else if (strcmp(e->key, "summary") == 0) {
                if (!string_array(e) || e->n_items == 0) {
                    nsd_diag_at(diag, e, "[compare] key 'summary': expected a non-empty array of channel names, found %s",
                                e->type != NSD_TOML_ARRAY ? nsd_toml_type_name(e->type)
                                : e->n_items ? "an array with a non-string element" : "an empty array");
                    errors++;
                } else ck->summary = e;
            } else {
                const char *near = nsd_did_you_mean(e->key, keys, NSDYN_COUNT(keys));
                nsd_diag_at(diag, e, "[compare]: unknown key '%s'%s%s%s", e->key,
                            near ? " (did you mean '" : " (known keys: reference, channels, x, x_label, summary)",
                            near ? near : "", near ? "'?)" : "");
                errors++;
            }
        }
        /* x and summary go together; x_label labels x. */
        const nsd_toml_node *summary = nsd_toml_get(cmp, "summary"), *x = nsd_toml_get(cmp, "x");
        if (summary && !x) {
            nsd_diag_at(diag, summary, "[compare] key 'summary' needs key 'x' (\"section.key\": the numeric parameter to plot the summary against)");
            errors++;
        } else if (x && !summary) {
            nsd_diag_at(diag, x, "[compare] key 'x' needs key 'summary' (the channels whose final values are plotted against x)");
            errors++;
        }
        const nsd_toml_node *xl = nsd_toml_get(cmp, "x_label");
        if (xl && !x) {
            nsd_diag_at(diag, xl, "[compare] key 'x_label' labels the summary's x axis: it needs keys 'x' and 'summary'");
            errors++;
        }
    }
    const nsd_toml_node *v = nsd_toml_get(&cfg->root, "variant");
    if (!v) {
        nsd_diag_at(diag, &cfg->root, "nsdyn compare needs at least one [[variant]] table (each with a name and the sections or keys it changes)");
        return errors + 1;
    }
    if (v->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, v, "'variant' must be an array of tables ([[variant]]), found %s",
                    nsd_toml_type_name(v->type));
        return errors + 1;
    }
    for (size_t i = 0; i < v->n_items; ++i) {
        const nsd_toml_node *t = &v->items[i];
        const nsd_toml_node *name = t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "name") : NULL;
        if (t->type != NSD_TOML_TABLE) {
            nsd_diag_at(diag, t, "variant %zu: expected a table, found %s", i + 1, nsd_toml_type_name(t->type));
            errors++;
        } else if (!name || name->type != NSD_TOML_STRING || !name->str[0]) {
            nsd_diag_at(diag, t, "variant %zu: missing key 'name' (a non-empty string)", i + 1);
            errors++;
        } else
            for (size_t k = 0; k < i; ++k) {
                const nsd_toml_node *other = nsd_toml_get(&v->items[k], "name");
                if (other && other->type == NSD_TOML_STRING && strcmp(other->str, name->str) == 0) {
                    nsd_diag_at(diag, name, "variant name \"%s\" is used twice", name->str);
                    errors++;
                }
            }
    }
    *variants = v;
    return errors;
}

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

static int numeric_param(nsdyn_param_type t) { return t == NSDYN_PARAM_REAL || t == NSDYN_PARAM_INT; }

/* [compare].x = "section.key" against one variant's resolved config: the
 * parameters and index of the key. Returns the number of errors (0 or 1). */
static size_t resolve_x(const nsd_toml_node *x, const nsd_config *cfg, const nsd_params **params,
                        int *index, nsd_diag *diag) {
    const char *dot = strchr(x->str, '.');
    if (!dot || dot == x->str || !dot[1] || strchr(dot + 1, '.') || dot - x->str >= 64) {
        nsd_diag_at(diag, x, "[compare] key 'x': \"%s\" is not \"section.key\" (e.g. \"system.b\"; sections: system, contact, friction, integrator, run)",
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
                    near ? " (did you mean '" : " (sections: system, contact, friction, integrator, run)",
                    near ? near : "", near ? "'?)" : "");
        return 1;
    }
    const nsd_params *p = section_params(cfg, sec, owner, sizeof owner);
    if (!p) {
        nsd_diag_at(diag, x, "[compare] key 'x': \"%s\" names section [%s], but the config has no [%s] section",
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
                snprintf(list + used, sizeof list - used, "%s%s", k > 1 ? ", " : "", p->decls[j].name);
            }
        const char *near = nsd_did_you_mean(key, names, k);
        nsd_diag_at(diag, x, "[compare] key 'x': %s has no parameter '%s' (%s%s%s)", owner, key,
                    near ? "did you mean '" : k ? "its numeric parameters: " : "it has no numeric parameters",
                    near ? near : list, near ? "'?" : "");
        free(names);
        return 1;
    }
    const nsdyn_param_decl *d = &p->decls[i];
    if (!numeric_param(d->type)) {
        const char *what = d->type == NSDYN_PARAM_BOOL ? "a boolean" : d->type == NSDYN_PARAM_CHOICE ? "a choice"
                                                                                                     : "an array";
        nsd_diag_at(diag, x, "[compare] key 'x': %s parameter '%s' is %s, not a number (x must name a real or integer parameter)",
                    owner, key, what);
        return 1;
    }
    *params = p;
    *index = i;
    return 0;
}

/* Every element of [compare].summary must be a channel of the reference. */
static size_t check_summary_channels(const nsd_toml_node *summary, const nsd_model *m,
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
        nsd_diag_at(diag, e, "[compare] key 'summary': '%s' is not a channel of the reference variant \"%s\" (%s%s%s)",
                    e->str, ref_name, near ? "did you mean '" : "its channels: ", near ? near : list,
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

static const char *outcome_text(const nsd_run_result *r) {
    return r->outcome == NSD_RUN_FAILED ? "FAILED" : r->outcome == NSD_RUN_STOPPED ? "stopped" : "complete";
}

/* summary.csv, the printed table and summary.<fmt>: each summary channel's
 * value at the end of each variant's run against the variant's x. Runs that
 * stopped or failed are listed in the file with their outcome; in the graph
 * they are not points of the curve but dashed vertical lines at their x,
 * named in the legend. */
static int write_summary(const char *dir, const nsd_config *cfg, const variant *vars, size_t nv,
                         size_t ref, const compare_keys *ck, const double *x, int plots,
                         char ***written, size_t *n_written, char *err, size_t err_len) {
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
    printf("\nsummary: value at the end of each run, against %s\n%-28s %14s %-9s", xhead, "variant", ck->x->str, "outcome");
    for (size_t k = 0; k < ns; ++k) {
        int c = nsd_model_channel(&vars[ref].model, sm->items[k].str);
        fprintf(csv, ",%s [%s]", sm->items[k].str, vars[ref].model.channels[c].unit);
        {
            char head[96];
            snprintf(head, sizeof head, "%s [%s]", sm->items[k].str, vars[ref].model.channels[c].unit);
            printf(" %16s", head);
        }
    }
    fputc('\n', csv);
    printf("\n");
    for (size_t i = 0; i < nv; ++i) {
        fprintf(csv, "\"%s\",%.9g,%s", vars[i].name, x[i], outcome_text(&vars[i].res));
        printf("%-28.28s %14.6g %-9s", vars[i].name, x[i], outcome_text(&vars[i].res));
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
    char (*ylabels)[200] = calloc(ns, sizeof *ylabels), (*titles)[200] = calloc(ns, sizeof *titles);
    char (*legends)[200] = calloc(nv + 1, sizeof *legends);
    if (!order || !cx || !cy || !lx || !ly || !panels || !curves || !ylabels || !titles || !legends) abort();
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
        used += (size_t)snprintf(legends[nv] + used, sizeof legends[nv] - used, "%s%s", r ? ", " : "", vars[order[r]].name);
    if (used >= 60 || !n_ok) snprintf(legends[nv], sizeof legends[nv], "%zu runs", n_ok);
    used = strlen(legends[nv]);
    snprintf(legends[nv] + used, sizeof legends[nv] - used, ": value at the end");
    for (size_t i = 0; i < nv; ++i) {
        if (vars[i].res.outcome == NSD_RUN_COMPLETE || !isfinite(x[i])) continue;
        char sbuf[64];
        const char *why = vars[i].res.outcome == NSD_RUN_STOPPED ? stop_name(vars[i].res.message, sbuf, sizeof sbuf) : NULL;
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
                                      : ylo != 0                                 ? 0.1 * fabs(ylo)
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
            cv[nc++] = (nsd_curve){&lx[2 * b], &ly[2 * (k * nv + b)], 2, k ? NULL : legends[i],
                                            vars[i].res.outcome == NSD_RUN_FAILED ? 4 : 1,
                                            vars[i].res.outcome == NSD_RUN_FAILED ? 2 : 1, 1.5, 0};
        }
        snprintf(titles[k], sizeof titles[k], "(%c) %s", (int)('a' + k % 26), ch->label);
        if (strcmp(ch->unit, "1") == 0) snprintf(ylabels[k], sizeof ylabels[k], "%s", ch->name);
        else snprintf(ylabels[k], sizeof ylabels[k], "%s [%s]", ch->name, ch->unit);
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
        panels[k] = (nsd_panel){titles[k], ck->x_label ? ck->x_label->str : xaxis, ylabels[k], cv, nc,
                                NULL, 0, xmin, xmax, ylo - pad, yhi + pad, 0, 0, log_x, NULL, NULL, corner};
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

int nsd_cmd_compare(const nsd_cli *cli) {
    nsd_diag diag = {0};
    nsd_app app;
    int status = NSD_EXIT_OK;
    variant *vars = NULL;
    size_t nv = 0;
    size_t errors = nsd_app_load(&app, cli->config, cli->sets, cli->n_sets, &diag);
    const nsd_toml_node *vt = NULL;
    compare_keys ck;
    memset(&ck, 0, sizeof ck);
    if (!errors) errors = check_compare_section(&app.cfg, &vt, &ck, &diag);
    const char *reference = ck.reference;
    const nsd_toml_node *channels_node = ck.channels;
    double *xs = NULL; /* each variant's value of [compare].x */
    if (!errors) {
        nv = vt->n_items;
        vars = calloc(nv, sizeof *vars);
        if (!vars) abort();
        /* Resolve and instantiate every variant before running any. */
        for (size_t i = 0; i < nv; ++i) {
            variant *v = &vars[i];
            v->name = nsd_toml_get(&vt->items[i], "name")->str;
            nsd_config_derive(&v->cfg, &app.cfg, &vt->items[i]);
            size_t first = diag.n;
            size_t e = nsd_config_resolve(&v->cfg, &app.reg, &diag);
            if (!e) e = nsd_compose_check(&v->cfg, &app.reg, &diag);
            if (!e) e = nsd_model_create(&v->model, &v->cfg, &app.host, &diag);
            if (!e) e = nsd_figures_check(&v->cfg, &v->model, &diag);
            v->resolved = 1;
            char suffix[160];
            snprintf(suffix, sizeof suffix, " (in variant \"%s\")", v->name);
            nsd_diag_suffix(&diag, first, suffix);
            errors += e;
        }
    }
    size_t ref = 0;
    if (!errors && reference) {
        ref = nv;
        for (size_t i = 0; i < nv; ++i)
            if (strcmp(vars[i].name, reference) == 0) ref = i;
        if (ref == nv) {
            const char **names = calloc(nv, sizeof *names);
            for (size_t i = 0; i < nv; ++i) names[i] = vars[i].name;
            const char *near = nsd_did_you_mean(reference, names, nv);
            nsd_diag_at(&diag, nsd_toml_get(nsd_toml_get(&app.cfg.root, "compare"), "reference"),
                        "[compare] key 'reference': no variant named \"%s\"%s%s%s", reference,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
            free(names);
            errors++;
        }
    }
    /* The summary's x and channels, against the resolved variants: the
     * reference first (whose channels the summary names), then the others,
     * in case a variant swaps the plugin that x names. */
    if (!errors && ck.x) {
        xs = calloc(nv, sizeof *xs);
        if (!xs) abort();
        for (size_t k = 0; k < nv && !errors; ++k) {
            size_t i = k == 0 ? ref : k <= ref ? k - 1 : k;
            const nsd_params *p = NULL;
            int index = -1;
            size_t first = diag.n;
            errors += resolve_x(ck.x, &vars[i].cfg, &p, &index, &diag);
            if (errors && i != ref) {
                char suffix[160];
                snprintf(suffix, sizeof suffix, " (in variant \"%s\")", vars[i].name);
                nsd_diag_suffix(&diag, first, suffix);
            }
            if (!errors) xs[i] = p->values[index].num;
        }
        if (!errors) errors += check_summary_channels(ck.summary, &vars[ref].model, vars[ref].name, &diag);
    }
    if (errors) {
        nsd_diag_print(&diag, stderr);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    char dir[PATH_MAX], err[1024], path[PATH_MAX + 64];
    nsd_cli_out_dir(cli, dir, sizeof dir);
    if (nsd_make_dirs(dir, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
        goto out;
    }
    char **written = NULL;
    size_t n_written = 0;
    int any_failed = 0;
    for (size_t i = 0; i < nv; ++i) {
        variant *v = &vars[i];
        char label[200];
        snprintf(label, sizeof label, "[%zu/%zu] %s", i + 1, nv, v->name);
        if (nsd_run_simulation(&v->model, &v->cfg, &app.host, label, &v->res, &diag) != 0) {
            nsd_diag_print(&diag, stderr);
            status = NSD_EXIT_USAGE;
            goto out;
        }
        if (!cli->quiet) nsd_print_run_summary(stdout, label, &v->res);
        if (v->res.outcome == NSD_RUN_FAILED) {
            fprintf(stderr, "warning: variant \"%s\": %s\n", v->name, v->res.message);
            any_failed = 1;
        }
        /* Each variant's own data and record, in a subfolder named by index. */
        char sub[PATH_MAX + 32];
        snprintf(sub, sizeof sub, "%s/variant-%02zu", dir, i + 1);
        if (nsd_write_run_outputs(sub, &v->cfg, &v->model, &v->res, cli->command_line, 0,
                                  &written, &n_written, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            status = NSD_EXIT_FAILED;
            goto out;
        }
    }
    /* Channels to compare: [compare].channels, else the plot series. */
    const char **names = NULL;
    size_t n_names = 0;
    if (channels_node) {
        names = calloc(channels_node->n_items ? channels_node->n_items : 1, sizeof *names);
        for (size_t k = 0; k < channels_node->n_items; ++k) names[n_names++] = channels_node->items[k].str;
    } else {
        const char **series;
        size_t ns = nsd_figures_series(&vars[ref].cfg, &vars[ref].model, &series);
        names = calloc(ns ? ns : 1, sizeof *names);
        for (size_t k = 0; k < ns; ++k) names[n_names++] = series[k];
    }
    for (size_t k = 0; k < n_names; ++k)
        if (nsd_model_channel(&vars[ref].model, names[k]) < 0)
            fprintf(stderr, "warning: [compare] channel '%s' is not a channel of the reference variant\n", names[k]);

    /* Metrics table. */
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    FILE *csv = nsd_open_tmp(path, err, sizeof err);
    if (!csv) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
        free(names);
        goto out;
    }
    fprintf(csv, "variant,outcome,t_reached [s],wall_time [s],steps,rhs_evals,rejected_steps,events");
    printf("\nreference: %s\n%-28s %-9s %10s %9s %10s %9s %7s", vars[ref].name, "variant", "outcome",
           "wall [s]", "steps", "rhs evals", "rejected", "events");
    for (size_t k = 0; k < n_names; ++k) {
        int c = nsd_model_channel(&vars[ref].model, names[k]);
        const char *unit = c >= 0 ? vars[ref].model.channels[c].unit : "?";
        fprintf(csv, ",max_dev_%s [%s]", names[k], unit);
        char head[96];
        snprintf(head, sizeof head, "max|d %s| [%s]", names[k], unit);
        printf(" %16s", head);
    }
    fputc('\n', csv);
    printf("\n");
    double **dev = calloc(nv, sizeof *dev), *max_dev0 = calloc(nv, sizeof *max_dev0);
    if (!dev || !max_dev0) abort();
    for (size_t i = 0; i < nv; ++i) {
        const variant *v = &vars[i];
        const char *outcome = v->res.outcome == NSD_RUN_FAILED ? "FAILED" : v->res.outcome == NSD_RUN_STOPPED ? "stopped" : "complete";
        fprintf(csv, "\"%s\",%s,%.9g,%.6g,%llu,%llu,%llu,%zu", v->name, outcome, v->res.t_reached,
                v->res.wall_seconds, (unsigned long long)v->res.stats.steps,
                (unsigned long long)v->res.stats.rhs_evals,
                (unsigned long long)v->res.stats.rejected_steps, v->res.n_events);
        printf("%-28.28s %-9s %10.4f %9llu %10llu %9llu %7zu", v->name, outcome, v->res.wall_seconds,
               (unsigned long long)v->res.stats.steps, (unsigned long long)v->res.stats.rhs_evals,
               (unsigned long long)v->res.stats.rejected_steps, v->res.n_events);
        for (size_t k = 0; k < n_names; ++k) {
            int cr = nsd_model_channel(&vars[ref].model, names[k]);
            int cv = nsd_model_channel(&v->model, names[k]);
            double *dv = malloc((vars[ref].res.series.rows ? vars[ref].res.series.rows : 1) * sizeof *dv);
            if (!dv) abort();
            double d = cr >= 0 && cv >= 0 ? deviations(&vars[ref].res.series, (size_t)cr, &v->res.series, (size_t)cv, dv) : NAN;
            if (k == 0 && cr >= 0 && cv >= 0) {
                dev[i] = dv; /* the first channel's deviations go on a graph */
                max_dev0[i] = d;
            } else free(dv);
            fprintf(csv, ",%.6g", d);
            printf(" %16.4g", d);
        }
        fputc('\n', csv);
        printf("\n");
    }
    if (nsd_commit_file(csv, path, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
    } else {
        written = realloc(written, (n_written + 1) * sizeof *written);
        written[n_written++] = strdup(path);
    }

    /* Summary against x: summary.csv and summary.<fmt>. */
    if (ck.x && write_summary(dir, &app.cfg, vars, nv, ref, &ck, xs, nsd_plot_num(&app.cfg, "enabled") != 0,
                              &written, &n_written, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
    }

    /* Graphs: deviations, then the overlays. */
    if (nsd_plot_num(&app.cfg, "enabled") != 0 && n_names &&
        write_deviation_figures(dir, &app.cfg, vars, nv, ref, names[0], dev, max_dev0, &written,
                                &n_written, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
    }
    for (size_t i = 0; i < nv; ++i) free(dev[i]);
    free(dev);
    free(max_dev0);
    free(names);
    if (nsd_plot_num(&app.cfg, "enabled") != 0) {
        nsd_figure_run *runs = calloc(nv, sizeof *runs);
        size_t nr = 0;
        for (size_t i = 0; i < nv; ++i)
            if (vars[i].res.series.rows >= 2) runs[nr++] = (nsd_figure_run){vars[i].name, &vars[i].model, &vars[i].res};
        if (nr && nsd_figures_write(dir, &vars[ref].cfg, app.cfg.title, NULL, runs, nr, &written, &n_written, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            status = NSD_EXIT_FAILED;
        }
        free(runs);
    }
    if (!cli->quiet)
        for (size_t i = 0; i < n_written; ++i)
            if (!strstr(written[i], "/variant-")) printf("wrote %s\n", written[i]);
    if (!cli->quiet) printf("per-variant data and records: %s/variant-NN/\n", dir);
    for (size_t i = 0; i < n_written; ++i) free(written[i]);
    free(written);
    /* A variant that fails is a result of the comparison (shown in the
     * table); a failed reference leaves nothing to compare against. */
    (void)any_failed;
    if (vars[ref].res.outcome == NSD_RUN_FAILED && status == NSD_EXIT_OK) {
        fprintf(stderr, "error: the reference variant \"%s\" failed: deviations are over its incomplete data only\n", vars[ref].name);
        status = NSD_EXIT_FAILED;
    }
out:
    for (size_t i = 0; i < nv; ++i) {
        nsd_run_result_free(&vars[i].res);
        nsd_model_destroy(&vars[i].model);
        nsd_config_free(&vars[i].cfg);
    }
    free(vars);
    free(xs);
    nsd_app_free(&app);
    nsd_diag_free(&diag);
    return status;
}
