/* Plugin code on a thread of its own, so that the first Ctrl-C (or
 * run.timeout's alarm) is honoured at once even inside a plugin callback
 * that loops (issue 28): a scenario's run (nsdyn run, nsdyn compare) or a
 * whole computation (nsdyn periodic). The watched thread counts as stuck
 * when it has not looked at the signal for NSD_STOP_GRACE_S (runner/
 * run_watch.h nsd_stop_watch); the caller then keeps the data so far and
 * abandons the thread (it writes them and ends the process without
 * waiting). The runner publishes a run's data at every sample
 * (runner/run_watch.h) for nsd_scenario_run_watched. */
#ifndef NSD_RUN_WATCHED_H
#define NSD_RUN_WATCHED_H

#include <stddef.h>

#include "run_watch.h"
#include "scenario.h"

enum {
    NSD_WATCHED_DONE = 0,      /* it came back */
    NSD_WATCHED_ABANDONED = 1, /* stuck: its thread left running */
    NSD_WATCHED_NOTHING = 2    /* a run stuck before its first sample: nothing to keep */
};

/* fn(arg) on a thread of its own, watched: NSD_WATCHED_DONE when it came
 * back (run in this thread when no thread can be made), or
 * NSD_WATCHED_ABANDONED when a signal arrived and the thread got stuck:
 * then it still runs fn with arg, so the caller must not free what fn
 * uses and must end the process (_exit) once it has kept what it can. */
int nsd_call_watched(void (*fn)(void *), void *arg);

/* nsd_scenario_run(s, label, diag) watched. On NSD_WATCHED_ABANDONED,
 * *stuck is a shallow copy of *s (model and config shared) whose res is
 * the run as of its last sample, outcome failed, its message saying
 * "inside a plugin callback"; its arrays belong to the abandoned run:
 * never destroy *stuck or *s then; the caller must end the process
 * (_exit) once it has written them. */
int nsd_scenario_run_watched(nsd_scenario *s, const char *label, nsd_diag *diag, size_t *refused,
                             nsd_scenario *stuck);

#endif
