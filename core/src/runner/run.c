#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "interrupt.h"
#include "run_audit.h"
#include "run_watch.h"
#include "step_guard.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
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
 * inside right-hand sides, and is reserved up front for the expected rows.
 * NULL when the memory is not there (the series keeps its rows). */
static double *append_row(nsd_series *s) {
    if (s->rows == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        double *d = realloc(s->data, cap * s->n_channels * sizeof *d);
        if (!d) return NULL;
        s->data = d;
        s->cap = cap;
    }
    return s->data + (s->rows++) * s->n_channels;
}

static int record(nsd_model *m, nsd_run_result *res, double t, const double *y) {
    nsd_run_watch_lock(); /* a watching thread reads the series (run_watch.h) */
    double *row = append_row(&res->series);
    nsd_run_watch_unlock();
    if (!row) {
        snprintf(res->message, sizeof res->message,
                 "out of memory for sample %zu at t = %.9g s (%zu channels)", res->series.rows + 1,
                 t, res->series.n_channels);
        return -1;
    }
    if (res->series.states_only) { /* t and the states: no forces, no outputs */
        row[0] = t;
        memcpy(row + 1, y, m->n * sizeof *y);
        for (size_t i = 1 + m->n; i < res->series.n_channels; ++i) row[i] = NAN;
        return 0;
    }
    nsdyn_status st = nsd_model_sample(m, t, y, row);
    if (st > NSDYN_WARNING) {
        res->series.rows--;
        snprintf(res->message, sizeof res->message, "%s", m->failure);
        return -1;
    }
    nsd_run_watch_publish(res);
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

/* A drift correction lifted an open contact out (run.h open_projections). */
static void note_open_projection(nsd_run_result *res, double deep) {
    if (!(deep < 0.0)) return;
    res->open_projections++;
    res->deepest_open = fmin(res->deepest_open, deep);
}

/* One run in progress (run.h nsd_run): the integrator, the buffers, and
 * the run's place on the output grid. */
typedef struct nsd_run nsd_runner;
struct nsd_run {
    nsd_model *m;
    const nsdyn_integrator *ig;
    void *inst;
    nsd_run_result *res;
    nsdyn_ode ode;            /* the model's problem; ode.n_events: every event */
    nsdyn_ode ode_ig;         /* what the integrator gets (no events unless it locates) */
    nsdyn_mechanics mech;     /* time-stepping view */
    double t0, t_end, dt_out; /* [s] */
    int dense, locates, show_progress;
    const char *label;
    size_t k_out; /* next output grid point: t0 + k_out dt_out */
    size_t max_events, same_time;
    double t_last_event;         /* [s] last contact event */
    double wall0, last_progress; /* [s] wall clock */
    double t;                    /* [s] last accepted time */
    /* The last accepted state: the integrator's own report, which stays
     * valid through a failed step (integrator.h), or y_switch after an
     * event restarted it. */
    const double *y_last;
    double *ybuf, *y_switch; /* n */
    /* The state the current step started from (a copy: the integrator
     * overwrites its own) and the switch functions there and at an event
     * (layout.n_switches each): simultaneous_switches() */
    double t_from, *y_from, *sw_from, *sw_at;
    double *g, *g_prev; /* n_events: crossings seen at step ends */
    double *g_jump;     /* 2 (n_stops + 1): stops across a jump */
    nsd_step_guard guard;
    int guard_ready;
    char state[600]; /* describe_state output, bounded */
    int started;     /* runner_start let the run go on (else the run ended or never began) */
    int going;       /* steps may follow: started, not ended, t < t_end */
};

/* What the loop does after one part of a step. */
typedef enum { NSD_GO_ON = 0, NSD_NEXT_STEP, NSD_END } nsd_flow;

/* The run failed: res->message from fmt, the outcome FAILED. Returns
 * NSD_END. Callers put r->state (describe) into the message. */
__attribute__((format(printf, 2, 3))) static nsd_flow run_failed(nsd_runner *r, const char *fmt,
                                                                 ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->message, sizeof r->res->message, fmt, ap);
    va_end(ap);
    r->res->outcome = NSD_RUN_FAILED;
    return NSD_END;
}

static const char *describe(nsd_runner *r, const double *y) {
    describe_state(r->m, y, r->state, sizeof r->state);
    return r->state;
}

/* The model's observer (model.h) after a jump to r->y_switch: NSD_END with
 * the run failed on its refusal, else NSD_GO_ON. */
static nsd_flow observe_jump(nsd_runner *r, const nsd_event_source *src) {
    const nsd_run_observer *o = r->m->observer;
    if (!o || o->jump_after(o->ctx, src, r->t, r->y_switch) == 0) return NSD_GO_ON;
    return run_failed(r, "the simulation failed at t = %.9g s: %s", r->t, o->message(o->ctx));
}

/* How the one way on after a jump ended (jump_restart). */
typedef enum { NSD_JUMP_ON = 0, NSD_JUMP_NO_RESTART, NSD_JUMP_NO_GUARD } nsd_jump;

/* The one way on after a jump of the state at t, whatever made it (an
 * impact with the new contact modes, a switch's reset map, a force that
 * jumps at gap_rate = 0, a drift projection): the integrator restarts from
 * y, so no step straddles the jump, and under the event-driven regime the
 * step guard starts there with it. NSD_JUMP_NO_RESTART: the integrator
 * refused (its message()); NSD_JUMP_NO_GUARD: m->failure says why. */
static nsd_jump jump_restart(nsd_runner *r, double t, const double *y) {
    if (r->ig->restart(r->inst, t, y) > NSDYN_WARNING) return NSD_JUMP_NO_RESTART;
    if (r->m->regime->kind == NSD_REGIME_EVENT_DRIVEN &&
        nsd_step_guard_start(&r->guard, r->m, t, y) > NSDYN_WARNING)
        return NSD_JUMP_NO_GUARD;
    return NSD_JUMP_ON;
}

/* Sustained contacts drifted out of half the touching band at the end of
 * a step: positions projected back (modes.c) into r->y_switch, then the
 * jump's restart there; rep->y then points at the corrected copy. 0 or
 * -1 (m->failure). */
static int correct_drift(nsd_runner *r, nsdyn_step_report *rep) {
    nsd_model *m = r->m;
    double *ybuf = r->y_switch, deep;
    memcpy(ybuf, rep->y, m->n * sizeof *ybuf);
    int c = nsd_modes_correct_drift(m, rep->t, ybuf, &deep);
    if (c <= 0) return c;
    r->res->drift_corrections++;
    note_open_projection(r->res, deep);
    nsd_jump j = jump_restart(r, rep->t, ybuf);
    if (j == NSD_JUMP_NO_RESTART) {
        snprintf(m->failure, sizeof m->failure,
                 "the integrator could not restart after a drift correction: %s",
                 r->ig->message ? r->ig->message(r->inst) : "");
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
    nsd_model *m = r->m;
    size_t ns = m->layout.n_stops;
    double *gb = r->g_jump, *ga = r->g_jump + ns + 1;
    if (!ns || !m->sys->stops) return NULL;
    if (m->sys->stops(m->sys_inst, r->t, before, before + m->nq, gb) > NSDYN_WARNING ||
        m->sys->stops(m->sys_inst, r->t, after, after + m->nq, ga) > NSDYN_WARNING)
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
static nsdyn_status resolve_modes(nsd_runner *r, double t, double *y, int fired, int initial) {
    nsd_reset_tally tally = {0};
    nsdyn_status st =
        nsd_modes_resolve_notify(r->m, t, y, &r->res->contact_log, fired, initial, &tally);
    r->res->reset_energy += tally.change;
    if (r->res->energy_checked) r->res->energy_min += tally.gain;
    return st;
}

/* Buffers, the integrator and its problem. Returns 1 if the integrator
 * refused its parameters (a config error in diag; nothing to close), 2 if
 * a buffer could not be allocated, else 0. */
static size_t runner_open(nsd_runner *r, nsd_model *m, const nsd_config *cfg,
                          const nsdyn_host *host, nsd_diag *diag) {
    const nsd_run_settings *rs = &cfg->settings;
    r->m = m;
    r->ig = (const nsdyn_integrator *)cfg->integrator.plugin->info;
    char err[512] = "";
    r->inst = r->ig->info.create(cfg->integrator.params.values, host, err, sizeof err);
    if (!r->inst) {
        nsd_diag_at(diag, cfg->integrator.table, "[integrator] (%s): %s", r->ig->info.id,
                    err[0] ? err : "the plugin refused these parameters");
        return 1;
    }
    r->t0 = r->t = rs->t_start;
    r->t_end = rs->t_end;
    r->dt_out = rs->output_dt > 0 ? rs->output_dt : (r->t_end - r->t0) / 2000.0;
    r->dense = r->ig->dense != NULL && (r->ig->info.provides & NSDYN_CAP_DENSE_OUTPUT);
    r->locates = (r->ig->info.provides & NSDYN_CAP_EVENT_LOCATION) != 0;
    r->show_progress = rs->progress && isatty(STDERR_FILENO);
    r->max_events = rs->max_events;
    r->t_last_event = -INFINITY;
    r->k_out = 1;
    nsd_model_ode(m, &r->ode);
    if (r->ig->info.provides & NSDYN_CAP_TIME_STEPPING) {
        nsd_model_mechanics(m, &r->mech);
        r->ode.mech = &r->mech;
    }
    /* An integrator that does not locate events gets none: the runner
     * checks the stop conditions at step ends itself (check_crossings). */
    r->ode_ig = r->ode;
    if (!r->locates) r->ode_ig.n_events = 0;
    nsd_series *s = &r->res->series;
    s->n_channels = m->n_channels;
    s->states_only = rs->sample_states_only;
    /* the expected rows, up to a first block; append_row grows it */
    double rows = (r->t_end - r->t0) / r->dt_out + 4.0;
    s->cap = rows < 65536.0 ? (size_t)rows : 65536;
    s->data = malloc(s->cap * m->n_channels * sizeof(double));
    size_t ne = r->ode.n_events ? r->ode.n_events : 1;
    r->ybuf = malloc(m->n * sizeof *r->ybuf);
    r->y_switch = malloc(m->n * sizeof *r->y_switch);
    r->g = calloc(ne, sizeof *r->g);
    r->g_prev = calloc(ne, sizeof *r->g_prev);
    r->g_jump = calloc(2 * (m->layout.n_stops + 1), sizeof *r->g_jump);
    r->y_from = malloc(m->n * sizeof *r->y_from);
    r->sw_from = calloc(2 * (m->layout.n_switches + 1), sizeof *r->sw_from);
    r->sw_at = r->sw_from ? r->sw_from + m->layout.n_switches + 1 : NULL;
    r->y_last = m->y0;
    r->wall0 = r->last_progress = now_seconds();
    if (!s->data || !r->ybuf || !r->y_switch || !r->g || !r->g_prev || !r->g_jump || !r->y_from ||
        !r->sw_from)
        return 2;
    nsd_step_guard_init(&r->guard, m);
    r->guard_ready = 1;
    return 0;
}

/* setup() refused before any step (h against the run, the problem): a
 * config error at [integrator], like create()'s; nothing ran. */
static void report_setup_refusal(const nsd_runner *r, const nsd_config *cfg, nsd_diag *diag) {
    const nsdyn_integrator *ig = r->ig;
    const char *why = ig->message ? ig->message(r->inst) : NULL;
    size_t id_len = strlen(ig->info.id);
    if (!why) why = "";
    if (strncmp(why, ig->info.id, id_len) == 0 && why[id_len] == ':')
        why += id_len + (why[id_len + 1] == ' ' ? 2 : 1);
    nsd_diag_at(diag, cfg->integrator.table, "[integrator] (%s): %s", ig->info.id,
                *why ? why : "the integrator refused to start this run");
}

/* Up to the first step: the initial gaps and contact modes (an initial
 * approach at zero gap is an impact at t0), setup(), the first sample.
 * NSD_GO_ON, NSD_END with the run failed, or NSD_NEXT_STEP when setup()
 * refused (*refused = 1, reported in diag). */
static nsd_flow runner_start(nsd_runner *r, const nsd_config *cfg, nsd_diag *diag,
                             size_t *refused) {
    nsd_model *m = r->m;
    const double *y_start = m->y0;
    if (m->observer && (!r->locates || (r->ig->info.provides & NSDYN_CAP_TIME_STEPPING)))
        return run_failed(r,
                          "integrator '%s' does not locate events: the variational equations "
                          "need every jump at its event (use an event-locating integrator "
                          "such as dopri5 or bdf)",
                          r->ig->info.id);
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT);
    if (rigid && nsd_model_check_initial_gaps(m, r->t0, m->y0, cfg->settings.contact_tolerance) >
                     NSDYN_WARNING)
        return run_failed(r, "the run cannot start at t = %.9g s: %s; state: %s", r->t0, m->failure,
                          describe(r, m->y0));
    if (m->ed.on) {
        memcpy(r->y_switch, m->y0, m->n * sizeof *r->y_switch);
        if (resolve_modes(r, r->t0, r->y_switch, -1, 1) > NSDYN_WARNING)
            return run_failed(r, "the initial contact modes could not be determined: %s; state: %s",
                              m->failure, describe(r, m->y0));
        y_start = r->y_last = r->y_switch;
    }
    if (r->ig->setup(r->inst, &r->ode_ig, r->t0, y_start, r->t_end) > NSDYN_WARNING) {
        if (m->failure[0]) /* the model failed (a plugin's NaN): its message, exit 3 */
            return run_failed(r, "the simulation failed at t = %.9g s: %s", r->t0, m->failure);
        report_setup_refusal(r, cfg, diag);
        *refused = 1;
        return NSD_NEXT_STEP;
    }
    if (record(m, r->res, r->t0, y_start) != 0 ||
        nsd_audit_energy(m, r->res, r->t0, y_start) != 0 ||
        nsd_penetration_audit(m, r->res, r->t0, y_start) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    if (r->ode.n_events) nsd_model_event_functions(m, r->t0, y_start, r->g_prev);
    if (m->ed.on && nsd_step_guard_start(&r->guard, m, r->t0, y_start) > NSDYN_WARNING)
        return run_failed(r, "the simulation failed at t = %.9g s: %s", r->t0, m->failure);
    return NSD_GO_ON;
}

/* Samples on the output grid inside the step that ended at rep: dense
 * output interpolates them; without it the step end stands for the grid
 * points it passed (fixed-step integrators: choose output_dt = k h). */
static nsd_flow sample_step(nsd_runner *r, const nsdyn_step_report *rep) {
    double tol = 1e-9 * r->dt_out;
    if (r->dense) {
        for (double ts = r->t0 + (double)r->k_out * r->dt_out;
             ts <= rep->t + tol && ts <= r->t_end + tol;
             ts = r->t0 + (double)(++r->k_out) * r->dt_out) {
            const double *ys = rep->y;
            if (ts < rep->t - tol) {
                if (r->ig->dense(r->inst, ts, r->ybuf) > NSDYN_WARNING) break;
                ys = r->ybuf;
            }
            if (record(r->m, r->res, ts < rep->t ? ts : rep->t, ys) != 0) {
                r->res->outcome = NSD_RUN_FAILED;
                return NSD_END;
            }
        }
    } else if (r->t0 + (double)r->k_out * r->dt_out <= rep->t + tol) {
        if (record(r->m, r->res, rep->t, rep->y) != 0) {
            r->res->outcome = NSD_RUN_FAILED;
            return NSD_END;
        }
        while (r->t0 + (double)r->k_out * r->dt_out <= rep->t + tol) r->k_out++;
    }
    return NSD_GO_ON;
}

/* Without event location a crossing is seen at the end of the step where
 * it happened. Returns the event source that fired there, or NULL. */
static const nsd_event_source *check_crossings(nsd_runner *r, const double *y) {
    const nsd_event_source *fired = NULL;
    if (nsd_model_event_functions(r->m, r->t, y, r->g) <= NSDYN_WARNING)
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
    nsd_model *m = r->m;
    size_t ns = m->layout.n_switches;
    if (!ns || !m->sys->switches || !m->sys->on_switch) return NSDYN_OK;
    nsdyn_status st = nsd_model_switch_functions(m, r->t_from, r->y_from, r->sw_from);
    if (st <= NSDYN_WARNING) st = nsd_model_switch_functions(m, r->t, y, r->sw_at);
    for (size_t j = 0; j < ns && st <= NSDYN_WARNING; ++j) {
        const nsd_event_source *src = &m->event_sources[m->event_first[NSD_SOURCE_SWITCH] + j];
        if (j == except || !crosses(src, r->sw_from[j], r->sw_at[j])) continue;
        st = m->sys->on_switch(m->sys_inst, j, r->t, y, y + m->nq);
        if (st > NSDYN_WARNING)
            snprintf(m->failure, sizeof m->failure,
                     "switch '%s' (simultaneous) could not be applied", m->layout.switches[j]);
        r->res->n_switches += st <= NSDYN_WARNING;
        if (st <= NSDYN_WARNING && note_event_time(r) != 0) {
            snprintf(m->failure, sizeof m->failure, "out of memory for an event time");
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
    nsd_model *m = r->m;
    nsd_run_result *res = r->res;
    double t = r->t;
    r->same_time = t - r->t_last_event <= 1e-12 * (1.0 + fabs(t)) ? r->same_time + 1 : 0;
    r->t_last_event = t;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    size_t logged = res->contact_log.n;
    res->root_returns++;
    nsdyn_status rs = simultaneous_switches(r, r->ybuf, SIZE_MAX);
    if (rs <= NSDYN_WARNING) rs = resolve_modes(r, t, r->ybuf, (int)src->index, 0);
    if (res->contact_log.n == logged) res->unlogged_roots++;
    const char *why = rs > NSDYN_WARNING ? m->failure : NULL;
    if (!why) { /* a contact the impact left out of place */
        double deep;
        int dc = nsd_modes_correct_drift(m, t, r->ybuf, &deep);
        if (dc < 0)
            why = m->failure;
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
        why = r->ig->message ? r->ig->message(r->inst) : "the integrator could not restart";
    else if (j == NSD_JUMP_NO_GUARD)
        why = m->failure;
    if (why)
        return run_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", t, why,
                          describe(r, rep->y));
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
    nsd_model *m = r->m;
    if (record(m, r->res, r->t, r->y_switch) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    r->res->outcome = NSD_RUN_STOPPED;
    snprintf(r->res->message, sizeof r->res->message,
             "section: switch '%s' of system '%s' applied %zu time%s, at t = %.9g s",
             m->layout.switches[m->section_switch - 1], m->sys->info.id, r->res->section_crossings,
             r->res->section_crossings == 1 ? "" : "s", r->t);
    return NSD_END;
}

/* A mode switch of the system: update its mode (and maybe the state),
 * then restart the integrator from there, or a stop the jump crossed. */
static nsd_flow switch_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *src,
                             const nsd_event_source **stop) {
    nsd_model *m = r->m;
    double t = r->t;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    r->res->root_returns++;
    r->res->n_switches++;
    nsdyn_status sw = simultaneous_switches(r, r->ybuf, src->index);
    if (sw <= NSDYN_WARNING)
        sw = m->sys->on_switch(m->sys_inst, src->index, t, r->ybuf, r->ybuf + m->nq);
    if (sw <= NSDYN_WARNING && m->ed.on) sw = resolve_modes(r, t, r->ybuf, -1, 0);
    if (sw <= NSDYN_WARNING) *stop = stop_across_jump(r, rep->y, r->ybuf);
    if (sw <= NSDYN_WARNING && !*stop && jump_restart(r, t, r->ybuf) != NSD_JUMP_ON)
        sw = NSDYN_ERROR;
    if (sw > NSDYN_WARNING)
        return run_failed(r,
                          "the simulation failed at t = %.9g s: switch '%s' could not be applied "
                          "(%s); state: %s",
                          t, m->layout.switches[src->index],
                          r->ig->message ? r->ig->message(r->inst) : "", describe(r, rep->y));
    memcpy(r->y_switch, r->ybuf, m->n * sizeof *r->ybuf);
    r->y_last = r->y_switch;
    if (observe_jump(r, src) == NSD_END) return NSD_END;
    if (!*stop && m->section_switch == src->index + 1 &&
        ++r->res->section_crossings >= m->section_count)
        return section_stop(r);
    if (!*stop) {
        if (!r->locates) nsd_model_event_functions(m, t, r->ybuf, r->g_prev);
        return NSD_NEXT_STEP;
    }
    rep->y = r->y_switch;
    return NSD_GO_ON;
}

/* A stop condition of the system fired at (r->t, y): the last sample,
 * the outcome STOPPED. at_jump: crossed by the jump of an event. */
static nsd_flow stop_event(nsd_runner *r, const double *y, const nsd_event_source *src,
                           int at_jump) {
    nsd_model *m = r->m;
    nsd_run_result *res = r->res;
    if (!at_jump) res->root_returns++;
    res->n_stops++;
    const nsd_series *s = &res->series;
    const double *last = s->rows ? s->data + (s->rows - 1) * s->n_channels : NULL;
    if ((!last || last[0] < r->t) && record(m, res, r->t, y) != 0) {
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
             describe(r, y));
    return NSD_END;
}

/* The gap rate of a contact under a law with a rate discontinuity crossed
 * zero (events.h NSD_SOURCE_RATE): the force jumps here, so the integrator
 * restarts at (t, y) and no step straddles the jump. Nothing else changes,
 * and it is no contact event (not in events.csv or the root counts). */
static nsd_flow rate_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *src) {
    nsd_model *m = r->m;
    memcpy(r->ybuf, rep->y, m->n * sizeof *r->ybuf);
    /* Set-valued friction on the contact (model.h ed.compliant): the stick
     * bound mu_s N jumps with N, so the friction modes are chosen again */
    if (m->ed.on && resolve_modes(r, r->t, r->ybuf, -1, 0) > NSDYN_WARNING)
        return run_failed(r, "the simulation failed at t = %.9g s: modes at gap_rate = 0: %s", r->t,
                          m->failure);
    nsd_jump j = jump_restart(r, r->t, r->ybuf);
    if (j == NSD_JUMP_NO_RESTART)
        return run_failed(r, "the simulation failed at t = %.9g s: restart at gap_rate = 0 (%s)",
                          r->t, r->ig->message ? r->ig->message(r->inst) : "");
    memcpy(r->y_switch, r->ybuf, m->n * sizeof *r->ybuf);
    r->y_last = r->y_switch;
    if (observe_jump(r, src) == NSD_END) return NSD_END;
    r->res->rate_restarts++;
    if (j == NSD_JUMP_NO_GUARD)
        return run_failed(r, "the simulation failed at t = %.9g s: %s", r->t, m->failure);
    if (!r->locates) nsd_model_event_functions(m, r->t, r->ybuf, r->g_prev);
    return NSD_NEXT_STEP;
}

/* The events of the step that ended at rep, dispatched by their source. */
static nsd_flow handle_event(nsd_runner *r, nsdyn_step_report *rep, const nsd_event_source *fired) {
    const nsd_event_source *stop = NULL;
    nsd_flow f = NSD_GO_ON;
    const nsd_run_observer *o = r->m->observer;
    if (o && fired->kind != NSD_SOURCE_STOP && o->jump_before(o->ctx, fired, r->t, rep->y) != 0)
        return run_failed(r, "the simulation failed at t = %.9g s: %s", r->t, o->message(o->ctx));
    if (fired->kind == NSD_SOURCE_RATE) return rate_event(r, rep, fired);
    if (fired->kind == NSD_SOURCE_CONTACT) {
        f = contact_event(r, rep, fired, &stop);
        if (f != NSD_GO_ON) return f;
        fired = stop;
    }
    if (note_event_time(r) != 0)
        return run_failed(r, "out of memory for event %zu at t = %.9g s", r->res->n_events + 1,
                          r->t);
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
static const nsd_event_source *uncovered_crossing(nsd_runner *r, nsdyn_step_report *rep) {
    nsd_model *m = r->m;
    double *ga = r->g, *gb = r->g_prev;
    if (!r->locates || !r->dense || !r->ode.n_events ||
        nsd_model_event_functions(m, r->t, r->y_last, ga) > NSDYN_WARNING ||
        nsd_model_event_functions(m, rep->t, rep->y, gb) > NSDYN_WARNING)
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
            if (r->ig->dense(r->inst, mid, r->ybuf) > NSDYN_WARNING ||
                nsd_model_event_functions(m, mid, r->ybuf, gb) > NSDYN_WARNING)
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
    if (!first || r->ig->dense(r->inst, t_first, r->guard.y) > NSDYN_WARNING) return NULL;
    rep->t = t_first;
    rep->y = r->guard.y;
    return first;
}

/* An impact inside the step comes first (the step guard): the step then
 * ends there, or at a switch or stop the cut uncovers before it. Returns
 * NSD_END on failure; *fired the event. */
static nsd_flow guard_step(nsd_runner *r, nsdyn_step_report *rep, nsd_event_source *hit_src,
                           const nsd_event_source **fired) {
    double t_hit = rep->t;
    size_t hit = 0;
    int gr = nsd_step_guard_check(&r->guard, r->m, r->ig, r->inst, rep->t, rep->y, &t_hit, &hit);
    if (gr < 0)
        return run_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", rep->t,
                          r->m->failure, describe(r, rep->y));
    if (gr == 1) {
        rep->t = t_hit;
        rep->y = r->guard.y;
        *hit_src = (nsd_event_source){NSD_SOURCE_CONTACT, 2 * hit, -1};
        *fired = hit_src;
        const nsd_event_source *sw = uncovered_crossing(r, rep);
        if (sw) *fired = sw;
    }
    return NSD_GO_ON;
}

/* The integrator's step failed. When the model said why (a plugin's NaN,
 * singular contact modes: m->failure, with the time of the evaluation that
 * failed), that reason leads, with its one time: the integrator's own
 * account (its stage time, a step size that collapsed retrying, CVODE's
 * corrector) is a consequence, and printed with it the message named two
 * or three different times (issue 22). Otherwise the integrator's message,
 * at the time of the last good state. */
static nsd_flow step_failed(nsd_runner *r) {
    nsd_model *m = r->m;
    const char *ig_msg = r->ig->message ? r->ig->message(r->inst) : "integrator error";
    if (!m->failure[0])
        return run_failed(r, "the simulation failed at t = %.9g s: %s; last good state: %s", r->t,
                          ig_msg, describe(r, r->y_last));
    if (strstr(m->failure, "t = "))
        return run_failed(r,
                          "the simulation failed: %s (%s stopped on it in the step after the "
                          "last good state); last good state: %s",
                          m->failure, r->ig->info.id, describe(r, r->y_last));
    return run_failed(r,
                      "the simulation failed after t = %.9g s: %s (%s stopped on it in the next "
                      "step); last good state: %s",
                      r->t, m->failure, r->ig->info.id, describe(r, r->y_last));
}

/* One integrator step with its samples and events. */
static nsd_flow run_step(nsd_runner *r) {
    nsd_model *m = r->m;
    if (nsd_interrupt_signal())
        return run_failed(r, "interrupted by signal %d at t = %.9g s; last state: %s",
                          nsd_interrupt_signal(), r->t, describe(r, r->y_last));
    nsdyn_step_report rep = {0};
    rep.event = -1;
    memcpy(r->y_from, r->y_last, m->n * sizeof *r->y_from);
    r->t_from = r->t;
    m->failure[0] = '\0'; /* a reason the model gives now is this step's */
    if (r->ig->step(r->inst, r->t_end, &rep) > NSDYN_WARNING) return step_failed(r);
    if (!all_finite(rep.y, m->n))
        return run_failed(
            r, "the simulation failed at t = %.9g s: the state became NaN or infinite (%s)", rep.t,
            describe(r, rep.y));
    const nsd_event_source *fired =
        rep.event >= 0 && (size_t)rep.event < m->n_events ? &m->event_sources[rep.event] : NULL;
    nsd_event_source hit_src;
    if (m->ed.on && guard_step(r, &rep, &hit_src, &fired) == NSD_END) return NSD_END;
    /* Time-stepping: the step's contact forces are its impulses / h. */
    m->mech.step_impulse = rep.contact_impulse;
    m->mech.step_h = rep.h;
    if (sample_step(r, &rep) == NSD_END) return NSD_END;
    const nsd_run_observer *o = m->observer; /* while the step's dense output stands */
    if (o && o->step(o->ctx, r->t_from, r->y_from, rep.t, rep.y, r->ig, r->inst) != 0)
        return run_failed(r, "the simulation failed at t = %.9g s: %s", rep.t, o->message(o->ctx));
    r->t = rep.t;
    r->y_last = rep.y;
    /* after the step's samples: a restart ends its dense output */
    if (m->ed.on && !fired && correct_drift(r, &rep) != 0)
        return run_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", r->t, m->failure,
                          describe(r, rep.y));
    r->y_last = rep.y;
    if (nsd_audit_energy(m, r->res, r->t, rep.y) != 0 ||
        nsd_penetration_audit(m, r->res, r->t, rep.y) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    if (!fired && !r->locates && r->ode.n_events) fired = check_crossings(r, rep.y);
    return fired ? handle_event(r, &rep, fired) : NSD_GO_ON;
}

static void print_progress(nsd_runner *r) {
    double w = now_seconds();
    if (w - r->last_progress <= 0.25) return;
    fprintf(stderr, "\r%s t = %.4g / %.4g s (%3.0f%%)   ", r->label ? r->label : "", r->t, r->t_end,
            100.0 * (r->t - r->t0) / (r->t_end - r->t0));
    r->last_progress = w;
}

void nsd_run_peek(nsd_run *r) {
    nsd_run_result *res = r->res;
    res->t_reached = r->t;
    res->wall_seconds = now_seconds() - r->wall0;
    res->stats.struct_size = sizeof res->stats;
    if (r->inst && r->ig->stats) r->ig->stats(r->inst, &res->stats);
}

/* The single cleanup path: the integrator's statistics, then everything
 * runner_open made (any part of it may be missing). */
static void runner_close(nsd_runner *r) {
    r->m->mech.step_impulse = NULL; /* the integrator's, about to be destroyed */
    if (r->show_progress) fprintf(stderr, "\r%70s\r", "");
    nsd_run_peek(r);
    if (r->inst) r->ig->info.destroy(r->inst);
    free(r->ybuf);
    free(r->g);
    free(r->g_prev);
    free(r->g_jump);
    free(r->y_from);
    free(r->sw_from);
    free(r->y_switch);
    if (r->guard_ready) {
        r->res->guard_evaluations = r->guard.evaluations;
        r->res->guard_evaluations_some = r->guard.evaluations_some;
        r->res->guard_gaps = r->guard.gaps;
        r->res->guard_hits = r->guard.hits;
        nsd_step_guard_free(&r->guard);
    }
}

size_t nsd_run_begin(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host, const char *label,
                     nsd_run_result *res, nsd_diag *diag, nsd_run **run) {
    memset(res, 0, sizeof *res);
    res->stop_index = -1;
    *run = NULL;
    nsd_runner *r = calloc(1, sizeof *r);
    if (!r) {
        res->outcome = NSD_RUN_FAILED;
        snprintf(res->message, sizeof res->message, "out of memory for the run");
        return 0;
    }
    r->res = res;
    r->label = label;
    size_t opened = runner_open(r, m, cfg, host, diag);
    if (opened == 1) {
        free(r);
        return 1;
    }
    res->outcome = NSD_RUN_COMPLETE;
    size_t refused = 0; /* 1: the integrator refused this run (a config error) */
    nsd_flow f = opened == 2
                     ? run_failed(r, "out of memory for the run's buffers (%zu states)", m->n)
                     : runner_start(r, cfg, diag, &refused);
    r->started = f == NSD_GO_ON;
    r->going = r->started && r->t < r->t_end;
    if (refused) {
        nsd_run_end(r);
        return refused;
    }
    *run = r;
    return 0;
}

int nsd_run_step(nsd_run *r) {
    if (!r->going) return 0;
    nsd_flow sf = run_step(r);
    r->going = sf != NSD_END && r->t < r->t_end;
    if (sf == NSD_GO_ON && r->show_progress) print_progress(r);
    return r->going;
}

int nsd_run_where(const nsd_run *r, double *t, const double **y) {
    *t = r->t;
    *y = r->y_last;
    return r->going;
}

void nsd_run_end(nsd_run *r) {
    if (!r) return;
    nsd_run_result *res = r->res;
    /* the last sample at the end of a complete run (not an abandoned one), if the grid missed it */
    if (r->started && !r->going && res->outcome == NSD_RUN_COMPLETE && res->series.rows &&
        res->series.data[(res->series.rows - 1) * res->series.n_channels] <
            r->t_end - 1e-9 * r->dt_out &&
        record(r->m, res, r->t, r->y_last) != 0)
        res->outcome = NSD_RUN_FAILED;
    runner_close(r);
    free(r);
}

size_t nsd_run_simulation(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host,
                          const char *label, nsd_run_result *res, nsd_diag *diag) {
    nsd_run *r = NULL;
    size_t errors = nsd_run_begin(m, cfg, host, label, res, diag, &r);
    if (!r) return errors;
    while (nsd_run_step(r)) continue;
    nsd_run_end(r);
    return 0;
}
