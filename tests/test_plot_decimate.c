/* The polylines of a figure against the data (core/src/plot/plot_clip.c, issue 26): the plot
 * module drops every point that lies within a tenth of a pixel of the line it draws in a
 * PNG, a hundredth of a point in SVG and PDF. Over randomized curves (smooth, random walks,
 * corners, spikes, curves that turn back on themselves, gaps), drawn as SVG through PLplot's
 * own svg driver (its numbers are the drawn coordinates), checked from the file and the
 * layout report alone:
 *   - every vertex drawn is a point of the data (the line is not made up);
 *   - every point of the data lies within the tolerance of the line drawn (nothing is cut
 *     off: a peak, the tip of a curve that turns back);
 *   - a smooth curve of 3 000 samples is drawn with far fewer vertices (the point of it).
 * Tolerances: 0.01 pt is the module's, plus what lies between the data and the numbers in
 * the file: PLplot's device grid (32 767 units across the 300 pt page: 0.01 pt), the file's
 * %.2f (0.005 pt) and the plot box of the report, whose scale differs from the device's by
 * less than 1e-4 (0.02 pt across the plot): 0.03 pt in all. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"

#define TOL_PT 0.01
#define ROUND_PT 0.03
#define MM_PT (72.0 / 25.4)

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
            failures++;                                          \
        }                                                        \
    } while (0)

static unsigned long long rng_state;

static double urand(void) { /* xorshift64*: reproducible across libcs */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* A curve of kind k: 0 smooth, 1 random walk, 2 impacts (|sin|: corners), 3 out and back
 * along a line (turns back on itself), 4 spikes of one sample, 5 smooth with NaN gaps. */
static void make_curve(int k, size_t n, double *x, double *y) {
    double f1 = 1.0 + 6.0 * urand(), f2 = 5.0 + 20.0 * urand(), a2 = 0.2 * urand(), w = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double t = (double)i / (double)(n - 1);
        x[i] = t;
        switch (k) {
            case 0: y[i] = sin(6.283 * f1 * t) + a2 * sin(6.283 * f2 * t); break;
            case 1: y[i] = (w += urand() - 0.5); break;
            case 2: y[i] = fabs(sin(3.1416 * f1 * t)) * exp(-t); break;
            case 3:
                x[i] = sin(3.1416 * f1 * t);
                y[i] = 0.3 * x[i] + 1e-4 * (urand() - 0.5);
                break;
            case 4: y[i] = sin(6.283 * t) + (urand() < 0.01 ? 2.0 * (urand() - 0.5) : 0.0); break;
            default: y[i] = urand() < 0.005 ? NAN : cos(6.283 * f1 * t); break;
        }
    }
}

/* The vertices of the polylines drawn in the curve's colour: pieces[i] starts at start[i]. */
typedef struct drawn {
    double *x, *y;
    size_t n, cap;
    size_t *start, np, capp;
} drawn;

static void drawn_add(drawn *d, double x, double y) {
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->x = realloc(d->x, d->cap * sizeof *d->x);
        d->y = realloc(d->y, d->cap * sizeof *d->y);
    }
    d->x[d->n] = x, d->y[d->n] = y, d->n++;
}

static void drawn_piece(drawn *d) {
    if (d->np == d->capp) {
        d->capp = d->capp ? 2 * d->capp : 64;
        d->start = realloc(d->start, d->capp * sizeof *d->start);
    }
    d->start[d->np++] = d->n;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)sz + 1);
    size_t got = fread(s, 1, (size_t)sz, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* The polylines stroked in colour `stroke` (the svg driver: stroke="#RRGGBB" ... points="x,y
 * x,y ..."), in points from the page's bottom-left corner (its group flips y). */
static void read_polylines(const char *svg, const char *stroke, drawn *d) {
    char want[32];
    snprintf(want, sizeof want, "stroke=\"%s\"", stroke);
    for (const char *p = strstr(svg, "<polyline"); p; p = strstr(p + 1, "<polyline")) {
        const char *end = strstr(p, "/>"), *s = strstr(p, want), *pts = strstr(p, "points=\"");
        if (!end || !s || !pts || s > end || pts > end) continue;
        drawn_piece(d);
        const char *q = pts + 8;
        double x, y;
        int used;
        while (sscanf(q, " %lf,%lf%n", &x, &y, &used) == 2) {
            drawn_add(d, x, y);
            q += used;
        }
    }
}

/* The plot box of panel 0 [mm] from the layout report. */
static int read_plot_box(const char *report, double b[4]) {
    char *s = slurp(report);
    const char *p = s ? strstr(s, "{\"kind\":\"plot\",\"panel\":0,") : NULL;
    int ok =
        p && sscanf(p, "{\"kind\":\"plot\",\"panel\":0,\"x0\":%lf,\"y0\":%lf,\"x1\":%lf,\"y1\":%lf",
                    &b[0], &b[1], &b[2], &b[3]) == 4;
    free(s);
    return ok;
}

static double seg_dist(double px, double py, double ax, double ay, double bx, double by) {
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    double t = l2 > 0.0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return hypot(px - ax - t * dx, py - ay - t * dy);
}

/* Distance of (px, py) to the line drawn: its pieces' segments, or their single points. */
static double dist_to_drawn(const drawn *d, double px, double py) {
    double best = INFINITY;
    for (size_t k = 0; k < d->np; ++k) {
        size_t a = d->start[k], b = k + 1 < d->np ? d->start[k + 1] : d->n;
        for (size_t i = a; i < b; ++i) {
            double e = i + 1 < b ? seg_dist(px, py, d->x[i], d->y[i], d->x[i + 1], d->y[i + 1])
                                 : hypot(px - d->x[i], py - d->y[i]);
            if (e < best) best = e;
        }
    }
    return best;
}

/* One case; returns the number of vertices drawn. */
static size_t check_case(const char *dir, int seed, int kind, size_t n) {
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    make_curve(kind, n, x, y);
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(y[i])) continue;
        xlo = fmin(xlo, x[i]), xhi = fmax(xhi, x[i]), ylo = fmin(ylo, y[i]), yhi = fmax(yhi, y[i]);
    }
    nsd_curve c = {.x = x, .y = y, .n = n, .color = 0};
    nsd_panel p = {.curves = &c,
                   .n_curves = 1,
                   .xmin = xlo,
                   .xmax = xhi,
                   .ymin = ylo,
                   .ymax = yhi,
                   .legend_position = 6,
                   .xlabel = "x [m]",
                   .ylabel = "y [m]"};
    /* 300 x 200 pt: PLplot's device grid (32 767 units across the page) is then 0.01 pt */
    nsd_figure fig = {.panels = &p, .n_panels = 1, .width_px = 300, .height_px = 200};
    char path[600], report[600], err[256];
    snprintf(path, sizeof path, "%s/case%d.svg", dir, seed);
    snprintf(report, sizeof report, "%s/case%d.jsonl", dir, seed);
    setenv("NSDYN_PLOT_LAYOUT", report, 1);
    int rc = nsd_plot_write(path, NSD_PLOT_SVG_TEXT, &fig, err, sizeof err);
    unsetenv("NSDYN_PLOT_LAYOUT");
    CHECK(rc == 0, "case %d: %s", seed, err);
    double b[4];
    CHECK(read_plot_box(report, b), "case %d: no plot box in the report", seed);
    char *svg = slurp(path);
    drawn d = {0};
    if (svg) read_polylines(svg, "#0072B2", &d);
    CHECK(d.n >= 2, "case %d: nothing drawn", seed);
    /* the data in points, as the module maps them onto the plot box */
    double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    for (size_t i = 0; i < n; ++i) {
        px[i] = MM_PT * (b[0] + (x[i] - xlo) / (xhi - xlo) * (b[2] - b[0]));
        py[i] = MM_PT * (b[1] + (y[i] - ylo) / (yhi - ylo) * (b[3] - b[1]));
    }
    double worst_v = 0.0, worst_p = 0.0;
    for (size_t j = 0; j < d.n; ++j) { /* each vertex: a point of the data */
        double e = INFINITY;
        for (size_t i = 0; i < n; ++i)
            if (isfinite(py[i])) e = fmin(e, hypot(d.x[j] - px[i], d.y[j] - py[i]));
        worst_v = fmax(worst_v, e);
    }
    for (size_t i = 0; i < n; ++i) { /* each point joined to a neighbour: near the line */
        int joined = isfinite(py[i]) &&
                     ((i > 0 && isfinite(py[i - 1])) || (i + 1 < n && isfinite(py[i + 1])));
        if (joined) worst_p = fmax(worst_p, dist_to_drawn(&d, px[i], py[i]));
    }
    CHECK(worst_v <= ROUND_PT, "case %d (kind %d, n %zu): a vertex %.4f pt from every data point",
          seed, kind, n, worst_v);
    CHECK(worst_p <= TOL_PT + ROUND_PT,
          "case %d (kind %d, n %zu): a data point %.4f pt from the line drawn (at most %.2f)", seed,
          kind, n, worst_p, TOL_PT + ROUND_PT);
    size_t drawn_n = d.n;
    free(d.x), free(d.y), free(d.start), free(svg), free(px), free(py), free(x), free(y);
    remove(path), remove(report);
    return drawn_n;
}

int main(void) {
    char dir[] = "/tmp/nsd_decimate_XXXXXX";
    if (!mkdtemp(dir)) return 2;
    rng_state = 0x9E3779B97F4A7C15ULL;
    for (int seed = 0; seed < 36; ++seed) {
        int kind = seed % 6;
        size_t n = 200 + (size_t)(urand() * 3800.0);
        check_case(dir, seed, kind, n);
    }
    /* a smooth curve of 3 000 samples (a run's time series): far fewer vertices */
    size_t smooth = check_case(dir, 100, 0, 3000);
    CHECK(smooth < 3000 / 5, "a smooth curve of 3000 samples drawn with %zu vertices", smooth);
    rmdir(dir);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
