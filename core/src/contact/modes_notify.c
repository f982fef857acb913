/* Event-driven contact: telling the system that contacts opened or closed
 * (system.h on_contact_modes, ABI 2.2) and the velocity resets it may
 * answer with (modes.h nsd_modes_resolve_notify).
 *
 * Why: a system whose model has phases of its own that follow the
 * contact modes (the tumbleweed thesis's bouncing model of Ch. 2 and its
 * rolling/sliding model of Ch. 3, docs/tumbleweed.md reading F) needs to
 * see where the host ends an accumulation of impacts or lifts a contact
 * off, which it decides itself. A reset is applied like an impact's
 * velocity jump: the modes are chosen again for the new velocities (a
 * rolling sphere given backspin slips), the jump is logged, and its
 * energy change goes to the energy audit (run.c), since the system, not
 * a contact law, made it. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "modes_phase.h"

/* Rounds of reset and resolution at one instant before the run fails. */
#define NSD_MAX_RESET_ROUNDS 4

static nsdyn_system_on_contact_modes_fn hook_of(const nsdyn_system *s) {
    size_t has = offsetof(nsdyn_system, on_contact_modes) + sizeof s->on_contact_modes;
    return s->info.struct_size >= has ? s->on_contact_modes : NULL;
}

/* Contact c's mode md as the ABI names it. */
static int abi_mode(const nsd_model *m, const nsd_contact_mode *md, size_t c) {
    if (is_unilateral(m, c) && !md->closed) return NSDYN_CMODE_OPEN;
    if (!m->friction || md->stick < 0) return NSDYN_CMODE_CLOSED;
    return md->stick ? NSDYN_CMODE_STICK : NSDYN_CMODE_SLIP;
}

/* The system's energy output at (t, y) [J], NaN without one. */
static double energy_now(const nsd_model *m, nsd_data *data, double t, const double *y) {
    if (m->audit.output < 0 || !data->audit_scratch) return NAN;
    if (m->sys->outputs(data->sys_inst, t, y, y + m->nq, data->lambda, data->audit_scratch) >
        NSDYN_WARNING)
        return NAN;
    return data->audit_scratch[m->audit.output];
}

/* Old and new modes into the work buffers; the first unilateral contact
 * whose open/closed status changed (all do at the start), or nc. */
static size_t fill_modes(const nsd_model *m, nsd_data *data, int initial) {
    nsd_modes_work *w = data->ed.work;
    size_t first = m->nc;
    for (size_t c = 0; c < m->nc; ++c) {
        w->cm_old[c] = initial ? NSDYN_CMODE_UNKNOWN : abi_mode(m, &w->prev[c], c);
        w->cm_new[c] = abi_mode(m, &data->ed.mode[c], c);
        int changed =
            initial || (w->cm_old[c] == NSDYN_CMODE_OPEN) != (w->cm_new[c] == NSDYN_CMODE_OPEN);
        if (first == m->nc && is_unilateral(m, c) && changed) first = c;
    }
    return first;
}

/* One call of the system's callback. Returns 1 if it changed the
 * velocities (logged, tallied), 0 if not, -1 on failure. */
static int call_system(const nsd_model *m, nsd_data *data, nsdyn_system_on_contact_modes_fn hook,
                       double t, double *y, size_t first, nsd_event_log *log,
                       nsd_reset_tally *tally) {
    nsd_modes_work *w = data->ed.work;
    double *v = y + m->nq;
    if (nsd_modes_eval_contacts(m, data, t, y, 0) > NSDYN_WARNING) return -1;
    double u_before[3];
    memcpy(u_before, data->ce[first].u, sizeof u_before);
    double e_before = energy_now(m, data, t, y);
    memcpy(w->v_hook, v, m->nv * sizeof *v);
    nsdyn_status st = hook(data->sys_inst, t, m->nc, w->cm_old, w->cm_new, y, v);
    if (st > NSDYN_WARNING) {
        snprintf(data->failure, sizeof data->failure,
                 "system '%s' on_contact_modes() failed at t = %.9g s (%s)", m->sys->info.id, t,
                 nsdyn_status_name(st));
        return -1;
    }
    if (memcmp(w->v_hook, v, m->nv * sizeof *v) == 0) return 0;
    for (size_t i = 0; i < m->nv; ++i)
        if (!isfinite(v[i])) {
            snprintf(data->failure, sizeof data->failure,
                     "system '%s' on_contact_modes() made velocity %zu non-finite at t = %.9g s",
                     m->sys->info.id, i, t);
            return -1;
        }
    double change = energy_now(m, data, t, y) - e_before;
    tally->n++;
    if (isfinite(change)) {
        tally->change += change;
        tally->gain += fmax(change, 0.0);
    }
    if (nsd_modes_eval_contacts(m, data, t, y, 0) > NSDYN_WARNING) return -1;
    nsd_event_record *r = nsd_modes_log_add(log, t, first, NSD_EVENT_SYSTEM_RESET);
    if (r) {
        memcpy(r->u_before, u_before, sizeof r->u_before);
        memcpy(r->u_after, data->ce[first].u, sizeof r->u_after);
    }
    return 1;
}

nsdyn_status nsd_modes_resolve_notify(const nsd_model *m, nsd_data *data, double t, double *y,
                                      nsd_event_log *log, int fired, int initial,
                                      nsd_reset_tally *tally) {
    nsdyn_status st = nsd_modes_resolve(m, data, t, y, log, fired);
    nsdyn_system_on_contact_modes_fn hook = hook_of(m->sys);
    if (st > NSDYN_WARNING || !hook) return st;
    for (int round = 0;; ++round) {
        size_t first = fill_modes(m, data, initial && round == 0);
        if (first == m->nc) return NSDYN_OK;
        if (round == NSD_MAX_RESET_ROUNDS) {
            snprintf(data->failure, sizeof data->failure,
                     "system '%s' changed the velocities %d times at t = %.9g s and contacts "
                     "still open or close after each: its resets (on_contact_modes) do not settle",
                     m->sys->info.id, round, t);
            return NSDYN_ERROR;
        }
        int r = call_system(m, data, hook, t, y, first, log, tally);
        if (r < 0) return NSDYN_ERROR;
        if (r == 0) return NSDYN_OK;
        /* the new velocities' modes, as after an impact */
        st = nsd_modes_resolve(m, data, t, y, log, NSD_FIRED_KEEP);
        if (st > NSDYN_WARNING) return st;
    }
}
