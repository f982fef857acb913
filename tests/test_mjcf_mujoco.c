/* The mjcf system's engine = "mujoco" (plugins/systems/mjcf_mujoco.c):
 * MuJoCo's own simulation of a model file inside an nsdyn run, for the
 * side-by-side of configs/mjcf_ball_drop_mujoco.toml and
 * configs/mjcf_box_incline_mujoco.toml.
 *
 *  (a) it is MuJoCo's simulation, step for step: the states the host
 *      samples equal a plain mj_step loop on the same file to the last bit
 *      (the tick times are k h from a count; each step starts from the
 *      state MuJoCo left), for the ball (soft contact, free joint) and the
 *      box on the incline (friction, four contacts, rotation).
 *  (b) the comparison numbers (docs/mjcf.md), measured the same way for
 *      both: effective restitution of the first bounce from its apex,
 *      e = sqrt((apex - r) / drop), and creep along the 30 degree slope
 *      between t = 1 s and 2 s. nsdyn gives e = 0.75 (to the sampling of
 *      the apex, 1e-5) and no creep (1e-12 m/s); MuJoCo's values are
 *      printed, and checked only to be a bounce (0 < e < 1) and a creep
 *      (> 1 um/s): they are MuJoCo's, not a closed form. */
#define _GNU_SOURCE
#include <math.h>
#include <mujoco/mujoco.h>

#include "test_util.h"

#define MJCF_DIR NSDYN_TEST_SOURCE_DIR "/configs/mjcf"

/* Run a shipped comparison config's variant: engine "nsdyn" or "mujoco". */
static void run_engine(run *R, const char *config, const char *engine, const char *integrator) {
    char set_e[64], set_i[64];
    snprintf(set_e, sizeof set_e, "system.engine=\"%s\"", engine);
    snprintf(set_i, sizeof set_i, "integrator.id=\"%s\"", integrator);
    const char *sets[] = {set_e, set_i};
    test_run_file(R, config, sets, 2, NSD_RUN_COMPLETE);
}

static void check_against_loop(const char *config, const char *xml, const char *const *names,
                               size_t n) {
    run R = {0};
    run_engine(&R, config, "mujoco", "dopri5");
    char err[512];
    mjModel *m = mj_loadXML(xml, NULL, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    mjData *d = mj_makeData(m);
    const nsd_series *S = &R.res.series;
    size_t steps = 0;
    for (size_t row = 0; row < S->rows; ++row) {
        double t = at(&R, row, "t");
        /* the sample at t shows every tick k h < t (one at t comes after it) */
        while ((double)(steps + 1) * m->opt.timestep < t - 1e-9) {
            mj_step(m, d);
            steps++;
        }
        for (size_t k = 0; k < n; ++k) {
            int c = nsd_model_channel(&R.model, names[k]) - 1; /* channel 0 is t */
            ck_assert_int_ge(c, 0);
            double want = c < (int)R.model.nq ? d->qpos[c] : d->qvel[c - (int)R.model.nq];
            ck_assert_msg(at(&R, row, names[k]) == want, "%s at t = %g: %.17g, mj_step %.17g",
                          names[k], t, at(&R, row, names[k]), want);
        }
    }
    ck_assert_uint_gt(steps, 1000);
    mj_deleteData(d);
    mj_deleteModel(m);
    test_unload(&R);
}

START_TEST(test_engine_is_mj_step) {
    const char *ball[] = {"ball_z", "ball_vz", "ball_qw", "ball_wy"};
    check_against_loop("mjcf_ball_drop_mujoco.toml", MJCF_DIR "/ball.xml", ball, 4);
    const char *box[] = {"box_x", "box_z", "box_qy", "box_vx", "box_wz"};
    check_against_loop("mjcf_box_incline_mujoco.toml", MJCF_DIR "/box_incline.xml", box, 5);
}
END_TEST

/* Restitution of the first bounce from its apex (drop 1 m, r = 0.05 m). */
static double apex_restitution(const run *R) {
    double apex = 0;
    for (size_t row = 0; row < R->res.series.rows; ++row)
        if (at(R, row, "t") > 0.6 && at(R, row, "t") < 1.0 && at(R, row, "ball_z") > apex)
            apex = at(R, row, "ball_z");
    return sqrt((apex - 0.05) / 1.0);
}

/* Mean speed down the slope between t = 1 s and t_end [m/s]. */
static double creep_rate(const run *R) {
    const double th = NSDYN_PI / 6;
    size_t r1 = 0, r2 = R->res.series.rows - 1;
    while (at(R, r1, "t") < 1.0) r1++;
    double s1 = at(R, r1, "box_x") * cos(th) - at(R, r1, "box_z") * sin(th);
    double s2 = at(R, r2, "box_x") * cos(th) - at(R, r2, "box_z") * sin(th);
    return (s2 - s1) / (at(R, r2, "t") - at(R, r1, "t"));
}

START_TEST(test_restitution_and_creep) {
    run R = {0};
    run_engine(&R, "mjcf_ball_drop_mujoco.toml", "nsdyn", "dopri5");
    double e_nsdyn = apex_restitution(&R);
    test_unload(&R);
    run_engine(&R, "mjcf_ball_drop_mujoco.toml", "mujoco", "dopri5");
    double e_mujoco = apex_restitution(&R);
    test_unload(&R);
    run_engine(&R, "mjcf_box_incline_mujoco.toml", "nsdyn", "moreau");
    double creep_nsdyn = creep_rate(&R);
    test_unload(&R);
    run_engine(&R, "mjcf_box_incline_mujoco.toml", "mujoco", "dopri5");
    double creep_mujoco = creep_rate(&R);
    test_unload(&R);
    printf("ball dropped 1 m, set up for e = 0.75: nsdyn e = %.6f, MuJoCo %s e = %.4f\n", e_nsdyn,
           mj_versionString(), e_mujoco);
    printf("box on 30 deg incline, mu = 0.7: nsdyn creep %.3g um/s, MuJoCo creep %.1f um/s\n",
           creep_nsdyn * 1e6, creep_mujoco * 1e6);
    ck_assert_msg(fabs(e_nsdyn - 0.75) < 1e-5, "nsdyn e = %.8f", e_nsdyn);
    ck_assert_msg(fabs(creep_nsdyn) < 1e-12, "nsdyn creeps at %.3g m/s", creep_nsdyn);
    ck_assert_msg(e_mujoco > 0 && e_mujoco < 1, "MuJoCo e = %g", e_mujoco);
    ck_assert_msg(creep_mujoco > 1e-6, "MuJoCo creep %g m/s", creep_mujoco);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mjcf_mujoco");
    TCase *tc = tcase_create("engine mujoco");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_engine_is_mj_step);
    tcase_add_test(tc, test_restitution_and_creep);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
