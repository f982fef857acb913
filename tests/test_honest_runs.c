/* Runs that cannot lie (issue 10): what used to end with exit 0 and a
 * wrong answer now ends the run with the time, the state and the
 * offending contact or channel, keeping what was computed. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes.h"
#include "test_util.h"

/* A rigid contact that starts penetrated (initial.y = -10) rested 10 m
 * under the ground. Now the config is refused (issue 22: known before the
 * run, a config error, not a failed run) naming the contact; within the
 * tolerance it starts (a contact at its surface, to rounding). */
START_TEST(initial_penetration_refused) {
    run R = {0}, ok = {0};
    const char *deep[] = {"plot.enabled=false", "initial.y=-10"};
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/bouncing_ball_newton.toml", NSDYN_TEST_SOURCE_DIR);
    nsd_diag diag = {0};
    R.no_graphs = 1;
    ck_assert_uint_gt(nsd_scenario_load(&R, path, deep, 2, &diag), 0);
    ck_assert_msg(diag.n && strstr(diag.lines[0], "contact 'ground' starts penetrated by 10.05 m"),
                  "%s", diag.n ? diag.lines[0] : "");
    nsd_diag_free(&diag);
    nsd_scenario_destroy(&R);
    const char *touching[] = {"plot.enabled=false", "initial.y=0.0499999999995", "run.t_end=0.1"};
    test_run_file(&ok, "bouncing_ball_newton.toml", touching, 3, NSD_RUN_COMPLETE);
    run_free(&ok);
}
END_TEST

/* rk4 at too large a step multiplied the energy of the Hunt-Crossley ball
 * by 1e4 and reported "complete". The energy audit (the ball is
 * conservative, the contact law dissipates) now ends the run at the first
 * judgeable sample above the lowest energy before it; with "warn" the run
 * completes and counts the rises; a right step passes the audit. */
START_TEST(energy_audit_catches_a_blow_up) {
    run R = {0}, W = {0}, ok = {0};
    const char *big[] = {"plot.enabled=false", "integrator.id=rk4", "integrator.h=1e-2"};
    test_run_file(&R, "bouncing_ball_hunt_crossley.toml", big, 3, NSD_RUN_FAILED);
    ck_assert_ptr_nonnull(strstr(R.res.message, "energy audit: the mechanical energy rose"));
    ck_assert_uint_ge(R.res.series.rows, 10); /* what was computed is kept */
    run_free(&R);
    const char *warn[] = {"plot.enabled=false", "integrator.id=rk4", "integrator.h=1e-2",
                          "run.energy_audit=\"warn\""};
    test_run_file(&W, "bouncing_ball_hunt_crossley.toml", warn, 4, NSD_RUN_COMPLETE);
    ck_assert_uint_ge(W.res.energy_rises, 1);
    ck_assert_double_gt(W.res.energy_worst, 1e3);
    run_free(&W);
    const char *fine[] = {"plot.enabled=false", "integrator.id=rk4", "integrator.h=1e-5"};
    test_run_file(&ok, "bouncing_ball_hunt_crossley.toml", fine, 3, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(ok.res.energy_rises, 0);
    ck_assert_uint_ge(ok.res.energy_checked, 100);
    run_free(&ok);
}
END_TEST

/* moreau with h = 1e300 took one step past t_end and reported complete;
 * a time-stepping run's energy must pass the audit at a sane step. */
START_TEST(moreau_passes_the_energy_audit) {
    run R = {0};
    const char *sets[] = {"plot.enabled=false", "integrator.id=moreau", "integrator.h=1e-3"};
    test_run_file(&R, "bouncing_ball_moreau_vs_event.toml", sets, 3, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(R.res.energy_rises, 0);
    ck_assert_uint_ge(R.res.energy_checked, 100);
    run_free(&R);
}
END_TEST

/* A plugin returning a NaN gap let the body fall through the ground, and
 * NaN outputs filled the CSV, both with exit 0. Now the run ends where it
 * happens, naming the contact or the channel, and keeps the samples
 * before it. (precheck = false: the kinematic checks before the run would
 * find the NaN gap at a state after t = 0.05 s; this is the runner's net.) */
static void faulty_run(const char *id, const char *want) {
    char toml[1024];
    snprintf(
        toml, sizeof toml,
        "plugin_path = [\"%s/faulty\"]\n[system]\nid = \"%s\"\n[contact]\nid = \"newton\"\ne = "
        "0.5\n"
        "[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.2\noutput_dt = 1e-3\nprogress = false\n"
        "precheck = false\n",
        NSDYN_TEST_FIXTURE_DIR, id);
    run R = {0};
    run_config(&R, toml, NSD_RUN_FAILED);
    ck_assert_msg(strstr(R.res.message, want) != NULL, "%s: message: %s", id, R.res.message);
    ck_assert_double_lt(R.res.t_reached, 0.0501);
    ck_assert_uint_ge(R.res.series.rows, 2); /* up to the step where it happened */
    for (size_t i = 0; i < R.res.series.rows; ++i) ck_assert(isfinite(at(&R, i, "level")));
    run_free(&R);
}

START_TEST(nan_gap_stops_the_run) {
    faulty_run("faulty_nan_gap", "non-finite gap, velocity, load or Jacobian at contact 'ground'");
}
END_TEST
START_TEST(nan_output_stops_the_run) { faulty_run("faulty_nan_output", "channel 'level' is nan"); }
END_TEST

/* An open contact found penetrating deeper than twice the tolerance at a
 * drift correction (no impact caught it: the step guard did not see the
 * gap fall through, e.g. a gap that rises again by the step's end) is
 * projected out with the rest and reported: nsd_modes_correct_drift gives
 * its depth, the run counts it (run.toml [status] open_projections,
 * deepest_open_projection) and the summary line warns. */
START_TEST(open_projection_reported) {
    run R = {0};
    test_load("[system]\nid = \"point_mass\"\nr = 0.05\n[contact]\nid = \"newton\"\ne = 0.5\n"
              "[integrator]\nid = \"dopri5\"\n[initial]\ny = 1.0\n[run]\nt_end = 1.0\n"
              "progress = false\n",
              &R);
    nsd_model *m = &R.model;
    double y[64], deep = 1;
    ck_assert_uint_le(m->n, 64);
    memcpy(y, m->y0, m->n * sizeof *y);
    int iy = -1;
    for (size_t i = 0; i < m->n_channels; ++i)
        if (!strcmp(m->channels[i].name, "y")) iy = (int)i - 1; /* channel 0 is t */
    ck_assert_int_ge(iy, 0);
    y[iy] = 0.05 - 0.004; /* 4 mm into the ground, open, at rest */
    ck_assert_int_eq(nsd_modes_correct_drift(m, R.data, 0.0, y, &deep), 1);
    ck_assert_double_eq_tol(deep, -0.004, 1e-12);
    ck_assert_double_eq_tol(y[iy], 0.05, 1e-9); /* projected onto the surface */
    y[iy] = 0.5;                                /* in flight: nothing to correct */
    ck_assert_int_eq(nsd_modes_correct_drift(m, R.data, 0.0, y, &deep), 0);
    ck_assert_double_eq(deep, 0.0);
    test_unload(&R);
    nsd_run_result res = {.open_projections = 2, .deepest_open = -0.004};
    char buf[1024] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    nsd_scenario_print_summary(f, NULL, &res);
    fclose(f);
    ck_assert_msg(strstr(buf, "2 open contacts found penetrating (deepest -0.004 m)") != NULL,
                  "summary: %s", buf);
}
END_TEST

/* A system that changes the velocities when told that contacts opened or
 * closed (system.h on_contact_modes, ABI 2.2; fixtures/faulty_system.c). */
static void reset_run(run *R, const char *id, double t_end, nsd_run_outcome want) {
    char toml[1024];
    snprintf(toml, sizeof toml,
             "plugin_path = [\"%s/faulty\"]\n[system]\nid = \"%s\"\n[contact]\nid = "
             "\"newton\"\ne = 0.5\n[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = "
             "1e-12\n[run]\nt_end = %g\noutput_dt = 1e-3\nprogress = false\n",
             NSDYN_TEST_FIXTURE_DIR, id, t_end);
    run_config(R, toml, want);
}

/* The kick at every closing (the end of each accumulation) adds exactly
 * KICK^2/2 = 0.5 J to a ball at rest on the ground: the log has one
 * system_reset per closing, the energy change sum is 0.5 J each, and the
 * energy audit, told of it, finds no rise although the energy after each
 * kick is above the lowest it had reached (a control: without the credit
 * the audit's default "error" would end the run at the first kick). */
START_TEST(system_resets_are_logged_and_credited) {
    run R = {0};
    reset_run(&R, "faulty_reset_kick", 4.0, NSD_RUN_COMPLETE);
    size_t kicks = 0, closes = 0;
    for (size_t i = 0; i < R.res.contact_log.n; ++i) {
        const nsd_event_record *r = &R.res.contact_log.rec[i];
        if (r->kind == NSD_EVENT_REST || r->kind == NSD_EVENT_CLOSE) closes++;
        if (r->kind != NSD_EVENT_SYSTEM_RESET) continue;
        kicks++;
        ck_assert_double_eq_tol(r->u_before[0], 0.0, 1e-9);
        ck_assert_double_eq_tol(r->u_after[0], 1.0, 1e-15);
        /* the modes chosen again: the ball leaves the ground (an open record, same instant) */
        ck_assert_uint_lt(i + 1, R.res.contact_log.n);
        ck_assert_int_eq(R.res.contact_log.rec[i + 1].kind, NSD_EVENT_OPEN);
        ck_assert_double_eq(R.res.contact_log.rec[i + 1].t, r->t);
    }
    ck_assert_uint_ge(kicks, 3);
    ck_assert_uint_eq(kicks, closes);
    ck_assert_double_eq_tol(R.res.reset_energy, 0.5 * (double)kicks, 1e-9 * (double)kicks);
    ck_assert_uint_eq(R.res.energy_rises, 0);
    ck_assert_uint_ge(R.res.energy_checked, 100);
    double e_max_late = 0.0; /* after the first kick: up to 0.5 J above the resting energy */
    for (size_t i = 0; i < R.res.series.rows; ++i)
        if (at(&R, i, "t") > 1.5) e_max_late = fmax(e_max_late, at(&R, i, "energy"));
    ck_assert_double_gt(e_max_late, 9.81 * 0.05 + 0.4);
    run_free(&R);
}
END_TEST

/* Resets that open and close the contact at every round never settle: the
 * run fails at that instant with a message, after 4 rounds. A failing
 * callback fails the run at the start (it is called once there). */
START_TEST(system_resets_that_do_not_settle_fail) {
    run R = {0};
    reset_run(&R, "faulty_reset_chatter", 2.0, NSD_RUN_FAILED);
    ck_assert_msg(strstr(R.res.message, "do not settle") != NULL, "message: %s", R.res.message);
    ck_assert_double_lt(R.res.t_reached, 2.0);
    size_t resets = 0;
    for (size_t i = 0; i < R.res.contact_log.n; ++i)
        resets += R.res.contact_log.rec[i].kind == NSD_EVENT_SYSTEM_RESET;
    ck_assert_uint_eq(resets, 4);
    run_free(&R);
    run E = {0};
    reset_run(&E, "faulty_reset_error", 1.0, NSD_RUN_FAILED);
    ck_assert_msg(strstr(E.res.message, "on_contact_modes() failed at t = 0 s") != NULL,
                  "message: %s", E.res.message);
    run_free(&E);
}
END_TEST

/* A scenario run again without loading again (scenario.h, as a sweep or a
 * periodic analysis will) repeats the first run sample for sample: nothing
 * of the first run leaks into the second. Event-driven (contact modes and
 * the event log) and compliant (the energy audit). */
static void rerun_repeats(const char *config) {
    run R = {0};
    const char *sets[] = {"plot.enabled=false", "run.t_end=0.5"};
    test_run_file(&R, config, sets, 2, NSD_RUN_COMPLETE);
    nsd_series first = R.res.series;
    size_t bytes = first.rows * first.n_channels * sizeof *first.data;
    double *copy = malloc(bytes ? bytes : 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, first.data, bytes);
    size_t events = R.res.contact_log.n;
    test_run(&R);
    ck_assert_int_eq(R.res.outcome, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(R.res.series.rows, first.rows);
    ck_assert_uint_eq(R.res.contact_log.n, events);
    ck_assert_msg(memcmp(copy, R.res.series.data, bytes) == 0, "%s: the second run differs",
                  config);
    free(copy);
    run_free(&R);
}

START_TEST(rerun_without_reloading) {
    rerun_repeats("bouncing_ball_newton.toml");
    rerun_repeats("bouncing_ball_hunt_crossley.toml");
}
END_TEST

/* Issue 28: moreau at h = 0.1 s left the ball 0.35 m under the ground and
 * reported "complete", exit 0. The penetration audit now ends the run (or
 * warns with run.penetration_audit = "warn"), naming the contact. Its
 * depth must equal the system's own penetration output at every step end
 * (output_dt = h puts a sample on each step end), over random steps; and
 * the run fails exactly when that depth is past the tolerance. */
START_TEST(moreau_penetration_audited) {
    run R = {0}, W = {0};
    const char *big[] = {"plot.enabled=false", "integrator.id=moreau", "integrator.h=0.1"};
    test_run_file(&R, "bouncing_ball_moreau_vs_event.toml", big, 3, NSD_RUN_FAILED);
    ck_assert_ptr_nonnull(strstr(R.res.message, "penetration audit: contact 'ground'"));
    run_free(&R);
    const char *warn[] = {"plot.enabled=false", "integrator.id=moreau", "integrator.h=0.1",
                          "run.penetration_audit=\"warn\""};
    test_run_file(&W, "bouncing_ball_moreau_vs_event.toml", warn, 4, NSD_RUN_COMPLETE);
    ck_assert_int_eq(W.res.penetration_exceeded, 1);
    ck_assert_double_gt(W.res.deepest_penetration, 0.3);
    run_free(&W);
    srand(28);
    for (int trial = 0; trial < 12; ++trial) {
        int k = 1 + rand() % 40; /* h = k ms: 1 ms .. 40 ms */
        char h[64], dt[64];
        snprintf(h, sizeof h, "integrator.h=%de-3", k);
        snprintf(dt, sizeof dt, "run.output_dt=%de-3", k);
        const char *sets[] = {"plot.enabled=false", "integrator.id=moreau", h, dt,
                              "run.penetration_audit=\"off\""};
        run T = {0};
        test_run_file(&T, "bouncing_ball_moreau_vs_event.toml", sets, 5, NSD_RUN_COMPLETE);
        double deepest = 0.0;
        for (size_t i = 0; i < T.res.series.rows; ++i)
            deepest = fmax(deepest, at(&T, i, "penetration"));
        ck_assert_msg(fabs(T.res.deepest_penetration - deepest) <= 1e-12,
                      "h = %d ms: audit %.17g m, output %.17g m", k, T.res.deepest_penetration,
                      deepest);
        ck_assert_uint_eq(T.res.penetration_checked, T.res.stats.steps + 1);
        ck_assert_int_eq(T.res.penetration_exceeded, 0); /* "off" judges nothing */
        run_free(&T);
        const char *judged[] = {"plot.enabled=false", "integrator.id=moreau", h, dt};
        test_run_file(&T, "bouncing_ball_moreau_vs_event.toml", judged, 4,
                      deepest > 1e-2 ? NSD_RUN_FAILED : NSD_RUN_COMPLETE);
        run_free(&T);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("honest_runs");
    TCase *tc = tcase_create("issue10");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, initial_penetration_refused);
    tcase_add_test(tc, energy_audit_catches_a_blow_up);
    tcase_add_test(tc, moreau_passes_the_energy_audit);
    tcase_add_test(tc, moreau_penetration_audited);
    tcase_add_test(tc, nan_gap_stops_the_run);
    tcase_add_test(tc, nan_output_stops_the_run);
    tcase_add_test(tc, open_projection_reported);
    tcase_add_test(tc, rerun_without_reloading);
    tcase_add_test(tc, system_resets_are_logged_and_credited);
    tcase_add_test(tc, system_resets_that_do_not_settle_fail);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
