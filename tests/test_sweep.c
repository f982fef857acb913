/* nsdyn sweep (docs/sweep.md), through the CLI as a user runs it, read back
 * from its SQLite database:
 *  - the summaries against closed forms: a ball dropped from h with
 *    Newton restitution e (first impact at sqrt(2h/g), rebound e sqrt(2gh),
 *    the mean of a uniform drift), and the sphere rolling up the thesis's
 *    incline (it rises v0^2 (1 + J/(m b^2)) / (2g), Hartl 2006 (3.15)-(3.16));
 *  - the shipped reduced study gives the same bits with 1 and 3 threads,
 *    and a resumed sweep (a third of its rows deleted) gives them again;
 *  - a database of another definition is refused before any run (a study
 *    that grows: test_sweep_grow.c);
 *  - a failed run is recorded with its message, kept when asked, and the
 *    sweep goes on;
 *  - a Latin hypercube puts one sample in every stratum of every axis. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef NSDYN_TEST_BINARY
#error "NSDYN_TEST_BINARY must be defined"
#endif

#include "sweep_test_util.h"

START_TEST(ball_closed_forms) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nvalues = [0.55, 1.05, 2.05]\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nstart = 0.3\nstop = 0.9\n"
             "count = 3\n"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\nv1 = \"at_first(impact, vy)\"\n"
             "ymax = \"max(y)\"\ntmax = \"time_of_max(y)\"\nxm = \"mean(x)\"\nxf = \"final(x)\"\n"
             "n = \"count(impact)\"\nout = \"stop\"\n",
             ball);
    write_file("ball.toml", cfg);
    ck_assert_int_eq(sweep("ball.toml -o out -q -j 2"), 0);
    sqlite3 *db = open_db("out/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT y0, e, t1, v1, ymax, tmax, xm, xf, n, out, status "
                                        "FROM runs ORDER BY run",
                                        -1, &st, NULL),
                     SQLITE_OK);
    int rows = 0;
    const double g = 9.81, r = 0.05, dt = 1e-3, T = 2.0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double y0 = sqlite3_column_double(st, 0), e = sqlite3_column_double(st, 1);
        double h = y0 - r, t1 = sqrt(2 * h / g), v = sqrt(2 * g * h);
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 10), "ok");
        ck_assert_double_eq_tol(sqlite3_column_double(st, 2), t1, 1e-8);
        /* the first sample after the impact: rebound e v, minus g (ts - t1) */
        double ts = ceil(t1 / dt - 1e-9) * dt;
        ck_assert_double_eq_tol(sqlite3_column_double(st, 3), e * v - g * (ts - t1), 1e-7);
        ck_assert_double_eq(sqlite3_column_double(st, 4), y0);
        ck_assert_double_eq(sqlite3_column_double(st, 5), 0.0);
        /* x = 0.2 t exactly: its trapezoid mean over [0, T] is 0.1 T */
        ck_assert_double_eq_tol(sqlite3_column_double(st, 6), 0.1 * T, 1e-12);
        ck_assert_double_eq_tol(sqlite3_column_double(st, 7), 0.2 * T, 1e-12);
        ck_assert_int_ge(sqlite3_column_int(st, 8), 1);
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 9), "complete");
        rows++;
    }
    ck_assert_int_eq(rows, 9);
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_tmp();
}
END_TEST

/* The sphere rolls up the incline of the Sec. 4.2 valley from x0 at v0
 * and stops (rolled_back) at its apex, z0 + v0^2 (1 + k) / (2 g) with
 * k = J/(m b^2) (swept as j_over_m = k b^2 through `per`); at x0 = 60 m,
 * 3.9 m/s it rolls over the rim (configs/sphere_roll_over_rim.toml). */
START_TEST(sphere_incline_height) {
    make_tmp();
    write_file("incline.toml",
               "[system]\nid = \"sphere_planes\"\ng = 3.71\nb = 1.0\nj_over_m = 0.4\n"
               "[contact]\nid = \"kane_impulse\"\ne = 0.92\n"
               "[friction]\nid = \"coulomb\"\nmu_s = 1.0\nmu_k = 0.8\n"
               "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
               "[run]\nt_end = 10.0\noutput_dt = 1e-2\n"
               "[[sweep.axis]]\nkey = \"system.b\"\nname = \"b\"\nvalues = [1.0, 2.0]\n"
               "[[sweep.axis]]\nkey = \"system.j_over_m\"\nname = \"k\"\nvalues = [0.4, 0.1]\n"
               "per = \"system.b^2\"\n"
               "[[sweep.axis]]\nkey = \"system.x0\"\nname = \"x0\"\nvalues = [55.0, 55.0, 55.0, "
               "60.0]\nzip = \"start\"\n"
               "[[sweep.axis]]\nkey = \"system.v0\"\nname = \"v0\"\nvalues = [1.0, 2.0, 3.0, "
               "3.9]\nzip = \"start\"\n"
               "[sweep.summary]\nh = \"system.incline_height\"\ncrossed = \"system.crossed\"\n"
               "z0 = \"min(z)\"\nout = \"stop\"\n");
    ck_assert_int_eq(sweep("incline.toml -o out -q"), 0);
    /* a system's summary values carry the units it declares */
    char *csv = slurp("out/runs.csv");
    ck_assert_msg(strstr(csv, ",h [m],crossed [1],") != NULL, "%.*s", (int)strcspn(csv, "\n"), csv);
    free(csv);
    sqlite3 *db = open_db("out/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(
        sqlite3_prepare_v2(db, "SELECT b, k, x0, v0, h, crossed, z0, out, status FROM runs", -1,
                           &st, NULL),
        SQLITE_OK);
    int rows = 0, crossings = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double b = sqlite3_column_double(st, 0), k = sqlite3_column_double(st, 1);
        double x0 = sqlite3_column_double(st, 2), v0 = sqlite3_column_double(st, 3);
        double h = sqlite3_column_double(st, 4), z0 = sqlite3_column_double(st, 6);
        const char *out = (const char *)sqlite3_column_text(st, 7);
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 8), "ok");
        rows++;
        if (x0 == 60.0 && b == 1.0 && k == 0.4) {
            ck_assert_str_eq(out, "crossed");
            ck_assert_double_eq(sqlite3_column_double(st, 5), 1.0);
            ck_assert_double_eq_tol(h, 0.0, 1e-6); /* the centre at z = b over the edge */
            crossings++;
            continue;
        }
        if (x0 == 60.0) continue; /* another sphere at 60 m: either way */
        ck_assert_str_eq(out, "rolled_back");
        ck_assert_double_eq(sqlite3_column_double(st, 5), 0.0);
        ck_assert_double_eq_tol(h, z0 - b + v0 * v0 * (1 + k) / (2 * 3.71), 1e-7);
    }
    ck_assert_int_eq(rows, 16);
    ck_assert_int_eq(crossings, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_tmp();
}
END_TEST

/* Rows "x,y,value" of a map's table (after its header) with value > level. */
static size_t rows_above(const char *map, double level) {
    size_t n = 0;
    const char *p = strchr(map, '\n');
    while (p && *++p) {
        double x, y, v;
        if (sscanf(p, "%lf,%lf,%lf", &x, &y, &v) == 3 && v > level) n++;
        p = strchr(p, '\n');
    }
    return n;
}

START_TEST(study_threads_identical_and_resume) {
    make_tmp();
    const char *study = NSDYN_TEST_SOURCE_DIR "/configs/sweep_valley_study.toml";
    ck_assert_int_eq(sweep("%s -o one -q -j 1 --no-graphs", study), 0);
    ck_assert_int_eq(sweep("%s -o three -q -j 3", study), 0);
    char *one = runs_text("one/sweep.sqlite"), *three = runs_text("three/sweep.sqlite");
    ck_assert_int_eq((int)strlen(one) > 1000, 1);
    ck_assert_msg(strcmp(one, three) == 0, "1 and 3 threads differ");
    /* the graphs and their aggregates */
    struct stat sb;
    char path[512];
    snprintf(path, sizeof path, "%s/three/crossed_vs_e.svg", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/three/height_vs_e.csv", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/three/crossed_map.svg", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    /* the map's table: one row per run with its value (crossed: 0 or 1) */
    char *map = slurp("three/crossed_map.csv");
    size_t lines = 0;
    for (const char *p = map; (p = strchr(p, '\n')); ++p) lines++;
    ck_assert_int_eq((int)lines, 442);
    ck_assert_int_eq((int)rows_above(map, -0.5), 441); /* every run has a value */
    ck_assert_int_gt((int)rows_above(map, 0.5), 0);    /* some crossed */
    free(map);
    /* resume: lose a third of the rows, run again: only those run */
    sqlite3 *db = open_db("three/sweep.sqlite");
    exec_sql(db, "DELETE FROM runs WHERE run % 3 = 0");
    sqlite3_close(db);
    ck_assert_int_eq(sweep("%s -o three -q -j 2", study), 0);
    char *err = slurp("err.txt");
    ck_assert_msg(strstr(err, "147 runs done (294 skipped as finished before)") != NULL, "%s", err);
    free(err);
    char *again = runs_text("three/sweep.sqlite");
    ck_assert_msg(strcmp(one, again) == 0, "the resumed sweep differs");
    /* interrupted (SIGINT: exit 130, or done before the signal: 0), then
     * killed (SIGKILL: the WAL journal keeps every committed row), then
     * resumed: the same rows as one uninterrupted sweep */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { %s sweep %s -o cut -q -j 1 --no-graphs 2>/dev/null & p=$!; sleep 0.3; "
             "kill -INT $p 2>/dev/null; wait $p; echo $? > int.txt; }; "
             "{ %s sweep %s -o cut -q -j 1 --no-graphs 2>/dev/null & p=$!; sleep 0.15; "
             "kill -KILL $p 2>/dev/null; wait $p; true; }",
             tmp, NSDYN_TEST_BINARY, study, NSDYN_TEST_BINARY, study);
    ck_assert_int_ne(system(cmd), -1);
    char *st = slurp("int.txt");
    ck_assert_msg(atoi(st) == 130 || atoi(st) == 0, "exit status after SIGINT: %s", st);
    free(st);
    ck_assert_int_eq(sweep("%s -o cut -q -j 2 --no-graphs", study), 0);
    char *resumed = runs_text("cut/sweep.sqlite");
    ck_assert_msg(strcmp(one, resumed) == 0, "the interrupted and killed sweep differs");
    free(resumed);
    /* a database of another definition: refused before any run */
    ck_assert_int_eq(sweep("%s -o three -q --set run.t_end=100", study), 2);
    err = slurp("err.txt");
    ck_assert_msg(strstr(err, "was written by another sweep definition") != NULL, "%s", err);
    free(err);
    free(one);
    free(three);
    free(again);
    remove_tmp();
}
END_TEST

/* run.max_events = 5: the bouncy run fails, the plastic one does not;
 * --set reaches [sweep] (keep = "failed"). */
START_TEST(failed_run_recorded_and_kept) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"contact.e\"\nvalues = [0.0, 0.9]\n"
             "[sweep.summary]\nn = \"count(impact)\"\nout = \"stop\"\n",
             ball);
    write_file("fail.toml", cfg);
    ck_assert_int_eq(sweep("fail.toml -o out --set run.t_end=5 --set run.max_events=5 "
                           "--set 'sweep.keep=\"failed\"'"),
                     0);
    char *err = slurp("err.txt");
    ck_assert_msg(strstr(err, "1 ok, 1 failed (1 simulation failed") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "1 x failed: the simulation failed at t = N s: run.max_events") !=
                      NULL,
                  "%s", err);
    free(err);
    sqlite3 *db = open_db("out/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(
        sqlite3_prepare_v2(db, "SELECT status, message, out FROM runs ORDER BY run", -1, &st, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "failed");
    ck_assert_ptr_nonnull(strstr((const char *)sqlite3_column_text(st, 1), "max_events"));
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), "failed");
    sqlite3_finalize(st);
    sqlite3_close(db);
    struct stat sb;
    char path[512];
    snprintf(path, sizeof path, "%s/out/runs/run-00000001/timeseries.INCOMPLETE.csv", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/out/runs/run-00000000", tmp);
    ck_assert_int_ne(stat(path, &sb), 0);
    remove_tmp();
}
END_TEST

/* maxima(y, 0): the apexes of the bounces, r + e^(2k) h (the flight is a
 * parabola, so the three-sample parabola is exact between impacts); the
 * map over two axes and the bifurcation diagram are drawn. */
START_TEST(maxima_are_the_apexes) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nvalues = [0.5, 0.7]\n"
             "[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nvalues = [1.05, 0.55]\n"
             "[sweep.summary]\napex = \"maxima(y, 0)\"\nn = \"count(impact)\"\n"
             "[[sweep.graph]]\nx = \"e\"\ny = \"apex\"\n"
             "[[sweep.graph]]\nx = \"e\"\ny = \"y0\"\ncolor = \"n\"\nabove = 12\n",
             ball);
    write_file("apex.toml", cfg);
    ck_assert_int_eq(sweep("apex.toml -o out -q -j 2"), 0);
    sqlite3 *db = open_db("out/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT r.e, r.y0, r.apex, p.k, p.value FROM points p "
                                        "JOIN runs r USING(run) ORDER BY p.run, p.k",
                                        -1, &st, NULL),
                     SQLITE_OK);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double e = sqlite3_column_double(st, 0), h = sqlite3_column_double(st, 1) - 0.05;
        int k = sqlite3_column_int(st, 3) + 1;
        double apex = 0.05 + pow(e, 2 * k) * h;
        ck_assert_int_ge(sqlite3_column_int(st, 2), k);
        /* the apexes above 1 mm: sampled flights of 3 samples or more */
        /* 5e-9 m: the impacts are located at rtol 1e-10 (measured error <= 1e-9 m) */
        if (apex - 0.05 > 1e-3) ck_assert_double_eq_tol(sqlite3_column_double(st, 4), apex, 5e-9);
        n++;
    }
    ck_assert_int_ge(n, 4 * 5);
    sqlite3_finalize(st);
    sqlite3_close(db);
    struct stat sb;
    char path[512];
    snprintf(path, sizeof path, "%s/out/apex_vs_e.svg", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    snprintf(path, sizeof path, "%s/out/n_map_e_y0.svg", tmp);
    ck_assert_int_eq(stat(path, &sb), 0);
    char *map = slurp("out/n_map_e_y0.csv");
    ck_assert_ptr_nonnull(strstr(map, "e,y0,value_or_category\n"));
    ck_assert_int_gt((int)rows_above(map, 12), 0);
    free(map);
    remove_tmp();
}
END_TEST

/* A run ended by a stop condition (the rimless wheel rolling back) keeps
 * its maxima out of the bifurcation diagram: the summary is NULL for it,
 * and maxima_with_stopped() keeps them (issue 27). */
START_TEST(stopped_runs_out_of_diagram) {
    make_tmp();
    for (int with = 0; with < 2; ++with) {
        char cfg[2048];
        snprintf(cfg, sizeof cfg,
                 "[system]\nid = \"rimless_hub\"\ngamma = 4.0\nspokes = 10\n"
                 "[integrator]\nid = \"dopri5\"\nrtol = 1e-9\natol = 1e-12\n"
                 "[run]\nt_end = 3.0\noutput_dt = 1e-3\n"
                 "[[sweep.axis]]\nkey = \"system.omega0\"\nname = \"w0\"\n"
                 "values = [1.2, -3.0]\n"
                 "[sweep.summary]\npeaks = \"%s(omega, 0)\"\nend = \"stop\"\n",
                 with ? "maxima_with_stopped" : "maxima");
        write_file("stopped.toml", cfg);
        ck_assert_int_eq(sweep("stopped.toml -o out%d -q", with), 0);
        char name[64];
        snprintf(name, sizeof name, "out%d/sweep.sqlite", with);
        sqlite3 *db = open_db(name);
        sqlite3_stmt *st = NULL;
        ck_assert_int_eq(
            sqlite3_prepare_v2(db, "SELECT w0, peaks, end FROM runs ORDER BY w0", -1, &st, NULL),
            SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW); /* w0 = -3: rolls back, stopped */
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), "rolls_back");
        ck_assert_int_eq(sqlite3_column_type(st, 1) == SQLITE_NULL, !with);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW); /* w0 = 1.2: walks */
        ck_assert_int_ne(sqlite3_column_type(st, 1), SQLITE_NULL);
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
    remove_tmp();
}
END_TEST

/* keep = "n > 3": the outputs of the runs with more than 3 impacts only. */
START_TEST(keep_filter) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[sweep]\nkeep = \"n > 3\"\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nvalues = [0.1, 0.5, 0.9]\n"
             "[sweep.summary]\nn = \"count(impact)\"\n",
             ball);
    write_file("keep.toml", cfg);
    ck_assert_int_eq(sweep("keep.toml -o out -q"), 0);
    sqlite3 *db = open_db("out/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT run, n FROM runs", -1, &st, NULL), SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        char path[512];
        struct stat sb;
        snprintf(path, sizeof path, "%s/out/runs/run-%08d/run.toml", tmp,
                 sqlite3_column_int(st, 0));
        ck_assert_int_eq(stat(path, &sb) == 0, sqlite3_column_double(st, 1) > 3);
        rows++;
    }
    ck_assert_int_eq(rows, 3);
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_tmp();
}
END_TEST

START_TEST(lhs_one_per_stratum) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[sweep]\ndesign = \"lhs\"\nsamples = 16\nseed = 7\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nstart = 0.1\nstop = 0.9\n"
             "[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nstart = 0.5\nstop = 1.5\n"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\n",
             ball);
    write_file("lhs.toml", cfg);
    ck_assert_int_eq(sweep("lhs.toml -o a -q -j 1 --set run.t_end=0.6"), 0);
    ck_assert_int_eq(sweep("lhs.toml -o b -q -j 2 --set run.t_end=0.6"), 0);
    char *a = runs_text("a/sweep.sqlite"), *b = runs_text("b/sweep.sqlite");
    ck_assert_str_eq(a, b);
    sqlite3 *db = open_db("a/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT e, y0 FROM runs", -1, &st, NULL), SQLITE_OK);
    int hit_e[16] = {0}, hit_y[16] = {0}, n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double e = sqlite3_column_double(st, 0), y = sqlite3_column_double(st, 1);
        ck_assert(e >= 0.1 && e <= 0.9 && y >= 0.5 && y <= 1.5);
        hit_e[(int)floor((e - 0.1) / 0.8 * 16)]++;
        hit_y[(int)floor((y - 0.5) / 1.0 * 16)]++;
        n++;
    }
    ck_assert_int_eq(n, 16);
    for (int k = 0; k < 16; ++k) {
        ck_assert_int_eq(hit_e[k], 1);
        ck_assert_int_eq(hit_y[k], 1);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(a);
    free(b);
    remove_tmp();
}
END_TEST

/* A random design over a plugin id, a range and a log range: every value
 * in its range, both integrators used, the same rows with 1 and 2
 * threads, and each run's first impact at sqrt(2h/g) (with its own g). A
 * log grid: 1, 10, 100. */
START_TEST(random_design_and_log_grid) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[sweep]\ndesign = \"random\"\nsamples = 12\nseed = 3\n"
             "[[sweep.axis]]\nkey = \"integrator.id\"\nname = \"ig\"\n"
             "values = [\"dopri5\", \"bdf\"]\n"
             "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nstart = 0.2\nstop = 0.8\n"
             "[[sweep.axis]]\nkey = \"system.g\"\nname = \"g\"\nstart = 1.0\nstop = 100.0\n"
             "scale = \"log\"\n"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\n",
             ball);
    write_file("random.toml", cfg);
    ck_assert_int_eq(sweep("random.toml -o a -q -j 1 --set run.t_end=1.0"), 0);
    ck_assert_int_eq(sweep("random.toml -o b -q -j 2 --set run.t_end=1.0"), 0);
    char *a = runs_text("a/sweep.sqlite"), *b = runs_text("b/sweep.sqlite");
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    sqlite3 *db = open_db("a/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT ig, e, g, t1, status FROM runs", -1, &st, NULL),
                     SQLITE_OK);
    int n = 0, bdf = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double e = sqlite3_column_double(st, 1), g = sqlite3_column_double(st, 2);
        ck_assert_str_eq((const char *)sqlite3_column_text(st, 4), "ok");
        ck_assert(e >= 0.2 && e <= 0.8 && g >= 1.0 && g <= 100.0);
        bdf += !strcmp((const char *)sqlite3_column_text(st, 0), "bdf");
        /* 1e-4 relative: bdf runs at its default tolerances; no impact
         * before t_end = 1 s (g < 2): no value (NULL) */
        if (sqlite3_column_type(st, 3) == SQLITE_NULL)
            ck_assert_double_gt(sqrt(2.0 / g), 0.999);
        else
            ck_assert_double_eq_tol(sqlite3_column_double(st, 3), sqrt(2 * 1.0 / g),
                                    1e-4 * sqrt(2.0 / g));
        n++;
    }
    ck_assert_int_eq(n, 12);
    ck_assert(bdf > 0 && bdf < 12);
    sqlite3_finalize(st);
    sqlite3_close(db);
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"system.g\"\nname = \"g\"\nstart = 1.0\nstop = 100.0\n"
             "count = 3\nscale = \"log\"\n",
             ball);
    write_file("log.toml", cfg);
    ck_assert_int_eq(sweep("log.toml -o c -q --set run.t_end=0.1"), 0);
    db = open_db("c/sweep.sqlite");
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT g FROM runs ORDER BY run", -1, &st, NULL),
                     SQLITE_OK);
    const double want[3] = {1.0, 10.0, 100.0};
    for (int k = 0; k < 3; ++k) {
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        ck_assert_double_eq_tol(sqlite3_column_double(st, 0), want[k], 1e-12 * want[k]);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_tmp();
}
END_TEST

/* Summaries read only t, the states and the events (system values, stop,
 * counts): the runs sample t and the states alone (sweep_summary.c
 * nsd_sweep_sampled_channels, issue 25), and give every summary bit for
 * bit as the same study whose extra min(gap) makes it sample gap too. A run
 * the keep filter names runs again sampling every channel: the same runs
 * are kept, their outputs byte for byte those of the study sampling
 * every channel. */
START_TEST(states_only_sampling_same_summaries) {
    make_tmp();
    const char *study =
        "[system]\nid = \"sphere_planes\"\nterrain = \"valley\"\nbeta = 15.0\ntheta = 15.0\n"
        "depth = -3.0\nfloor_length = 9.0\nb = 1.0\nj_over_m = 0.4\ng = 3.71\nx0 = 0.0\n"
        "v0 = 5.0\nrolling0 = true\n[contact]\nid = \"kane_impulse\"\ne = 0.92\n"
        "[friction]\nid = \"coulomb\"\nmu_s = 1.0\nmu_k = 0.8\n"
        "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
        "[run]\nt_end = 60.0\noutput_dt = 0.01\n[sweep]\nkeep = \"n > %d\"\n"
        "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nvalues = [0.63, 0.81, 0.97]\n"
        "[[sweep.axis]]\nkey = \"system.v0\"\nname = \"v0\"\nvalues = [2.3, 4.1, 6.7]\n"
        "[sweep.summary]\ncrossed = \"system.crossed\"\nh = \"system.incline_height\"\n"
        "fh = \"system.floor_height\"\nout = \"stop\"\nn = \"count(impact)\"\n%s";
    char text[2048];
    srand((unsigned)time(NULL));
    int above = rand() % 8;
    snprintf(text, sizeof text, study, above, "");
    write_file("states.toml", text);
    snprintf(text, sizeof text, study, above, "gm = \"min(gap)\"\n");
    write_file("every.toml", text);
    ck_assert_int_eq(sweep("states.toml -o a -q --no-graphs"), 0);
    ck_assert_int_eq(sweep("every.toml -o b -q --no-graphs"), 0);
    const char *sql = "SELECT run, crossed, h, fh, out, n, status FROM runs ORDER BY run";
    char *a = query_text("a/sweep.sqlite", sql, NULL), *b = query_text("b/sweep.sqlite", sql, NULL);
    ck_assert_msg(strlen(a) > 100 && !strcmp(a, b), "states only:\n%s\nevery channel:\n%s", a, b);
    free(a);
    free(b);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "SELECT count(*) FROM runs WHERE n > %d", above);
    long n_kept = query_long("a/sweep.sqlite", cmd);
    /* the same folders; the samples and events byte for byte */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && test \"$(ls a/runs 2>/dev/null)\" = \"$(ls b/runs 2>/dev/null)\" && "
             "test $(ls a/runs 2>/dev/null | wc -l) = %ld && for r in $(ls a/runs 2>/dev/null); "
             "do for f in $(ls b/runs/$r | grep -v -e run.toml -e run.log); do "
             "cmp a/runs/$r/$f b/runs/$r/$f || exit 1; done; done > diff.txt 2>&1",
             tmp, n_kept);
    ck_assert_msg(system(cmd) == 0, "keep = \"n > %d\" (%ld runs): %s", above, n_kept,
                  slurp("diff.txt"));
    remove_tmp();
}
END_TEST

/* Issue 26 item 4: units in the study's outputs. runs.csv's header gives
 * every number's unit (the parameter's, the initial state's channel's,
 * "s" for times, "1" for counts), the database's columns are typed and
 * its units table agrees with the header, every stored value has its
 * column's type, and every number in runs.csv reads back to the stored
 * double bit for bit. The old code wrote bare names and untyped columns. */
START_TEST(units_in_outputs) {
    make_tmp();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "%s[[sweep.axis]]\nkey = \"system.m\"\nvalues = [0.1, 0.3]\n"
             "[[sweep.axis]]\nkey = \"initial.y\"\nname = \"y0\"\nstart = 0.5\nstop = 1.7\n"
             "count = 4\n"
             "[[sweep.axis]]\nkey = \"integrator.id\"\nname = \"method\"\n"
             "values = [\"dopri5\", \"bdf\"]\n"
             "[sweep.summary]\nt1 = \"time_of_first(impact)\"\nymax = \"max(y)\"\n"
             "n = \"count(impact)\"\nout = \"stop\"\nv1 = \"at_first(impact, vy)\"\n",
             ball);
    write_file("u.toml", cfg);
    ck_assert_int_eq(sweep("u.toml -o u -q --no-graphs"), 0);
    char *csv = slurp("u/runs.csv");
    const char *want = "run,system_m [kg],y0 [m],method,t1 [s],ymax [m],n [1],out,v1 [m/s],"
                       "status,message,wall [s],config_hash,log_warnings [1],log_first\n";
    ck_assert_msg(strncmp(csv, want, strlen(want)) == 0, "header: %.*s", (int)strcspn(csv, "\n"),
                  csv);
    sqlite3 *db = open_db("u/sweep.sqlite");
    sqlite3_stmt *st = NULL;
    /* the units table gives the header's units; the column types */
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT group_concat(name || ' ' || unit, ',') FROM "
                                        "(SELECT * FROM units ORDER BY name)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
                     "log_warnings 1,n 1,system_m kg,t1 s,v1 m/s,wall s,y0 m,ymax m");
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT count(*) FROM runs WHERE typeof(system_m) != "
                                        "'real' OR typeof(y0) != 'real' OR typeof(method) != "
                                        "'text' OR typeof(n) != 'integer' OR typeof(out) != "
                                        "'text' OR typeof(t1) NOT IN ('real', 'null')",
                                        -1, &st, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    /* every number of runs.csv is the stored double */
    ck_assert_int_eq(
        sqlite3_prepare_v2(db, "SELECT y0, t1, ymax, v1 FROM runs ORDER BY run", -1, &st, NULL),
        SQLITE_OK);
    const char *line = strchr(csv, '\n') + 1;
    int rows = 0, header_fields = 1;
    for (const char *h = csv; h < line - 1; ++h) header_fields += *h == ',';
    while (sqlite3_step(st) == SQLITE_ROW && *line) {
        char *f[16] = {0}, *copy = strndup(line, strcspn(line, "\n"));
        int n = 0;
        for (char *p = copy; n < 16 && (f[n] = strsep(&p, ",")) != NULL; ++n) {}
        /* as many fields as the header names (these rows' messages hold no comma) */
        ck_assert_msg(n == header_fields, "row %d has %d fields, the header %d", rows, n,
                      header_fields);
        const int col[4] = {2, 4, 5, 8};
        for (int k = 0; k < 4; ++k)
            if (sqlite3_column_type(st, k) == SQLITE_FLOAT)
                ck_assert_msg(strtod(f[col[k]], NULL) == sqlite3_column_double(st, k),
                              "row %d column %d: %s", rows, col[k], f[col[k]]);
        free(copy);
        line += strcspn(line, "\n") + 1;
        rows++;
    }
    ck_assert_int_eq(rows, 16);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(csv);
    remove_tmp();
}
END_TEST

int main(void) {
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ball_closed_forms);
    tcase_add_test(tc, sphere_incline_height);
    tcase_add_test(tc, study_threads_identical_and_resume);
    tcase_add_test(tc, failed_run_recorded_and_kept);
    tcase_add_test(tc, maxima_are_the_apexes);
    tcase_add_test(tc, stopped_runs_out_of_diagram);
    tcase_add_test(tc, keep_filter);
    tcase_add_test(tc, lhs_one_per_stratum);
    tcase_add_test(tc, random_design_and_log_grid);
    tcase_add_test(tc, states_only_sampling_same_summaries);
    tcase_add_test(tc, units_in_outputs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
