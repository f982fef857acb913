/* Contact checks and the host's small dense solve: the bottom layer of
 * the composed model (model.h), used by every mode of it. */
#include "model.h"
#include "nsdyn_numeric.h"

#include <math.h>
#include <stdio.h>

static int all_finite_n(const double *a, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(a[i])) return 0;
    return 1;
}

static double sum_n(const double *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += a[i];
    return s;
}

/* The sum of every value the check looks at: finite whenever they all are,
 * except when finite values overflow it (|sum| above DBL_MAX), and
 * non-finite whenever one is inf or NaN (inf + -inf is NaN; NaN + x is
 * NaN), so a finite sum proves them all finite with one branch per
 * evaluation instead of one per entry (5 % of a study's instructions). */
static double contacts_sum(const nsd_model *m, nsd_data *data) {
    double s = 0.0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (!e->active) continue;
        s += e->gap + sum_n(e->u, 3) + e->normal_load;
        if (data->jac[c]) s += sum_n(data->jac[c], 3 * m->nv) + sum_n(e->drift, 3);
    }
    return s;
}

nsdyn_status nsd_model_check_contacts(const nsd_model *m, nsd_data *data, double t) {
    if (isfinite(contacts_sum(m, data))) return NSDYN_OK;
    /* Something is not finite (or a sum of finite values overflowed):
     * find and name the culprit entry by entry. */
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (!e->active) continue;
        int ok = isfinite(e->gap) && all_finite_n(e->u, 3) && isfinite(e->normal_load);
        if (ok && data->jac[c])
            ok = all_finite_n(data->jac[c], 3 * m->nv) && all_finite_n(e->drift, 3);
        if (ok) continue;
        snprintf(data->failure, sizeof data->failure,
                 "system '%s' returned a non-finite gap, velocity, load or Jacobian at contact "
                 "'%s' at t = %.9g s (gap %g m, u_n %g m/s)",
                 m->sys->info.id, m->layout.contacts[c].name, t, e->gap, e->u[0]);
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_check_initial_gaps(const nsd_model *m, nsd_data *data, double t,
                                          const double *y, double tol) {
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    nsdyn_status st = nsd_model_contacts_now(m, data, t, y, y + m->nq);
    if (st > NSDYN_WARNING) {
        snprintf(data->failure, sizeof data->failure,
                 "system contacts() returned status %d at t = %.9g s", (int)st, t);
        return st;
    }
    if (nsd_model_check_contacts(m, data, t) > NSDYN_WARNING) return NSDYN_ERROR;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL || !e->active || e->gap >= -tol)
            continue;
        snprintf(data->failure, sizeof data->failure,
                 "contact '%s' starts penetrated by %.6g m, deeper than run.contact_tolerance = %g "
                 "m: a rigid contact cannot push the body out (it would rest under the surface); "
                 "start it on or above the surface",
                 m->layout.contacts[c].name, -e->gap, tol);
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_fail(const nsd_model *m, nsd_data *data, nsdyn_status st, double t,
                            const char *what) {
    (void)m; /* the model names no more than the caller's `what` */
    snprintf(data->failure, sizeof data->failure, "%s returned status %d at t = %.9g s", what,
             (int)st, t);
    return st;
}

int nsd_solve_small(double *A, double *b, size_t n) {
    /* The shared partial-pivoting kernel with the host's absolute pivot
     * test (a pivot not above 1e-300 is singular). */
    return nsn_lu_solve(n, A, n, b, 0.0, 1e-300) == NSN_OK ? 0 : -1;
}
