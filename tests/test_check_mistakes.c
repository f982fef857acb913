/* `nsdyn check` against an author's own plugins (issue 22): a rocking
 * block and a Coulomb law, each built with one deliberate mistake
 * (fixtures/author_mistakes.c, fixtures/friction_mistakes.c,
 * fixtures/law_mistakes.c). Each must
 * fail with a finding that names the callback; each passed the check
 * before issue 22 (exit 0; the crashing ones killed it). The same files
 * without a mistake pass: the checks do not cry wolf. */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "test_util.h"

#define DIR NSDYN_TEST_FIXTURE_DIR "/mistakes/"

/* `nsdyn check --timeout 2 FILE`, stdout and stderr into out; the exit status. */
static int check_file(const char *file, char *out, size_t len) {
    char args[4096];
    snprintf(args, sizeof args, "check --timeout 2 '%s'", file);
    return test_nsdyn(args, out, len);
}

static const struct mistake {
    const char *file, *finding;
} mistakes[] = {
    /* the state tables name 3 coordinates, nq = 2 */
    {"system_block_nq_short", "initial_state() writes q[2], past nq = 2"},
    /* u_n and W agree with each other but not with the gap */
    {"system_block_wrong_row", "contact 'left' normal velocity u_n (the Jacobian row times v) "
                               "against the rate of its gap along the motion"},
    {"system_block_jacobian_only", "contact 'left' Jacobian row 0, column omega disagrees"},
    {"system_block_drift_sign", "contact 'left' drift[0] (u' - W v') against du[0]/dt"},
    {"system_block_energy_name", "energy_output 'E' names no output channel"},
    {"system_block_nan_derivative", "derivatives() gives a non-finite v'[2] at state #"},
    {"system_block_write_past_qdot", "derivatives() writes qdot[3], past nq = 3"},
    /* the friction force's torque: the tangent row and derivatives() disagree */
    {"system_block_torque_arm", "the power of a unit force on contact 'left' row 1"},
    {"system_block_not_conservative", "declares CONSERVATIVE, but the system's energy output"},
    {"system_block_not_affine_u", "contact 'left' u[0] is not affine in v (omega)"},
    {"system_block_series_name", "plot_series entry 'tilt' names no channel"},
    {"system_block_nan_drift", "contact 'left' has a non-finite drift at state #"},
    {"system_block_write_past_jacobian", "contacts() writes entry 9 of contact 'left''s Jacobian"},
    /* E = m v^2/2 + I omega^2: the wrong kinetic energy */
    {"system_block_energy_formula", "the power of a unit force on contact 'left' row 0"},
    {"system_block_segfault", "contacts() at state #"},
    {"system_block_abort", "derivatives() crashed with signal 6"},
    {"system_block_loop", "contacts() did not return within 2 s (killed)"},
    {"system_block_exit", "initial_state() ended the process (exit status 0)"},
    {"friction_coulomb_nan_at_rest", "force() gives a non-finite force at slip (0, 0) m/s"},
    {"friction_coulomb_nan_fast", "force() gives a non-finite force at slip (18, -24) m/s"},
    {"friction_coulomb_nan_load", "force() gives a non-finite force at slip (0, 0) m/s, N = 0 N"},
    /* ABI 2.5: bounds() says it failed (its status) */
    {"friction_coulomb_bounds_fail",
     "friction law 'coulomb_bounds_fail': bounds() at N = 100 N returned ERROR"},
    /* a rigid law with e = 1.5, and one whose friction impulse ignores the cone */
    {"contact_newton_energy_gain", "impact() gives a gain of kinetic energy"},
    {"contact_newton_no_cone", "impact() gives a tangential impulse outside the cone"},
    /* ABI 2.4: a law that ignores the one-contact problem's restitution scale */
    {"contact_newton_no_scale", "restitution_scale = 0 leaves a bounce"},
};

START_TEST(each_mistake_fails_check) {
    static char out[1 << 15];
    const struct mistake *m = &mistakes[_i];
    char file[1024];
    snprintf(file, sizeof file, DIR "nsdyn_%s.so", m->file);
    int st = check_file(file, out, sizeof out);
    ck_assert_msg(st == 2, "%s: exit %d\n%s", m->file, st, out);
    ck_assert_msg(strstr(out, "FAILED"), "%s:\n%s", m->file, out);
    ck_assert_msg(strstr(out, m->finding), "%s: no finding '%s' in\n%s", m->file, m->finding, out);
}
END_TEST

/* The segfault names the callback and the state, then the signal. */
START_TEST(a_crash_names_callback_state_and_signal) {
    static char out[1 << 15];
    int st = check_file(DIR "nsdyn_system_block_segfault.so", out, sizeof out);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "system 'block_segfault': contacts() at state #") &&
                      strstr(out, "crashed with signal 11"),
                  "%s", out);
}
END_TEST

START_TEST(the_correct_plugins_pass) {
    static char out[1 << 15];
    ck_assert_int_eq(check_file(DIR "nsdyn_system_block_none.so", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "system       block_none             ok"), "%s", out);
    ck_assert_int_eq(check_file(DIR "nsdyn_friction_coulomb_none.so", out, sizeof out), 0);
    ck_assert_int_eq(check_file(DIR "nsdyn_contact_newton_none.so", out, sizeof out), 0);
    /* the same law built as ABI 2.4 (void coefficients()): the host's adapter */
    ck_assert_int_eq(check_file(DIR "nsdyn_contact_newton_abi_2_4.so", out, sizeof out), 0);
}
END_TEST

/* A plugin that crashes does not stop the checks of the files after it. */
START_TEST(a_crash_does_not_stop_the_others) {
    static char out[1 << 15];
    ck_assert_int_eq(check_file(DIR "nsdyn_system_block_abort.so' '" DIR
                                    "nsdyn_system_block_none.so",
                                out, sizeof out),
                     2);
    ck_assert_msg(strstr(out, "block_abort") && strstr(out, "block_none             ok"), "%s",
                  out);
}
END_TEST

/* `nsdyn run` on a config whose system has a wrong Jacobian row (u_n and
 * W agree, the gap disagrees): a config error (exit 2) before the run,
 * naming the system, the contact and the size of the error; with [run]
 * precheck = false the run goes ahead (the author's choice). */
static int run_block(const char *sys_id, const char *extra, char *out, size_t len) {
    char cfg[] = "/tmp/nsdyn-precheck-XXXXXX.toml", dir[] = "/tmp/nsdyn-precheck-out-XXXXXX";
    int fd = mkstemps(cfg, 5);
    ck_assert(fd >= 0 && mkdtemp(dir));
    FILE *f = fdopen(fd, "w");
    fprintf(f,
            "[system]\nid = \"%s\"\n[contact]\nid = \"newton\"\ne = 0.5\n"
            "[integrator]\nid = \"dopri5\"\n[run]\nt_end = 0.2\nprogress = false\n%s\n"
            "[plot]\nenabled = false\n",
            sys_id, extra);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "NSDYN_PLUGIN_PATH='%s' '%s' run '%s' -o '%s/out' -q 2>&1; echo \"exit $?\"", DIR,
             NSDYN_TEST_BINARY, cfg, dir);
    FILE *p = popen(cmd, "r");
    size_t k = fread(out, 1, len - 1, p);
    out[k] = '\0';
    pclose(p);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, cfg);
    ck_assert_int_eq(system(cmd), 0);
    const char *e = strstr(out, "exit ");
    return e ? atoi(e + 5) : -1;
}

START_TEST(a_wrong_jacobian_is_a_config_error_before_the_run) {
    static char out[1 << 15];
    int st = run_block("block_wrong_row", "", out, sizeof out);
    ck_assert_msg(st == 2, "exit %d\n%s", st, out);
    ck_assert_msg(strstr(out, ".toml:1:"), "%s", out); /* at the [system] table */
    ck_assert_msg(strstr(out, "system 'block_wrong_row': contacts(): contact 'left' normal "
                              "velocity u_n") &&
                      strstr(out, "(error ") && strstr(out, "[run] precheck = false"),
                  "%s", out);
    st = run_block("block_wrong_row", "precheck = false", out, sizeof out);
    ck_assert_msg(st == 0, "exit %d\n%s", st, out);
    st = run_block("block_none", "", out, sizeof out);
    ck_assert_msg(st == 0, "exit %d\n%s", st, out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("check_mistakes");
    TCase *tc = tcase_create("mistakes");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, each_mistake_fails_check, 0, sizeof mistakes / sizeof *mistakes);
    tcase_add_test(tc, a_crash_names_callback_state_and_signal);
    tcase_add_test(tc, the_correct_plugins_pass);
    tcase_add_test(tc, a_crash_does_not_stop_the_others);
    tcase_add_test(tc, a_wrong_jacobian_is_a_config_error_before_the_run);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
