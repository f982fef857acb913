/* The adaptive two-axis map ([sweep.adaptive] axes = [X, Y], docs/sweep.md):
 * where on the X-Y plane the target (over the runs at one point: the other
 * axes' grid) changes. The search itself, on the lattice of the finest
 * resolution, is sweep_map_trace.c (sweep_map.h): the coarse grid, a
 * bisection along every coarse edge whose ends disagree, then the boundary
 * followed through the lattice cells it passes. Here its points are run:
 * a lattice point (i, j) is the value start + (stop - start) i / N of
 * each axis, rounded to 12 significant digits like grid points, so a
 * point is the same double whichever round asks for it. Each round sets
 * the two axes to every value asked for so far (the study grows,
 * sweep_grow.c: finished runs are kept, keyed by their values) and marks
 * every run off those points as not wanted, so only the new points run;
 * every run is a normal row of the database. The mixed lattice cells
 * are the boundary, written to a CSV (centre and size along each axis). */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "sweep_map.h"

typedef struct map {
    const nsd_sweep_def *def;
    long ax[2];
    nsd_lattice_map lat;
    size_t *n, *hits; /* per point of lat (this round): runs and runs above */
    double *sum;
    double *val[2]; /* the values asked for of each axis, sorted */
    uint32_t *idx[2];
    size_t n_val[2];
    size_t failed;
} map;

static double lattice_value(const nsd_sweep_axis *ax, uint32_t i, uint32_t len) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", ax->start + (ax->stop - ax->start) * ((double)i / len));
    return strtod(buf, NULL);
}

/* The lattice index of a value asked for of axis k, or -1. */
static long index_of(const map *m, int k, double v) {
    size_t lo = 0, hi = m->n_val[k];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->val[k][mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n_val[k] && m->val[k][lo] == v ? (long)m->idx[k][lo] : -1;
}

/* The index in m->lat.pts of the point at (x, y), or -1. */
static long point_of(const map *m, double x, double y) {
    long i = index_of(m, 0, x), j = index_of(m, 1, y);
    const nsd_map_point *p =
        i < 0 || j < 0 ? NULL : nsd_map_find(&m->lat, (uint32_t)i, (uint32_t)j);
    return p ? (long)(p - m->lat.pts) : -1;
}

static int skip_run(void *ctx, const nsd_sweep_def *def, uint64_t run) {
    const map *m = ctx;
    double x = NAN, y = NAN;
    nsd_sweep_value(def, run, (size_t)m->ax[0], &x);
    nsd_sweep_value(def, run, (size_t)m->ax[1], &y);
    return point_of(m, x, y) < 0;
}

static void count_row(void *ctx, const nsd_sweep_row *row) {
    map *m = ctx;
    long p = point_of(m, row->axis_num[m->ax[0]], row->axis_num[m->ax[1]]);
    if (p < 0) return;
    const nsd_sweep_adaptive *ad = &m->def->adaptive;
    double s = row->sum_num[ad->summary];
    m->n[p]++;
    if (row->status != NSD_SWEEP_OK || isnan(s)) { /* counted as not reaching the target */
        m->failed++;
        return;
    }
    m->hits[p] += s > ad->above;
    m->sum[p] += s;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Axis k's values: every lattice index some point uses, sorted. */
static void axis_values(nsd_sweep_def *def, map *m, int k) {
    const nsd_lattice_map *L = &m->lat;
    uint32_t *ix = malloc(L->n_pts * sizeof *ix);
    if (!ix) abort();
    for (size_t p = 0; p < L->n_pts; ++p)
        ix[p] = k == 0 ? (uint32_t)(L->pts[p].key >> 32) : (uint32_t)L->pts[p].key;
    qsort(ix, L->n_pts, sizeof *ix, cmp_u32);
    size_t n = 0;
    for (size_t p = 0; p < L->n_pts; ++p)
        if (n == 0 || ix[n - 1] != ix[p]) ix[n++] = ix[p];
    free(m->val[k]);
    free(m->idx[k]);
    m->val[k] = malloc(n * sizeof(double));
    if (!m->val[k]) abort();
    for (size_t v = 0; v < n; ++v)
        m->val[k][v] = lattice_value(&def->axes[m->ax[k]], ix[v], L->len[k]);
    m->idx[k] = ix;
    m->n_val[k] = n;
    nsd_sweep_set_values(def, (size_t)m->ax[k], m->val[k], n);
}

typedef struct eval_ctx {
    nsd_sweep_def *def;
    const nsd_scenario *base;
    const char *db_path;
    const nsd_sweep_opts *opts;
    nsd_sweep_tally *tally;
    map *m;
} eval_ctx;

/* Run the points not evaluated yet (nsd_map_eval_fn); every point's
 * target into holds, from all its rows. */
static int evaluate(void *ctx, nsd_lattice_map *lat) {
    eval_ctx *e = ctx;
    map *m = e->m;
    nsd_sweep_def *def = e->def;
    axis_values(def, m, 0);
    axis_values(def, m, 1);
    free(m->n), free(m->hits), free(m->sum);
    m->n = calloc(lat->n_pts, sizeof *m->n);
    m->hits = calloc(lat->n_pts, sizeof *m->hits);
    m->sum = calloc(lat->n_pts, sizeof *m->sum);
    if (!m->n || !m->hits || !m->sum) abort();
    m->failed = 0;
    char err[1200] = "";
    nsd_sweep_visit visit = {skip_run, count_row, m};
    int rc = nsd_sweep_adaptive_exec(def, e->base, e->db_path, e->opts, e->tally, &visit, err,
                                     sizeof err);
    size_t per = def->n_runs / (m->n_val[0] * m->n_val[1]); /* the other axes' grid */
    for (size_t p = 0; p < lat->n_pts && rc == 0; ++p) {
        nsd_map_point *q = &lat->pts[p];
        q->holds = nsd_sweep_target_holds(&def->adaptive, m->n[p], m->hits[p], m->sum[p]);
        q->known = 1;
        if (m->n[p] != per) { /* an interrupted round: no answer from it */
            snprintf(err, sizeof err,
                     "[sweep.adaptive]: %zu of the %zu runs at a point of the map are in the "
                     "database (interrupted?); run the same command again to go on",
                     m->n[p], per);
            rc = -1;
        }
    }
    if (rc == 0 && m->failed && !e->opts->quiet)
        fprintf(stderr, "sweep: adaptive: %zu failed runs counted as not reaching the target\n",
                m->failed);
    if (rc != 0 && err[0]) fprintf(stderr, "error: %s\n", err);
    return rc;
}

/* Halvings of axis k's coarse step to reach the cell size; -1: too many. */
static int levels(const nsd_sweep_axis *ax, double cell_size) {
    double step = (ax->stop - ax->start) / (double)(ax->n - 1);
    int L = 0;
    while (step / ldexp(1.0, L) > cell_size * (1 + 1e-12) && L < 40) ++L;
    return (double)(ax->n - 1) * ldexp(1.0, L) > 1e6 ? -1 : L;
}

static int write_cells(const map *m, const char *path, size_t *n_mixed) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "error: cannot write %s\n", path);
        return -1;
    }
    const nsd_sweep_axis *X = &m->def->axes[m->ax[0]], *Y = &m->def->axes[m->ax[1]];
    fprintf(f, "%s_centre [%s],%s_size [%s],%s_centre [%s],%s_size [%s]\n", X->name, X->unit,
            X->name, X->unit, Y->name, Y->unit, Y->name, Y->unit);
    uint32_t *c = NULL;
    *n_mixed = nsd_map_mixed(&m->lat, &c);
    for (size_t k = 0; k < *n_mixed; ++k) {
        uint32_t i = c[2 * k], j = c[2 * k + 1];
        double x0 = lattice_value(X, i, m->lat.len[0]), x1 = lattice_value(X, i + 1, m->lat.len[0]);
        double y0 = lattice_value(Y, j, m->lat.len[1]), y1 = lattice_value(Y, j + 1, m->lat.len[1]);
        fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", 0.5 * (x0 + x1), x1 - x0, 0.5 * (y0 + y1), y1 - y0);
    }
    free(c);
    return fclose(f) == 0 ? 0 : -1;
}

int nsd_sweep_adaptive_map(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                           const nsd_sweep_opts *opts, nsd_sweep_tally *tally, const char *csv_path,
                           size_t *n_mixed, size_t *runs, size_t *uniform) {
    map m = {.def = def, .ax = {def->adaptive.axis, def->adaptive.axis2}};
    size_t per = def->n_runs / (def->axes[m.ax[0]].n * def->axes[m.ax[1]].n);
    for (int k = 0; k < 2; ++k) {
        const nsd_sweep_axis *ax = &def->axes[m.ax[k]];
        int L = levels(ax, def->adaptive.cell[k]);
        if (L < 0) {
            fprintf(stderr,
                    "error: [sweep.adaptive] 'cell' %g along %s: more than 10^6 cells of the "
                    "finest size on that axis\n",
                    def->adaptive.cell[k], ax->name);
            return -1;
        }
        m.lat.step[k] = 1u << L;
        m.lat.len[k] = (uint32_t)(ax->n - 1) << L;
    }
    eval_ctx e = {def, base, db_path, opts, tally, &m};
    int rc = nsd_map_trace(&m.lat, evaluate, &e);
    if (rc == 0 && m.lat.traced_only && !opts->quiet)
        fprintf(stderr,
                "sweep: adaptive: %zu mixed cells lie in coarse cells whose 4 corners agree: "
                "the boundary crosses a coarse edge more than once there, and was followed "
                "into them from a crossing elsewhere\n",
                m.lat.traced_only);
    if (rc == 0) rc = write_cells(&m, csv_path, n_mixed);
    *runs = m.lat.n_pts * per;
    *uniform = (size_t)(m.lat.len[0] + 1) * (m.lat.len[1] + 1) * per;
    nsd_map_free(&m.lat);
    free(m.n), free(m.hits), free(m.sum);
    for (int a = 0; a < 2; ++a) free(m.val[a]), free(m.idx[a]);
    return rc;
}
