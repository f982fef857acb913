/* The impact walker (plugins/systems/walker_impact.c, Koop & Wu 2013,
 * Appendix B), against first principles written out here, not the
 * plugin's code:
 *  - the heel strike conserves the whole walker's angular momentum about
 *    the new contact point and the old stance leg's about the hip, and
 *    never raises the kinetic energy: randomized walkers and pre-impact
 *    states, the momenta computed from the bodies' positions and
 *    velocities (hip velocity by differentiating the rolling hip position
 *    numerically);
 *  - the swing phase conserves the mechanical energy (the equations are
 *    Lagrange's for the energy the plugin reports);
 *  - the L#4 gait found by nsdyn periodic repeats under plain simulation
 *    and is stable. */
#define _GNU_SOURCE
#include <math.h>

#include "periodic_config.h"
#include "test_util.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct walker_par {
    double l, rho, delta, m, M, b, rg;
} walker_par;

/* Hip position with the foot of a leg at angle th rolling on y = 0; the
 * arc centre sits at (x0 - rho th, rho). */
static void hip_at(const walker_par *p, double x0, double th, double *x, double *y) {
    double cx = x0 - p->rho * th, cy = p->rho;
    *x = cx - p->l * sin(th) + p->rho * sin(th - p->delta);
    *y = cy + p->l * cos(th) - p->rho * cos(th - p->delta);
}

/* Lowest point of the foot of a leg at angle th, hip at (hx, hy). */
static void foot_point(const walker_par *p, double hx, double hy, double th, double *x, double *y) {
    *x = hx + p->l * sin(th) - p->rho * sin(th - p->delta);
    *y = hy - p->l * cos(th) + p->rho * cos(th - p->delta) - p->rho;
}

typedef struct bodies {
    double hx, hy, hvx, hvy; /* hip */
    double th[2], om[2];     /* legs (0: old stance, 1: old swing) */
} bodies;

/* The bodies' state with leg `s` standing (rolling) at angle th[s]: the
 * hip's velocity by central differences of its rolling position. */
static bodies state_of(const walker_par *p, int s, const double th[2], const double om[2]) {
    bodies B = {.th = {th[0], th[1]}, .om = {om[0], om[1]}};
    double h = 1e-6, xp, yp, xm, ym;
    hip_at(p, 0.0, th[s], &B.hx, &B.hy);
    hip_at(p, 0.0, th[s] + h, &xp, &yp);
    hip_at(p, 0.0, th[s] - h, &xm, &ym);
    B.hvx = (xp - xm) / (2 * h) * om[s];
    B.hvy = (yp - ym) / (2 * h) * om[s];
    return B;
}

/* Angular momentum of leg i about (px, py), with the hip at B's. The leg's
 * centre is at hip + b (sin th, -cos th); it turns at th' (counterclockwise
 * when th grows: the foot swings forward, +x). */
static double leg_momentum(const walker_par *p, const bodies *B, int i, double px, double py) {
    double s = sin(B->th[i]), c = cos(B->th[i]);
    double x = B->hx + p->b * s - px, y = B->hy - p->b * c - py;
    double vx = B->hvx + p->b * c * B->om[i], vy = B->hvy + p->b * s * B->om[i];
    return p->m * (x * vy - y * vx) + p->m * p->rg * p->rg * B->om[i];
}

static double walker_momentum(const walker_par *p, const bodies *B, double px, double py) {
    double hip = p->M * ((B->hx - px) * B->hvy - (B->hy - py) * B->hvx);
    return hip + leg_momentum(p, B, 0, px, py) + leg_momentum(p, B, 1, px, py);
}

static double kinetic(const walker_par *p, const bodies *B) {
    double T = 0.5 * p->M * (B->hvx * B->hvx + B->hvy * B->hvy);
    for (int i = 0; i < 2; ++i) {
        double vx = B->hvx + p->b * cos(B->th[i]) * B->om[i];
        double vy = B->hvy + p->b * sin(B->th[i]) * B->om[i];
        T += 0.5 * p->m * (vx * vx + vy * vy) + 0.5 * p->m * p->rg * p->rg * B->om[i] * B->om[i];
    }
    return T;
}

/* The swing angle at which the swing foot touches the ramp, leading. */
static double touchdown(const walker_par *p, double th_st) {
    double hx, hy, x, y, lo = 0.0, hi = 1.2;
    hip_at(p, 0.0, th_st, &hx, &hy);
    for (int k = 0; k < 200; ++k) {
        double mid = 0.5 * (lo + hi);
        foot_point(p, hx, hy, mid, &x, &y);
        if (y > 0) /* above the ramp: the foot rises as the leg swings forward */
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

START_TEST(heel_strike_conserves_momenta) {
    for (int trial = 0; trial < 200; ++trial) {
        walker_par p = {uniform(0.3, 1.0),
                        0.0,
                        uniform(-5.0, 5.0) * M_PI / 180.0,
                        uniform(1.0, 8.0),
                        uniform(0.0, 3.0),
                        0.0,
                        uniform(0.0, 0.15)};
        p.rho = uniform(0.0, 0.4) * p.l;
        p.b = uniform(0.1, 0.9) * p.l;
        char toml[1024];
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"walker_impact\"\nl = %.17g\nrho = %.17g\ndelta = %.17g\n"
                 "m = %.17g\nM = %.17g\nb = %.17g\nr_g = %.17g\nalpha0 = 5.0\n[integrator]\n"
                 "id = \"dopri5\"\n[run]\nt_end = 1.0\n",
                 p.l, p.rho, p.delta * 180.0 / M_PI, p.m, p.M, p.b, p.rg);
        run R;
        test_load(toml, &R);
        nsd_model *m = &R.model;
        double th[2], om[2];
        th[0] = uniform(-0.45, -0.12);
        th[1] = touchdown(&p, th[0]);
        om[0] = uniform(-3.0, -0.5);
        om[1] = uniform(-3.0, 3.0);
        bodies pre = state_of(&p, 0, th, om);
        double fx, fy; /* the new contact point: the swing foot's lowest point */
        foot_point(&p, pre.hx, pre.hy, th[1], &fx, &fy);
        ck_assert_double_le(fabs(fy), 1e-12);
        double q[3] = {th[0], th[1], 0.0}, v[2] = {om[0], om[1]};
        ck_assert_int_eq(m->sys->on_switch(R.data->sys_inst, 0, 0.0, q, v), NSDYN_OK);
        /* positions swap (B12): the new stance is the old swing leg */
        ck_assert_double_eq(q[0], th[1]);
        ck_assert_double_eq(q[1], th[0]);
        double th2[2] = {q[1], q[0]}, om2[2] = {v[1], v[0]}; /* by leg */
        bodies post = state_of(&p, 1, th2, om2);
        /* the hip does not jump: its height from either foot agrees (its
         * x from the new foot's arc is the same point; state_of places
         * that arc's centre at x = 0) */
        ck_assert_double_le(fabs(post.hy - pre.hy), 1e-12);
        post.hx = pre.hx;
        double Hpre = walker_momentum(&p, &pre, fx, fy), Hpost = walker_momentum(&p, &post, fx, fy);
        double Lpre = leg_momentum(&p, &pre, 0, pre.hx, pre.hy);
        double Lpost = leg_momentum(&p, &post, 0, post.hx, post.hy);
        double scale = (p.M + 2 * p.m) * p.l * p.l * (fabs(om[0]) + fabs(om[1]));
        /* the hip velocity's central difference is good to ~1e-10 */
        ck_assert_msg(fabs(Hpre - Hpost) < 1e-8 * scale, "trial %d: H %.12g -> %.12g", trial, Hpre,
                      Hpost);
        ck_assert_msg(fabs(Lpre - Lpost) < 1e-8 * scale, "trial %d: L %.12g -> %.12g", trial, Lpre,
                      Lpost);
        double Tpre = kinetic(&p, &pre), Tpost = kinetic(&p, &post);
        ck_assert_msg(Tpost <= Tpre * (1 + 1e-9), "trial %d: kinetic energy %.12g -> %.12g", trial,
                      Tpre, Tpost);
        /* the new stance foot does not move (it rolls) */
        double x1, y1;
        foot_point(&p, post.hx + 1e-7 * post.hvx, post.hy + 1e-7 * post.hvy, th2[1] + 1e-7 * om2[1],
                   &x1, &y1);
        ck_assert_double_le(fabs(y1 - fy), 1e-12 + 1e-9 * fabs(om2[1]));
        test_unload(&R);
    }
}
END_TEST

/* Swing only (alpha0 too large for a strike): energy constant. */
START_TEST(swing_conserves_energy) {
    run R;
    test_load("[system]\nid = \"walker_impact\"\nalpha0 = 80.0\ntheta_st0 = 0.1\n"
              "theta_sw0 = -0.3\nomega_st0 = -0.2\nomega_sw0 = 1.0\n[integrator]\n"
              "id = \"dopri5\"\nrtol = 1e-11\natol = 1e-12\n[run]\nt_end = 0.6\n"
              "output_dt = 0.01\n",
              &R);
    test_run(&R);
    ck_assert_msg(R.res.outcome != NSD_RUN_FAILED, "%s", R.res.message);
    ck_assert_uint_gt(R.res.series.rows, 10);
    int e = nsd_model_channel(&R.model, "energy");
    ck_assert_int_ge(e, 0);
    const nsd_series *s = &R.res.series;
    double E0 = nsd_series_at(s, 0, (size_t)e), worst = 0.0;
    for (size_t r = 0; r < s->rows; ++r)
        worst = fmax(worst, fabs(nsd_series_at(s, r, (size_t)e) - E0));
    ck_assert_msg(worst < 1e-8 * fabs(E0), "energy drifts by %g J of %g J", worst, E0);
    test_unload(&R);
}
END_TEST

START_TEST(gait_l4_repeats) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/walker_impact_periodic.toml", NSDYN_TEST_SOURCE_DIR);
    run R;
    nsd_diag diag = {0};
    R.no_graphs = 1;
    ck_assert_uint_eq(nsd_scenario_load(&R, path, NULL, 0, &diag), 0);
    nsd_periodic_config pc;
    ck_assert_uint_eq(nsd_periodic_read(&R.app.cfg, &R.model, &pc, &diag), 0);
    nsd_diag_free(&diag);
    R.app.cfg.settings.output_dt = R.app.cfg.settings.t_end - R.app.cfg.settings.t_start;
    nsd_periodic_result r;
    ck_assert_int_eq(nsd_periodic_result_init(&r, R.model.n, pc.spec.n_free), 0);
    int rc = nsd_periodic_solve(&R, &pc.spec, R.model.y0, &r, NULL);
    ck_assert_msg(rc == 0, "%s", r.message);
    ck_assert_int_eq(r.stable, 1);
    /* delta = 0: the post-impact legs are symmetric about the normal */
    ck_assert_double_eq_tol(r.y[0], -r.y[1], 1e-9);
    char why[1024];
    double dev = nsd_periodic_repeat(&R, &pc.spec, r.y, 5, why, sizeof why);
    ck_assert_msg(dev >= 0 && dev < 1e-8, "repeat %g (%s)", dev, why);
    nsd_periodic_result_free(&r);
    nsd_periodic_config_free(&pc);
    test_unload(&R);
}
END_TEST

/* A walker pushed too hard pitches forward over its stance foot: the stop
 * that ends the run is named for that (it was "backwards", issue 27), and
 * the hip is still moving downhill when it fires. */
START_TEST(forward_fall_named_forward) {
    run R;
    memset(&R, 0, sizeof R);
    const char *sets[] = {"initial.omega_st=-2.5", "run.t_end=5"};
    test_run_file(&R, "walker_impact_periodic.toml", sets, 2, NSD_RUN_STOPPED);
    ck_assert_msg(strstr(R.res.message, "'pitched_forward'"), "%s", R.res.message);
    size_t n = R.res.series.rows;
    ck_assert_uint_ge(n, 3);
    ck_assert_double_gt(at(&R, n - 1, "x_hip"), at(&R, n - 3, "x_hip"));
    ck_assert_double_lt(at(&R, n - 1, "theta_st"), -0.78);
    test_unload(&R);
}
END_TEST

int main(void) {
    Suite *s = suite_create("walker_impact");
    TCase *tc = tcase_create("impact");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, heel_strike_conserves_momenta);
    tcase_add_test(tc, swing_conserves_energy);
    tcase_add_test(tc, gait_l4_repeats);
    tcase_add_test(tc, forward_fall_named_forward);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
