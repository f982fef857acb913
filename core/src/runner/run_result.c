/* A finished run's result (run.h): its events counted by kind, and its
 * buffers freed. */
#include <stdlib.h>
#include <string.h>

#include "run_result.h"

void nsd_run_count_events(const nsd_run_result *res, nsd_event_counts *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < res->contact_log.n; ++i) {
        nsd_event_kind k = res->contact_log.rec[i].kind;
        if (k < NSD_EVENT_KIND_COUNT) out->contact[k]++;
    }
    out->switches = res->n_switches;
    out->stops = res->n_stops;
    out->total = res->contact_log.n + out->switches + out->stops;
}

void nsd_run_result_free(nsd_run_result *res) {
    free(res->series.data);
    free(res->series.sampled);
    free(res->y0);
    free(res->event_times);
    nsd_event_log_free(&res->contact_log);
    nsd_runlog_free(&res->log);
    memset(res, 0, sizeof *res);
}
