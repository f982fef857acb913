#define _GNU_SOURCE
/* The model and its run data (issue 21 item 1, model.h nsd_data): a
 * second nsd_data of a model evaluates the right-hand side, the event
 * functions and samples of the same model without touching the model or
 * the model's own data; interleaved with the model's own data, each gives
 * bit for bit what it gives alone; its counters and failure are its own.
 * Over the four contact regimes (compliant, hold-stick, event-driven,
 * time-stepping) at random states around each config's initial state.
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
    nsd_data *d2 = nsd_data_create(m), *alone = nsd_data_create(m);
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
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
