/* nsdyn plotting module: text. The width of a label (measured by the driver, else
 * estimated, to size margins before anything is drawn), margin text, and the output formats'
 * PLplot devices. Escaping and format names are in plot_names.c (no PLplot there). */
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

/* 1 if the current stream's driver draws arcs itself (the cairo drivers: a true circle); 0
 * if PLplot would turn plarc into a polyline of its own (the svg driver: hundreds of points
 * a circle, plsc->dev_arc in plstrm.h). */
int driver_draws_arcs(void) {
    PLStream *pls = NULL;
    plgpls(&pls);
    return pls != NULL && pls->dev_arc;
}

/* 1 if the current stream draws through PLplot's own svg driver (no string lengths). */
static int device_is_svg(void) {
    char dev[80] = "";
    plgdev(dev);
    return strcmp(dev, "svg") == 0;
}

int device_is_raster(void) {
    char dev[80] = "";
    plgdev(dev);
    return strcmp(dev, "memcairo") == 0;
}

/* Width of PLplot text (escapes included: "10#u−3#d" measures the superscript at its size)
 * [character heights of the current text size]: measured by the driver, in the current font
 * (bold titles included); for the svg driver, measured with FreeType in the font and at the
 * sizes it writes (plot_ftext.c); the estimate where neither can measure. */
double text_width_ch(const char *s) {
    if (s == NULL || s[0] == '\0') return 0.0;
    PLFLT def = 0.0, ht = 0.0;
    plgchr(&def, &ht);
    double w = ht > 0.0 ? driver_string_mm(s) : -1.0;
    if (!(w >= 0.0) && ht > 0.0 && device_is_svg()) w = ftext_string_mm(s); /* plot_ftext.c */
    return isfinite(w) && w >= 0.0 ? w / ht : text_width_est(s);
}

void mtex(const char *side, double disp, double pos, double just, const char *text) {
    char buf[1024];
    nsd_plot_escape_text(text, buf, sizeof buf);
    if (buf[0]) plmtex(side, disp, pos, just, buf);
}

const char *format_device(nsd_plot_format f) {
    switch (f) {
        case NSD_PLOT_PNG: return "memcairo"; /* pixels, encoded by plot_png.c */
        case NSD_PLOT_SVG: return "svgcairo";
        case NSD_PLOT_PDF: return "pdfcairo";
        case NSD_PLOT_SVG_TEXT: return "svg"; /* PLplot's own: text as <text> */
    }
    return NULL;
}
