/* One plugin's conformance check in progress (conformance_probe.h). */
#include "conformance_probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin_file.h"

void nsd_cf_finding(nsd_cf *c, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    nsd_diag_add(c->diag, "%s '%s': %s", nsd_kind_name(c->p->kind), c->p->id, msg);
    c->out.findings++;
}

void nsd_cf_probe_start(nsd_cf *c) {
    if (c->probe) c->probe->start();
}

void nsd_cf_probe_stop(nsd_cf *c, const char *what) {
    if (!c->probe) return;
    unsigned long n = c->probe->stop();
    c->out.allocs_checked = 1;
    if (n) nsd_cf_finding(c, "%s allocated %lu times (a hot path must not allocate)", what, n);
}

int nsd_cf_same(const double *a, const double *b, size_t n) {
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}
