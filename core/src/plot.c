/* nsdyn plotting module: figures through PLplot's cairo drivers. See plot.h.
 *
 * Implementation notes.
 *  - Every figure gets a fresh PLplot stream (plmkstrm); the caller's current
 *    stream is restored afterwards. The output file is opened here and handed
 *    to PLplot with plsfile (PLplot closes it in plend1), so PLplot never runs
 *    its interactive "Enter graphics output file name" / device prompts.
 *  - PLplot reports recoverable errors through plabort (captured with plsError
 *    into a buffer instead of stderr) and fatal ones through plexit, which
 *    calls exit(). The exit handler installed here longjmps back into
 *    nsd_plot_write, which cleans up and returns -1. PLplot's handler
 *    signature carries no user pointer, so the jump target has to be reachable
 *    from file scope: `active_guard` is the single piece of module state,
 *    non-NULL only while nsd_plot_write runs.
 *  - All geometry is computed in "transformed" coordinates (log10 for log
 *    axes). Lines and polygons are clipped here against a slightly enlarged
 *    window before they reach PLplot, so absurd coordinates never reach
 *    PLplot's integer device coordinates.
 *  - Tick positions and labels are computed here (nice 1-2-2.5-5 steps, a true
 *    minus sign, a common x10^k factor for very large/small values), so the
 *    margins can be sized from the real label widths.
 */
#include "plot.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

/* ---- constants ----------------------------------------------------------- */

#define DEFAULT_WIDTH_PX 1200
#define DEFAULT_ROW_PX 400
#define DEFAULT_MAX_HEIGHT_PX 2400
#define MIN_SIZE_PX 100
#define MAX_SIZE_PX 10000
#define MAX_PNG_PIXELS 50000000.0 /* cairo keeps a 4-byte-per-pixel image */
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

/* Reference text height: 13 px of PLplot character height for a
 * 1200 x 400 px panel row; scaled with the figure (see draw_figure). */
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
    N_COLORS = COL_PALETTE + NSD_PLOT_PALETTE_SIZE
};

/* Okabe & Ito (2008), ordered for line plots on white. */
static const unsigned char palette_rgb[NSD_PLOT_PALETTE_SIZE][3] = {
    {0x00, 0x72, 0xB2}, /* blue */
    {0xD5, 0x5E, 0x00}, /* vermilion */
    {0x00, 0x9E, 0x73}, /* bluish green */
    {0xE6, 0x9F, 0x00}, /* orange */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0x56, 0xB4, 0xE9}, /* sky blue */
    {0x00, 0x00, 0x00}, /* black */
    {0xF0, 0xE4, 0x42}, /* yellow */
};
#define PAL_BLUE 0
#define PAL_VERMILION 1

/* ---- small helpers ------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (err == NULL || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    /* one line: no newlines in the reason */
    for (char *p = err; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int ascii_lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int ascii_ieq(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid. */
static size_t utf8_seq_len(const unsigned char *p) {
    unsigned c = p[0];
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && p[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;
        if (c == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

size_t nsd_plot_escape_text(const char *in, char *out, size_t out_len) {
    if (out == NULL || out_len == 0) return 0;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    while (*p) {
        char piece[4];
        size_t k;
        unsigned c = *p;
        if (c == '#') {
            piece[0] = '#';
            piece[1] = '#';
            k = 2;
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            piece[0] = ' ';
            k = 1;
            p++;
        } else if (c < 0x80) {
            piece[0] = (char)c;
            k = 1;
            p++;
        } else {
            size_t n = utf8_seq_len(p);
            if (n == 0) {
                piece[0] = '?';
                k = 1;
                p++;
            } else if (n == 2 && c == 0xC2 && p[1] < 0xA0) {
                piece[0] = ' '; /* C1 control character */
                k = 1;
                p += 2;
            } else {
                memcpy(piece, p, n);
                k = n;
                p += n;
            }
        }
        if (o + k >= out_len) break;
        memcpy(out + o, piece, k);
        o += k;
    }
    out[o] = '\0';
    return o;
}

/* Approximate width of a UTF-8 string in character heights. */
static double text_width_ch(const char *s) {
    double w = 0.0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (n == 0) n = 1;
        if (*p >= '0' && *p <= '9')
            w += DIGIT_W;
        else if (*p == '.' || *p == ',' || *p == ' ' || *p == 'i' || *p == 'l' || *p == '[' ||
                 *p == ']' || *p == '(' || *p == ')')
            w += DOT_W;
        else if (n == 3 && p[0] == 0xE2 && p[1] == 0x88 && p[2] == 0x92)
            w += MINUS_W;
        else
            w += LETTER_W;
        p += n;
    }
    return w;
}

/* ---- formats ------------------------------------------------------------- */

int nsd_plot_format_parse(const char *name, nsd_plot_format *out) {
    if (name == NULL) return -1;
    nsd_plot_format f;
    if (ascii_ieq(name, "png"))
        f = NSD_PLOT_PNG;
    else if (ascii_ieq(name, "svg"))
        f = NSD_PLOT_SVG;
    else if (ascii_ieq(name, "pdf"))
        f = NSD_PLOT_PDF;
    else
        return -1;
    if (out) *out = f;
    return 0;
}

const char *nsd_plot_format_ext(nsd_plot_format f) {
    switch (f) {
        case NSD_PLOT_PNG: return "png";
        case NSD_PLOT_SVG: return "svg";
        case NSD_PLOT_PDF: return "pdf";
    }
    return "";
}

static const char *format_device(nsd_plot_format f) {
    switch (f) {
        case NSD_PLOT_PNG: return "pngcairo";
        case NSD_PLOT_SVG: return "svgcairo";
        case NSD_PLOT_PDF: return "pdfcairo";
    }
    return NULL;
}

/* ---- ranges, transforms, ticks -------------------------------------------- */

typedef struct range {
    double lo, hi;
    int have;
} range;

static void range_add(range *r, double v) {
    if (!isfinite(v)) return;
    if (!r->have) {
        r->lo = r->hi = v;
        r->have = 1;
    } else {
        if (v < r->lo) r->lo = v;
        if (v > r->hi) r->hi = v;
    }
}

/* Data value -> plotting coordinate; NaN when it cannot be shown. */
static double tr(double v, int lg) {
    if (!isfinite(v)) return NAN;
    if (lg) return v > 0.0 ? log10(v) : NAN;
    return clampd(v, -COORD_MAX, COORD_MAX);
}

/* Half-width used to widen a degenerate range centred on c. */
static double widen_half(double c) {
    double h = 0.1 * fabs(c);
    return (h > 1e-290) ? h : 1.0;
}

static void ensure_width(double *lo, double *hi) {
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    if (*lo > *hi) {
        double t = *lo;
        *lo = *hi;
        *hi = t;
    }
    double scale = fmax(fabs(*lo), fabs(*hi));
    if (*hi - *lo <= 1e-12 * scale || *hi - *lo < 1e-290) {
        double c = 0.5 * *lo + 0.5 * *hi, h = widen_half(c);
        *lo = c - h;
        *hi = c + h;
    }
}

/* Automatic range from data extents [dlo, dhi] (transformed coordinates). */
static void auto_range(double dlo, double dhi, int lg, double *lo, double *hi) {
    double d = dhi - dlo, scale = fmax(fabs(dlo), fabs(dhi));
    if (lg) {
        if (d <= 1e-9) {
            double c = 0.5 * (dlo + dhi);
            *lo = c - 0.5;
            *hi = c + 0.5;
        } else {
            *lo = dlo - 0.05 * d;
            *hi = dhi + 0.05 * d;
        }
        /* PLplot labels log axes at decades only: make sure one is visible. */
        if (floor(*hi) < *lo) {
            *lo = floor(*lo);
            *hi = ceil(*hi);
        }
        return;
    }
    if (d <= 1e-12 * scale || d < 1e-290) {
        double c = 0.5 * dlo + 0.5 * dhi, h = widen_half(c);
        *lo = c - h;
        *hi = c + h;
    } else {
        *lo = dlo - 0.05 * d;
        *hi = dhi + 0.05 * d;
    }
}

/* Resolve one axis: user limits (data units, NaN = automatic) and data extents
 * (transformed) -> window (transformed). */
static void resolve_axis(double umin, double umax, const range *data, int lg, double *lo,
                         double *hi) {
    double a = tr(umin, lg), b = tr(umax, lg);
    double dlo = 0.0, dhi = 1.0;
    if (data->have) {
        dlo = data->lo;
        dhi = data->hi;
    }
    double alo, ahi;
    auto_range(dlo, dhi, lg, &alo, &ahi);
    if (!isnan(a) && !isnan(b)) {
        *lo = a;
        *hi = b;
    } else if (isnan(a) && isnan(b)) {
        *lo = alo;
        *hi = ahi;
    } else if (isnan(a)) {
        *hi = b;
        *lo = alo < b ? alo : b - (lg ? 1.0 : widen_half(b) * 2.0);
    } else {
        *lo = a;
        *hi = ahi > a ? ahi : a + (lg ? 1.0 : widen_half(a) * 2.0);
    }
    ensure_width(lo, hi);
}

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

static double pow10i(int e) { return pow(10.0, (double)e); }

static double nice_step(double span, double target, int *nsub) {
    double raw = span / target;
    double e = floor(log10(raw));
    double p = pow(10.0, e);
    double f = raw / p, m;
    if (!(p > 0.0) || !isfinite(f)) {
        *nsub = 5;
        return raw;
    }
    /* the smallest nice step not below raw: at most target + 1 ticks */
    if (f <= 1.0 + 1e-9)
        m = 1.0, *nsub = 5;
    else if (f <= 2.0 + 1e-9)
        m = 2.0, *nsub = 4;
    else if (f <= 2.5 + 1e-9)
        m = 2.5, *nsub = 5;
    else if (f <= 5.0 + 1e-9)
        m = 5.0, *nsub = 5;
    else
        m = 10.0, *nsub = 5;
    double s = m * p;
    return (s > 0.0 && isfinite(s)) ? s : raw;
}

static int decimals_for(double step) {
    for (int d = 0; d < 15; ++d) {
        double v = step * pow10i(d);
        if (fabs(v - nearbyint(v)) <= 1e-6 * v) return d;
    }
    return 15;
}

/* Tick label of value v on a linear axis. */
static void format_tick(const axis_info *a, double v, char *buf, size_t len) {
    if (len == 0) return;
    double scaled = v;
    if (fabs(v) <= 1e-6 * a->step) scaled = 0.0;
    if (a->expo != 0) scaled = scaled / pow10i(a->expo);
    char num[64];
    snprintf(num, sizeof num, "%.*f", a->decimals, fabs(scaled));
    /* always a decimal point, whatever LC_NUMERIC says */
    const char *dp = localeconv()->decimal_point;
    if (dp != NULL && strcmp(dp, ".") != 0 && dp[0] != '\0') {
        char *hit = strstr(num, dp);
        if (hit != NULL) {
            size_t k = strlen(dp);
            *hit = '.';
            memmove(hit + 1, hit + k, strlen(hit + k) + 1);
        }
    }
    int nonzero = 0;
    for (const char *p = num; *p; ++p)
        if (*p >= '1' && *p <= '9') nonzero = 1;
    snprintf(buf, len, "%s%s", (scaled < 0.0 && nonzero) ? "\xE2\x88\x92" : "", num);
}

/* Choose ticks for a linear axis of `len_mm` length; `vertical` for y. */
static void linear_ticks(axis_info *a, double len_mm, double ch, int vertical) {
    double span = a->hi - a->lo;
    double m = fmax(fabs(a->lo), fabs(a->hi));
    a->expo = 0;
    if (m > 0.0) {
        int e = (int)floor(log10(m));
        if (e >= 5 || e <= -3) a->expo = e;
    }
    double spacing = vertical ? 2.6 * ch : 5.5 * ch;
    double target = clampd(len_mm / spacing, 2.0, vertical ? 7.0 : 8.0);
    for (int iter = 0; iter < 4; ++iter) {
        a->step = nice_step(span, target, &a->nsub);
        a->decimals = decimals_for(a->step / pow10i(a->expo));
        /* measure labels */
        double first = ceil(a->lo / a->step - 1e-9);
        double last = floor(a->hi / a->step + 1e-9);
        a->label_w = 0.0;
        a->n_labels = 0;
        for (double k = first; k <= last && a->n_labels < 100; k += 1.0) {
            char buf[64];
            format_tick(a, k * a->step, buf, sizeof buf);
            double w = text_width_ch(buf);
            if (w > a->label_w) a->label_w = w;
            a->n_labels++;
        }
        if (vertical || a->n_labels < 2) break;
        /* horizontal labels must not collide: spacing >= width + 1.5 ch */
        double need = (a->label_w + 1.5) * ch;
        double have = len_mm * a->step / span;
        if (have >= need || target <= 2.0) break;
        target = clampd(target * have / need * 0.95, 2.0, target - 0.5);
    }
}

/* Log axes: labels 10^k at every `step` decades. With step 1, PLplot's own
 * log ticks are used (minor ticks at 2..9); otherwise the axis is linear in
 * log10 space with a minor tick per decade. */
static void log_ticks(axis_info *a, double len_mm, double ch, int vertical) {
    static const int steps[] = {1, 2, 3, 5, 10, 20, 25, 50, 100};
    a->expo = 0;
    a->decimals = 0;
    double emax = fmax(fabs(floor(a->lo)), fabs(ceil(a->hi)));
    double digits = emax >= 100 ? 3 : (emax >= 10 ? 2 : 1);
    a->label_w = 2 * DIGIT_W + 0.8 * (digits * DIGIT_W + MINUS_W);
    double per = vertical ? 2.6 * ch : (a->label_w + 1.5) * ch;
    double first = ceil(a->lo - 1e-9), last = floor(a->hi + 1e-9);
    double fit = fmax(2.0, floor(len_mm / per));
    size_t i = 0;
    while (i + 1 < sizeof steps / sizeof steps[0] && floor((last - first) / steps[i]) + 1.0 > fit)
        i++;
    a->step = steps[i];
    a->nsub = steps[i] <= 10 ? steps[i] : (steps[i] == 20 ? 10 : 5);
    a->n_labels = (int)fmax(0.0, floor((last - first) / steps[i]) + 1.0);
}

/* Tick label of value v (the exponent on log axes). */
static void format_label(const axis_info *a, double v, char *buf, size_t len) {
    if (!a->log) {
        format_tick(a, v, buf, len);
        return;
    }
    double e = nearbyint(v);
    if (fabs(v - e) > 1e-6 || fabs(e) > 9999) {
        snprintf(buf, len, "10#u%.2g#d", v);
        return;
    }
    int k = (int)e;
    snprintf(buf, len, "10#u%s%d#d", k < 0 ? "\xE2\x88\x92" : "", k < 0 ? -k : k);
}

/* ---- clipping ------------------------------------------------------------ */

/* Clip region, plus the decimation tolerance of polylines: consecutive points
 * closer than (tol_x, tol_y) to the last point drawn are skipped (a fraction
 * of a pixel: keeps SVG/PDF files of long simulations small). */
typedef struct box {
    double x0, x1, y0, y1;
    double tol_x, tol_y;
} box;

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
static int draw_polyline(const box *clip, size_t n, const double *xs, const double *ys) {
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

/* Sutherland-Hodgman against one edge; out must hold 2n points. */
static size_t clip_poly_edge(size_t n, const double *x, const double *y, double *ox, double *oy,
                             int edge, double v) {
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t j = (i + 1) % n;
        double ax = x[i], ay = y[i], bx = x[j], by = y[j];
        double da, db;
        switch (edge) {
            case 0:
                da = ax - v;
                db = bx - v;
                break; /* x >= v */
            case 1:
                da = v - ax;
                db = v - bx;
                break; /* x <= v */
            case 2:
                da = ay - v;
                db = by - v;
                break; /* y >= v */
            default:
                da = v - ay;
                db = v - by;
                break; /* y <= v */
        }
        int ina = da >= 0.0, inb = db >= 0.0;
        if (ina) {
            ox[m] = ax;
            oy[m] = ay;
            m++;
        }
        if (ina != inb) {
            double t = da / (da - db);
            /* the clipped coordinate is exact; the other one may lose
               precision for huge coordinates and is clamped later */
            if (edge < 2) {
                ox[m] = v;
                oy[m] = ay + t * (by - ay);
            } else {
                ox[m] = ax + t * (bx - ax);
                oy[m] = v;
            }
            m++;
        }
    }
    return m;
}

/* ---- figure metrics ------------------------------------------------------- */

typedef struct metrics {
    double page_w_mm, page_h_mm;
    double mm_per_px; /* at the figure's pixel size */
    double s;         /* overall scale: 1 for 1200 x 400 per row */
    double ch;        /* base character height [mm] */
} metrics;

/* Line width in PLplot units from a "points-ish" width. */
static double lw(const metrics *m, double w) { return w * 1.15 * m->s; }

/* ---- canvases ------------------------------------------------------------- */

typedef struct panel_ctx panel_ctx;

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

struct panel_ctx {
    const metrics *m;
    const nsd_panel *panel;
    axis_info ax, ay;
    box clip; /* window enlarged a little, transformed coordinates */
    nsdyn_pen pen;
    int oom; /* a temporary allocation failed */
};

/* A pen outside nsdyn_pen (a plugin built against a later minor, or a
 * bug) draws as structure. */
static void set_pen(panel_ctx *pc, int style) {
    if (style < NSDYN_PEN_STRUCTURE || style > NSDYN_PEN_TRACE) style = NSDYN_PEN_STRUCTURE;
    pc->pen = (nsdyn_pen)style;
    pllsty(1);
    switch (pc->pen) {
        case NSDYN_PEN_STRUCTURE:
            plcol0(COL_FG);
            plwidth(lw(pc->m, 2.0));
            break;
        case NSDYN_PEN_GROUND:
            plcol0(COL_GROUND);
            plwidth(lw(pc->m, 3.0));
            break;
        case NSDYN_PEN_HIGHLIGHT:
            plcol0(COL_PALETTE + PAL_VERMILION);
            plwidth(lw(pc->m, 2.5));
            break;
        case NSDYN_PEN_TRACE:
            plcol0(COL_PALETTE + PAL_BLUE);
            plwidth(lw(pc->m, 1.2));
            break;
    }
}

static void cv_pen(void *ctx, int style) { set_pen(ctx, style); }

static void cv_line(void *ctx, double x0, double y0, double x1, double y1) {
    panel_ctx *pc = ctx;
    double xs[2] = {tr(x0, pc->ax.log), tr(x1, pc->ax.log)};
    double ys[2] = {tr(y0, pc->ay.log), tr(y1, pc->ay.log)};
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
            const double lim[4] = {pc->clip.x0, pc->clip.x1, pc->clip.y0, pc->clip.y1};
            for (int e = 0; e < 4 && m >= 3; ++e) {
                m = clip_poly_edge(m, ax, ay, bx, by, e, lim[e]);
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
                plcol0(col);
                plpsty(0);
                plfill((PLINT)m, ax, ay);
                if (hatch) {
                    PLINT inc = 450, del = (PLINT)clampd(2200.0 * pc->m->s, 500.0, 20000.0);
                    plcol0(COL_GROUND);
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
    int nseg = 288;
    if (!pc->ax.log && !pc->ay.log) {
        double cx = tr(x, 0), cy = tr(y, 0), rr = fmin(r, COORD_MAX);
        const box *b = &pc->clip;
        if (cx + rr < b->x0 || cx - rr > b->x1 || cy + rr < b->y0 || cy - rr > b->y1)
            return; /* entirely outside */
        double sx = b->x1 - b->x0, sy = b->y1 - b->y0;
        /* PLplot clips native arcs to the viewport but converts them to
           integer device coordinates first: keep them within reach */
        if (fabs(cx - 0.5 * (b->x0 + b->x1)) + rr <= 1e3 * sx &&
            fabs(cy - 0.5 * (b->y0 + b->y1)) + rr <= 1e3 * sy) {
            plarc(cx, cy, rr, rr, 0.0, 360.0, 0.0, 0);
            return;
        }
        /* huge circle crossing the window: a fine polygon, clipped */
        nseg = (int)clampd(rr / fmin(sx, sy) * 64.0, 288.0, 65536.0);
    }
    double *xs = malloc(((size_t)nseg + 1) * 2 * sizeof *xs);
    if (xs == NULL) {
        pc->oom = 1;
        return;
    }
    double *ys = xs + nseg + 1;
    for (int i = 0; i <= nseg; ++i) {
        double a = 2.0 * 3.14159265358979323846 * (double)i / nseg;
        xs[i] = tr(x + r * cos(a), pc->ax.log);
        ys[i] = tr(y + r * sin(a), pc->ay.log);
    }
    if (draw_polyline(&pc->clip, (size_t)nseg + 1, xs, ys) != 0) pc->oom = 1;
    free(xs);
}

/* ---- curve styling -------------------------------------------------------- */

static double curve_width(const nsd_curve *c) {
    double w = c->width;
    if (!isfinite(w) || w <= 0.0) w = 1.5;
    return clampd(w, 0.1, 20.0);
}

/* Dash pattern for `dashed` at PLplot width `w`. */
static void set_dashes(const metrics *m, int dashed, double w) {
    if (dashed == 1 || dashed == 2) {
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
static double marker_radius_mm(const metrics *m, double wnom) {
    return (2.2 + 0.6 * wnom) * m->s * m->mm_per_px;
}

/* Filled dot of radius r_mm centred at (x, y) in the current world coordinates,
 * which map `wpm_x`, `wpm_y` world units per mm. */
static void marker_dot(double x, double y, double r_mm, double wpm_x, double wpm_y) {
    plarc(x, y, r_mm * wpm_x, r_mm * wpm_y, 0.0, 360.0, 0.0, 1);
}

/* ---- layout -------------------------------------------------------------- */

typedef struct panel_layout {
    range dx, dy; /* data extents, transformed */
    axis_info ax, ay;
    double L, R, B, T;         /* needed margins [mm] */
    double vx0, vx1, vy0, vy1; /* viewport, normalized page coordinates */
    size_t n_legend;
    double legend_w_mm; /* estimate for the outside-right legend */
    double title_disp;  /* panel title line: the same for a whole row */
} panel_layout;

static int panel_auto_limits(const nsd_panel *p) {
    return isnan(p->xmin) || isnan(p->xmax) || isnan(p->ymin) || isnan(p->ymax);
}

static void panel_extents(const nsd_panel *p, panel_layout *pl) {
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
        bbox_canvas bb;
        memset(&bb, 0, sizeof bb);
        bb.log_x = p->log_x;
        bb.log_y = p->log_y;
        nsdyn_canvas cv = {sizeof(nsdyn_canvas), &bb, bb_line, bb_circle, bb_polygon, bb_pen};
        p->draw(p->draw_ctx, &cv);
        if (bb.x.have && bb.y.have) {
            range_add(&pl->dx, bb.x.lo);
            range_add(&pl->dx, bb.x.hi);
            range_add(&pl->dy, bb.y.lo);
            range_add(&pl->dy, bb.y.hi);
        }
    }
}

/* Widen one axis so both have the same mm scale. */
static void apply_equal_aspect(axis_info *ax, axis_info *ay, double w_mm, double h_mm) {
    if (!(w_mm > 0.0) || !(h_mm > 0.0)) return;
    double sx = (ax->hi - ax->lo) / w_mm, sy = (ay->hi - ay->lo) / h_mm;
    if (!(sx > 0.0) || !(sy > 0.0) || !isfinite(sx) || !isfinite(sy)) return;
    if (sx > sy) {
        double c = 0.5 * ay->lo + 0.5 * ay->hi, h = 0.5 * sx * h_mm;
        ay->lo = c - h;
        ay->hi = c + h;
    } else {
        double c = 0.5 * ax->lo + 0.5 * ax->hi, h = 0.5 * sy * w_mm;
        ax->lo = c - h;
        ax->hi = c + h;
    }
}

static int curve_in_legend(const nsd_curve *c) { return c->legend != NULL && c->legend[0] != '\0'; }

/* The x axis' x10^k factor sits on the tick label line, right of the axis
 * end, `factor_offset` character heights away from it. */
static double factor_offset(const axis_info *ax) { return 0.5 * ax->label_w + 0.6; }

static double factor_width(int e) {
    int digits = abs(e) >= 100 ? 3 : (abs(e) >= 10 ? 2 : 1);
    return LETTER_W + 2 * DIGIT_W + 0.8 * (digits * DIGIT_W + (e < 0 ? MINUS_W : 0.0));
}

/* Axes, ticks and margins of a panel for a given viewport size. */
static void panel_axes(const nsd_panel *p, panel_layout *pl, const metrics *m, double vw_mm,
                       double vh_mm) {
    pl->ax.log = p->log_x != 0;
    pl->ay.log = p->log_y != 0;
    resolve_axis(p->xmin, p->xmax, &pl->dx, pl->ax.log, &pl->ax.lo, &pl->ax.hi);
    resolve_axis(p->ymin, p->ymax, &pl->dy, pl->ay.log, &pl->ay.lo, &pl->ay.hi);
    if (p->equal_aspect) apply_equal_aspect(&pl->ax, &pl->ay, vw_mm, vh_mm);
    if (pl->ax.log)
        log_ticks(&pl->ax, vw_mm, m->ch, 0);
    else
        linear_ticks(&pl->ax, vw_mm, m->ch, 0);
    if (pl->ay.log)
        log_ticks(&pl->ay, vh_mm, m->ch, 1);
    else
        linear_ticks(&pl->ay, vh_mm, m->ch, 1);

    double ch = m->ch;
    /* left: tick labels (disp 0.5 + width), gap, rotated y label, pad */
    pl->L = (0.5 + pl->ay.label_w + (p->ylabel && p->ylabel[0] ? 1.9 : 0.0) + 0.9) * ch;
    /* bottom: tick labels centred at 1.5, x label at 3.2 */
    int xlab = p->xlabel && p->xlabel[0];
    pl->B = (xlab ? 4.5 : 2.7) * ch;
    /* top: half a tick label, the panel title, the y x10^k factor */
    int title = p->title && p->title[0];
    int yfac = !pl->ay.log && pl->ay.expo != 0;
    pl->T = (title ? (yfac ? 3.9 : 2.6) : (yfac ? 2.1 : 1.0)) * ch;
    /* right: half of the last x tick label, then the x10^k factor if any */
    pl->R = fmax(1.2, 0.5 * pl->ax.label_w + 0.4) * ch;
    if (!pl->ax.log && pl->ax.expo != 0)
        pl->R = fmax(pl->R, (factor_offset(&pl->ax) + factor_width(pl->ax.expo) + 0.4) * ch);

    pl->n_legend = 0;
    double maxw = 0.0;
    for (size_t c = 0; c < p->n_curves; ++c) {
        if (!curve_in_legend(&p->curves[c])) continue;
        pl->n_legend++;
        char buf[512];
        nsd_plot_escape_text(p->curves[c].legend, buf, sizeof buf);
        double w = text_width_ch(buf);
        if (w > maxw) maxw = w;
    }
    pl->legend_w_mm = 0.0;
    if (pl->n_legend > 0 && p->legend_position == 4) {
        /* sample 2.6 ch, offsets, text at scale 0.85, borders */
        pl->legend_w_mm = (1.0 + 2.6 + 0.6 + 0.85 * maxw + 1.2) * ch;
        pl->R += pl->legend_w_mm;
    }
}

/* ---- drawing ------------------------------------------------------------- */

/* Log axis drawn with PLplot's own log ticks (one label per decade). */
static int uses_pl_log(const axis_info *a) { return a->log && a->step == 1.0; }

static void label_cb(PLINT axis, PLFLT value, char *label, PLINT length, PLPointer data) {
    const panel_ctx *pc = data;
    const axis_info *a = (axis == PL_X_AXIS) ? &pc->ax : &pc->ay;
    if (length <= 0) return;
    format_label(a, value, label, (size_t)length);
}

static void mtex(const char *side, double disp, double pos, double just, const char *text) {
    char buf[1024];
    nsd_plot_escape_text(text, buf, sizeof buf);
    if (buf[0]) plmtex(side, disp, pos, just, buf);
}

static int curve_color(const nsd_panel *p, size_t idx) {
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
static void curve_style(const metrics *m, const nsd_curve *c, int color) {
    double w = lw(m, curve_width(c));
    plcol0(COL_PALETTE + color);
    plwidth(w);
    set_dashes(m, c->dashed, w);
}

static int draw_curve(panel_ctx *pc, const nsd_curve *c, int color, double wpm_x, double wpm_y) {
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

static void draw_legend(panel_ctx *pc, const panel_layout *pl, const int *colors) {
    const nsd_panel *p = pc->panel;
    const metrics *m = pc->m;
    size_t n = pl->n_legend;
    if (n == 0) return;
    if (n > 64) n = 64;
    PLINT opt_array[64], text_colors[64];
    char texts[64][256];
    const char *text_ptrs[64];
    size_t idx[64];
    size_t k = 0;
    for (size_t c = 0; c < p->n_curves && k < n; ++c) {
        if (!curve_in_legend(&p->curves[c])) continue;
        nsd_plot_escape_text(p->curves[c].legend, texts[k], sizeof texts[k]);
        text_ptrs[k] = texts[k];
        opt_array[k] = PL_LEGEND_NONE;
        text_colors[k] = COL_FG;
        idx[k] = c;
        k++;
    }
    n = k;
    double vw = pl->vx1 - pl->vx0, vh = pl->vy1 - pl->vy0;
    double vw_mm = vw * m->page_w_mm;
    double sample_mm = 2.6 * m->ch;
    double plot_width = sample_mm / vw_mm; /* adopted (viewport) units */
    double off_x = 0.8 * m->ch / vw_mm, off_y = 0.8 * m->ch / (vh * m->page_h_mm);
    PLINT position;
    double x = off_x, y = off_y;
    switch (p->legend_position) {
        case 1: position = PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE; break;
        case 2: position = PL_POSITION_RIGHT | PL_POSITION_BOTTOM | PL_POSITION_INSIDE; break;
        case 3: position = PL_POSITION_LEFT | PL_POSITION_BOTTOM | PL_POSITION_INSIDE; break;
        case 4:
            position = PL_POSITION_RIGHT | PL_POSITION_OUTSIDE;
            y = 0.0;
            break;
        default: position = PL_POSITION_RIGHT | PL_POSITION_TOP | PL_POSITION_INSIDE; break;
    }
    position |= PL_POSITION_VIEWPORT;
    PLFLT lw_ac = 0.0, lh_ac = 0.0;
    plwidth(lw(m, 0.8));
    pllsty(1);
    pllegend(&lw_ac, &lh_ac, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, position, x, y,
             plot_width, COL_LEGEND_BG, COL_LEGEND_FRAME, 1, 0, 0, (PLINT)n, opt_array, 0.6, 0.85,
             2.0, 0.0, text_colors, text_ptrs, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL);
    if (!(lw_ac > 0.0) || !(lh_ac > 0.0)) return;
    /* top-left corner of the legend box in adopted coordinates (pllegend's
       legend_position logic for the positions used here) */
    double left, top;
    switch (p->legend_position) {
        case 1:
            left = x;
            top = 1.0 - y;
            break;
        case 2:
            left = 1.0 - x - lw_ac;
            top = y + lh_ac;
            break;
        case 3:
            left = x;
            top = y + lh_ac;
            break;
        case 4:
            left = 1.0 + x;
            top = 0.5 + 0.5 * lh_ac;
            break;
        default:
            left = 1.0 - x - lw_ac;
            top = 1.0 - y;
            break;
    }
    /* pllegend leaves a border of 0.4 character heights (expressed in
       normalized subpage y units, used along x) before the sample area */
    double ch_sub_y = m->ch / m->page_h_mm;
    double border_ac = 0.4 * ch_sub_y / vw;
    /* draw the samples in normalized page coordinates */
    plvpor(0.0, 1.0, 0.0, 1.0);
    plwind(0.0, 1.0, 0.0, 1.0);
    double wpm_x = 1.0 / m->page_w_mm, wpm_y = 1.0 / m->page_h_mm;
    for (size_t i = 0; i < n; ++i) {
        const nsd_curve *c = &p->curves[idx[i]];
        double yc = top - ((double)i + 0.5) * lh_ac / (double)n;
        double xa = left + border_ac, xb = xa + plot_width;
        double px0 = pl->vx0 + xa * vw, px1 = pl->vx0 + xb * vw;
        double py = pl->vy0 + yc * vh;
        curve_style(m, c, colors[idx[i]]);
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
    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
}

/* "×10^e" for the common factor of an axis. */
static void format_factor(int e, char *buf, size_t len) {
    snprintf(buf, len,
             "\xC3\x97"
             "10#u%s%d#d",
             e < 0 ? "\xE2\x88\x92" : "", e < 0 ? -e : e);
}

static int draw_panel(const nsd_panel *p, panel_layout *pl, const metrics *m) {
    panel_ctx pc;
    memset(&pc, 0, sizeof pc);
    pc.m = m;
    pc.panel = p;
    pc.ax = pl->ax;
    pc.ay = pl->ay;
    double sx = pl->ax.hi - pl->ax.lo, sy = pl->ay.hi - pl->ay.lo;
    pc.clip.x0 = pl->ax.lo - 0.02 * sx;
    pc.clip.x1 = pl->ax.hi + 0.02 * sx;
    pc.clip.y0 = pl->ay.lo - 0.02 * sy;
    pc.clip.y1 = pl->ay.hi + 0.02 * sy;
    double vw_mm = (pl->vx1 - pl->vx0) * m->page_w_mm;
    double vh_mm = (pl->vy1 - pl->vy0) * m->page_h_mm;
    /* a quarter of a pixel */
    pc.clip.tol_x = 0.25 * m->mm_per_px * sx / vw_mm;
    pc.clip.tol_y = 0.25 * m->mm_per_px * sy / vh_mm;
    double wpm_x = sx / vw_mm, wpm_y = sy / vh_mm;

    plvpor(pl->vx0, pl->vx1, pl->vy0, pl->vy1);
    plwind(pl->ax.lo, pl->ax.hi, pl->ay.lo, pl->ay.hi);
    plschr(m->ch, 1.0);
    plsmaj(0.55 * m->ch, 1.0);
    plsmin(0.3 * m->ch, 1.0);

    /* grid */
    plcol0(COL_GRID);
    plwidth(lw(m, 0.7));
    pllsty(1);
    plbox(uses_pl_log(&pl->ax) ? "gl" : "g", pl->ax.step, pl->ax.nsub,
          uses_pl_log(&pl->ay) ? "gl" : "g", pl->ay.step, pl->ay.nsub);

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

    /* curves */
    int *colors = NULL;
    if (p->n_curves > 0) {
        colors = malloc(p->n_curves * sizeof *colors);
        if (colors == NULL) return -1;
        for (size_t c = 0; c < p->n_curves; ++c) colors[c] = curve_color(p, c);
    }
    for (size_t c = 0; c < p->n_curves; ++c) {
        if (draw_curve(&pc, &p->curves[c], colors[c], wpm_x, wpm_y) != 0) {
            free(colors);
            return -1;
        }
    }
    pllsty(1);

    /* picture */
    if (p->draw != NULL) {
        nsdyn_canvas cv = {sizeof(nsdyn_canvas), &pc, cv_line, cv_circle, cv_polygon, cv_pen};
        set_pen(&pc, NSDYN_PEN_STRUCTURE);
        p->draw(p->draw_ctx, &cv);
        pllsty(1);
        plpsty(0);
        if (pc.oom) {
            free(colors);
            return -1;
        }
    }

    /* frame, ticks, tick labels */
    plcol0(COL_FG);
    plwidth(lw(m, 1.0));
    plslabelfunc(label_cb, &pc);
    plbox(uses_pl_log(&pl->ax) ? "bcnstlo" : "bcnsto", pl->ax.step, pl->ax.nsub,
          uses_pl_log(&pl->ay) ? "bcnstvlo" : "bcnstvo", pl->ay.step, pl->ay.nsub);
    plslabelfunc(NULL, NULL);

    /* common factors */
    double ch = m->ch;
    char fac[64];
    if (!pl->ax.log && pl->ax.expo != 0) {
        format_factor(pl->ax.expo, fac, sizeof fac);
        plmtex("b", 1.5, 1.0 + factor_offset(&pl->ax) * ch / vw_mm, 0.0, fac);
    }
    if (!pl->ay.log && pl->ay.expo != 0) {
        format_factor(pl->ay.expo, fac, sizeof fac);
        plmtex("lv", 0.5, 1.0 + 1.15 * ch / vh_mm, 1.0, fac);
    }

    /* axis labels and title */
    mtex("b", 3.2, 0.5, 0.5, p->xlabel);
    mtex("l", 0.5 + pl->ay.label_w + 1.2, 0.5, 0.5, p->ylabel);
    if (p->title && p->title[0]) {
        plschr(m->ch, 1.1);
        mtex("t", pl->title_disp, 0.5, 0.5, p->title);
        plschr(m->ch, 1.0);
    }

    draw_legend(&pc, pl, colors);
    free(colors);
    return 0;
}

/* ---- the figure ---------------------------------------------------------- */

/* Lives on the heap (not an automatic object of nsd_plot_write), so what the
 * handlers and PLplot write into it is well defined after a longjmp. */
typedef struct plot_guard {
    jmp_buf jb;
    char fatal_msg[256];
    int fatal;
    char abort_msg[256];
    int aborted;
    PLINT pl_errcode;     /* plsError: set by plabort */
    char pl_errmsg[4096]; /* plsError: plabort sprintf()s here, unbounded: keep it large */
} plot_guard;

/* The only module state: see the implementation notes at the top. */
static plot_guard *active_guard;

static void copy_msg(char *dst, size_t len, const char *src) {
    snprintf(dst, len, "%s", src ? src : "");
    for (char *p = dst; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static int on_plplot_exit(const char *msg) {
    plot_guard *g = active_guard;
    if (g == NULL) return 1; /* not ours: PLplot exits as usual */
    if (!g->fatal) copy_msg(g->fatal_msg, sizeof g->fatal_msg, msg); /* keep the first reason */
    g->fatal = 1;
    longjmp(g->jb, 1);
}

static void on_plplot_abort(const char *msg) {
    plot_guard *g = active_guard;
    if (g == NULL || g->aborted) return;
    copy_msg(g->abort_msg, sizeof g->abort_msg, msg);
    g->aborted = 1;
}

static int device_available(const char *dev) {
    enum { MAXDEV = 128 };
    const char *menu[MAXDEV], *names[MAXDEV];
    const char **pm = menu, **pn = names;
    int ndev = MAXDEV;
    plgDevs(&pm, &pn, &ndev);
    for (int i = 0; i < ndev && i < MAXDEV; ++i)
        if (names[i] != NULL && strcmp(names[i], dev) == 0) return 1;
    return 0;
}

static int validate(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                    size_t err_len) {
    if (path == NULL || path[0] == '\0') {
        set_err(err, err_len, "plot: empty output path");
        return -1;
    }
    if (format_device(format) == NULL) {
        set_err(err, err_len, "plot: unknown output format %d", (int)format);
        return -1;
    }
    if (fig == NULL) {
        set_err(err, err_len, "plot: no figure");
        return -1;
    }
    if (fig->n_panels == 0 || fig->panels == NULL) {
        set_err(err, err_len, "plot: figure has no panels");
        return -1;
    }
    if (fig->n_panels > MAX_PANELS) {
        set_err(err, err_len, "plot: too many panels (%zu, at most %d)", fig->n_panels, MAX_PANELS);
        return -1;
    }
    if ((fig->width_px != 0 && (fig->width_px < MIN_SIZE_PX || fig->width_px > MAX_SIZE_PX)) ||
        (fig->height_px != 0 && (fig->height_px < MIN_SIZE_PX || fig->height_px > MAX_SIZE_PX))) {
        set_err(err, err_len, "plot: figure size %d x %d out of range (%d..%d, 0 = default)",
                fig->width_px, fig->height_px, MIN_SIZE_PX, MAX_SIZE_PX);
        return -1;
    }
    if (format == NSD_PLOT_PNG && fig->width_px != 0 && fig->height_px != 0 &&
        (double)fig->width_px * (double)fig->height_px > MAX_PNG_PIXELS) {
        set_err(err, err_len, "plot: PNG of %d x %d pixels is too large (at most %.0f Mpx)",
                fig->width_px, fig->height_px, MAX_PNG_PIXELS / 1e6);
        return -1;
    }
    for (size_t i = 0; i < fig->n_panels; ++i) {
        const nsd_panel *p = &fig->panels[i];
        if (p->n_curves > 0 && p->curves == NULL) {
            set_err(err, err_len, "plot: panel %zu: %zu curves but no curve array", i, p->n_curves);
            return -1;
        }
        if (p->n_vlines > 0 && p->vlines == NULL) {
            set_err(err, err_len, "plot: panel %zu: %zu event lines but no array", i, p->n_vlines);
            return -1;
        }
        if (p->legend_position < 0 || p->legend_position > 4) {
            set_err(err, err_len, "plot: panel %zu: legend_position %d not in 0..4", i,
                    p->legend_position);
            return -1;
        }
        for (size_t c = 0; c < p->n_curves; ++c) {
            const nsd_curve *cv = &p->curves[c];
            if (cv->n > 0 && (cv->x == NULL || cv->y == NULL)) {
                set_err(err, err_len, "plot: panel %zu curve %zu: %zu points but no data", i, c,
                        cv->n);
                return -1;
            }
            if (cv->n > ((size_t)1 << 40)) {
                set_err(err, err_len, "plot: panel %zu curve %zu: too many points", i, c);
                return -1;
            }
            if (cv->dashed < 0 || cv->dashed > 2 || cv->marker < 0 || cv->marker > 2) {
                set_err(err, err_len, "plot: panel %zu curve %zu: dashed must be 0..2, marker 0..2",
                        i, c);
                return -1;
            }
        }
    }
    return 0;
}

/* Everything drawn between plinit and plend1. Returns 0 or -1 (out of memory). */
static int draw_figure(const nsd_figure *fig, size_t cols, size_t rows, int width_px,
                       int height_px) {
    metrics m;
    PLFLT x0, x1, y0, y1;
    pladv(0);
    plgspa(&x0, &x1, &y0, &y1);
    m.page_w_mm = x1 - x0;
    m.page_h_mm = y1 - y0;
    if (!(m.page_w_mm > 0.0) || !(m.page_h_mm > 0.0)) return -1;
    m.mm_per_px = m.page_w_mm / width_px;
    double row_px = (double)height_px / (double)rows;
    /* 1 for 1200 x 400 px per row; follow the panel size, mildly */
    double s = sqrt(((double)width_px / DEFAULT_WIDTH_PX) * (row_px / DEFAULT_ROW_PX));
    m.s = clampd(s, 0.55, 4.0);
    m.ch = REF_CHAR_PX * m.s * m.mm_per_px;

    size_t n = fig->n_panels;
    panel_layout *pl = calloc(n, sizeof *pl);
    double *colL = calloc(cols, sizeof(double)), *colR = calloc(cols, sizeof(double));
    double *rowT = calloc(rows, sizeof(double)), *rowB = calloc(rows, sizeof(double));
    if (!pl || !colL || !colR || !rowT || !rowB) {
        free(pl);
        free(colL);
        free(colR);
        free(rowT);
        free(rowB);
        return -1;
    }

    double title_h = (fig->title && fig->title[0]) ? 2.6 * m.ch * 1.3 : 0.6 * m.ch;
    double cell_w = m.page_w_mm / (double)cols;
    double cell_h = (m.page_h_mm - title_h) / (double)rows;
    double pad = 0.5 * m.ch;

    for (size_t i = 0; i < n; ++i) panel_extents(&fig->panels[i], &pl[i]);

    /* two passes: margins depend on tick labels, which depend (equal aspect)
       on the viewport size, which depends on the margins */
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < n; ++i) {
            size_t c = i % cols, r = i / cols;
            double vw = cell_w - 2 * pad, vh = cell_h - 2 * pad;
            if (pass > 0) {
                vw -= colL[c] + colR[c];
                vh -= rowT[r] + rowB[r];
            } else {
                vw *= 0.8;
                vh *= 0.75;
            }
            panel_axes(&fig->panels[i], &pl[i], &m, fmax(vw, 1.0), fmax(vh, 1.0));
        }
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
        for (size_t r = 0; r < rows; ++r) {
            double tot = rowT[r] + rowB[r], avail = 0.65 * (cell_h - 2 * pad);
            if (tot > avail && tot > 0.0) {
                rowT[r] *= avail / tot;
                rowB[r] *= avail / tot;
            }
        }
    }

    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; ++i) {
        size_t c = i % cols, r = i / cols;
        double cx0 = (double)c * cell_w + pad, cx1 = (double)(c + 1) * cell_w - pad;
        double ctop = m.page_h_mm - title_h - (double)r * cell_h - pad;
        double cbot = m.page_h_mm - title_h - (double)(r + 1) * cell_h + pad;
        double vx0 = (cx0 + colL[c]) / m.page_w_mm, vx1 = (cx1 - colR[c]) / m.page_w_mm;
        double vy0 = (cbot + rowB[r]) / m.page_h_mm, vy1 = (ctop - rowT[r]) / m.page_h_mm;
        vx0 = clampd(vx0, 0.0, 0.99);
        vy0 = clampd(vy0, 0.0, 0.99);
        vx1 = clampd(vx1, vx0 + 0.005, 1.0);
        vy1 = clampd(vy1, vy0 + 0.005, 1.0);
        pl[i].vx0 = vx0;
        pl[i].vx1 = vx1;
        pl[i].vy0 = vy0;
        pl[i].vy1 = vy1;
        /* titles of a row on one line, at the top of the row's margin (above
           any x10^k factor of a y axis) */
        pl[i].title_disp = fmax(1.0, (rowT[r] / m.ch - 1.25) / 1.1);
        /* final axes for the final viewport (equal aspect) */
        panel_axes(&fig->panels[i], &pl[i], &m, (vx1 - vx0) * m.page_w_mm,
                   (vy1 - vy0) * m.page_h_mm);
        rc = draw_panel(&fig->panels[i], &pl[i], &m);
    }

    if (rc == 0 && fig->title && fig->title[0]) {
        char buf[1024];
        nsd_plot_escape_text(fig->title, buf, sizeof buf);
        plvpor(0.0, 1.0, 0.0, 1.0);
        plwind(0.0, 1.0, 0.0, 1.0);
        plschr(m.ch, 1.3);
        plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_BOLD);
        plcol0(COL_FG);
        plptex(0.5, 1.0 - 0.5 * title_h / m.page_h_mm, 1.0, 0.0, 0.5, buf);
        plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
        plschr(m.ch, 1.0);
    }

    free(pl);
    free(colL);
    free(colR);
    free(rowT);
    free(rowB);
    return rc;
}

static void set_colors(void) {
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
    for (int i = 0; i < N_COLORS; ++i) {
        const unsigned char *c = i < COL_PALETTE ? fixed[i] : palette_rgb[i - COL_PALETTE];
        r[i] = c[0];
        g[i] = c[1];
        b[i] = c[2];
        a[i] = (i == COL_LEGEND_BG) ? 0.85 : 1.0;
    }
    plscmap0a(r, g, b, a, N_COLORS);
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    long sz = -1;
    if (fseek(f, 0, SEEK_END) == 0) sz = ftell(f);
    fclose(f);
    return sz;
}

/* PLplot ignores write errors of its drivers (a full disk gives a truncated
 * file): check that the file ends the way a complete one does. */
static int output_complete(const char *path, nsd_plot_format format) {
    static const unsigned char png_end[8] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    unsigned char tail[256];
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    long sz = -1;
    if (fseek(f, 0, SEEK_END) == 0) sz = ftell(f);
    size_t n = 0;
    if (sz > 0) {
        long from = sz > (long)sizeof tail ? sz - (long)sizeof tail : 0;
        if (fseek(f, from, SEEK_SET) == 0) n = fread(tail, 1, sizeof tail, f);
    }
    fclose(f);
    if (n < 8) return 0;
    const char *needle = NULL;
    switch (format) {
        case NSD_PLOT_PNG: return memcmp(tail + n - 8, png_end, 8) == 0;
        case NSD_PLOT_SVG: needle = "</svg>"; break;
        case NSD_PLOT_PDF: needle = "%%EOF"; break;
    }
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; ++i)
        if (memcmp(tail + i, needle, k) == 0) return 1;
    return 0;
}

static void release_handlers(void) {
    plsexit(NULL);
    plsabort(NULL);
    active_guard = NULL;
}

int nsd_plot_write(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                   size_t err_len) {
    if (err != NULL && err_len > 0) err[0] = '\0';
    if (active_guard != NULL) {
        set_err(err, err_len, "plot: nsd_plot_write is not re-entrant");
        return -1;
    }
    if (validate(path, format, fig, err, err_len) != 0) return -1;

    size_t cols = fig->columns == 0 ? 1 : fig->columns;
    if (cols > fig->n_panels) cols = fig->n_panels;
    size_t rows = (fig->n_panels + cols - 1) / cols;
    int width_px = fig->width_px ? fig->width_px : DEFAULT_WIDTH_PX;
    int height_px = fig->height_px;
    if (height_px == 0) {
        size_t h = rows * DEFAULT_ROW_PX;
        height_px = (int)(h > DEFAULT_MAX_HEIGHT_PX ? DEFAULT_MAX_HEIGHT_PX : h);
    }
    const char *dev = format_device(format);

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    plot_guard *guard = calloc(1, sizeof *guard);
    if (tmp == NULL || guard == NULL) {
        free(tmp);
        free(guard);
        set_err(err, err_len, "plot: out of memory");
        return -1;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);

    /* Automatic variables changed after setjmp and read after a longjmp must
       be volatile. */
    FILE *volatile fp = NULL;
    volatile PLINT old_strm = -1;
    volatile int stream_made = 0;
    volatile int file_owned_by_plplot = 0;
    volatile int draw_rc = 0;

    active_guard = guard;
    plsexit(on_plplot_exit);
    plsabort(on_plplot_abort);

    if (setjmp(guard->jb) != 0) {
        /* PLplot called plexit. Clean up what can be cleaned up; a second
           fatal error during the cleanup (in plend1) lands here again with
           stream_made == 2 and gives up on the stream, which stays allocated. */
        if (stream_made == 1) {
            stream_made = 2; /* cleaning up */
            PLINT level = 0;
            plglevel(&level);
            if (level == 0 && fp != NULL && !file_owned_by_plplot) {
                plsfile(NULL);
                fclose(fp);
            }
            fp = NULL;
            plend1();
        } else if (stream_made == 2) {
            /* plend1 failed: the stream stays allocated; detach our buffers */
            plsError(NULL, NULL);
        } else if (fp != NULL && !file_owned_by_plplot) {
            fclose(fp);
            fp = NULL;
        }
        if (old_strm >= 0) plsstrm(old_strm);
        release_handlers();
        remove(tmp);
        set_err(err, err_len, "plot: PLplot fatal error: %s", guard->fatal_msg);
        free(tmp);
        free(guard);
        return -1;
    }

    if (!device_available(dev)) {
        release_handlers();
        set_err(err, err_len,
                "plot: PLplot device '%s' is not available (is plplot-driver-cairo installed?)",
                dev);
        free(tmp);
        free(guard);
        return -1;
    }

    fp = fopen(tmp, "wb");
    if (fp == NULL) {
        int e = errno;
        release_handlers();
        set_err(err, err_len, "plot: cannot create '%s': %s", tmp, strerror(e));
        free(tmp);
        free(guard);
        return -1;
    }

    PLINT cur = 0;
    plgstrm(&cur);
    old_strm = cur;
    PLINT strm = -1;
    plmkstrm(&strm); /* makes the new stream current */
    if (strm < 0) {
        fclose(fp);
        fp = NULL;
        remove(tmp);
        plsstrm(old_strm);
        release_handlers();
        set_err(err, err_len, "plot: PLplot cannot create another stream");
        free(tmp);
        free(guard);
        return -1;
    }
    stream_made = 1;
    plsError(&guard->pl_errcode, guard->pl_errmsg);
    plsdev(dev);
    plsfile(fp); /* PLplot closes it in plend1 once plinit succeeded */
    plspage(0.0, 0.0, width_px, height_px, 0, 0);
    set_colors();
    plinit();
    PLINT level = 0;
    plglevel(&level);
    if (level > 0) file_owned_by_plplot = 1;
    if (file_owned_by_plplot && guard->pl_errcode == 0)
        draw_rc = draw_figure(fig, cols, rows, width_px, height_px);
    if (!file_owned_by_plplot) {
        plsfile(NULL);
        fclose(fp);
    }
    fp = NULL;
    plend1();
    stream_made = 0;
    plsstrm(old_strm);
    release_handlers();

    int rc = 0;
    if (!file_owned_by_plplot) {
        set_err(err, err_len, "plot: PLplot could not initialise device '%s'%s%s", dev,
                guard->aborted ? ": " : "", guard->aborted ? guard->abort_msg : "");
        rc = -1;
    } else if (draw_rc != 0) {
        set_err(err, err_len, "plot: out of memory while drawing");
        rc = -1;
    } else if (guard->pl_errcode != 0 || guard->aborted) {
        set_err(err, err_len, "plot: PLplot error: %s",
                guard->aborted ? guard->abort_msg : guard->pl_errmsg);
        rc = -1;
    } else if (file_size(tmp) <= 0 || !output_complete(tmp, format)) {
        set_err(err, err_len, "plot: incomplete output in '%s' (disk full?)", tmp);
        rc = -1;
    } else if (rename(tmp, path) != 0) {
        int e = errno;
        set_err(err, err_len, "plot: cannot rename '%s' to '%s': %s", tmp, path, strerror(e));
        rc = -1;
    }
    if (rc != 0) remove(tmp);
    free(tmp);
    free(guard);
    return rc;
}
