/* A scenario's run on a thread of its own, so that the first Ctrl-C (or
 * run.timeout's alarm) is honoured at once even inside a plugin callback
 * that loops (issue 28): nsdyn run and nsdyn compare. The runner publishes
 * the data at every sample (runner/run_watch.h); when the run does not
 * reach a step boundary within NSD_STOP_GRACE_S of the signal, the caller
 * gets the data so far and abandons the run's thread (it writes them and
 * ends the process without waiting). */
#ifndef NSD_RUN_WATCHED_H
#define NSD_RUN_WATCHED_H

#include <stddef.h>

#include "scenario.h"

/* After a SIGINT/SIGTERM (or run.timeout's alarm), how long [s] the run
 * may take to reach a step boundary, where it stops by itself. */
#define NSD_STOP_GRACE_S 0.5

enum {
    NSD_WATCHED_DONE = 0,      /* the run came back: *refused as nsd_scenario_run */
    NSD_WATCHED_ABANDONED = 1, /* stuck: *stuck holds the data so far */
    NSD_WATCHED_NOTHING = 2    /* stuck before its first sample: nothing to keep */
};

/* nsd_scenario_run(s, label, diag) watched. On NSD_WATCHED_ABANDONED,
 * *stuck is a shallow copy of *s (model and config shared) whose res is
 * the run as of its last sample, outcome failed, its message saying
 * "inside a plugin callback"; its arrays belong to the abandoned run:
 * never destroy *stuck or *s then; the caller must end the process
 * (_exit) once it has written them. Runs in this thread when no thread
 * can be made. */
int nsd_scenario_run_watched(nsd_scenario *s, const char *label, nsd_diag *diag, size_t *refused,
                             nsd_scenario *stuck);

#endif
