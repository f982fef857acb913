/* nsdyn contact-law ABI: what happens in the normal direction.
 *
 * Two families, declared by the capability bits:
 *  - compliant (NSDYN_CAP_COMPLIANT_NORMAL): normal_force() gives the force
 *    from the gap and its rate; the problem stays an ODE and any integrator
 *    can run it.
 *  - rigid (NSDYN_CAP_RIGID_IMPACT): impact() maps the local velocities
 *    before an impact to an impulse and the velocities after it, given the
 *    Delassus operator; it needs the event-driven runner or time-stepping.
 */
#ifndef NSDYN_CONTACT_H
#define NSDYN_CONTACT_H

#include "nsdyn/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rigid impact of n simultaneous contacts. */
typedef struct nsdyn_impact_problem {
    uint32_t struct_size;
    size_t n_contacts;
    uint32_t tangent_dim;    /* 1 or 2, the same for all contacts */
    /* (3n x 3n) row-major W M^-1 W^T: local velocity change per unit local
     * impulse [1/kg]; rows/cols ordered (n, t1, t2) per contact. */
    const double *delassus;
    const double *u_minus;   /* 3n local velocities before impact [m/s] */
    const double *mu_static; /* n static friction coefficients [1] (no-slip test) */
    const double *mu_kinetic;/* n kinetic friction coefficients [1] (slip impulse) */
    /* n gaps [m]: every contact near closure takes part, including those
     * not yet approaching (a Percussion-Centre law watches them for a
     * single- to double-point transition). */
    const double *gaps;
    /* Optional buffer for the law's phase log ("SP slide; stick; DP"),
     * NUL-terminated, or NULL. */
    char *phase_log;
    size_t phase_log_len;
} nsdyn_impact_problem;

typedef struct nsdyn_contact_law {
    nsdyn_plugin_info info;

    void *(*create)(const nsdyn_value *params, const nsdyn_host *host, char *err,
                    size_t err_len);
    void (*destroy)(void *inst);
    void (*reset)(void *inst); /* may be NULL */

    /* Compliant: normal force [N] >= 0 from gap g [m] (negative when
     * penetrating) and gap rate g' [m/s]; zero when separated. */
    nsdyn_status (*normal_force)(void *inst, double gap, double gap_rate, double *force);

    /* Rigid: impulse (3n) [N s] and post-impact velocities u_plus (3n) [m/s]. */
    nsdyn_status (*impact)(void *inst, const nsdyn_impact_problem *problem, double *impulse,
                           double *u_plus);
} nsdyn_contact_law;

#ifdef __cplusplus
}
#endif
#endif
