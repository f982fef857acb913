/* nsdyn plotting module: one panel. Its data extents, its axes and margins for a given
 * viewport, and drawing it: grid, event lines, curves, picture, frame with ticks and
 * labels, common factors, title, legend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

static int panel_auto_limits(const nsd_panel *p) {
    return isnan(p->xmin) || isnan(p->xmax) || isnan(p->ymin) || isnan(p->ymax);
}

void panel_extents(const nsd_panel *p, panel_layout *pl) {
    memset(&pl->dx, 0, sizeof pl->dx);
    memset(&pl->dy, 0, sizeof pl->dy);
    for (size_t c = 0; c < p->n_curves; ++c) {
        const nsd_curve *cv = &p->curves[c];
        if (cv->x == NULL || cv->y == NULL) continue;
        for (size_t i = 0; i < cv->n; ++i) {
            double tx = tr(cv->x[i], p->log_x), ty = tr(cv->y[i], p->log_y);
            if (isfinite(tx) && isfinite(ty)) {
                range_add(&pl->dx, tx);
                range_add(&pl->dy, ty);
            }
        }
    }
    if (p->draw != NULL && panel_auto_limits(p)) {
        canvas_picture_extents(p, &pl->dx, &pl->dy);
    }
    map_extents(p, &pl->dx, &pl->dy);
}

/* Where a y label longer than avail_mm at 0.8 of the text size splits (the byte index of
 * the blank nearest its middle), or 0 to keep it on one line. */
static size_t ylabel_split(const char *text, double ch, double avail_mm) {
    if (!text || !text[0]) return 0;
    char buf[1024];
    nsd_plot_escape_text(text, buf, sizeof buf);
    if (0.8 * text_width_ch(buf) * ch <= avail_mm) return 0;
    size_t n = strlen(text), best = 0;
    for (size_t i = 1; i + 1 < n; ++i)
        if (text[i] == ' ' && (best == 0 || (i > n / 2 ? i - n / 2 : n / 2 - i) <
                                                (best > n / 2 ? best - n / 2 : n / 2 - best)))
            best = i;
    return best;
}

/* A categorical y axis: lanes 1..n, labelled by name (widths for the margin). */
static void category_axis(const nsd_panel *p, axis_info *a) {
    a->log = 0;
    if (isnan(p->ymin)) a->lo = 0.5;
    if (isnan(p->ymax)) a->hi = (double)p->n_y_categories + 0.5;
    if (!(a->hi > a->lo)) a->hi = a->lo + 1.0;
    a->step = 1.0;
    a->nsub = 0;
    a->decimals = 0;
    a->expo = 0;
    a->label_w = 0.0;
    a->n_labels = (int)p->n_y_categories;
    for (size_t k = 0; k < p->n_y_categories; ++k) {
        char buf[256];
        nsd_plot_escape_text(p->y_categories[k] ? p->y_categories[k] : "", buf, sizeof buf);
        a->label_w = fmax(a->label_w, text_width_ch(buf));
    }
}

/* Axes, ticks and margins of a panel for a given viewport size. */
void panel_axes(const nsd_panel *p, panel_layout *pl, const metrics *m, double vw_mm,
                double vh_mm) {
    pl->ax.log = p->log_x != 0;
    pl->ay.log = p->log_y != 0;
    resolve_axis(p->xmin, p->xmax, &pl->dx, pl->ax.log, &pl->ax.lo, &pl->ax.hi);
    resolve_axis(p->ymin, p->ymax, &pl->dy, pl->ay.log, &pl->ay.lo, &pl->ay.hi);
    map_window(p, &pl->ax, &pl->ay); /* a map fills its plot: no margin around the grid */
    if (p->equal_aspect) apply_equal_aspect(&pl->ax, &pl->ay, vw_mm, vh_mm);
    if (pl->ax.log)
        log_ticks(&pl->ax, vw_mm, m->ch, 0);
    else
        linear_ticks(&pl->ax, vw_mm, m->ch, 0);
    if (p->n_y_categories > 0)
        category_axis(p, &pl->ay);
    else if (pl->ay.log)
        log_ticks(&pl->ay, vh_mm, m->ch, 1);
    else
        linear_ticks(&pl->ay, vh_mm, m->ch, 1);

    double ch = m->ch;
    /* left: tick labels (disp 0.5 + width), gap, rotated y label, pad */
    pl->L = (0.5 + pl->ay.label_w + (p->ylabel && p->ylabel[0] ? 1.9 : 0.0) + 0.9) * ch;
    /* a y label too long for the plot's height even at 0.8 of the text size goes on two
       lines (at the blank nearest its middle): text set smaller than that is unreadable */
    pl->ylabel_split = ylabel_split(p->ylabel, ch, 0.92 * vh_mm);
    if (pl->ylabel_split) pl->L += 1.5 * ch;
    /* bottom: tick labels centred at 1.5, x label at 3.2 */
    int xlab = p->xlabel && p->xlabel[0] && !pl->shared_x;
    pl->B = (pl->shared_x ? 0.8 : xlab ? 4.5 : 2.7) * ch;
    /* top: half a tick label, the panel title, the y x10^k factor */
    int title = p->title && p->title[0];
    int yfac = !pl->ay.log && pl->ay.expo != 0;
    pl->T = (title ? (yfac ? 3.9 : 2.6) : (yfac ? 2.1 : 1.0)) * ch;
    /* right: half of the last x tick label, then the x10^k factor if any */
    pl->R = fmax(1.2, 0.5 * pl->ax.label_w + 0.4) * ch;
    if (!pl->ax.log && pl->ax.expo != 0)
        pl->R = fmax(pl->R, (factor_offset(&pl->ax) + factor_width(pl->ax.expo) + 0.4) * ch);

    pl->R += map_axis(p, pl, ch, vh_mm); /* the colour bar */
    legend_measure(p, pl, ch, vw_mm, vh_mm);
    if (pl->n_legend > 0 && pl->legend_pos == 4) pl->R += pl->legend_w_mm;
    if (pl->n_legend > 0 && pl->legend_pos == 7) pl->T += pl->legend_h_mm;
}

static void label_cb(PLINT axis, PLFLT value, char *label, PLINT length, PLPointer data) {
    const panel_ctx *pc = data;
    const axis_info *a = (axis == PL_X_AXIS) ? &pc->ax : &pc->ay;
    if (length <= 0) return;
    format_label(a, value, label, (size_t)length);
    if (pc->m->report) { /* where plbox puts it: "b" at 1.5, "lv" at 0.5 */
        double pos = (value - a->lo) / (a->hi - a->lo);
        if (axis == PL_X_AXIS)
            report_mtex(pc->m, pc->index, pc->vp, "b", 1.5, pos, 0.5, pc->m->ch, label);
        else
            report_mtex(pc->m, pc->index, pc->vp, "lv", 0.5, pos, 1.0, pc->m->ch, label);
    }
}

/* The canvas context of a panel: its axes, and the clip box (the window enlarged by 2% on
 * each side) with the decimation tolerance of its polylines (plot_clip.c): a tenth of a
 * pixel in a PNG (the 5x enlargement of a curve shows no difference); a hundredth of a point
 * in SVG and PDF, which are zoomed into: the resolution of the svg driver's numbers (%.2f),
 * where a tenth of a point showed as faint corners on a parabola at 5x. */
static void panel_ctx_init(panel_ctx *pc, const nsd_panel *p, const panel_layout *pl,
                           const metrics *m) {
    memset(pc, 0, sizeof *pc);
    pc->m = m;
    pc->panel = p;
    pc->ax = pl->ax;
    pc->ay = pl->ay;
    double sx = pl->ax.hi - pl->ax.lo, sy = pl->ay.hi - pl->ay.lo;
    pc->clip.x0 = pl->ax.lo - 0.02 * sx;
    pc->clip.x1 = pl->ax.hi + 0.02 * sx;
    pc->clip.y0 = pl->ay.lo - 0.02 * sy;
    pc->clip.y1 = pl->ay.hi + 0.02 * sy;
    double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm;
    double vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
    double tol_px = device_is_raster() ? 0.1 : 0.01;
    pc->clip.tol_x = tol_px * m->mm_per_px * sx / vw_mm;
    pc->clip.tol_y = tol_px * m->mm_per_px * sy / vh_mm;
}

/* Viewport, window and text sizes of the panel, then its grid and event lines. */
static void draw_background(const nsd_panel *p, const panel_layout *pl, const metrics *m) {
    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
    plschr(m->ch, 1.0);
    plsmaj(0.55 * m->ch, 1.0);
    plsmin(0.3 * m->ch, 1.0);

    /* grid; on a categorical y axis, thin lines between the lanes instead */
    plcol0(COL_GRID);
    plwidth(lw(m, 0.7));
    pllsty(1);
    int lanes = p->n_y_categories > 0;
    if (draw_grid_lines(pl, 1, !lanes) != 0) /* plot_frame.c; plbox: a segment a line */
        plbox(uses_pl_log(&pl->ax) ? "gl" : "g", pl->ax.step, pl->ax.nsub,
              lanes                  ? ""
              : uses_pl_log(&pl->ay) ? "gl"
                                     : "g",
              pl->ay.step, pl->ay.nsub);
    for (size_t k = 0; lanes && k + 1 < p->n_y_categories; ++k) {
        PLFLT lx[2] = {pl->ax.lo, pl->ax.hi}, ly[2] = {(double)k + 1.5, (double)k + 1.5};
        plline(2, lx, ly);
    }

    /* event lines */
    if (p->vlines != NULL) {
        plcol0(COL_VLINE);
        plwidth(lw(m, 0.8));
        for (size_t i = 0; i < p->n_vlines; ++i) {
            double v = tr(p->vlines[i], pl->ax.log);
            if (!isfinite(v) || v < pl->ax.lo || v > pl->ax.hi) continue;
            PLFLT lx[2] = {v, v}, ly[2] = {pl->ay.lo, pl->ay.hi};
            plline(2, lx, ly);
        }
    }
}

/* The curves, in order, with the palette index of each in colors (n_curves entries). 0, or
 * -1 if memory ran out. */
static int draw_curves(panel_ctx *pc, const panel_layout *pl, const int *colors) {
    const nsd_panel *p = pc->panel;
    const metrics *m = pc->m;
    double sx = pl->ax.hi - pl->ax.lo, sy = pl->ay.hi - pl->ay.lo;
    double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm;
    double vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
    double wpm_x = sx / vw_mm, wpm_y = sy / vh_mm; /* world units per mm */
    for (size_t c = 0; c < p->n_curves; ++c)
        if (draw_curve(pc, &p->curves[c], colors[c], wpm_x, wpm_y) != 0) return -1;
    pllsty(1);
    return 0;
}

/* Frame with ticks and tick labels, and the x10^k factors of the axes. */
static void draw_frame(panel_ctx *pc, const panel_layout *pl, const metrics *m) {
    plcol0(COL_FG);
    plwidth(lw(m, 1.0));
    plslabelfunc(label_cb, pc);
    int lanes = pc->panel->n_y_categories > 0;
    /* the frame and ticks one polyline a side (plot_frame.c); plbox then writes only the
       labels ("nt" without "b" and "c": labels at the major ticks, no line) */
    int own = draw_frame_lines(pl, m, 1, !lanes) == 0;
    const char *xopt = pl->shared_x           ? (own                    ? ""
                                                 : uses_pl_log(&pl->ax) ? "bcstlo"
                                                                        : "bcsto")
                       : own                  ? (uses_pl_log(&pl->ax) ? "ntlo" : "nto")
                       : uses_pl_log(&pl->ax) ? "bcnstlo"
                                              : "bcnsto";
    const char *yopt = lanes                  ? (own ? "" : "bc")
                       : own                  ? (uses_pl_log(&pl->ay) ? "ntvlo" : "ntvo")
                       : uses_pl_log(&pl->ay) ? "bcnstvlo"
                                              : "bcnstvo";
    if (xopt[0] || yopt[0]) plbox(xopt, pl->ax.step, pl->ax.nsub, yopt, pl->ay.step, pl->ay.nsub);
    plslabelfunc(NULL, NULL);
    /* the lanes' names, level with the lanes */
    for (size_t k = 0; lanes && k < pc->panel->n_y_categories; ++k) {
        double pos = ((double)k + 1.0 - pl->ay.lo) / (pl->ay.hi - pl->ay.lo);
        if (pos < 0.0 || pos > 1.0) continue;
        const char *name = pc->panel->y_categories[k] ? pc->panel->y_categories[k] : "";
        mtex("lv", 0.5, pos, 1.0, name);
        report_mtex(m, pc->index, pc->vp, "lv", 0.5, pos, 1.0, m->ch, name);
    }

    /* common factors */
    double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm;
    double vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
    double ch = m->ch;
    char fac[64];
    if (!pl->ax.log && pl->ax.expo != 0 && !pl->shared_x) { /* with its tick labels only */
        format_factor(pl->ax.expo, fac, sizeof fac);
        double pos = 1.0 + factor_offset(&pl->ax) * ch / vw_mm;
        plmtex("b", 1.5, pos, 0.0, fac);
        report_mtex(m, pc->index, pc->vp, "b", 1.5, pos, 0.0, ch, fac);
    }
    if (!pl->ay.log && pl->ay.expo != 0) {
        format_factor(pl->ay.expo, fac, sizeof fac);
        double pos = 1.0 + 1.15 * ch / vh_mm;
        plmtex("lv", 0.5, pos, 1.0, fac);
        report_mtex(m, pc->index, pc->vp, "lv", 0.5, pos, 1.0, ch, fac);
    }
}

/* The text scale (at most `scale`) at which text fits into avail_mm. */
static double fit(const char *text, double ch, double scale, double avail_mm) {
    char buf[1024];
    nsd_plot_escape_text(text ? text : "", buf, sizeof buf);
    double w = text_width_ch(buf) * ch * scale;
    return w > avail_mm && w > 0.0 ? scale * fmax(MIN_FIT_SCALE, avail_mm / w) : scale;
}

/* One label: plmtex at a scale that fits avail_mm, in the report. The displacement is in
 * character heights at `scale` (its length is kept when the text is set smaller). */
static void label(const metrics *m, const panel_layout *pl, const char *side, double disp,
                  double scale, double avail_mm, const char *text) {
    if (!text || !text[0]) return;
    double sc = fit(text, m->ch, scale, avail_mm);
    if (side[0] == 'l' && pl->ylabel_scale > 0.0) sc = fmin(sc, pl->ylabel_scale);
    plschr(m->ch, sc);
    mtex(side, disp * scale / sc, 0.5, 0.5, text);
    const double vp[4] = {pl->vx0, pl->vx1, pl->vy0, pl->vy1};
    /* axis labels are reported as such ("axis"), so a test can ask each for its unit */
    report_mtex(m, side[0] == 't' ? pl->index : -2 - pl->index, vp, side, disp * scale / sc, 0.5,
                0.5, m->ch * sc, text);
    plschr(m->ch, 1.0);
}

/* The scale at which p's y label (both lines of a split one) fits the side of its plot. */
double ylabel_fit(const nsd_panel *p, const panel_layout *pl, const metrics *m) {
    if (!p->ylabel || !p->ylabel[0]) return 1.0;
    double avail = 0.92 * (pl->vy1 - pl->vy0) * m->page_h_mm;
    if (!pl->ylabel_split) return fit(p->ylabel, m->ch, 1.0, avail);
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)pl->ylabel_split, p->ylabel);
    return fmin(fit(first, m->ch, 1.0, avail),
                fit(p->ylabel + pl->ylabel_split + 1, m->ch, 1.0, avail));
}

/* Axis labels and the panel title; a label longer than its side is set smaller (a y label
 * at pl->ylabel_scale at most: the same size in every panel). */
static void draw_labels(const nsd_panel *p, const panel_layout *pl, const metrics *m) {
    double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm, vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
    if (!pl->shared_x) label(m, pl, "b", 3.2, 1.0, vw_mm, p->xlabel);
    /* clear of the tick labels (their measured width) */
    double ydisp = 0.5 + pl->ay.label_w + 1.2;
    if (pl->ylabel_split) { /* two lines: the first further out (rotated text reads upwards) */
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)pl->ylabel_split, p->ylabel);
        label(m, pl, "l", ydisp + 1.5, 1.0, 0.92 * vh_mm, first);
        label(m, pl, "l", ydisp, 1.0, 0.92 * vh_mm, p->ylabel + pl->ylabel_split + 1);
    } else
        label(m, pl, "l", ydisp, 1.0, 0.92 * vh_mm, p->ylabel);
    label(m, pl, "t", pl->title_disp, 1.1, vw_mm + 2.0 * fmin(pl->L, pl->R), p->title);
    const double vp[4] = {pl->vx0, pl->vx1, pl->vy0, pl->vy1};
    report_box(m, "plot", pl->index, vp[0] * m->page_w_mm, vp[2] * m->page_h_mm,
               vp[1] * m->page_w_mm, vp[3] * m->page_h_mm, -1, NULL);
}

int draw_panel(const nsd_panel *p, panel_layout *pl, const metrics *m) {
    panel_ctx pc;
    panel_ctx_init(&pc, p, pl, m);
    const double vp[4] = {pl->vx0, pl->vx1, pl->vy0, pl->vy1};
    pc.index = pl->index;
    pc.vp = vp;
    draw_background(p, pl, m);

    int *colors = NULL;
    if (p->n_curves > 0) {
        colors = malloc(p->n_curves * sizeof *colors);
        if (colors == NULL) return -1;
        for (size_t c = 0; c < p->n_curves; ++c) colors[c] = curve_color(p, c);
    }
    if (draw_map(&pc, pl) != 0 || draw_curves(&pc, pl, colors) != 0 ||
        (p->draw != NULL && canvas_draw_picture(&pc) != 0)) {
        free(colors);
        return -1;
    }

    draw_frame(&pc, pl, m);
    draw_colorbar(&pc, pl);
    draw_labels(p, pl, m);
    draw_legend(&pc, pl, colors);
    free(colors);
    return 0;
}
