#define _GNU_SOURCE
/* The friction forces of all contacts in one call (issue 21 item 6,
 * nsdyn/friction_batch.h): the law's forces() gives bit for bit what its
 * force() gives contact by contact, and the right-hand side with the
 * batch gives bit for bit the right-hand side without it.
 *  - law level: coulomb_regularized in its three shapes, 3000 random
 *    calls each of 1 to 6 contacts with mixed slip dimensions, normal
 *    forces positive, zero, negative or NaN, slips from 0 over the
 *    regularization width to 10 m/s;
 *  - model level: nsd_model_rhs() and the contact forces with the batch
 *    and with the per-contact loop (the same model, friction_batch
 *    cleared) at 200 random states of a persistent contact (towed wheel)
 *    and of compliant contacts that open and close (rimless wheel,
 *    bistiffness);
 *  - where the batch must not be used: stick held (run.hold_stick) with
 *    coulomb_regularized, which offers it; and lugre (friction states;
 *    it offers no batch, so this case holds the lookup, not the rule
 *    m->nz == 0 of model_create.c choose_friction_batch). */
#include <math.h>

#include "test_util.h"

static double uniform(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (rand_r(seed) / (RAND_MAX + 1.0));
}

/* A slip component: exactly 0, near the width eps = 1e-3 m/s, or large. */
static double random_slip(unsigned *seed) {
    switch (rand_r(seed) % 4) {
        case 0: return 0.0;
        case 1: return uniform(seed, -3e-3, 3e-3);
        case 2: return uniform(seed, -1e-6, 1e-6);
        default: return uniform(seed, -10.0, 10.0);
    }
}

/* A normal force [N]: mostly loaded, sometimes 0, negative or NaN. */
static double random_load(unsigned *seed) {
    switch (rand_r(seed) % 8) {
        case 0: return 0.0;
        case 1: return -uniform(seed, 0.0, 50.0);
        case 2: return NAN;
        default: return uniform(seed, 0.0, 1000.0);
    }
}

static const char *wheel_toml =
    "[system]\nid = \"towed_wheel\"\nB2 = 0.8\n"
    "[friction]\nid = \"coulomb_regularized\"\nmu_s = 1.0\nmu_k = 0.7\neps = 1e-3\n"
    "shape = \"%s\"\n"
    "[integrator]\nid = \"rk4\"\nh = 1e-4\n[run]\nt_end = 0.01\nprogress = false\n";

static void law_case(const char *shape, unsigned seed) {
    char toml[1024];
    snprintf(toml, sizeof toml, wheel_toml, shape);
    run R;
    memset(&R, 0, sizeof R);
    test_load(toml, &R);
    const nsd_model *m = &R.model;
    ck_assert_msg(m->friction_batch != NULL, "%s: the batch is not used", shape);
    void *inst = R.data->friction_inst;
    for (int trial = 0; trial < 3000; ++trial) {
        enum { MAXC = 6 };
        size_t n = 1 + (size_t)(rand_r(&seed) % MAXC);
        nsdyn_contact_decl decl[MAXC];
        nsdyn_contact_eval ev[MAXC];
        double batch[3 * MAXC], each[3 * MAXC];
        memset(ev, 0, sizeof ev);
        for (size_t c = 0; c < n; ++c) {
            decl[c] = (nsdyn_contact_decl){"c", NSDYN_CONTACT_UNILATERAL,
                                           (uint32_t)(1 + rand_r(&seed) % 2)};
            ev[c].u[1] = random_slip(&seed);
            ev[c].u[2] = random_slip(&seed); /* ignored in 1-D */
            batch[3 * c] = each[3 * c] = random_load(&seed);
            batch[3 * c + 1] = batch[3 * c + 2] = each[3 * c + 1] = each[3 * c + 2] = 0.0;
            if (each[3 * c] <= 0.0) continue; /* as the host: no call unloaded */
            nsdyn_friction_input in = {.dim = decl[c].tangent_dim, .normal_force = each[3 * c]};
            in.slip[0] = ev[c].u[1];
            in.slip[1] = in.dim == 2 ? ev[c].u[2] : 0.0;
            double scratch[8];
            ck_assert_int_le(m->friction->force(inst, &in, each + 3 * c + 1, scratch),
                             NSDYN_WARNING);
        }
        const nsdyn_friction_batch b = {
            .struct_size = sizeof b, .n = n, .contacts = decl, .eval = ev, .force = batch};
        ck_assert_int_le(m->friction_batch->forces(inst, &b), NSDYN_WARNING);
        for (size_t i = 0; i < 3 * n; ++i)
            ck_assert_msg(memcmp(&batch[i], &each[i], sizeof(double)) == 0,
                          "%s, trial %d, entry %zu: batch %.17g, force() %.17g", shape, trial, i,
                          batch[i], each[i]);
    }
    test_unload(&R);
}

START_TEST(law_sqrt) { law_case("sqrt", 11u); }
END_TEST

START_TEST(law_tanh) { law_case("tanh", 12u); }
END_TEST

START_TEST(law_linear) { law_case("linear", 13u); }
END_TEST

/* The right-hand side and the contact forces with and without the batch
 * at random states around y0: bit for bit. */
static void model_case(const char *config, unsigned seed) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, config);
    run R;
    memset(&R, 0, sizeof R);
    nsd_diag diag = {0};
    R.no_graphs = 1;
    size_t errors = nsd_scenario_load(&R, path, NULL, 0, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "%s does not load", config);
    const nsd_model *m = &R.model;
    ck_assert_msg(m->friction_batch != NULL, "%s: the batch is not used", config);
    nsd_model each = *m; /* the same model, friction force() per contact */
    each.friction_batch = NULL;
    size_t n = m->n, nl = 3 * m->nc, loaded = 0, unloaded = 0;
    double *y = calloc(n, sizeof *y), *fa = calloc(n, sizeof *fa), *fb = calloc(n, sizeof *fb);
    double *la = calloc(nl, sizeof *la);
    for (int trial = 0; trial < 200; ++trial) {
        for (size_t i = 0; i < n; ++i)
            y[i] = m->y0[i] + uniform(&seed, -0.05, 0.05) * (1.0 + fabs(m->y0[i]));
        double t = uniform(&seed, 0.0, 1.0);
        nsdyn_status sa = nsd_model_rhs(m, R.data, t, y, fa);
        memcpy(la, R.data->lambda, nl * sizeof *la);
        nsdyn_status sb = nsd_model_rhs(&each, R.data, t, y, fb);
        ck_assert_int_eq(sa, sb);
        ck_assert_msg(memcmp(fa, fb, n * sizeof *fa) == 0, "%s trial %d: derivatives differ",
                      config, trial);
        ck_assert_msg(memcmp(la, R.data->lambda, nl * sizeof *la) == 0,
                      "%s trial %d: contact forces differ", config, trial);
        for (size_t c = 0; c < m->nc; ++c) (la[3 * c] > 0.0 ? ++loaded : ++unloaded);
    }
    ck_assert_uint_gt(loaded, 0); /* the laws were exercised */
    if (strstr(config, "rimless")) ck_assert_uint_gt(unloaded, 0);
    free(y);
    free(fa);
    free(fb);
    free(la);
    test_unload(&R);
}

START_TEST(model_wheel) { model_case("towed_wheel_unstable.toml", 21u); }
END_TEST

START_TEST(model_rimless) { model_case("rimless_section5_stiff.toml", 22u); }
END_TEST

/* Where a contact's law call depends on more than its slip and load, the
 * per-contact force() stays. */
START_TEST(not_used) {
    const char *tomls[] = {
        "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"lugre\"\n"
        "[integrator]\nid = \"rk4\"\nh = 1e-4\n[run]\nt_end = 0.01\nprogress = false\n",
        "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"coulomb_regularized\"\n"
        "[integrator]\nid = \"rk4\"\nh = 1e-4\n[run]\nt_end = 0.01\nprogress = false\n"
        "hold_stick = true\n",
    };
    for (size_t i = 0; i < 2; ++i) {
        run R;
        memset(&R, 0, sizeof R);
        test_load(tomls[i], &R);
        ck_assert_msg(R.model.friction_batch == NULL, "case %zu: the batch is used", i);
        test_unload(&R);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("friction_batch");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, law_sqrt);
    tcase_add_test(tc, law_tanh);
    tcase_add_test(tc, law_linear);
    tcase_add_test(tc, model_wheel);
    tcase_add_test(tc, model_rimless);
    tcase_add_test(tc, not_used);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
