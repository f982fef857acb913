#define _GNU_SOURCE
#include "config.h"
#include "plugin_calls.h"
#include "plugin_trust.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const top_keys[] = {
    "title", "plugin_path", "system",  "contact",    "friction", "integrator", "initial", "run",
    "plot",  "compare",     "variant", "provenance", "status",   "periodic",   "sweep",   "pcmap"};

/* cfg->settings from the resolved [run] values (in declaration order). */
static void fill_run_settings(nsd_config *cfg) {
    const nsdyn_value *v = cfg->run.values;
    if (!v) {
        memset(&cfg->settings, 0, sizeof cfg->settings);
        return;
    }
    cfg->settings = (nsd_run_settings){
        .t_end = v[NSD_RUN_T_END].num,
        .t_start = v[NSD_RUN_T_START].num,
        .output_dt = v[NSD_RUN_OUTPUT_DT].num,
        .max_samples = v[NSD_RUN_MAX_SAMPLES].num,
        .hold_stick = v[NSD_RUN_HOLD_STICK].num != 0,
        .progress = v[NSD_RUN_PROGRESS].num != 0,
        .rest_ratio = v[NSD_RUN_REST_RATIO].num,
        .rest_velocity = v[NSD_RUN_REST_VELOCITY].num,
        .contact_tolerance = v[NSD_RUN_CONTACT_TOLERANCE].num,
        .max_events = (size_t)v[NSD_RUN_MAX_EVENTS].num,
        .energy_audit = (nsd_energy_audit)(int)v[NSD_RUN_ENERGY_AUDIT].num,
        .energy_tolerance = v[NSD_RUN_ENERGY_TOLERANCE].num,
        .friction_states_open = v[NSD_RUN_FRICTION_STATES_OPEN].num != 0,
        .precheck = v[NSD_RUN_PRECHECK].num != 0,
        .penetration_audit = (nsd_energy_audit)(int)v[NSD_RUN_PENETRATION_AUDIT].num,
        .penetration_tolerance = v[NSD_RUN_PENETRATION_TOLERANCE].num,
        .timeout = v[NSD_RUN_TIMEOUT].num,
        .max_memory_mib = v[NSD_RUN_MAX_MEMORY].num,
        .hdf5 = (int)v[NSD_RUN_DATA_FORMAT].num == 1,
    };
}
double nsd_plot_num(const nsd_config *cfg, const char *key) {
    /* A key the host does not declare is a bug in the host: stop loudly
     * rather than read NaN (which reads as true). */
    if (nsd_params_index(nsd_plot_decls, nsd_n_plot_decls, key) < 0) {
        fprintf(stderr, "nsdyn: internal error: [plot] has no key '%s'\n", key);
        abort();
    }
    return nsd_params_num(&cfg->plot, key);
}

/* ---- reading and overrides -------------------------------------------- */

static char *dup_str(const char *s) {
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static nsd_toml_node *table_child(nsd_toml_node *table, const char *key) {
    for (size_t i = 0; i < table->n_items; ++i)
        if (strcmp(table->items[i].key, key) == 0) return &table->items[i];
    return NULL;
}

/* Does a --set value start like a number: [+-]?(digit | .digit)? */
static int looks_numeric(const char *v) {
    if (*v == '+' || *v == '-') v++;
    if (*v == '.') v++;
    return isdigit((unsigned char)*v);
}

/* A --set value that C reads as one number but TOML refused: say why
 * (beyond the range of a double, too small for one, or not TOML's way
 * of writing it). 0 when it is not such a number. */
static int number_trouble(const char *value, const char *label, nsd_diag *diag) {
    if (!looks_numeric(value)) return 0;
    char *end;
    errno = 0;
    double x = strtod(value, &end);
    if (end == value || *end != '\0') return 0;
    if (errno == ERANGE && isinf(x))
        nsd_diag_add(
            diag,
            "%s: the number %s is out of the range of a double (largest magnitude about 1.8e308)",
            label, value);
    else if (errno == ERANGE && x == 0)
        nsd_diag_add(diag,
                     "%s: the number %s is too small for a double: it would be read as 0 (smallest "
                     "magnitude about 4.9e-324)",
                     label, value);
    else
        nsd_diag_add(diag,
                     "%s: %s is not a TOML number (TOML writes 0.5, not .5 or 5.; 1e3 or 1.0e3; no "
                     "leading zeros)",
                     label, value);
    return 1;
}

/* A --set value and its elements are reported as "--set ...", without the
 * line and column of the one-line document it was parsed from. */
static void clear_positions(nsd_toml_node *v) {
    v->line = v->column = 0;
    for (size_t i = 0; i < v->n_items; ++i) clear_positions(&v->items[i]);
}

static int apply_set(nsd_config *cfg, const char *set, nsd_diag *diag) {
    const char *eq = strchr(set, '=');
    /* Names the value in messages; a long one is shortened there (only). */
    char label[200];
    size_t set_len = strlen(set);
    if (set_len <= 160)
        snprintf(label, sizeof label, "--set %s", set);
    else
        snprintf(label, sizeof label, "--set %.120s... (%zu characters)", set, set_len);
    if (!eq || eq == set) {
        nsd_diag_add(diag, "%s: expected section.key=value", label);
        return 1;
    }
    size_t klen = (size_t)(eq - set);
    char path[256];
    if (klen >= sizeof path) {
        nsd_diag_add(diag, "%s: key too long", label);
        return 1;
    }
    memcpy(path, set, klen);
    path[klen] = '\0';
    const char *value = eq + 1;
    /* The value is parsed as the TOML document "v = <value>": any length. */
    size_t text_len = strlen(value) + 16;
    char *text = malloc(text_len), err[1024];
    if (!text) abort();
    snprintf(text, text_len, "v = %s\n", value);
    nsd_toml_doc *doc = nsd_toml_parse_string(text, label, err, sizeof err);
    if (!doc && number_trouble(value, label, diag)) {
        free(text);
        return 1;
    }
    if (!doc) {
        /* A bare word (integrator.id=bdf) is taken as a string. */
        int word = *value != '\0';
        for (const char *c = value; *c; ++c)
            if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.' || *c == '/'))
                word = 0;
        if (word) {
            snprintf(text, text_len, "v = \"%s\"\n", value);
            doc = nsd_toml_parse_string(text, label, err, sizeof err);
        }
        if (!doc) {
            nsd_diag_add(diag, "%s: the value is not valid TOML (quote strings: key='\"text\"')",
                         label);
            free(text);
            return 1;
        }
    }
    free(text);
    if (nsd_toml_root(doc)->n_items != 1) {
        nsd_diag_add(diag, "%s: the value is not one TOML value", label);
        nsd_toml_free(doc);
        return 1;
    }
    cfg->set_docs = realloc(cfg->set_docs, (cfg->n_set_docs + 1) * sizeof *cfg->set_docs);
    if (!cfg->set_docs) abort();
    cfg->set_docs[cfg->n_set_docs++] = doc;
    nsd_toml_node *v = nsd_toml_root(doc)->items; /* the single entry "v" */
    clear_positions(v);                           /* report as "--set ..." */
    /* section.key, or a nested table's key (periodic.continuation.to):
       each table on the way made when the config has none */
    nsd_toml_node *table = &cfg->root;
    const char *key = path, *dot;
    size_t depth = 0;
    while ((dot = strchr(key, '.')) != NULL) {
        char part[256];
        snprintf(part, sizeof part, "%.*s", (int)(dot - key), key);
        if (!*part) break; /* "empty key" below */
        nsd_toml_node *sec = table_child(table, part);
        if (!sec) {
            nsd_toml_node empty = {0};
            empty.type = NSD_TOML_TABLE;
            empty.source = nsd_toml_root(doc)->source;
            nsd_toml_table_set(table, part, &empty);
            sec = table_child(table, part);
        }
        if (sec->type != NSD_TOML_TABLE) {
            nsd_diag_add(diag, "%s: key '%.*s': expected a table, found %s", label,
                         (int)(dot - path), path, nsd_toml_type_name(sec->type));
            return 1;
        }
        table = sec;
        key = dot + 1;
        depth++;
    }
    if (!*key || (dot && dot == key)) {
        nsd_diag_add(diag, "%s: key '%s': expected section.key=value, found an empty key part",
                     label, path);
        return 1;
    }
    /* Another plugin for a section: the file's keys belonged to the old one. */
    const nsd_toml_node *old_id = nsd_toml_get(table, "id");
    if (depth == 1 && strcmp(key, "id") == 0 && old_id && v->type == NSD_TOML_STRING &&
        old_id->type == NSD_TOML_STRING && strcmp(old_id->str, v->str) != 0)
        while (table->n_items) nsd_toml_table_remove(table, table->items[0].key);
    nsd_toml_table_set(table, key, v);
    return 0;
}

/* text NULL: read the file at path; else parse text, named path. */
static int config_read(nsd_config *cfg, const char *path, const char *text, const char *const *sets,
                       size_t n_sets, nsd_diag *diag) {
    memset(cfg, 0, sizeof *cfg);
    char err[1024];
    cfg->doc = text ? nsd_toml_parse_string(text, path, err, sizeof err)
                    : nsd_toml_parse_file(path, err, sizeof err);
    if (!cfg->doc) {
        nsd_diag_add(diag, "%s", err);
        return 1;
    }
    cfg->path = dup_str(path);
    nsd_toml_node_copy(&cfg->root, nsd_toml_root(cfg->doc));
    size_t errors = 0;
    for (size_t i = 0; i < n_sets; ++i) errors += (size_t)apply_set(cfg, sets[i], diag);
    return errors ? 1 : 0;
}

int nsd_config_read(nsd_config *cfg, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag) {
    return config_read(cfg, path, NULL, sets, n_sets, diag);
}

int nsd_config_read_text(nsd_config *cfg, const char *text, const char *name,
                         const char *const *sets, size_t n_sets, nsd_diag *diag) {
    return config_read(cfg, name, text, sets, n_sets, diag);
}

size_t nsd_config_search_path(const nsd_config *cfg, char ***dirs_out, nsd_diag *diag) {
    char **dirs = NULL;
    size_t n = 0;
#define PUSH(s)                                       \
    do {                                              \
        dirs = realloc(dirs, (n + 1) * sizeof *dirs); \
        if (!dirs) abort();                           \
        dirs[n++] = dup_str(s);                       \
    } while (0)
    const nsd_toml_node *pp = nsd_toml_get(&cfg->root, "plugin_path");
    /* A config's plugin_path is code that runs: --no-config-plugins (which
     * sets NSDYN_NO_CONFIG_PLUGINS=1) refuses it; otherwise each folder is
     * searched only if the user trusts it (plugin_trust.h). */
    const char *refuse = getenv("NSDYN_NO_CONFIG_PLUGINS");
    if (pp && refuse && *refuse && strcmp(refuse, "0") != 0) {
        nsd_diag_at(diag, pp,
                    "plugin_path: refused (--no-config-plugins or NSDYN_NO_CONFIG_PLUGINS is set): "
                    "a config's plugin_path loads and runs the shared objects it names; if you "
                    "trust them, put the folder in NSDYN_PLUGIN_PATH instead");
        pp = NULL;
    }
    if (pp) {
        char base[PATH_MAX];
        snprintf(base, sizeof base, "%s", cfg->path ? cfg->path : ".");
        char *slash = strrchr(base, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(base, sizeof base, ".");
        const nsd_toml_node *items = pp->type == NSD_TOML_ARRAY ? pp->items : pp;
        size_t count = pp->type == NSD_TOML_ARRAY ? pp->n_items : 1;
        for (size_t i = 0; i < count; ++i) {
            const nsd_toml_node *e = &items[i];
            if (e->type != NSD_TOML_STRING) {
                nsd_diag_at(diag, e,
                            "plugin_path: expected a string or an array of strings, found %s",
                            nsd_toml_type_name(e->type));
                continue;
            }
            char dir[2 * PATH_MAX];
            if (e->str[0] == '/')
                snprintf(dir, sizeof dir, "%s", e->str);
            else
                snprintf(dir, sizeof dir, "%s/%s", base, e->str);
            char real[PATH_MAX];
            if (!realpath(dir, real)) {
                nsd_diag_at(diag, e,
                            "plugin_path: directory '%s' does not exist (looked for %s; relative "
                            "paths start at the config's folder)",
                            e->str, dir);
                continue;
            }
            if (nsd_plugin_trust_dir(real, e, diag)) continue; /* only by the user's choice */
            PUSH(real);
        }
    }
    const char *env = getenv("NSDYN_PLUGIN_PATH");
    if (env && *env) {
        char *copy = dup_str(env), *save = NULL;
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
            if (*tok && nsd_plugin_env_dir_ok(tok)) PUSH(tok);
        free(copy);
    }
    PUSH(nsd_builtin_plugin_dir());
#undef PUSH
    *dirs_out = dirs;
    return n;
}

/* The overrides of section `name` into a new array (caller frees): their
 * values, in order; the count in *n. */
static const nsd_toml_node **section_overrides(const nsd_config *cfg, const char *name, size_t *n) {
    const nsd_toml_node **out = calloc(cfg->over.n + 1, sizeof *out);
    if (!out) abort();
    *n = 0;
    for (size_t i = 0; i < cfg->over.n; ++i)
        if (!strcmp(cfg->over.items[i].section, name)) out[(*n)++] = &cfg->over.items[i].value;
    return out;
}

/* The file's table of a section under its overrides: NULL when the
 * overrides replace it (an id naming another plugin drops the file's
 * keys, as a [[variant]] does; a non-table entry is replaced too). */
static const nsd_toml_node *file_table(const nsd_config *cfg, const char *name, size_t n_over) {
    const nsd_toml_node *t = nsd_toml_get(&cfg->root, name);
    if (!t || !n_over) return t;
    if (t->type != NSD_TOML_TABLE) return NULL;
    const nsd_override *o = nsd_overrides_find(&cfg->over, name, "id");
    const nsd_toml_node *id = nsd_toml_get(t, "id");
    if (o && o->value.type == NSD_TOML_STRING && id && id->type == NSD_TOML_STRING &&
        strcmp(o->value.str, id->str) != 0)
        return NULL;
    return t;
}

static size_t resolve_plugin(nsd_section *sec, const nsd_toml_node *id, const nsd_toml_node *t,
                             const nsd_toml_node *const *over, size_t n_over,
                             const nsd_registry *reg, nsd_diag *diag);

/* Resolve one plugin section: id, kind, parameters (the file's table
 * with the section's overrides laid over it). */
static size_t resolve_section(nsd_section *sec, nsdyn_kind kind, const nsd_config *cfg,
                              const nsd_registry *reg, int required, nsd_diag *diag) {
    memset(sec, 0, sizeof *sec);
    sec->kind = kind;
    const char *name = nsd_kind_section(kind);
    size_t n_over;
    const nsd_toml_node **over = section_overrides(cfg, name, &n_over);
    const nsd_toml_node *t = file_table(cfg, name, n_over);
    size_t errors = 0;
    if (!t && !n_over) {
        if (required) {
            nsd_diag_at(diag, &cfg->root, "missing section [%s]: every run needs %s %s", name,
                        kind == NSDYN_KIND_INTEGRATOR ? "an" : "a", nsd_kind_name(kind));
            errors = 1;
        }
    } else if (t && t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "'%s' must be a table ([%s]), found %s", name, name,
                    nsd_toml_type_name(t->type));
        errors = 1;
    } else {
        sec->table = t ? t : over[0];
        const nsd_override *o = nsd_overrides_find(&cfg->over, name, "id");
        sec->id = o ? &o->value : nsd_toml_get(t, "id");
        errors = resolve_plugin(sec, sec->id, t, over, n_over, reg, diag);
    }
    free(over);
    return errors;
}

/* The plugin named by id (may be NULL) and its parameters. */
static size_t resolve_plugin(nsd_section *sec, const nsd_toml_node *id, const nsd_toml_node *t,
                             const nsd_toml_node *const *over, size_t n_over,
                             const nsd_registry *reg, nsd_diag *diag) {
    const nsdyn_kind kind = sec->kind;
    const char *name = nsd_kind_section(kind);
    if (!id) {
        nsd_diag_at(diag, sec->table,
                    "[%s]: missing required key 'id' (which %s to use; `nsdyn plugins` lists them)",
                    name, nsd_kind_name(kind));
        return 1;
    }
    if (id->type != NSD_TOML_STRING) {
        nsd_diag_at(diag, id, "[%s] key 'id': expected a string, found %s", name,
                    nsd_toml_type_name(id->type));
        return 1;
    }
    const nsd_plugin *p = nsd_registry_find(reg, id->str);
    if (!p) {
        const char **ids = calloc(reg->n ? reg->n : 1, sizeof *ids);
        size_t k = 0;
        char list[1024] = "";
        for (size_t i = 0; i < reg->n; ++i)
            if (reg->plugins[i].info->kind == kind) {
                ids[k++] = reg->plugins[i].info->id;
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", k > 1 ? ", " : "",
                         reg->plugins[i].info->id);
            }
        const char *near = nsd_did_you_mean(id->str, ids, k);
        if (near)
            nsd_diag_at(diag, id, "[%s]: no %s '%s' in the plugin search path (did you mean '%s'?)",
                        name, nsd_kind_name(kind), id->str, near);
        else
            nsd_diag_at(diag, id, "[%s]: no %s '%s' in the plugin search path (available: %s)",
                        name, nsd_kind_name(kind), id->str, k ? list : "none");
        free(ids);
        return 1;
    }
    if (p->info->kind != kind) {
        char list[1024] = "";
        for (size_t i = 0, k = 0; i < reg->n; ++i)
            if (reg->plugins[i].info->kind == kind) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", k++ ? ", " : "",
                         reg->plugins[i].info->id);
            }
        nsd_diag_at(diag, id, "[%s]: '%s' is %s %s, not %s %s (%ss: %s)", name, id->str,
                    nsd_kind_article(p->info->kind), nsd_kind_name(p->info->kind),
                    nsd_kind_article(kind), nsd_kind_name(kind), nsd_kind_name(kind),
                    list[0] ? list : "none installed");
        return 1;
    }
    sec->plugin = p;
    char label[160];
    snprintf(label, sizeof label, "[%s] (%s)", name, p->info->id);
    static const char *const skip[] = {"id", NULL};
    const nsdyn_param_aliases *al = nsd_plugin_param_aliases(p->info); /* ABI 2.4 */
    return nsd_params_resolve_aliased(&sec->params, p->info->params, p->info->n_params,
                                      al ? al->alias : NULL, al ? al->n : 0, t, over, n_over, label,
                                      skip, diag);
}

/* What an element of [plot] limits is, for "found ...". */
static const char *found_array(const nsd_toml_node *e) {
    if (e->type != NSD_TOML_ARRAY) return nsd_toml_type_name(e->type);
    return e->n_items != 2 ? "an array without exactly 2 elements" : "a non-numeric element";
}

static size_t string_list(const nsd_toml_node *table, const char *key, char ***out, size_t *n,
                          int *present, nsd_diag *diag) {
    const nsd_toml_node *v = nsd_toml_get(table, key);
    *present = v != NULL;
    if (!v) return 0;
    if (v->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, v, "[plot] key '%s': expected an array of strings, found %s", key,
                    nsd_toml_type_name(v->type));
        return 1;
    }
    *out = calloc(v->n_items ? v->n_items : 1, sizeof **out);
    if (!*out) abort();
    for (size_t i = 0; i < v->n_items; ++i) {
        if (v->items[i].type != NSD_TOML_STRING) {
            nsd_diag_at(diag, &v->items[i],
                        "[plot] key '%s' element %zu: expected a string, found %s", key, i + 1,
                        nsd_toml_type_name(v->items[i].type));
            return 1;
        }
        (*out)[(*n)++] = dup_str(v->items[i].str);
    }
    return 0;
}

/* The output grid of [run], checked before anything runs (t_end > t_start
 * already holds): a span a double can hold, at most run.max_samples samples
 * (the rows are kept in memory), and an interval the doubles near t_start
 * and t_end can resolve. Returns the errors added. */
static size_t check_output_grid(const nsd_config *cfg, nsd_diag *diag) {
    const nsd_run_settings *rs = &cfg->settings;
    double t0 = rs->t_start, t1 = rs->t_end, dt = rs->output_dt, max = rs->max_samples;
    const nsd_toml_node *at_end = cfg->run.from[NSD_RUN_T_END]; /* required, so set */
    const nsd_toml_node *at_dt = cfg->run.from[NSD_RUN_OUTPUT_DT];
    double span = t1 - t0;
    if (!isfinite(span)) {
        nsd_diag_at(
            diag, at_end,
            "[run] the run t_end - t_start = %.9g s - (%.9g s) is beyond the range of a double", t1,
            t0);
        return 1;
    }
    double step = dt > 0 ? dt : span / 2000.0;
    double samples = span / step;
    if (!(samples <= max)) {
        nsd_diag_at(
            diag, at_dt ? at_dt : at_end,
            "[run] the output grid (t_end - t_start)/output_dt = (%.9g s - %.9g s)/%g s has "
            "%.4g samples, more than run.max_samples = %.0f: raise output_dt (or "
            "run.max_samples), or shorten the run",
            t1, t0, step, samples, max);
        return 1;
    }
    /* Samples t_start + k output_dt must be distinct doubles, with room to
     * spare for the runner's comparisons (1e-9 output_dt). */
    double scale = fmax(fabs(t0), fabs(t1));
    if (step < 1e-12 * scale) {
        nsd_diag_at(diag, at_dt ? at_dt : at_end,
                    "[run] output_dt = %g s is below the time resolution near t = %.9g s (doubles "
                    "there are %g s apart): choose output_dt >= %g s, or times nearer 0",
                    step, scale, nextafter(scale, HUGE_VAL) - scale, 1e-12 * scale);
        return 1;
    }
    return 0;
}

/* The top level: known keys only, and the title (the config's file name
 * when it has none). Returns the errors added. */
static size_t resolve_top(nsd_config *cfg, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *root = &cfg->root;
    for (size_t i = 0; i < root->n_items; ++i) {
        const nsd_toml_node *e = &root->items[i];
        int known = 0;
        for (size_t k = 0; k < NSDYN_COUNT(top_keys); ++k)
            if (strcmp(e->key, top_keys[k]) == 0) known = 1;
        if (!known) {
            const char *near = nsd_did_you_mean(e->key, top_keys, NSDYN_COUNT(top_keys));
            if (near)
                nsd_diag_at(diag, e, "unknown top-level key '%s' (did you mean '%s'?)", e->key,
                            near);
            else
                nsd_diag_at(diag, e,
                            "unknown top-level key '%s' (known: title, plugin_path, system, "
                            "contact, friction, integrator, initial, run, plot, compare, variant, "
                            "periodic, sweep)",
                            e->key);
            errors++;
        }
    }
    const nsd_toml_node *title = nsd_toml_get(root, "title");
    if (title && title->type != NSD_TOML_STRING) {
        nsd_diag_at(diag, title, "'title': expected a string, found %s",
                    nsd_toml_type_name(title->type));
        errors++;
    }
    free(cfg->title);
    cfg->title = NULL;
    if (title && title->type == NSD_TOML_STRING)
        cfg->title = dup_str(title->str);
    else {
        const char *base = cfg->path ? strrchr(cfg->path, '/') : NULL;
        cfg->title = dup_str(base ? base + 1 : cfg->path ? cfg->path : "nsdyn run");
        char *dot = strrchr(cfg->title, '.');
        if (dot) *dot = '\0';
    }
    return errors;
}

/* [run]: checked against nsd_run_decls, then the run's span and output
 * grid; cfg->settings filled (the defaults after errors). */
static size_t resolve_run(nsd_config *cfg, nsd_diag *diag) {
    size_t errors = 0, n_over;
    const nsd_toml_node **over = section_overrides(cfg, "run", &n_over);
    const nsd_toml_node *run = file_table(cfg, "run", n_over);
    if (!run && !n_over) {
        nsd_diag_at(diag, &cfg->root,
                    "missing section [run] (it sets at least t_end, the end time in s)");
        errors++;
    } else if (run && run->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, run, "'run' must be a table, found %s", nsd_toml_type_name(run->type));
        errors++;
    } else {
        size_t run_errors = nsd_params_resolve_over(&cfg->run, nsd_run_decls, nsd_n_run_decls, run,
                                                    over, n_over, "[run]", NULL, diag);
        errors += run_errors;
        fill_run_settings(cfg);
        double t0 = cfg->settings.t_start, t1 = cfg->settings.t_end;
        if (!run_errors && !(t1 > t0)) {
            nsd_diag_at(diag, cfg->run.from[NSD_RUN_T_END],
                        "[run] key 't_end' = %g must be later than t_start = %g", t1, t0);
            errors++;
        }
        double dt = cfg->settings.output_dt;
        if (!run_errors && t1 > t0 && dt > 0 && dt > t1 - t0) {
            nsd_diag_at(diag, cfg->run.from[NSD_RUN_OUTPUT_DT],
                        "[run] key 'output_dt' = %g is longer than the run (%g s)", dt, t1 - t0);
            errors++;
        } else if (!run_errors && t1 > t0) {
            errors += check_output_grid(cfg, diag);
        }
    }
    free(over);
    if (!cfg->run.values) { /* keep accessors safe after errors; already reported */
        nsd_diag quiet = {0};
        nsd_params_resolve(&cfg->run, nsd_run_decls, nsd_n_run_decls, NULL, "[run]", NULL, &quiet);
        nsd_diag_free(&quiet);
    }
    fill_run_settings(cfg);

    return errors;
}

/* [plot] limits = { channel = [lo, hi], ... }: axis limits by channel (the names are
 * checked against the model with the other channel lists, nsd_figures_check). */
static size_t plot_limits(nsd_config *cfg, const nsd_toml_node *t, nsd_diag *diag) {
    if (!t) return 0;
    if (t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t,
                    "[plot] key 'limits': expected a table of channel = [lo, hi] (e.g. limits = "
                    "{ psi = [-0.2, 0.2] }), found %s",
                    nsd_toml_type_name(t->type));
        return 1;
    }
    cfg->limit_names = calloc(t->n_items ? t->n_items : 1, sizeof *cfg->limit_names);
    cfg->limits = calloc(t->n_items ? t->n_items : 1, sizeof *cfg->limits);
    if (!cfg->limit_names || !cfg->limits) abort();
    size_t errors = 0;
    for (size_t i = 0; i < t->n_items; ++i) {
        const nsd_toml_node *e = &t->items[i];
        double v[2] = {NAN, NAN};
        int ok = e->type == NSD_TOML_ARRAY && e->n_items == 2;
        for (size_t k = 0; ok && k < 2; ++k) {
            const nsd_toml_node *x = &e->items[k];
            ok = x->type == NSD_TOML_INTEGER || x->type == NSD_TOML_FLOAT;
            v[k] = x->type == NSD_TOML_INTEGER ? (double)x->integer : x->real;
            ok = ok && isfinite(v[k]);
        }
        if (!ok || !(v[1] > v[0])) {
            nsd_diag_at(diag, e,
                        "[plot] limits key '%s': expected [lo, hi], two finite numbers with hi > "
                        "lo (in the channel's unit), found %s",
                        e->key, ok ? "hi <= lo" : found_array(e));
            errors++;
            continue;
        }
        cfg->limit_names[cfg->n_limits] = dup_str(e->key);
        cfg->limits[cfg->n_limits][0] = v[0];
        cfg->limits[cfg->n_limits++][1] = v[1];
    }
    return errors;
}

/* [plot]: checked against nsd_plot_decls, then its lists of channels. */
static size_t resolve_plot(nsd_config *cfg, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *root = &cfg->root;
    const nsd_toml_node *plot = nsd_toml_get(root, "plot");
    static const char *const plot_skip[] = {"series", "phase",  "highlight",
                                            "limits", "figure", NULL};
    if (plot && plot->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, plot, "'plot' must be a table, found %s", nsd_toml_type_name(plot->type));
        errors++;
        plot = NULL;
    }
    size_t plot_errors = nsd_params_resolve(&cfg->plot, nsd_plot_decls, nsd_n_plot_decls, plot,
                                            "[plot]", plot_skip, diag);
    errors += plot_errors;
    int iw = nsd_params_index(nsd_plot_decls, nsd_n_plot_decls, "snapshot_window");
    const nsdyn_value *win = &cfg->plot.values[iw];
    if (!plot_errors && cfg->plot.from[iw] && (win->len != 2 || !(win->arr[1] > win->arr[0]))) {
        nsd_diag_at(
            diag, cfg->plot.from[iw],
            "[plot] key 'snapshot_window': expected [t0, t1] with t1 > t0 (s), found %zu value%s",
            win->len, win->len == 1 ? "" : "s");
        errors++;
    }
    if (plot) {
        errors +=
            string_list(plot, "series", &cfg->series, &cfg->n_series, &cfg->have_series, diag);
        errors += string_list(plot, "phase", &cfg->phase, &cfg->n_phase, &cfg->have_phase, diag);
        errors += string_list(plot, "highlight", &cfg->highlight, &cfg->n_highlight,
                              &cfg->have_highlight, diag);
        errors += plot_limits(cfg, nsd_toml_get(plot, "limits"), diag);
        errors += nsd_plot_figures_parse(plot, cfg->derived || nsd_toml_get(root, "sweep"),
                                         &cfg->figures, &cfg->n_figures, diag);
        for (size_t i = 0; i < cfg->n_phase; ++i)
            if (!strchr(cfg->phase[i], ':')) {
                nsd_diag_at(diag, nsd_toml_get(plot, "phase"),
                            "[plot] key 'phase': \"%s\" is not a pair \"x:y\" of channel names",
                            cfg->phase[i]);
                errors++;
            }
    }
    return errors;
}

/* [initial]: the file's entries that no override replaces, then the
 * overrides (the values are checked against the system's states when the
 * model is created). */
static size_t resolve_initial(nsd_config *cfg, nsd_diag *diag) {
    size_t n_over;
    const nsd_toml_node **over = section_overrides(cfg, "initial", &n_over);
    const nsd_toml_node *t = file_table(cfg, "initial", n_over);
    free(cfg->initial);
    cfg->initial = NULL;
    cfg->n_initial = 0;
    cfg->has_initial = 0;
    if (t && t->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, t, "'initial' must be a table, found %s", nsd_toml_type_name(t->type));
        free(over);
        return 1;
    }
    cfg->has_initial = t || n_over;
    cfg->initial = calloc((t ? t->n_items : 0) + n_over + 1, sizeof *cfg->initial);
    if (!cfg->initial) abort();
    for (size_t i = 0; t && i < t->n_items; ++i)
        if (!nsd_overrides_find(&cfg->over, "initial", t->items[i].key))
            cfg->initial[cfg->n_initial++] = &t->items[i];
    for (size_t i = 0; i < n_over; ++i) cfg->initial[cfg->n_initial++] = over[i];
    free(over);
    return 0;
}

size_t nsd_config_resolve(nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag) {
    size_t errors = resolve_top(cfg, diag);
    errors += resolve_section(&cfg->system, NSDYN_KIND_SYSTEM, cfg, reg, 1, diag);
    errors += resolve_section(&cfg->contact, NSDYN_KIND_CONTACT, cfg, reg, 0, diag);
    errors += resolve_section(&cfg->friction, NSDYN_KIND_FRICTION, cfg, reg, 0, diag);
    errors += resolve_section(&cfg->integrator, NSDYN_KIND_INTEGRATOR, cfg, reg, 1, diag);
    errors += resolve_run(cfg, diag);
    errors += resolve_plot(cfg, diag);
    errors += resolve_initial(cfg, diag);
    return errors;
}

static void free_section(nsd_section *s) { nsd_params_free(&s->params); }

void nsd_config_free(nsd_config *cfg) {
    free_section(&cfg->system);
    free_section(&cfg->contact);
    free_section(&cfg->friction);
    free_section(&cfg->integrator);
    nsd_params_free(&cfg->run);
    nsd_params_free(&cfg->plot);
    for (size_t i = 0; i < cfg->n_series; ++i) free(cfg->series[i]);
    for (size_t i = 0; i < cfg->n_phase; ++i) free(cfg->phase[i]);
    for (size_t i = 0; i < cfg->n_highlight; ++i) free(cfg->highlight[i]);
    for (size_t i = 0; i < cfg->n_limits; ++i) free(cfg->limit_names[i]);
    free(cfg->limit_names);
    free(cfg->limits);
    nsd_plot_figures_free(cfg->figures, cfg->n_figures);
    free(cfg->series);
    free(cfg->phase);
    free(cfg->highlight);
    nsd_toml_node_clear(&cfg->root);
    nsd_overrides_free(&cfg->over);
    free(cfg->initial);
    if (!cfg->derived) {
        for (size_t i = 0; i < cfg->n_set_docs; ++i) nsd_toml_free(cfg->set_docs[i]);
        free(cfg->set_docs);
        nsd_toml_free(cfg->doc);
    }
    free(cfg->path);
    free(cfg->title);
    memset(cfg, 0, sizeof *cfg);
}

static const char *section_id(const nsd_toml_node *t) {
    const nsd_toml_node *id = t && t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "id") : NULL;
    return id && id->type == NSD_TOML_STRING ? id->str : NULL;
}

void nsd_config_derive(nsd_config *out, const nsd_config *base, const nsd_toml_node *variant,
                       const nsd_overrides *over) {
    memset(out, 0, sizeof *out);
    out->derived = 1;
    out->doc = base->doc;
    out->path = dup_str(base->path);
    nsd_overrides_copy(&out->over, &base->over);
    nsd_overrides_merge(&out->over, over);
    nsd_toml_node_copy(&out->root, &base->root);
    nsd_toml_table_remove(&out->root, "compare");
    nsd_toml_table_remove(&out->root, "variant");
    nsd_toml_table_remove(&out->root, "sweep");
    for (size_t i = 0; variant && i < variant->n_items; ++i) {
        const nsd_toml_node *e = &variant->items[i];
        if (strcmp(e->key, "name") == 0) continue;
        nsd_toml_node *dst = table_child(&out->root, e->key);
        if (e->type != NSD_TOML_TABLE || !dst || dst->type != NSD_TOML_TABLE) {
            nsd_toml_table_set(&out->root, e->key, e);
            continue;
        }
        const char *new_id = section_id(e), *old_id = section_id(dst);
        if (new_id && old_id && strcmp(new_id, old_id) != 0) {
            /* Another plugin: start from its defaults plus the variant's keys. */
            nsd_toml_table_set(&out->root, e->key, e);
            continue;
        }
        for (size_t k = 0; k < e->n_items; ++k)
            nsd_toml_table_set(dst, e->items[k].key, &e->items[k]);
    }
}
