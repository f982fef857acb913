/* The sample store of a run: every channel on the output grid, grown by
 * doubling (run_internal.h nsd_run_record). */
#define _POSIX_C_SOURCE 200809L
#include "run_internal.h"
#include "run_watch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sample storage grows by doubling: recording happens at output times, not
 * inside right-hand sides, and is reserved up front for the expected rows.
 * NULL when the memory is not there (the series keeps its rows). */
static double *append_row(nsd_series *s) {
    if (s->rows == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        double *d = realloc(s->data, cap * s->n_channels * sizeof *d);
        if (!d) return NULL;
        s->data = d;
        s->cap = cap;
    }
    return s->data + (s->rows++) * s->n_channels;
}

int nsd_run_record(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                   const double *y) {
    nsd_run_watch_lock(); /* a watching thread reads the series (run_watch.h) */
    double *row = append_row(&res->series);
    nsd_run_watch_unlock();
    if (!row) {
        snprintf(res->message, sizeof res->message,
                 "out of memory for sample %zu at t = %.9g s (%zu channels)", res->series.rows + 1,
                 t, res->series.n_channels);
        return -1;
    }
    /* only the channels asked for (run settings sample_channels) */
    nsdyn_status st = nsd_model_sample_some(m, data, t, y, res->series.sampled, row);
    if (st > NSDYN_WARNING) {
        res->series.rows--;
        snprintf(res->message, sizeof res->message, "%s", data->failure);
        return -1;
    }
    if (!res->series.sampled) nsd_run_watch_publish(res);
    return 0;
}
