/* One plugin's conformance check in progress (conformance_probe.h). */
#include "conformance_probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plugin_file.h"

void nsd_cf_finding(nsd_cf *c, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->out.findings++;
    if (c->fd < 0) {
        nsd_diag_add(c->diag, "%s '%s': %s", nsd_kind_name(c->p->kind), c->p->id, msg);
        return;
    }
    /* one line down the pipe, now: a crash after it does not lose it */
    for (char *nl = strchr(msg, '\n'); nl; nl = strchr(nl, '\n')) *nl = ' ';
    char line[1200];
    int n = snprintf(line, sizeof line, "%s '%s': %s\n", nsd_kind_name(c->p->kind), c->p->id, msg);
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1, line[n - 1] = '\n';
    for (int done = 0; done < n;) {
        ssize_t w = write(c->fd, line + done, (size_t)(n - done));
        if (w <= 0) break;
        done += (int)w;
    }
}

void nsd_cf_at(nsd_cf *c, const char *fmt, ...) {
    if (!c->where) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->where, NSD_CF_WHERE_LEN, fmt, ap);
    va_end(ap);
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
