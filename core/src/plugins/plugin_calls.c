/* Version-dependent calls into a loaded plugin (plugin_calls.h). */
#include "plugin_calls.h"

#include <string.h>

int nsd_plugin_abi_2_4(const nsdyn_plugin_info *info) {
    return info->abi_major > 2 || (info->abi_major == 2 && info->abi_minor >= 4);
}

/* The extension field of the kind's table, NULL when the plugin's
 * struct_size does not reach it (built before 2.4). */
static nsdyn_extension_fn extension_of(const nsdyn_plugin_info *info) {
#define NSD_EXT_FIELD(type)                                                      \
    (info->struct_size >= offsetof(type, extension) + sizeof(nsdyn_extension_fn) \
         ? ((const type *)(const void *)info)->extension                         \
         : NULL)
    switch (info->kind) {
        case NSDYN_KIND_SYSTEM: return NSD_EXT_FIELD(nsdyn_system);
        case NSDYN_KIND_CONTACT: return NSD_EXT_FIELD(nsdyn_contact_law);
        case NSDYN_KIND_FRICTION: return NSD_EXT_FIELD(nsdyn_friction_law);
        case NSDYN_KIND_INTEGRATOR: return NSD_EXT_FIELD(nsdyn_integrator);
    }
#undef NSD_EXT_FIELD
    return NULL;
}

const void *nsd_plugin_extension(const nsdyn_plugin_info *info, const char *name) {
    nsdyn_extension_fn ext = extension_of(info);
    return ext ? ext(name) : NULL;
}

const nsdyn_param_aliases *nsd_plugin_param_aliases(const nsdyn_plugin_info *info) {
    const nsdyn_param_aliases *a = nsd_plugin_extension(info, NSDYN_EXT_PARAM_ALIASES);
    if (!a || a->struct_size < offsetof(nsdyn_param_aliases, alias) + sizeof a->alias ||
        (a->n && !a->alias))
        return NULL;
    return a;
}

int nsd_contact_has_local_impulse(const nsdyn_plugin_info *info) {
    if (info->kind != NSDYN_KIND_CONTACT || !(info->provides & NSDYN_CAP_RIGID_IMPACT)) return 0;
    const nsdyn_contact_law *law = (const nsdyn_contact_law *)(const void *)info;
    if (!law->coefficients) return 0;
    return nsd_plugin_abi_2_4(info) ? law->impact != NULL : law->local_impulse != NULL;
}

nsdyn_status nsd_contact_local_impulse(const nsdyn_contact_law *law, void *inst,
                                       const nsdyn_local_impact *p, double *P) {
    if (!nsd_plugin_abi_2_4(&law->info)) return law->local_impulse(inst, p, P);
    P[0] = P[1] = P[2] = 0.0;
    if (!(p->u_free[0] < 0.0)) return NSDYN_OK; /* not approaching: no impulse */
    double mu_s, mu_k, gap, u_plus[3];
    const double scale = nsdyn_local_restitution_scale(p); /* Moreau's rule */
    nsdyn_impact_problem pr = nsdyn_local_problem(p, &mu_s, &mu_k, &gap);
    pr.restitution_scale = &scale;
    return law->impact(inst, &pr, P, u_plus);
}
