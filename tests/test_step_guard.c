/* The step guard's cost (issue 25): gap evaluations per located impact on
 * shipped configs with many impacts, read from the run's own counters
 * (run_result.h guard_*). Counts, not times: they are deterministic.
 *
 * What bounds them (step_guard.c). Per impact: the search's leaf bracket,
 * the scan of the stretch before the hit (at most GUARD_SCAN - 1 = 63
 * samples, a falling gap about log2(64) + the GUARD_SKIP_MAX cap: 8 to 12),
 * the Illinois root finder (superlinear: 6 to 10 evaluations to 1e-12 s per
 * second of t where bisection took about 40) and its scan of the stretch
 * before the root (again 8 to 12). Per step: the step end, the first split,
 * and after a bounce a descent to the depth limit (10) that follows the
 * bounced contact alone. The limits below, 120 dense-output evaluations
 * and 250 contact gaps per impact, leave room for a second located
 * crossing per impact and for the descents; the guard before this change
 * took 175 to 253 evaluations (every contact's gaps each: 175 to 1265
 * gaps) per impact on the same configs: bisection to 1e-12 and two scans
 * of all 63 samples. */
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
    static const char *const configs[] = {
        "tumbleweed_case3_physical.toml", "tumbleweed_case4_physical.toml",
        "bouncing_ball_newton.toml", "curb_wheel_poisson_down.toml"};
    const char *sets[] = {"plot.enabled=false", "run.progress=false"};
    for (size_t i = 0; i < sizeof configs / sizeof *configs; ++i) {
        run R = {0};
        test_run_file(&R, configs[i], sets, 2, (nsd_run_outcome)TEST_ANY_OUTCOME);
        const nsd_run_result *r = &R.res;
        double hits = (double)r->guard_hits;
        double evals = (double)(r->guard_evaluations + r->guard_evaluations_some);
        printf("%s: %llu steps, %llu impacts located; per impact %.1f evaluations, %.1f gaps; "
               "per step %.1f evaluations\n",
               configs[i], (unsigned long long)r->stats.steps, (unsigned long long)r->guard_hits,
               evals / hits, (double)r->guard_gaps / hits, evals / (double)r->stats.steps);
        ck_assert_msg(r->guard_hits >= 8, "%s: only %llu impacts", configs[i],
                      (unsigned long long)r->guard_hits);
        ck_assert_msg(evals / hits <= 120.0 && (double)r->guard_gaps / hits <= 250.0,
                      "%s: %.1f evaluations and %.1f contact gaps per impact", configs[i],
                      evals / hits, (double)r->guard_gaps / hits);
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
