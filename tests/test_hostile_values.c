/* Hostile values (issue 10, "limits checked before anything runs"): every
 * real parameter refuses a non-finite value unless its declaration admits
 * one (NSDYN_PARAM_NONFINITE); the output grid, the fixed steps and the
 * time resolution are checked before a run; numbers beyond a double and
 * long --set values are reported for what they are. The corpus in
 * tests/bad-configs (89-109) holds the cases that have one message each;
 * this test holds the rest: every declared parameter of every installed
 * plugin, the declaration flag itself, and command lines whose outcome
 * is a run. A hang shows as the test's timeout. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "params.h"
#include "registry.h"

#ifndef NSDYN_TEST_SOURCE_DIR
#error "NSDYN_TEST_SOURCE_DIR must be defined"
#endif
#ifndef NSDYN_TEST_BINARY
#error "NSDYN_TEST_BINARY must be defined"
#endif

extern char **environ;

/* ---- helpers ------------------------------------------------------------- */

/* Resolve `text` (a TOML table body) against decls; the diagnostics. */
static size_t resolve_text(const nsdyn_param_decl *decls, size_t n, const char *text,
                           nsd_diag *diag) {
    char err[1024];
    nsd_toml_doc *doc = nsd_toml_parse_string(text, "test", err, sizeof err);
    ck_assert_msg(doc != NULL, "%s", err);
    nsd_params p;
    size_t errors = nsd_params_resolve(&p, decls, n, nsd_toml_root(doc), "[t]", NULL, diag);
    nsd_params_free(&p);
    nsd_toml_free(doc);
    return errors;
}

static int diag_has(const nsd_diag *d, const char *needle) {
    for (size_t i = 0; i < d->n; ++i)
        if (strstr(d->lines[i], needle)) return 1;
    return 0;
}

static void diag_dump(const nsd_diag *d) {
    for (size_t i = 0; i < d->n; ++i) fprintf(stderr, "  %s\n", d->lines[i]);
}

typedef struct text {
    char *s;
    size_t len;
} text;

static void text_add(text *t, const char *s, size_t n) {
    char *p = realloc(t->s, t->len + n + 1);
    if (!p) abort();
    memcpy(p + t->len, s, n);
    t->len += n;
    p[t->len] = '\0';
    t->s = p;
}

/* Run the CLI with argv (NULL-terminated, argv[0] = NULL: the binary);
 * stdout and stderr captured. Returns the exit status, or -1 when it did
 * not exit normally. */
static int cli(const char **args, text *out, text *err) {
    const char *argv[64];
    size_t n = 0;
    argv[n++] = NSDYN_TEST_BINARY;
    for (size_t i = 0; args[i] && n < 63; ++i) argv[n++] = args[i];
    argv[n] = NULL;
    int po[2], pe[2];
    ck_assert(pipe(po) == 0 && pipe(pe) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    posix_spawn_file_actions_addclose(&fa, pe[0]);
    posix_spawn_file_actions_addclose(&fa, po[1]);
    posix_spawn_file_actions_addclose(&fa, pe[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    ck_assert_msg(rc == 0, "cannot start %s: %s", argv[0], strerror(rc));
    text_add(out, "", 0);
    text_add(err, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    text *dst[2] = {out, err};
    for (int open_fds = 2; open_fds > 0;) {
        if (poll(fds, 2, -1) < 0) {
            ck_assert(errno == EINTR);
            continue;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char chunk[4096];
            ssize_t r = read(fds[i].fd, chunk, sizeof chunk);
            if (r > 0)
                text_add(dst[i], chunk, (size_t)r);
            else if (r == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) ck_assert(errno == EINTR);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char tmp_dir[] = "/tmp/nsdyn-hostile-XXXXXX";

/* Write a config into the test's folder; its path in `path`. */
static void write_config(const char *name, const char *body, char *path, size_t len) {
    snprintf(path, len, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(body, f);
    fclose(f);
}

static const char *const BALL = "[system]\nid = \"point_mass\"\n\n"
                                "[contact]\nid = \"newton\"\ne = 0.5\n\n"
                                "[integrator]\nid = \"dopri5\"\n\n"
                                "[run]\nt_end = 0.2\n\n[plot]\nenabled = false\n";

/* ---- the declaration flag ------------------------------------------------- */

START_TEST(nonfinite_refused_unless_declared) {
    static const nsdyn_param_decl decls[] = {
        {"plain", NSDYN_PARAM_REAL, "s", 1, -HUGE_VAL, HUGE_VAL, 0, "open both sides", NULL, NULL,
         0},
        {"limit", NSDYN_PARAM_REAL, "s", 1, 0, HUGE_VAL, NSDYN_PARAM_NONFINITE,
         "a limit; inf = none", NULL, NULL, 0},
        {"arr", NSDYN_PARAM_REAL_ARRAY, "m", 0, -HUGE_VAL, HUGE_VAL, 0, "an array", NULL, NULL, 0},
        {"arr_inf", NSDYN_PARAM_REAL_ARRAY, "m", 0, -HUGE_VAL, HUGE_VAL, NSDYN_PARAM_NONFINITE,
         "an array admitting inf", NULL, NULL, 0},
    };
    const size_t n = NSDYN_COUNT(decls);
    static const struct {
        const char *toml, *want; /* want NULL: accepted */
    } cases[] = {
        {"plain = inf", "[t] key 'plain': expected a finite number, found inf"},
        {"plain = -inf", "[t] key 'plain': expected a finite number, found -inf"},
        {"plain = nan", "[t] key 'plain': expected a finite number, found nan"},
        {"plain = 1e308", NULL},
        {"limit = inf", NULL},
        {"limit = -inf", "[t] key 'limit' = -inf is out of range: expected >= 0 s"},
        {"limit = nan", "[t] key 'limit': expected a finite number, found nan"},
        {"arr = [1.0, -inf]", "[t] key 'arr' element 2: expected a finite number, found -inf"},
        {"arr = [nan]", "[t] key 'arr' element 1: expected a finite number, found nan"},
        {"arr_inf = [-inf, inf]", NULL},
        {"arr_inf = [nan]", "[t] key 'arr_inf' element 1: expected a finite number, found nan"},
    };
    for (size_t i = 0; i < NSDYN_COUNT(cases); ++i) {
        nsd_diag diag = {0};
        size_t errors = resolve_text(decls, n, cases[i].toml, &diag);
        if (!cases[i].want) {
            if (errors) diag_dump(&diag);
            ck_assert_msg(errors == 0, "'%s' was refused", cases[i].toml);
        } else {
            if (!diag_has(&diag, cases[i].want)) diag_dump(&diag);
            ck_assert_msg(errors == 1 && diag_has(&diag, cases[i].want), "'%s': expected \"%s\"",
                          cases[i].toml, cases[i].want);
        }
        nsd_diag_free(&diag);
    }
}
END_TEST

START_TEST(nonfinite_default_is_a_declaration_problem) {
    const nsdyn_param_decl bad[] = {
        {"x", NSDYN_PARAM_REAL, "1", HUGE_VAL, 0, HUGE_VAL, 0, "inf by default", NULL, NULL, 0},
    };
    const nsdyn_param_decl good[] = {
        {"x", NSDYN_PARAM_REAL, "1", HUGE_VAL, 0, HUGE_VAL, NSDYN_PARAM_NONFINITE,
         "inf by default: no limit", NULL, NULL, 0},
    };
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_params_check_decls(bad, 1, "p", &diag), 1);
    ck_assert(diag_has(&diag, "p: parameter 'x' default inf is not finite"));
    nsd_diag_free(&diag);
    ck_assert_uint_eq(nsd_params_check_decls(good, 1, "p", &diag), 0);
    nsd_diag_free(&diag);
}
END_TEST

/* Every REAL and REAL_ARRAY parameter the host and the installed plugins
 * declare refuses +inf, -inf and NaN (none of them admits them today). */
START_TEST(every_declared_real_refuses_nonfinite) {
    nsd_registry reg;
    memset(&reg, 0, sizeof reg);
    nsd_diag diag = {0};
    const char *dirs[] = {nsd_builtin_plugin_dir()};
    nsd_registry_scan(&reg, dirs, 1, &diag);
    nsd_diag_free(&diag);
    typedef struct {
        const char *owner;
        const nsdyn_param_decl *decls;
        size_t n;
    } table;
    table tables[64];
    size_t nt = 0;
    tables[nt++] = (table){"[run]", nsd_run_decls, nsd_n_run_decls};
    tables[nt++] = (table){"[plot]", nsd_plot_decls, nsd_n_plot_decls};
    for (size_t i = 0; i < reg.n && nt < NSDYN_COUNT(tables); ++i)
        if (reg.plugins[i].loaded)
            tables[nt++] = (table){reg.plugins[i].info->id, reg.plugins[i].info->params,
                                   reg.plugins[i].info->n_params};
    ck_assert_uint_ge(nt, 2 + 15); /* the shipped plugins were found */
    size_t checked = 0;
    static const char *const values[] = {"inf", "-inf", "nan"};
    for (size_t k = 0; k < nt; ++k)
        for (size_t i = 0; i < tables[k].n; ++i) {
            const nsdyn_param_decl *d = &tables[k].decls[i];
            if (d->type != NSDYN_PARAM_REAL && d->type != NSDYN_PARAM_REAL_ARRAY) continue;
            ck_assert_msg(!(d->flags & NSDYN_PARAM_NONFINITE),
                          "%s: '%s' admits inf: extend this test", tables[k].owner, d->name);
            for (size_t v = 0; v < 3; ++v) {
                char toml[160], want[200];
                int arr = d->type == NSDYN_PARAM_REAL_ARRAY;
                snprintf(toml, sizeof toml, "%s = %s%s%s", d->name, arr ? "[" : "", values[v],
                         arr ? "]" : "");
                snprintf(want, sizeof want, "[t] key '%s'%s: expected a finite number, found %s",
                         d->name, arr ? " element 1" : "", values[v]);
                resolve_text(tables[k].decls, tables[k].n, toml, &diag);
                if (!diag_has(&diag, want)) diag_dump(&diag);
                ck_assert_msg(diag_has(&diag, want), "%s: '%s' took %s", tables[k].owner, toml,
                              values[v]);
                nsd_diag_free(&diag);
                checked++;
            }
        }
    ck_assert_uint_ge(checked, 3 * 50);
    nsd_registry_close(&reg);
}
END_TEST

/* ---- command lines -------------------------------------------------------- */

/* Refused before the run, exit 2, with the message, nothing written. */
START_TEST(hostile_command_lines_are_config_errors) {
    char ball[512], wheel[512];
    write_config("ball.toml", BALL, ball, sizeof ball);
    write_config("wheel.toml",
                 "[system]\nid = \"towed_wheel\"\n\n[friction]\nid = \"coulomb_regularized\"\n\n"
                 "[integrator]\nid = \"rk4\"\nh = 1e-3\n\n[run]\nt_end = 1.0\noutput_dt = 0.5\n",
                 wheel, sizeof wheel);
    char out_dir[600];
    snprintf(out_dir, sizeof out_dir, "%s/out", tmp_dir);
    static const struct {
        int wheel;
        const char *sets[4];
        const char *want;
    } cases[] = {
        /* a span beyond a double */
        {0, {"run.t_start=-1e308", "run.t_end=1e308"}, "is beyond the range of a double"},
        /* samples that doubles near t_start cannot tell apart */
        {0,
         {"run.t_start=1e10", "run.t_end=1.00000001e10", "run.output_dt=1e-3"},
         "[run] output_dt = 0.001 s is below the time resolution near t = "},
        /* the grid against a lowered run.max_samples (auto grid: 2000) */
        {0, {"run.max_samples=100"}, "has 2000 samples, more than run.max_samples = 100"},
        /* an rk4 step the doubles near t_start cannot add */
        {1,
         {"run.t_start=1e10", "run.t_end=1.0000000001e10", "integrator.h=1e-5"},
         "[integrator] (rk4): h = 1e-05 s is below the time resolution near t = "},
        /* numbers TOML reads wrongly or not at all */
        {0,
         {"run.t_end=1e-1000"},
         "error: --set run.t_end=1e-1000: the number 1e-1000 is too small for a double"},
        {0, {"run.t_end=.5"}, "error: --set run.t_end=.5: .5 is not a TOML number"},
        {0,
         {"run.t_end=-1e400"},
         "error: --set run.t_end=-1e400: the number -1e400 is out of the range of a double"},
        /* non-finite elements given on the command line: no stray line:col */
        {0,
         {"plot.snapshot_window=[0.0,nan]"},
         "error: --set plot.snapshot_window=[0.0,nan]: [plot] key 'snapshot_window' element 2: "
         "expected a finite number, found nan"},
        {1,
         {"system.m=-inf"},
         "[system] (towed_wheel) key 'm': expected a finite number, found -inf"},
    };
    for (size_t i = 0; i < NSDYN_COUNT(cases); ++i) {
        const char *args[16];
        size_t n = 0;
        args[n++] = "run";
        args[n++] = cases[i].wheel ? wheel : ball;
        args[n++] = "-o";
        args[n++] = out_dir;
        for (size_t k = 0; k < 4 && cases[i].sets[k]; ++k) {
            args[n++] = "--set";
            args[n++] = cases[i].sets[k];
        }
        args[n] = NULL;
        text out = {0}, err = {0};
        int status = cli(args, &out, &err);
        ck_assert_msg(status == 2, "case %zu: exit %d, expected 2\nstderr:\n%s", i, status, err.s);
        ck_assert_msg(strstr(err.s, cases[i].want) != NULL, "case %zu: expected \"%s\" in\n%s", i,
                      cases[i].want, err.s);
        ck_assert_msg(access(out_dir, F_OK) != 0, "case %zu: %s was written", i, out_dir);
        free(out.s);
        free(err.s);
    }
}
END_TEST

/* A quoted --set value longer than the 1200-byte buffer it once went
 * through arrives whole (once cut: "not valid TOML"). */
START_TEST(long_set_value_arrives_whole) {
    char ball[512], out_dir[600], record[700], set[3000];
    write_config("ball.toml", BALL, ball, sizeof ball);
    snprintf(out_dir, sizeof out_dir, "%s/long", tmp_dir);
    char title[2501];
    for (size_t i = 0; i < 2500; ++i) title[i] = (char)('a' + i % 26);
    title[2500] = '\0';
    snprintf(set, sizeof set, "title=\"%s\"", title);
    const char *args[] = {"run", ball, "-o", out_dir, "--set", set, NULL};
    text out = {0}, err = {0};
    int status = cli(args, &out, &err);
    ck_assert_msg(status == 0, "exit %d\n%s", status, err.s);
    snprintf(record, sizeof record, "%s/run.toml", out_dir);
    FILE *f = fopen(record, "r");
    ck_assert_msg(f != NULL, "%s: %s", record, strerror(errno));
    text rec = {0};
    char chunk[4096];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) text_add(&rec, chunk, r);
    fclose(f);
    char want[2600];
    snprintf(want, sizeof want, "title = \"%s\"", title);
    ck_assert_msg(strstr(rec.s, want) != NULL, "run.toml lacks the whole title");
    free(rec.s);
    free(out.s);
    free(err.s);
}
END_TEST

/* The bounds are not too tight: a grid of exactly run.max_samples
 * samples, and a fixed step as long as the run, still run. */
START_TEST(bounds_admit_their_limits) {
    char ball[512], wheel[512], out_dir[600];
    write_config("ball.toml", BALL, ball, sizeof ball);
    write_config("wheel1.toml",
                 "[system]\nid = \"towed_wheel\"\n\n[friction]\nid = \"coulomb_regularized\"\n\n"
                 "[integrator]\nid = \"rk4\"\nh = 0.01\n\n[run]\nt_end = 0.01\noutput_dt = 0.005\n"
                 "\n[plot]\nenabled = false\n",
                 wheel, sizeof wheel);
    snprintf(out_dir, sizeof out_dir, "%s/limit", tmp_dir);
    const char *grid[] = {"run",   ball,
                          "-o",    out_dir,
                          "--set", "run.t_end=0.25",
                          "--set", "run.output_dt=0.125",
                          "--set", "run.max_samples=2",
                          NULL};
    const char *step[] = {"run", wheel, "-o", out_dir, NULL};
    const char **cases[] = {grid, step};
    for (size_t i = 0; i < 2; ++i) {
        text out = {0}, err = {0};
        int status = cli(cases[i], &out, &err);
        ck_assert_msg(status == 0, "case %zu: exit %d\n%s", i, status, err.s);
        free(out.s);
        free(err.s);
    }
}
END_TEST

int main(void) {
    unsetenv("NSDYN_PLUGIN_PATH");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("hostile_values");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 120); /* a hang fails here */
    tcase_add_test(tc, nonfinite_refused_unless_declared);
    tcase_add_test(tc, nonfinite_default_is_a_declaration_problem);
    tcase_add_test(tc, every_declared_real_refuses_nonfinite);
    tcase_add_test(tc, hostile_command_lines_are_config_errors);
    tcase_add_test(tc, long_set_value_arrives_whole);
    tcase_add_test(tc, bounds_admit_their_limits);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
