/* nsdyn plotting module: maps (nsd_map, plot.h). A scalar over the grid of two axes as a
 * continuous colour scale under the panel's curves (plshades: 128 shades, linear between
 * the nodes), the cells with a NaN corner blank, and a colour bar (plcolorbar, the same shades)
 * right of the plot with its own ticks and label. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot_internal.h"

enum { N_SHADES = 128 };

/* Viridis (van der Walt & Smith, matplotlib's default sequential map) at nine evenly
 * spaced points; PLplot interpolates linearly in RGB between them. Lightness rises
 * monotonically from the least value (dark purple) to the greatest (yellow). */
static const unsigned char viridis[9][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3E, 0x4A, 0x89},
    {0x31, 0x68, 0x8E}, {0x26, 0x82, 0x8E}, {0x1F, 0x9E, 0x89},
    {0x35, 0xB7, 0x79}, {0x6D, 0xCD, 0x59}, {0xFD, 0xE7, 0x25},
};

int map_validate(const nsd_map *mp, size_t panel, char *err, size_t err_len) {
    if (mp == NULL) return 0;
    if (mp->nx < 2 || mp->ny < 2 || !mp->x || !mp->y || !mp->z) {
        set_err(err, err_len, "plot: panel %zu: a map needs a grid of 2 x 2 nodes or more", panel);
        return -1;
    }
    if (mp->nx > 100000 || mp->ny > 100000 || mp->nx * mp->ny > 4000000) {
        set_err(err, err_len, "plot: panel %zu: map grid %zu x %zu too large", panel, mp->nx,
                mp->ny);
        return -1;
    }
    for (size_t i = 0; i + 1 < mp->nx; ++i)
        if (!(mp->x[i + 1] > mp->x[i])) {
            set_err(err, err_len, "plot: panel %zu: map x nodes not strictly increasing", panel);
            return -1;
        }
    for (size_t j = 0; j + 1 < mp->ny; ++j)
        if (!(mp->y[j + 1] > mp->y[j])) {
            set_err(err, err_len, "plot: panel %zu: map y nodes not strictly increasing", panel);
            return -1;
        }
    return 0;
}

void map_extents(const nsd_panel *p, range *dx, range *dy) {
    const nsd_map *mp = p->map;
    if (mp == NULL) return;
    range_add(dx, tr(mp->x[0], p->log_x));
    range_add(dx, tr(mp->x[mp->nx - 1], p->log_x));
    range_add(dy, tr(mp->y[0], p->log_y));
    range_add(dy, tr(mp->y[mp->ny - 1], p->log_y));
}

void map_window(const nsd_panel *p, axis_info *ax, axis_info *ay) {
    const nsd_map *mp = p->map;
    if (mp == NULL) return;
    if (isnan(p->xmin)) ax->lo = tr(mp->x[0], p->log_x);
    if (isnan(p->xmax)) ax->hi = tr(mp->x[mp->nx - 1], p->log_x);
    if (isnan(p->ymin)) ay->lo = tr(mp->y[0], p->log_y);
    if (isnan(p->ymax)) ay->hi = tr(mp->y[mp->ny - 1], p->log_y);
}

/* The colour scale's range: the given limits, else the finite values' extremes; a constant
 * map gets a range around its value. */
static void map_range(const nsd_map *mp, double *lo, double *hi) {
    double a = HUGE_VAL, b = -HUGE_VAL;
    for (size_t k = 0; k < mp->nx * mp->ny; ++k)
        if (isfinite(mp->z[k])) a = fmin(a, mp->z[k]), b = fmax(b, mp->z[k]);
    if (!(a <= b)) a = 0.0, b = 1.0; /* no value at all: every cell is blank */
    if (isfinite(mp->zmin)) a = mp->zmin;
    if (isfinite(mp->zmax)) b = mp->zmax;
    if (!(b > a)) {
        double d = fabs(a) > 0.0 ? 0.05 * fabs(a) : 0.5;
        a -= d, b += d;
    }
    *lo = a;
    *hi = b;
}

/* The colour bar right of the plot: gap, bar, tick marks and labels, label [character
 * heights]; its parts' offsets from the plot's right edge. */
#define BAR_GAP 1.0
#define BAR_W 1.3
#define BAR_LABEL_GAP 0.7 /* from the bar to its tick labels */

double map_axis(const nsd_panel *p, panel_layout *pl, double ch, double vh_mm) {
    if (p->map == NULL) return 0.0;
    axis_info *az = &pl->az;
    az->log = 0;
    map_range(p->map, &az->lo, &az->hi);
    linear_ticks(az, vh_mm, ch, 1);
    int label = p->map->label && p->map->label[0];
    return (BAR_GAP + BAR_W + BAR_LABEL_GAP + az->label_w + (label ? 1.9 : 0.0) + 0.6) * ch;
}

/* Cells with a NaN corner, painted over with the background: plshades interpolates within
 * a cell from its four corners only, so these are exactly the cells it had to make up. */
static void blank_cells(const nsd_map *mp, const double *xs, const double *ys) {
    plcol0(COL_BG);
    for (size_t j = 0; j + 1 < mp->ny; ++j)
        for (size_t i = 0; i + 1 < mp->nx; ++i) {
            const double *z = mp->z;
            size_t nx = mp->nx;
            if (isfinite(z[j * nx + i]) && isfinite(z[j * nx + i + 1]) &&
                isfinite(z[(j + 1) * nx + i]) && isfinite(z[(j + 1) * nx + i + 1]))
                continue;
            PLFLT px[4] = {xs[i], xs[i + 1], xs[i + 1], xs[i]};
            PLFLT py[4] = {ys[j], ys[j], ys[j + 1], ys[j + 1]};
            plfill(4, px, py);
        }
}

/* plshades' fill for vector output: each shade's polygon offset outward by SEAM_PT (a
 * mitred offset in millimetres on the page, the mitre capped at 4 SEAM_PT), so neighbouring
 * polygons overlap. Vector viewers (librsvg, browsers, PDF readers) antialias each polygon's
 * edge on its own, and two polygons that only touch leave a light hairline between them: the
 * map showed its cells and shade bands as seams. The overlap lies under the neighbour (a
 * colour 1/128 of the scale away) or, at the map's edge, under the frame (0.63 pt wide,
 * centred on the edge). PNG (memcairo) has no seams. */
#define SEAM_PT 0.25
static void fill_overlapping(PLINT n, PLFLT_VECTOR x, PLFLT_VECTOR y) {
    enum { MAXV = 64 };
    PLFLT wx0, wx1, wy0, wy1, vx0, vx1, vy0, vy1, px0, px1, py0, py1;
    plgvpw(&wx0, &wx1, &wy0, &wy1);                      /* world window */
    plgvpd(&vx0, &vx1, &vy0, &vy1);                      /* its viewport, normalized */
    plgspa(&px0, &px1, &py0, &py1);                      /* the page [mm] */
    double sx = (vx1 - vx0) * (px1 - px0) / (wx1 - wx0); /* mm per world unit */
    double sy = (vy1 - vy0) * (py1 - py0) / (wy1 - wy0);
    if (n < 3 || n > MAXV || !(isfinite(sx) && isfinite(sy) && sx != 0.0 && sy != 0.0)) {
        plfill(n, x, y);
        return;
    }
    double area2 = 0.0; /* twice the signed area [mm^2]: its sign says which side is out */
    for (PLINT k = 0; k < n; ++k) {
        PLINT l = (k + 1) % n;
        area2 += (x[k] * sx) * (y[l] * sy) - (x[l] * sx) * (y[k] * sy);
    }
    if (area2 == 0.0 || !isfinite(area2)) {
        plfill(n, x, y);
        return;
    }
    double orient = area2 > 0.0 ? 1.0 : -1.0, d = SEAM_PT * 25.4 / 72.0;
    double nx[MAXV], ny[MAXV]; /* outward unit normal of edge k -> k+1; 0 if it has no length */
    for (PLINT k = 0; k < n; ++k) {
        PLINT l = (k + 1) % n;
        double ex = (x[l] - x[k]) * sx, ey = (y[l] - y[k]) * sy, len = hypot(ex, ey);
        nx[k] = len > 0.0 ? orient * ey / len : 0.0;
        ny[k] = len > 0.0 ? -orient * ex / len : 0.0;
    }
    PLFLT ox[MAXV], oy[MAXV];
    for (PLINT k = 0; k < n; ++k) {
        PLINT p = (k + n - 1) % n; /* the edges into and out of vertex k */
        double mx = nx[p] + nx[k], my = ny[p] + ny[k], dot = nx[p] * nx[k] + ny[p] * ny[k];
        double f = 1.0 + dot > 0.25 ? d / (1.0 + dot) : 4.0 * d / fmax(hypot(mx, my), 1e-12);
        if (nx[p] == 0.0 && ny[p] == 0.0) mx = nx[k], my = ny[k], f = d;
        if (nx[k] == 0.0 && ny[k] == 0.0) mx = nx[p], my = ny[p], f = d;
        ox[k] = x[k] + f * mx / sx;
        oy[k] = y[k] + f * my / sy;
    }
    plfill(n, ox, oy);
}

/* The edges of the shades: N_SHADES equal steps over the colour scale, the outer edges a
 * hair outside it so the extremes are filled. The map and its colour bar use the same. */
static void shade_levels(const axis_info *az, PLFLT clevel[N_SHADES + 1]) {
    for (int k = 0; k <= N_SHADES; ++k) clevel[k] = az->lo + (az->hi - az->lo) * k / N_SHADES;
    double eps = 1e-9 * (az->hi - az->lo);
    clevel[0] -= eps;
    clevel[N_SHADES] += eps;
}

static void set_cmap1(void) {
    PLFLT pos[9], r[9], g[9], b[9];
    for (int k = 0; k < 9; ++k) {
        pos[k] = k / 8.0;
        r[k] = viridis[k][0] / 255.0;
        g[k] = viridis[k][1] / 255.0;
        b[k] = viridis[k][2] / 255.0;
    }
    plscmap1n(256);
    plscmap1l(1, 9, pos, r, g, b, NULL);
}

int draw_map(panel_ctx *pc, const panel_layout *pl) {
    const nsd_panel *p = pc->panel;
    const nsd_map *mp = p->map;
    if (mp == NULL) return 0;
    size_t nx = mp->nx, ny = mp->ny;
    PLFLT **a = NULL;
    double *xs = malloc(nx * sizeof *xs), *ys = malloc(ny * sizeof *ys);
    if (xs == NULL || ys == NULL) goto oom;
    plAlloc2dGrid(&a, (PLINT)nx, (PLINT)ny);
    if (a == NULL) goto oom;
    for (size_t i = 0; i < nx; ++i) xs[i] = tr(mp->x[i], p->log_x);
    for (size_t j = 0; j < ny; ++j) ys[j] = tr(mp->y[j], p->log_y);
    /* NaN nodes get the low end (their cells are blanked after) */
    for (size_t i = 0; i < nx; ++i)
        for (size_t j = 0; j < ny; ++j) {
            double z = mp->z[j * nx + i];
            a[i][j] = isfinite(z) ? clampd(z, pl->az.lo, pl->az.hi) : pl->az.lo;
        }
    PLFLT clevel[N_SHADES + 1];
    shade_levels(&pl->az, clevel);
    PLcGrid cg = {.xg = xs, .yg = ys, .zg = NULL, .nx = (PLINT)nx, .ny = (PLINT)ny};
    set_cmap1();
    plshades((PLFLT_MATRIX)a, (PLINT)nx, (PLINT)ny, NULL, xs[0], xs[nx - 1], ys[0], ys[ny - 1],
             clevel, N_SHADES + 1, 0.0, 0, 0.0, device_is_raster() ? plfill : fill_overlapping, 1,
             pltr1, &cg);
    blank_cells(mp, xs, ys);
    plFree2dGrid(a, (PLINT)nx, (PLINT)ny);
    free(xs);
    free(ys);
    return 0;
oom:
    free(xs);
    free(ys);
    return -1;
}

/* Tick labels of the colour bar: the module's format (true minus, common factor) and
 * their boxes in the layout report. */
typedef struct bar_ctx {
    const metrics *m;
    const axis_info *az;
    long index;
    double vp[4]; /* the bar's viewport, normalized page coordinates */
} bar_ctx;

static void bar_label_cb(PLINT axis, PLFLT value, char *label, PLINT length, PLPointer data) {
    const bar_ctx *b = data;
    (void)axis;
    if (length <= 0) return;
    format_label(b->az, value, label, (size_t)length);
    double pos = (value - b->az->lo) / (b->az->hi - b->az->lo);
    report_mtex(b->m, b->index, b->vp, "rv", BAR_LABEL_GAP, pos, 0.0, b->m->ch, label);
}

void draw_colorbar(panel_ctx *pc, const panel_layout *pl) {
    const nsd_panel *p = pc->panel;
    const metrics *m = pc->m;
    if (p->map == NULL) return;
    double ch = m->ch, W = m->page_w_mm;
    double vw_mm = (pl->vx1 - pl->vx0) * W;
    bar_ctx b = {m, &pl->az, pl->index, {0}};
    b.vp[0] = pl->vx1 + BAR_GAP * ch / W;
    b.vp[1] = pl->vx1 + (BAR_GAP + BAR_W) * ch / W;
    b.vp[2] = pl->vy0;
    b.vp[3] = pl->vy1;
    /* shades, the map's own (a gradient would leak a cairo pattern per call: PLplot's
       cairo driver references it once more than it releases it, drivers/cairo.c) */
    PLFLT values[N_SHADES + 1];
    shade_levels(&pl->az, values);
    const PLFLT *vals[1] = {values};
    PLINT n_values[1] = {N_SHADES + 1}, sub[1] = {pl->az.nsub};
    PLFLT ticks[1] = {pl->az.step};
    const char *axis_opts[1] = {"bcmtvo"}; /* labels right, horizontal, ours */
    PLFLT cw = 0.0, chh = 0.0;
    plcol0(COL_FG);
    plwidth(lw(m, 1.0));
    plschr(ch, 1.0);
    plsmaj(0.4 * ch, 1.0);
    plsmin(0.2 * ch, 1.0);
    if (!device_is_raster()) { /* under its shades, the same shades overlapping (seams) */
        plvpor(b.vp[0], b.vp[1], b.vp[2], b.vp[3]);
        plwind(0.0, 1.0, values[0], values[N_SHADES]);
        PLFLT col0[2] = {values[0], values[N_SHADES]}, col1[2] = {values[0], values[N_SHADES]};
        PLFLT *z[2] = {col0, col1}, xg[2] = {0.0, 1.0}, yg[2] = {values[0], values[N_SHADES]};
        PLcGrid g = {.xg = xg, .yg = yg, .zg = NULL, .nx = 2, .ny = 2};
        plshades((PLFLT_MATRIX)z, 2, 2, NULL, 0.0, 1.0, values[0], values[N_SHADES], values,
                 N_SHADES + 1, 0.0, 0, 0.0, fill_overlapping, 1, pltr1, &g);
        plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1); /* plcolorbar places itself from it */
        plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
    }
    plslabelfunc(bar_label_cb, &b);
    plcolorbar(&cw, &chh, PL_COLORBAR_SHADE | PL_COLORBAR_ORIENT_TOP,
               PL_POSITION_RIGHT | PL_POSITION_OUTSIDE | PL_POSITION_VIEWPORT, BAR_GAP * ch / vw_mm,
               0.0, BAR_W * ch / vw_mm, 1.0, COL_BG, COL_FG, 1, 0.0, 0.0, 0, 0.0, 0, NULL, NULL, 1,
               axis_opts, ticks, sub, n_values, vals);
    plslabelfunc(NULL, NULL);
    plsmaj(0.55 * ch, 1.0);
    plsmin(0.3 * ch, 1.0);
    /* back to the plot's viewport (plcolorbar leaves its own) */
    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
    const double vp[4] = {pl->vx0, pl->vx1, pl->vy0, pl->vy1};
    double bar_right = BAR_GAP + BAR_W + BAR_LABEL_GAP + pl->az.label_w;
    report_box(m, "legend", pl->index, b.vp[0] * W, b.vp[2] * m->page_h_mm,
               (pl->vx1 + bar_right * ch / W) * W, b.vp[3] * m->page_h_mm, 0, NULL);
    if (p->map->label && p->map->label[0]) {
        mtex("r", bar_right + 1.2, 0.5, 0.5, p->map->label);
        report_mtex(m, -2 - pl->index, vp, "r", bar_right + 1.2, 0.5, 0.5, ch, p->map->label);
    }
}
