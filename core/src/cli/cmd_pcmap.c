/* nsdyn pcmap CONFIG: the Percussion-Centre half-plane of Barjau & Batlle
 * (2022), Figs 6-20, 23, 24, for the two contact candidates nearest the
 * ground at the config's initial state (analysis/pc_map.h): the lines
 * (ground, horizontal and vertical G-lines, the verticals through Q_f and
 * Q_b, the lambda-lines, the mu_c- and mu-lines, the hyperbola (4.2) of
 * conjugated critical PCs and its asymptote), the points (G, Q_f, Q_b,
 * A, B, PC_c, PC'_c, the first phase's PC for the config's friction) and
 * the critical friction coefficients, printed and in pcmap.csv. */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "figures.h"
#include "outdir.h"
#include "output.h"
#include "pc_along.h"
#include "pc_domains.h"
#include "pc_map.h"
#include "plot.h"
#include "scenario.h"

enum { N_HYP = 400, N_LINES = 13, N_PTS = 10, N_LAM = 301 };

typedef struct pc_figure {
    double lam[N_LAM], muc[N_LAM], mudp[N_LAM], mui[N_LAM]; /* against lambda */
    double vx[1];
    nsd_curve crit[3];
    size_t nl;  /* lines used of lx, ly */
    double dot; /* radius of a named point [m] */
    double lx[N_LINES][2], ly[N_LINES][2];
    double hx[N_HYP], hy[N_HYP];
    double px[N_PTS], py[N_PTS];
    nsd_pc_shade shade[NSD_PC_N_SHADES];
    nsd_curve curves[NSD_PC_N_SHADES + N_LINES + 2 + N_PTS];
    size_t nc;
} pc_figure;

/* A line through P along u, clipped to the box [x0, x1] x [y0, y1] (as a
 * segment long enough to cross it). */
static void add_line(pc_figure *F, nsd_pc_point P, double ux, double uy, double big,
                     const char *legend, int color, int dashed, double width) {
    size_t k = F->nl < N_LINES ? F->nl++ : N_LINES - 1;
    double n = hypot(ux, uy);
    if (!(n > 0) || !isfinite(P.x) || !isfinite(P.y)) return;
    F->lx[k][0] = P.x - big * ux / n;
    F->lx[k][1] = P.x + big * ux / n;
    F->ly[k][0] = P.y - big * uy / n;
    F->ly[k][1] = P.y + big * uy / n;
    F->curves[F->nc++] = (nsd_curve){.x = F->lx[k],
                                     .y = F->ly[k],
                                     .n = 2,
                                     .legend = legend,
                                     .color = color,
                                     .dashed = dashed,
                                     .width = width};
}

static void print_value(FILE *f, const char *name, double v, const char *what) {
    if (isfinite(v))
        fprintf(f, "  %-8s = %-12.6g %s\n", name, v, what);
    else
        fprintf(f, "  %-8s = %-12s %s\n", name, "none", what);
}

static void print_analysis(FILE *f, const nsd_model *m, const nsd_pc_analysis *a, double mu) {
    fprintf(f,
            "PC half-plane: Q_f = '%s', Q_b = '%s' (x forward along the ground, y normal, "
            "origin G)\n",
            m->layout.contacts[a->f].name, m->layout.contacts[a->b].name);
    fprintf(f, "  Q_f = (%.6g, %.6g) m, Q_b = (%.6g, %.6g) m, |GQ_f| = %.6g m, lambda = %.6g\n",
            a->Qf.x, a->Qf.y, a->Qb.x, a->Qb.y, a->scale, a->lambda_eff);
    print_value(f, "mu_dp", a->mu_dp, "forward sliding: double-point impact from the start below");
    print_value(f, "mu_c", a->mu_c, "critical: constant forward sliding (4.1), (A.5)");
    print_value(f, "mu_inf", a->mu_inf, "forward PC at infinity (tan beta for the rimless wheel)");
    print_value(f, "mu_i", a->mu_i, "dynamic jamb above (A.6)");
    print_value(f, "mu_dpb", a->mu_dpb,
                "backward sliding: double-point impact from the start above");
    fprintf(f,
            "  A = (%.6g, %.6g), B = (%.6g, %.6g), PC_c = (%.6g, %.6g), PC'_c = (%.6g, %.6g) m\n",
            a->A.x, a->A.y, a->B.x, a->B.y, a->pc_c.x, a->pc_c.y, a->pc_c_conj.x, a->pc_c_conj.y);
    fprintf(f, "  hyperbola (4.2) asymptote y = %.6g m; config friction mu = %g\n", a->asymptote_y,
            mu);
}

static int write_csv(const char *dir, const nsd_pc_analysis *a, const nsd_pc_point *first,
                     char *err, size_t len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/pcmap.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    fprintf(f, "name,x [m],y [m],value\n");
    const struct {
        const char *n;
        nsd_pc_point p;
    } pts[] = {{"G", a->G},
               {"Q_f", a->Qf},
               {"Q_b", a->Qb},
               {"A", a->A},
               {"B", a->B},
               {"PC_c", a->pc_c},
               {"PC_c_conj", a->pc_c_conj},
               {"PC_first_forward", *first}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; ++i)
        fprintf(f, "%s,%.12g,%.12g,\n", pts[i].n, pts[i].p.x, pts[i].p.y);
    fprintf(f,
            "lambda,,,%.12g\nmu_dp,,,%.12g\nmu_c,,,%.12g\nmu_inf,,,%.12g\nmu_i,,,%.12g\n"
            "mu_dpb,,,%.12g\nasymptote_y,,,%.12g\n",
            a->lambda_eff, a->mu_dp, a->mu_c, a->mu_inf, a->mu_i, a->mu_dpb, a->asymptote_y);
    return nsd_commit_file(f, path, err, len);
}

/* Critical coefficients against lambda (the family of lambda-lines of this
 * geometry, 0 <= lambda <= 1.5) into F and pcmap_critical.csv. */
static int critical_curves(const char *dir, const nsd_pc_analysis *a, pc_figure *F, char *err,
                           size_t len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/pcmap_critical.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    fprintf(f, "lambda [1],mu_dp [1],mu_c [1],mu_i [1]\n");
    for (int i = 0; i < N_LAM; ++i) {
        F->lam[i] = 1.5 * i / (N_LAM - 1);
        nsd_pc_critical_at(a, F->lam[i] * a->scale, &F->muc[i], &F->mudp[i], &F->mui[i]);
        fprintf(f, "%.6g,%.12g,%.12g,%.12g\n", F->lam[i], F->mudp[i], F->muc[i], F->mui[i]);
    }
    F->vx[0] = a->lambda_eff;
    F->crit[0] = (nsd_curve){.x = F->lam,
                             .y = F->mudp,
                             .n = N_LAM,
                             .legend = "mu_DP: DP from the start below",
                             .color = 1,
                             .width = 2};
    F->crit[1] = (nsd_curve){
        .x = F->lam, .y = F->muc, .n = N_LAM, .legend = "mu_c (4.1)", .color = 2, .width = 2};
    F->crit[2] = (nsd_curve){.x = F->lam,
                             .y = F->mui,
                             .n = N_LAM,
                             .legend = "mu_i: jamb above (A.6)",
                             .color = 0,
                             .width = 2};
    return nsd_commit_file(f, path, err, len);
}

/* The domains of Sec. 4 (pc_domains.h), shaded under the lines, in the
 * box of the map. */
static void add_shades(pc_figure *F, const nsd_pc_analysis *a, const double box[4]) {
    static const int color[NSD_PC_N_SHADES] = {1, 7, 4, 4, 2, 5};
    static const double opacity[NSD_PC_N_SHADES] = {0.30, 0.35, 0.45, 0.18, 0.22, 0.25};
    nsd_pc_shades(a, box[0], box[1], box[2], box[3], F->shade);
    for (int i = 0; i < NSD_PC_N_SHADES; ++i) {
        if (F->shade[i].n == 0) continue;
        F->curves[F->nc++] = (nsd_curve){.x = F->shade[i].x,
                                         .y = F->shade[i].y,
                                         .n = F->shade[i].n,
                                         .legend = F->shade[i].legend,
                                         .color = color[i],
                                         .marker = 3,
                                         .opacity = opacity[i],
                                         .legend_patch = 1};
    }
}

/* The domains, lines and points of the map into F. */
static void build(pc_figure *F, const nsd_pc_analysis *a, double mu, nsd_pc_point first, double big,
                  const double box[4]) {
    const double s = a->scale, px = -a->ef[1], py = a->ef[0]; /* along the lambda-lines */
    const nsd_pc_point O = {0, 0};
    add_shades(F, a, box);
    add_line(F, (nsd_pc_point){0, a->ground_y}, 1, 0, big, "ground", 6, 0, 2.5);
    add_line(F, O, 1, 0, big, "horizontal and vertical G-lines", 6, 1, 1.0);
    add_line(F, O, 0, 1, big, NULL, 6, 1, 1.0);
    add_line(F, a->Qf, 0, 1, big, "verticals through Q_f, Q_b", 4, 2, 1.5);
    add_line(F, a->Qb, 0, 1, big, NULL, 4, 2, 1.5);
    add_line(F, O, px, py, big, "lambda = 0 and lambda = 1 lines", 5, 1, 1.0);
    add_line(F, (nsd_pc_point){-a->ef[0] * s, -a->ef[1] * s}, px, py, big, NULL, 5, 1, 1.0);
    if (a->Qb.x * a->ef[0] + a->Qb.y * a->ef[1] < 0) /* beyond the lambda = 0 line */
        add_line(F, a->Qb, px, py, big, "lambda-line through Q_b (SP-DP bound)", 4, 3, 1.0);
    add_line(F, a->A, px, py, big, "lambda-line of the body", 0, 0, 2.5);
    add_line(F, O, a->pc_c.x, a->pc_c.y, big, "mu_c-line", 2, 0, 1.5);
    if (mu > 0) add_line(F, O, -1, -mu, big, "forward mu-line (config)", 3, 0, 1.5);
    size_t nh = 0;
    for (int i = 0; i < N_HYP; ++i) {
        nsd_pc_point J;
        double d = 3.0 * s * (i + 1) / N_HYP;
        if (nsd_pc_conjugate(a, d, &J) != 0) continue;
        F->hx[nh] = J.x;
        F->hy[nh++] = J.y;
    }
    F->curves[F->nc++] = (nsd_curve){.x = F->hx,
                                     .y = F->hy,
                                     .n = nh,
                                     .legend = "hyperbola (4.2) of PC'_c, its asymptote (dotted)",
                                     .color = 1,
                                     .width = 2.0};
    add_line(F, (nsd_pc_point){0, a->asymptote_y}, 1, 0, big, NULL, 1, 2, 1.0);
    /* the order sets which label wins where two would overlap (plot.h: the
       last, the first, then halves): Q_b before PC_c */
    const nsd_pc_point pts[N_PTS] = {a->G, a->Qf, a->B, a->A, a->Qb, a->pc_c, a->pc_c_conj, first};
    for (int i = 0; i < 8; ++i) {
        F->px[i] = pts[i].x;
        F->py[i] = pts[i].y;
    }
    F->curves[F->nc++] = (nsd_curve){.x = F->px,
                                     .y = F->py,
                                     .n = 8,
                                     .legend = "points (A: no friction, PC1: first phase)",
                                     .color = 6,
                                     .width = 3.0,
                                     .marker = 1};
}

/* The points' names, written next to them (the paper's labels) by the
 * panel's picture callback: one labelled group per point (plot.h). */
static void draw_names(void *ctx, const nsdyn_canvas *canvas) {
    /* no underscores: the label's white ground would cut them off */
    static const char *const names[8] = {"G", "Qf", "B", "A", "Qb", "PCc", "PC'c", "PC1"};
    const pc_figure *F = ctx;
    for (int i = 0; i < 8; ++i) {
        if (!isfinite(F->px[i]) || !isfinite(F->py[i])) continue;
        nsd_plot_canvas_begin(canvas, 1.0);
        canvas->pen(canvas->ctx, NSDYN_PEN_STRUCTURE);
        canvas->circle(canvas->ctx, F->px[i], F->py[i], F->dot);
        nsd_plot_canvas_end(canvas, names[i]);
    }
}

/* pcmap_along.csv (the samples) and pcmap_marks.csv (the thresholds). */
static int write_along(const char *dir, const nsd_pc_along *al, char *err, size_t len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/pcmap_along.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    fprintf(f, "%s.%s,lambda [1],mu_dp [1],mu_c [1],mu_inf [1],mu_i [1]\n", al->section, al->key);
    for (size_t i = 0; i < al->n; ++i)
        fprintf(f, "%.12g,%.12g,%.12g,%.12g,%.12g,%.12g\n", al->par[i], al->lambda[i], al->mu_dp[i],
                al->mu_c[i], al->mu_inf[i], al->mu_i[i]);
    if (nsd_commit_file(f, path, err, len) != 0) return -1;
    snprintf(path, sizeof path, "%s/pcmap_marks.csv", dir);
    if (!(f = nsd_open_tmp(path, err, len))) return -1;
    fprintf(f, "what,%s.%s,mu [1]\n", al->section, al->key);
    for (size_t i = 0; i < al->n_marks; ++i)
        fprintf(f, "%s,%.12g,%.12g\n", al->marks[i].what, al->marks[i].at, al->marks[i].mu);
    return nsd_commit_file(f, path, err, len);
}

/* The third panel: the critical coefficients along the parameter, the
 * thresholds as vertical lines. */
static nsd_panel along_panel(const nsd_config *cfg, const nsd_pc_along *al, nsd_curve c[4],
                             double *marks, char *xlabel,
                             size_t xlabel_len) {
    const double *ys[4] = {al->mu_dp, al->mu_c, al->mu_inf, al->mu_i};
    static const char *const names[4] = {"mu_DP", "mu_c", "mu_inf", "mu_i"};
    static const int colors[4] = {1, 2, 7, 0};
    double top = 1;
    for (size_t i = 0; i < al->n; ++i)
        if (isfinite(al->mu_c[i])) top = fmax(top, fmin(6.0, 3 * al->mu_c[i]));
    for (int k = 0; k < 4; ++k)
        c[k] = (nsd_curve){.x = al->par,
                           .y = ys[k],
                           .n = al->n,
                           .legend = names[k],
                           .color = colors[k],
                           .dashed = k == 2,
                           .width = 2};
    for (size_t i = 0; i < al->n_marks; ++i) marks[i] = al->marks[i].at;
    snprintf(xlabel, xlabel_len, "%s [%s]", al->key,
             nsd_figures_key_unit(cfg, al->section, al->key));
    return (nsd_panel){.title = "critical coefficients along the parameter (grey: thresholds)",
                       .xlabel = xlabel,
                       .ylabel = "friction coefficient μ [1]",
                       .curves = c,
                       .n_curves = 4,
                       .vlines = marks,
                       .n_vlines = al->n_marks,
                       .xmin = fmin(al->from, al->to),
                       .xmax = fmax(al->from, al->to),
                       .ymin = 0,
                       .ymax = top,
                       .legend_position = 5};
}

static int write_outputs(nsd_scenario *s, const nsd_pc_analysis *a, const nsd_pc_along *al,
                         nsd_outdir *od) {
    char err[1024], path[PATH_MAX + 32], title[400];
    double mu = s->data->mu_kinetic;
    nsd_pc_point first = {NAN, NAN};
    nsd_pc_of_impulse(a, -mu, &first);
    if (write_csv(od->tmp, a, &first, err, sizeof err) != 0) goto fail;
    pc_figure *F = calloc(1, sizeof *F);
    if (!F) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    const double sc = a->scale;
    const double box[4] = {-2.2 * sc, 1.4 * sc, a->ground_y - 1.2 * sc, 1.6 * sc};
    /* the domains over more than the window: equal_aspect widens one range */
    const double shade_box[4] = {-10 * sc, 10 * sc, -10 * sc, 10 * sc};
    build(F, a, mu, first, 20 * sc, shade_box);
    F->dot = 0.012 * sc;
    if (critical_curves(od->tmp, a, F, err, sizeof err) != 0) {
        free(F);
        goto fail;
    }
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(&s->app.cfg, "format");
    char v[4][24];
    const double vals[4] = {a->mu_dp, a->mu_c, a->mu_inf, a->mu_i};
    for (int i = 0; i < 4; ++i)
        if (isfinite(vals[i]))
            snprintf(v[i], sizeof v[i], "%.3g", vals[i]);
        else
            snprintf(v[i], sizeof v[i], "none");
    snprintf(title, sizeof title, "mu_DP %s, mu_c %s, mu_inf %s, mu_i %s", v[0], v[1], v[2], v[3]);
    nsd_panel panel = {.title = title,
                       .xlabel = "along the ground from G [m]",
                       .ylabel = "normal to the ground from G [m]",
                       .curves = F->curves,
                       .n_curves = F->nc,
                       .xmin = box[0],
                       .xmax = box[1],
                       .ymin = box[2],
                       .ymax = box[3],
                       .equal_aspect = 1,
                       .legend_position = 4,
                       .draw = draw_names,
                       .draw_ctx = F};
    snprintf(path, sizeof path, "%s/pcmap.%s", od->tmp, nsd_plot_format_ext(fmt));
    double ymax = 0;
    for (int i = 0; i < N_LAM; ++i)
        if (isfinite(F->muc[i])) ymax = fmax(ymax, 3 * F->muc[i]);
    nsd_curve along_curves[4];
    double marks[NSD_PC_ALONG_MAX_MARKS];
    char xlabel[128];
    if (al->n && write_along(od->tmp, al, err, sizeof err) != 0) {
        free(F);
        goto fail;
    }
    nsd_panel panels[3] = {panel,
                           {.title = "critical friction coefficients of this geometry",
                            .xlabel = "inertia ratio λ = I_G / (m |GQ_f|²) [1]",
                            .ylabel = "friction coefficient μ [1]",
                            .curves = F->crit,
                            .n_curves = 3,
                            .vlines = F->vx,
                            .n_vlines = 1,
                            .xmin = 0,
                            .xmax = 1.5,
                            .ymin = 0,
                            .ymax = ymax > 0 ? ymax : 1,
                            .legend_position = 5}};
    if (al->n) panels[2] = along_panel(&s->app.cfg, al, along_curves, marks, xlabel, sizeof xlabel);
    nsd_figure fig = {.title = s->app.cfg.title,
                      .panels = panels,
                      .n_panels = al->n ? 3 : 2,
                      .columns = 1,
                      .width_px = 2000,
                      .height_px = al->n ? 2500 : 1800};
    int rc = nsd_figure_write(&s->app.cfg, path, fmt, &fig, err, sizeof err);
    free(F);
    if (rc != 0) goto fail;
    if (!nsd_outdir_finish(od, 1, 1, NULL, 0)) return NSD_EXIT_OUTPUT;
    printf("wrote %s/pcmap.csv, pcmap_critical.csv, %spcmap.%s\n", od->target,
           al->n ? "pcmap_along.csv, pcmap_marks.csv, " : "", nsd_plot_format_ext(fmt));
    return NSD_EXIT_OK;
fail:
    fprintf(stderr, "error: %s\n", err);
    return NSD_EXIT_OUTPUT;
}

int nsd_cmd_pcmap(const nsd_cli *cli) {
    nsd_diag diag = {0};
    nsd_scenario s;
    nsd_outdir od = {0};
    nsd_pc_along al = {0};
    int status = NSD_EXIT_USAGE;
    if (nsd_cli_load(cli, &s, 1, &diag) != 0) goto out;
    nsd_pc_analysis a;
    char err[1024];
    double t0 = s.app.cfg.settings.t_start;
    if (nsd_pc_analyse(&s.model, s.data, t0, s.model.y0, &a, err, sizeof err) != 0) {
        const nsd_toml_node *sys = s.app.cfg.system.table, *id = nsd_toml_get(sys, "id");
        nsd_diag_at(&diag, id ? id : sys, "[system]: nsdyn pcmap: %s", err);
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    if (nsd_pc_along_read(&s, &al, &diag) != 0 || (al.n && nsd_pc_along_compute(&s, &al, &diag))) {
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    if (nsd_cli_open_outdir(cli, &od) != 0) goto out;
    print_analysis(stdout, &s.model, &a, s.data->mu_kinetic);
    for (size_t i = 0; i < al.n_marks; ++i)
        printf("  along %s.%s: %s at %.10g (mu %.6g)\n", al.section, al.key, al.marks[i].what,
               al.marks[i].at, al.marks[i].mu);
    status = write_outputs(&s, &a, &al, &od);
out:
    nsd_pc_along_free(&al);
    nsd_outdir_discard(&od);
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
