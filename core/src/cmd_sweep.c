/* nsdyn sweep CONFIG: a parameter study in process (sweep.h,
 * docs/sweep.md). Everything is checked before the first run: the config,
 * the [sweep] section, every value of every axis, the output folder and
 * the database. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "output.h"
#include "plugin_trust.h"
#include "sweep.h"

#ifdef NSDYN_MPI
int nsd_sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);
void nsd_sweep_mpi_finalize(void);
int nsd_sweep_mpi_agree(int ok);
int nsd_sweep_exec_mpi(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                       const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                       int rank, int size);
#else
static int nsd_sweep_mpi_agree(int ok) { return ok; }
#endif

typedef struct sweep_args {
    nsd_cli cli;
    nsd_sweep_opts opts;
    const char *csv;
    int no_csv, no_graphs;
} sweep_args;

static int need_value(int i, int argc, char **argv) {
    if (i + 1 < argc) return 0;
    fprintf(stderr, "error: %s needs a value\n", argv[i]);
    return -1;
}

static int parse_args(int argc, char **argv, sweep_args *a) {
    for (int i = 2; i < argc; ++i) {
        const char *s = argv[i];
        if (!strcmp(s, "-o") || !strcmp(s, "--set") || !strcmp(s, "-j") || !strcmp(s, "--db") ||
            !strcmp(s, "--csv")) {
            if (need_value(i, argc, argv)) return -1;
            const char *v = argv[++i];
            if (!strcmp(s, "-o")) a->cli.out_dir = v;
            if (!strcmp(s, "--set")) a->cli.sets[a->cli.n_sets++] = v;
            if (!strcmp(s, "--db")) a->opts.db_path = v;
            if (!strcmp(s, "--csv")) a->csv = v;
            if (!strcmp(s, "-j")) {
                char *end = NULL;
                long n = strtol(v, &end, 10);
                if (*end || n < 1 || n > 1024) {
                    fprintf(stderr, "error: -j %s: expected a thread count 1..1024\n", v);
                    return -1;
                }
                a->opts.threads = (int)n;
            }
        } else if (!strncmp(s, "--set=", 6)) {
            a->cli.sets[a->cli.n_sets++] = s + 6;
        } else if (!strncmp(s, "-j", 2) && s[2]) {
            a->opts.threads = atoi(s + 2);
            if (a->opts.threads < 1 || a->opts.threads > 1024) {
                fprintf(stderr, "error: %s: expected a thread count 1..1024\n", s);
                return -1;
            }
        } else if (!strcmp(s, "-q") || !strcmp(s, "--quiet")) {
            a->opts.quiet = 1;
        } else if (!strcmp(s, "--in-process")) {
            a->opts.in_process = 1;
        } else if (!strcmp(s, "--retry-crashed")) {
            setenv("NSDYN_SWEEP_RETRY_CRASHED", "1", 1); /* read by sweep_db.c */
        } else if (!strcmp(s, "--no-csv")) {
            a->no_csv = 1;
        } else if (!strcmp(s, "--no-graphs")) {
            a->no_graphs = 1;
        } else if (!strcmp(s, "--trust-config-plugins")) {
            setenv("NSDYN_TRUST_CONFIG_PLUGINS", "1", 1); /* read by plugin_trust.c */
        } else if (!strcmp(s, "--accept-plugin-change")) {
            setenv("NSDYN_ACCEPT_PLUGIN_CHANGE", "1", 1);
        } else if (!strcmp(s, "--no-config-plugins")) {
            setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1);
        } else if (s[0] == '-') {
            fprintf(stderr, "error: unknown option '%s' (nsdyn --help)\n", s);
            return -1;
        } else if (!a->cli.config) {
            a->cli.config = s;
        } else {
            fprintf(stderr, "error: unexpected argument '%s' (one CONFIG)\n", s);
            return -1;
        }
    }
    if (!a->cli.config) {
        fprintf(stderr, "error: nsdyn sweep needs a CONFIG file\n");
        return -1;
    }
    return 0;
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
static int finish(const sweep_args *a, const nsd_sweep_def *def, nsd_sweep_db *db, const char *dir,
                  const nsd_sweep_tally *tally) {
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
        nsd_sweep_graphs(def, db, dir, NSD_PLOT_PNG, a->opts.quiet) != 0)
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

static int sweep_main(sweep_args *a, int rank, int size) {
    nsd_scenario base;
    nsd_sweep_def def = {0};
    memset(&base, 0, sizeof base);
    int status = NSD_EXIT_USAGE;
    nsd_sweep_db *db = NULL;
    uint8_t *done = NULL;
    char dir[PATH_MAX], db_path[PATH_MAX + 32], err[PATH_MAX + 1024];
    if (!nsd_sweep_mpi_agree(load(a, &base, &def, rank) == 0)) goto out;
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
        else if (!(db = nsd_sweep_db_open(db_path, &def, a->cli.config, &done, &n_done, err,
                                          sizeof err)))
            fprintf(stderr, "error: %s\n", err);
        else if (check_plugins(db, &base, err, sizeof err) != 0) {
            fprintf(stderr, "error: database %s: %s\n", db_path, err);
            nsd_sweep_db_close(db);
            db = NULL;
        } else if (!a->opts.quiet)
            fprintf(stderr, "sweep: %zu runs (%zu finished before) into %s%s\n", def.n_runs, n_done,
                    db_path, size > 1 ? " (MPI)" : "");
    }
    if (!nsd_sweep_mpi_agree(rank != 0 || db != NULL)) goto out;
    nsd_sweep_tally tally = {0};
    status = NSD_EXIT_OK;
    if (exec_sweep(a, &def, &base, db, done, &tally, rank, size) != 0) status = 4;
    if (rank == 0 && finish(a, &def, db, dir, &tally) != 0) status = 4;
    if (nsd_interrupt_signal()) {
        if (rank == 0)
            fprintf(stderr,
                    "sweep interrupted by signal %d: the finished runs are in %s; run the "
                    "same command again to go on\n",
                    nsd_interrupt_signal(), db_path);
        status = 128 + nsd_interrupt_signal();
    }
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
    int status = parse_args(argc, argv, &a) != 0 ? NSD_EXIT_USAGE : NSD_EXIT_OK;
    if (status == NSD_EXIT_OK) {
        nsd_interrupt_install();
        status = sweep_main(&a, rank, size);
    }
#ifdef NSDYN_MPI
    nsd_sweep_mpi_finalize();
#endif
    free(a.cli.sets);
    return status;
}
