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

#include "affine.h"

/* The normal acceleration of the gap of contact c [m/s^2] (the rate of
 * its gap rate u_n) with its normal force set to f_N and every other force
 * as the right-hand side left them in m->d->lambda. */
static nsdyn_status gap_acc(const nsd_model *m, nsd_data *data, double t, const double *y, size_t c,
                            double f_N, double *acc) {
    double saved = data->lambda[3 * c];
    data->lambda[3 * c] = f_N;
    nsdyn_status st = nsd_affine_base(m, data, t, y, y + m->nq);
    data->lambda[3 * c] = saved;
    if (st > NSDYN_WARNING) return st;
    *acc = nsd_affine_local_acc(m, data, 3 * c, data->a0);
    return NSDYN_OK;
}

int nsd_rate_held(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                  size_t c, double *f_comp_N, double *f_exp_N) {
    /* the forces of the current modes into data->lambda, then every contact's
     * rows and drift (the rate event's contact is unilateral: no row yet) */
    if (nsd_model_rhs(m, data, t, y, ydot) > NSDYN_WARNING) return -1;
    nsd_model_ask_contacts(m, data, NSD_ROWS_ALL);
    if (nsd_model_contacts_now(m, data, t, y, y + m->nq) > NSDYN_WARNING) return -1;
    const nsdyn_contact_eval *e = &data->ce[c];
    if (!e->active || !(e->gap < 0.0)) return 0;
    /* one-sided limits of the law at gap_rate = 0: the smallest normal
     * rate on each side (the law sees only the rate's sign there) */
    nsdyn_status st = m->contact->normal_force(m->contact_inst, e->gap, -DBL_MIN, f_comp_N);
    if (st <= NSDYN_WARNING)
        st = m->contact->normal_force(m->contact_inst, e->gap, DBL_MIN, f_exp_N);
    if (st > NSDYN_WARNING) {
        nsd_model_fail(m, data, st, t, "contact law normal_force()");
        return -1;
    }
    double acc_comp = 0.0, acc_exp = 0.0;
    if (gap_acc(m, data, t, y, c, *f_comp_N, &acc_comp) > NSDYN_WARNING ||
        gap_acc(m, data, t, y, c, *f_exp_N, &acc_exp) > NSDYN_WARNING)
        return -1;
    /* compression (gap_rate < 0) turned back: the gap accelerates open;
     * expansion (gap_rate > 0) turned back: the gap accelerates closed */
    return acc_comp > 0.0 && acc_exp < 0.0;
}
