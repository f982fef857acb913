/* The host API (issue 24, core/include/nsdyn/host.h), through the public
 * header and libnsdyn_host only:
 *   - the samples in memory are the command line's timeseries.csv: each
 *     value printed as nsdyn run prints it gives the CSV's text, and
 *     nsdyn_data_write gives the same bytes, on several shipped configs;
 *   - the closed form of the Newton bouncing ball (first impact at
 *     sqrt(2 h / g), rebound -e u) over random e and h;
 *   - bad input: a missing or broken config, a bad override, an unknown
 *     parameter, state or channel, a value out of range: the command
 *     line's messages, nothing lost;
 *   - a failed run keeps its data, marked incomplete; a stop request from
 *     another thread ends the run the way Ctrl-C ends nsdyn run;
 *   - one model shared by threads, each with its data, gives what serial
 *     runs give, bit for bit;
 *   - copy and reset. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_test_util.h"

#define CFG(name) NSDYN_TEST_SOURCE_DIR "/configs/" name

static char tmp_root[] = "/tmp/nsdyn-host-XXXXXX";

START_TEST(version) {
    ck_assert_uint_eq(nsdyn_host_api_version() >> 16, NSDYN_HOST_API_MAJOR);
    ck_assert_uint_ge(nsdyn_host_api_version() & 0xFFFF, NSDYN_HOST_API_MINOR);
    ck_assert(strlen(nsdyn_host_version_string()) >= 5);
}
END_TEST

/* The command line's run of config with the sets, and the API's. */
static const struct {
    const char *config;
    const char *sets[2];
} same_cases[] = {
    {CFG("bouncing_ball_newton.toml"), {"run.t_end=1.2", NULL}},
    {CFG("bouncing_ball_hunt_crossley.toml"), {"run.t_end=0.6", NULL}},
    {CFG("towed_wheel_rolling.toml"), {"run.t_end=0.5", NULL}},
    {CFG("sphere_rebound_incline.toml"), {NULL, NULL}},
};

START_TEST(samples_equal_cli) {
    const char *config = same_cases[_i].config;
    const char *set = same_cases[_i].sets[0];
    char cli_dir[256], api_dir[256], cmd[2048];
    snprintf(cli_dir, sizeof cli_dir, "%s/cli%d", tmp_root, _i);
    snprintf(api_dir, sizeof api_dir, "%s/api%d", tmp_root, _i);
    snprintf(cmd, sizeof cmd,
             "'%s' run '%s' %s%s --set plot.enabled=false -q -o '%s' >/dev/null 2>&1",
             NSDYN_TEST_BINARY, config, set ? "--set " : "", set ? set : "", cli_dir);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    nsdyn_model *m = host_open(config, set ? &set : NULL, set ? 1 : 0);
    nsdyn_data *d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(d, 0), NSDYN_HOST_OK);
    /* each CSV field reads back to the API's double, bit for bit (the CSV
     * writes the shortest round-trip decimal, numfmt.h) */
    char path[300];
    snprintf(path, sizeof path, "%s/timeseries.csv", cli_dir);
    char *csv = host_slurp(path);
    ck_assert_ptr_nonnull(csv);
    const double *v;
    size_t rows, nc = nsdyn_data_channel_count(d);
    ck_assert_int_eq(nsdyn_data_samples(d, &v, &rows), NSDYN_HOST_OK);
    ck_assert_uint_gt(rows, 10);
    char *line = strchr(csv, '\n') + 1; /* past the header */
    for (size_t r = 0; r < rows; ++r) {
        char *end = strchr(line, '\n');
        ck_assert_ptr_nonnull(end);
        char *field = line;
        for (size_t c = 0; c < nc; ++c) {
            char *after;
            double cli = strtod(field, &after);
            ck_assert_msg(after != field && memcmp(&cli, &v[r * nc + c], sizeof cli) == 0,
                          "%s row %zu column %zu: CLI %.*s, API %.17g", config, r, c,
                          (int)(end - line), line, v[r * nc + c]);
            field = after + (*after == ',');
        }
        ck_assert_msg(field == end, "%s row %zu: more CSV fields than channels", config, r);
        line = end + 1;
    }
    ck_assert_msg(*line == '\0', "%s: the CLI has more rows than the API's %zu", config, rows);
    /* a channel as one contiguous column: the samples' values */
    double *col = malloc(rows * sizeof *col);
    ck_assert_int_eq(nsdyn_data_channel_copy(d, nc - 1, col, rows), NSDYN_HOST_OK);
    for (size_t r = 0; r < rows; ++r) ck_assert(col[r] == v[r * nc + nc - 1]);
    ck_assert_int_eq(nsdyn_data_channel_copy(d, nc, col, rows), NSDYN_HOST_ERR_ARGUMENT);
    free(col);
    /* nsdyn_data_write: the same bytes */
    ck_assert_int_eq(nsdyn_data_write(d, api_dir), NSDYN_HOST_OK);
    snprintf(path, sizeof path, "%s/timeseries.csv", api_dir);
    char *api = host_slurp(path);
    ck_assert_ptr_nonnull(api);
    ck_assert_str_eq(api, csv);
    free(api);
    free(csv);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

/* Newton's ball dropped from y0 = r + h: the first impact at
 * t = sqrt(2 h / g) (the dopri5 event location to ~1e-10 s), at
 * u = -sqrt(2 g h), leaving at -e u, over random e and h. */
START_TEST(newton_ball_closed_form) {
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), NULL, 0);
    nsdyn_data *d = host_data(m);
    double r, g;
    ck_assert_int_eq(nsdyn_data_get_param(d, "system.r", &r), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_get_param(d, "system.g", &g), NSDYN_HOST_OK);
    unsigned seed = 24;
    for (int k = 0; k < 20; ++k) {
        double e = 0.05 + 0.9 * rand_r(&seed) / (double)RAND_MAX;
        double h = 0.1 + 2.0 * rand_r(&seed) / (double)RAND_MAX;
        ck_assert_int_eq(nsdyn_data_set_param(d, "contact.e", e), NSDYN_HOST_OK);
        ck_assert_int_eq(nsdyn_data_set_state(d, "y", r + h), NSDYN_HOST_OK);
        double t1 = sqrt(2 * h / g), u = sqrt(2 * g * h);
        ck_assert_int_eq(nsdyn_data_run(d, t1 * 1.5), NSDYN_HOST_OK);
        ck_assert_uint_ge(nsdyn_data_event_count(d), 1);
        nsdyn_host_event ev;
        ck_assert_int_eq(nsdyn_data_event(d, 0, &ev), NSDYN_HOST_OK);
        ck_assert_str_eq(ev.kind, "impact");
        ck_assert_str_eq(ev.contact, "ground");
        ck_assert_double_eq_tol(ev.t, t1, 1e-9);
        ck_assert_double_eq_tol(ev.u_before[0], -u, 1e-8 * u);
        ck_assert_double_eq_tol(ev.u_after[0], e * u, 1e-8 * u);
        double v;
        ck_assert_int_eq(nsdyn_data_get_param(d, "contact.e", &v), NSDYN_HOST_OK);
        ck_assert_double_eq(v, e);
    }
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

START_TEST(bad_configs) {
    nsdyn_model *m = (nsdyn_model *)1;
    nsdyn_errors *e = NULL;
    ck_assert_int_eq(nsdyn_model_open("/nonexistent/x.toml", NULL, 0, &m, &e),
                     NSDYN_HOST_ERR_CONFIG);
    ck_assert_ptr_null(m);
    ck_assert_uint_eq(nsdyn_errors_count(e), 1);
    ck_assert_ptr_nonnull(strstr(nsdyn_errors_at(e, 0), "/nonexistent/x.toml"));
    nsdyn_errors_free(e);
    /* broken TOML text: "name:line:col: ..." */
    ck_assert_int_eq(
        nsdyn_model_open_string("title = \"x\"\n[system\nid = 1\n", "mine.toml", NULL, 0, &m, &e),
        NSDYN_HOST_ERR_CONFIG);
    ck_assert_msg(strncmp(nsdyn_errors_at(e, 0), "mine.toml:2:", 12) == 0, "%s",
                  nsdyn_errors_at(e, 0));
    nsdyn_errors_free(e);
    /* every problem of a config at once, each at its place */
    const char *sets[] = {"contact.e=1.5", "system.bogus=1"};
    ck_assert_int_eq(nsdyn_model_open(CFG("bouncing_ball_newton.toml"), sets, 2, &m, &e),
                     NSDYN_HOST_ERR_CONFIG);
    ck_assert_uint_ge(nsdyn_errors_count(e), 2);
    int saw_e = 0, saw_bogus = 0;
    for (size_t i = 0; i < nsdyn_errors_count(e); ++i) {
        saw_e |= strstr(nsdyn_errors_at(e, i), "'e'") != NULL;
        saw_bogus |= strstr(nsdyn_errors_at(e, i), "bogus") != NULL;
    }
    ck_assert(saw_e && saw_bogus);
    nsdyn_errors_free(e);
    /* a string config: plugins found, the run is the file's */
    char *text = host_slurp(CFG("bouncing_ball_newton.toml"));
    ck_assert_int_eq(nsdyn_model_open_string(text, NULL, NULL, 0, &m, &e), NSDYN_HOST_OK);
    ck_assert_str_eq(nsdyn_model_title(m),
                     "bouncing ball, Newton restitution e = 0.5 (event-driven)");
    free(text);
    nsdyn_model_free(m);
}
END_TEST

START_TEST(bad_names_keep_results) {
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), NULL, 0);
    nsdyn_data *d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(d, 0.5), NSDYN_HOST_OK);
    size_t rows_before;
    const double *v;
    nsdyn_data_samples(d, &v, &rows_before);
    ck_assert_int_eq(nsdyn_data_set_param(d, "contact.ee", 0.3), NSDYN_HOST_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "did you mean 'e'"));
    ck_assert_int_eq(nsdyn_data_set_param(d, "nosuch", 0.3), NSDYN_HOST_ERR_NOT_FOUND);
    ck_assert_int_eq(nsdyn_data_set_param(d, "friction.mu", 0.3), NSDYN_HOST_ERR_NOT_FOUND);
    ck_assert_int_eq(nsdyn_data_set_state(d, "z", 1.0), NSDYN_HOST_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "states: x, y, vx, vy"));
    ck_assert_int_eq(nsdyn_data_channel_index(d, "vyy"), -1);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "did you mean 'vy'"));
    /* out of range: the CLI's --set message; the data keeps its results
     * and its value */
    ck_assert_int_eq(nsdyn_data_set_param(d, "contact.e", 1.5), NSDYN_HOST_ERR_CONFIG);
    ck_assert_msg(strstr(nsdyn_data_last_error(d), "--set") &&
                      strstr(nsdyn_data_last_error(d), "'e'"),
                  "%s", nsdyn_data_last_error(d));
    size_t rows_after;
    ck_assert_int_eq(nsdyn_data_samples(d, &v, &rows_after), NSDYN_HOST_OK);
    ck_assert_uint_eq(rows_after, rows_before);
    double e;
    ck_assert_int_eq(nsdyn_data_get_param(d, "contact.e", &e), NSDYN_HOST_OK);
    ck_assert_double_eq(e, 0.5);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

/* A run that fails (run.max_events reached in the accumulation of
 * bounces) keeps what it computed, marked incomplete. */
START_TEST(failed_run_keeps_data) {
    const char *set = "run.max_events=5";
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), &set, 1);
    nsdyn_data *d = host_data(m);
    ck_assert_int_eq(nsdyn_data_run(d, 0), NSDYN_HOST_ERR_RUN_FAILED);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "max_events"));
    nsdyn_host_summary s;
    ck_assert_int_eq(nsdyn_data_summary(d, &s), NSDYN_HOST_OK);
    ck_assert_int_eq(s.outcome, NSDYN_HOST_RUN_FAILED);
    ck_assert_int_eq(s.incomplete, 1);
    ck_assert(s.t_reached > 0.4 && s.t_reached < 2.0);
    const double *v;
    size_t rows;
    ck_assert_int_eq(nsdyn_data_samples(d, &v, &rows), NSDYN_HOST_OK);
    ck_assert_uint_gt(rows, 100);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_summary_line(d), "failed"));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/failed", tmp_root);
    ck_assert_int_eq(nsdyn_data_write(d, dir), NSDYN_HOST_OK);
    char path[400];
    snprintf(path, sizeof path, "%s/timeseries.INCOMPLETE.csv", dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

typedef struct {
    nsdyn_data *d;
    nsdyn_host_status st;
    double e, checksum;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    j->st = j->e > 0 ? nsdyn_data_set_param(j->d, "contact.e", j->e) : NSDYN_HOST_OK;
    if (j->st == NSDYN_HOST_OK) j->st = nsdyn_data_run(j->d, 0);
    const double *v;
    size_t rows;
    if (j->st == NSDYN_HOST_OK && nsdyn_data_samples(j->d, &v, &rows) == NSDYN_HOST_OK)
        for (size_t i = 0; i < rows * nsdyn_data_channel_count(j->d); ++i)
            j->checksum += v[i] * (double)(i % 7 + 1);
    return NULL;
}

/* The Hunt-Crossley ball for 100 s of bouncing (bdf): long enough to stop
 * from outside. */
START_TEST(stop_request) {
    const char *sets[] = {"run.t_end=100", "run.output_dt=1e-3"};
    nsdyn_model *m = host_open(CFG("bouncing_ball_hunt_crossley.toml"), sets, 2);
    job j = {host_data(m), 0, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, run_job, &j);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    nsdyn_data_request_stop(j.d);
    pthread_join(th, NULL);
    ck_assert_int_eq(j.st, NSDYN_HOST_ERR_INTERRUPTED);
    ck_assert_msg(strstr(nsdyn_data_last_error(j.d), "interrupted by signal 2 at t = ") ==
                      nsdyn_data_last_error(j.d),
                  "%s", nsdyn_data_last_error(j.d));
    nsdyn_host_summary s;
    nsdyn_data_summary(j.d, &s);
    ck_assert_int_eq(s.incomplete, 1);
    ck_assert(s.t_reached > 0 && s.t_reached < 100);
    const double *v;
    size_t rows;
    nsdyn_data_samples(j.d, &v, &rows);
    ck_assert_uint_gt(rows, 0);
    /* the last sample is at or before the time reached */
    ck_assert(v[(rows - 1) * nsdyn_data_channel_count(j.d)] <= s.t_reached);
    /* the next run starts afresh */
    ck_assert_int_eq(nsdyn_data_run(j.d, 0.2), NSDYN_HOST_OK);
    nsdyn_data_free(j.d);
    nsdyn_model_free(m);
}
END_TEST

/* One model, four threads with a data each, random e: the same numbers as
 * the same runs one after the other. */
START_TEST(threads_share_model) {
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), NULL, 0);
    enum { N = 4 };
    job par[N], ser[N];
    pthread_t th[N];
    unsigned seed = 7;
    for (int k = 0; k < N; ++k) {
        double e = 0.1 + 0.8 * rand_r(&seed) / (double)RAND_MAX;
        par[k] = (job){host_data(m), 0, e, 0};
        ser[k] = (job){host_data(m), 0, e, 0};
    }
    for (int k = 0; k < N; ++k) pthread_create(&th[k], NULL, run_job, &par[k]);
    for (int k = 0; k < N; ++k) pthread_join(th[k], NULL);
    for (int k = 0; k < N; ++k) {
        run_job(&ser[k]);
        ck_assert_int_eq(par[k].st, NSDYN_HOST_OK);
        ck_assert_int_eq(ser[k].st, NSDYN_HOST_OK);
        ck_assert(par[k].checksum != 0);
        ck_assert_double_eq(par[k].checksum, ser[k].checksum); /* bit for bit */
        nsdyn_data_free(par[k].d);
        nsdyn_data_free(ser[k].d);
    }
    nsdyn_model_free(m);
}
END_TEST

START_TEST(copy_and_reset) {
    nsdyn_model *m = host_open(CFG("bouncing_ball_newton.toml"), NULL, 0);
    nsdyn_data *d = host_data(m), *c = NULL;
    nsdyn_errors *e = NULL;
    ck_assert_int_eq(nsdyn_data_set_param(d, "contact.e", 0.8), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_set_state(d, "y", 2.0), NSDYN_HOST_OK);
    ck_assert_int_eq(nsdyn_data_copy(d, &c, &e), NSDYN_HOST_OK);
    double v;
    nsdyn_data_get_param(c, "contact.e", &v);
    ck_assert_double_eq(v, 0.8);
    nsdyn_data_get_state(c, "y", &v);
    ck_assert_double_eq(v, 2.0);
    ck_assert_int_eq(nsdyn_data_summary(c, &(nsdyn_host_summary){0}), NSDYN_HOST_ERR_NO_RUN);
    ck_assert_int_eq(nsdyn_data_reset(d), NSDYN_HOST_OK);
    nsdyn_data_get_param(d, "contact.e", &v);
    ck_assert_double_eq(v, 0.5);
    nsdyn_data_get_state(d, "y", &v);
    ck_assert_double_eq(v, 1.05);
    /* the state after a run is the last sample's */
    ck_assert_int_eq(nsdyn_data_run(c, 0.1), NSDYN_HOST_OK);
    nsdyn_data_get_state(c, "y", &v);
    ck_assert_double_eq_tol(v, 2.0 - 0.5 * 9.81 * 0.01, 1e-9);
    /* the record: the resolved config and provenance */
    char *rec = NULL;
    ck_assert_int_eq(nsdyn_data_record(c, &rec), NSDYN_HOST_OK);
    ck_assert_ptr_nonnull(strstr(rec, "e = 0.8"));
    ck_assert_ptr_nonnull(strstr(rec, "[provenance]"));
    nsdyn_host_free(rec);
    nsdyn_data_free(c);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

/* The rimless wheel's gait (configs/rimless_hub_periodic.toml): the
 * multipliers are cos^2(2 alpha), alpha = pi / spokes, and 0 (the
 * section's own direction), for several spoke counts. */
START_TEST(periodic_rimless_closed_form) {
    nsdyn_model *m = host_open(CFG("rimless_hub_periodic.toml"), NULL, 0);
    nsdyn_data *d = host_data(m);
    const int spokes[] = {8, 10, 12};
    for (size_t k = 0; k < 3; ++k) {
        ck_assert_int_eq(nsdyn_data_set_param(d, "system.spokes", spokes[k]), NSDYN_HOST_OK);
        nsdyn_host_periodic p;
        nsdyn_host_status st = nsdyn_data_periodic(d, &p);
        ck_assert_msg(st == NSDYN_HOST_OK, "%d spokes: %s", spokes[k], nsdyn_data_last_error(d));
        ck_assert(p.converged && p.stable);
        ck_assert_uint_eq(p.n_free, 2);
        double c = cos(2 * M_PI / spokes[k]);
        /* the map good to ~1e-11 at rtol 1e-11, its central differences
         * (h = 1e-6 relative) to ~1e-5: the multipliers' error bound
         * (tests/test_periodic.c) */
        ck_assert_msg(fabs(p.mult_re[0] - c * c) < 1e-5, "%d spokes: %.9g vs cos^2(2 alpha) = %.9g",
                      spokes[k], p.mult_re[0], c * c);
        ck_assert_double_eq_tol(p.mult_im[0], 0, 1e-12);
        ck_assert_double_le(hypot(p.mult_re[1], p.mult_im[1]), 1e-5);
        ck_assert(p.period > 0 && p.state[p.free[1]] > 0);
    }
    /* no [periodic]: a config error */
    nsdyn_model *b = host_open(CFG("bouncing_ball_newton.toml"), NULL, 0);
    nsdyn_data *db = host_data(b);
    nsdyn_host_periodic p;
    ck_assert_int_eq(nsdyn_data_periodic(db, &p), NSDYN_HOST_ERR_CONFIG);
    nsdyn_data_free(db);
    nsdyn_model_free(b);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

int main(void) {
    if (!mkdtemp(tmp_root)) return 1;
    Suite *s = suite_create("host_api");
    TCase *tc = tcase_create("host_api");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, version);
    tcase_add_loop_test(tc, samples_equal_cli, 0, sizeof same_cases / sizeof same_cases[0]);
    tcase_add_test(tc, newton_ball_closed_form);
    tcase_add_test(tc, bad_configs);
    tcase_add_test(tc, bad_names_keep_results);
    tcase_add_test(tc, failed_run_keeps_data);
    tcase_add_test(tc, stop_request);
    tcase_add_test(tc, threads_share_model);
    tcase_add_test(tc, copy_and_reset);
    tcase_add_test(tc, periodic_rimless_closed_form);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0) return 1;
    return failed ? 1 : 0;
}
