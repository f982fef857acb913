/* A scenario: one config made into a runnable model, its run and its
 * outputs. Every command that simulates (run, compare, limits) and the
 * host-level tests go through it, so the pipeline exists once:
 *
 *   open    read the config with its --set overrides, index the plugin
 *           search path, open the plugins it names, resolve and check the
 *           composition (nsd_app_load); or derive: lay a variant table or
 *           parameter overrides over an opened scenario, sharing its
 *           plugins (compare, a sweep, continuation);
 *   create  instantiate the plugins and the model, with the initial checks
 *           (and the [plot] channel names unless no_graphs);
 *   run     nsd_run_simulation from the model's initial state; may be
 *           called again without opening or creating again (the previous
 *           result is freed first);
 *   write   the data, run.toml and graphs into a folder, or into an output
 *           folder that replaces DIR (or DIR.INCOMPLETE) in one rename;
 *   destroy.
 *
 * The split follows SUNDIALS (create / init / solve) and FMI 3
 * (instantiate / enter initialization / do step): what reads files and
 * opens shared objects happens once, what a run changes is set up per run.
 *
 * Threads: an opened scenario is read-only after open; scenarios derived
 * from it (one set per thread) share its registry and own everything else.
 * Derive under a lock when the table may name a plugin that neither the
 * config nor its [[variant]]s name: the registry opens such a file on
 * first use (registry.h). The host keeps no other shared state in create,
 * run and destroy; the graphs go through PLplot, which has global state:
 * draw from one thread at a time, or set no_graphs.
 * Errors follow the host convention: a count of errors with the messages
 * in diag, or 0/-1 with a message in err. */
#ifndef NSD_SCENARIO_H
#define NSD_SCENARIO_H

#include <stdio.h>

#include "app.h"
#include "model.h"
#include "outdir.h"
#include "run.h"

typedef struct nsd_scenario {
    /* app.cfg is this scenario's config. app.reg holds the plugins when
     * the scenario was opened; a derived one leaves it empty and uses
     * base's. app.host: the host services handed to the plugins. */
    nsd_app app;
    const struct nsd_scenario *base; /* derived from, or NULL */
    nsd_model model;                 /* after create: constant from then on */
    nsd_data *data;                  /* after create: what its runs write (model.h) */
    nsd_run_result res;              /* after run */
    /* Set between open and create: no graphs (the [plot] channel names
     * are not checked and nothing is drawn). For tests, sweeps and
     * analyses that draw their own. */
    int no_graphs;
    int created;      /* create was called: destroy frees the model */
    int shares_model; /* model is a copy of another scenario's (nsd_scenario_create_on) */
    /* The log of this scenario (runlog.h): its plugins' messages, handed
     * to them as app.host at create unless the caller set app.host.log
     * first (the host API keeps its own), then a run's and the host's;
     * each run starts again from create's messages and leaves a copy in
     * res.log. Derived scenarios have their own: threads never mix. */
    nsd_runlog log;
    nsd_runlog_mark start_mark, created_mark; /* before and after create's messages */
    /* nsd_scenario_set_params: the scenario whose model s shares (or
     * NULL), and the config s's own model was created from when set_params
     * has since replaced app.cfg (the model's parameters point into it). */
    const struct nsd_scenario *shared_from;
    nsd_config *model_cfg;
    int start_checked; /* created or set_params with no error at its start's checks */
    int create_logged; /* a plugin said something at its create (set_params creates all anew) */
} nsd_scenario;

/* Read, override and resolve the config at path. Returns the number of
 * errors (reported in diag); destroy the scenario in any case. */
size_t nsd_scenario_open(nsd_scenario *s, const char *path, const char *const *sets, size_t n_sets,
                         nsd_diag *diag);

/* The config of base with `table` laid over it (a [[variant]] table,
 * docs/configs.md), resolved and checked against base's plugins (those of
 * the opened scenario base derives from, when base is derived itself).
 * base must outlive s. Returns the number of errors; destroy s in any
 * case. */
size_t nsd_scenario_derive(nsd_scenario *s, const nsd_scenario *base, const nsd_toml_node *table,
                           nsd_diag *diag);

/* The config of base with parameter overrides (config/overrides.h) laid
 * over it: a sweep's run, a point of a continuation or of pcmap's `along`,
 * the host API's data. Each override is checked like the file's key it
 * stands for, with the same messages at the override's origin; base's
 * config is not changed (its overrides, when base is derived itself, stay
 * under the new ones). base must outlive s; `over` need not (s keeps a
 * copy). Returns the number of errors; destroy s in any case. */
size_t nsd_scenario_override(nsd_scenario *s, const nsd_scenario *base, const nsd_overrides *over,
                             nsd_diag *diag);

/* Instantiate the plugins (their log service: s->log, unless
 * s->app.host.log was set) and the model. Returns the number of errors. */
size_t nsd_scenario_create(nsd_scenario *s, nsd_diag *diag);

/* Create s (derived, by overrides of plugin parameters alone, from the
 * scenario `shared` was derived from, or from `shared` itself) on the
 * model of `shared` (created, outliving s): its data only, with its own
 * plugin instances made from its own parameters and its start from them
 * (nsd_data_create_with), checked like a creation (precheck, initial
 * gaps). A model is created for s alone (nsd_scenario_create) when its
 * parameters give the system another shape, or a plugin refuses them
 * (then with the message at the key). Sweep threads share one model so.
 * The caller vouches that s's config composes as shared's does: the same
 * plugins, [run], [initial] and integrator. Returns the number of errors. */
size_t nsd_scenario_create_on(nsd_scenario *s, const nsd_scenario *shared, nsd_diag *diag);

/* Change the parameters of s, created (nsd_scenario_create or _on) and
 * derived from s->base: its config becomes base's with `over` laid over
 * it (replacing the overrides of s's earlier values), checked as
 * nsd_scenario_override checks it, with the same messages at the
 * override's origin. Then on the same model, in the same data: the
 * instance of a plugin whose values changed is created anew, the others
 * kept and reset (nsd_data_set_params); [initial] laid over the start;
 * the start checked as creation checks it. A run after it equals, bit
 * for bit, a run of a scenario derived from base with `over` and created
 * anew. Values that give the system another shape, another plugin (an
 * `id`) or other [run] settings make a model for s alone (or again on
 * shared_from's, when they fit it). Returns the number of errors (in
 * diag, the text a config gives at that key); after an error in the
 * values s is as it was, ready for the next values. */
size_t nsd_scenario_set_params(nsd_scenario *s, const nsd_overrides *over, nsd_diag *diag);

/* A point of a study or an analysis at values `over` of the config of
 * `from` (opened, or derived): the first time (*ready 0) derived from it
 * and created on the model of `on` (created: `from` itself, or a scenario
 * derived from it without overrides), no graphs; after that
 * (*ready 1) the same scenario with its values changed
 * (nsd_scenario_set_params). Returns the errors; *ready says whether pt
 * holds a scenario to destroy. */
size_t nsd_scenario_point(nsd_scenario *pt, int *ready, const nsd_scenario *from,
                          const nsd_scenario *on, const nsd_overrides *over, nsd_diag *diag);

/* The config's warnings (a parameter set by a former name) into s's log. */
void nsd_scenario_config_notes(nsd_scenario *s);

/* Open and create in one call (the usual start). */
size_t nsd_scenario_load(nsd_scenario *s, const char *path, const char *const *sets, size_t n_sets,
                         nsd_diag *diag);

/* Run the model from its initial state into s->res (see res.outcome),
 * with the run's log in res.log: create's and the run's plugin messages,
 * then the host's (a failure or stop, a possible missed impact, an
 * energy or penetration warning). Nothing is printed: the progress
 * (run.progress) goes to s->log.progress when a command set one.
 * Returns 0, or the number of config errors (the run did not start).
 * `label` prefixes progress lines (NULL: none). */
size_t nsd_scenario_run(nsd_scenario *s, const char *label, nsd_diag *diag);
/* The same run begun, to be advanced a step at a time (run.h nsd_run:
 * nsd_run_step, nsd_run_end before the scenario's next run or destroy). */
size_t nsd_scenario_begin(nsd_scenario *s, nsd_diag *diag, nsd_run **run);
/* A run begun by nsd_scenario_begin has ended (nsd_run_end): the audit's
 * findings into the log, and the log into res.log, as nsd_scenario_run does. */
void nsd_scenario_ended(nsd_scenario *s);

/* The outputs of the run into dir, a fresh folder of the command's own
 * (outdir.h): data (timeseries.csv, or timeseries.INCOMPLETE.csv after a
 * failure; events.csv for event-driven runs), the graphs if `graphs` (and
 * not no_graphs, and [plot] enabled), run.log (the run's log, res.log)
 * and run.toml. The paths are appended
 * to *written (caller frees). Returns 0; 1 when a SIGINT/SIGTERM arrived
 * while the outputs of a run that had not failed were written (the record
 * says so, the data are named INCOMPLETE); -1 with err when a write
 * failed; -2 with err when a graph could not be written but the data and
 * the record were (the record says the outputs are incomplete). */
int nsd_scenario_write_into(nsd_scenario *s, const char *dir, int graphs, const char *command_line,
                            char ***written, size_t *n_written, char *err, size_t err_len);

/* write_into the opened output folder od, then put it in place: at DIR
 * when the run completed or stopped and nothing interrupted the writing,
 * else at DIR.INCOMPLETE (nsd_outdir_finish prints what went wrong).
 * Returns 1 when the outputs are in place, 0 when not; *abandoned is 1
 * when a signal cut the writing short, 2 when a graph could not be
 * written (a full disk; the data and record are in DIR.INCOMPLETE). */
int nsd_scenario_write(nsd_scenario *s, nsd_outdir *od, const char *command_line, char ***written,
                       size_t *n_written, int *abandoned);

/* One line: outcome, time reached, cost and the events. */
void nsd_scenario_print_summary(FILE *out, const char *label, const nsd_run_result *res);

/* Free everything the scenario holds; it may be opened again. */
void nsd_scenario_destroy(nsd_scenario *s);

#endif
