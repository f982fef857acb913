/* The mjcf system against closed forms, through the host (event-driven
 * runner with rigid contact, or Moreau time-stepping), on MJCF models:
 *
 *  (a) a ball dropped 1 m at Newton e = 0.75 (configs/mjcf_ball_drop.toml):
 *      first impact at sqrt(2h/g) with speed sqrt(2gh); every impact's
 *      rebound is exactly 0.75 times its approach; impact k at
 *      t_1 + sum_j 2 e^j v_1 / g.
 *  (b) a rectangular block rocking on its corners, plastic impacts that
 *      stick (Housner 1963): per impact the angular velocity drops by
 *      1 - (3/2) sin^2(alpha), alpha = atan(b/h), for two slendernesses
 *      (h/b = 3 and 5); the first impact's approach speed from energy:
 *      (1/2)(4/3) m R^2 w^2 = m g R (cos(alpha - theta0) - cos(alpha)),
 *      and each later approach equal to the last departure (energy is
 *      conserved over a swing).
 *  (c) a solid sphere on a 30 degree incline (3-D, quaternion joint):
 *      mu above (2/7) tan(theta): rolling, a = (5/7) g sin(theta), slip
 *      velocity 0; below: slipping, a = g (sin - mu cos) and spin-up
 *      w' = (5/2) mu g cos / r; at mu = mu* (1 +- 1e-3) it sticks / slips.
 *  (d) a box held on a 30 degree incline by mu = 0.7 > tan(30 deg) (Moreau
 *      time-stepping: four sticking corners are redundant for the
 *      event-driven runner): no creep, every corner's slip velocity zero;
 *      at mu = 0.5 it slides at exactly g (sin - mu cos).
 *  (e) on every path (compliant Hunt-Crossley, event-driven Newton, Moreau)
 *      the MJCF ball follows the hand-written point_mass's trajectory.
 *  (f) a tippe top (3-D, configs/mjcf_tippe_top.toml) turns over by
 *      sliding friction and conserves Jellett's integral L_G . r_PG.
 * Tolerances: event times and velocities from dopri5 at rtol 1e-10 with
 * located events: 1e-8 relative; a rocking swing's approach after the
 * first carries the drift of the sustained pivot contact (held at
 * acceleration level) over the swing, up to 3e-8 measured: 1e-6, while
 * each ratio is one impact map, exact: 1e-8. Moreau steps a constant force exactly
 * (velocity update h a), so 1e-9. */
#define _GNU_SOURCE
#include <math.h>

#include "test_util.h"

#define G 9.81
#define MJCF_DIR NSDYN_TEST_SOURCE_DIR "/configs/mjcf"

START_TEST(test_ball_drop_restitution) {
    run R = {0};
    test_run_file(&R, "mjcf_ball_drop.toml", NULL, 0, NSD_RUN_COMPLETE);
    const double e = 0.75, h = 1.0, v1 = sqrt(2 * G * h), t1 = sqrt(2 * h / G);
    size_t k = 0;
    double t_expect = t1, v_expect = v1;
    for (size_t i = 0; i < R.res.contact_log.n; ++i) {
        const nsd_event_record *ev = &R.res.contact_log.rec[i];
        if (ev->kind != NSD_EVENT_IMPACT) continue;
        ck_assert_msg(fabs(ev->t - t_expect) < 1e-8, "impact %zu at %.12g s, expected %.12g", k,
                      ev->t, t_expect);
        ck_assert_msg(fabs(-ev->u_before[0] - v_expect) < 1e-8 * v1, "impact %zu approach", k);
        ck_assert_msg(fabs(ev->u_after[0] / -ev->u_before[0] - e) < 1e-10,
                      "impact %zu: effective e = %.12g", k, ev->u_after[0] / -ev->u_before[0]);
        t_expect += 2 * e * v_expect / G;
        v_expect *= e;
        k++;
    }
    ck_assert_uint_eq(k, 3); /* t_end = 2 s: impacts at 0.45, 1.13, 1.64 s */
    test_unload(&R);
}
END_TEST

/* A block of half-width b and half-height h [m], tilted by theta0 [rad]
 * onto its right corner at rest; returns the run (caller unloads). */
static void rocking_run(run *R, double b, double h, double theta0) {
    char dir[] = "/tmp/nsdyn-rock-XXXXXX", xml[128], toml[2048];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(xml, sizeof xml, "%s/block.xml", dir);
    FILE *f = fopen(xml, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "<mujoco><option gravity='0 0 -9.81'/><worldbody><geom name='floor' type='plane' "
            "size='2 1 0.1'/><body name='block'><joint name='x' type='slide' axis='1 0 0'/>"
            "<joint name='z' type='slide' axis='0 0 1'/><joint name='theta' type='hinge' "
            "axis='0 1 0'/><geom type='box' size='%.17g 0.05 %.17g' mass='10'/>"
            "<site name='left' pos='%.17g 0 %.17g'/><site name='right' pos='%.17g 0 %.17g'/>"
            "</body></worldbody></mujoco>",
            b, h, -b, -h, b, -h);
    fclose(f);
    snprintf(toml, sizeof toml,
             "[system]\nid = \"mjcf\"\nmodel = \"%s\"\ncontacts = \"left, right\"\nplanar = true\n"
             "[contact]\nid = \"newton\"\ne = 0.0\n[friction]\nid = \"coulomb\"\nmu_s = 1.0\n"
             "mu_k = 1.0\n[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
             "[initial]\nx = %.17g\nz = %.17g\ntheta = %.17g\n[run]\nt_end = 2.0\n"
             "output_dt = 1e-2\n",
             xml, b - (b * cos(theta0) - h * sin(theta0)), b * sin(theta0) + h * cos(theta0),
             theta0);
    run_config(R, toml, NSD_RUN_COMPLETE);
    remove(xml);
    rmdir(dir);
}

static void check_housner(double b, double h, double theta0) {
    run R = {0};
    rocking_run(&R, b, h, theta0);
    const double alpha = atan(b / h), Rd = hypot(b, h);
    const double ratio = 1 - 1.5 * sin(alpha) * sin(alpha);
    double w = sqrt(2 * G * (cos(alpha - theta0) - cos(alpha)) * 3 / (4 * Rd));
    size_t impacts = 0;
    const nsd_event_log *log = &R.res.contact_log;
    for (size_t i = 0; i < log->n; ++i) {
        if (log->rec[i].kind != NSD_EVENT_IMPACT) continue;
        /* the landing corner approaches at 2 b w (the first from energy,
         * 1e-8; later ones as the last departure, 1e-6 per swing); the
         * other corner leaves at 2 b w' */
        double approach = -log->rec[i].u_before[0];
        double tol = impacts ? 1e-6 : 1e-8;
        ck_assert_msg(fabs(approach - 2 * b * w) < tol * 2 * b * w,
                      "impact %zu: approach %.12g m/s, expected %.12g", impacts, approach,
                      2 * b * w);
        const nsd_event_record *open = NULL;
        for (size_t j = i + 1; j < log->n && log->rec[j].t == log->rec[i].t; ++j)
            if (log->rec[j].kind == NSD_EVENT_OPEN) open = &log->rec[j];
        ck_assert_msg(open != NULL, "impact %zu: the other corner does not lift off", impacts);
        double r = open->u_after[0] / approach;
        ck_assert_msg(fabs(r - ratio) < 1e-8, "impact %zu: ratio %.12g, Housner's %.12g", impacts,
                      r, ratio);
        w = open->u_after[0] / (2 * b);
        impacts++;
    }
    ck_assert_uint_ge(impacts, 3);
    test_unload(&R);
}

START_TEST(test_rocking_block_housner) {
    check_housner(0.1, 0.3, 0.15); /* alpha = 0.322 rad: ratio 0.85 */
    check_housner(0.1, 0.5, 0.1);  /* alpha = 0.197 rad: ratio 0.942 */
}
END_TEST

/* The sphere on the incline with friction mu: acceleration along the
 * slope [m/s^2] and spin rate [rad/s] at t = 1 s, largest |slip| seen. */
static void sphere_run(double mu, double *accel, double *spin, double *max_slip) {
    char set_s[64], set_k[64];
    snprintf(set_s, sizeof set_s, "friction.mu_s=%.17g", mu);
    snprintf(set_k, sizeof set_k, "friction.mu_k=%.17g", mu);
    const char *sets[] = {set_s, set_k};
    run R = {0};
    test_run_file(&R, "mjcf_sphere_incline.toml", sets, 2, NSD_RUN_COMPLETE);
    const double th = NSDYN_PI / 6;
    size_t n = R.res.series.rows - 1;
    double t = at(&R, n, "t");
    *accel = (last(&R, "ball_vx") * cos(th) - last(&R, "ball_vz") * sin(th)) / t;
    *spin = last(&R, "ball_wy") / t;
    *max_slip = 0;
    for (size_t i = 0; i <= n; ++i) {
        double vs = at(&R, i, "ball_vx") * cos(th) - at(&R, i, "ball_vz") * sin(th);
        double slip = vs - 0.1 * at(&R, i, "ball_wy"); /* contact point speed along t1 */
        if (fabs(slip) > *max_slip) *max_slip = fabs(slip);
    }
    test_unload(&R);
}

START_TEST(test_sphere_incline) {
    const double th = NSDYN_PI / 6, mu_star = 2.0 / 7.0 * tan(th);
    double a, w, slip;
    sphere_run(0.3, &a, &w, &slip); /* rolls */
    ck_assert_msg(fabs(a - 5.0 / 7.0 * G * sin(th)) < 1e-8, "rolling a = %.12g", a);
    ck_assert_msg(slip < 1e-9, "rolling, but slip %.3g m/s", slip);
    sphere_run(mu_star * (1 + 1e-3), &a, &w, &slip); /* just sticks */
    ck_assert_msg(fabs(a - 5.0 / 7.0 * G * sin(th)) < 1e-8, "mu* (1 + 1e-3): a = %.12g", a);
    ck_assert_msg(slip < 1e-9, "mu* (1 + 1e-3): slip %.3g m/s", slip);
    double mus[] = {mu_star * (1 - 1e-3), 0.1};
    for (int k = 0; k < 2; ++k) {
        sphere_run(mus[k], &a, &w, &slip); /* slips */
        ck_assert_msg(fabs(a - G * (sin(th) - mus[k] * cos(th))) < 1e-8, "mu %g: a = %.12g", mus[k],
                      a);
        ck_assert_msg(fabs(w - 2.5 * mus[k] * G * cos(th) / 0.1) < 1e-7, "mu %g: w' = %.12g",
                      mus[k], w);
        ck_assert_msg(slip > 1e-4, "mu %g below mu*, but no slip", mus[k]);
    }
}
END_TEST

/* The box on the incline under Moreau time-stepping (h = 1e-3 s). */
static void box_run(double mu, double *x_end, double *max_speed) {
    char toml[1024];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"mjcf\"\nmodel = \"%s/box_incline.xml\"\ncontacts = \"c1, c2, c3, "
             "c4\"\n[contact]\nid = \"newton\"\ne = 0.0\n[friction]\nid = \"coulomb\"\n"
             "mu_s = %.17g\nmu_k = %.17g\n[integrator]\nid = \"moreau\"\nh = 1e-3\n[run]\n"
             "t_end = 1.0\noutput_dt = 1e-2\n",
             MJCF_DIR, mu, mu);
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    *x_end = last(&R, "box_x");
    *max_speed = 0;
    for (size_t i = 0; i < R.res.series.rows; ++i) {
        double speed = sqrt(pow(at(&R, i, "box_vx"), 2) + pow(at(&R, i, "box_vy"), 2) +
                            pow(at(&R, i, "box_vz"), 2));
        if (speed > *max_speed) *max_speed = speed;
    }
    test_unload(&R);
}

START_TEST(test_box_held_on_incline) {
    const double th = NSDYN_PI / 6;
    double x, speed;
    box_run(0.7, &x, &speed);
    ck_assert_msg(speed < 1e-12, "held by mu = 0.7, yet it moves at %.3g m/s", speed);
    ck_assert_msg(fabs(x - 0.025) < 1e-12, "held, yet it crept %.3g m", x - 0.025);
    box_run(0.5, &x, &speed);
    double a = G * (sin(th) - 0.5 * cos(th));
    ck_assert_msg(fabs(speed - a * 1.0) < 1e-9 * a, "mu = 0.5: speed %.12g m/s, expected %.12g",
                  speed, a);
}
END_TEST

/* The same ball through the mjcf system (MJCF free joint, z up) and the
 * hand-written point_mass (x, y with y up), with one contact law and
 * integrator: the trajectories agree. */
static void same_as_point_mass(const char *contact, const char *integrator, double tol_m) {
    char a[1024], b[1024];
    snprintf(a, sizeof a,
             "[system]\nid = \"mjcf\"\nmodel = \"%s/ball.xml\"\ncontacts = \"ball\"\n%s\n%s\n"
             "[run]\nt_end = 1.5\noutput_dt = 1e-3\n",
             MJCF_DIR, contact, integrator);
    snprintf(b, sizeof b,
             "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = 9.81\n%s\n%s\n"
             "[initial]\ny = 1.05\nvx = 0.0\n[run]\nt_end = 1.5\noutput_dt = 1e-3\n",
             contact, integrator);
    run A = {0}, B = {0};
    run_config(&A, a, NSD_RUN_COMPLETE);
    run_config(&B, b, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(A.res.series.rows, B.res.series.rows);
    double worst = 0;
    for (size_t i = 0; i < A.res.series.rows; ++i) {
        double d = fabs(at(&A, i, "ball_z") - at(&B, i, "y"));
        if (d > worst) worst = d;
    }
    ck_assert_msg(worst < tol_m, "%s / %s: mjcf and point_mass differ by %.3g m", contact,
                  integrator, worst);
    test_unload(&A);
    test_unload(&B);
}

/* Every path decides the mjcf contact with nsdyn's laws: compliant
 * (Hunt-Crossley, dopri5), time-stepping (Moreau-Jean) and event-driven
 * (Newton), each the same trajectory as the hand-written system. The
 * adaptive runs take their own steps (13 states against 4), so they differ
 * by the integration error: Hunt-Crossley 3.6e-5, 2.9e-8, 2.5e-10 m at
 * rtol 1e-8, 1e-10, 1e-12 (it converges: no physics difference); 1e-8 m at
 * rtol 1e-12. Moreau takes the same steps: 1e-12 m. */
START_TEST(test_every_path_as_hand_written) {
    const char *tight = "[integrator]\nid = \"dopri5\"\nrtol = 1e-12\natol = 1e-14";
    same_as_point_mass("[contact]\nid = \"hunt_crossley\"\nk = 4.0e6\nc = 3.0e5\nn = 1.5\n"
                       "p = 1.5\nq = 1.0",
                       tight, 1e-8);
    same_as_point_mass("[contact]\nid = \"newton\"\ne = 0.75", tight, 1e-8);
    same_as_point_mass("[contact]\nid = \"newton\"\ne = 0.75",
                       "[integrator]\nid = \"moreau\"\nh = 1e-3", 1e-12);
}
END_TEST

/* Jellett's integral of the tippe top, J = L_G . r_PG (angular momentum
 * about the centre of mass dotted with the vector from the contact point
 * to it), in the body frame: every contact force and impulse acts at P, so
 * its moment about G is normal to r_PG, and for an axisymmetric body
 * L_G . (omega x r_PG') = 0: J is conserved through sliding, sticking and
 * impacts alike. */
static double jellett(const run *R, size_t row) {
    const double I1 = 2.18e-6, I3 = 2.4e-6, rad = 0.02, a = 0.006;
    double qw = at(R, row, "top_qw"), qx = at(R, row, "top_qx"), qy = at(R, row, "top_qy"),
           qz = at(R, row, "top_qz");
    double n = sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
    qw /= n, qx /= n, qy /= n, qz /= n;
    /* the world z axis in body coordinates: the third row of R(q) */
    double zb[3] = {2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)};
    double r[3] = {rad * zb[0], rad * zb[1], rad * zb[2] - a};
    return I1 * at(R, row, "top_wx") * r[0] + I1 * at(R, row, "top_wy") * r[1] +
           I3 * at(R, row, "top_wz") * r[2];
}

/* The shipped tippe top (3-D, 2-D slip, stick-slip and hops): it turns
 * over, its centre of mass rising by 2a, and Jellett's integral holds to
 * the integration error (5.9e-8 relative measured at rtol 1e-9: 1e-6). */
START_TEST(test_tippe_top_jellett) {
    run R = {0};
    test_run_file(&R, "mjcf_tippe_top.toml", NULL, 0, NSD_RUN_COMPLETE);
    size_t n = R.res.series.rows;
    double j0 = jellett(&R, 0), worst = 0;
    for (size_t i = 0; i < n; ++i) worst = fmax(worst, fabs(jellett(&R, i) - j0));
    ck_assert_msg(worst < 1e-6 * fabs(j0), "Jellett's integral drifts by %.3g of %.6g", worst, j0);
    ck_assert_msg(last(&R, "site_stem_z") < 1e-3, "not inverted: stem at %.4g m",
                  last(&R, "site_stem_z"));
    ck_assert_msg(fabs(last(&R, "potential") - 0.015 * G * (0.02 + 0.006)) < 1e-6,
                  "inverted top's potential energy %.6g J", last(&R, "potential"));
    ck_assert_uint_gt(test_count_kind(&R, NSD_EVENT_SLIP), 0);
    test_unload(&R);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mjcf_validation");
    TCase *tc = tcase_create("closed forms");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_ball_drop_restitution);
    tcase_add_test(tc, test_rocking_block_housner);
    tcase_add_test(tc, test_sphere_incline);
    tcase_add_test(tc, test_box_held_on_incline);
    tcase_add_test(tc, test_every_path_as_hand_written);
    tcase_add_test(tc, test_tippe_top_jellett);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
