#define _GNU_SOURCE
/* ABI 2.5 (docs/plugin-guide.md §14): the host's calls into plugins.
 *
 * 1. The integrators' call protocol is held once, by the host's wrapper
 *    (core/src/plugins/integrator_calls.h), no longer by each integrator:
 *    rk4, dopri5 and bdf, driven through it, refuse every call out of
 *    protocol (before setup(), after reset(), a t_stop not beyond the time
 *    reached, a non-finite time, a missing state) with a reason naming the
 *    plugin and the call, and the plugin is not called (its right-hand
 *    side is never evaluated). Before ABI 2.5 these were ten guards inside
 *    the integrators; the plugins now have none, so without the wrapper
 *    these calls would run on an instance that was never set up.
 *    In protocol, over random horizons, the wrapper passes every step
 *    through unchanged: the same states, bit for bit, as direct calls.
 * 2. A friction law built with ABI 2.4 (bounds() returning void) is still
 *    loaded and called through the host's adapter: the same bounds, bit
 *    for bit, as the same law built for 2.5, at random normal forces, and
 *    `nsdyn check` passes it; likewise a rigid law's void coefficients(). A 2.5 law's failing bounds() (its new
 *    status) reaches the caller with a reason naming the law; in a config
 *    it is an error at the [friction] section, and the law's own message
 *    lands in the run's log. */
#include <dlfcn.h>
#include <math.h>
#include <sys/wait.h>

#include "integrator_calls.h"
#include "plugin_calls.h"
#include "test_util.h"
#include "param_fields.h"

#define MISTAKES NSDYN_TEST_FIXTURE_DIR "/mistakes/"

static const nsdyn_plugin_info *find(void **handle, const char *file, const char *id) {
    *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(*handle, "%s: %s", file, dlerror());
    nsdyn_plugin_entry_fn entry;
    *(void **)&entry = dlsym(*handle, NSDYN_PLUGIN_ENTRY_NAME);
    ck_assert_ptr_nonnull(entry);
    for (uint32_t i = 0;; ++i) {
        const nsdyn_plugin_info *info = entry(NSDYN_ABI_MAJOR, i);
        ck_assert_msg(info, "%s has no '%s'", file, id);
        if (strcmp(info->id, id) == 0) return info;
    }
}

/* y'' = -y, counting its evaluations. */
static nsdyn_status oscillator(void *ctx, double t, const double *y, double *ydot) {
    (void)t;
    ++*(unsigned long *)ctx;
    ydot[0] = y[1];
    ydot[1] = -y[0];
    return NSDYN_OK;
}

static const struct {
    const char *file, *id, *param;
    double value;
} integrators[] = {
    {NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrators_explicit.so", "rk4", "h", 1e-3},
    {NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrators_explicit.so", "dopri5", NULL, 0},
    {NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrator_bdf.so", "bdf", NULL, 0},
};

/* An instance with the declared defaults (and one override). */
static void *create(const nsdyn_integrator *ig, const char *param, double value) {
    nsdyn_value v[32];
    ck_assert_int_le(ig->info.n_params, 32);
    for (size_t k = 0; k < ig->info.n_params; ++k) {
        const nsdyn_param_decl *d = &ig->info.params[k];
        v[k] = (nsdyn_value){.num = d->default_value};
        if (param && strcmp(d->name, param) == 0) v[k].num = value;
    }
    char err[256] = "";
    void *inst = nsd_plugin_create(&ig->info, v, NULL, err, sizeof err);
    ck_assert_msg(inst, "%s: %s", ig->info.id, err);
    return inst;
}

static void expect_refusal(nsd_ig_call *c, nsdyn_status st, const char *why) {
    char want[256];
    snprintf(want, sizeof want, "%s: %s", c->ig->info.id, why);
    ck_assert_int_eq(st, NSDYN_ERROR);
    ck_assert_msg(strcmp(nsd_ig_message(c), want) == 0, "'%s', want '%s'", nsd_ig_message(c), want);
}

START_TEST(the_wrapper_holds_the_protocol) {
    void *h;
    const nsdyn_integrator *ig = (const void *)find(&h, integrators[_i].file, integrators[_i].id);
    unsigned long evals = 0;
    const nsdyn_ode ode = {.struct_size = sizeof ode, .n = 2, .ctx = &evals, .rhs = oscillator};
    const double y0[2] = {1.0, 0.0}, y_bad[2] = {0.0, 1.0};
    double y[2];
    nsdyn_step_report rep = {0};
    nsd_ig_call c;
    nsd_ig_bind(&c, ig, create(ig, integrators[_i].param, integrators[_i].value));
    expect_refusal(&c, nsd_ig_step(&c, 1.0, &rep), "step() called before setup()");
    expect_refusal(&c, nsd_ig_restart(&c, 0.0, y0), "restart() called before setup()");
    expect_refusal(&c, nsd_ig_dense(&c, 0.0, y), "dense() called before setup()");
    expect_refusal(&c, nsd_ig_setup(&c, &ode, 0.0, NULL, 1.0),
                   "setup needs a finite t0, t_end and y0");
    expect_refusal(&c, nsd_ig_setup(&c, &ode, NAN, y0, 1.0),
                   "setup needs a finite t0, t_end and y0");
    expect_refusal(&c, nsd_ig_step(&c, 1.0, &rep), "step() called before setup()");
    ck_assert_int_eq(evals, 0); /* the plugin was never called */

    ck_assert_int_le(nsd_ig_setup(&c, &ode, 0.0, y0, 1.0), NSDYN_WARNING);
    ck_assert_int_le(nsd_ig_step(&c, 1.0, &rep), NSDYN_WARNING);
    unsigned long before = evals;
    ck_assert_int_eq(nsd_ig_step(&c, rep.t, &rep), NSDYN_ERROR);
    ck_assert_msg(strncmp(nsd_ig_message(&c), ig->info.id, strlen(ig->info.id)) == 0 &&
                      strstr(nsd_ig_message(&c), ": t_stop = ") &&
                      strstr(nsd_ig_message(&c), "is not beyond the current time"),
                  "%s", nsd_ig_message(&c));
    expect_refusal(&c, nsd_ig_restart(&c, INFINITY, y_bad), "restart needs a finite t and a state");
    expect_refusal(&c, nsd_ig_step(&c, 1.0, NULL), "step() without a report");
    ck_assert_int_eq(evals, before);
    /* a refusal is not sticky: the next call in protocol runs, and the
     * message is the plugin's again */
    ck_assert_int_le(nsd_ig_step(&c, 1.0, &rep), NSDYN_WARNING);
    ck_assert_int_eq(c.refused, 0);
    nsd_ig_reset(&c);
    expect_refusal(&c, nsd_ig_step(&c, 1.0, &rep), "step() called before setup()");
    ig->info.destroy(c.inst);
    dlclose(h);
}
END_TEST

START_TEST(in_protocol_the_wrapper_changes_nothing) {
    void *h;
    const nsdyn_integrator *ig = (const void *)find(&h, integrators[_i].file, integrators[_i].id);
    unsigned long evals = 0;
    const nsdyn_ode ode = {.struct_size = sizeof ode, .n = 2, .ctx = &evals, .rhs = oscillator};
    unsigned seed = 77u + (unsigned)_i;
    for (int trial = 0; trial < 8; ++trial) {
        double y0[2] = {2.0 * rand_r(&seed) / RAND_MAX - 1.0, 2.0 * rand_r(&seed) / RAND_MAX - 1.0};
        double t_end = 0.05 + 0.5 * rand_r(&seed) / RAND_MAX;
        void *direct = create(ig, integrators[_i].param, integrators[_i].value);
        nsd_ig_call c;
        nsd_ig_bind(&c, ig, create(ig, integrators[_i].param, integrators[_i].value));
        ck_assert_int_le(ig->setup(direct, &ode, 0.0, y0, t_end), NSDYN_WARNING);
        ck_assert_int_le(nsd_ig_setup(&c, &ode, 0.0, y0, t_end), NSDYN_WARNING);
        nsdyn_step_report a = {0}, b = {0};
        while (a.t < t_end) {
            ck_assert_int_le(ig->step(direct, t_end, &a), NSDYN_WARNING);
            ck_assert_int_le(nsd_ig_step(&c, t_end, &b), NSDYN_WARNING);
            ck_assert(a.t == b.t && a.y[0] == b.y[0] && a.y[1] == b.y[1]);
            ck_assert(c.t == b.t);
        }
        ig->info.destroy(direct);
        ig->info.destroy(c.inst);
    }
    dlclose(h);
}
END_TEST

/* ---- 2: the adapter for plugins built before 2.5 ------------------------- */

START_TEST(a_2_4_friction_law_is_called_through_the_adapter) {
    void *h_old, *h_new;
    const nsdyn_friction_law *old =
        (const void *)find(&h_old, MISTAKES "nsdyn_friction_coulomb_abi_2_4.so", "coulomb_abi_2_4");
    const nsdyn_friction_law *now =
        (const void *)find(&h_new, MISTAKES "nsdyn_friction_coulomb_none.so", "coulomb_none");
    ck_assert_int_eq(old->info.abi_minor, 4);
    ck_assert_int_eq(now->info.abi_minor, NSDYN_ABI_MINOR);
    ck_assert(!nsd_plugin_abi_2_5(&old->info) && nsd_plugin_abi_2_5(&now->info));
    char err[128];
    void *io = nsd_plugin_create(&old->info, NULL, NULL, err, sizeof err),
         *in = nsd_plugin_create(&now->info, NULL, NULL, err, sizeof err);
    unsigned seed = 5u;
    for (int k = 0; k < 200; ++k) {
        double N = 1e3 * rand_r(&seed) / RAND_MAX, so = -1, ko = -1, sn = -2, kn = -2;
        char why[256] = "";
        ck_assert_int_eq(nsd_friction_bounds(old, io, N, &so, &ko, why, sizeof why), NSDYN_OK);
        ck_assert_int_eq(nsd_friction_bounds(now, in, N, &sn, &kn, why, sizeof why), NSDYN_OK);
        ck_assert(so == sn && ko == kn && so == 0.3 * N);
    }
    old->info.destroy(io);
    now->info.destroy(in);
    dlclose(h_old);
    dlclose(h_new);
    char cmd[1024], out[1 << 14];
    snprintf(cmd, sizeof cmd, "'%s' check '%s' 2>&1", NSDYN_TEST_BINARY,
             MISTAKES "nsdyn_friction_coulomb_abi_2_4.so");
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "nsdyn check: %s", out);
    ck_assert_msg(strstr(out, "coulomb_abi_2_4") && strstr(out, " ok"), "%s", out);
}
END_TEST

START_TEST(a_2_4_contact_law_is_called_through_the_adapter) {
    void *h_old, *h_new;
    const nsdyn_contact_law *old =
        (const void *)find(&h_old, MISTAKES "nsdyn_contact_newton_abi_2_4.so", "newton_abi_2_4");
    const nsdyn_contact_law *now =
        (const void *)find(&h_new, MISTAKES "nsdyn_contact_newton_none.so", "newton_none");
    ck_assert(!nsd_plugin_abi_2_5(&old->info) && nsd_plugin_abi_2_5(&now->info));
    char err[128], why[256] = "";
    void *io = nsd_plugin_create(&old->info, NULL, NULL, err, sizeof err),
         *in = nsd_plugin_create(&now->info, NULL, NULL, err, sizeof err);
    nsdyn_rigid_coefficients a = {sizeof a, 0, -1.0}, b = {sizeof b, 0, -2.0};
    ck_assert_int_eq(nsd_contact_coefficients(old, io, &a, why, sizeof why), NSDYN_OK);
    ck_assert_int_eq(nsd_contact_coefficients(now, in, &b, why, sizeof why), NSDYN_OK);
    ck_assert(a.kind == NSDYN_RESTITUTION_NEWTON && a.kind == b.kind &&
              a.restitution == b.restitution && a.restitution == 0.5);
    old->info.destroy(io);
    now->info.destroy(in);
    dlclose(h_old);
    dlclose(h_new);
}
END_TEST

START_TEST(a_failing_bounds_reaches_the_caller_and_the_config) {
    void *h;
    const nsdyn_friction_law *law = (const void *)find(
        &h, MISTAKES "nsdyn_friction_coulomb_bounds_fail.so", "coulomb_bounds_fail");
    char err[128], why[256] = "";
    void *inst = nsd_plugin_create(&law->info, NULL, NULL, err, sizeof err);
    double s = 0, k = 0;
    ck_assert_int_eq(nsd_friction_bounds(law, inst, 0.25, &s, &k, why, sizeof why), NSDYN_OK);
    ck_assert_int_eq(nsd_friction_bounds(law, inst, 2.0, &s, &k, why, sizeof why), NSDYN_ERROR);
    ck_assert_str_eq(why, "friction law 'coulomb_bounds_fail': bounds() at N = 2 N returned ERROR");
    law->info.destroy(inst);
    dlclose(h);
    /* in a config: the bounds per unit normal force at model creation */
    ck_assert_int_eq(setenv("NSDYN_PLUGIN_PATH", MISTAKES, 1), 0);
    char dir[] = "/tmp/nsdyn-bounds-XXXXXX", all[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    test_write_at(dir, "b.toml",
                  "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"coulomb_bounds_fail\"\n"
                  "[integrator]\nid = \"rk4\"\n[run]\nt_end = 0.01\n");
    run R;
    ck_assert_uint_eq(test_load_at(dir, "b.toml", &R, all, sizeof all), 1);
    ck_assert_msg(strstr(all, "b.toml:3:2: [friction] friction law 'coulomb_bounds_fail': "
                              "bounds() at N = 1 N returned ERROR"),
                  "%s", all);
    /* the law's own log line is not asserted: the model's instances are
     * created quiet (model.h nsd_model.own; a run's data log, and no run
     * data exist when the model is refused), so the reason above, with its
     * config location, is what reaches the user */
    test_unload(&R);
    unsetenv("NSDYN_PLUGIN_PATH");
}
END_TEST

int main(void) {
    Suite *s = suite_create("plugin_calls");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    const int n = (int)(sizeof integrators / sizeof integrators[0]);
    tcase_add_loop_test(tc, the_wrapper_holds_the_protocol, 0, n);
    tcase_add_loop_test(tc, in_protocol_the_wrapper_changes_nothing, 0, n);
    tcase_add_test(tc, a_2_4_friction_law_is_called_through_the_adapter);
    tcase_add_test(tc, a_2_4_contact_law_is_called_through_the_adapter);
    tcase_add_test(tc, a_failing_bounds_reaches_the_caller_and_the_config);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
