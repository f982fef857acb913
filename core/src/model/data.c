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
    if (m->regime && m->regime->data_init) m->regime->data_init(m, d);
    return d;
}

void nsd_data_reset(const nsd_model *m, nsd_data *d) {
    if (m->regime && m->regime->reset) m->regime->reset(m, d);
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
    free(d);
}
