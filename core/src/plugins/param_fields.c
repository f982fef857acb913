/* A plugin's parameter struct filled by the host (param_fields.h). */
#include "param_fields.h"

#include <limits.h>
#include <math.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_calls.h"

const nsdyn_param_fields *nsd_plugin_param_fields(const nsdyn_plugin_info *info) {
    return nsd_plugin_extension(info, NSDYN_EXT_PARAM_FIELDS);
}

/* C name, size and alignment [bytes] of a member type. */
typedef struct member_kind {
    const char *c_name;
    size_t size, align;
} member_kind;

static member_kind kind_of(nsdyn_field_type t) {
    switch (t) {
        case NSDYN_FIELD_DOUBLE: return (member_kind){"double", sizeof(double), alignof(double)};
        case NSDYN_FIELD_INT: return (member_kind){"int", sizeof(int), alignof(int)};
        case NSDYN_FIELD_BOOL: return (member_kind){"_Bool", sizeof(bool), alignof(bool)};
        case NSDYN_FIELD_TEXT:
            return (member_kind){"const char *", sizeof(const char *), alignof(const char *)};
        case NSDYN_FIELD_ARRAY:
            return (member_kind){"const double *", sizeof(const double *), alignof(const double *)};
        case NSDYN_FIELD_UNSUPPORTED: break;
    }
    return (member_kind){NULL, 0, 0};
}

static const char *decl_type_name(nsdyn_param_type t) {
    switch (t) {
        case NSDYN_PARAM_REAL: return "REAL";
        case NSDYN_PARAM_INT: return "INT";
        case NSDYN_PARAM_BOOL: return "BOOL";
        case NSDYN_PARAM_CHOICE: return "CHOICE";
        case NSDYN_PARAM_REAL_ARRAY: return "REAL_ARRAY";
        case NSDYN_PARAM_STRING: return "STRING";
    }
    return "?";
}

/* Does a parameter declared `d` convert to a member of type t (plugin.h)? */
static bool converts(nsdyn_param_type d, nsdyn_field_type t) {
    switch (t) {
        case NSDYN_FIELD_DOUBLE:
            return d == NSDYN_PARAM_REAL || d == NSDYN_PARAM_INT || d == NSDYN_PARAM_BOOL ||
                   d == NSDYN_PARAM_CHOICE;
        case NSDYN_FIELD_INT:
            return d == NSDYN_PARAM_INT || d == NSDYN_PARAM_BOOL || d == NSDYN_PARAM_CHOICE;
        case NSDYN_FIELD_BOOL: return d == NSDYN_PARAM_BOOL;
        case NSDYN_FIELD_TEXT: return d == NSDYN_PARAM_STRING;
        case NSDYN_FIELD_ARRAY: return d == NSDYN_PARAM_REAL_ARRAY;
        case NSDYN_FIELD_UNSUPPORTED: break;
    }
    return false;
}

static int fail(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t len, const char *fmt, ...) {
    if (why && len) {
        int k = snprintf(why, len, "%s: ", NSDYN_EXT_PARAM_FIELDS);
        va_list ap;
        va_start(ap, fmt);
        if (k >= 0 && (size_t)k < len) vsnprintf(why + k, len - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A byte range of the struct that one parameter's member occupies. */
typedef struct region {
    size_t begin, end; /* [begin, end) [bytes] */
    const char *name;
    const char *what; /* "" or " count" */
} region;

/* One member of `size` bytes and alignment `align` at `offset`: inside the
 * struct and aligned. */
static int place(const nsdyn_param_fields *f, const char *name, const char *what, size_t offset,
                 size_t size, size_t align, const char *c_name, char *why, size_t len) {
    if (offset > f->size || size > f->size - offset)
        return fail(why, len,
                    "parameter '%s':%s member at offset %zu (%zu bytes) ends past the struct's "
                    "%zu bytes",
                    name, what, offset, size, f->size);
    if (offset % align)
        return fail(why, len,
                    "parameter '%s':%s member at offset %zu is not aligned for its type %s "
                    "(%zu bytes)",
                    name, what, offset, c_name, align);
    return 0;
}

/* Entry i against declaration d: its name, C type, size, range, place. */
static int check_entry(const nsdyn_param_fields *f, size_t i, const nsdyn_param_decl *d, region *r,
                       size_t *n_r, char *why, size_t len) {
    const nsdyn_param_field *x = &f->field[i];
    if (!x->name || strcmp(x->name, d->name) != 0)
        return fail(why, len,
                    "entry %zu names '%s', but declared parameter %zu is '%s' (one entry per "
                    "parameter, in declaration order)",
                    i + 1, x->name ? x->name : "(null)", i + 1, d->name);
    member_kind k = kind_of(x->type);
    if (!k.c_name)
        return fail(why, len,
                    "parameter '%s': its member's C type is none the host fills (double, int, "
                    "_Bool, const char *, const double *)",
                    d->name);
    if (!converts(d->type, x->type))
        return fail(why, len, "parameter '%s' is declared %s, but its member's C type is %s",
                    d->name, decl_type_name(d->type), k.c_name);
    if (x->size != k.size)
        return fail(why, len, "parameter '%s': its %s member is %zu bytes, a %s is %zu", d->name,
                    k.c_name, x->size, k.c_name, k.size);
    if (x->type == NSDYN_FIELD_INT && d->type == NSDYN_PARAM_INT &&
        !(d->min >= (double)INT_MIN && d->max <= (double)INT_MAX))
        return fail(why, len,
                    "parameter '%s' is an int member, but its declared range [%g, %g] exceeds "
                    "int's [%d, %d]",
                    d->name, d->min, d->max, INT_MIN, INT_MAX);
    if (place(f, d->name, "", x->offset, x->size, k.align, k.c_name, why, len)) return -1;
    r[(*n_r)++] = (region){x->offset, x->offset + x->size, d->name, ""};
    if (x->type != NSDYN_FIELD_ARRAY) return 0;
    if (x->count_size != sizeof(size_t))
        return fail(why, len, "parameter '%s': its count member is %zu bytes, a size_t is %zu",
                    d->name, x->count_size, sizeof(size_t));
    if (place(f, d->name, " count", x->count_offset, x->count_size, alignof(size_t), "size_t", why,
              len))
        return -1;
    r[(*n_r)++] = (region){x->count_offset, x->count_offset + x->count_size, d->name, " count"};
    return 0;
}

int nsd_param_fields_check(const nsdyn_param_fields *f, const nsdyn_param_decl *decls, size_t n,
                           char *why, size_t why_len) {
    if (f->struct_size < offsetof(nsdyn_param_fields, create) + sizeof f->create ||
        (f->n && !f->field) || !f->create)
        return fail(why, why_len, "its table is cut short, or has no entries or no create()");
    if (f->align == 0 || (f->align & (f->align - 1)) || f->align > alignof(max_align_t) ||
        f->size == 0 || f->size % f->align)
        return fail(why, why_len,
                    "a struct of %zu bytes aligned to %zu (the alignment a power of two up to "
                    "%zu, dividing the size)",
                    f->size, f->align, alignof(max_align_t));
    if (f->n != n) return fail(why, why_len, "%zu entries for %zu declared parameters", f->n, n);
    region *r = malloc((2 * n + 1) * sizeof *r);
    if (!r) return fail(why, why_len, "out of memory");
    size_t n_r = 0;
    int st = 0;
    for (size_t i = 0; i < n && !st; ++i) st = check_entry(f, i, &decls[i], r, &n_r, why, why_len);
    for (size_t a = 0; a < n_r && !st; ++a)
        for (size_t b = a + 1; b < n_r && !st; ++b)
            if (r[a].begin < r[b].end && r[b].begin < r[a].end)
                st = fail(why, why_len,
                          "parameter '%s'%s (bytes %zu to %zu) overlaps parameter '%s'%s (bytes "
                          "%zu to %zu)",
                          r[b].name, r[b].what, r[b].begin, r[b].end - 1, r[a].name, r[a].what,
                          r[a].begin, r[a].end - 1);
    free(r);
    return st;
}

/* Is v a value an int or _Bool member holds exactly: an integer, for INT
 * inside the declared range, for BOOL 0 or 1, for CHOICE an index of the
 * list? A value that does not convert is refused, never truncated (a
 * caller that bypassed the host's resolver: a test, another host). */
static bool holds_exactly(const nsdyn_param_decl *d, double v) {
    if (!(v == floor(v))) return false; /* NaN and fractions */
    switch (d->type) {
        case NSDYN_PARAM_INT: return v >= d->min && v <= d->max;
        case NSDYN_PARAM_BOOL: return v == 0.0 || v == 1.0;
        case NSDYN_PARAM_CHOICE: {
            size_t n = 0;
            while (d->choices && d->choices[n]) ++n;
            return v >= 0.0 && v < (double)n;
        }
        default: return true;
    }
}

int nsd_param_fields_fill(const nsdyn_param_fields *f, const nsdyn_param_decl *decls,
                          const nsdyn_value *values, size_t n, void *block, char *why,
                          size_t why_len) {
    for (size_t i = 0; i < n && i < f->n; ++i) {
        const nsdyn_param_field *x = &f->field[i];
        const nsdyn_value *v = &values[i];
        char *at = (char *)block + x->offset;
        if ((x->type == NSDYN_FIELD_INT || x->type == NSDYN_FIELD_BOOL) &&
            !holds_exactly(&decls[i], v->num)) {
            snprintf(why, why_len, "%s = %.17g is not a value its %s member holds exactly (%s)",
                     decls[i].name, v->num, kind_of(x->type).c_name,
                     decls[i].type == NSDYN_PARAM_INT    ? "an integer in its declared range"
                     : decls[i].type == NSDYN_PARAM_BOOL ? "0 or 1"
                                                         : "an index of its choices");
            return -1;
        }
        switch (x->type) {
            case NSDYN_FIELD_DOUBLE: memcpy(at, &v->num, sizeof(double)); break;
            case NSDYN_FIELD_INT: {
                int k = (int)v->num; /* exact: holds_exactly() */
                memcpy(at, &k, sizeof k);
                break;
            }
            case NSDYN_FIELD_BOOL: {
                bool b = v->num != 0.0;
                memcpy(at, &b, sizeof b);
                break;
            }
            case NSDYN_FIELD_TEXT: {
                const char *t = nsdyn_value_text(v);
                memcpy(at, &t, sizeof t);
                break;
            }
            case NSDYN_FIELD_ARRAY: {
                const double *a = v->arr;
                size_t len = v->len;
                memcpy(at, &a, sizeof a);
                memcpy((char *)block + x->count_offset, &len, sizeof len);
                break;
            }
            case NSDYN_FIELD_UNSUPPORTED: break; /* refused at load */
        }
    }
    return 0;
}

void *nsd_plugin_create(const nsdyn_plugin_info *info, const nsdyn_value *values,
                        const nsdyn_host *host, char *err, size_t err_len) {
    const nsdyn_param_fields *f = nsd_plugin_param_fields(info);
    if (!f) {
        if (info->create) return info->create(values, host, err, err_len);
        snprintf(err, err_len, "plugin '%s' has no create()", info->id);
        return NULL;
    }
    if (!values && info->n_params) { /* the guard each integrator kept before 2.6 */
        snprintf(err, err_len, "plugin '%s': no parameter values given", info->id);
        return NULL;
    }
    /* checked at load too; again here for a caller that opened the
     * plugin itself (a test), so no table fills a struct it does not fit */
    char why[384];
    if (nsd_param_fields_check(f, info->params, info->n_params, why, sizeof why)) {
        snprintf(err, err_len, "plugin '%s': %s", info->id, why);
        return NULL;
    }
    /* calloc's memory suits every fundamental alignment, and the table's
     * is at most alignof(max_align_t) (checked) */
    void *block = calloc(1, f->size);
    if (!block) {
        snprintf(err, err_len, "out of memory for %zu bytes of parameters", f->size);
        return NULL;
    }
    void *inst = NULL;
    if (nsd_param_fields_fill(f, info->params, values, info->n_params, block, why, sizeof why))
        snprintf(err, err_len, "plugin '%s': %s", info->id, why);
    else
        inst = f->create(block, host, err, err_len);
    free(block);
    return inst;
}
