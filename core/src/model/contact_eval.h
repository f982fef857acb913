/* The host's one way of calling a system's contacts() (issue 14).
 *
 * nsdyn_system.contacts() takes the host's inputs (nsdyn_contact_request:
 * whether point and normal are wanted, which contacts get Jacobian rows)
 * apart from the plugin's outputs (nsdyn_contact_eval). This wrapper is
 * where the host presets the outputs and builds the request, so the call
 * sites (model.c, modes.c, run.c, cmd_limits.c) say only what they want. */
#ifndef NSD_CONTACT_EVAL_H
#define NSD_CONTACT_EVAL_H

#include "nsdyn/system.h"

/* Evaluate the n_contacts candidates of `sys` at (t, q, v) into out.
 *
 * want_geometry: nonzero to have point and normal filled (drawing, event
 * logs). jacobian: NULL for no Jacobian rows, or n_contacts entries, each
 * NULL or a 3 x nv row-major buffer that receives contact c's rows (and
 * out[c].drift). Every out[c].active is preset to 1 (a system clears it for
 * a candidate switched off in its mode); the other outputs are the
 * plugin's to write. Returns the plugin's status. Hot path: no allocation.
 *
 * Inline (C99: contact_eval.c holds the one external definition): the
 * right-hand side calls it once per evaluation, and a call through the PLT
 * with its own frame cost more than the body (bench/README.md). */
inline nsdyn_status nsd_contacts_evaluate(const nsdyn_system *sys, void *inst, double t,
                                          const double *q, const double *v, size_t n_contacts,
                                          int want_geometry, double *const *jacobian,
                                          nsdyn_contact_eval *out) {
    /* The only output the host presets: a system that never switches a
     * candidate off need not write `active`. */
    for (size_t c = 0; c < n_contacts; ++c) out[c].active = 1;
    const nsdyn_contact_request request = {
        .struct_size = (uint32_t)sizeof request,
        .want_geometry = want_geometry,
        .jacobian = jacobian,
    };
    return sys->contacts(inst, t, q, v, &request, out);
}

/* The gaps and local velocities of the contacts c with wanted[c] != 0 at
 * (t, q, v) into out[c] (ABI 2.3 request.wanted: a system may skip the
 * other candidates, whose outputs then stay as they were; an older system
 * fills them all). No geometry, no Jacobian rows. Hot path: the step
 * guard, which follows the contacts that may reach their threshold. */
inline nsdyn_status nsd_contacts_evaluate_some(const nsdyn_system *sys, void *inst, double t,
                                               const double *q, const double *v, size_t n_contacts,
                                               const unsigned char *wanted,
                                               nsdyn_contact_eval *out) {
    for (size_t c = 0; c < n_contacts; ++c)
        if (wanted[c]) out[c].active = 1;
    const nsdyn_contact_request request = {
        .struct_size = (uint32_t)sizeof request,
        .wanted = wanted,
    };
    return sys->contacts(inst, t, q, v, &request, out);
}

#endif
