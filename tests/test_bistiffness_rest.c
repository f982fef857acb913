/* A ball dropped onto a bi-stiffness floor (Barjau & Batlle (5.1),
 * plugins/contact/compliant.c) comes to rest at gap_rate = 0 inside the
 * penetration: the compression force k (1 + mu_n) d opens the gap, the
 * expansion force k (1 - mu_n) d closes it, so neither side can move it
 * (a Filippov sliding mode, docs/event-driven.md "Bi-stiffness at rest").
 * The runner chatters there (restarts at every crossing of gap_rate = 0,
 * or steps that collapse across it) and runs into max_steps; the old
 * message spoke of step counts only. Randomized over m, g, k, mu_n and the
 * drop height: the run must end as FAILED naming the hold (the runner has
 * no hold mode), at a penetration d where the closed form holds the ball:
 *   k (1 - mu_n) d <= m g <= k (1 + mu_n) d,
 * and the samples before never gain energy (the spring's energy bounded
 * by its softer branch; the law only dissipates). max_steps is small so
 * that the stall is reached in well under a second. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static double urand(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (double)rand_r(seed) / (double)RAND_MAX;
}

START_TEST(ball_rests_on_bistiffness) {
    unsigned seed = 2027u;
    for (int i = 0; i < 4; ++i) {
        const double m = urand(&seed, 0.2, 5.0), g = urand(&seed, 1.0, 20.0), r = 0.05;
        const double k = pow(10.0, urand(&seed, 2.5, 4.0)), mu_n = urand(&seed, 0.05, 0.6);
        const double h = urand(&seed, 0.0, 0.02); /* drop height of the gap [m] */
        char toml[1000];
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"point_mass\"\nm = %.17g\nr = %.17g\ng = %.17g\n"
                 "[contact]\nid = \"bistiffness\"\nk = %.17g\nmu_n = %.17g\n"
                 "[integrator]\nid = \"dopri5\"\nrtol = 1e-9\natol = 1e-12\nmax_steps = 50000\n"
                 "[initial]\ny = %.17g\nvx = 0.3\n"
                 "[run]\nt_end = 100\noutput_dt = 1e-2\n",
                 m, r, g, k, mu_n, r + h);
        run R = {0};
        run_config(&R, toml, NSD_RUN_FAILED);
        ck_assert_msg(strstr(R.res.message, "Filippov sliding mode") != NULL,
                      "case %d (m %g g %g k %g mu_n %g h %g): not the hold: %s", i, m, g, k, mu_n,
                      h, R.res.message);
        const nsd_series *s = &R.res.series;
        ck_assert_msg(s->rows > 0, "case %d: no samples", i);
        /* the penetration where it is held, as the message gives it: inside
         * the hold interval of the closed form */
        double d = -1.0;
        const char *p = strstr(R.res.message, "inside the penetration (");
        ck_assert_msg(p && sscanf(p, "inside the penetration (%lf", &d) == 1, "case %d: %s", i,
                      R.res.message);
        printf("case %d: m %.3g kg, g %.3g m/s^2, k %.4g N/m, mu_n %.3g: stalled at t = %.6g s, "
               "d = %.6g m, m g / (k d) = %.6f in [%.4f, %.4f]\n",
               i, m, g, k, mu_n, R.res.t_reached, d, m * g / (k * d), 1 - mu_n, 1 + mu_n);
        ck_assert_msg(k * (1 - mu_n) * d <= m * g * (1 + 1e-6) &&
                          m * g <= k * (1 + mu_n) * d * (1 + 1e-6),
                      "case %d: d = %g m is outside the hold interval [%g, %g] m", i, d,
                      m * g / (k * (1 + mu_n)), m * g / (k * (1 - mu_n)));
        /* energy (kinetic + potential, the spring's energy bounded by its
         * softer branch) never rises above the start */
        double e0 = 0.5 * m * 0.09 + m * g * h;
        for (size_t row = 0; row < s->rows; ++row) {
            double y = at(&R, row, "y"), vx = at(&R, row, "vx"), v = at(&R, row, "vy");
            double dd = fmax(r - y, 0.0);
            double e =
                0.5 * m * (vx * vx + v * v) + m * g * (y - r) + 0.5 * k * (1 - mu_n) * dd * dd;
            ck_assert_msg(e <= e0 * (1 + 1e-7) + 1e-12, "case %d row %zu: energy %g > %g", i, row,
                          e, e0);
        }
        test_unload(&R);
    }
}
END_TEST

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsetenv("NSDYN_PLUGIN_PATH");
    Suite *s = suite_create("bistiffness_rest");
    TCase *tc = tcase_create("bistiffness_rest");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ball_rests_on_bistiffness);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
