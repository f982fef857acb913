/* A small C view of a parsed TOML 1.0 document (parsed by toml++ behind a
 * C++17 adapter, so the rest of the host stays C). Every node remembers its
 * source (file name or "--set") and line/column for error messages. */
#ifndef NSD_TOML_ADAPTER_H
#define NSD_TOML_ADAPTER_H

#include <stddef.h>
#include <string.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nsd_toml_type {
    NSD_TOML_TABLE,
    NSD_TOML_ARRAY,
    NSD_TOML_STRING,
    NSD_TOML_INTEGER,
    NSD_TOML_FLOAT,
    NSD_TOML_BOOLEAN,
    NSD_TOML_DATETIME
} nsd_toml_type;

typedef struct nsd_toml_node {
    nsd_toml_type type;
    const char *source; /* file path or "--set", owned by the document */
    int line, column;   /* 1-based; 0 when unknown */
    char *key;          /* key in the parent table; NULL for array items */
    char *str;          /* STRING value, or DATETIME text */
    int64_t integer;
    double real;
    int boolean;
    struct nsd_toml_node *items; /* TABLE entries (in source order) or ARRAY items */
    size_t n_items;
} nsd_toml_node;

typedef struct nsd_toml_doc nsd_toml_doc;

/* Parse a file or a string; on failure NULL and "source:line:col: message"
 * in err. */
nsd_toml_doc *nsd_toml_parse_file(const char *path, char *err, size_t err_len);
nsd_toml_doc *nsd_toml_parse_string(const char *text, const char *source_name, char *err,
                                    size_t err_len);
void nsd_toml_free(nsd_toml_doc *doc);
nsd_toml_node *nsd_toml_root(nsd_toml_doc *doc);

/* A FLOAT or INTEGER node; its value is `real` in both (INTEGER sets both
 * `integer` and `real`). NULL: 0. */
static inline int nsd_toml_is_number(const nsd_toml_node *n) {
    return n && (n->type == NSD_TOML_FLOAT || n->type == NSD_TOML_INTEGER);
}

/* Entry `key` of a table, or NULL. */
const nsd_toml_node *nsd_toml_get(const nsd_toml_node *table, const char *key);
const char *nsd_toml_type_name(nsd_toml_type type);

/* Deep copy and release of a node tree (the copy keeps source pointers). */
void nsd_toml_node_copy(nsd_toml_node *dst, const nsd_toml_node *src);
void nsd_toml_node_clear(nsd_toml_node *node);
/* A number leaf (FLOAT x, no key) placed where `at` stands in its file:
 * a value given in the file and refined in code (an adaptive study's axis
 * values), never a config tree. Nothing to free. */
static inline nsd_toml_node nsd_toml_number_at(double x, const nsd_toml_node *at) {
    nsd_toml_node n;
    memset(&n, 0, sizeof n);
    n.type = NSD_TOML_FLOAT;
    n.real = x;
    n.source = at->source;
    n.line = at->line;
    n.column = at->column;
    return n;
}
/* Set table[key] = value (deep copy), replacing an existing entry. */
void nsd_toml_table_set(nsd_toml_node *table, const char *key, const nsd_toml_node *value);
/* Remove table[key] if present. */
void nsd_toml_table_remove(nsd_toml_node *table, const char *key);

#ifdef __cplusplus
}
#endif
#endif
