/* The host API's studies (issue 24, nsdyn/host.h 1.1), through the
 * public header and libnsdyn_host only, against the command line:
 *   - nsdyn_data_sweep writes the database `nsdyn sweep` writes: the
 *     API's rows in memory equal the rows of the command's database (read
 *     back through the API: a finished database resumes with nothing to
 *     run), every column but the wall time, bit for bit; a resumed API
 *     database runs nothing again;
 *   - nsdyn_data_continuation gives the branch of `nsdyn periodic`'s
 *     continuation.csv: each value, printed as the CSV prints it, is the
 *     CSV's text;
 *   - bad input: no [sweep], no [periodic.continuation], an arclength
 *     continuation, a database of another study: the command's messages. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_test_util.h"

#define SRC NSDYN_TEST_SOURCE_DIR
#define SWEEP_CFG SRC "/tests/fixtures/host_sweep_ball.toml"

static char tmp_root[] = "/tmp/nsdyn-host-study-XXXXXX";

static nsdyn_data *open_data(const char *path, const char *const *sets, size_t n, nsdyn_model **m) {
    *m = host_open(path, sets, n);
    return host_data(*m);
}

/* The command's stderr when it fails (its first "error: " line, without
 * the prefix), into buf. */
static void cli_error(const char *args, char *buf, size_t len) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", NSDYN_TEST_BINARY, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    buf[0] = '\0';
    char line[2048];
    while (fgets(line, sizeof line, p))
        if (!buf[0] && !strncmp(line, "error: ", 7)) {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, len, "%s", line + 7);
        }
    pclose(p);
}

/* The data's last error is the first error line of `nsdyn ARGS`. */
static void same_message_as_cli(nsdyn_data *d, const char *args) {
    char cli[2048];
    cli_error(args, cli, sizeof cli);
    ck_assert_msg(cli[0], "nsdyn %s printed no error", args);
    ck_assert_str_eq(nsdyn_data_last_error(d), cli);
}

static void same_rows(const nsdyn_host_sweep *a, const nsdyn_host_sweep *b) {
    ck_assert_uint_eq(a->n_rows, b->n_rows);
    ck_assert_uint_eq(a->n_columns, b->n_columns);
    for (size_t c = 0; c < a->n_columns; ++c) ck_assert_str_eq(a->columns[c], b->columns[c]);
    for (size_t r = 0; r < a->n_rows; ++r)
        for (size_t c = 0; c < a->n_columns; ++c) {
            size_t i = r * a->n_columns + c;
            if (!strcmp(a->columns[c], "wall")) continue; /* the runs' cost */
            if (a->text[i] || b->text[i]) {
                ck_assert_msg(a->text[i] && b->text[i] && !strcmp(a->text[i], b->text[i]),
                              "row %zu %s: '%s' vs '%s'", r, a->columns[c],
                              a->text[i] ? a->text[i] : "(number)",
                              b->text[i] ? b->text[i] : "(number)");
            } else {
                ck_assert_msg(memcmp(&a->num[i], &b->num[i], sizeof(double)) == 0 ||
                                  (isnan(a->num[i]) && isnan(b->num[i])),
                              "row %zu %s: %.17g vs %.17g", r, a->columns[c], a->num[i], b->num[i]);
            }
        }
}

START_TEST(sweep_is_cli_database) {
    char cli_db[300], api_db[300], cmd[2048];
    snprintf(cli_db, sizeof cli_db, "%s/cli.sqlite", tmp_root);
    snprintf(api_db, sizeof api_db, "%s/api.sqlite", tmp_root);
    snprintf(cmd, sizeof cmd, "'%s' sweep '%s' -q --no-graphs --no-csv -o '%s/cli' --db '%s'",
             NSDYN_TEST_BINARY, SWEEP_CFG, tmp_root, cli_db);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    nsdyn_model *m;
    nsdyn_data *d = open_data(SWEEP_CFG, NULL, 0, &m);
    nsdyn_data *r = NULL;
    nsdyn_errors *e = NULL;
    ck_assert_int_eq(nsdyn_data_create(m, &r, &e), NSDYN_HOST_OK);
    nsdyn_host_sweep api, cli, again;
    ck_assert_msg(nsdyn_data_sweep(d, api_db, &api) == NSDYN_HOST_OK, "%s",
                  nsdyn_data_last_error(d));
    ck_assert_uint_eq(api.n_runs, 24);
    ck_assert_uint_eq(api.n_rows, 24);
    ck_assert_uint_eq(api.n_done_before, 0);
    ck_assert_uint_eq(api.n_failed, 1); /* e = 0.6 from 0.55 m: max_events 12 */
    /* the command's database, read through the API: finished, nothing run */
    ck_assert_msg(nsdyn_data_sweep(r, cli_db, &cli) == NSDYN_HOST_OK, "%s",
                  nsdyn_data_last_error(r));
    ck_assert_uint_eq(cli.n_done_before, 24);
    same_rows(&api, &cli);
    /* columns: run, 3 axes, 5 summaries, status, message, wall, config_hash,
     * log_warnings, log_first */
    ck_assert_uint_eq(api.n_columns, 15);
    ck_assert_str_eq(api.columns[14], "log_first");
    ck_assert_str_eq(api.columns[1], "contact_e");
    ck_assert_str_eq(api.columns[2], "y0");
    ck_assert_str_eq(api.columns[9], "status");
    /* the failed row says why, as the command's does */
    int failed_seen = 0;
    for (size_t i = 0; i < api.n_rows; ++i)
        if (strcmp(api.text[i * api.n_columns + 9], "ok") != 0) {
            ck_assert_ptr_nonnull(strstr(api.text[i * api.n_columns + 10], "max_events"));
            failed_seen++;
        }
    ck_assert_int_eq(failed_seen, 1);
    /* the API's own database resumes: nothing run again, the same rows */
    ck_assert_int_eq(nsdyn_data_sweep(d, api_db, &again), NSDYN_HOST_OK);
    ck_assert_uint_eq(again.n_done_before, 24);
    /* an in-memory database: the same rows again (d's table replaced) */
    ck_assert_int_eq(nsdyn_data_sweep(d, NULL, &again), NSDYN_HOST_OK);
    ck_assert_uint_eq(again.n_done_before, 0);
    same_rows(&again, &cli);
    nsdyn_data_free(r);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

START_TEST(sweep_bad_input) {
    char args[1024];
    /* no [sweep]: the command's message */
    nsdyn_model *m;
    nsdyn_data *d = open_data(SRC "/configs/bouncing_ball_newton.toml", NULL, 0, &m);
    nsdyn_host_sweep out;
    ck_assert_int_eq(nsdyn_data_sweep(d, NULL, &out), NSDYN_HOST_ERR_CONFIG);
    snprintf(args, sizeof args, "sweep '%s/configs/bouncing_ball_newton.toml' -q -o '%s/none'", SRC,
             tmp_root);
    same_message_as_cli(d, args);
    ck_assert_uint_eq(out.n_rows, 0);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    /* a database of another study: refused with the command's message,
     * the database untouched */
    char db[300];
    snprintf(db, sizeof db, "%s/other.sqlite", tmp_root);
    const char *set = "run.t_end=1.4";
    d = open_data(SWEEP_CFG, &set, 1, &m);
    ck_assert_int_eq(nsdyn_data_sweep(d, db, &out), NSDYN_HOST_OK);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    d = open_data(SWEEP_CFG, NULL, 0, &m);
    ck_assert_int_eq(nsdyn_data_sweep(d, db, &out), NSDYN_HOST_ERR_IO);
    snprintf(args, sizeof args, "sweep '%s' -q --no-graphs -o '%s/other' --db '%s'", SWEEP_CFG,
             tmp_root, db);
    same_message_as_cli(d, args);
    ck_assert_uint_eq(out.n_rows, 0);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

/* A value of column `name` as continuation.csv prints it (periodic_branch.c
 * write_csv). */
static void csv_text(char *buf, size_t len, const char *name, double v) {
    if (!strcmp(name, "converged") || !strcmp(name, "stable"))
        snprintf(buf, len, "%d", (int)v);
    else if (!strcmp(name, "residual") || !strcmp(name, "mu error (h/2h)"))
        snprintf(buf, len, "%.3e", v);
    else if (!strcmp(name, "max |mu|") || !strncmp(name, "mu", 2))
        snprintf(buf, len, "%.9g", v);
    else
        snprintf(buf, len, "%.12g", v);
}

/* The API's branch of config, printed as continuation.csv prints it, is
 * the CSV `nsdyn periodic` writes, row by row, field by field. */
static void branch_is_cli_csv(const char *config, const char *const *sets, size_t n_sets,
                              const char *set_args, int k) {
    char cmd[2048], path[400];
    snprintf(cmd, sizeof cmd, "'%s' periodic '%s' %s -q -o '%s/periodic%d' >/dev/null 2>&1",
             NSDYN_TEST_BINARY, config, set_args, tmp_root, k);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/periodic%d/continuation.csv", tmp_root, k);
    char *csv = host_slurp(path);
    ck_assert_ptr_nonnull(csv);
    nsdyn_model *m;
    nsdyn_data *d = open_data(config, sets, n_sets, &m);
    nsdyn_host_periodic orbit;
    nsdyn_host_branch b;
    ck_assert_msg(nsdyn_data_continuation(d, &orbit, &b) == NSDYN_HOST_OK, "%s",
                  nsdyn_data_last_error(d));
    ck_assert(orbit.converged);
    char *line = csv, *end = strchr(line, '\n');
    /* the header: the columns, then event */
    size_t at = 0;
    for (size_t c = 0; c < b.n_columns; ++c) {
        size_t n = strlen(b.columns[c]);
        ck_assert_msg(!strncmp(line + at, b.columns[c], n) && line[at + n] == ',',
                      "column %zu: %s vs %.*s", c, b.columns[c], (int)(end - line), line);
        at += n + 1;
    }
    ck_assert(!strncmp(line + at, "event\n", 6));
    size_t rows = 0;
    for (line = end + 1; *line; line = end + 1, ++rows) {
        end = strchr(line, '\n');
        ck_assert_uint_lt(rows, b.n_rows);
        char want[4096] = "", field[64];
        for (size_t c = 0; c < b.n_columns; ++c) {
            csv_text(field, sizeof field, b.columns[c], b.values[rows * b.n_columns + c]);
            strcat(want, field);
            strcat(want, ",");
        }
        snprintf(want + strlen(want), sizeof want - strlen(want), "\"%s\"", b.event[rows]);
        ck_assert_msg(strlen(want) == (size_t)(end - line) && !strncmp(want, line, strlen(want)),
                      "row %zu:\n API %s\n CLI %.*s", rows, want, (int)(end - line), line);
    }
    ck_assert_uint_eq(rows, b.n_rows);
    ck_assert_uint_ge(b.n_converged, 3);
    free(csv);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}

START_TEST(continuation_is_cli_csv) {
    branch_is_cli_csv(SRC "/configs/rimless_hub_periodic.toml", NULL, 0, "", 0);
    /* the walker along b: a multiplier crosses -1 on the way (a marked row) */
    branch_is_cli_csv(SRC "/configs/walker_impact_periodic.toml", NULL, 0, "", 1);
}
END_TEST

START_TEST(continuation_bad_input) {
    char args[1024];
    nsdyn_model *m;
    nsdyn_host_periodic orbit;
    nsdyn_host_branch b;
    /* no [periodic]: the command's message */
    nsdyn_data *d = open_data(SRC "/configs/bouncing_ball_newton.toml", NULL, 0, &m);
    ck_assert_int_eq(nsdyn_data_continuation(d, &orbit, &b), NSDYN_HOST_ERR_CONFIG);
    snprintf(args, sizeof args, "periodic '%s/configs/bouncing_ball_newton.toml' -q -o '%s/np'",
             SRC, tmp_root);
    same_message_as_cli(d, args);
    ck_assert_uint_eq(b.n_rows, 0);
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    /* [periodic] without a continuation; an arclength continuation */
    d = open_data(SRC "/configs/impact_oscillator.toml", NULL, 0, &m);
    ck_assert_int_eq(nsdyn_data_continuation(d, &orbit, &b), NSDYN_HOST_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "impact_oscillator.toml:"));
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "no [periodic.continuation]"));
    nsdyn_data_free(d);
    nsdyn_model_free(m);
    d = open_data(SRC "/configs/impact_oscillator_grazing.toml", NULL, 0, &m);
    ck_assert_int_eq(nsdyn_data_continuation(d, &orbit, &b), NSDYN_HOST_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(nsdyn_data_last_error(d), "arclength"));
    nsdyn_data_free(d);
    nsdyn_model_free(m);
}
END_TEST

int main(void) {
    if (!mkdtemp(tmp_root)) return 1;
    Suite *s = suite_create("host_study");
    TCase *tc = tcase_create("host_study");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sweep_is_cli_database);
    tcase_add_test(tc, sweep_bad_input);
    tcase_add_test(tc, continuation_is_cli_csv);
    tcase_add_test(tc, continuation_bad_input);
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
