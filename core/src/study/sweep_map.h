/* Where on a lattice of the plane a yes/no target changes, found by
 * following its boundary (sweep_map_trace.c; the two-axis adaptive map of
 * docs/sweep.md, sweep_adaptive_map.c, runs the points). No simulation
 * here: the caller evaluates the points the search asks for, so the search
 * is tested on synthetic maps (tests/test_sweep_map.c).
 *
 * The lattice has len[0] x len[1] cells (points (i, j), 0 <= i <= len[0],
 * 0 <= j <= len[1]); every step[k] lattice cells along axis k make one
 * step of the coarse grid (len[k] a multiple of step[k]). A cell is mixed
 * when its 4 corners disagree: the uniform grid's boundary. */
#ifndef NSD_SWEEP_MAP_H
#define NSD_SWEEP_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct nsd_map_point {
    uint64_t key; /* i << 32 | j */
    int holds;    /* the target at the point (when known) */
    int known;    /* evaluated */
} nsd_map_point;

typedef struct nsd_lattice_map {
    uint32_t len[2], step[2];
    nsd_map_point *pts; /* sorted by key: every point asked for */
    size_t n_pts, cap_pts;
    size_t rounds;      /* calls of the evaluator */
    size_t traced_only; /* mixed cells in coarse cells whose 4 corners agree */
} nsd_lattice_map;

/* Evaluate every point of m->pts that is not known: set holds and known.
 * 0, or -1 to stop the search (the caller says why). */
typedef int (*nsd_map_eval_fn)(void *ctx, nsd_lattice_map *m);

/* The search: the coarse grid's points; then, round by round, one
 * bisection step along every coarse edge whose ends disagree and whose
 * crossing is not found yet (down to a lattice edge whose ends disagree),
 * and the 4 corners of every lattice cell next to a lattice edge whose
 * ends disagree, until no point is missing. So the boundary is followed
 * from every crossing of a coarse edge through every lattice cell it
 * passes: each mixed cell of the uniform grid on a piece of the boundary
 * that crosses some coarse edge an odd number of times is found, with all
 * 4 corners evaluated, never inferred. A piece that crosses every coarse
 * edge it meets an even number of times (a closed curve inside one coarse
 * cell) is missed, as by a grid of the coarse step. m->len and m->step
 * set, the rest zero. Returns 0 or the evaluator's -1. */
int nsd_map_trace(nsd_lattice_map *m, nsd_map_eval_fn eval, void *ctx);

/* The point (i, j), or NULL when it was never asked for. */
const nsd_map_point *nsd_map_find(const nsd_lattice_map *m, uint32_t i, uint32_t j);

/* The mixed cells (i, j: the lower corner) in key order into *cells (2
 * per cell, malloc'd, to free); returns their count. Every one has its 4
 * corners evaluated. */
size_t nsd_map_mixed(const nsd_lattice_map *m, uint32_t **cells);

void nsd_map_free(nsd_lattice_map *m);

#endif
