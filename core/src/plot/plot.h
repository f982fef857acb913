/* nsdyn plotting module: publication-quality figures through PLplot.
 *
 * A figure is a grid of panels (row-major); a panel holds curves, thin grey
 * vertical event lines, an optional legend and an optional picture drawn by
 * a callback through an nsdyn_canvas (the same drawing services a system
 * uses in nsdyn_system.draw). Output formats: PNG, SVG and PDF through
 * PLplot's cairo drivers (Debian package plplot-driver-cairo).
 *
 * Threading. PLplot keeps process-wide state (its stream table and its
 * error handlers) and is not thread-safe: call every function of this module
 * from one thread only, and do not use PLplot elsewhere in the process while
 * nsd_plot_write runs. nsd_plot_write is not re-entrant (it refuses to run
 * from inside a draw callback of another nsd_plot_write).
 *
 * PLplot state. nsd_plot_write draws on a fresh PLplot stream of its own and
 * restores the caller's current stream afterwards. During the call it
 * installs its own PLplot exit and abort handlers (plsexit, plsabort) so that
 * PLplot's fatal errors become an error return instead of exit(); on return
 * both handlers are reset to NULL (PLplot's default), so a handler installed
 * earlier by other code is not preserved.
 *
 * Text. Titles, axis labels and legend entries are literal UTF-8 (use "ψ"
 * for Greek): PLplot's escape character '#' is escaped, control characters
 * are shown as blanks and invalid UTF-8 bytes as '?'. Tick labels use a true
 * minus sign and, for very large or small values, a common "×10^k" factor.
 *
 * Colours. curve.color indexes a fixed Okabe–Ito palette (safe for the
 * common colour-vision deficiencies), in this order:
 *   0 blue #0072B2, 1 vermilion #D55E00, 2 bluish green #009E73,
 *   3 orange #E69F00, 4 reddish purple #CC79A7, 5 sky blue #56B4E9,
 *   6 black #000000, 7 grey #888888 (in place of Okabe–Ito's yellow, too pale
 *   for a thin line on white);
 * larger indices wrap around. color = -1 picks the first palette colour not
 * yet used by another curve of the same panel.
 *
 * Drawing order in a panel: grid, event lines, curves (in order), picture,
 * frame with ticks and labels, legend. Data arrays are only read during the
 * call; values beyond +-1e300 are clamped, non-finite values are gaps.
 *
 * Canvas pens (nsdyn_canvas.pen, nsdyn_pen in system.h): NSDYN_PEN_STRUCTURE
 * (black, width 2, filled polygons light grey with a black outline),
 * NSDYN_PEN_GROUND (thick dark grey, filled polygons hatched),
 * NSDYN_PEN_HIGHLIGHT (vermilion), NSDYN_PEN_TRACE (thin blue, filled
 * polygons solid blue, e.g. arrow heads); any other value draws as
 * structure.
 */
#ifndef NSD_PLOT_H
#define NSD_PLOT_H

#include <stddef.h>

#include "nsdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NSD_PLOT_SVG draws through cairo (svgcairo): every glyph is an outline (<symbol>/<use>),
 * exactly the PNG's and PDF's text, not editable: cairo's SVG surface has no text output.
 * NSD_PLOT_SVG_TEXT (issue 26) draws through PLplot's own svg driver: text is <text>
 * elements in the viewer's sans-serif, editable in Inkscape or Illustrator; that driver
 * cannot measure text (no string lengths), so the layout uses estimated widths, and it
 * writes font sizes in whole points. */
typedef enum { NSD_PLOT_PNG, NSD_PLOT_SVG, NSD_PLOT_PDF, NSD_PLOT_SVG_TEXT } nsd_plot_format;

/* "png" | "svg" | "pdf" | "svg-text" (ASCII case-insensitive); 0 ok, -1 unknown or NULL. */
int nsd_plot_format_parse(const char *name, nsd_plot_format *out);
/* "png", "svg", "pdf" ("svg" for svg-text); "" for a value outside the enum. */
const char *nsd_plot_format_ext(nsd_plot_format f);

/* Number of colours in the curve palette (see above). */
#define NSD_PLOT_PALETTE_SIZE 8

typedef struct nsd_curve {
    const double *x, *y;
    size_t n;           /* NaN values split the curve into pieces (gaps) */
    const char *legend; /* NULL (or ""): not in the legend */
    int color;          /* 0.. : palette index; -1 = auto (next colour) */
    int dashed;         /* 0 solid, 1 dashed, 2 dotted, 3 dash-dot */
    double width;       /* line width in points-ish units, 0 = default 1.5 */
    int marker;         /* 0 none, 1 circle markers at each point (no line),
                                        2 line + markers, 3 filled polygons: the pieces between
                                        NaNs (3 points or more) filled with the colour and
                                        opacity, clipped to the plot, no outline (heat-map
                                        cells, shaded domains; with legend_patch). With 0,
                                        isolated points (a single point, or one between NaNs)
                                        are shown as small dots. */
    /* Appended for issue 13 (zero keeps the earlier behaviour): */
    double opacity;   /* 0 or >= 1: as is; (0, 1): the colour blended with the white
                         background (a shaded stretch that does not hide the curve under it) */
    int legend_patch; /* 1: the legend shows a filled patch in the curve's colour instead of
                         a line sample (shaded regions, highlighted stretches) */
} nsd_curve;

/* A scalar over the grid of two axes (issue 26), drawn under the curves of its panel as a
 * continuous colour scale: plshades with 128 shades between the least and greatest value,
 * interpolated linearly between the nodes (no bins, no staircase), in a perceptually uniform
 * sequential colour map (viridis: monotone in lightness, readable in grey and with the common
 * colour-vision deficiencies), and a colour bar (plcolorbar) with ticks and `label` right of
 * the plot. A cell with a NaN corner is left blank (no value is made up there). The panel's
 * automatic limits include the grid; a legend that would go right of the plot goes above
 * it (the colour bar is there). Automatic limits are the grid's extent (the map fills the
 * plot). Contour lines are curves of the panel. */
typedef struct nsd_map {
    const double *x, *y; /* node coordinates, strictly increasing, nx and ny of them (>= 2) */
    size_t nx, ny;
    const double *z;   /* z[j * nx + i]: the value at (x[i], y[j]); NaN: none */
    const char *label; /* the colour bar's label, with its unit: "mean max(ψ) [rad]" */
    double zmin, zmax; /* the colour scale's range; NaN = the values' least and greatest */
} nsd_map;

typedef struct nsd_panel {
    const char *title;           /* panel title, may be NULL */
    const char *xlabel, *ylabel; /* axis labels with units, e.g. "time t [s]"; may be NULL */
    const nsd_curve *curves;
    size_t n_curves;
    const double *vlines;
    size_t n_vlines;               /* thin grey vertical lines (event times) */
    double xmin, xmax, ymin, ymax; /* NaN = automatic from data (5% margin; a constant range
                                        is widened); each limit may be set on its own */
    int equal_aspect;              /* 1: same scale on both axes (the ranges are widened) */
    int log_y;                     /* 1: log10 y axis; nonpositive values are skipped (gaps) */
    int log_x;
    /* Optional picture drawn in data coordinates after the curves, through a canvas whose
       operations map to PLplot. With automatic limits, draw is first called with a
       bounding-box canvas to find its extents (united with the curves' extents), then
       called again to draw for real. It must draw the same picture both times. */
    void (*draw)(void *ctx, const nsdyn_canvas *canvas);
    void *draw_ctx;
    int legend_position; /* 0 top-right inside, 1 top-left, 2 bottom-right,
                                        3 bottom-left, 4 outside right (vertically centred;
                                        the right margin of the column grows to fit it),
                                        5 best: the inside corner where the legend covers no
                                        data (no point and no segment of a curve, nothing of
                                        the picture), else outside right; 6 none; 7 above
                                        the plot, entries in rows across its width (the top
                                        margin of the row grows to fit it: one legend for a
                                        stack of panels without narrowing them).
                                        The legend lists the curves with a legend text (at
                                        most 64), with their line style and markers. */
    /* Appended for issue 13 (zero/NULL keeps the earlier behaviour): */
    const char *vlines_legend; /* legend entry of the grey vertical lines (what they mark) */
    /* A categorical y axis: lane k (1-based y = k) is labelled y_categories[k - 1]; no
       numeric ticks; automatic y limits 0.5 .. n + 0.5; thin lines between the lanes. */
    const char *const *y_categories;
    size_t n_y_categories;
    /* Appended for issue 26: 1 = the x axis is shared with the panel below (a stack of
       panels over the same x range): no x tick labels, no x label, a narrow bottom margin. */
    int shared_x;
    /* Appended for issue 26: a map of a scalar under the curves (NULL: none), see nsd_map. */
    const nsd_map *map;
} nsd_panel;

typedef struct nsd_figure {
    const char *title; /* overall title, may be NULL */
    const nsd_panel *panels;
    size_t n_panels;
    size_t columns;          /* panels laid out in a grid, row-major; 0 = 1 column */
    int width_px, height_px; /* 0 = default (1200 x 400*rows, capped at 2400 high);
                                        otherwise 100..10000 (PNG: at most 50 Mpx). For SVG and
                                        PDF the unit is the point (1/72 in). Text, lines and
                                        markers scale with the size of a panel row. */
    /* Appended for issue 13 (0 = 1): text size and line widths relative to the defaults. */
    double font_scale, line_scale;
    /* Appended for issue 26: the text's size (its em) in pixels for PNG, points for SVG and
       PDF (a journal's 8 pt at 300 dpi: 33.3 px); 0 = from the panel size. font_scale
       multiplies it. */
    double text_size;
    /* Appended for issue 26, round 7: 1 when height_px is a minimum the module may grow
       (an automatic height): a page too short for the rows' titles, legends and tick labels
       is drawn again, as tall as they need (plot_figure.c, grid_margins); 0: exactly
       height_px, the margins shrunk to fit (a height the user set). */
    int fit_height;
} nsd_figure;

/* Write `fig` to `path` in `format`. Returns 0 on success; on failure returns -1 and writes
   a one-line reason into err (when err_len > 0); never prints to stdout/stderr itself
   (PLplot itself may still print a warning in situations this module does not foresee).
   The figure is drawn into path + ".tmp", which is renamed to `path` at the end, so a
   failure leaves no half-written file at `path` (an existing file there stays intact). */
int nsd_plot_write(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                   size_t err_len);
/* The same, a PNG declaring dpi pixels per inch (its pHYs chunk), so that it prints at
   width_px / dpi inches; dpi 0: none declared (viewers assume 72), as nsd_plot_write. */
int nsd_plot_write_dpi(const char *path, nsd_plot_format format, const nsd_figure *fig,
                       double dpi, char *err, size_t err_len);

/* Pictures drawn by a panel's draw callback in groups (the strobe of a run: one group per
   snapshot). Between begin and end, everything drawn is blended with the background to
   `opacity` (0..1; older snapshots fade). end labels the group with `label` (e.g. its time)
   above what it drew with the structure and highlight pens (the bodies), unless that label would overlap
   an earlier group's label or leave the plot area. No-ops on the bounding-box canvas and on
   canvases that are not this module's. */
void nsd_plot_canvas_begin(const nsdyn_canvas *canvas, double opacity);
void nsd_plot_canvas_end(const nsdyn_canvas *canvas, const char *label);

/* Layout report (for the visual tests, docs/figures.md): when the environment variable
   NSDYN_PLOT_LAYOUT names a file, nsd_plot_write appends one JSON line per figure: the
   page size [mm] and the boxes it placed (plot areas, legends with the number of data
   points and segments they cover, and every text: titles, axis labels, tick labels,
   legend texts), in mm from the bottom-left corner of the page. */

/* Internal, exposed for tests: copy `in` to `out` as literal PLplot text ('#' doubled,
   control characters as ' ', invalid UTF-8 bytes as '?', a whole exponent "^2", "^3",
   "^-0".."^-3" as superscripts: "m/s^2" as "m/s²"), truncated to out_len - 1 bytes
   without splitting a character. Returns the number of bytes written (without the NUL). */
size_t nsd_plot_escape_text(const char *in, char *out, size_t out_len);

/* The symbols an ASCII name (a channel, a parameter key) or an expression over names
   ("max(psi)") stands for in an axis label: each part of ASCII letters and digits that is a
   Greek letter spelled out ("psi", capitalised "Omega" for the capital) or one letter, with
   digits after it as subscripts and "dot" or "ddot" as a time derivative, becomes that
   symbol: "psi" ψ, "Omega" Ω, "theta1" θ₁, "phidot" φ̇, "xdot" ẋ, "omega_st" ω_st,
   "max(psi)" max(ψ); any other part stays as written ("energy", "gap_I"). The path of the
   channel labels' Greek (docs/figures.md). Writes at most out_len - 1 bytes and a NUL
   (never part of a character); returns the bytes written. */
size_t nsd_plot_symbol(const char *name, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif
#endif
