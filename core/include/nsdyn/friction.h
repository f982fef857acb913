/* nsdyn friction-law ABI: the tangential force at one contact.
 *
 * Slip is 1-D (planar contact) or 2-D (spatial slip). A law may carry
 * internal states per contact (LuGre's bristle deflection z): the host
 * reserves n_states(dim) entries for each contact in the ODE state vector,
 * starts them at zero, and integrates the rates force() returns;
 * state_channels() says what they are (name, unit, label) for the output.
 *
 * Set-valued laws (Coulomb) give, at zero slip, any force inside the disc of
 * radius static_bound; force() then returns the zero force, and the host
 * must hold stick by a constraint (the event-driven runner, time-stepping),
 * using bounds(). The composition check refuses a set-valued law where
 * nothing can resolve stick.
 *
 * Rigid contact (the event-driven runner) uses force() while a contact
 * slips, evaluated at N = 1 and scaled by the normal force: a law's force
 * must be proportional to N, unless the law declares
 * NSDYN_CAP_FRICTION_LOAD_FREE (then rigid contact refuses it). At zero
 * slip it holds stick within bounds()'s static bound. ABI 2.0 removed project(), which no host used.
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

/* ---- friction-law callbacks (see nsdyn_friction_law) -------------------- */

typedef size_t (*nsdyn_friction_n_states_fn)(void *inst, uint32_t dim);
typedef nsdyn_status (*nsdyn_friction_force_fn)(void *inst, const nsdyn_friction_input *in,
                                                double *force, double *state_rate);
/* ABI 2.5: returns a status (void before; the host still calls an older
 * law's void bounds() through an adapter, core/src/plugins/plugin_calls.c). */
typedef nsdyn_status (*nsdyn_friction_bounds_fn)(void *inst, double normal_force,
                                                 double *static_bound, double *kinetic_bound);
typedef nsdyn_status (*nsdyn_friction_state_channels_fn)(void *inst, uint32_t dim,
                                                         nsdyn_channel *out);

typedef struct nsdyn_friction_law {
    nsdyn_plugin_info info;

    /* Number of internal states per contact for slip dimension dim. */
    nsdyn_friction_n_states_fn n_states;

    /* Hot path: friction force on the body (opposing slip) [N], dim entries,
     * and the rates of the internal states (may be NULL when n_states = 0). */
    nsdyn_friction_force_fn force;

    /* Magnitudes for a normal force N [N]: the largest force stick can hold
     * (static_bound) and the force of steady slip (kinetic_bound), both
     * >= 0. NSDYN_ERROR (with a reason through the host's log) when the law
     * cannot give them, e.g. for a normal force outside its domain; the
     * host refuses NaN or negative bounds as such a failure (ABI 2.5). */
    nsdyn_friction_bounds_fn bounds;

    /* What the internal states are (ABI 2.0, appended; optional, NULL when
     * n_states is always 0): fill out[0 .. n_states(dim)) for slip dimension
     * dim with each state's name, unit and label, e.g. LuGre's
     * {"z1", "m", "bristle deflection along tangent 1"}. Names are short
     * ids ([A-Za-z0-9_]+) the host prefixes with the contact's name
     * ("foot1.z1"); the strings must live as long as the instance. Called
     * once per contact at setup, not on the hot path. Without it the host
     * names the states z1, z2, ... in "m", as hosts before 2.0 did. */
    nsdyn_friction_state_channels_fn state_channels;

    /* ABI 2.4 (appended, the last field for good): the plugin's optional
     * interfaces by name, or NULL (plugin.h nsdyn_extension_fn). Read only
     * when info.struct_size covers this field. */
    nsdyn_extension_fn extension;
} nsdyn_friction_law;

/* Descriptor head of a friction law: NSDYN_FRICTION_INFO(.id = "...", ...). */
#define NSDYN_FRICTION_INFO(...) NSDYN_INFO_OF(nsdyn_friction_law, NSDYN_KIND_FRICTION, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
