/* Reading [periodic] (periodic_config.h). Every mistake is reported at
 * its key, with what was expected and what was found. */
#define _GNU_SOURCE
#include "periodic_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const periodic_keys[] = {
    "section", "crossings", "free",   "swap",         "scale",    "tol",      "max_iter",
    "fd_step", "verify",    "report", "continuation", "lyapunov", "jacobian", "substeps"};
static const char *const cont_keys[] = {
    "parameter", "values", "from",       "to",         "steps",     "method",     "ds",
    "ds_min",    "ds_max", "max_points", "locate_tol", "doublings", "brute_force"};
enum {
    N_PERIODIC_KEYS = sizeof periodic_keys / sizeof *periodic_keys,
    N_CONT_KEYS = sizeof cont_keys / sizeof *cont_keys
};

/* Unknown keys of a table, each with a suggestion. */
static size_t check_keys(const nsd_toml_node *t, const char *name, const char *const *keys,
                         size_t n, nsd_diag *diag) {
    char what[64];
    snprintf(what, sizeof what, "[%s]", name);
    return nsd_diag_unknown_keys(diag, t, what, keys, n);
}

/* A real number key: default when absent; lo < value (or <=), < hi. */
static size_t read_real(const nsd_toml_node *t, const char *key, double def, double lo, double hi,
                        double *out, nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, key);
    *out = def;
    if (!e) return 0;
    if (!nsd_toml_is_number(e) || !isfinite(e->real) || !(e->real > lo) || !(e->real < hi)) {
        if (nsd_toml_is_number(e))
            nsd_diag_at(diag, e, "[periodic] key '%s': expected a number in (%g, %g), found %g",
                        key, lo, hi, e->real);
        else
            nsd_diag_at(diag, e, "[periodic] key '%s': expected a number, found %s", key,
                        nsd_toml_type_name(e->type));
        return 1;
    }
    *out = e->real;
    return 0;
}

static size_t read_int(const nsd_toml_node *t, const char *key, int def, int lo, int hi, int *out,
                       nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, key);
    *out = def;
    if (!e) return 0;
    if (e->type != NSD_TOML_INTEGER || e->integer < lo || e->integer > hi) {
        if (e->type == NSD_TOML_INTEGER)
            nsd_diag_at(diag, e, "[periodic] key '%s': expected an integer in [%d, %d], found %lld",
                        key, lo, hi, (long long)e->integer);
        else
            nsd_diag_at(diag, e, "[periodic] key '%s': expected an integer, found %s", key,
                        nsd_toml_type_name(e->type));
        return 1;
    }
    *out = (int)e->integer;
    return 0;
}

/* The state index a name denotes (q, v, friction states: the channel
 * names of `nsdyn run`), or -1 with the error reported at e. */
static long state_index(const nsd_model *m, const nsd_toml_node *e, const char *what,
                        nsd_diag *diag) {
    if (e->type != NSD_TOML_STRING) {
        nsd_diag_at(diag, e, "[periodic] %s: expected a state name (a string), found %s", what,
                    nsd_toml_type_name(e->type));
        return -1;
    }
    for (size_t i = 0; i < m->n; ++i)
        if (strcmp(m->channels[1 + i].name, e->str) == 0) return (long)i;
    const char *names[256];
    size_t nn = m->n < 256 ? m->n : 256;
    char list[768] = "";
    for (size_t i = 0; i < nn; ++i) {
        names[i] = m->channels[1 + i].name;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    }
    const char *near = nsd_did_you_mean(e->str, names, nn);
    if (near)
        nsd_diag_at(diag, e,
                    "[periodic] %s: '%s' is not a state of system '%s' (did you mean '%s'?)", what,
                    e->str, m->sys->info.id, near);
    else
        nsd_diag_at(diag, e, "[periodic] %s: '%s' is not a state of system '%s' (states: %s)", what,
                    e->str, m->sys->info.id, list);
    return -1;
}

/* section: a switch of the system. */
static size_t read_section(const nsd_toml_node *t, const nsd_model *m, nsd_periodic_config *pc,
                           nsd_diag *diag) {
    const nsd_toml_node *e = pc->section_node = nsd_toml_get(t, "section");
    const nsdyn_system_layout *L = &m->layout;
    char list[512] = "";
    for (size_t i = 0; i < L->n_switches; ++i) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", L->switches[i]);
    }
    if (!L->n_switches) {
        nsd_diag_at(diag, e ? e : t,
                    "[periodic]: system '%s' has no mode switches: a Poincare section is one of "
                    "a system's switches (a heel strike, an impact map)",
                    m->sys->info.id);
        return 1;
    }
    if (!e || e->type != NSD_TOML_STRING) {
        nsd_diag_at(
            diag, e ? e : t,
            "[periodic] key 'section': expected the name of a switch of system '%s' (%s)%s%s",
            m->sys->info.id, list, e ? ", found " : "", e ? nsd_toml_type_name(e->type) : "");
        return 1;
    }
    for (size_t i = 0; i < L->n_switches; ++i)
        if (strcmp(L->switches[i], e->str) == 0) {
            pc->spec.section = i;
            return 0;
        }
    const char *near = nsd_did_you_mean(e->str, L->switches, L->n_switches);
    nsd_diag_at(diag, e, "[periodic] key 'section': '%s' is not a switch of system '%s' (%s%s%s)",
                e->str, m->sys->info.id, near ? "did you mean '" : "switches: ", near ? near : list,
                near ? "'?" : "");
    return 1;
}

/* free (required), scale (optional table name = magnitude). */
static size_t read_free(const nsd_toml_node *t, const nsd_model *m, nsd_periodic_config *pc,
                        nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, "free");
    if (!e || e->type != NSD_TOML_ARRAY || e->n_items == 0) {
        nsd_diag_at(diag, e ? e : t,
                    "[periodic] key 'free': expected a non-empty array of state names (the "
                    "unknowns of the periodic state)%s%s",
                    e ? ", found " : "", e ? nsd_toml_type_name(e->type) : "");
        return 1;
    }
    size_t errors = 0, k = e->n_items;
    nsd_periodic_spec *sp = &pc->spec;
    sp->free = calloc(k, sizeof *sp->free);
    sp->scale = calloc(k, sizeof *sp->scale);
    if (!sp->free || !sp->scale) {
        nsd_diag_add(diag, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < k; ++i) {
        long idx = state_index(m, &e->items[i], "key 'free'", diag);
        if (idx < 0) {
            errors++;
            continue;
        }
        for (size_t j = 0; j < sp->n_free; ++j)
            if (sp->free[j] == (size_t)idx) {
                nsd_diag_at(diag, &e->items[i], "[periodic] key 'free': '%s' is listed twice",
                            e->items[i].str);
                errors++;
                idx = -1;
            }
        if (idx < 0) continue;
        sp->scale[sp->n_free] = 1.0;
        sp->free[sp->n_free++] = (size_t)idx;
    }
    const nsd_toml_node *sc = nsd_toml_get(t, "scale");
    if (!sc) return errors;
    if (sc->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, sc,
                    "[periodic] key 'scale': expected a table {state = magnitude}, found %s",
                    nsd_toml_type_name(sc->type));
        return errors + 1;
    }
    for (size_t i = 0; i < sc->n_items; ++i) {
        const nsd_toml_node *v = &sc->items[i];
        size_t j = 0;
        while (j < sp->n_free && strcmp(m->channels[1 + sp->free[j]].name, v->key) != 0) j++;
        if (j == sp->n_free) {
            nsd_diag_at(diag, v, "[periodic] key 'scale': '%s' is not one of the free states",
                        v->key);
            errors++;
        } else if (!nsd_toml_is_number(v) || !(v->real > 0) || !isfinite(v->real)) {
            nsd_diag_at(diag, v, "[periodic] scale '%s': expected a positive number", v->key);
            errors++;
        } else
            sp->scale[j] = v->real;
    }
    return errors;
}

/* swap: [[a, b], ...], pairs of states exchanged in the end state. */
static size_t read_swap(const nsd_toml_node *t, const nsd_model *m, nsd_periodic_config *pc,
                        nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, "swap");
    if (!e) return 0;
    if (e->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, e,
                    "[periodic] key 'swap': expected an array of pairs [\"a\", \"b\"], found %s",
                    nsd_toml_type_name(e->type));
        return 1;
    }
    nsd_periodic_spec *sp = &pc->spec;
    sp->swap = calloc(2 * (e->n_items + 1), sizeof *sp->swap);
    if (!sp->swap) return 1;
    size_t errors = 0;
    for (size_t i = 0; i < e->n_items; ++i) {
        const nsd_toml_node *p = &e->items[i];
        if (p->type != NSD_TOML_ARRAY || p->n_items != 2) {
            nsd_diag_at(diag, p,
                        "[periodic] key 'swap': expected a pair [\"a\", \"b\"] of state names");
            errors++;
            continue;
        }
        long a = state_index(m, &p->items[0], "key 'swap'", diag);
        long b = state_index(m, &p->items[1], "key 'swap'", diag);
        if (a < 0 || b < 0) {
            errors++;
            continue;
        }
        sp->swap[2 * sp->n_swap] = (size_t)a;
        sp->swap[2 * sp->n_swap + 1] = (size_t)b;
        sp->n_swap++;
    }
    return errors;
}

/* One "SECTION.KEY" of [periodic.continuation] into slot k: a real
 * parameter of the config's system, contact or friction law. */
static size_t read_parameter(const nsd_config *cfg, nsd_periodic_config *pc, size_t k,
                             const nsd_toml_node *p, const nsd_toml_node *at, nsd_diag *diag) {
    if (p && p->type == NSD_TOML_STRING &&
        nsd_config_real_param(cfg, p->str, pc->cont_section[k], sizeof pc->cont_section[k],
                              pc->cont_key[k], sizeof pc->cont_key[k]) == 0)
        return 0;
    nsd_diag_at(diag, p ? p : at,
                "[periodic.continuation] key 'parameter': expected \"SECTION.KEY\" naming a "
                "real parameter of the config's system, contact or friction law (e.g. "
                "\"system.gamma\")%s%s",
                p && p->type == NSD_TOML_STRING ? ", found " : "",
                p && p->type == NSD_TOML_STRING ? p->str : "");
    return 1;
}

/* A value of parameter k at node e (key 'key'): a number its declaration
 * admits (finite, in range), else an error naming both. 0 or 1. */
static size_t check_value(const nsd_config *cfg, const nsd_periodic_config *pc, size_t k,
                          const nsd_toml_node *e, const char *key, nsd_diag *diag) {
    const nsdyn_param_decl *d =
        nsd_config_real_param_decl(cfg, pc->cont_section[k], pc->cont_key[k]);
    if (nsd_toml_is_number(e) && (d ? nsd_params_admits(d, e->real) : isfinite(e->real))) return 0;
    char range[120] = "finite";
    if (d) nsd_params_range_text(d, range, sizeof range);
    char found[64];
    if (nsd_toml_is_number(e))
        snprintf(found, sizeof found, "%g", e->real);
    else
        snprintf(found, sizeof found, "%s", nsd_toml_type_name(e->type));
    nsd_diag_at(diag, e,
                "[periodic.continuation] key '%s': expected a finite number %s%s (the range of "
                "%s.%s), found %s",
                key, range[0] == '(' || range[0] == '[' ? "in " : "", range, pc->cont_section[k],
                pc->cont_key[k], found);
    return 1;
}

/* values = [...] (one parameter) or [[...], ...] (n_par each). */
static size_t read_values(const nsd_config *cfg, const nsd_toml_node *v, nsd_periodic_config *pc,
                          nsd_diag *diag) {
    size_t np = pc->n_par;
    if (v->type != NSD_TOML_ARRAY || v->n_items < 2) {
        nsd_diag_at(diag, v,
                    "[periodic.continuation] key 'values': expected an array of at least two %s",
                    np == 1 ? "numbers" : "arrays of one number per parameter");
        return 1;
    }
    pc->values = calloc(v->n_items * np, sizeof *pc->values);
    if (!pc->values) return 1;
    for (size_t i = 0; i < v->n_items; ++i) {
        const nsd_toml_node *row = &v->items[i];
        if (np > 1 && (row->type != NSD_TOML_ARRAY || row->n_items != np)) {
            nsd_diag_at(diag, row,
                        "[periodic.continuation] key 'values': expected an array of %zu numbers "
                        "(one per parameter)",
                        np);
            return 1;
        }
        for (size_t j = 0; j < np; ++j) {
            const nsd_toml_node *e = np > 1 ? &row->items[j] : row;
            if (check_value(cfg, pc, j, e, "values", diag)) return 1;
            pc->values[i * np + j] = e->real;
        }
    }
    pc->n_values = v->n_items;
    return 0;
}

/* [periodic.continuation]: parameter = "SECTION.KEY" or an array of them,
 * values = [...] (rows), or from/to/steps for one parameter. */
static size_t read_continuation(const nsd_config *cfg, nsd_periodic_config *pc, nsd_diag *diag) {
    const nsd_toml_node *c = pc->cont;
    if (c->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, c, "[periodic] key 'continuation': expected a table, found %s",
                    nsd_toml_type_name(c->type));
        return 1;
    }
    size_t errors = check_keys(c, "periodic.continuation", cont_keys, N_CONT_KEYS, diag);
    const nsd_toml_node *p = nsd_toml_get(c, "parameter");
    size_t par_errors = 0; /* without the parameters, no range to check values against */
    if (p && p->type == NSD_TOML_ARRAY && p->n_items >= 1 && p->n_items <= NSD_PERIODIC_MAX_PAR) {
        pc->n_par = p->n_items;
        for (size_t k = 0; k < p->n_items; ++k)
            par_errors += read_parameter(cfg, pc, k, &p->items[k], p, diag);
    } else {
        pc->n_par = 1;
        par_errors += read_parameter(cfg, pc, 0, p, c, diag);
    }
    errors += par_errors;
    const nsd_toml_node *method = nsd_toml_get(c, "method");
    if (method && method->type == NSD_TOML_STRING && !strcmp(method->str, "arclength"))
        return errors; /* its own keys: periodic_arc_config.c */
    if (method && (method->type != NSD_TOML_STRING || strcmp(method->str, "natural") != 0)) {
        nsd_diag_at(diag, method,
                    "[periodic.continuation] key 'method': expected \"natural\" (the default) "
                    "or \"arclength\"");
        errors++;
    }
    const nsd_toml_node *v = nsd_toml_get(c, "values");
    if (v) return errors + (par_errors ? 0 : read_values(cfg, v, pc, diag));
    const nsd_toml_node *from = nsd_toml_get(c, "from"), *to = nsd_toml_get(c, "to"),
                        *steps = nsd_toml_get(c, "steps");
    if (steps &&
        (steps->type != NSD_TOML_INTEGER || steps->integer < 1 || steps->integer > 100000)) {
        if (steps->type == NSD_TOML_INTEGER)
            nsd_diag_at(diag, steps,
                        "[periodic.continuation] key 'steps': expected an integer in [1, 100000], "
                        "found %lld",
                        (long long)steps->integer);
        else
            nsd_diag_at(diag, steps,
                        "[periodic.continuation] key 'steps': expected an integer in [1, 100000], "
                        "found %s",
                        nsd_toml_type_name(steps->type));
        return errors + 1;
    }
    if (pc->n_par != 1 || !nsd_toml_is_number(from) || !nsd_toml_is_number(to) || !steps) {
        nsd_diag_at(diag, c,
                    "[periodic.continuation]: expected 'values = [...]', or for one parameter "
                    "'from', 'to' (numbers) and 'steps' (an integer in [1, 100000])");
        return errors + 1;
    }
    if (par_errors) return errors;
    errors += check_value(cfg, pc, 0, from, "from", diag) + check_value(cfg, pc, 0, to, "to", diag);
    if (!errors && from->real == to->real) {
        nsd_diag_at(diag, to,
                    "[periodic.continuation] key 'to': expected a value other than 'from' = %.17g "
                    "(a step of 0), found %.17g",
                    from->real, to->real);
        errors++;
    }
    if (errors) return errors;
    size_t n = (size_t)steps->integer + 1;
    pc->values = calloc(n, sizeof *pc->values);
    if (!pc->values) return errors + 1;
    for (size_t i = 0; i < n; ++i)
        pc->values[i] = from->real + (to->real - from->real) * (double)i / (double)(n - 1);
    pc->n_values = n;
    return errors;
}

/* jacobian = "differences" | "variational" (periodic.h). Compliant contact
 * laws are accepted since round 4: the rhs Jacobian is differenced past
 * LuGre's kink and the held friction states' jump, and the rate after a
 * jump is the new phase's (periodic_tangent.c jacobian(), rate_after();
 * docs/periodic.md "Variational Jacobian"). */
static size_t read_jacobian(const nsd_toml_node *t, nsd_periodic_config *pc, nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, "jacobian");
    pc->spec.jacobian = NSD_PERIODIC_JAC_DIFFERENCES;
    if (!e) return 0;
    if (e->type == NSD_TOML_STRING && strcmp(e->str, "differences") == 0) return 0;
    if (e->type == NSD_TOML_STRING && strcmp(e->str, "variational") == 0) {
        pc->spec.jacobian = NSD_PERIODIC_JAC_VARIATIONAL;
        return 0;
    }
    nsd_diag_at(diag, e,
                "[periodic] key 'jacobian': expected \"differences\" or \"variational\", found "
                "%s%s%s",
                e->type == NSD_TOML_STRING ? "'" : "",
                e->type == NSD_TOML_STRING ? e->str : nsd_toml_type_name(e->type),
                e->type == NSD_TOML_STRING ? "'" : "");
    return 1;
}

/* report = ["CHANNEL", ...]: any channel of `nsdyn run` (states, outputs). */
static size_t read_report(const nsd_toml_node *t, const nsd_model *m, nsd_periodic_config *pc,
                          nsd_diag *diag) {
    const nsd_toml_node *e = nsd_toml_get(t, "report");
    if (!e) return 0;
    if (e->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, e, "[periodic] key 'report': expected an array of channel names");
        return 1;
    }
    pc->report = calloc(e->n_items + 1, sizeof *pc->report);
    if (!pc->report) return 1;
    size_t errors = 0;
    for (size_t i = 0; i < e->n_items; ++i) {
        const nsd_toml_node *c = &e->items[i];
        int idx = c->type == NSD_TOML_STRING ? nsd_model_channel(m, c->str) : -1;
        if (idx < 1) {
            nsd_diag_at(diag, c, "[periodic] key 'report': %s%s%s is not a channel of this model",
                        c->type == NSD_TOML_STRING ? "'" : "",
                        c->type == NSD_TOML_STRING ? c->str : "a non-string",
                        c->type == NSD_TOML_STRING ? "'" : "");
            errors++;
            continue;
        }
        pc->report[pc->n_report++] = (size_t)idx;
    }
    return errors;
}

size_t nsd_periodic_read(const nsd_config *cfg, const nsd_model *m, nsd_periodic_config *pc,
                         nsd_diag *diag) {
    memset(pc, 0, sizeof *pc);
    const nsd_toml_node *t = pc->table = nsd_toml_get(&cfg->root, "periodic");
    if (!t || t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t ? t : &cfg->root,
                    "nsdyn periodic needs a [periodic] table: section = \"SWITCH\", free = "
                    "[\"STATE\", ...] (docs/configs.md)%s",
                    t ? " (found a value that is not a table)" : "");
        return 1;
    }
    size_t errors = check_keys(t, "periodic", periodic_keys, N_PERIODIC_KEYS, diag);
    errors += read_section(t, m, pc, diag);
    errors += read_free(t, m, pc, diag);
    errors += read_swap(t, m, pc, diag);
    int crossings = 1;
    errors += read_int(t, "crossings", 1, 1, 1000, &crossings, diag);
    pc->spec.crossings = (size_t)crossings;
    errors += read_real(t, "tol", 1e-8, 0.0, 1.0, &pc->spec.tol, diag);
    errors += read_int(t, "max_iter", 20, 0, NSD_PERIODIC_MAX_ITER, &pc->spec.max_iter, diag);
    errors += read_real(t, "fd_step", 1e-6, 0.0, 0.1, &pc->spec.fd_step, diag);
    errors += read_jacobian(t, pc, diag);
    errors += read_int(t, "substeps", 1, 1, 64, &pc->spec.substeps, diag);
    errors += read_int(t, "verify", 3, 0, 1000, &pc->verify, diag);
    errors += read_report(t, m, pc, diag);
    pc->cont = nsd_toml_get(t, "continuation");
    if (pc->cont) errors += read_continuation(cfg, pc, diag);
    return errors;
}

void nsd_periodic_config_free(nsd_periodic_config *pc) {
    free(pc->spec.free);
    free(pc->spec.scale);
    free(pc->spec.swap);
    free(pc->values);
    free(pc->report);
    memset(pc, 0, sizeof *pc);
}
