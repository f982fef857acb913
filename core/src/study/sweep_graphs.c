/* Aggregates and graphs of a sweep (sweep.h, docs/sweep.md): a summary
 * reduced over the runs that share an x value (and a group value), one
 * line per group, written as <name>.csv and drawn as <name>.png through
 * the host's plot module. Only runs with status ok and a numeric value
 * count. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "sweep.h"
#include "figures.h"
#include "scenario.h"
#include "numfmt.h"

static long axis_named(const nsd_sweep_def *def, const nsd_toml_node *n) {
    for (size_t a = 0; n && n->type == NSD_TOML_STRING && a < def->n_axes; ++a)
        if (!strcmp(def->axes[a].name, n->str)) return (long)a;
    return -1;
}

static long summary_named(const nsd_sweep_def *def, const nsd_toml_node *n) {
    for (size_t s = 0; n && n->type == NSD_TOML_STRING && s < def->n_sums; ++s)
        if (!strcmp(def->sums[s].name, n->str)) return (long)s;
    return -1;
}

/* A map: x and y are axes, the colour a summary (its text, its value, or
 * which side of `above` it is). */
static size_t parse_map(nsd_sweep_def *def, nsd_sweep_graph *g, const nsd_toml_node *t,
                        const nsd_toml_node *x, const nsd_toml_node *y, const nsd_toml_node *co,
                        const nsd_toml_node *ab, const nsd_toml_node *nm, nsd_diag *diag) {
    g->x_axis = axis_named(def, x);
    g->y_axis = axis_named(def, y);
    g->summary = summary_named(def, co);
    if (g->x_axis < 0 || def->axes[g->x_axis].is_text || def->axes[g->y_axis].is_text) {
        nsd_diag_at(diag, x ? x : t, "[[sweep.graph]] map: x and y must name numeric axes");
        return 1;
    }
    if (g->summary < 0) {
        nsd_diag_at(diag, co ? co : t,
                    "[[sweep.graph]] map over two axes: color = the name of a "
                    "summary of [sweep.summary]");
        return 1;
    }
    if (ab && (ab->type == NSD_TOML_FLOAT || ab->type == NSD_TOML_INTEGER)) g->above = ab->real;
    char name[200];
    snprintf(name, sizeof name, "%s_map_%s_%s", def->sums[g->summary].name,
             def->axes[g->x_axis].name, def->axes[g->y_axis].name);
    if (nm && (nm->type != NSD_TOML_STRING || !nsd_sweep_valid_column(nm->str))) {
        nsd_diag_at(diag, nm, "[[sweep.graph]] 'name': expected a file stem (letters, digits, _)");
        return 1;
    }
    g->name = strdup(nm ? nm->str : name);
    return 0;
}

static size_t parse_graph(nsd_sweep_def *def, nsd_sweep_graph *g, const nsd_toml_node *t,
                          nsd_diag *diag) {
    g->at = t;
    g->group_axis = g->y_axis = -1;
    g->above = NAN;
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "[[sweep.graph]]: expected a table");
        return 1;
    }
    const nsd_toml_node *x = nsd_toml_get(t, "x"), *y = nsd_toml_get(t, "y");
    const nsd_toml_node *gr = nsd_toml_get(t, "group"), *re = nsd_toml_get(t, "reduce");
    const nsd_toml_node *ab = nsd_toml_get(t, "above"), *nm = nsd_toml_get(t, "name");
    const nsd_toml_node *co = nsd_toml_get(t, "color");
    for (size_t i = 0; i < t->n_items; ++i) {
        static const char *const known[] = {"x", "y", "group", "reduce", "above", "name", "color"};
        size_t k = 0;
        while (k < 7 && strcmp(t->items[i].key, known[k])) k++;
        if (k == 7) {
            nsd_diag_at(diag, &t->items[i],
                        "[[sweep.graph]]: unknown key '%s' (known: x, y, group, reduce, above, "
                        "name, color)",
                        t->items[i].key);
            return 1;
        }
    }
    if (axis_named(def, y) >= 0) return parse_map(def, g, t, x, y, co, ab, nm, diag);
    g->x_axis = axis_named(def, x);
    if (g->x_axis < 0 || def->axes[g->x_axis].is_text) {
        nsd_diag_at(diag, x ? x : t, "[[sweep.graph]] 'x': expected the name of a numeric axis");
        return 1;
    }
    if (gr && (g->group_axis = axis_named(def, gr)) < 0) {
        nsd_diag_at(diag, gr, "[[sweep.graph]] 'group': expected the name of an axis");
        return 1;
    }
    g->summary = summary_named(def, y);
    if (g->summary >= 0 && def->sums[g->summary].kind == NSD_SUM_STOP) g->summary = -1;
    g->points = g->summary >= 0 && def->sums[g->summary].kind == NSD_SUM_MAXIMA;
    if (g->summary < 0) {
        nsd_diag_at(diag, y ? y : t,
                    "[[sweep.graph]] 'y': expected the name of a numeric "
                    "summary of [sweep.summary]");
        return 1;
    }
    static const char *const reduces[] = {"mean", "std", "min", "max", "fraction"};
    if (re) {
        size_t k = 0;
        while (k < 5 && !(re->type == NSD_TOML_STRING && !strcmp(re->str, reduces[k]))) k++;
        if (k == 5) {
            nsd_diag_at(diag, re,
                        "[[sweep.graph]] 'reduce': expected mean, std, min, max or "
                        "fraction");
            return 1;
        }
        g->reduce = (nsd_reduce)k;
    }
    if (g->reduce == NSD_REDUCE_FRACTION) {
        if (!ab || (ab->type != NSD_TOML_FLOAT && ab->type != NSD_TOML_INTEGER)) {
            nsd_diag_at(diag, ab ? ab : t,
                        "[[sweep.graph]]: reduce = \"fraction\" needs "
                        "above = a number (the fraction of runs above it)");
            return 1;
        }
        g->above = ab->real;
    }
    char name[200];
    snprintf(name, sizeof name, "%s_vs_%s", def->sums[g->summary].name, def->axes[g->x_axis].name);
    if (nm && (nm->type != NSD_TOML_STRING || !nsd_sweep_valid_column(nm->str))) {
        nsd_diag_at(diag, nm, "[[sweep.graph]] 'name': expected a file stem (letters, digits, _)");
        return 1;
    }
    g->name = strdup(nm ? nm->str : name);
    return 0;
}

size_t nsd_sweep_parse_graphs(nsd_sweep_def *def, const nsd_toml_node *list, nsd_diag *diag) {
    if (list->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, list, "[sweep] 'graph': expected [[sweep.graph]] tables");
        return 1;
    }
    def->graphs = calloc(list->n_items ? list->n_items : 1, sizeof *def->graphs);
    if (!def->graphs) abort();
    size_t errors = 0;
    for (size_t i = 0; i < list->n_items; ++i) {
        errors += parse_graph(def, &def->graphs[i], &list->items[i], diag);
        def->n_graphs = i + 1;
    }
    return errors;
}

/* ---- aggregation ---- */

typedef struct point {
    double g, x, y;
    char gtext[NSD_SWEEP_TEXT];
} point;

typedef struct collect {
    const nsd_sweep_graph *g;
    point *p;
    size_t n, cap;
} collect;

static void collect_row(void *ctx, const nsd_sweep_row *row) {
    collect *c = ctx;
    const nsd_sweep_graph *g = c->g;
    double y = row->sum_num[g->summary], x = row->axis_num[g->x_axis];
    if (row->status != NSD_SWEEP_OK || isnan(y) || isnan(x)) return;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->p = realloc(c->p, c->cap * sizeof *c->p);
        if (!c->p) abort();
    }
    point *p = &c->p[c->n++];
    p->x = x;
    p->y = y;
    p->g = g->group_axis >= 0 ? row->axis_num[g->group_axis] : 0;
    snprintf(p->gtext, sizeof p->gtext, "%s",
             g->group_axis >= 0 ? row->axis_text[g->group_axis] : "");
}

static int cmp_point(const void *a, const void *b) {
    const point *p = a, *q = b;
    int t = strcmp(p->gtext, q->gtext);
    if (t) return t;
    if (p->g != q->g) return p->g < q->g ? -1 : 1;
    return p->x < q->x ? -1 : p->x > q->x;
}

static int same_group(const point *p, const point *q) {
    return !strcmp(p->gtext, q->gtext) && (p->g == q->g || (isnan(p->g) && isnan(q->g)));
}

/* One aggregate: runs with equal group and x. */
typedef struct agg {
    double x, mean, std, min, max, fraction;
    size_t n;
} agg;

static agg reduce_run(const point *p, size_t n, double above) {
    agg a = {.x = p[0].x, .min = HUGE_VAL, .max = -HUGE_VAL, .n = n};
    double sum = 0, m2 = 0;
    size_t hits = 0;
    for (size_t i = 0; i < n; ++i) { /* Welford: stable for many runs */
        double d = p[i].y - a.mean;
        a.mean += d / (double)(i + 1);
        m2 += d * (p[i].y - a.mean);
        sum += p[i].y;
        a.min = fmin(a.min, p[i].y);
        a.max = fmax(a.max, p[i].y);
        hits += p[i].y > above;
    }
    (void)sum;
    a.std = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;
    a.fraction = (double)hits / (double)n;
    return a;
}

static double agg_value(const agg *a, nsd_reduce r) {
    switch (r) {
        case NSD_REDUCE_MEAN: return a->mean;
        case NSD_REDUCE_STD: return a->std;
        case NSD_REDUCE_MIN: return a->min;
        case NSD_REDUCE_MAX: return a->max;
        case NSD_REDUCE_FRACTION: return a->fraction;
    }
    return NAN;
}

/* The axis labels of a summary graph, with units; one_each: one run per
 * point (the values themselves, not a mean of one). */
static void graph_labels(const nsd_sweep_def *def, const nsd_scenario *base,
                         const nsd_sweep_graph *g, int one_each, int bars, char ylabel[200],
                         char xlabel[200]) {
    static const char *const rname[] = {"mean", "std", "min", "max", "fraction"};
    const nsd_sweep_summary *s = &def->sums[g->summary];
    const char *unit = nsd_sweep_summary_unit(base, s);
    char expr[160];
    nsd_plot_symbol(s->expr, expr, sizeof expr); /* "max(psi)": max(ψ) */
    if (g->reduce == NSD_REDUCE_FRACTION)
        snprintf(ylabel, 200, "fraction of runs with %s > %g %s [1]", s->name, g->above, unit);
    else if (one_each && g->reduce != NSD_REDUCE_STD)
        snprintf(ylabel, 200, "%s [%s]", expr, unit);
    else
        snprintf(ylabel, 200, "%s of %s [%s]%s", rname[g->reduce], expr, unit,
                 bars ? ", bars ±1 std" : "");
    snprintf(xlabel, 200, "%s [%s]", def->axes[g->x_axis].name,
             nsd_sweep_axis_unit(base, &def->axes[g->x_axis]));
}

/* Curves per group (value, and for mean the +-std bars), CSV rows. */
static int draw_graph(const nsd_sweep_def *def, const nsd_scenario *base, const nsd_sweep_graph *g,
                      collect *c, const char *dir, nsd_plot_format fmt, int quiet) {
    qsort(c->p, c->n, sizeof *c->p, cmp_point);
    char path[PATH_MAX + 300], err[PATH_MAX + 512];
    snprintf(path, sizeof path, "%s/%s.csv", dir, g->name);
    FILE *f = nsd_open_tmp(path, err, sizeof err); /* never through a link (output.h) */
    if (!f) {
        fprintf(stderr, "error: %s\n", err);
        return -1;
    }
    const char *gname = g->group_axis >= 0 ? def->axes[g->group_axis].name : "group";
    fprintf(f, "%s,%s,n,mean,std,min,max,fraction\n", gname, def->axes[g->x_axis].name);
    size_t n_groups = 0, n_agg = 0;
    agg *ag = calloc(c->n ? c->n : 1, sizeof *ag);
    size_t *gstart = calloc(c->n + 1, sizeof *gstart);
    char(*glabel)[80] = calloc(c->n ? c->n : 1, sizeof *glabel);
    if (!ag || !gstart || !glabel) abort();
    for (size_t i = 0; i < c->n;) {
        if (i == 0 || !same_group(&c->p[i], &c->p[i - 1])) {
            gstart[n_groups] = n_agg;
            if (g->group_axis < 0)
                snprintf(glabel[n_groups], 80, "%s", "");
            else if (c->p[i].gtext[0])
                snprintf(glabel[n_groups], 80, "%s = %s", gname, c->p[i].gtext);
            else
                snprintf(glabel[n_groups], 80, "%s = %.6g", gname, c->p[i].g);
            n_groups++;
        }
        size_t j = i;
        while (j < c->n && same_group(&c->p[j], &c->p[i]) && c->p[j].x == c->p[i].x) j++;
        ag[n_agg] = reduce_run(&c->p[i], j - i, g->above);
        const agg *a = &ag[n_agg++];
        if (c->p[i].gtext[0])
            fprintf(f, "%s,", c->p[i].gtext);
        else
            nsd_num_put(f, g->group_axis >= 0 ? c->p[i].g : 0.0), fputc(',', f);
        nsd_num_put(f, a->x);
        fprintf(f, ",%zu", a->n);
        const double stat[4] = {a->mean, a->std, a->min, a->max};
        for (int k = 0; k < 4; ++k) fputc(',', f), nsd_num_put(f, stat[k]);
        fputc(',', f);
        if (!isnan(g->above)) nsd_num_put(f, a->fraction);
        fputc('\n', f);
        i = j;
    }
    gstart[n_groups] = n_agg;
    if (nsd_commit_file(f, path, err, sizeof err) != 0) { /* a full disk: said, no half file */
        fprintf(stderr, "error: %s\n", err);
        free(ag), free(gstart), free(glabel);
        return -1;
    }
    /* error bars only where there is a spread: some point reduces 2 runs or more */
    int bars = 0;
    for (size_t i = 0; i < n_agg && g->reduce == NSD_REDUCE_MEAN; ++i) bars |= ag[i].n > 1;
    nsd_curve *curves = calloc(2 * n_groups + 1, sizeof *curves);
    double *xs = calloc(4 * n_agg + 1, sizeof *xs), *ys = calloc(4 * n_agg + 1, sizeof *ys);
    if (!curves || !xs || !ys) abort();
    size_t nc = 0, used = 0;
    for (size_t k = 0; k < n_groups; ++k) {
        size_t a0 = gstart[k], a1 = gstart[k + 1];
        double *x = xs + used, *y = ys + used;
        for (size_t i = a0; i < a1; ++i) {
            x[i - a0] = ag[i].x;
            y[i - a0] = agg_value(&ag[i], g->reduce);
        }
        used += a1 - a0;
        curves[nc++] = (nsd_curve){.x = x,
                                   .y = y,
                                   .n = a1 - a0,
                                   .legend = glabel[k][0] ? glabel[k] : NULL,
                                   .color = (int)k,
                                   .marker = 2};
        if (!bars) continue;
        double *bx = xs + used, *by = ys + used;
        size_t m = 0;
        for (size_t i = a0; i < a1; ++i) { /* a vertical segment per point, NaN between */
            bx[m] = bx[m + 1] = ag[i].x;
            by[m] = ag[i].mean - ag[i].std;
            by[m + 1] = ag[i].mean + ag[i].std;
            bx[m + 2] = by[m + 2] = NAN;
            m += 3;
        }
        used += m;
        curves[nc++] = (nsd_curve){.x = bx, .y = by, .n = m, .color = (int)k, .width = 1.0};
    }
    char title[300], ylabel[200], xlabel[200];
    graph_labels(def, base, g, n_agg == c->n, bars, ylabel, xlabel);
    snprintf(title, sizeof title, "%s", base->app.cfg.title ? base->app.cfg.title : "");
    nsd_panel panel = {.title = title,
                       .xlabel = xlabel,
                       .ylabel = ylabel,
                       .curves = curves,
                       .n_curves = nc,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 4};
    nsd_figure fig = {.panels = &panel, .n_panels = 1, .width_px = 1200, .height_px = 700};
    snprintf(path, sizeof path, "%s/%s.%s", dir, g->name, nsd_plot_format_ext(fmt));
    int rc = c->n ? nsd_figure_write(&base->app.cfg, path, fmt, &fig, err, sizeof err) : 0;
    if (rc != 0) fprintf(stderr, "error: %s: %s\n", path, err);
    if (rc == 0 && !quiet && c->n) fprintf(stderr, "wrote %s\n", path);
    if (!c->n) fprintf(stderr, "warning: graph %s: no finished run has a value\n", g->name);
    free(curves);
    free(xs);
    free(ys);
    free(ag);
    free(gstart);
    free(glabel);
    return rc;
}

int nsd_sweep_graphs(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                     const char *dir, nsd_plot_format format, int quiet) {
    int rc = 0;
    for (size_t i = 0; i < def->n_graphs; ++i) {
        collect c = {.g = &def->graphs[i]};
        char err[512];
        if (def->graphs[i].points || def->graphs[i].y_axis >= 0) {
            if (nsd_sweep_scatter(def, base, &def->graphs[i], db, dir, format, quiet) != 0) rc = -1;
            continue;
        }
        if (nsd_sweep_db_scan(db, collect_row, &c, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            rc = -1;
        } else if (draw_graph(def, base, &def->graphs[i], &c, dir, format, quiet) != 0) {
            rc = -1;
        }
        free(c.p);
    }
    return rc;
}
