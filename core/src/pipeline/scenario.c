/* The scenario pipeline: open, create, run, write, destroy (scenario.h). */
#define _GNU_SOURCE
#include "scenario.h"

#include "run_audit.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "figures.h"
#include "interrupt.h"
#include "output.h"
#include "output_hdf5.h"

size_t nsd_scenario_open(nsd_scenario *s, const char *path, const char *const *sets, size_t n_sets,
                         nsd_diag *diag) {
    memset(s, 0, sizeof *s);
    return nsd_app_load(&s->app, path, sets, n_sets, diag);
}

static size_t derive(nsd_scenario *s, const nsd_scenario *base, const nsd_toml_node *table,
                     const nsd_overrides *over, nsd_diag *diag) {
    memset(s, 0, sizeof *s);
    s->base = base;               /* its own log service, set at create (not base's log) */
    s->log.echo = base->log.echo; /* a command's printer, when it set one */
    s->log.echo_ctx = base->log.echo_ctx;
    s->log.progress = base->log.progress;
    /* base may be derived itself (a continuation point of a variant): the
     * plugins are the opened scenario's at the root */
    const nsd_scenario *root = base;
    while (root->base) root = root->base;
    nsd_config_derive(&s->app.cfg, &base->app.cfg, table, over);
    size_t errors = nsd_config_resolve(&s->app.cfg, &root->app.reg, diag);
    if (!errors) errors = nsd_compose_check(&s->app.cfg, &root->app.reg, diag);
    return errors;
}

size_t nsd_scenario_derive(nsd_scenario *s, const nsd_scenario *base, const nsd_toml_node *table,
                           nsd_diag *diag) {
    return derive(s, base, table, NULL, diag);
}

size_t nsd_scenario_override(nsd_scenario *s, const nsd_scenario *base, const nsd_overrides *over,
                             nsd_diag *diag) {
    return derive(s, base, NULL, over, diag);
}

/* The config's warnings (a parameter set by a former name) into the log,
 * before the mark every run rewinds to, so each run's log keeps them. */
void nsd_scenario_config_notes(nsd_scenario *s) {
    const nsd_section *sec[] = {&s->app.cfg.system, &s->app.cfg.contact, &s->app.cfg.friction,
                                &s->app.cfg.integrator};
    for (size_t k = 0; k < sizeof sec / sizeof *sec; ++k)
        for (size_t i = 0; i < sec[k]->params.notes.n; ++i)
            nsd_runlog_add(&s->log, NSDYN_LOG_WARNING, sec[k]->params.notes.lines[i]);
}

size_t nsd_scenario_create(nsd_scenario *s, nsd_diag *diag) {
    if (!s->app.host.log) s->app.host = nsd_runlog_host(&s->log);
    s->start_mark = nsd_runlog_mark_now(&s->log);
    nsd_scenario_config_notes(s);
    nsd_runlog_mark noted = nsd_runlog_mark_now(&s->log);
    size_t errors = nsd_model_create(&s->model, &s->app.cfg, diag);
    if (s->model.regime && !errors) { /* the run's own plugin instances */
        char err[600] = "";
        s->data = nsd_data_create(&s->model, &s->app.host, err, sizeof err);
        if (!s->data) nsd_diag_add(diag, "%s", err), errors++;
    }
    s->created_mark = nsd_runlog_mark_now(&s->log);
    s->create_logged = !nsd_runlog_same_mark(noted, s->created_mark);
    s->created = 1; /* a model that failed half-way is destroyed too */
    s->start_checked = !errors;
    if (!errors && !s->no_graphs) errors = nsd_figures_check(&s->app.cfg, &s->model, diag);
    return errors;
}

size_t nsd_scenario_create_on(nsd_scenario *s, const nsd_scenario *shared, nsd_diag *diag) {
    const nsd_config *c = &s->app.cfg;
    const nsdyn_value *p[NSD_PART_COUNT] = {c->system.params.values,
                                            c->contact.plugin ? c->contact.params.values : NULL,
                                            c->friction.plugin ? c->friction.params.values : NULL};
    if (!shared->data) return nsd_scenario_create(s, diag);
    s->shared_from = shared; /* set_params comes back to it */
    if (!s->app.host.log) s->app.host = nsd_runlog_host(&s->log);
    s->model = shared->model; /* every array shared's, read-only: never freed here */
    nsd_runlog_mark before = nsd_runlog_mark_now(&s->log);
    char err[600];
    s->data = nsd_data_create_with(&s->model, &s->app.host, p, err, sizeof err);
    if (!s->data) { /* another shape, or a refusal: a model of its own says why at its key */
        memset(&s->model, 0, sizeof s->model);
        nsd_runlog_rewind(&s->log, before); /* its plugins say it again */
        return nsd_scenario_create(s, diag);
    }
    s->shares_model = 1;
    s->start_mark = before;
    s->create_logged = !nsd_runlog_same_mark(before, nsd_runlog_mark_now(&s->log));
    nsd_scenario_config_notes(s);
    /* [initial] over the start: the model's own entries give the values it
     * has, an axis's its own (an initial state is the run's, not the model's) */
    size_t errors = nsd_model_read_initial(&s->model, c, s->data->y0, NULL, diag);
    if (!errors) errors = nsd_model_check_start(&s->model, s->data, c, diag);
    s->start_checked = !errors;
    s->created_mark = nsd_runlog_mark_now(&s->log);
    if (!errors && !s->no_graphs) errors = nsd_figures_check(c, &s->model, diag);
    return errors;
}

size_t nsd_scenario_load(nsd_scenario *s, const char *path, const char *const *sets, size_t n_sets,
                         nsd_diag *diag) {
    int no_graphs = s->no_graphs; /* open starts from zero */
    size_t errors = nsd_scenario_open(s, path, sets, n_sets, diag);
    s->no_graphs = no_graphs;
    return errors ? errors : nsd_scenario_create(s, diag);
}

/* Before a run: the previous result freed, and the instances as create
 * left them: a system's discrete mode (the walker's stance foot, its step
 * count) is part of the initial state, and a second run must not start
 * where the first one ended; nor must the contact modes of event-driven
 * contact (a ball at rest at the end of one run would start the next one
 * in sustained contact, in the air). */
static void fresh_run(nsd_scenario *s) {
    nsd_run_result_free(&s->res);
    memset(&s->res, 0, sizeof s->res);
    nsd_data_reset(&s->model, s->data);
    s->data->progress = s->log.progress; /* the command's progress line, if any */
    s->data->progress_ctx = s->log.echo_ctx;
    nsd_runlog_rewind(&s->log, s->created_mark); /* the previous run's messages go */
}

size_t nsd_scenario_run(nsd_scenario *s, const char *label, nsd_diag *diag) {
    fresh_run(s);
    size_t errors =
        nsd_run_simulation(&s->model, s->data, &s->app.cfg, &s->app.host, label, &s->res, diag);
    if (!errors)
        nsd_scenario_ended(s);
    else
        nsd_runlog_copy(&s->res.log, &s->log);
    return errors;
}

void nsd_scenario_ended(nsd_scenario *s) {
    nsd_run_audit_log(&s->log, &s->res);
    nsd_runlog_copy(&s->res.log, &s->log);
}

size_t nsd_scenario_begin(nsd_scenario *s, nsd_diag *diag, nsd_run **run) {
    fresh_run(s);
    return nsd_run_begin(&s->model, s->data, &s->app.cfg, &s->app.host, NULL, &s->res, diag, run);
}

/* A signal received while the outputs of a run that did not fail are
 * written: the record (rec) says the outputs are incomplete. Returns 1
 * the first time. */
static int abandon_if_interrupted(nsd_run_result *rec, const nsd_run_result *res) {
    if (rec->outcome == NSD_RUN_FAILED || !nsd_interrupt_signal()) return 0;
    rec->outcome = NSD_RUN_FAILED;
    snprintf(rec->message, sizeof rec->message,
             "interrupted by signal %d while the outputs were written (the simulation had %s at "
             "t = %.9g s%s%.1500s); graphs left out",
             nsd_interrupt_signal(), res->outcome == NSD_RUN_STOPPED ? "stopped" : "ended",
             res->t_reached, res->message[0] ? ": " : "", res->message);
    return 1;
}

/* A graph could not be written (a full disk: err names the file): the
 * data and the record are kept, the record says the outputs are
 * incomplete. Returns 1. */
static int graphs_incomplete(nsd_run_result *rec, const nsd_run_result *res, const char *err) {
    char was[sizeof rec->message];
    snprintf(was, sizeof was, "%s", rec->message);
    snprintf(
        rec->message, sizeof rec->message,
        "the graphs could not be written (%.600s); the simulation had %s at t = %.9g s%s%.1000s",
        err,
        res->outcome == NSD_RUN_FAILED    ? "failed"
        : res->outcome == NSD_RUN_STOPPED ? "stopped"
                                          : "ended",
        res->t_reached, was[0] ? ": " : "", was);
    rec->outcome = NSD_RUN_FAILED;
    return 1;
}

/* timeseries.csv (or .INCOMPLETE.csv) and, event-driven, events.csv. */
static int write_data(nsd_scenario *s, const char *dir, int incomplete, char ***written,
                      size_t *n_written, char *err, size_t err_len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir,
             incomplete ? "timeseries.INCOMPLETE.csv" : "timeseries.csv");
    if (nsd_write_csv(path, s->model.channels, &s->res.series, err, err_len) != 0 ||
        nsd_paths_push(written, n_written, path, err, err_len) != 0)
        return -1;
    if (!s->model.regime->logs_events) return 0;
    snprintf(path, sizeof path, "%s/events.csv", dir);
    if (nsd_write_event_log(path, &s->model, &s->res.contact_log, err, err_len) != 0) return -1;
    return nsd_paths_push(written, n_written, path, err, err_len);
}

static int write_graphs(nsd_scenario *s, const char *dir, char ***written, size_t *n_written,
                        char *err, size_t err_len) {
    const nsd_config *cfg = &s->app.cfg;
    const nsd_run_result *res = &s->res;
    nsd_figure_run one = {cfg->title, &s->model, res};
    char title[600];
    if (res->outcome == NSD_RUN_FAILED)
        snprintf(title, sizeof title, "INCOMPLETE, failed at t = %.6g s: %s", res->t_reached,
                 cfg->title);
    else
        snprintf(title, sizeof title, "%s", cfg->title);
    return nsd_figures_write(dir, cfg, title, s->data, &one, 1, written, n_written, err, err_len);
}

/* The data are whole, but the outputs are not: name them so. */
static int rename_data_incomplete(const char *dir, char **entry, char *err, size_t err_len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/timeseries.INCOMPLETE.csv", dir);
    if (rename(*entry, path) != 0) {
        snprintf(err, err_len, "cannot rename %s to %s: %s", *entry, path, strerror(errno));
        return -1;
    }
    char *copy = strdup(path);
    if (!copy) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    free(*entry);
    *entry = copy;
    return 0;
}

/* The data come first, then the graphs, then the record, which says how
 * the run ended. A SIGINT/SIGTERM that arrives while the outputs of a run
 * that did not fail are written stops the writing: the graphs not yet
 * drawn are left out, the data are renamed timeseries.INCOMPLETE.csv, and
 * the record says so. */
int nsd_scenario_write_into(nsd_scenario *s, const char *dir, int graphs, const char *command_line,
                            char ***written, size_t *n_written, char *err, size_t err_len) {
    const nsd_run_result *res = &s->res;
    if (nsd_make_dirs(dir, err, err_len) != 0) return -1;
    nsd_run_result rec = *res; /* what the record reports (shares res's arrays) */
    size_t data_entry = *n_written;
    int abandoned = abandon_if_interrupted(&rec, res);
    /* Incomplete data carry it in their name, so no one takes them for a
     * finished run. */
    int data_incomplete = rec.outcome == NSD_RUN_FAILED;
    if (write_data(s, dir, data_incomplete, written, n_written, err, err_len) != 0) return -1;
    abandoned |= abandon_if_interrupted(&rec, res);
    /* After a signal the user waits: no graphs (they take a while). */
    int graphs_failed = 0;
    if (graphs && !s->no_graphs && nsd_plot_num(&s->app.cfg, "enabled") != 0 &&
        res->series.rows >= 2 && !nsd_interrupt_signal()) {
        if (write_graphs(s, dir, written, n_written, err, err_len) != 0)
            graphs_failed = graphs_incomplete(&rec, res, err);
        else
            abandoned |= abandon_if_interrupted(&rec, res);
    }
    abandoned |= graphs_failed;
    if (abandoned && !data_incomplete &&
        rename_data_incomplete(dir, &(*written)[data_entry], err, err_len) != 0)
        return -1;
    char path[PATH_MAX + 32];
    if (s->app.cfg.settings.hdf5) { /* named as the CSV is, with the record's outcome */
        snprintf(path, sizeof path, "%s/%s", dir,
                 data_incomplete || abandoned ? "timeseries.INCOMPLETE.h5" : "timeseries.h5");
        if (nsd_write_hdf5(path, &s->app.cfg, &s->model, &rec, command_line, err, err_len) != 0 ||
            nsd_paths_push(written, n_written, path, err, err_len) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/run.log", dir);
    if (nsd_runlog_write(path, &res->log, err, err_len) != 0 ||
        nsd_paths_push(written, n_written, path, err, err_len) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/run.toml", dir);
    if (nsd_write_run_record(path, &s->app.cfg, &s->model, &rec, command_line, err, err_len) != 0 ||
        nsd_paths_push(written, n_written, path, err, err_len) != 0)
        return -1;
    return graphs_failed ? -2 : abandoned;
}

int nsd_scenario_write(nsd_scenario *s, nsd_outdir *od, const char *command_line, char ***written,
                       size_t *n_written, int *abandoned) {
    char err[PATH_MAX + 1024];
    int rc =
        nsd_scenario_write_into(s, od->tmp, 1, command_line, written, n_written, err, sizeof err);
    if (rc < 0) fprintf(stderr, "error: %s\n", err);
    *abandoned = rc == 1 ? 1 : rc == -2 ? 2 : 0;
    int complete = rc == 0 && s->res.outcome != NSD_RUN_FAILED;
    return nsd_outdir_finish(od, rc >= 0 || rc == -2, complete, *written, *n_written);
}

/* Append ", N name(s)" to buf when n > 0; `plural` NULL adds an "s". */
static void append_count(char *buf, size_t len, size_t n, const char *name, const char *plural) {
    if (!n) return;
    size_t at = strlen(buf);
    if (at >= len) return;
    if (n == 1)
        snprintf(buf + at, len - at, "%s1 %s", at ? ", " : "", name);
    else if (plural)
        snprintf(buf + at, len - at, "%s%zu %s", at ? ", " : "", n, plural);
    else
        snprintf(buf + at, len - at, "%s%zu %ss", at ? ", " : "", n, name);
}

/* "19 impacts, 1 rest, 2 switches": the kinds that occurred, or "none". */
static void format_event_counts(const nsd_event_counts *c, char *buf, size_t len) {
    buf[0] = '\0';
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k)
        append_count(buf, len, c->contact[k], nsd_event_kind_name((nsd_event_kind)k), NULL);
    append_count(buf, len, c->switches, "switch", "switches");
    append_count(buf, len, c->stops, "stop", NULL);
    if (!buf[0]) snprintf(buf, len, "none");
}

void nsd_scenario_print_summary(FILE *out, const char *label, const nsd_run_result *res) {
    nsd_event_counts counts;
    nsd_run_count_events(res, &counts);
    char events[512];
    format_event_counts(&counts, events, sizeof events);
    fprintf(out,
            "%s%s%s: t = %.6g s, %llu steps, %llu rhs evaluations, %llu rejected, %.3f s wall; "
            "events: %s",
            label ? label : "", label ? " " : "",
            nsd_outcome_text(res->outcome, NSD_OUTCOME_RECORD), res->t_reached,
            (unsigned long long)res->stats.steps, (unsigned long long)res->stats.rhs_evals,
            (unsigned long long)res->stats.rejected_steps, res->wall_seconds, events);
    if (res->unlogged_roots)
        fprintf(out, "; %llu integrator root return%s changed nothing",
                (unsigned long long)res->unlogged_roots, res->unlogged_roots == 1 ? "" : "s");
    if (res->open_projections)
        fprintf(out,
                "; warning: %llu open contact%s found penetrating (deepest %.3g m) and projected "
                "out: a possible missed impact",
                (unsigned long long)res->open_projections, res->open_projections == 1 ? "" : "s",
                res->deepest_open);
    nsd_run_audit_print_summary(out, res);
    fputc('\n', out);
}

void nsd_scenario_destroy(nsd_scenario *s) {
    nsd_run_result_free(&s->res);
    if (s->data) nsd_data_destroy(&s->model, s->data);
    if (s->created && !s->shares_model) nsd_model_destroy(&s->model);
    if (s->model_cfg) nsd_config_free(s->model_cfg);
    free(s->model_cfg);
    nsd_app_free(&s->app); /* a derived scenario's registry is empty */
    nsd_runlog_free(&s->log);
    memset(s, 0, sizeof *s);
}
