/* The rimless wheel (plugins/systems/rimless_wheel.c; Barjau & Batlle
 * 2022, ../shared/papers/rimless-wheel-percussion-centre-impact.txt).
 *
 *  (a) the Jacobian rows of (A.2) at theta = 0 for Q_f and Q_b;
 *  (b) kinematics by finite differences at random states: u_n = d gap/dt,
 *      u = W v, u' = W v' + drift;
 *  (c) dynamics: v' = M^-1 (f_gravity + W^T lambda), M = diag(m, m,
 *      lambda m L^2) (A.3);
 *  (d) the Percussion Centre output lies on the lambda-line (3.6) for any
 *      force at Q_f, at (-lambda L / sin beta, 0) without friction, and on
 *      the ground for the critical friction mu_c (4.1);
 *  (e) walking: plastic no-slip impacts (newton e = 0, Coulomb mu = 1)
 *      settle on McGeer's gait; the pre-impact angular speed (from the
 *      impact rows of the event log) matches the closed form
 *      omega* = sqrt(4 g sin b sin g / (L (1+lambda)(1-eta^2))) on a grid
 *      of (N, lambda, gamma);
 *  (f) bad parameters refused with clear messages.
 */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

#define PI 3.14159265358979323846

static nsd_registry reg;
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

typedef struct wheel {
    const nsdyn_system *S;
    void *inst;
    int N;
} wheel;

/* An instance with the defaults overridden by up to 4 (key, value) pairs. */
static void *make(const char *const *keys, const double *vals, int n, char *err, size_t len,
                  const nsdyn_system **S) {
    const nsd_plugin *p = nsd_registry_find(&reg, "rimless_wheel");
    ck_assert_ptr_nonnull(p);
    *S = (const nsdyn_system *)p->info;
    nsdyn_value v[16] = {{0}};
    for (size_t i = 0; i < p->info->n_params; ++i) {
        v[i].num = p->info->params[i].default_value;
        for (int k = 0; k < n; ++k)
            if (!strcmp(p->info->params[i].name, keys[k])) v[i].num = vals[k];
    }
    return nsd_plugin_create(&(*S)->info, v, &host, err, len);
}

static wheel open_wheel(const char *const *keys, const double *vals, int n) {
    wheel w;
    char err[512] = "";
    w.inst = make(keys, vals, n, err, sizeof err, &w.S);
    ck_assert_msg(w.inst != NULL, "create failed: %s", err);
    nsdyn_system_layout lay;
    ck_assert_int_eq(w.S->layout(w.inst, &lay), NSDYN_OK);
    w.N = (int)lay.n_contacts;
    return w;
}

static double uniform(unsigned long long *s, double lo, double hi) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

enum { MAXC = 32 };

static void eval(const wheel *w, const double *q, const double *v, nsdyn_contact_eval *ce,
                 double (*W)[9]) {
    double *rows[MAXC];
    for (int c = 0; c < w->N; ++c) {
        memset(&ce[c], 0, sizeof ce[c]);
        ce[c].active = 1;
        rows[c] = W[c];
    }
    const nsdyn_contact_request req = {sizeof req, 1, rows, NULL};
    ck_assert_int_eq(w->S->contacts(w->inst, 0.0, q, v, &req, ce), NSDYN_OK);
}

START_TEST(paper_rows_a2) {
    const char *k[] = {"L", "spokes"};
    const double val[] = {0.7, 6};
    wheel w = open_wheel(k, val, 2);
    const double b = PI / 6, L = 0.7;
    double q[3] = {0.1, L * cos(b), 0.0}, v[3] = {0.3, -0.2, 1.1}, W[MAXC][9];
    nsdyn_contact_eval ce[MAXC];
    eval(&w, q, v, ce, W);
    /* (A.2): v_nf = v_y - L sin b th', v_nb = v_y + L sin b th',
     * v_t = v_x - L cos b th' (spoke 0 = Q_f, spoke 1 = Q_b at theta = 0). */
    const double Wf[6] = {0, 1, -L * sin(b), 1, 0, -L * cos(b)};
    const double Wb[6] = {0, 1, L * sin(b), 1, 0, -L * cos(b)};
    for (int i = 0; i < 6; ++i) {
        ck_assert_double_eq_tol(W[0][i], Wf[i], 1e-15);
        ck_assert_double_eq_tol(W[1][i], Wb[i], 1e-15);
    }
    ck_assert_double_eq_tol(ce[0].gap, 0.0, 1e-15);
    ck_assert_double_eq_tol(ce[1].gap, 0.0, 1e-15);
    for (int c = 2; c < 6; ++c) ck_assert_double_gt(ce[c].gap, 0.3);
    ck_assert_double_eq_tol(ce[0].u[0], v[1] - L * sin(b) * v[2], 1e-15);
    ck_assert_double_eq_tol(ce[1].u[0], v[1] + L * sin(b) * v[2], 1e-15);
    ck_assert_double_eq_tol(ce[0].u[1], v[0] - L * cos(b) * v[2], 1e-15);
    w.S->info.destroy(w.inst);
}
END_TEST

/* u_n = d gap / dt and u' = W v' + drift by central differences along the
 * motion under random contact forces; u = W v. */
START_TEST(kinematics_by_differences) {
    unsigned long long s = 7;
    for (int trial = 0; trial < 40; ++trial) {
        const char *k[] = {"spokes", "lambda", "gamma", "L"};
        const double val[] = {(double)(2 + trial % 9), uniform(&s, 0.1, 2.0), uniform(&s, -20, 20),
                              uniform(&s, 0.2, 2.0)};
        wheel w = open_wheel(k, val, 4);
        double q[3], v[3], f[3 * MAXC] = {0};
        for (int i = 0; i < 3; ++i) {
            q[i] = uniform(&s, -1, 1);
            v[i] = uniform(&s, -2, 2);
        }
        for (int c = 0; c < 3 * w.N; ++c) f[c] = uniform(&s, -5, 5);
        const double h = 1e-6;
        double a[3], qp[3], qm[3], vp[3], vm[3], W[MAXC][9], Wp[MAXC][9], Wm[MAXC][9];
        ck_assert_int_eq(w.S->derivatives(w.inst, 0, q, v, f, NULL, a), NSDYN_OK);
        for (int i = 0; i < 3; ++i) {
            qp[i] = q[i] + h * v[i] + 0.5 * h * h * a[i];
            qm[i] = q[i] - h * v[i] + 0.5 * h * h * a[i];
            vp[i] = v[i] + h * a[i];
            vm[i] = v[i] - h * a[i];
        }
        nsdyn_contact_eval ce[MAXC], cp[MAXC], cm[MAXC];
        eval(&w, q, v, ce, W);
        eval(&w, qp, vp, cp, Wp);
        eval(&w, qm, vm, cm, Wm);
        for (int c = 0; c < w.N; ++c) {
            ck_assert_double_eq_tol((cp[c].gap - cm[c].gap) / (2 * h), ce[c].u[0], 1e-7);
            for (int r = 0; r < 2; ++r) {
                double Wv = W[c][3 * r] * v[0] + W[c][3 * r + 1] * v[1] + W[c][3 * r + 2] * v[2];
                ck_assert_double_eq_tol(Wv, ce[c].u[r], 1e-13);
                double Wa = W[c][3 * r] * a[0] + W[c][3 * r + 1] * a[1] + W[c][3 * r + 2] * a[2];
                double fd = (cp[c].u[r] - cm[c].u[r]) / (2 * h);
                ck_assert_msg(fabs(fd - Wa - ce[c].drift[r]) < 1e-6 * (1 + fabs(fd)),
                              "contact %d row %d: u' = %.10g by differences, W v' + drift = %.10g",
                              c, r, fd, Wa + ce[c].drift[r]);
            }
        }
        w.S->info.destroy(w.inst);
    }
}
END_TEST

/* v' = M^-1 (f_g + W^T lambda) with M = diag(m, m, lambda m L^2) (A.3). */
START_TEST(dynamics_a1_a3) {
    unsigned long long s = 11;
    for (int trial = 0; trial < 20; ++trial) {
        const double m = uniform(&s, 0.5, 3), L = uniform(&s, 0.3, 2), lam = uniform(&s, 0.1, 1.5),
                     gam = uniform(&s, -10, 10);
        const char *k[] = {"m", "L", "lambda", "gamma"};
        const double val[] = {m, L, lam, gam};
        wheel w = open_wheel(k, val, 4);
        double q[3] = {uniform(&s, -1, 1), uniform(&s, 0, 1), uniform(&s, -3, 3)};
        double v[3] = {0.1, 0.2, 0.3}, f[3 * MAXC] = {0}, a[3], W[MAXC][9];
        for (int c = 0; c < 3 * w.N; ++c) f[c] = c % 3 == 2 ? 0.0 : uniform(&s, -5, 5);
        ck_assert_int_eq(w.S->derivatives(w.inst, 0, q, v, f, NULL, a), NSDYN_OK);
        nsdyn_contact_eval ce[MAXC];
        eval(&w, q, v, ce, W);
        double Q[3] = {m * 9.81 * sin(gam * PI / 180), -m * 9.81 * cos(gam * PI / 180), 0};
        for (int c = 0; c < w.N; ++c)
            for (int j = 0; j < 3; ++j) Q[j] += W[c][j] * f[3 * c] + W[c][3 + j] * f[3 * c + 1];
        ck_assert_double_eq_tol(a[0], Q[0] / m, 1e-12);
        ck_assert_double_eq_tol(a[1], Q[1] / m, 1e-12);
        ck_assert_double_eq_tol(a[2], Q[2] / (lam * m * L * L), 1e-11);
        w.S->info.destroy(w.inst);
    }
}
END_TEST

/* The PC output: on the lambda-line (3.6): (J - G).e_f = -lambda L with e_f
 * the front spoke's unit vector; frictionless at (-lambda L / sin b, 0);
 * at the critical friction mu_c (4.1) on the ground line y = -L cos b. */
START_TEST(percussion_centre_output) {
    const char *names[64];
    nsdyn_system_layout lay;
    unsigned long long s = 3;
    for (int trial = 0; trial < 30; ++trial) {
        const int N = 2 + trial % 7;
        const double lam = uniform(&s, 0.05, 1.5), L = uniform(&s, 0.3, 2);
        const char *k[] = {"spokes", "lambda", "L"};
        const double val[] = {N, lam, L};
        wheel w = open_wheel(k, val, 3);
        ck_assert_int_eq(w.S->layout(w.inst, &lay), NSDYN_OK);
        for (size_t i = 0; i < lay.n_outputs; ++i) names[i] = lay.outputs[i].name;
        int ix = -1, iy = -1, iv = -1;
        for (size_t i = 0; i < lay.n_outputs; ++i) {
            if (!strcmp(names[i], "pc_x")) ix = (int)i;
            if (!strcmp(names[i], "pc_y")) iy = (int)i;
            if (!strcmp(names[i], "pc_valid")) iv = (int)i;
        }
        ck_assert(ix >= 0 && iy >= 0 && iv >= 0);
        const double b = PI / N, sb = sin(b), cb = cos(b);
        double q[3] = {0, L * cb, 0}, v[3] = {0}, f[3 * MAXC] = {0}, out[32];
        const double muc = sb * cb / (lam + cb * cb);
        const double kappas[3] = {0.0, uniform(&s, -2, 2), muc};
        for (int j = 0; j < 3; ++j) {
            f[0] = 2.0;
            f[1] = -kappas[j] * f[0]; /* P_t = -kappa P_nf (A.4) */
            ck_assert_int_eq(w.S->outputs(w.inst, 0, q, v, f, out), NSDYN_OK);
            ck_assert_double_eq(out[iv], 1.0);
            double along = out[ix] * sb - out[iy] * cb; /* (J - G).(sin b, -cos b) */
            ck_assert_double_eq_tol(along, -lam * L, 1e-12 * L);
            if (j == 0) {
                ck_assert_double_eq_tol(out[ix], -lam * L / sb, 1e-12 * L);
                ck_assert_double_eq_tol(out[iy], 0.0, 1e-12 * L);
            }
            if (j == 2) ck_assert_double_eq_tol(out[iy], -L * cb, 1e-12 * L);
        }
        f[0] = f[1] = 0.0; /* no force: no PC */
        ck_assert_int_eq(w.S->outputs(w.inst, 0, q, v, f, out), NSDYN_OK);
        ck_assert_double_eq(out[iv], 0.0);
        w.S->info.destroy(w.inst);
    }
}
END_TEST

/* Walking with plastic impacts: omega- -> omega* (validation-targets.md). */
static void mcgeer_case(int N, double lam, double gamma_deg, double omega0) {
    char toml[1200];
    const double b = PI / N, g = 9.81, L = 1.0, sg = sin(gamma_deg * PI / 180);
    const double eta = (cos(2 * b) + lam) / (1 + lam);
    const double wstar = sqrt(4 * g * sin(b) * sg / (L * (1 + lam) * (1 - eta * eta)));
    /* Steps to converge: the error of omega-^2 shrinks by eta^2 per step;
     * a step lasts less than 2 b / (eta omega*) once settled (the wheel
     * turns 2 b at a speed between omega+ = eta omega* and omega*). Run
     * 40 / |ln eta^2| steps (e^-40), with time to spare for the start. */
    const double steps = 40.0 / fabs(log(eta * eta)) + 2;
    const double t_end = 1.5 * steps * 2 * b / (eta * wstar);
    snprintf(toml, sizeof toml,
             "[system]\nid = \"rimless_wheel\"\nspokes = %d\nlambda = %.17g\ngamma = %.17g\n"
             "omega0 = %.17g\n[contact]\nid = \"newton\"\ne = 0.0\n[friction]\nid = "
             "\"coulomb\"\nmu_s = 2.0\nmu_k = 2.0\n[integrator]\nid = \"dopri5\"\nrtol = "
             "1e-11\natol = 1e-12\n[run]\nt_end = %.17g\noutput_dt = 0.01\n",
             N, lam, gamma_deg, omega0, t_end);
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    double last_w = 0;
    size_t impacts = 0;
    for (size_t i = 0; i < R.res.contact_log.n; ++i) {
        const nsd_event_record *e = &R.res.contact_log.rec[i];
        if (e->kind != NSD_EVENT_IMPACT) continue;
        /* pivoting about Q_b before: u_nf- = -2 L sin b omega- */
        last_w = -e->u_before[0] / (2 * L * sin(b));
        ck_assert_double_eq_tol(e->u_after[0], 0.0, 1e-12); /* plastic */
        ck_assert_double_eq_tol(e->u_after[1], 0.0, 1e-12); /* no slip */
        ++impacts;
    }
    ck_assert_uint_ge(impacts, (size_t)steps);
    /* 1e-7: the gait's residual after e^-40 is nil; what is left is the
     * integrator's error at rtol 1e-11 over a step (event times located to
     * 1e-12 s) */
    ck_assert_msg(fabs(last_w - wstar) < 1e-7 * wstar,
                  "N = %d, lambda = %g, gamma = %g deg: omega- = %.12g, closed form %.12g", N, lam,
                  gamma_deg, last_w, wstar);
    test_unload(&R);
}

START_TEST(mcgeer_gait) {
    mcgeer_case(8, 0.25, 5.739170477266787, 1.0);
    mcgeer_case(6, 0.5, 10.0, 1.5);
    mcgeer_case(10, 1.0, 8.0, 0.8);
    mcgeer_case(12, 0.1, 4.0, 2.0);
}
END_TEST

/* The stance tip slides from the start (mu = 0.35 < the ~0.4 the stance
 * needs) and stops at t = 0.094 s: the event-driven runner must locate
 * the end of the 1-D slip (core/src/contact/modes_phase.c: the friction keeps the
 * phase's direction up to the event; it used to flip at the event itself
 * and the integrator stalled there, 1e6 steps). */
START_TEST(stance_slip_stops) {
    const char *toml =
        "[system]\nid = \"rimless_wheel\"\nspokes = 8\nlambda = 0.05\n"
        "gamma = 5.739170477266787\nomega0 = 1.0\n[contact]\nid = \"pc_impact\"\n"
        "[friction]\nid = \"coulomb\"\nmu_s = 0.35\nmu_k = 0.35\n[integrator]\n"
        "id = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n[run]\nt_end = 0.5\noutput_dt = 0.01\n";
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    ck_assert_uint_ge(test_count_kind(&R, NSD_EVENT_SLIP), 1);
    ck_assert_uint_ge(test_count_kind(&R, NSD_EVENT_STICK), 1);
    ck_assert_uint_lt(R.res.stats.steps, 10000);
    test_unload(&R);
}
END_TEST

/* Standing on two spokes on a slope: the two tangent rows are the same
 * (A.2), so the friction forces are not determined (redundant
 * constraints); the runner takes the least-norm split (core/src/contact/modes_phase.c)
 * instead of failing: equal friction forces, normal forces and their sums
 * balancing gravity (sum N = m g cos gamma, sum F = -m g sin gamma). */
START_TEST(standing_on_two_spokes) {
    const char *toml = "[system]\nid = \"rimless_wheel\"\nspokes = 8\ngamma = 5.0\nomega0 = 0.0\n"
                       "[contact]\nid = \"newton\"\ne = 0.0\n[friction]\nid = \"coulomb\"\n"
                       "mu_s = 1.0\nmu_k = 1.0\n[integrator]\nid = \"dopri5\"\n[run]\n"
                       "t_end = 0.5\noutput_dt = 0.01\n";
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    const double g = 9.81, gam = 5.0 * PI / 180;
    ck_assert_double_eq_tol(last(&R, "thetadot"), 0.0, 1e-12);
    ck_assert_double_eq_tol(last(&R, "spoke0.N") + last(&R, "spoke1.N"), g * cos(gam), 1e-9);
    ck_assert_double_eq_tol(last(&R, "spoke0.Ft1") + last(&R, "spoke1.Ft1"), -g * sin(gam), 1e-9);
    ck_assert_double_eq_tol(last(&R, "spoke0.Ft1"), last(&R, "spoke1.Ft1"), 1e-9);
    test_unload(&R);
}
END_TEST

static void refused(const char *key, double value, const char *key2, double value2,
                    const char *expect) {
    const char *k[] = {key, key2};
    const double val[] = {value, value2};
    char err[512] = "";
    const nsdyn_system *S;
    void *inst = make(k, val, key2 ? 2 : 1, err, sizeof err, &S);
    ck_assert_msg(inst == NULL, "%s = %g accepted", key, value);
    ck_assert_msg(strstr(err, expect) != NULL, "message '%s' lacks '%s'", err, expect);
}

START_TEST(bad_input_refused) {
    refused("beta", 30.0, "spokes", 8, "give beta only for the rocking block");
    /* spokes is an int member (ABI 2.6): the host's create() refuses what an
     * int cannot hold exactly, before the plugin's own range check */
    refused("spokes", 2.5, NULL, 0, "spokes = 2.5 is not a value its int member holds exactly");
    refused("spokes", 40, NULL, 0, "spokes = 40 is not a value its int member holds exactly");
    refused("lambda", 0.0, NULL, 0, "inertia ratio must be positive");
    refused("L", -1.0, NULL, 0, "spoke length");
    refused("beta", 95.0, "spokes", 2, "expected 0 < beta <= 90");
    refused("gamma", 50.0, NULL, 0, "|gamma| < 45");
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("rimless_wheel");
    TCase *tc = tcase_create("rimless_wheel");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, paper_rows_a2);
    tcase_add_test(tc, kinematics_by_differences);
    tcase_add_test(tc, dynamics_a1_a3);
    tcase_add_test(tc, percussion_centre_output);
    tcase_add_test(tc, mcgeer_gait);
    tcase_add_test(tc, stance_slip_stops);
    tcase_add_test(tc, standing_on_two_spokes);
    tcase_add_test(tc, bad_input_refused);
    suite_add_tcase(s, tc);
    int rc = test_run_suite(s);
    nsd_registry_close(&reg);
    return rc;
}
