/* The plugin index (FILE.so.nsdyn-index), its format and reading it
 * (registry_index.c); audit and writing: registry_audit.c. */
#ifndef NSD_REGISTRY_INDEX_H
#define NSD_REGISTRY_INDEX_H

#include "plugin_file.h"

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

/* The same; with `absent` non-NULL, a missing file is no problem: NULL, no
 * entries and *absent = 1 (a plugin without an index). */
char *nsd_index_read(const char *path, index_entry **out, size_t *n_out, int *absent);

#endif
