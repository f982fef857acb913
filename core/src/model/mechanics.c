/* The mechanics view of the composed model for time-stepping integrators
 * (integrator.h nsdyn_mechanics): unilateral contacts, free
 * accelerations, Jacobian rows and M^-1 W^T (affine.h). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "affine.h"
#include "plugin_calls.h"

/* Unilateral contacts only; persistent contacts and compliant forces stay
 * in the free acceleration. ctx = the run's nsd_data. */
static nsdyn_status mech_qdot(void *ctx, double t, const double *q, const double *v, double *qdot) {
    nsd_data *data = ctx;
    const nsd_model *m = data->model;
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    nsdyn_status st = m->sys->derivatives(data->sys_inst, t, q, v, data->lambda, qdot, NULL);
    return st > NSDYN_WARNING ? nsd_model_fail(m, data, st, t, "system derivatives()") : NSDYN_OK;
}

/* v' with the unilateral forces zero: persistent loads (and their smooth
 * friction) as in the ODE right-hand side. */
static nsdyn_status mech_free_acceleration(void *ctx, double t, const double *q, const double *v,
                                           double *vdot) {
    nsd_data *data = ctx;
    const nsd_model *m = data->model;
    data->rhs_evals++;
    for (size_t i = 0; i < m->nq; ++i) data->mech.y[i] = q[i];
    for (size_t i = 0; i < m->nv; ++i) data->mech.y[m->nq + i] = v[i];
    nsdyn_status st = nsd_model_contact_forces(m, data, t, data->mech.y, NULL, 0);
    if (st > NSDYN_WARNING) return st;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_UNILATERAL)
            data->lambda[3 * c] = data->lambda[3 * c + 1] = data->lambda[3 * c + 2] = 0.0;
    st = m->sys->derivatives(data->sys_inst, t, q, v, data->lambda, NULL, vdot);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system derivatives()");
    /* a plugin's NaN named here, as the ODE right-hand side names it
     * (rhs.c), not left to surface as a step that went non-finite */
    for (size_t i = 0; i < m->nv; ++i)
        if (!isfinite(vdot[i])) {
            snprintf(data->failure, sizeof data->failure,
                     "non-finite derivative of '%s' at t = %.9g s", m->layout.v[i].name, t);
            return NSDYN_ERROR;
        }
    return NSDYN_OK;
}

static nsdyn_status mech_contacts(void *ctx, double t, const double *q, const double *v,
                                  double *gap, double *u, double *W, double *MinvWt) {
    nsd_data *data = ctx;
    const nsd_model *m = data->model;
    size_t nv = m->nv;
    nsd_model_ask_contacts(m, data, NSD_ROWS_ALL);
    nsdyn_status st = nsd_model_contacts_now(m, data, t, q, v);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    if (W) {
        memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
        st = nsd_affine_base(m, data, t, q, v);
        if (st > NSDYN_WARNING) return st;
    }
    for (size_t k = 0; k < data->mech.n; ++k) {
        size_t c = data->mech.contact[k];
        /* A contact switched off by the system's mode is reported open. */
        gap[k] = data->ce[c].active ? data->ce[c].gap : INFINITY;
        for (size_t a = 0; a < 3; ++a) u[3 * k + a] = data->ce[c].u[a];
        if (!W) continue;
        memcpy(W + k * 3 * nv, data->W + c * 3 * nv, 3 * nv * sizeof *W);
        const size_t comp[3] = {3 * c, 3 * c + 1, 3 * c + 2};
        st = nsd_affine_columns(m, data, t, q, v, 3, comp, NULL, MinvWt + k * 3 * nv);
        if (st > NSDYN_WARNING) return st;
    }
    return NSDYN_OK;
}

/* Rows of the selected mechanics contacts only (integrator.h): contacts()
 * with Jacobian buffers for those, then 1 + 3 n_sel dynamics evaluations,
 * whatever the number of candidates. The same values as mech_contacts()
 * with W: the same system calls on the same zero forces. */
static nsdyn_status mech_contact_rows(void *ctx, double t, const double *q, const double *v,
                                      size_t n_sel, const size_t *sel, double *W, double *MinvWt) {
    nsd_data *data = ctx;
    const nsd_model *m = data->model;
    size_t nv = m->nv;
    for (size_t j = 0; j < n_sel; ++j)
        if (sel[j] >= data->mech.n) {
            snprintf(data->failure, sizeof data->failure,
                     "contact_rows: contact %zu asked for, the mechanics have %zu", sel[j],
                     data->mech.n);
            return NSDYN_ERROR;
        }
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    for (size_t j = 0; j < n_sel; ++j) {
        size_t c = data->mech.contact[sel[j]];
        data->jac[c] = data->W + c * 3 * nv;
    }
    nsdyn_status st = nsd_model_contacts_now(m, data, t, q, v);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    if (n_sel == 0) return NSDYN_OK;
    memset(data->lambda, 0, 3 * m->nc * sizeof *data->lambda);
    st = nsd_affine_base(m, data, t, q, v);
    if (st > NSDYN_WARNING) return st;
    for (size_t j = 0; j < n_sel; ++j) {
        size_t c = data->mech.contact[sel[j]];
        memcpy(W + j * 3 * nv, data->W + c * 3 * nv, 3 * nv * sizeof *W);
        const size_t comp[3] = {3 * c, 3 * c + 1, 3 * c + 2};
        st = nsd_affine_columns(m, data, t, q, v, 3, comp, NULL, MinvWt + j * 3 * nv);
        if (st > NSDYN_WARNING) return st;
    }
    return NSDYN_OK;
}

/* The contact law's impulse at mechanics contact k alone (contact.h), with
 * the friction law's kinetic coefficient for stick and slip alike: the
 * Moreau-Jean problem has a single mu, and a static mu above it makes the
 * Gauss-Seidel sweeps cycle between stick and slip at a wedge (two
 * contacts pressing against each other) instead of converging. */
static nsdyn_status mech_local_impulse(void *ctx, size_t k, const double *G, const double *u_free,
                                       const double *u_start, double *P) {
    nsd_data *data = ctx;
    const nsd_model *m = data->model;
    nsdyn_local_impact p = {.struct_size = sizeof p,
                            .tangent_dim = data->mech.tangent_dim[k],
                            .G = G,
                            .u_free = u_free,
                            .u_start = u_start,
                            .mu_static = data->mu_kinetic,
                            .mu_kinetic = data->mu_kinetic};
    nsdyn_status st = nsd_contact_local_impulse(m->contact, data->contact_inst, &p, P);
    if (st > NSDYN_WARNING)
        snprintf(data->failure, sizeof data->failure,
                 "contact law '%s' found no impulse at contact '%s'", m->contact->info.id,
                 data->mech.name[k]);
    return st;
}

nsdyn_status nsd_model_mechanics(const nsd_model *m, nsd_data *data, nsdyn_mechanics *mech) {
    /* The law's coefficients and local impulses (compose.c checks it has
     * them); the friction law's bounds per unit normal force. */
    data->mech.law = (nsdyn_rigid_coefficients){.struct_size = sizeof data->mech.law};
    if (nsd_contact_coefficients(m->contact, data->contact_inst, &data->mech.law, data->failure,
                                 sizeof data->failure) > NSDYN_WARNING)
        return NSDYN_ERROR;
    data->mech.n = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL) continue;
        size_t k = data->mech.n++;
        data->mech.contact[k] = c;
        data->mech.tangent_dim[k] = m->layout.contacts[c].tangent_dim;
        data->mech.name[k] = m->layout.contacts[c].name;
        data->mech.mu[k] = data->mu_kinetic;
    }
    *mech = (nsdyn_mechanics){
        .struct_size = sizeof *mech,
        .nq = m->nq,
        .nv = m->nv,
        .n_contacts = data->mech.n,
        .tangent_dim = data->mech.tangent_dim,
        .contact_name = data->mech.name,
        .mu = data->mech.mu,
        .law = &data->mech.law,
        .ctx = data,
        .qdot = mech_qdot,
        .free_acceleration = mech_free_acceleration,
        .contacts = mech_contacts,
        .local_impulse = mech_local_impulse,
        .contact_rows = mech_contact_rows,
    };
    return NSDYN_OK;
}
