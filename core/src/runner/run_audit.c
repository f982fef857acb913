#include "run_audit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The deepest rigid unilateral penetration at (t, y) [m] (>= 0) and its
 * contact; -1 when the contacts could not be evaluated. */
static double deepest_now(const nsd_model *m, nsd_data *data, double t, const double *y,
                          size_t *which) {
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    if (nsd_model_contacts_now(m, data, t, y, y + m->nq) > NSDYN_WARNING) return -1.0;
    double deep = 0.0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL || !e->active) continue;
        if (-e->gap > deep) {
            deep = -e->gap;
            *which = c;
        }
    }
    return deep;
}

/* The system's energy output at the start or a step end, for the balance. */
static void note_energy(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                        const double *y) {
    if (m->audit.output < 0 || m->sys->outputs(data->sys_inst, t, y, y + m->nq, data->lambda,
                                               data->audit_scratch) > NSDYN_WARNING)
        return;
    double E = data->audit_scratch[m->audit.output];
    if (!res->energy_steps) res->energy_first = E;
    res->energy_last = E;
    res->energy_steps++;
}

int nsd_penetration_audit(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                          const double *y) {
    if (!m->audit.time_stepping) return 0;
    note_energy(m, data, res, t, y);
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT) &&
                !(m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
    if (!rigid || !m->nc) return 0;
    size_t c = 0;
    double deep = deepest_now(m, data, t, y, &c);
    if (deep < 0.0) return 0; /* the step itself reported contact trouble */
    res->penetration_checked++;
    if (deep > res->deepest_penetration) {
        res->deepest_penetration = deep;
        res->t_deepest_penetration = t;
        res->deepest_contact = (int)c;
    }
    if (m->audit.penetration_mode == NSD_AUDIT_OFF || !(deep > m->audit.penetration_tolerance))
        return 0;
    res->penetration_exceeded = 1;
    if (m->audit.penetration_mode != NSD_AUDIT_ERROR) return 0;
    snprintf(res->message, sizeof res->message,
             "penetration audit: contact '%s' is %.6g m under its surface at t = %.9g s, deeper "
             "than run.penetration_tolerance = %g m: time-stepping resolves an impact within its "
             "step, so the step is too large for this motion (take a smaller integrator.h, or "
             "raise the tolerance, or run.penetration_audit = \"warn\")",
             m->layout.contacts[c].name, deep, t, m->audit.penetration_tolerance);
    return -1;
}

int nsd_run_audit_warns(const nsd_run_result *res) {
    return res->penetration_exceeded && res->outcome != NSD_RUN_FAILED;
}

void nsd_run_audit_print_summary(FILE *out, const nsd_run_result *res) {
    if (res->penetration_checked) {
        if (res->deepest_penetration > 0.0)
            fprintf(out, "; deepest penetration %.3g m at t = %.6g s", res->deepest_penetration,
                    res->t_deepest_penetration);
        else
            fprintf(out, "; no penetration");
        if (nsd_run_audit_warns(res))
            fprintf(out, " (warning: deeper than run.penetration_tolerance: the step is too "
                         "large)");
    }
    if (res->energy_steps)
        fprintf(out, "; energy %.6g J -> %.6g J", res->energy_first, res->energy_last);
}

void nsd_run_audit_log(nsd_runlog *log, const nsd_run_result *res) {
    if (res->outcome == NSD_RUN_FAILED)
        nsd_runlog_addf(log, NSDYN_LOG_ERROR, "the run failed at t = %.9g s: %s", res->t_reached,
                        res->message);
    else if (res->outcome == NSD_RUN_STOPPED)
        nsd_runlog_addf(log, NSDYN_LOG_INFO, "the run stopped at t = %.9g s: %s", res->t_reached,
                        res->message);
    if (res->open_projections)
        nsd_runlog_addf(log, NSDYN_LOG_WARNING,
                        "%llu open contact%s found penetrating (deepest %.3g m) and projected "
                        "out: a possible missed impact",
                        (unsigned long long)res->open_projections,
                        res->open_projections == 1 ? "" : "s", res->deepest_open);
    if (nsd_run_audit_warns(res))
        nsd_runlog_addf(log, NSDYN_LOG_WARNING,
                        "penetration audit: %.3g m at t = %.9g s, deeper than "
                        "run.penetration_tolerance: the step is too large for this motion",
                        res->deepest_penetration, res->t_deepest_penetration);
    if (res->energy_rises && res->outcome != NSD_RUN_FAILED)
        nsd_runlog_addf(log, NSDYN_LOG_WARNING,
                        "energy audit: %llu of %llu samples above the allowed bound (largest rise "
                        "%.3g J)",
                        (unsigned long long)res->energy_rises,
                        (unsigned long long)res->energy_checked, res->energy_worst);
}

void nsd_run_audit_write_toml(FILE *f, const nsd_run_result *res) {
    fprintf(f,
            "penetration_checked = %llu  # time-stepping step ends whose rigid gaps were "
            "measured\n"
            "deepest_penetration = %.9g  # [m] the deepest rigid contact penetration at a step "
            "end\n"
            "deepest_penetration_time = %.12g  # [s]\n"
            "penetration_exceeded = %s  # deeper than run.penetration_tolerance\n",
            (unsigned long long)res->penetration_checked, res->deepest_penetration,
            res->t_deepest_penetration, res->penetration_exceeded ? "true" : "false");
    if (res->energy_steps)
        fprintf(f,
                "energy_first_step = %.12g  # [J] the energy output at the start\n"
                "energy_last_step = %.12g  # [J] at the last step end (the balance: last - "
                "first)\n",
                res->energy_first, res->energy_last);
}

/* A state whose energy the audit can judge: no compliant contact
 * compressed (its spring holds energy the output does not count) and no
 * rigid contact penetrating beyond the tolerance (a penetration lowers the
 * potential energy the output reports; time-stepping's: nsd_penetration_audit). */
static int energy_judgeable(const nsd_model *m, nsd_data *data, double t, const double *y) {
    nsd_model_ask_contacts(m, data, NSD_ROWS_NONE);
    if (m->nc && nsd_model_contacts_now(m, data, t, y, y + m->nq) > NSDYN_WARNING) return 0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &data->ce[c];
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL || !e->active) continue;
        if (m->audit.contact_compliant ? e->gap <= 0.0 : e->gap < -m->ed.contact_tolerance)
            return 0;
    }
    return 1;
}

/* The energy audit (docs/checks.md): a conservative system with
 * dissipative contact and friction laws never gains mechanical energy. At
 * every accepted step's end (the integrator's error-controlled state, not
 * an interpolated sample) that is judgeable, the energy must not exceed
 * the lowest judgeable value so far by more than run.energy_tolerance
 * times the largest |E| seen (at least 1e-9 J). "warn" counts it in
 * run.toml, "error" ends the run. Costs one contacts() and one outputs()
 * call per step. Returns 0, or -1 with res->message set. */
int nsd_audit_energy(const nsd_model *m, nsd_data *data, nsd_run_result *res, double t,
                     const double *y) {
    if (m->audit.output < 0 || m->audit.mode == NSD_AUDIT_OFF || !energy_judgeable(m, data, t, y))
        return 0;
    if (m->sys->outputs(data->sys_inst, t, y, y + m->nq, data->lambda, data->audit_scratch) >
        NSDYN_WARNING)
        return 0;
    double E = data->audit_scratch[m->audit.output];
    if (!res->energy_checked) res->energy_min = E;
    res->energy_checked++;
    res->energy_scale = fmax(fmax(res->energy_scale, fabs(E)), 1e-9);
    double allowed = res->energy_min + m->audit.tolerance * res->energy_scale;
    if (E > allowed) {
        res->energy_rises++;
        if (E - res->energy_min > res->energy_worst) res->energy_worst = E - res->energy_min;
        snprintf(res->message, sizeof res->message,
                 "energy audit: the mechanical energy rose to %.9g J at t = %.9g s, above the "
                 "lowest %.9g J reached before (by %.3g J, allowed %.3g J): the system is "
                 "conservative and the contact and friction laws dissipate, so the numerical "
                 "solution is wrong (a step too large, a tolerance too loose)",
                 E, t, res->energy_min, E - res->energy_min, allowed - res->energy_min);
        if (m->audit.mode == NSD_AUDIT_ERROR) return -1;
        res->message[0] = '\0';
    }
    res->energy_min = fmin(res->energy_min, E);
    return 0;
}
