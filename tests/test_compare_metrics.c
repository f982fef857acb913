/* The metrics of nsdyn compare (compare_metrics.c, compare_table.c)
 * against closed forms: a bouncing ball dropped from two heights has its
 * first impact at t1 = sqrt(2 h / g); after both impacts the velocities
 * differ by (1 + e) g (t1' - t1) (free flight before: vy = -g t in both).
 * So the event-time error is t1' - t1 and the velocity error outside the
 * event window is (1 + e) g dt, while inside it the whole jump
 * (1 + e) g t1 shows (max_all). Also: the reference against itself and a
 * second run of the same model are exactly 0 (a re-run resets the model);
 * a failed variant shows "failed", never 0; accuracy against cost only for
 * numerics-only comparisons. */
#define _GNU_SOURCE
#include <math.h>
#include <sys/stat.h>

#include "compare.h"
#include "test_util.h"

static const double G = 9.81;

/* A bouncing ball (radius 0.05 m) dropped from height h [m] above the
 * ground, restitution e, until t_end, event-driven with dopri5 unless
 * `integrator` (the [integrator] keys) says otherwise; extra: more [run]
 * keys. */
static void ball_with(run *R, double h, double e, double t_end, const char *extra,
                      const char *integrator) {
    char toml[1024];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = %.17g\n"
             "[contact]\nid = \"newton\"\ne = %.17g\n"
             "[integrator]\n%s\n"
             "[initial]\ny = %.17g\n"
             "[run]\nt_end = %.17g\noutput_dt = 1e-3\nprogress = false\n%s",
             G, e, integrator ? integrator : "id = \"dopri5\"\nrtol = 1e-10\natol = 1e-12",
             0.05 + h, t_end, extra ? extra : "");
    memset(R, 0, sizeof *R);
    test_load(toml, R);
    test_run(R);
}

static void ball(run *R, double h, double e, double t_end, const char *extra) {
    ball_with(R, h, e, t_end, extra, NULL);
}

static void metrics_of(variant *v, size_t nv, const char *const *names, size_t nn,
                       nsd_variant_metrics *m) {
    double walls[8] = {0};
    for (size_t i = 0; i < nv; ++i) walls[i] = v[i].sc.res.wall_seconds;
    ck_assert_int_eq(nsd_compare_metrics(v, nv, 0, names, nn, walls, 1, m), 0);
}

START_TEST(impact_shift_is_an_event_time_error) {
    /* Randomized heights and restitutions (fixed seed): shifts of the first
     * impact from 0.2 ms to 3 ms. */
    srand(1313);
    for (int trial = 0; trial < 5; ++trial) {
        double h = 0.5 + (double)rand() / RAND_MAX;
        double e = 0.3 + 0.6 * (double)rand() / RAND_MAX;
        double shift = 2e-4 + 2.8e-3 * (double)rand() / RAND_MAX;
        double t1 = sqrt(2 * h / G), h2 = 0.5 * G * (t1 + shift) * (t1 + shift);
        /* end in the flight after the first impact, before the second
           (at t1 + 2 e t1) of either run */
        double t_end = t1 + shift + e * t1;
        variant v[2] = {{.name = "ref"}, {.name = "shifted"}};
        ball(&v[0].sc, h, e, t_end, NULL);
        ball(&v[1].sc, h2, e, t_end, NULL);
        const char *names[] = {"vy", "y"};
        nsd_variant_metrics m[2];
        metrics_of(v, 2, names, 2, m);
        ck_assert_int_eq(m[1].n_matched, 1);
        ck_assert_int_eq(m[1].n_unmatched, 0);
        /* impacts located to ~1e-12 s */
        ck_assert_double_eq_tol(m[1].event_dt_max, shift, 1e-9);
        /* outside the window: the velocities after both impacts */
        ck_assert_double_eq_tol(m[1].err[0].max, (1 + e) * G * shift, 1e-7);
        /* inside it: the whole jump, which must not be the channel max */
        ck_assert_double_gt(m[1].err[0].max_all, 0.9 * (1 + e) * G * t1);
        ck_assert_uint_gt(m[1].err[0].n_masked, 0);
        ck_assert_int_eq(m[1].time_base_interpolated, 0);
        /* the reference against itself: exactly 0, every metric */
        for (size_t k = 0; k < 2; ++k) {
            ck_assert_double_eq(m[0].err[k].max, 0.0);
            ck_assert_double_eq(m[0].err[k].max_all, 0.0);
            ck_assert_double_eq(m[0].err[k].rms, 0.0);
            ck_assert_double_eq(m[0].err[k].final, 0.0);
        }
        ck_assert_double_eq(m[0].event_dt_max, 0.0);
        /* energy: dissipated (1 - e^2) of the impact's kinetic energy
           m g h at the one impact */
        ck_assert_double_eq_tol(m[0].energy_start - m[0].energy_end, (1 - e * e) * 0.1 * G * h,
                                1e-6);
        nsd_compare_metrics_free(m, 2);
        test_unload(&v[0].sc);
        test_unload(&v[1].sc);
    }
}
END_TEST

START_TEST(a_second_run_is_the_same_run) {
    /* compare --repeat runs a scenario again: the second run must start
     * from the initial state and modes, not from the first run's end. */
    variant v[2] = {{.name = "first"}, {.name = "again"}};
    ball(&v[0].sc, 1.0, 0.5, 2.0, NULL);
    ball(&v[1].sc, 1.0, 0.5, 2.0, NULL);
    test_run(&v[1].sc); /* the second run of the same model */
    const nsd_series *a = &v[0].sc.res.series, *b = &v[1].sc.res.series;
    ck_assert_uint_eq(a->rows, b->rows);
    ck_assert_mem_eq(a->data, b->data, a->rows * a->n_channels * sizeof *a->data);
    ck_assert_uint_eq(v[0].sc.res.contact_log.n, v[1].sc.res.contact_log.n);
    const char *names[] = {"y", "vy"};
    nsd_variant_metrics m[2];
    metrics_of(v, 2, names, 2, m);
    ck_assert_double_eq(m[1].err[0].max_all, 0.0);
    ck_assert_double_eq(m[1].err[1].max_all, 0.0);
    ck_assert_double_eq(m[1].event_dt_max, 0.0);
    /* the same model twice is no comparison of numerics */
    ck_assert_int_eq(nsd_compare_numerics_only(v, 2, 0), 0);
    nsd_compare_metrics_free(m, 2);
    test_unload(&v[0].sc);
    test_unload(&v[1].sc);
}
END_TEST

START_TEST(failed_variant_shows_failed) {
    char dir[] = "/tmp/nsdyn-metrics-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    variant v[2] = {{.name = "ref"}, {.name = "a variant whose name is longer than twenty-eight"}};
    ball(&v[0].sc, 1.0, 0.5, 2.0, NULL);
    /* run.max_events ends the run as failed at the second impact */
    ball(&v[1].sc, 1.0, 0.5, 2.0, "max_events = 1\n");
    ck_assert_int_eq(v[1].sc.res.outcome, NSD_RUN_FAILED);
    const char *names[] = {"y"};
    nsd_variant_metrics m[2];
    metrics_of(v, 2, names, 1, m);
    ck_assert_int_eq(m[1].valid, 0);
    ck_assert(isnan(m[1].err[0].max) && isnan(m[1].err[0].rms));
    char **written = NULL, err[512];
    size_t n_written = 0;
    ck_assert_int_eq(nsd_compare_write_tables(dir, v, 2, 0, names, 1, m, 1, &written, &n_written,
                                              err, sizeof err),
                     0);
    ck_assert_uint_eq(n_written, 3);
    char path[600], text[8192];
    snprintf(path, sizeof path, "%s/metrics.md", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(
        strstr(text, "| a variant whose name is longer than twenty-eight | failed | "));
    ck_assert_ptr_nonnull(strstr(text, " | failed | failed |"));
    ck_assert_ptr_nonnull(strstr(text, "contact=newton(e=0.5)"));
    for (size_t i = 0; i < n_written; ++i) {
        remove(written[i]);
        free(written[i]);
    }
    free(written);
    rmdir(dir);
    nsd_compare_metrics_free(m, 2);
    test_unload(&v[0].sc);
    test_unload(&v[1].sc);
}
END_TEST

START_TEST(accuracy_against_cost_only_for_numerics) {
    variant v[2] = {{.name = "dopri5"}, {.name = "moreau"}};
    ball(&v[0].sc, 1.0, 0.5, 0.3, NULL);
    ball(&v[1].sc, 1.0, 0.5, 0.3, NULL);
    ck_assert_int_eq(nsd_compare_numerics_only(v, 2, 0), 0); /* the same settings */
    test_unload(&v[1].sc);
    memset(&v[1].sc, 0, sizeof v[1].sc);
    ball_with(&v[1].sc, 1.0, 0.5, 0.3, NULL, "id = \"moreau\"\nh = 1e-3");
    ck_assert_int_eq(nsd_compare_numerics_only(v, 2, 0), 1); /* integrators differ */
    test_unload(&v[1].sc);
    memset(&v[1].sc, 0, sizeof v[1].sc);
    ball(&v[1].sc, 1.0, 0.6, 0.3, NULL);
    ck_assert_int_eq(nsd_compare_numerics_only(v, 2, 0), 0); /* a model change: e */
    test_unload(&v[1].sc);
    memset(&v[1].sc, 0, sizeof v[1].sc);
    ball(&v[1].sc, 1.2, 0.5, 0.3, NULL);
    ck_assert_int_eq(nsd_compare_numerics_only(v, 2, 0), 0); /* another initial state */
    test_unload(&v[0].sc);
    test_unload(&v[1].sc);
}
END_TEST

int main(void) {
    Suite *s = suite_create("compare_metrics");
    TCase *tc = tcase_create("metrics");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, impact_shift_is_an_event_time_error);
    tcase_add_test(tc, a_second_run_is_the_same_run);
    tcase_add_test(tc, failed_variant_shows_failed);
    tcase_add_test(tc, accuracy_against_cost_only_for_numerics);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
