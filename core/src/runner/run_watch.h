/* The data so far of a run on another thread (issue 28): a command that
 * runs the simulation on a thread of its own (nsdyn run) can take the run
 * as of its last recorded sample when the run does not come back, e.g. a
 * plugin callback that loops after Ctrl-C, and write it while that thread
 * is abandoned. The runner publishes at every recorded sample (run.c
 * record(): output times, not right-hand sides) when the calling thread
 * watches; otherwise it costs one thread-local load per sample. */
#ifndef NSD_RUN_WATCH_H
#define NSD_RUN_WATCH_H

#include <pthread.h>
#include <stdatomic.h>

#include "run_result.h"

/* After a SIGINT/SIGTERM (or run.timeout's alarm), how long [s] a watched
 * thread may go without looking at the signal (a step boundary, the end of
 * a run) before it counts as stuck in a plugin callback. */
#define NSD_STOP_GRACE_S 0.5

/* Is a thread stuck in a plugin callback after a signal? The watched
 * thread attaches; its looks at the received signal (interrupt.h
 * nsd_interrupt_count_looks) show it on its way out. The watcher asks
 * nsd_stop_watch_stuck now and then (every 50 ms or so): 1 once a signal
 * has arrived and the thread has not looked at it for NSD_STOP_GRACE_S
 * (counted from the signal, then from its last look). One mechanism for
 * every command that runs plugin code on threads it watches: run and
 * compare (cli/run_watched.c), periodic, sweep --in-process. */
typedef struct nsd_stop_watch {
    atomic_uint looks;
    unsigned seen;
    double t_last; /* [s] monotonic: the signal or the last look; < 0 before a signal */
} nsd_stop_watch;

void nsd_stop_watch_init(nsd_stop_watch *w);
/* The calling thread's looks count into w (NULL: stop). */
void nsd_stop_watch_attach(nsd_stop_watch *w);
int nsd_stop_watch_stuck(nsd_stop_watch *w);

typedef struct nsd_run_watch {
    pthread_mutex_t lock;
    /* The result as of the last published sample: scalars copied; the
     * event arrays are the watch's own copies (appended as they grow);
     * series.data is taken from the live result under the lock. */
    nsd_run_result snap;
    const nsd_run_result *live;
    size_t cap_events, cap_log; /* of snap.event_times, snap.contact_log.rec */
    int have, logs_lost;
} nsd_run_watch;

void nsd_run_watch_init(nsd_run_watch *w);
/* The calling thread's runs publish into w (NULL: stop). */
void nsd_run_watch_attach(nsd_run_watch *w);

/* For the runner: hold while the series may move (its growth), and
 * publish after a sample is whole. No-ops when the thread does not watch. */
void nsd_run_watch_lock(void);
void nsd_run_watch_unlock(void);
void nsd_run_watch_publish(const nsd_run_result *res);

/* The run as of its last published sample into *out (its arrays belong
 * to the watch and to the abandoned run: never free them). Takes w's lock
 * for good, so the abandoned thread stops at its next sample. Returns 0,
 * or -1 when nothing was published (no sample yet). */
int nsd_run_watch_take(nsd_run_watch *w, nsd_run_result *out);

#endif
