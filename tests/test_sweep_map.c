/* The two-axis map's search (core/src/study/sweep_map_trace.c, issue 25
 * item 4) on synthetic yes/no maps with a known boundary: no simulation,
 * the target is a closed form evaluated at the lattice points. For each
 * random map the uniform grid (every lattice point) gives the mixed cells
 * (4 corners disagree); they are grouped into pieces of boundary (cells
 * sharing a lattice edge whose ends disagree). Checked:
 *  - the search never evaluates a point twice, asks only for lattice
 *    points, and every mixed cell it reports is mixed on the uniform grid
 *    (its corners were evaluated, never inferred);
 *  - a piece of boundary is found whole or not at all (it is followed);
 *  - every mixed cell is found for the maps whose every piece crosses a
 *    coarse edge an odd number of times: a monotone curve, a wiggly graph
 *    y = f(x) inside the plane (wiggles far finer than the coarse step,
 *    which a quadtree's agreeing corners hide), disks of radius at least
 *    one coarse step;
 *  - a thin band (narrower than the coarse step) is found whole where it
 *    is found at all;
 *  - and the points evaluated are a fraction of the uniform grid's. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep_map.h"
#include "test_util.h"

enum { MONOTONE, WIGGLY, DISK, DISKS, BAND, N_KINDS };
static const char *const kind_name[] = {"monotone curve", "wiggly graph", "ellipse",
                                        "union of disks", "thin band"};

typedef struct synth {
    int kind;
    double a[8], b[8], c[8]; /* the map's random parameters */
    int n;
    uint32_t len[2];
    unsigned char *seen; /* evaluations per lattice point */
    size_t evaluated;
    int twice;
} synth;

static double uniform(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (rand_r(seed) / (RAND_MAX + 1.0));
}

/* The graph of MONOTONE, WIGGLY and BAND at x in [0, 1]. */
static double graph(const synth *s, double x) {
    double y = s->a[0];
    for (int k = 1; k < s->n; ++k)
        y += s->kind == MONOTONE ? s->a[k] * tanh((x - s->b[k]) * s->c[k])
                                 : s->a[k] * sin(s->c[k] * x + s->b[k]);
    return y;
}

/* The target at the point (x, y) of the unit square. */
static int holds(const synth *s, double x, double y) {
    switch (s->kind) {
        case DISK:
        case DISKS:
            for (int k = 0; k < s->n; ++k) {
                double dx = (x - s->a[k]) / s->c[k], dy = (y - s->b[k]) / s->c[k + 4];
                if (dx * dx + dy * dy < 1.0) return 1;
            }
            return 0;
        case BAND: return fabs(y - graph(s, x)) < s->c[0];
        default: return y > graph(s, x);
    }
}

static int target_at(const synth *s, uint32_t i, uint32_t j) {
    return holds(s, (double)i / s->len[0], (double)j / s->len[1]);
}

static int eval(void *ctx, nsd_lattice_map *m) {
    synth *s = ctx;
    for (size_t p = 0; p < m->n_pts; ++p) {
        nsd_map_point *q = &m->pts[p];
        if (q->known) continue;
        uint32_t i = (uint32_t)(q->key >> 32), j = (uint32_t)q->key;
        ck_assert_msg(i <= s->len[0] && j <= s->len[1], "point (%u, %u) off the lattice", i, j);
        size_t at_ij = (size_t)i * (s->len[1] + 1) + j;
        s->twice |= s->seen[at_ij]++ > 0;
        s->evaluated++;
        q->holds = target_at(s, i, j);
        q->known = 1;
    }
    return 0;
}

/* A random map of the kind; coarse step lengths sx, sy in the unit square. */
static void random_map(synth *s, int kind, unsigned *seed, double sx, double sy) {
    s->kind = kind;
    s->n = kind == DISK ? 1 : kind == DISKS ? 2 + rand_r(seed) % 2 : 2 + rand_r(seed) % 5;
    if (kind == DISK || kind == DISKS) {
        /* radius >= 1.05 coarse steps along each axis, the centre inside:
         * the coarse line nearest the centre cuts a chord longer than a
         * coarse step, so its ends lie on two coarse edges */
        for (int k = 0; k < s->n; ++k) {
            s->a[k] = uniform(seed, 0.0, 1.0), s->b[k] = uniform(seed, 0.0, 1.0);
            s->c[k] = uniform(seed, 1.05, 3.0) * sx, s->c[k + 4] = uniform(seed, 1.05, 3.0) * sy;
        }
        return;
    }
    s->a[0] = uniform(seed, 0.35, 0.65);
    double room = 0.25 / (s->n - 1); /* keeps the graph inside (0.1, 0.9) */
    int sign = rand_r(seed) % 2 ? 1 : -1;
    for (int k = 1; k < s->n; ++k) {
        s->a[k] = kind == MONOTONE ? sign * uniform(seed, 0.0, room) : uniform(seed, -room, room);
        s->b[k] = kind == MONOTONE ? uniform(seed, 0.0, 1.0) : uniform(seed, 0.0, 6.3);
        /* WIGGLY, BAND: up to ~3 periods per coarse step */
        s->c[k] = kind == MONOTONE ? uniform(seed, 1.0, 30.0) : uniform(seed, 1.0, 19.0 / sx);
    }
    if (kind == BAND) s->c[0] = uniform(seed, 1.5, 3.0) * (sy / 8.0); /* ~ lattice cells */
}

/* Union-find over cells. */
static size_t root(size_t *up, size_t a) {
    while (up[a] != a) a = up[a] = up[up[a]];
    return a;
}

START_TEST(boundary_followed_on_synthetic_maps) {
    const char *env = getenv("NSDYN_TEST_SEED"); /* to replay a failure */
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
    fprintf(stderr, "test_sweep_map: seed %u (NSDYN_TEST_SEED replays it)\n", seed);
    size_t found_all[N_KINDS] = {0}, maps[N_KINDS] = {0}, pts[N_KINDS] = {0}, grid[N_KINDS] = {0};
    for (int trial = 0; trial < 200; ++trial) {
        int kind = trial % N_KINDS;
        synth s = {0};
        uint32_t coarse[2] = {1 + rand_r(&seed) % 6u, 1 + rand_r(&seed) % 6u};
        uint32_t L[2] = {1 + rand_r(&seed) % 5u, 1 + rand_r(&seed) % 5u};
        nsd_lattice_map m = {0};
        for (int k = 0; k < 2; ++k) {
            m.step[k] = 1u << L[k];
            s.len[k] = m.len[k] = coarse[k] * m.step[k];
        }
        random_map(&s, kind, &seed, 1.0 / coarse[0], 1.0 / coarse[1]);
        size_t n_lat = (size_t)(s.len[0] + 1) * (s.len[1] + 1);
        s.seen = calloc(n_lat, 1);
        ck_assert_int_eq(nsd_map_trace(&m, eval, &s), 0);
        ck_assert_msg(!s.twice, "a point evaluated twice");
        uint32_t *cells = NULL;
        size_t n_found = nsd_map_mixed(&m, &cells);
        /* the uniform grid: mixed cells, and their pieces */
        size_t nc = (size_t)s.len[0] * s.len[1];
        unsigned char *mixed = calloc(nc, 1), *found = calloc(nc, 1);
        size_t *up = malloc(nc * sizeof *up);
        for (size_t c = 0; c < nc; ++c) up[c] = c;
        for (uint32_t i = 0; i < s.len[0]; ++i)
            for (uint32_t j = 0; j < s.len[1]; ++j) {
                int h = target_at(&s, i, j);
                mixed[i * s.len[1] + j] = target_at(&s, i + 1, j) != h ||
                                          target_at(&s, i, j + 1) != h ||
                                          target_at(&s, i + 1, j + 1) != h;
            }
        for (uint32_t i = 0; i < s.len[0]; ++i) /* join across disagreeing edges */
            for (uint32_t j = 0; j < s.len[1]; ++j) {
                size_t c = i * s.len[1] + j;
                if (i + 1 < s.len[0] && target_at(&s, i + 1, j) != target_at(&s, i + 1, j + 1))
                    up[root(up, c)] = root(up, c + s.len[1]);
                if (j + 1 < s.len[1] && target_at(&s, i, j + 1) != target_at(&s, i + 1, j + 1))
                    up[root(up, c)] = root(up, c + 1);
            }
        for (size_t k = 0; k < n_found; ++k) {
            size_t c = (size_t)cells[2 * k] * s.len[1] + cells[2 * k + 1];
            ck_assert_msg(mixed[c], "%s: cell (%u, %u) reported mixed, not on the grid",
                          kind_name[kind], cells[2 * k], cells[2 * k + 1]);
            found[c] = 1;
        }
        size_t n_mixed = 0, missed = 0;
        size_t *in_piece = calloc(nc, sizeof *in_piece), *found_in = calloc(nc, sizeof *found_in);
        for (size_t c = 0; c < nc; ++c)
            if (mixed[c]) {
                n_mixed++, missed += !found[c];
                in_piece[root(up, c)]++, found_in[root(up, c)] += found[c];
            }
        for (size_t c = 0; c < nc; ++c) /* whole pieces only */
            ck_assert_msg(!found_in[c] || found_in[c] == in_piece[c],
                          "%s (trial %d): a piece of the boundary found in part only (%zu of "
                          "%zu cells)",
                          kind_name[kind], trial, found_in[c], in_piece[c]);
        free(in_piece), free(found_in);
        if (kind != BAND && kind != DISKS)
            ck_assert_msg(!missed,
                          "%s (trial %d, coarse %ux%u, lattice %ux%u): %zu of %zu "
                          "mixed cells missed",
                          kind_name[kind], trial, coarse[0], coarse[1], s.len[0], s.len[1], missed,
                          n_mixed);
        maps[kind]++;
        found_all[kind] += !missed;
        pts[kind] += s.evaluated;
        grid[kind] += n_lat;
        free(cells), free(mixed), free(found), free(up), free(s.seen);
        nsd_map_free(&m);
    }
    for (int k = 0; k < N_KINDS; ++k)
        fprintf(stderr,
                "  %-15s %3zu maps, every mixed cell found in %3zu; points %zu of %zu "
                "(%.1f %%)\n",
                kind_name[k], maps[k], found_all[k], pts[k], grid[k],
                100.0 * (double)pts[k] / (double)grid[k]);
    ck_assert_msg(pts[MONOTONE] < grid[MONOTONE] / 3, "monotone: %zu points of %zu", pts[MONOTONE],
                  grid[MONOTONE]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sweep_map");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, boundary_followed_on_synthetic_maps);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
