/* The C side of bench/bench_host_loop.py (bench/README.md): N short runs
 * through the host API, the bouncing ball (configs/bouncing_ball_newton.toml)
 * to just after its first impact (t_end = 0.46 s; the impact is at
 * sqrt(2 h / g) = 0.4515 s), the restitution changed before each run, and
 * the rebound speed read from the event log and from the samples, as the
 * Python loop does.
 *
 *   bench_host_loop CONFIG N      prints "wall_s_per_run cpu_s_per_run checksum" */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nsdyn/host.h"

static double now_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long n = atol(argv[2]);
    nsdyn_model *model;
    nsdyn_data *d;
    nsdyn_errors *errors;
    if (nsdyn_model_open(argv[1], NULL, 0, &model, &errors) != NSDYN_HOST_OK ||
        nsdyn_data_create(model, &d, &errors) != NSDYN_HOST_OK) {
        fprintf(stderr, "error: %s\n", nsdyn_errors_at(errors, 0));
        return 1;
    }
    double sum = 0, w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < n; ++i) {
        double e = 0.3 + 0.6 * (double)i / (double)n;
        nsdyn_host_event ev;
        const double *v;
        size_t rows;
        long cy = nsdyn_data_channel_index(d, "vy");
        if (nsdyn_data_set_param(d, "contact.e", e) != NSDYN_HOST_OK ||
            nsdyn_data_run(d, 0.46) != NSDYN_HOST_OK || nsdyn_data_event(d, 0, &ev) != 0 ||
            nsdyn_data_samples(d, &v, &rows) != 0 || cy < 0) {
            fprintf(stderr, "run %ld: %s\n", i, nsdyn_data_last_error(d));
            return 1;
        }
        /* the rebound speed (event) and the last sample's vy */
        sum += ev.u_after[0] + v[(rows - 1) * nsdyn_data_channel_count(d) + (size_t)cy];
    }
    printf("%.9g %.9g %.17g\n", (now_s(CLOCK_MONOTONIC) - w0) / (double)n,
           (now_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)n, sum);
    nsdyn_data_free(d);
    nsdyn_model_free(model);
    return 0;
}
