/* Version-dependent calls into a loaded plugin (plugin_calls.h). */
#include "plugin_calls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int nsd_plugin_abi_2_4(const nsdyn_plugin_info *info) {
    return info->abi_major > 2 || (info->abi_major == 2 && info->abi_minor >= 4);
}

int nsd_plugin_abi_2_5(const nsdyn_plugin_info *info) {
    return info->abi_major > 2 || (info->abi_major == 2 && info->abi_minor >= 5);
}

/* The slots' types before ABI 2.5, when these callbacks returned void. A
 * plugin built then is called through the type it was compiled with (a
 * function pointer converted to another function type and back is the
 * same pointer, C17 6.3.2.3p8); the cast goes through void (*)(void),
 * the type GCC's -Wcast-function-type accepts as "any function". */
typedef void (*bounds_before_2_5)(void *inst, double N, double *Fs, double *Fk);
typedef void (*coefficients_before_2_5)(void *inst, nsdyn_rigid_coefficients *out);
typedef void (*draw_before_2_5)(void *inst, double t, const double *q, const nsdyn_canvas *cv);
#define NSD_AS(type, fn) ((type)(void (*)(void))(fn))

nsdyn_status nsd_friction_bounds(const nsdyn_friction_law *law, void *inst, double N,
                                 double *static_bound, double *kinetic_bound, char *why,
                                 size_t why_len) {
    nsdyn_status st = NSDYN_OK;
    if (nsd_plugin_abi_2_5(&law->info))
        st = law->bounds(inst, N, static_bound, kinetic_bound);
    else
        NSD_AS(bounds_before_2_5, law->bounds)(inst, N, static_bound, kinetic_bound);
    if (st <= NSDYN_WARNING && !isnan(*static_bound) && !isnan(*kinetic_bound)) return st;
    if (why && why_len) {
        if (st > NSDYN_WARNING)
            snprintf(why, why_len, "friction law '%s': bounds() at N = %.9g N returned %s",
                     law->info.id, N, nsdyn_status_name(st));
        else
            snprintf(why, why_len,
                     "friction law '%s': bounds() at N = %.9g N gave static %g N, kinetic %g N",
                     law->info.id, N, *static_bound, *kinetic_bound);
    }
    return NSDYN_ERROR;
}

nsdyn_status nsd_contact_coefficients(const nsdyn_contact_law *law, void *inst,
                                      nsdyn_rigid_coefficients *out, char *why, size_t why_len) {
    nsdyn_status st = NSDYN_OK;
    if (nsd_plugin_abi_2_5(&law->info))
        st = law->coefficients(inst, out);
    else
        NSD_AS(coefficients_before_2_5, law->coefficients)(inst, out);
    if (st <= NSDYN_WARNING && out->restitution >= 0.0) return st;
    if (why && why_len) {
        if (st > NSDYN_WARNING)
            snprintf(why, why_len, "contact law '%s': coefficients() returned %s", law->info.id,
                     nsdyn_status_name(st));
        else
            snprintf(why, why_len, "contact law '%s': coefficients() gave restitution %g",
                     law->info.id, out->restitution);
    }
    return NSDYN_ERROR;
}

nsdyn_status nsd_system_draw(const nsdyn_system *sys, void *inst, double t, const double *q,
                             const nsdyn_canvas *canvas) {
    if (!sys->draw) return NSDYN_ERROR;
    if (nsd_plugin_abi_2_5(&sys->info)) return sys->draw(inst, t, q, canvas);
    NSD_AS(draw_before_2_5, sys->draw)(inst, t, q, canvas);
    return NSDYN_OK;
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
