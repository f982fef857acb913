/* A study samples only the channels its summaries read (issue 25 item 3,
 * docs/sweep.md "What a run samples"):
 *  - nsd_model_sample_some gives, on every wanted channel, the bits of a
 *    full sample, NaN on the others, at random states and random choices
 *    of channels; a choice of force-free outputs (sphere_planes declares
 *    all of its outputs force-free, system.h NSDYN_EXT_FORCE_FREE_OUTPUTS)
 *    evaluates no contact force (a sentinel in the data's forces stays),
 *    a force channel does;
 *  - a run of a tumbleweed study that samples t, the states and `gap`
 *    alone gives every summary bit for bit as the run sampling every
 *    channel (random restitution and speed), and min(gap) reads `gap`;
 *  - a summary that reads a channel the run did not sample is refused with
 *    the channel's name (never a NaN or 0 in its column);
 *  - a system that declares an output force-free and reads the forces in
 *    it fails the run by the channel's name (forces of NaN). */
#define _GNU_SOURCE
#include <math.h>
#include <time.h>

#include "sweep.h"
#include "test_util.h"

static const char *study =
    "[system]\nid = \"sphere_planes\"\nterrain = \"valley\"\nbeta = 15.0\ntheta = 15.0\n"
    "depth = -3.0\nfloor_length = 9.0\nb = 1.0\nj_over_m = 0.4\ng = 3.71\nx0 = 0.0\n"
    "v0 = %.6f\nrolling0 = true\n[contact]\nid = \"kane_impulse\"\ne = %.6f\n"
    "[friction]\nid = \"coulomb\"\nmu_s = 1.0\nmu_k = 0.8\n"
    "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
    "[run]\nt_end = 30.0\noutput_dt = 0.01\n[plot]\nenabled = false\n"
    "[[sweep.axis]]\nkey = \"contact.e\"\nname = \"e\"\nvalues = [0.6, 0.9]\n"
    "[sweep.summary]\ncrossed = \"system.crossed\"\nh = \"system.incline_height\"\n"
    "out = \"stop\"\nn = \"count(impact)\"\ngap_min = \"min(gap)\"\n"
    "x_max = \"max(x)\"\n%s";

static double uniform(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (rand_r(seed) / (RAND_MAX + 1.0));
}

/* The study's scenario at (v0, e) with extra summaries, and its def. */
static void load_study(run *R, nsd_sweep_def *def, double v0, double e, const char *extra) {
    char text[4096];
    snprintf(text, sizeof text, study, v0, e, extra);
    test_load(text, R);
    nsd_diag diag = {0};
    size_t errors = nsd_sweep_parse(def, R, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "the study does not parse");
}

/* Run R sampling `want` (NULL: every channel) and summarize it into row. */
static int run_summarize(run *R, const nsd_sweep_def *def, const unsigned char *want,
                         nsd_sweep_row *row) {
    R->app.cfg.settings.sample_channels = want;
    test_run(R);
    R->app.cfg.settings.sample_channels = NULL;
    ck_assert_msg(R->res.outcome != NSD_RUN_FAILED, "%s", R->res.message);
    row->message[0] = '\0';
    return nsd_sweep_summarize(def, R, row);
}

START_TEST(sample_some_is_the_full_sample) {
    run R;
    char text[4096];
    snprintf(text, sizeof text, study, 5.0, 0.8, "");
    test_load(text, &R);
    const nsd_model *m = &R.model;
    nsd_data *d = nsd_data_create(m, &R.app.host, NULL, 0);
    ck_assert_ptr_nonnull(d);
    size_t nch = m->n_channels, n_reading = 0, n_forces = 0;
    for (size_t i = 0; i < nch; ++i) n_reading += m->channels[i].reads_contacts;
    for (size_t c = 0; c < m->nc; ++c) /* N and the tangential components */
        n_forces += 1 + (m->layout.contacts[c].tangent_dim < 2 ? 1 : 2);
    ck_assert_msg(n_reading == n_forces && m->layout.n_outputs == 7,
                  "%zu channels read the contact forces, %zu are forces", n_reading, n_forces);
    double *full = malloc(nch * sizeof *full), *some = malloc(nch * sizeof *some);
    double *y = malloc(m->n * sizeof *y);
    unsigned char *want = malloc(nch);
    unsigned seed = (unsigned)time(NULL);
    for (int trial = 0; trial < 200; ++trial) {
        for (size_t i = 0; i < m->n; ++i) y[i] = m->y0[i];
        y[0] = uniform(&seed, -20.0, 20.0); /* x along the valley [m] */
        y[2] = uniform(&seed, -1.0, 8.0);   /* z of the centre [m] */
        for (size_t i = 3; i < m->n; ++i) y[i] = uniform(&seed, -3.0, 3.0);
        double t = uniform(&seed, 0.0, 10.0);
        int forces = trial % 3 == 0;
        memset(want, 0, nch);
        for (size_t i = 1 + m->n; i < nch; ++i)
            want[i] = (forces || !m->channels[i].reads_contacts) && rand_r(&seed) % 2;
        for (size_t i = 0; i < 3 * m->nc; ++i) d->lambda[i] = 12345.0; /* a sentinel */
        nsdyn_status a = nsd_model_sample_some(m, d, t, y, want, some);
        int evaluated = 0;
        for (size_t i = 0; i < 3 * m->nc; ++i) evaluated |= d->lambda[i] != 12345.0;
        nsdyn_status b = nsd_model_sample(m, d, t, y, full);
        if (b > NSDYN_WARNING) continue; /* a state the contact solve refuses */
        ck_assert_int_eq(a, b);
        int any_force = 0;
        for (size_t i = 0; i < nch; ++i) {
            int wanted = i <= m->n || want[i];
            any_force |= wanted && m->channels[i].reads_contacts;
            if (wanted)
                ck_assert_msg(!memcmp(&some[i], &full[i], sizeof *some),
                              "channel %s: %a against the full sample's %a", m->channels[i].name,
                              some[i], full[i]);
            else
                ck_assert_msg(isnan(some[i]), "channel %s not wanted but %g", m->channels[i].name,
                              some[i]);
        }
        ck_assert_msg(evaluated == any_force, "trial %d: contact forces %s evaluated", trial,
                      evaluated ? "were" : "were not");
    }
    free(full);
    free(some);
    free(y);
    free(want);
    nsd_data_destroy(m, d);
    test_unload(&R);
}
END_TEST

START_TEST(summaries_from_the_sampled_channels) {
    unsigned seed = (unsigned)time(NULL) + 7u;
    for (int trial = 0; trial < 3; ++trial) {
        double v0 = uniform(&seed, 2.0, 7.0), e = uniform(&seed, 0.6, 0.99);
        run R;
        nsd_sweep_def def;
        load_study(&R, &def, v0, e, "");
        unsigned char *want = nsd_sweep_sampled_channels(&def, &R.model, 0);
        ck_assert_ptr_nonnull(want);
        int gap = nsd_model_channel(&R.model, "gap"), x = nsd_model_channel(&R.model, "x");
        size_t n_want = 0;
        for (size_t i = 0; i < R.model.n_channels; ++i) n_want += want[i];
        ck_assert_msg(want[gap] && want[x] && n_want == 2 + R.model.n,
                      "%zu channels sampled: t, the %zu states and gap expected", n_want,
                      R.model.n);
        ck_assert_ptr_null(nsd_sweep_sampled_channels(&def, &R.model, 1));
        nsd_sweep_row *some = nsd_sweep_row_new(&def), *full = nsd_sweep_row_new(&def);
        ck_assert_int_eq(run_summarize(&R, &def, want, some), 0);
        ck_assert_ptr_nonnull(R.res.series.sampled);
        ck_assert_int_eq(run_summarize(&R, &def, NULL, full), 0);
        ck_assert_ptr_null(R.res.series.sampled);
        for (size_t k = 0; k < def.n_sums; ++k) {
            ck_assert_msg(!memcmp(&some->sum_num[k], &full->sum_num[k], sizeof(double)),
                          "v0 %g e %g: %s = %a against every channel's %a", v0, e, def.sums[k].name,
                          some->sum_num[k], full->sum_num[k]);
            ck_assert_str_eq(some->sum_text[k], full->sum_text[k]);
        }
        /* gap left out: min(gap) is refused, by name, not read as NaN */
        want[gap] = 0;
        ck_assert_int_eq(run_summarize(&R, &def, want, some), -1);
        ck_assert_msg(strstr(some->message, "gap_min reads channel 'gap', which this run did "
                                            "not sample"),
                      "%s", some->message);
        free(want);
        nsd_sweep_row_free(some);
        nsd_sweep_row_free(full);
        nsd_sweep_def_free(&def);
        test_unload(&R);
    }
}
END_TEST

/* A system that declares an output force-free but reads the forces in
 * it (fixtures/faulty_system.c FAULT_FORCE_LIAR): sampling that output
 * without the forces fails the run at the first sample, naming the
 * channel and the declaration, instead of giving a value. Sampling every
 * channel (the forces solved) runs. */
START_TEST(force_free_declaration_that_lies_fails_by_name) {
    char toml[1024];
    snprintf(toml, sizeof toml,
             "plugin_path = [\"%s/faulty\"]\n[system]\nid = \"faulty_force_liar\"\n"
             "[contact]\nid = \"newton\"\ne = 0.5\n[integrator]\nid = \"dopri5\"\n"
             "[run]\nt_end = 0.2\noutput_dt = 1e-3\nprogress = false\n",
             NSDYN_TEST_FIXTURE_DIR);
    run R;
    test_load(toml, &R);
    int level = nsd_model_channel(&R.model, "level");
    ck_assert_int_gt(level, 0);
    ck_assert_int_eq(R.model.channels[level].reads_contacts, 0); /* as declared */
    unsigned char *want = calloc(R.model.n_channels, 1);
    want[level] = 1;
    R.app.cfg.settings.sample_channels = want;
    test_run(&R);
    ck_assert_int_eq(R.res.outcome, NSD_RUN_FAILED);
    ck_assert_msg(strstr(R.res.message, "channel 'level' is nan") &&
                      strstr(R.res.message, "NSDYN_EXT_FORCE_FREE_OUTPUTS"),
                  "%s", R.res.message);
    R.app.cfg.settings.sample_channels = NULL;
    test_run(&R);
    ck_assert_msg(R.res.outcome == NSD_RUN_COMPLETE, "%s", R.res.message);
    free(want);
    test_unload(&R);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sweep_sampling");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sample_some_is_the_full_sample);
    tcase_add_test(tc, summaries_from_the_sampled_channels);
    tcase_add_test(tc, force_free_declaration_that_lies_fails_by_name);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
