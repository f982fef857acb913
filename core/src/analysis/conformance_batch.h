/* The conformance check of a friction law's forces of all contacts in one
 * call (nsdyn/friction_batch.h), called by check_friction (conformance.c). */
#ifndef NSD_CONFORMANCE_BATCH_H
#define NSD_CONFORMANCE_BATCH_H

#include "conformance_probe.h"

/* When the law offers NSDYN_EXT_FRICTION_FORCES: a readable table, a law
 * without internal states (the host uses the batch only then), and at
 * random contacts, loads and slips the forces force() gives contact by
 * contact, bit for bit; no allocation. Nothing when it offers none. */
void nsd_cf_friction_batch(nsd_cf *c, const nsdyn_friction_law *f, void *inst);

#endif
