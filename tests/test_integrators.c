/* Tests of the integrator plugins rk4, dopri5 (nsdyn_integrators_explicit.so)
 * and bdf (nsdyn_integrator_bdf.so). The shared objects are dlopen'ed
 * directly from the build tree, as the host loads them, and instances are
 * created from parameter arrays built from the declared defaults.
 *
 * Every tolerance is justified next to its check. They follow from the
 * methods' theory and were not tuned until the tests passed.
 */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/integrator.h"
#include "param_fields.h"

#ifndef NSDYN_TEST_PLUGIN_DIR
#error "NSDYN_TEST_PLUGIN_DIR must name the directory of the built plugins"
#endif

#define EXPLICIT_SO NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrators_explicit.so"
#define BDF_SO NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrator_bdf.so"

#define G_ACC 9.81 /* gravity of the falling-body problem [m/s^2] */
#define MAX_PARAMS 16
#define MAX_CALLS 5000000L /* bound on step() calls of any loop: no hangs */

/* ---- plugin loading ------------------------------------------------------ */

typedef struct plugin {
    void *so;
    const nsdyn_integrator *d;
} plugin;

static plugin load(const char *path, const char *id) {
    plugin p = {NULL, NULL};
    p.so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(p.so != NULL, "dlopen(%s): %s", path, dlerror());
    void *sym = dlsym(p.so, NSDYN_PLUGIN_ENTRY_NAME);
    ck_assert_msg(sym != NULL, "%s: no symbol %s", path, NSDYN_PLUGIN_ENTRY_NAME);
    nsdyn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object to function pointer (POSIX) */
    /* A host of another ABI major gets nothing. */
    ck_assert_ptr_null(entry(NSDYN_ABI_MAJOR + 1u, 0));
    for (uint32_t i = 0;; ++i) {
        const nsdyn_plugin_info *info = entry(NSDYN_ABI_MAJOR, i);
        if (info == NULL) break;
        ck_assert_int_eq(info->kind, NSDYN_KIND_INTEGRATOR);
        ck_assert_uint_eq(info->abi_major, NSDYN_ABI_MAJOR);
        ck_assert_uint_ge(info->struct_size, sizeof(nsdyn_integrator));
        if (strcmp(info->id, id) == 0) p.d = (const nsdyn_integrator *)info;
    }
    ck_assert_msg(p.d != NULL, "%s does not provide '%s'", path, id);
    return p;
}

static void unload(plugin *p) {
    if (p->so != NULL) ck_assert_int_eq(dlclose(p->so), 0);
    p->so = NULL;
    p->d = NULL;
}

/* ---- host services -------------------------------------------------------- */

typedef struct log_sink {
    int count;
} log_sink;

static void test_log(void *ctx, nsdyn_log_level level, const char *message) {
    log_sink *sink = ctx;
    sink->count++;
    if (sink->count <= 10) fprintf(stderr, "    [plugin log, level %d] %s\n", (int)level, message);
}

static nsdyn_host make_host(log_sink *sink) {
    nsdyn_host h = {(uint32_t)sizeof(nsdyn_host), sink, test_log};
    return h;
}

/* ---- parameters from the declared defaults ------------------------------- */

typedef struct override {
    const char *name;
    double value;
} override;

static void make_params(const nsdyn_integrator *d, nsdyn_value *vals, const override *ov,
                        size_t n_ov) {
    ck_assert_uint_le(d->info.n_params, MAX_PARAMS);
    for (size_t i = 0; i < d->info.n_params; ++i) {
        const nsdyn_param_decl *p = &d->info.params[i];
        ck_assert_ptr_nonnull(p->name);
        ck_assert_ptr_nonnull(p->unit);
        ck_assert_ptr_nonnull(p->help);
        ck_assert_msg(!(p->flags & NSDYN_PARAM_REQUIRED), "%s is required", p->name);
        /* the default must satisfy the declared range */
        ck_assert_msg(p->default_value >= p->min && p->default_value <= p->max,
                      "%s: default outside its range", p->name);
        vals[i].num = p->default_value;
        vals[i].arr = p->default_array;
        vals[i].len = p->default_array_len;
    }
    for (size_t k = 0; k < n_ov; ++k) {
        size_t i = 0;
        while (i < d->info.n_params && strcmp(d->info.params[i].name, ov[k].name) != 0) ++i;
        ck_assert_msg(i < d->info.n_params, "%s has no parameter '%s'", d->info.id, ov[k].name);
        vals[i].num = ov[k].value;
    }
}

static void *create(const plugin *p, log_sink *sink, nsdyn_host *h, const override *ov,
                    size_t n_ov) {
    nsdyn_value vals[MAX_PARAMS];
    make_params(p->d, vals, ov, n_ov);
    *h = make_host(sink);
    char err[256] = "";
    void *inst = nsd_plugin_create(&p->d->info, vals, h, err, sizeof err);
    ck_assert_msg(inst != NULL, "%s create failed: %s", p->d->info.id, err);
    return inst;
}

/* ---- test problems ------------------------------------------------------- */

/* Harmonic oscillator y'' = -y: y0 = cos t, y1 = -sin t. */
static nsdyn_status osc_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    (void)t;
    yd[0] = y[1];
    yd[1] = -y[0];
    return NSDYN_OK;
}
static double osc_err(double t, const double *y) { return hypot(y[0] - cos(t), y[1] + sin(t)); }

/* y' = -2 t y^2, y(0) = 1: y = 1 / (1 + t^2). */
static nsdyn_status nl_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    yd[0] = -2.0 * t * y[0] * y[0];
    return NSDYN_OK;
}
static double nl_err(double t, const double *y) { return fabs(y[0] - 1.0 / (1.0 + t * t)); }

/* Falling body y'' = -g with three events:
 *   0: y - 0.5, rising only  (never fires while falling)
 *   1: y,       falling only (ground, t = sqrt(2/g) from rest at 1 m)
 *   2: y - 0.25, both        (t = sqrt(2 * 0.75 / g), earlier than 1) */
static nsdyn_status fall_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    (void)t;
    yd[0] = y[1];
    yd[1] = -G_ACC;
    return NSDYN_OK;
}
static nsdyn_status fall_events(void *ctx, double t, const double *y, double *g) {
    (void)ctx;
    (void)t;
    g[0] = y[0] - 0.5;
    g[1] = y[0];
    g[2] = y[0] - 0.25;
    return NSDYN_OK;
}
static const int fall_dir[3] = {+1, -1, 0};

/* Prothero-Robinson y' = -lambda (y - cos t) - sin t, y(0) = 1: y = cos t. */
#define PR_LAMBDA 1e6
static nsdyn_status pr_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    yd[0] = -PR_LAMBDA * (y[0] - cos(t)) - sin(t);
    return NSDYN_OK;
}

/* y' = -y. */
static nsdyn_status decay_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    (void)t;
    yd[0] = -y[0];
    return NSDYN_OK;
}

/* y' = -y on the domain y > 0: a trial state outside is rejected. */
static nsdyn_status decay_domain_rhs(void *ctx, double t, const double *y, double *yd) {
    int *rejections = ctx;
    (void)t;
    if (!(y[0] > 0.0)) {
        ++*rejections;
        return NSDYN_REJECT_STEP;
    }
    yd[0] = -y[0];
    return NSDYN_OK;
}

/* y' = y^2, y(0) = 1: y = 1 / (1 - t), blows up at t = 1. */
static nsdyn_status blowup_rhs(void *ctx, double t, const double *y, double *yd) {
    (void)ctx;
    (void)t;
    yd[0] = y[0] * y[0];
    return NSDYN_OK;
}

/* The oscillator whose right-hand side fails for t > 0.5. */
static nsdyn_status failing_rhs(void *ctx, double t, const double *y, double *yd) {
    if (t > 0.5) return NSDYN_ERROR;
    return osc_rhs(ctx, t, y, yd);
}

static nsdyn_ode make_ode(size_t n, nsdyn_status (*rhs)(void *, double, const double *, double *),
                          void *ctx) {
    nsdyn_ode o;
    memset(&o, 0, sizeof o);
    o.struct_size = (uint32_t)sizeof o;
    o.n = n;
    o.ctx = ctx;
    o.rhs = rhs;
    return o;
}

/* ---- driving helpers ------------------------------------------------------ */

typedef double (*err_fn)(double t, const double *y);

typedef struct run_result {
    nsdyn_status status;  /* of the last step() */
    double t;             /* time reached */
    double max_err;       /* max error at step ends */
    double max_dense_err; /* max error of dense() at step midpoints */
    long calls;
} run_result;

/* Step to t_end (or first failure), checking errors at step ends and,
 * if `dense` is set, dense output at the middle of every step. */
static run_result run(const plugin *p, void *inst, double t_end, size_t n, err_fn err, int dense) {
    run_result r = {NSDYN_OK, -HUGE_VAL, 0.0, 0.0, 0};
    double ymid[8];
    ck_assert_uint_le(n, 8);
    nsdyn_step_report out;
    double t_prev = NAN;
    for (; r.calls < MAX_CALLS; ++r.calls) {
        memset(&out, 0, sizeof out);
        nsdyn_status st = p->d->step(inst, t_end, &out);
        r.status = st;
        if (st != NSDYN_OK && st != NSDYN_WARNING) break;
        if (!isnan(t_prev)) ck_assert(out.t > t_prev);
        ck_assert(out.t <= t_end); /* never passes t_stop */
        if (dense && !isnan(t_prev)) {
            const double tm = 0.5 * (t_prev + out.t);
            ck_assert_int_eq(p->d->dense(inst, tm, ymid), NSDYN_OK);
            if (err != NULL) r.max_dense_err = fmax(r.max_dense_err, err(tm, ymid));
        }
        r.t = out.t;
        if (err != NULL) r.max_err = fmax(r.max_err, err(out.t, out.y));
        t_prev = out.t;
        if (out.t == t_end) break;
    }
    ck_assert_msg(r.calls < MAX_CALLS, "too many step() calls");
    return r;
}

static nsdyn_integrator_stats get_stats(const plugin *p, void *inst) {
    nsdyn_integrator_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = (uint32_t)sizeof s;
    p->d->stats(inst, &s);
    return s;
}

/* ---- rk4 ------------------------------------------------------------------ */

/* Observed order of RK4 on the oscillator over [0, 1].
 * The global error is C h^4 (1 + O(h^2)); at h <= 0.1 the relative size of
 * the correction is about 1e-2 or less, so log2(e(h)/e(h/2)) lies within
 * about 0.01 of 4, far inside [3.9, 4.1]. The errors (>= 1e-9) are far above
 * rounding (1e-16 per step), which could otherwise spoil the ratio. */
START_TEST(test_rk4_order) {
    plugin p = load(EXPLICIT_SO, "rk4");
    ck_assert(p.d->dense == NULL);
    ck_assert(p.d->info.provides & NSDYN_CAP_FIXED_STEP);
    ck_assert(!(p.d->info.provides & NSDYN_CAP_EVENT_LOCATION));
    const double hs[4] = {0.1, 0.05, 0.025, 0.0125};
    double e[4];
    for (int k = 0; k < 4; ++k) {
        log_sink sink = {0};
        nsdyn_host h;
        override ov[] = {{"h", hs[k]}};
        void *inst = create(&p, &sink, &h, ov, 1);
        nsdyn_ode ode = make_ode(2, osc_rhs, NULL);
        const double y0[2] = {1.0, 0.0};
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
        nsdyn_step_report out;
        long steps = 0;
        double t = 0.0;
        const double *y = NULL;
        while (t < 1.0) {
            ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
            ck_assert_int_eq(out.event, -1);
            t = out.t;
            y = out.y;
            ++steps;
            ck_assert_int_lt(steps, 1000);
        }
        ck_assert(t == 1.0);
        /* 1/h steps exactly: no sliver step from the rounding of t */
        ck_assert_int_eq(steps, (long)lround(1.0 / hs[k]));
        e[k] = osc_err(1.0, y);
        nsdyn_integrator_stats st = get_stats(&p, inst);
        ck_assert_uint_eq(st.steps, (uint64_t)steps);
        ck_assert_uint_eq(st.rhs_evals, 4u * (uint64_t)steps);
        p.d->info.destroy(inst);
    }
    for (int k = 0; k < 3; ++k) {
        const double order = log2(e[k] / e[k + 1]);
        printf("rk4: h = %-7g e = %.6e   h = %-7g e = %.6e   observed order %.4f\n", hs[k], e[k],
               hs[k + 1], e[k + 1], order);
        ck_assert_msg(order >= 3.9 && order <= 4.1, "observed order %g", order);
    }
    unload(&p);
}
END_TEST

/* rk4 lands exactly on t_stop, detects (but does not locate) an event at
 * the end of the step where g changed sign, and restarts. */
START_TEST(test_rk4_stop_and_event_detection) {
    plugin p = load(EXPLICIT_SO, "rk4");
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"h", 0.01}};
    void *inst = create(&p, &sink, &h, ov, 1);
    nsdyn_ode ode = make_ode(2, fall_rhs, NULL);
    ode.n_events = 3;
    ode.events = fall_events;
    ode.event_direction = fall_dir;
    const double y0[2] = {1.0, 0.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
    nsdyn_step_report out;
    /* t_stop not on the step grid: the last step is shorter */
    ck_assert_int_eq(p.d->step(inst, 0.004, &out), NSDYN_OK);
    ck_assert(out.t == 0.004);
    ck_assert_double_eq_tol(out.h, 0.004, 1e-18);
    int seen[3] = {0, 0, 0};
    double t_seen[3] = {0, 0, 0};
    for (int i = 0; i < 200 && out.t < 1.0; ++i) {
        const double t_before = out.t;
        ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
        if (out.event >= 0) {
            seen[out.event]++;
            t_seen[out.event] = out.t;
            /* reported at the end of the step that contains the root */
            const double root = out.event == 1 ? sqrt(2.0 / G_ACC) : sqrt(1.5 / G_ACC);
            ck_assert(root > t_before && root <= out.t);
        }
    }
    ck_assert_int_eq(seen[0], 0); /* rising-only event never fires */
    ck_assert_int_eq(seen[1], 1);
    ck_assert_int_eq(seen[2], 1);
    ck_assert(t_seen[2] < t_seen[1]);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_eq(st.events, 2);
    ck_assert_uint_gt(st.event_evals, 0);
    /* restart from a new state */
    const double y1[2] = {2.0, 0.0};
    ck_assert_int_eq(p.d->restart(inst, 0.0, y1), NSDYN_OK);
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
    ck_assert_double_eq_tol(out.t, 0.01, 1e-15);
    /* the quadratic is integrated exactly by a 4th-order method */
    ck_assert_double_eq_tol(out.y[0], 2.0 - 0.5 * G_ACC * 1e-4, 1e-14);
    p.d->info.reset(inst);
    st = get_stats(&p, inst);
    ck_assert_uint_eq(st.steps, 0);
    ck_assert_uint_eq(st.rhs_evals, 0);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* NSDYN_REJECT_STEP makes rk4 halve the step of this call: with h = 5 on
 * y' = -y (domain y > 0) the stage y + h/2 k1 = 1 - 2.5 is rejected, so is
 * 1 - 1.25 after one halving; h = 1.25 keeps every stage positive
 * (k2 at 0.375, k3 at 0.77, k4 at 0.04). The next call starts again from
 * the nominal h. */
START_TEST(test_rk4_reject_step) {
    plugin p = load(EXPLICIT_SO, "rk4");
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"h", 5.0}};
    void *inst = create(&p, &sink, &h, ov, 1);
    int rejections = 0;
    nsdyn_ode ode = make_ode(1, decay_domain_rhs, &rejections);
    const double y0[1] = {1.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 10.0), NSDYN_OK);
    nsdyn_step_report out;
    ck_assert_int_eq(p.d->step(inst, 10.0, &out), NSDYN_OK);
    ck_assert_double_eq(out.h, 1.25);
    ck_assert_double_eq(out.t, 1.25);
    ck_assert(out.y[0] > 0.0);
    ck_assert_int_eq(rejections, 2);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_eq(st.rejected_steps, 2);
    ck_assert_uint_eq(st.steps, 1);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* ---- dopri5 -------------------------------------------------------------- */

typedef struct tol_result {
    double err, dense_err;
    uint64_t steps;
} tol_result;

static tol_result dopri5_run(const plugin *p, double tol, size_t n,
                             nsdyn_status (*rhs)(void *, double, const double *, double *),
                             const double *y0, double t_end, err_fn err) {
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"rtol", tol}, {"atol", tol}};
    void *inst = create(p, &sink, &h, ov, 2);
    nsdyn_ode ode = make_ode(n, rhs, NULL);
    ck_assert_int_eq(p->d->setup(inst, &ode, 0.0, y0, t_end), NSDYN_OK);
    run_result r = run(p, inst, t_end, n, err, 1);
    ck_assert_int_eq(r.status, NSDYN_OK);
    ck_assert(r.t == t_end);
    tol_result out = {r.max_err, r.max_dense_err, get_stats(p, inst).steps};
    p->d->info.destroy(inst);
    return out;
}

/* dopri5 meets its tolerance. The local error per step is controlled to
 * about tol (relative to max(1, |y|) here, since rtol = atol and |y| <= 1);
 * the global error is the sum of propagated local errors. On these problems
 * errors are not amplified (the oscillator conserves the norm, the
 * nonlinear problem contracts), and local extrapolation (advancing with the
 * 5th-order solution while the estimate is of the 4th-order one) makes the
 * true local error much smaller than the estimate. So the global error
 * stays within a modest multiple of tol; 100 tol leaves room for tens of
 * steps' worth of accumulation, not for a wrong method (an order-4 solution
 * would already be well below, an incorrect coefficient far above).
 * The dense output is the order-4 continuous extension; its interpolation
 * error at mid-step is of the size of the (4th-order) local error
 * estimate, i.e. about tol, on top of the global error: same bound. */
START_TEST(test_dopri5_tolerance) {
    plugin p = load(EXPLICIT_SO, "dopri5");
    ck_assert(p.d->info.provides & NSDYN_CAP_ADAPTIVE_STEP);
    ck_assert(p.d->info.provides & NSDYN_CAP_DENSE_OUTPUT);
    ck_assert(p.d->info.provides & NSDYN_CAP_EVENT_LOCATION);
    const double osc0[2] = {1.0, 0.0}, nl0[1] = {1.0};
    const double tols[2] = {1e-6, 1e-8};
    tol_result ro[2], rn[2];
    for (int k = 0; k < 2; ++k) {
        ro[k] = dopri5_run(&p, tols[k], 2, osc_rhs, osc0, 10.0, osc_err);
        rn[k] = dopri5_run(&p, tols[k], 1, nl_rhs, nl0, 10.0, nl_err);
        printf("dopri5: tol %g  oscillator: max err %.3e, dense %.3e, %llu steps;"
               "  y'=-2ty^2: max err %.3e, dense %.3e, %llu steps\n",
               tols[k], ro[k].err, ro[k].dense_err, (unsigned long long)ro[k].steps, rn[k].err,
               rn[k].dense_err, (unsigned long long)rn[k].steps);
        ck_assert_msg(ro[k].err < 100.0 * tols[k], "oscillator error %g", ro[k].err);
        ck_assert_msg(rn[k].err < 100.0 * tols[k], "nonlinear error %g", rn[k].err);
        ck_assert_msg(ro[k].dense_err < 100.0 * tols[k], "oscillator dense %g", ro[k].dense_err);
        ck_assert_msg(rn[k].dense_err < 100.0 * tols[k], "nonlinear dense %g", rn[k].dense_err);
    }
    /* 100x tighter tolerance: smaller error, more steps. (For a 5th-order
     * method the error should drop by roughly 100x; we only require a
     * decrease, the size of the drop is not what is being tested.) */
    ck_assert(ro[1].err < ro[0].err);
    ck_assert(rn[1].err < rn[0].err);
    ck_assert(ro[1].steps > ro[0].steps);
    unload(&p);
}
END_TEST

/* Event location on the falling body. The solution is quadratic in t, which
 * dopri5 and its order-4 dense output reproduce exactly (up to rounding), so
 * the located time is limited only by the root finder's bracket
 * (1e-12 max(1, t)) and rounding: 1e-10 is a safe bound. */
START_TEST(test_dopri5_events) {
    plugin p = load(EXPLICIT_SO, "dopri5");
    log_sink sink = {0};
    nsdyn_host h;
    void *inst = create(&p, &sink, &h, NULL, 0);
    nsdyn_ode ode = make_ode(2, fall_rhs, NULL);
    ode.n_events = 3;
    ode.events = fall_events;
    ode.event_direction = fall_dir;
    const double y0[2] = {1.0, 0.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 2.0), NSDYN_OK);
    const double t_quarter = sqrt(1.5 / G_ACC), t_ground = sqrt(2.0 / G_ACC);
    nsdyn_step_report out;
    int n_ev = 0;
    double t_prev = 0.0;
    for (int i = 0; i < 10000; ++i) {
        ck_assert_int_eq(p.d->step(inst, 2.0, &out), NSDYN_OK);
        if (out.event >= 0) {
            ++n_ev;
            if (n_ev == 1) {
                ck_assert_int_eq(out.event, 2); /* earliest root wins */
                printf("dopri5: event 2 at t = %.15f (exact %.15f, diff %.2e)\n", out.t, t_quarter,
                       out.t - t_quarter);
                ck_assert_double_eq_tol(out.t, t_quarter, 1e-10);
                ck_assert_double_eq_tol(out.y[0], 0.25, 1e-9);
                /* dense output is valid over the shortened step */
                double ym[2];
                ck_assert_int_eq(p.d->dense(inst, 0.5 * (t_prev + out.t), ym), NSDYN_OK);
                const double tm = 0.5 * (t_prev + out.t);
                ck_assert_double_eq_tol(ym[0], 1.0 - 0.5 * G_ACC * tm * tm, 1e-12);
            } else if (n_ev == 2) {
                ck_assert_int_eq(out.event, 1);
                printf("dopri5: event 1 (ground) at t = %.15f (exact %.15f, diff %.2e)\n", out.t,
                       t_ground, out.t - t_ground);
                ck_assert_double_eq_tol(out.t, t_ground, 1e-10);
                /* the state at the root: y ~ 0, v = -g t */
                ck_assert_double_eq_tol(out.y[0], 0.0, 1e-9);
                ck_assert_double_eq_tol(out.y[1], -G_ACC * t_ground, 1e-9);
                break;
            }
        }
        t_prev = out.t;
    }
    ck_assert_int_eq(n_ev, 2);

    /* Bounce: restart from the ground with half the speed upwards. After the
     * restart g1 = 0 exactly (not a crossing); the next ground contact is a
     * flight time 2 v / g later. The state at the restart carries the
     * ~1e-10 error of the located root, so 1e-9 bounds the second root. */
    const double v_up = 0.5 * G_ACC * t_ground;
    const double ybounce[2] = {0.0, v_up};
    const double t_bounce = out.t;
    ck_assert_int_eq(p.d->restart(inst, t_bounce, ybounce), NSDYN_OK);
    int got = -1;
    for (int i = 0; i < 10000 && got < 0; ++i) {
        ck_assert_int_eq(p.d->step(inst, 2.0, &out), NSDYN_OK);
        if (out.event == 1)
            got = 1;
        else
            ck_assert_msg(out.event == -1 || out.event == 2, "unexpected event %d", out.event);
    }
    ck_assert_int_eq(got, 1);
    ck_assert_double_eq_tol(out.t, t_bounce + 2.0 * v_up / G_ACC, 1e-9);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_ge(st.events, 3);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* NSDYN_REJECT_STEP: a too large initial step (h0 = 5 s) drives the stages
 * of y' = -y out of the domain y > 0; the step is halved until it fits,
 * and the result still meets the tolerance (same reasoning as above). */
START_TEST(test_dopri5_reject_step) {
    plugin p = load(EXPLICIT_SO, "dopri5");
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"h0", 5.0}, {"rtol", 1e-8}, {"atol", 1e-10}};
    void *inst = create(&p, &sink, &h, ov, 3);
    int rejections = 0;
    nsdyn_ode ode = make_ode(1, decay_domain_rhs, &rejections);
    const double y0[1] = {1.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 3.0), NSDYN_OK);
    run_result r = run(&p, inst, 3.0, 1, NULL, 0);
    ck_assert_int_eq(r.status, NSDYN_OK);
    double y3[1];
    ck_assert_int_eq(p.d->dense(inst, 3.0, y3), NSDYN_OK);
    printf("dopri5: domain rejections %d, y(3) error %.3e\n", rejections, fabs(y3[0] - exp(-3.0)));
    ck_assert_int_gt(rejections, 0);
    ck_assert(fabs(y3[0] - exp(-3.0)) < 100.0 * 1e-8);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_ge(st.rejected_steps, 1);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* max_step bounds every step; max_steps bounds the accepted steps of a run
 * and is reported as an error with a message. */
START_TEST(test_dopri5_limits) {
    plugin p = load(EXPLICIT_SO, "dopri5");
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"max_step", 0.05}, {"max_steps", 7}};
    void *inst = create(&p, &sink, &h, ov, 2);
    nsdyn_ode ode = make_ode(2, osc_rhs, NULL);
    const double y0[2] = {1.0, 0.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
    nsdyn_step_report out;
    for (int i = 0; i < 7; ++i) {
        ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
        ck_assert(out.h <= 0.05);
    }
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_ERROR);
    printf("dopri5: max_steps -> \"%s\"\n", p.d->message(inst));
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "max_steps"));
    /* dense() outside the last step is refused */
    double y[2];
    ck_assert_int_eq(p.d->dense(inst, 0.0, y), NSDYN_ERROR);
    ck_assert_int_eq(p.d->dense(inst, out.t, y), NSDYN_OK);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* atol_scale of all ones must reproduce the scalar-atol run exactly (same
 * arithmetic: atol * 1.0 == atol), for dopri5 (own norm) and bdf
 * (CVodeSVtolerances instead of CVodeSStolerances); a larger scale on one
 * component loosens the control, so the run takes no more steps. */
START_TEST(test_atol_scale) {
    const char *ids[2] = {"dopri5", "bdf"};
    for (int k = 0; k < 2; ++k) {
        plugin p = load(k == 0 ? EXPLICIT_SO : BDF_SO, ids[k]);
        log_sink sink = {0};
        nsdyn_host h;
        override ov[] = {{"rtol", 1e-6}, {"atol", 1e-6}};
        const double ones[2] = {1.0, 1.0}, loose[2] = {1.0, 1e3};
        const double *scales[3] = {NULL, ones, loose};
        double yend[3][2];
        uint64_t steps[3];
        for (int m = 0; m < 3; ++m) {
            void *inst = create(&p, &sink, &h, ov, 2);
            nsdyn_ode ode = make_ode(2, osc_rhs, NULL);
            ode.atol_scale = scales[m];
            const double y0[2] = {1.0, 0.0};
            ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 5.0), NSDYN_OK);
            run_result r = run(&p, inst, 5.0, 2, NULL, 0);
            ck_assert_int_eq(r.status, NSDYN_OK);
            ck_assert_int_eq(p.d->dense(inst, 5.0, yend[m]), NSDYN_OK);
            steps[m] = get_stats(&p, inst).steps;
            p.d->info.destroy(inst);
        }
        printf("%s: atol_scale none/ones/loose: %llu/%llu/%llu steps\n", ids[k],
               (unsigned long long)steps[0], (unsigned long long)steps[1],
               (unsigned long long)steps[2]);
        ck_assert(yend[0][0] == yend[1][0] && yend[0][1] == yend[1][1]);
        ck_assert_uint_eq(steps[0], steps[1]);
        ck_assert_uint_le(steps[2], steps[0]);
        /* a non-positive scale is refused by setup */
        void *inst = create(&p, &sink, &h, ov, 2);
        const double bad[2] = {1.0, 0.0};
        nsdyn_ode ode = make_ode(2, osc_rhs, NULL);
        ode.atol_scale = bad;
        const double y0[2] = {1.0, 0.0};
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 5.0), NSDYN_ERROR);
        ck_assert_ptr_nonnull(strstr(p.d->message(inst), "atol_scale"));
        p.d->info.destroy(inst);
        unload(&p);
    }
}
END_TEST

/* stats() writes only the fields inside the caller's struct_size. */
START_TEST(test_stats_struct_size) {
    const char *ids[3] = {"rk4", "dopri5", "bdf"};
    for (int k = 0; k < 3; ++k) {
        plugin p = load(k < 2 ? EXPLICIT_SO : BDF_SO, ids[k]);
        log_sink sink = {0};
        nsdyn_host h;
        void *inst = create(&p, &sink, &h, NULL, 0);
        nsdyn_ode ode = make_ode(2, osc_rhs, NULL);
        const double y0[2] = {1.0, 0.0};
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
        nsdyn_step_report out;
        ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
        nsdyn_integrator_stats s;
        memset(&s, 0xAB, sizeof s);
        s.struct_size = (uint32_t)offsetof(nsdyn_integrator_stats, rejected_steps);
        p.d->stats(inst, &s);
        ck_assert_uint_eq(s.struct_size, offsetof(nsdyn_integrator_stats, rejected_steps));
        ck_assert_uint_eq(s.steps, 1);
        ck_assert_uint_gt(s.rhs_evals, 0);
        uint64_t sentinel;
        memset(&sentinel, 0xAB, sizeof sentinel);
        ck_assert_uint_eq(s.rejected_steps, sentinel);
        ck_assert_uint_eq(s.jacobian_evals, sentinel);
        ck_assert_uint_eq(s.event_evals, sentinel);
        ck_assert_uint_eq(s.events, sentinel);
        p.d->info.reset(inst);
        nsdyn_integrator_stats z = get_stats(&p, inst);
        ck_assert_uint_eq(z.steps, 0);
        ck_assert_uint_eq(z.rhs_evals, 0);
        /* an instance is reusable after reset */
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
        ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
        p.d->info.destroy(inst);
        unload(&p);
    }
}
END_TEST

/* ---- bdf ------------------------------------------------------------------ */

/* Stiff Prothero-Robinson problem, lambda = 1e6. BDF is A(alpha)-stable up
 * to order 5 (L-stable at orders 1-2) and follows the smooth solution
 * cos t with steps set by accuracy, not stability: a few hundred steps.
 * dopri5's stability region ends near h lambda = 3.3, so it needs about
 * 2 lambda / 3.3 = 6e5 steps: both counts are printed. The error bound
 * 1e-4 is 100 rtol (global error a few rtol, see the tolerance test). */
START_TEST(test_bdf_stiff) {
    plugin p = load(BDF_SO, "bdf");
    ck_assert(p.d->info.provides & NSDYN_CAP_STIFF);
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"rtol", 1e-6}, {"atol", 1e-9}};
    void *inst = create(&p, &sink, &h, ov, 2);
    nsdyn_ode ode = make_ode(1, pr_rhs, NULL);
    const double y0[1] = {1.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 2.0), NSDYN_OK);
    run_result r = run(&p, inst, 2.0, 1, NULL, 0);
    ck_assert_int_eq(r.status, NSDYN_OK);
    ck_assert(r.t == 2.0);
    double y2[1];
    ck_assert_int_eq(p.d->dense(inst, 2.0, y2), NSDYN_OK);
    const double err = fabs(y2[0] - cos(2.0));
    nsdyn_integrator_stats st = get_stats(&p, inst);
    p.d->info.destroy(inst);
    unload(&p);

    plugin q = load(EXPLICIT_SO, "dopri5");
    void *inst2 = create(&q, &sink, &h, ov, 2);
    ck_assert_int_eq(q.d->setup(inst2, &ode, 0.0, y0, 2.0), NSDYN_OK);
    run_result r2 = run(&q, inst2, 2.0, 1, NULL, 0);
    ck_assert_int_eq(r2.status, NSDYN_OK);
    nsdyn_integrator_stats st2 = get_stats(&q, inst2);
    q.d->info.destroy(inst2);
    unload(&q);

    printf("Prothero-Robinson lambda=1e6 to t=2: bdf error %.3e with %llu steps "
           "(%llu rhs, %llu jac, %llu rejected); dopri5 needs %llu steps\n",
           err, (unsigned long long)st.steps, (unsigned long long)st.rhs_evals,
           (unsigned long long)st.jacobian_evals, (unsigned long long)st.rejected_steps,
           (unsigned long long)st2.steps);
    ck_assert(err < 1e-4);
    ck_assert_uint_lt(st.steps, 2000);
    ck_assert_uint_gt(st.jacobian_evals, 0);
    ck_assert_uint_gt(st2.steps, 100 * st.steps);
}
END_TEST

/* bdf meets rtol on y' = -y: global error within 100 rtol at every step
 * end (the local error is controlled to ~rtol |y|, and y' = -y damps
 * earlier errors, so accumulation is mild); dense output at mid-step meets
 * the same bound (the interpolant is the one whose error CVODE controls). */
START_TEST(test_bdf_tolerance) {
    plugin p = load(BDF_SO, "bdf");
    const double rtol = 1e-6;
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"rtol", rtol}, {"atol", 1e-9}};
    void *inst = create(&p, &sink, &h, ov, 2);
    nsdyn_ode ode = make_ode(1, decay_rhs, NULL);
    const double y0[1] = {1.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 5.0), NSDYN_OK);
    run_result r = run(&p, inst, 5.0, 1, NULL, 0);
    ck_assert_int_eq(r.status, NSDYN_OK);
    p.d->info.reset(inst);
    /* again, measuring errors (relative to max(1e-3, y)) */
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 5.0), NSDYN_OK);
    double max_err = 0.0, max_dense = 0.0, t_prev = 0.0, ym[1];
    nsdyn_step_report out;
    for (long i = 0; i < 100000; ++i) {
        ck_assert_int_eq(p.d->step(inst, 5.0, &out), NSDYN_OK);
        max_err = fmax(max_err, fabs(out.y[0] - exp(-out.t)));
        const double tm = 0.5 * (t_prev + out.t);
        ck_assert_int_eq(p.d->dense(inst, tm, ym), NSDYN_OK);
        max_dense = fmax(max_dense, fabs(ym[0] - exp(-tm)));
        t_prev = out.t;
        if (out.t == 5.0) break;
    }
    ck_assert(out.t == 5.0);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    printf("bdf: y'=-y rtol %g: max error %.3e, dense %.3e, %llu steps\n", rtol, max_err, max_dense,
           (unsigned long long)st.steps);
    ck_assert(max_err < 100.0 * rtol);
    ck_assert(max_dense < 100.0 * rtol);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* CVODE root finding on the falling body. Unlike dopri5, BDF is not exact
 * on the quadratic: the order-1 start leaves a y error of about the local
 * tolerance, and the Nordsieck interpolant carries an error of the same
 * size. A y error dy moves the root by dy / |v| (|v| = 4.4 m/s). With
 * rtol = 1e-10, atol = 1e-12 this is ~1e-10 s, and CVODE's root bracket is
 * ~1e-14 s: 1e-8 is a safe bound. (At the default rtol = 1e-6 the same
 * argument gives ~1e-6 s, which is why the test tightens the tolerance.) */
START_TEST(test_bdf_events) {
    plugin p = load(BDF_SO, "bdf");
    log_sink sink = {0};
    nsdyn_host h;
    override ov[] = {{"rtol", 1e-10}, {"atol", 1e-12}};
    void *inst = create(&p, &sink, &h, ov, 2);
    nsdyn_ode ode = make_ode(2, fall_rhs, NULL);
    ode.n_events = 3;
    ode.events = fall_events;
    ode.event_direction = fall_dir;
    const double y0[2] = {1.0, 0.0};
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 2.0), NSDYN_OK);
    const double t_quarter = sqrt(1.5 / G_ACC), t_ground = sqrt(2.0 / G_ACC);
    nsdyn_step_report out;
    int n_ev = 0;
    for (int i = 0; i < 100000 && n_ev < 2; ++i) {
        ck_assert_int_eq(p.d->step(inst, 2.0, &out), NSDYN_OK);
        if (out.event < 0) continue;
        ++n_ev;
        if (n_ev == 1) {
            ck_assert_int_eq(out.event, 2);
            printf("bdf: event 2 at t = %.15f (exact %.15f, diff %.2e)\n", out.t, t_quarter,
                   out.t - t_quarter);
            ck_assert_double_eq_tol(out.t, t_quarter, 1e-8);
        } else {
            ck_assert_int_eq(out.event, 1);
            printf("bdf: event 1 (ground) at t = %.15f (exact %.15f, diff %.2e)\n", out.t, t_ground,
                   out.t - t_ground);
            ck_assert_double_eq_tol(out.t, t_ground, 1e-8);
            ck_assert_double_eq_tol(out.y[0], 0.0, 1e-8);
        }
    }
    ck_assert_int_eq(n_ev, 2);
    /* bounce (restart -> CVodeReInit): next ground contact 2 v / g later */
    const double v_up = 0.5 * G_ACC * t_ground;
    const double yb[2] = {0.0, v_up};
    const double t_bounce = out.t;
    ck_assert_int_eq(p.d->restart(inst, t_bounce, yb), NSDYN_OK);
    int got = 0;
    for (int i = 0; i < 100000 && !got; ++i) {
        ck_assert_int_eq(p.d->step(inst, 2.0, &out), NSDYN_OK);
        got = out.event == 1;
    }
    ck_assert(got);
    ck_assert_double_eq_tol(out.t, t_bounce + 2.0 * v_up / G_ACC, 1e-8);
    /* t_stop before CVODE's internal time (after a root return CVODE has
     * usually stepped past the root; on this quadratic solution its steps
     * are long): the step must stop exactly at t_stop and the run must go
     * on correctly (the plugin interpolates and re-initialises CVODE). */
    const double t2 = out.t, v2 = -v_up; /* no bounce this time */
    const double t_short = out.t + 1e-6;
    ck_assert_int_eq(p.d->step(inst, t_short, &out), NSDYN_OK);
    ck_assert(out.t == t_short);
    ck_assert_int_eq(out.event, -1);
    for (int i = 0; i < 100000 && out.t < 2.0; ++i) {
        ck_assert_int_eq(p.d->step(inst, 2.0, &out), NSDYN_OK);
        ck_assert_int_eq(out.event, -1); /* below all thresholds, falling */
    }
    ck_assert(out.t == 2.0);
    /* exact continuation of the free fall from the second contact; y ~ -8 m,
     * errors: ~1e-8 s root timing times |v| ~ 1e1 m/s plus rtol |y|. */
    const double dt = 2.0 - t2;
    ck_assert_double_eq_tol(out.y[0], v2 * dt - 0.5 * G_ACC * dt * dt, 1e-6);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_eq(st.events, 3);
    ck_assert_uint_gt(st.event_evals, 0);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* ---- error paths ------------------------------------------------------------ */

/* A right-hand side returning NSDYN_ERROR stops every integrator with
 * NSDYN_ERROR and a message. */
START_TEST(test_rhs_error) {
    const char *ids[3] = {"rk4", "dopri5", "bdf"};
    for (int k = 0; k < 3; ++k) {
        plugin p = load(k < 2 ? EXPLICIT_SO : BDF_SO, ids[k]);
        log_sink sink = {0};
        nsdyn_host h;
        void *inst = create(&p, &sink, &h, NULL, 0);
        nsdyn_ode ode = make_ode(2, failing_rhs, NULL);
        const double y0[2] = {1.0, 0.0};
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_OK);
        run_result r = run(&p, inst, 1.0, 2, NULL, 0);
        const char *m = p.d->message(inst);
        printf("%s: failing rhs -> status %d at t = %g: \"%s\"\n", ids[k], (int)r.status, r.t, m);
        ck_assert_int_eq(r.status, NSDYN_ERROR);
        ck_assert(r.t <= 0.5 + 1e-12);
        ck_assert_ptr_nonnull(m);
        ck_assert_uint_gt(strlen(m), 0);
        if (k < 2)
            ck_assert_ptr_nonnull(strstr(m, "right-hand side"));
        else
            ck_assert_ptr_nonnull(strstr(m, "CVODE: CV_"));
        p.d->info.destroy(inst);
        unload(&p);
    }
}
END_TEST

/* y' = y^2 blows up at t = 1. dopri5 must stop with NSDYN_ERROR near t = 1
 * (the step size shrinks like the distance to the singularity until it
 * falls below min_step) with a message about the step size; bdf must fail
 * too, without hanging (the driving loop is bounded).
 * "Near": the numerical solution is close to an exact solution 1/(t* - t)
 * whose singularity t* is shifted by the accumulated relative error. A
 * relative error d of y = 1/(1 - t) at time t is a shift d (1 - t) <= d,
 * and d stays within a modest multiple of rtol (1e-6 by default), so
 * |t_fail - 1| < 1e-4 (100 rtol). The run may stop slightly after t = 1. */
START_TEST(test_blowup) {
    const double y0[1] = {1.0};
    nsdyn_ode ode = make_ode(1, blowup_rhs, NULL);
    {
        plugin p = load(EXPLICIT_SO, "dopri5");
        log_sink sink = {0};
        nsdyn_host h;
        void *inst = create(&p, &sink, &h, NULL, 0);
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 2.0), NSDYN_OK);
        run_result r = run(&p, inst, 2.0, 1, NULL, 0);
        const char *m = p.d->message(inst);
        printf("dopri5: blow-up -> status %d at t = %.12g after %ld steps: \"%s\"\n", (int)r.status,
               r.t, r.calls, m);
        ck_assert_int_eq(r.status, NSDYN_ERROR);
        ck_assert(fabs(r.t - 1.0) < 1e-4);
        ck_assert_ptr_nonnull(strstr(m, "step size"));
        p.d->info.destroy(inst);
        unload(&p);
    }
    {
        plugin p = load(BDF_SO, "bdf");
        log_sink sink = {0};
        nsdyn_host h;
        void *inst = create(&p, &sink, &h, NULL, 0);
        ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 2.0), NSDYN_OK);
        run_result r = run(&p, inst, 2.0, 1, NULL, 0);
        const char *m = p.d->message(inst);
        printf("bdf: blow-up -> status %d at t = %.12g after %ld steps: \"%s\" (%d log lines)\n",
               (int)r.status, r.t, r.calls, m, sink.count);
        ck_assert_int_eq(r.status, NSDYN_ERROR);
        ck_assert(fabs(r.t - 1.0) < 1e-4);
        ck_assert_uint_gt(strlen(m), 0);
        p.d->info.destroy(inst);
        unload(&p);
    }
}
END_TEST

/* Inconsistent parameters are refused by create() with a message. */
START_TEST(test_bad_params) {
    plugin p = load(EXPLICIT_SO, "dopri5");
    nsdyn_value vals[MAX_PARAMS];
    log_sink sink = {0};
    nsdyn_host h = make_host(&sink);
    char err[256] = "";
    override ov[] = {{"min_step", 1e-3}, {"max_step", 1e-4}};
    make_params(p.d, vals, ov, 2);
    ck_assert_ptr_null(nsd_plugin_create(&p.d->info, vals, &h, err, sizeof err));
    printf("dopri5: min_step > max_step -> \"%s\"\n", err);
    ck_assert_uint_gt(strlen(err), 0);
    ck_assert_ptr_nonnull(strstr(err, "min_step"));
    /* max_step = 0 means unlimited: then any min_step is consistent */
    override ok[] = {{"min_step", 1e-3}, {"max_step", 0.0}};
    make_params(p.d, vals, ok, 2);
    void *inst = nsd_plugin_create(&p.d->info, vals, &h, err, sizeof err);
    ck_assert_ptr_nonnull(inst);
    p.d->info.destroy(inst);
    unload(&p);

    plugin r = load(EXPLICIT_SO, "rk4");
    override bad_h[] = {{"h", 0.0}};
    err[0] = '\0';
    make_params(r.d, vals, bad_h, 1);
    ck_assert_ptr_null(nsd_plugin_create(&r.d->info, vals, &h, err, sizeof err));
    ck_assert_uint_gt(strlen(err), 0);
    unload(&r);

    plugin b = load(BDF_SO, "bdf");
    override bad_order[] = {{"max_order", 2.5}};
    err[0] = '\0';
    make_params(b.d, vals, bad_order, 1);
    ck_assert_ptr_null(nsd_plugin_create(&b.d->info, vals, &h, err, sizeof err));
    printf("bdf: max_order 2.5 -> \"%s\"\n", err);
    ck_assert_uint_gt(strlen(err), 0);
    unload(&b);
}
END_TEST

static Suite *integrators_suite(void) {
    Suite *s = suite_create("integrators");
    TCase *tc = tcase_create("core");
    /* The dopri5 run on the stiff problem takes ~6e5 steps; allow for
     * sanitizer builds. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rk4_order);
    tcase_add_test(tc, test_rk4_stop_and_event_detection);
    tcase_add_test(tc, test_rk4_reject_step);
    tcase_add_test(tc, test_dopri5_tolerance);
    tcase_add_test(tc, test_dopri5_events);
    tcase_add_test(tc, test_dopri5_reject_step);
    tcase_add_test(tc, test_dopri5_limits);
    tcase_add_test(tc, test_atol_scale);
    tcase_add_test(tc, test_stats_struct_size);
    tcase_add_test(tc, test_bdf_stiff);
    tcase_add_test(tc, test_bdf_tolerance);
    tcase_add_test(tc, test_bdf_events);
    tcase_add_test(tc, test_rhs_error);
    tcase_add_test(tc, test_blowup);
    tcase_add_test(tc, test_bad_params);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(integrators_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
