/* A compliant contact held at gap_rate = 0 by a rate-discontinuous law
 * (NSDYN_CAP_RATE_DISCONTINUITY, e.g. bistiffness): Filippov's attracting
 * sliding surface (docs/event-driven.md "Bi-stiffness at rest"). */
#ifndef NSD_RATE_HOLD_H
#define NSD_RATE_HOLD_H

#include "model.h"

/* At (t, y), with contact c penetrating and its gap rate at zero (a rate
 * event): the law's force just on the compression side (gap_rate -> 0-)
 * and on the expansion side (gap_rate -> 0+) into f_comp_N, f_exp_N [N],
 * and 1 when both sides push the gap rate back to zero (the compression
 * force opens the gap, the expansion force closes it): the contact can
 * neither compress nor expand and Filippov's solution holds it at rest.
 * 0 otherwise; -1 on a plugin failure (m->d->failure). Uses ydot (n), m->d->lambda,
 * m->d->a0 and the contact rows (m->d->W) as scratch. */
int nsd_rate_held(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                  size_t c, double *f_comp_N, double *f_exp_N);

#endif
