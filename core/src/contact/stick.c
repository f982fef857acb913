/* The hold_stick solver (run.hold_stick): persistent contacts held in
 * stick, their tangential forces from the constraint that their
 * tangential accelerations vanish, through the affine response
 * (affine.h). */
#include "stick.h"

#include <stdio.h>

#include "affine.h"

nsdyn_status nsd_model_tangent_response(const nsd_model *m, nsd_data *data, double t,
                                        const double *y) {
    nsdyn_status st = nsd_model_contact_forces(m, data, t, y, NULL, 1);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->stick.m, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) data->lambda[m->stick.comp[k]] = 0.0;
    st = nsd_affine_base(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return st;
    /* Columns of M^-1 W_t^T: response to a unit force on each component. */
    st = nsd_affine_columns(m, data, t, y, y + m->nq, ms, m->stick.comp, NULL, data->stick.B);
    if (st > NSDYN_WARNING) return st;
    for (size_t k = 0; k < ms; ++k) {
        /* a_t = drift + W_t a0, summed from the drift (the order of the
         * published outputs) */
        const double *Wrow = nsd_affine_row(m, data, m->stick.comp[k]);
        double acc = data->ce[m->stick.comp[k] / 3].drift[m->stick.comp[k] % 3];
        for (size_t i = 0; i < nv; ++i) acc += Wrow[i] * data->a0[i];
        data->stick.rhs[k] = acc;
    }
    nsd_affine_block(m, data, m->stick.comp, ms, data->stick.B, ms, data->stick.G);
    return NSDYN_OK;
}

/* Stick: choose the tangential forces x with G x = -a_t, so the tangential
 * accelerations vanish; then v' = a0 + B x. */
nsdyn_status nsd_stick_solve(const nsd_model *m, nsd_data *data, double t, const double *y,
                             double *vdot) {
    nsdyn_status st = nsd_model_tangent_response(m, data, t, y);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->stick.m, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) data->stick.rhs[k] = -data->stick.rhs[k];
    if (nsd_solve_small(data->stick.G, data->stick.rhs, ms) != 0) {
        snprintf(data->failure, sizeof data->failure,
                 "stick constraint is singular at t = %.9g s (the friction force cannot hold the "
                 "contact)",
                 t);
        return NSDYN_ERROR;
    }
    for (size_t i = 0; i < nv; ++i) vdot[i] = data->a0[i];
    for (size_t j = 0; j < ms; ++j) {
        data->lambda[m->stick.comp[j]] = data->stick.rhs[j];
        for (size_t i = 0; i < nv; ++i) vdot[i] += data->stick.B[j * nv + i] * data->stick.rhs[j];
    }
    return NSDYN_OK;
}
