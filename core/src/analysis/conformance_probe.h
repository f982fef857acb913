/* What conformance.c and conformance_laws.c share: one plugin's check in
 * progress, its findings, the allocation probe around hot paths
 * (conformance_probe.c). */
#ifndef NSD_CONFORMANCE_PROBE_H
#define NSD_CONFORMANCE_PROBE_H

#include "alloc_probe.h"
#include "diag.h"
#include "nsdyn/nsdyn.h"

typedef struct nsd_conformance {
    size_t findings;      /* lines added to diag */
    int instance_checked; /* 0: declarations only (a required parameter) */
    int allocs_checked;   /* the hot paths ran under an allocation probe */
} nsd_conformance;

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

#endif
