/* nsdyn periodic CONFIG: a periodic orbit through the Poincare section of
 * [periodic], its period and Floquet multipliers (analysis/periodic.h),
 * the orbit simulated once more with the run's data and graphs, and
 * optionally a continuation along a parameter (periodic_branch.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interrupt.h"
#include "output.h"
#include "periodic_branch.h"
#include "periodic_config.h"
#include "plot.h"

static void print_result(const nsd_scenario *s, const nsd_periodic_config *pc,
                         const nsd_periodic_result *r) {
    const nsd_model *m = &s->model;
    const nsd_periodic_spec *sp = &pc->spec;
    printf("periodic orbit through section '%s' (%zu crossing%s per period)\n",
           m->layout.switches[sp->section], sp->crossings, sp->crossings == 1 ? "" : "s");
    printf("  Newton: %s after %d iteration%s, residual %.3e (tol %.1e); %zu runs of the map, "
           "%llu rhs evaluations, %.3f s wall\n",
           r->converged ? "converged" : "NOT converged", r->iterations,
           r->iterations == 1 ? "" : "s", r->residual, sp->tol, r->map_evals, r->rhs_evals,
           r->wall_seconds);
    printf("  period %.10g s\n  state after the section (* free):\n", r->period);
    for (size_t i = 0; i < m->n; ++i) {
        int is_free = 0;
        for (size_t j = 0; j < sp->n_free; ++j) is_free |= sp->free[j] == i;
        printf("    %c %-20s % .10g %s\n", is_free ? '*' : ' ', m->channels[1 + i].name, r->y[i],
               m->channels[1 + i].unit);
    }
    if (!r->converged) return;
    printf("  Floquet multipliers (eigenvalues of dP/dx on the free states, central differences;\n"
           "  those of the Jacobian at 2h differ by up to %.1e; the Jacobians differ by up to\n"
           "  %.1e, scaled, at d %s / d %s):\n",
           r->mult_error, r->jac_error, m->channels[1 + sp->free[r->jac_error_at[0]]].name,
           m->channels[1 + sp->free[r->jac_error_at[1]]].name);
    for (size_t i = 0; i < sp->n_free; ++i)
        printf("    % .8f %+.8fi   |mu| = %.8f\n", r->mult_re[i], r->mult_im[i],
               hypot(r->mult_re[i], r->mult_im[i]));
    printf("  the orbit is %s (largest |mu| = %.6f)\n", r->stable ? "STABLE" : "UNSTABLE",
           hypot(r->mult_re[0], r->mult_im[0]));
}

/* The report channels on the orbit (two periods from it). */
static void print_report(nsd_scenario *s, const nsd_periodic_config *pc,
                         const nsd_periodic_result *r) {
    double out[64];
    char why[1024];
    size_t n = pc->n_report < 64 ? pc->n_report : 64;
    if (nsd_periodic_report(s, &pc->spec, r->y, pc->report, n, out, why, sizeof why) != 0) {
        fprintf(stderr, "warning: the report channels could not be read: %s\n", why);
        return;
    }
    printf("  on the orbit (after two periods):");
    for (size_t i = 0; i < n; ++i)
        printf("%s %s = %.9g %s", i ? "," : "", s->model.channels[pc->report[i]].name, out[i],
               s->model.channels[pc->report[i]].unit);
    printf("\n");
}

/* orbit.csv, multipliers.csv and newton.csv into dir. 0 or -1. */
static int write_tables(const char *dir, const nsd_model *m, const nsd_periodic_spec *sp,
                        const nsd_periodic_result *r, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/orbit.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    fprintf(f, "name,value,unit,free\nperiod,%.17g,s,0\n", r->period);
    for (size_t i = 0; i < m->n; ++i) {
        int is_free = 0;
        for (size_t j = 0; j < sp->n_free; ++j) is_free |= sp->free[j] == i;
        fprintf(f, "%s,%.17g,%s,%d\n", m->channels[1 + i].name, r->y[i], m->channels[1 + i].unit,
                is_free);
    }
    if (nsd_commit_file(f, path, err, len) != 0) return -1;
    snprintf(path, sizeof path, "%s/multipliers.csv", dir);
    if (!(f = nsd_open_tmp(path, err, len))) return -1;
    fprintf(f, "re,im,modulus\n");
    for (size_t i = 0; r->converged && i < sp->n_free; ++i)
        fprintf(f, "%.12g,%.12g,%.12g\n", r->mult_re[i], r->mult_im[i],
                hypot(r->mult_re[i], r->mult_im[i]));
    if (nsd_commit_file(f, path, err, len) != 0) return -1;
    snprintf(path, sizeof path, "%s/newton.csv", dir);
    if (!(f = nsd_open_tmp(path, err, len))) return -1;
    fprintf(f, "iteration,residual\n");
    for (int i = 0; i <= r->iterations; ++i) fprintf(f, "%d,%.6e\n", i, r->history[i]);
    return nsd_commit_file(f, path, err, len);
}

/* multipliers.<fmt>: the multipliers in the complex plane with the unit
 * circle. */
static int write_multiplier_graph(const char *dir, const nsd_config *cfg,
                                  const nsd_periodic_spec *sp, const nsd_periodic_result *r,
                                  char *err, size_t len) {
    enum { NCIRC = 181 };
    double cx[NCIRC], cy[NCIRC];
    for (int i = 0; i < NCIRC; ++i) {
        cx[i] = cos(2.0 * M_PI * i / (NCIRC - 1));
        cy[i] = sin(2.0 * M_PI * i / (NCIRC - 1));
    }
    nsd_curve curves[2] = {
        {cx, cy, NCIRC, "unit circle", 6, 1, 1.0, 0},
        {r->mult_re, r->mult_im, sp->n_free, "Floquet multipliers", 1, 0, 2.0, 1},
    };
    char title[600];
    snprintf(title, sizeof title, "%s: period %.6g s, %s", cfg->title, r->period,
             r->stable ? "stable" : "unstable");
    nsd_panel panel = {"multipliers of the section map",
                       "Re mu",
                       "Im mu",
                       curves,
                       2,
                       NULL,
                       0,
                       NAN,
                       NAN,
                       NAN,
                       NAN,
                       1,
                       0,
                       0,
                       NULL,
                       NULL,
                       0};
    nsd_figure fig = {title, &panel, 1, 1, 800, 800};
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/multipliers.%s", dir, nsd_plot_format_ext(fmt));
    return nsd_plot_write(path, fmt, &fig, err, len);
}

/* The orbit simulated once more at the config's output settings: its
 * data, graphs and run record (the scenario pipeline's own). */
static int write_orbit_run(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y,
                           const nsd_run_settings *saved, const char *dir, const char *cmd,
                           char ***written, size_t *n_written, char *err, size_t len) {
    nsd_run_settings keep = s->app.cfg.settings;
    s->app.cfg.settings = *saved;
    nsd_model *m = &s->model;
    memcpy(m->y0, y, m->n * sizeof *y);
    m->section_switch = sp->section + 1;
    m->section_count = sp->crossings;
    nsd_diag diag = {0};
    size_t e = nsd_scenario_run(s, NULL, &diag);
    nsd_diag_free(&diag);
    m->section_switch = 0;
    int rc = -1;
    if (e)
        snprintf(err, len, "the orbit's run could not start");
    else
        rc = nsd_scenario_write_into(s, dir, 1, cmd, written, n_written, err, len);
    s->app.cfg.settings = keep;
    return rc < 0 ? -1 : 0;
}

/* The shooting runs need no samples between the start and the section,
 * and no progress line. */
static void shooting_settings(nsd_config *cfg) {
    nsd_run_settings *rs = &cfg->settings;
    rs->output_dt = rs->t_end - rs->t_start;
    rs->progress = 0;
}

/* The guess must reach the section: otherwise the config is wrong (the
 * section, [run] t_end or the initial state). Returns 0, or 1 with the
 * error at 'section'. */
static size_t check_guess(nsd_scenario *s, const nsd_periodic_config *pc, nsd_diag *diag) {
    size_t n = s->model.n;
    double *y0 = malloc(n * sizeof *y0), *y1 = malloc(n * sizeof *y1), T;
    char why[1536] = "out of memory";
    int rc = -1;
    if (y0 && y1) {
        memcpy(y0, s->model.y0, n * sizeof *y0);
        rc = nsd_periodic_map(s, &pc->spec, y0, y1, &T, why, sizeof why);
        memcpy(s->model.y0, y0, n * sizeof *y0);
    }
    if (rc != 0)
        nsd_diag_at(diag, pc->section_node,
                    "[periodic] key 'section': from the initial state (the guess), %s", why);
    free(y0);
    free(y1);
    return rc != 0;
}

/* Solve, print, check the repeat, write. Returns the exit status. */
static int solve_and_write(const nsd_cli *cli, nsd_scenario *s, nsd_periodic_config *pc,
                           nsd_outdir *od, const nsd_run_settings *saved) {
    nsd_periodic_result r;
    const nsd_periodic_spec *sp = &pc->spec;
    if (nsd_periodic_result_init(&r, s->model.n, sp->n_free) != 0) return NSD_EXIT_FAILED;
    double *guess = malloc(s->model.n * sizeof *guess);
    if (!guess) return NSD_EXIT_FAILED;
    memcpy(guess, s->model.y0, s->model.n * sizeof *guess);
    int rc = nsd_periodic_solve(s, sp, guess, &r, cli->quiet ? NULL : stdout);
    free(guess);
    if (!cli->quiet) print_result(s, pc, &r);
    char err[PATH_MAX + 1024] = "";
    char **written = NULL;
    size_t n_written = 0;
    int status = NSD_EXIT_OK;
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", r.message);
        fprintf(stderr, "error: Newton residual history:");
        for (int i = 0; i <= r.iterations; ++i) fprintf(stderr, " %.3e", r.history[i]);
        fprintf(stderr, "\n");
        status = NSD_EXIT_FAILED;
    } else if (pc->verify > 0) {
        double dev = nsd_periodic_repeat(s, sp, r.y, pc->verify, err, sizeof err);
        if (dev < 0) {
            fprintf(stderr, "error: the repeat check failed: %s\n", err);
            status = NSD_EXIT_FAILED;
        } else if (!cli->quiet)
            printf("  repeat check: %d more period%s of plain simulation from the orbit stay "
                   "within %.3e (scaled) of it\n",
                   pc->verify, pc->verify == 1 ? "" : "s", dev);
    }
    if (rc == 0 && status == NSD_EXIT_OK && pc->n_report && !cli->quiet) print_report(s, pc, &r);
    int ok = write_tables(od->tmp, &s->model, sp, &r, err, sizeof err) == 0;
    if (ok && rc == 0)
        ok = write_multiplier_graph(od->tmp, &s->app.cfg, sp, &r, err, sizeof err) == 0 &&
             write_orbit_run(s, sp, r.y, saved, od->tmp, cli->command_line, &written, &n_written,
                             err, sizeof err) == 0;
    if (ok && rc == 0 && pc->cont) {
        shooting_settings(&s->app.cfg);
        int br =
            nsd_periodic_branch(s, pc, &r, od->tmp, cli->quiet ? NULL : stdout, err, sizeof err);
        if (br < 0) ok = 0;
    }
    if (!ok) fprintf(stderr, "error: %s\n", err);
    /* a SIGINT/SIGTERM fails the runs of the map: say so, keep what was
     * computed in DIR.INCOMPLETE, exit 128 + N */
    if (nsd_interrupt_signal()) {
        fprintf(stderr, "error: interrupted by signal %d\n", nsd_interrupt_signal());
        status = NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal();
    }
    int placed = nsd_outdir_finish(od, ok, status == NSD_EXIT_OK, written, n_written);
    if (placed && !cli->quiet)
        printf("wrote %s/ (orbit.csv, multipliers.csv, newton.csv%s%s)\n",
               status == NSD_EXIT_OK ? od->target : od->incomplete,
               rc == 0 ? ", the orbit's run and graphs" : "",
               pc->cont && rc == 0 ? ", continuation.csv and graph" : "");
    nsd_paths_free(written, n_written);
    nsd_periodic_result_free(&r);
    if (!ok && status == NSD_EXIT_OK) status = NSD_EXIT_OUTPUT;
    return status;
}

int nsd_cmd_periodic(const nsd_cli *cli) {
    nsd_interrupt_install();
    nsd_diag diag = {0};
    nsd_scenario s;
    nsd_outdir od = {0};
    nsd_periodic_config pc;
    memset(&pc, 0, sizeof pc);
    int status = NSD_EXIT_USAGE;
    if (nsd_cli_load(cli, &s, 0, &diag) != 0) goto out;
    nsd_run_settings saved = s.app.cfg.settings;
    shooting_settings(&s.app.cfg);
    if (nsd_periodic_read(&s.app.cfg, &s.model, &pc, &diag) != 0 ||
        check_guess(&s, &pc, &diag) != 0) {
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    if (nsd_cli_open_outdir(cli, &od) != 0) goto out;
    status = solve_and_write(cli, &s, &pc, &od, &saved);
out:
    nsd_outdir_discard(&od);
    nsd_periodic_config_free(&pc);
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
