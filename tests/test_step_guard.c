/* The step guard's cost (issue 25): gap evaluations per located impact on
 * shipped configs with many impacts, read from the run's own counters
 * (run_result.h guard_*). Counts, not times: they are deterministic.
 *
 * What bounds them (step_guard.c). Per impact: the search's bracket (a
 * half whose followed contacts each cross once through the error band is
 * located at once), the root finder (Newton steps on the gap rate, about
 * 4 to 6 evaluations to 1e-12 s per second of t), its scan of the stretch
 * before the root (8 to 12 samples; none when the bracket starts at the
 * step's start: the next scan covers it), the scan of the stretch before
 * the hit (a falling gap about log2(64) + the GUARD_SKIP_MAX cap: 8 to
 * 12). Per step: the step end, the first split, and after a bounce at a
 * contact's threshold a descent to the depth limit (10) that follows the
 * bounced contact alone. The limits below are the round-4 guard's counts
 * (main at 3423131: 57.0, 88.7, 48.2 and 50.5 evaluations per impact;
 * 124, 181, 48 and 112 contact gaps) less 15 %, so the test fails on that
 * guard; this one takes 39.5, 47.6, 35.6 and 38.1 evaluations (78, 108,
 * 33, 94 gaps). The guard before round 3 took 175 to 253 evaluations per
 * impact: bisection to 1e-12 and two scans of all 63 samples. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "test_util.h"

#ifndef NSDYN_TEST_SOURCE_DIR
#error "NSDYN_TEST_SOURCE_DIR must be defined"
#endif

START_TEST(gap_evaluations_per_impact) {
    static const struct {
        const char *config;
        double evals, gaps; /* per impact, at most */
    } cases[] = {{"tumbleweed_case3_physical.toml", 48.0, 105.0},
                 {"tumbleweed_case4_physical.toml", 75.0, 154.0},
                 {"bouncing_ball_newton.toml", 41.0, 41.0},
                 {"curb_wheel_poisson_down.toml", 43.0, 95.0}};
    const char *sets[] = {"plot.enabled=false", "run.progress=false"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        run R = {0};
        test_run_file(&R, cases[i].config, sets, 2, (nsd_run_outcome)TEST_ANY_OUTCOME);
        const nsd_run_result *r = &R.res;
        double hits = (double)r->guard_hits;
        double evals = (double)(r->guard_evaluations + r->guard_evaluations_some);
        printf("%s: %llu steps, %llu impacts located; per impact %.1f evaluations, %.1f gaps; "
               "per step %.1f evaluations\n",
               cases[i].config, (unsigned long long)r->stats.steps,
               (unsigned long long)r->guard_hits, evals / hits, (double)r->guard_gaps / hits,
               evals / (double)r->stats.steps);
        ck_assert_msg(r->guard_hits >= 8, "%s: only %llu impacts", cases[i].config,
                      (unsigned long long)r->guard_hits);
        ck_assert_msg(evals / hits <= cases[i].evals &&
                          (double)r->guard_gaps / hits <= cases[i].gaps,
                      "%s: %.1f evaluations and %.1f contact gaps per impact (at most %g, %g)",
                      cases[i].config, evals / hits, (double)r->guard_gaps / hits, cases[i].evals,
                      cases[i].gaps);
        run_free(&R);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("step_guard");
    TCase *tc = tcase_create("cost");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, gap_evaluations_per_impact);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
