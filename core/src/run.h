/* Running one simulation: drive the integrator over the composed model,
 * sample the channels, detect trouble, keep what was computed. */
#ifndef NSD_RUN_H
#define NSD_RUN_H

#include "config.h"
#include "model.h"
#include "modes.h"

typedef struct nsd_series {
    size_t n_channels;
    size_t rows, cap;
    double *data; /* rows x n_channels, row-major */
} nsd_series;

typedef enum nsd_run_outcome {
    NSD_RUN_COMPLETE = 0, /* reached t_end */
    NSD_RUN_STOPPED = 1,  /* a stop condition of the system fired */
    NSD_RUN_FAILED = 2    /* numerical failure: data are incomplete */
} nsd_run_outcome;

typedef struct nsd_run_result {
    nsd_series series;
    nsd_run_outcome outcome;
    char message[2048];       /* failure or stop description, with time and state */
    double t_reached;
    nsdyn_integrator_stats stats;
    double wall_seconds;
    double *event_times;      /* located stop events */
    size_t n_events;
    nsd_event_log contact_log;  /* event-driven contact: impacts and mode changes */
} nsd_run_result;

/* Create the integrator of cfg and run the model from its initial state.
 * Returns 0 if the run could start (then see res->outcome), or the number
 * of config errors added to diag. `label` prefixes progress lines. */
size_t nsd_run_simulation(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host,
                          const char *label, nsd_run_result *res, nsd_diag *diag);
void nsd_run_result_free(nsd_run_result *res);

/* Value of channel c at row r. */
static inline double nsd_series_at(const nsd_series *s, size_t r, size_t c) {
    return s->data[r * s->n_channels + c];
}

#endif
