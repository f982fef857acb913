/* Conformance: every plugin built with nsdyn loads through the registry and
 * honours the ABI contract (descriptor fields, parameter declarations,
 * create/destroy with defaults, kind-specific invariants); and the loader
 * reports each broken plugin with one clear line. */
#define _GNU_SOURCE
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "conformance.h"
#include "params.h"
#include "registry.h"
#include "test_util.h"

static nsd_registry reg;

static void load_builtin(void) {
    unsetenv("NSDYN_PLUGIN_PATH");
    nsd_diag diag = {0};
    const char *dir = nsd_builtin_plugin_dir();
    size_t problems = nsd_registry_scan(&reg, &dir, 1, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    ck_assert_uint_eq(problems, 0);
    nsd_diag_free(&diag);
}

/* Every built-in plugin passes the conformance checks (conformance.h, the
 * checks `nsdyn check` runs); here in process, without the allocation
 * probe (the CLI test below runs them with it). */
START_TEST(every_builtin_plugin_conforms) {
    load_builtin();
    const char *expected[] = {
        "towed_wheel",   "point_mass",  "coulomb",       "coulomb_regularized",
        "lugre",         "stribeck",    "hunt_crossley", "hertz",
        "spring_damper", "bistiffness", "rk4",           "dopri5",
        "bdf",           "newton",      "poisson",       "kane_impulse",
        "moreau",        "walker2",     "curb_wheel",    "sphere_planes"};
    size_t n_expected = sizeof expected / sizeof expected[0];
    ck_assert_uint_ge(reg.n, n_expected);
    for (size_t i = 0; i < n_expected; ++i)
        ck_assert_msg(nsd_registry_find(&reg, expected[i]), "missing %s", expected[i]);
    for (size_t i = 0; i < reg.n; ++i) {
        const nsdyn_plugin_info *p = reg.plugins[i].info;
        printf("checking %-22s %s\n", p->id, nsd_kind_name(p->kind));
        ck_assert_uint_eq(p->abi_major, NSDYN_ABI_MAJOR);
        ck_assert_msg(p->summary && strlen(p->summary) < 110, "%s: summary not one line", p->id);
        nsd_diag diag = {0};
        nsd_conformance r = nsd_conformance_check(p, NULL, &diag);
        ck_assert_msg(r.findings == 0, "%s", diag.n ? diag.lines[0] : "");
        ck_assert_msg(r.instance_checked, "%s: only its declarations were checked", p->id);
        nsd_diag_free(&diag);
    }
    nsd_registry_close(&reg);
}
END_TEST

/* `nsdyn check FILES` with stdout into out; returns the exit status. */
static int check_cli(const char *files, char *out, size_t len) {
    char args[4096];
    snprintf(args, sizeof args, "check %s", files);
    return test_nsdyn(args, out, len);
}

/* The CLI on the built-in plugins: all pass, and in a build without
 * sanitizers the hot paths ran under the allocation probe. */
START_TEST(check_command_passes_the_builtin_plugins) {
    static char out[1 << 16];
    char files[600];
    snprintf(files, sizeof files, "'%s'/*.so", nsd_builtin_plugin_dir());
    int st = check_cli(files, out, sizeof out);
    ck_assert_msg(st == 0, "exit %d:\n%s", st, out);
    /* "ok", and in a sanitizer build "ok (allocations not checked)" */
    ck_assert_msg(strstr(out, "system       towed_wheel            ok"), "%s", out);
#ifndef NSDYN_TEST_SANITIZE
    ck_assert_msg(!strstr(out, "this nsdyn has no allocation probe"), "%s", out);
    ck_assert_msg(strstr(out, "integrator   rk4                    ok\n"), "%s", out);
#endif
}
END_TEST

/* A plugin that breaks the contract is named with the check it fails:
 * v' quadratic in the contact force; an allocation in derivatives() (the
 * probe must see a plugin's malloc, or the check would pass vacuously). */
START_TEST(check_command_finds_broken_contracts) {
    static char out[1 << 14];
    int st = check_cli(NSDYN_TEST_FIXTURE_DIR "/contract/nsdyn_system_faulty_not_affine.so", out,
                       sizeof out);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "system 'faulty_not_affine': derivatives() is not affine in the "
                              "contact forces"),
                  "%s", out);
#ifndef NSDYN_TEST_SANITIZE
    st =
        check_cli(NSDYN_TEST_FIXTURE_DIR "/contract/nsdyn_system_faulty_alloc.so", out, sizeof out);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "system 'faulty_alloc': derivatives() allocated 1 times"), "%s", out);
#endif
}
END_TEST

/* Scan one fixture folder and return its single diagnostic line. */
static char *scan_fixture(const char *name) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", NSDYN_TEST_FIXTURE_DIR, name);
    nsd_registry r = {0};
    nsd_diag diag = {0};
    const char *d = dir;
    size_t problems = nsd_registry_scan(&r, &d, 1, &diag);
    ck_assert_uint_eq(problems, 1);
    ck_assert_uint_eq(diag.n, 1);
    char *line = strdup(diag.lines[0]);
    nsd_diag_free(&diag);
    nsd_registry_close(&r);
    return line;
}

static void expect_line(const char *fixture, const char *file, const char *message) {
    char *line = scan_fixture(fixture), want[1024];
    snprintf(want, sizeof want, "%s/%s/%s: %s", NSDYN_TEST_FIXTURE_DIR, fixture, file, message);
    ck_assert_str_eq(line, want);
    free(line);
}

START_TEST(loader_missing_entry_point) {
    expect_line("no_entry", "nsdyn_fixture_no_entry.so",
                "no entry point 'nsdyn_plugin_entry' (not an nsdyn plugin?)");
}
END_TEST

START_TEST(loader_abi_mismatch) {
    char msg[256]; /* the host's own version: minors grow as fields are appended */
    snprintf(msg, sizeof msg,
             "ABI mismatch: plugin 'fixture_friction' was built for nsdyn ABI 99.0, this host "
             "speaks %u.%u",
             NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    expect_line("abi", "nsdyn_fixture_abi.so", msg);
}
END_TEST

START_TEST(loader_unknown_kind) {
    expect_line("kind", "nsdyn_fixture_kind.so",
                "plugin 'fixture_friction' declares unknown kind 9");
}
END_TEST

START_TEST(loader_descriptor_too_small) {
    char msg[256];
    snprintf(msg, sizeof msg,
             "plugin 'fixture_friction': friction law descriptor is 40 bytes, ABI 2.0 needs at "
             "least %zu",
             offsetof(nsdyn_friction_law, bounds) + sizeof(void *));
    expect_line("size", "nsdyn_fixture_size.so", msg);
}
END_TEST

START_TEST(loader_duplicate_id) {
    char *line = scan_fixture("duplicate"), want[1024];
    snprintf(want, sizeof want,
             "duplicate plugin id 'twin_friction': %s/duplicate/nsdyn_fixture_dup_a.so and "
             "%s/duplicate/nsdyn_fixture_dup_b.so",
             NSDYN_TEST_FIXTURE_DIR, NSDYN_TEST_FIXTURE_DIR);
    ck_assert_str_eq(line, want);
    free(line);
}
END_TEST

START_TEST(loader_unreadable_file) {
    char dir[] = "/tmp/nsdyn-badso-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[600];
    snprintf(path, sizeof path, "%s/garbage.so", dir);
    FILE *f = fopen(path, "w");
    fputs("not an ELF file\n", f);
    fclose(f);
    nsd_registry r = {0};
    nsd_diag diag = {0};
    const char *d = dir;
    ck_assert_uint_eq(nsd_registry_scan(&r, &d, 1, &diag), 1);
    char prefix[700];
    snprintf(prefix, sizeof prefix, "%s: cannot load plugin: ", path);
    ck_assert_msg(strncmp(diag.lines[0], prefix, strlen(prefix)) == 0, "%s", diag.lines[0]);
    ck_assert_ptr_null(strchr(diag.lines[0], '\n'));
    nsd_diag_free(&diag);
    nsd_registry_close(&r);
    remove(path);
    rmdir(dir);
}
END_TEST

/* ---- plugins are checked, not trusted (issue 10) -------------------------
 * Each faulty descriptor below crashed the old loader or the host (a NULL
 * callback called, a count trusted, a size sum wrapped). Now the loader
 * refuses it with one line that names the file, both when `nsdyn plugins`
 * scans the folder and when a run uses it; runs that do not use a broken
 * file are not stopped by it and never open it. */

static char tmp[64];

static void tmp_make(void) {
    snprintf(tmp, sizeof tmp, "/tmp/nsdyn-conf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static void tmp_remove(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
}

static int exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_msg(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* tmp/<sub>/<as>: a link to fixture `name` (nsdyn_fixture_<name>.so). */
static void place(const char *name, const char *sub, const char *as) {
    char dir[256], from[512], to[512];
    snprintf(dir, sizeof dir, "%s/%s", tmp, sub);
    mkdir(dir, 0777);
    snprintf(from, sizeof from, "%s/%s/nsdyn_fixture_%s.so", NSDYN_TEST_FIXTURE_DIR, name, name);
    snprintf(to, sizeof to, "%s/%s", dir, as);
    ck_assert_int_eq(symlink(from, to), 0);
}

/* The CLI through the shell, stdout dropped, stderr kept in err_text;
 * `env` is a prefix of VAR=value words. Returns the exit status (the
 * shell's 128 + signal when the child crashed). */
static char err_text[1 << 15];
static int nsdyn_sh(const char *env, const char *args) {
    char cmd[4096], err_path[300];
    snprintf(err_path, sizeof err_path, "%s/stderr", tmp);
    snprintf(cmd, sizeof cmd,
             "env -u NSDYN_NO_CONFIG_PLUGINS -u NSDYN_TRUST_CONFIG_PLUGINS -u NSDYN_PLUGIN_PATH %s "
             "'%s' %s >/dev/null 2>'%s'",
             env, NSDYN_TEST_BINARY, args, err_path);
    int st = system(cmd);
    err_text[0] = '\0';
    FILE *f = fopen(err_path, "r");
    if (f) {
        size_t k = fread(err_text, 1, sizeof err_text - 1, f);
        err_text[k] = '\0';
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static size_t lines_of(const char *text) {
    size_t n = 0;
    for (const char *c = text; *c; ++c) n += *c == '\n';
    return n;
}

/* Configs that use each kind of fixture, with shipped plugins for the rest. */
static const char *config_for(const char *section) {
    if (!strcmp(section, "system"))
        return "[system]\nid = \"fixture_system\"\n[integrator]\nid = \"rk4\"\nh = 0.01\n"
               "[run]\nt_end = 0.1\nprogress = false\n[plot]\nenabled = false\n";
    if (!strcmp(section, "contact"))
        return "[system]\nid = \"point_mass\"\n[contact]\nid = "
               "\"fixture_contact\"\n[integrator]\nid = \"rk4\"\n"
               "[run]\nt_end = 0.1\nprogress = false\n[plot]\nenabled = false\n";
    if (!strcmp(section, "integrator"))
        return "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"coulomb_regularized\"\n"
               "[integrator]\nid = \"fixture_integrator\"\n[run]\nt_end = 0.1\nprogress = "
               "false\n[plot]\nenabled = false\n";
    return "[system]\nid = \"towed_wheel\"\n[friction]\nid = "
           "\"fixture_friction\"\n[integrator]\nid = \"rk4\"\n"
           "h = 0.01\n[run]\nt_end = 0.1\nprogress = false\n[plot]\nenabled = false\n";
}

/* Run a config that uses fixture `name`, found on NSDYN_PLUGIN_PATH under
 * the name nsdyn_<section>_<id>.so: the CLI must exit 2 with `want` in
 * its errors, in one line per error, and write nothing. */
static void run_expect_refusal(const char *name, const char *section, const char *id,
                               const char *want, const char *want2) {
    tmp_make();
    char as[128], cfg[256], args[1024], env[512], out[256];
    snprintf(as, sizeof as, "nsdyn_%s_%s.so", section, id);
    place(name, "p", as);
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    write_file(cfg, config_for(section));
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(args, sizeof args, "run '%s' -o '%s' -q", cfg, out);
    snprintf(env, sizeof env, "NSDYN_PLUGIN_PATH='%s/p'", tmp);
    int status = nsdyn_sh(env, args);
    ck_assert_msg(status == 2, "%s: exit %d (want 2): %s", name, status, err_text);
    ck_assert_msg(strstr(err_text, want), "%s: stderr lacks \"%s\":\n%s", name, want, err_text);
    ck_assert_msg(!want2 || strstr(err_text, want2), "%s: stderr lacks \"%s\":\n%s", name, want2,
                  err_text);
    ck_assert_uint_eq(lines_of(err_text), 1);
    ck_assert(!exists(out));
    tmp_remove();
}

/* A descriptor defect: `nsdyn plugins`' scan gives one line naming the
 * file, and a run that uses the plugin stops with it (no crash). */
static void descriptor_refused(const char *name, const char *section, const char *id,
                               const char *what) {
    char file[128], msg[512], want[256], want2[1024];
    snprintf(file, sizeof file, "nsdyn_fixture_%s.so", name);
    snprintf(msg, sizeof msg, "plugin '%s': %s", id, what);
    expect_line(name, file, msg);
    /* c.toml:L:C: [section]: cannot use 'id': <tmp>/p/nsdyn_<section>_<id>.so: plugin 'id': what */
    snprintf(want, sizeof want, "[%s]: cannot use '%s': /tmp/nsdyn-conf-", section, id);
    snprintf(want2, sizeof want2, "/p/nsdyn_%s_%s.so: %s\n", section, id, msg);
    run_expect_refusal(name, section, id, want, want2);
}

START_TEST(null_create_refused) {
    descriptor_refused("null_create", "friction", "fixture_friction",
                       "required callback create() is NULL");
}
END_TEST

START_TEST(null_force_refused) {
    descriptor_refused("null_force", "friction", "fixture_friction",
                       "required callback force() is NULL");
}
END_TEST

START_TEST(null_layout_refused) {
    descriptor_refused("null_layout", "system", "fixture_system",
                       "required callback layout() is NULL");
}
END_TEST

START_TEST(null_derivatives_refused) {
    descriptor_refused("null_derivatives", "system", "fixture_system",
                       "required callback derivatives() is NULL");
}
END_TEST

START_TEST(null_params_table_refused) {
    descriptor_refused("params_null", "friction", "fixture_friction",
                       "declares 2 parameters but its params table is NULL");
}
END_TEST

START_TEST(too_many_params_refused) {
    descriptor_refused("many_params", "friction", "fixture_friction",
                       "declares 1000 parameters, more than the 256 a plugin may have");
}
END_TEST

START_TEST(null_param_unit_refused) {
    descriptor_refused("null_unit", "friction", "fixture_friction",
                       "parameter 'mu' has a NULL unit (a short text; \"1\" for dimensionless)");
}
END_TEST

START_TEST(bad_param_name_refused) {
    descriptor_refused(
        "param_name", "friction", "fixture_friction",
        "parameter 1 has an invalid name (expected [A-Za-z0-9_]+, at most 63 characters)");
}
END_TEST

START_TEST(choice_without_choices_refused) {
    descriptor_refused("choices_null", "friction", "fixture_friction",
                       "choice parameter 'mode' has no choices list (NULL)");
}
END_TEST

START_TEST(null_summary_refused) {
    descriptor_refused("null_summary", "friction", "fixture_friction",
                       "has a NULL summary (expected one line of text)");
}
END_TEST

START_TEST(compliant_law_without_normal_force_refused) {
    descriptor_refused("no_normal_force", "contact", "fixture_contact",
                       "declares NSDYN_CAP_COMPLIANT_NORMAL but normal_force() is NULL");
}
END_TEST

START_TEST(integrator_without_step_refused) {
    descriptor_refused("null_step", "integrator", "fixture_integrator",
                       "required callback step() is NULL");
}
END_TEST

/* Run-time values: what layout() and n_states() return is checked before
 * the host sizes a buffer by it. */
START_TEST(fixture_system_runs) {
    /* The fixture system itself works: the layout tests below fail on the
     * defect alone. */
    tmp_make();
    place("ok_system", "p", "nsdyn_system_fixture_system.so");
    char cfg[256], args[1024], env[512];
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    write_file(cfg, config_for("system"));
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q", cfg, tmp);
    snprintf(env, sizeof env, "NSDYN_PLUGIN_PATH='%s/p'", tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    tmp_remove();
}
END_TEST

START_TEST(null_channel_name_refused) {
    run_expect_refusal("channel_name", "system", "fixture_system",
                       "[system] (fixture_system): the plugin reported an invalid layout: q "
                       "channel 1 has a NULL name",
                       NULL);
}
END_TEST

START_TEST(null_channel_unit_refused) {
    run_expect_refusal("channel_unit", "system", "fixture_system",
                       "[system] (fixture_system): the plugin reported an invalid layout: output "
                       "channel 'x2' has a NULL unit",
                       NULL);
}
END_TEST

START_TEST(huge_nq_refused) {
    run_expect_refusal("huge_nq", "system", "fixture_system",
                       "[system] (fixture_system): the plugin reported an invalid layout: nq = "
                       "1099511627776, nv = 1 (at most 100000 each)",
                       NULL);
}
END_TEST

START_TEST(wrapping_state_count_refused) {
    run_expect_refusal(
        "n_states", "friction", "fixture_friction",
        "[friction] (fixture_friction): the plugin reported an invalid state count: n_states(2) = "
        "18446744073709551615 internal states per contact (at most 64)",
        NULL);
}
END_TEST

static const char builtin_config[] =
    "[system]\nid = \"towed_wheel\"\n[friction]\nid = \"coulomb_regularized\"\n[integrator]\nid = "
    "\"rk4\"\n"
    "h = 0.01\n[run]\nt_end = 0.1\nprogress = false\n[plot]\nenabled = false\n";

/* A non-plugin .so, a wrong-ABI plugin and faulty descriptors on the path,
 * indexed, named for an id, or neither: a config that uses none of them
 * runs; `describe` of another plugin works; `nsdyn plugins` reports each
 * broken file in one line and exits 2. */
START_TEST(broken_files_do_not_stop_other_runs) {
    tmp_make();
    char path[512], cfg[256], args[1024], env[2048];
    place("null_create", "p", "nsdyn_friction_fixture_friction.so");
    place("null_layout", "p", "nsdyn_system_fixture_system.so");
    place("null_force", "q", "listed.so");
    snprintf(path, sizeof path, "%s/q/listed.so" NSD_INDEX_SUFFIX, tmp);
    write_file(path, "nsdyn-index 1\nfriction broken_friction 0x00009000 0x00000000 0x0\n");
    snprintf(path, sizeof path, "%s/p/garbage.so", tmp);
    write_file(path, "not an ELF file\n");
    snprintf(path, sizeof path, "%s/p/nsdyn_friction_junk.so", tmp);
    write_file(path, "not an ELF file either\n");
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    write_file(cfg, builtin_config);
    const char *F = NSDYN_TEST_FIXTURE_DIR;
    snprintf(env, sizeof env,
             "NSDYN_PLUGIN_PATH='%s/no_entry:%s/abi:%s/kind:%s/size:%s/many_params:%s/p:%s/q'", F,
             F, F, F, F, tmp, tmp);
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q", cfg, tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    ck_assert_msg(nsdyn_sh(env, "describe coulomb_regularized") == 0, "%s", err_text);
    ck_assert_int_eq(nsdyn_sh(env, "plugins"), 2);
    /* One line per broken file: 5 fixtures, 2 links, the indexed one, 2 non-ELF files. */
    ck_assert_msg(lines_of(err_text) == 10, "%s", err_text);
    const char *named[] = {"nsdyn_fixture_no_entry.so",
                           "nsdyn_fixture_abi.so",
                           "nsdyn_fixture_kind.so",
                           "nsdyn_fixture_size.so",
                           "nsdyn_fixture_many_params.so",
                           "p/nsdyn_friction_fixture_friction.so",
                           "p/nsdyn_system_fixture_system.so",
                           "q/listed.so",
                           "p/garbage.so",
                           "p/nsdyn_friction_junk.so"};
    for (size_t i = 0; i < NSDYN_COUNT(named); ++i)
        ck_assert_msg(strstr(err_text, named[i]), "%s:\n%s", named[i], err_text);
    tmp_remove();
}
END_TEST

/* `nsdyn plugins` used to list a plugin with a NULL create() and exit 0. */
START_TEST(plugins_command_fails_on_a_broken_file) {
    tmp_make();
    char env[512], want[512];
    snprintf(env, sizeof env, "NSDYN_PLUGIN_PATH='%s/null_create'", NSDYN_TEST_FIXTURE_DIR);
    ck_assert_int_eq(nsdyn_sh(env, "plugins"), 2);
    snprintf(want, sizeof want,
             "error: %s/null_create/nsdyn_fixture_null_create.so: plugin 'fixture_friction': "
             "required callback create() is NULL\n",
             NSDYN_TEST_FIXTURE_DIR);
    ck_assert_str_eq(err_text, want);
    tmp_remove();
}
END_TEST

/* Only the shared objects a run uses are opened: a plugin whose
 * constructor leaves a mark is on the path under its own name, indexed
 * under another, and unindexed, and in the config's plugin_path; a run
 * that does not use it leaves no mark. One that uses it does. */
START_TEST(unused_plugins_are_never_opened) {
    tmp_make();
    char marker[256], cfg[256], path[512], args[1024], env[2048], text[1024];
    snprintf(marker, sizeof marker, "%s/marker", tmp);
    place("marker", "p", "nsdyn_friction_marker_friction.so");
    place("marker", "r", "unindexed.so");
    place("marker", "c", "nsdyn_friction_marker_friction.so");
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    snprintf(text, sizeof text, "plugin_path = [\"c\"]\n%s", builtin_config);
    write_file(cfg, text);
    snprintf(env, sizeof env,
             "NSDYN_FIXTURE_MARKER='%s' NSDYN_PLUGIN_PATH='%s/p:%s/r' NSDYN_TRUST_CONFIG_PLUGINS=1",
             marker, tmp, tmp);
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q", cfg, tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    ck_assert_msg(!exists(marker), "a run that does not use marker_friction opened it");
    ck_assert_msg(nsdyn_sh(env, "describe coulomb") == 0, "%s", err_text);
    ck_assert(!exists(marker));
    /* Indexed under another name (the host writes the index: it opens the file). */
    place("marker", "q", "other_name.so");
    snprintf(args, sizeof args, "index '%s/q/other_name.so'", tmp);
    ck_assert_msg(nsdyn_sh("", args) == 0, "%s", err_text);
    snprintf(path, sizeof path, "%s/q/other_name.so" NSD_INDEX_SUFFIX, tmp);
    ck_assert(exists(path));
    remove(marker);
    snprintf(env, sizeof env,
             "NSDYN_FIXTURE_MARKER='%s' NSDYN_PLUGIN_PATH='%s/q' NSDYN_TRUST_CONFIG_PLUGINS=1",
             marker, tmp);
    snprintf(args, sizeof args, "run '%s' -o '%s/out1' -q", cfg, tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    ck_assert(!exists(marker));
    /* Used: opened (q, p and c hold the same file, found once). */
    snprintf(args, sizeof args, "run '%s' -o '%s/out2' -q --set friction.id=marker_friction", cfg,
             tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    ck_assert(exists(marker));
    tmp_remove();
}
END_TEST

/* --no-config-plugins and NSDYN_NO_CONFIG_PLUGINS=1 refuse a config's
 * plugin_path before anything in it is opened. */
START_TEST(config_plugin_path_can_be_refused) {
    tmp_make();
    char marker[256], cfg[256], args[1024], env[512], out[256], text[1024];
    snprintf(marker, sizeof marker, "%s/marker", tmp);
    place("marker", "c", "nsdyn_friction_marker_friction.so");
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    snprintf(text, sizeof text, "plugin_path = [\"c\"]\n%s", builtin_config);
    write_file(cfg, text);
    snprintf(out, sizeof out, "%s/out", tmp);
    const char *want =
        "c.toml:1:1: plugin_path: refused (--no-config-plugins or NSDYN_NO_CONFIG_PLUGINS is set)";
    snprintf(env, sizeof env, "NSDYN_FIXTURE_MARKER='%s'", marker);
    snprintf(args, sizeof args,
             "run '%s' -o '%s' -q --set friction.id=marker_friction --no-config-plugins", cfg, out);
    ck_assert_int_eq(nsdyn_sh(env, args), 2);
    ck_assert_msg(strstr(err_text, want), "%s", err_text);
    ck_assert_uint_eq(lines_of(err_text), 1);
    ck_assert(!exists(marker) && !exists(out));
    snprintf(env, sizeof env, "NSDYN_FIXTURE_MARKER='%s' NSDYN_NO_CONFIG_PLUGINS=1", marker);
    snprintf(args, sizeof args, "compare '%s' -o '%s' -q --set friction.id=marker_friction", cfg,
             out);
    ck_assert_int_eq(nsdyn_sh(env, args), 2);
    ck_assert_msg(strstr(err_text, want), "%s", err_text);
    ck_assert(!exists(marker) && !exists(out));
    /* Allowed, the same config runs the plugin in its plugin_path. */
    snprintf(env, sizeof env,
             "NSDYN_FIXTURE_MARKER='%s' NSDYN_NO_CONFIG_PLUGINS=0 NSDYN_TRUST_CONFIG_PLUGINS=1",
             marker);
    snprintf(args, sizeof args, "run '%s' -o '%s' -q --set friction.id=marker_friction", cfg, out);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    ck_assert(exists(marker));
    tmp_remove();
}
END_TEST

/* An index that no longer matches its file, and two files that declare
 * one id: only the runs that use the id stop, with a line naming the
 * files. `nsdyn index` refuses a broken plugin and writes no index. */
START_TEST(stale_index_and_duplicates_stop_only_their_users) {
    tmp_make();
    char path[512], cfg[256], args[1024], env[512];
    place("marker", "p", "nsdyn_x.so");
    snprintf(path, sizeof path, "%s/p/nsdyn_x.so" NSD_INDEX_SUFFIX, tmp);
    write_file(
        path, "# hand-written\nnsdyn-index 1\nfriction ghost_friction 0x00009000 0x00000000 0x0\n");
    snprintf(cfg, sizeof cfg, "%s/c.toml", tmp);
    write_file(cfg, builtin_config);
    snprintf(env, sizeof env, "NSDYN_PLUGIN_PATH='%s/p:%s/duplicate'", tmp, NSDYN_TEST_FIXTURE_DIR);
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q", cfg, tmp);
    ck_assert_msg(nsdyn_sh(env, args) == 0, "%s", err_text);
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q --set friction.id=ghost_friction", cfg,
             tmp);
    ck_assert_int_eq(nsdyn_sh(env, args), 2);
    ck_assert_msg(strstr(err_text,
                         "/p/nsdyn_x.so: its index lists a friction law 'ghost_friction', but the "
                         "file holds no plugin with that id (stale index"),
                  "%s", err_text);
    snprintf(args, sizeof args, "run '%s' -o '%s/out' -q --set friction.id=twin_friction", cfg,
             tmp);
    ck_assert_int_eq(nsdyn_sh(env, args), 2);
    ck_assert_msg(strstr(err_text, "duplicate plugin id 'twin_friction': " NSDYN_TEST_FIXTURE_DIR
                                   "/duplicate/nsdyn_fixture_dup_a.so and " NSDYN_TEST_FIXTURE_DIR
                                   "/duplicate/nsdyn_fixture_dup_b.so"),
                  "%s", err_text);
    /* nsdyn plugins sees the stale index (and the duplicate). */
    ck_assert_int_eq(nsdyn_sh(env, "plugins"), 2);
    ck_assert_msg(strstr(err_text, "nsdyn_x.so: its index") && strstr(err_text, "is stale"), "%s",
                  err_text);
    /* nsdyn index: a broken plugin gets no index, and loses a stale one. */
    place("null_force", "p", "nsdyn_y.so");
    snprintf(path, sizeof path, "%s/p/nsdyn_y.so" NSD_INDEX_SUFFIX, tmp);
    write_file(path, "nsdyn-index 1\nfriction fixture_friction 0x00009000 0x00000000 0x0\n");
    snprintf(args, sizeof args, "index '%s/p/nsdyn_y.so'", tmp);
    ck_assert_int_eq(nsdyn_sh("", args), 2);
    ck_assert_msg(strstr(err_text, "required callback force() is NULL"), "%s", err_text);
    ck_assert(!exists(path));
    tmp_remove();
}
END_TEST

/* Every shipped plugin has an index that matches it (the build writes it). */
START_TEST(builtin_indexes_match_their_plugins) {
    load_builtin();
    nsd_diag diag = {0};
    size_t problems = nsd_registry_audit(&reg, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    ck_assert_uint_eq(problems, 0);
    nsd_diag_free(&diag);
    nsd_registry_close(&reg);
    /* And an index-filled registry finds each of them, opening its file. */
    nsd_registry lazy = {0}, all = {0};
    const char *dir = nsd_builtin_plugin_dir();
    nsd_registry_index(&lazy, &dir, 1);
    ck_assert_uint_eq(lazy.n_skipped, 0);
    load_builtin();
    all = reg;
    ck_assert_uint_eq(lazy.n, all.n);
    for (size_t i = 0; i < all.n; ++i) {
        const nsd_plugin *p = nsd_registry_find(&lazy, all.plugins[i].info->id);
        ck_assert_msg(p && p->loaded, "%s", all.plugins[i].info->id);
        ck_assert_str_eq(p->path, all.plugins[i].path);
    }
    nsd_registry_close(&lazy);
    nsd_registry_close(&reg);
}
END_TEST

int main(void) {
    Suite *s = suite_create("conformance");
    TCase *tc = tcase_create("plugins");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_builtin_plugin_conforms);
    tcase_add_test(tc, check_command_passes_the_builtin_plugins);
    tcase_add_test(tc, check_command_finds_broken_contracts);
    tcase_add_test(tc, loader_missing_entry_point);
    tcase_add_test(tc, loader_abi_mismatch);
    tcase_add_test(tc, loader_unknown_kind);
    tcase_add_test(tc, loader_descriptor_too_small);
    tcase_add_test(tc, loader_duplicate_id);
    tcase_add_test(tc, loader_unreadable_file);
    tcase_add_test(tc, null_create_refused);
    tcase_add_test(tc, null_force_refused);
    tcase_add_test(tc, null_layout_refused);
    tcase_add_test(tc, null_derivatives_refused);
    tcase_add_test(tc, null_params_table_refused);
    tcase_add_test(tc, too_many_params_refused);
    tcase_add_test(tc, null_param_unit_refused);
    tcase_add_test(tc, bad_param_name_refused);
    tcase_add_test(tc, choice_without_choices_refused);
    tcase_add_test(tc, null_summary_refused);
    tcase_add_test(tc, compliant_law_without_normal_force_refused);
    tcase_add_test(tc, integrator_without_step_refused);
    tcase_add_test(tc, fixture_system_runs);
    tcase_add_test(tc, null_channel_name_refused);
    tcase_add_test(tc, null_channel_unit_refused);
    tcase_add_test(tc, huge_nq_refused);
    tcase_add_test(tc, wrapping_state_count_refused);
    tcase_add_test(tc, broken_files_do_not_stop_other_runs);
    tcase_add_test(tc, plugins_command_fails_on_a_broken_file);
    tcase_add_test(tc, unused_plugins_are_never_opened);
    tcase_add_test(tc, config_plugin_path_can_be_refused);
    tcase_add_test(tc, stale_index_and_duplicates_stop_only_their_users);
    tcase_add_test(tc, builtin_indexes_match_their_plugins);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    return failed;
}
