/* The conformance checks of one plugin: what the host relies on beyond
 * what the registry checks when it opens a file (registry.h). Run by
 * `nsdyn check PLUGIN.so` for any plugin, in or out of tree, and by the
 * test test_conformance for every built-in one.
 *
 * With the defaults of its parameters (a plugin with a required parameter
 * is checked for its declarations only), each kind is checked for:
 *   every kind   parameter declarations well formed; create() and
 *                destroy(); determinism: the same inputs twice give the
 *                same bits; no allocation in the hot-path callbacks (when
 *                an allocation probe is given, alloc_probe.h)
 *   system       layout: names and units, distinct channel names, contact
 *                declarations that match the capabilities, draw() and
 *                stops() when declared, energy_output and every plot
 *                series naming a channel; a finite initial state;
 *                derivatives() affine in the contact forces and the same
 *                whether asked for q', v' or both; contacts() finite;
 *                then at NSD_CF_STATES random states around the initial
 *                one (conformance_states.c, conformance_motion.c): no
 *                callback writes or reads past the layout's counts (guard
 *                values), every value finite, each contact's u affine in
 *                v with W its Jacobian, u_n the gap's rate and the drift
 *                the rows' rate along the motion (finite differences),
 *                the contact forces doing the work W v (the tangent rows),
 *                a CONSERVATIVE system's energy kept in free flight
 *   friction     bounds >= 0; a stateless law dissipative, bounded by its
 *                kinetic bound and proportional to N; internal states named
 *   contact      a compliant law never pulls, is zero while separated and
 *                finite while penetrating; a rigid law's impact() for one
 *                contact honours the restitution_scale (ABI 2.4; before,
 *                its local_impulse() equals impact(), bit for bit)
 *   integrator   statistics zero after create(); on y'' = -y (an ODE
 *                integrator): reaches t = 1 with the exact solution to
 *                1e-3, deterministic, and its steps do not allocate
 * Every finding is one line in diag naming the plugin and the check. */
#ifndef NSD_CONFORMANCE_H
#define NSD_CONFORMANCE_H

#include "conformance_probe.h"

/* Check plugin p; probe may be NULL (no allocation check). In process: a
 * plugin that crashes takes the caller with it (nsd_conformance_isolated). */
nsd_conformance nsd_conformance_check(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                      nsd_diag *diag);

/* The same with each finding written as a line to fd as it is found (fd
 * >= 0; diag unused then) and the callback being called kept in `where`
 * (NSD_CF_WHERE_LEN bytes, or NULL). */
nsd_conformance nsd_conformance_run(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                    nsd_diag *diag, int fd, char *where);

/* nsd_conformance_check in a child process (conformance_isolate.c) with a
 * wall-clock limit of timeout_s seconds: a callback that crashes, aborts,
 * calls exit() or does not return is a finding naming the callback and
 * the state, not the end of the checker. */
nsd_conformance nsd_conformance_isolated(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                         nsd_diag *diag, double timeout_s);

#endif
