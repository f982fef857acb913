/* Benchmark (not a test): the towed wheel with rk4, composed through the
 * plugin ABI versus the same equations and integrator fused into one loop.
 *
 * Problem: towed_wheel (B2 = 0.8, unstable rolling; m = 10, L = 0.5,
 * k = 2000, C = 100, v = 2, B1 = B3 = B4 = B5 = 1), coulomb_regularized
 * friction (mu_s = mu_k = 1, eps = 1e-3 m/s, shape sqrt), rk4 with
 * h = 1e-4 s, psi(0) = 0.01 rad, t from 0 to 20 s: 200 000 steps.
 *
 * composed  The config is loaded with nsd_app_load + nsd_model_create (the
 *           path `nsdyn run` takes), the rk4 plugin is created and set up
 *           through the nsdyn_integrator ABI with the model's nsdyn_ode
 *           (nsd_model_rhs, nsd_model_event_functions), and the stepping loop of
 *           core/src/runner/run.c is replayed without output sampling: per step
 *           nsd_ig_step() (the host's protocol wrapper, integrator_calls.h,
 *           around ig->step()), the status check, the finite check of the new
 *           state, the copy to the last good state, and (rk4 has no event
 *           location) the runner's own stop-condition check through
 *           nsd_model_event_functions(). Timed: that loop, from t = 0 to t_end.
 *           Not timed: create/setup (they may allocate), sampling, output.
 * bare      Only `ig->step()` in a loop (no runner work): splits the cost of
 *           the runner from the cost of the integrator plus the model.
 * fused     One C function: the same equations (paper (1) with
 *           F = -mu_k C u / sqrt(u1^2 + u2^2 + eps^2)) written as a person
 *           would by hand, classic RK4 with the same step and last-step rule
 *           as plugins/integrators/rk4.c, and the jackknife stop condition
 *           checked once per step. Everything inline, no function pointers,
 *           no finite checks. The parameters are read at run time from the
 *           loaded config, so nothing is constant-folded that the plugins
 *           cannot fold. This is the reference of the 1.15 target.
 *
 * Checks (exit status 1 when one fails):
 *  - the composed loop reproduces nsd_run_simulation's final state exactly;
 *  - composed and fused final states agree (max abs difference <= 1e-9)
 *    after the same number of steps;
 *  - the hot path allocates nothing: malloc/calloc/realloc/aligned
 *    allocations are counted by interposers defined in this executable
 *    (linked with ENABLE_EXPORTS, so they also replace libc's for
 *    libnsdyn.so and the dlopen'ed plugins) while the composed loops run.
 *    The interposer proves it sees the plugins by counting rk4's own
 *    malloc in setup().
 * The time ratio composed/fused is reported against the target 1.15 as
 * PASS or OVER TARGET; it does not change the exit status (timings depend
 * on the machine).
 *
 * Usage: bench_towed_wheel_rk4 [repetitions]   (default 7, best of)
 *        bench_towed_wheel_rk4 N composed|bare|fused
 *            runs only that variant N times, no checks (for perf record).
 *
 * When core/src/runner/run.c's stepping loop or rk4.c's step rule changes,
 * composed_run() and fused_run() must follow, or the checks fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "finite.h"
#include "model.h"
#include "run.h"

/* ---- allocation counting ---------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_COUNT_ALLOCS 0
#endif
#endif
#ifndef BENCH_COUNT_ALLOCS
#define BENCH_COUNT_ALLOCS 1
#endif

/* The allocation probe (core/probe/alloc_probe.c, linked into this
 * executable with ENABLE_EXPORTS: its malloc & co. also serve libnsdyn.so
 * and the dlopen'ed plugins). g_allocs accumulates what the probe saw
 * between count_start() and count_stop(). */
#if BENCH_COUNT_ALLOCS
#include "alloc_probe.h"
#include "param_fields.h"
static uint64_t g_allocs;
static void count_start(void) { nsd_alloc_probe_get()->start(); }
static void count_stop(void) { g_allocs += nsd_alloc_probe_get()->stop(); }
#else
static uint64_t g_allocs;
static void count_start(void) {}
static void count_stop(void) {}
#endif

/* ---- timing ------------------------------------------------------------ */

/* Two clocks per timed loop: the thread's CPU time, which does not count
 * the time the thread waits while other processes run (the machine is
 * shared: wall-clock repetitions that lost the CPU are slow at random), and
 * the wall clock. The CPU time is the primary figure. Neither clock is
 * read inside the loops. */
typedef struct stamp {
    double cpu, wall; /* [ns] */
} stamp;

static double clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static stamp now_ns(void) {
    return (stamp){clock_ns(CLOCK_THREAD_CPUTIME_ID), clock_ns(CLOCK_MONOTONIC)};
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the composed run --------------------------------------------------- */

static const char *const config_text =
    "title = \"bench: towed wheel, rk4\"\n"
    "[system]\nid = \"towed_wheel\"\nm = 10.0\nL = 0.5\nk = 2000.0\nC = 100.0\nv = 2.0\n"
    "B1 = 1.0\nB2 = 0.8\nB3 = 1.0\nB4 = 1.0\nB5 = 1.0\n"
    "[friction]\nid = \"coulomb_regularized\"\nmu_s = 1.0\nmu_k = 1.0\neps = 1e-3\nshape = "
    "\"sqrt\"\n"
    "[integrator]\nid = \"rk4\"\nh = 1e-4\n"
    "[initial]\npsi = 0.01\n"
    "[run]\nt_end = 20.0\noutput_dt = 0.01\nprogress = false\n";

typedef struct composed {
    nsd_app app;
    nsd_model m;
    nsd_data *d; /* the runs' data */
    const nsdyn_integrator *ig;
    void *inst;
    nsd_ig_call call; /* the host's calls into ig, as run.c makes them */
    nsdyn_ode ode, ode_ig;
    double t0, t_end;
    double *g, *g_prev;
} composed;

typedef struct run_out {
    double ns;      /* CPU time of the stepping loop (thread CPU clock) */
    double wall_ns; /* its wall-clock time */
    uint64_t steps;
    double t;    /* time reached */
    double y[8]; /* final state */
    int stopped; /* a stop condition fired */
} run_out;

static int composed_load(composed *c) {
    char path[] = "/tmp/nsdyn-bench-XXXXXX.toml";
    int fd = mkstemps(path, 5);
    if (fd < 0) {
        perror("mkstemps");
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    fputs(config_text, f);
    fclose(f);
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(&c->app, path, NULL, 0, &diag);
    if (!errors) errors = nsd_model_create(&c->m, &c->app.cfg, &diag);
    if (!errors) c->d = nsd_data_create(&c->m, &c->app.host, NULL, 0);
    if (!errors && !c->d) errors = 1;
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    remove(path);
    if (errors) {
        fprintf(stderr, "bench: the config did not load (%zu errors)\n", errors);
        return -1;
    }
    if (c->m.n > 8) {
        fprintf(stderr, "bench: unexpected state size %zu\n", c->m.n);
        return -1;
    }
    c->ig = (const nsdyn_integrator *)c->app.cfg.integrator.plugin->info;
    char err[512] = "";
    c->inst = nsd_plugin_create(&c->ig->info, c->app.cfg.integrator.params.values, &c->app.host,
                                err, sizeof err);
    if (!c->inst) {
        fprintf(stderr, "bench: rk4 create failed: %s\n", err);
        return -1;
    }
    nsd_model_ode(&c->m, c->d, &c->ode);
    c->ode_ig = c->ode; /* as run.c: a non-locating integrator gets no events */
    if (!(c->ig->info.provides & NSDYN_CAP_EVENT_LOCATION)) c->ode_ig.n_events = 0;
    c->t0 = c->app.cfg.settings.t_start;
    c->t_end = c->app.cfg.settings.t_end;
    c->g = calloc(c->ode.n_events ? c->ode.n_events : 1, sizeof *c->g);
    c->g_prev = calloc(c->ode.n_events ? c->ode.n_events : 1, sizeof *c->g_prev);
    if (!c->g || !c->g_prev) abort();
    return 0;
}

static void composed_free(composed *c) {
    if (c->inst) c->ig->info.destroy(c->inst);
    free(c->g);
    free(c->g_prev);
    nsd_data_destroy(&c->m, c->d);
    nsd_model_destroy(&c->m);
    nsd_app_free(&c->app);
}

/* As run.c: one test per step (finite.h). */
static int all_finite(const double *y, size_t n) { return nsd_first_nonfinite(y, n) == n; }

/* Set up rk4 (not timed; returns the allocations it made, to prove the
 * interposer sees the plugin's malloc). */
static int composed_setup(composed *c, uint64_t *setup_allocs) {
    uint64_t before = g_allocs;
    count_start();
    nsd_ig_bind(&c->call, c->ig, c->inst);
    nsdyn_status st = nsd_ig_setup(&c->call, &c->ode_ig, c->t0, c->m.y0, c->t_end);
    count_stop();
    if (setup_allocs) *setup_allocs = g_allocs - before;
    if (st > NSDYN_WARNING) {
        fprintf(stderr, "bench: rk4 setup failed: %s\n", nsd_ig_message(&c->call));
        return -1;
    }
    if (c->ode.n_events) nsd_model_event_functions(&c->m, c->d, c->t0, c->m.y0, c->g_prev);
    return 0;
}

/* The stepping loop of nsd_run_simulation (core/src/runner/run.c) without output
 * sampling and progress. Counts allocations while it runs. */
static int composed_run(composed *c, run_out *o) {
    const nsdyn_integrator *ig = c->ig;
    nsd_model *m = &c->m;
    const int locates = (ig->info.provides & NSDYN_CAP_EVENT_LOCATION) != 0;
    const size_t n = m->n, ne = c->ode.n_events;
    double t = c->t0, t_end = c->t_end;
    uint64_t steps = 0;
    int stopped = 0, failed = 0;
    const double *y_last = m->y0; /* as run.c: the report's y, no copy */

    count_start();
    stamp t_start = now_ns();
    while (t < t_end) {
        nsdyn_step_report rep = {0};
        rep.event = -1;
        nsdyn_status st = nsd_ig_step(&c->call, t_end, &rep);
        if (st > NSDYN_WARNING || !all_finite(rep.y, n)) {
            failed = 1;
            break;
        }
        t = rep.t;
        steps++;
        y_last = rep.y;
        int fired = rep.event;
        if (fired < 0 && !locates && ne) {
            if (nsd_model_event_functions(m, c->d, t, rep.y, c->g) <= NSDYN_WARNING)
                for (size_t i = 0; i < ne && fired < 0; ++i) {
                    int dir = c->ode.event_direction[i];
                    int down = c->g_prev[i] > 0 && c->g[i] <= 0,
                        up = c->g_prev[i] < 0 && c->g[i] >= 0;
                    if ((dir <= 0 && down) || (dir >= 0 && up)) fired = (int)i;
                }
            double *seen = c->g; /* as run.c: swap, no copy */
            c->g = c->g_prev;
            c->g_prev = seen;
        }
        if (fired >= 0) {
            stopped = 1;
            break;
        }
    }
    stamp t_stop = now_ns();
    count_stop();

    if (failed) {
        fprintf(stderr, "bench: composed run failed at t = %.9g s: %s %s\n", t,
                nsd_ig_message(&c->call), c->d->failure);
        return -1;
    }
    o->ns = t_stop.cpu - t_start.cpu;
    o->wall_ns = t_stop.wall - t_start.wall;
    o->steps = steps;
    o->t = t;
    o->stopped = stopped;
    memcpy(o->y, y_last, n * sizeof *o->y);
    return 0;
}

/* Only the integrator's step() (no runner work). */
static int bare_run(composed *c, run_out *o) {
    const nsdyn_integrator *ig = c->ig;
    void *inst = c->inst;
    double t = c->t0, t_end = c->t_end;
    uint64_t steps = 0;
    nsdyn_step_report rep = {0};
    count_start();
    stamp t_start = now_ns();
    while (t < t_end) {
        if (ig->step(inst, t_end, &rep) > NSDYN_WARNING) break;
        t = rep.t;
        steps++;
    }
    stamp t_stop = now_ns();
    count_stop();
    if (t < t_end) {
        fprintf(stderr, "bench: bare run failed at t = %.9g s: %s\n", t, ig->message(inst));
        return -1;
    }
    o->ns = t_stop.cpu - t_start.cpu;
    o->wall_ns = t_stop.wall - t_start.wall;
    o->steps = steps;
    o->t = t;
    o->stopped = 0;
    memcpy(o->y, rep.y, c->m.n * sizeof *o->y);
    return 0;
}

/* ---- the fused loop ------------------------------------------------------ */

typedef struct fused_params {
    double m, L, k, C, v, B1, B2, B3, B4, B5, psi_max; /* towed wheel */
    double mu_k, eps;                                  /* friction, shape sqrt */
    double h;                                          /* rk4 step */
} fused_params;

/* Paper (1) with the sqrt-regularized Coulomb force, y = (psi, w, Omega,
 * u1, u2). The equations are written as towed_wheel.c and coulomb.c write
 * them (same operations, same order), so the run agrees with the composed
 * one to the bit and the comparison measures composition alone. */
static inline __attribute__((always_inline)) void fused_rhs(const fused_params *p, const double *y,
                                                            double *yd) {
    const double psi = y[0], w = y[1], Omega = y[2], u1 = y[3], u2 = y[4];
    const double m = p->m, L = p->L, k = p->k, V = p->v;
    const double F = p->mu_k * p->C;
    const double gain = F / sqrt(u1 * u1 + u2 * u2 + p->eps * p->eps);
    const double F1 = -gain * u1, F2 = -gain * u2;
    const double sn = sin(psi), cs = cos(psi);
    yd[0] = Omega;
    yd[1] = V * sn + L * Omega + u2;
    yd[2] = -p->B1 * k * w / (m * L) - p->B2 * F2 / (m * L);
    yd[3] = -V * Omega * sn + p->B3 * F1 / m;
    yd[4] = -V * Omega * cs - p->B4 * k * w / m + p->B5 * F2 / m;
}

/* Classic RK4 from t0 to t_end with rk4.c's step rule (steps land on the
 * grid t0 + k h computed from the step count; the last lands on t_end, a
 * remainder below 1e-9 h is merged), stopping when the
 * jackknife condition psi_max - |psi| falls through zero. Not inlined into
 * main, so its code does not depend on the caller and perf shows it apart. */
__attribute__((noinline)) static void fused_run(const fused_params *p, double t0, double t_end,
                                                const double *y0, run_out *o) {
    double y[5], yt[5], k1[5], k2[5], k3[5], k4[5];
    for (int i = 0; i < 5; ++i) y[i] = y0[i];
    double t = t0, g_prev = p->psi_max - fabs(y[0]);
    uint64_t steps = 0;
    int stopped = 0;
    const double H = p->h;

    stamp t_start = now_ns();
    while (t < t_end) {
        /* rk4.c's rule: the next grid point t0 + k H, or t_end. */
        double t_grid = t0 + (double)(steps + 1) * H, h, t_land;
        if (t_grid >= t_end || t_end - t_grid < 1e-9 * H) {
            h = t_end - t;
            t_land = t_end;
        } else {
            h = t_grid - t;
            t_land = t_grid;
        }
        const double h2 = 0.5 * h;
        fused_rhs(p, y, k1);
        for (int i = 0; i < 5; ++i) yt[i] = y[i] + h2 * k1[i];
        fused_rhs(p, yt, k2);
        for (int i = 0; i < 5; ++i) yt[i] = y[i] + h2 * k2[i];
        fused_rhs(p, yt, k3);
        for (int i = 0; i < 5; ++i) yt[i] = y[i] + h * k3[i];
        fused_rhs(p, yt, k4);
        const double h6 = h / 6.0;
        for (int i = 0; i < 5; ++i) y[i] = y[i] + h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
        t = t_land;
        steps++;
        const double g = p->psi_max - fabs(y[0]);
        if (g_prev > 0 && g <= 0) {
            stopped = 1;
            break;
        }
        g_prev = g;
    }
    stamp t_stop = now_ns();

    o->ns = t_stop.cpu - t_start.cpu;
    o->wall_ns = t_stop.wall - t_start.wall;
    o->steps = steps;
    o->t = t;
    o->stopped = stopped;
    for (int i = 0; i < 5; ++i) o->y[i] = y[i];
}

/* A parameter of a loaded section by name. */
static int param(const nsd_section *s, const char *name, double *out) {
    for (size_t i = 0; i < s->params.n; ++i)
        if (strcmp(s->params.decls[i].name, name) == 0) {
            *out = s->params.values[i].num;
            return 0;
        }
    fprintf(stderr, "bench: plugin '%s' has no parameter '%s'\n", s->plugin->info->id, name);
    return -1;
}

static int fused_params_from(const nsd_config *cfg, fused_params *p) {
    double shape = -1;
    int bad = 0;
    bad |= param(&cfg->system, "m", &p->m) | param(&cfg->system, "L", &p->L);
    bad |= param(&cfg->system, "k", &p->k) | param(&cfg->system, "C", &p->C);
    bad |= param(&cfg->system, "v", &p->v) | param(&cfg->system, "psi_max", &p->psi_max);
    bad |= param(&cfg->system, "B1", &p->B1) | param(&cfg->system, "B2", &p->B2);
    bad |= param(&cfg->system, "B3", &p->B3) | param(&cfg->system, "B4", &p->B4);
    bad |= param(&cfg->system, "B5", &p->B5);
    bad |= param(&cfg->friction, "mu_k", &p->mu_k) | param(&cfg->friction, "eps", &p->eps);
    bad |= param(&cfg->friction, "shape", &shape);
    bad |= param(&cfg->integrator, "h", &p->h);
    if (!bad && shape != 0) {
        fprintf(stderr, "bench: friction shape is not sqrt\n");
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* ---- main ---------------------------------------------------------------- */

static double max_abs_diff(const double *a, const double *b, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* One variant's repetitions, ns per step by each clock, and their best and
 * median. */
typedef struct timing {
    double *cpu, *wall;
    double best, median;           /* CPU time */
    double wall_best, wall_median; /* wall clock */
} timing;

static int timing_alloc(timing *tm, int reps) {
    tm->cpu = calloc((size_t)reps, sizeof(double));
    tm->wall = calloc((size_t)reps, sizeof(double));
    return tm->cpu && tm->wall ? 0 : -1;
}

static void timing_add(timing *tm, int r, const run_out *o) {
    tm->cpu[r] = o->ns / (double)o->steps;
    tm->wall[r] = o->wall_ns / (double)o->steps;
}

static void timing_finish(timing *tm, int reps) {
    qsort(tm->cpu, (size_t)reps, sizeof(double), cmp_double);
    qsort(tm->wall, (size_t)reps, sizeof(double), cmp_double);
    tm->best = tm->cpu[0];
    tm->median = tm->cpu[reps / 2];
    tm->wall_best = tm->wall[0];
    tm->wall_median = tm->wall[reps / 2];
}

static void timing_free(timing *tm) {
    free(tm->cpu);
    free(tm->wall);
}

/* The timing table and the verdict against the target. */
static void report_timings(timing *tc, timing *tb, timing *tf, int reps, double target) {
    timing_finish(tc, reps);
    timing_finish(tb, reps);
    timing_finish(tf, reps);
    printf("\n%-52s %8s %8s %12s\n", "ns per step (4 right-hand sides), thread CPU time", "best",
           "median", "best/fused");
    printf("%-52s %8.1f %8.1f %12.3f\n", "composed: plugin ABI, run.c loop without sampling",
           tc->best, tc->median, tc->best / tf->best);
    printf("%-52s %8.1f %8.1f %12.3f\n", "bare: ig->step() only", tb->best, tb->median,
           tb->best / tf->best);
    printf("%-52s %8.1f %8.1f %12.3f\n", "fused: one C loop", tf->best, tf->median, 1.0);
    double ratio = tc->best / tf->best;
    printf("\nratio composed/fused = %.3f (medians: %.3f): %s (target <= %.2f)\n", ratio,
           tc->median / tf->median, ratio <= target ? "PASS" : "OVER TARGET", target);
    printf("runner share (composed - bare) = %.1f ns/step\n", tc->best - tb->best);
    printf("wall clock, best (median): composed %.1f (%.1f), bare %.1f (%.1f), fused %.1f (%.1f) "
           "ns/step; ratio %.3f (medians %.3f)\n",
           tc->wall_best, tc->wall_median, tb->wall_best, tb->wall_median, tf->wall_best,
           tf->wall_median, tc->wall_best / tf->wall_best, tc->wall_median / tf->wall_median);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 7;
    if (reps < 1) reps = 1;
    /* Profiling aid: run only one variant (no checks, no report). */
    const char *only = argc > 2 ? argv[2] : NULL;
    const double target = 1.15, agree_tol = 1e-9;
    int failures = 0;

    composed c;
    memset(&c, 0, sizeof c);
    if (composed_load(&c) != 0) return 2;
    nsd_model *m = &c.m;
    const size_t n = m->n;
    fused_params fp;
    if (fused_params_from(&c.app.cfg, &fp) != 0) return 2;

    if (only) {
        run_out o;
        for (int r = 0; r < reps; ++r) {
            if (strcmp(only, "composed") == 0 || strcmp(only, "bare") == 0) {
                if (composed_setup(&c, NULL) != 0) return 2;
                if ((only[0] == 'c' ? composed_run(&c, &o) : bare_run(&c, &o)) != 0) return 2;
            } else if (strcmp(only, "fused") == 0) {
                fused_run(&fp, c.t0, c.t_end, m->y0, &o);
            } else {
                fprintf(stderr, "usage: %s [repetitions] [composed|bare|fused]\n", argv[0]);
                return 2;
            }
            printf("%s: %.1f ns/step (CPU time), %.1f (wall)\n", only, o.ns / (double)o.steps,
                   o.wall_ns / (double)o.steps);
        }
        composed_free(&c);
        return 0;
    }

    printf("towed wheel (B2 = %g), coulomb_regularized sqrt (eps = %g m/s), rk4 h = %g s, "
           "t = %g .. %g s, psi0 = %g rad\n",
           fp.B2, fp.eps, fp.h, c.t0, c.t_end, m->y0[0]);
    printf("timed: the stepping loop only (no output sampling); best of %d repetitions\n", reps);

    /* Reference: the real runner, once (untimed), to check that the replayed
     * loop is the one `nsdyn run` executes. */
    nsd_run_result res;
    nsd_diag diag = {0};
    if (nsd_run_simulation(m, c.d, &c.app.cfg, &c.app.host, NULL, &res, &diag) != 0 ||
        res.outcome != NSD_RUN_COMPLETE || res.series.rows == 0) {
        fprintf(stderr, "bench: nsd_run_simulation did not complete: %s\n", res.message);
        return 2;
    }
    nsd_diag_free(&diag);
    const double *last = res.series.data + (res.series.rows - 1) * res.series.n_channels;
    double y_runner[8], t_runner = last[0];
    memcpy(y_runner, last + 1, n * sizeof *y_runner);
    uint64_t runner_steps = res.stats.steps;
    nsd_run_result_free(&res);

    timing tc = {0}, tb = {0}, tf = {0};
    if (timing_alloc(&tc, reps) || timing_alloc(&tb, reps) || timing_alloc(&tf, reps)) abort();
    run_out oc = {0}, ob = {0}, of = {0};
    uint64_t setup_allocs = 0, loop_allocs = 0;

    /* One warm-up of each, then alternate so that drift hits all alike. */
    for (int r = -1; r < reps; ++r) {
        uint64_t a;
        if (composed_setup(&c, r < 0 ? &setup_allocs : NULL) != 0) return 2;
        a = g_allocs;
        if (composed_run(&c, &oc) != 0) return 2;
        loop_allocs += g_allocs - a;
        fused_run(&fp, c.t0, c.t_end, m->y0, &of);
        if (composed_setup(&c, NULL) != 0) return 2;
        a = g_allocs;
        if (bare_run(&c, &ob) != 0) return 2;
        loop_allocs += g_allocs - a;
        if (r >= 0) {
            timing_add(&tc, r, &oc);
            timing_add(&tb, r, &ob);
            timing_add(&tf, r, &of);
        }
    }

    /* Agreement. */
    double d_runner = max_abs_diff(oc.y, y_runner, n);
    double d_fused = max_abs_diff(oc.y, of.y, n);
    double d_bare = max_abs_diff(oc.y, ob.y, n);
    printf("\nfinal state at t = %.17g s (%llu steps): psi = %.15g, w = %.15g, Omega = %.15g, "
           "u1 = %.15g, u2 = %.15g\n",
           oc.t, (unsigned long long)oc.steps, oc.y[0], oc.y[1], oc.y[2], oc.y[3], oc.y[4]);
    printf("composed vs nsd_run_simulation: max |dy| = %.3g (steps %llu vs %llu)\n", d_runner,
           (unsigned long long)oc.steps, (unsigned long long)runner_steps);
    if (d_runner != 0 || oc.t != t_runner || oc.steps != runner_steps) {
        printf("  FAIL: the replayed loop does not reproduce the runner\n");
        failures++;
    }
    if (d_bare != 0 || ob.steps != oc.steps) {
        printf("  FAIL: the bare step loop differs from the composed loop by %.3g\n", d_bare);
        failures++;
    }
    printf("composed vs fused:              max |dy| = %.3g (steps %llu vs %llu)\n", d_fused,
           (unsigned long long)oc.steps, (unsigned long long)of.steps);
    if (!(d_fused <= agree_tol) || oc.t != of.t || oc.steps != of.steps ||
        oc.stopped != of.stopped) {
        printf("  FAIL: composed and fused runs disagree (tolerance %g)\n", agree_tol);
        failures++;
    }

    /* Allocations. */
#if BENCH_COUNT_ALLOCS
    printf("\nallocations inside rk4 setup() (interposer check, must be > 0): %llu\n",
           (unsigned long long)setup_allocs);
    printf(
        "allocations during the composed stepping loops (%d runs, %llu steps; must be 0): %llu\n",
        2 * (reps + 1), (unsigned long long)(2 * (uint64_t)(reps + 1) * oc.steps),
        (unsigned long long)loop_allocs);
    if (setup_allocs == 0) {
        printf(
            "  FAIL: the interposer did not see the plugin's malloc; the count is meaningless\n");
        failures++;
    }
    if (loop_allocs != 0) {
        printf("  FAIL: the hot path allocates\n");
        failures++;
    }
#else
    (void)setup_allocs;
    (void)loop_allocs;
    printf("\nallocation counting: not available in a sanitizer build\n");
#endif

    report_timings(&tc, &tb, &tf, reps, target);
    timing_free(&tc);
    timing_free(&tb);
    timing_free(&tf);
    composed_free(&c);
    if (failures) printf("\n%d check(s) FAILED\n", failures);
    return failures ? 1 : 0;
}
