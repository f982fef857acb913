/* nsdyn plotting module: clipping. Lines are clipped (Liang-Barsky) and polygons
 * (Sutherland-Hodgman) against a box a little larger than the window before they reach
 * PLplot (polygons in plot_canvas.c, by nsn_clip_halfplane), whose integer device coordinates
 * cannot take absurd values; polylines drop points closer than a fraction of a pixel to
 * the last one drawn. */
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

/* Polyline builder that emits pieces to PLplot. */
typedef struct polyline {
    PLFLT *x, *y;
    size_t n, cap;
    double tol_x, tol_y;
    int pending; /* a skipped point that must end the piece */
    double px, py;
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
}

static void pl_flush(polyline *pl) {
    if (pl->pending) {
        pl_append(pl, pl->px, pl->py);
        pl->pending = 0;
    }
    if (pl->n >= 2) plline((PLINT)pl->n, pl->x, pl->y);
    pl->n = 0;
}

static void pl_push(polyline *pl, double x, double y) {
    if (pl->n > 0 && fabs(x - pl->x[pl->n - 1]) < pl->tol_x &&
        fabs(y - pl->y[pl->n - 1]) < pl->tol_y) {
        pl->pending = 1; /* too close to the last point drawn */
        pl->px = x;
        pl->py = y;
        return;
    }
    pl->pending = 0;
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
