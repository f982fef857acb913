/* Benchmark driver (not a test): the passive walker run by nsdyn, timed
 * in-process. bench/bench_walker_scipy.sh runs it next to the same model in
 * SciPy (bench/walker_scipy.py) and compares the two (bench/walker_compare.py).
 *
 * Problem: configs/walker2_gait.toml (walker2 + hunt_crossley + lugre,
 * Tables 6-8 L#4, 2.05 degree ramp) with the overrides given by --set
 * (the script sets run.t_end, integrator.rtol, atol, max_step).
 *
 * What is timed: the stepping loop of core/src/runner/run.c (nsd_run_simulation)
 * without output sampling: the integrator's setup() (for bdf: creating
 * CVODE), then per step ig->step(), the status and finiteness checks, and
 * at each located event the system's on_switch() and the integrator's
 * restart() (CVodeReInit), as run.c does. This is the integration only: the
 * config is loaded and the model created before the clock starts, and
 * nothing is sampled or written. SciPy's time in walker_scipy.py covers the
 * same work (its solve_ivp calls and the switches between them).
 *
 * Runs: one untimed recording run first (warm-up; it also samples the
 * system's outputs around each switch to report whether the switch changed
 * the mode), then --reps timed runs (best and median reported), each from
 * the initial state after the system's reset(). Checks (exit status 1 if
 * one fails): every timed run reproduces the recording run's final state
 * bit for bit, and the recording run reproduces nsd_run_simulation's final
 * state and event count exactly (so the replayed loop is the one `nsdyn
 * run` executes).
 *
 * The recording run also samples q (x_hip, y_hip, theta1, theta2) on a grid
 * of --grid-dt (default 1 ms) from the integrator's dense output, as run.c
 * samples at run.output_dt; walker_compare.py measures the accuracy on it.
 *
 * Usage: bench_walker_bdf CONFIG [--set section.key=value]... [--reps N]
 *                         [--json FILE] [--grid-dt S]
 *
 * If core/src/runner/run.c's stepping loop changes, timed_run() must follow it, or
 * the check against nsd_run_simulation fails.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "model.h"
#include "run.h"
#include "param_fields.h"

#define MAX_SETS 32
#define MAX_SWITCHES 4096

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int all_finite(const double *y, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(y[i])) return 0;
    return 1;
}

typedef struct switch_rec {
    double t;
    int event;   /* index into the model's events: stops, then switches */
    int applied; /* the system's mode changed (recording run only) */
} switch_rec;

typedef struct run_out {
    double wall; /* s: setup + stepping loop */
    double t;    /* time reached */
    double *y;   /* final state (m->n) */
    int outcome; /* NSD_RUN_COMPLETE / STOPPED / FAILED */
    char message[600];
    nsdyn_integrator_stats stats;
    size_t n_sw;
    switch_rec sw[MAX_SWITCHES];
    size_t n_grid;  /* recording run: q on the grid t_k = t0 + k grid_dt */
    double *grid_q; /* n_grid x nq */
} run_out;

typedef struct bench {
    nsd_app app;
    nsd_model m;
    nsd_data *d; /* the runs' data */
    const nsdyn_integrator *ig;
    void *inst;
    nsdyn_ode ode;
    double t0, t_end;
    double *ybuf, *ydense, *row_before, *row_after;
    int o_stance, o_double; /* channels of the walker's mode outputs, or -1 */
    double grid_dt;         /* s, sampling of the recording run */
    size_t grid_cap;        /* grid points from t0 to t_end */
} bench;

/* Recording run: q at the grid points in (t_prev, t] of the step just
 * taken, from the integrator's dense output (as run.c samples). */
static void sample_grid(bench *b, run_out *o, double t, const double *y) {
    const size_t nq = b->m.nq;
    for (;;) {
        double tk = b->t0 + (double)o->n_grid * b->grid_dt;
        if (o->n_grid >= b->grid_cap || tk > t + 1e-9 * b->grid_dt) break;
        const double *ys = y;
        if (tk < t) {
            ys = b->ydense;
            if (b->ig->dense(b->inst, tk, b->ydense) > NSDYN_WARNING)
                for (size_t i = 0; i < nq; ++i) b->ydense[i] = NAN; /* shows in the comparison */
        }
        memcpy(o->grid_q + o->n_grid * nq, ys, nq * sizeof *ys);
        o->n_grid++;
    }
}

/* One run from the initial state (the stepping loop of run.c without
 * sampling). `record` (the untimed recording run only): also sample q on
 * the grid, and the system's outputs before and after each switch to see
 * whether it changed the mode. */
static void timed_run(bench *b, int record, run_out *o) {
    nsd_model *m = &b->m;
    const nsdyn_integrator *ig = b->ig;
    void *inst = b->inst;
    const size_t n = m->n;
    o->outcome = NSD_RUN_COMPLETE;
    o->message[0] = '\0';
    o->n_sw = 0;
    o->n_grid = 0;
    if (m->sys->info.reset) m->sys->info.reset(b->d->sys_inst); /* initial mode, no steps */

    double w0 = now_s();
    double t = b->t0;
    const double *y_last = m->y0;
    if (ig->setup(inst, &b->ode, b->t0, m->y0, b->t_end) > NSDYN_WARNING) {
        o->outcome = NSD_RUN_FAILED;
        snprintf(o->message, sizeof o->message, "setup: %s", ig->message(inst));
        goto done;
    }
    if (record) sample_grid(b, o, t, m->y0);
    while (t < b->t_end) {
        nsdyn_step_report rep = {0};
        rep.event = -1;
        nsdyn_status st = ig->step(inst, b->t_end, &rep);
        if (st > NSDYN_WARNING || !all_finite(rep.y, n)) {
            o->outcome = NSD_RUN_FAILED;
            snprintf(o->message, sizeof o->message, "failed at t = %.9g s: %s", t,
                     st > NSDYN_WARNING ? ig->message(inst) : "non-finite state");
            break;
        }
        if (record) sample_grid(b, o, rep.t, rep.y);
        t = rep.t;
        y_last = rep.y;
        int fired = rep.event;
        if (fired < 0) continue;
        if (fired < (int)m->layout.n_stops) {
            o->outcome = NSD_RUN_STOPPED;
            snprintf(o->message, sizeof o->message, "stop condition '%s' at t = %.9g s",
                     m->layout.stops[fired], t);
            break;
        }
        /* A mode switch: update the mode, restart the integrator (run.c). */
        memcpy(b->ybuf, rep.y, n * sizeof *b->ybuf);
        size_t which = (size_t)fired - m->layout.n_stops;
        if (record) nsd_model_sample(m, b->d, t, b->ybuf, b->row_before);
        st = m->sys->on_switch(b->d->sys_inst, which, t, b->ybuf, b->ybuf + m->nq);
        if (st <= NSDYN_WARNING) st = ig->restart(inst, t, b->ybuf);
        if (st > NSDYN_WARNING) {
            o->outcome = NSD_RUN_FAILED;
            snprintf(o->message, sizeof o->message, "switch '%s' failed at t = %.9g s: %s",
                     m->layout.switches[which], t, ig->message(inst));
            break;
        }
        y_last = b->ybuf;
        if (o->n_sw < MAX_SWITCHES) {
            switch_rec *r = &o->sw[o->n_sw++];
            r->t = t;
            r->event = fired;
            r->applied = -1;
            if (record) {
                nsd_model_sample(m, b->d, t, b->ybuf, b->row_after);
                int s = b->o_stance, d = b->o_double;
                r->applied =
                    s >= 0 && d >= 0 &&
                    (b->row_before[s] != b->row_after[s] || b->row_before[d] != b->row_after[d]);
            }
        }
    }
done:
    o->wall = now_s() - w0;
    o->t = t;
    memcpy(o->y, y_last, n * sizeof *o->y);
    o->stats.struct_size = sizeof o->stats;
    ig->stats(inst, &o->stats);
}

static int usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s CONFIG [--set section.key=value]... [--reps N] [--json FILE] "
            "[--grid-dt S]\n",
            argv0);
    return 2;
}

/* The switch recorded in r is a heel strike that changed the mode. */
static int is_heel_strike(const nsd_model *m, const switch_rec *r) {
    return r->applied == 1 &&
           strcmp(m->layout.switches[r->event - (int)m->layout.n_stops], "heel_strike") == 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void json_params(FILE *f, const char *section, const nsd_section *s, int *first) {
    if (!s->plugin) return;
    for (size_t i = 0; i < s->params.n; ++i) {
        const nsdyn_param_decl *d = &s->params.decls[i];
        if (d->type == NSDYN_PARAM_REAL_ARRAY) continue;
        fprintf(f, "%s\n  \"%s.%s\": %.17g", *first ? "" : ",", section, d->name,
                s->params.values[i].num);
        *first = 0;
    }
}

static void json_array(FILE *f, const char *key, const double *y, size_t n) {
    fprintf(f, " \"%s\": [", key);
    for (size_t i = 0; i < n; ++i) fprintf(f, "%s%.17g", i ? ", " : "", y[i]);
    fprintf(f, "],\n");
}

int main(int argc, char **argv) {
    const char *config = NULL, *json = NULL;
    const char *sets[MAX_SETS];
    size_t n_sets = 0;
    int reps = 7;
    double grid_dt = 1e-3;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--set") == 0 && i + 1 < argc && n_sets < MAX_SETS)
            sets[n_sets++] = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else if (strcmp(argv[i], "--grid-dt") == 0 && i + 1 < argc)
            grid_dt = atof(argv[++i]);
        else if (argv[i][0] != '-' && !config)
            config = argv[i];
        else
            return usage(argv[0]);
    }
    if (!config || reps < 1 || !(grid_dt > 0)) return usage(argv[0]);

    bench b = {0};
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(&b.app, config, sets, n_sets, &diag);
    if (!errors) errors = nsd_model_create(&b.m, &b.app.cfg, &diag);
    if (!errors) b.d = nsd_data_create(&b.m, &b.app.host, NULL, 0);
    if (!errors && !b.d) errors = 1;
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    if (errors) {
        fprintf(stderr, "bench_walker_bdf: the config did not load (%zu errors)\n", errors);
        return 2;
    }
    nsd_model *m = &b.m;
    b.ig = (const nsdyn_integrator *)b.app.cfg.integrator.plugin->info;
    if (!(b.ig->info.provides & NSDYN_CAP_EVENT_LOCATION)) {
        fprintf(stderr,
                "bench_walker_bdf: integrator '%s' does not locate events; the replayed "
                "loop handles only integrators that do (bdf, dopri5)\n",
                b.ig->info.id);
        return 2;
    }
    char err[512] = "";
    b.inst = nsd_plugin_create(&b.ig->info, b.app.cfg.integrator.params.values, &b.app.host, err,
                               sizeof err);
    if (!b.inst) {
        fprintf(stderr, "bench_walker_bdf: integrator create failed: %s\n", err);
        return 2;
    }
    nsd_model_ode(m, b.d, &b.ode);
    b.t0 = b.app.cfg.settings.t_start;
    b.t_end = b.app.cfg.settings.t_end;
    b.ybuf = calloc(m->n, sizeof *b.ybuf);
    b.ydense = calloc(m->n, sizeof *b.ydense);
    b.grid_dt = grid_dt;
    b.grid_cap = (size_t)floor((b.t_end - b.t0) / grid_dt * (1 + 1e-12)) + 1;
    b.row_before = calloc(m->n_channels, sizeof *b.row_before);
    b.row_after = calloc(m->n_channels, sizeof *b.row_after);
    b.o_stance = nsd_model_channel(m, "stance");
    b.o_double = nsd_model_channel(m, "double_support");
    run_out *rec = calloc(1, sizeof *rec), *o = calloc(1, sizeof *o);
    double *walls = calloc((size_t)reps, sizeof *walls);
    if (!b.ybuf || !b.row_before || !b.row_after || !rec || !o || !walls) abort();
    rec->y = calloc(m->n, sizeof(double));
    rec->grid_q = calloc(b.grid_cap * m->nq, sizeof(double));
    o->y = calloc(m->n, sizeof(double));
    if (!rec->y || !o->y || !rec->grid_q || !b.ydense) abort();
    int failures = 0;

    /* Recording run (untimed; also the warm-up). */
    timed_run(&b, 1, rec);
    if (rec->outcome != NSD_RUN_COMPLETE) {
        fprintf(stderr, "bench_walker_bdf: the run did not complete: %s\n", rec->message);
        return 1;
    }

    /* Timed runs. */
    for (int r = 0; r < reps; ++r) {
        timed_run(&b, 0, o);
        walls[r] = o->wall;
        double d = 0.0;
        for (size_t i = 0; i < m->n; ++i) d = fmax(d, fabs(o->y[i] - rec->y[i]));
        if (o->outcome != rec->outcome || o->t != rec->t || d != 0.0 ||
            o->stats.steps != rec->stats.steps || o->n_sw != rec->n_sw) {
            fprintf(stderr, "FAIL: timed run %d differs from the recording run (max |dy| = %.3g)\n",
                    r, d);
            failures++;
        }
    }
    double best = walls[0];
    for (int r = 1; r < reps; ++r) best = fmin(best, walls[r]);
    double *sorted = malloc((size_t)reps * sizeof *sorted);
    if (!sorted) abort();
    memcpy(sorted, walls, (size_t)reps * sizeof *sorted);
    qsort(sorted, (size_t)reps, sizeof *sorted, cmp_double);
    double median = reps % 2 ? sorted[reps / 2] : 0.5 * (sorted[reps / 2 - 1] + sorted[reps / 2]);
    free(sorted);

    /* The real runner once (untimed; it samples at run.output_dt): the
     * replayed loop must reproduce it. */
    if (m->sys->info.reset) m->sys->info.reset(b.d->sys_inst);
    nsd_run_result res;
    diag = (nsd_diag){0};
    if (nsd_run_simulation(m, b.d, &b.app.cfg, &b.app.host, NULL, &res, &diag) != 0 ||
        res.outcome != NSD_RUN_COMPLETE || res.series.rows == 0) {
        fprintf(stderr, "FAIL: nsd_run_simulation did not complete: %s\n", res.message);
        failures++;
    } else {
        const double *last = res.series.data + (res.series.rows - 1) * res.series.n_channels;
        double d = 0.0;
        for (size_t i = 0; i < m->n; ++i) d = fmax(d, fabs(last[1 + i] - rec->y[i]));
        if (d != 0.0 || last[0] != rec->t || res.stats.steps != rec->stats.steps ||
            res.n_events != rec->n_sw) {
            fprintf(stderr,
                    "FAIL: the replayed loop differs from nsd_run_simulation: max |dy| = %.3g, "
                    "steps %llu vs %llu, events %zu vs %zu\n",
                    d, (unsigned long long)rec->stats.steps, (unsigned long long)res.stats.steps,
                    rec->n_sw, res.n_events);
            failures++;
        }
    }
    nsd_diag_free(&diag);
    nsd_run_result_free(&res);

    /* Report. */
    const nsd_params *ip = &b.app.cfg.integrator.params;
    double rtol = NAN, atol = NAN, max_step = NAN;
    for (size_t i = 0; i < ip->n; ++i) {
        if (strcmp(ip->decls[i].name, "rtol") == 0) rtol = ip->values[i].num;
        if (strcmp(ip->decls[i].name, "atol") == 0) atol = ip->values[i].num;
        if (strcmp(ip->decls[i].name, "max_step") == 0) max_step = ip->values[i].num;
    }
    size_t n_hs = 0;
    for (size_t k = 0; k < rec->n_sw; ++k) n_hs += (size_t)is_heel_strike(m, &rec->sw[k]);
    char ms[32] = "unlimited";
    if (max_step > 0) snprintf(ms, sizeof ms, "%g s", max_step);
    printf("nsdyn %s (%s): rtol %g, atol %g, max_step %s, t = %g .. %g s\n", b.ig->info.id,
           b.app.cfg.path, rtol, atol, ms, b.t0, b.t_end);
    printf(
        "  wall time best %.2f ms, median %.2f ms (%d runs; setup + stepping loop, no sampling)\n",
        1e3 * best, 1e3 * median, reps);
    printf("  steps %llu, rhs evaluations %llu (difference-quotient Jacobians included), Jacobians "
           "%llu, rejected %llu, event-function evaluations %llu\n",
           (unsigned long long)rec->stats.steps, (unsigned long long)rec->stats.rhs_evals,
           (unsigned long long)rec->stats.jacobian_evals,
           (unsigned long long)rec->stats.rejected_steps,
           (unsigned long long)rec->stats.event_evals);
    printf("  heel strikes %zu at t =", n_hs);
    for (size_t k = 0, j = 0; k < rec->n_sw; ++k)
        if (is_heel_strike(m, &rec->sw[k])) printf("%s %.6f", j++ ? "," : "", rec->sw[k].t);
    printf(" s\n  final state");
    for (size_t i = 0; i < m->n; ++i) printf("%s %.9g", i ? "," : "", rec->y[i]);
    printf("\n");

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 2;
        }
        fprintf(f, "{\n \"solver\": \"nsdyn %s\",\n \"outcome\": \"complete\",\n", b.ig->info.id);
        fprintf(f, " \"rtol\": %.17g, \"atol\": %.17g, \"max_step\": %.17g, \"t_end\": %.17g,\n",
                rtol, atol, max_step, b.t_end);
        fprintf(f, " \"wall_best\": %.9g, \"wall_median\": %.9g,\n", best, median);
        fprintf(f, " \"walls\": [");
        for (int r = 0; r < reps; ++r) fprintf(f, "%s%.9g", r ? ", " : "", walls[r]);
        fprintf(f, "],\n");
        fprintf(f,
                " \"steps\": %llu, \"rhs_evals\": %llu, \"jacobian_evals\": %llu, "
                "\"rejected_steps\": %llu, \"event_evals\": %llu,\n",
                (unsigned long long)rec->stats.steps, (unsigned long long)rec->stats.rhs_evals,
                (unsigned long long)rec->stats.jacobian_evals,
                (unsigned long long)rec->stats.rejected_steps,
                (unsigned long long)rec->stats.event_evals);
        fprintf(f, " \"t\": %.17g,\n", rec->t);
        json_array(f, "y", rec->y, m->n);
        json_array(f, "y0", m->y0, m->n);
        fprintf(f, " \"heel_strikes\": %zu,\n \"switches\": [", n_hs);
        for (size_t k = 0; k < rec->n_sw; ++k)
            fprintf(f, "%s\n  {\"t\": %.17g, \"event\": \"%s\", \"applied\": %s}", k ? "," : "",
                    rec->sw[k].t, m->layout.switches[rec->sw[k].event - m->layout.n_stops],
                    rec->sw[k].applied ? "true" : "false");
        fprintf(f, "],\n \"grid_dt\": %.17g,\n \"grid_q\": [", b.grid_dt);
        for (size_t k = 0; k < rec->n_grid; ++k) {
            fprintf(f, "%s[", k ? ",\n  " : "\n  ");
            for (size_t i = 0; i < m->nq; ++i)
                fprintf(f, "%s%.17g", i ? ", " : "", rec->grid_q[k * m->nq + i]);
            fprintf(f, "]");
        }
        fprintf(f, "],\n \"params\": {");
        int first = 1;
        json_params(f, "system", &b.app.cfg.system, &first);
        json_params(f, "contact", &b.app.cfg.contact, &first);
        json_params(f, "friction", &b.app.cfg.friction, &first);
        fprintf(f, "\n }\n}\n");
        fclose(f);
    }

    free(walls);
    free(rec->y);
    free(rec->grid_q);
    free(o->y);
    free(rec);
    free(o);
    free(b.ybuf);
    free(b.ydense);
    free(b.row_before);
    free(b.row_after);
    b.ig->info.destroy(b.inst);
    nsd_data_destroy(m, b.d);
    nsd_model_destroy(m);
    nsd_app_free(&b.app);
    if (failures) fprintf(stderr, "%d check(s) FAILED\n", failures);
    return failures ? 1 : 0;
}
