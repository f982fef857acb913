/* The allocation probe (alloc_probe.h): malloc and friends replaced by
 * forwarders to glibc that count while a probe is started on the thread. */
#include "alloc_probe.h"

#include <errno.h>

/* glibc's own entry points (exported since GLIBC_2.2.5). */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Thread_local int counting;
static _Thread_local unsigned long count;

#define COUNT()                \
    do {                       \
        if (counting) ++count; \
    } while (0)

void *malloc(size_t size) {
    COUNT();
    return __libc_malloc(size);
}
void *calloc(size_t n, size_t size) {
    COUNT();
    return __libc_calloc(n, size);
}
void *realloc(void *p, size_t size) {
    COUNT();
    return __libc_realloc(p, size);
}
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) {
    COUNT();
    return __libc_memalign(alignment, size);
}
void *aligned_alloc(size_t alignment, size_t size) {
    COUNT();
    return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
    COUNT();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1))) return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

static void start(void) {
    count = 0;
    counting = 1;
}

static unsigned long stop(void) {
    counting = 0;
    return count;
}

static const nsd_alloc_probe probe = {start, stop};

const nsd_alloc_probe *nsd_alloc_probe_get(void) { return &probe; }
