/* Parameter studies: `nsdyn sweep CONFIG` (docs/sweep.md).
 *
 * A [sweep] section names axes over config keys and the summaries to keep
 * of each run. Runs are numbered 0 .. n_runs - 1; a run's values follow
 * from its number alone (sweep_design.c), so any thread or MPI rank can
 * compute any run and the results do not depend on who ran what. Each run
 * is a scenario derived from the opened config (scenario.h) with the run's
 * values laid over it, created, run and summarized in process; only the
 * summaries are kept (and the outputs of runs the `keep` setting names).
 * Results go to an SQLite database, one row per run, written by one
 * thread in transactions, resumable (sweep_db.c).
 *
 * Parts: sweep_parse.c ([sweep] into nsd_sweep_def, checked), sweep_design.c
 * (a run's values), sweep_summary.c (a run's summaries), sweep_db.c (the
 * database and CSV), sweep_exec.c (threads, progress), sweep_mpi.c (ranks),
 * sweep_graphs.c (aggregates and graphs), cmd_sweep.c (the command). */
#ifndef NSD_SWEEP_H
#define NSD_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

#define NSD_SWEEP_TEXT 48 /* bytes of a text summary (a stop name) */
/* Most points a maxima() summary keeps of one run (a bifurcation
 * diagram's column); the summary's value counts them all. */
#define NSD_SWEEP_POINTS 400

typedef enum { NSD_DESIGN_GRID = 0, NSD_DESIGN_RANDOM, NSD_DESIGN_LHS } nsd_sweep_design;

typedef struct nsd_sweep_axis {
    char *name;    /* column name (axis.name, or the key with '.' as '_') */
    char *section; /* "system", "contact", ..., "initial" */
    char *param;   /* key inside the section ("id" for a plugin) */
    const nsd_toml_node *at;
    /* Values: a list (values[], numbers or strings), or a range start ..
     * stop in n values (step or count), linear or log. Random designs
     * draw from [start, stop] (log: uniform in log) or pick from a list. */
    int is_range, log;
    double start, stop;
    size_t n;
    nsd_toml_node *values; /* list axes: copies of the n items */
    int is_text;           /* list of strings */
    int is_int;            /* integer range (start, stop, step integers): integer values */
    size_t dim;            /* grid dimension (zipped axes share one) */
    /* per = "section.key^p": the value written is value * per^p, per taken
     * from the run's axis over that key or from the config. */
    char *per_key;
    double per_power;
    long per_axis;     /* index of the axis over per_key, or -1 */
    double per_config; /* its config value when no axis sweeps it */
    char *unit;        /* of the axis value (the key's, over per's unit^p); "1": none */
} nsd_sweep_axis;

typedef enum {
    NSD_SUM_MAX = 0,
    NSD_SUM_MIN,
    NSD_SUM_FINAL,
    NSD_SUM_MEAN,
    NSD_SUM_TIME_OF_MAX,
    NSD_SUM_TIME_OF_MIN,
    NSD_SUM_AT_FIRST,      /* channel at the first event of a kind */
    NSD_SUM_TIME_OF_FIRST, /* time of the first event of a kind */
    NSD_SUM_COUNT,         /* events of a kind */
    NSD_SUM_STOP,          /* text: the stop fired, "complete" or "failed" */
    NSD_SUM_T_REACHED,
    NSD_SUM_SYSTEM, /* a value the system declares (nsdyn_system_summaries) */
    NSD_SUM_MAXIMA, /* the local maxima of a channel after a time: the row's points */
    NSD_SUM_KIND_COUNT
} nsd_summary_kind;

typedef struct nsd_sweep_summary {
    char *name; /* column name */
    char *expr; /* as written, e.g. "max(z)" */
    const nsd_toml_node *at;
    nsd_summary_kind kind;
    char *channel;    /* channel or system value name */
    int event;        /* nsd_event_kind, or NSD_EVENT_KIND_COUNT + 0 switch, + 1 stop, + 2 all */
    double after;     /* maxima: from this time on [s] (after the transient) */
    int with_stopped; /* maxima_with_stopped(): runs ended by a stop condition count too */
    char *unit;       /* nsd_sweep_summary_unit */
} nsd_sweep_summary;

typedef enum { NSD_KEEP_NONE = 0, NSD_KEEP_FAILED, NSD_KEEP_ALL, NSD_KEEP_FILTER } nsd_sweep_keep;

/* keep = "SUMMARY OP VALUE" (OP one of == != < <= > >=; VALUE a number,
 * or a word for a text summary with == or !=): the runs it holds for. */
typedef struct nsd_sweep_filter {
    long summary;
    int op; /* 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >= */
    double num;
    char text[NSD_SWEEP_TEXT];
    int is_text;
} nsd_sweep_filter;

/* What a graph shows: a summary reduced over the runs that share the x
 * (and group) values. */
typedef enum {
    NSD_REDUCE_MEAN = 0, /* with +- one standard deviation as error bars */
    NSD_REDUCE_STD,
    NSD_REDUCE_MIN,
    NSD_REDUCE_MAX,
    NSD_REDUCE_FRACTION /* of the runs with summary > above */
} nsd_reduce;

typedef struct nsd_sweep_graph {
    char *name; /* file stem */
    const nsd_toml_node *at;
    long x_axis, group_axis; /* axis indices (group -1: none) */
    long y_axis;             /* heat map: the second axis, else -1 */
    long summary;            /* summary index (a map: the summary that colours it) */
    int points;              /* a maxima() summary: every point against x */
    nsd_reduce reduce;
    double above; /* fraction, map of a number: the threshold (NaN: none) */
} nsd_sweep_graph;

/* [sweep.adaptive]: the smallest value of a range axis where a target
 * over the runs at that value (the other axes' grid) holds, found by
 * bisection to a tolerance (sweep_adaptive.c). */
typedef struct nsd_sweep_adaptive {
    long axis;        /* -1: no adaptive search */
    long summary;     /* the summary the target reads */
    int mean;         /* 0: fraction of runs with summary > above; 1: mean of the summary */
    double above;     /* fraction: the runs counted have summary > above (default 0) */
    int op;           /* 0 >=, 1 >, 2 <=, 3 < */
    double value;     /* the target's right side */
    double tolerance; /* [axis unit] the final bracket's width at most */
    /* The two-axis map (sweep_adaptive_map.c): axis and axis2 its axes
     * (axis2 -1: bisection along axis), cell[k] [axis unit] the finest
     * cell's size along each at most. */
    long axis2;
    double cell[2];
    char target[128]; /* as written */
} nsd_sweep_adaptive;

typedef struct nsd_sweep_def {
    const nsd_toml_node *at; /* the [sweep] table */
    nsd_sweep_axis *axes;
    size_t n_axes, n_dims;
    size_t *dim_len; /* n_dims */
    nsd_sweep_design design;
    uint64_t seed;
    size_t samples; /* random designs */
    size_t n_runs;
    nsd_sweep_summary *sums;
    size_t n_sums;
    nsd_sweep_keep keep;
    nsd_sweep_filter keep_filter; /* keep = NSD_KEEP_FILTER */
    nsd_sweep_graph *graphs;
    size_t n_graphs;
    int derive_locked; /* an axis names a plugin id: derive under a lock */
    long points_sum;   /* the maxima() summary (one at most), or -1 */
    uint32_t *lhs;     /* lhs design: n_dims x samples strata, a permutation per dimension */
    char hash[65];     /* of the definition: base config, axes, summaries */
    /* of the study: the base config, design and summaries without the axes;
     * a database of the same study grows into a new definition */
    char study_hash[65];
    char *config_tree;     /* the canonical text of the config without [sweep] (stored) */
    char config_hash[65];  /* nsd_sweep_study_config: every row's config_hash */
    char *config_resolved; /* nsd_sweep_study_config: the text hashed (stored) */
    const nsd_config *cfg; /* the base config (the values of keys no axis sweeps) */
    /* [sweep] run_timeout [s] and run_max_memory [MiB] of each run in its
     * worker process (0: none; not part of the hash). */
    double run_timeout_s, run_max_memory_mb;
    nsd_sweep_adaptive adaptive;
} nsd_sweep_def;

/* One run's results. sizes from the def: values[n_axes] (the axis value;
 * text axes: text[a]), sums[n_sums] (text summaries: sum_text[s]). */
typedef enum {
    NSD_SWEEP_OK = 0,      /* complete or stopped */
    NSD_SWEEP_FAILED = 1,  /* the simulation failed */
    NSD_SWEEP_REFUSED = 2, /* the run's config or plugins refused the values */
    NSD_SWEEP_NO_SUMMARY = 3
} nsd_sweep_status;

typedef struct nsd_sweep_row {
    uint64_t run;
    int status;                        /* nsd_sweep_status */
    double wall;                       /* [s] the run's own cost: derive, create, run, summaries */
    double sim_wall;                   /* [s] of which the simulation (not in the database) */
    double *axis_num;                  /* n_axes (NaN for text axes) */
    char (*axis_text)[NSD_SWEEP_TEXT]; /* n_axes ("" for numbers) */
    double *sum_num;                   /* n_sums */
    char (*sum_text)[NSD_SWEEP_TEXT];  /* n_sums ("" for numbers) */
    char message[512];
    char config_hash[65];
    /* The run's log (runlog.h): its warnings and errors, plugins' and
     * host's, and the first of them (columns log_warnings, log_first) */
    uint32_t log_warnings;
    char log_first[256];
    uint32_t n_points; /* the maxima() summary's points (at most NSD_SWEEP_POINTS) */
    double *points;
} nsd_sweep_row;

/* Parse and check [sweep] of the opened scenario base (created: its model
 * gives the channels and the system's summary values). Every problem goes
 * to diag with its file:line:col; returns the number of errors. */
size_t nsd_sweep_parse(nsd_sweep_def *def, const nsd_scenario *base, nsd_diag *diag);
void nsd_sweep_def_free(nsd_sweep_def *def);
/* The Latin-hypercube strata (called by nsd_sweep_parse). */
void nsd_sweep_design_init(nsd_sweep_def *def);
/* Check the values of every axis against the config before any run:
 * every value against its key's declared range (a number of [run] or of
 * a plugin), and up to 1000 of them per axis (all, or the ends and evenly
 * spread ones) by deriving and creating a scenario. A SIGINT/SIGTERM
 * stops it (an error says how far it got). Returns errors. */
size_t nsd_sweep_check_values(const nsd_sweep_def *def, const nsd_scenario *base, nsd_diag *diag);

/* The run's value of axis a: a number into *num, or a text (NULL: a
 * number). The value written to the config is *written (per applied). */
const char *nsd_sweep_value(const nsd_sweep_def *def, uint64_t run, size_t a, double *num);
/* The parameter overrides of run `run` (nsd_scenario_override), each
 * placed at its axis's key for messages. Free with nsd_overrides_free. */
void nsd_sweep_overrides(const nsd_sweep_def *def, uint64_t run, nsd_overrides *over);
/* Value i of a grid axis (the same as any run's at that index). */
const char *nsd_sweep_axis_value(const nsd_sweep_axis *ax, size_t i, double *num);

/* Rows: allocated for a def, reset, packed for MPI. */
nsd_sweep_row *nsd_sweep_row_new(const nsd_sweep_def *def);
void nsd_sweep_row_free(nsd_sweep_row *row);
size_t nsd_sweep_row_packed_size(const nsd_sweep_def *def);
void nsd_sweep_row_pack(const nsd_sweep_def *def, const nsd_sweep_row *row, unsigned char *buf);
void nsd_sweep_row_unpack(const nsd_sweep_def *def, const unsigned char *buf, nsd_sweep_row *row);

/* Does the row pass def's keep filter? */
int nsd_sweep_filter_holds(const nsd_sweep_filter *f, const nsd_sweep_row *row);

/* Run `run` from base into row (summaries, status, message, hash). keep
 * dir: where kept outputs go (NULL: none). Thread-safe for distinct rows
 * when def->derive_locked is honoured by `lock` (may be NULL). */
typedef struct nsd_sweep_worker_ctx {
    const nsd_sweep_def *def;
    const nsd_scenario *base;
    const char *keep_dir;
    void (*lock)(int on); /* derive lock, or NULL */
    /* NULL, or the created scenario whose model every run shares (only
     * its data, its plugin instances, are the run's own): the axes set
     * plugin parameters alone (nsd_sweep_shared_model) */
    const nsd_scenario *shared;
} nsd_sweep_worker_ctx;
/* The scenario of base's config whose model the runs of def may share
 * (nsd_scenario_create_on), created into *out, when every axis sets a
 * parameter of the system, contact, friction or integrator or an
 * [initial] state (not a plugin id, not [run], which change the model
 * itself); NULL when
 * they do not, or it could not be created (the runs then make their
 * own). Destroy and free it after the runs. */
nsd_scenario *nsd_sweep_shared_model(const nsd_sweep_def *def, const nsd_scenario *base);
void nsd_sweep_run_one(const nsd_sweep_worker_ctx *ctx, uint64_t run, nsd_sweep_row *row);
/* A worker's (a thread's, a process's) own scenario on the shared model,
 * kept from run to run: a run changes its parameters
 * (nsd_scenario_set_params), its plugins' instances reset, or created
 * anew only where a plugin's values changed (issue 25). Zero it before
 * the first run; free it after the last. */
typedef struct nsd_sweep_slot {
    nsd_scenario s;
    int ready; /* s holds a created scenario */
} nsd_sweep_slot;
/* nsd_sweep_run_one in the worker's slot (NULL, or no shared model: a
 * scenario of the run's own, as nsd_sweep_run_one). The same row. */
void nsd_sweep_run_in(const nsd_sweep_worker_ctx *ctx, nsd_sweep_slot *slot, uint64_t run,
                      nsd_sweep_row *row);
void nsd_sweep_slot_free(nsd_sweep_slot *slot);
/* A plugin with mutable global state gives a run a different result in a
 * worker (a process, or a thread: `worker`) that ran others before it, so
 * the rows depend on which worker ran what (-j N). The worker's first
 * finished run `first` is run once more: a difference is a warning on
 * stderr naming the plugins (once per worker). */
void nsd_sweep_probe_global_state(const nsd_sweep_worker_ctx *ctx, uint64_t run,
                                  const nsd_sweep_row *first, const char *worker);
/* The row of a run that gave no result (its process died, its thread was
 * stuck): its axes, no summaries ("failed" for a stop summary), status
 * failed, `wall` [s]; the caller writes the message. */
void nsd_sweep_failed_row(const nsd_sweep_def *def, uint64_t run, double wall, nsd_sweep_row *row);
/* The lock threads of one process derive runs under when
 * def->derive_locked (on 1: take it, 0: release it; sweep_exec.c). */
void nsd_sweep_derive_lock(int on);
/* The axis values of `run` into row. */
void nsd_sweep_fill_axes(const nsd_sweep_def *def, uint64_t run, nsd_sweep_row *row);

/* Summaries of a finished run of s into row (sweep_summary.c). Returns 0,
 * or -1 with row->message set (a summary that cannot be computed). */
int nsd_sweep_summarize(const nsd_sweep_def *def, const nsd_scenario *s, nsd_sweep_row *row);
/* The channels a run of the study samples (config.h sample_channels), as
 * n_channels flags of model m to free: t, the states and every channel a
 * summary reads (a summary of t, the states and events, or the system's
 * own values, reads no other). NULL: every channel (every != 0, e.g. keep
 * = "all", whose kept outputs are the run's own samples). A summary never
 * reads a channel that was not sampled: nsd_sweep_summarize refuses it. */
unsigned char *nsd_sweep_sampled_channels(const nsd_sweep_def *def, const nsd_model *m, int every);

/* The system's summary values (ABI 2.1), or NULL. */
const nsdyn_system_summaries *nsd_sweep_system_summaries(const nsdyn_system *sys);
/* A column name: [A-Za-z_][A-Za-z0-9_]*, not a reserved one. */
int nsd_sweep_valid_column(const char *s); /* sweep_summary.c */
/* The [[sweep.summary]] and [[sweep.graph]] tables, read by nsd_sweep_parse
 * (sweep_summary.c, sweep_graphs.c). */
size_t nsd_sweep_parse_summaries(nsd_sweep_def *def, const nsd_toml_node *t,
                                 const nsd_scenario *base, nsd_diag *diag);
size_t nsd_sweep_parse_graphs(nsd_sweep_def *def, const nsd_toml_node *list, nsd_diag *diag);

/* The study's resolved config, once per definition: def->config_resolved,
 * the canonical text of the base config as resolved (plugins with their
 * versions, every parameter with defaults, [run], [initial]) with the keys
 * the axes sweep left out, and def->config_hash, its SHA-256 (every row's
 * config_hash). A run is this hash and its axis values; a run at the
 * config's own value of a key has that key whether or not an axis sweeps
 * it (a grown study re-keys the rows it keeps: sweep_db.c). */
void nsd_sweep_study_config(nsd_sweep_def *def);
/* A canonical text of a TOML node tree (for hashes). */
void nsd_sweep_node_text(FILE *out, const nsd_toml_node *node);

/* Axis a becomes the list x[0..n) (sorted, numbers): the grid, the run
 * count and the definition hash follow (an adaptive search's step). */
void nsd_sweep_set_values(nsd_sweep_def *def, size_t a, const double *x, size_t n);
/* Does the adaptive target hold for these runs' counts? */
int nsd_sweep_target_holds(const nsd_sweep_adaptive *ad, size_t n, size_t hits, double sum);

/* ---- growing a study (sweep_grow.c) ---- */
typedef struct nsd_sweep_grow nsd_sweep_grow;
/* The placing of an earlier definition's rows: its axes' keys
 * ("section.param") and their per ("section.key^p", "^0" for none). */
nsd_sweep_grow *nsd_sweep_grow_new(const nsd_sweep_def *def, size_t n_old,
                                   const char *const *old_keys, const char *const *old_per);
/* An earlier row's axis values (old_num, old_text by old axis) placed in
 * def: row->run and row's axis values set, 0; or -1 when def does not
 * contain the row. */
int nsd_sweep_grow_place(const nsd_sweep_grow *g, const double *old_num,
                         const char (*old_text)[NSD_SWEEP_TEXT], nsd_sweep_row *row);
void nsd_sweep_grow_free(nsd_sweep_grow *g);

/* ---- the database (sweep_db.c) ---- */
typedef struct nsd_sweep_db nsd_sweep_db;
/* Open or create; an existing database of another definition is an error
 * (message in err). *done: a bitmap of n_runs bits of finished runs (caller
 * frees), *n_done their count. */
nsd_sweep_db *nsd_sweep_db_open(const char *path, const nsd_sweep_def *def, const char *config,
                                uint8_t **done, size_t *n_done, char *err, size_t err_len);
/* The plugins that write the rows (plugin_record.h nsd_plugin_fingerprint)
 * against those the database recorded: recorded when new; a different
 * file or hash is an error (message in err) unless accept (then a warning,
 * the new list recorded and the old kept as plugins_before). 0 or -1. */
int nsd_sweep_db_check_plugins(nsd_sweep_db *db, const char *fingerprint, int accept, char *err,
                               size_t err_len);
int nsd_sweep_db_begin(nsd_sweep_db *db, char *err, size_t err_len);
int nsd_sweep_db_put(nsd_sweep_db *db, const nsd_sweep_row *row, char *err, size_t err_len);
int nsd_sweep_db_commit(nsd_sweep_db *db, char *err, size_t err_len);
/* The runs table into a CSV file. */
int nsd_sweep_db_csv(nsd_sweep_db *db, const char *path, char *err, size_t err_len);
/* For aggregates: every finished run's axis values and summaries, in run
 * order, through a callback. */
typedef void (*nsd_sweep_row_fn)(void *ctx, const nsd_sweep_row *row);
int nsd_sweep_db_scan(nsd_sweep_db *db, nsd_sweep_row_fn fn, void *ctx, char *err, size_t err_len);
void nsd_sweep_db_close(nsd_sweep_db *db);

/* ---- execution ---- */
typedef struct nsd_sweep_opts {
    int threads;
    const char *db_path;
    const char *keep_dir;
    const char *config;
    int quiet;
    int in_process; /* --in-process: threads, no isolation (sweep_exec.c) */
} nsd_sweep_opts;

/* Counts of a sweep's runs: done now, failed by status, skipped. */
typedef struct nsd_sweep_tally {
    size_t done, skipped, by_status[4];
    size_t warned;         /* ok runs with a warning in their message (an open projection) */
    double wall, sim_wall; /* [s] summed over the runs: all their cost, the simulations' */
    double db_wall;        /* [s] the writer in the database */
    double elapsed;        /* [s] of the sweep */
    /* reasons of failures: the first few distinct ones with counts */
    char reason[8][160];
    size_t reason_n[8];
    size_t n_reasons;
    /* --in-process: worker threads stuck in a plugin callback after a
     * signal, their runs failed, the threads left running (the process
     * must then end with _exit: they still use the study) */
    size_t abandoned;
} nsd_sweep_tally;

void nsd_sweep_tally_add(nsd_sweep_tally *t, const nsd_sweep_row *row);
void nsd_sweep_tally_print(FILE *out, const nsd_sweep_tally *t);

/* The progress line: on a terminal rewritten in place, otherwise a plain
 * line every few seconds. */
typedef struct nsd_sweep_progress {
    double t0, last;
    int tty, quiet;
    size_t total;
} nsd_sweep_progress;
void nsd_sweep_progress_start(nsd_sweep_progress *p, size_t total, int quiet);
void nsd_sweep_progress_show(nsd_sweep_progress *p, const nsd_sweep_tally *t, int final);

/* Run every run not yet in db with opts->threads threads; rows are
 * written by the calling thread. Returns 0, or -1 after a database error
 * (printed); *interrupted when a signal stopped it. */
int nsd_sweep_exec_threads(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                           const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally);

/* The same in a pool of opts->threads worker processes (sweep_procs.c):
 * a run whose process dies or outlives run_timeout is a failed row whose
 * message starts "crashed:", and the sweep goes on. */
int nsd_sweep_exec_procs(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                         const uint8_t *done, const nsd_sweep_opts *opts, nsd_sweep_tally *tally);

/* Aggregates and graphs of the def's [[sweep.graph]]s from the database
 * into dir (sweep_graphs.c). Returns 0 or -1 (printed). */
/* A bifurcation diagram (every point of a maxima() summary against an
 * axis) or a map over two axes coloured by a summary (sweep_maps.c). */
int nsd_sweep_scatter(const nsd_sweep_def *def, const nsd_scenario *base, const nsd_sweep_graph *g,
                      nsd_sweep_db *db, const char *dir, nsd_plot_format format, int quiet);
/* base: the study's config and model (the units of the axes and summaries,
 * the title). */
int nsd_sweep_graphs(const nsd_sweep_def *def, const nsd_scenario *base, nsd_sweep_db *db,
                     const char *dir, nsd_plot_format format, int quiet);
/* The unit of an axis's parameter or initial state ("1" when unknown), and
 * of a summary (its channel's; "s" for times, "1" for counts), from base. */
const char *nsd_sweep_axis_unit(const nsd_scenario *base, const nsd_sweep_axis *ax);
const char *nsd_sweep_summary_unit(const nsd_scenario *base, const nsd_sweep_summary *sum);

/* The adaptive search (sweep_adaptive.c): grows the study in db_path
 * value by value; def ends as the last definition. The answer: the target
 * holds at *hi and not at *lo, hi - lo <= tolerance. 0, or -1 (printed). */
int nsd_sweep_adaptive_run(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                           const nsd_sweep_opts *opts, nsd_sweep_tally *tally, double *lo,
                           double *hi);
/* One step of an adaptive search: the runs of def that are neither in the
 * database nor skipped (skip may be NULL) run, then every row of the
 * database goes to on_row. 0, or -1 with err set. */
typedef struct nsd_sweep_visit {
    int (*skip)(void *ctx, const nsd_sweep_def *def, uint64_t run);
    void (*on_row)(void *ctx, const nsd_sweep_row *row);
    void *ctx;
} nsd_sweep_visit;
int nsd_sweep_adaptive_exec(const nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                            const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                            const nsd_sweep_visit *visit, char *err, size_t len);
/* The two-axis map (sweep_adaptive_map.c): on the lattice of cells of
 * size adaptive.cell over adaptive.axis x adaptive.axis2, the boundary of
 * the target followed from the coarse grid's crossings (sweep_map.h); the
 * mixed lattice cells go to csv_path (centres and sizes). def ends as the
 * grid of every value evaluated (only the points asked for ran). *runs, *uniform: the runs made and those of the
 * uniform grid at the finest resolution. 0, or -1 (printed). */
int nsd_sweep_adaptive_map(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                           const nsd_sweep_opts *opts, nsd_sweep_tally *tally, const char *csv_path,
                           size_t *n_mixed, size_t *runs, size_t *uniform);

#endif
