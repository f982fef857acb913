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
size_t nsd_run_simulation(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host,
                          const char *label, nsd_run_result *res, nsd_diag *diag);

#endif
