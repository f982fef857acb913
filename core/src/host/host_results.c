/* The host API's runs and their results in memory (nsdyn/host.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_internal.h"
#include "interrupt.h"
#include "output.h"

nsdyn_host_status nsdyn_data_run(nsdyn_data *d, double t_end) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_end_run(d); /* a run in progress by steps ends */
    if (t_end > 0 && t_end != d->s->app.cfg.settings.t_end) {
        st = nsdyn_data_set_param(d, "run.t_end", t_end);
        if (st != NSDYN_HOST_OK) return st;
    }
    d->err[0] = '\0';
    d->log_len = d->create_log_len; /* create's messages stay, the last run's go */
    if (d->log) d->log[d->log_len] = '\0';
    nsd_diag diag = {0};
    atomic_store(&d->stop, 0);
    nsd_interrupt_watch(&d->stop);
    size_t errors = nsd_scenario_run(d->s, NULL, &diag);
    nsd_interrupt_watch(NULL);
    d->ran = 1;
    if (errors) return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    nsd_diag_free(&diag);
    const nsd_run_result *res = &d->s->res;
    if (res->outcome != NSD_RUN_FAILED) return NSDYN_HOST_OK;
    snprintf(d->err, sizeof d->err, "%s", res->message);
    return atomic_load(&d->stop) ? NSDYN_HOST_ERR_INTERRUPTED : NSDYN_HOST_ERR_RUN_FAILED;
}

void nsdyn_data_request_stop(nsdyn_data *d) {
    /* lock-free on every platform nsdyn builds on: safe in a handler */
    if (d) atomic_store(&d->stop, SIGINT);
}

nsdyn_host_status nsdyn_data_run_catching_sigint(nsdyn_data *d, double t_end) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = nsdyn_host_signal_stop;
    sigemptyset(&sa.sa_mask);
    nsdyn_host_stop_on_signal(d);
    int installed = sigaction(SIGINT, &sa, &old) == 0;
    nsdyn_host_status st = nsdyn_data_run(d, t_end);
    if (installed) sigaction(SIGINT, &old, NULL);
    nsdyn_host_stop_on_signal(NULL);
    return st;
}

/* The outputs and the record describe a finished run. */
static nsdyn_host_status going(nsdyn_data *d) {
    return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT,
                         "the run is still going (advanced by steps, not at its end): run it to "
                         "its end (nsdyn_data_run_until(run.t_end)) before writing its outputs");
}

/* The data has a run to report; else the error. */
static int has_run(const nsdyn_data *d) { return d && d->s && d->ran; }

size_t nsdyn_data_channel_count(const nsdyn_data *d) {
    return d && d->s ? d->s->model.n_channels : 0;
}

const char *nsdyn_data_channel_name(const nsdyn_data *d, size_t i) {
    return d && d->s && i < d->s->model.n_channels ? d->s->model.channels[i].name : NULL;
}

const char *nsdyn_data_channel_unit(const nsdyn_data *d, size_t i) {
    return d && d->s && i < d->s->model.n_channels ? d->s->model.channels[i].unit : NULL;
}

const char *nsdyn_data_channel_list(nsdyn_data *d, int units) {
    if (!d || !d->s) return "";
    units = units != 0;
    if (d->lists[units]) return d->lists[units];
    size_t len = 0;
    FILE *f = open_memstream(&d->lists[units], &len);
    if (!f) return "";
    for (size_t i = 0; i < d->s->model.n_channels; ++i)
        fprintf(f, "%s%s", i ? "\n" : "",
                units ? d->s->model.channels[i].unit : d->s->model.channels[i].name);
    fclose(f);
    return d->lists[units] ? d->lists[units] : "";
}

long nsdyn_data_channel_index(nsdyn_data *d, const char *name) {
    if (!d || !d->s || !name) return -1;
    int c = nsd_model_channel(&d->s->model, name);
    if (c >= 0) return c;
    const nsd_model *m = &d->s->model;
    const char **names = malloc((m->n_channels + 1) * sizeof *names);
    for (size_t k = 0; names && k < m->n_channels; ++k) names[k] = m->channels[k].name;
    const char *near = names ? nsd_did_you_mean(name, names, m->n_channels) : NULL;
    nsd_host_fail(d, NSDYN_HOST_ERR_NOT_FOUND, "unknown channel '%s'%s%s%s", name,
                  near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    free(names);
    return -1;
}

nsdyn_host_status nsdyn_data_samples(const nsdyn_data *d, const double **values, size_t *rows) {
    if (!values || !rows) return NSDYN_HOST_ERR_ARGUMENT;
    if (!has_run(d)) return NSDYN_HOST_ERR_NO_RUN;
    *values = d->s->res.series.data;
    *rows = d->s->res.series.rows;
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_channel_copy(nsdyn_data *d, size_t channel, double *out, size_t n) {
    if (!has_run(d)) return nsd_host_fail(d, NSDYN_HOST_ERR_NO_RUN, "no run yet");
    const nsd_series *s = &d->s->res.series;
    if (channel >= s->n_channels || n < s->rows || (!out && s->rows))
        return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT,
                             "channel %zu of %zu into %zu values (the run has %zu samples)",
                             channel, s->n_channels, n, s->rows);
    for (size_t r = 0; r < s->rows; ++r) out[r] = s->data[r * s->n_channels + channel];
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_summary(const nsdyn_data *d, nsdyn_host_summary *out) {
    if (!out) return NSDYN_HOST_ERR_ARGUMENT;
    if (!has_run(d)) return NSDYN_HOST_ERR_NO_RUN;
    if (d->run) nsd_run_peek(d->run); /* a run in progress: the counters so far */
    const nsd_run_result *r = &d->s->res;
    nsd_event_counts counts;
    nsd_run_count_events(r, &counts);
    *out = (nsdyn_host_summary){
        .outcome = d->run ? NSDYN_HOST_RUN_GOING : (nsdyn_host_outcome)r->outcome,
        .incomplete = r->outcome == NSD_RUN_FAILED,
        .t_reached = r->t_reached,
        .wall_seconds = r->wall_seconds,
        .steps = r->stats.steps,
        .rhs_evals = r->stats.rhs_evals,
        .rejected_steps = r->stats.rejected_steps,
        .n_events = counts.total,
        .message = r->message,
    };
    return NSDYN_HOST_OK;
}

const char *nsdyn_data_summary_line(nsdyn_data *d) {
    if (!has_run(d)) return "";
    free(d->line);
    d->line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&d->line, &len);
    if (!f) return "";
    nsd_scenario_print_summary(f, NULL, &d->s->res);
    fclose(f);
    if (len && d->line[len - 1] == '\n') d->line[len - 1] = '\0';
    return d->line ? d->line : "";
}

const char *nsdyn_data_log(const nsdyn_data *d) { return d && d->log ? d->log : ""; }

size_t nsdyn_data_event_count(const nsdyn_data *d) {
    if (!has_run(d)) return 0;
    const nsd_run_result *r = &d->s->res;
    return r->contact_log.n + r->n_events;
}

nsdyn_host_status nsdyn_data_event(const nsdyn_data *d, size_t i, nsdyn_host_event *out) {
    if (!out) return NSDYN_HOST_ERR_ARGUMENT;
    if (!has_run(d)) return NSDYN_HOST_ERR_NO_RUN;
    const nsd_run_result *r = &d->s->res;
    memset(out, 0, sizeof *out);
    if (i < r->contact_log.n) {
        const nsd_event_record *e = &r->contact_log.rec[i];
        out->t = e->t;
        out->kind = nsd_event_kind_name(e->kind);
        out->contact = d->s->model.layout.contacts[e->contact].name;
        memcpy(out->u_before, e->u_before, sizeof out->u_before);
        memcpy(out->u_after, e->u_after, sizeof out->u_after);
        memcpy(out->impulse, e->impulse, sizeof out->impulse);
        return NSDYN_HOST_OK;
    }
    i -= r->contact_log.n;
    if (i >= r->n_events) return NSDYN_HOST_ERR_ARGUMENT;
    /* event_times holds the located switches and stops in time order; a
     * stop ends the run, so only the last can be one */
    out->t = r->event_times[i];
    out->kind = r->n_stops && i == r->n_events - 1 ? "stop" : "switch";
    out->contact = "";
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_write(nsdyn_data *d, const char *dir) {
    if (!dir) return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT, "no folder given");
    if (!has_run(d)) return nsd_host_fail(d, NSDYN_HOST_ERR_NO_RUN, "no run yet");
    if (d->run) return going(d);
    char **written = NULL;
    size_t n = 0;
    int rc = nsd_scenario_write_into(d->s, dir, 0, "nsdyn host API", &written, &n, d->err,
                                     sizeof d->err);
    nsd_paths_free(written, n);
    return rc < 0 ? NSDYN_HOST_ERR_IO : NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_record(nsdyn_data *d, char **text) {
    if (!text) return NSDYN_HOST_ERR_ARGUMENT;
    *text = NULL;
    if (!has_run(d)) return nsd_host_fail(d, NSDYN_HOST_ERR_NO_RUN, "no run yet");
    if (d->run) return going(d);
    /* run.toml is written by path (write and rename): into a private
     * temporary folder, read back */
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/nsdyn-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return nsd_host_fail(d, NSDYN_HOST_ERR_IO, "cannot make a temporary folder in %s",
                             tmp && *tmp ? tmp : "/tmp");
    snprintf(path, sizeof path, "%s/run.toml", dir);
    nsdyn_host_status st = NSDYN_HOST_OK;
    if (nsd_write_run_record(path, &d->s->app.cfg, &d->s->model, &d->s->res, "nsdyn host API",
                             d->err, sizeof d->err) != 0) {
        st = NSDYN_HOST_ERR_IO;
    } else {
        FILE *f = fopen(path, "rb");
        size_t len = 0;
        FILE *m = f ? open_memstream(text, &len) : NULL;
        char buf[4096];
        size_t got;
        while (m && (got = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, got, m);
        if (m) fclose(m);
        if (f) fclose(f);
        if (!m) st = nsd_host_fail(d, NSDYN_HOST_ERR_IO, "cannot read back %s", path);
    }
    unlink(path);
    rmdir(dir);
    return st;
}
