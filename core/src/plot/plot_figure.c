/* nsdyn plotting module: the figure. Its scale (text and lines follow the size of a panel
 * row), the grid of panels with margins shared by a column or a row, the overall title,
 * and the colour map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

/* Okabe & Ito (2008), ordered for line plots on white. */
static const unsigned char palette_rgb[NSD_PLOT_PALETTE_SIZE][3] = {
    {0x00, 0x72, 0xB2}, /* blue */
    {0xD5, 0x5E, 0x00}, /* vermilion */
    {0x00, 0x9E, 0x73}, /* bluish green */
    {0xE6, 0x9F, 0x00}, /* orange */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0x56, 0xB4, 0xE9}, /* sky blue */
    {0x00, 0x00, 0x00}, /* black */
    {0x88, 0x88, 0x88}, /* grey (Okabe-Ito's yellow #F0E442 is too pale for a line) */
};

/* Page size and the scale of text and lines; -1 for an empty page. */
static int figure_metrics(metrics *m, const nsd_figure *fig, int width_px, int height_px,
                          size_t rows) {
    PLFLT x0, x1, y0, y1;
    pladv(0);
    plgspa(&x0, &x1, &y0, &y1);
    m->page_w_mm = x1 - x0;
    m->page_h_mm = y1 - y0;
    if (!(m->page_w_mm > 0.0) || !(m->page_h_mm > 0.0)) return -1;
    m->mm_per_px = m->page_w_mm / width_px;
    double row_px = (double)height_px / (double)rows;
    /* 1 for 1200 x 400 px per row; follow the panel size, mildly */
    double s = sqrt(((double)width_px / DEFAULT_WIDTH_PX) * (row_px / DEFAULT_ROW_PX));
    m->s = clampd(s, 0.55, 4.0);
    double fs = fig->font_scale > 0.0 && isfinite(fig->font_scale) ? fig->font_scale : 1.0;
    double ls = fig->line_scale > 0.0 && isfinite(fig->line_scale) ? fig->line_scale : 1.0;
    /* text_size: the em in page pixels. The cairo drivers ask Pango for chrht * 72 / 25.4
       points (drivers/cairo.c, open_span_tag), which Pango renders at its default 96 dpi
       on a surface of one pixel per point: an em of 4/3 of the character height */
    double ch_px = fig->text_size > 0.0 && isfinite(fig->text_size) ? 0.75 * fig->text_size
                                                                    : REF_CHAR_PX * m->s;
    m->ch = ch_px * m->mm_per_px * clampd(fs, 0.25, 4.0);
    m->line_scale = clampd(ls, 0.1, 10.0);
    return 0;
}

/* The grid of panels, row-major: cells under the overall title's band, and the margins a
 * column (left, right) or a row (top, bottom) shares [mm]. */
typedef struct grid {
    size_t cols, rows;
    double title_h; /* band of the overall title */
    double cell_w, pad;
    double *colL, *colR, *rowT, *rowB;
    double *rowH;   /* the height of each row's cells: its margins and the common plot height */
    double need_mm; /* the page height at which the rows' margins need no shrinking */
} grid;

static void grid_free(grid *g) {
    free(g->colL);
    free(g->colR);
    free(g->rowT);
    free(g->rowB);
    free(g->rowH);
}

/* The top of row r, measured down from the bottom of the title band [mm]. */
static double row_top(const grid *g, size_t r) {
    double y = 0.0;
    for (size_t k = 0; k < r; ++k) y += g->rowH[k];
    return y;
}

/* Margins of each column and row: the largest its panels need, scaled down so at least
 * 35% of each cell's width, and of the page's height below the title, is left for the plot
 * areas. Rows then take their own margins and one common plot height: a row with a legend
 * above its plots or a taller title is taller, and no plot is squeezed for it (issue 26: a
 * two-row compare figure at 504 pt squeezed the first row until its title ran into the
 * legend). */
static void grid_margins(grid *g, const panel_layout *pl, size_t n, double page_h_mm) {
    size_t cols = g->cols, rows = g->rows;
    double *colL = g->colL, *colR = g->colR, *rowT = g->rowT, *rowB = g->rowB;
    double cell_w = g->cell_w, pad = g->pad;
    for (size_t c = 0; c < cols; ++c) colL[c] = colR[c] = 0.0;
    for (size_t r = 0; r < rows; ++r) rowT[r] = rowB[r] = 0.0;
    for (size_t i = 0; i < n; ++i) {
        size_t c = i % cols, r = i / cols;
        colL[c] = fmax(colL[c], pl[i].L);
        colR[c] = fmax(colR[c], pl[i].R);
        rowT[r] = fmax(rowT[r], pl[i].T);
        rowB[r] = fmax(rowB[r], pl[i].B);
    }
    /* keep at least 35% of each cell for the plot area */
    for (size_t c = 0; c < cols; ++c) {
        double tot = colL[c] + colR[c], avail = 0.65 * (cell_w - 2 * pad);
        if (tot > avail && tot > 0.0) {
            colL[c] *= avail / tot;
            colR[c] *= avail / tot;
        }
    }
    double body = page_h_mm - g->title_h - 2 * pad * (double)rows, tot = 0.0;
    for (size_t r = 0; r < rows; ++r) tot += rowT[r] + rowB[r];
    double avail = 0.65 * body, k = tot > avail && tot > 0.0 ? avail / tot : 1.0;
    /* a page that may grow gives its plots at least half of the height below the title */
    g->need_mm = g->title_h + 2 * pad * (double)rows + tot / 0.5;
    for (size_t r = 0; r < rows; ++r) {
        rowT[r] *= k;
        rowB[r] *= k;
    }
    double plot_h = (body - k * tot) / (double)rows;
    for (size_t r = 0; r < rows; ++r) g->rowH[r] = rowT[r] + rowB[r] + 2 * pad + plot_h;
}

/* The right end of the band a legend above panel i's plot may take [mm from the page's left
 * edge]: over the free top margins of the panels to its right in the row, to the right edge
 * of the page, but only up to the first of them with a legend above its own plot (known:
 * its layout was done once before), whose band starts at its cell. */
static double above_right_mm(const grid *g, const panel_layout *pl, size_t n, size_t i, int known,
                             double page_w_mm) {
    size_t c = i % g->cols;
    for (size_t k = i + 1; known && k < n && k % g->cols > c; ++k)
        if (pl[k].n_legend > 0 && pl[k].legend_pos == 7)
            return (double)(k % g->cols) * g->cell_w - g->pad;
    return page_w_mm - g->pad;
}

/* Axes and margins of every panel. Two passes: margins depend on tick labels, which depend
 * (equal aspect) on the viewport size, which depends on the margins. */
static void layout_panels(const nsd_figure *fig, panel_layout *pl, const metrics *m, grid *g) {
    size_t n = fig->n_panels, cols = g->cols;
    double cell_w = g->cell_w, pad = g->pad;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < n; ++i) {
            size_t c = i % cols, r = i / cols;
            double vw = cell_w - 2 * pad, vh = g->rowH[r] - 2 * pad;
            if (pass > 0) {
                vw -= g->colL[c] + g->colR[c];
                vh -= g->rowT[r] + g->rowB[r];
            } else {
                vw *= 0.8;
                vh *= 0.75;
            }
            pl[i].above_w_mm = above_right_mm(g, pl, n, i, pass > 0, m->page_w_mm) -
                               (double)c * cell_w - pad - (pass > 0 ? g->colL[c] : 0.0);
            panel_axes(&fig->panels[i], &pl[i], m, fmax(vw, 1.0), fmax(vh, 1.0));
        }
        grid_margins(g, pl, n, m->page_h_mm);
    }
}

static int same_limit(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Stacks of panels on one x axis (nsd_panel.shared_x): a panel shares the axis of the
 * panel below it in its column only when both ask for the same x limits, scale and aspect;
 * then the stack takes the union of their x data, so every panel shows the same range and
 * the bottom panel's tick labels and x label hold for all of them. A panel whose limits
 * differ (a [plot.figure] xlim of its own) keeps its own labelled axis: a shared axis must
 * never label a range a panel does not show. */
static void share_x(const nsd_figure *fig, panel_layout *pl, size_t cols) {
    size_t n = fig->n_panels;
    for (size_t i = 0; i < n; ++i) {
        const nsd_panel *p = &fig->panels[i], *q = i + cols < n ? &fig->panels[i + cols] : NULL;
        pl[i].shared_x = p->shared_x && q && same_limit(p->xmin, q->xmin) &&
                         same_limit(p->xmax, q->xmax) && p->log_x == q->log_x && !p->equal_aspect &&
                         !q->equal_aspect;
    }
    for (size_t i = 0; i < n; ++i) /* down the stack: the union reaches its bottom panel */
        if (pl[i].shared_x && pl[i].dx.have) {
            range_add(&pl[i + cols].dx, pl[i].dx.lo);
            range_add(&pl[i + cols].dx, pl[i].dx.hi);
        }
    for (size_t i = n; i-- > 0;) /* and back up to every panel above it */
        if (pl[i].shared_x) pl[i].dx = pl[i + cols].dx;
}

/* Viewport of panel i (normalized page coordinates) and its title line. */
static void place_panel(const grid *g, const metrics *m, size_t i, panel_layout *pl) {
    size_t c = i % g->cols, r = i / g->cols;
    double cell_w = g->cell_w, pad = g->pad, title_h = g->title_h;
    double cx0 = (double)c * cell_w + pad, cx1 = (double)(c + 1) * cell_w - pad;
    double ctop = m->page_h_mm - title_h - row_top(g, r) - pad;
    double cbot = m->page_h_mm - title_h - row_top(g, r) - g->rowH[r] + pad;
    double vx0 = (cx0 + g->colL[c]) / m->page_w_mm, vx1 = (cx1 - g->colR[c]) / m->page_w_mm;
    double vy0 = (cbot + g->rowB[r]) / m->page_h_mm, vy1 = (ctop - g->rowT[r]) / m->page_h_mm;
    vx0 = clampd(vx0, 0.0, 0.99);
    vy0 = clampd(vy0, 0.0, 0.99);
    vx1 = clampd(vx1, vx0 + 0.005, 1.0);
    vy1 = clampd(vy1, vy0 + 0.005, 1.0);
    pl->vx0 = vx0;
    pl->vx1 = vx1;
    pl->vy0 = vy0;
    pl->vy1 = vy1;
    /* titles of a row on one line, at the top of the row's margin (above
       any x10^k factor of a y axis) */
    pl->title_disp = fmax(1.0, (g->rowT[r] / m->ch - 1.25) / 1.1);
}

/* The overall title: one line, or two (split at the blank nearest the middle) when one does
 * not fit the page's width at full size; bold at 1.3 of the text size, smaller until the
 * longer line fits, down to 1.3 MIN_FIT_SCALE (below, it is clipped: the layout test says
 * so). Measured in the bold font it is drawn in. */
typedef struct title_layout {
    char line[2][1024]; /* escaped */
    int n;
    double scale;
} title_layout;

#define TITLE_LINE 1.45 /* line spacing of a two-line title [its character heights] */

static double bold_width_mm(const char *escaped, const metrics *m, double scale) {
    plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_BOLD);
    plschr(m->ch, scale);
    double w = text_width_ch(escaped) * m->ch * scale;
    plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
    plschr(m->ch, 1.0);
    return w;
}

static void title_layout_of(const char *title, const metrics *m, title_layout *t) {
    double avail = 0.96 * m->page_w_mm;
    t->n = 1;
    nsd_plot_escape_text(title, t->line[0], sizeof t->line[0]);
    double w = bold_width_mm(t->line[0], m, 1.3);
    size_t n = strlen(title), split = 0;
    for (size_t i = 1; w > avail && i + 1 < n; ++i)
        if (title[i] == ' ' && (split == 0 || fabs((double)i - 0.5 * (double)n) <
                                                  fabs((double)split - 0.5 * (double)n)))
            split = i;
    if (split) {
        char first[1024];
        snprintf(first, sizeof first, "%.*s", (int)split, title);
        nsd_plot_escape_text(first, t->line[0], sizeof t->line[0]);
        nsd_plot_escape_text(title + split + 1, t->line[1], sizeof t->line[1]);
        t->n = 2;
        w = fmax(bold_width_mm(t->line[0], m, 1.3), bold_width_mm(t->line[1], m, 1.3));
    }
    t->scale = 1.3 * (w > avail ? fmax(MIN_FIT_SCALE, avail / w) : 1.0);
}

/* The height of the title's band [mm]. */
static double title_band(const title_layout *t, const metrics *m) {
    return (2.6 * 1.3 + (t->n - 1) * TITLE_LINE * t->scale) * m->ch;
}

/* The overall title, centred in its band at the top of the page. */
static void draw_title(const title_layout *t, const metrics *m, double title_h, const char *title) {
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    for (int k = 0; k < t->n; ++k) {
        /* measured again at the size it is drawn at: hinted glyph advances do not scale
           linearly with the size */
        double hw = 0.5 * bold_width_mm(t->line[k], m, t->scale), ch = m->ch * t->scale;
        double yc = m->page_h_mm - 0.5 * title_h + (0.5 * (t->n - 1) - k) * TITLE_LINE * ch;
        plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_BOLD);
        plschr(m->ch, t->scale);
        plcol0(COL_FG);
        report_box(m, "text", -1, 0.5 * m->page_w_mm - hw, yc - 0.5 * ch, 0.5 * m->page_w_mm + hw,
                   yc + 0.5 * ch, -1, t->n == 1 ? title : t->line[k]);
        plptex(0.5, yc / m->page_h_mm, 1.0, 0.0, 0.5, t->line[k]);
    }
    plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
    plschr(m->ch, 1.0);
}

int draw_figure(const nsd_figure *fig, size_t cols, size_t rows, int width_px, int height_px,
                const char *path, FILE *report, int *grow_px) {
    metrics m;
    if (figure_metrics(&m, fig, width_px, height_px, rows) != 0) return -1;
    m.report = report;
    report_begin(&m, path);
    /* a viewport and the text size, so the driver can measure text for the layout */
    plvpor(0.0, 1.0, 0.0, 1.0);
    plschr(m.ch, 1.0);

    size_t n = fig->n_panels;
    grid g = {cols, rows, 0.0, 0.0, 0.0, NULL, NULL, NULL, NULL, NULL, 0.0};
    panel_layout *pl = calloc(n, sizeof *pl);
    g.colL = calloc(cols, sizeof(double));
    g.colR = calloc(cols, sizeof(double));
    g.rowT = calloc(rows, sizeof(double));
    g.rowB = calloc(rows, sizeof(double));
    g.rowH = calloc(rows, sizeof(double));
    if (!pl || !g.colL || !g.colR || !g.rowT || !g.rowB || !g.rowH) {
        free(pl);
        grid_free(&g);
        return -1;
    }

    title_layout tl = {.n = 0};
    if (fig->title && fig->title[0]) title_layout_of(fig->title, &m, &tl);
    g.title_h = tl.n ? title_band(&tl, &m) : 0.6 * m.ch;
    g.cell_w = m.page_w_mm / (double)cols;
    g.pad = 0.5 * m.ch;
    for (size_t r = 0; r < rows; ++r) g.rowH[r] = (m.page_h_mm - g.title_h) / (double)rows;

    for (size_t i = 0; i < n; ++i) {
        panel_extents(&fig->panels[i], &pl[i]);
        pl[i].index = (long)i;
    }
    share_x(fig, pl, cols);
    layout_panels(fig, pl, &m, &g);
    /* A page that may grow and is too short: nothing drawn, the height the rows need, at
       least 2% more (the text scale follows the row height, mildly, see figure_metrics).
       A page already at the largest height (10000) is drawn as it is, margins shrunk. */
    int grow = grow_px && fig->fit_height && g.need_mm > 1.001 * m.page_h_mm
                   ? (int)fmin(10000.0, ceil(fmax(g.need_mm / m.page_h_mm, 1.02) * height_px))
                   : 0;
    if (grow > height_px) {
        *grow_px = grow;
        free(pl);
        grid_free(&g);
        return 0;
    }

    double ylabel_scale = 1.0; /* every y label at the size the tightest one fits at */
    for (size_t i = 0; i < n; ++i) {
        place_panel(&g, &m, i, &pl[i]);
        pl[i].above_w_mm = above_right_mm(&g, pl, n, i, 1, m.page_w_mm) - pl[i].vx0 * m.page_w_mm;
        /* final axes for the final viewport (equal aspect) */
        panel_axes(&fig->panels[i], &pl[i], &m, (pl[i].vx1 - pl[i].vx0) * m.page_w_mm,
                   (pl[i].vy1 - pl[i].vy0) * m.page_h_mm);
        ylabel_scale = fmin(ylabel_scale, ylabel_fit(&fig->panels[i], &pl[i], &m));
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; ++i) {
        pl[i].ylabel_scale = fmax(MIN_FIT_SCALE, ylabel_scale);
        rc = draw_panel(&fig->panels[i], &pl[i], &m);
    }

    if (rc == 0 && tl.n) draw_title(&tl, &m, g.title_h, fig->title);
    report_end(&m);

    free(pl);
    grid_free(&g);
    return rc;
}

void set_colors(void) {
    PLINT r[N_COLORS], g[N_COLORS], b[N_COLORS];
    PLFLT a[N_COLORS];
    static const unsigned char fixed[COL_PALETTE][3] = {
        {0xFF, 0xFF, 0xFF}, /* bg */
        {0x00, 0x00, 0x00}, /* fg */
        {0xDD, 0xDD, 0xDD}, /* grid */
        {0x99, 0x99, 0x99}, /* event lines */
        {0x4D, 0x4D, 0x4D}, /* ground */
        {0xD9, 0xD9, 0xD9}, /* structure fill */
        {0xE8, 0xE8, 0xE8}, /* ground fill */
        {0xFF, 0xFF, 0xFF}, /* legend background */
        {0xBB, 0xBB, 0xBB}, /* legend frame */
    };
    static const unsigned char scratch[3] = {0, 0, 0};
    for (int i = 0; i < N_COLORS; ++i) {
        const unsigned char *c = i < COL_PALETTE   ? fixed[i]
                                 : i < COL_SCRATCH ? palette_rgb[i - COL_PALETTE]
                                                   : scratch;
        r[i] = c[0];
        g[i] = c[1];
        b[i] = c[2];
        a[i] = (i == COL_LEGEND_BG) ? 0.85 : 1.0;
    }
    plscmap0a(r, g, b, a, N_COLORS);
}
