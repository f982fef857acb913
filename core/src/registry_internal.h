/* What the registry's files share (registry.c, plugin_file.c,
 * registry_index.c); not part of the host's interface.
 *
 *   plugin_file.c     open one shared object and check its descriptors
 *   registry_index.c  the index format: read, write, audit against a file
 *   registry.c        the registry: scan or index a path, find, close
 *
 * Allocation failures abort (the host convention for out-of-memory in
 * bookkeeping; a run's own buffers fail the run instead). */
#ifndef NSD_REGISTRY_INTERNAL_H
#define NSD_REGISTRY_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

/* ---- small helpers ------------------------------------------------------ */

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

/* The four kinds, in ABI order. */
extern const nsdyn_kind nsd_all_kinds[4];

/* A plugin id: [a-z0-9_]+, at most NSD_MAX_ID_LEN characters. */
int nsd_valid_plugin_id(const char *id);

/* One descriptor of an opened file. */
typedef struct found {
    const nsdyn_plugin_info *info; /* NULL when it failed a check */
    char id[NSD_MAX_ID_LEN + 1];   /* its id when that is valid, else "" */
    char *problem;
} found;

void nsd_free_found(found *list, size_t n);

/* Open `f` (this runs its code) and check every descriptor. Returns a
 * problem of the whole file (then *n_out = 0), or NULL and the
 * descriptors, each with its own problem or none. */
char *nsd_open_plugin_file(nsd_plugin_file *f, found **out, size_t *n_out);
/* NULL for a regular file (through links), else why it is not opened. */
char *nsd_plugin_not_regular(const char *path);

/* Index flag: a contact law with local_impulse() and coefficients(). */
#define NSD_INDEX_LOCAL_IMPULSE 1u

/* The index flags a descriptor earns (NSD_INDEX_*). */
uint32_t nsd_descriptor_flags(const nsdyn_plugin_info *p);

/* An index entry: a placeholder descriptor until the file is opened. */
typedef struct index_entry {
    nsdyn_kind kind;
    char id[NSD_MAX_ID_LEN + 1];
    uint32_t provides, needs, flags;
} index_entry;

/* nsdyn_<kind>_<id>.so: the name alone says what a file without an index
 * holds. 1 and *e filled when `name` follows it. */
int nsd_index_name_convention(const char *name, index_entry *e);

/* Parse an index. Returns NULL and the entries, or the problem. */
char *nsd_index_parse(const char *path, index_entry **out, size_t *n_out);

/* Add file `path` (realpath `real`) to r; returns its number. */
size_t nsd_registry_add_file(nsd_registry *r, const char *path, const char *real, int by_name);

#endif
