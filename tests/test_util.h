/* Helpers shared by the host-level tests: build a model from TOML text
 * through the same scenario pipeline `nsdyn run` takes. */
#ifndef NSD_TEST_UTIL_H
#define NSD_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "registry.h"
#include "model.h"
#include "run.h"
#include "scenario.h"

/* A simulation through the host's scenario pipeline, as `nsdyn run` makes
 * it (scenario.h): R->app.cfg, R->model, R->res. Tests draw no graphs. */
typedef nsd_scenario run;

/* Load config text (written to a temporary file) and create its model.
 * Fails the test with the diagnostics if anything is wrong. */
static inline void test_load(const char *toml, run *R) {
    char path[] = "/tmp/nsdyn-test-XXXXXX.toml";
    int fd = mkstemps(path, 5);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(toml, f);
    fclose(f);
    nsd_diag diag = {0};
    R->no_graphs = 1;
    size_t errors = nsd_scenario_load(R, path, NULL, 0, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    remove(path);
    ck_assert_msg(errors == 0, "config did not load (%zu errors)", errors);
    nsd_diag_free(&diag);
}

static inline void test_unload(run *R) { nsd_scenario_destroy(R); }

/* Run a loaded scenario; any outcome (the caller judges it). */
static inline void test_run(run *R) {
    nsd_diag diag = {0};
    size_t errors = nsd_scenario_run(R, NULL, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "the run could not start");
}

/* Load config text, run it, and require the given outcome. */
static inline void run_config(run *R, const char *toml, nsd_run_outcome want) {
    test_load(toml, R);
    test_run(R);
    ck_assert_msg(R->res.outcome == want, "run outcome %d: %s", (int)R->res.outcome,
                  R->res.message);
}

#ifdef NSDYN_TEST_SOURCE_DIR
/* Run a shipped config (configs/NAME) with --set overrides; want: the
 * outcome, or TEST_ANY_OUTCOME for complete or stopped. */
#define TEST_ANY_OUTCOME 99
static inline void test_run_file(run *R, const char *name, const char *const *sets, size_t n_sets,
                                 nsd_run_outcome want) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, name);
    nsd_diag diag = {0};
    R->no_graphs = 1;
    size_t errors = nsd_scenario_load(R, path, sets, n_sets, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "%s does not load", path);
    test_run(R);
    int ok =
        (int)want == TEST_ANY_OUTCOME ? R->res.outcome != NSD_RUN_FAILED : R->res.outcome == want;
    ck_assert_msg(ok, "%s: outcome %d: %s", name, (int)R->res.outcome, R->res.message);
}
#endif

/* Contact events of one kind in a run's log. */
static inline size_t test_count_kind(const run *R, nsd_event_kind kind) {
    size_t n = 0;
    for (size_t i = 0; i < R->res.contact_log.n; ++i) n += R->res.contact_log.rec[i].kind == kind;
    return n;
}

static inline void run_free(run *R) { nsd_scenario_destroy(R); }

static inline size_t chan(const run *R, const char *name) {
    int c = nsd_model_channel(&R->model, name);
    ck_assert_msg(c >= 0, "no channel %s", name);
    return (size_t)c;
}

/* Channel `name` at sample `row`, and at the last sample. */
static inline double at(const run *R, size_t row, const char *name) {
    return nsd_series_at(&R->res.series, row, chan(R, name));
}

static inline double last(const run *R, const char *name) {
    return at(R, R->res.series.rows - 1, name);
}

/* Scan the host's own plugin folder into reg (NSDYN_PLUGIN_PATH ignored);
 * prints the problems and returns non-zero if there are any. */
static inline int test_scan_builtin(nsd_registry *reg) {
    unsetenv("NSDYN_PLUGIN_PATH");
    nsd_diag diag = {0};
    const char *dir = nsd_builtin_plugin_dir();
    size_t problems = nsd_registry_scan(reg, &dir, 1, &diag);
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    return problems != 0;
}

/* Write dir/name with text (a config or model file a test makes). */
static inline void test_write_at(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* Load dir/name into R (zeroed first, no graphs) as nsdyn run does;
 * returns the number of errors, their messages (one a line) in all. */
static inline size_t test_load_at(const char *dir, const char *name, run *R, char *all,
                                  size_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    nsd_diag diag = {0};
    memset(R, 0, sizeof *R);
    R->no_graphs = 1;
    size_t errors = nsd_scenario_load(R, path, NULL, 0, &diag);
    all[0] = '\0';
    for (size_t i = 0; i < diag.n; ++i) {
        size_t used = strlen(all);
        snprintf(all + used, len - used, "%s\n", diag.lines[i]);
    }
    nsd_diag_free(&diag);
    return errors;
}

/* Run a suite; the exit status for ctest. */
static inline int test_run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#ifdef NSDYN_TEST_BINARY
/* `nsdyn ARGS` (ARGS quoted by the caller), stdout and stderr into out; the
 * exit status, or 128 + the signal that ended it. */
static inline int test_nsdyn(const char *args, char *out, size_t len) {
    char cmd[8192]; /* the binary's path and a caller's 4096-byte ARGS */
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", NSDYN_TEST_BINARY, args);
    FILE *p = popen(cmd, "r");
    ck_assert(p);
    size_t k = fread(out, 1, len - 1, p);
    out[k] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
#endif

#endif
