/* A compliant contact held at gap_rate = 0 by a rate-discontinuous law
 * (NSDYN_CAP_RATE_DISCONTINUITY, e.g. bistiffness): Filippov's attracting
 * sliding surface (docs/event-driven.md "Bi-stiffness at rest"). */
#ifndef NSD_RATE_HOLD_H
#define NSD_RATE_HOLD_H

#include "model.h"

/* At (t, y), with contact c penetrating and its gap rate at zero (a rate
 * event): the law's force just on the compression side (gap_rate -> 0-)
 * and on the expansion side (gap_rate -> 0+) into f_comp_N, f_exp_N [N],
 * and 1 when both sides' vector fields push the gap rate back to zero
 * (the whole right-hand side with that side's force, the regime's other
 * forces solved with it: the compression force opens the gap, the
 * expansion force closes it): the contact can neither compress nor expand
 * and Filippov's solution holds it at rest. 0 otherwise; -1 on a plugin
 * failure (data->failure). Uses ydot (n), data->lambda and the contact rows
 * (data->W) as scratch. */
int nsd_rate_held(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                  size_t c, double *f_comp_N, double *f_exp_N);

/* The hold itself (model.h nsd_hold_view, data->hold): a contact held at gap_rate = 0
 * carries the normal force that keeps u_n' = 0 (Filippov's convex
 * combination of the two sides' vector fields, which for one contact is
 * the equivalent control of the normal force; Filippov ch. 2 §4; Leine &
 * Nijmeijer 2004 ch. 2) and leaves the hold when that force reaches a bound
 * of the band [k (1 - mu_n) d, k (1 + mu_n) d] (an event). */

/* Each held contact's alpha (nsd_hold_view) from its normal force in
 * data->lambda (after a solve, contacts evaluated): 0 at the expansion force,
 * 1 at the compression force; -1 when it no longer penetrates. */
nsdyn_status nsd_rate_hold_alphas(const nsd_model *m, nsd_data *data, double t);

/* The compliant regime's forces with held contacts (the regime's hold_solve, model.h):
 * the laws' forces, the held normal forces solved from u_n' = 0 with
 * their friction following, v' (nv) and the friction states' rates
 * (zdot, may be NULL). */
nsdyn_status nsd_rate_hold_solve(const nsd_model *m, nsd_data *data, double t, const double *y,
                                 double *vdot, double *zdot);

/* A rate event of contact c at (t, y) (the runner's): a held contact
 * leaves the hold (2), to the side its force left the band on; another
 * enters it when both sides attract (nsd_rate_held) and the force that
 * holds it lies inside the band (1); else 0. -1 on a failure (data->failure).
 * ydot (n) is scratch. */
int nsd_rate_hold_event(const nsd_model *m, nsd_data *data, double t, const double *y, double *ydot,
                        size_t c);

/* Contact c's normal option at its rate event, set in data->hold: held
 * (NSD_HOLD_HELD), one side's force (+1 expansion, -1 compression, as
 * chosen at a rate event, past u_n [m/s] now), or 0: neither, the law
 * follows the gap rate's sign. The modes' combined choice
 * (contact/modes_choose.c) tries each. */
#define NSD_HOLD_HELD 2
void nsd_rate_hold_option(nsd_hold_view *h, size_t c, int option, double u_n);

/* Before the integrator restarts at (t, y) after any jump: a side chosen
 * at a rate event (model.h nsd_hold_view, data->hold) whose event function already
 * reads <= 0 there, or whose contact no longer penetrates, is cleared (a
 * touch-down the step guard found starts a new penetration, and the
 * restart would never see that function cross). */
nsdyn_status nsd_rate_hold_restart(const nsd_model *m, nsd_data *data, double t, const double *y);

#endif
