/* nsdyn plotting module: text. PLplot's escaping of literal text, the approximate width of
 * a label (to size margins before anything is drawn), and the output formats with their
 * PLplot devices. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"

/* after plplot.h (plot_internal.h): the driver interface, for the driver's string lengths */
#include <plstrm.h>

/* ---- small helpers ------------------------------------------------------- */

void set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (err == NULL || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    /* one line: no newlines in the reason */
    for (char *p = err; *p; ++p)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static int ascii_lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

static int ascii_ieq(const char *a, const char *b) {
    for (; *a && *b; ++a, ++b)
        if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid. */
size_t utf8_seq_len(const unsigned char *p) {
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

/* A power written in ASCII, "^2" in "m/s^2" or "^-1" in "s^-1", as the superscript
 * characters of Unicode ("m/s²", "s⁻¹"): the exponents -3..3 units and labels use. Only a
 * whole exponent (no digit after it), so "2^10" and PLplot-like "^{...}" stay as written.
 * Returns the bytes of `in` read (0: none) and the superscript in sup. */
static size_t superscript(const unsigned char *p, const char **sup) {
    static const char *const plus[4] = {NULL, NULL, "²", "³"}; /* "^0", "^1" left as is */
    static const char *const minus[4] = {"⁻⁰", "⁻¹", "⁻²", "⁻³"};
    if (p[0] != '^') return 0;
    int neg = p[1] == '-';
    unsigned d = p[1 + neg];
    if (d < '0' || d > '3' || (p[2 + neg] >= '0' && p[2 + neg] <= '9')) return 0;
    *sup = neg ? minus[d - '0'] : plus[d - '0'];
    return *sup ? 2 + (size_t)neg : 0;
}

size_t nsd_plot_escape_text(const char *in, char *out, size_t out_len) {
    if (out == NULL || out_len == 0) return 0;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    while (*p) {
        char piece[8];
        size_t k;
        unsigned c = *p;
        const char *sup = NULL;
        size_t skip = superscript(p, &sup);
        if (skip) {
            k = strlen(sup);
            memcpy(piece, sup, k);
            p += skip;
        } else if (c == '#') {
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

/* The estimate of a text's width [character heights] where no driver can measure it (no
 * viewport yet, a driver without string lengths): digits, narrow signs and letters. */
static double text_width_est(const char *s) {
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

/* The length of PLplot text s [mm] at the current text size and font, measured by the
 * driver: what PLplot's own plstrl does (src/plsym.c), which libplplot does not export. The
 * driver is asked through the stream's driver interface (plstrm.h: has_string_length,
 * get_string_length, string_length): plmtex then only lays the string out. The cairo
 * drivers lay it out with Pango, the layout they draw (drivers/cairo.c, text_end_cairo:
 * the Pango pixel extent, at 72 px per inch, in mm). -1 when the driver cannot measure or
 * no viewport is set (plmtex needs one). */
static double driver_string_mm(const char *s) {
    PLStream *pls = NULL;
    PLINT level = 0;
    plglevel(&level);
    plgpls(&pls);
    if (pls == NULL || level < 2 || !pls->has_string_length) return -1.0;
    PLINT buffered = pls->plbuf_write;
    pls->plbuf_write = 0; /* not into the plot buffer: nothing is drawn */
    pls->get_string_length = 1;
    pls->string_length = -1.0;
    plmtex("t", 0.0, 0.0, 0.0, s);
    pls->get_string_length = 0;
    pls->plbuf_write = buffered;
    return pls->string_length;
}

/* Width of PLplot text (escapes included: "10#u−3#d" measures the superscript at its size)
 * [character heights of the current text size]: measured by the driver, in the current font
 * (bold titles included); the estimate where the driver cannot measure. */
double text_width_ch(const char *s) {
    if (s == NULL || s[0] == '\0') return 0.0;
    PLFLT def = 0.0, ht = 0.0;
    plgchr(&def, &ht);
    double w = ht > 0.0 ? driver_string_mm(s) : -1.0;
    return isfinite(w) && w >= 0.0 ? w / ht : text_width_est(s);
}

void mtex(const char *side, double disp, double pos, double just, const char *text) {
    char buf[1024];
    nsd_plot_escape_text(text, buf, sizeof buf);
    if (buf[0]) plmtex(side, disp, pos, just, buf);
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
    else if (ascii_ieq(name, "svg-text"))
        f = NSD_PLOT_SVG_TEXT;
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
        case NSD_PLOT_SVG_TEXT: return "svg";
    }
    return "";
}

const char *format_device(nsd_plot_format f) {
    switch (f) {
        case NSD_PLOT_PNG: return "pngcairo";
        case NSD_PLOT_SVG: return "svgcairo";
        case NSD_PLOT_PDF: return "pdfcairo";
        case NSD_PLOT_SVG_TEXT: return "svg"; /* PLplot's own: text as <text> */
    }
    return NULL;
}
