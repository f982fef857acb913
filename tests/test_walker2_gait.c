/* The walker's periodic gait (Koop & Wu 2013, the withheld state (24)),
 * found by simulating until the step-to-step map repeats.
 *
 * configs/walker2_gait.toml (L#4, the start of validation-targets.md) runs
 * for 15 s, about 30 steps, with the tolerances tightened to rtol = 1e-9,
 * atol = 1e-12 (rtol = 1e-6, the config's own, leaves step-to-step noise of
 * about 1e-5). The map's section is the heel strike: walker2 holds the state
 * (q, v) at the last strike in its hs_* outputs, exactly as the integrator
 * located the event, with the legs named by their role there (trail = the
 * old stance leg, lead = the leg that strikes), so a period-1 gait is a fixed
 * point of
 *     s = (y_hip, theta_trail, theta_lead, vx_hip, vy_hip, omega_trail, omega_lead)
 * (x_hip is left out: the ramp is the same everywhere). The friction states
 * come from the samples: the leading foot's z is held through its swing (the
 * sample before the strike is exact), the trailing foot's z is interpolated
 * between the samples around the strike (output_dt = 1e-4 s).
 *
 * Asserted: the relative change ||s_k - s_(k-1)|| / ||s_k|| (2-norm, SI
 * units) falls below TOL = 1e-6 by step 24 at the latest (measured: step 21)
 * and stays below it; it shrinks geometrically meanwhile (the map is a
 * contraction near the gait); the hs_* state is a heel strike (the leading
 * foot at ramp level, the lead above alpha0); the settled state is the one
 * docs/walker.md reports; and the gait metrics (22)-(23) lie in plausible
 * bands. */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"

#define TOL 1e-6
#define NS 7

static const double L_ = 0.4143, RHO = 0.0860;

START_TEST(step_to_step_map_converges) {
    static const char *const sets[] = {"run.t_end=15",         "run.output_dt=1e-4",
                                       "run.progress=false",   "plot.enabled=false",
                                       "integrator.rtol=1e-9", "integrator.atol=1e-12"};
    run R = {0}; /* built by hand below, freed by nsd_scenario_destroy: starts empty */
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(&R.app, NSDYN_TEST_SOURCE_DIR "/configs/walker2_gait.toml", sets,
                                 NSDYN_COUNT(sets), &diag);
    if (!errors) errors = nsd_model_create(&R.model, &R.app.cfg, &diag);
    R.created = 1; /* destroy frees the model too */
    if (!errors) R.data = nsd_data_create(&R.model, &R.app.host, NULL, 0); /* and its data */
    nsd_diag_print(&diag, stderr);
    ck_assert_uint_eq(errors, 0);
    ck_assert_uint_eq(
        nsd_run_simulation(&R.model, R.data, &R.app.cfg, &R.app.host, NULL, &R.res, &diag), 0);
    nsd_diag_free(&diag);
    ck_assert_msg(R.res.outcome == NSD_RUN_COMPLETE, "%s", R.res.message);

    static const char *const names[NS] = {"hs_y_hip",     "hs_theta_trail", "hs_theta_lead",
                                          "hs_vx_hip",    "hs_vy_hip",      "hs_omega_trail",
                                          "hs_omega_lead"};
    enum { MAX_STEPS = 64 };
    double s[MAX_STEPS][NS], d[MAX_STEPS], t_hs[MAX_STEPS], x_hs[MAX_STEPS], z_tr[MAX_STEPS],
        z_ld[MAX_STEPS];
    double L[MAX_STEPS], T[MAX_STEPS], V[MAX_STEPS];
    int n = 0;
    double prev_steps = 0;
    for (size_t r = 1; r < R.res.series.rows && n < MAX_STEPS; ++r) {
        double steps = at(&R, r, "steps");
        if (steps == prev_steps) continue;
        ck_assert_double_eq(steps, prev_steps + 1);
        prev_steps = steps;
        for (int i = 0; i < NS; ++i) s[n][i] = at(&R, r, names[i]);
        t_hs[n] = at(&R, r, "hs_t");
        x_hs[n] = at(&R, r, "hs_x_hip");
        L[n] = at(&R, r, "step_length");
        T[n] = at(&R, r, "step_period");
        V[n] = at(&R, r, "hip_velocity");
        /* The strike lies between samples r - 1 and r. */
        double t0 = at(&R, r - 1, "t"), t1 = at(&R, r, "t");
        ck_assert(t0 <= t_hs[n] && t_hs[n] <= t1);
        int trail = (int)at(&R, r - 1, "stance"); /* single support before the strike */
        ck_assert(trail == 1 || trail == 2);
        const char *ztr = trail == 1 ? "foot1.z1" : "foot2.z1",
                   *zld = trail == 1 ? "foot2.z1" : "foot1.z1";
        const char *thtr = trail == 1 ? "theta1" : "theta2";
        double u = (t_hs[n] - t0) / (t1 - t0);
        z_tr[n] = (1 - u) * at(&R, r - 1, ztr) + u * at(&R, r, ztr);
        z_ld[n] = at(&R, r - 1, zld);
        /* hs_* is the located strike: the trailing leg's angle sampled
         * less than output_dt later differs by less than |omega| output_dt
         * (< 3e-4 rad), the leading foot is at ramp level (8) (delta = 0)
         * and the lead exceeds alpha0 = 10 degrees. */
        ck_assert_double_eq_tol(s[n][1], at(&R, r, thtr), 3e-4);
        double gap = s[n][0] - L_ * cos(s[n][2]) + RHO * (cos(s[n][2]) - 1);
        ck_assert_double_lt(fabs(gap), 1e-8);
        ck_assert_double_gt(s[n][2] - s[n][1], 10.0 * M_PI / 180);
        d[n] = NAN;
        if (n > 0) {
            double num = 0, den = 0;
            for (int i = 0; i < NS; ++i) {
                num += (s[n][i] - s[n - 1][i]) * (s[n][i] - s[n - 1][i]);
                den += s[n][i] * s[n][i];
            }
            d[n] = sqrt(num / den);
            ck_assert_double_eq_tol(T[n], t_hs[n] - t_hs[n - 1], 1e-12);
        }
        n++;
    }
    printf(
        "heel strikes (state at the strike; d = ||s_k - s_k-1|| / ||s_k||):\n"
        "  k   t [s]      y_hip [m]   th_trail    th_lead     vx_hip      vy_hip      om_trail    "
        "om_lead     z_trail [m]  z_lead [m]   step [m]  T [s]    v [m/s]   d\n");
    for (int k = 0; k < n; ++k)
        printf("  %-3d %-10.6f %-11.9f %-11.8f %-11.8f %-11.8f %-11.8f %-11.8f %-11.8f %-12.5e "
               "%-12.5e "
               "%-9.6f %-8.6f %-9.6f %.2e\n",
               k + 1, t_hs[k], s[k][0], s[k][1], s[k][2], s[k][3], s[k][4], s[k][5], s[k][6],
               z_tr[k], z_ld[k], L[k], T[k], V[k], d[k]);
    ck_assert_int_ge(n, 28);

    /* Converged: below TOL from some step on, and by step 24 at the latest. */
    int k_conv = -1;
    for (int k = 1; k < n; ++k)
        if (d[k] < TOL && k_conv < 0)
            k_conv = k;
        else if (d[k] >= TOL)
            k_conv = -1;
    ck_assert_msg(k_conv > 0, "the map did not settle below %g", TOL);
    printf("relative change below %g from step %d (t = %.3f s) on; last %.2e\n", TOL, k_conv + 1,
           t_hs[k_conv], d[n - 1]);
    ck_assert_int_le(k_conv + 1, 24);
    /* Geometric convergence: over steps 8 to 18, the change shrinks by the
     * map's leading multiplier per step (measured ~0.45). */
    double rate = pow(d[17] / d[7], 1.0 / 10);
    printf("contraction per step (steps 8-18): %.3f\n", rate);
    ck_assert_double_lt(rate, 0.7);
    ck_assert_double_gt(rate, 0.1);

    /* The fixed point, as docs/walker.md reports it (the last strike). */
    static const double doc[NS] = {0.4025365,  -0.2431352, 0.2685055, 0.9320261,
                                   -0.1803223, -2.3033875, -2.0043669};
    const double *sf = s[n - 1];
    for (int i = 0; i < NS; ++i) ck_assert_double_eq_tol(sf[i], doc[i], 1e-6);
    ck_assert_double_eq_tol(z_tr[n - 1], -1.67862e-6, 2e-10);
    ck_assert_double_eq_tol(z_ld[n - 1], 1.26347e-6, 2e-11);
    /* Gait metrics (22), period, (23) and the hip's advance per step. */
    double adv = x_hs[n - 1] - x_hs[n - 2];
    printf("periodic gait: step length %.6f m, period %.6f s, hip velocity %.6f m/s, hip advance "
           "%.6f m per step (%.6f m/s)\n",
           L[n - 1], T[n - 1], V[n - 1], adv, adv / T[n - 1]);
    ck_assert_double_gt(L[n - 1], 0.15);
    ck_assert_double_lt(L[n - 1], 0.18);
    ck_assert_double_gt(T[n - 1], 0.45);
    ck_assert_double_lt(T[n - 1], 0.55);
    ck_assert_double_gt(V[n - 1], 0.38);
    ck_assert_double_lt(V[n - 1], 0.48);
    /* (23) assumes rolling without slip: the hip's actual advance per step
     * is that plus the slip of the new stance foot (well under 1 mm). */
    ck_assert_double_eq_tol(adv, V[n - 1] * T[n - 1], 1e-3);
    run_free(&R);
}
END_TEST

int main(void) {
    unsetenv("NSDYN_PLUGIN_PATH");
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("walker2_gait");
    TCase *tc = tcase_create("periodic");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, step_to_step_map_converges);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
