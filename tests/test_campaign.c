/* A randomized campaign (issue 22): small random systems (chains of 1 to 4
 * beads on springs with random ground and wall contacts,
 * fixtures/random_chain.c; 12 of them, 36 runs and 12 repeats) run through `nsdyn run` with every rigid
 * integrator (dopri5, bdf: event-driven; moreau: time-stepping) and the
 * rigid laws newton (random e) and poisson, with and without Coulomb
 * friction. Invariants of every run:
 *   - it completes (exit 0) and passes the precheck (the fixture's
 *     kinematics are right);
 *   - no penetration beyond tolerance: the smallest gap over the contacts
 *     (the fixture's min_gap output) at every sample is above -1e-6 m
 *     event-driven (contact_tolerance 1e-9 m, drift corrections back into
 *     the band; 1e-6 m leaves room for the dense output between them), and
 *     above -h |u|max for moreau (its velocity-level inequality lets a
 *     contact sink for at most one step at the approach speed);
 *   - no energy gain: every law here dissipates, so the energy output
 *     never rises above its largest earlier value by more than 1e-6 of
 *     its size event-driven (rtol 1e-9 between impacts), 1e-3 for moreau
 *     (first order between impacts: O(h) energy error);
 *   - the event counts in run.toml equal the rows of events.csv by kind;
 *   - identical inputs give identical outputs: the first run of each
 *     system is repeated and its timeseries.csv and events.csv compared
 *     byte for byte. */
#define _GNU_SOURCE
#include <math.h>
#include <sys/wait.h>

#include "test_util.h"

static char buf[1 << 22], buf2[1 << 22];

static int run_cli(const char *cfg, const char *dir) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "NSDYN_PLUGIN_PATH='%s' '%s' run '%s' -o '%s' -q > '%s.log' 2>&1",
             NSDYN_TEST_FIXTURE_DIR "/campaign", NSDYN_TEST_BINARY, cfg, dir, dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static size_t read_into(const char *path, char *b, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return b[0] = '\0', 0;
    size_t k = fread(b, 1, len - 1, f);
    b[k] = '\0';
    fclose(f);
    return k;
}

/* The column of `name` ("min_gap [m]") in a CSV header, or -1. */
static int column(const char *header, const char *name) {
    int col = 0;
    for (const char *p = header; *p && *p != '\n'; ++col) {
        if (strncmp(p, name, strlen(name)) == 0) return col;
        p = strchr(p, ',');
        if (!p) break;
        ++p;
    }
    return -1;
}

static double field(const char *line, int col) {
    for (int i = 0; i < col && line; ++i) {
        line = strchr(line, ',');
        if (line) ++line;
    }
    return line ? strtod(line, NULL) : NAN;
}

/* The invariants of one run's folder (see the top); h > 0 for moreau. */
static void check_run(const char *dir, const char *what, double h) {
    char path[1024];
    snprintf(path, sizeof path, "%s/timeseries.csv", dir);
    ck_assert_msg(read_into(path, buf, sizeof buf) > 0, "%s: no timeseries", what);
    int cg = column(buf, "min_gap "), ce = column(buf, "energy ");
    ck_assert(cg > 0 && ce > 0);
    double umax = 0.0, worst_gap = HUGE_VAL, Emax = -HUGE_VAL, rise = 0.0, Esize = 0.0;
    int nv = 0, vel[64] = {0}, col = 0;
    for (const char *p = buf; *p && *p != '\n' && col < 64; ++col) { /* the [m/s] columns */
        const char *end = strpbrk(p, ",\n");
        vel[col] = end && end - p > 5 && strncmp(end - 5, "[m/s]", 5) == 0;
        if (!end || *end == '\n') break;
        p = end + 1;
    }
    for (const char *l = strchr(buf, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        double g = field(l + 1, cg), E = field(l + 1, ce);
        ck_assert_msg(isfinite(g) && isfinite(E), "%s: non-finite sample", what);
        worst_gap = fmin(worst_gap, g);
        if (Emax > -HUGE_VAL) rise = fmax(rise, E - Emax);
        Emax = fmax(Emax, E), Esize = fmax(Esize, fabs(E));
        for (int c = 1; c < 64; ++c) /* the velocities bound |u| */
            if (vel[c]) umax = fmax(umax, fabs(field(l + 1, c)));
        ++nv;
    }
    ck_assert_int_gt(nv, 10);
    double gap_tol = h > 0 ? h * umax : 1e-6, e_tol = (h > 0 ? 1e-3 : 1e-6) * (Esize + 1e-9);
    ck_assert_msg(worst_gap >= -gap_tol, "%s: penetration %.3g m (tolerance %.3g m)", what,
                  -worst_gap, gap_tol);
    ck_assert_msg(rise <= e_tol, "%s: energy rose by %.3g J (tolerance %.3g J)", what, rise, e_tol);
    if (h > 0) return; /* time-stepping logs no events */
    snprintf(path, sizeof path, "%s/events.csv", dir);
    read_into(path, buf, sizeof buf);
    snprintf(path, sizeof path, "%s/run.toml", dir);
    read_into(path, buf2, sizeof buf2);
    static const char *const kinds[] = {"impact", "rest", "close", "open", "stick", "slip"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; ++k) {
        char key[64], pat[64];
        snprintf(key, sizeof key, "events_%s = ", kinds[k]);
        const char *p = strstr(buf2, key);
        ck_assert_msg(p, "%s: no %s", what, key);
        long want = strtol(p + strlen(key), NULL, 10), have = 0;
        snprintf(pat, sizeof pat, ",%s,", kinds[k]);
        for (const char *q = strstr(buf, pat); q; q = strstr(q + 1, pat)) ++have;
        ck_assert_msg(have == want, "%s: run.toml %s%ld, events.csv %ld rows", what, key, want,
                      have);
    }
}

static int same_file(const char *a, const char *b) {
    size_t na = read_into(a, buf, sizeof buf), nb = read_into(b, buf2, sizeof buf2);
    return na == nb && memcmp(buf, buf2, na) == 0;
}

START_TEST(random_chains_keep_the_invariants) {
    char d[] = "/tmp/nsdyn-campaign-XXXXXX";
    ck_assert(mkdtemp(d));
    static const char *const integrators[] = {"id = \"dopri5\"\nrtol = 1e-9\natol = 1e-12",
                                              "id = \"bdf\"\nrtol = 1e-9\natol = 1e-12",
                                              "id = \"moreau\"\nh = 5e-4"};
    unsigned seed = 1234u;
    int runs = 0;
    for (int sys = 1; sys <= 12; ++sys) {
        int n = 1 + (sys - 1) % 4;
        for (int ig = 0; ig < 3; ++ig) {
            char law[160], cfg[600], text[2048], out[700], what[400];
            double e = (rand_r(&seed) % 1000) / 1000.0;
            int friction = rand_r(&seed) % 2;
            if (rand_r(&seed) % 2 || ig == 2)
                snprintf(law, sizeof law, "id = \"newton\"\ne = %.3f", e);
            else
                snprintf(law, sizeof law, "id = \"poisson\"\nbeta = %.3f", e);
            snprintf(text, sizeof text,
                     "[system]\nid = \"random_chain\"\nseed = %d\nn = %d\n[contact]\n%s\n%s"
                     "[integrator]\n%s\n[run]\nt_end = 1.0\noutput_dt = 2e-3\nprogress = false\n"
                     "[plot]\nenabled = false\n",
                     sys, n, law,
                     friction ? "[friction]\nid = \"coulomb\"\nmu_s = 0.4\nmu_k = 0.3\n" : "",
                     integrators[ig]);
            snprintf(cfg, sizeof cfg, "%s/c%d_%d.toml", d, sys, ig);
            FILE *f = fopen(cfg, "w");
            ck_assert(f);
            fputs(text, f);
            fclose(f);
            snprintf(out, sizeof out, "%s/o%d_%d", d, sys, ig);
            snprintf(what, sizeof what, "system %d (n = %d), %.40s, %.30s%s", sys, n,
                     integrators[ig], law, friction ? ", coulomb" : "");
            int st = run_cli(cfg, out);
            char log[800];
            snprintf(log, sizeof log, "%s.log", out);
            read_into(log, buf, sizeof buf);
            ck_assert_msg(st == 0, "%s: exit %d\n%s", what, st, buf);
            check_run(out, what, ig == 2 ? 5e-4 : 0.0);
            ++runs;
            if (ig != 0) continue;
            /* the same inputs again: the same bytes */
            char again[720], a[800], b[800];
            snprintf(again, sizeof again, "%s_again", out);
            ck_assert_int_eq(run_cli(cfg, again), 0);
            for (int k = 0; k < 2; ++k) {
                const char *file = k ? "events.csv" : "timeseries.csv";
                snprintf(a, sizeof a, "%s/%s", out, file);
                snprintf(b, sizeof b, "%s/%s", again, file);
                ck_assert_msg(same_file(a, b), "%s: %s differs between identical runs", what, file);
            }
        }
    }
    printf("campaign: %d runs of 12 random systems, every invariant held\n", runs);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", d);
    ck_assert_int_eq(system(rm), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("campaign");
    TCase *tc = tcase_create("random_chains");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_chains_keep_the_invariants);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
