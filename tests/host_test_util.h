/* What the host API's tests share (test_host_api.c, test_host_step.c,
 * test_host_study.c): open a model and a data or fail the test with the
 * first message, read a file whole. Through the public header only. */
#ifndef NSD_HOST_TEST_UTIL_H
#define NSD_HOST_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/host.h"

static inline nsdyn_model *host_open(const char *path, const char *const *sets, size_t n) {
    nsdyn_model *m = NULL;
    nsdyn_errors *e = NULL;
    nsdyn_host_status st = nsdyn_model_open(path, sets, n, &m, &e);
    if (st != NSDYN_HOST_OK) ck_abort_msg("%s: %s", path, nsdyn_errors_at(e, 0));
    ck_assert_ptr_null(e);
    return m;
}

static inline nsdyn_data *host_data(const nsdyn_model *m) {
    nsdyn_data *d = NULL;
    nsdyn_errors *e = NULL;
    if (nsdyn_data_create(m, &d, &e) != NSDYN_HOST_OK)
        ck_abort_msg("data: %s", nsdyn_errors_at(e, 0));
    return d;
}

/* The file's bytes, 0-terminated (free them), or NULL. */
static inline char *host_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#endif
