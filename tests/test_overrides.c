/* Parameter overrides (config/overrides.h), the one way sweeps, pcmap's
 * `along`, continuation and the host API change a value:
 *  - randomized: a scenario derived with an override of a random declared
 *    parameter (or an initial state, or another plugin's id) is the model
 *    the config file gives with that value written in (--set, which
 *    edits the file's tree): the same resolved parameters in every
 *    section, the same initial state, and a run with the same samples,
 *    bit for bit; a refused value is refused with the same messages;
 *  - the messages of a bad override (out of range, unknown key, wrong
 *    type, not a state, a section no override may name) are the config's;
 *  - the base scenario is not changed by deriving from it, and a scenario
 *    derived from a derived one keeps its base's overrides under its own. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static char *config_path(const char *name) {
    char *p = NULL;
    ck_assert_int_ge(asprintf(&p, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, name), 0);
    return p;
}

/* SplitMix64: a seeded generator, so a failure can be replayed. */
static uint64_t rng_state = 20261127u;
static double uniform01(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

/* Same resolved values, decl by decl (arrays element by element). */
static void same_params(const nsd_params *a, const nsd_params *b, const char *what) {
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; ++i) {
        ck_assert_msg(memcmp(&a->values[i].num, &b->values[i].num, sizeof(double)) == 0,
                      "%s key '%s': %.17g vs %.17g", what, a->decls[i].name, a->values[i].num,
                      b->values[i].num);
        ck_assert_uint_eq(a->values[i].len, b->values[i].len);
        if (a->values[i].len)
            ck_assert(
                !memcmp(a->values[i].arr, b->values[i].arr, a->values[i].len * sizeof(double)));
        ck_assert_msg(!a->from[i] == !b->from[i], "%s key '%s': set in one only", what,
                      a->decls[i].name);
    }
}

static void same_section(const nsd_section *a, const nsd_section *b) {
    /* the two scenarios opened the plugins each: the same id and file */
    ck_assert_msg(!a->plugin == !b->plugin &&
                      (!a->plugin || (!strcmp(a->plugin->info->id, b->plugin->info->id) &&
                                      !strcmp(a->plugin->path, b->plugin->path))),
                  "[%s]: %s vs %s", nsd_kind_section(a->kind),
                  a->plugin ? a->plugin->info->id : "none",
                  b->plugin ? b->plugin->info->id : "none");
    if (a->plugin) same_params(&a->params, &b->params, nsd_kind_section(a->kind));
}

/* The message after "where: " (the override and --set name the same
 * origin, so whole lines must match; this helps the report). */
static void same_diag(const nsd_diag *a, const nsd_diag *b) {
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; ++i)
        ck_assert_msg(!strcmp(a->lines[i], b->lines[i]), "\n  override: %s\n  --set:    %s",
                      a->lines[i], b->lines[i]);
}

static size_t n_accepted, n_refused; /* of compare_one, over the test */

/* One value both ways: derived from base with the override, and the file
 * opened again with "--set section.key=text" after the shortening sets. */
static void compare_one(const nsd_scenario *base, const char *path, const char *const *sets,
                        size_t n_sets, const char *section, const char *key, const char *text,
                        const nsd_overrides *over) {
    char set[256];
    snprintf(set, sizeof set, "%s.%s=%s", section, key, text);
    const char *all[8];
    memcpy(all, sets, n_sets * sizeof *all);
    all[n_sets] = set;
    nsd_scenario ref, der;
    nsd_diag dref = {0}, dder = {0};
    ref.no_graphs = 1;
    size_t eref = nsd_scenario_load(&ref, path, all, n_sets + 1, &dref);
    size_t eder = nsd_scenario_override(&der, base, over, &dder);
    der.no_graphs = 1;
    if (!eder) eder = nsd_scenario_create(&der, &dder);
    ck_assert_msg(!eref == !eder, "%s: --set %s, override %s (%s)", set,
                  eref ? "refused" : "accepted", eder ? "refused" : "accepted",
                  eref     ? dref.lines[0]
                  : dder.n ? dder.lines[0]
                           : "");
    if (eref) {
        n_refused++;
        same_diag(&dder, &dref);
    } else {
        n_accepted++;
        const nsd_config *a = &der.app.cfg, *b = &ref.app.cfg;
        same_section(&a->system, &b->system);
        same_section(&a->contact, &b->contact);
        same_section(&a->friction, &b->friction);
        same_section(&a->integrator, &b->integrator);
        same_params(&a->run, &b->run, "run");
        ck_assert_uint_eq(der.model.n, ref.model.n);
        ck_assert(!memcmp(der.model.y0, ref.model.y0, der.model.n * sizeof(double)));
        nsd_diag r1 = {0}, r2 = {0};
        ck_assert_uint_eq(nsd_scenario_run(&der, NULL, &r1), 0);
        ck_assert_uint_eq(nsd_scenario_run(&ref, NULL, &r2), 0);
        ck_assert_int_eq(der.res.outcome, ref.res.outcome);
        ck_assert_str_eq(der.res.message, ref.res.message);
        const nsd_series *x = &der.res.series, *y = &ref.res.series;
        ck_assert_uint_eq(x->rows, y->rows);
        ck_assert_uint_eq(x->n_channels, y->n_channels);
        ck_assert_msg(!memcmp(x->data, y->data, x->rows * x->n_channels * sizeof(double)),
                      "%s: the runs differ", set);
        nsd_diag_free(&r1);
        nsd_diag_free(&r2);
    }
    nsd_diag_free(&dref);
    nsd_diag_free(&dder);
    nsd_scenario_destroy(&ref);
    nsd_scenario_destroy(&der);
}

/* A value of a real parameter: inside a finite range uniformly, else the
 * current value scaled by 0.5 .. 1.5 (or 0 .. 2 from a zero value); one
 * draw in eight just outside the range, to compare the refusals too. */
static double draw_real(const nsdyn_param_decl *d, double now) {
    int lo = isfinite(d->min), hi = isfinite(d->max);
    if (uniform01() < 0.125 && (lo || hi)) return lo ? d->min - 0.25 - uniform01() : d->max + 1;
    if (lo && hi) return d->min + (d->max - d->min) * (0.05 + 0.9 * uniform01());
    double x = now != 0 ? now * (0.5 + uniform01()) : 2 * uniform01();
    if (lo && x < d->min) x = d->min + fabs(x);
    if (hi && x > d->max) x = d->max - fabs(x);
    return x;
}

static void randomized_on(const char *name, const char *const *sets, size_t n_sets, int draws) {
    char *path = config_path(name);
    nsd_scenario base;
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_scenario_open(&base, path, sets, n_sets, &diag), 0);
    const nsd_section *secs[] = {&base.app.cfg.system, &base.app.cfg.contact,
                                 &base.app.cfg.friction, &base.app.cfg.integrator};
    nsd_scenario made; /* the base created once, for its state names */
    ck_assert_uint_eq(nsd_scenario_override(&made, &base, NULL, &diag), 0);
    made.no_graphs = 1;
    ck_assert_uint_eq(nsd_scenario_create(&made, &diag), 0);
    for (int k = 0; k < draws; ++k) {
        nsd_overrides over = {0};
        char text[64], section[16], key[64], err[256];
        double u = uniform01();
        if (u < 0.2) { /* an initial state */
            size_t i = (size_t)(uniform01() * (double)made.model.n);
            snprintf(section, sizeof section, "initial");
            snprintf(key, sizeof key, "%s", made.model.channels[1 + i].name);
            double x = made.model.y0[i] + (uniform01() - 0.5) * 0.02;
            snprintf(text, sizeof text, "%.17g", x);
            nsd_overrides_set_real(&over, section, key, strtod(text, NULL), (nsd_where){NULL, 0, 0},
                                   err, sizeof err);
        } else { /* a real parameter of a plugin, or of [run] */
            const nsd_params *p = NULL;
            size_t s = (size_t)(uniform01() * 5);
            if (s == 4) {
                p = &base.app.cfg.run;
                snprintf(section, sizeof section, "run");
            } else if (secs[s]->plugin) {
                p = &secs[s]->params;
                snprintf(section, sizeof section, "%s", nsd_kind_section(secs[s]->kind));
            }
            size_t i = p && p->n ? (size_t)(uniform01() * (double)p->n) : 0;
            if (!p || !p->n || p->decls[i].type != NSDYN_PARAM_REAL ||
                !strcmp(p->decls[i].name, "t_end")) {
                k--; /* draw again: only real values, and runs stay short */
                continue;
            }
            snprintf(key, sizeof key, "%s", p->decls[i].name);
            snprintf(text, sizeof text, "%.17g", draw_real(&p->decls[i], p->values[i].num));
            nsd_overrides_set_real(&over, section, key, strtod(text, NULL), (nsd_where){NULL, 0, 0},
                                   err, sizeof err);
        }
        /* the override named as the --set it mirrors: the same messages */
        char origin[200];
        snprintf(origin, sizeof origin, "--set %s.%s=%s", section, key, text);
        free(over.items[0].origin);
        over.items[0].origin = strdup(origin);
        over.items[0].value.source = over.items[0].origin;
        compare_one(&base, path, sets, n_sets, section, key, text, &over);
        nsd_overrides_free(&over);
    }
    nsd_scenario_destroy(&made);
    nsd_scenario_destroy(&base);
    nsd_diag_free(&diag);
    free(path);
}

START_TEST(randomized_overrides_are_the_file_values) {
    const char *ball[] = {"run.t_end=0.6", "run.output_dt=0.01"};
    randomized_on("bouncing_ball_newton.toml", ball, 2, 24);
    const char *wheel[] = {"run.t_end=1.5", "run.output_dt=0.05"};
    randomized_on("towed_wheel_rolling.toml", wheel, 2, 16);
    const char *osc[] = {"run.t_end=3", "run.output_dt=0.05"};
    randomized_on("impact_oscillator.toml", osc, 2, 16);
    /* both kinds compared, the runs most of the time */
    ck_assert_msg(n_accepted >= 30 && n_refused >= 3, "%zu accepted, %zu refused", n_accepted,
                  n_refused);
}
END_TEST

/* Another plugin by its id: the file's keys of the section go, as --set
 * contact.id=... and a [[variant]] do. */
START_TEST(another_plugin_by_id) {
    const char *sets[] = {"run.t_end=0.6", "run.output_dt=0.01"};
    char *path = config_path("bouncing_ball_newton.toml");
    nsd_scenario base;
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_scenario_open(&base, path, sets, 2, &diag), 0);
    const char *ids[] = {"newton", "poisson", "hunt_crossley"};
    for (size_t i = 0; i < 3; ++i) {
        nsd_overrides over = {0};
        char err[200], origin[80], text[40];
        snprintf(text, sizeof text, "\"%s\"", ids[i]);
        snprintf(origin, sizeof origin, "--set contact.id=%s", text);
        ck_assert_int_eq(nsd_overrides_set_string(&over, "contact", "id", ids[i],
                                                  (nsd_where){origin, 0, 0}, err, sizeof err),
                         0);
        compare_one(&base, path, sets, 2, "contact", "id", text, &over);
        nsd_overrides_free(&over);
    }
    nsd_scenario_destroy(&base);
    nsd_diag_free(&diag);
    free(path);
}
END_TEST

/* The first message of deriving base with one override. */
static char *first_message(const nsd_scenario *base, const nsd_overrides *over) {
    nsd_scenario d;
    nsd_diag diag = {0};
    size_t e = nsd_scenario_override(&d, base, over, &diag);
    d.no_graphs = 1;
    if (!e) e = nsd_scenario_create(&d, &diag);
    ck_assert_uint_gt(e, 0);
    char *m = strdup(diag.lines[0]);
    nsd_diag_free(&diag);
    nsd_scenario_destroy(&d);
    return m;
}

START_TEST(bad_overrides_read_like_the_config) {
    char *path = config_path("bouncing_ball_newton.toml");
    nsd_scenario base;
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_scenario_open(&base, path, NULL, 0, &diag), 0);
    nsd_where at = {"sweep.toml", 12, 7};
    char err[256];
    struct {
        const char *section, *key;
        int kind; /* 0 real, 1 string */
        double x;
        const char *want;
    } cases[] = {
        {"contact", "e", 0, 1.5,
         "sweep.toml:12:7: [contact] (newton) key 'e' = 1.5 is out of range: expected [0, 1]"},
        {"contact", "ee", 0, 0.5,
         "sweep.toml:12:7: [contact] (newton): unknown key 'ee' (did you mean 'e'?)"},
        {"contact", "e", 1, 0,
         "sweep.toml:12:7: [contact] (newton) key 'e': expected a real "
         "number, found a string (\"half\")"},
        {"initial", "z", 0, 1.0,
         "sweep.toml:12:7: [initial]: 'z' is not a state of system "
         "'point_mass' (did you mean 'x'?)"},
        {"run", "t_end", 0, -1.0,
         "sweep.toml:12:7: [run] key 't_end' = -1 is out of range: expected > 0 s"},
        {"run", "t_start", 0, 5.0, /* at the file's t_end, as for --set run.t_start=5 */
         "bouncing_ball_newton.toml:33:1: [run] key 't_end' = 2 must be later than t_start = 5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        nsd_overrides over = {0};
        int rc = cases[i].kind ? nsd_overrides_set_string(&over, cases[i].section, cases[i].key,
                                                          "half", at, err, sizeof err)
                               : nsd_overrides_set_real(&over, cases[i].section, cases[i].key,
                                                        cases[i].x, at, err, sizeof err);
        ck_assert_int_eq(rc, 0);
        char *m = first_message(&base, &over);
        size_t lm = strlen(m), lw = strlen(cases[i].want);
        ck_assert_msg(lm >= lw && !strcmp(m + lm - lw, cases[i].want), "\n  got:  %s\n  want: %s",
                      m, cases[i].want);
        free(m);
        nsd_overrides_free(&over);
    }
    /* a section no override may name: refused when set */
    nsd_overrides over = {0};
    ck_assert_int_eq(nsd_overrides_set_real(&over, "plot", "width", 3, at, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot override 'plot.width'"));
    ck_assert_uint_eq(over.n, 0);
    nsd_scenario_destroy(&base);
    nsd_diag_free(&diag);
    free(path);
}
END_TEST

START_TEST(base_unchanged_and_overrides_stack) {
    char *path = config_path("bouncing_ball_newton.toml");
    nsd_scenario base;
    nsd_diag diag = {0};
    ck_assert_uint_eq(nsd_scenario_open(&base, path, NULL, 0, &diag), 0);
    const nsd_toml_node *e = nsd_toml_get(nsd_toml_get(&base.app.cfg.root, "contact"), "e");
    ck_assert_double_eq(e->real, 0.5);
    nsd_overrides o1 = {0}, o2 = {0};
    char err[200];
    nsd_overrides_set_real(&o1, "contact", "e", 0.25, (nsd_where){"a", 0, 0}, err, sizeof err);
    nsd_overrides_set_real(&o1, "system", "g", 9.0, (nsd_where){"a", 0, 0}, err, sizeof err);
    nsd_overrides_set_real(&o2, "contact", "e", 0.75, (nsd_where){"b", 0, 0}, err, sizeof err);
    nsd_scenario d1, d2;
    ck_assert_uint_eq(nsd_scenario_override(&d1, &base, &o1, &diag), 0);
    nsd_overrides_free(&o1); /* the derived config keeps its own copy */
    ck_assert_uint_eq(nsd_scenario_override(&d2, &d1, &o2, &diag), 0);
    ck_assert_double_eq(nsd_params_num(&d1.app.cfg.contact.params, "e"), 0.25);
    ck_assert_double_eq(nsd_params_num(&d2.app.cfg.contact.params, "e"), 0.75);
    ck_assert_double_eq(nsd_params_num(&d2.app.cfg.system.params, "g"), 9.0);
    /* the base: its tree, its values, no overrides */
    ck_assert_ptr_eq(nsd_toml_get(nsd_toml_get(&base.app.cfg.root, "contact"), "e"), e);
    ck_assert_double_eq(e->real, 0.5);
    ck_assert_double_eq(nsd_params_num(&base.app.cfg.contact.params, "e"), 0.5);
    ck_assert_double_eq(nsd_params_num(&base.app.cfg.system.params, "g"), 9.81);
    ck_assert_uint_eq(base.app.cfg.over.n, 0);
    /* nor the derived config's tree: the override stands beside it */
    const nsd_toml_node *de = nsd_toml_get(nsd_toml_get(&d2.app.cfg.root, "contact"), "e");
    ck_assert_double_eq(de->real, 0.5);
    nsd_scenario_destroy(&d2);
    nsd_scenario_destroy(&d1);
    nsd_overrides_free(&o2);
    nsd_scenario_destroy(&base);
    nsd_diag_free(&diag);
    free(path);
}
END_TEST

int main(void) {
    Suite *s = suite_create("overrides");
    TCase *tc = tcase_create("overrides");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, randomized_overrides_are_the_file_values);
    tcase_add_test(tc, another_plugin_by_id);
    tcase_add_test(tc, bad_overrides_read_like_the_config);
    tcase_add_test(tc, base_unchanged_and_overrides_stack);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
