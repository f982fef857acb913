/* nsdyn plotting module: the canvases. See plot.h for the module and plot_internal.h for
 * the map of its files.
 *
 * A panel's picture (nsd_panel.draw) is drawn through an nsdyn_canvas, the same drawing
 * services a system uses in nsdyn_system.draw. Two of them live here: a bounding-box
 * canvas that only measures the picture (for automatic limits), and the drawing canvas,
 * whose pens set PLplot's colour and width and whose lines, polygons and circles are
 * clipped to the panel (plot_clip.c) before PLplot sees them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "nsdyn_numeric.h"
#include "plot_internal.h"

/* ---- canvases ------------------------------------------------------------- */

typedef struct bbox_canvas {
    range x, y;
    int log_x, log_y;
} bbox_canvas;

static void bb_point(bbox_canvas *b, double x, double y) {
    double tx = tr(x, b->log_x), ty = tr(y, b->log_y);
    if (isfinite(tx) && isfinite(ty)) {
        range_add(&b->x, tx);
        range_add(&b->y, ty);
    }
}

static void bb_line(void *ctx, double x0, double y0, double x1, double y1) {
    bbox_canvas *b = ctx;
    bb_point(b, x0, y0);
    bb_point(b, x1, y1);
}

static void bb_circle(void *ctx, double x, double y, double r) {
    bbox_canvas *b = ctx;
    if (!isfinite(r) || r <= 0.0) {
        bb_point(b, x, y);
        return;
    }
    bb_point(b, x - r, y - r);
    bb_point(b, x + r, y + r);
}

static void bb_polygon(void *ctx, size_t n, const double *x, const double *y, int filled) {
    (void)filled;
    bbox_canvas *b = ctx;
    if (x == NULL || y == NULL) return;
    for (size_t i = 0; i < n; ++i) bb_point(b, x[i], y[i]);
}

static void bb_pen(void *ctx, int style) {
    (void)ctx;
    (void)style;
}

/* struct panel_ctx: in plot_internal.h (the panel drawing fills it in). */

/* A pen outside nsdyn_pen (a plugin built against a later minor, or a
 * bug) draws as structure. */
static void set_pen(panel_ctx *pc, int style) {
    if (style < NSDYN_PEN_STRUCTURE || style > NSDYN_PEN_TRACE) style = NSDYN_PEN_STRUCTURE;
    pc->pen = (nsdyn_pen)style;
    pllsty(1);
    switch (pc->pen) {
        case NSDYN_PEN_STRUCTURE:
            use_color(COL_FG, pc->opacity);
            plwidth(lw(pc->m, 2.0));
            break;
        case NSDYN_PEN_GROUND:
            use_color(COL_GROUND, pc->opacity);
            plwidth(lw(pc->m, 3.0));
            break;
        case NSDYN_PEN_HIGHLIGHT:
            use_color(COL_PALETTE + PAL_VERMILION, pc->opacity);
            plwidth(lw(pc->m, 2.5));
            break;
        case NSDYN_PEN_TRACE:
            use_color(COL_PALETTE + PAL_BLUE, pc->opacity);
            plwidth(lw(pc->m, 1.2));
            break;
    }
}

static void cv_pen(void *ctx, int style) { set_pen(ctx, style); }

/* The extents of the current group (nsd_plot_canvas_begin). */
static void group_point(panel_ctx *pc, double tx, double ty) {
    /* the bodies and their highlights: ground and traces (paths) belong to no one instant */
    if (pc->pen == NSDYN_PEN_GROUND || pc->pen == NSDYN_PEN_TRACE || !isfinite(tx) || !isfinite(ty))
        return;
    range_add(&pc->gx, tx);
    range_add(&pc->gy, ty);
}

static void cv_line(void *ctx, double x0, double y0, double x1, double y1) {
    panel_ctx *pc = ctx;
    double xs[2] = {tr(x0, pc->ax.log), tr(x1, pc->ax.log)};
    double ys[2] = {tr(y0, pc->ay.log), tr(y1, pc->ay.log)};
    group_point(pc, xs[0], ys[0]);
    group_point(pc, xs[1], ys[1]);
    if (draw_polyline(&pc->clip, 2, xs, ys) != 0) pc->oom = 1;
}

/* Polygon in transformed coordinates: optional fill (clipped), then outline. */
static void fill_and_outline(panel_ctx *pc, size_t n, double *tx, double *ty, int filled) {
    if (filled && n >= 3 && n <= ((size_t)1 << 20)) {
        /* each of the 4 clip stages at most doubles the vertex count */
        size_t cap = 16 * n + 16;
        double *buf = malloc(4 * cap * sizeof *buf);
        if (buf == NULL) {
            pc->oom = 1;
        } else {
            double *ax = buf, *ay = buf + cap, *bx = buf + 2 * cap, *by = buf + 3 * cap;
            memcpy(ax, tx, n * sizeof *ax);
            memcpy(ay, ty, n * sizeof *ay);
            size_t m = n;
            /* the window's edges: x >= x0, x <= x1, y >= y0, y <= y1 */
            const double ea[4] = {-1, 1, 0, 0}, eb[4] = {0, 0, -1, 1};
            const double ec[4] = {-pc->clip.x0, pc->clip.x1, -pc->clip.y0, pc->clip.y1};
            for (int e = 0; e < 4 && m >= 3; ++e) {
                m = nsn_clip_halfplane(m, ax, ay, ea[e], eb[e], ec[e], bx, by);
                double *t;
                t = ax, ax = bx, bx = t;
                t = ay, ay = by, by = t;
            }
            for (size_t i = 0; i < m; ++i) {
                ax[i] = clampd(ax[i], pc->clip.x0, pc->clip.x1);
                ay[i] = clampd(ay[i], pc->clip.y0, pc->clip.y1);
            }
            if (m >= 3) {
                PLINT col = COL_FILL;
                int hatch = 0;
                switch (pc->pen) {
                    case NSDYN_PEN_STRUCTURE: col = COL_FILL; break;
                    case NSDYN_PEN_GROUND:
                        col = COL_GROUND_FILL;
                        hatch = 1;
                        break;
                    case NSDYN_PEN_HIGHLIGHT: col = COL_PALETTE + PAL_VERMILION; break;
                    case NSDYN_PEN_TRACE: col = COL_PALETTE + PAL_BLUE; break;
                }
                use_color(col, pc->opacity);
                plpsty(0);
                plfill((PLINT)m, ax, ay);
                if (hatch) {
                    PLINT inc = 450, del = (PLINT)clampd(2200.0 * pc->m->s, 500.0, 20000.0);
                    use_color(COL_GROUND, pc->opacity);
                    plwidth(lw(pc->m, 0.8));
                    plpat(1, &inc, &del);
                    plfill((PLINT)m, ax, ay);
                    plpsty(0);
                }
            }
            free(buf);
            set_pen(pc, pc->pen);
        }
    }
    /* outline, closed */
    double *cx = malloc((n + 1) * sizeof *cx), *cy = malloc((n + 1) * sizeof *cy);
    if (cx == NULL || cy == NULL) {
        pc->oom = 1;
    } else {
        memcpy(cx, tx, n * sizeof *cx);
        memcpy(cy, ty, n * sizeof *cy);
        cx[n] = tx[0];
        cy[n] = ty[0];
        if (draw_polyline(&pc->clip, n + 1, cx, cy) != 0) pc->oom = 1;
    }
    free(cx);
    free(cy);
}

static void cv_polygon(void *ctx, size_t n, const double *x, const double *y, int filled) {
    panel_ctx *pc = ctx;
    if (x == NULL || y == NULL || n < 2) return;
    if (n > ((size_t)1 << 26)) return; /* absurd */
    double *tx = malloc(n * sizeof *tx), *ty = malloc(n * sizeof *ty);
    if (tx == NULL || ty == NULL) {
        free(tx);
        free(ty);
        pc->oom = 1;
        return;
    }
    int all_finite = 1;
    for (size_t i = 0; i < n; ++i) {
        tx[i] = tr(x[i], pc->ax.log);
        ty[i] = tr(y[i], pc->ay.log);
        if (!isfinite(tx[i]) || !isfinite(ty[i])) all_finite = 0;
        group_point(pc, tx[i], ty[i]);
    }
    if (n == 2) {
        if (draw_polyline(&pc->clip, 2, tx, ty) != 0) pc->oom = 1;
    } else {
        fill_and_outline(pc, n, tx, ty, filled && all_finite);
    }
    free(tx);
    free(ty);
}

static void cv_circle(void *ctx, double x, double y, double r) {
    panel_ctx *pc = ctx;
    if (!isfinite(x) || !isfinite(y) || !isfinite(r) || r <= 0.0) return;
    group_point(pc, tr(x - r, pc->ax.log), tr(y - r, pc->ay.log));
    group_point(pc, tr(x + r, pc->ax.log), tr(y + r, pc->ay.log));
    int nseg = 288;
    if (!pc->ax.log && !pc->ay.log) {
        double cx = tr(x, 0), cy = tr(y, 0), rr = fmin(r, COORD_MAX);
        const box *b = &pc->clip;
        if (cx + rr < b->x0 || cx - rr > b->x1 || cy + rr < b->y0 || cy - rr > b->y1)
            return; /* entirely outside */
        double sx = b->x1 - b->x0, sy = b->y1 - b->y0;
        /* PLplot clips native arcs to the viewport but converts them to
           integer device coordinates first: keep them within reach */
        if (driver_draws_arcs() && fabs(cx - 0.5 * (b->x0 + b->x1)) + rr <= 1e3 * sx &&
            fabs(cy - 0.5 * (b->y0 + b->y1)) + rr <= 1e3 * sy) {
            plarc(cx, cy, rr, rr, 0.0, 360.0, 0.0, 0);
            return;
        }
        /* a huge circle crossing the window, or a driver without arcs of its own (svg:
           PLplot's polyline would keep its hundreds of points): a fine polygon, clipped,
           whose points within the tolerance of the line drawn are dropped (plot_clip.c) */
        nseg = (int)clampd(rr / fmin(sx, sy) * 64.0, 288.0, 65536.0);
    }
    double *xs = malloc(((size_t)nseg + 1) * 2 * sizeof *xs);
    if (xs == NULL) {
        pc->oom = 1;
        return;
    }
    double *ys = xs + nseg + 1;
    for (int i = 0; i <= nseg; ++i) {
        double a = 2.0 * NSDYN_PI * (double)i / nseg;
        xs[i] = tr(x + r * cos(a), pc->ax.log);
        ys[i] = tr(y + r * sin(a), pc->ay.log);
    }
    if (draw_polyline(&pc->clip, (size_t)nseg + 1, xs, ys) != 0) pc->oom = 1;
    free(xs);
}

/* ---- the canvases as the rest of the module sees them ---------------------- */

void canvas_picture_extents(const nsd_panel *p, range *dx, range *dy) {
    bbox_canvas bb;
    memset(&bb, 0, sizeof bb);
    bb.log_x = p->log_x;
    bb.log_y = p->log_y;
    nsdyn_canvas cv = {sizeof(nsdyn_canvas), &bb, bb_line, bb_circle, bb_polygon, bb_pen};
    p->draw(p->draw_ctx, &cv);
    if (bb.x.have && bb.y.have) {
        range_add(dx, bb.x.lo);
        range_add(dx, bb.x.hi);
        range_add(dy, bb.y.lo);
        range_add(dy, bb.y.hi);
    }
}

static void place_labels(panel_ctx *pc);

int canvas_draw_picture(panel_ctx *pc) {
    const nsd_panel *p = pc->panel;
    nsdyn_canvas cv = {sizeof(nsdyn_canvas), pc, cv_line, cv_circle, cv_polygon, cv_pen};
    pc->opacity = 1.0;
    set_pen(pc, NSDYN_PEN_STRUCTURE);
    p->draw(p->draw_ctx, &cv);
    pc->opacity = 1.0;
    pllsty(1);
    plpsty(0);
    place_labels(pc);
    return pc->oom ? -1 : 0;
}

/* ---- groups of a picture: fading and labels --------------------------------- */

void nsd_plot_canvas_begin(const nsdyn_canvas *canvas, double opacity) {
    if (!canvas || canvas->line != cv_line) return; /* the bounding-box canvas, or not ours */
    panel_ctx *pc = canvas->ctx;
    pc->opacity = isfinite(opacity) ? clampd(opacity, 0.05, 1.0) : 1.0;
    memset(&pc->gx, 0, sizeof pc->gx);
    memset(&pc->gy, 0, sizeof pc->gy);
    set_pen(pc, pc->pen);
}

/* The label's box [mm on the page] centred above (x, top) of the group. */
static void label_box(const panel_ctx *pc, const char *text, double b[4]) {
    const metrics *m = pc->m;
    double sx = pc->ax.hi - pc->ax.lo, sy = pc->ay.hi - pc->ay.lo;
    double px = pc->vp[0] * m->page_w_mm + (0.5 * (pc->gx.lo + pc->gx.hi) - pc->ax.lo) / sx *
                                               (pc->vp[1] - pc->vp[0]) * m->page_w_mm;
    double py = pc->vp[2] * m->page_h_mm +
                (pc->gy.hi - pc->ay.lo) / sy * (pc->vp[3] - pc->vp[2]) * m->page_h_mm;
    double ch = 0.8 * m->ch, w = text_width_ch(text) * ch;
    b[0] = px - 0.5 * w;
    b[1] = py + 0.3 * ch;
    b[2] = px + 0.5 * w;
    b[3] = py + 1.3 * ch;
}

void nsd_plot_canvas_end(const nsdyn_canvas *canvas, const char *label) {
    if (!canvas || canvas->line != cv_line) return;
    panel_ctx *pc = canvas->ctx;
    pc->opacity = 1.0;
    set_pen(pc, pc->pen);
    if (!label || !label[0] || !pc->gx.have || !pc->vp || pc->n_cand >= 256) return;
    char buf[256];
    nsd_plot_escape_text(label, buf, sizeof buf);
    label_box(pc, buf, pc->cand[pc->n_cand]);
    snprintf(pc->cand_text[pc->n_cand++], sizeof pc->cand_text[0], "%s", label);
}

/* Label candidate i, if it stays in the plot area clear of those placed (0.3 ch apart).
 * Returns 1 when placed. */
static int place_label(panel_ctx *pc, size_t i, size_t *placed, size_t n_placed) {
    const metrics *m = pc->m;
    const double *b = pc->cand[i];
    double gap = 0.3 * m->ch;
    if (b[0] < pc->vp[0] * m->page_w_mm || b[2] > pc->vp[1] * m->page_w_mm ||
        b[1] < pc->vp[2] * m->page_h_mm || b[3] > pc->vp[3] * m->page_h_mm)
        return 0;
    for (size_t k = 0; k < n_placed; ++k) {
        const double *o = pc->cand[placed[k]];
        if (b[0] < o[2] + gap && o[0] < b[2] + gap && b[1] < o[3] + gap && o[1] < b[3] + gap)
            return 0;
    }
    char buf[256];
    nsd_plot_escape_text(pc->cand_text[i], buf, sizeof buf);
    PLFLT fx[4] = {b[0] - gap, b[2] + gap, b[2] + gap, b[0] - gap},
          fy[4] = {b[1] - 0.5 * gap, b[1] - 0.5 * gap, b[3] + 0.5 * gap, b[3] + 0.5 * gap};
    plcol0(COL_LEGEND_BG); /* a white ground under the text: legible over the drawing */
    plpsty(0);
    plfill(4, fx, fy);
    plcol0(COL_FG);
    plptex(0.5 * (b[0] + b[2]), 0.5 * (b[1] + b[3]), 1.0, 0.0, 0.5, buf);
    report_box(m, "text", pc->index, b[0], b[1], b[2], b[3], -1, pc->cand_text[i]);
    return 1;
}

/* The groups' labels, at most 10, over the finished picture: the last group's first, then
 * the first's, then ever finer halves of the sequence (evenly spread in time). */
static void place_labels(panel_ctx *pc) {
    if (pc->n_cand == 0) return;
    const metrics *m = pc->m;
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, m->page_w_mm, 0.0, m->page_h_mm);
    plschr(m->ch, 0.8);
    size_t n = pc->n_cand, placed[10], n_placed = 0;
    unsigned char tried[256] = {0};
    for (size_t step = n > 1 ? n - 1 : 1; n_placed<10; step = step> 1 ? step / 2 : 0) {
        for (size_t k = n - 1 + step; k >= step && n_placed < 10; k -= step) {
            size_t i = k - step;
            if (tried[i]) continue;
            tried[i] = 1;
            if (place_label(pc, i, placed, n_placed)) placed[n_placed++] = i;
        }
        if (step <= 1) break;
    }
    plschr(m->ch, 1.0);
    plvpor(pc->vp[0], pc->vp[1], pc->vp[2], pc->vp[3]);
    plwind(pc->ax.lo, pc->ax.hi, pc->ay.lo, pc->ay.hi);
}
