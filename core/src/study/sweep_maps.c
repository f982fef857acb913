/* Scatter graphs of a sweep (sweep.h, docs/sweep.md):
 *   a bifurcation diagram: every point of a maxima() summary (the local
 *     maxima of a channel after the transient) against an axis, one
 *     colour per group;
 *   a map over two axes: a number summary as a continuous colour scale over
 *     the grid of the two axes (the mean of a node's runs, interpolated
 *     linearly between the nodes, with a colour bar: nsd_map in plot.h),
 *     with the threshold's contour line when `above` is set (marching
 *     squares over the same node means: the line lies where the shading
 *     crosses the threshold), and a marker per run whose summary is text
 *     (a stop name: a basin of attraction) or missing (a failed run).
 * Each is written as <name>.csv (the plotted points) and <name>.png. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "sweep.h"
#include "scenario.h"
#include "numfmt.h"
#include "figures.h"

#define MAX_CATS 8 /* the palette; more categories draw as "other" */

typedef struct scatter {
    const nsd_sweep_def *def;
    const nsd_scenario *base; /* units and title */
    const nsd_sweep_graph *g;
    char cat[MAX_CATS][80]; /* category names, in order of appearance */
    size_t n_cats;
    double *x[MAX_CATS], *y[MAX_CATS];
    size_t n[MAX_CATS], cap[MAX_CATS];
    FILE *csv;
    size_t total;
    /* a map of a number: every run's (x, y, value), sorted into categories
     * after the scan (the bins need the range) */
    double *mx, *my, *mv;
    size_t mn, mcap;
} scatter;

static void push_map(scatter *s, double x, double y, double v) {
    if (s->mn == s->mcap) {
        s->mcap = s->mcap ? 2 * s->mcap : 256;
        s->mx = realloc(s->mx, s->mcap * sizeof *s->mx);
        s->my = realloc(s->my, s->mcap * sizeof *s->my);
        s->mv = realloc(s->mv, s->mcap * sizeof *s->mv);
        if (!s->mx || !s->my || !s->mv) abort();
    }
    s->mx[s->mn] = x;
    s->my[s->mn] = y;
    s->mv[s->mn++] = v;
}

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
    else
        buf[0] = '\0'; /* a number: categorized after the scan */
}

/* The runs of a map of a number: their rows of the CSV (the value itself);
 * they are drawn as the map (nsd_map). */
static void write_numbers(scatter *s) {
    for (size_t i = 0; i < s->mn; ++i) {
        nsd_num_put(s->csv, s->mx[i]), fputc(',', s->csv), nsd_num_put(s->csv, s->my[i]);
        fputc(',', s->csv), nsd_num_put(s->csv, s->mv[i]), fputc('\n', s->csv);
    }
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
        if (!name[0]) {
            push_map(s, x, y, row->sum_num[g->summary]);
            return;
        }
        push(s, category(s, name), x, y);
        nsd_num_put(s->csv, x), fputc(',', s->csv), nsd_num_put(s->csv, y);
        fprintf(s->csv, ",%s\n", name);
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
        nsd_num_put(s->csv, x), fputc(',', s->csv), nsd_num_put(s->csv, row->points[k]);
        fprintf(s->csv, ",%s\n", name);
    }
}

static int cmp_double(const void *a, const void *b) {
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}

/* The distinct values of v[n], sorted, into a fresh array; *m its count. */
static double *distinct(const double *v, size_t n, size_t *m) {
    double *u = malloc((n ? n : 1) * sizeof *u);
    if (!u) abort();
    memcpy(u, v, n * sizeof *u);
    qsort(u, n, sizeof *u, cmp_double);
    *m = 0;
    for (size_t i = 0; i < n; ++i)
        if (*m == 0 || u[i] != u[*m - 1]) u[(*m)++] = u[i];
    return u;
}

static size_t index_of(const double *u, size_t m, double x) {
    const double *p = bsearch(&x, u, m, sizeof *u, cmp_double);
    return p ? (size_t)(p - u) : 0;
}

/* The grid of a map: the distinct x and y values and each cell's mean of
 * its runs' values (NaN for a cell without runs), f[j nx + i]. */
typedef struct grid {
    double *xs, *ys, *f;
    size_t nx, ny;
    double max_runs; /* the most runs a cell has ("mean" only when a cell reduces several) */
} grid;

static grid cell_means(const scatter *s) {
    grid G;
    G.xs = distinct(s->mx, s->mn, &G.nx);
    G.ys = distinct(s->my, s->mn, &G.ny);
    G.f = calloc(G.nx * G.ny + 1, sizeof *G.f);
    double *cnt = calloc(G.nx * G.ny + 1, sizeof *cnt);
    if (!G.f || !cnt) abort();
    for (size_t k = 0; k < s->mn; ++k) {
        size_t i = index_of(G.xs, G.nx, s->mx[k]), j = index_of(G.ys, G.ny, s->my[k]);
        G.f[j * G.nx + i] += s->mv[k];
        cnt[j * G.nx + i] += 1;
    }
    G.max_runs = 0;
    for (size_t c = 0; c < G.nx * G.ny; ++c) {
        G.f[c] = cnt[c] > 0 ? G.f[c] / cnt[c] : NAN;
        G.max_runs = fmax(G.max_runs, cnt[c]);
    }
    free(cnt);
    return G;
}

static void grid_free(grid *G) {
    free(G->xs);
    free(G->ys);
    free(G->f);
}

/* The contour f = level of the grid (marching squares: in each cell whose
 * four corners have values, the crossings of its edges, linearly
 * interpolated, joined in pairs in edge order), as segments with NaN
 * between them into (cx, cy); returns the point count. */
static size_t contour(const grid *G, double level, double **cx, double **cy) {
    size_t nx = G->nx, ny = G->ny, n = 0;
    *cx = malloc((9 * nx * ny + 1) * sizeof **cx);
    *cy = malloc((9 * nx * ny + 1) * sizeof **cy);
    if (!*cx || !*cy) abort();
    for (size_t j = 0; j + 1 < ny; ++j)
        for (size_t i = 0; i + 1 < nx; ++i) {
            /* corners in order around the cell: (i,j) (i+1,j) (i+1,j+1) (i,j+1) */
            size_t ci[4] = {i, i + 1, i + 1, i}, cj[4] = {j, j, j + 1, j + 1};
            double v[4], px[4], py[4];
            int ok = 1, m = 0;
            for (int k = 0; k < 4; ++k) ok &= !isnan(v[k] = G->f[cj[k] * nx + ci[k]] - level);
            for (int k = 0; ok && k < 4; ++k) {
                int l = (k + 1) % 4;
                if ((v[k] > 0) == (v[l] > 0)) continue;
                double t = v[k] / (v[k] - v[l]);
                px[m] = G->xs[ci[k]] + t * (G->xs[ci[l]] - G->xs[ci[k]]);
                py[m++] = G->ys[cj[k]] + t * (G->ys[cj[l]] - G->ys[cj[k]]);
            }
            for (int k = 0; k + 1 < m; k += 2) {
                (*cx)[n] = px[k], (*cy)[n++] = py[k];
                (*cx)[n] = px[k + 1], (*cy)[n++] = py[k + 1];
                (*cx)[n] = NAN, (*cy)[n++] = NAN;
            }
        }
    return n;
}

static void axis_label(const scatter *s, const nsd_sweep_axis *ax, char *buf, size_t len) {
    snprintf(buf, len, "%s [%s]", ax->name, nsd_sweep_axis_unit(s->base, ax));
}

static int draw(const scatter *s, const char *dir, nsd_plot_format fmt, int quiet) {
    const nsd_sweep_def *def = s->def;
    const nsd_sweep_graph *g = s->g;
    const nsd_sweep_summary *sum = &def->sums[g->summary];
    nsd_curve curves[MAX_CATS + 2];
    char contour_label[120], map_label[300];
    double *cx = NULL, *cy = NULL;
    size_t n_curves = 0;
    grid G = {0};
    nsd_map map = {.zmin = NAN, .zmax = NAN};
    int have_map = 0;
    if (g->y_axis >= 0 && s->mn) { /* a number: the map under the markers */
        G = cell_means(s);
        if (G.nx >= 2 && G.ny >= 2) {
            char expr[160];
            nsd_plot_symbol(sum->expr, expr, sizeof expr); /* "max(psi)": max(ψ) */
            snprintf(map_label, sizeof map_label, "%s%s [%s]", G.max_runs > 1 ? "mean " : "", expr,
                     nsd_sweep_summary_unit(s->base, sum));
            map = (nsd_map){.x = G.xs,
                            .y = G.ys,
                            .nx = G.nx,
                            .ny = G.ny,
                            .z = G.f,
                            .label = map_label,
                            .zmin = NAN,
                            .zmax = NAN};
            have_map = 1;
        } else /* one value on an axis: no area to colour; the runs as points */
            curves[n_curves++] = (nsd_curve){.x = s->mx,
                                             .y = s->my,
                                             .n = s->mn,
                                             .legend = "runs (one value on an axis: no map)",
                                             .color = 0,
                                             .marker = 1};
    }
    for (size_t c = 0; c < s->n_cats; ++c)
        curves[n_curves++] = (nsd_curve){.x = s->x[c],
                                         .y = s->y[c],
                                         .n = s->n[c],
                                         .legend = s->cat[c][0] ? s->cat[c] : NULL,
                                         .color = (int)(c + 1) % MAX_CATS,
                                         .marker = 1};
    if (have_map && !isnan(g->above)) {
        snprintf(contour_label, sizeof contour_label, "%s%s = %g", G.max_runs > 1 ? "mean " : "",
                 sum->name, g->above);
        size_t n = contour(&G, g->above, &cx, &cy);
        if (n)
            curves[n_curves++] = (nsd_curve){
                .x = cx, .y = cy, .n = n, .legend = contour_label, .color = 6, .width = 2.5};
    }
    char title[300], xl[200], yl[200], path[PATH_MAX + 300], err[512];
    axis_label(s, &def->axes[g->x_axis], xl, sizeof xl);
    const char *title_cfg = s->base->app.cfg.title ? s->base->app.cfg.title : "";
    if (g->y_axis >= 0) {
        axis_label(s, &def->axes[g->y_axis], yl, sizeof yl);
        snprintf(title, sizeof title, "%s: %s", title_cfg, sum->expr);
    } else {
        char ch[96];
        nsd_plot_symbol(sum->channel, ch, sizeof ch);
        snprintf(yl, sizeof yl, "local maxima of %s after t = %g s [%s]", ch, sum->after,
                 nsd_sweep_summary_unit(s->base, sum));
        snprintf(title, sizeof title, "%s", title_cfg);
    }
    nsd_panel panel = {.title = title,
                       .xlabel = xl,
                       .ylabel = yl,
                       .curves = curves,
                       .n_curves = n_curves,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 4,
                       .map = have_map ? &map : NULL};
    nsd_figure fig = {.panels = &panel, .n_panels = 1, .width_px = 1200, .height_px = 800};
    snprintf(path, sizeof path, "%s/%s.%s", dir, g->name, nsd_plot_format_ext(fmt));
    int rc = 0;
    if (!s->total && !s->mn)
        fprintf(stderr, "warning: graph %s: nothing to draw\n", g->name);
    else if ((rc = nsd_figure_write(&s->base->app.cfg, path, fmt, &fig, err, sizeof err)) != 0)
        fprintf(stderr, "error: %s: %s\n", path, err);
    else if (!quiet)
        fprintf(stderr, "wrote %s\n", path);
    free(cx);
    free(cy);
    grid_free(&G);
    return rc;
}

int nsd_sweep_scatter(const nsd_sweep_def *def, const nsd_scenario *base, const nsd_sweep_graph *g,
                      nsd_sweep_db *db, const char *dir, nsd_plot_format format, int quiet) {
    scatter s = {.def = def, .base = base, .g = g};
    char path[PATH_MAX + 300], err[PATH_MAX + 512];
    snprintf(path, sizeof path, "%s/%s.csv", dir, g->name);
    s.csv = nsd_open_tmp(path, err, sizeof err); /* never through a link (output.h) */
    if (!s.csv) {
        fprintf(stderr, "error: %s\n", err);
        return -1;
    }
    fprintf(s.csv, "%s,%s,%s\n", def->axes[g->x_axis].name,
            g->y_axis >= 0 ? def->axes[g->y_axis].name : def->sums[g->summary].name,
            g->y_axis >= 0 ? "value_or_category" : "group");
    int rc = nsd_sweep_db_scan(db, add_row, &s, err, sizeof err);
    if (rc != 0) fprintf(stderr, "error: %s\n", err);
    write_numbers(&s);
    char werr[PATH_MAX + 512];
    if (nsd_commit_file(s.csv, path, werr, sizeof werr) != 0) {
        fprintf(stderr, "error: %s\n", werr);
        rc = -1;
    }
    if (rc == 0) rc = draw(&s, dir, format, quiet);
    for (size_t c = 0; c < MAX_CATS; ++c) {
        free(s.x[c]);
        free(s.y[c]);
    }
    free(s.mx);
    free(s.my);
    free(s.mv);
    return rc;
}
