/* The host API's model and data: open, create, copy, reset, parameters
 * and states by name (nsdyn/host.h). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"
#include "nsdyn_build_config.h"

uint32_t nsdyn_host_api_version(void) {
    return (NSDYN_HOST_API_MAJOR << 16) | NSDYN_HOST_API_MINOR;
}

const char *nsdyn_host_version_string(void) { return NSDYN_VERSION; }

void nsdyn_host_free(void *p) { free(p); }

/* ---- errors ---- */

size_t nsdyn_errors_count(const nsdyn_errors *e) { return e ? e->diag.n : 0; }

const char *nsdyn_errors_at(const nsdyn_errors *e, size_t i) {
    return e && i < e->diag.n ? e->diag.lines[i] : NULL;
}

void nsdyn_errors_free(nsdyn_errors *e) {
    if (!e) return;
    nsd_diag_free(&e->diag);
    free(e);
}

/* Hand diag over to a new error list (diag is left empty). A list that
 * cannot be allocated is NULL: the status still says what failed. */
static nsdyn_errors *errors_take(nsd_diag *diag, const char *fallback) {
    nsdyn_errors *e = calloc(1, sizeof *e);
    if (!e) {
        nsd_diag_free(diag);
        return NULL;
    }
    if (!diag->n) nsd_diag_add(diag, "%s", fallback);
    e->diag = *diag;
    memset(diag, 0, sizeof *diag);
    return e;
}

const char *nsdyn_data_last_error(const nsdyn_data *d) { return d ? d->err : "no data"; }

/* ---- model ---- */

static nsdyn_host_status model_open(const char *path, const char *text, const char *const *sets,
                                    size_t n_sets, nsdyn_model **out, nsdyn_errors **errors) {
    if (!out || !errors) return NSDYN_HOST_ERR_ARGUMENT;
    *out = NULL;
    *errors = NULL;
    nsd_diag diag = {0};
    nsdyn_model *m = calloc(1, sizeof *m);
    if (!m) return NSDYN_HOST_ERR_MEMORY;
    size_t n;
    if (text) {
        memset(&m->base, 0, sizeof m->base);
        n = nsd_app_load_text(&m->base.app, text, path ? path : "<string>", sets, n_sets, &diag);
    } else if (!path) {
        nsd_diag_add(&diag, "no config path given");
        n = 1;
    } else {
        n = nsd_scenario_open(&m->base, path, sets, n_sets, &diag);
    }
    m->base.no_graphs = 1;
    if (n) {
        *errors = errors_take(&diag, "the config was refused");
        nsdyn_model_free(m);
        return NSDYN_HOST_ERR_CONFIG;
    }
    nsd_diag_free(&diag);
    /* the model the data share (created once; their instances their own) */
    nsd_overrides none = {0};
    m->has_shared = nsd_scenario_override(&m->shared, &m->base, &none, &diag) == 0;
    m->shared.no_graphs = 1;
    m->has_shared = m->has_shared && nsd_scenario_create(&m->shared, &diag) == 0;
    if (!m->has_shared) nsd_scenario_destroy(&m->shared);
    nsd_diag_free(&diag);
    *out = m;
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_model_open(const char *path, const char *const *sets, size_t n_sets,
                                   nsdyn_model **model, nsdyn_errors **errors) {
    return model_open(path, NULL, sets, n_sets, model, errors);
}

nsdyn_host_status nsdyn_model_open_string(const char *toml, const char *name,
                                          const char *const *sets, size_t n_sets,
                                          nsdyn_model **model, nsdyn_errors **errors) {
    if (!toml) return NSDYN_HOST_ERR_ARGUMENT;
    return model_open(name, toml, sets, n_sets, model, errors);
}

void nsdyn_model_free(nsdyn_model *m) {
    if (!m) return;
    if (m->has_shared) nsd_scenario_destroy(&m->shared);
    nsd_scenario_destroy(&m->base);
    free(m);
}

const char *nsdyn_model_title(const nsdyn_model *m) {
    return m && m->base.app.cfg.title ? m->base.app.cfg.title : "";
}

const char *nsdyn_model_path(const nsdyn_model *m) {
    return m && m->base.app.cfg.path ? m->base.app.cfg.path : "";
}

/* ---- data ---- */

/* The source of the override section.key = value as the command line
 * names it, "--set section.key=value" (the value's shortest text that
 * reads back the same double), so that messages read the same. */
static char *set_source(const char *section, const char *key, double value) {
    char num[40];
    for (int prec = 1; prec <= 17; ++prec) {
        snprintf(num, sizeof num, "%.*g", prec, value);
        if (strtod(num, NULL) == value) break;
    }
    char *out = NULL;
    if (asprintf(&out, "--set %s.%s=%s", section, key, num) < 0) return NULL;
    return out;
}

static nsdyn_host_status data_new(const nsdyn_model *m, const nsd_overrides *over, nsdyn_data **out,
                                  nsdyn_errors **errors) {
    if (!m || !out || !errors) return NSDYN_HOST_ERR_ARGUMENT;
    *out = NULL;
    *errors = NULL;
    nsdyn_data *d = calloc(1, sizeof *d);
    if (!d) return NSDYN_HOST_ERR_MEMORY;
    d->model = m;
    atomic_init(&d->stop, 0);
    if (over) nsd_overrides_copy(&d->over, over); /* its own (the original may go first) */
    nsd_diag diag = {0};
    nsdyn_host_status st = nsd_host_prepare(d, &diag);
    if (st != NSDYN_HOST_OK) {
        *errors = errors_take(&diag, d->err);
        nsdyn_data_free(d);
        return st;
    }
    *out = d;
    return NSDYN_HOST_OK;
}

nsdyn_host_status nsdyn_data_create(const nsdyn_model *m, nsdyn_data **out, nsdyn_errors **errors) {
    return data_new(m, NULL, out, errors);
}

nsdyn_host_status nsdyn_data_copy(const nsdyn_data *src, nsdyn_data **out, nsdyn_errors **errors) {
    if (!src) return NSDYN_HOST_ERR_ARGUMENT;
    return data_new(src->model, &src->over, out, errors);
}

void nsdyn_data_free(nsdyn_data *d) {
    if (!d) return;
    nsd_host_forget_signal(d);
    nsd_host_end_run(d);
    nsd_host_sweep_free(d);
    nsd_host_branch_free(d);
    nsd_host_periodic_free(d);
    nsd_host_scenario_free(d->s);
    nsd_overrides_free(&d->over);
    free(d->log);
    free(d->line);
    free(d->lists[0]);
    free(d->lists[1]);
    free(d);
}

nsdyn_host_status nsdyn_data_reset(nsdyn_data *d) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsd_overrides_free(&d->over);
    d->ready = 0;
    d->err[0] = '\0';
    return nsd_host_prepare(d, NULL);
}

/* ---- parameters and states ---- */

static const nsd_params *section_params(const nsd_config *cfg, const char *section,
                                        const char **plugin) {
    const nsd_section *sec = NULL;
    if (!strcmp(section, "system")) sec = &cfg->system;
    if (!strcmp(section, "contact")) sec = &cfg->contact;
    if (!strcmp(section, "friction")) sec = &cfg->friction;
    if (!strcmp(section, "integrator")) sec = &cfg->integrator;
    if (!strcmp(section, "run")) {
        *plugin = "the host";
        return &cfg->run;
    }
    if (!sec || !sec->plugin) return NULL;
    *plugin = sec->plugin->info->id;
    return &sec->params;
}

/* "SECTION.KEY" of a declared parameter: its index in *p, or -1 with the
 * error in d->err. */
static int find_param(nsdyn_data *d, const char *name, char *section, size_t len,
                      const nsd_params **p) {
    const char *dot = name ? strchr(name, '.') : NULL;
    if (!dot || (size_t)(dot - name) >= len || !dot[1]) {
        nsd_host_fail(d, NSDYN_HOST_ERR_NOT_FOUND,
                      "parameter '%s': expected SECTION.KEY (e.g. contact.e, run.t_end)",
                      name ? name : "(null)");
        return -1;
    }
    memcpy(section, name, (size_t)(dot - name));
    section[dot - name] = '\0';
    const char *plugin = NULL;
    *p = section_params(&d->s->app.cfg, section, &plugin);
    if (!*p) {
        nsd_host_fail(d, NSDYN_HOST_ERR_NOT_FOUND,
                      "parameter '%s': the config has no [%s] plugin (sections: system, contact, "
                      "friction, integrator, run)",
                      name, section);
        return -1;
    }
    int i = nsd_params_index((*p)->decls, (*p)->n, dot + 1);
    if (i >= 0) return i;
    const char **names = malloc(((*p)->n + 1) * sizeof *names);
    for (size_t k = 0; names && k < (*p)->n; ++k) names[k] = (*p)->decls[k].name;
    const char *near = names ? nsd_did_you_mean(dot + 1, names, (*p)->n) : NULL;
    nsd_host_fail(d, NSDYN_HOST_ERR_NOT_FOUND, "[%s]: unknown key '%s' of '%s'%s%s%s", section,
                  dot + 1, plugin, near ? " (did you mean '" : "", near ? near : "",
                  near ? "'?)" : "");
    free(names);
    return -1;
}

/* Set an override and rebuild; on refusal the overrides are as before. */
static nsdyn_host_status set_override(nsdyn_data *d, const char *section, const char *key,
                                      double value) {
    char *source = set_source(section, key, value);
    if (!source) return nsd_host_fail(d, NSDYN_HOST_ERR_MEMORY, "out of memory");
    nsd_overrides before;
    nsd_overrides_copy(&before, &d->over);
    /* a whole number as the file's `k = 3` would be: an INT key takes it */
    int whole = value == (double)(int64_t)value && value > -9e15 && value < 9e15;
    nsd_where at = {source, 0, 0};
    int rc = whole
                 ? nsd_overrides_set_int(&d->over, section, key, (int64_t)value, at, d->err,
                                         sizeof d->err)
                 : nsd_overrides_set_real(&d->over, section, key, value, at, d->err, sizeof d->err);
    free(source); /* the override keeps its own copy */
    if (rc != 0) {
        nsd_overrides_free(&before);
        return NSDYN_HOST_ERR_ARGUMENT;
    }
    d->ready = 0;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) {
        nsd_overrides_free(&d->over);
        d->over = before;
        /* the previous values are set again before the next run (the
         * scenario may hold the refused ones when the start's checks
         * refused them) */
        d->ready = 0;
    } else {
        nsd_overrides_free(&before);
    }
    return st;
}

nsdyn_host_status nsdyn_data_set_param(nsdyn_data *d, const char *name, double value) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    char section[32];
    const nsd_params *p;
    int i = find_param(d, name, section, sizeof section, &p);
    if (i < 0) return NSDYN_HOST_ERR_NOT_FOUND;
    return set_override(d, section, p->decls[i].name, value);
}

nsdyn_host_status nsdyn_data_get_param(nsdyn_data *d, const char *name, double *value) {
    if (!d || !value) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    char section[32];
    const nsd_params *p;
    int i = find_param(d, name, section, sizeof section, &p);
    if (i < 0) return NSDYN_HOST_ERR_NOT_FOUND;
    if (p->decls[i].type == NSDYN_PARAM_REAL_ARRAY)
        return nsd_host_fail(d, NSDYN_HOST_ERR_ARGUMENT, "parameter '%s' is an array, not a number",
                             name);
    *value = p->values[i].num;
    return NSDYN_HOST_OK;
}

/* The channel of state `name` (1 + its index in y), or -1 with the error. */
static int state_channel(nsdyn_data *d, const char *name) {
    const nsd_model *m = &d->s->model;
    int c = name ? nsd_model_channel(m, name) : -1;
    if (c >= 1 && (size_t)c <= m->n) return c;
    char states[1024] = "";
    for (size_t i = 1; i <= m->n; ++i) {
        size_t at = strlen(states);
        snprintf(states + at, sizeof states - at, "%s%s", i > 1 ? ", " : "", m->channels[i].name);
    }
    nsd_host_fail(d, NSDYN_HOST_ERR_NOT_FOUND, "'%s' is not a state of system '%s' (states: %s)",
                  name ? name : "(null)", d->s->app.cfg.system.plugin->info->id, states);
    return -1;
}

nsdyn_host_status nsdyn_data_set_state(nsdyn_data *d, const char *name, double value) {
    if (!d) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    int c = state_channel(d, name);
    if (c < 0) return NSDYN_HOST_ERR_NOT_FOUND;
    return set_override(d, "initial", d->s->model.channels[c].name, value);
}

nsdyn_host_status nsdyn_data_get_state(nsdyn_data *d, const char *name, double *value) {
    if (!d || !value) return NSDYN_HOST_ERR_ARGUMENT;
    nsdyn_host_status st = nsd_host_prepare(d, NULL);
    if (st != NSDYN_HOST_OK) return st;
    int c = state_channel(d, name);
    if (c < 0) return NSDYN_HOST_ERR_NOT_FOUND;
    const nsd_series *s = &d->s->res.series;
    double t;
    const double *y;
    if (d->run && nsd_run_where(d->run, &t, &y))
        *value = y[c - 1];
    else if (d->ran && s->rows)
        *value = nsd_series_at(s, s->rows - 1, (size_t)c);
    else
        *value = d->s->data->y0[c - 1];
    return NSDYN_HOST_OK;
}
