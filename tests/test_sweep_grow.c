/* A study's runs keyed by their values (docs/sweep.md, "Growing a study";
 * issue 25 items 3 and 4), through the CLI, read back from the database:
 *  - a study that grows (axes refined, added, removed) keeps the runs it
 *    contains and equals a from-scratch run bit for bit;
 *  - the config is hashed once per study, its swept keys left out: every
 *    row carries that hash, a study whose config differs only at a swept
 *    key's own value gives the same rows bit for bit, one that differs at
 *    an unswept key another hash;
 *  - a database written before (each row its own run's hash) is keyed
 *    once, its rows kept whole in runs_v1, and resumes and grows. */
#define _GNU_SOURCE
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep_test_util.h"

/* A study of the ball over e (a range of n_e values) and y0 (a list),
 * with an axis over m when with_m. */
static void grow_config(const char *name, int n_e, const char *y0s, int with_m) {
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nvalues = [%s]\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nstart = 0.3\nstop = 0.9\n"
             "count = %d\n%s"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\nv1 = \"at_first(impact, vy)\"\n"
             "ymax = \"max(y)\"\nn = \"count(impact)\"\n",
             ball, y0s, n_e,
             with_m ? "[[sweep.axis]]\nkey = \"system.m\"\nvalues = [0.2, 0.1]\n" : "");
    write_file(name, cfg);
}

/* The number K of "(K finished before)" in err.txt. */
static long finished_before(void) {
    char *err = slurp("err.txt");
    const char *p = strstr(err, " finished before)");
    ck_assert_msg(p != NULL, "%s", err);
    while (p > err && p[-1] != '(') --p;
    long k = atol(p);
    free(err);
    return k;
}

/* Issue 25 item 4: a study grows. The e axis refined by a random factor
 * (its old values stay grid points), a y0 value and an axis over m (the
 * config's m among its values) added, then the m axis removed: each time
 * exactly the runs the new definition contains are kept (the same rows,
 * their wall times untouched, so not run again), and the rows equal a
 * from-scratch run of the new definition bit for bit. The old code
 * refused the refined study as "another sweep definition". */
START_TEST(study_grows) {
    make_tmp();
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    int n_e = 2 + rand() % 3, k = 2 + rand() % 2, n_fine = (n_e - 1) * k + 1;
    grow_config("a.toml", n_e, "0.55, 1.05", 0);
    ck_assert_int_eq(sweep("a.toml -o g -q -j 2 --no-graphs"), 0);
    grow_config("b.toml", n_fine, "0.55, 1.05, 1.55", 1);
    ck_assert_msg(sweep("b.toml -o g -j 2 --no-graphs") == 0, "seed %u: %s", seed,
                  slurp("err.txt"));
    ck_assert_int_eq(finished_before(), 2 * n_e); /* the m = 0.1 half of y0 0.55, 1.05 */
    ck_assert_int_eq(query_long("g/sweep.sqlite",
                                "SELECT count(*) FROM runs JOIN runs_v1 USING (y0, e, wall, "
                                "status) WHERE system_m = 0.1"),
                     2 * n_e);
    ck_assert_int_eq(query_long("g/sweep.sqlite", "SELECT count(*) FROM runs"), 3 * n_fine * 2);
    ck_assert_int_eq(sweep("b.toml -o fresh_b -q -j 2 --no-graphs"), 0);
    char *grown = runs_text("g/sweep.sqlite"), *fresh = runs_text("fresh_b/sweep.sqlite");
    ck_assert_msg(strcmp(grown, fresh) == 0, "seed %u: grown and fresh rows differ", seed);
    free(grown);
    free(fresh);
    /* the m axis removed: the runs at the config's m = 0.1 are the study */
    grow_config("c.toml", n_fine, "0.55, 1.05, 1.55", 0);
    ck_assert_int_eq(sweep("c.toml -o g -j 2 --no-graphs"), 0);
    ck_assert_int_eq(finished_before(), 3 * n_fine);
    ck_assert_int_eq(sweep("c.toml -o fresh_c -q -j 2 --no-graphs"), 0);
    grown = runs_text("g/sweep.sqlite");
    fresh = runs_text("fresh_c/sweep.sqlite");
    ck_assert_msg(strcmp(grown, fresh) == 0, "seed %u: shrunk and fresh rows differ", seed);
    free(grown);
    free(fresh);
    ck_assert_int_eq(query_long("g/sweep.sqlite", "SELECT count(*) FROM definitions"), 3);
    ck_assert_int_eq(query_long("g/sweep.sqlite", "SELECT count(*) FROM runs_v2"), 3 * n_fine * 2);
    ck_assert_int_eq(query_long("g/sweep.sqlite", "SELECT count(*) FROM sweep WHERE key = "
                                                  "'config_text' AND value LIKE '%point_mass%'"),
                     1);
    remove_tmp();
}
END_TEST

/* The ball over y0 (a list), e (3 values) and m (the list ms) with the
 * config's m = m_base and gravity g [m/s^2]. */
static void keys_config(const char *name, double m_base, double g, const char *ms,
                        const char *y0s) {
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "[system]\nid = \"point_mass\"\nm = %.17g\nr = 0.05\ng = %.17g\n"
             "[contact]\nid = \"newton\"\ne = 0.5\n"
             "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
             "[initial]\ny = 1.05\nvx = 0.2\n[run]\nt_end = 1.5\noutput_dt = 1e-3\n"
             "[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nvalues = [%s]\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nstart = 0.3\nstop = 0.9\n"
             "count = 3\n[[sweep.axis]]\nkey = \"system.m\"\nvalues = [%s]\n"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\nv1 = \"at_first(impact, vy)\"\n"
             "n = \"count(impact)\"\n",
             m_base, g, ms, y0s);
    write_file(name, cfg);
}

/* The study's config hash as the database records it. */
static char *study_hash(const char *db) {
    return query_text(db, "SELECT value FROM sweep WHERE key = 'config_hash'", NULL);
}

/* What the code before wrote: each row its own hash (here a distinct
 * made-up one), no study hash; a third of the rows not yet run. */
static void make_old(const char *dir) {
    char path[64];
    snprintf(path, sizeof path, "%.50s/sweep.sqlite", dir);
    sqlite3 *db = open_db(path);
    exec_sql(db, "DELETE FROM sweep WHERE key IN ('config_hash', 'config_resolved');"
                 "UPDATE runs SET config_hash = printf('%064d', run + 7);"
                 "DELETE FROM runs WHERE run % 3 = 1;");
    sqlite3_close(db);
}

START_TEST(study_keys) {
    make_tmp();
    unsigned seed = (unsigned)time(NULL);
    srand(seed);
    static const char *const pairs[] = {"0.1, 0.3", "0.3, 0.1", "0.1, 0.25, 0.3"};
    const char *ms = pairs[rand() % 3];
    double other = rand() % 2 ? 0.3 : 0.77; /* another swept value, or none */
    keys_config("a.toml", 0.1, 9.81, ms, "0.55, 1.05");
    keys_config("a2.toml", other, 9.81, ms, "0.55, 1.05");
    keys_config("a3.toml", 0.1, 9.80, ms, "0.55, 1.05");
    ck_assert_int_eq(sweep("a.toml -o a -q -j 2 --no-graphs"), 0);
    ck_assert_int_eq(sweep("a2.toml -o a2 -q -j 2 --no-graphs"), 0);
    ck_assert_int_eq(sweep("a3.toml -o a3 -q --no-graphs"), 0);
    /* one hash, the study's, in every row */
    ck_assert_int_eq(
        query_long("a/sweep.sqlite",
                   "SELECT count(*) FROM runs WHERE config_hash IS NOT (SELECT value "
                   "FROM sweep WHERE key = 'config_hash') OR length(config_hash) != 64"),
        0);
    /* the swept m left out of what is hashed, the rest with the plugins'
     * versions in */
    ck_assert_int_eq(query_long("a/sweep.sqlite",
                                "SELECT count(*) FROM sweep WHERE key = 'config_resolved' AND "
                                "instr(value, char(10) || 'm = ') = 0 AND instr(value, char(10) "
                                "|| 'g = 9.81') > 0 AND instr(value, 'id=point_mass version=') > "
                                "0 AND instr(value, 'id=dopri5 version=') > 0"),
                     1);
    /* the config's own m does not matter where m is swept; g does */
    char *a = runs_text("a/sweep.sqlite"), *a2 = runs_text("a2/sweep.sqlite");
    ck_assert_msg(strcmp(a, a2) == 0, "seed %u: base m %g gave other rows", seed, other);
    char *h = study_hash("a/sweep.sqlite"), *h3 = study_hash("a3/sweep.sqlite");
    ck_assert_msg(strlen(h) == 66 && strcmp(h, h3) != 0, "g changed, same hash %s", h);
    /* a database of the code before: keyed once, rows kept whole, resumed */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp -r '%s/a' '%s/old' && cp -r '%s/a' '%s/old2'", tmp, tmp, tmp,
             tmp);
    ck_assert_int_eq(system(cmd), 0);
    make_old("old");
    long before = query_long("old/sweep.sqlite", "SELECT count(*) FROM runs");
    ck_assert_msg(sweep("a.toml -o old -j 2 --no-graphs") == 0, "seed %u: %s", seed,
                  slurp("err.txt"));
    char *err = slurp("err.txt");
    ck_assert_msg(strstr(err, "keyed by the study's config hash") != NULL, "%s", err);
    free(err);
    ck_assert_int_eq(finished_before(), before);
    ck_assert_int_eq(query_long("old/sweep.sqlite",
                                "SELECT count(*) FROM runs_v1 WHERE config_hash = "
                                "printf('%064d', run + 7)"),
                     before);
    char *old = runs_text("old/sweep.sqlite");
    ck_assert_msg(strcmp(old, a) == 0, "seed %u: resumed old rows differ", seed);
    /* and grows: a y0 value added */
    make_old("old2");
    before = query_long("old2/sweep.sqlite", "SELECT count(*) FROM runs");
    keys_config("b.toml", 0.1, 9.81, ms, "0.55, 0.8, 1.05");
    ck_assert_msg(sweep("b.toml -o old2 -j 2 --no-graphs") == 0, "seed %u: %s", seed,
                  slurp("err.txt"));
    ck_assert_int_eq(finished_before(), before);
    ck_assert_int_eq(sweep("b.toml -o b -q -j 2 --no-graphs"), 0);
    char *grown = runs_text("old2/sweep.sqlite"), *fresh = runs_text("b/sweep.sqlite");
    ck_assert_msg(strcmp(grown, fresh) == 0, "seed %u: grown old rows differ", seed);
    free(grown);
    free(fresh);
    free(old);
    free(h);
    free(h3);
    free(a);
    free(a2);
    remove_tmp();
}
END_TEST

int main(void) {
    Suite *s = suite_create("sweep_grow");
    TCase *tc = tcase_create("sweep_grow");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, study_grows);
    tcase_add_test(tc, study_keys);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
