/* The conformance checks of contact laws and integrators
 * (conformance_laws.c), called by nsd_conformance_check. */
#ifndef NSD_CONFORMANCE_LAWS_H
#define NSD_CONFORMANCE_LAWS_H

#include "conformance_probe.h"

void nsd_cf_contact(nsd_cf *c, const nsdyn_contact_law *law, void *inst);
void nsd_cf_integrator(nsd_cf *c, const nsdyn_integrator *ig, void *inst,
                       const nsdyn_value *defaults, const nsdyn_host *host);

#endif
