/* Calls into a loaded plugin that depend on the ABI minor it was built
 * with, made in one place so the rest of the host never asks which
 * version a plugin is: its optional interfaces by name (ABI 2.4), a
 * rigid law's impulse at one contact alone (impact() on a one-contact
 * problem from 2.4, local_impulse() before), and the callbacks that
 * return a status from 2.5 (void before: called through the old type,
 * so a plugin built before 2.5 still loads and runs). The integrators'
 * call protocol is held by integrator_calls.h. */
#ifndef NSD_PLUGIN_CALLS_H
#define NSD_PLUGIN_CALLS_H

#include "nsdyn/nsdyn.h"

/* Was the plugin built with ABI 2.4 or later? */
int nsd_plugin_abi_2_4(const nsdyn_plugin_info *info);

/* The plugin's optional interface `name` (plugin.h NSDYN_EXT_*), or NULL
 * when it offers none by that name or was built before ABI 2.4. */
const void *nsd_plugin_extension(const nsdyn_plugin_info *info, const char *name);

/* The former names of the plugin's parameters (NSDYN_EXT_PARAM_ALIASES), or
 * NULL (the loader refuses a plugin whose table is broken: plugin_file.c). */
const nsdyn_param_aliases *nsd_plugin_param_aliases(const nsdyn_plugin_info *info);

/* Was the plugin built with ABI 2.5 or later (its bounds(), coefficients()
 * and draw() return a status)? */
int nsd_plugin_abi_2_5(const nsdyn_plugin_info *info);

/* The friction law's bounds() at normal force N [N] (friction.h): static
 * and kinetic bound [N]. A failure (the law's status above WARNING, or a
 * NaN bound) gives NSDYN_ERROR with the reason, naming the law, in why
 * (why_len bytes; why may be NULL). Hot path: no allocation. */
nsdyn_status nsd_friction_bounds(const nsdyn_friction_law *law, void *inst, double N,
                                 double *static_bound, double *kinetic_bound, char *why,
                                 size_t why_len);

/* The rigid law's coefficients() (contact.h); out->struct_size set by the
 * caller. A failure or a NaN or negative restitution: NSDYN_ERROR with
 * the reason in why, as nsd_friction_bounds(). */
nsdyn_status nsd_contact_coefficients(const nsdyn_contact_law *law, void *inst,
                                      nsdyn_rigid_coefficients *out, char *why, size_t why_len);

/* The system's draw() at (t, q) on canvas (system.h); NSDYN_ERROR when it
 * has none or refused. */
nsdyn_status nsd_system_draw(const nsdyn_system *sys, void *inst, double t, const double *q,
                             const nsdyn_canvas *canvas);

/* Does the rigid law give the impulse at one contact alone (time-stepping
 * needs it)? From 2.4 every rigid law with impact() and coefficients()
 * does; before, one with local_impulse(). */
int nsd_contact_has_local_impulse(const nsdyn_plugin_info *info);

/* The impulse P (3) [N s] at one contact alone (contact.h
 * nsdyn_local_impact): a law built with ABI 2.4 or later by its impact()
 * on the one-contact problem with Moreau's restitution scale (no impulse
 * for a contact that does not approach, u_free,n >= 0), an older law by
 * its local_impulse(). Hot path: no allocation. */
nsdyn_status nsd_contact_local_impulse(const nsdyn_contact_law *law, void *inst,
                                       const nsdyn_local_impact *p, double *P);

#endif
