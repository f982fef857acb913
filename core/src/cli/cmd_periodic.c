/* nsdyn periodic CONFIG: a periodic orbit through the Poincare section of
 * [periodic], its period and Floquet multipliers (analysis/periodic.h),
 * the orbit simulated once more with the run's data and graphs, and
 * optionally a continuation along a parameter (periodic_branch.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "figures.h"
#include "numfmt.h"
#include "interrupt.h"
#include "output.h"
#include "lyapunov.h"
#include "periodic_arc.h"
#include "periodic_branch.h"
#include "periodic_config.h"
#include "plot.h"
#include "run_watched.h"

/* What the command's thread is doing (static strings, a variant's name
 * from the config), for the message when it gets stuck in a plugin
 * callback (run_watched.h). */
typedef struct stage {
    _Atomic(const char *) what, variant;
} stage;

static void at_stage(stage *st, const char *what) {
    if (st) atomic_store(&st->what, what);
}

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
    if (sp->jacobian == NSD_PERIODIC_JAC_VARIATIONAL)
        printf("  Floquet multipliers (eigenvalues of dP/dx on the free states, variational "
               "equations\n  with %zu saltation matri%s; with twice the Magnus steps they differ "
               "by up to %.1e;\n  the Jacobians by up to %.1e, scaled, at d %s / d %s):\n",
               r->jumps, r->jumps == 1 ? "x" : "ces", r->mult_error, r->jac_error,
               m->channels[1 + sp->free[r->jac_error_at[0]]].name,
               m->channels[1 + sp->free[r->jac_error_at[1]]].name);
    else
        printf("  Floquet multipliers (eigenvalues of dP/dx on the free states, central "
               "differences;\n  those of the Jacobian at 2h differ by up to %.1e; the Jacobians "
               "differ by up to\n  %.1e, scaled, at d %s / d %s):\n",
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
    fputs("name,value,unit,free\nperiod,", f);
    nsd_num_put(f, r->period);
    fputs(",s,0\n", f);
    for (size_t i = 0; i < m->n; ++i) {
        int is_free = 0;
        for (size_t j = 0; j < sp->n_free; ++j) is_free |= sp->free[j] == i;
        fprintf(f, "%s,", m->channels[1 + i].name);
        nsd_num_put(f, r->y[i]);
        fprintf(f, ",%s,%d\n", m->channels[1 + i].unit, is_free);
    }
    if (nsd_commit_file(f, path, err, len) != 0) return -1;
    snprintf(path, sizeof path, "%s/multipliers.csv", dir);
    if (!(f = nsd_open_tmp(path, err, len))) return -1;
    fprintf(f, "re,im,modulus\n");
    for (size_t i = 0; r->converged && i < sp->n_free; ++i) {
        nsd_num_put(f, r->mult_re[i]), fputc(',', f), nsd_num_put(f, r->mult_im[i]);
        fputc(',', f), nsd_num_put(f, hypot(r->mult_re[i], r->mult_im[i])), fputc('\n', f);
    }
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
        {cx, cy, NCIRC, "unit circle", 6, 1, 1.0, 0, 0, 0},
        {r->mult_re, r->mult_im, sp->n_free, "Floquet multipliers", 1, 0, 2.0, 1, 0, 0},
    };
    char title[600];
    snprintf(title, sizeof title, "%s: period %.6g s, %s", cfg->title, r->period,
             r->stable ? "stable" : "unstable");
    nsd_panel panel = {"multipliers of the section map",
                       "Re μ [1]",
                       "Im μ [1]",
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
                       5, NULL, NULL, 0, 0, NULL};
    nsd_figure fig = {title, &panel, 1, 1, 800, 800, 0, 0, 0, 0};
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/multipliers.%s", dir, nsd_plot_format_ext(fmt));
    return nsd_figure_write(cfg, path, fmt, &fig, err, len);
}

/* The orbit simulated once more at the config's output settings: its
 * data, graphs and run record (the scenario pipeline's own). */
static int write_orbit_run(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y,
                           const nsd_run_settings *saved, const char *dir, const char *cmd,
                           char ***written, size_t *n_written, char *err, size_t len) {
    nsd_run_settings keep = s->app.cfg.settings;
    s->app.cfg.settings = *saved;
    nsd_data *d = s->data;
    memcpy(d->y0, y, s->model.n * sizeof *y);
    d->section_switch = sp->section + 1;
    d->section_count = sp->crossings;
    nsd_diag diag = {0};
    size_t e = nsd_scenario_run(s, NULL, &diag);
    nsd_diag_free(&diag);
    d->section_switch = 0;
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
        memcpy(y0, s->data->y0, n * sizeof *y0);
        rc = nsd_periodic_map(s, &pc->spec, y0, y1, &T, why, sizeof why);
        memcpy(s->data->y0, y0, n * sizeof *y0);
    }
    if (rc != 0)
        nsd_diag_at(diag, pc->section_node,
                    "[periodic] key 'section': from the initial state (the guess), %s", why);
    free(y0);
    free(y1);
    return rc != 0;
}

/* A summary of one point, the orbit r (no continuation): its parameter
 * NaN. 0 or -1 (out of memory). */
static int one_point(nsd_scenario *s, const nsd_periodic_config *pc, const nsd_periodic_result *r,
                     nsd_branch_summary *sum) {
    sum->np = 1;
    sum->nr = pc->n_report;
    sum->p = malloc(sizeof *sum->p);
    sum->period = malloc(sizeof *sum->period);
    sum->max_mu = malloc(sizeof *sum->max_mu);
    sum->rep = calloc(pc->n_report + 1, sizeof *sum->rep);
    sum->converged = malloc(sizeof *sum->converged);
    sum->stable = malloc(sizeof *sum->stable);
    if (!sum->p || !sum->period || !sum->max_mu || !sum->rep || !sum->converged || !sum->stable)
        return -1;
    sum->p[0] = NAN;
    sum->period[0] = r->period;
    sum->max_mu[0] = hypot(r->mult_re[0], r->mult_im[0]);
    sum->converged[0] = 1;
    sum->stable[0] = r->stable;
    char why[256];
    if (nsd_periodic_report(s, &pc->spec, r->y, pc->report, pc->n_report, sum->rep, why,
                            sizeof why) != 0)
        for (size_t i = 0; i < pc->n_report; ++i) sum->rep[i] = NAN;
    return 0;
}

/* Solve, print, check the repeat; the tables, graphs, the orbit's run and
 * the continuation into dir (its paths appended to *written). The
 * continuation's points into *sum, or the orbit alone when there is none.
 * Returns NSD_EXIT_OK or NSD_EXIT_FAILED (Newton, the repeat check); *ok
 * = 0 when an output could not be written (said on stderr). */
/* The arclength continuation (periodic_arc.h) from the orbit r: its
 * outputs into dir; NSD_EXIT_FAILED when a branch ended on a failure (the
 * branches so far are kept). */
static int arclength(const nsd_cli *cli, nsd_scenario *s, const nsd_periodic_config *pc,
                     const nsd_arc_config *ac, const nsd_periodic_result *r, const char *dir,
                     int *ok) {
    nsd_arc_outcome *o = malloc(sizeof *o);
    char err[PATH_MAX + 1024] = "out of memory";
    if (!o || nsd_periodic_arclength(s, pc, ac, r, dir, cli->quiet ? NULL : stdout, o, err,
                                     sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        *ok = 0;
        free(o);
        return NSD_EXIT_FAILED;
    }
    int status = NSD_EXIT_OK;
    if (!o->complete) {
        fprintf(stderr, "error: the continuation is incomplete: %s\n", o->why);
        status = NSD_EXIT_FAILED;
    }
    if (!cli->quiet)
        printf("arclength continuation: %zu branches, %zu points, %zu located points; %llu runs "
               "of the map, %llu rhs evaluations\n",
               o->n_branches, o->n_points, o->n_special, o->map_evals, o->rhs_evals);
    free(o);
    return status;
}

static int solve_into(const nsd_cli *cli, nsd_scenario *s, nsd_periodic_config *pc,
                      const nsd_arc_config *ac, const nsd_run_settings *saved, const char *dir,
                      char ***written, size_t *n_written, nsd_branch_summary *sum, int *ok,
                      stage *st) {
    nsd_periodic_result r;
    const nsd_periodic_spec *sp = &pc->spec;
    double *guess = malloc(s->model.n * sizeof *guess);
    if (!guess || nsd_periodic_result_init(&r, s->model.n, sp->n_free) != 0) {
        free(guess);
        fprintf(stderr, "error: out of memory\n");
        return NSD_EXIT_FAILED;
    }
    memcpy(guess, s->data->y0, s->model.n * sizeof *guess);
    at_stage(st, "Newton's iteration for the periodic orbit");
    int rc = nsd_periodic_solve(s, sp, guess, &r, cli->quiet ? NULL : stdout);
    free(guess);
    if (!cli->quiet) print_result(s, pc, &r);
    char err[PATH_MAX + 1024] = "";
    int status = NSD_EXIT_OK;
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", r.message);
        fprintf(stderr, "error: Newton residual history:");
        for (int i = 0; i <= r.iterations; ++i) fprintf(stderr, " %.3e", r.history[i]);
        fprintf(stderr, "\n");
        status = NSD_EXIT_FAILED;
    } else if (pc->verify > 0) {
        at_stage(st, "the repeat check of the orbit");
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
    *ok = nsd_make_dirs(dir, err, sizeof err) == 0 &&
          write_tables(dir, &s->model, sp, &r, err, sizeof err) == 0;
    at_stage(st, "the orbit's run");
    if (*ok && rc == 0)
        *ok = write_multiplier_graph(dir, &s->app.cfg, sp, &r, err, sizeof err) == 0 &&
              write_orbit_run(s, sp, r.y, saved, dir, cli->command_line, written, n_written, err,
                              sizeof err) == 0;
    at_stage(st, "the continuation");
    if (*ok && rc == 0 && pc->cont && ac) {
        shooting_settings(&s->app.cfg);
        int st = arclength(cli, s, pc, ac, &r, dir, ok);
        if (status == NSD_EXIT_OK) status = st;
    } else if (*ok && rc == 0 && pc->cont) {
        shooting_settings(&s->app.cfg);
        if (nsd_periodic_branch(s, pc, &r, dir, cli->quiet ? NULL : stdout, sum, err, sizeof err) <
            0)
            *ok = 0;
    }
    if (*ok && rc == 0 && !pc->cont && sum && one_point(s, pc, &r, sum) != 0) {
        snprintf(err, sizeof err, "out of memory");
        *ok = 0;
    }
    if (!*ok) fprintf(stderr, "error: %s\n", err);
    nsd_periodic_result_free(&r);
    return status;
}

/* [periodic.lyapunov]: the exponents of the trajectory from the initial
 * state instead of a periodic orbit; lyapunov.csv and .png into dir. */
static int lyapunov(const nsd_cli *cli, nsd_scenario *s, const nsd_periodic_config *pc,
                    const nsd_lyap_config *lc, const char *dir, int *ok) {
    nsd_lyap_result r;
    char err[PATH_MAX + 1024];
    if (!cli->quiet)
        printf("Lyapunov exponents on the section '%s' map: %d transient crossings, %d measured\n",
               s->model.layout.switches[pc->spec.section], lc->transient, lc->periods);
    int rc = nsd_lyapunov(s, &pc->spec, lc, &r, cli->quiet ? NULL : stdout);
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", r.message);
    } else if (!cli->quiet) {
        printf("  over %.6g s (%llu runs of the map, %llu rhs evaluations):", r.time, r.map_evals,
               r.rhs_evals);
        for (size_t j = 0; j < r.m; ++j) printf(" lambda%zu = %.6g 1/s", j + 1, r.exponent[j]);
        printf("\n  convergence: the last half of the periods changed them by at most %.2g 1/s\n",
               r.change);
        if (r.collapses)
            printf("  the map sent %zu tangent vectors to exactly zero (a sticking phase: all "
                   "nearby states end in the same one; perturbations are erased there, those "
                   "periods are left out of the means)\n",
                   r.collapses);
    }
    *ok = nsd_make_dirs(dir, err, sizeof err) == 0 &&
          (rc != 0 || nsd_lyap_write(s, &r, dir, err, sizeof err) == 0);
    if (!*ok) fprintf(stderr, "error: %s\n", err);
    nsd_lyap_result_free(&r);
    return rc == 0 ? NSD_EXIT_OK : NSD_EXIT_FAILED;
}

/* The end of the command: a signal, the folder in place, what was
 * written. Returns the exit status. */
static int finish(const nsd_cli *cli, nsd_outdir *od, int status, int ok, char **written,
                  size_t n_written) {
    /* a SIGINT/SIGTERM fails the runs of the map: say so, keep what was
     * computed in DIR.INCOMPLETE, exit 128 + N */
    if (nsd_interrupt_signal()) {
        fprintf(stderr, "error: interrupted by signal %d\n", nsd_interrupt_signal());
        status = NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal();
    }
    int placed = nsd_outdir_finish(od, ok, status == NSD_EXIT_OK, written, n_written);
    if (placed && !cli->quiet)
        printf("wrote %s/\n", status == NSD_EXIT_OK ? od->target : od->incomplete);
    if (!ok && status == NSD_EXIT_OK) status = NSD_EXIT_OUTPUT;
    return status;
}

/* ---- [[variant]]s: several analyses side by side ----------------------- */

typedef struct pvariant {
    const char *name;
    nsd_scenario sc;
    nsd_periodic_config pc;
    nsd_run_settings saved;
    nsd_branch_summary sum;
} pvariant;

/* Derive, create and read every variant before solving any, as nsdyn
 * compare does: a config error anywhere is found at once. Returns the
 * errors (in diag, each marked with its variant). */
static size_t prepare_variants(nsd_scenario *base, const nsd_toml_node *vt, pvariant *v,
                               nsd_diag *diag, stage *st) {
    size_t errors = 0;
    for (size_t i = 0; i < vt->n_items; ++i) {
        const nsd_toml_node *t = &vt->items[i];
        const nsd_toml_node *name = t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "name") : NULL;
        if (!name || name->type != NSD_TOML_STRING || !name->str[0]) {
            nsd_diag_at(diag, t, "variant %zu: expected a table with a non-empty string 'name'",
                        i + 1);
            errors++;
            continue;
        }
        v[i].name = name->str;
        size_t first = diag->n;
        v[i].sc.no_graphs = 1;
        size_t e = nsd_scenario_derive(&v[i].sc, base, t, diag);
        v[i].sc.no_graphs = 1;
        if (!e) e = nsd_scenario_create(&v[i].sc, diag);
        if (!e) {
            v[i].saved = v[i].sc.app.cfg.settings;
            shooting_settings(&v[i].sc.app.cfg);
            e = nsd_periodic_read(&v[i].sc.app.cfg, &v[i].sc.model, &v[i].pc, diag);
            atomic_store(&st->variant, v[i].name);
            if (!e) e = check_guess(&v[i].sc, &v[i].pc, diag);
            if (!e && nsd_arc_wanted(&v[i].pc)) {
                nsd_diag_at(diag, v[i].pc.cont,
                            "[periodic.continuation] method = \"arclength\" is not available "
                            "with [[variant]]s: run each variant's config on its own");
                e = 1;
            }
        }
        char suffix[160];
        snprintf(suffix, sizeof suffix, " (in variant \"%s\")", v[i].name);
        nsd_diag_suffix(diag, first, suffix);
        errors += e;
    }
    return errors;
}

/* periodic_summary.csv: one row per variant and parameter value. */
static int write_summary_csv(const char *dir, const pvariant *v, size_t nv, char *err, size_t len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/periodic_summary.csv", dir);
    FILE *f = nsd_open_tmp(path, err, len);
    if (!f) return -1;
    const nsd_periodic_config *pc0 = &v[0].pc;
    if (pc0->cont)
        fprintf(f, "variant,%s.%s,converged,stable,period [s],max |mu|", pc0->cont_section[0],
                pc0->cont_key[0]);
    else
        fprintf(f, "variant,parameter,converged,stable,period [s],max |mu|");
    for (size_t j = 0; j < pc0->n_report; ++j) {
        const nsd_channel *ch = &v[0].sc.model.channels[pc0->report[j]];
        fprintf(f, ",%s [%s]", ch->name, ch->unit);
    }
    fprintf(f, "\n");
    for (size_t i = 0; i < nv; ++i) {
        const nsd_branch_summary *b = &v[i].sum;
        for (size_t k = 0; k < b->np; ++k) {
            fprintf(f, "\"%s\",", v[i].name);
            nsd_num_put(f, b->p[k]);
            fprintf(f, ",%d,%d,", b->converged[k], b->stable[k]);
            nsd_num_put(f, b->period[k]), fputc(',', f), nsd_num_put(f, b->max_mu[k]);
            for (size_t j = 0; j < pc0->n_report; ++j) {
                const char *want = v[0].sc.model.channels[pc0->report[j]].name;
                double val = NAN;
                for (size_t r = 0; r < v[i].pc.n_report && r < b->nr; ++r)
                    if (!strcmp(v[i].sc.model.channels[v[i].pc.report[r]].name, want))
                        val = b->rep[k * b->nr + r];
                fputc(',', f), nsd_num_put(f, val);
            }
            fprintf(f, "\n");
        }
    }
    return nsd_commit_file(f, path, err, len);
}

static nsd_panel summary_panel(const char *title, const char *xl, const char *yl,
                               const nsd_curve *c, size_t n) {
    return (nsd_panel){.title = title,
                       .xlabel = xl,
                       .ylabel = yl,
                       .curves = c,
                       .n_curves = n,
                       .xmin = NAN,
                       .xmax = NAN,
                       .ymin = NAN,
                       .ymax = NAN};
}

/* periodic_summary.<fmt>: the largest |multiplier|, the period and up to
 * three report channels (by the first variant's names) against the first
 * continuation parameter, one curve per variant. */
enum { SUM_MAX_VARIANTS = 8, SUM_REPORTS = 3 };
static int write_summary_graph(const char *dir, const nsd_config *cfg, pvariant *v, size_t nv,
                               char *err, size_t len) {
    const nsd_periodic_config *pc0 = &v[0].pc;
    size_t nr = pc0->n_report < SUM_REPORTS ? pc0->n_report : SUM_REPORTS;
    size_t np = 2 + nr, nc = nv < SUM_MAX_VARIANTS ? nv : SUM_MAX_VARIANTS;
    nsd_curve curves[(2 + SUM_REPORTS) * SUM_MAX_VARIANTS + 1];
    nsd_panel panels[2 + SUM_REPORTS];
    double *rep[SUM_MAX_VARIANTS][SUM_REPORTS] = {{NULL}};
    char xl[128], yl[SUM_REPORTS][96], sym[64];
    nsd_plot_symbol(pc0->cont_key[0], sym, sizeof sym); /* "gamma": γ */
    snprintf(xl, sizeof xl, "%s [%s]", sym,
             nsd_figures_key_unit(&v[0].sc.app.cfg, pc0->cont_section[0], pc0->cont_key[0]));
    static const double one[2] = {1.0, 1.0};
    double ends[2] = {HUGE_VAL, -HUGE_VAL};
    int rc = -1;
    for (size_t i = 0; i < nc; ++i) {
        const nsd_branch_summary *b = &v[i].sum;
        for (size_t k = 0; k < b->np; ++k) {
            ends[0] = fmin(ends[0], b->p[k]);
            ends[1] = fmax(ends[1], b->p[k]);
        }
        curves[i] = (nsd_curve){b->p, b->max_mu, b->np, v[i].name, (int)i, 0, 2.0, 2, 0, 0};
        curves[nc + 1 + i] = (nsd_curve){b->p, b->period, b->np, NULL, (int)i, 0, 2.0, 2, 0, 0};
        for (size_t j = 0; j < nr; ++j) {
            if (!(rep[i][j] = malloc((b->np + 1) * sizeof(double)))) goto out;
            const char *want = v[0].sc.model.channels[pc0->report[j]].name;
            for (size_t k = 0; k < b->np; ++k) {
                rep[i][j][k] = NAN;
                for (size_t r = 0; r < v[i].pc.n_report && r < b->nr; ++r)
                    if (!strcmp(v[i].sc.model.channels[v[i].pc.report[r]].name, want))
                        rep[i][j][k] = b->rep[k * b->nr + r];
            }
            curves[(2 + j) * nc + 1 + i] =
                (nsd_curve){b->p, rep[i][j], b->np, NULL, (int)i, 0, 2.0, 2, 0, 0};
        }
    }
    curves[nc] = (nsd_curve){ends, one, 2, "|mu| = 1", 6, 1, 1.0, 0, 0, 0};
    panels[0] = summary_panel("largest |Floquet multiplier|", xl, "|μ| [1]", curves, nc + 1);
    panels[0].ymin = 0.0;
    panels[0].legend_position = 3; /* bottom left: the multipliers lie above */
    panels[1] = summary_panel("period", xl, "period [s]", curves + nc + 1, nc);
    for (size_t j = 0; j < nr; ++j) {
        const nsd_channel *ch = &v[0].sc.model.channels[pc0->report[j]];
        snprintf(yl[j], sizeof yl[j], "%s [%s]", ch->name, ch->unit);
        panels[2 + j] = summary_panel(ch->label, xl, yl[j], curves + (2 + j) * nc + 1, nc);
    }
    char title[600], path[PATH_MAX + 64];
    snprintf(title, sizeof title, "%s: periodic orbits of %zu variants", cfg->title, nv);
    nsd_figure fig = {title, panels, np, np > 2 ? 2 : 1, 1600, np > 2 ? 1200 : 600, 0, 0, 0, 0};
    /* one parameter axis per column: its ticks and label under the lowest panel only */
    for (size_t i = 0; i + fig.columns < np; ++i) panels[i].shared_x = 1;
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    snprintf(path, sizeof path, "%s/periodic_summary.%s", dir, nsd_plot_format_ext(fmt));
    rc = nsd_figure_write(cfg, path, fmt, &fig, err, len);
out:
    for (size_t i = 0; i < SUM_MAX_VARIANTS; ++i)
        for (size_t j = 0; j < SUM_REPORTS; ++j) free(rep[i][j]);
    if (rc != 0 && !err[0]) snprintf(err, len, "out of memory");
    return rc;
}

/* nsdyn periodic with [[variant]]s: each variant's analysis into
 * variant-NN/, the side-by-side summary into the folder itself. Returns
 * the exit status. */
static int periodic_variants(const nsd_cli *cli, nsd_scenario *base, const nsd_toml_node *vt,
                             nsd_outdir *od, nsd_diag *diag, stage *st) {
    if (vt->type != NSD_TOML_ARRAY || vt->n_items == 0) {
        nsd_diag_at(diag, vt, "'variant' must be a non-empty array of tables ([[variant]])");
        nsd_diag_print(diag, stderr);
        return NSD_EXIT_USAGE;
    }
    size_t nv = vt->n_items;
    pvariant *v = calloc(nv, sizeof *v);
    int status = NSD_EXIT_USAGE, ok = 1;
    char **written = NULL;
    size_t n_written = 0;
    char err[PATH_MAX + 1024] = "";
    if (!v) return NSD_EXIT_FAILED;
    at_stage(st, "the check of the initial guess");
    if (prepare_variants(base, vt, v, diag, st) != 0) {
        nsd_diag_print(diag, stderr);
        goto out;
    }
    if (nsd_cli_open_outdir(cli, od) != 0) goto out;
    status = NSD_EXIT_OK;
    for (size_t i = 0; i < nv && ok && !nsd_interrupt_signal(); ++i) {
        char dir[PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/variant-%02zu", od->tmp, i + 1);
        if (!cli->quiet) printf("== variant \"%s\" (%s)\n", v[i].name, v[i].sc.model.sys->info.id);
        atomic_store(&st->variant, v[i].name);
        int sti = solve_into(cli, &v[i].sc, &v[i].pc, NULL, &v[i].saved, dir, &written, &n_written,
                             &v[i].sum, &ok, st);
        if (sti != NSD_EXIT_OK) status = sti;
    }
    atomic_store(&st->variant, NULL);
    at_stage(st, "the summary of the variants");
    if (ok && status == NSD_EXIT_OK) {
        ok = write_summary_csv(od->tmp, v, nv, err, sizeof err) == 0 &&
             write_summary_graph(od->tmp, &base->app.cfg, v, nv, err, sizeof err) == 0;
        if (!ok) fprintf(stderr, "error: %s\n", err);
    }
    status = finish(cli, od, status, ok, written, n_written);
out:
    nsd_paths_free(written, n_written);
    for (size_t i = 0; i < nv; ++i) {
        nsd_branch_summary_free(&v[i].sum);
        nsd_periodic_config_free(&v[i].pc);
        nsd_scenario_destroy(&v[i].sc);
    }
    free(v);
    return status;
}

/* The command after its config is loaded, on a thread of its own
 * (run_watched.h): the first Ctrl-C is honoured even inside a plugin
 * callback that loops, as in nsdyn run. */
typedef struct periodic_job {
    const nsd_cli *cli;
    nsd_scenario *s;
    nsd_outdir *od;
    nsd_diag *diag;
    nsd_periodic_config *pc;
    int status;
    stage st;
} periodic_job;

static void periodic_work(void *arg) {
    periodic_job *j = arg;
    const nsd_cli *cli = j->cli;
    nsd_scenario *s = j->s;
    const nsd_toml_node *variants = nsd_toml_get(&s->app.cfg.root, "variant");
    j->status = NSD_EXIT_USAGE;
    if (variants) {
        j->status = periodic_variants(cli, s, variants, j->od, j->diag, &j->st);
        return;
    }
    nsd_run_settings saved = s->app.cfg.settings;
    shooting_settings(&s->app.cfg);
    nsd_arc_config ac;
    nsd_lyap_config lc;
    int arc = 0, lyap = 0;
    at_stage(&j->st, "the check of the initial guess");
    if (nsd_periodic_read(&s->app.cfg, &s->model, j->pc, j->diag) != 0 ||
        ((arc = nsd_arc_wanted(j->pc)) && nsd_arc_read(j->pc, &ac, j->diag) != 0) ||
        ((lyap = nsd_lyap_wanted(j->pc)) && nsd_lyap_read(j->pc, &lc, j->diag) != 0) ||
        check_guess(s, j->pc, j->diag) != 0) {
        nsd_diag_print(j->diag, stderr);
        return;
    }
    if (nsd_cli_open_outdir(cli, j->od) != 0) return;
    char **written = NULL;
    size_t n_written = 0;
    int ok = 1;
    if (lyap) {
        at_stage(&j->st, "the Lyapunov exponents");
        j->status = lyapunov(cli, s, j->pc, &lc, j->od->tmp, &ok);
    } else
        j->status = solve_into(cli, s, j->pc, arc ? &ac : NULL, &saved, j->od->tmp, &written,
                               &n_written, NULL, &ok, &j->st);
    j->status = finish(cli, j->od, j->status, ok, written, n_written);
    nsd_paths_free(written, n_written);
}

/* The command's thread is stuck in a plugin callback after a signal: what
 * it wrote so far (the orbit's tables, the branch so far in
 * continuation.csv, the finished variants) into DIR.INCOMPLETE, and the
 * process ends without waiting for that thread. */
static _Noreturn void abandon(periodic_job *j) {
    const char *what = atomic_load(&j->st.what), *variant = atomic_load(&j->st.variant);
    char where[512];
    snprintf(where, sizeof where, "%s%s%s%s", variant ? "variant \"" : "", variant ? variant : "",
             variant ? "\", " : "", what ? what : "the analysis");
    fflush(stdout);
    fprintf(stderr,
            "error: interrupted by signal %d inside a plugin callback (%s): the computation did "
            "not reach a step boundary within %g s (a callback that does not return)",
            nsd_interrupt_signal(), where, NSD_STOP_GRACE_S);
    if (j->od->open && nsd_outdir_finish(j->od, 1, 0, NULL, 0))
        fprintf(stderr,
                "; what was computed so far is kept in %s (a continuation's points so "
                "far in continuation.csv, marked INCOMPLETE); %s, if it exists, is "
                "untouched\n",
                j->od->incomplete, j->od->target);
    else
        fprintf(stderr, "; nothing was written yet, nothing to keep\n");
    fflush(stderr);
    _exit(NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal());
}

int nsd_cmd_periodic(const nsd_cli *cli) {
    nsd_interrupt_install();
    nsd_diag diag = {0};
    nsd_scenario s;
    nsd_outdir od = {0};
    nsd_periodic_config pc;
    memset(&pc, 0, sizeof pc);
    int status = NSD_EXIT_USAGE;
    if (nsd_cli_load(cli, &s, 0, &diag) == 0) {
        periodic_job *j = calloc(1, sizeof *j); /* the stuck thread's, after an abandon */
        if (!j) {
            fprintf(stderr, "error: out of memory\n");
            status = NSD_EXIT_FAILED;
        } else {
            *j = (periodic_job){cli, &s, &od, &diag, &pc, NSD_EXIT_USAGE, {NULL, NULL}};
            if (nsd_call_watched(periodic_work, j) != NSD_WATCHED_DONE) abandon(j);
            status = j->status;
            free(j);
        }
    }
    nsd_outdir_discard(&od);
    nsd_periodic_config_free(&pc);
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
