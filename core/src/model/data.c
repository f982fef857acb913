/* A run's data (model.h nsd_data): sized from its model, so that nothing
 * allocates while running; the regime's part (the contact modes) through
 * the regime's table; its own plugin instances. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "param_fields.h"
#include "plugin_calls.h"

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

/* The hold at gap_rate = 0 (model.h nsd_hold_view): only with rate
 * events, the arrays staying NULL otherwise (nsd_hold_law_rate reads that
 * as no side chosen). */
static void hold_alloc(const nsd_model *m, nsd_hold_view *h) {
    if (!m->n_rate_events) return;
    h->held = xcalloc(m->nc, sizeof *h->held);
    h->side = xcalloc(m->nc, sizeof *h->side);
    h->u_ref = xcalloc(m->nc, sizeof *h->u_ref);
    h->alpha = xcalloc(m->nc, sizeof *h->alpha);
    h->cols = xcalloc(m->nc * m->nv, sizeof *h->cols);
    h->A = xcalloc(m->nc * m->nc, sizeof *h->A);
    h->b = xcalloc(m->nc, sizeof *h->b);
    h->fric = xcalloc(2 * m->nc, sizeof *h->fric);
    h->unk = xcalloc(m->nc, sizeof *h->unk);
}

static void hold_free(nsd_hold_view *h) {
    free(h->held);
    free(h->side);
    free(h->u_ref);
    free(h->alpha);
    free(h->cols);
    free(h->A);
    free(h->b);
    free(h->fric);
    free(h->unk);
}

/* The buffers, sized from m; no instances yet. */
static nsd_data *data_alloc(const nsd_model *m) {
    nsd_data *d = xcalloc(1, sizeof *d);
    d->model = m;
    size_t nc1 = m->nc ? m->nc : 1, ms = m->stick.m;
    d->ce = xcalloc(m->nc, sizeof *d->ce);
    d->lambda = xcalloc(3 * m->nc, sizeof *d->lambda);
    d->W = xcalloc(3 * m->nv * nc1, sizeof *d->W);
    d->jac = xcalloc(nc1, sizeof *d->jac);
    d->y0 = xcalloc(m->n, sizeof *d->y0);
    if (m->y0) memcpy(d->y0, m->y0, m->n * sizeof *d->y0);
    d->a0 = xcalloc(m->nv, sizeof *d->a0);
    d->vdot_unit = xcalloc(m->nv, sizeof *d->vdot_unit);
    d->vdot_sample = xcalloc(m->nv, sizeof *d->vdot_sample);
    d->stick.B = xcalloc(ms * m->nv, sizeof *d->stick.B);
    d->stick.G = xcalloc(ms * ms, sizeof *d->stick.G);
    d->stick.rhs = xcalloc(ms, sizeof *d->stick.rhs);
    d->mech.contact = xcalloc(m->nc, sizeof *d->mech.contact);
    d->mech.tangent_dim = xcalloc(m->nc, sizeof *d->mech.tangent_dim);
    d->mech.name = xcalloc(m->nc, sizeof *d->mech.name);
    d->mech.mu = xcalloc(m->nc, sizeof *d->mech.mu);
    d->mech.y = xcalloc(m->n, sizeof *d->mech.y);
    d->audit_scratch = xcalloc(m->layout.n_outputs, sizeof *d->audit_scratch);
    d->nan_forces = xcalloc(3 * m->nc, sizeof *d->nan_forces);
    for (size_t i = 0; i < 3 * m->nc; ++i) d->nan_forces[i] = NAN;
    hold_alloc(m, &d->hold);
    if (m->regime && m->regime->data_init) m->regime->data_init(m, d);
    return d;
}

/* The friction law's bounds per unit normal force of d's instance; a
 * failure (ABI 2.5 status, or NaN) with its reason, naming the law, in why. */
static nsdyn_status friction_bounds(const nsd_model *m, nsd_data *d, char *why, size_t why_len) {
    d->mu_static = d->mu_kinetic = 0.0;
    if (!m->friction || !m->friction->bounds) return NSDYN_OK;
    return nsd_friction_bounds(m->friction, d->friction_inst, 1.0, &d->mu_static, &d->mu_kinetic,
                               why, why_len);
}

nsd_data *nsd_data_create_checks(const nsd_model *m) {
    nsd_data *d = data_alloc(m);
    d->sys_inst = m->own.sys;
    d->contact_inst = m->own.contact;
    d->friction_inst = m->own.friction;
    /* a failure stays in d->failure: the model's build reports it at [friction] */
    (void)friction_bounds(m, d, d->failure, sizeof d->failure);
    return d;
}

static void *instance(const nsdyn_plugin_info *info, const char *section, const nsdyn_value *params,
                      const nsdyn_host *host, char *err, size_t err_len) {
    char why[512] = "";
    void *inst = nsd_plugin_create(info, params, host, why, sizeof why);
    if (!inst)
        snprintf(err, err_len, "[%s] (%s): %s", section, info->id,
                 why[0] ? why : "the plugin refused these parameters");
    return inst;
}

/* A run's instances have the model's shape: the sizes the model was laid
 * out by (its layout's, its contacts' kinds, the friction states). 0, or
 * -1 with err. */
static int same_shape(const nsd_model *m, const nsd_data *d, char *err, size_t err_len) {
    nsdyn_system_layout l = {.struct_size = sizeof l};
    const nsdyn_system_layout *ml = &m->layout;
    int same = m->sys->layout(d->sys_inst, &l) <= NSDYN_WARNING && l.nq == ml->nq &&
               l.nv == ml->nv && l.n_contacts == ml->n_contacts && l.n_outputs == ml->n_outputs &&
               (m->sys->stops ? l.n_stops : 0) == ml->n_stops &&
               (m->sys->switches && m->sys->on_switch ? l.n_switches : 0) == ml->n_switches;
    for (size_t i = 0; same && i < l.nq; ++i) same = !strcmp(l.q[i].name, ml->q[i].name);
    for (size_t i = 0; same && i < l.nv; ++i) same = !strcmp(l.v[i].name, ml->v[i].name);
    for (size_t i = 0; same && i < l.n_outputs; ++i)
        same = !strcmp(l.outputs[i].name, ml->outputs[i].name);
    for (size_t c = 0; same && c < m->nc; ++c) {
        const nsdyn_contact_decl *a = &l.contacts[c], *b = &ml->contacts[c];
        same = a->type == b->type && a->tangent_dim == b->tangent_dim && !strcmp(a->name, b->name);
        int stick = m->stick.hold && b->type == NSDYN_CONTACT_PERSISTENT;
        if (same && m->friction && !stick)
            same = m->friction->n_states(d->friction_inst, b->tangent_dim) == m->z_count[c];
    }
    if (!same)
        snprintf(err, err_len,
                 "[system] (%s): these parameters give the system another shape than the "
                 "model's (states, contacts, outputs or friction states): they need a model of "
                 "their own",
                 m->sys->info.id);
    return same ? 0 : -1;
}

nsd_data *nsd_data_create_with(const nsd_model *m, const nsdyn_host *host,
                               const nsdyn_value *const params[NSD_PART_COUNT], char *err,
                               size_t err_len) {
    const nsdyn_value *p[NSD_PART_COUNT];
    int own = 1;
    for (int k = 0; k < NSD_PART_COUNT; ++k) {
        p[k] = params && params[k] ? params[k] : m->params[k];
        own = own && p[k] == m->params[k];
    }
    nsd_data *d = data_alloc(m);
    d->owns_instances = 1;
    d->sys_inst = instance(&m->sys->info, "system", p[NSD_PART_SYSTEM], host, err, err_len);
    if (d->sys_inst && m->contact)
        d->contact_inst =
            instance(&m->contact->info, "contact", p[NSD_PART_CONTACT], host, err, err_len);
    if (d->sys_inst && (!m->contact || d->contact_inst) && m->friction)
        d->friction_inst =
            instance(&m->friction->info, "friction", p[NSD_PART_FRICTION], host, err, err_len);
    int made =
        d->sys_inst && (!m->contact || d->contact_inst) && (!m->friction || d->friction_inst);
    if (!made || (!own && same_shape(m, d, err, err_len) != 0) ||
        friction_bounds(m, d, err, err_len) > NSDYN_WARNING) {
        nsd_data_destroy(m, d);
        return NULL;
    }
    /* the start: the system's initial state for its own parameters, where
     * the config's [initial] did not set it */
    if (p[NSD_PART_SYSTEM] != m->params[NSD_PART_SYSTEM] && m->sys->initial_state) {
        double *y = xcalloc(m->nq + m->nv, sizeof *y);
        m->sys->initial_state(d->sys_inst, y, y + m->nq);
        for (size_t i = 0; i < m->nq + m->nv; ++i)
            if (!m->y0_set[i]) d->y0[i] = y[i];
        free(y);
    }
    return d;
}

nsd_data *nsd_data_create(const nsd_model *m, const nsdyn_host *host, char *err, size_t err_len) {
    return nsd_data_create_with(m, host, NULL, err, err_len);
}

void nsd_data_reset(const nsd_model *m, nsd_data *d) {
    if (m->sys->info.reset) m->sys->info.reset(d->sys_inst);
    if (m->contact && m->contact->info.reset) m->contact->info.reset(d->contact_inst);
    if (m->friction && m->friction->info.reset) m->friction->info.reset(d->friction_inst);
    if (m->regime && m->regime->reset) m->regime->reset(m, d);
    nsd_hold_view *h = &d->hold;
    for (size_t c = 0; h->held && c < m->nc; ++c) {
        h->held[c] = 0;
        h->side[c] = 0;
        h->u_ref[c] = h->alpha[c] = 0.0;
    }
    h->n_held = 0;
    d->rhs_evals = 0;
    d->failure[0] = '\0';
}

void nsd_data_destroy(const nsd_model *m, nsd_data *d) {
    if (!d) return;
    if (m->regime && m->regime->release) m->regime->release(d);
    if (d->owns_instances) {
        if (d->sys_inst) m->sys->info.destroy(d->sys_inst);
        if (d->contact_inst) m->contact->info.destroy(d->contact_inst);
        if (d->friction_inst) m->friction->info.destroy(d->friction_inst);
    }
    free(d->ce);
    free(d->lambda);
    free(d->W);
    free(d->jac);
    free(d->y0);
    free(d->a0);
    free(d->vdot_unit);
    free(d->vdot_sample);
    free(d->stick.B);
    free(d->stick.G);
    free(d->stick.rhs);
    free(d->mech.contact);
    free(d->mech.tangent_dim);
    free(d->mech.name);
    free(d->mech.mu);
    free(d->mech.y);
    free(d->audit_scratch);
    free(d->nan_forces);
    hold_free(&d->hold);
    free(d);
}
