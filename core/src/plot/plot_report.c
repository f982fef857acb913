/* nsdyn plotting module: the layout report. With NSDYN_PLOT_LAYOUT naming a file,
 * nsd_plot_write appends one JSON line per figure with the boxes it placed, so a test can
 * check the layout rules (text inside the page, legends over no data, nothing overlapping)
 * on every kind of figure instead of only "a file was written" (tests/check_figures.py).
 *
 * Text boxes have the width the driver measures for the text (plot_text.c, the same
 * measure that sizes the margins) and one character height, centred vertically on the
 * reference point as PLplot places text. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot_internal.h"

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void report_box(const metrics *m, const char *kind, long panel, double x0, double y0, double x1,
                double y1, long covered, const char *text) {
    if (!m->report) return;
    FILE *f = m->report;
    fprintf(f, ",{\"kind\":\"%s\",\"panel\":%ld,\"x0\":%.3f,\"y0\":%.3f,\"x1\":%.3f,\"y1\":%.3f",
            kind, panel, fmin(x0, x1), fmin(y0, y1), fmax(x0, x1), fmax(y0, y1));
    if (covered >= 0) fprintf(f, ",\"covered\":%ld", covered);
    if (text) {
        fputs(",\"text\":", f);
        json_string(f, text);
    }
    fputc('}', f);
}

/* The text PLplot shows for `text` with escapes (tick labels: "10#u−3#d" is 10 with a
 * superscript −3, reported as "10^−3"). */
static void shown(const char *text, int escaped, char *out, size_t len) {
    size_t k = 0;
    for (const char *p = text; *p && k + 4 < len;) {
        if (escaped && p[0] == '#' && (p[1] == 'u' || p[1] == 'd')) {
            if (p[1] == 'u') out[k++] = '^';
            p += 2;
            continue;
        }
        if (escaped && p[0] == '#' && p[1] == '#') p++;
        size_t n = utf8_seq_len((const unsigned char *)p);
        if (n == 0) n = 1;
        memcpy(out + k, p, n);
        k += n;
        p += n;
    }
    out[k] = '\0';
}

void report_mtex(const metrics *m, long panel, const double vp[4], const char *side, double disp,
                 double pos, double just, double ch_mm, const char *text) {
    if (!m->report || !text || !text[0]) return;
    /* tick labels come escaped (label_cb); the others are literal (mtex escapes them) */
    int escaped = strstr(text, "#u") != NULL || strstr(text, "#d") != NULL;
    char pl_text[1024], buf[1024];
    if (escaped)
        snprintf(pl_text, sizeof pl_text, "%s", text);
    else
        nsd_plot_escape_text(text, pl_text, sizeof pl_text);
    /* the width the driver measures for the text as drawn (plot_text.c) */
    double w = text_width_ch(pl_text) * ch_mm, h = ch_mm;
    shown(text, escaped, buf, sizeof buf);
    text = buf;
    double X0 = vp[0] * m->page_w_mm, X1 = vp[1] * m->page_w_mm;
    double Y0 = vp[2] * m->page_h_mm, Y1 = vp[3] * m->page_h_mm;
    double d = disp * ch_mm;
    int vertical_text = strchr(side, 'v') == NULL && (side[0] == 'l' || side[0] == 'r');
    double x0, y0, x1, y1;
    if (side[0] == 'b' || side[0] == 't') {
        double cx = X0 + pos * (X1 - X0), cy = side[0] == 'b' ? Y0 - d : Y1 + d;
        x0 = cx - just * w;
        x1 = x0 + w;
        y0 = cy - 0.5 * h;
        y1 = cy + 0.5 * h;
    } else if (vertical_text) { /* written along the edge, bottom to top */
        double cx = side[0] == 'l' ? X0 - d : X1 + d, cy = Y0 + pos * (Y1 - Y0);
        x0 = cx - 0.5 * h;
        x1 = cx + 0.5 * h;
        y0 = cy - just * w;
        y1 = y0 + w;
    } else { /* horizontal at the left or right edge */
        double ex = side[0] == 'l' ? X0 - d : X1 + d, cy = Y0 + pos * (Y1 - Y0);
        x0 = ex - just * w;
        x1 = x0 + w;
        y0 = cy - 0.5 * h;
        y1 = cy + 0.5 * h;
    }
    /* panel <= -2: an axis label of panel -2 - panel */
    report_box(m, panel <= -2 ? "axis" : "text", panel <= -2 ? -2 - panel : panel, x0, y0, x1, y1,
               -1, text);
}

void report_begin(const metrics *m, const char *path) {
    if (!m->report) return;
    fputs("{\"file\":", m->report);
    json_string(m->report, path);
    fprintf(m->report, ",\"page_w\":%.3f,\"page_h\":%.3f,\"boxes\":[{\"kind\":\"page\"}",
            m->page_w_mm, m->page_h_mm);
}

void report_end(const metrics *m) {
    if (m->report) fputs("]}\n", m->report);
}
