/* The host side of nsdyn_system.contacts(); see contact_eval.h. */
#include "contact_eval.h"

nsdyn_status nsd_contacts_evaluate(const nsdyn_system *sys, void *inst, double t, const double *q,
                                   const double *v, size_t n_contacts, int want_geometry,
                                   double *const *jacobian, nsdyn_contact_eval *out) {
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
