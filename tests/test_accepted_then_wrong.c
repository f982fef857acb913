/* Values the host accepted and then ran wrong (issue 22), each over
 * randomized cases through the CLI:
 *   - a plugin's NaN in its first evaluation: the plugin's message and a
 *     failed run (exit 3), not a config error at [integrator] (exit 2)
 *     with the message dropped;
 *   - a rigid contact that starts penetrated: a config error (exit 2)
 *     naming the contact, before any output folder, not a failed run;
 *   - `crossed` (sphere_planes) fires only past the top of a rise, never
 *     at the foot of an incline (floor -> incline profiles);
 *   - `describe` lists every capability a plugin declares. */
#define _GNU_SOURCE
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"

#define MISTAKES NSDYN_TEST_FIXTURE_DIR "/mistakes"

static char out[1 << 16];
static char dir[] = "/tmp/nsdyn-accepted-XXXXXX";

/* `nsdyn ARGS` (with NSDYN_PLUGIN_PATH=MISTAKES), output into out; the exit status. */
static int nsdyn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int nsdyn(const char *fmt, ...) {
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "NSDYN_PLUGIN_PATH='%s' '%s' %s 2>&1", MISTAKES, NSDYN_TEST_BINARY,
             args);
    FILE *p = popen(cmd, "r");
    ck_assert(p);
    size_t k = fread(out, 1, sizeof out - 1, p);
    out[k] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void write_config(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert(f);
    fputs(text, f);
    fclose(f);
}

static double uniform(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (rand_r(seed) / (double)RAND_MAX);
}

static const char *const integrators[] = {"id = \"dopri5\"", "id = \"moreau\"\nh = 1e-3",
                                          "id = \"bdf\""};

/* block_nan_derivative: v' is NaN wherever |theta| > 0.045 rad. Started
 * tilted (above the ground), its first evaluation is NaN. */
START_TEST(a_nan_at_the_start_keeps_the_plugins_message) {
    ck_assert(mkdtemp(dir));
    unsigned seed = 22u;
    char cfg[600], text[1200];
    snprintf(cfg, sizeof cfg, "%s/nan.toml", dir);
    for (int trial = 0; trial < 6; ++trial) {
        double th = uniform(&seed, 0.05, 1.0) * (trial % 2 ? -1 : 1), y = uniform(&seed, 1, 3);
        snprintf(text, sizeof text,
                 "[system]\nid = \"block_nan_derivative\"\n[contact]\nid = \"newton\"\ne = 0.5\n"
                 "[integrator]\n%s\n[initial]\ntheta = %.17g\ny = %.17g\n[run]\nt_end = "
                 "0.1\nprogress = false\nprecheck = false\n[plot]\nenabled = false\n",
                 integrators[trial % 3], th, y);
        write_config(cfg, text);
        int st = nsdyn("run '%s' -o '%s/o%d' -q", cfg, dir, trial);
        ck_assert_msg(st == 3, "theta %g, %s: exit %d\n%s", th, integrators[trial % 3], st, out);
        ck_assert_msg(strstr(out, "non-finite derivative of 'omega'"), "%s", out);
        ck_assert_msg(!strstr(out, "[integrator]"), "%s", out);
    }
    /* with the precheck on (the default), the same is found before the run */
    int st = nsdyn("run '%s' -o '%s/p' -q --set run.precheck=true", cfg, dir);
    ck_assert_msg(st == 2 && strstr(out, "derivatives() gives a non-finite v'[2]"), "%d %s", st,
                  out);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* A plugin's NaN inside a run (block_nan_derivative: |theta| passes
 * 0.045 rad while it tilts at a random rate): exit 3, the plugin's reason
 * first, with the one time of the evaluation that failed; the message
 * named two or three different times (the last good step's, the
 * integrator's stage, the model's), with the integrator's account first. */
START_TEST(a_nan_inside_a_run_is_reported_with_one_time) {
    char d[] = "/tmp/nsdyn-nanrun-XXXXXX";
    ck_assert(mkdtemp(d));
    unsigned seed = 2206u;
    char cfg[600], text[1200];
    snprintf(cfg, sizeof cfg, "%s/nan.toml", d);
    for (int trial = 0; trial < 6; ++trial) {
        double om = uniform(&seed, 0.1, 2.0) * (trial % 2 ? -1 : 1), y = uniform(&seed, 2, 4);
        snprintf(text, sizeof text,
                 "[system]\nid = \"block_nan_derivative\"\n[contact]\nid = \"newton\"\ne = "
                 "0.5\n[integrator]\n%s\n[initial]\nomega = %.17g\ny = %.17g\n[run]\nt_end = "
                 "0.5\nprogress = false\nprecheck = false\n[plot]\nenabled = false\n",
                 integrators[trial % 3], om, y);
        write_config(cfg, text);
        int st = nsdyn("run '%s' -o '%s/o%d' -q", cfg, d, trial);
        ck_assert_msg(st == 3, "omega %g, %s: exit %d\n%s", om, integrators[trial % 3], st, out);
        const char *line = strstr(out, "error: the simulation failed: non-finite derivative");
        ck_assert_msg(line, "%s", out);
        const char *eol = strchr(line, '\n');
        size_t times = 0;
        for (const char *p = strstr(line, "t = "); p && (!eol || p < eol);
             p = strstr(p + 1, "t = "))
            times++;
        ck_assert_msg(times == 1, "%zu times in: %.*s", times, (int)(eol ? eol - line : 400), line);
    }
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* A block whose corner starts below the ground by more than the contact
 * tolerance, at random tilts and heights: exit 2 naming the corner, and
 * no output folder (nothing ran). */
START_TEST(initial_penetration_is_a_config_error) {
    char d[] = "/tmp/nsdyn-pen-XXXXXX";
    ck_assert(mkdtemp(d));
    unsigned seed = 7u;
    char cfg[600], text[1200], folder[700];
    snprintf(cfg, sizeof cfg, "%s/pen.toml", d);
    for (int trial = 0; trial < 6; ++trial) {
        double th = uniform(&seed, -0.5, 0.5);
        /* the lower corner at -depth: y = B cos th + A |sin th| - depth (A = 0.2, B = 0.4 m) */
        double depth = pow(10.0, uniform(&seed, -6, -1));
        double y = 0.4 * cos(th) + 0.2 * fabs(sin(th)) - depth;
        snprintf(text, sizeof text,
                 "[system]\nid = \"block_none\"\n[contact]\n%s\n"
                 "[integrator]\n%s\n[initial]\ntheta = %.17g\ny = %.17g\n[run]\nt_end = "
                 "0.1\nprogress = false\n[plot]\nenabled = false\n",
                 trial % 2 ? "id = \"newton\"\ne = 0.5" : "id = \"poisson\"",
                 integrators[trial % 3], th, y);
        write_config(cfg, text);
        snprintf(folder, sizeof folder, "%s/o%d", d, trial);
        int st = nsdyn("run '%s' -o '%s' -q", cfg, folder);
        ck_assert_msg(st == 2, "theta %g, depth %g: exit %d\n%s", th, depth, st, out);
        ck_assert_msg(strstr(out, "starts penetrated by") && strstr(out, "pen.toml:1:"), "%s", out);
        ck_assert_msg(strstr(out, th > 0 ? "contact 'left'" : "contact 'right'"), "%g: %s", th,
                      out);
        struct stat sb;
        char inc[800];
        snprintf(inc, sizeof inc, "%s.INCOMPLETE", folder);
        ck_assert_msg(stat(folder, &sb) != 0 && stat(inc, &sb) != 0, "%s was written", folder);
    }
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* A sphere dropped onto a floor that turns up into an incline (random
 * angle, start, speed): `crossed` means reaching the far rim, which this
 * profile has none of, so the run never ends with it (it did, 0.16 s
 * after the corner impact, with the sphere still bouncing). */
START_TEST(crossed_never_fires_at_the_foot_of_an_incline) {
    char d[] = "/tmp/nsdyn-cross-XXXXXX";
    ck_assert(mkdtemp(d));
    unsigned seed = 3u;
    char cfg[600], text[1200];
    snprintf(cfg, sizeof cfg, "%s/cross.toml", d);
    for (int trial = 0; trial < 5; ++trial) {
        double ang = uniform(&seed, 5, 40), x0 = uniform(&seed, -4, -1.5);
        double vx = uniform(&seed, 1, 4), z = uniform(&seed, 1.2, 2.5);
        snprintf(text, sizeof text,
                 "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [0.0, %.6g]\n"
                 "lengths = [10.0, 20.0]\nx_start = -10.0\nz_start = 0.0\nx0 = %.6g\nv0 = 0.0\n"
                 "[contact]\nid = \"newton\"\ne = 0.6\n[friction]\nid = \"coulomb\"\nmu_s = 0.3\n"
                 "mu_k = 0.3\n[integrator]\nid = \"dopri5\"\nrtol = 1e-8\natol = 1e-10\n"
                 "[initial]\nz = %.6g\nvx = %.6g\n[run]\nt_end = 2.0\nprogress = false\n"
                 "[plot]\nenabled = false\n",
                 ang, x0, z, vx);
        write_config(cfg, text);
        int st = nsdyn("run '%s' -o '%s/o%d' -q", cfg, d, trial);
        ck_assert_msg(st == 0, "angle %g: exit %d\n%s", ang, st, out);
        char toml[800];
        snprintf(toml, sizeof toml, "%s/o%d/run.toml", d, trial);
        FILE *f = fopen(toml, "r");
        ck_assert(f);
        size_t k = fread(out, 1, sizeof out - 1, f);
        out[k] = '\0';
        fclose(f);
        ck_assert_msg(!strstr(out, "\"crossed\""), "angle %g, x0 %g, vx %g:\n%s", ang, x0, vx, out);
    }
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* The first number after `key = ` in text, or NAN. */
static double value_of(const char *text, const char *key) {
    const char *p = strstr(text, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

static void read_text(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    ck_assert_msg(f, "%s", path);
    size_t k = fread(buf, 1, len - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* A sphere (b = 1 m) bouncing on a plane of random slope (-35..35 deg),
 * dropped from a random height with a random speed along it, Newton e =
 * 0.6 and Coulomb mu = 0.3, dopri5 at a random tolerance anywhere it
 * accepts (rtol 1e-4 .. 1): no impact is missed (it stopped with "an
 * impact was missed" at rtol 1e-3, 1e-2 on 20, -5, -10, -30 deg: the step
 * guard lost a rebound's high point to cancellation, step_guard.c
 * may_fall). The run completes, nothing is projected out, and the first
 * impact is at the closed-form time of the free flight (RK integrates a
 * parabola exactly, so to the guard's root tolerance at any rtol). */
START_TEST(no_missed_impact_on_an_incline_at_any_tolerance) {
    char d[] = "/tmp/nsdyn-incline-XXXXXX";
    ck_assert(mkdtemp(d));
    unsigned seed = 2026u;
    char cfg[600], text[1400], path[800];
    snprintf(cfg, sizeof cfg, "%s/incline.toml", d);
    for (int trial = 0; trial < 12; ++trial) {
        double ang = uniform(&seed, -35, 35), rtol = pow(10.0, uniform(&seed, -4, 0));
        double h = uniform(&seed, 0.5, 3), vx = uniform(&seed, -2, 2), x0 = 5.0;
        double a = ang * M_PI / 180, g = 3.71, b = 1.0;
        /* the centre above the plane z = x tan(a) (x_start = z_start = 0) by b + h along z */
        double z0 = x0 * tan(a) + h + b / cos(a);
        snprintf(text, sizeof text,
                 "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [%.17g]\n"
                 "lengths = [40.0]\nx_start = -20.0\nz_start = %.17g\nx0 = 5.0\nv0 = 0.0\n"
                 "[contact]\nid = \"newton\"\ne = 0.6\n[friction]\nid = \"coulomb\"\n"
                 "mu_s = 0.3\nmu_k = 0.3\n[integrator]\nid = \"dopri5\"\nrtol = %.17g\n"
                 "atol = 1e-6\n[initial]\nx = %.17g\nz = %.17g\nvx = %.17g\n[run]\nt_end = 4.0\n"
                 "progress = false\n[plot]\nenabled = false\n",
                 ang, -20.0 * tan(a), rtol, x0, z0, vx);
        write_config(cfg, text);
        int st = nsdyn("run '%s' -o '%s/o%d' -q", cfg, d, trial);
        ck_assert_msg(st == 0, "angle %g deg, rtol %g, h %g m, vx %g m/s: exit %d\n%s", ang, rtol,
                      h, vx, st, out);
        snprintf(path, sizeof path, "%s/o%d/run.toml", d, trial);
        read_text(path, out, sizeof out);
        ck_assert_msg(value_of(out, "open_projections = ") == 0.0, "%s", out);
        /* gap(t) = h cos(a) - vx sin(a) t - g cos(a) t^2 / 2: its first zero */
        double A = 0.5 * g * cos(a), B = vx * sin(a), C = -h * cos(a);
        double t1 = (-B + sqrt(B * B - 4 * A * C)) / (2 * A);
        snprintf(path, sizeof path, "%s/o%d/events.csv", d, trial);
        read_text(path, out, sizeof out);
        const char *row = strchr(out, '\n');
        ck_assert(row);
        double t_hit = strtod(row + 1, NULL);
        ck_assert_msg(fabs(t_hit - t1) <= 1e-9 * (1 + t1),
                      "angle %g, rtol %g: first impact %.12g s, "
                      "closed form %.12g s",
                      ang, rtol, t_hit, t1);
    }
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

START_TEST(describe_lists_every_capability) {
    ck_assert_int_eq(nsdyn("describe point_mass"), 0);
    ck_assert_msg(strstr(out, "conservative"), "%s", out);
    ck_assert_int_eq(nsdyn("describe bistiffness"), 0);
    ck_assert_msg(strstr(out, "rate-discontinuous"), "%s", out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("accepted_then_wrong");
    TCase *tc = tcase_create("cases");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_nan_at_the_start_keeps_the_plugins_message);
    tcase_add_test(tc, a_nan_inside_a_run_is_reported_with_one_time);
    tcase_add_test(tc, initial_penetration_is_a_config_error);
    tcase_add_test(tc, crossed_never_fires_at_the_foot_of_an_incline);
    tcase_add_test(tc, describe_lists_every_capability);
    tcase_add_test(tc, no_missed_impact_on_an_incline_at_any_tolerance);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
