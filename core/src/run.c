#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "interrupt.h"
#include "step_guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sample storage grows by doubling: recording happens at output times, not
 * inside right-hand sides, and is reserved up front for the expected rows. */
static double *append_row(nsd_series *s) {
    if (s->rows == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        double *d = realloc(s->data, s->cap * s->n_channels * sizeof *d);
        if (!d) abort();
        s->data = d;
    }
    return s->data + (s->rows++) * s->n_channels;
}

/* A state whose energy the audit can judge: no compliant contact
 * compressed (its spring holds energy the system's output does not count)
 * and no rigid contact penetrating beyond the tolerance (time-stepping's
 * O(h v) penetration lowers the potential energy the output reports). */
static int energy_judgeable(nsd_model *m, double t, const double *y) {
    for (size_t c = 0; c < m->nc; ++c) {
        m->ce[c].active = 1;
        m->ce[c].want_geometry = 0;
        m->ce[c].W = NULL;
    }
    if (m->nc && m->sys->contacts(m->sys_inst, t, y, y + m->nq, m->ce) > NSDYN_WARNING) return 0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &m->ce[c];
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL || !e->active) continue;
        if (m->contact_compliant ? e->gap <= 0.0 : e->gap < -m->contact_tolerance) return 0;
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
static int energy_audit(nsd_model *m, nsd_run_result *res, double t, const double *y) {
    if (m->energy_output < 0 || m->energy_audit == NSD_AUDIT_OFF || !energy_judgeable(m, t, y))
        return 0;
    if (m->sys->outputs(m->sys_inst, t, y, y + m->nq, m->lambda, m->audit_outputs) > NSDYN_WARNING)
        return 0;
    double E = m->audit_outputs[m->energy_output];
    if (!res->energy_checked) res->energy_min = E;
    res->energy_checked++;
    res->energy_scale = fmax(fmax(res->energy_scale, fabs(E)), 1e-9);
    double allowed = res->energy_min + m->energy_tolerance * res->energy_scale;
    if (E > allowed) {
        res->energy_rises++;
        if (E - res->energy_min > res->energy_worst) res->energy_worst = E - res->energy_min;
        snprintf(res->message, sizeof res->message,
                 "energy audit: the mechanical energy rose to %.9g J at t = %.9g s, above the "
                 "lowest %.9g J reached before (by %.3g J, allowed %.3g J): the system is "
                 "conservative and the contact and friction laws dissipate, so the numerical "
                 "solution is wrong (a step too large, a tolerance too loose)",
                 E, t, res->energy_min, E - res->energy_min, allowed - res->energy_min);
        if (m->energy_audit == NSD_AUDIT_ERROR) return -1;
        res->message[0] = '\0';
    }
    res->energy_min = fmin(res->energy_min, E);
    return 0;
}

static int record(nsd_model *m, nsd_run_result *res, double t, const double *y) {
    double *row = append_row(&res->series);
    nsdyn_status st = nsd_model_sample(m, t, y, row);
    if (st > NSDYN_WARNING) {
        res->series.rows--;
        snprintf(res->message, sizeof res->message, "%s", m->failure);
        return -1;
    }
    return 0;
}

static void describe_state(const nsd_model *m, const double *y, char *buf, size_t len) {
    size_t used = 0;
    for (size_t i = 0; i < m->n && used + 40 < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%s = %.6g %s", i ? ", " : "",
                                 m->channels[1 + i].name, y[i], m->channels[1 + i].unit);
}

static int all_finite(const double *y, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(y[i])) return 0;
    return 1;
}

/* Sustained contacts drifted out of half the touching band at the end of
 * a step: positions projected back (modes.c), the integrator restarted
 * there; rep->y then points at the corrected copy in ybuf. 0 or -1. */
static int correct_drift(nsd_model *m, const nsdyn_integrator *ig, void *inst,
                         nsd_step_guard *guard, nsdyn_step_report *rep, double *ybuf,
                         nsd_run_result *res) {
    memcpy(ybuf, rep->y, m->n * sizeof *ybuf);
    int r = nsd_modes_correct_drift(m, rep->t, ybuf);
    if (r <= 0) return r;
    res->drift_corrections++;
    if (ig->restart(inst, rep->t, ybuf) > NSDYN_WARNING) {
        snprintf(m->failure, sizeof m->failure,
                 "the integrator could not restart after a drift correction: %s",
                 ig->message ? ig->message(inst) : "");
        return -1;
    }
    rep->y = ybuf;
    return nsd_step_guard_start(guard, m, rep->t, ybuf) > NSDYN_WARNING ? -1 : 0;
}

/* A stop condition that the jump of an event (an impact, a switch's reset)
 * crosses in its direction fires at the event: a rebound reverses the
 * forward speed inside an impact, where no integrator sees a crossing.
 * gb, ga: n_stops scratch. Returns the stop's index, or -1. */
static int stop_across_jump(nsd_model *m, double t, const double *before, const double *after,
                            double *gb, double *ga) {
    size_t ns = m->layout.n_stops;
    if (!ns || !m->sys->stops) return -1;
    if (m->sys->stops(m->sys_inst, t, before, before + m->nq, gb) > NSDYN_WARNING ||
        m->sys->stops(m->sys_inst, t, after, after + m->nq, ga) > NSDYN_WARNING)
        return -1;
    for (size_t i = 0; i < ns; ++i) {
        int dir = m->stop_direction[i];
        int down = gb[i] > 0 && ga[i] <= 0, up = gb[i] < 0 && ga[i] >= 0;
        if ((dir <= 0 && down) || (dir >= 0 && up)) return (int)i;
    }
    return -1;
}

size_t nsd_run_simulation(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host,
                          const char *label, nsd_run_result *res, nsd_diag *diag) {
    memset(res, 0, sizeof *res);
    const nsdyn_integrator *ig = (const nsdyn_integrator *)cfg->integrator.plugin->info;
    char err[512] = "";
    void *inst = ig->create(cfg->integrator.params.values, host, err, sizeof err);
    if (!inst) {
        nsd_diag_at(diag, cfg->integrator.table, "[integrator] (%s): %s", ig->info.id,
                    err[0] ? err : "the plugin refused these parameters");
        return 1;
    }
    const nsd_run_settings *rs = &cfg->settings;
    double t0 = rs->t_start, t_end = rs->t_end;
    double dt_out = rs->output_dt;
    if (!(dt_out > 0)) dt_out = (t_end - t0) / 2000.0;
    int dense = ig->dense != NULL && (ig->info.provides & NSDYN_CAP_DENSE_OUTPUT);
    int locates = (ig->info.provides & NSDYN_CAP_EVENT_LOCATION) != 0;
    int show_progress = rs->progress && isatty(STDERR_FILENO);

    nsdyn_ode ode;
    nsd_model_ode(m, &ode);
    nsdyn_mechanics mech;
    if (ig->info.provides & NSDYN_CAP_TIME_STEPPING) {
        nsd_model_mechanics(m, &mech);
        ode.mech = &mech;
    }
    /* An integrator that does not locate events gets none: the runner
     * checks the stop conditions at step ends itself (below). */
    nsdyn_ode ode_ig = ode;
    if (!locates) ode_ig.n_events = 0;
    res->series.n_channels = m->n_channels;
    /* the expected rows, up to a first block; append_row grows it */
    double rows = (t_end - t0) / dt_out + 4.0;
    res->series.cap = rows < 65536.0 ? (size_t)rows : 65536;
    res->series.data = malloc(res->series.cap * m->n_channels * sizeof(double));
    double *ybuf = malloc(m->n * sizeof *ybuf);
    double *g = calloc(ode.n_events ? ode.n_events : 1, sizeof *g);
    double *g_prev = calloc(ode.n_events ? ode.n_events : 1, sizeof *g_prev);
    double *g_jump = calloc(2 * (m->layout.n_stops + 1), sizeof *g_jump);
    if (!res->series.data || !ybuf || !g || !g_prev || !g_jump) abort();
    nsd_step_guard guard;
    nsd_step_guard_init(&guard, m);

    double wall0 = now_seconds(), last_progress = wall0;
    res->outcome = NSD_RUN_COMPLETE;
    size_t refused = 0; /* 1: the integrator refused this run (a config error) */
    char state[600];    /* describe_state output, bounded */
    /* The last accepted state: the integrator's own report, which stays
     * valid through a failed step (integrator.h), or our copy after a
     * switch restarted it. */
    double *y_switch = malloc(m->n * sizeof *y_switch);
    if (!y_switch) abort();
    const double *y_last = m->y0;
    double t = t0;

    /* Event-driven contact: the modes of the initial state (an initial
     * approach at zero gap is an impact at t0). */
    const double *y_start = m->y0;
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT);
    if (rigid &&
        nsd_model_check_initial_gaps(m, t0, m->y0, rs->contact_tolerance) > NSDYN_WARNING) {
        describe_state(m, m->y0, state, sizeof state);
        res->outcome = NSD_RUN_FAILED;
        snprintf(res->message, sizeof res->message,
                 "the run cannot start at t = %.9g s: %s; state: %s", t0, m->failure, state);
        goto done;
    }
    if (m->event_driven) {
        memcpy(y_switch, m->y0, m->n * sizeof *y_switch);
        if (nsd_modes_resolve(m, t0, y_switch, &res->contact_log, -1) > NSDYN_WARNING) {
            describe_state(m, m->y0, state, sizeof state);
            res->outcome = NSD_RUN_FAILED;
            snprintf(res->message, sizeof res->message,
                     "the initial contact modes could not be determined: %s; state: %s", m->failure,
                     state);
            goto done;
        }
        y_start = y_last = y_switch;
    }
    size_t max_events = rs->max_events, same_time = 0;
    double t_last_event = -INFINITY;

    nsdyn_status st = ig->setup(inst, &ode_ig, t0, y_start, t_end);
    if (st > NSDYN_WARNING) {
        /* setup() refused before any step (h against the run, the problem):
         * a config error at [integrator], like create()'s above; nothing ran. */
        const char *why = ig->message ? ig->message(inst) : NULL;
        size_t id_len = strlen(ig->info.id);
        if (!why) why = "";
        if (strncmp(why, ig->info.id, id_len) == 0 && why[id_len] == ':')
            why += id_len + (why[id_len + 1] == ' ' ? 2 : 1);
        nsd_diag_at(diag, cfg->integrator.table, "[integrator] (%s): %s", ig->info.id,
                    *why ? why : "the integrator refused to start this run");
        refused = 1;
        goto done;
    }
    if (record(m, res, t0, y_start) != 0 || energy_audit(m, res, t0, y_start) != 0) {
        res->outcome = NSD_RUN_FAILED;
        goto done;
    }
    if (ode.n_events) nsd_model_stops(m, t0, y_start, g_prev);
    if (m->event_driven && nsd_step_guard_start(&guard, m, t0, y_start) > NSDYN_WARNING) {
        res->outcome = NSD_RUN_FAILED;
        snprintf(res->message, sizeof res->message, "the simulation failed at t = %.9g s: %s", t0,
                 m->failure);
        goto done;
    }
    size_t k_out = 1;
    int stop_at_jump = -1;
    while (t < t_end) {
        if (nsd_interrupt_signal()) {
            describe_state(m, y_last, state, sizeof state);
            res->outcome = NSD_RUN_FAILED;
            snprintf(res->message, sizeof res->message,
                     "interrupted by signal %d at t = %.9g s; last state: %s",
                     nsd_interrupt_signal(), t, state);
            break;
        }
        nsdyn_step_report rep = {0};
        rep.event = -1;
        st = ig->step(inst, t_end, &rep);
        if (st > NSDYN_WARNING) {
            describe_state(m, y_last, state, sizeof state);
            res->outcome = NSD_RUN_FAILED;
            snprintf(res->message, sizeof res->message,
                     "the simulation failed at t = %.9g s: %s%s%s; last good state: %s", t,
                     ig->message ? ig->message(inst) : "integrator error",
                     m->failure[0] ? "; model: " : "", m->failure, state);
            break;
        }
        if (!all_finite(rep.y, m->n)) {
            describe_state(m, rep.y, state, sizeof state);
            res->outcome = NSD_RUN_FAILED;
            snprintf(res->message, sizeof res->message,
                     "the simulation failed at t = %.9g s: the state became NaN or infinite (%s)",
                     rep.t, state);
            break;
        }
        if (m->event_driven) {
            /* An impact inside the step comes first: the step ends there. */
            double t_hit = rep.t;
            size_t hit = 0;
            int gr = nsd_step_guard_check(&guard, m, ig, inst, rep.t, rep.y, &t_hit, &hit);
            if (gr < 0) {
                describe_state(m, rep.y, state, sizeof state);
                res->outcome = NSD_RUN_FAILED;
                snprintf(res->message, sizeof res->message,
                         "the simulation failed at t = %.9g s: %s; state: %s", rep.t, m->failure,
                         state);
                break;
            }
            if (gr == 1) {
                rep.t = t_hit;
                rep.y = guard.y;
                rep.event = (int)(m->n_model_events + 2 * hit);
            }
        }
        /* Time-stepping: the step's contact forces are its impulses / h. */
        m->step_impulse = rep.contact_impulse;
        m->step_h = rep.h;
        /* Samples on the output grid inside this step: interpolated with
         * dense output, else the step end stands for the grid points it
         * passed (fixed-step integrators: choose output_dt = k h). */
        double tol = 1e-9 * dt_out;
        if (dense) {
            for (double ts = t0 + (double)k_out * dt_out; ts <= rep.t + tol && ts <= t_end + tol;
                 ts = t0 + (double)(++k_out) * dt_out) {
                const double *ys = rep.y;
                if (ts < rep.t - tol) {
                    if (ig->dense(inst, ts, ybuf) > NSDYN_WARNING) break;
                    ys = ybuf;
                }
                if (record(m, res, ts < rep.t ? ts : rep.t, ys) != 0) {
                    res->outcome = NSD_RUN_FAILED;
                    break;
                }
            }
        } else if (t0 + (double)k_out * dt_out <= rep.t + tol) {
            if (record(m, res, rep.t, rep.y) != 0) res->outcome = NSD_RUN_FAILED;
            while (t0 + (double)k_out * dt_out <= rep.t + tol) k_out++;
        }
        if (res->outcome == NSD_RUN_FAILED) break;
        t = rep.t;
        y_last = rep.y;
        int fired = rep.event;
        /* after the step's samples: a restart ends its dense output */
        if (m->event_driven && fired < 0 &&
            correct_drift(m, ig, inst, &guard, &rep, y_switch, res) != 0) {
            describe_state(m, rep.y, state, sizeof state);
            res->outcome = NSD_RUN_FAILED;
            snprintf(res->message, sizeof res->message,
                     "the simulation failed at t = %.9g s: %s; state: %s", t, m->failure, state);
            break;
        }
        y_last = rep.y;
        if (energy_audit(m, res, t, rep.y) != 0) {
            res->outcome = NSD_RUN_FAILED;
            break;
        }
        if (fired < 0 && !locates && ode.n_events) {
            /* Without event location a crossing is seen at the end of the
             * step where it happened. */
            if (nsd_model_stops(m, t, rep.y, g) <= NSDYN_WARNING)
                for (size_t i = 0; i < ode.n_events && fired < 0; ++i) {
                    int dir = ode.event_direction[i];
                    int down = g_prev[i] > 0 && g[i] <= 0, up = g_prev[i] < 0 && g[i] >= 0;
                    if ((dir <= 0 && down) || (dir >= 0 && up)) fired = (int)i;
                }
            memcpy(g_prev, g, ode.n_events * sizeof *g);
        }
        if (fired >= (int)m->n_model_events) {
            /* A contact event: impact, accumulation rule, new modes. Many
             * events at one instant mean the modes do not settle. */
            same_time = t - t_last_event <= 1e-12 * (1.0 + fabs(t)) ? same_time + 1 : 0;
            t_last_event = t;
            memcpy(ybuf, rep.y, m->n * sizeof *ybuf);
            size_t logged = res->contact_log.n;
            res->root_returns++;
            nsdyn_status rs =
                nsd_modes_resolve(m, t, ybuf, &res->contact_log, fired - (int)m->n_model_events);
            if (res->contact_log.n == logged) res->unlogged_roots++;
            const char *why = rs > NSDYN_WARNING ? m->failure : NULL;
            if (!why) { /* a contact the impact left out of place */
                int dc = nsd_modes_correct_drift(m, t, ybuf);
                if (dc < 0)
                    why = m->failure;
                else
                    res->drift_corrections += (uint64_t)dc;
            }
            if (!why)
                stop_at_jump =
                    stop_across_jump(m, t, rep.y, ybuf, g_jump, g_jump + m->layout.n_stops + 1);
            if (!why && same_time > 100)
                why = "more than 100 contact events at the same instant: the contact modes chatter "
                      "(an accumulation the rest_velocity rule does not catch)";
            if (!why && res->contact_log.n > max_events)
                why = "run.max_events contact events reached";
            if (!why && stop_at_jump < 0) rs = ig->restart(inst, t, ybuf);
            if (!why && rs > NSDYN_WARNING)
                why = ig->message ? ig->message(inst) : "the integrator could not restart";
            if (!why && stop_at_jump < 0 &&
                nsd_step_guard_start(&guard, m, t, ybuf) > NSDYN_WARNING)
                why = m->failure;
            if (why) {
                describe_state(m, rep.y, state, sizeof state);
                res->outcome = NSD_RUN_FAILED;
                snprintf(res->message, sizeof res->message,
                         "the simulation failed at t = %.9g s: %s; state: %s", t, why, state);
                break;
            }
            memcpy(y_switch, ybuf, m->n * sizeof *ybuf);
            y_last = y_switch;
            if (stop_at_jump >= 0) {
                fired = stop_at_jump;
                rep.y = y_switch;
            } else
                continue;
        }
        if (fired >= 0) {
            res->event_times = realloc(res->event_times, (res->n_events + 1) * sizeof(double));
            if (!res->event_times) abort();
            res->event_times[res->n_events++] = t;
        }
        if (fired >= (int)m->layout.n_stops) {
            /* A mode switch of the system: update its mode (and maybe the
             * state), then restart the integrator from there. */
            memcpy(ybuf, rep.y, m->n * sizeof *ybuf);
            size_t which = (size_t)fired - m->layout.n_stops;
            res->root_returns++;
            res->n_switches++;
            nsdyn_status sw = m->sys->on_switch(m->sys_inst, which, t, ybuf, ybuf + m->nq);
            if (sw <= NSDYN_WARNING && m->event_driven)
                sw = nsd_modes_resolve(m, t, ybuf, &res->contact_log, -1);
            if (sw <= NSDYN_WARNING)
                stop_at_jump =
                    stop_across_jump(m, t, rep.y, ybuf, g_jump, g_jump + m->layout.n_stops + 1);
            if (sw <= NSDYN_WARNING && stop_at_jump < 0) sw = ig->restart(inst, t, ybuf);
            if (sw <= NSDYN_WARNING && stop_at_jump < 0 && m->event_driven)
                sw = nsd_step_guard_start(&guard, m, t, ybuf);
            if (sw > NSDYN_WARNING) {
                describe_state(m, rep.y, state, sizeof state);
                res->outcome = NSD_RUN_FAILED;
                snprintf(res->message, sizeof res->message,
                         "the simulation failed at t = %.9g s: switch '%s' could not be applied "
                         "(%s); state: %s",
                         t, m->layout.switches[which], ig->message ? ig->message(inst) : "", state);
                break;
            }
            memcpy(y_switch, ybuf, m->n * sizeof *ybuf);
            y_last = y_switch;
            if (stop_at_jump < 0) {
                if (!locates) nsd_model_stops(m, t, ybuf, g_prev);
                continue;
            }
            fired = stop_at_jump;
            rep.y = y_switch;
        }
        if (fired >= 0) {
            if (stop_at_jump < 0) res->root_returns++;
            res->n_stops++;
            const double *last = res->series.rows ? res->series.data + (res->series.rows - 1) *
                                                                           res->series.n_channels
                                                  : NULL;
            if ((!last || last[0] < t) && record(m, res, t, rep.y) != 0) {
                res->outcome = NSD_RUN_FAILED;
                break;
            }
            describe_state(m, rep.y, state, sizeof state);
            res->outcome = NSD_RUN_STOPPED;
            snprintf(res->message, sizeof res->message,
                     "stop condition '%s' of system '%s' reached at t = %.9g s%s: %s",
                     m->layout.stops[fired], m->sys->info.id, t,
                     stop_at_jump >= 0 ? " (crossed by the jump of an event)"
                     : locates         ? ""
                                       : " (end of the step where it fired)",
                     state);
            break;
        }
        if (show_progress) {
            double w = now_seconds();
            if (w - last_progress > 0.25) {
                fprintf(stderr, "\r%s t = %.4g / %.4g s (%3.0f%%)   ", label ? label : "", t, t_end,
                        100.0 * (t - t0) / (t_end - t0));
                last_progress = w;
            }
        }
    }
    if (res->outcome == NSD_RUN_COMPLETE && res->series.rows &&
        res->series.data[(res->series.rows - 1) * res->series.n_channels] < t_end - 1e-9 * dt_out &&
        record(m, res, t, y_last) != 0)
        res->outcome = NSD_RUN_FAILED;
done:
    m->step_impulse = NULL; /* the integrator's, about to be destroyed */
    if (show_progress) fprintf(stderr, "\r%70s\r", "");
    res->t_reached = t;
    res->wall_seconds = now_seconds() - wall0;
    res->stats.struct_size = sizeof res->stats;
    if (ig->stats) ig->stats(inst, &res->stats);
    ig->destroy(inst);
    free(ybuf);
    free(g);
    free(g_prev);
    free(g_jump);
    free(y_switch);
    nsd_step_guard_free(&guard);
    return refused;
}

void nsd_run_count_events(const nsd_run_result *res, nsd_event_counts *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < res->contact_log.n; ++i) {
        nsd_event_kind k = res->contact_log.rec[i].kind;
        if (k < NSD_EVENT_KIND_COUNT) out->contact[k]++;
    }
    out->switches = res->n_switches;
    out->stops = res->n_stops;
    out->total = res->contact_log.n + out->switches + out->stops;
}

void nsd_run_result_free(nsd_run_result *res) {
    free(res->series.data);
    free(res->event_times);
    nsd_event_log_free(&res->contact_log);
    memset(res, 0, sizeof *res);
}
