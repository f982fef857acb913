/* nsdyn plotting module: clipping. Lines are clipped (Liang-Barsky) and polygons
 * (Sutherland-Hodgman) against a box a little larger than the window before they reach
 * PLplot (polygons in plot_canvas.c, by nsn_clip_halfplane), whose integer device coordinates
 * cannot take absurd values; polylines drop the points that lie within a fraction of a pixel
 * of the line drawn (below). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

/* Liang-Barsky: visible parameter interval [t0, t1] of p->q inside b. */
static int clip_segment(const box *b, double px, double py, double qx, double qy, double *t0,
                        double *t1) {
    double dx = qx - px, dy = qy - py;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {px - b->x0, b->x1 - px, py - b->y0, b->y1 - py};
    double a = 0.0, c = 1.0;
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return 0;
        } else {
            double r = q[i] / p[i];
            if (!isfinite(r)) {
                if (q[i] < 0.0) return 0;
                continue;
            }
            if (p[i] < 0.0) {
                if (r > c) return 0;
                if (r > a) a = r;
            } else {
                if (r < a) return 0;
                if (r < c) c = r;
            }
        }
    }
    *t0 = a;
    *t1 = c;
    return 1;
}

/* Polyline builder that emits pieces to PLplot, dropping every point that lies within the
 * tolerance of the line drawn instead (issue 26: a run's 2 000 samples of a smooth curve
 * become a few dozen vertices, so the svg driver prints a fraction of the numbers and cairo
 * strokes a fraction of the segments, with no visible change).
 *
 * The test is the sleeve of Zhao and Saalfeld (1997, "Linear-time sleeve-fitting polyline
 * simplification algorithms"), in coordinates scaled by the tolerance (tol_x, tol_y: one
 * unit is the tolerance on either axis, the same fraction of a pixel): from the last vertex
 * drawn A, a point Q at distance d > 1 lies within 1 of every segment from A whose direction
 * is within asin(1/d) of A->Q and whose length is at least d. The directions every skipped
 * point allows are kept as one wedge, from the unit vector lo to hi counter-clockwise (less
 * than half a turn: no trigonometry, only cross products); a new point P is skipped when
 * its direction lies in it and it is no nearer A than the farthest skipped point (a curve
 * that turns back is not cut short), and the wedge shrinks to what P allows. Otherwise the
 * last skipped point is drawn and becomes A. Points within 1 of A need no direction. So
 * every point of the input lies within the tolerance of the line drawn, and every vertex
 * drawn is a point of the input (or of its clipping). */
typedef struct polyline {
    PLFLT *x, *y;
    size_t n, cap;
    double tol_x, tol_y; /* > 0: the tolerance; otherwise every point is drawn */
    int pending;         /* a skipped point that must end the piece */
    double px, py;
    int cone;                  /* 0: no direction constrained yet */
    double lox, loy, hix, hiy; /* the wedge of allowed directions: unit vectors */
    double reach;              /* the farthest skipped point from A [tolerances] */
} polyline;

static void pl_append(polyline *pl, double x, double y) {
    if (pl->n == pl->cap) {
        /* buffer full: draw it and continue from its last point */
        plline((PLINT)pl->n, pl->x, pl->y);
        pl->x[0] = pl->x[pl->n - 1];
        pl->y[0] = pl->y[pl->n - 1];
        pl->n = 1;
    }
    pl->x[pl->n] = x;
    pl->y[pl->n] = y;
    pl->n++;
    pl->cone = 0; /* a new vertex A: nothing skipped since */
    pl->reach = 0.0;
}

static void pl_flush(polyline *pl) {
    if (pl->pending) {
        pl_append(pl, pl->px, pl->py);
        pl->pending = 0;
    }
    if (pl->n >= 2) plline((PLINT)pl->n, pl->x, pl->y);
    pl->n = 0;
}

/* 1 if (x, y) may be skipped: within the tolerance of any segment the wedge still allows
 * (see above); the wedge is then narrowed to what it allows. */
static int pl_skippable(polyline *pl, double x, double y) {
    if (!(pl->tol_x > 0.0 && pl->tol_y > 0.0)) return 0;
    double u = (x - pl->x[pl->n - 1]) / pl->tol_x, v = (y - pl->y[pl->n - 1]) / pl->tol_y;
    double d = sqrt(u * u + v * v);
    if (!isfinite(d)) return 0;
    if (d <= 1.0) return 1; /* within the tolerance of A itself */
    if (d < pl->reach) return 0;
    if (pl->cone && (pl->lox * v - pl->loy * u < 0.0 || u * pl->hiy - v * pl->hix < 0.0))
        return 0; /* right of lo or left of hi: outside the wedge */
    /* the directions P allows: its own turned by -a and +a, sin a = 1/d */
    double cx = u / d, cy = v / d, sa = 1.0 / d, ca = sqrt(1.0 - sa * sa);
    double lx = cx * ca + cy * sa, ly = cy * ca - cx * sa;
    double hx = cx * ca - cy * sa, hy = cy * ca + cx * sa;
    if (!pl->cone || pl->lox * ly - pl->loy * lx > 0.0) pl->lox = lx, pl->loy = ly;
    if (!pl->cone || hx * pl->hiy - hy * pl->hix > 0.0) pl->hix = hx, pl->hiy = hy;
    pl->cone = 1;
    pl->reach = d;
    return 1;
}

static void pl_push(polyline *pl, double x, double y) {
    if (pl->n > 0 && pl_skippable(pl, x, y)) { /* pl_skippable changes nothing when it says 0 */
        pl->pending = 1;
        pl->px = x;
        pl->py = y;
        return;
    }
    if (pl->pending) { /* the last skipped point is drawn: the new A, and (x, y) is tried from it */
        pl_append(pl, pl->px, pl->py);
        pl->pending = 0;
        if (pl_skippable(pl, x, y)) {
            pl->pending = 1;
            pl->px = x;
            pl->py = y;
            return;
        }
    }
    pl_append(pl, x, y);
}

/* Draw the polyline (xs, ys) in transformed coordinates; non-finite points
 * split it. Returns 0, or -1 if memory ran out. */
int draw_polyline(const box *clip, size_t n, const double *xs, const double *ys) {
    if (n < 2) return 0;
    enum { CHUNK = 4096 };
    polyline pl;
    memset(&pl, 0, sizeof pl);
    pl.cap = n < CHUNK ? n + 1 : CHUNK;
    pl.tol_x = clip->tol_x;
    pl.tol_y = clip->tol_y;
    pl.x = malloc(pl.cap * sizeof *pl.x);
    pl.y = malloc(pl.cap * sizeof *pl.y);
    if (!pl.x || !pl.y) {
        free(pl.x);
        free(pl.y);
        return -1;
    }
    for (size_t i = 1; i < n; ++i) {
        double px = xs[i - 1], py = ys[i - 1], qx = xs[i], qy = ys[i];
        if (!isfinite(px) || !isfinite(py) || !isfinite(qx) || !isfinite(qy)) {
            pl_flush(&pl);
            continue;
        }
        double t0, t1;
        if (!clip_segment(clip, px, py, qx, qy, &t0, &t1)) {
            pl_flush(&pl);
            continue;
        }
        double ax = px + t0 * (qx - px), ay = py + t0 * (qy - py);
        double bx = px + t1 * (qx - px), by = py + t1 * (qy - py);
        if (t0 == 0.0) {
            ax = px;
            ay = py;
        }
        if (t1 == 1.0) {
            bx = qx;
            by = qy;
        }
        /* cancellation with huge coordinates can push clipped points out */
        ax = clampd(ax, clip->x0, clip->x1);
        ay = clampd(ay, clip->y0, clip->y1);
        bx = clampd(bx, clip->x0, clip->x1);
        by = clampd(by, clip->y0, clip->y1);
        if (pl.n == 0 || t0 > 0.0) {
            pl_flush(&pl);
            pl_push(&pl, ax, ay);
        }
        pl_push(&pl, bx, by);
        if (t1 < 1.0) pl_flush(&pl);
    }
    pl_flush(&pl);
    free(pl.x);
    free(pl.y);
    return 0;
}
