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
    d->y_start = xcalloc(m->n, sizeof *d->y_start);
    if (m->y0) memcpy(d->y_start, m->y0, m->n * sizeof *d->y_start);
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

/* Part k's plugin (NULL: the composition has none) and its instance slot. */
static const nsdyn_plugin_info *part_info(const nsd_model *m, int k) {
    if (k == NSD_PART_SYSTEM) return &m->sys->info;
    if (k == NSD_PART_CONTACT) return m->contact ? &m->contact->info : NULL;
    return m->friction ? &m->friction->info : NULL;
}

static void **part_inst(nsd_data *d, int k) {
    return k == NSD_PART_SYSTEM    ? &d->sys_inst
           : k == NSD_PART_CONTACT ? &d->contact_inst
                                   : &d->friction_inst;
}

/* Bytes of value i's array: a STRING's text with its NUL, or len doubles. */
static size_t array_bytes(const nsdyn_plugin_info *info, size_t i, const nsdyn_value *v) {
    return info->params[i].type == NSDYN_PARAM_STRING ? v->len + 1 : v->len * sizeof(double);
}

/* A deep copy of info's n_params values (arrays in memory aligned for
 * double, as the host passes them). */
static nsd_param_values values_copy(const nsdyn_plugin_info *info, const nsdyn_value *src) {
    nsd_param_values c = {xcalloc(info->n_params, sizeof *c.v), info->n_params};
    for (size_t i = 0; i < c.n; ++i) {
        c.v[i] = src[i];
        if (!src[i].arr) continue;
        size_t bytes = array_bytes(info, i, &src[i]);
        double *a = xcalloc((bytes + sizeof(double) - 1) / sizeof(double), sizeof(double));
        memcpy(a, src[i].arr, bytes);
        c.v[i].arr = a;
    }
    return c;
}

static void values_free(nsd_param_values *c) {
    for (size_t i = 0; i < c->n; ++i) free((void *)c->v[i].arr);
    free(c->v);
    c->v = NULL;
    c->n = 0;
}

/* Bit for bit the same values (a -0.0 is not a 0.0: the instance would
 * see another number). */
static int values_equal(const nsdyn_plugin_info *info, const nsdyn_value *a, const nsdyn_value *b) {
    for (size_t i = 0; i < info->n_params; ++i) {
        if (memcmp(&a[i].num, &b[i].num, sizeof a[i].num) || a[i].len != b[i].len ||
            !a[i].arr != !b[i].arr)
            return 0;
        if (a[i].arr && memcmp(a[i].arr, b[i].arr, array_bytes(info, i, &a[i]))) return 0;
    }
    return 1;
}

/* The start for d's system values: the model's y0, with the system's
 * initial state for values of the run's own where [initial] did not set
 * a state (called right after the instance's create, before any run). */
static void start_for(const nsd_model *m, nsd_data *d) {
    memcpy(d->y_start, m->y0, m->n * sizeof *d->y_start);
    if (!m->sys->initial_state ||
        values_equal(&m->sys->info, d->params[NSD_PART_SYSTEM].v, m->params[NSD_PART_SYSTEM]))
        return;
    double *y = xcalloc(m->nq + m->nv, sizeof *y);
    m->sys->initial_state(d->sys_inst, y, y + m->nq);
    for (size_t i = 0; i < m->nq + m->nv; ++i)
        if (!m->y0_set[i]) d->y_start[i] = y[i];
    free(y);
}

/* Swap the instances and values of the parts in `parts` between d and
 * (inst, vals). */
static void swap_parts(nsd_data *d, unsigned parts, void *inst[NSD_PART_COUNT],
                       nsd_param_values vals[NSD_PART_COUNT]) {
    for (int k = 0; k < NSD_PART_COUNT; ++k) {
        if (!(parts & 1u << k)) continue;
        void **slot = part_inst(d, k), *t = *slot;
        *slot = inst[k], inst[k] = t;
        nsd_param_values v = d->params[k];
        d->params[k] = vals[k], vals[k] = v;
    }
}

/* Do the values of d's parts give the model's shape? Only asked when a
 * part's values are not the model's own. */
static int needs_shape_check(const nsd_model *m, const nsd_data *d) {
    for (int k = 0; k < NSD_PART_COUNT; ++k) {
        const nsdyn_plugin_info *info = part_info(m, k);
        if (info && !values_equal(info, d->params[k].v, m->params[k])) return 1;
    }
    return 0;
}

int nsd_data_set_params(const nsd_model *m, nsd_data *d, const nsdyn_host *host,
                        const nsdyn_value *const params[NSD_PART_COUNT], unsigned force, char *err,
                        size_t err_len) {
    static const char *const section[] = {"system", "contact", "friction"};
    void *made[NSD_PART_COUNT] = {0};
    nsd_param_values vals[NSD_PART_COUNT] = {{0}};
    unsigned changed = 0;
    int rc = 0;
    for (int k = 0; k < NSD_PART_COUNT && !rc; ++k) {
        const nsdyn_plugin_info *info = part_info(m, k);
        const nsdyn_value *p = params && params[k] ? params[k] : m->params[k];
        if (!info ||
            (!(force & 1u << k) && *part_inst(d, k) && values_equal(info, d->params[k].v, p)))
            continue;
        changed |= 1u << k;
        vals[k] = values_copy(info, p); /* the instance is created from the data's own copy */
        made[k] = instance(info, section[k], vals[k].v, host, err, err_len);
        if (!made[k]) rc = -1;
    }
    if (!rc && changed) {
        swap_parts(d, changed, made, vals); /* made, vals: the previous ones now */
        if (needs_shape_check(m, d) && same_shape(m, d, err, err_len) != 0)
            rc = -2;
        else if (friction_bounds(m, d, err, err_len) > NSDYN_WARNING)
            rc = -1;
        if (rc) { /* back as it was */
            swap_parts(d, changed, made, vals);
            if (d->friction_inst) (void)friction_bounds(m, d, d->failure, sizeof d->failure);
        } else if (changed & 1u << NSD_PART_SYSTEM)
            start_for(m, d);
    }
    for (int k = 0; k < NSD_PART_COUNT; ++k) {
        if (made[k]) part_info(m, k)->destroy(made[k]);
        values_free(&vals[k]);
    }
    if (rc) return rc;
    memcpy(d->y0, d->y_start, m->n * sizeof *d->y0);
    return (int)changed;
}

nsd_data *nsd_data_create_with(const nsd_model *m, const nsdyn_host *host,
                               const nsdyn_value *const params[NSD_PART_COUNT], char *err,
                               size_t err_len) {
    nsd_data *d = data_alloc(m);
    d->owns_instances = 1;
    if (nsd_data_set_params(m, d, host, params, 0, err, err_len) < 0) {
        nsd_data_destroy(m, d);
        return NULL;
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
    for (int k = 0; k < NSD_PART_COUNT; ++k) values_free(&d->params[k]);
    free(d->y_start);
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
