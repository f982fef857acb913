/* What conformance.c and conformance_laws.c share. */
#ifndef NSD_CONFORMANCE_INTERNAL_H
#define NSD_CONFORMANCE_INTERNAL_H

#include "conformance.h"
#include "registry.h"

typedef struct nsd_cf {
    const nsdyn_plugin_info *p;
    const nsd_alloc_probe *probe;
    nsd_diag *diag;
    nsd_conformance out;
} nsd_cf;

/* One finding: "<kind> '<id>': <message>". */
void nsd_cf_finding(nsd_cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Count allocations between start and stop; stop reports `what` if any. */
void nsd_cf_probe_start(nsd_cf *c);
void nsd_cf_probe_stop(nsd_cf *c, const char *what);
/* The same bits. */
int nsd_cf_same(const double *a, const double *b, size_t n);

void nsd_cf_contact(nsd_cf *c, const nsdyn_contact_law *law, void *inst);
void nsd_cf_integrator(nsd_cf *c, const nsdyn_integrator *ig, void *inst,
                       const nsdyn_value *defaults, const nsdyn_host *host);

#endif
