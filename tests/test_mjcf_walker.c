/* The compass-gait walker from an MJCF file (configs/mjcf_compass_walker.toml,
 * configs/mjcf/compass_walker.xml) against the hand-written walker_impact
 * (Koop & Wu 2013, Appendix B) with the same parameters: nsdyn's rigid
 * contact (rolling by sticking Coulomb friction, plastic Newton heel
 * strikes) and the `arm` rule in place of walker_impact's own rolling
 * constraint, impact map and stepping-stone rule.
 *
 *  - walker_impact's period-1 gait x* (heel-strike section) by nsdyn
 *    periodic, as configs/walker_impact_periodic.toml finds it;
 *  - the MJCF walker started at x* (in MJCF coordinates: the stance foot
 *    on the ramp, rolling) reaches its section ("arm": the swing foot's
 *    contact arms at a lead of alpha0) at a state y_a; Newton shooting on
 *    the MJCF map (section "arm", legs swapped) in the walker's four
 *    coordinates (th_st, th_sw, w_st, w_sw; the hip's z, x', z' follow from
 *    the rolling stance foot, x is not free) from y_a converges to a gait
 *    y* with |y* - y_a| at the shooting tolerance: the same gait;
 *  - its period equals walker_impact's, and the multipliers of the MJCF
 *    map (central differences at h and 2h) equal walker_impact's (the
 *    multipliers do not depend on the section);
 *  - from 8 random post-strike states near the gait, both walk the same
 *    two steps (legs' angles and rates equal at t = 1.1 s to 1e-7);
 *  - on the ramp given as a one-segment terrain profile it walks as on
 *    the plane (1e-9).
 * Tolerances: both shootings converge to 1e-10 (scaled) at rtol 1e-11;
 * states and period to 1e-8 (a few hundred times the integrators'
 * tolerance, through an impact and an arming switch each located to
 * 1e-12 s); the multipliers to 5 times the sum of the two differences'
 * own error estimates (h against 2h), which measure their truncation. */
#define _GNU_SOURCE
#include <complex.h>
#include <math.h>

#include "nsdyn_numeric.h"
#include "periodic.h"
#include "periodic_config.h"
#include "test_util.h"

#define L_LEG 0.4143 /* m, Table 6 */
#define RHO 0.0860   /* m */

static size_t state(const run *R, const char *name) {
    const nsd_model *m = &R->model;
    for (size_t i = 0; i < m->nq; ++i)
        if (!strcmp(m->layout.q[i].name, name)) return i;
    for (size_t j = 0; j < m->nv; ++j)
        if (!strcmp(m->layout.v[j].name, name)) return m->nq + j;
    ck_abort_msg("no state %s", name);
    return 0;
}

static void load(run *R, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, name);
    nsd_diag diag = {0};
    memset(R, 0, sizeof *R);
    R->no_graphs = 1;
    size_t errors = nsd_scenario_load(R, path, NULL, 0, &diag);
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "%s does not load", path);
    R->app.cfg.settings.output_dt = R->app.cfg.settings.t_end - R->app.cfg.settings.t_start;
}

/* The MJCF walker's state from the walker's (th_st, th_sw, w_st, w_sw),
 * leg 1 standing: the foot sphere (radius RHO, centre L_LEG - RHO from the
 * hip) on the ramp, rolling (walker_gait.h: bt = (l - rho) cos th + rho). */
typedef struct mj_walker {
    size_t x, z, th1, th2, vx, vz, w1, w2;
} mj_walker;

static void to_mjcf(const mj_walker *ix, const double r4[4], double *y) {
    double L = L_LEG - RHO, th = r4[0], w = r4[2];
    y[ix->x] = 0.0;
    y[ix->z] = L * cos(th) + RHO;
    y[ix->th1] = th;
    y[ix->th2] = r4[1];
    y[ix->vx] = -(L * cos(th) + RHO) * w;
    y[ix->vz] = -L * sin(th) * w;
    y[ix->w1] = w;
    y[ix->w2] = r4[3];
}

static void from_mjcf(const mj_walker *ix, const double *y, double r4[4]) {
    r4[0] = y[ix->th1];
    r4[1] = y[ix->th2];
    r4[2] = y[ix->w1];
    r4[3] = y[ix->w2];
}

/* F(r4): the MJCF map in the walker's coordinates (legs swapped by the
 * spec); its period into *T. */
static void walker_map(run *R, const nsd_periodic_spec *sp, const mj_walker *ix, const double r4[4],
                       double out[4], double *T) {
    double y[16], y_end[16];
    ck_assert_uint_le(R->model.n, 16);
    memcpy(y, R->model.y0, R->model.n * sizeof *y);
    to_mjcf(ix, r4, y);
    char why[1024];
    int rc = nsd_periodic_map(R, sp, y, y_end, T, why, sizeof why);
    ck_assert_msg(rc == 0, "MJCF walker map: %s", why);
    from_mjcf(ix, y_end, out);
}

/* Central differences of F at r4 with steps h max(|r_i|, 1). */
static void walker_jacobian(run *R, const nsd_periodic_spec *sp, const mj_walker *ix,
                            const double r4[4], double h, double J[16]) {
    for (int j = 0; j < 4; ++j) {
        double a[4], b[4], fa[4], fb[4], T, d = h * fmax(fabs(r4[j]), 1.0);
        memcpy(a, r4, sizeof a);
        memcpy(b, r4, sizeof b);
        a[j] += d;
        b[j] -= d;
        walker_map(R, sp, ix, a, fa, &T);
        walker_map(R, sp, ix, b, fb, &T);
        for (int i = 0; i < 4; ++i) J[i * 4 + j] = (fa[i] - fb[i]) / (2 * d);
    }
}

static void solve4(double A[16], double b[4]) {
    for (int c = 0; c < 4; ++c) {
        int p = c;
        for (int r = c + 1; r < 4; ++r)
            if (fabs(A[r * 4 + c]) > fabs(A[p * 4 + c])) p = r;
        for (int k = 0; k < 4; ++k) {
            double t = A[c * 4 + k];
            A[c * 4 + k] = A[p * 4 + k];
            A[p * 4 + k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < 4; ++r) {
            double f = A[r * 4 + c] / A[c * 4 + c];
            for (int k = c; k < 4; ++k) A[r * 4 + k] -= f * A[c * 4 + k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 3; c >= 0; --c) {
        for (int k = c + 1; k < 4; ++k) b[c] -= A[c * 4 + k] * b[k];
        b[c] /= A[c * 4 + c];
    }
}

/* Eigenvalues of J (4 x 4), by modulus descending. */
static void multipliers(const double J[16], double complex mu[4]) {
    double A[16], wr[4], wi[4], work[16];
    memcpy(A, J, sizeof A);
    ck_assert_int_eq(nsn_eigenvalues(4, A, wr, wi, work), NSN_OK);
    for (int i = 0; i < 4; ++i) mu[i] = wr[i] + I * wi[i];
    for (int i = 0; i < 4; ++i)
        for (int k = i + 1; k < 4; ++k)
            if (cabs(mu[k]) > cabs(mu[i]) + 1e-14 ||
                (fabs(cabs(mu[k]) - cabs(mu[i])) <= 1e-14 && cimag(mu[k]) > cimag(mu[i]))) {
                double complex t = mu[i];
                mu[i] = mu[k];
                mu[k] = t;
            }
}

/* Largest distance from each of a to the nearest of b. */
static double spectrum_distance(const double complex a[4], const double complex b[4]) {
    double worst = 0.0;
    for (int i = 0; i < 4; ++i) {
        double best = HUGE_VAL;
        for (int k = 0; k < 4; ++k) best = fmin(best, cabs(a[i] - b[k]));
        worst = fmax(worst, best);
    }
    return worst;
}

START_TEST(mjcf_walker_is_walker_impact) {
    /* walker_impact's gait (section: heel strike) */
    run W;
    load(&W, "walker_impact_periodic.toml");
    nsd_diag diag = {0};
    nsd_periodic_config pw;
    ck_assert_uint_eq(nsd_periodic_read(&W.app.cfg, &W.model, &pw, &diag), 0);
    nsd_periodic_result rw;
    ck_assert_int_eq(nsd_periodic_result_init(&rw, W.model.n, pw.spec.n_free), 0);
    ck_assert_msg(nsd_periodic_solve(&W, &pw.spec, W.model.y0, &rw, NULL) == 0, "%s", rw.message);
    double xs[4] = {rw.y[state(&W, "theta_st")], rw.y[state(&W, "theta_sw")],
                    rw.y[state(&W, "omega_st")], rw.y[state(&W, "omega_sw")]};
    double complex mu_w[4];
    for (int i = 0; i < 4; ++i) mu_w[i] = rw.mult_re[i] + I * rw.mult_im[i];
    double T_w = rw.period, err_w = rw.mult_error;

    /* the MJCF walker: section "arm", one crossing per step, legs swapped */
    run R;
    load(&R, "mjcf_compass_walker.toml");
    mj_walker ix = {state(&R, "x"),       state(&R, "z"),      state(&R, "th1"),
                    state(&R, "th2"),     state(&R, "x_dot"),  state(&R, "z_dot"),
                    state(&R, "th1_dot"), state(&R, "th2_dot")};
    size_t sw = R.model.layout.n_switches;
    ck_assert_uint_eq(sw, 2);
    ck_assert_str_eq(R.model.layout.switches[0], "arm");
    size_t swap[4] = {ix.th1, ix.th2, ix.w1, ix.w2}, none = 0;
    nsd_periodic_spec sp = {.section = 0,
                            .crossings = 1,
                            .n_free = 1,
                            .free = &none,
                            .n_swap = 2,
                            .swap = swap,
                            .tol = 1e-10,
                            .max_iter = 1,
                            .fd_step = 1e-5};
    /* from walker_impact's post-strike state to the MJCF section */
    double y_a[4], T0;
    walker_map(&R, &sp, &ix, xs, y_a, &T0);
    /* the map just ran leg 1 standing to leg 2's arming... */
    double tmp = y_a[0]; /* ...so swap back: leg 1 still stands there */
    y_a[0] = y_a[1], y_a[1] = tmp, tmp = y_a[2], y_a[2] = y_a[3], y_a[3] = tmp;

    /* Newton on F(r) = r in the walker's coordinates */
    double r[4], f[4], J[16], T = 0, res = HUGE_VAL;
    memcpy(r, y_a, sizeof r);
    for (int it = 0; it < 6 && res > 1e-10; ++it) {
        walker_map(&R, &sp, &ix, r, f, &T);
        res = 0;
        for (int i = 0; i < 4; ++i) res = fmax(res, fabs(f[i] - r[i]) / fmax(fabs(r[i]), 1.0));
        if (res <= 1e-10) break;
        walker_jacobian(&R, &sp, &ix, r, 1e-6, J);
        double b[4];
        for (int i = 0; i < 4; ++i) {
            b[i] = r[i] - f[i];
            J[i * 4 + i] -= 1.0;
        }
        solve4(J, b);
        for (int i = 0; i < 4; ++i) r[i] += b[i];
    }
    ck_assert_msg(res <= 1e-10, "MJCF walker: Newton residual %g", res);
    for (int i = 0; i < 4; ++i)
        ck_assert_msg(fabs(r[i] - y_a[i]) < 1e-8,
                      "entry %d: MJCF gait %.12g, walker_impact's %.12g", i, r[i], y_a[i]);
    ck_assert_msg(fabs(T - T_w) < 1e-8, "period %.12g s, walker_impact %.12g s", T, T_w);

    /* multipliers at h and 2h, against walker_impact's */
    double J1[16], J2[16];
    double complex mu1[4], mu2[4];
    walker_jacobian(&R, &sp, &ix, r, 1e-5, J1);
    walker_jacobian(&R, &sp, &ix, r, 2e-5, J2);
    multipliers(J1, mu1);
    multipliers(J2, mu2);
    double err_m = spectrum_distance(mu1, mu2), d = spectrum_distance(mu1, mu_w);
    fprintf(stderr,
            "MJCF walker: gait %.10f %.10f %.10f %.10f, period %.10f s (walker_impact %.10f)\n"
            "multipliers MJCF |%.6f| |%.6f| |%.6f| |%.2e|, walker_impact |%.6f| |%.6f| |%.6f| "
            "|%.2e|; distance %.2e, error estimates %.2e (MJCF) %.2e (walker_impact)\n",
            r[0], r[1], r[2], r[3], T, T_w, cabs(mu1[0]), cabs(mu1[1]), cabs(mu1[2]), cabs(mu1[3]),
            cabs(mu_w[0]), cabs(mu_w[1]), cabs(mu_w[2]), cabs(mu_w[3]), d, err_m, err_w);
    ck_assert_msg(d < 5 * (err_m + err_w), "multipliers differ by %g (errors %g, %g)", d, err_m,
                  err_w);
    nsd_periodic_result_free(&rw);
    nsd_periodic_config_free(&pw);
    test_unload(&W);
    test_unload(&R);
}
END_TEST

/* From random post-strike states near the gait (both feet on the ramp,
 * th_sw = -th_st, as a heel strike leaves them), the MJCF walker and
 * walker_impact walk the same two steps: the legs' angles and rates agree
 * at t = 1.1 s (mid-step, after two heel strikes). */
START_TEST(mjcf_walker_follows_walker_impact) {
    unsigned long long seed = 0x2545F4914F6CDD1Dull;
    for (int trial = 0; trial < 8; ++trial) {
        double u[3];
        for (int k = 0; k < 3; ++k) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        double th = 0.2618 + 0.01 * u[0], ws = -1.99 + 0.06 * u[1], ww = -1.34 + 0.1 * u[2];
        double L = L_LEG - RHO;
        char s1[64], s2[64], s3[64], s4[64], s5[64], s6[64], s7[64];
        snprintf(s1, sizeof s1, "system.theta_st0=%.17g", th);
        snprintf(s2, sizeof s2, "system.theta_sw0=%.17g", -th);
        snprintf(s3, sizeof s3, "system.omega_st0=%.17g", ws);
        snprintf(s4, sizeof s4, "system.omega_sw0=%.17g", ww);
        const char *wsets[] = {s1, s2, s3, s4, "run.t_end=1.1", "run.output_dt=1.1"};
        run W = {0};
        test_run_file(&W, "walker_impact_periodic.toml", wsets, 6, NSD_RUN_COMPLETE);
        snprintf(s1, sizeof s1, "initial.th1=%.17g", th);
        snprintf(s2, sizeof s2, "initial.th2=%.17g", -th);
        snprintf(s3, sizeof s3, "initial.th1_dot=%.17g", ws);
        snprintf(s4, sizeof s4, "initial.th2_dot=%.17g", ww);
        snprintf(s5, sizeof s5, "initial.z=%.17g", L * cos(th) + RHO);
        snprintf(s6, sizeof s6, "initial.x_dot=%.17g", -(L * cos(th) + RHO) * ws);
        snprintf(s7, sizeof s7, "initial.z_dot=%.17g", -L * sin(th) * ws);
        const char *msets[] = {s1, s2, s3, s4, s5, s6, s7, "run.t_end=1.1", "run.output_dt=1.1"};
        run R = {0};
        test_run_file(&R, "mjcf_compass_walker.toml", msets, 9, NSD_RUN_COMPLETE);
        ck_assert_uint_eq(test_count_kind(&R, NSD_EVENT_IMPACT), 2);
        static const char *const wn[] = {"theta1", "theta2", "omega1", "omega2"};
        static const char *const mn[] = {"th1", "th2", "th1_dot", "th2_dot"};
        for (int k = 0; k < 4; ++k) {
            double a = last(&W, wn[k]), b = last(&R, mn[k]);
            ck_assert_msg(fabs(a - b) < 1e-7 * (1 + fabs(a)),
                          "trial %d (th %.6f, w %.6f %.6f): %s %.12g, walker_impact %.12g", trial,
                          th, ws, ww, mn[k], b, a);
        }
        test_unload(&W);
        test_unload(&R);
    }
}
END_TEST

/* The same ramp as a one-segment terrain profile instead of the plane
 * (arming rules naming the features, whose candidates are then the
 * segment's): the same two steps to rounding. */
START_TEST(mjcf_walker_on_a_profile_ramp) {
    const char *sets[] = {"run.t_end=1.1", "run.output_dt=1.1"};
    const char *psets[] = {"run.t_end=1.1", "run.output_dt=1.1", "system.profile_x=[-1.0, 3.0]",
                           "system.profile_z=[0.03579452514620942, -0.10738357543862825]"};
    run A = {0}, B = {0};
    test_run_file(&A, "mjcf_compass_walker.toml", sets, 2, NSD_RUN_COMPLETE);
    test_run_file(&B, "mjcf_compass_walker.toml", psets, 4, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(test_count_kind(&B, NSD_EVENT_IMPACT), 2);
    static const char *const mn[] = {"x", "z", "th1", "th2", "th1_dot", "th2_dot"};
    for (int k = 0; k < 6; ++k)
        ck_assert_msg(fabs(last(&A, mn[k]) - last(&B, mn[k])) < 1e-9,
                      "%s: plane %.15g, profile %.15g", mn[k], last(&A, mn[k]), last(&B, mn[k]));
    test_unload(&A);
    test_unload(&B);
}
END_TEST

int main(void) {
    Suite *s = suite_create("mjcf_walker");
    TCase *tc = tcase_create("walker");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mjcf_walker_is_walker_impact);
    tcase_add_test(tc, mjcf_walker_follows_walker_impact);
    tcase_add_test(tc, mjcf_walker_on_a_profile_ramp);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
