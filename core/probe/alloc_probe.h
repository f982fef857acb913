/* Counting the allocations a piece of code makes: the conformance checks'
 * "no allocation in a hot path" (nsdyn check, test_conformance).
 *
 * alloc_probe.c replaces malloc, calloc, realloc, free, memalign,
 * aligned_alloc and posix_memalign by definitions that forward to glibc's
 * own (__libc_*) and count the allocating calls while a probe is started.
 * Linked into an executable built with ENABLE_EXPORTS (-rdynamic), these
 * definitions also serve libnsdyn.so and the plugins it dlopens (glibc
 * "Replacing malloc"). Not built with sanitizers, which replace malloc
 * themselves; nsd_alloc_probe_get() then returns NULL and the check is
 * skipped (and says so). */
#ifndef NSD_ALLOC_PROBE_H
#define NSD_ALLOC_PROBE_H

#include <stddef.h>

typedef struct nsd_alloc_probe {
    void (*start)(void);         /* count from now, on this thread */
    unsigned long (*stop)(void); /* stop; the allocating calls seen */
} nsd_alloc_probe;

/* The probe (alloc_probe.c): only executables that link alloc_probe.c
 * have it, and they pass it on (nsd_cmd_check, nsd_conformance_check). */
const nsd_alloc_probe *nsd_alloc_probe_get(void);

#endif
