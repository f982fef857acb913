/* The largest Lyapunov exponent of a run's flow from the variational
 * equations and saltation matrices (core/src/analysis/periodic_tangent.h),
 * for systems without a section switch (the towed wheel; issue 27 item 3,
 * docs/towed-wheel.md "Chaos search"). A study tool, built with the tests,
 * not run by ctest:
 *
 *   flow_lyapunov CONFIG WINDOW_S TRANSIENT MEASURED [KEY=VALUE ...]
 *   NSDYN_FLOW_LYAPUNOV_D0=1e-8 flow_lyapunov ...   (differences instead)
 *   NSDYN_FLOW_LYAPUNOV_TRACE=1 ...   (the running estimate every 40 windows, on stderr)
 *
 * runs TRANSIENT windows of WINDOW_S seconds of plain simulation, then
 * MEASURED windows each carrying the fundamental matrix Phi from the end
 * state of the last: v <- Phi v / |Phi v| (v scaled by the states'
 * magnitudes, |.| the Euclidean norm), lambda_1 the mean of ln |Phi v| per
 * unit time (Benettin et al., Meccanica 15 (1980), one vector). Each window
 * is one run, so every plugin starts it from its reset() (the towed wheel
 * keeps no mode of its own; the contact modes are chosen again at the
 * window's start). With NSDYN_FLOW_LYAPUNOV_D0 set, the vector is carried
 * instead by a second run from y + d0 v (differences of the flow: for
 * exact Coulomb friction, whose stick projections the variational
 * equations refuse). Prints lambda_1 [1/s], its change over the last half
 * of the windows (the convergence), and the rhs evaluations; exit 1 when a
 * run fails (the variational equations name a jump they cannot follow). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "periodic_tangent.h"
#include "scenario.h"

static int run_window(nsd_scenario *R, double *y, nsd_tangent *tg) {
    nsd_model *m = &R->model;
    memcpy(R->data->y0, y, m->n * sizeof *y);
    if (tg) nsd_tangent_begin(tg);
    nsd_diag diag = {0};
    size_t errors = nsd_scenario_run(R, NULL, &diag);
    if (tg) nsd_tangent_end(tg);
    nsd_diag_free(&diag);
    const nsd_run_result *res = &R->res;
    if (errors || res->outcome != NSD_RUN_COMPLETE || res->series.rows == 0) {
        fprintf(stderr, "flow_lyapunov: the run did not complete: %s\n", res->message);
        return -1;
    }
    if (tg && res->drift_corrections) {
        fprintf(stderr, "flow_lyapunov: drift corrections, which the variational equations do "
                        "not follow\n");
        return -1;
    }
    const double *row = res->series.data + (res->series.rows - 1) * res->series.n_channels;
    memcpy(y, row + 1, m->n * sizeof *y);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr,
                "usage: flow_lyapunov CONFIG WINDOW_S TRANSIENT MEASURED [KEY=VALUE ...]\n");
        return 2;
    }
    double window = atof(argv[2]);
    int transient = atoi(argv[3]), measured = atoi(argv[4]);
    char tend[64];
    snprintf(tend, sizeof tend, "run.t_end=%.17g", window);
    const char *sets[64];
    size_t n_sets = 0;
    sets[n_sets++] = tend;
    for (int i = 5; i < argc && n_sets < 63; ++i) sets[n_sets++] = argv[i];
    nsd_scenario R;
    memset(&R, 0, sizeof R);
    R.no_graphs = 1;
    nsd_diag diag = {0};
    if (nsd_scenario_load(&R, argv[1], sets, n_sets, &diag) != 0 || !(window > 0) || measured < 2) {
        for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
        fprintf(stderr, "flow_lyapunov: cannot load %s, or WINDOW_S/MEASURED out of range\n",
                argv[1]);
        return 2;
    }
    nsd_diag_free(&diag);
    R.app.cfg.settings.progress = 0;
    R.app.cfg.settings.t_start = 0.0;
    R.app.cfg.settings.output_dt = window;
    nsd_model *m = &R.model;
    size_t n = m->n;
    double *y = malloc(n * sizeof *y), *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
    nsd_tangent *tg = nsd_tangent_new(m, R.data, NULL, 1);
    if (!y || !v || !w || !tg) return 2;
    memcpy(y, m->y0, n * sizeof *y);
    for (int k = 0; k < transient; ++k)
        if (run_window(&R, y, NULL) != 0) return 1;
    for (size_t i = 0; i < n; ++i) v[i] = 1.0 / sqrt((double)n);
    double sum = 0.0, half = NAN;
    unsigned long long rhs = 0;
    const char *d0s = getenv("NSDYN_FLOW_LYAPUNOV_D0");
    double d0 = d0s ? atof(d0s) : 0.0;
    for (int k = 0; k < measured; ++k) {
        double norm = 0.0;
        if (d0 > 0.0) { /* differences: a second run from y + d0 v */
            for (size_t i = 0; i < n; ++i) w[i] = y[i] + d0 * v[i];
            if (run_window(&R, w, NULL) != 0) return 1;
            rhs += R.res.stats.rhs_evals;
            if (run_window(&R, y, NULL) != 0) return 1;
            for (size_t i = 0; i < n; ++i) w[i] = (w[i] - y[i]) / d0;
        } else {
            if (run_window(&R, y, tg) != 0) return 1;
            const double *Phi = nsd_tangent_matrix(tg);
            for (size_t i = 0; i < n; ++i) {
                w[i] = 0.0;
                for (size_t j = 0; j < n; ++j) w[i] += Phi[i * n + j] * v[j];
            }
        }
        rhs += R.res.stats.rhs_evals;
        for (size_t i = 0; i < n; ++i) norm += w[i] * w[i];
        norm = sqrt(norm);
        if (!(norm > 0.0) || !isfinite(norm)) {
            fprintf(stderr, "flow_lyapunov: the tangent vector vanished or overflowed\n");
            return 1;
        }
        for (size_t i = 0; i < n; ++i) v[i] = w[i] / norm;
        sum += log(norm);
        if (k + 1 == measured / 2) half = sum / ((k + 1) * window);
        if (getenv("NSDYN_FLOW_LYAPUNOV_TRACE") && (k + 1) % 40 == 0) /* convergence, every 40 */
            fprintf(stderr, "t = %g s: lambda_1 = %.6g 1/s\n", (k + 1) * window,
                    sum / ((k + 1) * window));
    }
    double lambda = sum / (measured * window);
    rhs += nsd_tangent_rhs_evals(tg);
    printf("lambda_1 = %.6g 1/s over %g s (%d windows of %g s after %d); last half changed it by "
           "%.2g; %zu jumps; %llu rhs evaluations\n",
           lambda, measured * window, measured, window, transient, fabs(lambda - half),
           nsd_tangent_jumps(tg), rhs);
    nsd_tangent_free(tg);
    free(y);
    free(v);
    free(w);
    nsd_scenario_destroy(&R);
    return 0;
}
