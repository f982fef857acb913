/* nsdyn plotting module: curves. Palette colours (explicit or the next free one), line
 * widths and dash patterns, marker dots, and drawing a curve of a panel. */
#include <math.h>
#include <stdlib.h>

#include "plot_internal.h"

double curve_width(const nsd_curve *c) {
    double w = c->width;
    if (!isfinite(w) || w <= 0.0) w = 1.5;
    return clampd(w, 0.1, 20.0);
}

void use_color(int col, double opacity) {
    if (!(opacity > 0.0 && opacity < 1.0)) {
        plcol0(col);
        return;
    }
    PLINT r, g, b;
    plgcol0(col, &r, &g, &b);
    /* blended with the white background: what a translucent stroke shows on white, without
       overlaps of one stroke darkening it */
    plscol0(COL_SCRATCH, (PLINT)lround(255.0 - opacity * (255.0 - r)),
            (PLINT)lround(255.0 - opacity * (255.0 - g)),
            (PLINT)lround(255.0 - opacity * (255.0 - b)));
    plcol0(COL_SCRATCH);
}

/* Dash pattern for `dashed` at PLplot width `w`: 1 dashed, 2 dotted, 3 dash-dot. */
static void set_dashes(const metrics *m, int dashed, double w) {
    if (dashed == 3) {
        double px_um = m->mm_per_px * 1000.0;
        PLINT mk[2] = {(PLINT)clampd(fmax(7.0 * m->s, 4.0 * w) * px_um, 1.0, 1e6),
                       (PLINT)clampd(fmax(1.2 * m->s, 1.0 * w) * px_um, 1.0, 1e6)};
        PLINT sp[2] = {(PLINT)clampd(fmax(3.0 * m->s, 2.0 * w) * px_um, 1.0, 1e6),
                       (PLINT)clampd(fmax(3.0 * m->s, 2.0 * w) * px_um, 1.0, 1e6)};
        plstyl(2, mk, sp);
    } else if (dashed == 1 || dashed == 2) {
        double px_um = m->mm_per_px * 1000.0; /* micrometres per pixel */
        double mark, space;
        if (dashed == 1) {
            mark = fmax(7.0 * m->s, 4.0 * w) * px_um;
            space = fmax(4.0 * m->s, 2.5 * w) * px_um;
        } else {
            mark = fmax(1.2 * m->s, 1.0 * w) * px_um;
            space = fmax(2.8 * m->s, 2.0 * w) * px_um;
        }
        PLINT mk = (PLINT)clampd(mark, 1.0, 1e6), sp = (PLINT)clampd(space, 1.0, 1e6);
        plstyl(1, &mk, &sp);
    } else {
        pllsty(1);
    }
}

/* Radius of a marker dot [mm] for a curve of nominal width wnom. */
double marker_radius_mm(const metrics *m, double wnom) {
    return (2.2 + 0.6 * wnom) * m->s * m->mm_per_px;
}

/* Filled dot of radius r_mm centred at (x, y) in the current world coordinates,
 * which map `wpm_x`, `wpm_y` world units per mm. A driver without arcs of its own (svg)
 * got PLplot's approximation, a polygon of some 250 vertices for a dot of 1.5 pt: an
 * events figure's dots were 9 600 of its numbers. There the polygon has the fewest vertices
 * that keep it within 0.01 pt of the circle (the tolerance of curves, plot_clip.c): 28 for
 * 1.5 pt. */
void marker_dot(double x, double y, double r_mm, double wpm_x, double wpm_y) {
    if (driver_draws_arcs()) {
        plarc(x, y, r_mm * wpm_x, r_mm * wpm_y, 0.0, 360.0, 0.0, 1);
        return;
    }
    enum { MAX_SIDES = 256 };
    const double tol_mm = 0.01 * 25.4 / 72.0, pi = 3.14159265358979323846;
    double half = r_mm > tol_mm ? acos(1.0 - tol_mm / r_mm) : pi / 4.0; /* half a side's arc */
    int n = (int)clampd(ceil(pi / half), 8.0, MAX_SIDES);
    PLFLT px[MAX_SIDES], py[MAX_SIDES];
    for (int k = 0; k < n; ++k) {
        double a = 2.0 * pi * k / n; /* vertices on the circle: sides within r (1 - cos half) */
        px[k] = x + r_mm * wpm_x * cos(a);
        py[k] = y + r_mm * wpm_y * sin(a);
    }
    plfill(n, px, py);
}

int curve_color(const nsd_panel *p, size_t idx) {
    /* explicit colours are kept; auto colours take the first palette entries
       not used by another curve of the panel, in order */
    const nsd_curve *c = &p->curves[idx];
    if (c->color >= 0) return c->color % NSD_PLOT_PALETTE_SIZE;
    unsigned used = 0;
    for (size_t k = 0; k < p->n_curves; ++k)
        if (p->curves[k].color >= 0) used |= 1u << (p->curves[k].color % NSD_PLOT_PALETTE_SIZE);
    int next = 0;
    for (size_t k = 0; k <= idx; ++k) {
        if (p->curves[k].color >= 0) continue;
        int tries = 0;
        while ((used & (1u << next)) && tries < NSD_PLOT_PALETTE_SIZE) {
            next = (next + 1) % NSD_PLOT_PALETTE_SIZE;
            tries++;
        }
        if (k == idx) return next;
        used |= 1u << next;
        if (used == (1u << NSD_PLOT_PALETTE_SIZE) - 1u) used = 0; /* all taken: start over */
        next = (next + 1) % NSD_PLOT_PALETTE_SIZE;
    }
    return 0;
}

/* Style the current line for curve c (colour, width, dashes). */
void curve_style(const metrics *m, const nsd_curve *c, int color) {
    double w = lw(m, curve_width(c));
    use_color(COL_PALETTE + color, c->opacity);
    plwidth(w);
    set_dashes(m, c->dashed, w);
}

/* The NaN-separated pieces of (tx, ty) with 3 points or more, filled. PLplot clips the
 * fill to the plot window. */
static void fill_pieces(size_t n, double *tx, double *ty) {
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && isfinite(tx[b]) && isfinite(ty[b])) ++b;
        if (b - a >= 3) plfill((PLINT)(b - a), tx + a, ty + a);
        a = b + 1;
    }
}

int draw_curve(panel_ctx *pc, const nsd_curve *c, int color, double wpm_x, double wpm_y) {
    const metrics *m = pc->m;
    if (c->x == NULL || c->y == NULL || c->n == 0) return 0;
    double *tx = malloc(c->n * sizeof *tx), *ty = malloc(c->n * sizeof *ty);
    if (tx == NULL || ty == NULL) {
        free(tx);
        free(ty);
        return -1;
    }
    for (size_t i = 0; i < c->n; ++i) {
        tx[i] = tr(c->x[i], pc->ax.log);
        ty[i] = tr(c->y[i], pc->ay.log);
    }
    int rc = 0;
    curve_style(m, c, color);
    if (c->marker == 3) {
        fill_pieces(c->n, tx, ty);
        free(tx);
        free(ty);
        return 0;
    }
    if (c->marker != 1) rc = draw_polyline(&pc->clip, c->n, tx, ty);
    pllsty(1);
    /* markers; isolated points of a line are drawn as dots so they stay visible */
    double r = marker_radius_mm(m, curve_width(c));
    for (size_t i = 0; i < c->n; ++i) {
        if (!isfinite(tx[i]) || !isfinite(ty[i])) continue;
        int isolated = (i == 0 || !isfinite(tx[i - 1]) || !isfinite(ty[i - 1])) &&
                       (i + 1 == c->n || !isfinite(tx[i + 1]) || !isfinite(ty[i + 1]));
        if (c->marker == 0 && !isolated) continue;
        if (tx[i] < pc->ax.lo || tx[i] > pc->ax.hi || ty[i] < pc->ay.lo || ty[i] > pc->ay.hi)
            continue;
        double rr = (c->marker == 0) ? 0.6 * r : r;
        marker_dot(tx[i], ty[i], rr, wpm_x, wpm_y);
    }
    free(tx);
    free(ty);
    return rc;
}
