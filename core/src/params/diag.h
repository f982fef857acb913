/* Diagnostics: a list of one-line errors, each "where: what", collected
 * while a config is checked so the user sees every problem at once. */
#ifndef NSD_DIAG_H
#define NSD_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "toml_adapter.h"

typedef struct nsd_diag {
    char **lines;
    size_t n, cap;
} nsd_diag;

/* "source:line:col: message" (or "source: message" without a position). */
void nsd_diag_at(nsd_diag *d, const nsd_toml_node *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A message with no config position. */
void nsd_diag_add(nsd_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append `suffix` to every message from index `first` on. */
void nsd_diag_suffix(nsd_diag *d, size_t first, const char *suffix);
void nsd_diag_print(const nsd_diag *d, FILE *out);
void nsd_diag_free(nsd_diag *d);

/* "source:line:col" of a node into buf. */
const char *nsd_node_where(const nsd_toml_node *node, char *buf, size_t len);

/* Closest candidate to `word` within a small edit distance, or NULL. */
const char *nsd_did_you_mean(const char *word, const char *const *candidates, size_t n);

/* One error per key of `table` not in `known`, at the key, "WHAT: unknown
 * key 'k' (did you mean 'x'?)". Returns the number of errors. */
size_t nsd_diag_unknown_keys(nsd_diag *d, const nsd_toml_node *table, const char *what,
                             const char *const *known, size_t n);

#endif
