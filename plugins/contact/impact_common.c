/* What every rigid law of the impact plugin shares (impact_internal.h):
 * its name, the phase log, the failure text and the acceptance of a
 * result. The laws (newton.c, poisson.c, kane_impulse.c) call these and
 * the solver (impact_solver.c); the entry point (impact.c) calls the laws;
 * nothing here calls back up. No allocation. */
#include <stdio.h>
#include <string.h>

#include "impact_internal.h"

const char *law_name(law_kind k) {
    return k == LAW_NEWTON ? "newton" : k == LAW_KANE ? "kane_impulse" : "poisson";
}

void phase(const nsdyn_impact_problem *pr, const char *what) {
    if (pr->phase_log && pr->phase_log_len) snprintf(pr->phase_log, pr->phase_log_len, "%s", what);
}

/* Log an error through the host (pre-formatted, fixed buffer); the phase
 * log gets the same text (truncated to its length), for the runner's own
 * failure message. */
nsdyn_status fail(const impact_law *law, const nsdyn_impact_problem *pr, const char *msg) {
    if (law->have_host) law->host.log(law->host.ctx, NSDYN_LOG_ERROR, msg);
    phase(pr, msg);
    return NSDYN_ERROR;
}

/* The result of a law (impact_internal.h). */
int impact_accept(const nsdyn_impact_problem *pr, const double *P, const double *up,
                  const char *log, double *impulse, double *u_plus, double *dT) {
    const size_t m = 3 * pr->n_contacts;
    double size;
    *dT = energy_change(pr->delassus, m, pr->u_minus, P, &size);
    if (*dT > 1e-9 * size) return 1;
    phase(pr, log);
    memcpy(impulse, P, m * sizeof *P);
    memcpy(u_plus, up, m * sizeof *up);
    return 0;
}
