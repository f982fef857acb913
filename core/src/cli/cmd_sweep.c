/* nsdyn sweep CONFIG: a parameter study in process (sweep.h,
 * docs/sweep.md). Everything is checked before the first run: the config,
 * the [sweep] section, every value of every axis, the output folder and
 * the database. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_args.h"
#include "help.h"
#include "interrupt.h"
#include "output.h"
#include "plugin_record.h"
#include "plugin_trust.h"
#include "sweep.h"

#ifdef NSDYN_MPI
#include "sweep_modules.h" /* the MPI module's entry points */
#else
static int nsd_sweep_mpi_agree(int ok) { return ok; }
#endif

typedef struct sweep_args {
    nsd_cli cli;
    nsd_sweep_opts opts;
    const char *csv;
    int no_csv, no_graphs;
} sweep_args;

static int on_option(void *ctx, int key, const char *v) {
    sweep_args *a = ctx;
    long n = 0;
    switch (key) {
        case 'o': a->cli.out_dir = v; return 0;
        case NSD_OPT_SET: a->cli.sets[a->cli.n_sets++] = v; return 0;
        case NSD_OPT_DB: a->opts.db_path = v; return 0;
        case NSD_OPT_CSV: a->csv = v; return 0;
        case 'q': a->opts.quiet = 1; return 0;
        case NSD_OPT_NO_CSV: a->no_csv = 1; return 0;
        case NSD_OPT_NO_GRAPHS: a->no_graphs = 1; return 0;
        case NSD_OPT_NO_CONFIG_PLUGINS: setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1); return 0;
        case NSD_OPT_TRUST_CONFIG_PLUGINS: setenv("NSDYN_TRUST_CONFIG_PLUGINS", "1", 1); return 0;
        case NSD_OPT_ACCEPT_PLUGIN_CHANGE: setenv("NSDYN_ACCEPT_PLUGIN_CHANGE", "1", 1); return 0;
        case NSD_OPT_IN_PROCESS: a->opts.in_process = 1; return 0;
        case NSD_OPT_RETRY_CRASHED:
            setenv("NSDYN_SWEEP_RETRY_CRASHED", "1", 1);
            return 0; /* sweep_db.c */
        case 'j':
            if (nsd_cli_whole("-j", v, 1, 1024, &n) != 0) return -1;
            a->opts.threads = (int)n;
            return 0;
        default: return -1; /* not in the table: cannot happen */
    }
}

/* 0, NSD_CLI_HELP (help printed) or -1 (message printed). */
static int parse_args(int argc, char **argv, sweep_args *a) {
    char **ops = NULL;
    int n = 0, rc = nsd_cli_parse("sweep", argc - 1, argv + 1, on_option, a, &ops, &n);
    if (rc == NSD_CLI_HELP) nsd_help_print_command(stdout, nsd_help_find("sweep"));
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_CLI_HELP : -1;
    if (n != 1) {
        if (n == 0)
            fprintf(stderr, "error: nsdyn sweep needs a CONFIG file\n");
        else
            fprintf(stderr, "error: unexpected argument '%s' (one CONFIG)\n", ops[1]);
        return -1;
    }
    a->cli.config = ops[0];
    return nsd_cli_check_file("config", a->cli.config);
}

/* Config, [sweep] and every axis value; 0, or -1 with the messages out. */
static int load(const sweep_args *a, nsd_scenario *base, nsd_sweep_def *def, int rank) {
    nsd_diag diag = {0};
    base->no_graphs = 1;
    size_t errors = nsd_scenario_load(base, a->cli.config, a->cli.sets, a->cli.n_sets, &diag);
    if (!errors) errors = nsd_sweep_parse(def, base, &diag);
    if (!errors) errors = nsd_sweep_check_values(def, base, &diag);
    if (errors && rank == 0) nsd_diag_print(&diag, stderr); /* once, not per rank */
    nsd_diag_free(&diag);
    return errors ? -1 : 0;
}

static int exec_sweep(const sweep_args *a, const nsd_sweep_def *def, const nsd_scenario *base,
                      nsd_sweep_db *db, const uint8_t *done, nsd_sweep_tally *tally, int rank,
                      int size) {
#ifdef NSDYN_MPI
    if (size > 1) return nsd_sweep_exec_mpi(def, base, db, done, &a->opts, tally, rank, size);
#endif
    (void)rank, (void)size;
    if (a->opts.in_process) return nsd_sweep_exec_threads(def, base, db, done, &a->opts, tally);
    return nsd_sweep_exec_procs(def, base, db, done, &a->opts, tally);
}

/* After the runs: the summary line, CSV, graphs (the writer only). */
static int finish(const sweep_args *a, const nsd_sweep_def *def, const nsd_scenario *base,
                  nsd_sweep_db *db, const char *dir, const nsd_sweep_tally *tally) {
    nsd_sweep_tally_print(stderr, tally);
    char path[PATH_MAX + 32], err[PATH_MAX + 512];
    int rc = 0;
    if (!a->no_csv) {
        if (a->csv)
            snprintf(path, sizeof path, "%s", a->csv);
        else
            snprintf(path, sizeof path, "%s/runs.csv", dir);
        if (nsd_sweep_db_csv(db, path, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            rc = -1;
        } else if (!a->opts.quiet) {
            fprintf(stderr, "wrote %s\n", path);
        }
    }
    if (!a->no_graphs && def->n_graphs && !nsd_interrupt_signal() &&
        nsd_sweep_graphs(def, base, db, dir,
                         (nsd_plot_format)(int)nsd_plot_num(&base->app.cfg, "format"),
                         a->opts.quiet) != 0)
        rc = -1;
    return rc;
}

/* A resumed sweep's rows and new ones come from the same plugin files. */
static int check_plugins(nsd_sweep_db *db, const nsd_scenario *base, char *err, size_t len) {
    char *fingerprint = nsd_plugin_fingerprint(&base->app.cfg);
    err[0] = '\0';
    int rc = nsd_sweep_db_check_plugins(db, fingerprint, nsd_plugin_change_accepted(), err, len);
    free(fingerprint);
    return rc;
}

/* --in-process after a signal: worker threads stuck in a plugin callback
 * were left running (sweep_exec.c); they still use the study, so the
 * process ends here, the database closed, without tearing anything down. */
static void end_if_abandoned(const nsd_sweep_tally *tally, nsd_sweep_db *db, int status) {
    if (!tally->abandoned) return;
    fprintf(stderr,
            "sweep: %zu worker thread%s stuck in a plugin callback, the run in flight failed "
            "('crashed: interrupted by signal %d inside a plugin callback ...'); the process ends "
            "without waiting for %s\n",
            tally->abandoned, tally->abandoned == 1 ? " was" : "s were", nsd_interrupt_signal(),
            tally->abandoned == 1 ? "it" : "them");
    nsd_sweep_db_close(db);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

/* [sweep.adaptive]: the threshold by bisection, before the final
 * definition's database is opened for runs.csv and graphs. */
static int adaptive(const sweep_args *a, nsd_sweep_def *def, const nsd_scenario *base,
                    const char *db_path, const char *dir, int size) {
    if (size > 1) {
        fprintf(stderr, "error: [sweep.adaptive] runs in one process (-j N), not across MPI "
                        "ranks\n");
        return -1;
    }
    nsd_sweep_tally tally = {0};
    double lo = NAN, hi = NAN;
    if (def->adaptive.axis2 >= 0) { /* the two-axis map */
        char csv[PATH_MAX + 32];
        snprintf(csv, sizeof csv, "%s/boundary.csv", dir);
        size_t mixed = 0, runs = 0, uniform = 0;
        int rc = nsd_sweep_adaptive_map(def, base, db_path, &a->opts, &tally, csv, &mixed, &runs,
                                        &uniform);
        end_if_abandoned(&tally, NULL, NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal());
        if (rc != 0) return -1;
        printf("boundary of \"%s\": %zu mixed cells of %s %g x %s %g in %s after %zu runs "
               "(the uniform grid at that resolution: %zu runs, %.2f %%)\n",
               def->adaptive.target, mixed, def->axes[def->adaptive.axis].name,
               def->adaptive.cell[0], def->axes[def->adaptive.axis2].name, def->adaptive.cell[1],
               csv, runs, uniform, 100.0 * (double)runs / (double)uniform);
        return 0;
    }
    int rc = nsd_sweep_adaptive_run(def, base, db_path, &a->opts, &tally, &lo, &hi);
    end_if_abandoned(&tally, NULL, NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal());
    if (rc != 0) return -1;
    const nsd_sweep_axis *ax = &def->axes[def->adaptive.axis];
    printf("%s = %.12g (\"%s\" holds at %.12g, not at %.12g; tolerance %g) after %zu runs\n",
           ax->name, hi, def->adaptive.target, hi, lo, def->adaptive.tolerance, def->n_runs);
    return 0;
}

static int sweep_main(sweep_args *a, int rank, int size) {
    nsd_scenario base;
    nsd_sweep_def def = {0};
    memset(&base, 0, sizeof base);
    int status = NSD_EXIT_USAGE;
    nsd_sweep_db *db = NULL;
    uint8_t *done = NULL;
    char dir[PATH_MAX], db_path[PATH_MAX + 32], err[PATH_MAX + 1024];
    if (!nsd_sweep_mpi_agree(load(a, &base, &def, rank) == 0)) {
        /* a signal during the checks: 128 + N, as after one during the runs */
        if (nsd_interrupt_signal()) status = NSD_EXIT_SIGNAL_BASE + nsd_interrupt_signal();
        goto out;
    }
    nsd_cli_out_dir(&a->cli, dir, sizeof dir);
    char keep[PATH_MAX + 16];
    snprintf(keep, sizeof keep, "%s/runs", dir);
    a->opts.keep_dir = def.keep != NSD_KEEP_NONE ? keep : NULL;
    a->opts.config = a->cli.config;
    snprintf(db_path, sizeof db_path, "%s", a->opts.db_path ? a->opts.db_path : "");
    if (!a->opts.db_path) snprintf(db_path, sizeof db_path, "%s/sweep.sqlite", dir);
    if (rank == 0) { /* the writer: the folder and the database */
        size_t n_done = 0;
        if (nsd_make_dirs(dir, err, sizeof err) != 0)
            fprintf(stderr, "error: %s\n", err);
        else if (def.adaptive.axis >= 0 && adaptive(a, &def, &base, db_path, dir, size) != 0)
            status = 4;
        else if (!(db = nsd_sweep_db_open(db_path, &def, a->cli.config, &done, &n_done, err,
                                          sizeof err)))
            fprintf(stderr, "error: %s\n", err);
        else if (check_plugins(db, &base, err, sizeof err) != 0) {
            fprintf(stderr, "error: database %s: %s\n", db_path, err);
            nsd_sweep_db_close(db);
            db = NULL;
        } else if (!a->opts.quiet && def.adaptive.axis2 < 0)
            fprintf(stderr, "sweep: %zu runs (%zu finished before) into %s%s\n", def.n_runs, n_done,
                    db_path, size > 1 ? " (MPI)" : "");
    }
    if (!nsd_sweep_mpi_agree(rank != 0 || db != NULL)) goto out;
    nsd_sweep_tally tally = {0};
    status = NSD_EXIT_OK;
    /* a two-axis map ran its cells' corners, not the grid of its values */
    if (def.adaptive.axis2 < 0 && exec_sweep(a, &def, &base, db, done, &tally, rank, size) != 0)
        status = 4;
    if (rank == 0 && finish(a, &def, &base, db, dir, &tally) != 0) status = 4;
    if (nsd_interrupt_signal()) {
        if (rank == 0)
            fprintf(stderr,
                    "sweep interrupted by signal %d: the finished runs are in %s; run the "
                    "same command again to go on\n",
                    nsd_interrupt_signal(), db_path);
        status = 128 + nsd_interrupt_signal();
    }
    end_if_abandoned(&tally, db, status);
out:
    nsd_sweep_db_close(db);
    free(done);
    nsd_sweep_def_free(&def);
    nsd_scenario_destroy(&base);
    return status;
}

int nsd_cmd_sweep(int argc, char **argv) {
    sweep_args a = {0};
    a.opts.threads = 1;
    a.cli.sets = calloc((size_t)argc, sizeof *a.cli.sets);
    if (!a.cli.sets) return NSD_EXIT_FAILED;
    int rank = 0, size = 1;
#ifdef NSDYN_MPI
    if (nsd_sweep_mpi_init(&argc, &argv, &rank, &size) != 0) {
        free(a.cli.sets);
        return NSD_EXIT_FAILED;
    }
#endif
    int parsed = parse_args(argc, argv, &a);
    int status = parsed == NSD_CLI_HELP ? NSD_EXIT_OK : parsed ? NSD_EXIT_USAGE : NSD_EXIT_OK;
    if (parsed == 0) {
        nsd_interrupt_install();
        status = sweep_main(&a, rank, size);
    }
#ifdef NSDYN_MPI
    nsd_sweep_mpi_finalize();
#endif
    free(a.cli.sets);
    return status;
}
