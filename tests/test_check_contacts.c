/* nsd_model_check_contacts (core/src/model/contacts.c) tests the sum of
 * every checked value once per evaluation and searches entry by entry only
 * when that sum is not finite (issue 25). Randomized against the per-entry
 * rule it replaced: the same verdict and the same contact named, for finite
 * values large enough that their sum overflows (no false alarm), for one
 * NaN, +inf or -inf anywhere in an active contact's gap, velocity, load,
 * Jacobian or drift (always caught, the right contact named), for +inf and
 * -inf together (whose sum is NaN, not a finite cancel), and for non-finite
 * values in inactive contacts or where no Jacobian was asked (ignored, as
 * before). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

enum { NC = 4, NV = 6 };

typedef struct fixture {
    nsd_model m;
    nsdyn_system sys;
    nsdyn_contact_decl decl[NC];
    nsdyn_contact_eval ce[NC];
    double W[NC][3 * NV];
    double *jac[NC];
    nsd_data d;
} fixture;

static void fixture_init(fixture *F) {
    static const char *names[NC] = {"c0", "c1", "c2", "c3"};
    memset(F, 0, sizeof *F);
    F->sys.info.id = "fixture";
    for (int c = 0; c < NC; ++c) F->decl[c] = (nsdyn_contact_decl){names[c], 1, 2};
    F->m.sys = &F->sys;
    F->m.layout.n_contacts = NC;
    F->m.layout.contacts = F->decl;
    F->m.nc = NC;
    F->m.nv = NV;
    F->d.ce = F->ce;
    F->d.jac = F->jac;
}

static double uniform(void) { return rand() / (RAND_MAX + 1.0); }

/* A finite value of random sign and magnitude between 1e-3 and 1e307 (the
 * large ones make the sum of a contact's 3 nv + 8 values overflow). */
static double finite_value(int huge) {
    double mag = huge ? ldexp(1.0, 1000 + rand() % 20) : exp(14.0 * uniform() - 7.0);
    return uniform() < 0.5 ? -mag : mag;
}

static void fill(fixture *F, int huge) {
    for (int c = 0; c < NC; ++c) {
        nsdyn_contact_eval *e = &F->ce[c];
        e->active = uniform() < 0.8;
        e->gap = finite_value(huge);
        e->normal_load = finite_value(huge);
        for (int k = 0; k < 3; ++k) {
            e->u[k] = finite_value(huge);
            e->drift[k] = finite_value(huge);
        }
        for (int k = 0; k < 3 * NV; ++k) F->W[c][k] = finite_value(huge);
        F->jac[c] = uniform() < 0.7 ? F->W[c] : NULL;
    }
}

/* The rule before issue 25: the first active contact with a non-finite
 * gap, u, load, or (where a Jacobian is asked) Jacobian or drift entry. */
static int first_bad(const fixture *F) {
    for (int c = 0; c < NC; ++c) {
        const nsdyn_contact_eval *e = &F->ce[c];
        if (!e->active) continue;
        int ok = isfinite(e->gap) && isfinite(e->normal_load);
        for (int k = 0; k < 3; ++k) ok = ok && isfinite(e->u[k]);
        for (int k = 0; F->jac[c] && k < 3 * NV; ++k) ok = ok && isfinite(F->jac[c][k]);
        for (int k = 0; F->jac[c] && k < 3; ++k) ok = ok && isfinite(e->drift[k]);
        if (!ok) return c;
    }
    return -1;
}

/* A pointer to entry k of contact c's checked (or unchecked) values. */
static double *entry(fixture *F, int c, int k) {
    nsdyn_contact_eval *e = &F->ce[c];
    if (k == 0) return &e->gap;
    if (k == 1) return &e->normal_load;
    if (k < 5) return &e->u[k - 2];
    if (k < 8) return &e->drift[k - 5];
    return &F->W[c][k - 8];
}

static void expect_same_verdict(fixture *F, const char *what) {
    int bad = first_bad(F);
    F->d.failure[0] = '\0';
    nsdyn_status st = nsd_model_check_contacts(&F->m, &F->d, 0.25);
    if (bad < 0) {
        ck_assert_msg(st == NSDYN_OK, "%s: false alarm: %s", what, F->d.failure);
        return;
    }
    ck_assert_msg(st == NSDYN_ERROR, "%s: contact c%d not finite, not caught", what, bad);
    char want[32];
    snprintf(want, sizeof want, "at contact 'c%d'", bad);
    ck_assert_msg(strstr(F->d.failure, want) != NULL, "%s: want %s in: %s", what, want,
                  F->d.failure);
    ck_assert(strstr(F->d.failure, "non-finite gap, velocity, load or Jacobian") != NULL);
}

START_TEST(finite_values_pass_even_where_their_sum_overflows) {
    fixture F;
    fixture_init(&F);
    srand(25);
    for (int trial = 0; trial < 2000; ++trial) {
        fill(&F, trial % 2);
        expect_same_verdict(&F, trial % 2 ? "huge finite values" : "finite values");
    }
}
END_TEST

START_TEST(one_non_finite_entry_is_caught_and_named) {
    const double bad_values[3] = {NAN, INFINITY, -INFINITY};
    fixture F;
    fixture_init(&F);
    srand(2501);
    for (int trial = 0; trial < 6000; ++trial) {
        fill(&F, trial % 3 == 0);
        int c = rand() % NC, k = rand() % (8 + 3 * NV);
        *entry(&F, c, k) = bad_values[trial % 3];
        if (trial % 5 == 0) /* a second one elsewhere: the first is named */
            *entry(&F, rand() % NC, rand() % (8 + 3 * NV)) = bad_values[(trial + 1) % 3];
        expect_same_verdict(&F, "one non-finite entry");
    }
}
END_TEST

START_TEST(plus_and_minus_inf_do_not_cancel) {
    fixture F;
    fixture_init(&F);
    srand(7);
    fill(&F, 0);
    for (int c = 0; c < NC; ++c) {
        F.ce[c].active = 1;
        F.jac[c] = F.W[c];
    }
    F.ce[2].gap = INFINITY;
    F.W[2][5] = -INFINITY;
    expect_same_verdict(&F, "+inf and -inf");
    ck_assert(first_bad(&F) == 2);
}
END_TEST

int main(void) {
    Suite *s = suite_create("check_contacts");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, finite_values_pass_even_where_their_sum_overflows);
    tcase_add_test(tc, one_non_finite_entry_is_caught_and_named);
    tcase_add_test(tc, plus_and_minus_inf_do_not_cancel);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
