/* The Filippov test of a rate-discontinuous compliant law at rest
 * (rate_hold.h). For bistiffness F = k (1 + mu_n) delta compressing and
 * k (1 - mu_n) delta expanding (Barjau & Batlle (5.1)): a body at rest at
 * a penetration delta with k (1 - mu_n) delta < (load) < k (1 + mu_n)
 * delta is pushed out by the compression force and in by the expansion
 * force, so the gap rate is driven to zero from both sides (Filippov,
 * Differential Equations with Discontinuous Righthand Sides, ch. 2 §4):
 * a sliding mode on gap_rate = 0, where a runner that restarts at every
 * crossing restarts forever at one time. */
#include "rate_hold.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "affine.h"

/* The normal acceleration of contact c's gap [m/s^2] (the rate of its gap
 * rate u_n) under the vector field of one side of gap_rate = 0 (side -1
 * compression, +1 expansion): the whole right-hand side with the law's
 * force of that side, every other force as the regime solves it (stick
 * forces, friction that follows the normal force, other held contacts).
 * ydot (n) is scratch. */
static nsdyn_status side_acc(const nsd_model *m, nsd_data *data, double t, const double *y,
                             double *ydot, size_t c, int side, double *acc) {
    signed char saved = data->hold.side[c];
    data->hold.side[c] = (signed char)side;
    nsdyn_status st = nsd_model_rhs(m, data, t, y, ydot);
    data->hold.side[c] = saved;
    if (st > NSDYN_WARNING) return st;
    /* the rows of every contact at (t, y), for the gap's acceleration */
    nsd_model_ask_contacts(m, data, NSD_ROWS_ALL);
    st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    *acc = nsd_affine_local_acc(m, data, 3 * c, ydot + m->nq);
    return NSDYN_OK;
}

static nsdyn_status one_sided(const nsd_model *m, nsd_data *data, double t, size_t c,
                              double *f_comp_N, double *f_exp_N);

/* The two sides' gap accelerations at contact c [m/s^2] and the law's
 * one-sided forces [N]: 1, or 0 when the contact does not penetrate, -1
 * on a failure (data->failure). */
static int filippov_sides(const nsd_model *m, nsd_data *data, double t, const double *y,
                          double *ydot, size_t c, double acc[2], double *f_comp_N,
                          double *f_exp_N) {
    if (!data->hold.side) return 0;
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    if (nsd_model_contacts_now(m, data, t, y, y + m->nq) > NSDYN_WARNING) return -1;
    const nsdyn_contact_eval *e = &data->ce[c];
    if (!e->active || !(e->gap < 0.0)) return 0;
    /* one-sided limits of the law at gap_rate = 0: the smallest normal
     * rate on each side (the law sees only the rate's sign there) */
    if (one_sided(m, data, t, c, f_comp_N, f_exp_N) > NSDYN_WARNING) return -1;
    if (side_acc(m, data, t, y, ydot, c, -1, &acc[0]) > NSDYN_WARNING ||
        side_acc(m, data, t, y, ydot, c, 1, &acc[1]) > NSDYN_WARNING)
        return -1;
    return 1;
}

int nsd_rate_held(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                  size_t c, double *f_comp_N, double *f_exp_N) {
    double acc[2] = {0.0, 0.0};
    int got = filippov_sides(m, data, t, y, ydot, c, acc, f_comp_N, f_exp_N);
    /* compression (gap_rate < 0) turned back: the gap accelerates open;
     * expansion (gap_rate > 0) turned back: the gap accelerates closed */
    return got == 1 ? acc[0] > 0.0 && acc[1] < 0.0 : got;
}

/* ---- the hold: Filippov's sliding mode on gap_rate = 0 ---------------- */

/* The law's one-sided forces at contact c's gap: compression (gap_rate ->
 * 0-) into *f_comp_N, expansion (gap_rate -> 0+) into *f_exp_N [N]. */
static nsdyn_status one_sided(const nsd_model *m, nsd_data *data, double t, size_t c,
                              double *f_comp_N, double *f_exp_N) {
    double gap = data->ce[c].gap;
    nsdyn_status st = m->contact->normal_force(data->contact_inst, gap, -DBL_MIN, f_comp_N);
    if (st <= NSDYN_WARNING)
        st = m->contact->normal_force(data->contact_inst, gap, DBL_MIN, f_exp_N);
    return st > NSDYN_WARNING ? nsd_model_fail(m, data, st, t, "contact law normal_force()")
                              : NSDYN_OK;
}

nsdyn_status nsd_rate_hold_alphas(const nsd_model *m, nsd_data *data, double t) {
    nsd_hold_view *h = &data->hold;
    for (size_t c = 0; c < m->nc; ++c) {
        if (!h->held[c]) continue;
        const nsdyn_contact_eval *e = &data->ce[c];
        h->alpha[c] = -1.0; /* no longer penetrating or switched off: the hold ends */
        if (!e->active || !(e->gap < 0.0)) continue;
        double f_comp_N = 0.0, f_exp_N = 0.0;
        nsdyn_status st = one_sided(m, data, t, c, &f_comp_N, &f_exp_N);
        if (st > NSDYN_WARNING) return st;
        if (f_comp_N > f_exp_N)
            h->alpha[c] = (data->lambda[3 * c] - f_exp_N) / (f_comp_N - f_exp_N);
    }
    return NSDYN_OK;
}

/* Probe k of the compliant regime's solve: a normal force at held contact
 * hold.unk[k] with its friction following (the laws' friction force is
 * proportional to N, friction.h). */
static void held_probe(const nsd_model *m, nsd_data *data, size_t k, double amount) {
    (void)m; /* the probe's signature (affine.h); the pattern is the data's */
    size_t c = data->hold.unk[k];
    data->lambda[3 * c] += amount;
    data->lambda[3 * c + 1] += amount * data->hold.fric[2 * c];
    data->lambda[3 * c + 2] += amount * data->hold.fric[2 * c + 1];
}

nsdyn_status nsd_rate_hold_solve(const nsd_model *m, nsd_data *data, double t, const double *y,
                                 double *vdot, double *zdot) {
    nsd_hold_view *h = &data->hold;
    const double *q = y, *v = y + m->nq;
    size_t nv = m->nv, nh = 0;
    nsdyn_status st = nsd_model_contact_forces(m, data, t, y, zdot, 0);
    if (st > NSDYN_WARNING) return st;
    /* the held contacts' normal forces become unknowns; their friction
     * per unit normal force is the law's at the current slip */
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (!h->held[c] || !e->active || !(e->gap < 0.0)) continue;
        double *lam = data->lambda + 3 * c;
        h->fric[2 * c] = lam[0] > 0.0 ? lam[1] / lam[0] : 0.0;
        h->fric[2 * c + 1] = lam[0] > 0.0 ? lam[2] / lam[0] : 0.0;
        lam[0] = lam[1] = lam[2] = 0.0;
        h->unk[nh++] = c;
        data->jac[c] = data->W + 3 * c * nv;
    }
    if (nh) { /* their rows and drift (the same contacts, now with rows) */
        st = nsd_model_contacts_now(m, data, t, q, v);
        if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    }
    st = nsd_affine_base(m, data, t, q, v);
    if (st <= NSDYN_WARNING)
        st = nsd_affine_columns(m, data, t, q, v, nh, NULL, held_probe, h->cols);
    if (st > NSDYN_WARNING) return st;
    /* u_n' = 0 at every held contact: A N = -(W_n a0 + drift) */
    for (size_t i = 0; i < nh; ++i) {
        for (size_t j = 0; j < nh; ++j)
            h->A[i * nh + j] = nsd_affine_entry(m, data, 3 * h->unk[i], h->cols + j * nv);
        h->b[i] = -nsd_affine_local_acc(m, data, 3 * h->unk[i], data->a0);
    }
    if (nh && nsd_solve_small(h->A, h->b, nh) != 0) {
        snprintf(data->failure, sizeof data->failure,
                 "the normal forces of the contacts held at gap_rate = 0 are not determined at "
                 "t = %.9g s (%zu held contacts with dependent normal rows)",
                 t, nh);
        return NSDYN_ERROR;
    }
    memcpy(vdot, data->a0, nv * sizeof *vdot);
    for (size_t j = 0; j < nh; ++j) {
        held_probe(m, data, j, h->b[j]);
        for (size_t i = 0; i < nv; ++i) vdot[i] += h->cols[j * nv + i] * h->b[j];
    }
    return nsd_rate_hold_alphas(m, data, t);
}

/* Contact c's law gives the force of `side` (+1 expansion, -1
 * compression) until its gap rate crosses back through u_ref, just past
 * the few 1e-12 m/s of the wrong sign it may have now (model.h). */
static void set_side(nsd_hold_view *h, size_t c, int side, double u_n) {
    h->side[c] = (signed char)side;
    h->u_ref[c] = side ? 2.0 * fmin(0.0, side * u_n) - DBL_MIN : 0.0;
}

void nsd_rate_hold_option(nsd_hold_view *h, size_t c, int option, double u_n) {
    int held = option == NSD_HOLD_HELD;
    if (held != h->held[c]) {
        h->held[c] = (unsigned char)held;
        h->n_held = held ? h->n_held + 1 : h->n_held - 1;
    }
    set_side(h, c, held ? 0 : option, u_n);
}

int nsd_rate_hold_event(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                        size_t c) {
    nsd_hold_view *h = &data->hold;
    if (h->held[c]) {
        /* the hold ends: the force reached a bound of the band, alpha 0
         * (expansion wins) or 1 (compression wins) */
        if (nsd_model_rhs(m, data, t, y, ydot) > NSDYN_WARNING) return -1;
        h->held[c] = 0;
        h->n_held--;
        set_side(h, c, h->alpha[c] < 0.5 ? 1 : -1, data->ce[c].u[0]);
        return 2;
    }
    set_side(h, c, 0, 0.0);
    double acc[2] = {0.0, 0.0}, f_comp_N = 0.0, f_exp_N = 0.0;
    int got = filippov_sides(m, data, t, y, ydot, c, acc, &f_comp_N, &f_exp_N);
    /* under the event-driven modes a side whose forces the modes of before
     * the event cannot solve (two tips held with both sticking: redundant
     * rows) is no failure: the modes' combined choice at this event tries
     * every option with its own friction modes (contact/modes_choose.c) */
    if (got < 0 && m->ed.on) return 0;
    if (got != 1) return got;
    /* Filippov at the surface: both fields cross it the same way (the
     * side they cross to, whatever the sign of the gap rate's last
     * 1e-12 m/s), or both point into it (the hold) */
    double u_n = data->ce[c].u[0];
    /* on the surface only: within the gap rate the two accelerations
     * build up in 1e-9 s (an event located to ~1e-12 s leaves far less);
     * a touch-down (u_n far below 0) is no crossing of it */
    double at_surface = 1e-9 * fmax(fabs(acc[0]), fabs(acc[1]));
    if (acc[0] > 0.0 && acc[1] > 0.0 && u_n >= -at_surface) set_side(h, c, 1, u_n);
    if (acc[0] < 0.0 && acc[1] < 0.0 && u_n <= at_surface) set_side(h, c, -1, u_n);
    if (!(acc[0] > 0.0 && acc[1] < 0.0)) return 0;
    /* held, if the force that holds it lies strictly inside the band (the
     * other contacts' forces solved with it) */
    h->held[c] = 1;
    h->n_held++;
    nsdyn_status st = nsd_model_rhs(m, data, t, y, ydot);
    if (st > NSDYN_WARNING && !m->ed.on) return -1;
    if (st <= NSDYN_WARNING && h->alpha[c] > 0.0 && h->alpha[c] < 1.0) return 1;
    h->held[c] = 0;
    h->n_held--;
    return 0;
}

nsdyn_status nsd_rate_hold_restart(const nsd_model *m, nsd_data *data, double t, const double *y) {
    nsd_hold_view *h = &data->hold;
    int any = 0;
    for (size_t c = 0; h->side && c < m->nc; ++c) any |= h->side[c] != 0;
    if (!any) return NSDYN_OK;
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    nsdyn_status st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) return nsd_model_fail(m, data, st, t, "system contacts()");
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (h->side[c] &&
            (!e->active || !(e->gap < 0.0) || h->side[c] * e->u[0] - h->u_ref[c] <= 0.0))
            set_side(h, c, 0, 0.0);
    }
    return NSDYN_OK;
}
