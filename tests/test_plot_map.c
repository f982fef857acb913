/* Issue 26 in the plot module: maps (nsd_map: a continuous colour scale with a colour bar),
 * measured text widths, and SVG with editable text. The layout is read back from the
 * layout report (NSDYN_PLOT_LAYOUT), the same one tests/check_figures.py reads. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

static char dir[256];

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/nsd_plot_map_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char layout[300];
    snprintf(layout, sizeof layout, "%s/layout.jsonl", dir);
    setenv("NSDYN_PLOT_LAYOUT", layout, 1);
}

static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    unsetenv("NSDYN_PLOT_LAYOUT");
}

/* The whole layout report (one JSON line per figure), malloc'd. */
static char *read_layout(void) {
    char path[300];
    snprintf(path, sizeof path, "%s/layout.jsonl", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* x0 and x1 of the first box of `kind` after `from` in the report (NAN if none). */
static const char *box_x(const char *from, const char *kind, double *x0, double *x1) {
    char key[64];
    snprintf(key, sizeof key, "{\"kind\":\"%s\"", kind);
    const char *p = strstr(from, key);
    *x0 = *x1 = NAN;
    if (!p) return NULL;
    const char *a = strstr(p, "\"x0\":"), *b = strstr(p, "\"x1\":");
    *x0 = strtod(a + 5, NULL);
    *x1 = strtod(b + 5, NULL);
    return p + 1;
}

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void fill_map(nsd_map *mp, double *x, double *y, double *z, size_t nx, size_t ny,
                     double nan_frac) {
    double xv = -1.0 + urand(), yv = urand() * 100.0;
    for (size_t i = 0; i < nx; ++i) x[i] = xv += 0.1 + urand();
    for (size_t j = 0; j < ny; ++j) y[j] = yv += 0.5 + 10.0 * urand();
    for (size_t k = 0; k < nx * ny; ++k)
        z[k] = urand() < nan_frac ? NAN : sin(3.0 * urand()) * pow(10.0, 6.0 * urand() - 3.0);
    *mp = (nsd_map){.x = x,
                    .y = y,
                    .nx = nx,
                    .ny = ny,
                    .z = z,
                    .label = "value v [m]",
                    .zmin = NAN,
                    .zmax = NAN};
}

/* Random grids (2 x 2 to 14 x 14, up to a third of the nodes NaN, values over six decades):
 * every figure is written, its colour bar is right of the plot and clear of it, and the
 * plot spans the grid. */
START_TEST(test_random_maps) {
    for (int k = 0; k < 12; ++k) {
        size_t nx = 2 + (size_t)(12 * urand()), ny = 2 + (size_t)(12 * urand());
        double x[16], y[16], z[256];
        nsd_map mp;
        fill_map(&mp, x, y, z, nx, ny, k % 3 == 0 ? 0.0 : 0.33 * urand());
        double cx[2] = {x[0], x[nx - 1]}, cy[2] = {y[0], y[ny - 1]};
        nsd_curve c = {.x = cx, .y = cy, .n = 2, .legend = "a diagonal", .color = 6};
        nsd_panel p = {.title = "map",
                       .xlabel = "x [m]",
                       .ylabel = "y [s]",
                       .curves = &c,
                       .n_curves = 1,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 5,
                       .map = &mp};
        nsd_figure fig = {.panels = &p, .n_panels = 1, .width_px = 900, .height_px = 600};
        char path[300], err[256];
        snprintf(path, sizeof path, "%s/map%d.png", dir, k);
        ck_assert_msg(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err) == 0, "%s", err);
    }
    char *rep = read_layout();
    const char *line = rep;
    for (int k = 0; k < 12; ++k) {
        double px0, px1, bx0, bx1;
        const char *plot = box_x(line, "plot", &px0, &px1);
        ck_assert_ptr_nonnull(plot);
        /* the colour bar: a "legend" box right of the plot (the curve's legend is above) */
        const char *q = line;
        int found = 0;
        while ((q = box_x(q, "legend", &bx0, &bx1)) != NULL && q < strchr(line, '\n'))
            if (bx0 > px1) {
                found = 1;
                break;
            }
        ck_assert_msg(found, "figure %d: no colour bar right of the plot", k);
        line = strchr(line, '\n') + 1;
    }
    free(rep);
}
END_TEST

START_TEST(test_bad_maps) {
    double x[3] = {0, 1, 1}, y[2] = {0, 1}, z[6] = {0};
    nsd_map mp = {.x = x, .y = y, .nx = 3, .ny = 2, .z = z, .zmin = NAN, .zmax = NAN};
    nsd_panel p = {.xmin = NAN, .xmax = NAN, .ymin = NAN, .ymax = NAN, .map = &mp};
    nsd_figure fig = {.panels = &p, .n_panels = 1};
    char path[300], err[256];
    snprintf(path, sizeof path, "%s/bad.png", dir);
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not strictly increasing"), "%s", err);
    mp.nx = 1;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "2 x 2 nodes"), "%s", err);
    ck_assert(access(path, F_OK) != 0);
}
END_TEST

/* Text widths are measured by the driver: in DejaVu Sans "W" is 3.6 times as wide as "i"
 * (advances 0.989 and 0.278 em); the estimate the layout used before (0.78 and 0.42
 * character heights) made it 1.9, so a title of W's was reported narrower than drawn. */
START_TEST(test_measured_widths) {
    const char *titles[2] = {"iiiiiiiiiiiiiiii", "WWWWWWWWWWWWWWWW"};
    for (int k = 0; k < 2; ++k) {
        double x[2] = {0, 1};
        nsd_curve c = {.x = x, .y = x, .n = 2};
        nsd_panel p = {.curves = &c,
                       .n_curves = 1,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN,
                       .legend_position = 6};
        nsd_figure fig = {
            .title = titles[k], .panels = &p, .n_panels = 1, .width_px = 1200, .height_px = 400};
        char path[300], err[256];
        snprintf(path, sizeof path, "%s/w%d.png", dir, k);
        ck_assert_msg(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err) == 0, "%s", err);
    }
    char *rep = read_layout();
    double w[2];
    const char *line = rep;
    for (int k = 0; k < 2; ++k) {
        const char *t = strstr(line, "\"panel\":-1");
        ck_assert_ptr_nonnull(t);
        w[k] = strtod(strstr(t, "\"x1\":") + 5, NULL) - strtod(strstr(t, "\"x0\":") + 5, NULL);
        line = strchr(line, '\n') + 1;
    }
    free(rep);
    ck_assert_msg(w[1] / w[0] > 3.0 && w[1] / w[0] < 4.2, "W/i width ratio %g", w[1] / w[0]);
}
END_TEST

/* format svg-text: PLplot's svg driver, text as <text> elements (editable); svg: cairo's
 * glyph outlines, no <text>. */
START_TEST(test_svg_text) {
    double x[2] = {0, 1};
    nsd_curve c = {.x = x, .y = x, .n = 2};
    nsd_panel p = {.title = "editable",
                   .xlabel = "time t [s]",
                   .curves = &c,
                   .n_curves = 1,
                   .xmin = NAN,
                   .xmax = NAN,
                   .ymin = NAN,
                   .ymax = NAN};
    nsd_figure fig = {.panels = &p, .n_panels = 1};
    const nsd_plot_format fmts[2] = {NSD_PLOT_SVG_TEXT, NSD_PLOT_SVG};
    for (int k = 0; k < 2; ++k) {
        char path[300], err[256], buf[1 << 16];
        snprintf(path, sizeof path, "%s/t%d.%s", dir, k, nsd_plot_format_ext(fmts[k]));
        ck_assert_msg(nsd_plot_write(path, fmts[k], &fig, err, sizeof err) == 0, "%s", err);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        ck_assert_int_eq(strstr(buf, "<text") != NULL, k == 0);
        /* the driver writes every character as an XML character reference */
        if (k == 0) ck_assert_ptr_nonnull(strstr(buf, "&#x74;&#x69;&#x6d;&#x65;")); /* time */
    }
    nsd_plot_format f;
    ck_assert_int_eq(nsd_plot_format_parse("SVG-Text", &f), 0);
    ck_assert_int_eq(f, NSD_PLOT_SVG_TEXT);
}
END_TEST

int main(void) {
    Suite *s = suite_create("plot_map");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_maps);
    tcase_add_test(tc, test_bad_maps);
    tcase_add_test(tc, test_measured_widths);
    tcase_add_test(tc, test_svg_text);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
