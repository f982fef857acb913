/* The data so far of a run on another thread (run_watch.h). */
#define _POSIX_C_SOURCE 200809L
#include "run_watch.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"

static _Thread_local nsd_run_watch *attached;

void nsd_run_watch_init(nsd_run_watch *w) {
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
}

void nsd_run_watch_attach(nsd_run_watch *w) { attached = w; }

void nsd_run_watch_lock(void) {
    if (attached) pthread_mutex_lock(&attached->lock);
}

void nsd_run_watch_unlock(void) {
    if (attached) pthread_mutex_unlock(&attached->lock);
}

/* Grow *buf (element size `size`) to hold n; 0 or -1. */
static int reserve(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n) c *= 2;
    void *p = realloc(*buf, c * size);
    if (!p) return -1;
    *buf = p;
    *cap = c;
    return 0;
}

/* The event arrays only grow during a run: copy what is new. */
static void copy_logs(nsd_run_watch *w, const nsd_run_result *res) {
    double *times = w->snap.event_times;
    nsd_event_record *rec = w->snap.contact_log.rec;
    size_t had_events = w->have ? w->snap.n_events : 0;
    size_t had_log = w->have ? w->snap.contact_log.n : 0;
    if (reserve((void **)&times, &w->cap_events, res->n_events, sizeof *times) != 0 ||
        reserve((void **)&rec, &w->cap_log, res->contact_log.n, sizeof *rec) != 0) {
        w->logs_lost = 1;
        had_events = had_log = 0;
    }
    if (!w->logs_lost) {
        if (res->n_events > had_events)
            memcpy(times + had_events, res->event_times + had_events,
                   (res->n_events - had_events) * sizeof *times);
        if (res->contact_log.n > had_log)
            memcpy(rec + had_log, res->contact_log.rec + had_log,
                   (res->contact_log.n - had_log) * sizeof *rec);
    }
    w->snap = *res;
    w->snap.event_times = times;
    w->snap.contact_log.rec = rec;
    w->snap.contact_log.cap = w->cap_log;
    if (w->logs_lost) w->snap.n_events = w->snap.contact_log.n = 0;
}

void nsd_run_watch_publish(const nsd_run_result *res) {
    nsd_run_watch *w = attached;
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    copy_logs(w, res);
    w->live = res;
    w->have = 1;
    pthread_mutex_unlock(&w->lock);
}

int nsd_run_watch_take(nsd_run_watch *w, nsd_run_result *out) {
    pthread_mutex_lock(&w->lock);
    if (!w->have) return -1;
    *out = w->snap;
    out->series.data = w->live->series.data; /* moves only under the lock */
    out->series.cap = out->series.rows;
    return 0;
}

/* ---- is a watched thread stuck after a signal? ---- */

void nsd_stop_watch_init(nsd_stop_watch *w) {
    atomic_init(&w->looks, 0u);
    w->seen = 0;
    w->t_last = -1.0;
}

void nsd_stop_watch_attach(nsd_stop_watch *w) { nsd_interrupt_count_looks(w ? &w->looks : NULL); }

int nsd_stop_watch_stuck(nsd_stop_watch *w) {
    if (!nsd_interrupt_signal()) return 0; /* the watcher's own look: it counts into nothing */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    unsigned looks = atomic_load_explicit(&w->looks, memory_order_relaxed);
    if (w->t_last < 0 || looks != w->seen) {
        w->t_last = now;
        w->seen = looks;
        return 0;
    }
    return now - w->t_last > NSD_STOP_GRACE_S;
}
