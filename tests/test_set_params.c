#define _GNU_SOURCE
/* Parameters changed on one run's data (issue 21 item 1, issue 25 item 3:
 * scenario.h nsd_scenario_set_params, model.h nsd_data_set_params).
 *
 * For random sequences of parameter values (each REAL parameter of the
 * system, contact or friction law moved by up to 20 %, an [initial] state
 * moved, the config's own values again, the previous values again),
 * applied one after the other to one scenario whose model is the
 * opened config's, each run equals bit for bit the run of a scenario
 * derived with those values and created anew (a model of its own): the
 * samples, events, statistics, outcome, message and log. A value outside
 * a declaration's range gives the message the config gives, at the same
 * key, and the scenario then runs the next values as a fresh one does.
 * Over a walker (a system with discrete state: its stance leg), an
 * event-driven ball and curb wheel, and a compliant ball. A plugin whose
 * values did not change keeps its instance (no create per run). */
#include <math.h>

#include "overrides.h"
#include "test_util.h"

typedef struct sp_case {
    const char *config;
    const char *set; /* shortens the run */
} sp_case;

static const sp_case cases[] = {
    {"walker2_gait.toml", "run.t_end=1.6"},
    {"bouncing_ball_newton.toml", "run.t_end=1.5"},
    {"curb_wheel_poisson_up.toml", "run.t_end=0.6"},
    {"bouncing_ball_hunt_crossley.toml", "run.t_end=1.0"},
};

#define N_STEPS 9

static void load_base(const sp_case *c, nsd_scenario *base) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, c->config);
    const char *sets[1] = {c->set};
    nsd_diag diag = {0};
    memset(base, 0, sizeof *base);
    base->no_graphs = 1;
    size_t errors = nsd_scenario_load(base, path, sets, 1, &diag);
    for (size_t i = 0; i < diag.n; ++i) fprintf(stderr, "%s\n", diag.lines[i]);
    nsd_diag_free(&diag);
    ck_assert_msg(errors == 0, "%s does not load", path);
}

static double uniform(unsigned *seed) { return rand_r(seed) / (RAND_MAX + 1.0); }

/* One random REAL parameter of a part with a nonzero value, moved by up
 * to 20 % (or, when `outside`, past its declared maximum). 0 when the
 * part has none. */
static int move_param(const nsd_section *sec, const char *name, unsigned *seed, int outside,
                      nsd_overrides *over) {
    if (!sec->plugin) return 0;
    const nsdyn_plugin_info *info = sec->plugin->info;
    size_t cand[64], n = 0;
    for (size_t i = 0; i < info->n_params && n < 64; ++i) {
        const nsdyn_param_decl *d = &info->params[i];
        double v = sec->params.values[i].num;
        if (d->type == NSDYN_PARAM_REAL && v != 0.0 && isfinite(v) &&
            (!outside || isfinite(d->max)))
            cand[n++] = i;
    }
    if (!n) return 0;
    size_t i = cand[(size_t)(uniform(seed) * n) % n];
    const nsdyn_param_decl *d = &info->params[i];
    double v = sec->params.values[i].num;
    double x =
        outside ? d->max + 1.0 + fabs(d->max) : v * (1.0 + 0.2 * (2.0 * uniform(seed) - 1.0));
    char err[256];
    ck_assert_int_eq(nsd_overrides_set_real(over, name, d->name, x, (nsd_where){"[test]", 0, 0},
                                            err, sizeof err),
                     0);
    return 1;
}

/* Random values for one run: none, one or two parameters, maybe a state. */
static void random_values(const nsd_config *cfg, const nsd_model *m, unsigned *seed,
                          nsd_overrides *over) {
    const nsd_section *sec[] = {&cfg->system, &cfg->contact, &cfg->friction};
    const char *name[] = {"system", "contact", "friction"};
    int k = (int)(uniform(seed) * 4.0);
    for (int j = 0; j < k % 3; ++j) {
        int part = (int)(uniform(seed) * 3.0) % 3;
        move_param(sec[part], name[part], seed, 0, over);
    }
    if (k == 3) { /* a velocity of the start moved a little */
        size_t i = (size_t)(uniform(seed) * m->nv) % m->nv;
        double y = m->y0[m->nq + i] + 0.05 * (2.0 * uniform(seed) - 1.0);
        char err[256];
        ck_assert_int_eq(nsd_overrides_set_real(over, "initial", m->layout.v[i].name, y,
                                                (nsd_where){"[test]", 0, 0}, err, sizeof err),
                         0);
    }
}

/* The run and errors of a scenario derived from base with `over`, created
 * anew (a model of its own). */
static size_t fresh_run(const nsd_scenario *base, const nsd_overrides *over, nsd_scenario *f,
                        nsd_diag *diag) {
    size_t errors = nsd_scenario_override(f, base, over, diag);
    f->no_graphs = 1;
    if (!errors) errors = nsd_scenario_create(f, diag);
    if (!errors) errors = nsd_scenario_run(f, NULL, diag);
    return errors;
}

static void same_diag(const nsd_diag *a, const nsd_diag *b, const char *what) {
    ck_assert_msg(a->n == b->n, "%s: %zu messages, fresh %zu", what, a->n, b->n);
    for (size_t i = 0; i < a->n; ++i)
        ck_assert_msg(!strcmp(a->lines[i], b->lines[i]), "%s: '%s', fresh '%s'", what, a->lines[i],
                      b->lines[i]);
}

static void same_run(const nsd_run_result *a, const nsd_run_result *b, const char *what) {
    ck_assert_msg(a->outcome == b->outcome && a->t_reached == b->t_reached,
                  "%s: outcome %d at %.17g, fresh %d at %.17g", what, a->outcome, a->t_reached,
                  b->outcome, b->t_reached);
    ck_assert_msg(!strcmp(a->message, b->message), "%s: message differs", what);
    ck_assert_msg(a->series.rows == b->series.rows && a->series.n_channels == b->series.n_channels,
                  "%s: %zu rows, fresh %zu", what, a->series.rows, b->series.rows);
    ck_assert_msg(a->series.rows == 0 ||
                      !memcmp(a->series.data, b->series.data,
                              a->series.rows * a->series.n_channels * sizeof(double)),
                  "%s: samples differ", what);
    ck_assert_msg(!memcmp(&a->stats, &b->stats, sizeof a->stats), "%s: statistics differ", what);
    ck_assert_msg(
        a->contact_log.n == b->contact_log.n &&
            (a->contact_log.n == 0 || !memcmp(a->contact_log.rec, b->contact_log.rec,
                                              a->contact_log.n * sizeof *a->contact_log.rec)),
        "%s: events differ", what);
    ck_assert_msg(a->n_switches == b->n_switches && a->n_stops == b->n_stops, "%s: switches", what);
    ck_assert_msg(a->log.n == b->log.n && a->log.n_warnings == b->log.n_warnings &&
                      (a->log.len == 0 || !memcmp(a->log.text, b->log.text, a->log.len)),
                  "%s: logs differ", what);
}

START_TEST(random_sequences_equal_fresh_runs) {
    const sp_case *c = &cases[_i];
    nsd_scenario base, P;
    load_base(c, &base);
    nsd_overrides none = {0}, prev = {0}, held = {0}; /* held: the values P took last */
    nsd_diag diag = {0};
    ck_assert_int_eq(nsd_scenario_override(&P, &base, &none, &diag), 0);
    P.no_graphs = 1;
    ck_assert_int_eq(nsd_scenario_create_on(&P, &base, &diag), 0);
    unsigned seed = 1234u + 77u * (unsigned)_i;
    size_t refused = 0, kept = 0;
    for (int step = 0; step < N_STEPS; ++step) {
        nsd_overrides over = {0};
        int kind = step % 4; /* random, random, the previous again, outside then random */
        if (kind == 2)
            nsd_overrides_copy(&over, &prev);
        else
            random_values(&base.app.cfg, &base.model, &seed, &over);
        if (kind == 3) { /* out of range first: the config's message, P left usable */
            nsd_overrides bad = {0};
            const nsd_section *sec[] = {&base.app.cfg.system, &base.app.cfg.contact,
                                        &base.app.cfg.friction};
            const char *name[] = {"system", "contact", "friction"};
            int part = 0;
            while (part < 3 && !move_param(sec[part], name[part], &seed, 1, &bad)) part++;
            if (part < 3) {
                nsd_diag da = {0}, db = {0};
                nsd_scenario f;
                size_t ea = nsd_scenario_set_params(&P, &bad, &da);
                size_t eb = fresh_run(&base, &bad, &f, &db);
                ck_assert_msg(ea > 0 && eb > 0, "%s: an out-of-range value was taken", c->config);
                same_diag(&da, &db, "out of range");
                nsd_scenario_destroy(&f);
                nsd_diag_free(&da), nsd_diag_free(&db);
                refused++;
            }
            nsd_overrides_free(&bad);
        }
        void *sys_before = P.data ? P.data->sys_inst : NULL;
        int system_set = 0;
        for (size_t i = 0; i < over.n; ++i) system_set |= !strcmp(over.items[i].section, "system");
        for (size_t i = 0; i < held.n; ++i) system_set |= !strcmp(held.items[i].section, "system");
        nsd_diag da = {0}, db = {0};
        nsd_scenario f;
        size_t ea = nsd_scenario_set_params(&P, &over, &da);
        if (!ea) {
            if (!system_set && sys_before && P.shares_model && !P.create_logged) {
                ck_assert_ptr_eq(P.data->sys_inst, sys_before); /* kept, not created */
                kept++;
            }
            ea = nsd_scenario_run(&P, NULL, &da);
        }
        size_t eb = fresh_run(&base, &over, &f, &db);
        char what[128];
        snprintf(what, sizeof what, "%s step %d (%zu values)", c->config, step, over.n);
        ck_assert_msg(ea == eb, "%s: %zu errors, fresh %zu", what, ea, eb);
        same_diag(&da, &db, what);
        if (!ea) same_run(&P.res, &f.res, what);
        nsd_scenario_destroy(&f);
        nsd_diag_free(&da), nsd_diag_free(&db);
        if (!ea) nsd_overrides_free(&held), nsd_overrides_copy(&held, &over);
        nsd_overrides_free(&prev);
        prev = over;
    }
    nsd_overrides_free(&held);
    fprintf(stderr,
            "%s: %d value sets equal to fresh runs, %zu refused as the config, %zu kept "
            "the system's instance\n",
            c->config, N_STEPS, refused, kept);
    nsd_overrides_free(&prev);
    nsd_scenario_destroy(&P);
    nsd_scenario_destroy(&base);
    nsd_diag_free(&diag);
}
END_TEST

int main(void) {
    Suite *s = suite_create("set_params");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, random_sequences_equal_fresh_runs, 0,
                        (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
