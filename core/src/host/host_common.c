/* What the host API's files share (host_internal.h): errors, the data's
 * scenario built from its overrides, the plugin log, the SIGINT target,
 * the periodic results' release. It calls none of the other host files. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "interrupt.h"

nsdyn_host_status nsd_host_fail(nsdyn_data *d, nsdyn_host_status status, const char *fmt, ...) {
    if (!d) return status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    return status;
}

void nsd_host_sweep_free(nsdyn_data *d) {
    struct nsd_host_table *t = &d->sweep;
    for (size_t i = 0; t->text && i < t->n_rows * t->n_columns; ++i) free(t->text[i]);
    for (size_t i = 0; t->columns && i < t->n_columns; ++i) free(t->columns[i]);
    free(t->text);
    free(t->columns);
    free(t->num);
    memset(t, 0, sizeof *t);
}

void nsd_host_branch_free(nsdyn_data *d) {
    struct nsd_host_branch *b = &d->branch;
    for (size_t i = 0; b->event && i < b->n_rows; ++i) free(b->event[i]);
    for (size_t i = 0; b->columns && i < b->n_columns; ++i) free(b->columns[i]);
    free(b->event);
    free(b->columns);
    free(b->values);
    memset(b, 0, sizeof *b);
}

void nsd_host_periodic_free(nsdyn_data *d) {
    if (d->have_periodic) nsd_periodic_result_free(&d->periodic);
    free(d->periodic_free);
    d->periodic_free = NULL;
    d->have_periodic = 0;
}

nsdyn_host_status nsd_host_fail_diag(nsdyn_data *d, nsd_diag *diag, nsdyn_host_status status) {
    d->err[0] = '\0';
    for (size_t i = 0; i < diag->n; ++i) {
        size_t at = strlen(d->err);
        snprintf(d->err + at, sizeof d->err - at, "%s%s", i ? "\n" : "", diag->lines[i]);
    }
    nsd_diag_free(diag);
    return status;
}

/* Plugin log messages into the data's log (the CLI prints them). */
static void capture_log(void *ctx, nsdyn_log_level level, const char *message) {
    nsdyn_data *d = ctx;
    static const char *const names[] = {"debug", "info", "warning", "error"};
    const char *name = names[level <= NSDYN_LOG_ERROR ? level : NSDYN_LOG_ERROR];
    size_t need = strlen(name) + strlen(message) + 4;
    if (d->log_len + need > d->log_cap) {
        size_t cap = (d->log_cap + need) * 2;
        char *p = realloc(d->log, cap);
        if (!p) return; /* the log is best effort */
        d->log = p;
        d->log_cap = cap;
    }
    d->log_len +=
        (size_t)snprintf(d->log + d->log_len, d->log_cap - d->log_len, "%s: %s\n", name, message);
}

void nsd_host_scenario_free(nsd_scenario *s) {
    if (!s) return;
    nsd_scenario_destroy(s);
    free(s);
}

/* The data's scenario for its overrides: its values set in the scenario
 * it has (nsd_scenario_set_params), or the first one derived and created
 * on the model's shared model. The errors, in diag. */
static size_t make_scenario(nsdyn_data *d, nsd_diag *diag) {
    const nsdyn_model *m = d->model;
    if (d->s) {
        nsd_host_end_run(d); /* the run in progress is on these data */
        /* a plugin that said something at its create says it again: the
         * log starts with this create's messages */
        if (d->create_log_len) d->s->create_logged = 1;
        return nsd_scenario_set_params(d->s, &d->over, diag);
    }
    nsd_scenario *s = calloc(1, sizeof *s);
    if (!s) abort();
    size_t errors = nsd_scenario_override(s, &m->base, &d->over, diag);
    /* create checks the [plot] channel names as nsdyn run does (the API
     * draws nothing: nsdyn_data_write passes no graphs) */
    s->no_graphs = 0;
    s->app.host = (nsdyn_host){sizeof s->app.host, d, capture_log};
    if (!errors)
        errors = m->has_shared ? nsd_scenario_create_on(s, &m->shared, diag)
                               : nsd_scenario_create(s, diag);
    if (errors)
        nsd_host_scenario_free(s);
    else
        d->s = s;
    return errors;
}

nsdyn_host_status nsd_host_prepare(nsdyn_data *d, nsd_diag *out) {
    if (d->ready) return NSDYN_HOST_OK;
    nsd_diag diag = {0};
    d->log_len = 0; /* the log starts with this create's messages */
    if (d->log) d->log[0] = '\0';
    size_t errors = make_scenario(d, &diag);
    if (errors) {
        if (out) { /* the messages to the caller, the first in d->err too */
            snprintf(d->err, sizeof d->err, "%s", diag.n ? diag.lines[0] : "refused");
            *out = diag;
            return NSDYN_HOST_ERR_CONFIG;
        }
        return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    }
    nsd_diag_free(&diag);
    d->s->app.cfg.settings.progress = 0;
    d->create_log_len = d->log_len;
    nsd_host_end_run(d);
    for (int k = 0; k < 2; ++k) {
        free(d->lists[k]);
        d->lists[k] = NULL;
    }
    d->ran = 0;
    d->ready = 1;
    return NSDYN_HOST_OK;
}

void nsd_host_end_run(nsdyn_data *d) {
    if (d->run) { /* abandoned before its end: no result to show as complete */
        nsd_run_end(d->run);
        d->ran = 0;
    }
    d->run = NULL;
    d->stepped = 0;
}

/* The data a SIGINT stops (nsdyn_host_stop_on_signal). */
static _Atomic(nsdyn_data *) signal_target;

void nsdyn_host_stop_on_signal(nsdyn_data *d) { atomic_store(&signal_target, d); }

void nsdyn_host_signal_stop(int sig) {
    nsdyn_data *d = atomic_load(&signal_target);
    if (d) atomic_store(&d->stop, sig);
}

void nsd_host_forget_signal(nsdyn_data *d) {
    nsdyn_data *expected = d;
    atomic_compare_exchange_strong(&signal_target, &expected, NULL);
}

void nsd_host_call_begin(nsdyn_data *d, nsd_host_call *c) {
    c->installed = 0;
    atomic_store(&d->stop, 0);
    nsd_interrupt_watch(&d->stop);
    if (!d->catch_sigint) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = nsdyn_host_signal_stop;
    sigemptyset(&sa.sa_mask);
    nsdyn_host_stop_on_signal(d);
    c->installed = sigaction(SIGINT, &sa, &c->old) == 0;
}

void nsd_host_call_end(nsdyn_data *d, nsd_host_call *c) {
    if (c->installed) {
        sigaction(SIGINT, &c->old, NULL);
        nsd_host_forget_signal(d);
    }
    nsd_interrupt_watch(NULL);
}
