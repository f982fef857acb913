/* The runner's own parts (runner/ only): a run in progress, and what the
 * run loop (run.c) takes from the events by kind (run_events.c) and the
 * sample store (run_record.c). run_events.c and run_record.c never call
 * back into run.c. */
#ifndef NSD_RUN_INTERNAL_H
#define NSD_RUN_INTERNAL_H

#include "config.h"
#include "integrator_calls.h"
#include "model.h"
#include "modes.h"
#include "run_result.h"
#include "step_guard.h"

/* One run in progress (run.h nsd_run): the integrator, the buffers, and
 * the run's place on the output grid. */
typedef struct nsd_run nsd_runner;
struct nsd_run {
    const nsd_model *m;
    nsd_data *d; /* the run's data: everything the run writes */
    const nsdyn_integrator *ig;
    void *inst;
    nsd_ig_call igc; /* every call into ig goes through it (integrator_calls.h) */
    nsd_run_result *res;
    nsdyn_ode ode;            /* the model's problem; ode.n_events: every event */
    nsdyn_ode ode_ig;         /* what the integrator gets (no events unless it locates) */
    nsdyn_mechanics mech;     /* time-stepping view */
    double t0, t_end, dt_out; /* [s] */
    int dense, locates, show_progress;
    const char *label;
    size_t k_out; /* next output grid point: t0 + k_out dt_out */
    size_t max_events, same_time;
    double t_last_event;         /* [s] last contact event */
    double wall0, last_progress; /* [s] wall clock */
    double t;                    /* [s] last accepted time */
    /* The last accepted state: the integrator's own report, which stays
     * valid through a failed step (integrator.h), or y_switch after an
     * event restarted it. */
    const double *y_last;
    double *ybuf, *y_switch; /* n */
    double *ydot_rate;       /* n: scratch of the hold test at rate events */
    char held_msg[512];      /* run.c held_cause() */
    /* The state the current step started from (a copy: the integrator
     * overwrites its own) and the switch functions there and at an event
     * (layout.n_switches each): simultaneous_switches() */
    double t_from, *y_from, *sw_from, *sw_at;
    double *g, *g_prev; /* n_events: crossings seen at step ends */
    double *g_jump;     /* 2 (n_stops + 1): stops across a jump */
    nsd_step_guard guard;
    int guard_ready;
    char state[600]; /* describe_state output, bounded */
    int started;     /* runner_start let the run go on (else the run ended or never began) */
    int going;       /* steps may follow: started, not ended, t < t_end */
};

/* What the loop does after one part of a step. */
typedef enum { NSD_GO_ON = 0, NSD_NEXT_STEP, NSD_END } nsd_flow;

/* How the one way on after a jump ended (run_events.c jump_restart). */
typedef enum { NSD_JUMP_ON = 0, NSD_JUMP_NO_RESTART, NSD_JUMP_NO_GUARD } nsd_jump;

/* run_record.c: one sample of every channel at (t, y) into res->series
 * (and the watch's copy, run_watch.h). 0, or -1 out of memory
 * (res->message says so). */
int nsd_run_record(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                   const double *y);

/* run_events.c */
/* The run failed: res->message from fmt, the outcome FAILED. Returns
 * NSD_END. Callers put r->state (nsd_runner_describe) into the message. */
__attribute__((format(printf, 2, 3))) nsd_flow nsd_runner_failed(nsd_runner *r, const char *fmt,
                                                                 ...);
/* The state y in words (names, values, units), in r->state. */
const char *nsd_runner_describe(nsd_runner *r, const double *y);
/* The contact modes at an event or the start, the system told (run_events.c). */
nsdyn_status nsd_runner_resolve_modes(nsd_runner *r, double t, double *y, int fired, int initial);
/* Sustained contacts drifted: projected back and restarted; 0 or -1 (d->failure). */
int nsd_runner_correct_drift(nsd_runner *r, nsdyn_step_report *rep);
/* Without event location: the first crossing seen at the step's end, or NULL. */
const nsd_event_source *nsd_runner_check_crossings(nsd_runner *r, const double *y);
/* The events of the step that ended at rep, dispatched by kind. */
nsd_flow nsd_runner_handle_event(nsd_runner *r, nsdyn_step_report *rep,
                                 const nsd_event_source *fired);
/* A switch or stop the guard's cut of the step left out, or NULL. */
const nsd_event_source *nsd_runner_uncovered_crossing(nsd_runner *r, nsdyn_step_report *rep);

#endif
