/* Plugin code on a thread of its own, watched (run_watched.h). */
#define _GNU_SOURCE
#include "run_watched.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"

typedef struct watched_call {
    void (*fn)(void *);
    void *arg;
    nsd_stop_watch stop;
    sem_t done;
} watched_call;

static void *call_thread(void *p) {
    watched_call *c = p;
    nsd_stop_watch_attach(&c->stop);
    c->fn(c->arg);
    nsd_stop_watch_attach(NULL);
    sem_post(&c->done);
    return NULL;
}

/* Wait for the call; 0 when it came back, 1 when a signal arrived and it
 * got stuck (no look at the signal within the grace period). */
static int wait_call(watched_call *c) {
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000; /* 50 ms between looks at the signal flag */
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        if (sem_timedwait(&c->done, &ts) == 0) return 0;
        if (nsd_stop_watch_stuck(&c->stop)) return 1;
    }
}

int nsd_call_watched(void (*fn)(void *), void *arg) {
    watched_call *c = calloc(1, sizeof *c); /* never freed after an abandon: the thread holds it */
    pthread_t th;
    if (!c || sem_init(&c->done, 0, 0) != 0) {
        free(c);
        fn(arg);
        return NSD_WATCHED_DONE;
    }
    c->fn = fn;
    c->arg = arg;
    nsd_stop_watch_init(&c->stop);
    if (pthread_create(&th, NULL, call_thread, c) != 0) {
        sem_destroy(&c->done);
        free(c);
        fn(arg);
        return NSD_WATCHED_DONE;
    }
    if (wait_call(c) != 0) return NSD_WATCHED_ABANDONED;
    pthread_join(th, NULL);
    sem_destroy(&c->done);
    free(c);
    return NSD_WATCHED_DONE;
}

/* ---- a scenario's run, its data as of its last sample kept ---- */

typedef struct sim_job {
    nsd_scenario *s;
    const char *label;
    nsd_diag *diag;
    nsd_run_watch watch;
    size_t refused;
    double wall0; /* [s] when the run started */
} sim_job;

static void sim_call(void *arg) {
    sim_job *j = arg;
    nsd_run_watch_attach(&j->watch);
    j->refused = nsd_scenario_run(j->s, j->label, j->diag);
    nsd_run_watch_attach(NULL);
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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
    if (!j) {
        *refused = nsd_scenario_run(s, label, diag);
        return NSD_WATCHED_DONE;
    }
    j->s = s;
    j->label = label;
    j->diag = diag;
    j->wall0 = wall_s();
    nsd_run_watch_init(&j->watch);
    if (nsd_call_watched(sim_call, j) != NSD_WATCHED_DONE) return take_stuck(s, j, stuck);
    *refused = j->refused;
    free(j->watch.snap.event_times);
    free(j->watch.snap.contact_log.rec);
    pthread_mutex_destroy(&j->watch.lock);
    free(j);
    return NSD_WATCHED_DONE;
}
