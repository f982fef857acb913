/* [sweep]: axes, design, summaries, keep and graphs, read and checked
 * with file:line:col messages before any run (sweep.h, docs/sweep.md). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "sweep.h"

static char *dup_str(const char *s) {
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

static const char *const axis_keys[] = {"key",  "name",  "values", "start", "stop",
                                        "step", "count", "scale",  "zip",   "per"};
static const char *const sections[] = {"system",     "contact", "friction",
                                       "integrator", "run",     "initial"};

/* Keys of `t` outside `known`: one error each. */
static size_t unknown_keys(const nsd_toml_node *t, const char *const *known, size_t n,
                           const char *what, nsd_diag *diag) {
    return nsd_diag_unknown_keys(diag, t, what, known, n);
}

/* "section.key" into the axis. */
static size_t axis_key(nsd_sweep_axis *ax, const nsd_toml_node *key, nsd_diag *diag) {
    if (!key || key->type != NSD_TOML_STRING) {
        nsd_diag_at(diag, key ? key : ax->at,
                    "[[sweep.axis]] 'key': expected a string "
                    "\"section.key\" (e.g. \"contact.e\"), found %s",
                    key ? nsd_toml_type_name(key->type) : "nothing");
        return 1;
    }
    const char *dot = strchr(key->str, '.');
    size_t s = 0;
    if (dot)
        while (s < NSDYN_COUNT(sections) && (strlen(sections[s]) != (size_t)(dot - key->str) ||
                                             strncmp(sections[s], key->str, dot - key->str)))
            s++;
    if (!dot || s == NSDYN_COUNT(sections) || !dot[1] || strchr(dot + 1, '.')) {
        nsd_diag_at(diag, key,
                    "[[sweep.axis]] key '%s': expected \"section.key\" with section one of "
                    "system, contact, friction, integrator, run, initial",
                    key->str);
        return 1;
    }
    ax->section = strndup(key->str, dot - key->str);
    ax->param = dup_str(dot + 1);
    return 0;
}

/* values = [...]: numbers (all) or strings (all). */
static size_t axis_list(nsd_sweep_axis *ax, const nsd_toml_node *v, nsd_diag *diag) {
    if (v->type != NSD_TOML_ARRAY || v->n_items == 0) {
        nsd_diag_at(diag, v, "[[sweep.axis]] 'values': expected a non-empty array, found %s",
                    v->type == NSD_TOML_ARRAY ? "an empty array" : nsd_toml_type_name(v->type));
        return 1;
    }
    ax->is_text = v->items[0].type == NSD_TOML_STRING;
    for (size_t i = 0; i < v->n_items; ++i) {
        const nsd_toml_node *it = &v->items[i];
        int ok = ax->is_text ? it->type == NSD_TOML_STRING
                             : nsd_toml_is_number(it) || it->type == NSD_TOML_BOOLEAN;
        if (!ok || (nsd_toml_is_number(it) && !isfinite(it->real))) {
            nsd_diag_at(diag, it,
                        "[[sweep.axis]] 'values': item %zu is %s; expected all numbers or all "
                        "strings, finite",
                        i + 1, nsd_toml_type_name(it->type));
            return 1;
        }
    }
    ax->n = v->n_items;
    ax->values = xcalloc(ax->n, sizeof *ax->values);
    for (size_t i = 0; i < ax->n; ++i) nsd_toml_node_copy(&ax->values[i], &v->items[i]);
    return 0;
}

static size_t need_number(const nsd_toml_node *n, const char *key, nsd_diag *diag) {
    if (nsd_toml_is_number(n) && isfinite(n->real)) return 0;
    nsd_diag_at(diag, n, "[[sweep.axis]] '%s': expected a finite number, found %s", key,
                nsd_toml_type_name(n->type));
    return 1;
}

/* start, stop, step | count, scale: a range of n values. */
static size_t axis_range(nsd_sweep_axis *ax, const nsd_toml_node *t, int random, nsd_diag *diag) {
    const nsd_toml_node *a = nsd_toml_get(t, "start"), *b = nsd_toml_get(t, "stop");
    const nsd_toml_node *st = nsd_toml_get(t, "step"), *ct = nsd_toml_get(t, "count");
    const nsd_toml_node *sc = nsd_toml_get(t, "scale");
    if (!a || !b) {
        nsd_diag_at(diag, t, "[[sweep.axis]] '%s': needs values = [...] or start and stop",
                    ax->name);
        return 1;
    }
    if (need_number(a, "start", diag) + need_number(b, "stop", diag)) return 1;
    ax->is_range = 1;
    ax->is_int = a->type == NSD_TOML_INTEGER && b->type == NSD_TOML_INTEGER &&
                 (!st || st->type == NSD_TOML_INTEGER) && !ct;
    ax->start = a->real;
    ax->stop = b->real;
    if (sc &&
        (sc->type != NSD_TOML_STRING || (strcmp(sc->str, "linear") && strcmp(sc->str, "log")))) {
        nsd_diag_at(diag, sc, "[[sweep.axis]] 'scale': expected \"linear\" or \"log\"");
        return 1;
    }
    ax->log = sc && !strcmp(sc->str, "log");
    if (ax->log && !(ax->start > 0 && ax->stop > 0)) {
        nsd_diag_at(diag, a, "[[sweep.axis]] '%s': a log scale needs start > 0 and stop > 0",
                    ax->name);
        return 1;
    }
    if (st && ct) {
        nsd_diag_at(diag, ct, "[[sweep.axis]] '%s': give step or count, not both", ax->name);
        return 1;
    }
    if (ct) {
        if (ct->type != NSD_TOML_INTEGER || ct->integer < 1 || ct->integer > 100000000) {
            if (ct->type == NSD_TOML_INTEGER)
                nsd_diag_at(diag, ct,
                            "[[sweep.axis]] '%s' key 'count': expected an integer in [1, "
                            "100000000], found %lld",
                            ax->name, (long long)ct->integer);
            else
                nsd_diag_at(diag, ct,
                            "[[sweep.axis]] '%s' key 'count': expected an integer in [1, "
                            "100000000], found %s",
                            ax->name, nsd_toml_type_name(ct->type));
            return 1;
        }
        ax->n = (size_t)ct->integer;
    } else if (st) {
        if (need_number(st, "step", diag)) return 1;
        double span = ax->stop - ax->start, q = span / st->real;
        if (ax->log || st->real == 0 || q < -1e-9 || q > 1e8) {
            nsd_diag_at(diag, st, "[[sweep.axis]] '%s': step %g does not lead from %g to %g%s",
                        ax->name, st->real, ax->start, ax->stop,
                        ax->log ? " (a log scale takes count)" : "");
            return 1;
        }
        ax->n = (size_t)floor(q + 1e-9) + 1;
        /* The last value: stop when the steps meet it, else the last step
         * before it. */
        if (fabs((double)(ax->n - 1) * st->real - span) > 1e-9 * fabs(span))
            ax->stop = ax->start + (double)(ax->n - 1) * st->real;
    } else if (!random) {
        nsd_diag_at(diag, t, "[[sweep.axis]] '%s': a grid range needs step or count", ax->name);
        return 1;
    }
    if (ax->n == 0 && !random) {
        nsd_diag_at(diag, t, "[[sweep.axis]] '%s': the axis is empty", ax->name);
        return 1;
    }
    return 0;
}

/* per = "section.key^p" (p defaults to 1). */
static size_t axis_per(nsd_sweep_axis *ax, const nsd_toml_node *per, nsd_diag *diag) {
    if (per->type != NSD_TOML_STRING || !strchr(per->str, '.')) {
        nsd_diag_at(diag, per,
                    "[[sweep.axis]] 'per': expected \"section.key\" or "
                    "\"section.key^p\" (e.g. \"system.b^2\")");
        return 1;
    }
    ax->per_key = dup_str(per->str);
    ax->per_power = 1.0;
    char *caret = strchr(ax->per_key, '^');
    if (caret) {
        char *end = NULL;
        ax->per_power = strtod(caret + 1, &end);
        if (end == caret + 1 || *end || !isfinite(ax->per_power)) {
            nsd_diag_at(diag, per, "[[sweep.axis]] 'per': '%s' is not a number", caret + 1);
            return 1;
        }
        *caret = '\0';
    }
    return 0;
}

static size_t parse_axis(nsd_sweep_def *def, nsd_sweep_axis *ax, const nsd_toml_node *t,
                         nsd_diag *diag) {
    ax->at = t;
    ax->per_axis = -1;
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "[[sweep.axis]]: expected a table, found %s",
                    nsd_toml_type_name(t->type));
        return 1;
    }
    size_t errors = unknown_keys(t, axis_keys, NSDYN_COUNT(axis_keys), "[[sweep.axis]]", diag);
    const nsd_toml_node *key = nsd_toml_get(t, "key"), *name = nsd_toml_get(t, "name");
    if (axis_key(ax, key, diag)) return errors + 1;
    if (name && (name->type != NSD_TOML_STRING || !nsd_sweep_valid_column(name->str))) {
        nsd_diag_at(diag, name,
                    "[[sweep.axis]] 'name': expected a column name "
                    "([A-Za-z_][A-Za-z0-9_]*, not run/status/message/wall)");
        return errors + 1;
    }
    ax->name = dup_str(name ? name->str : key->str);
    for (char *p = ax->name; *p; ++p)
        if (*p == '.') *p = '_';
    const nsd_toml_node *values = nsd_toml_get(t, "values");
    int random = def->design != NSD_DESIGN_GRID;
    if (values && (nsd_toml_get(t, "start") || nsd_toml_get(t, "stop"))) {
        nsd_diag_at(diag, values, "[[sweep.axis]] '%s': give values or start/stop, not both",
                    ax->name);
        return errors + 1;
    }
    errors += values ? axis_list(ax, values, diag) : axis_range(ax, t, random, diag);
    const nsd_toml_node *per = nsd_toml_get(t, "per");
    if (per) errors += axis_per(ax, per, diag);
    if (per && ax->is_text) {
        nsd_diag_at(diag, per, "[[sweep.axis]] 'per' needs numeric values");
        errors++;
    }
    return errors;
}

/* Zip groups into grid dimensions (in order of first appearance), and
 * the run count. */
static size_t build_dims(nsd_sweep_def *def, nsd_diag *diag) {
    size_t errors = 0;
    def->dim_len = xcalloc(def->n_axes, sizeof *def->dim_len);
    const char **zip = xcalloc(def->n_axes, sizeof *zip);
    for (size_t a = 0; a < def->n_axes; ++a) {
        nsd_sweep_axis *ax = &def->axes[a];
        const nsd_toml_node *z = nsd_toml_get(ax->at, "zip");
        if (z && z->type != NSD_TOML_STRING) {
            nsd_diag_at(diag, z, "[[sweep.axis]] 'zip': expected a group name (a string)");
            errors++;
            z = NULL;
        }
        size_t d = def->n_dims;
        for (size_t b = 0; z && b < a; ++b)
            if (zip[b] && !strcmp(zip[b], z->str)) d = def->axes[b].dim;
        zip[a] = z ? z->str : NULL;
        ax->dim = d;
        if (d == def->n_dims) {
            def->dim_len[def->n_dims++] = ax->n;
        } else if (def->dim_len[d] != ax->n && def->design == NSD_DESIGN_GRID) {
            nsd_diag_at(diag, z,
                        "[[sweep.axis]] '%s': zipped with an axis of %zu values but has %zu",
                        ax->name, def->dim_len[d], ax->n);
            errors++;
        }
    }
    for (size_t a = 0; a < def->n_axes; ++a) { /* a group of one: a forgotten zip */
        size_t members = 0;
        for (size_t b = 0; zip[a] && b < def->n_axes; ++b)
            members += def->axes[b].dim == def->axes[a].dim;
        if (zip[a] && members == 1) {
            nsd_diag_at(diag, nsd_toml_get(def->axes[a].at, "zip"),
                        "[[sweep.axis]] '%s': zip group '%s' has no other axis (give the axes "
                        "that vary together the same zip)",
                        def->axes[a].name, zip[a]);
            errors++;
        }
    }
    free(zip);
    if (def->design != NSD_DESIGN_GRID) {
        def->n_runs = def->samples;
        return errors;
    }
    double total = 1;
    for (size_t d = 0; d < def->n_dims; ++d) total *= (double)def->dim_len[d];
    if (total > 1e9) {
        nsd_diag_at(diag, def->at, "[sweep]: %.3g runs: more than 1e9", total);
        return errors + 1;
    }
    def->n_runs = (size_t)total;
    return errors;
}

/* per keys: another axis, or a number in the config. */
static size_t resolve_per(nsd_sweep_def *def, const nsd_config *cfg, nsd_diag *diag) {
    size_t errors = 0;
    for (size_t a = 0; a < def->n_axes; ++a) {
        nsd_sweep_axis *ax = &def->axes[a];
        if (!ax->per_key) continue;
        char *dot = strchr(ax->per_key, '.');
        for (size_t b = 0; b < def->n_axes; ++b)
            if (b != a && !strncmp(def->axes[b].section, ax->per_key, dot - ax->per_key) &&
                strlen(def->axes[b].section) == (size_t)(dot - ax->per_key) &&
                !strcmp(def->axes[b].param, dot + 1))
                ax->per_axis = (long)b;
        if (ax->per_axis >= 0) {
            if (def->axes[ax->per_axis].per_key || def->axes[ax->per_axis].is_text) {
                nsd_diag_at(diag, nsd_toml_get(ax->at, "per"),
                            "[[sweep.axis]] 'per': axis '%s' is text or itself 'per' another",
                            def->axes[ax->per_axis].name);
                errors++;
            }
            continue;
        }
        *dot = '\0';
        const nsd_toml_node *sec = nsd_toml_get(&cfg->root, ax->per_key);
        const nsd_toml_node *v = nsd_toml_get(sec, dot + 1);
        *dot = '.';
        if (!nsd_toml_is_number(v)) {
            nsd_diag_at(diag, nsd_toml_get(ax->at, "per"),
                        "[[sweep.axis]] 'per': '%s' is neither swept nor a number in the config "
                        "(write it there)",
                        ax->per_key);
            errors++;
            continue;
        }
        ax->per_config = v->real;
    }
    return errors;
}

static size_t parse_design(nsd_sweep_def *def, const nsd_toml_node *sw, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *d = nsd_toml_get(sw, "design");
    if (d) {
        if (d->type == NSD_TOML_STRING && !strcmp(d->str, "grid"))
            def->design = NSD_DESIGN_GRID;
        else if (d->type == NSD_TOML_STRING && !strcmp(d->str, "random"))
            def->design = NSD_DESIGN_RANDOM;
        else if (d->type == NSD_TOML_STRING && !strcmp(d->str, "lhs"))
            def->design = NSD_DESIGN_LHS;
        else {
            nsd_diag_at(diag, d, "[sweep] 'design': expected \"grid\", \"random\" or \"lhs\"");
            errors++;
        }
    }
    const nsd_toml_node *s = nsd_toml_get(sw, "seed"), *n = nsd_toml_get(sw, "samples");
    if (s && (s->type != NSD_TOML_INTEGER || s->integer < 0)) {
        nsd_diag_at(diag, s, "[sweep] 'seed': expected an integer >= 0");
        errors++;
    } else if (s) {
        def->seed = (uint64_t)s->integer;
    }
    if (def->design != NSD_DESIGN_GRID) {
        if (!n || n->type != NSD_TOML_INTEGER || n->integer < 1 || n->integer > 100000000) {
            nsd_diag_at(diag, n ? n : sw, "[sweep] 'samples': a %s design needs samples = N >= 1",
                        def->design == NSD_DESIGN_LHS ? "lhs" : "random");
            errors++;
        } else {
            def->samples = (size_t)n->integer;
        }
    } else if (n) {
        nsd_diag_at(diag, n, "[sweep] 'samples' is for design = \"random\" or \"lhs\"");
        errors++;
    }
    const nsd_toml_node *k = nsd_toml_get(sw, "keep");
    if (k) {
        if (k->type == NSD_TOML_STRING && !strcmp(k->str, "none"))
            def->keep = NSD_KEEP_NONE;
        else if (k->type == NSD_TOML_STRING && !strcmp(k->str, "failed"))
            def->keep = NSD_KEEP_FAILED;
        else if (k->type == NSD_TOML_STRING && !strcmp(k->str, "all"))
            def->keep = NSD_KEEP_ALL;
        else if (k->type == NSD_TOML_STRING)
            def->keep = NSD_KEEP_FILTER; /* read after the summaries */
        else {
            nsd_diag_at(diag, k,
                        "[sweep] 'keep': expected \"none\", \"failed\", \"all\" or a filter "
                        "\"SUMMARY OP VALUE\"");
            errors++;
        }
    }
    return errors;
}

/* [sweep] run_timeout / run_max_memory: a number in [lo, hi] (unit) or
 * absent (0: no limit). A limit acts on the worker processes only. */
static size_t parse_limit(const nsd_toml_node *sw, const char *key, const char *unit, double lo,
                          double hi, double *out, nsd_diag *diag) {
    const nsd_toml_node *n = nsd_toml_get(sw, key);
    *out = 0;
    if (!n) return 0;
    if (!nsd_toml_is_number(n) || !(n->real >= lo && n->real <= hi)) {
        nsd_diag_at(diag, n, "[sweep] '%s': expected a number of %s from %g to %g", key, unit, lo,
                    hi);
        return 1;
    }
    *out = n->real;
    return 0;
}

static size_t parse_axes(nsd_sweep_def *def, const nsd_toml_node *sw, nsd_diag *diag) {
    const nsd_toml_node *axes = nsd_toml_get(sw, "axis");
    if (!axes || axes->type != NSD_TOML_ARRAY || axes->n_items == 0) {
        nsd_diag_at(diag, axes ? axes : sw,
                    "[sweep]: needs at least one [[sweep.axis]] (key = \"section.key\" and "
                    "values or a range)");
        return 1;
    }
    if (axes->n_items > 64) {
        nsd_diag_at(diag, axes, "[sweep]: %zu axes; at most 64", axes->n_items);
        return 1;
    }
    size_t errors = 0;
    def->n_axes = axes->n_items;
    def->axes = xcalloc(def->n_axes, sizeof *def->axes);
    for (size_t a = 0; a < def->n_axes; ++a) {
        errors += parse_axis(def, &def->axes[a], &axes->items[a], diag);
        nsd_sweep_axis *ax = &def->axes[a];
        if (ax->param && !strcmp(ax->param, "id")) def->derive_locked = 1;
        for (size_t b = 0; b < a && ax->name; ++b) {
            int same_key = def->axes[b].section && ax->section &&
                           !strcmp(def->axes[b].section, ax->section) &&
                           !strcmp(def->axes[b].param, ax->param);
            if (def->axes[b].name && (!strcmp(def->axes[b].name, ax->name) || same_key)) {
                nsd_diag_at(diag, ax->at, "[[sweep.axis]] '%s': %s axis %zu", ax->name,
                            same_key ? "sweeps the same key as" : "has the same name as", b + 1);
                errors++;
            }
        }
    }
    return errors;
}

/* The definition's hash: the config without [sweep], then what fixes the
 * runs and their summaries. The study's hash leaves the axes out: the
 * same config, design and summaries with other axes is the same study
 * grown (sweep_grow.c). */
static void definition_hash(nsd_sweep_def *def, const nsd_config *cfg) {
    char *text = NULL, *study = NULL;
    size_t len = 0, study_len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) abort();
    for (size_t i = 0; i < cfg->root.n_items; ++i)
        if (strcmp(cfg->root.items[i].key, "sweep") != 0)
            nsd_sweep_node_text(f, &cfg->root.items[i]);
    fflush(f);
    free(def->config_tree); /* an adaptive search hashes each new definition */
    def->config_tree = strndup(text, len);
    fprintf(f, "\ndesign %d seed %llu samples %zu\n", (int)def->design,
            (unsigned long long)def->seed, def->samples);
    FILE *g = open_memstream(&study, &study_len);
    if (!g || !def->config_tree) abort();
    fprintf(g, "study of %zu bytes: %s\ndesign %d seed %llu samples %zu\n",
            strlen(def->config_tree), def->config_tree, (int)def->design,
            (unsigned long long)def->seed, def->samples);
    for (size_t a = 0; a < def->n_axes; ++a) {
        const nsd_sweep_axis *ax = &def->axes[a];
        fprintf(f, "axis %s %s.%s range %d log %d %.17g %.17g n %zu dim %zu per %s %.17g\n",
                ax->name, ax->section, ax->param, ax->is_range, ax->log, ax->start, ax->stop, ax->n,
                ax->dim, ax->per_key ? ax->per_key : "-", ax->per_power);
        for (size_t i = 0; ax->values && i < ax->n; ++i) nsd_sweep_node_text(f, &ax->values[i]);
    }
    for (size_t s = 0; s < def->n_sums; ++s) {
        fprintf(f, "summary %s = %s\n", def->sums[s].name, def->sums[s].expr);
        fprintf(g, "summary %s = %s\n", def->sums[s].name, def->sums[s].expr);
    }
    fprintf(f, "points %d\n", NSD_SWEEP_POINTS);
    fprintf(g, "points %d\n", NSD_SWEEP_POINTS);
    fclose(f);
    fclose(g);
    nsd_sha256_hex(text, len, def->hash);
    nsd_sha256_hex(study, study_len, def->study_hash);
    free(text);
    free(study);
}

/* keep = "SUMMARY OP VALUE", once the summaries are known. */
static size_t parse_filter(nsd_sweep_def *def, const nsd_toml_node *k, nsd_diag *diag) {
    static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
    char name[64] = "", op[4] = "", value[NSD_SWEEP_TEXT] = "", extra[2] = "";
    nsd_sweep_filter *f = &def->keep_filter;
    int n = sscanf(k->str, "%63s %3s %47s %1s", name, op, value, extra);
    f->summary = -1;
    for (size_t s = 0; s < def->n_sums; ++s)
        if (!strcmp(def->sums[s].name, name)) f->summary = (long)s;
    f->op = -1;
    for (int i = 0; i < 6; ++i)
        if (!strcmp(op, ops[i])) f->op = i;
    char *end = NULL;
    f->num = strtod(value, &end);
    f->is_text = f->summary >= 0 && def->sums[f->summary].kind == NSD_SUM_STOP;
    snprintf(f->text, sizeof f->text, "%s", value);
    if (n != 3 || f->summary < 0 || f->op < 0 || (f->is_text && f->op > 1) ||
        (!f->is_text && (end == value || *end))) {
        nsd_diag_at(diag, k,
                    "[sweep] 'keep' = \"%s\": expected \"none\", \"failed\", \"all\" or a "
                    "filter \"SUMMARY OP VALUE\" (a summary of [sweep.summary]; OP == != < <= > "
                    ">=; VALUE a number, or a word with == or != for a stop)",
                    k->str);
        return 1;
    }
    return 0;
}

/* The units of the columns (runs.csv headers, the database's units table):
 * a `per` axis's value is the key's value over per^p. */
static void set_units(nsd_sweep_def *def, const nsd_scenario *base) {
    for (size_t a = 0; a < def->n_axes; ++a) {
        nsd_sweep_axis *ax = &def->axes[a];
        const char *u = nsd_sweep_axis_unit(base, ax);
        char per_unit[64] = "1", buf[200];
        if (ax->per_key) {
            char section[64];
            const char *dot = strchr(ax->per_key, '.');
            snprintf(section, sizeof section, "%.*s", dot ? (int)(dot - ax->per_key) : 0,
                     ax->per_key);
            nsd_sweep_axis per = {.section = section, .param = (char *)(dot ? dot + 1 : "")};
            snprintf(per_unit, sizeof per_unit, "%s", nsd_sweep_axis_unit(base, &per));
        }
        char power[100];
        snprintf(power, sizeof power, ax->per_power == 1 ? "%s" : "%s^%g", per_unit, ax->per_power);
        if (!strcmp(per_unit, "1") || ax->per_power == 0)
            snprintf(buf, sizeof buf, "%s", u);
        else if (!strcmp(u, power)) /* J/m over b^2: m^2 / m^2 */
            snprintf(buf, sizeof buf, "1");
        else if (ax->per_power == 1)
            snprintf(buf, sizeof buf, "%s / (%s)", u, per_unit);
        else
            snprintf(buf, sizeof buf, "%s / (%s)^%g", u, per_unit, ax->per_power);
        ax->unit = strdup(buf);
    }
    for (size_t s = 0; s < def->n_sums; ++s)
        def->sums[s].unit = strdup(nsd_sweep_summary_unit(base, &def->sums[s]));
}

/* The index of a range axis of a grid design an adaptive search may
 * refine (start < stop, not zipped, no 'per'), or -1. */
static long refinable_axis(const nsd_sweep_def *def, const nsd_toml_node *name) {
    long found = -1;
    for (size_t a = 0; name && name->type == NSD_TOML_STRING && a < def->n_axes; ++a)
        if (!strcmp(def->axes[a].name, name->str)) found = (long)a;
    const nsd_sweep_axis *A = found >= 0 ? &def->axes[found] : NULL;
    size_t members = 0;
    for (size_t a = 0; A && a < def->n_axes; ++a) members += def->axes[a].dim == A->dim;
    if (!A || !A->is_range || A->per_key || members > 1 || def->design != NSD_DESIGN_GRID ||
        !(A->stop > A->start))
        return -1;
    return found;
}

/* The two-axis mode: axes = [X, Y] (range axes with count >= 2: the
 * coarse grid), cell = [dX, dY] (the finest cell's size per axis, > 0). */
static size_t parse_map_axes(nsd_sweep_def *def, const nsd_toml_node *t, nsd_diag *diag) {
    nsd_sweep_adaptive *ad = &def->adaptive;
    const nsd_toml_node *axes = nsd_toml_get(t, "axes"), *cell = nsd_toml_get(t, "cell");
    size_t errors = 0;
    if (nsd_toml_get(t, "axis") || nsd_toml_get(t, "tolerance")) {
        nsd_diag_at(
            diag, nsd_toml_get(t, "axis") ? nsd_toml_get(t, "axis") : nsd_toml_get(t, "tolerance"),
            "[sweep.adaptive]: 'axis' and 'tolerance' bisect one axis; 'axes' and 'cell' "
            "refine the cells of a two-axis map: expected one of the two forms");
        errors++;
    }
    if (axes->type != NSD_TOML_ARRAY || axes->n_items != 2) {
        nsd_diag_at(diag, axes,
                    "[sweep.adaptive] 'axes': expected the names of two axes (a two-axis map), "
                    "found %zu",
                    axes->type == NSD_TOML_ARRAY ? axes->n_items : (size_t)1);
        return errors + 1;
    }
    for (int k = 0; k < 2; ++k) {
        long a = refinable_axis(def, &axes->items[k]);
        if (a < 0 || def->axes[a].n < 2 || def->axes[a].log || def->axes[a].is_int ||
            (k == 1 && a == ad->axis)) {
            nsd_diag_at(diag, &axes->items[k],
                        "[sweep.adaptive] 'axes' item %d: expected the name of a linear range "
                        "axis of real numbers of the sweep (grid design, start < stop, count >= 2, "
                        "not zipped, no 'per', not log), different from the other",
                        k + 1);
            errors++;
        }
        if (k == 0)
            ad->axis = a;
        else
            ad->axis2 = a;
    }
    if (!cell || cell->type != NSD_TOML_ARRAY || cell->n_items != 2 ||
        !nsd_toml_is_number(&cell->items[0]) || !nsd_toml_is_number(&cell->items[1])) {
        nsd_diag_at(diag, cell ? cell : t,
                    "[sweep.adaptive] 'cell': expected two numbers, the finest cell's size "
                    "along each of 'axes' in its unit");
        return errors + 1;
    }
    for (int k = 0; k < 2; ++k) {
        ad->cell[k] = cell->items[k].real;
        if (!(ad->cell[k] > 0) || !isfinite(ad->cell[k])) {
            nsd_diag_at(diag, &cell->items[k],
                        "[sweep.adaptive] 'cell' item %d: expected a positive size, found %g",
                        k + 1, ad->cell[k]);
            errors++;
        }
    }
    return errors;
}

/* [sweep.adaptive] axis = NAME, target = "fraction(S) OP F" |
 * "fraction(S > V) OP F" | "mean(S) OP V", tolerance = T (axis unit); or
 * axes = [X, Y], cell = [dX, dY], target (the two-axis map). */
static size_t parse_adaptive(nsd_sweep_def *def, const nsd_toml_node *t, nsd_diag *diag) {
    nsd_sweep_adaptive *ad = &def->adaptive;
    ad->axis = ad->summary = ad->axis2 = -1;
    if (!t) return 0;
    static const char *const keys[] = {"axis", "target", "tolerance", "axes", "cell"};
    size_t errors = unknown_keys(t, keys, NSDYN_COUNT(keys), "[sweep.adaptive]", diag);
    const nsd_toml_node *ax = nsd_toml_get(t, "axis"), *tg = nsd_toml_get(t, "target"),
                        *tol = nsd_toml_get(t, "tolerance");
    if (nsd_toml_get(t, "axes")) {
        errors += parse_map_axes(def, t, diag);
    } else {
        ad->axis = refinable_axis(def, ax);
        if (ad->axis < 0) {
            nsd_diag_at(diag, ax ? ax : t,
                        "[sweep.adaptive] 'axis': expected the name of a range axis of a grid "
                        "design (start < stop, not zipped, no 'per') to bisect");
            errors++;
        }
        if (!nsd_toml_is_number(tol) || !(tol->real > 0)) {
            nsd_diag_at(diag, tol ? tol : t,
                        "[sweep.adaptive] 'tolerance': expected a positive number (the final "
                        "bracket's width in the axis's unit)");
            errors++;
        } else
            ad->tolerance = tol->real;
    }
    char name[64] = "", op[4] = "", rest[2] = "";
    int n = 0;
    ad->above = 0;
    if (tg && tg->type == NSD_TOML_STRING) {
        snprintf(ad->target, sizeof ad->target, "%s", tg->str);
        if (sscanf(tg->str, " fraction ( %63[A-Za-z0-9_] > %lf ) %3[<>=] %lf %1s", name, &ad->above,
                   op, &ad->value, rest) == 4 ||
            sscanf(tg->str, " fraction ( %63[A-Za-z0-9_] ) %3[<>=] %lf %1s", name, op, &ad->value,
                   rest) == 3)
            n = 1;
        else if (sscanf(tg->str, " mean ( %63[A-Za-z0-9_] ) %3[<>=] %lf %1s", name, op, &ad->value,
                        rest) == 3)
            n = 1, ad->mean = 1;
    }
    static const char *const ops[] = {">=", ">", "<=", "<"};
    ad->op = -1;
    for (int k = 0; k < 4; ++k)
        if (!strcmp(op, ops[k])) ad->op = k;
    for (size_t s = 0; s < def->n_sums; ++s)
        if (!strcmp(def->sums[s].name, name) && def->sums[s].kind != NSD_SUM_STOP)
            ad->summary = (long)s;
    if (!n || ad->op < 0 || ad->summary < 0) {
        nsd_diag_at(diag, tg ? tg : t,
                    "[sweep.adaptive] 'target' = \"%s\": expected \"fraction(S) OP F\", "
                    "\"fraction(S > V) OP F\" or \"mean(S) OP V\" with S a number summary of "
                    "[sweep.summary] and OP one of >= > <= <",
                    tg && tg->type == NSD_TOML_STRING ? tg->str : "");
        errors++;
    }
    if (errors) ad->axis = ad->axis2 = -1;
    return errors;
}

int nsd_sweep_target_holds(const nsd_sweep_adaptive *ad, size_t n, size_t hits, double sum) {
    if (n == 0) return 0;
    double x = ad->mean ? sum / (double)n : (double)hits / (double)n;
    return ad->op == 0   ? x >= ad->value
           : ad->op == 1 ? x > ad->value
           : ad->op == 2 ? x <= ad->value
                         : x < ad->value;
}

void nsd_sweep_set_values(nsd_sweep_def *def, size_t a, const double *x, size_t n) {
    nsd_sweep_axis *ax = &def->axes[a];
    for (size_t i = 0; ax->values && i < ax->n; ++i) nsd_toml_node_clear(&ax->values[i]);
    free(ax->values);
    ax->values = xcalloc(n, sizeof *ax->values);
    for (size_t i = 0; i < n; ++i) ax->values[i] = nsd_toml_number_at(x[i], ax->at);
    ax->is_range = 0;
    ax->is_int = 0;
    ax->n = n;
    def->dim_len[ax->dim] = n;
    def->n_runs = 1;
    for (size_t d = 0; d < def->n_dims; ++d) def->n_runs *= def->dim_len[d];
    definition_hash(def, def->cfg);
}

size_t nsd_sweep_parse(nsd_sweep_def *def, const nsd_scenario *base, nsd_diag *diag) {
    memset(def, 0, sizeof *def);
    const nsd_config *cfg = &base->app.cfg;
    const nsd_toml_node *sw = nsd_toml_get(&cfg->root, "sweep");
    if (!sw || sw->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, sw ? sw : &cfg->root,
                    "nsdyn sweep needs a [sweep] table with axes "
                    "(docs/sweep.md)");
        return 1;
    }
    def->at = sw;
    def->cfg = cfg;
    def->points_sum = -1;
    def->adaptive.axis = def->adaptive.axis2 = -1;
    static const char *const keys[] = {"design",         "seed",    "samples", "keep",
                                       "axis",           "summary", "graph",   "run_timeout",
                                       "run_max_memory", "adaptive"};
    size_t errors = unknown_keys(sw, keys, NSDYN_COUNT(keys), "[sweep]", diag);
    errors += parse_design(def, sw, diag);
    errors += parse_limit(sw, "run_timeout", "s", 1e-3, 1e7, &def->run_timeout_s, diag);
    errors += parse_limit(sw, "run_max_memory", "MiB", 16, 1e9, &def->run_max_memory_mb, diag);
    errors += parse_axes(def, sw, diag);
    if (errors) return errors;
    errors += build_dims(def, diag);
    errors += resolve_per(def, cfg, diag);
    errors += nsd_sweep_parse_summaries(def, nsd_toml_get(sw, "summary"), base, diag);
    if (!errors && def->keep == NSD_KEEP_FILTER)
        errors += parse_filter(def, nsd_toml_get(sw, "keep"), diag);
    const nsd_toml_node *graphs = nsd_toml_get(sw, "graph");
    if (!errors && graphs) errors += nsd_sweep_parse_graphs(def, graphs, diag);
    if (!errors) errors += parse_adaptive(def, nsd_toml_get(sw, "adaptive"), diag);
    if (!errors) definition_hash(def, cfg);
    if (!errors) nsd_sweep_study_config(def);
    if (!errors) set_units(def, base);
    if (!errors) nsd_sweep_design_init(def);
    return errors;
}

void nsd_sweep_def_free(nsd_sweep_def *def) {
    for (size_t a = 0; a < def->n_axes; ++a) {
        nsd_sweep_axis *ax = &def->axes[a];
        free(ax->name);
        free(ax->section);
        free(ax->param);
        free(ax->per_key);
        free(ax->unit);
        for (size_t i = 0; ax->values && i < ax->n; ++i) nsd_toml_node_clear(&ax->values[i]);
        free(ax->values);
    }
    free(def->axes);
    free(def->dim_len);
    free(def->lhs);
    for (size_t s = 0; s < def->n_sums; ++s) {
        free(def->sums[s].name);
        free(def->sums[s].expr);
        free(def->sums[s].channel);
        free(def->sums[s].unit);
    }
    free(def->sums);
    for (size_t g = 0; g < def->n_graphs; ++g) free(def->graphs[g].name);
    free(def->graphs);
    free(def->config_tree);
    free(def->config_resolved);
    memset(def, 0, sizeof *def);
}
