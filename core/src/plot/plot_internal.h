/* nsdyn plotting module, internal: what the files of the module share. The public API is
 * plot.h; nothing here is for use outside core/src/plot*.c.
 *
 * The module, by concern (each file says more at its top):
 *   plot_text.c    text: PLplot escaping, label widths, output formats and their devices
 *   plot_ftext.c   text widths for PLplot's svg driver, measured with FreeType
 *   plot_axes.c    axes: ranges, data -> plotting coordinates, ticks and tick labels
 *   plot_clip.c    clipping of lines and polygons, polylines within a tolerance to PLplot
 *   plot_canvas.c  the canvas a panel's picture is drawn through (nsdyn_canvas), and the
 *                  bounding-box canvas that measures such a picture
 *   plot_curves.c  curves: palette colours, line styles, markers
 *   plot_legend.c  legends: their width for the layout, and drawing them
 *   plot_map.c     maps: a scalar over a grid as a continuous colour scale, the colour bar
 *   plot_panel.c   one panel: data extents, axes and margins, drawing it
 *   plot_figure.c  the figure: scale, grid of panels, overall title, colour map
 *   plot_write.c   nsd_plot_write: checks of the figure, the PLplot stream and its error
 *                  handlers, the temporary file and the checks of the output
 *
 * Implementation notes.
 *  - All geometry is computed in "transformed" coordinates (log10 for log axes). Lines and
 *    polygons are clipped here against a slightly enlarged window before they reach PLplot,
 *    so absurd coordinates never reach PLplot's integer device coordinates.
 *  - Tick positions and labels are computed here (nice 1-2-2.5-5 steps, a true minus sign,
 *    a common x10^k factor for very large/small values), so the margins can be sized from
 *    the real label widths.
 *  - Lengths are in millimetres of the PLplot page unless a name or comment says otherwise;
 *    text widths are in character heights.
 */
#ifndef NSD_PLOT_INTERNAL_H
#define NSD_PLOT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <plplot.h>

#include "plot.h"

/* The names below are shared between the module's files only: keep them out of libnsdyn's
 * exported symbols, as they were when plot.c was one file of static functions. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* ---- constants ----------------------------------------------------------- */

#define DEFAULT_WIDTH_PX 1200
#define DEFAULT_ROW_PX 400
#define DEFAULT_MAX_HEIGHT_PX 2400
#define MIN_SIZE_PX 100
#define MAX_SIZE_PX 10000
#define MAX_PNG_PIXELS 50000000.0 /* cairo keeps 4 bytes a pixel, memcairo's buffer 3 */
#define MAX_PANELS 256

/* Coordinates are clamped to this magnitude (PLplot converts world to integer
 * device coordinates; keep every computation finite). */
#define COORD_MAX 1e300

/* Text geometry of the cairo driver with DejaVu/any sans font, in units of
 * PLplot's character height: advance of a digit, of the minus sign (U+2212),
 * of '.', and of an average letter. Used only to size margins. */
#define DIGIT_W 0.85
#define MINUS_W 1.12
#define DOT_W 0.42
#define LETTER_W 0.78

/* The smallest scale a title or label is set at to fit its side (of its own size): smaller
 * text is unreadable in print; a text that does not fit even so is clipped, and the layout
 * test reports it (tests/check_figures.py). */
#define MIN_FIT_SCALE 0.6

/* Reference text height: 13 px of PLplot character height for a
 * 1200 x 400 px panel row; scaled with the figure (see figure_metrics). */
#define REF_CHAR_PX 13.0

/* cmap0 layout */
enum {
    COL_BG = 0,     /* white background */
    COL_FG = 1,     /* black: axes, text, structure */
    COL_GRID = 2,   /* light grey grid */
    COL_VLINE = 3,  /* event lines */
    COL_GROUND = 4, /* dark grey ground lines and hatching */
    COL_FILL = 5,   /* structure fill */
    COL_GROUND_FILL = 6,
    COL_LEGEND_BG = 7, /* white, slightly transparent */
    COL_LEGEND_FRAME = 8,
    COL_PALETTE = 9, /* first of NSD_PLOT_PALETTE_SIZE curve colours */
    COL_SCRATCH = COL_PALETTE + NSD_PLOT_PALETTE_SIZE, /* set just before use: blended colours */
    N_COLORS
};

/* plcol0(col), or, for opacity in (0, 1), col blended with the white background through
 * COL_SCRATCH (plot_curves.c). */
void use_color(int col, double opacity);

/* Palette indices the canvas pens use (see palette_rgb in plot_figure.c). */
#define PAL_BLUE 0
#define PAL_VERMILION 1

/* ---- small helpers ------------------------------------------------------- */

static inline double clampd(double v, double lo, double hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- plot_text.c: text and formats ---------------------------------------- */

/* One-line reason into err (newlines become blanks); nothing when err_len is 0. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void set_err(char *err, size_t err_len, const char *fmt, ...);

/* Length of the valid UTF-8 sequence at p, 0 if invalid. */
size_t utf8_seq_len(const unsigned char *p);
/* Approximate width of a UTF-8 string [character heights]. */
double text_width_ch(const char *s);
/* plot_ftext.c: the width of PLplot text [mm] at the current size and weight as PLplot's
 * svg driver writes it, measured in DejaVu Sans with FreeType; -1 without the font. */
double ftext_string_mm(const char *s);
/* Closes the faces ftext_string_mm opened (a destructor: at unload or exit). */
void ftext_release(void);
/* 1 if the current stream draws pixels (PNG: memcairo), 0 for SVG and PDF. */
int device_is_raster(void);
/* 1 if the current stream's driver draws arcs itself; 0 if PLplot makes them polylines. */
int driver_draws_arcs(void);
/* plmtex of literal (escaped) text; nothing for NULL or "". */
void mtex(const char *side, double disp, double pos, double just, const char *text);
/* PLplot device of a format ("memcairo" for PNG, then plot_png.c, ...); NULL outside the
 * enum. */
const char *format_device(nsd_plot_format f);

/* ---- plot_png.c ------------------------------------------------------------ */

/* Encode width_px x height_px RGB pixels (3 bytes each, rows top first: what memcairo
 * draws) as a PNG into f, with a pHYs chunk of dpi pixels per inch when dpi > 0. 0, or
 * -1 with err set (f is left to the caller). */
int png_write_rgb(FILE *f, const unsigned char *rgb, int width_px, int height_px, double dpi,
                  char *err, size_t err_len);

/* ---- plot_axes.c: ranges, transforms, ticks ------------------------------- */

typedef struct range {
    double lo, hi;
    int have;
} range;

typedef struct axis_info {
    int log;
    double lo, hi;  /* window, transformed coordinates */
    double step;    /* major tick spacing (linear axes) */
    int nsub;       /* minor intervals per major */
    int decimals;   /* digits after the point in tick labels */
    int expo;       /* labels show value / 10^expo; 0: no common factor */
    double label_w; /* widest tick label [character heights] */
    int n_labels;
} axis_info;

void range_add(range *r, double v);
/* Data value -> plotting coordinate; NaN when it cannot be shown. */
double tr(double v, int lg);
/* Resolve one axis: user limits (data units, NaN = automatic) and data extents
 * (transformed) -> window (transformed). */
void resolve_axis(double umin, double umax, const range *data, int lg, double *lo, double *hi);
/* Widen one axis so both have the same mm scale in a w_mm x h_mm viewport. */
void apply_equal_aspect(axis_info *ax, axis_info *ay, double w_mm, double h_mm);
/* Ticks of an axis of length len_mm with character height ch [mm]; `vertical` for y. */
void linear_ticks(axis_info *a, double len_mm, double ch, int vertical);
void log_ticks(axis_info *a, double len_mm, double ch, int vertical);
/* Tick label of value v (the exponent on log axes). */
void format_label(const axis_info *a, double v, char *buf, size_t len);
/* Log axis drawn with PLplot's own log ticks (one label per decade). */
int uses_pl_log(const axis_info *a);
/* The x axis' x10^k factor: its offset from the axis end and its width [character heights]. */
double factor_offset(const axis_info *ax);
double factor_width(int e);
/* "×10^e" for the common factor of an axis. */
void format_factor(int e, char *buf, size_t len);

/* ---- plot_clip.c: clipping and polylines ---------------------------------- */

/* Clip region, plus the decimation tolerance of polylines (tol_x, tol_y: the same fraction
 * of a pixel on each axis, in its units): a point within that distance of the line drawn is
 * skipped (plot_clip.c; keeps the drawing and SVG/PDF files of long simulations small). */
typedef struct box {
    double x0, x1, y0, y1;
    double tol_x, tol_y;
} box;

/* Draw the polyline (xs, ys) in transformed coordinates; non-finite points
 * split it. Returns 0, or -1 if memory ran out. */
int draw_polyline(const box *clip, size_t n, const double *xs, const double *ys);

/* ---- figure metrics -------------------------------------------------------- */

typedef struct metrics {
    double page_w_mm, page_h_mm;
    double mm_per_px;  /* at the figure's pixel size */
    double s;          /* overall scale: 1 for 1200 x 400 per row */
    double ch;         /* base character height [mm] */
    double line_scale; /* nsd_figure.line_scale (1 by default) */
    FILE *report;      /* the layout report (NSDYN_PLOT_LAYOUT), or NULL */
} metrics;

/* Line width in PLplot units from a "points-ish" width. */
static inline double lw(const metrics *m, double w) { return w * 1.15 * m->s * m->line_scale; }

/* ---- plot_report.c: the layout report ----------------------------------------- */

/* The start (the figure's file and page size) and the end of a figure's line. */
void report_begin(const metrics *m, const char *path);
void report_end(const metrics *m);
/* One box of the report: kind ("plot", "legend", "text"), the panel (-1: the figure), in
 * mm from the page's bottom-left corner; covered: data a legend covers (-1: n/a); text:
 * what a text box shows (NULL otherwise). */
void report_box(const metrics *m, const char *kind, long panel, double x0, double y0, double x1,
                double y1, long covered, const char *text);
/* The box of plmtex(side, disp, pos, just, text) in the viewport (normalized page
 * coordinates vx0..vy1) at character height ch_mm [mm]; panel <= -2 marks an axis label
 * of panel -2 - panel (kind "axis" in the report). */
void report_mtex(const metrics *m, long panel, const double vp[4], const char *side, double disp,
                 double pos, double just, double ch_mm, const char *text);

/* ---- plot_canvas.c: canvases ------------------------------------------------------ */

/* What the drawing canvas of a panel works with (the ctx of its nsdyn_canvas). */
typedef struct panel_ctx {
    const metrics *m;
    const nsd_panel *panel;
    axis_info ax, ay;
    box clip; /* window enlarged a little, transformed coordinates */
    nsdyn_pen pen;
    int oom;          /* a temporary allocation failed */
    long index;       /* the panel's index in the figure (the layout report) */
    const double *vp; /* its viewport, normalized page coordinates vx0, vx1, vy0, vy1 */
    /* nsd_plot_canvas_begin/end: the group's opacity and the extents of what it drew
       (transformed coordinates, structure and highlight pens), and each group's label
       candidate: its box [mm on the page] x0, y0, x1, y1 and text; placed after the
       picture (canvas_draw_picture), over everything */
    double opacity;
    range gx, gy;
    double cand[256][4];
    char cand_text[256][32];
    size_t n_cand;
} panel_ctx;

/* Unite the extents of p's picture (transformed coordinates) into (dx, dy): p->draw is
 * called once with a bounding-box canvas. */
void canvas_picture_extents(const nsd_panel *p, range *dx, range *dy);
/* Draw p's picture (pc->panel) through the panel's canvas. 0, or -1 if memory ran out. */
int canvas_draw_picture(panel_ctx *pc);

/* ---- plot_curves.c: curve styling --------------------------------------------- */

/* Nominal width of a curve (0 or invalid = 1.5), clamped to 0.1..20. */
double curve_width(const nsd_curve *c);
/* Palette index of curve idx of p: explicit, or the next one free in the panel. */
int curve_color(const nsd_panel *p, size_t idx);
/* Style the current line for curve c (colour, width, dashes). */
void curve_style(const metrics *m, const nsd_curve *c, int color);
/* Radius of a marker dot [mm] for a curve of nominal width wnom. */
double marker_radius_mm(const metrics *m, double wnom);
/* Filled dot of radius r_mm centred at (x, y) in the current world coordinates,
 * which map `wpm_x`, `wpm_y` world units per mm. */
void marker_dot(double x, double y, double r_mm, double wpm_x, double wpm_y);
/* Draw curve c in colour `color`; 0, or -1 if memory ran out. */
int draw_curve(panel_ctx *pc, const nsd_curve *c, int color, double wpm_x, double wpm_y);

/* ---- plot_panel.c, plot_legend.c: panels ---------------------------------------- */

typedef struct panel_layout {
    range dx, dy; /* data extents, transformed */
    axis_info ax, ay;
    double L, R, B, T;         /* needed margins [mm] */
    double vx0, vx1, vy0, vy1; /* viewport, normalized page coordinates */
    size_t n_legend;
    double legend_w_mm;  /* estimate of the legend's width */
    double legend_h_mm;  /* and height */
    int legend_pos;      /* where it goes: nsd_panel.legend_position with "best" resolved */
    int legend_decided;  /* legend_pos is set (at the first layout pass) */
    size_t legend_rows;  /* a legend above the plot: its rows */
    double above_w_mm;   /* and the width it may take [mm] (to the page's right edge) */
    size_t ylabel_split; /* the y label goes on two lines at this byte (0: one line) */
    double title_disp;   /* panel title line: the same for a whole row */
    long index;          /* the panel's index in the figure */
    axis_info az;        /* a map's colour scale (nsd_panel.map): range, ticks, labels */
    double ylabel_scale; /* y labels at this text scale at most (0: each its own fit) */
    int shared_x;        /* x axis shared with the panel below (plot_figure.c share_x) */
} panel_layout;

int curve_in_legend(const nsd_curve *c);
/* Count the legend entries of p into pl->n_legend, estimate its size into
 * pl->legend_w_mm and legend_h_mm, and resolve its position into pl->legend_pos (the axes
 * of pl are set). */
void legend_measure(const nsd_panel *p, panel_layout *pl, double ch, double vw_mm, double vh_mm);
/* Points and segments of p's curves (and its picture's extents) in the box u0..u1, v0..v1
 * of the viewport (0..1 each) under the axes of pl. */
long legend_covered(const nsd_panel *p, const panel_layout *pl, double u0, double u1, double v0,
                    double v1);
/* Draw the legend of pc->panel; colors[c] is the palette index of curve c. */
void draw_legend(panel_ctx *pc, const panel_layout *pl, const int *colors);

/* Data extents of p, with its picture's when a limit is automatic. */
void panel_extents(const nsd_panel *p, panel_layout *pl);
/* Axes, ticks and margins of a panel for a given viewport size [mm]. */
void panel_axes(const nsd_panel *p, panel_layout *pl, const metrics *m, double vw_mm, double vh_mm);
/* The scale at which p's y label fits its side (placed: viewport and split known). */
double ylabel_fit(const nsd_panel *p, const panel_layout *pl, const metrics *m);
/* Draw panel p in the viewport pl->vx0..vy1. 0, or -1 if memory ran out. */
int draw_panel(const nsd_panel *p, panel_layout *pl, const metrics *m);

/* ---- plot_map.c: maps (nsd_map) ---------------------------------------------------- */

/* 0, or -1 with err set: the grid's sizes and order. */
int map_validate(const nsd_map *mp, size_t panel, char *err, size_t err_len);
/* Unite the map's grid (transformed) into (dx, dy). */
void map_extents(const nsd_panel *p, range *dx, range *dy);
/* Automatic limits of a panel with a map: the grid's extent exactly. */
void map_window(const nsd_panel *p, axis_info *ax, axis_info *ay);
/* The colour scale's range and ticks into pl->az for a plot vh_mm high; the width the
 * colour bar takes right of the plot [mm] (0 without a map). */
double map_axis(const nsd_panel *p, panel_layout *pl, double ch, double vh_mm);
/* Draw the map (under the curves). 0, or -1 if memory ran out. */
int draw_map(panel_ctx *pc, const panel_layout *pl);
/* Draw the colour bar and its label right of the plot (after the frame). */
void draw_colorbar(panel_ctx *pc, const panel_layout *pl);

/* ---- plot_frame.c: the frame, its ticks and the grid as one polyline a side -------- */

/* The frame of panel pl with tick marks on the x sides (ticks_x) and the y sides (ticks_y),
 * in the current colour and width; 0, or -1 (too many ticks, or no memory: nothing drawn,
 * the caller uses plbox). */
int draw_frame_lines(const panel_layout *pl, const metrics *m, int ticks_x, int ticks_y);
/* Grid lines at the major ticks of x (grid_x) and y (grid_y); 0, or -1 as above. */
int draw_grid_lines(const panel_layout *pl, int grid_x, int grid_y);

/* ---- plot_figure.c: the figure ------------------------------------------------ */

/* Load the colour map (background, structure, palette). */
void set_colors(void);
/* Everything drawn between plinit and plend1. Returns 0 or -1 (out of memory). With
 * fig->fit_height and a page too short for the rows' margins, draws nothing, sets *grow_px
 * to the height the page needs [px] and returns 0 (grow_px NULL: never). */
int draw_figure(const nsd_figure *fig, size_t cols, size_t rows, int width_px, int height_px,
                const char *path, FILE *report, int *grow_px);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
