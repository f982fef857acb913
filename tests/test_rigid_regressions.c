/* Rigid contact: the reproduction cases of the defects found in the shipped
 * configs (issue 9), as regressions, and the friction law's force in
 * sustained slip against a closed form.
 *
 * Tolerances. dopri5 at rtol 1e-10 integrates free flight exactly up to
 * rounding and locates impacts to 1e-12 s per second of t; the step guard
 * cuts steps at the same resolution, so the same impacts found with a
 * bounded step (max_step = 1e-4) agree to ~1e-9 s (the two runs take
 * different steps, and the curb wheel's contact law differs at rounding
 * level with the step history); 1e-6 s is used. Penetration: an impact is
 * located where the gap falls through 0 or -contact_tolerance, to the root
 * tolerance times the approach speed (< 1e-11 m here): the gaps never go
 * below -contact_tolerance by more than 1e-10 m. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#ifndef NSDYN_TEST_SOURCE_DIR
#error "NSDYN_TEST_SOURCE_DIR must be defined"
#endif

/* Smallest value of every channel whose name starts with "gap". */
static double min_gap(const run *R) {
    double lo = INFINITY;
    for (size_t c = 0; c < R->res.series.n_channels; ++c) {
        if (strncmp(R->model.channels[c].name, "gap", 3) != 0) continue;
        for (size_t r = 0; r < R->res.series.rows; ++r)
            lo = fmin(lo, nsd_series_at(&R->res.series, r, c));
    }
    return lo;
}

/* The wheel passed through the curb edge: dopri5's free-flight step stepped
 * over the dip of gap_III (about -5 cm, no impact logged). Now the impacts
 * are those of a run with max_step = 1e-4, and no gap goes deeper than
 * the contact tolerance. */
START_TEST(curb_wheel_misses_no_impact) {
    run R = {0}, ref = {0};
    const char *no_plot[] = {"plot.enabled=false"};
    const char *fine[] = {"plot.enabled=false", "integrator.max_step=1e-4"};
    test_run_file(&R, "curb_wheel_poisson_down.toml", no_plot, 1, NSD_RUN_COMPLETE);
    test_run_file(&ref, "curb_wheel_poisson_down.toml", fine, 2, NSD_RUN_COMPLETE);
    ck_assert_msg(min_gap(&R) >= -1e-9 - 1e-10, "penetration %.3g m", -min_gap(&R));
    const nsd_event_log *a = &R.res.contact_log, *b = &ref.res.contact_log;
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; ++i) {
        ck_assert_uint_eq(a->rec[i].contact, b->rec[i].contact);
        ck_assert_int_eq(a->rec[i].kind, b->rec[i].kind);
        ck_assert_msg(fabs(a->rec[i].t - b->rec[i].t) <= 1e-6,
                      "event %zu at %.12g s, reference %.12g s", i, a->rec[i].t, b->rec[i].t);
    }
    /* the edge impact the old runner missed */
    ck_assert_str_eq(R.model.layout.contacts[a->rec[1].contact].name, "III_corner");
    ck_assert_double_eq_tol(last(&R, "x"), last(&ref, "x"), 1e-8);
    ck_assert_double_eq_tol(last(&R, "y"), last(&ref, "y"), 1e-8);
    run_free(&R);
    run_free(&ref);
}
END_TEST

/* e = 0.95 logged 848 034 impacts in 20 s (the gap threshold crept down by
 * 1e-12 m per impact). Now the accumulation ends near its closed-form time
 * T = sqrt(2h/g)(1+e)/(1-e), early by at most 2 v_r/(g(1-e)). */
START_TEST(accumulation_ends_e095) {
    run R = {0};
    const char *sets[] = {"plot.enabled=false", "contact.e=0.95", "run.t_end=20"};
    test_run_file(&R, "bouncing_ball_newton.toml", sets, 3, NSD_RUN_COMPLETE);
    const double g = 9.81, h = 1.0, e = 0.95;
    double v0 = sqrt(2 * g * h), v_r = fmax(1e-6 * v0, sqrt(2 * g * 1e-9));
    double T = sqrt(2 * h / g) * (1 + e) / (1 - e), bound = 2 * v_r / (g * (1 - e));
    const nsd_event_log *ev = &R.res.contact_log;
    const nsd_event_record *end = &ev->rec[ev->n - 1];
    ck_assert(end->kind == NSD_EVENT_REST || end->kind == NSD_EVENT_CLOSE);
    ck_assert_msg(end->t <= T + 1e-9 && end->t >= T - bound - 1e-9,
                  "rest at %.9g s, T %.9g s, bound %.3g s", end->t, T, bound);
    /* log(v_r / v0) / log(e) impacts, and one more for the last rebound */
    size_t n_max = (size_t)ceil(log(v_r / v0) / log(e)) + 1;
    ck_assert_uint_le(test_count_kind(&R, NSD_EVENT_IMPACT), n_max);
    ck_assert_double_eq_tol(last(&R, "vy"), 0.0, 1e-12);
    run_free(&R);
}
END_TEST

/* bdf at its default tolerances: CVODE returned from its root finder 2 373
 * times for 67 logged events, none of it reported. Now every root return
 * is a logged event (the gaps are the step guard's), and the impact
 * speeds follow e^k sqrt(2 g h) to bdf's accuracy (rtol 1e-6). */
START_TEST(bdf_root_returns_are_events) {
    run R = {0};
    const char *sets[] = {"plot.enabled=false", "contact.e=0.9", "run.t_end=10",
                          "integrator.id=bdf"};
    test_run_file(&R, "bouncing_ball_newton.toml", sets, 4, NSD_RUN_COMPLETE);
    ck_assert_uint_eq(R.res.unlogged_roots, 0);
    ck_assert_uint_le(R.res.root_returns, R.res.contact_log.n);
    double v0 = sqrt(2 * 9.81 * 1.0);
    size_t k = 0;
    for (size_t i = 0; i < R.res.contact_log.n && k < 10; ++i) {
        const nsd_event_record *ev = &R.res.contact_log.rec[i];
        if (ev->kind != NSD_EVENT_IMPACT) continue;
        ck_assert_msg(fabs(-ev->u_before[0] - v0 * pow(0.9, (double)k)) <= 1e-4 * v0,
                      "impact %zu speed %.9g", k, -ev->u_before[0]);
        k++;
    }
    ck_assert_uint_eq(k, 10);
    const nsd_event_record *end = &R.res.contact_log.rec[R.res.contact_log.n - 1];
    ck_assert(end->kind == NSD_EVENT_REST || end->kind == NSD_EVENT_CLOSE);
    run_free(&R);
}
END_TEST

/* ---- the friction law's force in sustained slip: stribeck --------------
 * A block sliding on the floor (newton, e = 0) decelerates at
 * v' = -g mu(v) v / sqrt(v^2 + eps^2) with the stribeck curve
 * mu(v) = mu_c + (mu_s - mu_c) exp(-(v/v_s)^2) (plugins/friction/stribeck.c),
 * so it reaches speed v at t(v) = int_v^v0 du / (g mu(u) u / sqrt(u^2 + eps^2)),
 * evaluated here by composite Simpson (error ~1e-12 s with 20 000 panels).
 * Coulomb friction at mu_c would reach it at (v0 - v) / (g mu_c): the
 * Stribeck peak must change the motion. */
static double stribeck_decel(double v, double g, double mu_s, double mu_c, double v_s, double eps) {
    double mu = mu_c + (mu_s - mu_c) * exp(-(v / v_s) * (v / v_s));
    return g * mu * v / sqrt(v * v + eps * eps);
}

static double stribeck_time(double v, double v0, double g, double mu_s, double mu_c, double v_s,
                            double eps) {
    const int n = 20000;
    double h = (v0 - v) / n, sum = 0.0;
    for (int i = 0; i <= n; ++i) {
        double u = v + i * h, w = i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w / stribeck_decel(u, g, mu_s, mu_c, v_s, eps);
    }
    return sum * h / 3.0;
}

START_TEST(stribeck_slip_follows_its_curve) {
    const double g = 9.81, mu_s = 0.6, mu_c = 0.3, v_s = 0.5, eps = 1e-3, v0 = 2.0, r = 0.05;
    char toml[1024];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"point_mass\"\nm = 1.0\nr = %g\ng = %g\n"
             "[contact]\nid = \"newton\"\ne = 0.0\n"
             "[friction]\nid = \"stribeck\"\nmu_s = %g\nmu_k = %g\nv_s = %g\neps = %g\n"
             "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
             "[initial]\ny = %g\nvx = %g\n[run]\nt_end = 0.5\noutput_dt = 1e-3\nprogress = false\n",
             r, g, mu_s, mu_c, v_s, eps, r, v0);
    run R = {0};
    run_config(&R, toml, NSD_RUN_COMPLETE);
    size_t checked = 0;
    for (size_t i = 1; i < R.res.series.rows; i += 50) {
        double v = at(&R, i, "vx"), t = at(&R, i, "t");
        if (v < 0.05) break;
        double t_curve = stribeck_time(v, v0, g, mu_s, mu_c, v_s, eps);
        ck_assert_msg(fabs(t - t_curve) <= 1e-6, "vx = %.9g m/s at t = %.9g s, curve says %.9g s",
                      v, t, t_curve);
        ck_assert_double_eq_tol(at(&R, i, "ground.Ft1"),
                                -stribeck_decel(v, g, mu_s, mu_c, v_s, eps), 1e-6);
        checked++;
    }
    ck_assert_uint_ge(checked, 5);
    /* Coulomb at mu_c is slower to brake: well apart at v = 0.5 m/s */
    double t_coulomb = (v0 - 0.5) / (g * mu_c),
           t_stribeck = stribeck_time(0.5, v0, g, mu_s, mu_c, v_s, eps);
    ck_assert(t_coulomb - t_stribeck > 1e-2);
    run_free(&R);
}
END_TEST

/* moreau wrote 0 into every contact-force channel, even at rest. Now a
 * sample reports the step's impulse / h: at rest the impulse of a step is
 * m g h exactly (it cancels the free velocity -g h), so N = m g to
 * rounding; and the impulses of the whole run, integrated, balance the
 * weight and the momentum: sum N h = m g T + m (v(T) - v(0)). */
START_TEST(moreau_reports_contact_forces) {
    run R = {0};
    const double m = 0.1, g = 9.81, h = 1e-3;
    const char *sets[] = {"plot.enabled=false", "integrator.id=moreau", "integrator.h=1e-3",
                          "run.output_dt=1e-3"};
    test_run_file(&R, "bouncing_ball_moreau_vs_event.toml", sets, 4, NSD_RUN_COMPLETE);
    ck_assert_double_eq_tol(last(&R, "ground.N"), m * g, 1e-12 * m * g);
    double impulse = 0.0;
    for (size_t i = 1; i < R.res.series.rows; ++i) impulse += at(&R, i, "ground.N") * h;
    double T = last(&R, "t"), dv = last(&R, "vy") - at(&R, 0, "vy");
    ck_assert_double_eq_tol(impulse, m * g * T + m * dv, 1e-9);
    run_free(&R);
}
END_TEST

/* poisson and kane_impulse could not run under moreau (it reimplemented
 * Newton's law itself). Now moreau asks the contact law for each contact's
 * impulse: every rigid law runs. Frictionless central impacts of a ball
 * are the same for the three (Poisson's beta = Newton's e there), so the
 * ball must bounce to the same height e^2 h (to the scheme's O(h g) per
 * impact: Moreau-Jean locates an impact within a step, 1 ms here, so the
 * rebound speed is off by up to g h and the apex by v g h / g = v h ~
 * 5 mm) and rest with N = m g. */
START_TEST(moreau_runs_every_rigid_law) {
    const char *laws[] = {"contact.id=newton", "contact.id=poisson", "contact.id=kane_impulse"};
    const char *coef[] = {"contact.e=0.5", "contact.beta=0.5", "contact.e=0.5"};
    double apex[3];
    for (int k = 0; k < 3; ++k) {
        run R = {0};
        const char *sets[] = {"plot.enabled=false", "integrator.id=moreau", "integrator.h=1e-3",
                              laws[k], coef[k]};
        test_run_file(&R, "bouncing_ball_moreau_vs_event.toml", sets, 5, NSD_RUN_COMPLETE);
        /* the highest point between 0.6 s and 1.2 s: the first rebound's apex */
        apex[k] = 0.0;
        for (size_t i = 0; i < R.res.series.rows; ++i) {
            double t = at(&R, i, "t");
            if (t > 0.6 && t < 1.2) apex[k] = fmax(apex[k], at(&R, i, "y") - 0.05);
        }
        ck_assert_msg(fabs(apex[k] - 0.25) <= 5e-3, "%s: apex %.6g m, expected 0.25 m", laws[k],
                      apex[k]);
        ck_assert_double_eq_tol(last(&R, "ground.N"), 0.1 * 9.81, 1e-12);
        run_free(&R);
    }
    ck_assert_double_eq_tol(apex[1], apex[0], 1e-12);
    ck_assert_double_eq_tol(apex[2], apex[0], 1e-12);
}
END_TEST

/* kane_impulse refused every impact with two contacts touching, so the
 * thesis' valley stopped at its first corner (the sphere rolling down the
 * decline onto the floor). Now it runs through both corners to a stop
 * rule, for plastic to nearly elastic impacts; no gap goes deeper than the
 * tolerance, and the mechanical energy never grows (dopri5 at rtol 1e-10
 * keeps it to ~1e-9 relative over the run; 1e-8 of its scale is allowed). */
START_TEST(valley_runs_through_corners) {
    const char *es[] = {"contact.e=0", "contact.e=0.5", "contact.e=0.92"};
    for (int k = 0; k < 3; ++k) {
        run R = {0};
        const char *sets[] = {"plot.enabled=false", "system.x0=0", "system.v0=0.5", "run.t_end=40",
                              es[k]};
        test_run_file(&R, "sphere_roll_over_rim.toml", sets, 5, NSD_RUN_STOPPED);
        ck_assert_msg(min_gap(&R) >= -1e-9 - 1e-10, "%s: penetration %.3g m", es[k], -min_gap(&R));
        const nsd_event_log *ev = &R.res.contact_log;
        int floor_hit = 0;
        for (size_t i = 0; i < ev->n; ++i) {
            const char *name = R.model.layout.contacts[ev->rec[i].contact].name;
            if (ev->rec[i].kind == NSD_EVENT_IMPACT && strcmp(name, "floor") == 0 && !floor_hit) {
                floor_hit = 1; /* at the decline's foot, the decline contact touching */
                ck_assert_double_eq_tol(ev->rec[i].t, 5.56985866948404, 1e-8);
            }
        }
        ck_assert(floor_hit);
        double E0 = at(&R, 0, "energy"), scale = fabs(E0) + fabs(at(&R, 0, "kinetic")) + 1.0,
               top = E0;
        for (size_t i = 1; i < R.res.series.rows; ++i) {
            double E = at(&R, i, "energy");
            ck_assert_msg(E <= top + 1e-8 * scale,
                          "%s: energy grows to %.12g J at t = %.6g s (from %.12g J)", es[k], E,
                          at(&R, i, "t"), top);
            top = fmin(top, E); /* never above the lowest energy so far */
        }
        run_free(&R);
    }
}
END_TEST

/* The deepest penetration of a run: gap channels below zero, or a
 * system's own "penetration" output (positive when penetrating) [m]. */
static double deepest(const run *R) {
    double worst = 0.0;
    for (size_t c = 0; c < R->res.series.n_channels; ++c) {
        const char *name = R->model.channels[c].name;
        int gap = strncmp(name, "gap", 3) == 0, pen = strcmp(name, "penetration") == 0;
        if (!gap && !pen) continue;
        for (size_t r = 0; r < R->res.series.rows; ++r) {
            double v = nsd_series_at(&R->res.series, r, c);
            worst = fmax(worst, gap ? -v : v);
        }
    }
    return worst;
}

/* Every shipped single-run config with a rigid law, run event-driven as
 * shipped (no max_step): no penetration deeper than the contact tolerance
 * (+1e-10 m, the location tolerance), and the same impacts per contact as
 * a run with max_step = 1e-4. */
START_TEST(shipped_rigid_configs_never_penetrate) {
    char cmd[600], path[512];
    snprintf(cmd, sizeof cmd, "cd %s/configs && grep -L '^\\[\\[variant' *.toml",
             NSDYN_TEST_SOURCE_DIR);
    FILE *ls = popen(cmd, "r");
    ck_assert_ptr_nonnull(ls);
    size_t checked = 0;
    while (fgets(path, sizeof path, ls)) {
        path[strcspn(path, "\n")] = '\0';
        run R = {0}, ref = {0};
        const char *sets[] = {"plot.enabled=false", "run.progress=false",
                              "integrator.max_step=1e-4"};
        nsd_diag diag = {0};
        char full[1024];
        snprintf(full, sizeof full, "%s/configs/%s", NSDYN_TEST_SOURCE_DIR, path);
        size_t errors = nsd_scenario_open(&R, full, sets, 2, &diag);
        ck_assert_uint_eq(errors, 0);
        int rigid = R.app.cfg.contact.plugin &&
                    (R.app.cfg.contact.plugin->info->provides & NSDYN_CAP_RIGID_IMPACT);
        const char *ig = R.app.cfg.integrator.plugin->info->id;
        int located = strcmp(ig, "dopri5") == 0 || strcmp(ig, "bdf") == 0;
        nsd_scenario_destroy(&R);
        nsd_diag_free(&diag);
        if (!rigid || !located) continue;
        test_run_file(&R, path, sets, 2, (nsd_run_outcome)TEST_ANY_OUTCOME);
        ck_assert_msg(deepest(&R) <= 1e-9 + 1e-10, "%s: penetration %.3g m", path, deepest(&R));
        test_run_file(&ref, path, sets, 3, R.res.outcome);
        for (size_t c = 0; c < R.model.nc; ++c) {
            size_t a = 0, b = 0;
            for (size_t i = 0; i < R.res.contact_log.n; ++i)
                a += R.res.contact_log.rec[i].contact == c &&
                     R.res.contact_log.rec[i].kind == NSD_EVENT_IMPACT;
            for (size_t i = 0; i < ref.res.contact_log.n; ++i)
                b += ref.res.contact_log.rec[i].contact == c &&
                     ref.res.contact_log.rec[i].kind == NSD_EVENT_IMPACT;
            ck_assert_msg(a == b, "%s: contact %s: %zu impacts, %zu with max_step = 1e-4", path,
                          R.model.layout.contacts[c].name, a, b);
        }
        run_free(&R);
        run_free(&ref);
        checked++;
    }
    pclose(ls);
    ck_assert_uint_ge(checked, 6);
}
END_TEST

/* A sphere bouncing down a valley's decline towards the concave corner
 * with the floor: one integrator step (dopri5, 0.6 s of free flight) held
 * the decline's crossing, the corner, the floor's crossing and a jump of
 * the decline's gap where the centre went below the floor; bisection on
 * the whole bracket found the jump, the floor impact came first, and the
 * decline's impact was missed: the sphere sank 0.058 m into the decline
 * (found by the tumbleweed studies). The step guard now locates the first
 * crossing of a bracket. */
START_TEST(first_crossing_of_a_bracket) {
    run R = {0};
    const char *sets[] = {"plot.enabled=false", "run.progress=false", "system.backspin0=true"};
    test_run_file(&R, "tumbleweed_case4_physical.toml", sets, 3, (nsd_run_outcome)TEST_ANY_OUTCOME);
    ck_assert_msg(deepest(&R) <= 1e-9 + 1e-10, "penetration %.3g m", deepest(&R));
    run_free(&R);
    /* The search found the floor's crossing at a leaf that did not bracket
     * the decline's earlier one (study I's grid, b = 2 m): 0.339 m deep
     * before the hit was checked for earlier crossings. */
    run Q = {0};
    const char *grid[] = {"plot.enabled=false", "run.progress=false",  "system.b=2",
                          "contact.e=0.81",     "system.j_over_m=0.8", "system.v0=6.0"};
    test_run_file(&Q, "sweep_tumbleweed_study1.toml", grid, 6, (nsd_run_outcome)TEST_ANY_OUTCOME);
    ck_assert_msg(deepest(&Q) <= 1e-9 + 1e-10, "penetration %.3g m", deepest(&Q));
    run_free(&Q);
    /* A sphere meeting the concave corner: the decline's crossing 0.6 ms
     * before the floor's, between two samples of the check (study IV's
     * grid: 1.7 mm into the decline before the hit itself was checked). */
    run C = {0};
    const char *corner[] = {"plot.enabled=false", "run.progress=false",  "system.b=5",
                            "contact.e=0.96",     "system.j_over_m=7.5", "system.v0=8.4"};
    test_run_file(&C, "sweep_tumbleweed_study4.toml", corner, 6, (nsd_run_outcome)TEST_ANY_OUTCOME);
    /* contact_tolerance + the position error of dopri5 at rtol 1e-10 over
     * the deep valley's 30 m (the crossing is found on the dense output of
     * a 2 s step): 1e-9 + 3e-9 m; the defect was 1.7e-3 m */
    ck_assert_msg(deepest(&C) <= 1e-9 + 1e-10 * 30.0, "penetration %.3g m", deepest(&C));
    run_free(&C);
}
END_TEST

/* A contact that starts its phase at its threshold (it has just bounced)
 * and whose rebound returns within one integrator step, while the gap's
 * curvature changes sign in that step: a sphere's tiny bounces on a face
 * meeting a convex edge, past which the gap rises again (centripetal
 * v^2/b above g cos(alpha)). The Hermite interpolant of such a step falls
 * from ~0 to a low point and rises, or rises from ~0 throughout, and the
 * rebound's flight above the threshold (d0^2/(2 a), nm) is invisible to
 * it. The guard split at the low point again and again (no sample above
 * 0, no bracket) or called the rising interpolant safe; the sphere sank
 * through the face, rose again past the edge (so the penetration check,
 * which wants an approach, stayed silent) and the drift projection lifted
 * it back: study I's grid at b = 1 m, e = 0.8, J/m = 0.5 b^2, 3.3 m/s sank
 * 1.26e-5 m at t = 7.63 s. Then the same mechanism over random edges,
 * slopes, sizes, laws and bounce sizes (the accumulation's tail of
 * rebounds 1e-4 to 3e-3 m/s meets the edge). Without the fix: the grid
 * point 1.26e-5 m, and 35 of 200 scenarios sank, by up to 1.05e-5 m (with
 * only the split rule 29, up to 5.7e-7 m; with only the band rule the grid
 * point and 7); without the error's normalization (search()) the second
 * grid point 1.73e-6 m. Tolerance: contact_tolerance + 1e-10 m, as the
 * others. */
/* Fewer random scenarios under AddressSanitizer (several times slower). */
#if defined(__SANITIZE_ADDRESS__)
#define EDGE_N 40
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EDGE_N 40
#endif
#endif
#ifndef EDGE_N
#define EDGE_N 200
#endif

static uint64_t edge_lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}
static double edge_u(uint64_t *s, double a, double b) {
    return a + (b - a) * (double)edge_lcg(s) * 0x1p-53;
}

static void edge_scenario(uint64_t *seed, char *toml, size_t len) {
    double g = edge_lcg(seed) % 2 ? 9.81 : 3.71, b = edge_u(seed, 0.2, 2.0);
    double alpha = edge_u(seed, -20.0, 30.0), turn = edge_u(seed, fmax(alpha, 0.0) + 5.0, 60.0);
    double e = edge_u(seed, 0.5, 0.9), ca = cos(alpha * M_PI / 180), sa = sin(alpha * M_PI / 180);
    double an = g * ca, v = edge_u(seed, 0.3, 2.0) * sqrt(an * b), u0 = edge_u(seed, 0.01, 0.1);
    double uk = exp(edge_u(seed, log(1e-4), log(3e-3)));
    int kane = edge_lcg(seed) % 2;
    double mu = edge_u(seed, 0.3, 1.0);
    /* the accumulation ends near T = 2 u0/(a (1 - e)); the edge is met
     * where the rebounds have fallen to uk */
    double tE = 2.0 * u0 / (an * (1.0 - e)) * (1.0 - uk / u0), d = v * tE;
    double x = -d * ca - b * sa, z = -d * sa + b * ca, L = d + 20.0;
    char law[160];
    snprintf(law, sizeof law,
             kane ? "id = \"kane_impulse\"\ne = %.17g\n[friction]\nid = \"coulomb\"\nmu_s = "
                    "%.17g\nmu_k = %.17g\n"
                  : "id = \"newton\"\ne = %.17g\n",
             e, mu, 0.8 * mu);
    snprintf(toml, len,
             "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\n"
             "angles = [%.17g, %.17g, 0.0]\nlengths = [%.17g, 50.0, 20.0]\n"
             "x_start = %.17g\nz_start = %.17g\nb = %.17g\nm = 1.0\nj_over_m = %.17g\n"
             "g = %.17g\nx0 = %.17g\nv0 = 0.0\nrolling0 = false\n[contact]\n%s"
             "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
             "[initial]\nx = %.17g\nz = %.17g\nvx = %.17g\nvz = %.17g\nwy = %.17g\n"
             "[run]\nt_end = %.17g\noutput_dt = 2e-5\nprogress = false\n[plot]\nenabled = false\n",
             alpha, alpha - turn, L, -L * ca, -L * sa, b, 0.4 * b * b, g, x, law, x, z,
             v * ca - u0 * sa, v * sa + u0 * ca, v / b, tE + 0.01);
}

START_TEST(rebound_at_a_convex_edge) {
    run R = {0};
    const char *grid[] = {"plot.enabled=false", "run.progress=false",  "system.b=1",
                          "contact.e=0.8",      "system.j_over_m=0.5", "system.v0=3.3"};
    test_run_file(&R, "sweep_tumbleweed_study1.toml", grid, 6, (nsd_run_outcome)TEST_ANY_OUTCOME);
    double grid_deep = deepest(&R);
    run_free(&R);
    /* A rebound of 2.1e-3 m/s whose flight ends past the edge: the split
     * at the interpolant's high point, 5 % into the step, measured the
     * interpolants' error where it is ~s^2 of its largest, and the long
     * half was called safe (1.73e-6 m deep, seen on 1e-4 s samples). */
    const char *grid2[] = {"plot.enabled=false", "run.progress=false",   "system.b=1",
                           "contact.e=0.72",     "system.j_over_m=0.67", "system.v0=5.2",
                           "run.output_dt=1e-4"};
    test_run_file(&R, "sweep_tumbleweed_study1.toml", grid2, 7, (nsd_run_outcome)TEST_ANY_OUTCOME);
    grid_deep = fmax(grid_deep, deepest(&R));
    run_free(&R);
    uint64_t seed = 20261126;
    int n = getenv("NSDYN_EDGE_N") ? atoi(getenv("NSDYN_EDGE_N")) : EDGE_N, bad = 0;
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        char toml[2048];
        edge_scenario(&seed, toml, sizeof toml);
        run S = {0};
        test_load(toml, &S);
        test_run(&S);
        double deep = deepest(&S);
        int failed = S.res.outcome == NSD_RUN_FAILED;
        if (failed || deep > 1e-9 + 1e-10) {
            bad++;
            fprintf(stderr, "edge scenario %d: %s, penetration %.3g m\n%s\n", k,
                    failed ? S.res.message : "ran", deep, toml);
        }
        worst = fmax(worst, deep);
        run_free(&S);
    }
    ck_assert_msg(grid_deep <= 1e-9 + 1e-10 && bad == 0,
                  "study I's grid points: penetration %.3g m; %d of %d edge scenarios penetrated "
                  "or failed (deepest %.3g m)",
                  grid_deep, bad, n, worst);
}
END_TEST

/* Mechanical energy rise over the run's samples: the largest E(t) - min
 * E(s <= t) [J], the energy audit's own measure, here on the output grid. */
static double energy_rise(const run *R) {
    size_t ce = chan(R, "energy");
    double lo = INFINITY, rise = 0.0;
    for (size_t r = 0; r < R->res.series.rows; ++r) {
        double E = nsd_series_at(&R->res.series, r, ce);
        lo = fmin(lo, E);
        rise = fmax(rise, E - lo);
    }
    return rise;
}

/* Scenario 164 of rigid-campaign.py --kinds sphere: rolling at 2.35 m/s
 * over the straight vertex between seg1 and seg2 (both level), the
 * integrator located seg2's normal force falling through zero (the old
 * owner of the edge sees it as a sharp edge past x = 0: N = m g - m v^2/b
 * < 0) 2.2e-13 m past the vertex, before the edge's handover to seg1, whose
 * function had crossed too. Resolved with the stale owner, seg1's face and
 * seg2's edge carried the one contact point (normals equal to 7e-13), the
 * projection onto the near-identical rows gave impulses of 1e13 N s and
 * the sphere rolled 3.04 times faster (7.10 -> 40.9 J, the energy audit
 * stopped the run); the handover itself was lost at the restart. Now the
 * switch is applied first: the sphere rolls on at its speed. */
START_TEST(straight_vertex_handover_with_a_contact_event) {
    static const char toml[] =
        "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\n"
        "angles = [0, 0, -15.729, 0, -90, 5.171, -60, 0]\n"
        "lengths = [20, 1.606, 1.835, 0.613, 0.31, 2.564, 0.844, 20]\n"
        "x_start = -20.0\nz_start = 0.0\nb = 0.296\nm = 1.0\nj_over_m = 0.043\ng = 9.81\n"
        "x0 = 3.081\nv0 = 0.0\nrolling0 = false\n"
        "[contact]\nid = \"kane_impulse\"\ne = 0.37\n"
        "[friction]\nid = \"coulomb\"\nmu_s = 0.695\nmu_k = 0.69\n"
        "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
        "[initial]\nwx = 0.11\nwy = -3.558\nwz = 0.481\nvx = -2.984\nvy = -0.464\nvz = 2.489\n"
        "z = 0.32510553691325145\n"
        "[run]\nt_end = 3\noutput_dt = 1e-3\nprogress = false\n[plot]\nenabled = false\n";
    run R = {0};
    test_load(toml, &R);
    test_run(&R);
    ck_assert_msg(R.res.outcome == NSD_RUN_COMPLETE, "outcome %d: %s", (int)R.res.outcome,
                  R.res.message);
    /* the rolling speed before the vertex (t = 1.17 s) is kept to the end:
     * a level plane, rolling without slip, no force does work */
    size_t rows = R.res.series.rows, k = (size_t)(1.17 / 1e-3);
    ck_assert_double_eq_tol(at(&R, k, "vx"), -2.34835217737, 1e-9);
    ck_assert_double_eq_tol(last(&R, "vx"), at(&R, k, "vx"), 1e-9);
    ck_assert_double_eq_tol(last(&R, "wy"), at(&R, k, "wy"), 1e-9);
    ck_assert_double_eq_tol(last(&R, "energy"), at(&R, k, "energy"), 1e-9);
    ck_assert_uint_eq(rows, 3001);
    /* both handovers: edge2 to seg2 at 0.494 s, edge1 to seg1 at 1.1715 s */
    ck_assert_uint_eq(R.res.n_switches, 2);
    ck_assert_double_eq_tol(R.res.event_times[R.res.n_events - 1], 1.1715349951, 1e-9);
    run_free(&R);
}
END_TEST

/* A sphere on a straight profile of collinear segments (a random common
 * slope, random lengths, some shorter than b), rolling or sliding downhill
 * across their vertices at random speeds and spins with random Coulomb
 * friction and restitution. The motion along the slope is monotone
 * (downhill, spin of the same sense: friction drives the speed towards
 * the positive rolling speed (m b v + J w)/(m b + J/b)), so every vertex
 * between the start and the end is crossed once: one handover each. The
 * energy never rises by more than the audit's own bound
 * (run.energy_tolerance times the largest |E|), checked on the samples
 * independently of the audit, and the run completes. */
static void straight_scenario(uint64_t *seed, char *toml, size_t len, int *dir, double *xv,
                              double *zv, double *t, size_t *nv) {
    double b = edge_u(seed, 0.1, 0.5), g = 9.81, jm = edge_u(seed, 0.2, 0.67) * b * b;
    *dir = edge_lcg(seed) % 2 ? 1 : -1;
    double slope = -*dir * edge_u(seed, 0.0, 8.0) * (edge_lcg(seed) % 3 ? 1.0 : 0.0);
    double ca = cos(slope * M_PI / 180), sa = sin(slope * M_PI / 180);
    size_t n = 3 + edge_lcg(seed) % 5; /* segments; the outer two unbounded */
    char angles[256] = "", lengths[256] = "";
    double s = -20.0;
    *nv = n - 1;
    for (size_t i = 0; i < n; ++i) {
        double L = i == 0 || i + 1 == n ? 20.0 : edge_u(seed, 0.05, 1.5);
        size_t ua = strlen(angles), ul = strlen(lengths);
        snprintf(angles + ua, sizeof angles - ua, "%s%.17g", i ? ", " : "", slope);
        snprintf(lengths + ul, sizeof lengths - ul, "%s%.17g", i ? ", " : "", L);
        s += L;
        if (i + 1 < n) xv[i] = s; /* along-slope coordinate of vertex i + 1 */
    }
    /* start 0.3 m before the first vertex (dir +1) or after the last */
    double s0 = *dir > 0 ? xv[0] - 0.3 : xv[*nv - 1] + 0.3;
    double v = exp(edge_u(seed, log(0.3), log(8.0))), w = edge_u(seed, 0.2, 1.8) * v / b;
    double vy = edge_u(seed, -0.3, 0.3) * v, wx = edge_u(seed, -0.3, 0.3) * v / b;
    double mu = edge_u(seed, 0.1, 1.0), e = edge_u(seed, 0.0, 0.9);
    double vf = (b * v + jm * w / b) / (b + jm / b),
           dist = *dir > 0 ? xv[*nv - 1] - s0 : s0 - xv[0];
    double t_end = (dist + 0.3) / fmin(v, vf);
    /* centre b above the plane: s along the slope, b along its normal */
    double x = -20.0 * ca + (s0 + 20.0) * ca - b * sa, z = -20.0 * sa + (s0 + 20.0) * sa + b * ca;
    snprintf(toml, len,
             "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [%s]\n"
             "lengths = [%s]\nx_start = %.17g\nz_start = %.17g\nb = %.17g\nm = 1.0\n"
             "j_over_m = %.17g\ng = %.17g\nx0 = %.17g\nv0 = 0.0\nrolling0 = false\n"
             "[contact]\nid = \"kane_impulse\"\ne = %.17g\n[friction]\nid = \"coulomb\"\n"
             "mu_s = %.17g\nmu_k = %.17g\n[integrator]\nid = \"dopri5\"\nrtol = 1e-10\n"
             "atol = 1e-12\n[initial]\nx = %.17g\nz = %.17g\nvx = %.17g\nvz = %.17g\n"
             "vy = %.17g\nwx = %.17g\nwy = %.17g\nwz = %.17g\n"
             "[run]\nt_end = %.17g\noutput_dt = 1e-3\nprogress = false\n[plot]\nenabled = false\n",
             angles, lengths, -20.0 * ca, -20.0 * sa, b, jm, g, x, e, mu, 0.9 * mu, x, z,
             *dir * v * ca, *dir * v * sa, vy, wx, *dir * w, edge_u(seed, -2.0, 2.0), t_end);
    for (size_t i = 0; i < *nv; ++i) { /* world (x, z) */
        zv[i] = -20.0 * sa + (xv[i] + 20.0) * sa;
        xv[i] = -20.0 * ca + (xv[i] + 20.0) * ca;
    }
    t[0] = ca;
    t[1] = sa;
}

START_TEST(straight_vertices_never_gain_energy) {
    uint64_t seed = 20261126164ull;
    int n = getenv("NSDYN_EDGE_N") ? atoi(getenv("NSDYN_EDGE_N")) : EDGE_N, bad = 0;
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        char toml[4096];
        double xv[8], zv[8], t[2];
        size_t nv = 0;
        int dir = 1;
        straight_scenario(&seed, toml, sizeof toml, &dir, xv, zv, t, &nv);
        run S = {0};
        test_load(toml, &S);
        test_run(&S);
        double rise = energy_rise(&S), bound = S.model.audit.tolerance * S.res.energy_scale;
        /* a vertex is handed over where the centre crosses its normal line */
        double x0 = at(&S, 0, "x"), z0 = at(&S, 0, "z"), x1 = last(&S, "x"), z1 = last(&S, "z");
        size_t crossed = 0;
        for (size_t i = 0; i < nv; ++i)
            crossed += (t[0] * (x0 - xv[i]) + t[1] * (z0 - zv[i])) *
                           (t[0] * (x1 - xv[i]) + t[1] * (z1 - zv[i])) <
                       0.0;
        /* complete, or stopped past the last vertex (the system's 'crossed') */
        int failed = S.res.outcome == NSD_RUN_FAILED;
        worst = fmax(worst, rise);
        if (failed || rise > bound || S.res.n_switches != crossed) {
            bad++;
            fprintf(stderr,
                    "straight scenario %d: %s; energy rise %.3g J (bound %.3g J); %zu switches "
                    "for %zu vertices crossed\n%s\n",
                    k, failed ? S.res.message : "ran", rise, bound, S.res.n_switches, crossed,
                    toml);
        }
        run_free(&S);
    }
    fprintf(stderr, "straight vertices: %d scenarios, largest energy rise %.3g J\n", n, worst);
    ck_assert_msg(bad == 0,
                  "%d of %d straight-vertex scenarios failed, gained energy or lost a "
                  "handover (largest energy rise %.3g J)",
                  bad, n, worst);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rigid_regressions");
    TCase *tc = tcase_create("issue9");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, curb_wheel_misses_no_impact);
    tcase_add_test(tc, accumulation_ends_e095);
    tcase_add_test(tc, bdf_root_returns_are_events);
    tcase_add_test(tc, stribeck_slip_follows_its_curve);
    tcase_add_test(tc, moreau_reports_contact_forces);
    tcase_add_test(tc, moreau_runs_every_rigid_law);
    tcase_add_test(tc, valley_runs_through_corners);
    tcase_add_test(tc, shipped_rigid_configs_never_penetrate);
    tcase_add_test(tc, first_crossing_of_a_bracket);
    tcase_add_test(tc, rebound_at_a_convex_edge);
    tcase_add_test(tc, straight_vertex_handover_with_a_contact_event);
    tcase_add_test(tc, straight_vertices_never_gain_energy);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
