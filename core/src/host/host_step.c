/* The host API's run a step at a time (nsdyn/host.h "a run a step at a
 * time"): the data owns the run in progress (runner/run.h nsd_run), begun
 * on its scenario and advanced by the calls here, so that a run taken in
 * parts is the run nsdyn_data_run makes in one. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host_internal.h"

/* step and run_until pass the events they stepped over: run_to_event
 * goes on from the first one at or after the clock (an event where the
 * last step ended is still to come). */
static void pass_events(nsdyn_data *d) {
    const nsd_run_result *res = &d->s->res;
    double now;
    if (nsdyn_data_time(d, &now) != NSDYN_HOST_OK) return;
    while (d->ev_contact < res->contact_log.n && res->contact_log.rec[d->ev_contact].t < now)
        d->ev_contact++;
    while (d->ev_other < res->n_events && res->event_times[d->ev_other] < now) d->ev_other++;
}

/* The run went on or ended in the last advance: end it when it ended
 * (the last sample, the statistics); the status of how it ended. */
static nsdyn_host_status settle(nsdyn_data *d) {
    double t;
    const double *y;
    if (d->run && !nsd_run_where(d->run, &t, &y)) {
        nsd_run_end(d->run);
        nsd_scenario_ended(d->s);
        d->run = NULL;
        d->stepped = 2;
    }
    const nsd_run_result *res = &d->s->res;
    if (d->run || res->outcome != NSD_RUN_FAILED) return NSDYN_HOST_OK;
    snprintf(d->err, sizeof d->err, "%s", res->message);
    return atomic_load(&d->stop) ? NSDYN_HOST_ERR_INTERRUPTED : NSDYN_HOST_ERR_RUN_FAILED;
}

/* A new run on the data's scenario (the previous one ended). */
static nsdyn_host_status start(nsdyn_data *d) {
    nsd_host_end_run(d);
    d->log_len = d->create_log_len; /* create's messages stay, the last run's go */
    if (d->log) d->log[d->log_len] = '\0';
    d->err[0] = '\0';
    d->ev_contact = d->ev_other = 0;
    atomic_store(&d->stop, 0);
    nsd_diag diag = {0};
    size_t errors = nsd_scenario_begin(d->s, &diag, &d->run);
    d->ran = 1;
    d->stepped = 1;
    if (errors) { /* nothing ran: the next call tries again, and says so again */
        d->stepped = 0;
        return nsd_host_fail_diag(d, &diag, NSDYN_HOST_ERR_CONFIG);
    }
    nsd_diag_free(&diag);
    if (!d->run) d->stepped = 2; /* out of memory: the outcome says so */
    return settle(d);
}

/* The data ready, a run going (started here if none was since the last
 * change); ENDED when the stepped run has ended. */
static nsdyn_host_status ensure_run(nsdyn_data *d) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    if (d->run) return NSDYN_HOST_OK;
    if (d->stepped == 2) {
        snprintf(d->err, sizeof d->err,
                 "the run has ended (at t = %.9g s): start a new one (nsdyn_data_start)",
                 d->s->res.t_reached);
        return NSDYN_HOST_ENDED;
    }
    st = start(d);
    if (st != NSDYN_HOST_OK) return st;
    return d->run ? NSDYN_HOST_OK : NSDYN_HOST_ENDED;
}

nsdyn_host_status nsdyn_data_start(nsdyn_data *d) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_call c;
    nsd_host_call_begin(d, &c);
    st = start(d);
    nsd_host_call_end(d, &c);
    return st;
}

nsdyn_host_status nsdyn_data_step(nsdyn_data *d) {
    nsd_host_call c;
    nsdyn_host_status st = ensure_run(d);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_call_begin(d, &c);
    nsd_run_step(d->run);
    nsd_host_call_end(d, &c);
    st = settle(d);
    pass_events(d);
    return st;
}

nsdyn_host_status nsdyn_data_run_until(nsdyn_data *d, double t) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    double t_end = d->s->app.cfg.settings.t_end;
    if (!(t <= t_end))
        return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT,
                             "run_until: t = %.17g s is past the run's end, run.t_end = %.17g s "
                             "(set run.t_end first: the run's last step and its output grid "
                             "depend on it)",
                             t, t_end);
    st = ensure_run(d);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_call c;
    nsd_host_call_begin(d, &c);
    double now;
    const double *y;
    while (nsd_run_where(d->run, &now, &y) && now < t && nsd_run_step(d->run)) continue;
    nsd_host_call_end(d, &c);
    st = settle(d);
    pass_events(d);
    return st;
}

/* The earliest event the run has logged and run_to_event not returned,
 * into *out; 0 when there is none. */
static int pending_event(nsdyn_data *d, nsdyn_host_event *out) {
    const nsd_run_result *res = &d->s->res;
    int have_c = d->ev_contact < res->contact_log.n, have_o = d->ev_other < res->n_events;
    if (!have_c && !have_o) return 0;
    if (have_c &&
        (!have_o || res->contact_log.rec[d->ev_contact].t <= res->event_times[d->ev_other]))
        nsdyn_data_event(d, d->ev_contact++, out);
    else
        nsdyn_data_event(d, res->contact_log.n + d->ev_other++, out);
    return 1;
}

nsdyn_host_status nsdyn_data_run_to_event(nsdyn_data *d, nsdyn_host_event *out) {
    if (!out) return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT, "no event to fill");
    /* events the ended run logged and run_to_event did not return yet */
    if (d && !d->run && d->stepped == 2 && pending_event(d, out)) return NSDYN_HOST_OK;
    nsdyn_host_status st = ensure_run(d);
    if (st != NSDYN_HOST_OK) return st;
    nsd_host_call c;
    nsd_host_call_begin(d, &c);
    int found = pending_event(d, out);
    while (!found && nsd_run_step(d->run)) found = pending_event(d, out);
    nsd_host_call_end(d, &c);
    st = settle(d);
    if (!found && st == NSDYN_HOST_OK) found = pending_event(d, out); /* at the run's last step */
    if (st != NSDYN_HOST_OK || found) return st;
    snprintf(d->err, sizeof d->err, "no further event: the run ended at t = %.9g s",
             d->s->res.t_reached);
    return NSDYN_HOST_ENDED;
}

int nsdyn_data_running(const nsdyn_data *d) { return d && d->run != NULL; }

nsdyn_host_status nsdyn_data_time(const nsdyn_data *d, double *t) {
    if (!d || !t) return NSDYN_HOST_ERR_ARGUMENT;
    const double *y;
    if (d->run)
        nsd_run_where(d->run, t, &y);
    else if (d->s && d->ran)
        *t = d->s->res.t_reached;
    else if (d->s)
        *t = d->s->app.cfg.settings.t_start;
    else
        return NSDYN_HOST_ERR_NO_RUN;
    return NSDYN_HOST_OK;
}

void nsdyn_data_catch_sigint(nsdyn_data *d, int on) {
    if (d) d->catch_sigint = on != 0;
}
