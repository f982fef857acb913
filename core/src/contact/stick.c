/* The hold_stick solver (run.hold_stick): persistent contacts held in
 * stick, their tangential forces from the constraint that their
 * tangential accelerations vanish, through the affine response
 * (affine.h). */
#include "stick.h"

#include <stdio.h>

#include "affine.h"

nsdyn_status nsd_model_tangent_response(nsd_model *m, double t, const double *y) {
    nsdyn_status st = nsd_model_contact_forces(m, t, y, NULL, 1);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->stick.m, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) m->d->lambda[m->stick.comp[k]] = 0.0;
    st = nsd_affine_base(m, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return st;
    /* Columns of M^-1 W_t^T: response to a unit force on each component. */
    st = nsd_affine_columns(m, t, y, y + m->nq, ms, m->stick.comp, NULL, m->d->stick.B);
    if (st > NSDYN_WARNING) return st;
    for (size_t k = 0; k < ms; ++k) {
        /* a_t = drift + W_t a0, summed from the drift (the order of the
         * published outputs) */
        const double *Wrow = nsd_affine_row(m, m->stick.comp[k]);
        double acc = m->d->ce[m->stick.comp[k] / 3].drift[m->stick.comp[k] % 3];
        for (size_t i = 0; i < nv; ++i) acc += Wrow[i] * m->d->a0[i];
        m->d->stick.rhs[k] = acc;
    }
    nsd_affine_block(m, m->stick.comp, ms, m->d->stick.B, ms, m->d->stick.G);
    return NSDYN_OK;
}

/* Stick: choose the tangential forces x with G x = -a_t, so the tangential
 * accelerations vanish; then v' = a0 + B x. */
nsdyn_status nsd_stick_solve(nsd_model *m, double t, const double *y, double *vdot) {
    nsdyn_status st = nsd_model_tangent_response(m, t, y);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->stick.m, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) m->d->stick.rhs[k] = -m->d->stick.rhs[k];
    if (nsd_solve_small(m->d->stick.G, m->d->stick.rhs, ms) != 0) {
        snprintf(m->d->failure, sizeof m->d->failure,
                 "stick constraint is singular at t = %.9g s (the friction force cannot hold the "
                 "contact)",
                 t);
        return NSDYN_ERROR;
    }
    for (size_t i = 0; i < nv; ++i) vdot[i] = m->d->a0[i];
    for (size_t j = 0; j < ms; ++j) {
        m->d->lambda[m->stick.comp[j]] = m->d->stick.rhs[j];
        for (size_t i = 0; i < nv; ++i) vdot[i] += m->d->stick.B[j * nv + i] * m->d->stick.rhs[j];
    }
    return NSDYN_OK;
}
