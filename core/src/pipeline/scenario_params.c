/* Changing a created scenario's parameters on its model, in its data
 * (scenario.h nsd_scenario_set_params): the one way a study, an analysis
 * or the host API moves a run to other values without creating a model
 * for every point. */
#define _GNU_SOURCE
#include "scenario.h"

#include <stdlib.h>
#include <string.h>

#include "compose.h"

/* The opened scenario at the root of s's derivations (its plugins). */
static const nsd_scenario *root_of(const nsd_scenario *s) {
    while (s->base) s = s->base;
    return s;
}

/* Can values of cfg run on the model of s? The same plugins and the same
 * [run] settings (the regime, the audit and the contact tolerance are the
 * model's); only parameter and [initial] values differ. */
static int same_composition(const nsd_config *a, const nsd_config *b) {
    const nsd_section *sa[] = {&a->system, &a->contact, &a->friction, &a->integrator};
    const nsd_section *sb[] = {&b->system, &b->contact, &b->friction, &b->integrator};
    for (size_t k = 0; k < sizeof sa / sizeof *sa; ++k)
        if (sa[k]->plugin != sb[k]->plugin) return 0;
    for (size_t i = 0; i < b->over.n; ++i)
        if (!strcmp(b->over.items[i].section, "run") || !strcmp(b->over.items[i].value.key, "id"))
            return 0;
    for (size_t i = 0; i < a->over.n; ++i)
        if (!strcmp(a->over.items[i].section, "run") || !strcmp(a->over.items[i].value.key, "id"))
            return 0;
    return 1;
}

/* cfg becomes s's config; the previous one is kept while s's own model
 * points into it (model_cfg), freed otherwise. */
static void take_config(nsd_scenario *s, nsd_config *cfg) {
    if (s->created && !s->shares_model && !s->model_cfg) {
        s->model_cfg = malloc(sizeof *s->model_cfg);
        if (!s->model_cfg) abort();
        *s->model_cfg = s->app.cfg;
    } else
        nsd_config_free(&s->app.cfg);
    s->app.cfg = *cfg;
}

/* Values that need a model of their own (or the shared one again, when
 * s left it): s made anew from cfg, as derive and create would. */
static size_t recreate(nsd_scenario *s, nsd_config *cfg, nsd_diag *diag) {
    nsd_run_result_free(&s->res);
    memset(&s->res, 0, sizeof s->res);
    if (s->data) nsd_data_destroy(&s->model, s->data);
    s->data = NULL;
    if (s->created && !s->shares_model) nsd_model_destroy(&s->model);
    if (s->model_cfg) nsd_config_free(s->model_cfg);
    free(s->model_cfg);
    s->model_cfg = NULL;
    nsd_config_free(&s->app.cfg);
    s->app.cfg = *cfg;
    memset(&s->model, 0, sizeof s->model);
    s->created = s->shares_model = 0;
    nsd_runlog_rewind(&s->log, s->start_mark);
    const nsd_scenario *shared = s->shared_from;
    if (shared && same_composition(&shared->app.cfg, &s->app.cfg))
        return nsd_scenario_create_on(s, shared, diag);
    return nsd_scenario_create(s, diag);
}

/* A plugin refused the values (or its friction bounds failed): the
 * message a config with them gives, at its key, from a scenario created
 * for them alone (errors only: values are seldom refused). */
static size_t refused(const nsd_scenario *s, const nsd_overrides *over, const char *err,
                      nsd_diag *diag) {
    nsd_scenario t;
    size_t errors = nsd_scenario_override(&t, s->base, over, diag);
    t.no_graphs = 1;
    if (!errors) errors = nsd_scenario_create(&t, diag);
    nsd_scenario_destroy(&t);
    if (!errors) nsd_diag_add(diag, "%s", err), errors = 1;
    return errors;
}

size_t nsd_scenario_set_params(nsd_scenario *s, const nsd_overrides *over, nsd_diag *diag) {
    if (!s->base) { /* the values are laid over the config s was derived from */
        nsd_diag_add(diag, "internal: parameters set on a scenario that was not derived");
        return 1;
    }
    const nsd_scenario *root = root_of(s->base);
    nsd_config cfg;
    nsd_config_derive(&cfg, &s->base->app.cfg, NULL, over);
    size_t errors = nsd_config_resolve(&cfg, &root->app.reg, diag);
    if (!errors) errors = nsd_compose_check(&cfg, &root->app.reg, diag);
    if (errors) { /* s stays as it was */
        nsd_config_free(&cfg);
        return errors;
    }
    if (!s->data || !same_composition(&s->app.cfg, &cfg)) return recreate(s, &cfg, diag);
    const nsd_config *c = &cfg;
    const nsdyn_value *p[NSD_PART_COUNT] = {c->system.params.values,
                                            c->contact.plugin ? c->contact.params.values : NULL,
                                            c->friction.plugin ? c->friction.params.values : NULL};
    /* create's messages are the run's: a plugin that said something at
     * create says it again, so every part is created anew then (the log
     * kept, for values refused) */
    int quiet = !s->create_logged;
    nsd_runlog saved = {0};
    if (!quiet) nsd_runlog_copy(&saved, &s->log);
    nsd_runlog_rewind(&s->log, s->start_mark);
    char err[600] = "";
    int rc =
        nsd_data_set_params(&s->model, s->data, &s->app.host, p, quiet ? 0u : ~0u, err, sizeof err);
    if (rc < 0 && !quiet) { /* the instances kept, their messages with them */
        saved.echo = s->log.echo, saved.echo_ctx = s->log.echo_ctx;
        saved.progress = s->log.progress;
        nsd_runlog_free(&s->log);
        s->log = saved;
    } else
        nsd_runlog_free(&saved);
    if (rc == -2) return recreate(s, &cfg, diag);
    if (rc < 0) {
        if (quiet) { /* the log had only the config's notes: said again */
            nsd_scenario_config_notes(s);
            s->created_mark = nsd_runlog_mark_now(&s->log);
        }
        errors = refused(s, over, err, diag);
        nsd_config_free(&cfg);
        return errors;
    }
    s->create_logged = !nsd_runlog_same_mark(s->start_mark, nsd_runlog_mark_now(&s->log));
    take_config(s, &cfg);
    nsd_data_reset(&s->model, s->data); /* a kept instance as created, before the checks */
    nsd_scenario_config_notes(s);
    errors = nsd_model_read_initial(&s->model, &s->app.cfg, s->data->y0, NULL, diag);
    /* the start is checked again when it may have changed (the system's
     * values, [initial]) or failed its last check */
    if (!errors && (!s->start_checked || (rc & (1 << NSD_PART_SYSTEM)) || s->app.cfg.n_initial))
        errors = nsd_model_check_start(&s->model, s->data, &s->app.cfg, diag);
    s->start_checked = !errors;
    s->created_mark = nsd_runlog_mark_now(&s->log);
    return errors;
}

size_t nsd_scenario_point(nsd_scenario *pt, int *ready, const nsd_scenario *from,
                          const nsd_scenario *on, const nsd_overrides *over, nsd_diag *diag) {
    if (*ready) return nsd_scenario_set_params(pt, over, diag);
    size_t errors = nsd_scenario_override(pt, from, over, diag);
    pt->no_graphs = 1;
    if (!errors) errors = nsd_scenario_create_on(pt, on, diag);
    *ready = !errors;
    if (errors) nsd_scenario_destroy(pt);
    return errors;
}
