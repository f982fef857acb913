/* Helpers shared by the host-level tests: build a model from TOML text
 * through the same path `nsdyn run` takes. */
#ifndef NSD_TEST_UTIL_H
#define NSD_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "model.h"
#include "run.h"

/* Load config text (written to a temporary file) and create its model.
 * Fails the test with the diagnostics if anything is wrong. */
static inline void test_load(const char *toml, nsd_app *app, nsd_model *m) {
    char path[] = "/tmp/nsdyn-test-XXXXXX.toml";
    int fd = mkstemps(path, 5);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(toml, f);
    fclose(f);
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(app, path, NULL, 0, &diag);
    if (!errors) errors = nsd_model_create(m, &app->cfg, &app->host, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    remove(path);
    ck_assert_msg(errors == 0, "config did not load (%zu errors)", errors);
    nsd_diag_free(&diag);
}

static inline void test_unload(nsd_app *app, nsd_model *m) {
    nsd_model_destroy(m);
    nsd_app_free(app);
}

/* Run a suite; the exit status for ctest. */
static inline int test_run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

#endif
