/* The audits of a run: the energy audit of every run (a conservative
 * system never gains energy), and the penetration audit and energy balance
 * of time-stepping runs
 * (docs/checks.md): Moreau-Jean resolves each impact within a step and
 * never projects positions, so a step too large leaves bodies under their
 * surfaces while the run looks complete. Measured at every step end. */
#ifndef NSD_RUN_AUDIT_H
#define NSD_RUN_AUDIT_H

#include <stdio.h>

#include "run_result.h"

/* At the start and after each accepted step of a time-stepping run
 * (no-op otherwise): the
 * rigid unilateral gaps at (t, y) and the energy output. With
 * run.penetration_audit = "error" a penetration deeper than the tolerance
 * returns -1 with res->message set; otherwise 0. */
int nsd_penetration_audit(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                          const double *y);

/* The energy audit (docs/checks.md): a conservative system with
 * dissipative contact and friction laws never gains mechanical energy. At
 * every accepted step's end that is judgeable the energy must not exceed
 * the lowest judgeable value so far by more than run.energy_tolerance
 * times the largest |E| seen. "warn" counts it, "error" ends the run:
 * returns -1 with res->message set; otherwise 0. */
int nsd_audit_energy(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                     const double *y);

/* True when the run went past its penetration tolerance (a warning). */
int nsd_run_audit_warns(const nsd_run_result *res);

/* The summary line's clause ("; deepest penetration ..."), nothing for a
 * run that measured none. */
void nsd_run_audit_print_summary(FILE *out, const nsd_run_result *res);

/* The run's host messages into its log (runlog.h): how it failed or
 * stopped, a possible missed impact, the audits' warnings. */
void nsd_run_audit_log(nsd_runlog *log, const nsd_run_result *res);

/* run.toml [status] keys (written for every run, zero when unmeasured). */
void nsd_run_audit_write_toml(FILE *f, const nsd_run_result *res);

#endif
