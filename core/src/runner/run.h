/* Running one simulation: drive the integrator over the composed model,
 * sample the channels, detect trouble, keep what was computed. */
#ifndef NSD_RUN_H
#define NSD_RUN_H

#include "config.h"
#include "model.h"
#include "modes.h"
#include "run_result.h"

/* Create the integrator of cfg and run the model from its initial state.
 * Returns 0 if the run could start (then see res->outcome), or the number
 * of config errors added to diag. `label` prefixes progress lines. */
size_t nsd_run_simulation(const nsd_model *m, nsd_data *d, const nsd_config *cfg,
                          const nsdyn_host *host, const char *label, nsd_run_result *res,
                          nsd_diag *diag);

/* A run in progress, advanced a step at a time (the host API's step, run
 * to a time, run to the next event): what one run changes besides the
 * model and its result (the integrator instance, the clock, the output
 * grid, the event bookkeeping, the buffers) lives here between calls.
 * nsd_run_simulation is begin, steps while they go on, end, so a run
 * advanced in parts is the same run, bit for bit. */
typedef struct nsd_run nsd_run;

/* Create the integrator, resolve the initial contact modes, set up, take
 * the first sample. Returns the number of config errors (then *run is
 * NULL: nothing ran); else *run, which may have ended already (a failure
 * at the start: res->outcome FAILED). NULL with 0: out of memory (the
 * outcome FAILED, the message in res). */
size_t nsd_run_begin(const nsd_model *m, nsd_data *d, const nsd_config *cfg, const nsdyn_host *host,
                     const char *label, nsd_run_result *res, nsd_diag *diag, nsd_run **run);
/* One integrator step with its samples and events. Returns 1 while more
 * steps may follow, 0 once the run has ended (t_end reached, a stop, a
 * failure: see res->outcome) or had ended before the call. */
int nsd_run_step(nsd_run *r);
/* The last accepted time [s] and state (m->n values, valid until the
 * next step or the end); returns 1 while the run goes on. */
int nsd_run_where(const nsd_run *r, double *t, const double **y);
/* res->t_reached, wall_seconds and the integrator's statistics so far. */
void nsd_run_peek(nsd_run *r);
/* The last sample of a run that completed (if the output grid missed
 * t_end), the statistics, and free r. A run ended before its end keeps
 * its samples and counters as they are (its outcome unchanged). */
void nsd_run_end(nsd_run *r);

#endif
