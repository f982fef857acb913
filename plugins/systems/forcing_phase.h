/* The forcing phase of a harmonically forced system as a state, q[1] =
 * omega t [rad] (wrapped to [0, 2 pi)), and its stroboscopic Poincare
 * section as the system's switch 0: the phase reaching 2 pi. Shared by the
 * forced systems (impact_oscillator.c, belt_oscillator.c), which keep
 * their own derivatives, contacts and drawing. Header-only: each plugin is
 * its own shared object. */
#ifndef NSDYN_PLUGIN_FORCING_PHASE_H
#define NSDYN_PLUGIN_FORCING_PHASE_H

#include "nsdyn/nsdyn.h"

#define TWO_PI 6.28318530717958647692

/* The stroboscopic section: theta reaches 2 pi (falling 2 pi - theta). */
static nsdyn_status switches_eval(void *inst, double t, const double *q, const double *v,
                                  const double *f, double *g) {
    (void)inst, (void)t, (void)v, (void)f;
    g[0] = TWO_PI - q[1];
    return NSDYN_OK;
}

/* The wrap at the section (guarded: only a phase that reached 2 pi). */
static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    (void)inst, (void)t, (void)v;
    if (index == 0 && q[1] >= TWO_PI - 1e-9) q[1] -= TWO_PI;
    return NSDYN_OK;
}

/* The wrap of the phase as a smooth map (system.h switch_map: no guard). */
static nsdyn_status switch_map(void *inst, size_t index, double t, double *q, double *v) {
    (void)inst, (void)t, (void)v;
    if (index == 0) q[1] -= TWO_PI;
    return NSDYN_OK;
}

#endif
