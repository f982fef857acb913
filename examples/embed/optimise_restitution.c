/* Embedding nsdyn (docs/host-api.md): a tiny optimiser over one parameter.
 *
 * The ball of configs/bouncing_ball_newton.toml falls from h = 1 m above
 * its resting height onto rigid ground with Newton's law. Which
 * restitution e makes its second apex (the top of the flight after the
 * first impact) a target height? A golden-section search on e calls the
 * simulation ~40 times through the host API; the answer is checked
 * against the closed form: the rebound speed is e sqrt(2 g h), so the
 * apex is e^2 h above rest and e* = sqrt(target / h).
 *
 *   optimise_restitution CONFIG [TARGET_M]      (default 0.36 m: e* = 0.6)
 *
 * Exit 0 when the optimum matches the closed form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/host.h"

/* The highest sample of y between the first and the second impact,
 * minus the resting height r [m]: the second apex above rest. */
static int second_apex(nsdyn_data *d, double r, double *apex) {
    if (nsdyn_data_event_count(d) < 2) return -1;
    nsdyn_host_event e1, e2;
    nsdyn_data_event(d, 0, &e1);
    nsdyn_data_event(d, 1, &e2);
    const double *v;
    size_t rows;
    long ct = nsdyn_data_channel_index(d, "t"), cy = nsdyn_data_channel_index(d, "y");
    if (ct < 0 || cy < 0 || nsdyn_data_samples(d, &v, &rows) != NSDYN_HOST_OK) return -1;
    size_t nc = nsdyn_data_channel_count(d);
    double best = -HUGE_VAL;
    for (size_t i = 0; i < rows; ++i) {
        double t = v[i * nc + (size_t)ct];
        if (t > e1.t && t < e2.t && v[i * nc + (size_t)cy] > best) best = v[i * nc + (size_t)cy];
    }
    *apex = best - r;
    return best > -HUGE_VAL ? 0 : -1;
}

/* (apex(e) - target)^2, or NAN with the message printed. */
static double misfit(nsdyn_data *d, double e, double r, double target) {
    double apex;
    if (nsdyn_data_set_param(d, "contact.e", e) != NSDYN_HOST_OK ||
        nsdyn_data_run(d, 0) != NSDYN_HOST_OK || second_apex(d, r, &apex) != 0) {
        fprintf(stderr, "e = %g: %s\n", e, nsdyn_data_last_error(d));
        return NAN;
    }
    return (apex - target) * (apex - target);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CONFIG [TARGET_M]\n", argv[0]);
        return 2;
    }
    if (nsdyn_host_api_version() >> 16 != NSDYN_HOST_API_MAJOR) {
        fprintf(stderr, "libnsdyn_host %s has another API major\n", nsdyn_host_version_string());
        return 1;
    }
    double target = argc > 2 ? atof(argv[2]) : 0.36;
    nsdyn_model *model;
    nsdyn_errors *errors;
    if (nsdyn_model_open(argv[1], NULL, 0, &model, &errors) != NSDYN_HOST_OK) {
        for (size_t i = 0; i < nsdyn_errors_count(errors); ++i)
            fprintf(stderr, "error: %s\n", nsdyn_errors_at(errors, i));
        nsdyn_errors_free(errors);
        return 1;
    }
    nsdyn_data *d;
    if (nsdyn_data_create(model, &d, &errors) != NSDYN_HOST_OK) {
        fprintf(stderr, "error: %s\n", nsdyn_errors_at(errors, 0));
        nsdyn_errors_free(errors);
        nsdyn_model_free(model);
        return 1;
    }
    double r, y0, h;
    nsdyn_data_get_param(d, "system.r", &r);
    nsdyn_data_get_state(d, "y", &y0);
    h = y0 - r;
    /* golden section on e in [0.05, 0.95]: the apex rises with e */
    const double phi = 0.5 * (sqrt(5.0) - 1.0);
    double a = 0.05, b = 0.95;
    double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = misfit(d, x1, r, target), f2 = misfit(d, x2, r, target);
    int runs = 2;
    while (b - a > 1e-7 && !isnan(f1) && !isnan(f2)) {
        if (f1 < f2) {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - phi * (b - a);
            f1 = misfit(d, x1, r, target);
        } else {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + phi * (b - a);
            f2 = misfit(d, x2, r, target);
        }
        ++runs;
    }
    double e = 0.5 * (a + b), exact = sqrt(target / h);
    printf("target apex %.6g m above rest: e = %.7f after %d runs (closed form sqrt(%g / %g) = "
           "%.7f)\n",
           target, e, runs, target, h, exact);
    nsdyn_data_free(d);
    nsdyn_model_free(model);
    /* The apex is the highest sample at output_dt = 1 ms: low by at most
     * g dt^2 / 8 = 1.2e-6 m, so e by at most 1.2e-6 / (2 e h) ~ 1e-6. */
    return isnan(f1) || fabs(e - exact) > 1e-5 ? 1 : 0;
}
