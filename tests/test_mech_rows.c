/* The mechanics view's contact_rows (integrator.h, core/src/model/mechanics.c)
 * and moreau's use of it (issue 14: a step linear in the number of
 * contact candidates).
 *
 *  - contact_rows gives, for any subset of contacts in any order, exactly
 *    the Jacobian and (M^-1 W^T)^T rows that contacts(..., W, MinvWt) gives
 *    for those contacts (bit for bit: the same system calls on the same
 *    forces), over randomized states of sphere_planes on a profile of
 *    several planes;
 *  - moreau with contact_rows takes exactly the steps it takes without
 *    (the old path, rows of every candidate), states and impulses bit for
 *    bit, through impacts, rolling and two-contact kinks;
 *  - the number of dynamics evaluations per step no longer grows with the
 *    number of candidates (counted, not timed: timing is in
 *    bench/bench_moreau_scaling.c), while without contact_rows it does. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>

#include "test_util.h"
#include "param_fields.h"

/* A valley of planes: floor, a V of 30 deg flanks, floor, down 10 deg
 * (kinks of both signs). The sphere drops onto the left flank (impacts,
 * e = 0.3), rolls and slides down, rocks in the V and comes to rest there
 * on both flanks (two closed contacts). */
static const char *const valley_toml =
    "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\n"
    "angles = [0.0, -30.0, 30.0, 0.0, -10.0]\n"
    "lengths = [3.0, 2.0, 2.0, 3.0, 4.0]\nx_start = -3.0\nz_start = 0.0\n"
    "b = 0.5\nm = 2.0\nj_over_m = 0.1\ng = 9.81\nx0 = 1.2\nv0 = 1.0\nrolling0 = false\n"
    "[contact]\nid = \"newton\"\ne = 0.3\n[friction]\nid = \"coulomb\"\nmu_s = 0.4\nmu_k = 0.4\n"
    "[integrator]\nid = \"moreau\"\nh = 1e-3\n"
    "[initial]\nz = 0.2\n"
    "[run]\nt_end = 3.0\noutput_dt = 0.01\nprogress = false\n";

/* N level planes (bench_moreau_scaling's problem), rolling: one closed
 * contact in every step. */
static void level_toml(char *buf, size_t len, int n) {
    size_t k = (size_t)snprintf(
        buf, len, "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [");
    for (int i = 0; i < n; ++i) k += (size_t)snprintf(buf + k, len - k, "%s0.0", i ? ", " : "");
    k += (size_t)snprintf(buf + k, len - k, "]\nlengths = [");
    for (int i = 0; i < n; ++i)
        k += (size_t)snprintf(buf + k, len - k, "%s%.17g", i ? ", " : "", 1000.0 / n);
    snprintf(buf + k, len - k,
             "]\nx_start = -10.0\nz_start = 0.0\nb = 1.0\nm = 1.0\nj_over_m = 0.4\ng = 9.81\n"
             "x0 = 0.0\nv0 = 3.0\nrolling0 = true\n"
             "[contact]\nid = \"newton\"\ne = 0.8\n[friction]\nid = \"coulomb\"\nmu_s = 0.3\n"
             "mu_k = 0.3\n[integrator]\nid = \"moreau\"\nh = 1e-3\n"
             "[run]\nt_end = 1.0\noutput_dt = 0.01\nprogress = false\n");
}

static double rnd(uint64_t *s, double lo, double hi) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*s >> 11) * 0x1.0p-53;
}

START_TEST(rows_match_contacts) {
    run R = {0};
    test_load(valley_toml, &R);
    nsd_model *m = &R.model;
    nsdyn_mechanics mech;
    nsd_model_mechanics(m, R.data, &mech);
    ck_assert_ptr_nonnull(mech.contact_rows);
    const size_t nq = m->nq, nv = m->nv, nc = mech.n_contacts, blk = 3 * nv;
    ck_assert_uint_ge(nc, 4);
    double *gap = calloc(nc, sizeof *gap), *u = calloc(3 * nc, sizeof *u);
    double *W = calloc(nc * blk, sizeof *W), *MW = calloc(nc * blk, sizeof *MW);
    double *Ws = calloc(nc * blk, sizeof *Ws), *MWs = calloc(nc * blk, sizeof *MWs);
    double *gap2 = calloc(nc, sizeof *gap2), *u2 = calloc(3 * nc, sizeof *u2);
    size_t *sel = calloc(nc, sizeof *sel);
    uint64_t seed = 14;
    size_t compared = 0;
    for (int trial = 0; trial < 200; ++trial) {
        double q[8], v[8];
        for (size_t i = 0; i < nq; ++i) q[i] = m->y0[i];
        q[0] = rnd(&seed, -3.0, 12.0); /* anywhere along the valley */
        q[2] = rnd(&seed, -1.0, 1.5);
        for (size_t i = 0; i < nv; ++i) v[i] = rnd(&seed, -3.0, 3.0);
        double t = rnd(&seed, 0.0, 3.0);
        ck_assert_int_le(mech.contacts(mech.ctx, t, q, v, gap, u, W, MW), NSDYN_WARNING);
        /* a random subset in random order, possibly empty */
        size_t n_sel = 0;
        for (size_t c = 0; c < nc; ++c)
            if (rnd(&seed, 0.0, 1.0) < 0.4) sel[n_sel++] = c;
        for (size_t j = n_sel; j > 1; --j) {
            size_t k = (size_t)rnd(&seed, 0.0, (double)j), tmp = sel[j - 1];
            sel[j - 1] = sel[k];
            sel[k] = tmp;
        }
        memset(Ws, 0, nc * blk * sizeof *Ws);
        memset(MWs, 0, nc * blk * sizeof *MWs);
        ck_assert_int_le(mech.contact_rows(mech.ctx, t, q, v, n_sel, sel, Ws, MWs), NSDYN_WARNING);
        for (size_t j = 0; j < n_sel; ++j) {
            ck_assert_msg(memcmp(Ws + j * blk, W + sel[j] * blk, blk * sizeof *W) == 0,
                          "trial %d: W rows of contact %zu differ", trial, sel[j]);
            ck_assert_msg(memcmp(MWs + j * blk, MW + sel[j] * blk, blk * sizeof *MW) == 0,
                          "trial %d: M^-1 W^T rows of contact %zu differ", trial, sel[j]);
            ++compared;
        }
        /* contacts() without rows after contact_rows: the same gaps */
        ck_assert_int_le(mech.contacts(mech.ctx, t, q, v, gap2, u2, NULL, NULL), NSDYN_WARNING);
        ck_assert(memcmp(gap, gap2, nc * sizeof *gap) == 0);
        ck_assert(memcmp(u, u2, 3 * nc * sizeof *u) == 0);
    }
    ck_assert_uint_gt(compared, 200);
    /* a contact beyond the mechanics is an error, not a read past the end */
    sel[0] = nc;
    double q0[8], v0[8] = {0};
    memcpy(q0, m->y0, nq * sizeof *q0);
    ck_assert_int_eq(mech.contact_rows(mech.ctx, 0.0, q0, v0, 1, sel, Ws, MWs), NSDYN_ERROR);
    free(gap), free(u), free(W), free(MW), free(Ws), free(MWs), free(gap2), free(u2), free(sel);
    test_unload(&R);
}
END_TEST

/* The model's system with derivatives() counted (the instance and every
 * other callback are the plugin's). */
static const nsdyn_system *g_real;
static uint64_t g_dynamics_calls;
static nsdyn_status counted_derivatives(void *inst, double t, const double *q, const double *v,
                                        const double *f, double *qdot, double *vdot) {
    ++g_dynamics_calls;
    return g_real->derivatives(inst, t, q, v, f, qdot, vdot);
}

typedef struct stepper {
    const nsdyn_integrator *ig;
    void *inst;
    nsdyn_ode ode;
    nsdyn_mechanics mech;
} stepper;

static void stepper_open(stepper *S, run *R, int with_rows) {
    nsd_model *m = &R->model;
    S->ig = (const nsdyn_integrator *)R->app.cfg.integrator.plugin->info;
    char err[512] = "";
    S->inst = nsd_plugin_create(&S->ig->info, R->app.cfg.integrator.params.values, &R->app.host,
                                err, sizeof err);
    ck_assert_msg(S->inst != NULL, "moreau create: %s", err);
    nsd_model_ode(m, R->data, &S->ode);
    nsd_model_mechanics(m, R->data, &S->mech); /* as core/src/runner/run.c for moreau */
    if (!with_rows) S->mech.contact_rows = NULL;
    S->ode.mech = &S->mech;
    S->ode.n_events = 0;
    ck_assert_int_le(S->ig->setup(S->inst, &S->ode, 0.0, m->y0, 3.0), NSDYN_WARNING);
}

START_TEST(moreau_same_steps_with_rows) {
    run R = {0};
    test_load(valley_toml, &R);
    stepper A, B;
    stepper_open(&A, &R, 1);
    stepper_open(&B, &R, 0);
    const size_t n = R.model.n, nc = A.mech.n_contacts;
    ck_assert_uint_ge(nc, 4);
    size_t closed_steps = 0, two_closed = 0;
    double t = 0.0;
    for (int k = 0; k < 3000 && t < 3.0; ++k) {
        nsdyn_step_report ra = {0}, rb = {0};
        ck_assert_int_le(A.ig->step(A.inst, 3.0, &ra), NSDYN_WARNING);
        ck_assert_int_le(B.ig->step(B.inst, 3.0, &rb), NSDYN_WARNING);
        ck_assert(ra.t == rb.t);
        ck_assert_msg(memcmp(ra.y, rb.y, n * sizeof *ra.y) == 0, "states differ at t = %.9g s",
                      ra.t);
        ck_assert(ra.contact_impulse && rb.contact_impulse);
        ck_assert(memcmp(ra.contact_impulse, rb.contact_impulse, 3 * nc * sizeof(double)) == 0);
        size_t closed = 0;
        for (size_t c = 0; c < nc; ++c) closed += ra.contact_impulse[3 * c] != 0.0;
        closed_steps += closed > 0;
        two_closed += closed > 1;
        t = ra.t;
    }
    ck_assert(t >= 3.0);
    /* the run exercised the rows: most steps rolling, some with two planes */
    ck_assert_uint_gt(closed_steps, 1000);
    ck_assert_uint_gt(two_closed, 0);
    A.ig->info.destroy(A.inst);
    B.ig->info.destroy(B.inst);
    test_unload(&R);
}
END_TEST

/* Dynamics evaluations per step over 200 rolling steps on n level planes. */
static double dynamics_per_step(int n, int with_rows) {
    char toml[4096];
    level_toml(toml, sizeof toml, n);
    run R = {0};
    test_load(toml, &R);
    nsdyn_system counted = *R.model.sys;
    g_real = R.model.sys;
    counted.derivatives = counted_derivatives;
    R.model.sys = &counted;
    stepper S;
    stepper_open(&S, &R, with_rows);
    g_dynamics_calls = 0;
    for (int k = 0; k < 200; ++k) {
        nsdyn_step_report rep = {0};
        ck_assert_int_le(S.ig->step(S.inst, 1.0, &rep), NSDYN_WARNING);
    }
    double per_step = (double)g_dynamics_calls / 200.0;
    S.ig->info.destroy(S.inst);
    R.model.sys = g_real;
    test_unload(&R);
    return per_step;
}

START_TEST(dynamics_per_step_independent_of_candidates) {
    double rows4 = dynamics_per_step(4, 1), rows32 = dynamics_per_step(32, 1);
    double all4 = dynamics_per_step(4, 0), all32 = dynamics_per_step(32, 0);
    printf("dynamics evaluations per rolling step: contact_rows %g (4 planes), %g (32); "
           "every candidate's rows %g (4), %g (32)\n",
           rows4, rows32, all4, all32);
    /* one closed contact: qdot twice, free acceleration, base + 3 probes */
    ck_assert(rows4 == rows32);
    ck_assert(rows4 <= 8.0);
    /* the counter sees the old path grow by 3 probes per candidate */
    ck_assert(all32 - all4 == 3.0 * 28.0);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("mech_rows");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rows_match_contacts);
    tcase_add_test(tc, moreau_same_steps_with_rows);
    tcase_add_test(tc, dynamics_per_step_independent_of_candidates);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
