/* nsdyn plotting module: axes. Ranges of the data, the map from data to plotting
 * coordinates (log10 on log axes), automatic limits, tick steps and tick labels.
 *
 * Issue 13 (PLplot's own ticks and legends). plbox called with a zero tick step and zero
 * minor count picks its own steps, and its default labels carry its own exponent label, so it
 * could replace: nice_step, decimals_for, linear_ticks and log_ticks (tick steps; "l" in its
 * options for log axes), format_tick and format_label (the labels; now set through
 * plslabelfunc), format_factor, factor_offset and factor_width (the x10^k factor; plsxax and
 * plsyax set when it appears) and uses_pl_log. What stays: range_add, tr, ensure_width,
 * auto_range, resolve_axis and apply_equal_aspect (the window itself), and the margins sized
 * from label_w in plot_panel.c, which PLplot does not report before drawing (they would become
 * fixed or be measured after a first plbox). In plot_legend.c, pllegend given line colours,
 * styles, widths and symbols (PL_LEGEND_LINE | PL_LEGEND_SYMBOL) could replace the samples
 * draw_legend draws by hand over pllegend's empty sample area. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_internal.h"

void range_add(range *r, double v) {
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
double tr(double v, int lg) {
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
void resolve_axis(double umin, double umax, const range *data, int lg, double *lo, double *hi) {
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

/* Widen one axis so both have the same mm scale. */
void apply_equal_aspect(axis_info *ax, axis_info *ay, double w_mm, double h_mm) {
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
void linear_ticks(axis_info *a, double len_mm, double ch, int vertical) {
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
void log_ticks(axis_info *a, double len_mm, double ch, int vertical) {
    static const int steps[] = {1, 2, 3, 5, 10, 20, 25, 50, 100};
    a->expo = 0;
    a->decimals = 0;
    double emax = fmax(fabs(floor(a->lo)), fabs(ceil(a->hi)));
    double digits = emax >= 100 ? 3 : (emax >= 10 ? 2 : 1);
    /* the widest label: 10 with a superscript of `digits` digits and a minus, measured */
    char widest[32];
    snprintf(widest, sizeof widest, "10#u\xE2\x88\x92%.*s#d", (int)digits, "888");
    a->label_w = text_width_ch(widest);
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
void format_label(const axis_info *a, double v, char *buf, size_t len) {
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

/* Log axis drawn with PLplot's own log ticks (one label per decade). */
int uses_pl_log(const axis_info *a) { return a->log && a->step == 1.0; }

/* The x axis' x10^k factor sits on the tick label line, right of the axis
 * end, `factor_offset` character heights away from it. */
double factor_offset(const axis_info *ax) { return 0.5 * ax->label_w + 0.6; }

double factor_width(int e) {
    char buf[64];
    format_factor(e, buf, sizeof buf);
    return text_width_ch(buf);
}

/* "×10^e" for the common factor of an axis. */
void format_factor(int e, char *buf, size_t len) {
    snprintf(buf, len,
             "\xC3\x97"
             "10#u%s%d#d",
             e < 0 ? "\xE2\x88\x92" : "", e < 0 ? -e : e);
}
