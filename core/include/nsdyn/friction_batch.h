/* nsdyn friction-law ABI, optional interface: the forces of all contacts
 * in one call (issue 21 item 6).
 *
 * A friction law's force() is called once per contact and right-hand
 * side, with the slip copied by the host into an nsdyn_friction_input.
 * With few contacts that call is most of the law's cost: the host builds
 * the input, the slip goes through memory once more, the call is
 * indirect (bench/README.md, "Where the overhead goes"). A stateless law
 * may offer this interface through its table's extension() under
 * NSDYN_EXT_FRICTION_FORCES; the host then calls forces() once per
 * right-hand side for every contact, reading the slip where the system's
 * contacts() wrote it. The host uses it only where force() would be called
 * for each contact with no internal states: a law with n_states() > 0
 * for some contact, and runs holding stick (run.hold_stick), keep the
 * per-contact force().
 *
 * Contract: for every contact c the batch gives bit for bit what force()
 * gives for the same slip and normal force (the same operations in the
 * same order); `nsdyn check` and tests/test_friction_batch.c compare the
 * two at random inputs. A law without the interface loses nothing: the
 * host calls force() per contact as before. Added in ABI 2.5 through
 * extension(), so no table grows (plugin.h). */
#ifndef NSDYN_FRICTION_BATCH_H
#define NSDYN_FRICTION_BATCH_H

#include "nsdyn/friction.h"
#include "nsdyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* extension() name of an nsdyn_friction_forces. */
#define NSDYN_EXT_FRICTION_FORCES "nsdyn.friction.forces"

typedef struct nsdyn_friction_batch {
    uint32_t struct_size; /* sizeof(nsdyn_friction_batch) the host was built with */
    size_t n;             /* contacts */
    /* n declarations: contacts[c].tangent_dim (1 or 2) is the slip's dimension */
    const nsdyn_contact_decl *contacts;
    /* n evaluations by the system: eval[c].u[1] and, in 2-D, eval[c].u[2]
     * are the slip [m/s] (as nsdyn_friction_input.slip) */
    const nsdyn_contact_eval *eval;
    /* 3 n entries, contact c at 3 c: force[3c] is the normal force N [N]
     * (input). Where N > 0 or N is NaN, the law writes the friction force
     * [N] into force[3c + 1] (and force[3c + 2] in 2-D); where N <= 0 it
     * writes nothing (the host has set those entries to zero). */
    double *force;
} nsdyn_friction_batch;

typedef nsdyn_status (*nsdyn_friction_forces_fn)(void *inst, const nsdyn_friction_batch *batch);

typedef struct nsdyn_friction_forces {
    uint32_t struct_size; /* sizeof(nsdyn_friction_forces) the plugin was built with */
    /* Hot path: no allocation. A status above NSDYN_WARNING fails the
     * right-hand side, as force()'s would. */
    nsdyn_friction_forces_fn forces;
} nsdyn_friction_forces;

#ifdef __cplusplus
}
#endif

#endif
