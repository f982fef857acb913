/* The adaptive threshold search ([sweep.adaptive], docs/sweep.md): the
 * smallest value of one range axis where a target over the runs at that
 * value holds (e.g. "fraction(crossed) >= 0.8": over the other axes'
 * grid), by bisection. Each step adds one value to the axis and grows the
 * study (sweep_grow.c), so only the new value's runs execute and every row
 * stays in the database, keyed by its values; the final definition is the
 * one the command then writes runs.csv and graphs of. The target is taken
 * as failing at the axis's start and holding at its stop (checked: both
 * ends run first); between two evaluated values where it flips, bisection
 * halves the bracket until it is at most the tolerance. A target that
 * flips more than once between evaluated values is reported (the answer
 * is then the flip nearest the start that the evaluated values show). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_record.h"
#include "sweep.h"

typedef struct tally_at { /* the target's inputs at each evaluated value */
    const nsd_sweep_def *def;
    const double *x;
    size_t nx;
    size_t *n, *hits;
    double *sum;
    size_t failed;
} tally_at;

static void count_row(void *ctx, const nsd_sweep_row *row) {
    tally_at *t = ctx;
    const nsd_sweep_adaptive *ad = &t->def->adaptive;
    double v = row->axis_num[ad->axis], s = row->sum_num[ad->summary];
    for (size_t i = 0; i < t->nx; ++i) {
        if (t->x[i] != v) continue;
        if (row->status != NSD_SWEEP_OK || isnan(s)) { /* counted as not reaching the target */
            t->failed++;
            t->n[i]++;
            break;
        }
        t->n[i]++;
        t->hits[i] += s > ad->above;
        t->sum[i] += s;
        break;
    }
}

/* A bisection point: 12 significant digits (the grid's own rounding, so
 * the rows read back as typed). */
static double midpoint(double lo, double hi) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.12g", 0.5 * (lo + hi));
    return strtod(buf, NULL);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int nsd_sweep_adaptive_exec(const nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                            const nsd_sweep_opts *opts, nsd_sweep_tally *tally,
                            const nsd_sweep_visit *visit, char *err, size_t len) {
    uint8_t *done = NULL;
    size_t n_done = 0;
    nsd_sweep_db *db = nsd_sweep_db_open(db_path, def, opts->config, &done, &n_done, err, len);
    char *fingerprint = db ? nsd_plugin_fingerprint(&base->app.cfg) : NULL;
    int rc = db ? nsd_sweep_db_check_plugins(db, fingerprint, 0, err, len) : -1;
    free(fingerprint);
    /* runs the caller does not want are marked as finished: never run */
    for (uint64_t r = 0; rc == 0 && visit->skip && r < def->n_runs; ++r)
        if (visit->skip(visit->ctx, def, r)) done[r / 8] |= (uint8_t)(1u << (r % 8));
    if (rc == 0)
        rc = opts->in_process ? nsd_sweep_exec_threads(def, base, db, done, opts, tally)
                              : nsd_sweep_exec_procs(def, base, db, done, opts, tally);
    if (rc == 0) rc = nsd_sweep_db_scan(db, visit->on_row, visit->ctx, err, len);
    free(done);
    nsd_sweep_db_close(db);
    return rc;
}

/* Run the runs the definition adds; the target at every value into holds[]. */
static int evaluate(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                    const nsd_sweep_opts *opts, nsd_sweep_tally *tally, const double *x, size_t nx,
                    int *holds) {
    char err[1200] = "";
    tally_at t = {def,
                  x,
                  nx,
                  calloc(nx, sizeof(size_t)),
                  calloc(nx, sizeof(size_t)),
                  calloc(nx, sizeof(double)),
                  0};
    if (!t.n || !t.hits || !t.sum) abort();
    nsd_sweep_visit visit = {NULL, count_row, &t};
    int rc = nsd_sweep_adaptive_exec(def, base, db_path, opts, tally, &visit, err, sizeof err);
    for (size_t i = 0; i < nx; ++i) {
        holds[i] = nsd_sweep_target_holds(&def->adaptive, t.n[i], t.hits[i], t.sum[i]);
        /* an interrupted step leaves a value with fewer runs: no answer from it */
        if (rc == 0 && t.n[i] != def->n_runs / nx) {
            snprintf(err, sizeof err,
                     "[sweep.adaptive]: %zu of the %zu runs at %s = %.12g are in the database "
                     "(interrupted?); run the same command again to go on",
                     t.n[i], def->n_runs / nx, def->axes[def->adaptive.axis].name, x[i]);
            rc = -1;
        }
    }
    if (rc == 0 && t.failed && !opts->quiet)
        fprintf(stderr, "sweep: adaptive: %zu failed runs counted as not reaching the target\n",
                t.failed);
    if (rc != 0 && err[0]) fprintf(stderr, "error: %s\n", err);
    free(t.n);
    free(t.hits);
    free(t.sum);
    return rc;
}

int nsd_sweep_adaptive_run(nsd_sweep_def *def, const nsd_scenario *base, const char *db_path,
                           const nsd_sweep_opts *opts, nsd_sweep_tally *tally, double *lo,
                           double *hi) {
    const nsd_sweep_adaptive *ad = &def->adaptive;
    const nsd_sweep_axis *ax = &def->axes[ad->axis];
    size_t cap = 256, nx = 2;
    double *x = calloc(cap, sizeof *x);
    int *holds = calloc(cap, sizeof *holds);
    if (!x || !holds) abort();
    x[0] = ax->start;
    x[1] = ax->stop;
    int rc = 0, warned = 0;
    for (;;) {
        qsort(x, nx, sizeof *x, cmp_double);
        nsd_sweep_set_values(def, (size_t)ad->axis, x, nx);
        if ((rc = evaluate(def, base, db_path, opts, tally, x, nx, holds)) != 0) break;
        if (holds[0] || !holds[nx - 1]) {
            fprintf(stderr,
                    "error: [sweep.adaptive] target \"%s\" %s at %s = %.12g: it must fail at "
                    "the axis's start and hold at its stop for a threshold between them\n",
                    ad->target, holds[0] ? "holds" : "fails", ax->name,
                    holds[0] ? x[0] : x[nx - 1]);
            rc = -1;
            break;
        }
        size_t k = 0; /* the first value where it holds */
        while (!holds[k]) ++k;
        for (size_t j = k; j < nx && !warned; ++j)
            if (!holds[j]) {
                fprintf(stderr,
                        "warning: [sweep.adaptive] target \"%s\" holds at %s = %.12g but not at "
                        "%.12g: it flips more than once; the answer is the first flip\n",
                        ad->target, ax->name, x[k], x[j]);
                warned = 1;
            }
        *lo = x[k - 1];
        *hi = x[k];
        double mid = midpoint(*lo, *hi);
        if (*hi - *lo <= ad->tolerance || mid <= *lo || mid >= *hi) break;
        if (nx == cap) {
            cap *= 2;
            x = realloc(x, cap * sizeof *x);
            holds = realloc(holds, cap * sizeof *holds);
            if (!x || !holds) abort();
        }
        x[nx++] = mid;
    }
    free(x);
    free(holds);
    return rc;
}
