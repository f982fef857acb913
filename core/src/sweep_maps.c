/* Scatter graphs of a sweep (sweep.h, docs/sweep.md):
 *   a bifurcation diagram: every point of a maxima() summary (the local
 *     maxima of a channel after the transient) against an axis, one
 *     colour per group;
 *   a map over two axes: a marker per run, its colour the category of a
 *     summary (a stop name, a value, or which side of `above` it is): a
 *     basin of attraction, a crossing region.
 * Each is written as <name>.csv (the plotted points) and <name>.png. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

#define MAX_CATS 8 /* the palette; more categories draw as "other" */

typedef struct scatter {
    const nsd_sweep_def *def;
    const nsd_sweep_graph *g;
    char cat[MAX_CATS][80]; /* category names, in order of appearance */
    size_t n_cats;
    double *x[MAX_CATS], *y[MAX_CATS];
    size_t n[MAX_CATS], cap[MAX_CATS];
    FILE *csv;
    size_t total;
} scatter;

static void push(scatter *s, size_t c, double x, double y) {
    if (s->n[c] == s->cap[c]) {
        s->cap[c] = s->cap[c] ? 2 * s->cap[c] : 256;
        s->x[c] = realloc(s->x[c], s->cap[c] * sizeof *s->x[c]);
        s->y[c] = realloc(s->y[c], s->cap[c] * sizeof *s->y[c]);
        if (!s->x[c] || !s->y[c]) abort();
    }
    s->x[c][s->n[c]] = x;
    s->y[c][s->n[c]++] = y;
    s->total++;
}

static size_t category(scatter *s, const char *name) {
    for (size_t c = 0; c < s->n_cats; ++c)
        if (!strcmp(s->cat[c], name)) return c;
    if (s->n_cats < MAX_CATS) {
        snprintf(s->cat[s->n_cats], sizeof s->cat[0], "%s", name);
        return s->n_cats++;
    }
    return MAX_CATS - 1; /* the last category takes the rest */
}

/* The category of a run in a map. */
static void map_category(const scatter *s, const nsd_sweep_row *row, char *buf, size_t len) {
    const nsd_sweep_graph *g = s->g;
    const nsd_sweep_summary *sum = &s->def->sums[g->summary];
    double v = row->sum_num[g->summary];
    if (row->status != NSD_SWEEP_OK && sum->kind != NSD_SUM_STOP)
        snprintf(buf, len, "run failed");
    else if (row->sum_text[g->summary][0])
        snprintf(buf, len, "%s", row->sum_text[g->summary]);
    else if (isnan(v))
        snprintf(buf, len, "%s undefined", sum->name);
    else if (!isnan(g->above))
        snprintf(buf, len, "%s %s %g", sum->name, v > g->above ? ">" : "<=", g->above);
    else
        snprintf(buf, len, "%s = %g", sum->name, v);
}

static void add_row(void *ctx, const nsd_sweep_row *row) {
    scatter *s = ctx;
    const nsd_sweep_graph *g = s->g;
    double x = row->axis_num[g->x_axis];
    char name[80];
    if (isnan(x)) return;
    if (g->y_axis >= 0) {
        double y = row->axis_num[g->y_axis];
        if (isnan(y)) return;
        map_category(s, row, name, sizeof name);
        push(s, category(s, name), x, y);
        fprintf(s->csv, "%.15g,%.15g,%s\n", x, y, name);
        return;
    }
    if (row->status != NSD_SWEEP_OK) return;
    if (g->group_axis >= 0 && row->axis_text[g->group_axis][0])
        snprintf(name, sizeof name, "%s = %s", s->def->axes[g->group_axis].name,
                 row->axis_text[g->group_axis]);
    else if (g->group_axis >= 0)
        snprintf(name, sizeof name, "%s = %g", s->def->axes[g->group_axis].name,
                 row->axis_num[g->group_axis]);
    else
        name[0] = '\0';
    size_t c = category(s, name);
    for (uint32_t k = 0; k < row->n_points; ++k) {
        push(s, c, x, row->points[k]);
        fprintf(s->csv, "%.15g,%.15g,%s\n", x, row->points[k], name);
    }
}

static void axis_label(const nsd_sweep_axis *ax, char *buf, size_t len) {
    snprintf(buf, len, "%s (%s.%s)", ax->name, ax->section, ax->param);
}

static int draw(const scatter *s, const char *dir, nsd_plot_format fmt, int quiet) {
    const nsd_sweep_def *def = s->def;
    const nsd_sweep_graph *g = s->g;
    nsd_curve curves[MAX_CATS];
    for (size_t c = 0; c < s->n_cats; ++c)
        curves[c] = (nsd_curve){s->x[c], s->y[c], s->n[c], s->cat[c][0] ? s->cat[c] : NULL,
                                (int)c,  0,       0,       1};
    char title[300], xl[200], yl[200], path[PATH_MAX + 300], err[512];
    const nsd_sweep_summary *sum = &def->sums[g->summary];
    axis_label(&def->axes[g->x_axis], xl, sizeof xl);
    if (g->y_axis >= 0) {
        axis_label(&def->axes[g->y_axis], yl, sizeof yl);
        snprintf(title, sizeof title, "%s = %s over %s and %s", sum->name, sum->expr,
                 def->axes[g->x_axis].name, def->axes[g->y_axis].name);
    } else {
        snprintf(yl, sizeof yl, "local maxima of %s after t = %g s", sum->channel, sum->after);
        snprintf(title, sizeof title, "%s: %zu maxima against %s", sum->name, s->total,
                 def->axes[g->x_axis].name);
    }
    nsd_panel panel = {.title = title,
                       .xlabel = xl,
                       .ylabel = yl,
                       .curves = curves,
                       .n_curves = s->n_cats,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 4};
    nsd_figure fig = {.panels = &panel, .n_panels = 1, .width_px = 1200, .height_px = 800};
    snprintf(path, sizeof path, "%s/%s.%s", dir, g->name, nsd_plot_format_ext(fmt));
    if (!s->total) {
        fprintf(stderr, "warning: graph %s: nothing to draw\n", g->name);
        return 0;
    }
    if (nsd_plot_write(path, fmt, &fig, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s: %s\n", path, err);
        return -1;
    }
    if (!quiet) fprintf(stderr, "wrote %s\n", path);
    return 0;
}

int nsd_sweep_scatter(const nsd_sweep_def *def, const nsd_sweep_graph *g, nsd_sweep_db *db,
                      const char *dir, nsd_plot_format format, int quiet) {
    scatter s = {.def = def, .g = g};
    char path[PATH_MAX + 300], err[512];
    snprintf(path, sizeof path, "%s/%s.csv", dir, g->name);
    s.csv = fopen(path, "w");
    if (!s.csv) {
        fprintf(stderr, "error: cannot write %s\n", path);
        return -1;
    }
    fprintf(s.csv, "%s,%s,%s\n", def->axes[g->x_axis].name,
            g->y_axis >= 0 ? def->axes[g->y_axis].name : def->sums[g->summary].name,
            g->y_axis >= 0 ? "category" : "group");
    int rc = nsd_sweep_db_scan(db, add_row, &s, err, sizeof err);
    if (rc != 0) fprintf(stderr, "error: %s\n", err);
    if (fclose(s.csv) != 0) rc = -1;
    if (rc == 0) rc = draw(&s, dir, format, quiet);
    for (size_t c = 0; c < MAX_CATS; ++c) {
        free(s.x[c]);
        free(s.y[c]);
    }
    return rc;
}
