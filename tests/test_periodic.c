/* nsdyn periodic (core/src/analysis/periodic.h): Newton shooting on a
 * Poincare section against closed forms.
 *  - the rimless wheel (plugins/systems/rimless_hub.c): post-impact rate
 *    omega*^2 = c^2 K / (1 - c^2), c = cos(2 alpha), K = (4 g/l) sin(alpha)
 *    sin(gamma), multipliers {c^2, 0}, period by quadrature of the energy
 *    equation; over randomized ramps, spoke counts, lengths and guesses;
 *  - a linear hybrid system (tests/fixtures/kicked_spiral.c) with a stable
 *    and an unstable orbit: r* = kick / (1 - e^(aT)), multipliers
 *    {e^(aT), 0}, T = (2 pi - beta) / w;
 *  - the found orbits repeat under plain simulation;
 *  - a Newton that does not converge says so with its residual history,
 *    through the API and through the CLI (exit 3);
 *  - walker2's L#4 gait: the heel-strike state of the orbit agrees with
 *    docs/walker.md's (24), found by simulating until the step map
 *    repeats (an independent method).
 * Tolerances: the integrator runs at rtol 1e-11 (wheel, spiral); the map is
 * then good to ~1e-11 and its central differences (h = 1e-6 relative) to
 * ~1e-5, which bounds the multipliers' error. Newton stops at a scaled
 * residual of 1e-10, which leaves the fixed point off by up to
 * 1e-10 / (1 - mu) (3e-10 for mu < 0.7): the states are checked to 1e-8. */
#define _GNU_SOURCE
#include <math.h>

#include "periodic_config.h"
#include "test_util.h"

static unsigned long long rng = 88172645463325252ull;
static double uniform(double lo, double hi) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

/* Load text, read [periodic], solve from the model's initial state. */
typedef struct solved {
    run R;
    nsd_periodic_config pc;
    nsd_periodic_result r;
    int rc;
} solved;

static void solve_text(const char *toml, solved *S) {
    memset(S, 0, sizeof *S);
    test_load(toml, &S->R);
    nsd_diag diag = {0};
    size_t errors = nsd_periodic_read(&S->R.app.cfg, &S->R.model, &S->pc, &diag);
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    ck_assert_uint_eq(errors, 0);
    nsd_run_settings *rs = &S->R.app.cfg.settings;
    rs->output_dt = rs->t_end - rs->t_start; /* as the command: no samples in between */
    ck_assert_int_eq(nsd_periodic_result_init(&S->r, S->R.model.n, S->pc.spec.n_free), 0);
    S->rc = nsd_periodic_solve(&S->R, &S->pc.spec, S->R.model.y0, &S->r, NULL);
}

static void solved_free(solved *S) {
    nsd_periodic_result_free(&S->r);
    nsd_periodic_config_free(&S->pc);
    test_unload(&S->R);
}

/* Time from theta = -alpha to +alpha: Simpson on the energy equation. */
static double wheel_period(double g, double l, double gamma, double alpha, double w0) {
    enum { N = 20000 };
    double h = 2.0 * alpha / N, sum = 0.0;
    for (int i = 0; i <= N; ++i) {
        double th = -alpha + i * h;
        double f = 1.0 / sqrt(w0 * w0 + 2.0 * g / l * (cos(gamma - alpha) - cos(th + gamma)));
        sum += f * (i == 0 || i == N ? 1.0 : i % 2 ? 4.0 : 2.0);
    }
    return sum * h / 3.0;
}

START_TEST(rimless_wheel_closed_form) {
    for (int trial = 0; trial < 6; ++trial) {
        double gamma_deg = uniform(1.0, 8.0), l = uniform(0.5, 2.0);
        int spokes = 6 + (int)uniform(0.0, 10.0);
        double alpha = M_PI / spokes, gamma = gamma_deg * M_PI / 180.0, g = 9.81;
        double c = cos(2.0 * alpha), K = 4.0 * g / l * sin(alpha) * sin(gamma);
        double w_star = sqrt(c * c * K / (1.0 - c * c));
        /* a start that passes over the foot: at least the barrier's rate */
        double barrier = sqrt(2.0 * g / l * (1.0 - cos(alpha - gamma)));
        if (w_star < 1.05 * barrier) { /* no gait: the wheel stalls; draw again */
            trial--;
            continue;
        }
        double w0 = fmax(w_star * uniform(0.7, 1.5), 1.05 * barrier);
        char toml[1024];
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"rimless_hub\"\ngamma = %.17g\nl = %.17g\nspokes = %d\n"
                 "theta0 = %.17g\nomega0 = %.17g\n[integrator]\nid = \"dopri5\"\nrtol = 1e-11\n"
                 "atol = 1e-13\n[run]\nt_end = 20.0\n[periodic]\nsection = \"heel_strike\"\n"
                 "free = [\"theta\", \"omega\"]\ntol = 1e-10\n",
                 gamma_deg, l, spokes, uniform(-alpha, alpha), w0);
        solved S;
        solve_text(toml, &S);
        ck_assert_msg(S.rc == 0, "trial %d: %s", trial, S.r.message);
        ck_assert_double_eq_tol(S.r.y[0], -alpha, 1e-9);
        ck_assert_msg(fabs(S.r.y[1] - w_star) < 1e-8 * w_star, "trial %d: omega* %.12g vs %.12g",
                      trial, S.r.y[1], w_star);
        ck_assert_msg(fabs(S.r.mult_re[0] - c * c) < 1e-5 && S.r.mult_im[0] == 0.0,
                      "trial %d: multiplier %.9g vs c^2 = %.9g", trial, S.r.mult_re[0], c * c);
        ck_assert_double_le(hypot(S.r.mult_re[1], S.r.mult_im[1]), 1e-5);
        ck_assert_int_eq(S.r.stable, 1);
        double T = wheel_period(g, l, gamma, alpha, w_star);
        ck_assert_msg(fabs(S.r.period - T) < 1e-8 * T, "trial %d: period %.12g vs %.12g", trial,
                      S.r.period, T);
        char why[1024];
        double dev = nsd_periodic_repeat(&S.R, &S.pc.spec, S.r.y, 3, why, sizeof why);
        ck_assert_msg(dev >= 0 && dev < 1e-8, "trial %d: repeat %g (%s)", trial, dev, why);
        solved_free(&S);
    }
}
END_TEST

static void spiral_case(double a, double kick, double beta, double y_guess) {
    double w = 2.0 * M_PI, T = (2.0 * M_PI - beta) / w, mu = exp(a * T);
    double r_star = kick / (1.0 - mu);
    char toml[1024];
    snprintf(toml, sizeof toml,
             "plugin_path = [\"%s/spiral\"]\n[system]\nid = \"kicked_spiral\"\na = %.17g\n"
             "kick = %.17g\nbeta = %.17g\nx0 = %.17g\ny0 = %.17g\n[integrator]\nid = \"dopri5\"\n"
             "rtol = 1e-12\natol = 1e-12\n[run]\nt_end = 5.0\n[periodic]\nsection = \"section\"\n"
             "free = [\"x\", \"y\"]\ntol = 1e-10\n",
             NSDYN_TEST_FIXTURE_DIR, a, kick, beta, -y_guess * sin(beta), y_guess * cos(beta));
    solved S;
    solve_text(toml, &S);
    ck_assert_msg(S.rc == 0, "a = %g: %s", a, S.r.message);
    ck_assert_double_eq_tol(S.r.y[0], -r_star * sin(beta), 1e-8 * r_star);
    ck_assert_double_eq_tol(S.r.y[1], r_star * cos(beta), 1e-8 * r_star);
    ck_assert_double_eq_tol(S.r.period, T, 1e-9);
    ck_assert_msg(fabs(S.r.mult_re[0] - mu) < 1e-6 && S.r.mult_im[0] == 0.0,
                  "a = %g: multiplier %.9g vs e^(aT) = %.9g", a, S.r.mult_re[0], mu);
    ck_assert_double_le(hypot(S.r.mult_re[1], S.r.mult_im[1]), 1e-6);
    ck_assert_int_eq(S.r.stable, mu < 1.0);
    /* an unstable orbit repeats too, for a few periods, to its tolerance
     * times the growth */
    char why[1024];
    double dev = nsd_periodic_repeat(&S.R, &S.pc.spec, S.r.y, 2, why, sizeof why);
    ck_assert_msg(dev >= 0 && dev < 1e-8, "a = %g: repeat %g (%s)", a, dev, why);
    solved_free(&S);
}

START_TEST(linear_hybrid_stable_and_unstable) {
    spiral_case(-0.1, 1.0, 0.5, 3.0); /* stable: mu = e^(-0.1 T) */
    spiral_case(0.3, -1.0, 0.5, 2.0); /* unstable: mu = e^(0.3 T) = 1.3 */
    spiral_case(1.0, -2.0, 1.0, 1.0); /* strongly unstable: mu = 2.2, guess far off */
    for (int i = 0; i < 4; ++i) {     /* randomized */
        double a = uniform(-0.5, 0.5), beta = uniform(0.1, 2.0);
        if (fabs(a) < 0.02) a = 0.1;
        double mu = exp(a * (2.0 * M_PI - beta) / (2.0 * M_PI));
        double kick = (1.0 - mu) * uniform(1.0, 10.0); /* r* in [1, 10] */
        spiral_case(a, kick, beta, kick / (1.0 - mu) * uniform(0.5, 1.5));
    }
}
END_TEST

START_TEST(newton_reports_its_history) {
    solved S;
    solve_text("[system]\nid = \"rimless_hub\"\nomega0 = 3.0\n[integrator]\nid = \"dopri5\"\n"
               "rtol = 1e-11\n[run]\nt_end = 5.0\n[periodic]\nsection = \"heel_strike\"\n"
               "free = [\"theta\", \"omega\"]\nmax_iter = 1\n",
               &S);
    ck_assert_int_eq(S.rc, 1);
    ck_assert_int_eq(S.r.converged, 0);
    ck_assert_int_eq(S.r.iterations, 1);
    ck_assert_double_gt(S.r.history[0], 1e-3);
    ck_assert_double_lt(S.r.history[1], S.r.history[0]);
    ck_assert_ptr_nonnull(strstr(S.r.message, "did not converge in 1 iterations"));
    solved_free(&S);
}
END_TEST

/* The command: exit 0 with the closed form printed; exit 3 with the
 * residual history when Newton does not converge. */
START_TEST(command_line) {
    char cfg[] = "/tmp/nsdyn-periodic-XXXXXX.toml", out[512], cmd[2048];
    int fd = mkstemps(cfg, 5);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("[system]\nid = \"rimless_hub\"\n[integrator]\nid = \"dopri5\"\nrtol = 1e-11\n"
          "[run]\nt_end = 5.0\n[periodic]\nsection = \"heel_strike\"\n"
          "free = [\"theta\", \"omega\"]\n",
          f);
    fclose(f);
    snprintf(out, sizeof out, "%s.out", cfg);
    for (int bad = 0; bad < 2; ++bad) {
        snprintf(cmd, sizeof cmd, "%s periodic %s -o %s%s %s 2>&1", NSDYN_TEST_BINARY, cfg, out,
                 bad ? ".bad" : "", bad ? "--set periodic.max_iter=1" : "");
        FILE *p = popen(cmd, "r");
        char text[16384];
        size_t n = fread(text, 1, sizeof text - 1, p);
        text[n] = '\0';
        int status = pclose(p);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == (bad ? 3 : 0), "%s", text);
        if (bad)
            ck_assert_msg(strstr(text, "error: Newton residual history:"), "%s", text);
        else
            ck_assert_msg(strstr(text, "1.26586356") && strstr(text, "STABLE"), "%s", text);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s %s.out %s.out.bad.INCOMPLETE", cfg, cfg, cfg);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* [[variant]]s: two wheels on two ramps side by side; each variant's
 * orbit has the closed form's period, periodic_summary.csv one row each. */
START_TEST(variants_side_by_side) {
    char cfg[] = "/tmp/nsdyn-periodic-v-XXXXXX.toml", out[512], cmd[2048], path[600];
    int fd = mkstemps(cfg, 5);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("[system]\nid = \"rimless_hub\"\n[integrator]\nid = \"dopri5\"\nrtol = 1e-11\n"
          "atol = 1e-13\n[run]\nt_end = 5.0\n[periodic]\nsection = \"heel_strike\"\n"
          "free = [\"theta\", \"omega\"]\ntol = 1e-10\n"
          "[[variant]]\nname = \"4 deg\"\n[[variant]]\nname = \"6 deg\"\n"
          "[variant.system]\ngamma = 6.0\n",
          f);
    fclose(f);
    snprintf(out, sizeof out, "%s.out", cfg);
    snprintf(cmd, sizeof cmd, "%s periodic %s -o %s -q", NSDYN_TEST_BINARY, cfg, out);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/periodic_summary.csv", out);
    FILE *csv = fopen(path, "r");
    ck_assert_ptr_nonnull(csv);
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, csv)); /* header */
    const double gammas[2] = {4.0, 6.0};
    for (int i = 0; i < 2; ++i) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, csv));
        char *c = strchr(line + 1, '"'); /* past the quoted name */
        ck_assert_ptr_nonnull(c);
        double p, T, mu;
        int conv, stable;
        ck_assert_int_eq(sscanf(c + 2, "%lf,%d,%d,%lf,%lf", &p, &conv, &stable, &T, &mu), 5);
        double alpha = M_PI / 10, g = gammas[i] * M_PI / 180, cc = cos(2 * alpha);
        double w = sqrt(cc * cc * 4 * 9.81 * sin(alpha) * sin(g) / (1 - cc * cc));
        double T_want = wheel_period(9.81, 1.0, g, alpha, w);
        ck_assert_msg(conv == 1 && stable == 1 && fabs(T - T_want) < 1e-8 * T_want,
                      "variant %d: period %.12g vs %.12g", i, T, T_want);
        ck_assert_double_eq_tol(mu, cc * cc, 1e-5);
    }
    fclose(csv);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s.out", cfg, cfg);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A scenario run twice is the same run: the system's discrete mode (the
 * walker's stance foot, its step counter) is reset before each, else the
 * second run would start in the mode the first ended in. */
START_TEST(second_run_is_the_same) {
    const char *sets[] = {"run.t_end=1.2", "run.progress=false"};
    run R;
    test_run_file(&R, "walker2_gait.toml", sets, 2, NSD_RUN_COMPLETE);
    const nsd_series *s = &R.res.series;
    size_t nc = s->n_channels, rows = s->rows;
    double *first = malloc(nc * sizeof *first);
    ck_assert_ptr_nonnull(first);
    memcpy(first, s->data + (rows - 1) * nc, nc * sizeof *first);
    test_run(&R);
    ck_assert_uint_eq(R.res.series.rows, rows);
    const double *second = R.res.series.data + (rows - 1) * nc;
    for (size_t c = 0; c < nc; ++c)
        ck_assert_msg(first[c] == second[c] || (isnan(first[c]) && isnan(second[c])),
                      "channel %s: %.17g then %.17g", R.model.channels[c].name, first[c],
                      second[c]);
    free(first);
    test_unload(&R);
}
END_TEST

/* walker2, L#4: the section is the end of double support, the legs
 * swap; the orbit's heel-strike state must be docs/walker.md's (24). */
START_TEST(walker2_l4_gait) {
    char path[1024];
    snprintf(path, sizeof path, "%s/configs/walker2_periodic.toml", NSDYN_TEST_SOURCE_DIR);
    solved S;
    memset(&S, 0, sizeof S);
    nsd_diag diag = {0};
    S.R.no_graphs = 1;
    ck_assert_uint_eq(nsd_scenario_load(&S.R, path, NULL, 0, &diag), 0);
    ck_assert_uint_eq(nsd_periodic_read(&S.R.app.cfg, &S.R.model, &S.pc, &diag), 0);
    nsd_diag_free(&diag);
    nsd_run_settings *rs = &S.R.app.cfg.settings;
    rs->output_dt = rs->t_end - rs->t_start;
    ck_assert_int_eq(nsd_periodic_result_init(&S.r, S.R.model.n, S.pc.spec.n_free), 0);
    S.rc = nsd_periodic_solve(&S.R, &S.pc.spec, S.R.model.y0, &S.r, NULL);
    ck_assert_msg(S.rc == 0, "%s", S.r.message);
    ck_assert_double_eq_tol(S.r.period, 0.490741, 2e-6);
    ck_assert_int_eq(S.r.stable, 1);
    ck_assert_double_eq_tol(S.r.mult_re[0], 0.451, 0.002); /* docs: ~0.45 per step */
    /* the orbit repeats under plain simulation: within 2 tol / (1 - mu) ~ 4e-8 */
    char why[1024];
    double dev = nsd_periodic_repeat(&S.R, &S.pc.spec, S.r.y, 2, why, sizeof why);
    ck_assert_msg(dev >= 0 && dev < 1e-7, "repeat %g (%s)", dev, why);
    /* one more step at the config's sampling: the held heel-strike state */
    rs->output_dt = 1e-3;
    memcpy(S.R.data->y0, S.r.y, S.R.model.n * sizeof(double));
    S.R.data->section_switch = S.pc.spec.section + 1;
    S.R.data->section_count = 1;
    test_run(&S.R);
    const nsd_series *ser = &S.R.res.series;
    const char *names[] = {"hs_y_hip",  "hs_theta_trail", "hs_theta_lead", "hs_vx_hip",
                           "hs_vy_hip", "hs_omega_trail", "hs_omega_lead"};
    const double docs[] = {0.4025365,  -0.2431352, 0.2685055, 0.9320261,
                           -0.1803223, -2.3033875, -2.0043669};
    for (int i = 0; i < 7; ++i) {
        int c = nsd_model_channel(&S.R.model, names[i]);
        ck_assert_int_ge(c, 0);
        double v = nsd_series_at(ser, ser->rows - 1, (size_t)c);
        ck_assert_msg(fabs(v - docs[i]) < 2e-7, "%s = %.9g, docs/walker.md %.7g", names[i], v,
                      docs[i]);
    }
    solved_free(&S);
}
END_TEST

/* run.friction_states_open: the swing foot's LuGre state, held at its
 * start value (0) by default, follows (15) through the swing when asked:
 * with the slip far above v_s it sits at its sliding value
 * z = mu_c / sigma0 sign(slip) (walker2_gait.toml: 0.30 / 1e5 = 3e-6 m). */
START_TEST(friction_states_through_the_swing) {
    for (int open = 0; open < 2; ++open) {
        const char *sets[] = {"run.t_end=0.3", "run.output_dt=1e-3",
                              open ? "run.friction_states_open=true" : "run.progress=false"};
        run R;
        test_run_file(&R, "walker2_gait.toml", sets, 3, NSD_RUN_COMPLETE);
        int z = nsd_model_channel(&R.model, "foot2.z1"), v = nsd_model_channel(&R.model, "slip2");
        int st = nsd_model_channel(&R.model, "stance");
        ck_assert_int_ge(z, 0);
        ck_assert_int_ge(v, 0);
        const nsd_series *s = &R.res.series;
        size_t checked = 0;
        for (size_t r = 1; r < s->rows; ++r) {
            if (nsd_series_at(s, r, (size_t)st) != 1.0) break; /* leg 2 swings while leg 1 stands */
            double zr = nsd_series_at(s, r, (size_t)z), slip = nsd_series_at(s, r, (size_t)v);
            if (!open)
                ck_assert_double_eq(zr, 0.0);
            else if (fabs(slip) > 1e-2 && r > 5) {
                ck_assert_msg(fabs(zr - 3e-6 * (slip > 0 ? 1 : -1)) < 1e-9,
                              "t = %g: z = %g with slip %g", nsd_series_at(s, r, 0), zr, slip);
                checked++;
            }
        }
        if (open) ck_assert_uint_gt(checked, 50);
        test_unload(&R);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("periodic");
    TCase *tc = tcase_create("shooting");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rimless_wheel_closed_form);
    tcase_add_test(tc, linear_hybrid_stable_and_unstable);
    tcase_add_test(tc, newton_reports_its_history);
    tcase_add_test(tc, command_line);
    tcase_add_test(tc, variants_side_by_side);
    tcase_add_test(tc, second_run_is_the_same);
    tcase_add_test(tc, walker2_l4_gait);
    tcase_add_test(tc, friction_states_through_the_swing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
