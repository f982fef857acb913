/* A ball dropped onto a bi-stiffness floor (Barjau & Batlle (5.1),
 * plugins/contact/compliant.c) comes to rest at gap_rate = 0 inside the
 * penetration: the compression force k (1 + mu_n) d opens the gap, the
 * expansion force k (1 - mu_n) d closes it, so neither side can move it
 * (a Filippov sliding mode, docs/event-driven.md "Bi-stiffness at rest").
 * The runner holds it there (contact/rate_hold.c): the normal force that
 * keeps gap'' = 0, m g for a ball, inside the band, until it leaves the
 * band. Before the hold the runner chattered there (a restart at every
 * crossing of gap_rate = 0, or steps that collapsed across it) and ran
 * into max_steps: this test failed on the old code at its first case.
 *
 * Closed form (rest_penetration): the ball's normal motion is a piecewise
 * linear oscillator, about d_c = m g / (k (1 + mu_n)) while compressing
 * and about d_e = m g / (k (1 - mu_n)) while expanding; each turning
 * point d holds the ball when d_c < d < d_e, else the next half cycle
 * starts from it (a lift-off when it would reach d < 0, landing again at
 * the same speed). Randomized over m, g, k, mu_n and the drop height,
 * without friction (the compliant regime) and with exact Coulomb (the
 * event-driven modes): the run ends COMPLETE at t_end, at the closed-form
 * penetration, with the normal force m g, a bounded number of restarts,
 * one hold, and samples that never gain energy (kinetic + potential + the
 * spring's energy on its softer branch, a Lyapunov function of the law:
 * compression stores k (1 + mu_n) d dd of which the softer branch counts
 * k (1 - mu_n) d dd, expansion returns exactly that). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static double urand(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (double)rand_r(seed) / (double)RAND_MAX;
}

/* The penetration [m] where the ball comes to rest, and the number of
 * turning points and touch-downs on the way (*turns). */
static double rest_penetration(double m, double g, double k, double mu_n, double h, int *turns) {
    const double d_c = m * g / (k * (1 + mu_n)), d_e = m * g / (k * (1 - mu_n));
    const double w_c = sqrt(k * (1 + mu_n) / m), w_e = sqrt(k * (1 - mu_n) / m);
    double d = 0.0, rate = sqrt(2.0 * g * h); /* compressing from touch-down */
    *turns = 1;
    for (int i = 0; i < 100000; ++i) {
        double d1 = d_c + hypot(d - d_c, rate / w_c); /* deepest point */
        ++*turns;
        if (d1 < d_e) return d1;
        double d2 = 2.0 * d_e - d1; /* expansion's turning point */
        if (d2 < 0.0) {             /* lift-off, and landing at that speed */
            rate = w_e * sqrt((d1 - d_e) * (d1 - d_e) - d_e * d_e);
            d = 0.0;
            ++*turns;
            continue;
        }
        ++*turns;
        if (d2 > d_c) return d2;
        d = d2;
        rate = 0.0;
    }
    return NAN;
}

START_TEST(ball_rests_on_bistiffness) {
    unsigned seed = 2027u;
    for (int i = 0; i < 8; ++i) {
        const double m = urand(&seed, 0.2, 5.0), g = urand(&seed, 1.0, 20.0), r = 0.05;
        const double k = pow(10.0, urand(&seed, 2.5, 4.0)), mu_n = urand(&seed, 0.05, 0.6);
        const double h = urand(&seed, 0.0, 0.02); /* drop height of the gap [m] */
        const int coulomb = i % 2;                /* event-driven modes, or none */
        char toml[1200];
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"point_mass\"\nm = %.17g\nr = %.17g\ng = %.17g\n"
                 "[contact]\nid = \"bistiffness\"\nk = %.17g\nmu_n = %.17g\n%s"
                 "[integrator]\nid = \"dopri5\"\nrtol = 1e-9\natol = 1e-12\nmax_steps = 50000\n"
                 "[initial]\ny = %.17g\nvx = 0.3\n"
                 "[run]\nt_end = 20\noutput_dt = 1e-2\n",
                 m, r, g, k, mu_n,
                 coulomb ? "[friction]\nid = \"coulomb\"\nmu_s = 0.5\nmu_k = 0.5\n" : "", r + h);
        run R = {0};
        run_config(&R, toml, NSD_RUN_COMPLETE);
        int turns = 0;
        const double d_exact = rest_penetration(m, g, k, mu_n, h, &turns);
        const double d = last(&R, "penetration"), N = last(&R, "ground.N");
        printf("case %d (%s): m %.3g kg, g %.3g m/s^2, k %.4g N/m, mu_n %.3g, h %.3g m: rest at "
               "d = %.12g m (closed form %.12g, rel. err %.2e), m g / (k d) = %.6f in "
               "[%.4f, %.4f], N - m g = %.2e N; %d turning points, %llu restarts, %llu hold(s)\n",
               i, coulomb ? "coulomb" : "frictionless", m, g, k, mu_n, h, d, d_exact,
               fabs(d - d_exact) / d_exact, m * g / (k * d), 1 - mu_n, 1 + mu_n, N - m * g, turns,
               (unsigned long long)R.res.rate_restarts, (unsigned long long)R.res.rate_holds);
        /* dopri5 at rtol 1e-9: a global error of about rtol times the
         * steps of the bounces (hundreds); measured up to 1e-7 after 12
         * turning points. 1e-6 is still 1e5 below the band's width
         * (2 mu_n / (1 - mu_n^2) of d, >= 0.1 here): a hold at the wrong
         * turning point misses by far more */
        ck_assert_msg(fabs(d - d_exact) <= 1e-6 * d_exact,
                      "case %d: d = %.12g m, closed form %.12g", i, d, d_exact);
        ck_assert_msg(k * (1 - mu_n) * d < m * g && m * g < k * (1 + mu_n) * d,
                      "case %d: d = %g m is outside the hold interval [%g, %g] m", i, d,
                      m * g / (k * (1 + mu_n)), m * g / (k * (1 - mu_n)));
        ck_assert_msg(fabs(N - m * g) <= 1e-9 * m * g, "case %d: held force %.12g N, m g %.12g N",
                      i, N, m * g);
        ck_assert_msg(fabs(last(&R, "vy")) < 1e-9, "case %d: vy %g m/s at rest", i, last(&R, "vy"));
        ck_assert_msg(R.res.rate_holds == 1, "case %d: %llu holds", i,
                      (unsigned long long)R.res.rate_holds);
        ck_assert_msg(R.res.rate_restarts <= (uint64_t)(2 * turns + 2),
                      "case %d: %llu restarts for %d turning points", i,
                      (unsigned long long)R.res.rate_restarts, turns);
        const nsd_series *s = &R.res.series;
        double e0 = 0.5 * m * 0.09 + m * g * h, e_prev = INFINITY;
        for (size_t row = 0; row < s->rows; ++row) {
            double y = at(&R, row, "y"), vx = at(&R, row, "vx"), v = at(&R, row, "vy");
            double dd = fmax(r - y, 0.0);
            double e =
                0.5 * m * (vx * vx + v * v) + m * g * (y - r) + 0.5 * k * (1 - mu_n) * dd * dd;
            ck_assert_msg(e <= e0 * (1 + 1e-7) + 1e-12 && e <= e_prev + 1e-9 * e0,
                          "case %d row %zu: energy %.12g J after %.12g J (start %g J)", i, row, e,
                          e_prev, e0);
            e_prev = e;
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
