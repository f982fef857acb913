/* The hold_stick solver (run.hold_stick): every persistent contact held
 * in stick, with the tangential force that keeps its tangential
 * acceleration zero: G x = -a_t, G = W_t M^-1 W_t^T, v' = a0 + B x
 * (docs/architecture.md, the runner). The tangential response itself,
 * nsd_model_tangent_response, is declared in model.h. */
#ifndef NSD_STICK_H
#define NSD_STICK_H

#include "model.h"

/* Forces (d->lambda) and v' (nv) at (t, y) with the stick constraints
 * solved; NSDYN_ERROR with d->failure when they are singular. */
nsdyn_status nsd_stick_solve(const nsd_model *m, nsd_data *data, double t, const double *y,
                             double *vdot);

#endif
