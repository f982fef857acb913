/* nsdyn friction-law ABI: the tangential force at one contact.
 *
 * Slip is 1-D (planar contact) or 2-D (spatial slip). A law may carry
 * internal states per contact (LuGre's bristle deflection z): the host
 * reserves n_states(dim) entries for each contact in the ODE state vector,
 * starts them at zero, and integrates the rates force() returns.
 *
 * Set-valued laws (Coulomb) give, at zero slip, any force inside the disc of
 * radius static_bound; force() then returns the zero force, and the host
 * must hold stick by a constraint (the event-driven runner, time-stepping),
 * using bounds(). The composition check refuses a set-valued law where
 * nothing can resolve stick.
 *
 * Rigid contact (the event-driven runner) uses force() while a contact
 * slips, evaluated at N = 1 and scaled by the normal force: a law's force
 * must be proportional to N. At zero slip it holds stick within bounds()'s
 * static bound. ABI 2.0 removed project(), which no host used.
 */
#ifndef NSDYN_FRICTION_H
#define NSDYN_FRICTION_H

#include "nsdyn/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nsdyn_friction_input {
    uint32_t dim;        /* 1 or 2 tangent directions */
    double slip[2];      /* tangential velocity of the contact point [m/s] */
    double normal_force; /* N >= 0 [N] */
    const double *state; /* n_states(dim) internal states, or NULL */
} nsdyn_friction_input;

typedef struct nsdyn_friction_law {
    nsdyn_plugin_info info;

    void *(*create)(const nsdyn_value *params, const nsdyn_host *host, char *err, size_t err_len);
    void (*destroy)(void *inst);
    void (*reset)(void *inst); /* may be NULL */

    /* Number of internal states per contact for slip dimension dim. */
    size_t (*n_states)(void *inst, uint32_t dim);

    /* Hot path: friction force on the body (opposing slip) [N], dim entries,
     * and the rates of the internal states (may be NULL when n_states = 0). */
    nsdyn_status (*force)(void *inst, const nsdyn_friction_input *in, double *force,
                          double *state_rate);

    /* Magnitudes for a normal force N [N]: the largest force stick can hold
     * (static_bound) and the force of steady slip (kinetic_bound). */
    void (*bounds)(void *inst, double normal_force, double *static_bound, double *kinetic_bound);
} nsdyn_friction_law;

#ifdef __cplusplus
}
#endif
#endif
