/* Parameter overrides: the one way a study, an analysis or the host API
 * changes a value of an opened config (a sweep's run, pcmap's `along`, a
 * continuation point, nsdyn_data_set_param). An override names a section
 * (system, contact, friction, integrator, run, initial), a key and a typed
 * value; nsd_config_derive takes a list of them and nsd_config_resolve
 * checks each against the declarations of the section's plugin (or the
 * host's [run] keys, or the system's states for [initial]) exactly as it
 * checks the file's key, with the same messages, placed at the override's
 * own origin (the [[sweep.axis]] that set it, "[pcmap]", "--set ...").
 *
 * The config's tree is never written: an override stands in for the
 * file's entry of the same key while the section is resolved (or follows
 * the file's entries when the file has no such key). An override of a
 * section's `id` naming another plugin drops the file's keys of that
 * section, as a [[variant]] does (docs/configs.md).
 *
 * Each value is kept as one leaf value (number, boolean or string) with
 * its origin, owned by the list, so the resolved parameters can point at
 * it as they point at the file's entries. */
#ifndef NSD_OVERRIDES_H
#define NSD_OVERRIDES_H

#include <stddef.h>
#include <stdint.h>

#include "toml_adapter.h"

/* Where an override comes from, for messages: "source:line:col", or just
 * "source" when line is 0. */
typedef struct nsd_where {
    const char *source;
    int line, column;
} nsd_where;

typedef struct nsd_override {
    char *section;       /* one of nsd_override_sections */
    nsd_toml_node value; /* a leaf: value.key is the key, value.source is origin */
    char *origin;        /* "source" of nsd_where, owned */
} nsd_override;

typedef struct nsd_overrides {
    nsd_override *items; /* in the order set */
    size_t n, cap;
} nsd_overrides;

/* The sections an override may name. */
extern const char *const nsd_override_sections[];
extern const size_t nsd_n_override_sections;

/* The position of a config node (its source, line and column). */
nsd_where nsd_where_of(const nsd_toml_node *node);

/* Set section.key to a value: an earlier override of the same key is
 * dropped and the new one appended (the order a [[variant]] table's keys
 * take, nsd_toml_table_set). Returns 0, or -1 with the reason in err
 * when the section is not one of nsd_override_sections or the key is
 * empty. */
int nsd_overrides_set_real(nsd_overrides *o, const char *section, const char *key, double value,
                           nsd_where at, char *err, size_t err_len);
/* value as an integer: an INT parameter takes it, a REAL one reads it as a
 * number (as the file's `n = 3`). */
int nsd_overrides_set_int(nsd_overrides *o, const char *section, const char *key, int64_t value,
                          nsd_where at, char *err, size_t err_len);
int nsd_overrides_set_bool(nsd_overrides *o, const char *section, const char *key, int value,
                           nsd_where at, char *err, size_t err_len);
int nsd_overrides_set_string(nsd_overrides *o, const char *section, const char *key,
                             const char *value, nsd_where at, char *err, size_t err_len);
/* A value taken from the config (a [[sweep.axis]] values entry): a number,
 * boolean or string; a table, array or date is refused (-1, err). */
int nsd_overrides_set_node(nsd_overrides *o, const char *section, const char *key,
                           const nsd_toml_node *value, nsd_where at, char *err, size_t err_len);

/* The override of section.key, or NULL. */
const nsd_override *nsd_overrides_find(const nsd_overrides *o, const char *section,
                                       const char *key);
/* Remove the override of section.key (if any). */
void nsd_overrides_remove(nsd_overrides *o, const char *section, const char *key);
/* dst = src (deep). dst is overwritten (not freed first). */
void nsd_overrides_copy(nsd_overrides *dst, const nsd_overrides *src);
/* Lay src over o: each of src's overrides set in o, in src's order. */
void nsd_overrides_merge(nsd_overrides *o, const nsd_overrides *src);
void nsd_overrides_free(nsd_overrides *o);

#endif
