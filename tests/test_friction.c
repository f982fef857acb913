/* Coulomb friction laws against their closed forms (plugins/friction/coulomb.c):
 * slip force mu_k N opposite to slip in 1-D and 2-D, the friction disc and
 * its projection, and the three regularizations at points where their
 * values are known exactly. */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

static nsd_registry reg;
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

static void *make(const char *id, const nsdyn_friction_law **law, double mu_s, double mu_k,
                  double eps, int shape, char *err) {
    const nsd_plugin *p = nsd_registry_find(&reg, id);
    ck_assert_ptr_nonnull(p);
    *law = (const nsdyn_friction_law *)p->info;
    nsdyn_value v[4] = {{mu_s, NULL, 0}, {mu_k, NULL, 0}, {eps, NULL, 0}, {shape, NULL, 0}};
    return nsd_plugin_create(&(*law)->info, v, &host, err, 256);
}

static void force2(const nsdyn_friction_law *law, void *inst, double u1, double u2, double N,
                   double *F) {
    nsdyn_friction_input in = {2, {u1, u2}, N, NULL};
    ck_assert_int_eq(law->force(inst, &in, F, NULL), NSDYN_OK);
}

START_TEST(set_valued_slip_force) {
    const nsdyn_friction_law *law;
    char err[256];
    void *c = make("coulomb", &law, 0.6, 0.4, 0, 0, err);
    ck_assert_ptr_nonnull(c);
    double F[2];
    /* 2-D: |F| = mu_k N along -u/|u|, for any slip speed. */
    force2(law, c, 3.0, -4.0, 50.0, F);
    ck_assert_double_eq_tol(F[0], -0.4 * 50.0 * 3.0 / 5.0, 1e-12);
    ck_assert_double_eq_tol(F[1], -0.4 * 50.0 * -4.0 / 5.0, 1e-12);
    force2(law, c, 1e-12, 0.0, 50.0, F);
    ck_assert_double_eq_tol(F[0], -20.0, 1e-12);
    /* 1-D. */
    nsdyn_friction_input in = {1, {-0.3, 0}, 10.0, NULL};
    ck_assert_int_eq(law->force(c, &in, F, NULL), NSDYN_OK);
    ck_assert_double_eq_tol(F[0], 4.0, 1e-12);
    /* Exact stick: the force is set-valued; the law returns zero and leaves
     * it to the host's stick constraint. */
    force2(law, c, 0.0, 0.0, 50.0, F);
    ck_assert_double_eq(F[0], 0.0);
    ck_assert_double_eq(F[1], 0.0);
    double Fs, Fk;
    law->bounds(c, 50.0, &Fs, &Fk);
    ck_assert_double_eq_tol(Fs, 30.0, 1e-12);
    ck_assert_double_eq_tol(Fk, 20.0, 1e-12);
    law->info.destroy(c);
}
END_TEST

/* Regularized law at |u| = eps: sqrt gives 1/sqrt(2), tanh gives tanh(1),
 * linear gives exactly 1 (of mu_k N); far from zero all approach mu_k N. */
START_TEST(regularizations_closed_forms) {
    const nsdyn_friction_law *law;
    char err[256];
    const double expect_at_eps[3] = {1.0 / sqrt(2.0), tanh(1.0), 1.0};
    for (int shape = 0; shape < 3; ++shape) {
        void *c = make("coulomb_regularized", &law, 0.5, 0.5, 1e-3, shape, err);
        ck_assert_ptr_nonnull(c);
        double F[2];
        /* Slip of speed eps at 30 degrees. */
        double u1 = 1e-3 * cos(M_PI / 6), u2 = 1e-3 * sin(M_PI / 6);
        force2(law, c, u1, u2, 40.0, F);
        double mag = hypot(F[0], F[1]);
        ck_assert_double_eq_tol(mag, 20.0 * expect_at_eps[shape], 1e-12);
        ck_assert_double_eq_tol(F[0] * u2 - F[1] * u1, 0.0, 1e-15); /* parallel to slip */
        ck_assert_double_lt(F[0] * u1 + F[1] * u2, 0.0);            /* opposing it */
        /* Far from zero (|u| = 1e3 eps): within 1e-6 of mu_k N for sqrt
         * (1 - 1/sqrt(1 + 1e-6) ~ 5e-7), exact for tanh and linear. */
        force2(law, c, 1.0, 0.0, 40.0, F);
        ck_assert_double_eq_tol(-F[0], 20.0, 20.0 * 1e-6);
        /* Zero slip: zero force (single-valued, continuous). */
        force2(law, c, 0.0, 0.0, 40.0, F);
        ck_assert_double_eq(F[0], 0.0);
        law->info.destroy(c);
    }
}
END_TEST

START_TEST(kinetic_above_static_is_refused) {
    const nsdyn_friction_law *law;
    char err[256] = "";
    ck_assert_ptr_null(make("coulomb", &law, 0.3, 0.4, 0, 0, err));
    ck_assert_str_eq(err, "mu_k = 0.4 exceeds mu_s = 0.3: kinetic friction cannot exceed static");
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    Suite *s = suite_create("friction");
    TCase *tc = tcase_create("coulomb");
    tcase_add_test(tc, set_valued_slip_force);
    tcase_add_test(tc, regularizations_closed_forms);
    tcase_add_test(tc, kinetic_above_static_is_refused);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    nsd_registry_close(&reg);
    return failed;
}
