/* A run's data (model.h nsd_data): sized from its model, so that nothing
 * allocates while running; the regime's part (the contact modes) through
 * the regime's table. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

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

nsd_data *nsd_data_create(const nsd_model *m) {
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
    hold_alloc(m, &d->hold);
    if (m->regime && m->regime->data_init) m->regime->data_init(m, d);
    return d;
}

void nsd_data_reset(const nsd_model *m, nsd_data *d) {
    if (m->sys && m->sys->info.reset) m->sys->info.reset(m->sys_inst);
    if (m->contact && m->contact->info.reset) m->contact->info.reset(m->contact_inst);
    if (m->friction && m->friction->info.reset) m->friction->info.reset(m->friction_inst);
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
    hold_free(&d->hold);
    free(d);
}
