/* pc_impact (rigid, Stronge e) against a very stiff bi-stiffness run of the
 * same rimless-wheel impact (Barjau & Batlle (5.1), k = 1e6 N/m, mu_n =
 * 0.2), on a grid of single-point cases: beta = 30 deg (no DP after a first
 * SP phase, Sec. 5), lambda, mu and the initial slip varied, no gravity.
 * The bi-stiffness law's energetic restitution at one contact is exactly
 * Stronge's e = sqrt((1 - mu_n)/(1 + mu_n)) (the normal force is the
 * spring's, so its work is the spring energy), so the post-impact
 * velocities must agree up to the compliant model's configuration change
 * during the impact (the wheel turns by theta' T ~ 1 rad/s x 3 ms) and the
 * regularization of Coulomb's law (eps = 1e-5 m/s): 1e-2 m/s, and the slip
 * must stop in both or in neither. */
#define _GNU_SOURCE
#include <math.h>

#include "test_util.h"

#define PI 3.14159265358979323846

typedef struct post {
    double xd, yd, wd;
} post;

static post run_case(int rigid, double lam, double mu, double vt) {
    const double b = PI / 6, s = sin(b), c = cos(b), L = 1.0;
    /* v_nf = -1, v_nb = 0, v_t = vt at theta = 0 (A.2) */
    const double w = 1.0 / (2 * L * s), yd = -0.5, xd = vt + L * c * w;
    char toml[1400];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"rimless_wheel\"\nspokes = 6\nlambda = %.17g\ng = 0.0\n"
             "[contact]\n%s\n[friction]\n%s\nmu_s = %.17g\nmu_k = %.17g\n"
             "[integrator]\n%s\n[initial]\nx = 0.0\ny = %.17g\ntheta = 0.0\nxdot = %.17g\n"
             "ydot = %.17g\nthetadot = %.17g\n[run]\nt_end = 0.02\noutput_dt = 1e-4\n",
             lam,
             rigid ? "id = \"pc_impact\"\ne = 0.816496580927726"
                   : "id = \"bistiffness\"\nk = 1e6\nmu_n = 0.2",
             rigid ? "id = \"coulomb\"" : "id = \"coulomb_regularized\"\neps = 1e-5", mu, mu,
             rigid ? "id = \"dopri5\"\nrtol = 1e-10\natol = 1e-12"
                   : "id = \"bdf\"\nrtol = 1e-9\natol = 1e-13\nmax_step = 2e-6",
             L * c, xd, yd, w);
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    post p = {last(&R, "xdot"), last(&R, "ydot"), last(&R, "thetadot")};
    test_unload(&R);
    return p;
}

START_TEST(sp_grid_agrees) {
    const double lams[] = {0.3, 0.6, 1.0};
    const double mus[] = {0.1, 0.4, 1.5};
    const double vts[] = {0.0, 0.3, -0.3};
    double worst = 0;
    int skipped = 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) {
                /* SP cases only: skip an initial DP (App. A: forward sliding
                 * lambda < (1 - mu/tan b) s^2, backward (1 + mu/tan b) s^2) */
                const double s2 = 0.25, tb = tan(PI / 6), sg = vts[k] < 0 ? 1 : -1;
                if (vts[k] != 0 && lams[i] < (1 + sg * mus[j] / tb) * s2) {
                    ++skipped;
                    continue;
                }
                post r = run_case(1, lams[i], mus[j], vts[k]);
                post c = run_case(0, lams[i], mus[j], vts[k]);
                double d = fmax(fabs(r.xd - c.xd), fmax(fabs(r.yd - c.yd), fabs(r.wd - c.wd)));
                worst = fmax(worst, d);
                ck_assert_msg(d < 1e-2,
                              "lambda %g mu %g v_t %g: rigid (%g, %g, %g), bi-stiffness (%g, %g, "
                              "%g)",
                              lams[i], mus[j], vts[k], r.xd, r.yd, r.wd, c.xd, c.yd, c.wd);
            }
    printf("pc_impact vs bi-stiffness (k = 1e6), %d SP cases (%d initial-DP skipped): largest "
           "velocity difference %.3g\n",
           27 - skipped, skipped, worst);
}
END_TEST

/* The runner's event at gap_rate = 0 for a law with a rate discontinuity
 * (plugin.h NSDYN_CAP_RATE_DISCONTINUITY, the bi-stiffness law): a ball
 * without gravity hits at 1 m/s; it leaves at sqrt((1 - mu_n)/(1 + mu_n))
 * m/s exactly (the spring stores k(1 + mu_n) d^2/2, returns k(1 - mu_n)
 * d^2/2), and the integrator restarts at the contact's start (where the
 * event function jumps from its open value to the approach speed) and at
 * the deepest point. 1e-9: dopri5 at rtol 1e-11 with no step across the
 * jump. */
START_TEST(rate_event_at_deepest_point) {
    const char *toml = "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = 0.0\n"
                       "[contact]\nid = \"bistiffness\"\nk = 1e4\nmu_n = 0.2\n"
                       "[integrator]\nid = \"dopri5\"\nrtol = 1e-11\natol = 1e-14\n"
                       "[initial]\ny = 0.06\nvy = -1.0\n[run]\nt_end = 0.05\noutput_dt = 1e-3\n";
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    ck_assert_double_eq_tol(last(&R, "vy"), sqrt(0.8 / 1.2), 1e-9);
    ck_assert_uint_eq(R.res.rate_restarts, 2);
    test_unload(&R);
}
END_TEST

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsetenv("NSDYN_PLUGIN_PATH");
    Suite *s = suite_create("pc_vs_bistiffness");
    TCase *tc = tcase_create("pc_vs_bistiffness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sp_grid_agrees);
    tcase_add_test(tc, rate_event_at_deepest_point);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
