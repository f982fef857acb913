/* nsdyn plotting module: a panel's frame with its tick marks, and its grid, each side as one
 * polyline (issue 26, round 7).
 *
 * plbox draws every piece of the frame as a segment of its own (an edge up to a tick, the
 * tick, back: src/plbox.c, plxtik/plytik), and a driver writes each segment as an element:
 * 98 two-point <polyline>s of PLplot's svg driver for one panel's frame, most of a short
 * run's SVG and of the driver's formatting. Here each side is one zig-zag along its edge
 * (out to a tick and back onto the edge, which the side draws anyway), and the grid one
 * zig-zag per direction whose connecting runs lie on the frame's edges, under the frame
 * drawn after it. plbox still writes the tick labels ("nt" without "b"/"c" writes labels at
 * the major ticks and no line), so labels and ticks come from the same positions: these
 * follow c_plaxes (majors at the multiples of the step inside the window, minors at
 * step/nsub between them, or at log10 2..9 of each decade on a PLplot log axis). */
#include <math.h>
#include <stdlib.h>

#include "plot_internal.h"

enum { MAX_TICKS = 400 }; /* per axis; more (an absurd window) falls back to plbox */

typedef struct tick {
    double at; /* transformed coordinate */
    int major;
} tick;

/* The ticks of axis a inside its window, in increasing order; their number, or -1 when
 * there are more than MAX_TICKS. */
static int axis_ticks(const axis_info *a, tick *t) {
    static const double xlog[8] = {0.301030, 0.477121, 0.602060, 0.698970,
                                   0.778151, 0.845098, 0.903090, 0.954243};
    int pl_log = uses_pl_log(a);
    double step = pl_log ? 1.0 : a->step, lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
    /* plwind widens the window it keeps by 1e-5 of its span on each side (src/plwind.c), and
       c_plaxes places ticks and labels in that window: a tick a hair outside the window
       still gets its label, so it gets its tick here too */
    double widen = 1e-5 * (hi - lo);
    lo -= widen;
    hi += widen;
    int nsub = a->nsub;
    if (!(step > 0.0) || !isfinite(lo) || !isfinite(hi) || (hi - lo) / step > MAX_TICKS) return -1;
    int n = 0;
    double tp = step * floor(lo / step);
    for (;;) { /* c_plaxes: the bottom edge's loop */
        double tn = tp + step;
        int nm = pl_log ? 8 : nsub - 1;
        for (int i = 0; i < nm; ++i) {
            double v = pl_log ? tp + xlog[i] : tp + (i + 1) * step / nsub;
            if (v >= lo && v <= hi) {
                if (n == MAX_TICKS) return -1;
                t[n++] = (tick){v, 0};
            }
        }
        if (!(tn >= lo && tn <= hi)) break;
        if (n == MAX_TICKS) return -1;
        t[n++] = (tick){tn, 1};
        tp = tn;
    }
    return n;
}

/* One side of the frame from (x0, y0) to (x1, y1) (world coordinates, along x when
 * `along_x`), with the ticks t pointing in by (dx, dy) per major tick (minor: 0.3 / 0.55 of
 * it, plsmin against plsmaj). */
static void side(double x0, double y0, double x1, double y1, int along_x, const tick *t, int n,
                 double dx, double dy, PLFLT *px, PLFLT *py) {
    int k = 0;
    px[k] = x0, py[k++] = y0;
    int rev = along_x ? x1 < x0 : y1 < y0;
    for (int j = 0; j < n; ++j) {
        const tick *q = &t[rev ? n - 1 - j : j];
        double f = q->major ? 1.0 : 0.3 / 0.55;
        double bx = along_x ? q->at : x0, by = along_x ? y0 : q->at;
        px[k] = bx, py[k++] = by;
        px[k] = bx + f * dx, py[k++] = by + f * dy;
        px[k] = bx, py[k++] = by;
    }
    px[k] = x1, py[k++] = y1;
    plline(k, px, py);
}

int draw_frame_lines(const panel_layout *pl, const metrics *m, int ticks_x, int ticks_y) {
    tick *tx = malloc(2 * MAX_TICKS * sizeof *tx), *ty = tx + MAX_TICKS;
    PLFLT *px = malloc(2 * (3 * MAX_TICKS + 2) * sizeof *px), *py = px + 3 * MAX_TICKS + 2;
    int nx = tx && px && ticks_x ? axis_ticks(&pl->ax, tx) : 0;
    int ny = tx && px && ticks_y ? axis_ticks(&pl->ay, ty) : 0;
    int rc = !tx || !px || nx < 0 || ny < 0 ? -1 : 0;
    if (rc == 0) {
        double x0 = pl->ax.lo, x1 = pl->ax.hi, y0 = pl->ay.lo, y1 = pl->ay.hi;
        double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm;
        double vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
        double maj = 0.55 * m->ch; /* plsmaj in draw_background [mm] */
        double hx = maj * (x1 - x0) / vw_mm, hy = maj * (y1 - y0) / vh_mm; /* world units */
        side(x0, y0, x1, y0, 1, tx, nx, 0.0, hy, px, py);                  /* bottom, ticks up */
        side(x1, y0, x1, y1, 0, ty, ny, -hx, 0.0, px, py);                 /* right, ticks left */
        side(x1, y1, x0, y1, 1, tx, nx, 0.0, -hy, px, py);                 /* top, ticks down */
        side(x0, y1, x0, y0, 0, ty, ny, hx, 0.0, px, py);                  /* left, ticks right */
    }
    free(tx);
    free(px);
    return rc;
}

int draw_grid_lines(const panel_layout *pl, int grid_x, int grid_y) {
    tick *t = malloc(MAX_TICKS * sizeof *t);
    PLFLT *px = malloc(4 * MAX_TICKS * sizeof *px), *py = px + 2 * MAX_TICKS;
    int rc = t && px ? 0 : -1;
    for (int dir = 0; dir < 2 && rc == 0; ++dir) {
        const axis_info *a = dir ? &pl->ay : &pl->ax, *o = dir ? &pl->ax : &pl->ay;
        if (!(dir ? grid_y : grid_x)) continue;
        int n = axis_ticks(a, t), k = 0;
        if (n < 0) rc = -1;
        for (int j = 0, up = 1; j < n; ++j) {
            if (!t[j].major) continue;
            double e0 = up ? o->lo : o->hi, e1 = up ? o->hi : o->lo; /* alternate: a zig-zag */
            px[k] = dir ? e0 : t[j].at, py[k++] = dir ? t[j].at : e0;
            px[k] = dir ? e1 : t[j].at, py[k++] = dir ? t[j].at : e1;
            up = !up;
        }
        if (k >= 2) plline(k, px, py);
    }
    free(t);
    free(px);
    return rc;
}
