/* nsdyn host API: embed the engine in a C program, a Python module (the
 * nsdyn package), a MEX file or an optimiser (docs/host-api.md).
 *
 *   nsdyn_model  a config read, overridden, resolved and checked, its
 *                plugins opened. Constant after open: share one model
 *                between threads.
 *   nsdyn_data   what one run changes: parameter and initial-state
 *                overrides, the instantiated plugins, the last run's
 *                channels, events, summary and log. One per thread.
 *
 * Errors: every call returns an nsdyn_status; the message (the text the
 * command line prints, "file:line:col: ..." where there is a position) is
 * kept per object (nsdyn_data_last_error, or the error list of an open).
 * Nothing here prints or exits; only nsdyn_data_run_catching_sigint
 * touches a signal handler, for the duration of its run.
 *
 * Versioning as the plugin ABI: NSDYN_HOST_API_MAJOR changes when a
 * declaration here changes meaning; MINOR when functions are added. A
 * program checks nsdyn_host_api_version() >> 16 == NSDYN_HOST_API_MAJOR. */
#ifndef NSDYN_HOST_H
#define NSDYN_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NSDYN_HOST_API_MAJOR 1u
#define NSDYN_HOST_API_MINOR 1u

#if defined(__GNUC__)
#define NSDYN_HOST_EXPORT __attribute__((visibility("default")))
#else
#define NSDYN_HOST_EXPORT
#endif

typedef enum nsdyn_host_status {
    NSDYN_HOST_OK = 0,
    NSDYN_HOST_ERR_CONFIG = 1,      /* the config (or an override) was refused */
    NSDYN_HOST_ERR_NOT_FOUND = 2,   /* no such channel, parameter or state */
    NSDYN_HOST_ERR_ARGUMENT = 3,    /* a NULL handle, an index out of range, a bad value */
    NSDYN_HOST_ERR_RUN_FAILED = 4,  /* the run failed numerically: data incomplete */
    NSDYN_HOST_ERR_INTERRUPTED = 5, /* stopped by nsdyn_data_request_stop: data incomplete */
    NSDYN_HOST_ERR_NO_RUN = 6,      /* results asked for before a run */
    NSDYN_HOST_ERR_IO = 7,          /* writing or reading a file failed */
    NSDYN_HOST_ERR_MEMORY = 8,
    NSDYN_HOST_ENDED = 9 /* (1.1) step / run_until / run_to_event: the run has ended */
} nsdyn_host_status;

/* How the last run ended (run.toml [result] outcome). */
typedef enum nsdyn_host_outcome {
    NSDYN_HOST_RUN_COMPLETE = 0, /* reached t_end */
    NSDYN_HOST_RUN_STOPPED = 1,  /* a stop condition of the system fired */
    NSDYN_HOST_RUN_FAILED = 2,   /* failed or interrupted: the data are incomplete */
    NSDYN_HOST_RUN_GOING = 3     /* (1.1) a run advanced by steps, not at its end yet */
} nsdyn_host_outcome;

typedef struct nsdyn_model nsdyn_model;
typedef struct nsdyn_data nsdyn_data;
typedef struct nsdyn_errors nsdyn_errors;

/* (NSDYN_HOST_API_MAJOR << 16) | NSDYN_HOST_API_MINOR of the library. */
NSDYN_HOST_EXPORT uint32_t nsdyn_host_api_version(void);
/* The library's version, "MAJOR.MINOR.PATCH". */
NSDYN_HOST_EXPORT const char *nsdyn_host_version_string(void);

/* ---- the model ---- */

/* Read the config at path with `--set`-style overrides ("system.e=0.7",
 * "run.t_end=2"), index the plugin search path, open the plugins it names,
 * resolve and check it. On success *model is set and *errors NULL; on
 * failure *model is NULL and *errors the list of messages (free it). */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_model_open(const char *path, const char *const *sets,
                                                     size_t n_sets, nsdyn_model **model,
                                                     nsdyn_errors **errors);
/* The same from TOML text; `name` stands for the file in messages and is
 * the base of a relative plugin_path (NULL: "<string>", the working
 * directory). */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_model_open_string(const char *toml, const char *name,
                                                            const char *const *sets, size_t n_sets,
                                                            nsdyn_model **model,
                                                            nsdyn_errors **errors);
/* Free the model; every data made from it must be freed first. */
NSDYN_HOST_EXPORT void nsdyn_model_free(nsdyn_model *model);
NSDYN_HOST_EXPORT const char *nsdyn_model_title(const nsdyn_model *model);
NSDYN_HOST_EXPORT const char *nsdyn_model_path(const nsdyn_model *model);

NSDYN_HOST_EXPORT size_t nsdyn_errors_count(const nsdyn_errors *errors);
NSDYN_HOST_EXPORT const char *nsdyn_errors_at(const nsdyn_errors *errors, size_t i);
NSDYN_HOST_EXPORT void nsdyn_errors_free(nsdyn_errors *errors);

/* ---- the data ---- */

/* A data over model, its plugins instantiated from the model's config.
 * On failure *data is NULL and *errors the messages. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_create(const nsdyn_model *model, nsdyn_data **data,
                                                      nsdyn_errors **errors);
/* A new data with src's overrides (not its results). */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_copy(const nsdyn_data *src, nsdyn_data **data,
                                                    nsdyn_errors **errors);
NSDYN_HOST_EXPORT void nsdyn_data_free(nsdyn_data *data);
/* Drop every override and the results: the data as nsdyn_data_create
 * made it. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_reset(nsdyn_data *data);
/* The message of the last call on data that did not return NSDYN_HOST_OK
 * ("" if none). Valid until the next call on data. */
NSDYN_HOST_EXPORT const char *nsdyn_data_last_error(const nsdyn_data *data);

/* Parameters: "SECTION.KEY" of a real parameter of the system, contact or
 * friction plugin, or "run.KEY" / "integrator.KEY". Set re-resolves the
 * data's config and re-instantiates its plugins (range checks apply:
 * NSDYN_HOST_ERR_CONFIG with the message); get reads the resolved value. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_set_param(nsdyn_data *data, const char *name,
                                                         double value);
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_get_param(nsdyn_data *data, const char *name,
                                                         double *value);
/* States by their channel names (the coordinates and velocities, e.g.
 * "y", "vy"). Set changes the initial state of the next run ([initial]);
 * get reads the state at the end of the last run, or the initial state
 * before any run. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_set_state(nsdyn_data *data, const char *name,
                                                         double value);
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_get_state(nsdyn_data *data, const char *name,
                                                         double *value);

/* Run from the initial state to t_end [s] (t_end <= 0: the config's
 * run.t_end). The results replace the previous run's. Returns OK after a
 * complete or stopped run, RUN_FAILED / INTERRUPTED with the data so far
 * kept (outcome NSDYN_HOST_RUN_FAILED, data incomplete), CONFIG when the
 * run could not start. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_run(nsdyn_data *data, double t_end);
/* Ask the run in progress on data (in another thread) to stop at its
 * next step. Async-signal-safe: a SIGINT handler may call it. The run
 * ends as INTERRUPTED with "interrupted by signal 2 at t = ..." (the
 * command line's Ctrl-C message). Cleared when the next run starts. */
NSDYN_HOST_EXPORT void nsdyn_data_request_stop(nsdyn_data *data);

/* For a SIGINT handler (the Python package installs it around a run in
 * the main thread): nsdyn_host_signal_stop(sig) requests the stop of the
 * data last named by nsdyn_host_stop_on_signal (NULL: none). */
NSDYN_HOST_EXPORT void nsdyn_host_stop_on_signal(nsdyn_data *data);
NSDYN_HOST_EXPORT void nsdyn_host_signal_stop(int sig);

/* nsdyn_data_run with SIGINT stopping it: for an interpreter whose own
 * handler cannot run while the run is in C (Python). The handler
 * (nsdyn_host_signal_stop, for this data) is installed for the run only
 * and the previous one put back; the only call here that touches signal
 * dispositions. Call it from the thread that receives SIGINT. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_run_catching_sigint(nsdyn_data *data, double t_end);

/* ---- analyses ---- */

/* A periodic orbit by shooting, as `nsdyn periodic` finds it (the
 * config's [periodic] section, docs/periodic.md): Newton on the free
 * states from the initial state, multipliers from the Jacobian of the
 * return map. The arrays belong to the data (valid until its next
 * periodic, reset or free); the last run's results are gone after it. */
typedef struct nsdyn_host_periodic {
    int converged;         /* Newton converged */
    int stable;            /* every multiplier inside the unit circle */
    int iterations;        /* Newton iterations */
    double residual;       /* scaled, as [periodic] tol */
    double period;         /* [s] */
    size_t n_state;        /* state size */
    const double *state;   /* n_state: the full state on the orbit after the section */
    size_t n_free;         /* the free states of the shooting */
    const size_t *free;    /* n_free indices into state (channel = 1 + index) */
    const double *mult_re; /* n_free multipliers, by modulus descending */
    const double *mult_im;
    const double *jacobian; /* n_free x n_free row-major dP/dx of the return map */
    double mult_error;      /* the multipliers' own error estimate (h vs 2h) */
    size_t map_evals;       /* simulations of the map */
    const char *message;    /* why Newton failed ("" otherwise) */
} nsdyn_host_periodic;
/* OK when converged; RUN_FAILED (message) when not, with what Newton
 * reached in *out; CONFIG for a missing or bad [periodic] or a guess that
 * does not reach the section; INTERRUPTED after a stop request. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_periodic(nsdyn_data *data, nsdyn_host_periodic *out);

/* A parameter study: the config's [sweep] section (docs/sweep.md) over
 * the data's config, run by run in the calling thread, each row written
 * to the SQLite database at db_path as `nsdyn sweep --db db_path` writes
 * it (the same tables and rows; a database of finished runs resumes, as
 * the command's does), and every finished row in memory. db_path NULL: a
 * database in memory only. No graphs, no CSV, no kept run folders. The
 * table belongs to the data (valid until its next sweep or its free).
 * (1.1) */
typedef struct nsdyn_host_sweep {
    size_t n_runs;        /* the study's runs */
    size_t n_rows;        /* finished runs in the database: the rows below, by run */
    size_t n_done_before; /* of them, finished before this call (a resumed database) */
    size_t n_failed;      /* rows whose status is not "ok" */
    /* The runs table's columns: run, the axes, the summaries, status,
     * message, wall [s], config_hash. */
    size_t n_columns;
    const char *const *columns;
    /* Cell (r, c) at r * n_columns + c: a text (text[] not NULL) or a
     * number (num[]; NaN: NULL in the database). */
    const double *num;
    const char *const *text;
} nsdyn_host_sweep;
/* OK, also when runs failed (their rows say why); CONFIG for a missing or
 * bad [sweep] or a value the config refuses (the command's messages); IO
 * when the database cannot be opened or written (its message);
 * INTERRUPTED after a stop request (the finished rows are kept). */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_sweep(nsdyn_data *data, const char *db_path,
                                                     nsdyn_host_sweep *out);

/* The natural continuation of [periodic.continuation] (docs/periodic.md)
 * as `nsdyn periodic` makes it: the orbit from the initial state by
 * shooting (into *orbit, as nsdyn_data_periodic), then one orbit per value
 * of the parameter, from the config's own value outwards, ending where
 * Newton fails. The table is continuation.csv in memory: its rows (the
 * solved points, in the values' order), its columns but the last
 * (parameters, converged, stable, period [s], residual, mu error (h/2h),
 * max |mu|, report channels, free states, mu1 re, mu1 im, ...) with the
 * numbers at full precision (the CSV prints 9 to 12 digits), and its
 * last column, the crossings marked, as `event`. It belongs to the data
 * (valid until its next continuation or free). (1.1) */
typedef struct nsdyn_host_branch {
    size_t n_rows, n_columns;
    const char *const *columns;
    const double *values;     /* n_rows x n_columns, row-major */
    const char *const *event; /* n_rows ("" where nothing happened) */
    size_t n_converged;       /* rows whose Newton converged */
} nsdyn_host_branch;
/* OK with the branch (a branch that ends early is data: its last row says
 * why); RUN_FAILED when the first orbit does not converge (no branch);
 * CONFIG for a missing or bad [periodic], no [periodic.continuation], or
 * method = "arclength" (not followed here); INTERRUPTED after a stop
 * request, with the points so far. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_continuation(nsdyn_data *data,
                                                            nsdyn_host_periodic *orbit,
                                                            nsdyn_host_branch *out);

/* ---- results of the last run (valid until the next run, step, reset or free) ---- */

NSDYN_HOST_EXPORT size_t nsdyn_data_channel_count(const nsdyn_data *data);
/* Channel names and units (e.g. "t" "s", "y" "m"); NULL when out of range. */
NSDYN_HOST_EXPORT const char *nsdyn_data_channel_name(const nsdyn_data *data, size_t i);
NSDYN_HOST_EXPORT const char *nsdyn_data_channel_unit(const nsdyn_data *data, size_t i);
/* Every channel's name (units: 0) or unit (units: 1), separated by
 * newlines, in channel order: one call for a binding that reads them all. */
NSDYN_HOST_EXPORT const char *nsdyn_data_channel_list(nsdyn_data *data, int units);
/* Index of a channel, or -1 (last_error names the channels). */
NSDYN_HOST_EXPORT long nsdyn_data_channel_index(nsdyn_data *data, const char *name);
/* The samples, row-major: rows x channel_count doubles, channel c of row r
 * at values[r * channel_count + c]; a view into the data, no copy. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_samples(const nsdyn_data *data,
                                                       const double **values, size_t *rows);
/* One channel into out[0 .. rows): a contiguous column. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_channel_copy(nsdyn_data *data, size_t channel,
                                                            double *out, size_t n);

/* The run's summary. */
typedef struct nsdyn_host_summary {
    nsdyn_host_outcome outcome;
    int incomplete;      /* 1: the data stop short (failed or interrupted) */
    double t_reached;    /* [s] */
    double wall_seconds; /* [s] */
    uint64_t steps, rhs_evals, rejected_steps;
    size_t n_events;     /* contact events + switches + stops */
    const char *message; /* why the run failed or stopped ("" otherwise) */
} nsdyn_host_summary;
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_summary(const nsdyn_data *data,
                                                       nsdyn_host_summary *out);
/* The command line's one-line summary of the run (as `nsdyn run` prints). */
NSDYN_HOST_EXPORT const char *nsdyn_data_summary_line(nsdyn_data *data);
/* Messages the plugins logged while the data's instances were created
 * (the last create attempt) and during the last run, one per line
 * ("warning: ..."). */
NSDYN_HOST_EXPORT const char *nsdyn_data_log(const nsdyn_data *data);

/* Events: contact events of an event-driven run (events.csv), then the
 * system's mode switches and stops. */
typedef struct nsdyn_host_event {
    double t;            /* [s] */
    const char *kind;    /* impact, rest, close, open, stick, slip; switch, stop */
    const char *contact; /* the contact's name, "" for switches and stops */
    double u_before[3];  /* local velocity (normal, t1, t2) before [m/s] (contact events) */
    double u_after[3];   /* [m/s] */
    double impulse[3];   /* local impulse [N s] */
} nsdyn_host_event;
NSDYN_HOST_EXPORT size_t nsdyn_data_event_count(const nsdyn_data *data);
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_event(const nsdyn_data *data, size_t i,
                                                     nsdyn_host_event *out);

/* ---- a run a step at a time (1.1) ----
 *
 * One run from the initial state, advanced in parts: the same run as
 * nsdyn_data_run (the integrator's steps, samples, events and counters
 * are identical bit for bit: run_until(1) then run_until(2) is run(2)),
 * with the state read in between. The run's end is the config's
 * run.t_end (set it first: the integrator's last step, and the default
 * output grid, depend on it). While the run goes on, the results calls
 * read what it has so far (the summary's outcome
 * NSDYN_HOST_RUN_GOING) and get_state reads the state at its clock.
 * Setting a parameter or a state, reset, nsdyn_data_run and
 * nsdyn_data_periodic, sweep and continuation end it (abandoned before its
 * end, its results are dropped: NO_RUN until the next run).
 * Each call stops at nsdyn_data_request_stop (INTERRUPTED, the run ended
 * as a failure, data kept); RUN_FAILED when the run failed; CONFIG when it
 * could not start; ENDED when the run had already ended (nothing done:
 * start a new one with nsdyn_data_start). */

/* Start a new run (the initial sample taken, no step), ending any run in
 * progress. step / run_until / run_to_event start one themselves when
 * none was started since the last whole run or change. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_start(nsdyn_data *data);
/* One integrator step, with its samples and events. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_step(nsdyn_data *data);
/* Steps until the clock reaches t [s] (the last step ends at or past t;
 * the samples of the output grid up to there are taken) or the run ends
 * (a stop condition). t past run.t_end: ARGUMENT. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_run_until(nsdyn_data *data, double t);
/* Steps until the next event (as nsdyn_data_event describes it: contact
 * events, switches, the stop), which goes into *out; events of one step
 * come one per call, in time order (at one instant contact events before
 * switches). Events before the clock that step and run_until passed are
 * not returned (the results list them); one where their last step ended
 * is. ENDED when the run reaches its end with no further event. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_run_to_event(nsdyn_data *data,
                                                            nsdyn_host_event *out);
/* 1 while a run advanced by steps goes on, else 0. */
NSDYN_HOST_EXPORT int nsdyn_data_running(const nsdyn_data *data);
/* The data's clock [s]: the last accepted time of the run in progress,
 * else the time the last run reached, else run.t_start. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_time(const nsdyn_data *data, double *t);
/* on: the calls that simulate (step, run_until, run_to_event, periodic,
 * continuation, sweep) catch SIGINT as nsdyn_data_run_catching_sigint
 * does, for their duration (call from the thread that receives it). */
NSDYN_HOST_EXPORT void nsdyn_data_catch_sigint(nsdyn_data *data, int on);

/* The resolved config and provenance as the run.toml text `nsdyn run`
 * writes (the caller frees *text with nsdyn_host_free). */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_record(nsdyn_data *data, char **text);
/* The outputs of the last run into folder dir (created): timeseries.csv
 * (timeseries.INCOMPLETE.csv after a failure), events.csv, run.toml;
 * no graphs. */
NSDYN_HOST_EXPORT nsdyn_host_status nsdyn_data_write(nsdyn_data *data, const char *dir);
NSDYN_HOST_EXPORT void nsdyn_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
