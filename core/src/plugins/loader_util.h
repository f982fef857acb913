/* Small helpers the plugin loader's files share (plugin_file.c,
 * registry_index.c, registry.c, registry_audit.c); not part of the host's
 * interface. Allocation failures abort (the host convention for
 * out-of-memory in bookkeeping; a run's own buffers fail the run instead). */
#ifndef NSD_LOADER_UTIL_H
#define NSD_LOADER_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *dup_str(const char *s) {
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static inline char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static inline char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    int n = vasprintf(&s, f, ap);
    va_end(ap);
    if (n < 0) abort();
    return s;
}

static inline void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) abort();
    return p;
}

static inline void push_str(char ***list, size_t *n, char *s) {
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = s;
}

#endif
