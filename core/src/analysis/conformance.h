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
 *                stops() when declared; a finite initial state;
 *                derivatives() affine in the contact forces and the same
 *                whether asked for q', v' or both; contacts() finite
 *   friction     bounds >= 0; a stateless law dissipative, bounded by its
 *                kinetic bound and proportional to N; internal states named
 *   contact      a compliant law never pulls, is zero while separated and
 *                finite while penetrating; a rigid law's local_impulse()
 *                equals its impact() for one contact, bit for bit
 *   integrator   statistics zero after create(); on y'' = -y (an ODE
 *                integrator): reaches t = 1 with the exact solution to
 *                1e-3, deterministic, and its steps do not allocate
 * Every finding is one line in diag naming the plugin and the check. */
#ifndef NSD_CONFORMANCE_H
#define NSD_CONFORMANCE_H

#include "conformance_probe.h"

/* Check plugin p; probe may be NULL (no allocation check). */
nsd_conformance nsd_conformance_check(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                      nsd_diag *diag);

#endif
