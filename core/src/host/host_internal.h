/* The host API's objects (nsdyn/host.h) over the scenario pipeline: a
 * model is an opened scenario (read-only after open); a data is a
 * scenario derived from it with the data's overrides laid over, created
 * (its own plugin instances), and its last run. When the internals split
 * into a shared constant model and per-run data, only these files change,
 * not the API. */
#ifndef NSD_HOST_INTERNAL_H
#define NSD_HOST_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>

#include "nsdyn/host.h"
#include "periodic.h"
#include "periodic_branch.h"
#include "scenario.h"

struct nsdyn_errors {
    nsd_diag diag;
};

struct nsdyn_model {
    nsd_scenario base; /* opened, not created: the config and the plugins */
    /* base's config created once: the model every data runs on (its own
     * plugin instances, nsd_scenario_create_on); has_shared 0 when base's
     * own values are refused (each data then makes a model of its own) */
    nsd_scenario shared;
    int has_shared;
};

struct nsdyn_data {
    const nsdyn_model *model;
    nsd_overrides over; /* the data's overrides (config/overrides.h) */
    nsd_scenario *s;    /* derived from model->base with `over`, created on model->shared's
                        * model (heap), or NULL; later values set in it */
    int ready;          /* s derived and created from the current `over` */
    int ran;            /* s.res holds a run */
    atomic_int stop;    /* nsdyn_data_request_stop: the signal number to report */
    char err[4096];     /* last error */
    char *log;          /* plugin log lines of create and the last run */
    size_t log_len, log_cap;
    size_t create_log_len; /* the part of the log the current instances' create wrote */
    char *line;            /* the summary line */
    char *lists[2];        /* channel names, units (nsdyn_data_channel_list), or NULL */
    /* The run advanced a step at a time (nsdyn_data_step, run_until,
     * run_to_event), while it goes on; NULL otherwise. stepped: 0 no such
     * run since the last whole run or rebuild, 1 one goes on, 2 it ended.
     * ev_contact, ev_other: its contact events and switches/stops
     * nsdyn_data_run_to_event has returned. */
    nsd_run *run;
    int stepped;
    size_t ev_contact, ev_other;
    int catch_sigint; /* nsdyn_data_catch_sigint */
    /* nsdyn_data_sweep's table: column names, cells (numbers, texts) */
    struct nsd_host_table {
        size_t n_rows, n_columns;
        char **columns;
        double *num;
        char **text;
    } sweep;
    /* nsdyn_data_continuation's branch: continuation.csv's columns, values
     * and event marks */
    struct nsd_host_branch {
        size_t n_rows, n_columns, n_converged;
        char **columns;
        double *values;
        char **event;
    } branch;
    nsd_periodic_result periodic; /* nsdyn_data_periodic's, when have_periodic */
    size_t *periodic_free;        /* its free state indices */
    int have_periodic;
};

/* Set data->err; returns status. */
nsdyn_host_status nsd_host_fail(nsdyn_data *d, nsdyn_host_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Destroy and free a heap scenario (NULL: nothing). */
void nsd_host_scenario_free(nsd_scenario *s);
/* diag's messages into d->err, one a line (diag freed); returns status. */
nsdyn_host_status nsd_host_fail_diag(nsdyn_data *d, nsd_diag *diag, nsdyn_host_status status);
/* (Re)derive and create data->s from data->over when not ready; the
 * messages into diag (NULL: into data->err). The old scenario and its
 * results stay when this fails. */
nsdyn_host_status nsd_host_prepare(nsdyn_data *d, nsd_diag *diag);
/* End the run in progress on d, if any: abandoned before its end, its
 * results are no longer offered (ran = 0); stepped back to 0. */
void nsd_host_end_run(nsdyn_data *d);
/* Around a call that runs simulations: the stop request watched (cleared
 * first), SIGINT caught when d->catch_sigint (the previous handler kept in
 * *old); nsd_host_call_end undoes it. */
typedef struct nsd_host_call {
    int installed;
    struct sigaction old;
} nsd_host_call;
void nsd_host_call_begin(nsdyn_data *d, nsd_host_call *c);
void nsd_host_call_end(nsdyn_data *d, nsd_host_call *c);
/* The solved points of sum (nsd_periodic_branch's) into d->branch, as
 * continuation.csv has them (host_branch.c). */
nsdyn_host_status nsd_host_branch_table(nsdyn_data *d, const nsd_periodic_config *pc,
                                        const nsd_branch_summary *sum);
/* Free the branch's table. */
void nsd_host_branch_free(nsdyn_data *d);
/* Free the sweep's table. */
void nsd_host_sweep_free(nsdyn_data *d);
/* Free the periodic orbit's results. */
void nsd_host_periodic_free(nsdyn_data *d);
/* d is no longer the SIGINT handler's target (before it is freed). */
void nsd_host_forget_signal(nsdyn_data *d);

#endif
