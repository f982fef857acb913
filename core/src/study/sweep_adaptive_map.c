/* The adaptive two-axis map ([sweep.adaptive] axes = [X, Y], docs/sweep.md):
 * where on the X-Y plane the target (over the runs at one point: the other
 * axes' grid) changes. The coarse grid of the two range axes is cut into
 * cells; a cell whose points disagree on the target (its 4 corners, and
 * any point already evaluated on its edges) is split in 2 along every axis
 * where it is wider than the stated cell size, recursively; a cell whose
 * corners agree is not split. The mixed cells of the finest size are the
 * boundary, written to a CSV (centre and size along each axis).
 *
 * Points live on the lattice of the finest resolution (integers i, j: the
 * value is start + (stop - start) i / N, rounded to 12 significant digits
 * like grid points), so a point is the same double whichever cell asks
 * for it. Each round sets the two axes to every value evaluated so far
 * (the study grows, sweep_grow.c: finished runs are kept, keyed by their
 * values) and marks every run off the evaluated points as not wanted, so
 * only the new corners run; every run is a normal row of the database.
 *
 * Safe when the boundary crosses every edge of a cell at most once (e.g.
 * a curve monotone in both axes): a cell whose 4 corners agree then has
 * no crossing on its edges, so the curve does not enter it. A boundary
 * crossing an edge twice between two agreeing corners is caught only when
 * a neighbour's finer point on that edge disagrees (the cell is then split
 * too and a warning counts these); otherwise it is missed, as on any grid
 * of the coarse step. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

typedef struct point {
    uint64_t key; /* i << 32 | j */
    size_t n, hits;
    double sum;
    int holds;
    int known; /* evaluated (holds is set) */
} point;

typedef struct cell {
    uint32_t i0, j0, wi, wj; /* lattice units */
} cell;

typedef struct map {
    const nsd_sweep_def *def;
    long ax[2];
    uint32_t len[2]; /* lattice points - 1 along each axis */
    point *pts;
    size_t n_pts, cap_pts;
    double *val[2]; /* the evaluated values of each axis, sorted */
    uint32_t *idx[2];
    size_t n_val[2];
    size_t failed;
} map;

static double lattice_value(const nsd_sweep_axis *ax, uint32_t i, uint32_t len) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", ax->start + (ax->stop - ax->start) * ((double)i / len));
    return strtod(buf, NULL);
}

static int cmp_key(const void *a, const void *b) {
    uint64_t x = ((const point *)a)->key, y = ((const point *)b)->key;
    return x < y ? -1 : x > y;
}

static point *find(const map *m, uint32_t i, uint32_t j) {
    point key = {.key = (uint64_t)i << 32 | j};
    return bsearch(&key, m->pts, m->n_pts, sizeof *m->pts, cmp_key);
}

/* The lattice index of an evaluated value of axis k, or -1. */
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

static point *point_of(const map *m, double x, double y) {
    long i = index_of(m, 0, x), j = index_of(m, 1, y);
    return i < 0 || j < 0 ? NULL : find(m, (uint32_t)i, (uint32_t)j);
}

static int skip_run(void *ctx, const nsd_sweep_def *def, uint64_t run) {
    const map *m = ctx;
    double x = NAN, y = NAN;
    nsd_sweep_value(def, run, (size_t)m->ax[0], &x);
    nsd_sweep_value(def, run, (size_t)m->ax[1], &y);
    return point_of(m, x, y) == NULL;
}

static void count_row(void *ctx, const nsd_sweep_row *row) {
    map *m = ctx;
    point *p = point_of(m, row->axis_num[m->ax[0]], row->axis_num[m->ax[1]]);
    if (!p) return;
    const nsd_sweep_adaptive *ad = &m->def->adaptive;
    double s = row->sum_num[ad->summary];
    p->n++;
    if (row->status != NSD_SWEEP_OK || isnan(s)) { /* counted as not reaching the target */
        m->failed++;
        return;
    }
    p->hits += s > ad->above;
    p->sum += s;
}

/* Insert the point (i, j) where the key order puts it, if absent. */
static void add_point(map *m, uint32_t i, uint32_t j) {
    uint64_t key = (uint64_t)i << 32 | j;
    size_t lo = 0, hi = m->n_pts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->pts[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->n_pts && m->pts[lo].key == key) return;
    if (m->n_pts == m->cap_pts) {
        m->cap_pts = m->cap_pts ? 2 * m->cap_pts : 256;
        m->pts = realloc(m->pts, m->cap_pts * sizeof *m->pts);
        if (!m->pts) abort();
    }
    memmove(&m->pts[lo + 1], &m->pts[lo], (m->n_pts - lo) * sizeof *m->pts);
    m->pts[lo] = (point){.key = key};
    m->n_pts++;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Axis k's values: every lattice index some point uses, sorted. */
static void axis_values(nsd_sweep_def *def, map *m, int k) {
    uint32_t *ix = malloc(m->n_pts * sizeof *ix);
    if (!ix) abort();
    for (size_t p = 0; p < m->n_pts; ++p)
        ix[p] = k == 0 ? (uint32_t)(m->pts[p].key >> 32) : (uint32_t)m->pts[p].key;
    qsort(ix, m->n_pts, sizeof *ix, cmp_u32);
    size_t n = 0;
    for (size_t p = 0; p < m->n_pts; ++p)
        if (n == 0 || ix[n - 1] != ix[p]) ix[n++] = ix[p];
    free(m->val[k]);
    free(m->idx[k]);
    m->val[k] = malloc(n * sizeof(double));
    if (!m->val[k]) abort();
    for (size_t v = 0; v < n; ++v)
        m->val[k][v] = lattice_value(&def->axes[m->ax[k]], ix[v], m->len[k]);
    m->idx[k] = ix;
    m->n_val[k] = n;
    nsd_sweep_set_values(def, (size_t)m->ax[k], m->val[k], n);
}

/* Run the points not evaluated yet; every point's target into holds. */
static int evaluate(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                    const nsd_sweep_opts *opts, nsd_sweep_tally *tally, map *m) {
    axis_values(def, m, 0);
    axis_values(def, m, 1);
    for (size_t p = 0; p < m->n_pts; ++p) m->pts[p].n = m->pts[p].hits = 0, m->pts[p].sum = 0;
    m->failed = 0;
    char err[1200] = "";
    nsd_sweep_visit visit = {skip_run, count_row, m};
    int rc = nsd_sweep_adaptive_exec(def, base, db_path, opts, tally, &visit, err, sizeof err);
    size_t per = def->n_runs / (m->n_val[0] * m->n_val[1]); /* the other axes' grid */
    for (size_t p = 0; p < m->n_pts && rc == 0; ++p) {
        point *q = &m->pts[p];
        q->holds = nsd_sweep_target_holds(&def->adaptive, q->n, q->hits, q->sum);
        q->known = 1;
        if (q->n != per) { /* an interrupted round: no answer from it */
            snprintf(err, sizeof err,
                     "[sweep.adaptive]: %zu of the %zu runs at a point of the map are in the "
                     "database (interrupted?); run the same command again to go on",
                     q->n, per);
            rc = -1;
        }
    }
    if (rc == 0 && m->failed && !opts->quiet)
        fprintf(stderr, "sweep: adaptive: %zu failed runs counted as not reaching the target\n",
                m->failed);
    if (rc != 0 && err[0]) fprintf(stderr, "error: %s\n", err);
    return rc;
}

/* Do the cell's points disagree: its corners, or (guard) any evaluated
 * point on its edges? *guard: only the latter. */
static int mixed(const map *m, const cell *c, int *guard) {
    const point *p00 = find(m, c->i0, c->j0);
    int h = p00->holds;
    *guard = 0;
    uint32_t ci[2] = {c->i0, c->i0 + c->wi}, cj[2] = {c->j0, c->j0 + c->wj};
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            if (find(m, ci[a], cj[b])->holds != h) return 1;
    for (size_t p = 0; p < m->n_pts; ++p) {
        uint32_t i = (uint32_t)(m->pts[p].key >> 32), j = (uint32_t)m->pts[p].key;
        if (m->pts[p].known && i >= ci[0] && i <= ci[1] && j >= cj[0] && j <= cj[1] &&
            m->pts[p].holds != h)
            return *guard = 1;
    }
    return 0;
}

/* Split every mixed cell that is wider than the finest size; 1 if any. */
static int refine(map *m, cell **cells, size_t *n_cells, size_t *guarded) {
    size_t n = *n_cells, out = 0, cap = 4 * n;
    cell *next = malloc(cap * sizeof *next), *c = *cells;
    if (!next) abort();
    int split = 0;
    for (size_t k = 0; k < n; ++k) {
        int guard = 0;
        if ((c[k].wi == 1 && c[k].wj == 1) || !mixed(m, &c[k], &guard)) {
            next[out++] = c[k];
            continue;
        }
        *guarded += (size_t)guard;
        split = 1;
        uint32_t hi = c[k].wi > 1 ? c[k].wi / 2 : c[k].wi, hj = c[k].wj > 1 ? c[k].wj / 2 : c[k].wj;
        for (uint32_t a = 0; a < c[k].wi; a += hi)
            for (uint32_t b = 0; b < c[k].wj; b += hj) {
                next[out++] = (cell){c[k].i0 + a, c[k].j0 + b, hi, hj};
                add_point(m, c[k].i0 + a, c[k].j0 + b);
                add_point(m, c[k].i0 + a + hi, c[k].j0 + b);
                add_point(m, c[k].i0 + a, c[k].j0 + b + hj);
                add_point(m, c[k].i0 + a + hi, c[k].j0 + b + hj);
            }
    }
    free(*cells);
    *cells = next;
    *n_cells = out;
    return split;
}

/* Halvings of axis k's coarse step to reach the cell size; -1: too many. */
static int levels(const nsd_sweep_axis *ax, double cell_size) {
    double step = (ax->stop - ax->start) / (double)(ax->n - 1);
    int L = 0;
    while (step / ldexp(1.0, L) > cell_size * (1 + 1e-12) && L < 40) ++L;
    return (double)(ax->n - 1) * ldexp(1.0, L) > 1e6 ? -1 : L;
}

static int write_cells(const map *m, const cell *c, size_t n, const char *path, size_t *n_mixed) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "error: cannot write %s\n", path);
        return -1;
    }
    const nsd_sweep_axis *X = &m->def->axes[m->ax[0]], *Y = &m->def->axes[m->ax[1]];
    fprintf(f, "%s_centre [%s],%s_size [%s],%s_centre [%s],%s_size [%s]\n", X->name, X->unit,
            X->name, X->unit, Y->name, Y->unit, Y->name, Y->unit);
    *n_mixed = 0;
    for (size_t k = 0; k < n; ++k) {
        int guard = 0;
        if (c[k].wi != 1 || c[k].wj != 1 || !mixed(m, &c[k], &guard)) continue;
        double x0 = lattice_value(X, c[k].i0, m->len[0]),
               x1 = lattice_value(X, c[k].i0 + 1, m->len[0]);
        double y0 = lattice_value(Y, c[k].j0, m->len[1]),
               y1 = lattice_value(Y, c[k].j0 + 1, m->len[1]);
        fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", 0.5 * (x0 + x1), x1 - x0, 0.5 * (y0 + y1), y1 - y0);
        ++*n_mixed;
    }
    return fclose(f) == 0 ? 0 : -1;
}

int nsd_sweep_adaptive_map(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                           const nsd_sweep_opts *opts, nsd_sweep_tally *tally, const char *csv_path,
                           size_t *n_mixed, size_t *runs, size_t *uniform) {
    map m = {.def = def, .ax = {def->adaptive.axis, def->adaptive.axis2}};
    size_t per = def->n_runs / (def->axes[m.ax[0]].n * def->axes[m.ax[1]].n);
    int L[2];
    for (int k = 0; k < 2; ++k) {
        const nsd_sweep_axis *ax = &def->axes[m.ax[k]];
        if ((L[k] = levels(ax, def->adaptive.cell[k])) < 0) {
            fprintf(stderr,
                    "error: [sweep.adaptive] 'cell' %g along %s: more than 10^6 cells of the "
                    "finest size on that axis\n",
                    def->adaptive.cell[k], ax->name);
            return -1;
        }
        m.len[k] = (uint32_t)(ax->n - 1) << L[k];
    }
    size_t n_cells = (def->axes[m.ax[0]].n - 1) * (def->axes[m.ax[1]].n - 1), guarded = 0;
    cell *cells = malloc(n_cells * sizeof *cells);
    if (!cells) abort();
    size_t k = 0;
    for (uint32_t a = 0; a < m.len[0]; a += 1u << L[0])
        for (uint32_t b = 0; b < m.len[1]; b += 1u << L[1]) {
            cells[k++] = (cell){a, b, 1u << L[0], 1u << L[1]};
            add_point(&m, a, b), add_point(&m, a + (1u << L[0]), b);
            add_point(&m, a, b + (1u << L[1])), add_point(&m, a + (1u << L[0]), b + (1u << L[1]));
        }
    int rc = 0;
    do rc = evaluate(def, base, db_path, opts, tally, &m);
    while (rc == 0 && refine(&m, &cells, &n_cells, &guarded));
    if (rc == 0 && guarded && !opts->quiet)
        fprintf(stderr,
                "warning: [sweep.adaptive] %zu cells were split only because a neighbour's point "
                "on their edge disagrees: the boundary crosses a cell edge more than once "
                "there, and may be missed where no neighbour shows it\n",
                guarded);
    if (rc == 0) rc = write_cells(&m, cells, n_cells, csv_path, n_mixed);
    *runs = m.n_pts * per;
    *uniform = (size_t)(m.len[0] + 1) * (m.len[1] + 1) * per;
    free(cells);
    free(m.pts);
    for (int a = 0; a < 2; ++a) free(m.val[a]), free(m.idx[a]);
    return rc;
}
