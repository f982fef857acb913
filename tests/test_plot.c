/* Tests of the plotting module (core/src/plot/). */
#define _POSIX_C_SOURCE 200809L

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plplot.h>

#include "plot.h"

/* Under LeakSanitizer (sanitizer builds): fontconfig, used by cairo/pango in
 * PLplot's cairo driver, keeps process-lifetime caches that LSan reports as
 * leaks (a fixed amount, not growing with the number of figures). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

/* ---- helpers -------------------------------------------------------------- */

static char tmpdir[256];

static void make_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0') base = "/tmp";
    snprintf(tmpdir, sizeof tmpdir, "%s/nsd_plot_test_XXXXXX", base);
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[800];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void remove_tmpdir(void) {
    if (getenv("NSD_PLOT_KEEP") == NULL) remove_tree(tmpdir);
}

static void path_in_tmp(char *buf, size_t len, const char *name) {
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static long file_size(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    return (long)st.st_size;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int tmp_exists(const char *path) {
    char t[700];
    snprintf(t, sizeof t, "%s.tmp", path);
    return file_exists(t);
}

static size_t read_head(const char *path, unsigned char *buf, size_t len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    size_t n = fread(buf, 1, len, f);
    fclose(f);
    return n;
}

static int file_contains(const char *path, const char *needle) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    size_t cap = 1 << 20, n;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        fclose(f);
        return 0;
    }
    n = fread(buf, 1, cap, f);
    fclose(f);
    buf[n] = '\0';
    int found = 0;
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl <= n && !found; ++i)
        if (memcmp(buf + i, needle, nl) == 0) found = 1;
    free(buf);
    return found;
}

/* stderr redirected to a file between capture_begin and capture_end, to check
 * that PLplot printed nothing (nsd_plot_write must report through err only). */
typedef struct stderr_capture {
    int saved;
    char path[600];
} stderr_capture;

static void capture_begin(stderr_capture *c) {
    path_in_tmp(c->path, sizeof c->path, "stderr.txt");
    fflush(stderr);
    c->saved = dup(2);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 2);
    close(fd);
}

/* Returns 1 if anything PLplot-like was printed while capturing. */
static int capture_end(stderr_capture *c) {
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    int printed = file_contains(c->path, "PLPLOT") || file_contains(c->path, "plplot") ||
                  file_contains(c->path, "Enter graphics");
    if (printed) {
        /* show it to the developer */
        FILE *f = fopen(c->path, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) fprintf(stderr, "captured: %s", line);
        if (f) fclose(f);
    }
    unlink(c->path);
    return printed;
}

/* ---- the 2 x 2 demo figure ------------------------------------------------ */

#define NT 600

typedef struct demo_data {
    double t[NT], psi[NT], dpsi[NT], u[NT];
    double px[NT], py[NT];
    double h[8], e1[8], e2[8], ref[8];
    double cx[3], cy[3], nan1[4];
    double events[3];
} demo_data;

static void fill_demo(demo_data *d) {
    for (int i = 0; i < NT; ++i) {
        double t = 10.0 * i / (NT - 1);
        d->t[i] = t;
        d->psi[i] = 0.8 * exp(-0.2 * t) * cos(2.5 * t);
        d->dpsi[i] = 0.8 * exp(-0.2 * t) * (-0.2 * cos(2.5 * t) - 2.5 * sin(2.5 * t));
        d->u[i] = 0.3 * sin(1.3 * t) + 0.1;
        d->px[i] = d->psi[i];
        d->py[i] = d->dpsi[i] / 2.5;
    }
    /* a gap in the first curve */
    for (int i = 200; i < 230; ++i) d->psi[i] = NAN;
    /* convergence data: error ~ C h^p, one nonpositive value that must be skipped */
    for (int k = 0; k < 8; ++k) {
        d->h[k] = 0.1 / pow(2.0, k);
        d->e1[k] = 0.5 * d->h[k];
        d->e2[k] = 3.0 * pow(d->h[k], 4.0);
        d->ref[k] = 0.05 * pow(d->h[k], 2.0);
    }
    d->e2[3] = 0.0;
    d->e1[5] = -1.0;
    d->cx[0] = 5.0, d->cx[1] = 5.0, d->cx[2] = 5.0;
    d->cy[0] = 0.25, d->cy[1] = 0.25, d->cy[2] = 0.25;
    for (int i = 0; i < 4; ++i) d->nan1[i] = NAN;
    d->events[0] = 2.0, d->events[1] = 4.75, d->events[2] = 7.5;
}

typedef struct picture {
    int calls;
} picture;

/* A wheel on a ground with a force arrow and a highlighted contact. */
static void draw_picture(void *ctx, const nsdyn_canvas *cv) {
    picture *pic = ctx;
    pic->calls++;
    ck_assert_uint_eq(cv->struct_size, sizeof(nsdyn_canvas));
    /* ground */
    double gx[4] = {-1.3, 1.3, 1.3, -1.3}, gy[4] = {-1.0, -1.0, -1.25, -1.25};
    cv->pen(cv->ctx, 1);
    cv->polygon(cv->ctx, 4, gx, gy, 1);
    cv->line(cv->ctx, -1.3, -1.0, 1.3, -1.0);
    /* wheel */
    cv->pen(cv->ctx, 0);
    cv->circle(cv->ctx, 0.0, 0.0, 1.0);
    for (int k = 0; k < 6; ++k) {
        double a = k * 3.14159265358979 / 3.0;
        cv->line(cv->ctx, 0.0, 0.0, cos(a), sin(a));
    }
    double hx[4] = {-0.12, 0.12, 0.12, -0.12}, hy[4] = {-0.12, -0.12, 0.12, 0.12};
    cv->polygon(cv->ctx, 4, hx, hy, 1);
    /* contact highlight */
    cv->pen(cv->ctx, 2);
    cv->circle(cv->ctx, 0.0, -1.0, 0.08);
    double tx[3] = {-0.15, 0.15, 0.0}, ty[3] = {-1.0, -1.0, -0.8};
    cv->polygon(cv->ctx, 3, tx, ty, 0);
    /* force arrow */
    cv->pen(cv->ctx, 3);
    cv->line(cv->ctx, 0.0, 0.0, 0.9, 0.55);
    double ax[3] = {0.9, 0.78, 0.83}, ay[3] = {0.55, 0.55, 0.44};
    cv->polygon(cv->ctx, 3, ax, ay, 1);
}

static void demo_figure(demo_data *d, picture *pic, nsd_panel panels[4], nsd_curve *c1,
                        nsd_curve *c2, nsd_curve *c3, nsd_curve *c4, nsd_figure *fig) {
    fill_demo(d);
    memset(pic, 0, sizeof *pic);
    /* time series: gap, dashed, dotted, empty curve, events */
    c1[0] = (nsd_curve){d->t, d->psi, NT, "bar angle ψ (run #1)", -1, 0, 0.0, 0, 0, 0};
    c1[1] = (nsd_curve){d->t, d->u, NT, "input u", -1, 1, 0.0, 0, 0, 0};
    c1[2] = (nsd_curve){d->t, d->dpsi, NT, "rate ψ'", -1, 2, 1.0, 0, 0, 0};
    c1[3] = (nsd_curve){NULL, NULL, 0, "empty", -1, 0, 0.0, 0, 0, 0};
    /* phase portrait */
    c2[0] = (nsd_curve){d->px, d->py, NT, "trajectory", 0, 0, 1.2, 0, 0, 0};
    /* convergence */
    c3[0] = (nsd_curve){d->h, d->e1, 8, "Euler", -1, 0, 0.0, 2, 0, 0};
    c3[1] = (nsd_curve){d->h, d->e2, 8, "RK4", -1, 0, 0.0, 2, 0, 0};
    c3[2] = (nsd_curve){d->h, d->ref, 8, "slope 2", 6, 1, 1.0, 0, 0, 0};
    /* degenerate: constant, single points, all-NaN */
    c4[0] = (nsd_curve){d->t, d->cy, 1, "single point", -1, 0, 0.0, 0, 0, 0};
    c4[1] = (nsd_curve){d->cx, d->cy, 3, "constant", -1, 0, 0.0, 1, 0, 0};
    c4[2] = (nsd_curve){d->nan1, d->nan1, 4, "all NaN", -1, 0, 0.0, 0, 0, 0};

    memset(panels, 0, 4 * sizeof *panels);
    for (int i = 0; i < 4; ++i) {
        panels[i].xmin = panels[i].xmax = panels[i].ymin = panels[i].ymax = NAN;
    }
    panels[0].title = "Time series";
    panels[0].xlabel = "time t [s]";
    panels[0].ylabel = "angle ψ [rad], rate [rad/s]";
    panels[0].curves = c1;
    panels[0].n_curves = 4;
    panels[0].vlines = d->events;
    panels[0].n_vlines = 3;

    panels[1].title = "Phase portrait";
    panels[1].xlabel = "ψ [rad]";
    panels[1].ylabel = "ψ'/ω [rad]";
    panels[1].curves = c2;
    panels[1].n_curves = 1;
    panels[1].equal_aspect = 1;
    panels[1].draw = draw_picture;
    panels[1].draw_ctx = pic;
    panels[1].legend_position = 3;

    panels[2].title = "Convergence";
    panels[2].xlabel = "step size h [s]";
    panels[2].ylabel = "max error [rad]";
    panels[2].curves = c3;
    panels[2].n_curves = 3;
    panels[2].log_x = 1;
    panels[2].log_y = 1;
    panels[2].legend_position = 2;

    panels[3].title = "Degenerate data";
    panels[3].xlabel = "x [m]";
    panels[3].ylabel = "y [m]";
    panels[3].curves = c4;
    panels[3].n_curves = 3;
    panels[3].legend_position = 4;

    memset(fig, 0, sizeof *fig);
    fig->title = "nsdyn plot test: towed wheel";
    fig->panels = panels;
    fig->n_panels = 4;
    fig->columns = 2;
}

static int write_demo(const char *path, nsd_plot_format fmt, char *err, size_t err_len,
                      int *draw_calls) {
    static demo_data d;
    picture pic;
    nsd_panel panels[4];
    nsd_curve c1[4], c2[1], c3[3], c4[3];
    nsd_figure fig;
    demo_figure(&d, &pic, panels, c1, c2, c3, c4, &fig);
    int rc = nsd_plot_write(path, fmt, &fig, err, err_len);
    if (draw_calls) *draw_calls = pic.calls;
    return rc;
}

/* ---- tests ---------------------------------------------------------------- */

START_TEST(test_format_parse) {
    nsd_plot_format f = NSD_PLOT_SVG;
    ck_assert_int_eq(nsd_plot_format_parse("png", &f), 0);
    ck_assert_int_eq(f, NSD_PLOT_PNG);
    ck_assert_int_eq(nsd_plot_format_parse("svg", &f), 0);
    ck_assert_int_eq(f, NSD_PLOT_SVG);
    ck_assert_int_eq(nsd_plot_format_parse("PDF", &f), 0);
    ck_assert_int_eq(f, NSD_PLOT_PDF);
    f = NSD_PLOT_SVG;
    ck_assert_int_eq(nsd_plot_format_parse("jpeg", &f), -1);
    ck_assert_int_eq(f, NSD_PLOT_SVG); /* untouched */
    ck_assert_int_eq(nsd_plot_format_parse("", &f), -1);
    ck_assert_int_eq(nsd_plot_format_parse("pngx", &f), -1);
    ck_assert_int_eq(nsd_plot_format_parse(NULL, &f), -1);
    ck_assert_str_eq(nsd_plot_format_ext(NSD_PLOT_PNG), "png");
    ck_assert_str_eq(nsd_plot_format_ext(NSD_PLOT_SVG), "svg");
    ck_assert_str_eq(nsd_plot_format_ext(NSD_PLOT_PDF), "pdf");
}
END_TEST

/* Names as the symbols they stand for (issue 26: the deviation's "|psi − reference|", the
 * continuation's "gamma [deg]"): every shipped channel name of that shape, and names that
 * must stay as written. Every output must be valid UTF-8 that the escape keeps as it is. */
START_TEST(test_plot_symbol) {
    static const char *const cases[][2] = {
        {"psi", "ψ"},
        {"Omega", "Ω"},
        {"gamma", "γ"},
        {"theta1", "θ₁"},
        {"theta12", "θ₁₂"},
        {"phidot", "φ̇"},
        {"xdot", "x\xCC\x87"},
        {"thetaddot", "θ̈"},
        {"omega_st", "ω_st"},
        {"hs_omega_lead", "hs_ω_lead"},
        {"u1", "u₁"},
        {"delta_nb", "δ_nb"},
        {"system.gamma", "system.γ"},
        {"x", "x"},
        {"vy", "vy"},
        {"energy", "energy"},
        {"gap_I", "gap_I"},
        {"ground.N", "ground.N"},
        {"pitch", "pitch"},
        {"OMEGA", "OMEGA"},
        {"beta", "β"},
        {"eta", "η"},
        {"F_ratio", "F_ratio"},
        {"", ""},
        {"_x_", "_x_"},
        {"a..b", "a..b"},
        {"max(psi)", "max(ψ)"},
        {"at_first(impact, theta1dot)", "at_first(impact, θ̇₁)"},
        {"ψ_psi", "ψ_ψ"},
    };
    char out[64], esc[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t n = nsd_plot_symbol(cases[i][0], out, sizeof out);
        ck_assert_msg(strcmp(out, cases[i][1]) == 0, "%s: '%s', want '%s'", cases[i][0], out,
                      cases[i][1]);
        ck_assert_uint_eq(n, strlen(out));
        nsd_plot_escape_text(out, esc, sizeof esc);
        ck_assert_str_eq(esc, out);
    }
    /* truncation: never a split character, always terminated */
    for (size_t len = 1; len <= 12; ++len) {
        char small[12];
        size_t n = nsd_plot_symbol("theta1_ψ_omega2dot", small, len);
        ck_assert_uint_lt(n, len);
        ck_assert_uint_eq(strlen(small), n);
        nsd_plot_escape_text(small, esc, sizeof esc);
        ck_assert_str_eq(esc, small);
    }
    ck_assert_uint_eq(nsd_plot_symbol("psi", out, 0), 0);
    nsd_plot_symbol(NULL, out, sizeof out);
    ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_escape_text) {
    char out[64];
    ck_assert_uint_eq(nsd_plot_escape_text("run #1", out, sizeof out), 7);
    ck_assert_str_eq(out, "run ##1");
    nsd_plot_escape_text("#gy [rad]", out, sizeof out);
    ck_assert_str_eq(out, "##gy [rad]");
    nsd_plot_escape_text("ψ [rad]", out, sizeof out);
    ck_assert_str_eq(out, "ψ [rad]");
    nsd_plot_escape_text("a\nb\tc", out, sizeof out);
    ck_assert_str_eq(out, "a b c");
    nsd_plot_escape_text("bad \xff\xfe utf8 \xe2\x82", out, sizeof out);
    ck_assert_str_eq(out, "bad ?? utf8 ??");
    nsd_plot_escape_text(NULL, out, sizeof out);
    ck_assert_str_eq(out, "");
    /* truncation never splits "##" or a multi-byte character */
    char small[4];
    nsd_plot_escape_text("ab#", small, sizeof small);
    ck_assert_str_eq(small, "ab");
    nsd_plot_escape_text("aψ", small, 3);
    ck_assert_str_eq(small, "a");
    ck_assert_uint_eq(nsd_plot_escape_text("x", small, 0), 0);
    /* whole ASCII exponents as superscripts (issue 26); anything else as written */
    static const char *const power[][2] = {{"g [m/s^2]", "g [m/s²]"},
                                           {"J [kg m^2]", "J [kg m²]"},
                                           {"V [m^3]", "V [m³]"},
                                           {"rate [s^-1]", "rate [s⁻¹]"},
                                           {"|GQ_f|^2)", "|GQ_f|²)"},
                                           {"2^10", "2^10"},
                                           {"x^{2}", "x^{2}"},
                                           {"x^1 x^0", "x^1 x^0"},
                                           {"a^", "a^"},
                                           {"a^-", "a^-"},
                                           {"s^-4", "s^-4"},
                                           {"^2^3", "²³"}};
    for (size_t i = 0; i < sizeof power / sizeof *power; ++i) {
        nsd_plot_escape_text(power[i][0], out, sizeof out);
        ck_assert_str_eq(out, power[i][1]);
    }
    /* a superscript is not split by truncation either: "m/s" and nothing of "²" */
    nsd_plot_escape_text("m/s^2", small, sizeof small);
    ck_assert_str_eq(small, "m/s");
}
END_TEST

START_TEST(test_png_2x2) {
    make_tmpdir();
    char path[600], err[256] = "unset";
    path_in_tmp(path, sizeof path, "figure.png");
    PLINT strm_before = -7, strm_after = -8;
    plgstrm(&strm_before);
    int calls = 0;
    stderr_capture cap;
    capture_begin(&cap);
    int rc = write_demo(path, NSD_PLOT_PNG, err, sizeof err, &calls);
    int printed = capture_end(&cap);
    ck_assert_msg(rc == 0, "nsd_plot_write failed: %s", err);
    ck_assert_str_eq(err, "");
    ck_assert_msg(!printed, "PLplot printed to stderr");
    plgstrm(&strm_after);
    ck_assert_int_eq(strm_before, strm_after);
    ck_assert_int_eq(calls, 2); /* bounding box pass + drawing pass */

    unsigned char head[8];
    ck_assert_uint_eq(read_head(path, head, 8), 8);
    const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    ck_assert_int_eq(memcmp(head, sig, 8), 0);
    long sz = file_size(path);
    ck_assert_msg(sz > 10 * 1024, "PNG too small: %ld bytes", sz);
    ck_assert(!tmp_exists(path));
    remove_tmpdir();
}
END_TEST

START_TEST(test_svg_pdf) {
    make_tmpdir();
    char svg[600], pdf[600], err[256];
    path_in_tmp(svg, sizeof svg, "figure.svg");
    path_in_tmp(pdf, sizeof pdf, "figure.pdf");

    ck_assert_msg(write_demo(svg, NSD_PLOT_SVG, err, sizeof err, NULL) == 0, "svg: %s", err);
    ck_assert(file_contains(svg, "<svg"));
    ck_assert_int_gt(file_size(svg), 10 * 1024);
    ck_assert(!tmp_exists(svg));

    ck_assert_msg(write_demo(pdf, NSD_PLOT_PDF, err, sizeof err, NULL) == 0, "pdf: %s", err);
    unsigned char head[5];
    ck_assert_uint_eq(read_head(pdf, head, 5), 5);
    ck_assert_int_eq(memcmp(head, "%PDF-", 5), 0);
    ck_assert_int_gt(file_size(pdf), 5 * 1024);
    ck_assert(!tmp_exists(pdf));
    remove_tmpdir();
}
END_TEST

START_TEST(test_missing_directory) {
    const char *path = "/nonexistent_nsd_plot_dir/sub/figure.png";
    char err[256] = "";
    PLINT strm_before = -7, strm_after = -8;
    plgstrm(&strm_before);
    ck_assert_int_eq(write_demo(path, NSD_PLOT_PNG, err, sizeof err, NULL), -1);
    ck_assert_msg(strlen(err) > 0, "empty error message");
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert(!file_exists(path));
    ck_assert(!tmp_exists(path));
    plgstrm(&strm_after);
    ck_assert_int_eq(strm_before, strm_after);
    /* err may be NULL */
    ck_assert_int_eq(write_demo(path, NSD_PLOT_PNG, NULL, 0, NULL), -1);
}
END_TEST

START_TEST(test_invalid_arguments) {
    make_tmpdir();
    char path[600], err[256];
    path_in_tmp(path, sizeof path, "bad.png");
    double x[2] = {0, 1};
    nsd_curve c = {x, NULL, 2, NULL, -1, 0, 0.0, 0, 0, 0};
    nsd_panel p;
    memset(&p, 0, sizeof p);
    p.xmin = p.xmax = p.ymin = p.ymax = NAN;
    nsd_figure fig;
    memset(&fig, 0, sizeof fig);

    err[0] = '\0';
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, NULL, err, sizeof err), -1);
    ck_assert(strlen(err) > 0);
    err[0] = '\0';
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert(strlen(err) > 0); /* no panels */
    fig.panels = &p;
    fig.n_panels = 1;
    ck_assert_int_eq(nsd_plot_write(NULL, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_int_eq(nsd_plot_write("", NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_int_eq(nsd_plot_write(path, (nsd_plot_format)42, &fig, err, sizeof err), -1);
    p.curves = &c;
    p.n_curves = 1;
    err[0] = '\0';
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert(strlen(err) > 0); /* y == NULL */
    c.y = x;
    c.dashed = 7;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    c.dashed = 0;
    p.legend_position = 9;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    p.legend_position = 0;
    fig.width_px = -5;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    fig.width_px = 1000000;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert(!file_exists(path));
    ck_assert(!tmp_exists(path));

    /* a valid figure now works, and a failing write keeps the existing file */
    fig.width_px = 400;
    fig.height_px = 300;
    ck_assert_msg(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err) == 0, "%s", err);
    long before = file_size(path);
    ck_assert_int_gt(before, 0);
    c.y = NULL;
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_int_eq(file_size(path), before);
    ck_assert(!tmp_exists(path));

    /* the output path is a directory: rename fails, no .tmp left behind */
    c.y = x;
    char dir[600];
    path_in_tmp(dir, sizeof dir, "adir");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char inner[700];
    snprintf(inner, sizeof inner, "%s/keep", dir);
    FILE *f = fopen(inner, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    err[0] = '\0';
    ck_assert_int_eq(nsd_plot_write(dir, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert(strlen(err) > 0);
    ck_assert(!tmp_exists(dir));
    remove_tmpdir();
}
END_TEST

/* Degenerate and extreme inputs must neither crash nor print. */
typedef struct wild_picture {
    int calls;
} wild_picture;

static void draw_wild(void *ctx, const nsdyn_canvas *cv) {
    wild_picture *w = ctx;
    w->calls++;
    cv->pen(cv->ctx, 99); /* unknown pen: structure */
    cv->line(cv->ctx, NAN, 0, 1, 1);
    cv->line(cv->ctx, -1e308, -1e308, 1e308, 1e308);
    cv->circle(cv->ctx, 0.0, 0.0, 1e300);
    cv->circle(cv->ctx, 0.5, 0.5, 0.0);
    cv->circle(cv->ctx, 0.5, 0.5, -1.0);
    cv->circle(cv->ctx, INFINITY, 0.5, 1.0);
    double px[5] = {0, 1e308, NAN, -1e308, 0}, py[5] = {0, 0, 1, 1e308, -1e308};
    cv->pen(cv->ctx, 1);
    cv->polygon(cv->ctx, 5, px, py, 1);
    cv->polygon(cv->ctx, 0, px, py, 1);
    cv->polygon(cv->ctx, 1, px, py, 1);
    cv->polygon(cv->ctx, 3, NULL, NULL, 1);
    double qx[4] = {-1e300, 1e300, 1e300, -1e300}, qy[4] = {-1e300, -1e300, 1e300, 1e300};
    cv->polygon(cv->ctx, 4, qx, qy, 1);
    cv->pen(cv->ctx, -3);
}

START_TEST(test_degenerate_data) {
    make_tmpdir();
    char path[600], err[256];
    static double big[6] = {-DBL_MAX, -1e300, 0.0, 1e300, DBL_MAX, INFINITY};
    static double tiny[6] = {4.9e-324, 1e-310, 2e-310, 1e-300, 2e-300, 3e-300};
    static double idx[6] = {0, 1, 2, 3, 4, 5};
    static double cst[6] = {7, 7, 7, 7, 7, 7};
    static double zero[6] = {0, 0, 0, 0, 0, 0};
    static double neg[6] = {-1, -2, 0, -3, -4, -5};
    static double close[6] = {1.0, 1.0 + 1e-15, 1.0, 1.0 + 2e-15, 1.0, 1.0};
    static double nan6[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    static double ev[4] = {NAN, -1e308, 2.5, 1e308};
    wild_picture wp = {0};

    nsd_curve c[12] = {
        {idx, big, 6, "huge", -1, 0, 0, 0, 0, 0},
        {idx, tiny, 6, "tiny", -1, 1, 0, 1, 0, 0},
        {idx, cst, 6, "constant", -1, 2, 0, 2, 0, 0},
        {idx, zero, 6, "zero", -1, 0, 0, 0, 0, 0},
        {idx, neg, 6, "negative (log)", -1, 0, 0, 0, 0, 0},
        {idx, close, 6, "nearly constant", -1, 0, -3.0, 0, 0, 0},
        {nan6, nan6, 6, "all NaN", -1, 0, INFINITY, 0, 0, 0},
        {idx, cst, 1, "one point", 123, 0, 1e9, 0, 0, 0},
        {idx, cst, 0, "", -1, 0, 0, 0, 0, 0},
        {big, idx, 6, NULL, -1, 0, 0, 0, 0, 0},
    };
    nsd_panel p[10];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 10; ++i) {
        p[i].xmin = p[i].xmax = p[i].ymin = p[i].ymax = NAN;
        p[i].curves = &c[i];
        p[i].n_curves = 1;
        p[i].vlines = ev;
        p[i].n_vlines = 4;
        p[i].legend_position = i % 5;
    }
    p[1].log_y = 1; /* tiny values on a log axis */
    p[4].log_y = 1; /* only nonpositive values on a log axis */
    p[4].log_x = 1;
    p[3].equal_aspect = 1;
    p[6].equal_aspect = 1; /* all NaN + equal aspect */
    p[6].draw = draw_wild;
    p[6].draw_ctx = &wp;
    p[7].xmin = 5; /* inverted limits */
    p[7].xmax = 1;
    p[7].ymin = 3; /* equal limits */
    p[7].ymax = 3;
    p[8].xmin = 100; /* one limit beyond the data */
    p[8].n_curves = 0;
    p[8].curves = NULL;
    p[9].ymax = -1e300;
    p[9].title = "#  ## #u #d #g #(123) <b>&amp;</b>";
    p[9].xlabel = "\xff\xfe invalid";
    p[9].ylabel = "";
    p[2].draw = draw_wild;
    p[2].draw_ctx = &wp;
    p[2].xmin = -1;
    p[2].xmax = 8;
    p[2].ymin = 0;
    p[2].ymax = 10;

    nsd_figure fig = {"degenerate #1", p, 10, 3, 900, 1000, 0, 0, 0, 0};
    path_in_tmp(path, sizeof path, "degenerate.png");
    stderr_capture cap;
    capture_begin(&cap);
    int rc = nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err);
    int printed = capture_end(&cap);
    ck_assert_msg(rc == 0, "nsd_plot_write failed: %s", err);
    ck_assert_msg(!printed, "PLplot printed to stderr");
    ck_assert_int_gt(file_size(path), 1000);
    ck_assert(!tmp_exists(path));
    ck_assert_int_eq(wp.calls, 3); /* p[6]: bbox + draw; p[2] has fixed limits: draw only */

    /* a tiny single panel, default sizes, many columns */
    fig.n_panels = 1;
    fig.columns = 7;
    fig.width_px = 100;
    fig.height_px = 100;
    fig.title = NULL;
    path_in_tmp(path, sizeof path, "tiny.svg");
    rc = nsd_plot_write(path, NSD_PLOT_SVG, &fig, err, sizeof err);
    ck_assert_msg(rc == 0, "tiny: %s", err);
    remove_tmpdir();
}
END_TEST

/* nsd_plot_write called from a draw callback must refuse, not recurse. */
typedef struct nested {
    int rc;
    char err[256];
    char path[600];
} nested;

static void draw_nested(void *ctx, const nsdyn_canvas *cv) {
    nested *n = ctx;
    cv->line(cv->ctx, 0, 0, 1, 1);
    double x[2] = {0, 1};
    nsd_curve c = {x, x, 2, NULL, -1, 0, 0, 0, 0, 0};
    nsd_panel p;
    memset(&p, 0, sizeof p);
    p.xmin = p.xmax = p.ymin = p.ymax = NAN;
    p.curves = &c;
    p.n_curves = 1;
    nsd_figure fig = {NULL, &p, 1, 1, 200, 200, 0, 0, 0, 0};
    n->rc = nsd_plot_write(n->path, NSD_PLOT_PNG, &fig, n->err, sizeof n->err);
}

START_TEST(test_not_reentrant) {
    make_tmpdir();
    nested n = {1, "", ""};
    path_in_tmp(n.path, sizeof n.path, "inner.png");
    nsd_panel p;
    memset(&p, 0, sizeof p);
    p.xmin = 0, p.xmax = 1, p.ymin = 0, p.ymax = 1;
    p.draw = draw_nested;
    p.draw_ctx = &n;
    nsd_figure fig = {NULL, &p, 1, 1, 300, 200, 0, 0, 0, 0};
    char path[600], err[256];
    path_in_tmp(path, sizeof path, "outer.png");
    ck_assert_msg(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(n.rc, -1);
    ck_assert(strlen(n.err) > 0);
    ck_assert(!file_exists(n.path));
    remove_tmpdir();
}
END_TEST

/* PLplot ignores write errors of its drivers; a truncated file (here: a file
 * size limit standing in for a full disk) must be detected and not renamed. */
START_TEST(test_truncated_output) {
    make_tmpdir();
    static double x[300], y[300];
    for (int i = 0; i < 300; ++i) {
        x[i] = i;
        y[i] = sin(0.1 * i);
    }
    nsd_curve c = {x, y, 300, "sin", -1, 0, 0, 0, 0, 0};
    nsd_panel p;
    memset(&p, 0, sizeof p);
    p.xmin = p.xmax = p.ymin = p.ymax = NAN;
    p.curves = &c;
    p.n_curves = 1;
    nsd_figure fig = {"truncated", &p, 1, 1, 800, 600, 0, 0, 0, 0};

    struct rlimit old;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {4000, old.rlim_max};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    for (int f = NSD_PLOT_PNG; f <= NSD_PLOT_PDF; ++f) {
        char path[600], name[32], err[256] = "";
        snprintf(name, sizeof name, "cut.%s", nsd_plot_format_ext((nsd_plot_format)f));
        path_in_tmp(path, sizeof path, name);
        ck_assert_int_eq(nsd_plot_write(path, (nsd_plot_format)f, &fig, err, sizeof err), -1);
        ck_assert_msg(strlen(err) > 0, "format %d: empty error", f);
        ck_assert(!file_exists(path));
        ck_assert(!tmp_exists(path));
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    remove_tmpdir();
}
END_TEST

/* PLplot has a fixed stream table (100 entries): streams must be released. */
START_TEST(test_many_figures) {
    make_tmpdir();
    double x[3] = {0, 1, 2}, y[3] = {1, 0, 1};
    nsd_curve c = {x, y, 3, "v", -1, 0, 0, 0, 0, 0};
    nsd_panel p;
    memset(&p, 0, sizeof p);
    p.xmin = p.xmax = p.ymin = p.ymax = NAN;
    p.curves = &c;
    p.n_curves = 1;
    nsd_figure fig = {"many", &p, 1, 1, 160, 120, 0, 0, 0, 0};
    char path[600], err[256];
    path_in_tmp(path, sizeof path, "many.png");
    for (int i = 0; i < 110; ++i)
        ck_assert_msg(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err) == 0,
                      "figure %d: %s", i, err);
    remove_tmpdir();
}
END_TEST

/* ---- layout (issue 13): best legend, categorical axis, the layout report ---- */

typedef struct rbox {
    double x0, y0, x1, y1;
    long covered;
} rbox;

/* The first box of `kind` in the report line (after `from`), or NULL. */
static const char *report_find(const char *from, const char *kind, rbox *b) {
    char key[64];
    snprintf(key, sizeof key, "{\"kind\":\"%s\"", kind);
    const char *p = strstr(from, key);
    if (!p) return NULL;
    b->covered = -1;
    ck_assert_int_eq(sscanf(p + strlen(key),
                            ",\"panel\":%*d,\"x0\":%lf,\"y0\":%lf,\"x1\":%lf,"
                            "\"y1\":%lf",
                            &b->x0, &b->y0, &b->x1, &b->y1),
                     4);
    const char *c = strstr(p, "\"covered\":"), *end = strchr(p, '}');
    if (c && c < end) b->covered = strtol(c + 10, NULL, 10);
    return p + 1;
}

/* Write fig with the layout report on; its line into line. */
static void write_with_report(const nsd_figure *fig, const char *name, char *line, size_t len) {
    char path[600], report[600], err[256];
    path_in_tmp(path, sizeof path, name);
    path_in_tmp(report, sizeof report, "layout.jsonl");
    unlink(report);
    setenv("NSDYN_PLOT_LAYOUT", report, 1);
    int rc = nsd_plot_write(path, NSD_PLOT_PNG, fig, err, sizeof err);
    unsetenv("NSDYN_PLOT_LAYOUT");
    ck_assert_msg(rc == 0, "%s", err);
    FILE *f = fopen(report, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, (int)len, f));
    fclose(f);
}

START_TEST(test_best_legend) {
    /* Random points everywhere but one quadrant (each in turn): the legend goes into that
       quadrant and covers nothing; with no quadrant free it goes right of the plot. */
    make_tmpdir();
    enum { N = 3000 };
    static double x[N], y[N];
    static char line[1 << 16];
    srand(13);
    for (int q = 0; q <= 4; ++q) {
        int right = q == 0 || q == 2, top = q < 2;
        for (int i = 0; i < N; ++i) {
            do {
                x[i] = (double)rand() / RAND_MAX;
                y[i] = (double)rand() / RAND_MAX;
            } while (q < 4 && (right ? x[i] > 0.45 : x[i] < 0.55) &&
                     (top ? y[i] > 0.45 : y[i] < 0.55));
        }
        nsd_curve c = {.x = x, .y = y, .n = N, .legend = "data", .marker = 1};
        nsd_panel p = {.curves = &c,
                       .n_curves = 1,
                       .xmin = 0,
                       .xmax = 1,
                       .ymin = 0,
                       .ymax = 1,
                       .legend_position = 5,
                       .xlabel = "x [m]",
                       .ylabel = "y [m]"};
        nsd_figure fig = {.panels = &p, .n_panels = 1, .width_px = 800, .height_px = 600};
        write_with_report(&fig, "best.png", line, sizeof line);
        rbox plot, leg;
        ck_assert_ptr_nonnull(report_find(line, "plot", &plot));
        ck_assert_ptr_nonnull(report_find(line, "legend", &leg));
        double cx = 0.5 * (leg.x0 + leg.x1), cy = 0.5 * (leg.y0 + leg.y1);
        double mx = 0.5 * (plot.x0 + plot.x1), my = 0.5 * (plot.y0 + plot.y1);
        if (q == 4) {
            ck_assert_double_ge(leg.x0, plot.x1); /* outside right */
        } else {
            ck_assert_int_eq(leg.covered, 0);
            ck_assert_int_eq(cx > mx, right);
            ck_assert_int_eq(cy > my, top);
            ck_assert(leg.x0 >= plot.x0 && leg.x1 <= plot.x1 && leg.y0 >= plot.y0 &&
                      leg.y1 <= plot.y1);
        }
    }
    remove_tmpdir();
}
END_TEST

/* A page that may grow (nsd_figure.fit_height, issue 26 round 7): two rows, the first with a
 * six-entry legend above its plot and both with titles, on a page far too short for them
 * (504 x 200 in each format's unit). Grown: taller than asked, one report line (the first,
 * abandoned attempt leaves none), both plots of one height, together at least half of the
 * page below the title band (0.40 of this page); kept (fit_height 0): exactly the height
 * asked, the margins shrunk and the plots smaller than that. */
START_TEST(test_fit_height) {
    make_tmpdir();
    enum { N = 50 };
    static double x[N], y[N];
    static char line[1 << 16], two[1 << 16];
    for (int i = 0; i < N; ++i) x[i] = i, y[i] = sin(0.3 * i);
    static const char *const names[6] = {"first entry",  "second entry", "third entry",
                                         "fourth entry", "fifth entry",  "sixth entry"};
    nsd_curve c[6];
    for (int k = 0; k < 6; ++k) c[k] = (nsd_curve){.x = x, .y = y, .n = N, .legend = names[k]};
    nsd_panel p[2];
    for (int k = 0; k < 2; ++k)
        p[k] = (nsd_panel){.title = k ? "(b) the second panel" : "(a) the first panel",
                           .curves = c,
                           .n_curves = k ? 1 : 6,
                           .xmin = NAN,
                           .xmax = NAN,
                           .ymin = NAN,
                           .ymax = NAN,
                           .legend_position = k ? 6 : 7,
                           .xlabel = "time t [s]",
                           .ylabel = "height y [m]"};
    const nsd_plot_format formats[2] = {NSD_PLOT_SVG_TEXT, NSD_PLOT_PNG};
    for (int fi = 0; fi < 2; ++fi)
        for (int fit = 1; fit >= 0; --fit) {
            nsd_figure fig = {.title = "a title",
                              .panels = p,
                              .n_panels = 2,
                              .columns = 1,
                              .width_px = 504,
                              .height_px = 200,
                              .fit_height = fit};
            char path[600], report[600], err[256];
            path_in_tmp(path, sizeof path, fi ? "fit.png" : "fit.svg");
            path_in_tmp(report, sizeof report, "layout.jsonl");
            unlink(report);
            setenv("NSDYN_PLOT_LAYOUT", report, 1);
            int rc = nsd_plot_write(path, formats[fi], &fig, err, sizeof err);
            unsetenv("NSDYN_PLOT_LAYOUT");
            ck_assert_msg(rc == 0, "%s", err);
            FILE *f = fopen(report, "r");
            ck_assert_ptr_nonnull(f);
            ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
            ck_assert_msg(fgets(two, sizeof two, f) == NULL, "two report lines for one figure");
            fclose(f);
            double page_w = 0.0, page_h = 0.0;
            const char *pw = strstr(line, "\"page_w\":");
            ck_assert_ptr_nonnull(pw);
            ck_assert_int_eq(sscanf(pw, "\"page_w\":%lf,\"page_h\":%lf", &page_w, &page_h), 2);
            double asked_h = page_w * 200.0 / 504.0; /* the page in mm, as asked */
            rbox a, b;
            const char *next = report_find(line, "plot", &a);
            ck_assert_ptr_nonnull(next);
            ck_assert_ptr_nonnull(report_find(next, "plot", &b));
            double ha = a.y1 - a.y0, hb = b.y1 - b.y0;
            if (fit) {
                ck_assert_msg(page_h > 1.2 * asked_h, "not grown: %g mm, asked %g", page_h,
                              asked_h);
                ck_assert_msg(fabs(ha - hb) < 0.01, "plot heights %g and %g mm", ha, hb);
                /* half of the height below the title band: 0.40 of this page */
                ck_assert_msg(ha + hb >= 0.38 * page_h, "plots %g + %g mm of a %g mm page", ha, hb,
                              page_h);
            } else {
                ck_assert_msg(fabs(page_h - asked_h) < 0.02 * asked_h, "%g mm, asked %g", page_h,
                              asked_h);
                ck_assert_msg(ha + hb < 0.38 * page_h, "not squeezed: plots %g + %g mm of %g", ha,
                              hb, page_h); /* less than the grown page gives */
            }
            ck_assert(!tmp_exists(path));
        }
    /* A page already as tall as it may be (10000) and still too short: drawn as it is, not
       left empty (its two plots are in the report) */
    nsd_panel many[60];
    for (int k = 0; k < 60; ++k) many[k] = p[0];
    nsd_figure tall = {.panels = many,
                       .n_panels = 60,
                       .columns = 1,
                       .width_px = 504,
                       .height_px = 10000,
                       .fit_height = 1};
    char path[600], report[600], err[256];
    path_in_tmp(path, sizeof path, "tall.svg");
    path_in_tmp(report, sizeof report, "layout.jsonl");
    unlink(report);
    setenv("NSDYN_PLOT_LAYOUT", report, 1);
    int rc = nsd_plot_write(path, NSD_PLOT_SVG_TEXT, &tall, err, sizeof err);
    unsetenv("NSDYN_PLOT_LAYOUT");
    ck_assert_msg(rc == 0, "%s", err);
    FILE *f = fopen(report, "r");
    ck_assert_ptr_nonnull(f);
    static char big[1 << 22]; /* 60 panels' boxes on one line */
    ck_assert_ptr_nonnull(fgets(big, sizeof big, f));
    fclose(f);
    rbox b;
    const char *at = big;
    int n_plots = 0;
    while ((at = report_find(at, "plot", &b)) != NULL) n_plots++;
    ck_assert_int_eq(n_plots, 60);
    remove_tmpdir();
}
END_TEST

START_TEST(test_category_axis) {
    /* Lanes named on the y axis, no numeric y tick labels; legend_position 8 is refused. */
    make_tmpdir();
    static const char *const lanes[] = {"wall", "step", "corner"};
    double x[3] = {0.1, 0.5, 0.9}, y[3] = {1, 2, 3};
    nsd_curve c = {.x = x, .y = y, .n = 3, .legend = "impact", .marker = 1};
    nsd_panel p = {.curves = &c,
                   .n_curves = 1,
                   .xmin = NAN,
                   .xmax = NAN,
                   .ymin = NAN,
                   .ymax = NAN,
                   .y_categories = lanes,
                   .n_y_categories = 3,
                   .legend_position = 4,
                   .xlabel = "time t [s]",
                   .ylabel = "contact"};
    nsd_figure fig = {.panels = &p, .n_panels = 1, .width_px = 900, .height_px = 300};
    static char line[1 << 16];
    write_with_report(&fig, "lanes.png", line, sizeof line);
    rbox plot, t;
    ck_assert_ptr_nonnull(report_find(line, "plot", &plot));
    for (int k = 0; k < 3; ++k) {
        char key[64];
        snprintf(key, sizeof key, "\"text\":\"%s\"", lanes[k]);
        ck_assert_msg(strstr(line, key), "lane %s not labelled", lanes[k]);
    }
    /* every text left of the plot is a lane name or the axis label */
    const char *at = line;
    while ((at = report_find(at, "text", &t)) != NULL) {
        if (t.x1 > plot.x0 || t.y1 < plot.y0) continue;
        const char *txt = strstr(at, "\"text\":\"") + 8;
        ck_assert_msg(strncmp(txt, "wall", 4) == 0 || strncmp(txt, "step", 4) == 0 ||
                          strncmp(txt, "corner", 6) == 0 || strncmp(txt, "contact", 7) == 0,
                      "unexpected text left of the lanes: %.20s", txt);
    }
    p.legend_position = 8;
    char path[600], err[256];
    path_in_tmp(path, sizeof path, "bad.png");
    ck_assert_int_eq(nsd_plot_write(path, NSD_PLOT_PNG, &fig, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "legend_position 8 not in 0..7"));
    remove_tmpdir();
}
END_TEST

static Suite *plot_suite(void) {
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_format_parse);
    tcase_add_test(tc, test_escape_text);
    tcase_add_test(tc, test_plot_symbol);
    tcase_add_test(tc, test_png_2x2);
    tcase_add_test(tc, test_svg_pdf);
    tcase_add_test(tc, test_missing_directory);
    tcase_add_test(tc, test_invalid_arguments);
    tcase_add_test(tc, test_degenerate_data);
    tcase_add_test(tc, test_not_reentrant);
    tcase_add_test(tc, test_truncated_output);
    tcase_add_test(tc, test_many_figures);
    tcase_add_test(tc, test_best_legend);
    tcase_add_test(tc, test_category_axis);
    tcase_add_test(tc, test_fit_height);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(plot_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
