/* Parameter overrides (overrides.h): a list of section.key = value, each
 * value a leaf with its own origin. */
#define _GNU_SOURCE
#include "overrides.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const nsd_override_sections[] = {"system",     "contact", "friction",
                                             "integrator", "run",     "initial"};
const size_t nsd_n_override_sections =
    sizeof nsd_override_sections / sizeof nsd_override_sections[0];

static char *dup_or_die(const char *s) {
    char *p = strdup(s ? s : "");
    if (!p) abort();
    return p;
}

nsd_where nsd_where_of(const nsd_toml_node *node) {
    if (!node) return (nsd_where){"config", 0, 0};
    return (nsd_where){node->source, node->line, node->column};
}

static void clear_item(nsd_override *it) {
    nsd_toml_node_clear(&it->value);
    free(it->origin);
    free(it->section);
    memset(it, 0, sizeof *it);
}

static int index_of(const nsd_overrides *o, const char *section, const char *key) {
    for (size_t i = 0; o && i < o->n; ++i)
        if (!strcmp(o->items[i].section, section) && !strcmp(o->items[i].value.key, key))
            return (int)i;
    return -1;
}

const nsd_override *nsd_overrides_find(const nsd_overrides *o, const char *section,
                                       const char *key) {
    int i = index_of(o, section, key);
    return i < 0 ? NULL : &o->items[i];
}

void nsd_overrides_remove(nsd_overrides *o, const char *section, const char *key) {
    int i = index_of(o, section, key);
    if (i < 0) return;
    clear_item(&o->items[i]);
    memmove(&o->items[i], &o->items[i + 1], (o->n - (size_t)i - 1) * sizeof *o->items);
    o->n--;
}

/* Append a copy of the leaf v (its key, string and origin made the
 * list's own) as section.key, after dropping an earlier one. */
static int put(nsd_overrides *o, const char *section, const char *key, const nsd_toml_node *v,
               nsd_where at, char *err, size_t err_len) {
    size_t s = 0;
    while (s < nsd_n_override_sections && strcmp(nsd_override_sections[s], section ? section : ""))
        s++;
    if (s == nsd_n_override_sections) {
        snprintf(err, err_len,
                 "cannot override '%s.%s': expected a section one of system, contact, friction, "
                 "integrator, run, initial",
                 section ? section : "(null)", key ? key : "(null)");
        return -1;
    }
    if (!key || !*key) {
        snprintf(err, err_len, "cannot override a key of [%s]: the key is empty", section);
        return -1;
    }
    nsd_overrides_remove(o, section, key);
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        nsd_override *items = realloc(o->items, cap * sizeof *items);
        if (!items) abort();
        o->items = items;
        o->cap = cap;
    }
    nsd_override *it = &o->items[o->n++];
    memset(it, 0, sizeof *it);
    it->section = dup_or_die(section);
    it->value = *v;
    it->value.key = dup_or_die(key);
    it->value.str = v->str ? dup_or_die(v->str) : NULL;
    it->value.items = NULL;
    it->value.n_items = 0;
    it->origin = dup_or_die(at.source ? at.source : "config");
    it->value.source = it->origin;
    it->value.line = at.line;
    it->value.column = at.column;
    return 0;
}

int nsd_overrides_set_real(nsd_overrides *o, const char *section, const char *key, double value,
                           nsd_where at, char *err, size_t err_len) {
    nsd_toml_node v = {.type = NSD_TOML_FLOAT, .real = value};
    return put(o, section, key, &v, at, err, err_len);
}

int nsd_overrides_set_int(nsd_overrides *o, const char *section, const char *key, int64_t value,
                          nsd_where at, char *err, size_t err_len) {
    nsd_toml_node v = {.type = NSD_TOML_INTEGER, .integer = value, .real = (double)value};
    return put(o, section, key, &v, at, err, err_len);
}

int nsd_overrides_set_bool(nsd_overrides *o, const char *section, const char *key, int value,
                           nsd_where at, char *err, size_t err_len) {
    nsd_toml_node v = {.type = NSD_TOML_BOOLEAN, .boolean = value != 0};
    return put(o, section, key, &v, at, err, err_len);
}

int nsd_overrides_set_string(nsd_overrides *o, const char *section, const char *key,
                             const char *value, nsd_where at, char *err, size_t err_len) {
    nsd_toml_node v = {.type = NSD_TOML_STRING};
    if (put(o, section, key, &v, at, err, err_len) != 0) return -1;
    o->items[o->n - 1].value.str = dup_or_die(value);
    return 0;
}

int nsd_overrides_set_node(nsd_overrides *o, const char *section, const char *key,
                           const nsd_toml_node *value, nsd_where at, char *err, size_t err_len) {
    if (!value || value->type == NSD_TOML_TABLE || value->type == NSD_TOML_ARRAY ||
        value->type == NSD_TOML_DATETIME) {
        snprintf(err, err_len,
                 "cannot override '%s.%s' with %s: expected a number, a boolean or a "
                 "string",
                 section ? section : "(null)", key ? key : "(null)",
                 value ? nsd_toml_type_name(value->type) : "nothing");
        return -1;
    }
    return put(o, section, key, value, at, err, err_len);
}

void nsd_overrides_copy(nsd_overrides *dst, const nsd_overrides *src) {
    memset(dst, 0, sizeof *dst);
    nsd_overrides_merge(dst, src);
}

void nsd_overrides_merge(nsd_overrides *o, const nsd_overrides *src) {
    char err[8];
    for (size_t i = 0; src && i < src->n; ++i) {
        const nsd_override *it = &src->items[i];
        /* src's items passed put() once: they cannot be refused now */
        put(o, it->section, it->value.key, &it->value, nsd_where_of(&it->value), err, sizeof err);
    }
}

void nsd_overrides_free(nsd_overrides *o) {
    for (size_t i = 0; i < o->n; ++i) clear_item(&o->items[i]);
    free(o->items);
    memset(o, 0, sizeof *o);
}
