/* The right-hand side of the composed model (model.h): contact forces
 * from the compliant and friction laws, or from the contact regime's own
 * solve (the stick hold, the event-driven modes); the event functions of
 * the ODE (events.h); the samples of every channel. */
#include "model.h"

#include "finite.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>

static inline void move_bits(double *dst, const double *src) {
    uint64_t b;
    memcpy(&b, src, sizeof b);
    memcpy(dst, &b, sizeof b);
}

/* Contact c's normal force [N] at its evaluation data->ce[c]: zero when
 * the system switched it off, the system's load for a persistent contact,
 * else the contact law's. */
static inline nsdyn_status normal_force(const nsd_model *m, nsd_data *data, double t, size_t c,
                                        double *N) {
    const nsdyn_contact_eval *e = &data->ce[c];
    *N = 0.0;
    if (!e->active)
        return NSDYN_OK; /* switched off in the system's current mode */
    else if (m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT)
        *N = e->normal_load;
    else if (m->contact && m->contact->normal_force) {
        double Nc = 0.0; /* not N, which would keep N in memory on every path */
        nsdyn_status st = m->contact->normal_force(data->contact_inst, e->gap,
                                                   nsd_hold_law_rate(&data->hold, c, e->u[0]), &Nc);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "contact law normal_force()");
        *N = Nc;
    }
    return NSDYN_OK;
}

/* The friction forces of every contact in one call of the law
 * (nsdyn/friction_batch.h; m->friction_batch: no friction states, stick not
 * held), after the normal forces: the law reads the slip where the system
 * wrote it. The same forces as the per-contact loop below, bit for bit
 * (the law's contract, tested). */
static nsdyn_status contact_forces_batch(const nsd_model *m, nsd_data *data, double t) {
    for (size_t c = 0; c < m->nc; ++c) {
        double N;
        nsdyn_status st = normal_force(m, data, t, c, &N);
        if (st > NSDYN_WARNING) return st;
        double *lam = data->lambda + 3 * c;
        lam[0] = N;
        lam[1] = lam[2] = 0.0; /* an unloaded contact's, which the law leaves */
    }
    const nsdyn_friction_batch b = {
        .struct_size = sizeof b,
        .n = m->nc,
        .contacts = m->layout.contacts,
        .eval = data->ce,
        .force = data->lambda,
    };
    nsdyn_status st = m->friction_batch->forces(data->friction_inst, &b);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "friction law forces()");
    return NSDYN_OK;
}

/* Contact evaluation plus normal and friction forces of contacts that are
 * not held in stick. Stick components of lambda are left at zero. */
nsdyn_status nsd_model_contact_forces(const nsd_model *m, nsd_data *data, double t, const double *y,
                                      double *zdot, int want_jacobians) {
    const double *q = y, *v = y + m->nq;
    if (m->nc) {
        /* Without rows the request's Jacobian list is NULL, and data->jac is
         * left alone: rewriting it (a memset through the PLT) on every
         * right-hand side cost more than the system's contacts(). */
        double *const *rows = NULL;
        if (want_jacobians) {
            nsd_model_ask_contacts(m, data, NSD_ROWS_PERSISTENT);
            rows = data->jac;
        }
        nsdyn_status st =
            nsd_contacts_evaluate(m->sys, data->sys_inst, t, q, v, m->nc, 0, rows, data->ce);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
        if (m->friction_batch) return contact_forces_batch(m, data, t);
    }
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_decl *d = &m->layout.contacts[c];
        const nsdyn_contact_eval *e = &data->ce[c];
        double *lam = data->lambda + 3 * c;
        double N;
        nsdyn_status st = normal_force(m, data, t, c, &N);
        if (st > NSDYN_WARNING) return st;
        lam[0] = N;
        lam[1] = lam[2] = 0.0;
        int stick = m->stick.hold && d->type == NSDYN_CONTACT_PERSISTENT;
        int open_states = m->friction_states_open && !stick && m->friction && m->z_count[c];
        if ((stick || !m->friction || N <= 0.0) && !open_states) {
            if (zdot)
                for (size_t i = 0; i < m->z_count[c]; ++i)
                    zdot[m->z_offset[c] - m->nq - m->nv + i] = 0.0;
            continue;
        }
        if (N < 0.0) N = 0.0; /* an open contact: the law's state rates at zero load */
        nsdyn_friction_input in;
        /* normal_force first: stored last, next to slip[1], GCC packs the
         * two into one 16-byte store and the slip waits for N. */
        in.normal_force = N;
        in.dim = d->tangent_dim;
        move_bits(&in.slip[0], &e->u[1]);
        if (d->tangent_dim == 2)
            move_bits(&in.slip[1], &e->u[2]);
        else
            in.slip[1] = 0.0;
        in.state = m->z_count[c] ? y + m->z_offset[c] : NULL;
        double *rate = zdot && m->z_count[c] ? zdot + (m->z_offset[c] - m->nq - m->nv) : NULL;
        double scratch[8];
        st = m->friction->force(data->friction_inst, &in, lam + 1, rate ? rate : scratch);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "friction law force()");
        if (N <= 0.0) lam[1] = lam[2] = 0.0; /* no force without a load, whatever the law says */
    }
    return NSDYN_OK;
}

/* Forces and derivatives at (t, y): fills lambda, qdot (if not NULL), vdot
 * and zdot (if not NULL). */
static nsdyn_status evaluate(const nsd_model *m, nsd_data *data, double t, const double *y,
                             double *qdot, double *vdot, double *zdot) {
    const double *q = y, *v = y + m->nq;
    nsdyn_status st;
    if (m->regime->solve) {
        st = m->regime->solve(m, data, t, y, vdot);
        if (st > NSDYN_WARNING || !qdot) return st;
        vdot = NULL; /* already known: only q' is left */
    } else if (data->hold.n_held) {
        /* normal forces held at gap_rate = 0 (rate_hold.h) */
        st = m->regime->hold_solve(m, data, t, y, vdot, zdot);
        if (st > NSDYN_WARNING || !qdot) return st;
        vdot = NULL;
    } else {
        st = nsd_model_contact_forces(m, data, t, y, zdot, 0);
        if (st > NSDYN_WARNING) return st;
    }
    st = m->sys->derivatives(data->sys_inst, t, q, v, data->lambda, qdot, vdot);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system derivatives()");
    return NSDYN_OK;
}

/* flatten: evaluate() and nsd_model_contact_forces() are inlined here (two call
 * levels less per right-hand side) but stay out of line for the other
 * callers, whose registers and frame would otherwise grow. */
__attribute__((flatten)) nsdyn_status nsd_model_rhs(const nsd_model *m, nsd_data *data, double t,
                                                    const double *y, double *ydot) {
    data->rhs_evals++;
    double *zdot = ydot + m->nq + m->nv;
    for (size_t i = 0; i < m->nz; ++i) zdot[i] = 0.0;
    nsdyn_status st = evaluate(m, data, t, y, ydot, ydot + m->nq, zdot);
    if (st > NSDYN_WARNING) return st;
    size_t i = nsd_first_nonfinite(ydot, m->n); /* one test on the hot path (finite.h) */
    if (__builtin_expect(i == m->n, 1)) return NSDYN_OK;
    snprintf(data->failure, sizeof data->failure, "non-finite derivative of '%s' at t = %.9g s",
             m->channels[1 + i].name, t);
    return NSDYN_REJECT_STEP;
}

nsdyn_status nsd_model_event_functions(const nsd_model *m, nsd_data *data, double t,
                                       const double *y, double *g) {
    if (m->layout.n_stops && m->sys->stops) {
        nsdyn_status st = m->sys->stops(data->sys_inst, t, y, y + m->nq, g);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system stops()");
    }
    if (m->layout.n_switches && m->sys->switches) {
        nsdyn_status st = evaluate(m, data, t, y, NULL, data->vdot_sample, NULL);
        if (st > NSDYN_WARNING) return st;
        st = m->sys->switches(data->sys_inst, t, y, y + m->nq, data->lambda,
                              g + m->event_first[NSD_SOURCE_SWITCH]);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system switches()");
    }
    if (m->regime->events) {
        nsdyn_status st = m->regime->events(m, data, t, y, g + m->event_first[NSD_SOURCE_CONTACT]);
        if (st > NSDYN_WARNING || !m->n_rate_events) return st;
        /* data->ce is current: the regime's events evaluated every contact at (t, y) */
    } else if (data->hold.n_held) { /* the held forces (their alpha) and data->ce at (t, y) */
        nsdyn_status st = evaluate(m, data, t, y, NULL, data->vdot_sample, NULL);
        if (st > NSDYN_WARNING) return st;
    } else if (m->n_rate_events) {
        nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
        nsdyn_status st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    }
    if (m->n_rate_events) {
        /* gap rate while penetrating (+1 when open), relative to the side
         * a hold left to; a held contact: how far its force is inside the
         * band, min(alpha, 1 - alpha), which falls through 0 where the
         * hold ends (model.h nsd_hold_view) */
        double *gr = g + m->event_first[NSD_SOURCE_RATE];
        const nsd_hold_view *h = &data->hold;
        for (size_t k = 0; k < m->n_rate_events; ++k) {
            size_t c = m->event_sources[m->event_first[NSD_SOURCE_RATE] + k].index;
            const nsdyn_contact_eval *e = &data->ce[c];
            if (h->held[c])
                gr[k] = fmin(h->alpha[c], 1.0 - h->alpha[c]);
            else if (!e->active || !(e->gap < 0.0))
                gr[k] = 1.0;
            else
                gr[k] = h->side[c] ? (double)h->side[c] * e->u[0] - h->u_ref[c] : e->u[0];
        }
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_switch_functions(const nsd_model *m, nsd_data *data, double t,
                                        const double *y, double *g) {
    if (!m->layout.n_switches || !m->sys->switches) return NSDYN_OK;
    nsdyn_status st = evaluate(m, data, t, y, NULL, data->vdot_sample, NULL);
    if (st > NSDYN_WARNING) return st;
    st = m->sys->switches(data->sys_inst, t, y, y + m->nq, data->lambda, g);
    return st > NSDYN_WARNING ? nsd_model_fail(m, data, st, t, "system switches()") : NSDYN_OK;
}

/* The nsdyn_ode callbacks: ctx = the run's data, which names its model. */
static __attribute__((flatten)) nsdyn_status ode_rhs(void *ctx, double t, const double *y,
                                                     double *ydot) {
    nsd_data *data = ctx;
    return nsd_model_rhs(data->model, data, t, y, ydot);
}

static nsdyn_status ode_events(void *ctx, double t, const double *y, double *g) {
    nsd_data *data = ctx;
    return nsd_model_event_functions(data->model, data, t, y, g);
}

void nsd_model_ode(const nsd_model *m, nsd_data *data, nsdyn_ode *ode) {
    *ode = (nsdyn_ode){
        .struct_size = sizeof *ode,
        .n = m->n,
        .n_events = m->n_events,
        .ctx = data,
        .rhs = ode_rhs,
        .events = ode_events,
        .event_direction = m->event_direction,
        .atol_scale = NULL,
        .mech = NULL,
    };
}

/* A wanted channel that is not finite fails the sample with its name. */
static nsdyn_status check_finite(const nsd_model *m, nsd_data *data, double t,
                                 const unsigned char *want, const double *row) {
    for (size_t i = 1; i < m->n_channels; ++i) {
        if ((want && !want[i]) || isfinite(row[i])) continue;
        snprintf(data->failure, sizeof data->failure,
                 "channel '%s' is %g at t = %.9g s (a plugin returned a non-finite value%s)",
                 m->channels[i].name, row[i], t,
                 m->channels[i].reads_contacts || !want
                     ? ""
                     : "; sampled without the contact forces, which the system declares "
                       "it does not read (NSDYN_EXT_FORCE_FREE_OUTPUTS)");
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_sample_some(const nsd_model *m, nsd_data *data, double t, const double *y,
                                   const unsigned char *want, double *row) {
    if (!want) return nsd_model_sample(m, data, t, y, row);
    size_t first_output = m->n_channels - m->layout.n_outputs;
    int contacts = 0, outputs = 0;
    for (size_t i = 1 + m->n; i < m->n_channels; ++i) {
        if (!want[i]) continue;
        contacts |= m->channels[i].reads_contacts;
        outputs |= i >= first_output;
    }
    if (contacts) { /* a force channel or an output that reads them: as a full sample */
        nsdyn_status st = nsd_model_sample(m, data, t, y, row);
        if (st > NSDYN_WARNING) return st;
    } else {
        row[0] = t;
        memcpy(row + 1, y, m->n * sizeof *y);
        if (outputs && m->sys->outputs) {
            nsdyn_status st = m->sys->outputs(data->sys_inst, t, y, y + m->nq, data->nan_forces,
                                              row + first_output);
            if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system outputs()");
        }
    }
    for (size_t i = 1 + m->n; i < m->n_channels; ++i)
        if (!want[i]) row[i] = NAN;
    return contacts ? NSDYN_OK : check_finite(m, data, t, want, row);
}

nsdyn_status nsd_model_sample(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *row) {
    nsdyn_status st = evaluate(m, data, t, y, NULL, data->vdot_sample, NULL);
    if (st > NSDYN_WARNING) return st;
    size_t k = 0;
    row[k++] = t;
    for (size_t i = 0; i < m->n; ++i) row[k++] = y[i];
    for (size_t j = 0; data->mech.step_impulse && data->mech.step_h > 0.0 && j < data->mech.n; ++j)
        for (size_t a = 0; a < 3; ++a)
            data->lambda[3 * data->mech.contact[j] + a] =
                data->mech.step_impulse[3 * j + a] / data->mech.step_h;
    for (size_t c = 0; c < m->nc; ++c) {
        row[k++] = data->lambda[3 * c];
        for (size_t d = 0; d < m->layout.contacts[c].tangent_dim && d < 2; ++d)
            row[k++] = data->lambda[3 * c + 1 + d];
    }
    if (m->layout.n_outputs && m->sys->outputs) {
        st = m->sys->outputs(data->sys_inst, t, y, y + m->nq, data->lambda, row + k);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system outputs()");
    }
    return check_finite(m, data, t, NULL, row);
}
