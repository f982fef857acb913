#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "run_internal.h"
#include "finite.h"
#include "rate_hold.h"

#include "interrupt.h"
#include "run_audit.h"
#include "run_watch.h"
#include "param_fields.h"
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

/* Once per step, one test (finite.h). */
static int all_finite(const double *y, size_t n) { return nsd_first_nonfinite(y, n) == n; }

/* Buffers, the integrator and its problem. Returns 1 if the integrator
 * refused its parameters (a config error in diag; nothing to close), 2 if
 * a buffer could not be allocated, else 0. */
static size_t runner_open(nsd_runner *r, const nsd_model *m, nsd_data *d, const nsd_config *cfg,
                          const nsdyn_host *host, nsd_diag *diag) {
    const nsd_run_settings *rs = &cfg->settings;
    r->m = m;
    r->d = d;
    r->ig = (const nsdyn_integrator *)cfg->integrator.plugin->info;
    char err[512] = "";
    r->inst = nsd_plugin_create(&r->ig->info, cfg->integrator.params.values, host, err,
                               sizeof err);
    if (!r->inst) {
        nsd_diag_at(diag, cfg->integrator.table, "[integrator] (%s): %s", r->ig->info.id,
                    err[0] ? err : "the plugin refused these parameters");
        return 1;
    }
    nsd_ig_bind(&r->igc, r->ig, r->inst);
    r->t0 = r->t = rs->t_start;
    r->t_end = rs->t_end;
    r->dt_out = rs->output_dt > 0 ? rs->output_dt : (r->t_end - r->t0) / 2000.0;
    r->dense = r->ig->dense != NULL && (r->ig->info.provides & NSDYN_CAP_DENSE_OUTPUT);
    r->locates = (r->ig->info.provides & NSDYN_CAP_EVENT_LOCATION) != 0;
    r->show_progress = rs->progress && r->d->progress;
    r->max_events = rs->max_events;
    r->t_last_event = -INFINITY;
    r->k_out = 1;
    nsd_model_ode(m, r->d, &r->ode);
    if (r->ig->info.provides & NSDYN_CAP_TIME_STEPPING) {
        if (nsd_model_mechanics(m, r->d, &r->mech) > NSDYN_WARNING) {
            nsd_diag_at(diag, cfg->contact.table, "[contact] %s", r->d->failure);
            return 1;
        }
        r->ode.mech = &r->mech;
    }
    /* An integrator that does not locate events gets none: the runner
     * checks the stop conditions at step ends itself (check_crossings). */
    r->ode_ig = r->ode;
    if (!r->locates) r->ode_ig.n_events = 0;
    nsd_series *s = &r->res->series;
    s->n_channels = m->n_channels;
    if (rs->sample_channels) {
        s->sampled = malloc(m->n_channels);
        if (s->sampled) memcpy(s->sampled, rs->sample_channels, m->n_channels);
    }
    /* the expected rows, up to a first block; append_row grows it */
    double rows = (r->t_end - r->t0) / r->dt_out + 4.0;
    s->cap = rows < 65536.0 ? (size_t)rows : 65536;
    s->data = malloc(s->cap * m->n_channels * sizeof(double));
    size_t ne = r->ode.n_events ? r->ode.n_events : 1;
    r->ybuf = malloc(m->n * sizeof *r->ybuf);
    r->y_switch = malloc(m->n * sizeof *r->y_switch);
    r->ydot_rate = malloc(m->n * sizeof *r->ydot_rate);
    r->g = calloc(ne, sizeof *r->g);
    r->g_prev = calloc(ne, sizeof *r->g_prev);
    r->g_jump = calloc(2 * (m->layout.n_stops + 1), sizeof *r->g_jump);
    r->y_from = malloc(m->n * sizeof *r->y_from);
    r->sw_from = calloc(2 * (m->layout.n_switches + 1), sizeof *r->sw_from);
    r->sw_at = r->sw_from ? r->sw_from + m->layout.n_switches + 1 : NULL;
    r->y_last = r->d->y0;
    r->res->y0 = malloc(m->n * sizeof *r->res->y0);
    if (r->res->y0) memcpy(r->res->y0, r->d->y0, m->n * sizeof *r->res->y0);
    r->wall0 = r->last_progress = now_seconds();
    if (!s->data || !r->ybuf || !r->y_switch || !r->ydot_rate || !r->g || !r->g_prev ||
        !r->g_jump || !r->y_from || !r->sw_from || !r->res->y0 ||
        (rs->sample_channels && !s->sampled))
        return 2;
    nsd_step_guard_init(&r->guard, m);
    r->guard_ready = 1;
    return 0;
}

/* setup() refused before any step (h against the run, the problem): a
 * config error at [integrator], like create()'s; nothing ran. */
static void report_setup_refusal(const nsd_runner *r, const nsd_config *cfg, nsd_diag *diag) {
    const nsdyn_integrator *ig = r->ig;
    const char *why = nsd_ig_message(&r->igc);
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
    const nsd_model *m = r->m;
    const double *y_start = r->d->y0;
    if (r->d->observer && (!r->locates || (r->ig->info.provides & NSDYN_CAP_TIME_STEPPING)))
        return nsd_runner_failed(
            r,
            "integrator '%s' does not locate events: the variational equations "
            "need every jump at its event (use an event-locating integrator "
            "such as dopri5 or bdf)",
            r->ig->info.id);
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT);
    if (rigid && nsd_model_check_initial_gaps(m, r->d, r->t0, r->d->y0,
                                              cfg->settings.contact_tolerance) > NSDYN_WARNING)
        return nsd_runner_failed(r, "the run cannot start at t = %.9g s: %s; state: %s", r->t0,
                                 r->d->failure, nsd_runner_describe(r, r->d->y0));
    if (m->ed.on) {
        memcpy(r->y_switch, r->d->y0, m->n * sizeof *r->y_switch);
        if (nsd_runner_resolve_modes(r, r->t0, r->y_switch, -1, 1) > NSDYN_WARNING)
            return nsd_runner_failed(
                r, "the initial contact modes could not be determined: %s; state: %s",
                r->d->failure, nsd_runner_describe(r, r->d->y0));
        y_start = r->y_last = r->y_switch;
    }
    if (nsd_ig_setup(&r->igc, &r->ode_ig, r->t0, y_start, r->t_end) > NSDYN_WARNING) {
        if (r->d->failure[0]) /* the model failed (a plugin's NaN): its message, exit 3 */
            return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", r->t0,
                                     r->d->failure);
        report_setup_refusal(r, cfg, diag);
        *refused = 1;
        return NSD_NEXT_STEP;
    }
    if (nsd_run_record(m, r->d, r->res, r->t0, y_start) != 0 ||
        nsd_audit_energy(m, r->d, r->res, r->t0, y_start) != 0 ||
        nsd_penetration_audit(m, r->d, r->res, r->t0, y_start) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    if (r->ode.n_events) nsd_model_event_functions(m, r->d, r->t0, y_start, r->g_prev);
    if (m->ed.on && nsd_step_guard_start(&r->guard, m, r->d, r->t0, y_start) > NSDYN_WARNING)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", r->t0,
                                 r->d->failure);
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
                if (nsd_ig_dense(&r->igc, ts, r->ybuf) > NSDYN_WARNING) break;
                ys = r->ybuf;
            }
            if (nsd_run_record(r->m, r->d, r->res, ts < rep->t ? ts : rep->t, ys) != 0) {
                r->res->outcome = NSD_RUN_FAILED;
                return NSD_END;
            }
        }
    } else if (r->t0 + (double)r->k_out * r->dt_out <= rep->t + tol) {
        if (nsd_run_record(r->m, r->d, r->res, rep->t, rep->y) != 0) {
            r->res->outcome = NSD_RUN_FAILED;
            return NSD_END;
        }
        while (r->t0 + (double)r->k_out * r->dt_out <= rep->t + tol) r->k_out++;
    }
    return NSD_GO_ON;
}

/* An impact inside the step comes first (the step guard): the step then
 * ends there, or at a switch or stop the cut uncovers before it. Returns
 * NSD_END on failure; *fired the event. */
static nsd_flow guard_step(nsd_runner *r, nsdyn_step_report *rep, nsd_event_source *hit_src,
                           const nsd_event_source **fired) {
    double t_hit = rep->t;
    size_t hit = 0;
    int gr = nsd_step_guard_check(&r->guard, r->m, r->d, &r->igc, rep->t, rep->y, &t_hit, &hit);
    if (gr < 0)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", rep->t,
                                 r->d->failure, nsd_runner_describe(r, rep->y));
    if (gr == 1) {
        rep->t = t_hit;
        rep->y = r->guard.y;
        *hit_src = (nsd_event_source){NSD_SOURCE_CONTACT, 2 * hit, -1};
        *fired = hit_src;
        const nsd_event_source *sw = nsd_runner_uncovered_crossing(r, rep);
        if (sw) *fired = sw;
    }
    return NSD_GO_ON;
}

/* Why an integrator stalled, when a rate-discontinuous compliant contact
 * rests at gap_rate = 0 inside its penetration (rate_hold.h): the steps
 * that collapsed, or the restarts at gap_rate = 0 that ran into max_steps,
 * are the runner chattering on a Filippov sliding mode it cannot hold
 * (docs/event-driven.md "Bi-stiffness at rest"). "" otherwise. Written
 * into r->held_msg. */
static const char *held_cause(nsd_runner *r) {
    const nsd_model *m = r->m;
    r->held_msg[0] = '\0';
    for (size_t k = 0; k < m->n_rate_events; ++k) {
        size_t c = m->event_sources[m->event_first[NSD_SOURCE_RATE] + k].index;
        double f_comp_N = 0.0, f_exp_N = 0.0;
        if (nsd_rate_held(m, r->d, r->t, r->y_last, r->ydot_rate, c, &f_comp_N, &f_exp_N) != 1)
            continue;
        snprintf(r->held_msg, sizeof r->held_msg,
                 "; the cause: contact '%s' rests at gap_rate = %.3g m/s inside the penetration "
                 "(%.9g m) under the rate-discontinuous law '%s', whose compression force %.9g N "
                 "opens the gap and expansion force %.9g N closes it: a Filippov sliding mode on "
                 "gap_rate = 0 (docs/event-driven.md \"Bi-stiffness at rest\")",
                 m->layout.contacts[c].name, r->d->ce[c].u[0], -r->d->ce[c].gap,
                 m->contact->info.id, f_comp_N, f_exp_N);
        break;
    }
    r->d->failure[0] = '\0'; /* a plugin failure of the test is not the run's */
    return r->held_msg;
}

/* The integrator's step failed. When the model said why (a plugin's NaN,
 * singular contact modes: r->d->failure, with the time of the evaluation that
 * failed), that reason leads, with its one time: the integrator's own
 * account (its stage time, a step size that collapsed retrying, CVODE's
 * corrector) is a consequence, and printed with it the message named two
 * or three different times (issue 22). Otherwise the integrator's message,
 * at the time of the last good state. */
static nsd_flow step_failed(nsd_runner *r) {
    const char *ig_msg = nsd_ig_message(&r->igc);
    if (!r->d->failure[0])
        return nsd_runner_failed(r,
                                 "the simulation failed at t = %.9g s: %s; last good state: %s%s",
                                 r->t, ig_msg, nsd_runner_describe(r, r->y_last), held_cause(r));
    if (strstr(r->d->failure, "t = "))
        return nsd_runner_failed(
            r,
            "the simulation failed: %s (%s stopped on it in the step after the "
            "last good state); last good state: %s",
            r->d->failure, r->ig->info.id, nsd_runner_describe(r, r->y_last));
    return nsd_runner_failed(
        r,
        "the simulation failed after t = %.9g s: %s (%s stopped on it in the next "
        "step); last good state: %s",
        r->t, r->d->failure, r->ig->info.id, nsd_runner_describe(r, r->y_last));
}

/* One integrator step with its samples and events. */
static nsd_flow run_step(nsd_runner *r) {
    const nsd_model *m = r->m;
    if (nsd_interrupt_signal())
        return nsd_runner_failed(r, "interrupted by signal %d at t = %.9g s; last state: %s",
                                 nsd_interrupt_signal(), r->t, nsd_runner_describe(r, r->y_last));
    nsdyn_step_report rep = {0};
    rep.event = -1;
    /* The step's start, for its only readers: an observer and the
     * simultaneous switches (run_events.c); without them no copy. */
    if (r->d->observer || m->layout.n_switches)
        memcpy(r->y_from, r->y_last, m->n * sizeof *r->y_from);
    r->t_from = r->t;
    r->d->failure[0] = '\0'; /* a reason the model gives now is this step's */
    if (nsd_ig_step(&r->igc, r->t_end, &rep) > NSDYN_WARNING) return step_failed(r);
    if (!all_finite(rep.y, m->n))
        return nsd_runner_failed(
            r, "the simulation failed at t = %.9g s: the state became NaN or infinite (%s)", rep.t,
            nsd_runner_describe(r, rep.y));
    const nsd_event_source *fired =
        rep.event >= 0 && (size_t)rep.event < m->n_events ? &m->event_sources[rep.event] : NULL;
    nsd_event_source hit_src;
    if (m->ed.on && guard_step(r, &rep, &hit_src, &fired) == NSD_END) return NSD_END;
    /* Time-stepping: the step's contact forces are its impulses / h. */
    r->d->mech.step_impulse = rep.contact_impulse;
    r->d->mech.step_h = rep.h;
    if (sample_step(r, &rep) == NSD_END) return NSD_END;
    const nsd_run_observer *o = r->d->observer; /* while the step's dense output stands */
    if (o && o->step(o->ctx, r->t_from, r->y_from, rep.t, rep.y, &r->igc) != 0)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s", rep.t,
                                 o->message(o->ctx));
    r->t = rep.t;
    r->y_last = rep.y;
    /* after the step's samples: a restart ends its dense output */
    if (m->ed.on && !fired && nsd_runner_correct_drift(r, &rep) != 0)
        return nsd_runner_failed(r, "the simulation failed at t = %.9g s: %s; state: %s", r->t,
                                 r->d->failure, nsd_runner_describe(r, rep.y));
    r->y_last = rep.y;
    if (nsd_audit_energy(m, r->d, r->res, r->t, rep.y) != 0 ||
        nsd_penetration_audit(m, r->d, r->res, r->t, rep.y) != 0) {
        r->res->outcome = NSD_RUN_FAILED;
        return NSD_END;
    }
    if (!fired && !r->locates && r->ode.n_events) fired = nsd_runner_check_crossings(r, rep.y);
    return fired ? nsd_runner_handle_event(r, &rep, fired) : NSD_GO_ON;
}

/* The run's progress to its reader (nsd_data progress), at most every
 * 0.25 s of wall time. */
static void print_progress(nsd_runner *r) {
    double w = now_seconds();
    if (w - r->last_progress <= 0.25) return;
    r->d->progress(r->d->progress_ctx, r->label, r->t, r->t0, r->t_end, 0);
    r->last_progress = w;
}

void nsd_run_peek(nsd_run *r) {
    nsd_run_result *res = r->res;
    res->t_reached = r->t;
    res->wall_seconds = now_seconds() - r->wall0;
    res->stats.struct_size = sizeof res->stats;
    if (r->inst) nsd_ig_stats(&r->igc, &res->stats);
}

/* The single cleanup path: the integrator's statistics, then everything
 * runner_open made (any part of it may be missing). */
static void runner_close(nsd_runner *r) {
    r->d->mech.step_impulse = NULL; /* the integrator's, about to be destroyed */
    if (r->show_progress) r->d->progress(r->d->progress_ctx, r->label, r->t, r->t0, r->t_end, 1);
    nsd_run_peek(r);
    if (r->inst) r->ig->info.destroy(r->inst);
    free(r->ybuf);
    free(r->g);
    free(r->g_prev);
    free(r->g_jump);
    free(r->y_from);
    free(r->sw_from);
    free(r->y_switch);
    free(r->ydot_rate);
    if (r->guard_ready) {
        r->res->guard_evaluations = r->guard.evaluations;
        r->res->guard_evaluations_some = r->guard.evaluations_some;
        r->res->guard_gaps = r->guard.gaps;
        r->res->guard_hits = r->guard.hits;
        nsd_step_guard_free(&r->guard);
    }
}

size_t nsd_run_begin(const nsd_model *m, nsd_data *d, const nsd_config *cfg, const nsdyn_host *host,
                     const char *label, nsd_run_result *res, nsd_diag *diag, nsd_run **run) {
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
    size_t opened = runner_open(r, m, d, cfg, host, diag);
    if (opened == 1) {
        free(r);
        return 1;
    }
    res->outcome = NSD_RUN_COMPLETE;
    size_t refused = 0; /* 1: the integrator refused this run (a config error) */
    nsd_flow f =
        opened == 2 ? nsd_runner_failed(r, "out of memory for the run's buffers (%zu states)", m->n)
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
        nsd_run_record(r->m, r->d, res, r->t, r->y_last) != 0)
        res->outcome = NSD_RUN_FAILED;
    runner_close(r);
    free(r);
}

size_t nsd_run_simulation(const nsd_model *m, nsd_data *d, const nsd_config *cfg,
                          const nsdyn_host *host, const char *label, nsd_run_result *res,
                          nsd_diag *diag) {
    nsd_run *r = NULL;
    size_t errors = nsd_run_begin(m, d, cfg, host, label, res, diag, &r);
    if (!r) return errors;
    while (nsd_run_step(r)) continue;
    nsd_run_end(r);
    return 0;
}
