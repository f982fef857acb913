/* The Percussion-Centre impact law (plugins/contact/pc_impact.c; Barjau &
 * Batlle 2022, ../shared/papers/rimless-wheel-percussion-centre-impact.txt).
 * The Delassus operator is built here from (A.2) and (A.3) at the impact
 * configuration (theta = 0: Q_f at +beta, Q_b at -beta), m = L = 1.
 *
 *  (a) single-point closed forms from (A.4): frictionless, sliding all
 *      through (mu < mu_c), sticking from the start (v_t = 0, mu >= mu_c);
 *  (b) the phase sequences the paper predicts for Fig. 23 (beta = 60 deg,
 *      lambda = 0.625): DP from the start below mu_DP ~ 0.29, one
 *      increasing-slide phase up to mu_c = 0.49, slide-stick above, jamb
 *      above mu_i = 3.18; sliding reversal (Fig. 15b); v_t = 0 (Fig. 17);
 *      the Section 5 example (jamb, stick, then DP);
 *  (c) kinetic energy never increases, on a grid of (lambda, beta, mu,
 *      v_t, e), and Coulomb and unilaterality hold at the end;
 *  (d) no DP phase after a first SP phase for beta <= 45 deg (Sec. 5);
 *  (e) bad input: three contacts, both approaching, e out of range.
 */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "rimless_impact_util.h"
#include "test_util.h"
#include "param_fields.h"

#define PI 3.14159265358979323846

static nsd_registry reg;

typedef struct result {
    nsdyn_status st;
    double P[6], up[6], dT;
    char log[256];
} result;

/* One impact with v_nf = vn (< 0), v_nb = 0, v_t = vt at both tips. */
static result pc(double lam, double beta_deg, double mu, double vn, double vt, double e) {
    void *inst;
    const nsdyn_contact_law *C = test_law_of(&reg, "pc_impact", e, &inst);
    double G[36], um[6] = {vn, vt, 0, 0, vt, 0}, mus[2] = {mu, mu}, gaps[2] = {0, 0};
    rimless_delassus(lam, beta_deg * PI / 180, G);
    /* the two rows of v_nb: v_nb = v_nf + 2 s theta', consistent data */
    result r = {0};
    nsdyn_impact_problem p = {.struct_size = sizeof p,
                              .n_contacts = 2,
                              .tangent_dim = 1,
                              .delassus = G,
                              .u_minus = um,
                              .mu_static = mus,
                              .mu_kinetic = mus,
                              .gaps = gaps,
                              .phase_log = r.log,
                              .phase_log_len = sizeof r.log};
    r.st = C->impact(inst, &p, r.P, r.up);
    r.dT = 0;
    for (int i = 0; i < 6; ++i) r.dT += r.P[i] * (um[i] + 0.5 * (r.up[i] - um[i]));
    C->info.destroy(inst);
    return r;
}

static double mu_c(double lam, double b) { return sin(b) * cos(b) / (lam + cos(b) * cos(b)); }

START_TEST(single_point_closed_forms) {
    const double b = 60 * PI / 180, s = sin(b), c = cos(b);
    /* frictionless, lambda > sin^2 b (SP: dv_nb > 0, (A.4b)): P = -v lam / (lam + s^2) */
    result r = pc(1.0, 60, 0.0, -1.0, 0.3, 0.0);
    ck_assert_int_eq(r.st, NSDYN_OK);
    ck_assert_double_eq_tol(r.P[0], 1.0 * 1.0 / (1.0 + s * s), 1e-12);
    ck_assert_double_eq_tol(r.P[1], 0.0, 1e-15);
    ck_assert_double_eq_tol(r.P[3], 0.0, 1e-15);
    ck_assert_double_eq_tol(r.up[0], 0.0, 1e-12);
    ck_assert_str_eq(r.log, "SP slide+; end");
    /* Stronge e frictionless = Newton's: u_nf+ = -e u_nf- */
    r = pc(1.0, 60, 0.0, -1.0, 0.3, 0.6);
    ck_assert_double_eq_tol(r.up[0], 0.6, 1e-12);
    /* forward slide all through, mu < mu_c (A.4a): P_n = -v lam / (lam + s^2 - mu s c) */
    const double lam = 1.0, mu = 0.5 * mu_c(lam, b);
    r = pc(lam, 60, mu, -1.0, 0.2, 0.0);
    ck_assert_double_eq_tol(r.P[0], lam / (lam + s * s - mu * s * c), 1e-12);
    ck_assert_double_eq_tol(r.P[1], -mu * r.P[0], 1e-12);
    /* (A.4c): the slip grows by P_n (s c - mu (lam + c^2)) / lam */
    ck_assert_double_eq_tol(r.up[1], 0.2 + r.P[0] * (s * c - mu * (lam + c * c)) / lam, 1e-12);
    ck_assert_str_eq(r.log, "SP slide+; end");
    /* v_t = 0, mu >= mu_c (Fig. 17): stick, P_t = -mu_c P_n (the PC on the ground line) */
    r = pc(lam, 60, 1.2 * mu_c(lam, b), -1.0, 0.0, 0.0);
    ck_assert_str_eq(r.log, "SP stick; end");
    ck_assert_double_eq_tol(r.P[1], -mu_c(lam, b) * r.P[0], 1e-12);
    ck_assert_double_eq_tol(r.up[1], 0.0, 1e-12);
    /* v_t = 0, mu < mu_c: sliding starts forward (Fig. 17b) */
    r = pc(lam, 60, 0.8 * mu_c(lam, b), -1.0, 0.0, 0.0);
    ck_assert_str_eq(r.log, "SP slide+; end");
    ck_assert_double_gt(r.up[1], 0.0);
}
END_TEST

/* Fig. 23: beta = 60 deg, lambda = 0.625: mu_DP = tan b (1 - lam / sin^2 b)
 * = 0.2887, mu_c = 0.4949, tan b = 1.732, mu_i = (lam + s^2)/(s c) = 3.175. */
START_TEST(fig23_sequences) {
    const double lam = 0.625;
    result r = pc(lam, 60, 0.2, -1.0, 0.5, 0.0);
    ck_assert_msg(!strncmp(r.log, "DP slide+/slide+", 16), "mu = 0.2: %s", r.log);
    r = pc(lam, 60, 0.4, -1.0, 0.5, 0.0);
    ck_assert_msg(!strcmp(r.log, "SP slide+; end"), "mu = 0.4: %s", r.log);
    ck_assert_double_gt(r.up[1], 0.5); /* slip increases */
    r = pc(lam, 60, 1.0, -1.0, 0.5, 0.0);
    ck_assert_double_lt(r.up[1], 0.5);     /* slip decreases */
    r = pc(lam, 60, 1.0, -1.0, 0.05, 0.0); /* small slip: it stops, then stick at PC_c */
    ck_assert_msg(!strcmp(r.log, "SP slide+; SP stick; end"), "mu = 1, slow: %s", r.log);
    r = pc(lam, 60, 2.5, -1.0, 0.5, 0.0); /* tan b < mu < mu_i: no jamb */
    ck_assert_msg(!strncmp(r.log, "SP slide+; SP stick", 19), "mu = 2.5: %s", r.log);
    r = pc(lam, 60, 3.5, -1.0, 0.5, 0.0); /* mu > mu_i: jamb, slip must stop */
    ck_assert_msg(!strncmp(r.log, "SP slide+ jamb; SP stick", 24), "mu = 3.5: %s", r.log);
    r = pc(lam, 60, 3.1, -1.0, 0.5, 0.0); /* just below mu_i: no jamb */
    ck_assert_msg(strstr(r.log, "jamb") == NULL, "mu = 3.1: %s", r.log);
}
END_TEST

START_TEST(reversal_and_section5) {
    /* backward slip, mu < mu_c: slip stops and restarts forward (Fig. 15b);
     * lambda large enough for SP with backward slide: lam > (1 + mu/tan b) s^2 */
    const double b = 45 * PI / 180, lam = 2.0, mu = 0.5 * mu_c(lam, b);
    result r = pc(lam, 45, mu, -1.0, -0.05, 0.0);
    ck_assert_msg(!strcmp(r.log, "SP slide-; SP slide+ reversal; end"), "%s", r.log);
    /* mu > mu_c: backward slip stops and stays stopped (Fig. 16b) */
    r = pc(lam, 45, 2 * mu_c(lam, b), -1.0, -0.05, 0.0);
    ck_assert_msg(!strcmp(r.log, "SP slide-; SP stick; end"), "%s", r.log);
    /* Section 5: lambda = 0.25, beta = 60, mu = 2.9, v_t = 0.5, v_nf = -1:
     * jamb with decreasing slip, then stick with dv_nf > 0, dv_nb < 0, then
     * DP. e = sqrt((1 - mu_n)/(1 + mu_n)) = 0.8165 is the bi-stiffness
     * model's energetic restitution at one contact (mu_n = 0.2). */
    r = pc(0.25, 60, 2.9, -1.0, 0.5, sqrt(0.8 / 1.2));
    ck_assert_int_eq(r.st, NSDYN_OK);
    printf("Section 5 (e = 0.8165): %s; P = (%.6g, %.6g | %.6g, %.6g) N s per (m 1 m/s), u+ = "
           "(%.6g, %.6g | %.6g, %.6g) m/s\n",
           r.log, r.P[0], r.P[1], r.P[3], r.P[4], r.up[0], r.up[1], r.up[3], r.up[4]);
    ck_assert_msg(!strncmp(r.log, "SP slide+ jamb; SP stick; DP stick/", 35), "%s", r.log);
    ck_assert_double_gt(r.P[3], 0.0);            /* Q_b took an impulse */
    ck_assert_double_eq_tol(r.up[3], 0.0, 1e-9); /* and stays closed */
    ck_assert_double_gt(r.up[0], 0.0);           /* Q_f leaves */
}
END_TEST

START_TEST(energy_never_increases) {
    int n = 0, dp = 0, jamb = 0, rev = 0, painleve = 0;
    for (int il = 0; il < 8; ++il)
        for (int ib = 0; ib < 8; ++ib)
            for (int im = 0; im < 8; ++im)
                for (int iv = 0; iv < 5; ++iv)
                    for (int ie = 0; ie < 3; ++ie) {
                        const double lam = 0.05 + 0.25 * il, bd = 10 + 10 * ib,
                                     mu = 0.1 * pow(1.8, im), vt = -1.0 + 0.5 * iv, e = 0.5 * ie;
                        result r = pc(lam, bd, mu, -1.0, vt, e);
                        /* Painleve at Q_b sliding backward: its friction pulls it into
                         * the ground, 1 + (s^2 - mu s c)/lam <= 0 (A.4b with kappa = mu
                         * at Q_b); refused, never computed */
                        const double sb = sin(bd * PI / 180), cb = cos(bd * PI / 180);
                        if (vt < 0 && mu * sb * cb >= lam + sb * sb) {
                            ck_assert_msg(r.st == NSDYN_ERROR && strstr(r.log, "Painleve"),
                                          "lam %g beta %g mu %g: %s", lam, bd, mu, r.log);
                            ++painleve;
                            continue;
                        }
                        ck_assert_msg(r.st == NSDYN_OK, "lam %g beta %g mu %g vt %g e %g: %s", lam,
                                      bd, mu, vt, e, r.log);
                        double T0 = 0.5; /* scale: |P.u-| ~ P_n */
                        ck_assert_msg(r.dT <= 1e-12 * T0, "dT = %g: %s", r.dT, r.log);
                        /* unilateral and Coulomb at the end */
                        ck_assert_double_ge(r.P[0], 0.0);
                        ck_assert_double_ge(r.P[3], 0.0);
                        ck_assert_double_ge(r.up[0], -1e-9);
                        ck_assert_double_ge(r.up[3], -1e-9);
                        ck_assert(fabs(r.P[1]) <= mu * r.P[0] * (1 + 1e-9) + 1e-12);
                        ck_assert(fabs(r.P[4]) <= mu * r.P[3] * (1 + 1e-9) + 1e-12);
                        ++n;
                        dp += strstr(r.log, "DP") != NULL;
                        jamb += strstr(r.log, "jamb") != NULL;
                        rev += strstr(r.log, "reversal") != NULL;
                    }
    printf("energy grid: %d impacts, %d with DP, %d with jamb, %d with reversal, %d Painleve "
           "refused\n",
           n, dp, jamb, rev, painleve);
    ck_assert_int_gt(dp, 0);
    ck_assert_int_gt(jamb, 0);
    ck_assert_int_gt(rev, 0);
}
END_TEST

/* Sec. 5: for beta <= 45 deg a first SP phase is never followed by DP
 * (initial slip forward or zero). Grid over lambda, mu, v_t, e. */
START_TEST(no_dp_after_sp_below_45) {
    int sp_first = 0;
    for (int ib = 0; ib < 6; ++ib)
        for (int il = 0; il < 12; ++il)
            for (int im = 0; im < 10; ++im)
                for (int iv = 0; iv < 4; ++iv)
                    for (int ie = 0; ie < 2; ++ie) {
                        const double bd = 20 + 5 * ib, lam = 0.02 + 0.15 * il,
                                     mu = 0.05 * pow(1.9, im), vt = 0.4 * iv, e = 0.9 * ie;
                        result r = pc(lam, bd, mu, -1.0, vt, e);
                        ck_assert_int_eq(r.st, NSDYN_OK);
                        if (strncmp(r.log, "SP", 2)) continue;
                        ++sp_first;
                        ck_assert_msg(strstr(r.log, "DP") == NULL,
                                      "beta %g lam %g mu %g vt %g e %g: %s", bd, lam, mu, vt, e,
                                      r.log);
                    }
    ck_assert_int_gt(sp_first, 1000);
}
END_TEST

START_TEST(bad_input) {
    void *inst;
    const nsdyn_contact_law *C = test_law_of(&reg, "pc_impact", 0.0, &inst);
    double G[36], um[6] = {-1, 0, 0, -0.5, 0, 0}, mus[2] = {1, 1}, gaps[2] = {0, 0}, P[9], up[9];
    char log[256];
    rimless_delassus(0.5, 1.0, G);
    nsdyn_impact_problem p = {.struct_size = sizeof p,
                              .n_contacts = 2,
                              .tangent_dim = 1,
                              .delassus = G,
                              .u_minus = um,
                              .mu_static = mus,
                              .mu_kinetic = mus,
                              .gaps = gaps,
                              .phase_log = log,
                              .phase_log_len = sizeof log};
    ck_assert_int_eq(C->impact(inst, &p, P, up), NSDYN_ERROR);
    ck_assert_msg(strstr(log, "both contacts approach") != NULL, "%s", log);
    p.n_contacts = 3;
    ck_assert_int_eq(C->impact(inst, &p, P, up), NSDYN_ERROR);
    ck_assert_msg(strstr(log, "at most two contacts") != NULL, "%s", log);
    C->info.destroy(inst);
    const nsd_plugin *pl = nsd_registry_find(&reg, "pc_impact");
    nsdyn_value v[1] = {{.num = 1.5}};
    char err[256] = "";
    ck_assert_ptr_null(nsd_plugin_create(&C->info, v, &test_bare_host, err, sizeof err));
    ck_assert_msg(strstr(err, "outside [0, 1]") != NULL, "%s", err);
    (void)pl;
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("pc_impact");
    TCase *tc = tcase_create("pc_impact");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, single_point_closed_forms);
    tcase_add_test(tc, fig23_sequences);
    tcase_add_test(tc, reversal_and_section5);
    tcase_add_test(tc, energy_never_increases);
    tcase_add_test(tc, no_dp_after_sp_below_45);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    int rc = test_run_suite(s);
    nsd_registry_close(&reg);
    return rc;
}
