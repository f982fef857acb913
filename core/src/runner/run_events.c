/* The events of a run by kind (contact, switch, stop, rate, section) and
 * the one way on after every jump (jump_restart): what the run loop
 * (run.c) calls when a step ends at an event. */
#define _POSIX_C_SOURCE 200809L
#include "run_internal.h"

#include "interrupt.h"
#include "rate_hold.h"
#include "run_audit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void describe_state(const nsd_model *m, const double *y, char *buf, size_t len) {
    size_t used = 0;
    for (size_t i = 0; i < m->n && used + 40 < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%s = %.6g %s", i ? ", " : "",
                                 m->channels[1 + i].name, y[i], m->channels[1 + i].unit);
}

/* A drift correction lifted an open contact out (run.h open_projections). */
static void note_open_projection(nsd_run_result *res, double deep) {
    if (!(deep < 0.0)) return;
    res->open_projections++;
    res->deepest_open = fmin(res->deepest_open, deep);
}

/* The run failed: res->message from fmt, the outcome FAILED. Returns
 * NSD_END. Callers put r->state (describe) into the message. */
__attribute__((format(printf, 2, 3))) nsd_flow nsd_runner_failed(nsd_runner *r, const char *fmt,
                                                                 ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->message, sizeof r->res->message, fmt, ap);
    va_end(ap);
    r->res->outcome = NSD_RUN_FAILED;
    return NSD_END;
}

const char *nsd_runner_describe(nsd_runner *r, const double *y) {
    describe_state(r->m, y, r->state, sizeof r->state);
    return r->state;
}

/* The model's observer (model.h) after a jump to r->y_switch: NSD_END with
 * the run failed on its refusal, else NSD_GO_ON. */
static nsd_flow observe_jump(nsd_runner *r, const nsd_event_source *src) {
    const nsd_run_observer *o = r->d->observer;
    if (!o || o->jump_after(o->ctx, src, r->t, r->y_switch) == 0) return NSD_GO_ON;
    return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", r->t,
                             o->message(o->ctx));
}

/* The one way on after a jump of the state at t, whatever made it (an
 * impact with the new contact modes, a switch's reset map, a force that
 * jumps at gap_rate = 0, a drift projection): the integrator restarts from
 * y, so no step straddles the jump, and under the event-driven regime the
 * step guard starts there with it. NSD_JUMP_NO_RESTART: the integrator
 * refused (its message()); NSD_JUMP_NO_GUARD: r->d->failure says why. */
static nsd_jump jump_restart(nsd_runner *r, double t, const double *y) {
    if (nsd_rate_hold_restart(r->m, r->d, t, y) > NSDYN_WARNING) return NSD_JUMP_NO_GUARD;
    if (nsd_ig_restart(&r->igc, t, y) > NSDYN_WARNING) return NSD_JUMP_NO_RESTART;
    if (r->m->regime->kind == NSD_REGIME_EVENT_DRIVEN &&
        nsd_step_guard_start(&r->guard, r->m, r->d, t, y) > NSDYN_WARNING)
        return NSD_JUMP_NO_GUARD;
    return NSD_JUMP_ON;
}

/* Sustained contacts drifted out of half the touching band at the end of
 * a step: positions projected back (modes.c) into r->y_switch, then the
 * jump's restart there; rep->y then points at the corrected copy. 0 or
 * -1 (r->d->failure). */
int nsd_runner_correct_drift(nsd_runner *r, nsdyn_step_report *rep) {
    const nsd_model *m = r->m;
    double *ybuf = r->y_switch, deep;
    memcpy(ybuf, rep->y, m->n * sizeof *ybuf);
    int c = nsd_modes_correct_drift(m, r->d, rep->t, ybuf, &deep);
    if (c < 0) return c;
    if (c > 0) {
        r->res->drift_corrections++;
        note_open_projection(r->res, deep);
    }
    /* a slip stalled below rest_velocity without its event: the modes
     * chosen again there (modes.h nsd_modes_slip_stalled) */
    int s = nsd_modes_slip_stalled(m, r->d, rep->t, ybuf);
    if (s > 0 && nsd_runner_resolve_modes(r, rep->t, ybuf, -1, 0) > NSDYN_WARNING) s = -1;
    if (s < 0) return -1;
    if (c == 0 && s == 0) return 0;
    nsd_jump j = jump_restart(r, rep->t, ybuf);
    if (j == NSD_JUMP_NO_RESTART) {
        snprintf(r->d->failure, sizeof r->d->failure,
                 "the integrator could not restart after a drift correction: %s",
                 nsd_ig_message(&r->igc));
        return -1;
    }
    rep->y = ybuf;
    return j == NSD_JUMP_ON ? 0 : -1;
}

/* A stop condition that the jump of an event (an impact, a switch's reset)
 * crosses in its direction fires at the event: a rebound reverses the
 * forward speed inside an impact, where no integrator sees a crossing.
 * Returns that stop's event source, or NULL. */
static const nsd_event_source *stop_across_jump(nsd_runner *r, const double *before,
                                                const double *after) {
    const nsd_model *m = r->m;
    size_t ns = m->layout.n_stops;
    double *gb = r->g_jump, *ga = r->g_jump + ns + 1;
    if (!ns || !m->sys->stops) return NULL;
    if (m->sys->stops(r->d->sys_inst, r->t, before, before + m->nq, gb) > NSDYN_WARNING ||
        m->sys->stops(r->d->sys_inst, r->t, after, after + m->nq, ga) > NSDYN_WARNING)
        return NULL;
    for (size_t e = 0; e < m->n_events; ++e) {
        const nsd_event_source *src = &m->event_sources[e];
        if (src->kind != NSD_SOURCE_STOP) continue;
        size_t i = src->index;
        int down = gb[i] > 0 && ga[i] <= 0, up = gb[i] < 0 && ga[i] >= 0;
        if ((src->direction <= 0 && down) || (src->direction >= 0 && up)) return src;
    }
    return NULL;
}

/* The contact modes at an event (or the start: initial), with the system
 * told of contacts that opened or closed (modes.h
 * nsd_modes_resolve_notify). A reset the system makes there is its own
 * energy input, not the contact laws': the audit's floor rises by what it
 * added, so the audit still judges everything else. */
nsdyn_status nsd_runner_resolve_modes(nsd_runner *r, double t, double *y, int fired, int initial) {
    nsd_reset_tally tally = {0};
    nsdyn_status st =
        nsd_modes_resolve_notify(r->m, r->d, t, y, &r->res->contact_log, fired, initial, &tally);
    r->res->reset_energy += tally.change;
    if (r->res->energy_checked) r->res->energy_min += tally.gain;
    return st;
}

/* Without event location a crossing is seen at the end of the step where
 * it happened. Returns the event source that fired there, or NULL. */
const nsd_event_source *nsd_runner_check_crossings(nsd_runner *r, const double *y) {
    const nsd_event_source *fired = NULL;
    if (nsd_model_event_functions(r->m, r->d, r->t, y, r->g) <= NSDYN_WARNING)
        for (size_t i = 0; i < r->ode.n_events && !fired; ++i) {
            int dir = r->ode.event_direction[i];
            int down = r->g_prev[i] > 0 && r->g[i] <= 0, up = r->g_prev[i] < 0 && r->g[i] >= 0;
            if ((dir <= 0 && down) || (dir >= 0 && up)) fired = &r->m->event_sources[i];
        }
    double *seen = r->g; /* the values just computed become the previous ones: no copy */
    r->g = r->g_prev;
    r->g_prev = seen;
    return fired;
}

/* The time of a located switch or stop (res->event_times). 0, or -1 out
 * of memory. */
static int note_event_time(nsd_runner *r) {
    double *times = realloc(r->res->event_times, (r->res->n_events + 1) * sizeof *times);
    if (!times) return -1;
    r->res->event_times = times;
    r->res->event_times[r->res->n_events++] = r->t;
    return 0;
}

/* Does source e's function cross from ga to gb in its direction? */
static int crosses(const nsd_event_source *src, double ga, double gb) {
    int down = ga > 0 && gb <= 0, up = ga < 0 && gb >= 0;
    return (src->direction <= 0 && down) || (src->direction >= 0 && up);
}

/* Events at one instant. The integrator reports one event per step, the
 * earliest; another whose root lies within its location tolerance has
 * crossed too at that state, and after the restart there its function
 * starts on the far side: it never fires. A contact event then lost the
 * system's switch that the contact geometry depends on (sphere_planes at a
 * straight vertex: the handover and the old owner's lift-off coincide;
 * resolved with the stale owner, two segments carried one contact point,
 * and the sphere rolled 3x faster, docs/event-driven.md). So each switch
 * but `except` whose function crossed in its direction between the step's
 * start (r->y_from) and the event state y is applied to y first. */
static nsdyn_status simultaneous_switches(nsd_runner *r, double *y, size_t except) {
    const nsd_model *m = r->m;
    size_t ns = m->layout.n_switches;
    if (!ns || !m->sys->switches || !m->sys->on_switch) return NSDYN_OK;
    nsdyn_status st = nsd_model_switch_functions(m, r->d, r->t_from, r->y_from, r->sw_from);
    if (st <= NSDYN_WARNING) st = nsd_model_switch_functions(m, r->d, r->t, y, r->sw_at);
    for (size_t j = 0; j < ns && st <= NSDYN_WARNING; ++j) {
        const nsd_event_source *src = &m->event_sources[m->event_first[NSD_SOURCE_SWITCH] + j];
        if (j == except || !crosses(src, r->sw_from[j], r->sw_at[j])) continue;
        st = m->sys->on_switch(r->d->sys_inst, j, r->t, y, y + m->nq);
        if (st > NSDYN_WARNING)
            snprintf(r->d->failure, sizeof r->d->failure,
                     "switch '%s' (simultaneous) could not be applied", m->layout.switches[j]);
        r->res->n_switches += st <= NSDYN_WARNING;
        if (st <= NSDYN_WARNING && note_event_time(r) != 0) {
            snprintf(r->d->failure, sizeof r->d->failure, "out of memory for an event time");
            st = NSDYN_ERROR;
        }
    }
    return st;
}

/* A contact event (contact event function src->index): impact,
 * accumulation rule, new modes, then a restart, or a stop the jump
 * crossed (*stop). Many events at one instant mean the modes do not
 * settle. */
static nsd_flow contact_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *src,
                              const nsd_event_source **stop) {
    const nsd_model *m = r->m;
    nsd_run_result *res = r->res;
    double t = r->t;
    r->same_time = t - r->t_last_event <= 1e-12 * (1.0 + fabs(t)) ? r->same_time + 1 : 0;
    r->t_last_event = t;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    size_t logged = res->contact_log.n;
    res->root_returns++;
    nsdyn_status rs = simultaneous_switches(r, r->ybuf, SIZE_MAX);
    if (rs <= NSDYN_WARNING) rs = nsd_runner_resolve_modes(r, t, r->ybuf, (int)src->index, 0);
    if (res->contact_log.n == logged) res->unlogged_roots++;
    const char *why = rs > NSDYN_WARNING ? r->d->failure : NULL;
    if (!why) { /* a contact the impact left out of place */
        double deep;
        int dc = nsd_modes_correct_drift(m, r->d, t, r->ybuf, &deep);
        if (dc < 0)
            why = r->d->failure;
        else
            res->drift_corrections += (uint64_t)dc;
        if (dc > 0) note_open_projection(res, deep);
    }
    if (!why) *stop = stop_across_jump(r, rep->y, r->ybuf);
    if (!why && r->same_time > 100)
        why = "more than 100 contact events at the same instant: the contact modes chatter "
              "(an accumulation the rest_velocity rule does not catch)";
    if (!why && res->contact_log.n > r->max_events) why = "run.max_events contact events reached";
    nsd_jump j = !why && !*stop ? jump_restart(r, t, r->ybuf) : NSD_JUMP_ON;
    if (j == NSD_JUMP_NO_RESTART)
        why =
            *nsd_ig_message(&r->igc) ? nsd_ig_message(&r->igc) : "the integrator could not restart";
    else if (j == NSD_JUMP_NO_GUARD)
        why = r->d->failure;
    if (why)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", t, why,
                                 nsd_runner_describe(r, rep->y));
    memcpy(r->y_switch, r->ybuf, m->n * sizeof *r->ybuf);
    r->y_last = r->y_switch;
    if (observe_jump(r, src) == NSD_END) return NSD_END;
    if (!*stop) return NSD_NEXT_STEP;
    rep->y = r->y_switch;
    return NSD_GO_ON;
}

/* The analysis' Poincare section was crossed (model.h section_switch):
 * the state after the switch is the last sample (always recorded, even
 * where a grid sample of the state before it has the same time), the
 * outcome STOPPED. */
static nsd_flow section_stop(nsd_runner *r) {
    const nsd_model *m = r->m;
    if (nsd_run_record(m, r->d, r->res, r->t, r->y_switch) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    r->res->outcome = NSD_RUN_STOPPED;
    snprintf(r->res->message, sizeof r->res->message,
             "section: switch '%s' of system '%s' applied %zu time%s, at t = %.9g s",
             m->layout.switches[r->d->section_switch - 1], m->sys->info.id,
             r->res->section_crossings, r->res->section_crossings == 1 ? "" : "s", r->t);
    return NSD_END;
}

/* A mode switch of the system: update its mode (and maybe the state),
 * then restart the integrator from there, or a stop the jump crossed. */
static nsd_flow switch_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *src,
                             const nsd_event_source **stop) {
    const nsd_model *m = r->m;
    double t = r->t;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    r->res->root_returns++;
    r->res->n_switches++;
    nsdyn_status sw = simultaneous_switches(r, r->ybuf, src->index);
    if (sw <= NSDYN_WARNING)
        sw = m->sys->on_switch(r->d->sys_inst, src->index, t, r->ybuf, r->ybuf + m->nq);
    if (sw <= NSDYN_WARNING && m->ed.on) sw = nsd_runner_resolve_modes(r, t, r->ybuf, -1, 0);
    if (sw <= NSDYN_WARNING) *stop = stop_across_jump(r, rep->y, r->ybuf);
    if (sw <= NSDYN_WARNING && !*stop && jump_restart(r, t, r->ybuf) != NSD_JUMP_ON)
        sw = NSDYN_ERROR;
    if (sw > NSDYN_WARNING)
        return nsd_runner_failed(
            r,
            "the simulation failed at t = %.9g s: switch '%s' could not be applied "
            "(%s); state: %s",
            t, m->layout.switches[src->index], nsd_ig_message(&r->igc),
            nsd_runner_describe(r, rep->y));
    memcpy(r->y_switch, r->ybuf, m->n * sizeof *r->ybuf);
    r->y_last = r->y_switch;
    if (observe_jump(r, src) == NSD_END) return NSD_END;
    if (!*stop && r->d->section_switch == src->index + 1 &&
        ++r->res->section_crossings >= r->d->section_count)
        return section_stop(r);
    if (!*stop) {
        if (!r->locates) nsd_model_event_functions(m, r->d, t, r->ybuf, r->g_prev);
        return NSD_NEXT_STEP;
    }
    rep->y = r->y_switch;
    return NSD_GO_ON;
}

/* A stop condition of the system fired at (r->t, y): the last sample,
 * the outcome STOPPED. at_jump: crossed by the jump of an event. */
static nsd_flow stop_event(nsd_runner *r, const double *y, const nsd_event_source *src,
                           int at_jump) {
    const nsd_model *m = r->m;
    nsd_run_result *res = r->res;
    if (!at_jump) res->root_returns++;
    res->n_stops++;
    const nsd_series *s = &res->series;
    const double *last = s->rows ? s->data + (s->rows - 1) * s->n_channels : NULL;
    if ((!last || last[0] < r->t) && nsd_run_record(m, r->d, res, r->t, y) != 0) {
        res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    res->outcome = NSD_RUN_STOPPED;
    res->stop_index = (int)src->index;
    snprintf(res->message, sizeof res->message,
             "stop condition '%s' of system '%s' reached at t = %.9g s%s: %s",
             m->layout.stops[src->index], m->sys->info.id, r->t,
             at_jump      ? " (crossed by the jump of an event)"
             : r->locates ? ""
                          : " (end of the step where it fired)",
             nsd_runner_describe(r, y));
    return NSD_END;
}

/* The gap rate of a contact under a law with a rate discontinuity crossed
 * zero (events.h NSD_SOURCE_RATE): the force jumps here, so the integrator
 * restarts at (t, y) and no step straddles the jump. Nothing else changes,
 * and it is no contact event (not in events.csv or the root counts). */
static nsd_flow rate_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *src) {
    const nsd_model *m = r->m;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    /* the hold at gap_rate = 0 (rate_hold.h): entered where both sides
     * attract, left where its force reaches a bound of the law's band.
     * Only at a located crossing: a fixed-step integrator sees it at a
     * step's end, with a gap rate the hold would keep (the gap would
     * drift), and crosses the jump to first order as before */
    int hold =
        r->locates ? nsd_rate_hold_event(m, r->d, r->t, r->ybuf, r->ydot_rate, src->index) : 0;
    if (hold < 0)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: hold at gap_rate = 0: %s",
                                 r->t, r->d->failure);
    /* Set-valued friction on the contact (model.h ed.compliant): the stick
     * bound mu_s N jumps with N, so the friction modes are chosen again,
     * with the contact's normal force (modes.h NSD_FIRED_RATE) */
    if (m->ed.on &&
        nsd_runner_resolve_modes(r, r->t, r->ybuf, NSD_FIRED_RATE(src->index), 0) > NSDYN_WARNING)
        return nsd_runner_failed(r,
                                 "the simulation failed at t = %.9g s: modes at gap_rate = 0: %s",
                                 r->t, r->d->failure);
    r->res->rate_holds += hold != 2 && r->d->hold.held[src->index]; /* entered here */
    nsd_jump j = jump_restart(r, r->t, r->ybuf);
    if (j == NSD_JUMP_NO_RESTART)
        return nsd_runner_failed(
            r, "the simulation failed at t = %.9g s: restart at gap_rate = 0 (%s)", r->t,
            nsd_ig_message(&r->igc));
    memcpy(r->y_switch, r->ybuf, m->n * sizeof *r->ybuf);
    r->y_last = r->y_switch;
    if (observe_jump(r, src) == NSD_END) return NSD_END;
    r->res->rate_restarts++;
    if (j == NSD_JUMP_NO_GUARD)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", r->t, r->d->failure);
    if (!r->locates) nsd_model_event_functions(m, r->d, r->t, r->ybuf, r->g_prev);
    return NSD_NEXT_STEP;
}

/* The events of the step that ended at rep, dispatched by their source. */
nsd_flow nsd_runner_handle_event(nsd_runner *r, nsdyn_step_report *rep,
                                 const nsd_event_source *fired) {
    const nsd_event_source *stop = NULL;
    nsd_flow f = NSD_GO_ON;
    const nsd_run_observer *o = r->d->observer;
    if (o && fired->kind != NSD_SOURCE_STOP && o->jump_before(o->ctx, fired, r->t, rep->y) != 0)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", r->t,
                                 o->message(o->ctx));
    if (fired->kind == NSD_SOURCE_RATE) return rate_event(r, rep, fired);
    if (fired->kind == NSD_SOURCE_CONTACT) {
        f = contact_event(r, rep, fired, &stop);
        if (f != NSD_GO_ON) return f;
        fired = stop;
    }
    if (note_event_time(r) != 0)
        return nsd_runner_failed(r, "out of memory for event %zu at t = %.9g s",
                                 r->res->n_events + 1, r->t);
    if (fired->kind == NSD_SOURCE_SWITCH) {
        f = switch_event(r, rep, fired, &stop);
        if (f != NSD_GO_ON) return f;
        fired = stop;
    }
    return stop_event(r, rep->y, fired, stop != NULL);
}

/* A system switch or stop that the guard's cut of the step at rep->t
 * uncovers. The integrator compares event signs at the ends of its own
 * step only, and past the impact the guard found, the uncut step runs on
 * through the ground: a switch function can rise through zero before the
 * impact and fall back after it (a bouncing sphere's centre crossing a
 * valley corner's bisector, docs/tumbleweed.md), so the integrator saw
 * no crossing and the switch was lost. On [r->t, rep->t] the crossing is
 * real; the first one is located by bisection on the dense output (to
 * 1e-12 (1 + |t|) s, at its post-crossing end, as the guard locates
 * impacts) and the step ends there instead: no impact comes before it,
 * since the guard checked the whole stretch. Uses r->g, r->g_prev (the
 * crossing checks of integrators that do not locate) and r->ybuf as
 * scratch; the state goes to r->guard.y (rep->y). Returns the source, or
 * NULL. */
const nsd_event_source *nsd_runner_uncovered_crossing(nsd_runner *r, nsdyn_step_report *rep) {
    const nsd_model *m = r->m;
    double *ga = r->g, *gb = r->g_prev;
    if (!r->locates || !r->dense || !r->ode.n_events ||
        nsd_model_event_functions(m, r->d, r->t, r->y_last, ga) > NSDYN_WARNING ||
        nsd_model_event_functions(m, r->d, rep->t, rep->y, gb) > NSDYN_WARNING)
        return NULL;
    const nsd_event_source *first = NULL;
    double t_first = rep->t;
    for (size_t e = 0; e < m->n_events; ++e) {
        const nsd_event_source *src = &m->event_sources[e];
        if ((src->kind != NSD_SOURCE_SWITCH && src->kind != NSD_SOURCE_STOP) ||
            !crosses(src, ga[e], gb[e]))
            continue;
        double lo = r->t, hi = rep->t, g_lo = ga[e];
        while (hi - lo > 1e-12 * (1.0 + fabs(hi))) {
            double mid = 0.5 * (lo + hi);
            if (nsd_ig_dense(&r->igc, mid, r->ybuf) > NSDYN_WARNING ||
                nsd_model_event_functions(m, r->d, mid, r->ybuf, gb) > NSDYN_WARNING)
                return NULL;
            if (crosses(src, g_lo, gb[e])) {
                hi = mid;
            } else {
                lo = mid;
                g_lo = gb[e];
            }
        }
        if (hi < t_first) {
            t_first = hi;
            first = src;
        }
    }
    if (!first || nsd_ig_dense(&r->igc, t_first, r->guard.y) > NSDYN_WARNING) return NULL;
    rep->t = t_first;
    rep->y = r->guard.y;
    return first;
}
