/* nsdyn plotting module: legends. pllegend draws the box and the texts; the line samples
 * and markers are drawn here over its empty sample area, so they match the curves (width,
 * dashes, marker size in mm). What PLplot's own pllegend could take over (issue 13): see the
 * note at the top of plot_axes.c. */
#include <math.h>

#include <plplot.h>

#include "plot_internal.h"

int curve_in_legend(const nsd_curve *c) { return c->legend != NULL && c->legend[0] != '\0'; }

static int vlines_in_legend(const nsd_panel *p) {
    return p->vlines_legend && p->vlines_legend[0] && p->n_vlines > 0;
}

/* Segment (a, b) - (c, d) meets the box u0..u1 x v0..v1 (Liang-Barsky). */
static int segment_meets(double a, double b, double c, double d, double u0, double u1, double v0,
                         double v1) {
    double t0 = 0.0, t1 = 1.0, dx = c - a, dy = d - b;
    const double pp[4] = {-dx, dx, -dy, dy}, qq[4] = {a - u0, u1 - a, b - v0, v1 - b};
    for (int k = 0; k < 4; ++k) {
        if (pp[k] == 0.0) {
            if (qq[k] < 0.0) return 0;
            continue;
        }
        double r = qq[k] / pp[k];
        if (pp[k] < 0.0)
            t0 = fmax(t0, r);
        else
            t1 = fmin(t1, r);
        if (t0 > t1) return 0;
    }
    return 1;
}

long legend_covered(const nsd_panel *p, const panel_layout *pl, double u0, double u1, double v0,
                    double v1) {
    double sx = pl->ax.hi - pl->ax.lo, sy = pl->ay.hi - pl->ay.lo;
    if (!(sx > 0.0) || !(sy > 0.0)) return 0;
    long hits = p->draw != NULL; /* a picture: assume it is everywhere */
    for (size_t c = 0; c < p->n_curves; ++c) {
        const nsd_curve *cv = &p->curves[c];
        if (!cv->x || !cv->y) continue;
        double pu = NAN, pv = NAN;
        for (size_t i = 0; i < cv->n; ++i) {
            double u = (tr(cv->x[i], pl->ax.log) - pl->ax.lo) / sx;
            double v = (tr(cv->y[i], pl->ay.log) - pl->ay.lo) / sy;
            if (!isfinite(u) || !isfinite(v)) {
                pu = pv = NAN;
                continue;
            }
            if (u >= u0 && u <= u1 && v >= v0 && v <= v1)
                hits++;
            else if (cv->marker != 1 && isfinite(pu) && segment_meets(pu, pv, u, v, u0, u1, v0, v1))
                hits++;
            pu = u;
            pv = v;
        }
    }
    for (size_t i = 0; p->vlines && i < p->n_vlines; ++i) {
        double u = (tr(p->vlines[i], pl->ax.log) - pl->ax.lo) / sx;
        hits += u >= u0 && u <= u1;
    }
    return hits;
}

/* What a legend of w x h (fractions of the viewport) in inside corner q (0..3), ox and oy
 * in from the frame, covers; the first corner where it covers no data, or 4 (outside
 * right) when every corner covers some or the legend does not fit inside at all. */
static long corner_covered(const nsd_panel *p, const panel_layout *pl, int q, double w, double h,
                           double ox, double oy) {
    int right = q == 0 || q == 2, top = q == 0 || q == 1;
    double u0 = right ? 1.0 - ox - w : ox, v0 = top ? 1.0 - oy - h : oy;
    return legend_covered(p, pl, u0, u0 + w, v0, v0 + h);
}

static int best_position(const nsd_panel *p, const panel_layout *pl, double w, double h, double ox,
                         double oy) {
    if (w + 2.0 * ox > 1.0 || h + 2.0 * oy > 1.0) return 4; /* does not fit inside */
    for (int q = 0; q < 4; ++q)
        if (corner_covered(p, pl, q, w, h, ox, oy) == 0) return q;
    return 4;
}

/* Where a legend goes: nsd_panel.legend_position, with "best" resolved. */
static void decide_position(const nsd_panel *p, panel_layout *pl, double ch, double vw_mm,
                            double vh_mm) {
    pl->legend_pos = p->legend_position;
    /* a map: the colour bar is right of the plot, and a legend inside would hide the map */
    if (p->map != NULL && (p->legend_position == 4 || p->legend_position == 5)) {
        pl->legend_pos = 7;
        return;
    }
    if (pl->n_legend && p->legend_position == 5) {
        pl->legend_pos = best_position(p, pl, pl->legend_w_mm / vw_mm, pl->legend_h_mm / vh_mm,
                                       0.8 * ch / vw_mm, 0.8 * ch / vh_mm);
    }
    /* outside right only while it leaves the plot most of the width (a narrow figure:
       a column-wide one); else above, outside the plot too */
    if (pl->n_legend && pl->legend_pos == 4 && pl->legend_w_mm > 0.4 * vw_mm) pl->legend_pos = 7;
}

/* Width of an entry of a legend above the plot [mm]: sample, gap, text at 0.85, space. */
static double above_entry_w(const char *escaped, double ch) {
    return (2.6 + 0.6 + 0.85 * text_width_ch(escaped) + 1.6) * ch;
}

void legend_measure(const nsd_panel *p, panel_layout *pl, double ch, double vw_mm, double vh_mm) {
    pl->n_legend = 0;
    double maxw = 0.0;
    for (size_t c = 0; c <= p->n_curves; ++c) {
        const char *text = c < p->n_curves       ? p->curves[c].legend
                           : vlines_in_legend(p) ? p->vlines_legend
                                                 : NULL;
        if (!text || !text[0]) continue;
        pl->n_legend++;
        char buf[512];
        nsd_plot_escape_text(text, buf, sizeof buf);
        double w = text_width_ch(buf);
        if (w > maxw) maxw = w;
    }
    if (pl->n_legend > 64) pl->n_legend = 64;
    /* An upper bound of the box pllegend draws (it sizes part of it in character heights
       of the subpage's y, so its width in x varies with the page's aspect): measured on
       boxes of 4 to 47 character widths of text, from 10.8 to 41.2 ch wide, all below
       1.1 (9.5 + 0.85 * 0.8 * text) with the text's estimated width; the measured
       width (plot_text.c) replaces 0.8 * estimate; rows of 2 ch. */
    pl->legend_w_mm = pl->n_legend ? 1.1 * (9.5 + 0.85 * maxw) * ch : 0.0;
    pl->legend_h_mm = pl->n_legend ? (2.0 * (double)pl->n_legend + 0.5) * ch : 0.0;
    /* "best" is decided at the first layout pass and checked once more at the second, on
       the viewport the margins of the first give: rows of different margins (a legend above
       one) can leave a plot smaller than the first pass guessed, and an inside corner that
       was free may then cover data. The margins after the second pass are sized for it. */
    if (!pl->legend_decided) {
        pl->legend_decided = 1;
        decide_position(p, pl, ch, vw_mm, vh_mm);
    } else if (pl->legend_decided == 1) {
        pl->legend_decided = 2;
        double w = pl->legend_w_mm / vw_mm, h = pl->legend_h_mm / vh_mm;
        double ox = 0.8 * ch / vw_mm, oy = 0.8 * ch / vh_mm;
        if (p->legend_position == 5 && pl->legend_pos < 4 &&
            (w + 2.0 * ox > 1.0 || h + 2.0 * oy > 1.0 ||
             corner_covered(p, pl, pl->legend_pos, w, h, ox, oy)))
            decide_position(p, pl, ch, vw_mm, vh_mm);
    }
    /* above the plot: entries flow in rows across the viewport's width */
    pl->legend_rows = 0;
    if (pl->n_legend && pl->legend_pos == 7) {
        double x = 0.0;
        pl->legend_rows = 1;
        for (size_t c = 0; c <= p->n_curves; ++c) {
            const char *text = c < p->n_curves       ? p->curves[c].legend
                               : vlines_in_legend(p) ? p->vlines_legend
                                                     : NULL;
            if (!text || !text[0]) continue;
            char buf[512];
            nsd_plot_escape_text(text, buf, sizeof buf);
            double w = above_entry_w(buf, ch);
            if (x > 0.0 && x + w > fmax(vw_mm, pl->above_w_mm)) {
                pl->legend_rows++;
                x = 0.0;
            }
            x += w;
        }
        /* running on over the panels to the right, it stays above their y axes' x10^k
           factors (1.65 ch above the plot) */
        int spans = pl->above_w_mm > vw_mm * 1.01;
        pl->legend_h_mm = (1.5 * (double)pl->legend_rows + 0.4 + (spans ? 1.5 : 0.0)) * ch;
    }
}

/* The legend's entries: the curves with a legend text, at most 64, in order. */
typedef struct legend_entries {
    size_t n;
    PLINT opt_array[64], text_colors[64];
    char texts[64][256];
    const char *text_ptrs[64];
    size_t idx[64]; /* the curve of each entry */
} legend_entries;

/* idx == n_curves: the entry of the event lines. */
static void legend_collect(const nsd_panel *p, size_t n, legend_entries *e) {
    if (n > 64) n = 64;
    size_t k = 0;
    for (size_t c = 0; c <= p->n_curves && k < n; ++c) {
        const char *text = c < p->n_curves       ? p->curves[c].legend
                           : vlines_in_legend(p) ? p->vlines_legend
                                                 : NULL;
        if (!text || !text[0]) continue;
        nsd_plot_escape_text(text, e->texts[k], sizeof e->texts[k]);
        e->text_ptrs[k] = e->texts[k];
        e->opt_array[k] = PL_LEGEND_NONE;
        e->text_colors[k] = COL_FG;
        e->idx[k] = c;
        k++;
    }
    e->n = k;
}

/* pllegend's position for legend_position (0..4); *y is zeroed for the outside-right one,
 * which is centred vertically. */
static PLINT legend_placement(int legend_position, double *y) {
    PLINT position;
    switch (legend_position) {
        case 1: position = PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE; break;
        case 2: position = PL_POSITION_RIGHT | PL_POSITION_BOTTOM | PL_POSITION_INSIDE; break;
        case 3: position = PL_POSITION_LEFT | PL_POSITION_BOTTOM | PL_POSITION_INSIDE; break;
        case 4:
            position = PL_POSITION_RIGHT | PL_POSITION_OUTSIDE;
            *y = 0.0;
            break;
        default: position = PL_POSITION_RIGHT | PL_POSITION_TOP | PL_POSITION_INSIDE; break;
    }
    return position | PL_POSITION_VIEWPORT;
}

/* Top-left corner of a legend box of lw_ac x lh_ac placed at offsets (x, y), in adopted
 * (viewport) coordinates: pllegend's legend_position logic for the positions used here. */
static void legend_corner(int legend_position, double x, double y, double lw_ac, double lh_ac,
                          double *left, double *top) {
    switch (legend_position) {
        case 1:
            *left = x;
            *top = 1.0 - y;
            break;
        case 2:
            *left = 1.0 - x - lw_ac;
            *top = y + lh_ac;
            break;
        case 3:
            *left = x;
            *top = y + lh_ac;
            break;
        case 4:
            *left = 1.0 + x;
            *top = 0.5 + 0.5 * lh_ac;
            break;
        default:
            *left = 1.0 - x - lw_ac;
            *top = 1.0 - y;
            break;
    }
}

/* Line sample and markers of curve c at page height py, from page x px0 to px1
 * (normalized page coordinates, the current window). */
static void legend_sample(const metrics *m, const nsd_curve *c, int color, double px0, double px1,
                          double py) {
    double wpm_x = 1.0 / m->page_w_mm, wpm_y = 1.0 / m->page_h_mm;
    if (c == NULL) { /* the event lines: a short grey vertical line */
        plcol0(COL_VLINE);
        plwidth(lw(m, 0.8));
        pllsty(1);
        double xm = 0.5 * (px0 + px1), hh = 0.45 * m->ch / m->page_h_mm;
        PLFLT lx[2] = {xm, xm}, ly[2] = {py - hh, py + hh};
        plline(2, lx, ly);
        return;
    }
    if (c->legend_patch) { /* a filled patch */
        double hh = 0.35 * m->ch / m->page_h_mm;
        PLFLT fx[4] = {px0, px1, px1, px0}, fy[4] = {py - hh, py - hh, py + hh, py + hh};
        use_color(COL_PALETTE + color, c->opacity);
        plpsty(0);
        plfill(4, fx, fy);
        return;
    }
    curve_style(m, c, color);
    if (c->marker != 1) {
        PLFLT lx[2] = {px0, px1}, ly[2] = {py, py};
        plline(2, lx, ly);
    }
    pllsty(1);
    if (c->marker != 0) {
        double r = marker_radius_mm(m, curve_width(c));
        if (c->marker == 1) {
            marker_dot(0.5 * (px0 + px1), py, r, wpm_x, wpm_y);
        } else {
            marker_dot(px0 + 0.15 * (px1 - px0), py, r, wpm_x, wpm_y);
            marker_dot(px1 - 0.15 * (px1 - px0), py, r, wpm_x, wpm_y);
        }
    }
}

/* A legend above the plot (position 7): the entries in rows, the last row just above the
 * frame, drawn here entirely (pllegend has no flowing layout). */
static void draw_legend_above(panel_ctx *pc, const panel_layout *pl, const int *colors,
                              const legend_entries *e) {
    const metrics *m = pc->m;
    const nsd_panel *p = pc->panel;
    double ch = m->ch, W = m->page_w_mm, H = m->page_h_mm;
    double x0 = pl->vx0 * W, x1 = fmax(pl->vx1 * W, x0 + pl->above_w_mm), row_h = 1.5 * ch;
    double x = x0, top = pl->vy1 * H + pl->legend_h_mm; /* the block's top [mm] */
    double y = top - 0.5 * row_h;
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    for (size_t i = 0; i < e->n; ++i) {
        double w = above_entry_w(e->texts[i], ch);
        /* an entry wider than the row: its text smaller, down to MIN_FIT_SCALE */
        double tw = 0.85 * text_width_ch(e->texts[i]) * ch, room = x1 - x0 - (3.2 + 0.4) * ch;
        double ts = 0.85 * (tw > room && tw > 0.0 ? fmax(MIN_FIT_SCALE, room / tw) : 1.0);
        if (x > x0 && x + w > x1) {
            x = x0;
            y -= row_h;
        }
        size_t c = e->idx[i];
        legend_sample(m, c < p->n_curves ? &p->curves[c] : NULL, c < p->n_curves ? colors[c] : 0,
                      x / W, (x + 2.6 * ch) / W, y / H);
        plcol0(COL_FG);
        plschr(ch, ts);
        plptex((x + 3.2 * ch) / W, y / H, 1.0, 0.0, 0.0, e->texts[i]);
        report_box(m, "text", pl->index, x + 3.2 * ch, y - 0.425 * ch,
                   x + 3.2 * ch + ts * text_width_ch(e->texts[i]) * ch, y + 0.425 * ch, -1,
                   e->texts[i]);
        plschr(ch, 1.0);
        x += w;
    }
    report_box(m, "legend", pl->index, x0, pl->vy1 * H, x1, top, 0, NULL);
    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
}

void draw_legend(panel_ctx *pc, const panel_layout *pl, const int *colors) {
    const nsd_panel *p = pc->panel;
    const metrics *m = pc->m;
    if (pl->n_legend == 0) return;
    legend_entries e;
    legend_collect(p, pl->n_legend, &e);
    size_t n = e.n;
    double vw = pl->vx1 - pl->vx0, vh = pl->vy1 - pl->vy0;
    double vw_mm = vw * m->page_w_mm;
    double sample_mm = 2.6 * m->ch;
    double plot_width = sample_mm / vw_mm; /* adopted (viewport) units */
    double off_x = 0.8 * m->ch / vw_mm, off_y = 0.8 * m->ch / (vh * m->page_h_mm);
    double x = off_x, y = off_y;
    if (pl->legend_pos == 6) return;
    if (pl->legend_pos == 7) {
        draw_legend_above(pc, pl, colors, &e);
        return;
    }
    PLINT position = legend_placement(pl->legend_pos, &y);
    PLFLT lw_ac = 0.0, lh_ac = 0.0;
    plwidth(lw(m, 0.8));
    pllsty(1);
    pllegend(&lw_ac, &lh_ac, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, position, x, y,
             plot_width, COL_LEGEND_BG, COL_LEGEND_FRAME, 1, 0, 0, (PLINT)n, e.opt_array, 0.6, 0.85,
             2.0, 0.0, e.text_colors, e.text_ptrs, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL);
    if (!(lw_ac > 0.0) || !(lh_ac > 0.0)) return;
    double left, top;
    legend_corner(pl->legend_pos, x, y, lw_ac, lh_ac, &left, &top);
    if (m->report) {
        double u0 = left, u1 = left + lw_ac, v0 = top - lh_ac, v1 = top;
        long covered = pl->legend_pos == 4 ? 0 : legend_covered(p, pl, u0, u1, v0, v1);
        report_box(m, "legend", pl->index, (pl->vx0 + u0 * vw) * m->page_w_mm,
                   (pl->vy0 + v0 * vh) * m->page_h_mm, (pl->vx0 + u1 * vw) * m->page_w_mm,
                   (pl->vy0 + v1 * vh) * m->page_h_mm, covered, NULL);
    }
    /* pllegend leaves a border of 0.4 character heights (expressed in
       normalized subpage y units, used along x) before the sample area */
    double ch_sub_y = m->ch / m->page_h_mm;
    double border_ac = 0.4 * ch_sub_y / vw;
    /* draw the samples in normalized page coordinates */
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    for (size_t i = 0; i < n; ++i) {
        double yc = top - ((double)i + 0.5) * lh_ac / (double)n;
        double xa = left + border_ac, xb = xa + plot_width;
        double px0 = pl->vx0 + xa * vw, px1 = pl->vx0 + xb * vw;
        double py = pl->vy0 + yc * vh;
        size_t c = e.idx[i];
        legend_sample(m, c < p->n_curves ? &p->curves[c] : NULL, c < p->n_curves ? colors[c] : 0,
                      px0, px1, py);
    }
    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
}
