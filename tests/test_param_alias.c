#define _GNU_SOURCE
/* Former parameter names (ABI 2.4, plugin.h NSDYN_EXT_PARAM_ALIASES): the
 * friction laws' kinetic coefficient is mu_k everywhere; stribeck and lugre
 * accept their former mu_c. A config with mu_c = x must resolve exactly as
 * one with mu_k = x (the same value reaches create()), with one warning at
 * the key's file:line:col in the run's log, kept through a run; mu_k = x
 * gives no such warning; an override of mu_k replaces the file's mu_c.
 * Both names in one section: tests/bad-configs/185-*. */
#include "test_util.h"

static const char *const laws[] = {"stribeck", "lugre"};

/* A towed wheel with friction law `law` whose kinetic coefficient is
 * written as `key` = mu_k (line 6 of the text, column 1). */
static void write_config(const char *dir, const char *law, const char *key, double mu_s,
                         double mu_k) {
    char text[512];
    snprintf(text, sizeof text,
             "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"%s\"\nmu_s = %.17g\n%s = "
             "%.17g\n[integrator]\nid = \"bdf\"\n[run]\nt_end = 0.01\n",
             law, mu_s, key, mu_k);
    test_write_at(dir, "alias.toml", text);
}

static const char *log_text(const nsd_runlog *log) { return log->text ? log->text : ""; }

START_TEST(former_name_sets_the_same_value_with_a_warning) {
    char dir[] = "/tmp/nsdyn-alias-XXXXXX", all[4096], want[768];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    unsigned seed = 2024u;
    for (int trial = 0; trial < 24; ++trial) {
        const char *law = laws[trial % 2];
        const double mu_s = 0.05 + 0.9 * rand_r(&seed) / (double)RAND_MAX;
        const double mu_k = mu_s * (0.05 + 0.95 * rand_r(&seed) / (double)RAND_MAX);
        run old, now;
        write_config(dir, law, "mu_c", mu_s, mu_k);
        ck_assert_msg(test_load_at(dir, "alias.toml", &old, all, sizeof all) == 0, "%s", all);
        write_config(dir, law, "mu_k", mu_s, mu_k);
        ck_assert_msg(test_load_at(dir, "alias.toml", &now, all, sizeof all) == 0, "%s", all);
        const nsd_params *po = &old.app.cfg.friction.params, *pn = &now.app.cfg.friction.params;
        ck_assert_uint_eq(po->n, pn->n);
        for (size_t i = 0; i < po->n; ++i) /* bit for bit, every parameter */
            ck_assert_msg(po->values[i].num == pn->values[i].num, "%s.%s: %.17g against %.17g", law,
                          po->decls[i].name, po->values[i].num, pn->values[i].num);
        ck_assert_double_eq(nsd_params_num(po, "mu_k"), mu_k);
        snprintf(want, sizeof want,
                 "%s/alias.toml:6:1: [friction] (%s): key 'mu_c' is the former name of 'mu_k'", dir,
                 law);
        ck_assert_msg(strstr(log_text(&old.log), want), "no '%s' in the log:\n%s", want,
                      log_text(&old.log));
        ck_assert_msg(!strstr(log_text(&now.log), "former name"), "%s", log_text(&now.log));
        if (trial < 2) { /* the warning stays in the run's own log */
            test_run(&old);
            ck_assert_msg(strstr(log_text(&old.res.log), want), "%s", log_text(&old.res.log));
        }
        run_free(&old);
        run_free(&now);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/alias.toml", dir);
    remove(path);
    rmdir(dir);
}
END_TEST

START_TEST(override_of_the_new_name_replaces_the_former) {
    char dir[] = "/tmp/nsdyn-alias-XXXXXX", path[600];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    write_config(dir, "lugre", "mu_c", 0.38, 0.30);
    snprintf(path, sizeof path, "%s/alias.toml", dir);
    run R;
    memset(&R, 0, sizeof R);
    R.no_graphs = 1;
    nsd_diag diag = {0};
    const char *sets[] = {"friction.mu_k=0.2"};
    size_t errors = nsd_scenario_load(&R, path, sets, 1, &diag);
    nsd_diag_print(&diag, stderr);
    ck_assert_uint_eq(errors, 0);
    ck_assert_double_eq(nsd_params_num(&R.app.cfg.friction.params, "mu_k"), 0.2);
    nsd_diag_free(&diag);
    run_free(&R);
    remove(path);
    rmdir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("param_alias");
    TCase *tc = tcase_create("alias");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, former_name_sets_the_same_value_with_a_warning);
    tcase_add_test(tc, override_of_the_new_name_replaces_the_former);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
