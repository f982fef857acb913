#define _GNU_SOURCE
/* The model and its run data (issue 21 item 1, model.h nsd_data): a
 * second nsd_data of a model evaluates the right-hand side, the event
 * functions and samples of the same model without touching the model or
 * the model's own data; interleaved with the model's own data, each gives
 * bit for bit what it gives alone; its counters and failure are its own.
 * Over the four contact regimes (compliant, hold-stick, event-driven,
 * time-stepping) at random states around each config's initial state.
 * The plugin instances, and with them a system's discrete state, are the
 * data's (item 2): two whole runs of a walker interleaved a step at a
 * time on one model give bit for bit what each gives alone; and a run
 * on a model shared with others (a sweep thread's, item 3) with plugin
 * parameters of its own is the run its own model gives.
 * And the run's progress goes to its log's reader, not to stderr. */
#include <math.h>

#include "test_util.h"

typedef struct regime_case {
    const char *config;
    const char *set; /* a --set, or NULL */
    nsd_regime_kind kind;
} regime_case;

static const regime_case cases[] = {
    {"bouncing_ball_hunt_crossley.toml", NULL, NSD_REGIME_COMPLIANT},
    {"towed_wheel_rolling.toml", NULL, NSD_REGIME_HOLD_STICK},
    {"bouncing_ball_newton.toml", NULL, NSD_REGIME_EVENT_DRIVEN},
    {"bouncing_ball_newton.toml", "integrator={id=\"moreau\",h=1e-3}", NSD_REGIME_TIME_STEPPING},
};

static void load_case(const regime_case *rc, run *R) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, rc->config);
    const char *sets[1] = {rc->set};
    nsd_diag diag = {0};
    memset(R, 0, sizeof *R);
    R->no_graphs = 1;
    size_t errors = nsd_scenario_load(R, path, sets, rc->set ? 1 : 0, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "%s does not load", path);
    ck_assert_msg(R->model.regime->kind == rc->kind, "%s: regime %s", rc->config,
                  R->model.regime->name);
}

/* A random state near y0: each component moved by up to 5 % of (1 + |y0|). */
static void near_state(const nsd_model *m, unsigned *seed, double *y) {
    for (size_t i = 0; i < m->n; ++i) {
        double u = rand_r(seed) / (RAND_MAX + 1.0) * 2.0 - 1.0;
        y[i] = m->y0[i] + 0.05 * u * (1.0 + fabs(m->y0[i]));
    }
}

/* The right-hand side, the event functions and a sample at (t, y) with
 * data d, into out (n + n_events + n_channels values); returns the worst
 * status. */
static nsdyn_status evaluate_all(const nsd_model *m, nsd_data *d, double t, const double *y,
                                 double *out) {
    nsdyn_status a = nsd_model_rhs(m, d, t, y, out);
    nsdyn_status b = m->n_events ? nsd_model_event_functions(m, d, t, y, out + m->n) : NSDYN_OK;
    nsdyn_status c = nsd_model_sample(m, d, t, y, out + m->n + m->n_events);
    nsdyn_status w = a > b ? a : b;
    return w > c ? w : c;
}

#define N_STATES 40

START_TEST(second_data_is_independent) {
    const regime_case *rc = &cases[_i];
    run R;
    load_case(rc, &R);
    nsd_model *m = &R.model;
    size_t width = m->n + m->n_events + m->n_channels;
    nsd_model shallow = *m; /* the model's fields: no evaluation may change them */
    double *y0 = malloc(m->n * sizeof *y0);
    memcpy(y0, m->y0, m->n * sizeof *y0);
    nsd_data *d2 = nsd_data_create(m, &R.app.host, NULL, 0);
    nsd_data *alone = nsd_data_create(m, &R.app.host, NULL, 0);
    ck_assert_ptr_nonnull(d2);
    ck_assert_ptr_nonnull(alone);
    ck_assert_ptr_ne(d2->sys_inst, alone->sys_inst); /* one set of instances per data */
    ck_assert_ptr_eq(d2->model, m);
    ck_assert_int_eq(memcmp(d2->y0, m->y0, m->n * sizeof *y0), 0);
    double *ya = malloc(m->n * sizeof *ya), *yb = malloc(m->n * sizeof *yb);
    double *oa = malloc(width * sizeof *oa), *ob = malloc(width * sizeof *ob);
    double *ref = malloc(width * sizeof *ref);
    unsigned seed = 2100u + (unsigned)_i;
    uint64_t own_before = R.data->rhs_evals;
    for (int k = 0; k < N_STATES; ++k) {
        double t = 0.01 * k;
        near_state(m, &seed, ya);
        near_state(m, &seed, yb);
        /* interleaved: the scenario's data at ya, d2 at yb */
        nsdyn_status sa = evaluate_all(m, R.data, t, ya, oa);
        nsdyn_status sb = evaluate_all(m, d2, t, yb, ob);
        /* yb alone, with data that never saw ya */
        nsdyn_status sr = evaluate_all(m, alone, t, yb, ref);
        ck_assert_int_eq(sb, sr);
        ck_assert_str_eq(d2->failure, alone->failure);
        if (sb <= NSDYN_WARNING)
            ck_assert_msg(memcmp(ob, ref, width * sizeof *ob) == 0,
                          "%s: state %d: interleaved evaluation differs from its own", rc->config,
                          k);
        (void)sa;
    }
    /* each data counted its own right-hand sides */
    ck_assert_uint_eq(d2->rhs_evals, N_STATES);
    ck_assert_uint_eq(alone->rhs_evals, N_STATES);
    ck_assert_uint_eq(R.data->rhs_evals - own_before, N_STATES);
    /* a failure (a non-finite state) is the failing data's alone */
    R.data->failure[0] = '\0';
    for (size_t i = 0; i < m->n; ++i) yb[i] = NAN;
    evaluate_all(m, d2, 0.0, yb, ob);
    ck_assert_msg(d2->failure[0] != '\0', "%s: a NaN state did not fail", rc->config);
    ck_assert_str_eq(R.data->failure, "");
    nsd_data_reset(m, d2);
    ck_assert_str_eq(d2->failure, "");
    ck_assert_uint_eq(d2->rhs_evals, 0);
    /* the model itself is as created */
    ck_assert_int_eq(memcmp(&shallow, m, sizeof shallow), 0);
    ck_assert_int_eq(memcmp(y0, m->y0, m->n * sizeof *y0), 0);
    nsd_data_destroy(m, d2);
    nsd_data_destroy(m, alone);
    free(y0), free(ya), free(yb), free(oa), free(ob), free(ref);
    test_unload(&R);
}
END_TEST

/* One run of a model with data d from y0 into res (freed first), alone. */
static void run_alone(const nsd_model *m, nsd_data *d, run *R, const double *y0,
                      nsd_run_result *res) {
    nsd_data_reset(m, d);
    memcpy(d->y0, y0, m->n * sizeof *y0);
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_run_simulation(m, d, &R->app.cfg, &R->app.host, NULL, res, &diag), 0);
    nsd_diag_free(&diag);
}

/* Two runs on model m, with data a and b, from ya and yb, advanced in
 * turn one step at a time until both have ended. */
static void run_interleaved(const nsd_model *m, nsd_data *a, nsd_data *b, run *R, const double *ya,
                            const double *yb, nsd_run_result res[2]) {
    nsd_data *d[2] = {a, b};
    const double *y0[2] = {ya, yb};
    nsd_run *r[2];
    nsd_diag diag = {0};
    for (int k = 0; k < 2; ++k) {
        nsd_data_reset(m, d[k]);
        memcpy(d[k]->y0, y0[k], m->n * sizeof *y0[k]);
        ck_assert_uint_eq(
            nsd_run_begin(m, d[k], &R->app.cfg, &R->app.host, NULL, &res[k], &diag, &r[k]), 0);
        ck_assert_ptr_nonnull(r[k]);
    }
    for (int going = 1; going;) {
        going = 0;
        for (int k = 0; k < 2; ++k) going |= nsd_run_step(r[k]);
    }
    for (int k = 0; k < 2; ++k) nsd_run_end(r[k]);
    nsd_diag_free(&diag);
}

/* The same samples, bit for bit, and the same switches. */
static int same_run(const nsd_run_result *x, const nsd_run_result *y) {
    const nsd_series *a = &x->series, *b = &y->series;
    return x->outcome == y->outcome && x->n_switches == y->n_switches && a->rows == b->rows &&
           a->n_channels == b->n_channels &&
           memcmp(a->data, b->data, a->rows * a->n_channels * sizeof *a->data) == 0;
}

/* walker2 keeps its stance foot and double-support flag in its instance
 * (a discrete mode its switches flip). Two runs from different starts, on
 * one model with data each, interleaved step by step: each is the run it
 * is alone. Two data over one set of instances (the model's own, as every
 * run had before the instances moved into the data) are interleaved the
 * same way as a check that the case can see a leak: one run's heel
 * strikes flip the other's stance foot, and they differ. */
START_TEST(interleaved_runs_keep_their_discrete_state) {
    static const char *const sets[] = {"run.t_end=2", "run.progress=false", "plot.enabled=false"};
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/walker2_gait.toml", NSDYN_TEST_SOURCE_DIR);
    run R = {0};
    R.no_graphs = 1;
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_scenario_load(&R, path, sets, NSDYN_COUNT(sets), &diag), 0);
    nsd_diag_free(&diag);
    const nsd_model *m = &R.model;
    nsd_data *a = nsd_data_create(m, &R.app.host, NULL, 0),
             *b = nsd_data_create(m, &R.app.host, NULL, 0);
    nsd_data *shared[2] = {nsd_data_create_checks(m), nsd_data_create_checks(m)};
    double *yb = malloc(m->n * sizeof *yb);
    unsigned seed = 2121u + (unsigned)_i;
    /* B starts with the legs' rates moved by up to 10 %: its heel strikes
     * come at other times than A's */
    memcpy(yb, m->y0, m->n * sizeof *yb);
    for (size_t i = m->layout.nq; i < m->layout.nq + m->layout.nv; ++i)
        yb[i] *= 1.0 + 0.1 * (rand_r(&seed) / (RAND_MAX + 1.0) * 2.0 - 1.0);
    nsd_run_result alone[2], both[2], leak[2]; /* each run's begin clears its result */
    run_alone(m, a, &R, m->y0, &alone[0]);
    run_alone(m, a, &R, yb, &alone[1]);
    for (int k = 0; k < 2; ++k) {
        ck_assert_msg(alone[k].outcome == NSD_RUN_COMPLETE, "run %d: %s", k, alone[k].message);
        ck_assert_uint_ge(alone[k].n_switches, 4); /* the stance foot changed hands */
    }
    run_interleaved(m, a, b, &R, m->y0, yb, both);
    for (int k = 0; k < 2; ++k)
        ck_assert_msg(same_run(&both[k], &alone[k]),
                      "run %d interleaved differs from itself alone (%zu vs %zu switches)", k,
                      both[k].n_switches, alone[k].n_switches);
    run_interleaved(m, shared[0], shared[1], &R, m->y0, yb, leak);
    ck_assert_msg(!same_run(&leak[0], &alone[0]) || !same_run(&leak[1], &alone[1]),
                  "runs sharing one set of instances did not disturb each other: the case "
                  "cannot see a leak of discrete state");
    for (int k = 0; k < 2; ++k) {
        nsd_run_result_free(&alone[k]);
        nsd_run_result_free(&both[k]);
        nsd_run_result_free(&leak[k]);
        nsd_data_destroy(m, shared[k]);
    }
    nsd_data_destroy(m, a);
    nsd_data_destroy(m, b);
    free(yb);
    test_unload(&R);
}
END_TEST

/* A run of `base` with overrides (section, key, value) k < n, on base's
 * model (shared) or its own, into R (loaded; the caller unloads). */
typedef struct param_set {
    const char *section, *key;
    double value;
    int integer;
} param_set;

static void derive_run(run *R, const run *base, const param_set *p, size_t n, int shared) {
    nsd_overrides over = {0};
    char err[256];
    for (size_t k = 0; k < n; ++k) {
        nsd_where at = {"test", 0, 0};
        int rc = p[k].integer ? nsd_overrides_set_int(&over, p[k].section, p[k].key,
                                                      (int64_t)p[k].value, at, err, sizeof err)
                              : nsd_overrides_set_real(&over, p[k].section, p[k].key, p[k].value,
                                                       at, err, sizeof err);
        ck_assert_msg(rc == 0, "%s", err);
    }
    nsd_diag diag = {0};
    memset(R, 0, sizeof *R);
    R->no_graphs = 1;
    size_t errors = nsd_scenario_override(R, base, &over, &diag);
    if (!errors)
        errors = shared ? nsd_scenario_create_on(R, base, &diag) : nsd_scenario_create(R, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    ck_assert_uint_eq(errors, 0);
    ck_assert_uint_eq(nsd_scenario_run(R, NULL, &diag), 0);
    nsd_diag_free(&diag);
    nsd_overrides_free(&over);
}

static void load_base(run *R, const char *config, const char *const *sets, size_t n_sets) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, config);
    nsd_diag diag = {0};
    memset(R, 0, sizeof *R);
    R->no_graphs = 1;
    ck_assert_uint_eq(nsd_scenario_load(R, path, sets, n_sets, &diag), 0);
    nsd_diag_free(&diag);
}

/* Random radii, launch speeds, restitutions and friction of a sphere
 * rolling over the rim (its start, resting on the terrain, depends on the
 * radius b and x0, v0): the run on the base model shared (its data's own
 * instances and start) is bit for bit the run on a model of its own; and
 * spokes of a rimless wheel, which change its contacts, give a model of
 * the run's own. */
START_TEST(run_on_a_shared_model_is_its_own) {
    static const char *const sets[] = {"run.t_end=1.5", "run.progress=false"};
    run base;
    load_base(&base, "sphere_roll_over_rim.toml", sets, NSDYN_COUNT(sets));
    unsigned seed = 2131u;
    for (int k = 0; k < 3; ++k) {
        double u[4];
        for (int i = 0; i < 4; ++i) u[i] = rand_r(&seed) / (RAND_MAX + 1.0);
        param_set p[] = {{"system", "b", 0.8 + 0.4 * u[0], 0},
                         {"system", "v0", 3.4 + 0.8 * u[1], 0},
                         {"contact", "e", 0.5 + 0.5 * u[2], 0},
                         {"friction", "mu_k", 0.4 + 0.5 * u[3], 0}};
        run on, own;
        derive_run(&on, &base, p, NSDYN_COUNT(p), 1);
        derive_run(&own, &base, p, NSDYN_COUNT(p), 0);
        ck_assert_int_eq(on.shares_model, 1);
        ck_assert_ptr_eq(on.model.channels, base.model.channels); /* the very model */
        ck_assert_int_eq(memcmp(on.data->y0, own.data->y0, own.model.n * sizeof(double)), 0);
        ck_assert_msg(on.data->y0[2] != base.data->y0[2], "case %d: the start kept base's", k);
        ck_assert_msg(same_run(&on.res, &own.res), "case %d: the run on the shared model differs",
                      k);
        test_unload(&on);
        test_unload(&own);
    }
    test_unload(&base);
    load_base(&base, "rimless_wheel_walk.toml", sets, NSDYN_COUNT(sets));
    param_set spokes[] = {{"system", "spokes", 6, 1}};
    run on, own;
    derive_run(&on, &base, spokes, 1, 1);
    derive_run(&own, &base, spokes, 1, 0);
    ck_assert_int_eq(on.shares_model, 0); /* 6 contacts, not 8: a model of its own */
    ck_assert_uint_eq(on.model.nc, 6);
    ck_assert(same_run(&on.res, &own.res));
    test_unload(&on);
    test_unload(&own);
    test_unload(&base);
}
END_TEST

/* The progress line (issue 21 item 4): the library prints none; the run
 * hands its time to the log's progress reader, ending with one done call,
 * and to nobody when [run] progress is false. */
typedef struct progress_seen {
    int calls, done;
    double t_last, t_start, t_end;
    int backwards;
} progress_seen;

static void count_progress(void *ctx, const char *label, double t_s, double t_start_s,
                           double t_end_s, int done) {
    (void)label;
    progress_seen *p = ctx;
    p->backwards |= p->calls && t_s < p->t_last;
    p->calls++, p->done += done;
    p->t_last = t_s, p->t_start = t_start_s, p->t_end = t_end_s;
}

START_TEST(progress_goes_to_the_reader) {
    for (int on = 0; on <= 1; ++on) {
        run R;
        load_case(&cases[2], &R);
        progress_seen seen = {0};
        R.log.progress = count_progress;
        R.log.echo_ctx = &seen;
        R.app.cfg.settings.progress = on;
        test_run(&R);
        ck_assert_int_ne(R.res.outcome, NSD_RUN_FAILED);
        if (!on) {
            ck_assert_int_eq(seen.calls, 0);
        } else {
            ck_assert_int_eq(seen.done, 1);
            ck_assert_int_eq(seen.backwards, 0);
            ck_assert_double_eq(seen.t_start, R.app.cfg.settings.t_start);
            ck_assert_double_eq(seen.t_end, R.app.cfg.settings.t_end);
            ck_assert_double_eq(seen.t_last, R.res.t_reached);
        }
        test_unload(&R);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("model_data");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, second_data_is_independent, 0, sizeof cases / sizeof cases[0]);
    tcase_add_test(tc, progress_goes_to_the_reader);
    tcase_add_loop_test(tc, interleaved_runs_keep_their_discrete_state, 0, 3);
    tcase_add_test(tc, run_on_a_shared_model_is_its_own);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
