#define _GNU_SOURCE
#include "params.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Shortest of %.15g / %.17g that reads back as exactly x. */
static void fmt_real(char *buf, size_t len, double x) {
    snprintf(buf, len, "%.15g", x);
    if (strtod(buf, NULL) != x) snprintf(buf, len, "%.17g", x);
}

/* "a float (2.5)", "a string (\"abc\")", "a table" */
static const char *found_text(const nsd_toml_node *v, char *buf, size_t len) {
    char num[40];
    switch (v->type) {
        case NSD_TOML_FLOAT:
        case NSD_TOML_INTEGER:
            fmt_real(num, sizeof num, v->real);
            snprintf(buf, len, "%s (%s)", nsd_toml_type_name(v->type), num);
            break;
        case NSD_TOML_STRING: snprintf(buf, len, "a string (\"%.60s\")", v->str); break;
        case NSD_TOML_BOOLEAN:
            snprintf(buf, len, "a boolean (%s)", v->boolean ? "true" : "false");
            break;
        default: snprintf(buf, len, "%s", nsd_toml_type_name(v->type)); break;
    }
    return buf;
}

static const char *type_text(nsdyn_param_type t) {
    switch (t) {
        case NSDYN_PARAM_REAL: return "a real number";
        case NSDYN_PARAM_INT: return "an integer";
        case NSDYN_PARAM_BOOL: return "a boolean";
        case NSDYN_PARAM_CHOICE: return "a string";
        case NSDYN_PARAM_REAL_ARRAY: return "an array of real numbers";
        case NSDYN_PARAM_STRING: return "a string";
    }
    return "a value";
}

int nsd_params_index(const nsdyn_param_decl *decls, size_t n, const char *name) {
    for (size_t i = 0; i < n; ++i)
        if (strcmp(decls[i].name, name) == 0) return (int)i;
    return -1;
}

double nsd_params_num(const nsd_params *p, const char *name) {
    int i = nsd_params_index(p->decls, p->n, name);
    return i < 0 ? NAN : p->values[i].num;
}

void nsd_params_range_text(const nsdyn_param_decl *d, char *buf, size_t len) {
    int lo = isfinite(d->min), hi = isfinite(d->max);
    int lo_x = (d->flags & NSDYN_PARAM_MIN_EXCLUSIVE) != 0;
    int hi_x = (d->flags & NSDYN_PARAM_MAX_EXCLUSIVE) != 0;
    char a[40], b[40];
    fmt_real(a, sizeof a, d->min);
    fmt_real(b, sizeof b, d->max);
    if (lo && hi)
        snprintf(buf, len, "%c%s, %s%c", lo_x ? '(' : '[', a, b, hi_x ? ')' : ']');
    else if (lo)
        snprintf(buf, len, "%s %s", lo_x ? ">" : ">=", a);
    else if (hi)
        snprintf(buf, len, "%s %s", hi_x ? "<" : "<=", b);
    else
        snprintf(buf, len, "any");
}

static int in_range(const nsdyn_param_decl *d, double x) {
    if (isnan(x)) return 0;
    if (isfinite(d->min) &&
        ((d->flags & NSDYN_PARAM_MIN_EXCLUSIVE) ? !(x > d->min) : !(x >= d->min)))
        return 0;
    if (isfinite(d->max) &&
        ((d->flags & NSDYN_PARAM_MAX_EXCLUSIVE) ? !(x < d->max) : !(x <= d->max)))
        return 0;
    return 1;
}

/* A value the declaration admits as a number at all: finite, or +-inf
 * where the declaration says so (NSDYN_PARAM_NONFINITE); NaN never. */
static int finite_ok(const nsdyn_param_decl *d, double x) {
    if (isnan(x)) return 0;
    return isfinite(x) || (d->flags & NSDYN_PARAM_NONFINITE);
}

int nsd_params_admits(const nsdyn_param_decl *d, double x) {
    return finite_ok(d, x) && in_range(d, x);
}

static size_t n_choices(const nsdyn_param_decl *d) {
    size_t k = 0;
    while (d->choices && d->choices[k]) k++;
    return k;
}

/* A STRING value: the text, in double-aligned storage (nsdyn_value_text);
 * with NSDYN_PARAM_PATH the absolute path of a readable file, resolved
 * against the folder of the file that set it. Returns the errors added. */
static size_t convert_text(nsd_params *p, size_t i, const nsd_toml_node *v, const char *section,
                           nsd_diag *diag) {
    const nsdyn_param_decl *d = &p->decls[i];
    char found[128];
    if (v->type != NSD_TOML_STRING) {
        nsd_diag_at(diag, v, "%s key '%s': expected a string, found %s", section, d->name,
                    found_text(v, found, sizeof found));
        return 1;
    }
    const char *text = v->str;
    char joined[PATH_MAX], real[PATH_MAX];
    if (d->flags & NSDYN_PARAM_PATH) {
        /* a --set value's source is "--set KEY=VALUE" (config.c): no folder */
        const char *src = v->source && strncmp(v->source, "--set", 5) ? v->source : "";
        const char *slash = strrchr(src, '/');
        if (text[0] == '/' || !slash)
            snprintf(joined, sizeof joined, "%s", text);
        else
            snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - src), src, text);
        if (!text[0] || !realpath(joined, real) || access(real, R_OK) != 0) {
            nsd_diag_at(diag, v, "%s key '%s': cannot read file \"%s\" (looked for %s; %s)",
                        section, d->name, text, joined,
                        !text[0]  ? "the name is empty"
                        : src[0] ? "relative paths start at the config file's folder"
                                 : "relative paths from --set start at the working folder");
            return 1;
        }
        text = real;
    }
    size_t len = strlen(text);
    double *store = calloc(len / sizeof(double) + 1, sizeof(double));
    if (!store) abort();
    memcpy(store, text, len);
    free(p->arrays[i]);
    p->arrays[i] = store;
    p->values[i].arr = store;
    p->values[i].len = len;
    return 0;
}

/* Convert one value; returns 0 on success, else adds one error. */
static size_t convert(nsd_params *p, size_t i, const nsd_toml_node *v, const char *section,
                      nsd_diag *diag) {
    const nsdyn_param_decl *d = &p->decls[i];
    char range[96], found[128], num[40];
    nsd_params_range_text(d, range, sizeof range);
    switch (d->type) {
        case NSDYN_PARAM_REAL:
        case NSDYN_PARAM_INT:
            if (!nsd_toml_is_number(v) || (d->type == NSDYN_PARAM_INT && v->type != NSD_TOML_INTEGER)) {
                nsd_diag_at(diag, v, "%s key '%s': expected %s, found %s", section, d->name,
                            type_text(d->type), found_text(v, found, sizeof found));
                return 1;
            }
            if (!finite_ok(d, v->real)) {
                fmt_real(num, sizeof num, v->real);
                nsd_diag_at(diag, v, "%s key '%s': expected a finite number, found %s", section,
                            d->name, num);
                return 1;
            }
            if (!in_range(d, v->real)) {
                fmt_real(num, sizeof num, v->real);
                nsd_diag_at(diag, v, "%s key '%s' = %s is out of range: expected %s%s%s", section,
                            d->name, num, range, *d->unit && strcmp(d->unit, "1") ? " " : "",
                            strcmp(d->unit, "1") ? d->unit : "");
                return 1;
            }
            /* A length or angle whose doubles are more than 1e-6 apart
             * (|x| >= 2^33) cannot take a motion's increments: the sphere
             * at x0 = 9e18 m "rolled" while its position stood still
             * (issue 28; the same rule as [initial], model.c). */
            if (d->type == NSDYN_PARAM_REAL && (!strcmp(d->unit, "m") || !strcmp(d->unit, "rad")) &&
                fabs(v->real) >= ldexp(1.0, 33)) {
                fmt_real(num, sizeof num, v->real);
                nsd_diag_at(diag, v,
                            "%s key '%s' = %s %s is too large to resolve motion: doubles at that "
                            "magnitude are %.3g %s apart; a length or angle must stay below "
                            "%.3g %s",
                            section, d->name, num, d->unit,
                            nextafter(fabs(v->real), INFINITY) - fabs(v->real), d->unit,
                            ldexp(1.0, 33), d->unit);
                return 1;
            }
            p->values[i].num = v->real;
            return 0;
        case NSDYN_PARAM_BOOL:
            if (v->type != NSD_TOML_BOOLEAN) {
                nsd_diag_at(diag, v, "%s key '%s': expected a boolean (true or false), found %s",
                            section, d->name, found_text(v, found, sizeof found));
                return 1;
            }
            p->values[i].num = v->boolean;
            return 0;
        case NSDYN_PARAM_CHOICE: {
            size_t k = n_choices(d);
            char list[512] = "";
            for (size_t c = 0; c < k; ++c) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s\"%s\"", c ? ", " : "", d->choices[c]);
            }
            if (v->type != NSD_TOML_STRING) {
                nsd_diag_at(diag, v, "%s key '%s': expected one of %s, found %s", section, d->name,
                            list, found_text(v, found, sizeof found));
                return 1;
            }
            for (size_t c = 0; c < k; ++c)
                if (strcmp(v->str, d->choices[c]) == 0) {
                    p->values[i].num = (double)c;
                    return 0;
                }
            const char *near = nsd_did_you_mean(v->str, d->choices, k);
            nsd_diag_at(diag, v, "%s key '%s': \"%s\" is not one of %s%s%s%s", section, d->name,
                        v->str, list, near ? " (did you mean \"" : "", near ? near : "",
                        near ? "\"?)" : "");
            return 1;
        }
        case NSDYN_PARAM_REAL_ARRAY: {
            if (v->type != NSD_TOML_ARRAY) {
                nsd_diag_at(diag, v, "%s key '%s': expected an array of real numbers, found %s",
                            section, d->name, nsd_toml_type_name(v->type));
                return 1;
            }
            double *arr = calloc(v->n_items ? v->n_items : 1, sizeof *arr);
            if (!arr) abort();
            for (size_t k = 0; k < v->n_items; ++k) {
                const nsd_toml_node *e = &v->items[k];
                if (!nsd_toml_is_number(e)) {
                    nsd_diag_at(diag, e,
                                "%s key '%s' element %zu: expected a real number, found %s",
                                section, d->name, k + 1, nsd_toml_type_name(e->type));
                    free(arr);
                    return 1;
                }
                if (!finite_ok(d, e->real)) {
                    fmt_real(num, sizeof num, e->real);
                    nsd_diag_at(diag, e,
                                "%s key '%s' element %zu: expected a finite number, found %s",
                                section, d->name, k + 1, num);
                    free(arr);
                    return 1;
                }
                if (!in_range(d, e->real)) {
                    nsd_diag_at(diag, e,
                                "%s key '%s' element %zu = %g is out of range: expected %s",
                                section, d->name, k + 1, e->real, range);
                    free(arr);
                    return 1;
                }
                arr[k] = e->real;
            }
            p->arrays[i] = arr;
            p->values[i].arr = arr;
            p->values[i].len = v->n_items;
            return 0;
        }
        case NSDYN_PARAM_STRING: return convert_text(p, i, v, section, diag);
    }
    return 1;
}

static int skipped(const char *key, const char *const *skip) {
    for (size_t i = 0; skip && skip[i]; ++i)
        if (strcmp(skip[i], key) == 0) return 1;
    return 0;
}

/* Former names of parameters, for one resolve. */
typedef struct alias_set {
    const nsdyn_param_alias *a;
    size_t n;
} alias_set;

/* The declared name a key stands for: itself, or the name it is a former
 * name of; *old set when it is a former name. */
static const char *declared_key(const alias_set *al, const char *key, int *old) {
    *old = 0;
    for (size_t i = 0; i < al->n; ++i)
        if (strcmp(al->a[i].old_name, key) == 0) {
            *old = 1;
            return al->a[i].name;
        }
    return key;
}

static void unknown_key(const char **names, size_t n, const nsd_toml_node *v, const char *section,
                        nsd_diag *diag) {
    const char *near = nsd_did_you_mean(v->key, names, n);
    if (near) {
        nsd_diag_at(diag, v, "%s: unknown key '%s' (did you mean '%s'?)", section, v->key, near);
        return;
    }
    char list[768] = "";
    for (size_t j = 0; j < n; ++j) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", names[j]);
    }
    nsd_diag_at(diag, v, "%s: unknown key '%s' (known keys: %s)", section, v->key,
                n ? list : "none");
}

/* One entry v of a table (or an override standing in for it): an
 * unknown key is an error, a former name a warning, else converted.
 * Returns the errors added. */
static size_t take(nsd_params *out, const char **names, const alias_set *al, const nsd_toml_node *v,
                   const char *section, nsd_diag *diag) {
    int old = 0;
    const char *key = declared_key(al, v->key, &old);
    int i = nsd_params_index(out->decls, out->n, key);
    if (i < 0) {
        unknown_key(names, out->n, v, section, diag);
        return 1;
    }
    /* The other name of the same parameter came first: a --set entry (no
     * position; --set is appended to the file's table) replaces it, as it
     * replaces a key of the same name; two in the file are an error. */
    if (out->from[i] && strcmp(out->from[i]->key, v->key) != 0 && v->line == 0) {
        free(out->arrays[i]);
        out->arrays[i] = NULL;
    } else if (out->from[i] && strcmp(out->from[i]->key, v->key) != 0) {
        char at[256];
        nsd_diag_at(diag, v,
                    "%s: key '%s' sets '%s' a second time (also set at %s): '%s' is a "
                    "former name of '%s'; keep one",
                    section, v->key, key, nsd_node_where(out->from[i], at, sizeof at),
                    old ? v->key : out->from[i]->key, key);
        return 1;
    }
    if (old)
        nsd_diag_at(&out->notes, v,
                    "%s: key '%s' is the former name of '%s'; it still sets '%s' (write '%s': "
                    "docs/plugin-guide.md, \"Migrating to ABI 2.4\")",
                    section, v->key, key, key, key);
    out->from[i] = v;
    return convert(out, (size_t)i, v, section, diag);
}

/* Is key (or the parameter it names) among the n entries of over? */
static int overridden(const alias_set *al, const char *key, const nsd_toml_node *const *over,
                      size_t n) {
    int old;
    const char *name = declared_key(al, key, &old);
    for (size_t i = 0; i < n; ++i)
        if (strcmp(declared_key(al, over[i]->key, &old), name) == 0) return 1;
    return 0;
}

size_t nsd_params_resolve_over(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                               const nsd_toml_node *table, const nsd_toml_node *const *over,
                               size_t n_over, const char *section, const char *const *skip,
                               nsd_diag *diag) {
    return nsd_params_resolve_aliased(out, decls, n, NULL, 0, table, over, n_over, section, skip,
                                      diag);
}

size_t nsd_params_resolve_aliased(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                                  const nsdyn_param_alias *aliases, size_t n_aliases,
                                  const nsd_toml_node *table, const nsd_toml_node *const *over,
                                  size_t n_over, const char *section, const char *const *skip,
                                  nsd_diag *diag) {
    const alias_set al = {aliases, aliases ? n_aliases : 0};
    memset(out, 0, sizeof *out);
    out->decls = decls;
    out->n = n;
    out->values = calloc(n ? n : 1, sizeof *out->values);
    out->arrays = calloc(n ? n : 1, sizeof *out->arrays);
    out->from = calloc(n ? n : 1, sizeof *out->from);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!out->values || !out->arrays || !out->from || !names) abort();
    for (size_t i = 0; i < n; ++i) {
        out->values[i].num = decls[i].default_value;
        out->values[i].arr = decls[i].default_array;
        out->values[i].len = decls[i].default_array_len;
        names[i] = decls[i].name;
    }
    size_t errors = 0;
    /* The file's entries, then the overrides in their order: the order a
     * table with the overrides set into it would have (nsd_toml_table_set
     * appends), so the messages come in the same order. */
    for (size_t k = 0; table && k < table->n_items; ++k) {
        const nsd_toml_node *v = &table->items[k];
        if (!skipped(v->key, skip) && !overridden(&al, v->key, over, n_over))
            errors += take(out, names, &al, v, section, diag);
    }
    for (size_t k = 0; k < n_over; ++k)
        if (!skipped(over[k]->key, skip)) errors += take(out, names, &al, over[k], section, diag);
    free(names);
    /* the section's place: the file's table, else the first override */
    const nsd_toml_node *at = table ? table : n_over ? over[0] : NULL;
    for (size_t i = 0; i < n; ++i)
        if ((decls[i].flags & NSDYN_PARAM_REQUIRED) && !out->from[i]) {
            nsd_diag_at(diag, at, "%s: missing required key '%s' (%s%s%s)", section, decls[i].name,
                        decls[i].help, strcmp(decls[i].unit, "1") ? ", " : "",
                        strcmp(decls[i].unit, "1") ? decls[i].unit : "");
            errors++;
        }
    return errors;
}

size_t nsd_params_resolve(nsd_params *out, const nsdyn_param_decl *decls, size_t n,
                          const nsd_toml_node *table, const char *section, const char *const *skip,
                          nsd_diag *diag) {
    return nsd_params_resolve_over(out, decls, n, table, NULL, 0, section, skip, diag);
}

void nsd_params_free(nsd_params *p) {
    for (size_t i = 0; i < p->n; ++i) free(p->arrays[i]);
    free(p->arrays);
    free(p->values);
    free(p->from);
    nsd_diag_free(&p->notes);
    memset(p, 0, sizeof *p);
}

/* A TOML basic string: quotes, backslashes and control characters escaped. */
static void write_quoted(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static void write_value(FILE *out, const nsdyn_param_decl *d, const nsdyn_value *v) {
    switch (d->type) {
        case NSDYN_PARAM_REAL: {
            char num[40];
            fmt_real(num, sizeof num, v->num);
            fprintf(out, "%s", num);
            break;
        }
        case NSDYN_PARAM_INT: fprintf(out, "%lld", (long long)v->num); break;
        case NSDYN_PARAM_BOOL: fprintf(out, "%s", v->num != 0 ? "true" : "false"); break;
        case NSDYN_PARAM_CHOICE: fprintf(out, "\"%s\"", d->choices[(size_t)v->num]); break;
        case NSDYN_PARAM_REAL_ARRAY:
            fputc('[', out);
            for (size_t k = 0; k < v->len; ++k) {
                char num[40];
                fmt_real(num, sizeof num, v->arr[k]);
                fprintf(out, "%s%s", k ? ", " : "", num);
            }
            fputc(']', out);
            break;
        case NSDYN_PARAM_STRING: write_quoted(out, nsdyn_value_text(v)); break;
    }
}

void nsd_params_write_inline(FILE *out, const nsd_params *p) {
    for (size_t i = 0; i < p->n; ++i) {
        fprintf(out, "%s%s=", i ? " " : "", p->decls[i].name);
        write_value(out, &p->decls[i], &p->values[i]);
    }
}

void nsd_params_write_toml(FILE *out, const nsd_params *p) {
    for (size_t i = 0; i < p->n; ++i) {
        const nsdyn_param_decl *d = &p->decls[i];
        fprintf(out, "%s = ", d->name);
        write_value(out, d, &p->values[i]);
        fprintf(out, "  # %s%s%s%s\n", strcmp(d->unit, "1") ? "[" : "",
                strcmp(d->unit, "1") ? d->unit : "", strcmp(d->unit, "1") ? "] " : "",
                p->from[i] ? "set" : "default");
    }
}

void nsd_params_print_help(FILE *out, const nsdyn_param_decl *decls, size_t n) {
    if (n == 0) {
        fprintf(out, "  (no parameters)\n");
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        const nsdyn_param_decl *d = &decls[i];
        char range[96], def[256];
        nsd_params_range_text(d, range, sizeof range);
        nsdyn_value v = {d->default_value, d->default_array, d->default_array_len};
        if (d->flags & NSDYN_PARAM_REQUIRED)
            snprintf(def, sizeof def, "(required)");
        else {
            FILE *mem = fmemopen(def, sizeof def, "w");
            if (mem) {
                write_value(mem, d, &v);
                fclose(mem);
            } else
                snprintf(def, sizeof def, "?");
        }
        fprintf(out, "  %-14s %-8s %-10s default %-12s", d->name,
                d->type == NSDYN_PARAM_REAL     ? "real"
                : d->type == NSDYN_PARAM_INT    ? "int"
                : d->type == NSDYN_PARAM_BOOL   ? "bool"
                : d->type == NSDYN_PARAM_CHOICE ? "choice"
                : d->type == NSDYN_PARAM_STRING ? (d->flags & NSDYN_PARAM_PATH ? "file" : "string")
                                                : "real[]",
                d->unit, def);
        if (d->type == NSDYN_PARAM_CHOICE) {
            fprintf(out, " one of:");
            for (size_t c = 0; d->choices && d->choices[c]; ++c) fprintf(out, " %s", d->choices[c]);
        } else if (d->type != NSDYN_PARAM_BOOL && d->type != NSDYN_PARAM_STRING)
            fprintf(out, " range %s", range);
        fprintf(out, "\n  %14s %s\n", "", d->help);
    }
}

size_t nsd_params_check_decls(const nsdyn_param_decl *decls, size_t n, const char *owner,
                              nsd_diag *diag) {
    size_t problems = 0;
    if (n && !decls) {
        nsd_diag_add(diag, "%s: declares %zu parameters but no table", owner, n);
        return 1;
    }
    for (size_t i = 0; i < n; ++i) {
        const nsdyn_param_decl *d = &decls[i];
        const char *name = d->name ? d->name : "?";
        if (!d->name || !*d->name) {
            nsd_diag_add(diag, "%s: parameter %zu has no name", owner, i);
            problems++;
        } else
            for (const char *c = d->name; *c; ++c)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || *c == '_')) {
                    nsd_diag_add(diag, "%s: parameter '%s' has a name that is not a plain TOML key",
                                 owner, name);
                    problems++;
                    break;
                }
        if (d->name && nsd_params_index(decls, i, d->name) >= 0) {
            nsd_diag_add(diag, "%s: parameter '%s' declared twice", owner, name);
            problems++;
        }
        if (!d->unit || !*d->unit) {
            nsd_diag_add(diag, "%s: parameter '%s' has no unit (use \"1\" for dimensionless)",
                         owner, name);
            problems++;
        }
        if (!d->help || !*d->help) {
            nsd_diag_add(diag, "%s: parameter '%s' has no help text", owner, name);
            problems++;
        }
        if (d->type < NSDYN_PARAM_REAL || d->type > NSDYN_PARAM_STRING) {
            nsd_diag_add(diag, "%s: parameter '%s' has unknown type", owner, name);
            problems++;
            continue;
        }
        if (!(d->min <= d->max)) {
            nsd_diag_add(diag, "%s: parameter '%s' has min > max", owner, name);
            problems++;
        }
        if (!(d->flags & NSDYN_PARAM_REQUIRED)) {
            if ((d->type == NSDYN_PARAM_REAL || d->type == NSDYN_PARAM_INT) &&
                !finite_ok(d, d->default_value)) {
                nsd_diag_add(diag,
                             "%s: parameter '%s' default %g is not finite (flag "
                             "NSDYN_PARAM_NONFINITE admits +-inf)",
                             owner, name, d->default_value);
                problems++;
            } else if ((d->type == NSDYN_PARAM_REAL || d->type == NSDYN_PARAM_INT) &&
                       !in_range(d, d->default_value)) {
                nsd_diag_add(diag, "%s: parameter '%s' default %g is outside its range", owner,
                             name, d->default_value);
                problems++;
            }
            if (d->type == NSDYN_PARAM_INT && d->default_value != floor(d->default_value)) {
                nsd_diag_add(diag, "%s: int parameter '%s' has a fractional default", owner, name);
                problems++;
            }
            if (d->type == NSDYN_PARAM_BOOL && d->default_value != 0 && d->default_value != 1) {
                nsd_diag_add(diag, "%s: bool parameter '%s' default is not 0 or 1", owner, name);
                problems++;
            }
            if (d->type == NSDYN_PARAM_CHOICE &&
                (d->default_value < 0 || (size_t)d->default_value >= n_choices(d))) {
                nsd_diag_add(diag, "%s: choice parameter '%s' default index is out of its list",
                             owner, name);
                problems++;
            }
            if (d->type == NSDYN_PARAM_REAL_ARRAY)
                for (size_t k = 0; k < d->default_array_len; ++k)
                    if (!d->default_array || !finite_ok(d, d->default_array[k]) ||
                        !in_range(d, d->default_array[k])) {
                        nsd_diag_add(diag,
                                     "%s: parameter '%s' default element %zu is outside its range",
                                     owner, name, k);
                        problems++;
                        break;
                    }
        }
        if (d->type == NSDYN_PARAM_CHOICE && n_choices(d) == 0) {
            nsd_diag_add(diag, "%s: choice parameter '%s' lists no choices", owner, name);
            problems++;
        }
    }
    return problems;
}
