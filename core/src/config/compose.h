/* Composition check: is this system + contact law + friction law +
 * integrator a combination that can run? Refused before anything runs, with
 * a message naming what would work. */
#ifndef NSD_COMPOSE_H
#define NSD_COMPOSE_H

#include "config.h"

size_t nsd_compose_check(const nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag);

#endif
