/* A scenario's run on a thread of its own, watched (run_watched.h). */
#define _GNU_SOURCE
#include "run_watched.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"
#include "run_watch.h"

typedef struct sim_job {
    nsd_scenario *s;
    const char *label;
    nsd_diag *diag;
    nsd_run_watch watch;
    sem_t done;
    size_t refused;
    double wall0; /* [s] when the run started */
} sim_job;

static void *sim_thread(void *arg) {
    sim_job *j = arg;
    nsd_run_watch_attach(&j->watch);
    j->refused = nsd_scenario_run(j->s, j->label, j->diag);
    nsd_run_watch_attach(NULL);
    sem_post(&j->done);
    return NULL;
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wait for the run; 0 when it came back, 1 when a signal arrived and it
 * did not reach a step boundary within the grace period. */
static int wait_run(sim_job *j) {
    double t_signal = -1.0;
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000; /* 50 ms between looks at the signal flag */
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        if (sem_timedwait(&j->done, &ts) == 0) return 0;
        if (!nsd_interrupt_signal()) continue;
        if (t_signal < 0)
            t_signal = wall_s();
        else if (wall_s() - t_signal > NSD_STOP_GRACE_S)
            return 1;
    }
}

/* The stuck run's data as of its last sample into *stuck. */
static int take_stuck(nsd_scenario *s, sim_job *j, nsd_scenario *stuck) {
    *stuck = *s; /* shares the model and config; res is the snapshot */
    memset(&stuck->res, 0, sizeof stuck->res);
    if (nsd_run_watch_take(&j->watch, &stuck->res) != 0) return NSD_WATCHED_NOTHING;
    nsd_run_result *r = &stuck->res;
    r->outcome = NSD_RUN_FAILED;
    r->wall_seconds = wall_s() - j->wall0;
    r->t_reached = r->series.data[(r->series.rows - 1) * r->series.n_channels];
    snprintf(r->message, sizeof r->message,
             "interrupted by signal %d inside a plugin callback: the run did not reach a step "
             "boundary within %g s (a callback that does not return); its data up to the last "
             "sample, t = %.9g s, are kept (the integrator's step counts are not known)%s",
             nsd_interrupt_signal(), NSD_STOP_GRACE_S, r->t_reached,
             j->watch.logs_lost ? " (the event log was lost: out of memory)" : "");
    return NSD_WATCHED_ABANDONED;
}

int nsd_scenario_run_watched(nsd_scenario *s, const char *label, nsd_diag *diag, size_t *refused,
                             nsd_scenario *stuck) {
    sim_job *j = calloc(1, sizeof *j); /* never freed after an abandon: the thread holds it */
    pthread_t th;
    if (!j || sem_init(&j->done, 0, 0) != 0) {
        free(j);
        *refused = nsd_scenario_run(s, label, diag);
        return NSD_WATCHED_DONE;
    }
    j->s = s;
    j->label = label;
    j->diag = diag;
    j->wall0 = wall_s();
    nsd_run_watch_init(&j->watch);
    if (pthread_create(&th, NULL, sim_thread, j) != 0) {
        sem_destroy(&j->done);
        free(j);
        *refused = nsd_scenario_run(s, label, diag);
        return NSD_WATCHED_DONE;
    }
    if (wait_run(j) != 0) return take_stuck(s, j, stuck);
    pthread_join(th, NULL);
    *refused = j->refused;
    sem_destroy(&j->done);
    free(j->watch.snap.event_times);
    free(j->watch.snap.contact_log.rec);
    pthread_mutex_destroy(&j->watch.lock);
    free(j);
    return NSD_WATCHED_DONE;
}
