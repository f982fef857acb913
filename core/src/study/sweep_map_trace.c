/* The boundary of a yes/no target on a lattice, followed from the coarse
 * grid's crossings (sweep_map.h). Replaces the quadtree of round 5, which
 * split every mixed cell in 4 (5 new points per split) from the coarse
 * step down: following the boundary evaluates only the corners of the
 * lattice cells it passes through, plus one bisection per coarse edge it
 * crosses, and finds the whole of a piece of the boundary once any coarse
 * edge shows it (a bump through a coarse edge and back, which the
 * quadtree's agreeing corners hid, is followed too). */
#include "sweep_map.h"

#include <stdlib.h>
#include <string.h>

static int cmp_key(const void *a, const void *b) {
    uint64_t x = ((const nsd_map_point *)a)->key, y = ((const nsd_map_point *)b)->key;
    return x < y ? -1 : x > y;
}

const nsd_map_point *nsd_map_find(const nsd_lattice_map *m, uint32_t i, uint32_t j) {
    nsd_map_point key = {.key = (uint64_t)i << 32 | j};
    return m->n_pts ? bsearch(&key, m->pts, m->n_pts, sizeof *m->pts, cmp_key) : NULL;
}

/* The target at (i, j): 1 or 0, -1 when not evaluated (yet). */
static int value(const nsd_lattice_map *m, uint32_t i, uint32_t j) {
    const nsd_map_point *p = nsd_map_find(m, i, j);
    return p && p->known ? p->holds : -1;
}

/* Keys asked for in one round. */
typedef struct keys {
    uint64_t *k;
    size_t n, cap;
} keys;

static void push(keys *r, uint64_t key) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->k = realloc(r->k, r->cap * sizeof *r->k);
        if (!r->k) abort();
    }
    r->k[r->n++] = key;
}

static void want(const nsd_lattice_map *m, keys *r, uint32_t i, uint32_t j) {
    if (!nsd_map_find(m, i, j)) push(r, (uint64_t)i << 32 | j);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Merge the keys asked for (none in m yet) into m's sorted points. */
static void add_points(nsd_lattice_map *m, keys *r) {
    if (r->n) qsort(r->k, r->n, sizeof *r->k, cmp_u64);
    size_t n = 0;
    for (size_t a = 0; a < r->n; ++a)
        if (!n || r->k[n - 1] != r->k[a]) r->k[n++] = r->k[a];
    nsd_map_point *out = malloc((m->n_pts + n) * sizeof *out);
    if (!out) abort();
    size_t a = 0, b = 0, o = 0;
    while (a < m->n_pts || b < n)
        if (b == n || (a < m->n_pts && m->pts[a].key < r->k[b]))
            out[o++] = m->pts[a++];
        else
            out[o++] = (nsd_map_point){.key = r->k[b++]};
    free(m->pts);
    m->pts = out;
    m->n_pts = m->cap_pts = o;
    r->n = 0;
}

/* One bisection step along the coarse edge from (i0, j0) over step[a]
 * lattice cells along axis a, when its ends disagree and no lattice edge
 * on it with disagreeing ends is known yet. */
static void bisect_edge(const nsd_lattice_map *m, int a, uint32_t i0, uint32_t j0, keys *r) {
#define AT(s) (a == 0 ? value(m, i0 + (s), j0) : value(m, i0, j0 + (s)))
    uint32_t len = m->step[a];
    int va = AT(0), vb = AT(len);
    if (va < 0 || vb < 0 || va == vb) return;
    for (uint32_t s = 0; len <= 4096 && s < len; ++s) { /* found, e.g. by the tracing */
        int x = AT(s), y = AT(s + 1);
        if (x >= 0 && y >= 0 && x != y) return;
    }
    uint32_t lo = 0, hi = len;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int v = AT(mid);
        if (v < 0) {
            want(m, r, a == 0 ? i0 + mid : i0, a == 0 ? j0 : j0 + mid);
            return;
        }
        if (v == va)
            lo = mid;
        else
            hi = mid;
    }
#undef AT
}

/* The 4 corners of cell (ci, cj) when it lies in the plane. */
static void want_cell(const nsd_lattice_map *m, keys *r, int64_t ci, int64_t cj) {
    if (ci < 0 || cj < 0 || ci >= m->len[0] || cj >= m->len[1]) return;
    uint32_t i = (uint32_t)ci, j = (uint32_t)cj;
    want(m, r, i, j), want(m, r, i + 1, j), want(m, r, i, j + 1), want(m, r, i + 1, j + 1);
}

/* Calls cell(ctx, i, j) for both cells beside every known lattice edge
 * whose ends disagree (a cell may come twice). */
static void disagreeing_edges(const nsd_lattice_map *m, void (*cell)(void *, int64_t, int64_t),
                              void *ctx) {
    for (size_t p = 0; p < m->n_pts; ++p) {
        if (!m->pts[p].known) continue;
        uint32_t i = (uint32_t)(m->pts[p].key >> 32), j = (uint32_t)m->pts[p].key;
        int h = m->pts[p].holds, v;
        if (i < m->len[0] && (v = value(m, i + 1, j)) >= 0 && v != h)
            cell(ctx, i, (int64_t)j - 1), cell(ctx, i, j);
        if (j < m->len[1] && (v = value(m, i, j + 1)) >= 0 && v != h)
            cell(ctx, (int64_t)i - 1, j), cell(ctx, i, j);
    }
}

typedef struct trace_ctx {
    const nsd_lattice_map *m;
    keys *r;
} trace_ctx;

static void trace_cell(void *ctx, int64_t ci, int64_t cj) {
    trace_ctx *t = ctx;
    want_cell(t->m, t->r, ci, cj);
}

/* The points the next round evaluates: bisection steps and the corners of
 * the cells beside the boundary found so far. */
static void next_points(const nsd_lattice_map *m, keys *r) {
    for (uint32_t j = 0; j <= m->len[1]; j += m->step[1])
        for (uint32_t i = 0; i < m->len[0]; i += m->step[0]) bisect_edge(m, 0, i, j, r);
    for (uint32_t i = 0; i <= m->len[0]; i += m->step[0])
        for (uint32_t j = 0; j < m->len[1]; j += m->step[1]) bisect_edge(m, 1, i, j, r);
    trace_ctx t = {m, r};
    disagreeing_edges(m, trace_cell, &t);
}

int nsd_map_trace(nsd_lattice_map *m, nsd_map_eval_fn eval, void *ctx) {
    keys r = {0};
    for (uint32_t i = 0; i <= m->len[0]; i += m->step[0])
        for (uint32_t j = 0; j <= m->len[1]; j += m->step[1]) want(m, &r, i, j);
    add_points(m, &r);
    int rc = 0;
    for (;;) {
        if ((rc = eval(ctx, m)) != 0) break;
        m->rounds++;
        next_points(m, &r);
        if (!r.n) break;
        add_points(m, &r);
    }
    free(r.k);
    if (rc) return rc;
    uint32_t *cells = NULL;
    size_t n = nsd_map_mixed(m, &cells);
    m->traced_only = 0;
    for (size_t c = 0; c < n; ++c) { /* the coarse cell's corners agree */
        uint32_t i = cells[2 * c] - cells[2 * c] % m->step[0];
        uint32_t j = cells[2 * c + 1] - cells[2 * c + 1] % m->step[1];
        int h = value(m, i, j);
        m->traced_only += h == value(m, i + m->step[0], j) && h == value(m, i, j + m->step[1]) &&
                          h == value(m, i + m->step[0], j + m->step[1]);
    }
    free(cells);
    return 0;
}

static void collect_cell(void *ctx, int64_t ci, int64_t cj) {
    trace_ctx *t = ctx;
    if (ci < 0 || cj < 0 || ci >= t->m->len[0] || cj >= t->m->len[1]) return;
    push(t->r, (uint64_t)ci << 32 | (uint64_t)cj);
}

size_t nsd_map_mixed(const nsd_lattice_map *m, uint32_t **cells) {
    keys r = {0};
    trace_ctx t = {m, &r};
    disagreeing_edges(m, collect_cell, &t);
    if (r.n) qsort(r.k, r.n, sizeof *r.k, cmp_u64); /* none: r.k is NULL */
    size_t n = 0;
    for (size_t a = 0; a < r.n; ++a)
        if (!n || r.k[n - 1] != r.k[a]) r.k[n++] = r.k[a];
    *cells = malloc((n ? n : 1) * 2 * sizeof **cells);
    if (!*cells) abort();
    for (size_t c = 0; c < n; ++c) {
        (*cells)[2 * c] = (uint32_t)(r.k[c] >> 32);
        (*cells)[2 * c + 1] = (uint32_t)r.k[c];
    }
    free(r.k);
    return n;
}

void nsd_map_free(nsd_lattice_map *m) {
    free(m->pts);
    memset(m, 0, sizeof *m);
}
