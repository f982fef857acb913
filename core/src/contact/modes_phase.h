/* What modes_phase.c (the phase between events: contact evaluation,
 * forces and event functions of the current modes) gives the resolution
 * at an event (modes_resolve.c) and the system's notification
 * (modes_notify.c). */
#ifndef NSD_MODES_PHASE_H
#define NSD_MODES_PHASE_H

#include "modes_work.h"

static inline double rest_speed(const nsd_model *m, nsd_data *data, size_t c, double t) {
    return nsd_modes_rest_speed(m, data, c, t, data->ed.work->an[c]);
}

/* contacts() with Jacobian rows for the contacts that need them (closed,
 * persistent) or for all (all_rows); checked (nsd_model_check_contacts). */
nsdyn_status nsd_modes_eval_contacts(const nsd_model *m, nsd_data *data, double t, const double *y,
                                     int all_rows);
/* Slip direction of contact c now into d (2). */
void nsd_modes_slip_direction(const nsd_model *m, nsd_data *data, size_t c, double *d);
/* Forces of the current modes and v' at (t, y), contacts evaluated. */
nsdyn_status nsd_modes_solve_current(const nsd_model *m, nsd_data *data, double t, const double *y,
                                     double *vdot);
/* Raw event values (before the offsets) of contact c, from the last solve;
 * NSDYN_ERROR when the friction law's bounds() fails (data->failure). */
nsdyn_status nsd_modes_raw_events(const nsd_model *m, nsd_data *data, size_t c, double *g);
/* The friction law's static and kinetic bound [N] at normal force N [N];
 * a failure (ABI 2.5 status, or NaN) with its reason in data->failure. */
nsdyn_status nsd_modes_bounds(const nsd_model *m, nsd_data *data, double N, double *bound,
                              double *kinetic);
/* A new record in log (NULL: none kept). */
nsd_event_record *nsd_modes_log_add(nsd_event_log *log, double t, size_t c, nsd_event_kind kind);

#endif
