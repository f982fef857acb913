/* The step guard's scan: the samples tl + i (tr - tl) / GUARD_SCAN,
 * i = 1 .. GUARD_SCAN - 1 (guard_scan.c, 64), of the watched contacts'
 * f = gap - threshold [m] and f' [m/s], in order, up to the first where one
 * is at or below 0; a sample is taken only where a bound on the gaps'
 * acceleration does not rule out a crossing since the last one
 * (docs/event-driven.md has the argument). step_guard.c scans the stretch
 * before a hit and before a located root with it. */
#ifndef NSD_GUARD_SCAN_H
#define NSD_GUARD_SCAN_H

#include <stddef.h>

/* Evaluates the watched contacts at t into f_cur, df_cur: 0, or -1 on
 * failure (the scan stops with -1). */
typedef int (*nsd_guard_sample_fn)(void *ctx, double t);

typedef struct nsd_guard_scan {
    const size_t *w; /* the watched contacts' indices */
    size_t nw;
    double *f_last, *df_last; /* per contact: the last sample above 0 */
    double *f_cur, *df_cur;   /* per contact: the current sample (sample() writes) */
    double *acc;              /* per contact: the bound on |f''| [m/s^2] (set by the scan) */
    nsd_guard_sample_fn sample;
    void *ctx;
} nsd_guard_scan;

/* Scan [tl, tr] with the watched contacts' f, f' at the ends in fl, dl and
 * fr, dr (indexed by contact; fl > 0): 1 with the first sample at or below
 * 0 at *t_cur (in f_cur, df_cur) and the sample before it at *t_last (in
 * f_last, df_last; tl if none), 0 if none, -1 if a sample failed. */
int nsd_guard_scan_run(nsd_guard_scan *s, double tl, double tr, const double *fl, const double *dl,
                       const double *fr, const double *dr, double *t_last, double *t_cur);

#endif
