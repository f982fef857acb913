/* Exact set-valued Coulomb friction on compliant contacts (the event-driven
 * runner, modes.h; docs/event-driven.md "Compliant contacts").
 *
 * 1. A block pressed on a compliant floor slides and sticks. While it
 *    slips and stays in contact, momentum gives exactly
 *      m dvx/dt = -mu_k N,  m dvy/dt = N - m g
 *    so vx(t) = v0 - mu_k (g t + vy(t) - vy0) on every sample (closed form,
 *    whatever N(t) the law gives), and once vy has settled the block sticks
 *    at t* = (v0 + mu_k vy0)/(mu_k g); it then stays at rest with F_t = 0.
 *    Randomized over m, v0, mu, vy0 and two laws (spring_damper,
 *    hunt_crossley). Tolerances: dopri5 at rtol 1e-10 (relative errors
 *    ~1e-9 of velocities O(1) m/s), the stick event located to 1e-12 t.
 * 2. A ball thrown onto a compliant floor, point mass (1-D slip) and a
 *    spinning sphere (2-D slip), randomized: on every sample the friction
 *    force stays in the cone |F_t| <= mu_s N, and the energy (kinetic +
 *    potential + the law's elastic energy k d^(n+1)/(n+1)) never rises:
 *    the damper (c d^p d' with q = 1) and friction only dissipate, the
 *    clamp at N = 0 too (d' < 0 there), the stick projection removes speed.
 * 3. The rimless wheel of Section 5 with exact Coulomb against the shipped
 *    regularized run (eps = 1e-4 m/s): same phase sequence, differences
 *    O(eps) (bounds from the measured 8 eps in velocity, 0.04 eps s in
 *    position, with a factor 2.5), and they shrink at least 4-fold when eps
 *    is 10 times smaller (first order in eps). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "test_util.h"

static double urand(unsigned *seed, double lo, double hi) {
    return lo + (hi - lo) * (double)rand_r(seed) / (double)RAND_MAX;
}

/* ---- 1. the sliding block ---------------------------------------------- */

START_TEST(block_slides_then_sticks) {
    unsigned seed = 11u;
    double worst_t = 0.0, worst_v = 0.0;
    for (int i = 0; i < 8; ++i) {
        const int hc = i % 2; /* hunt_crossley or spring_damper */
        const double m = urand(&seed, 0.5, 3.0), g = 9.81, r = 0.05;
        const double v0 = urand(&seed, 0.5, 3.0), mu_k = urand(&seed, 0.1, 0.6);
        /* the first four start at rest vertically (N = m g throughout), the
         * others pressed in at vy0 < 0 */
        const double mu_s = mu_k * urand(&seed, 1.0, 1.5),
                     vy0 = i < 4 ? 0.0 : urand(&seed, -0.2, 0.0);
        /* start at the static penetration (N = m g), heavily damped: the
         * normal motion settles in well under a tenth of the slide */
        const double k = 1e5, n = hc ? 1.5 : 1.0;
        const double d0 = pow(m * g / k, 1.0 / n);
        char law[160], toml[1200];
        if (hc)
            snprintf(law, sizeof law,
                     "id = \"hunt_crossley\"\nk = %g\nc = 2e4\nn = 1.5\np = 1.5\nq = 1.0", k);
        else /* 1.5 times critical damping */
            snprintf(law, sizeof law, "id = \"spring_damper\"\nk = %g\nc = %.17g", k,
                     3.0 * sqrt(k * m));
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"point_mass\"\nm = %.17g\nr = %.17g\ng = %.17g\n"
                 "[contact]\n%s\n[friction]\nid = \"coulomb\"\nmu_s = %.17g\nmu_k = %.17g\n"
                 "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
                 "[initial]\ny = %.17g\nvy = %.17g\nvx = %.17g\n"
                 "[run]\nt_end = %.17g\noutput_dt = 1e-3\n",
                 m, r, g, law, mu_s, mu_k, r - d0, vy0, v0, 1.5 * v0 / (mu_k * g));
        run R = {0};
        run_config(&R, toml, NSD_RUN_COMPLETE);
        /* the stick event: one, where the closed form gives vx = 0:
         * g t + vy(t) - vy0 = v0 / mu_k, with vy(t) = u_n of the record;
         * t* = v0 / (mu_k g) when vy stays 0 */
        double t_stick = -1.0, t_star = -1.0;
        for (size_t e = 0; e < R.res.contact_log.n; ++e) {
            const nsd_event_record *rec = &R.res.contact_log.rec[e];
            ck_assert_msg(rec->kind != NSD_EVENT_OPEN, "case %d: the block left the floor", i);
            if (rec->kind == NSD_EVENT_STICK) {
                ck_assert_msg(t_stick < 0, "case %d: a second stick at %g s", i, rec->t);
                t_stick = rec->t;
                t_star = (v0 / mu_k + vy0 - rec->u_before[0]) / g;
            }
        }
        ck_assert_msg(fabs(t_stick - t_star) < 1e-7 * t_star,
                      "case %d (%s): stick at %.12g s, closed form %.12g s", i,
                      hc ? "hunt_crossley" : "spring_damper", t_stick, t_star);
        if (vy0 == 0.0)
            ck_assert_msg(fabs(t_stick - v0 / (mu_k * g)) < 1e-7 * t_stick,
                          "case %d: stick at %.12g s, v0/(mu_k g) = %.12g s", i, t_stick,
                          v0 / (mu_k * g));
        worst_t = fmax(worst_t, fabs(t_stick - t_star));
        for (size_t row = 0; row < R.res.series.rows; ++row) {
            double t = at(&R, row, "t"), vx = at(&R, row, "vx"), vy = at(&R, row, "vy");
            double N = at(&R, row, "ground.N"), F = at(&R, row, "ground.Ft1");
            if (t < t_stick) {
                double want = v0 - mu_k * (g * t + vy - vy0);
                ck_assert_msg(fabs(vx - want) < 1e-8, "case %d t = %g: vx %.12g, closed form %.12g",
                              i, t, vx, want);
                ck_assert_msg(fabs(F + mu_k * N) < 1e-9 * (1.0 + N),
                              "case %d t = %g: slip F %g N %g", i, t, F, N);
                worst_v = fmax(worst_v, fabs(vx - want));
            } else if (t > t_stick) {
                ck_assert_msg(fabs(vx) < 1e-12 && fabs(F) < 1e-9 * m * g,
                              "case %d t = %g: at rest vx %g, F_t %g", i, t, vx, F);
                ck_assert_msg(vy0 != 0.0 || fabs(N - m * g) < 1e-6 * m * g,
                              "case %d t = %g: N %g, m g %g", i, t, N, m * g);
            }
        }
        test_unload(&R);
    }
    printf("sliding block, 8 random cases: stick time error <= %.3g s, vx error <= %.3g m/s\n",
           worst_t, worst_v);
}
END_TEST

/* ---- 2. balls thrown onto a compliant floor ---------------------------- */

typedef struct ball_check {
    double cone_excess, energy_rise, e0;
    size_t sticks, slips, closes;
} ball_check;

static void check_ball(run *R, const char *N_ch, const char *F1, const char *F2, const char *E_ch,
                       const char *gap_ch, int gap_sign, double k, double n, double mu_s,
                       ball_check *b) {
    double prev = NAN;
    for (size_t row = 0; row < R->res.series.rows; ++row) {
        double N = at(R, row, N_ch), F = fabs(at(R, row, F1));
        if (F2) F = hypot(F, at(R, row, F2));
        double pen = fmax(gap_sign * at(R, row, gap_ch), 0.0);
        double E = at(R, row, E_ch) + k * pow(pen, n + 1.0) / (n + 1.0);
        if (row == 0) b->e0 = E;
        b->cone_excess = fmax(b->cone_excess, F - mu_s * N);
        ck_assert_msg(F <= mu_s * N * (1.0 + 1e-9) + 1e-9, "row %zu: |F_t| %.9g > mu_s N %.9g", row,
                      F, mu_s * N);
        if (row > 0) {
            b->energy_rise = fmax(b->energy_rise, E - prev);
            ck_assert_msg(E <= prev + 1e-7 * fabs(b->e0) + 1e-9,
                          "row %zu t = %g: energy rose %.9g -> %.9g J", row, at(R, row, "t"), prev,
                          E);
        }
        prev = E;
    }
    b->sticks += test_count_kind(R, NSD_EVENT_STICK);
    b->slips += test_count_kind(R, NSD_EVENT_SLIP);
    b->closes += test_count_kind(R, NSD_EVENT_CLOSE);
}

START_TEST(thrown_balls_dissipate_inside_the_cone) {
    unsigned seed = 7u;
    ball_check b = {0};
    for (int i = 0; i < 6; ++i) {
        const double mu_k = urand(&seed, 0.1, 0.8), mu_s = mu_k * urand(&seed, 1.0, 1.4);
        const double vx = urand(&seed, -3.0, 3.0), h = urand(&seed, 0.2, 1.0);
        char toml[1200];
        snprintf(
            toml, sizeof toml,
            "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = 9.81\n"
            "[contact]\nid = \"hunt_crossley\"\nk = 4e6\nc = %.17g\nn = 1.5\np = 1.5\nq = 1.0\n"
            "[friction]\nid = \"coulomb\"\nmu_s = %.17g\nmu_k = %.17g\n"
            "[integrator]\nid = \"%s\"\nrtol = 1e-9\natol = 1e-12\n"
            "[initial]\ny = %.17g\nvy = 0.0\nvx = %.17g\n"
            "[run]\nt_end = 2.0\noutput_dt = 1e-4\n",
            urand(&seed, 1e5, 6e5), mu_s, mu_k, i % 2 ? "bdf" : "dopri5", h, vx);
        run R = {0};
        run_config(&R, toml, NSD_RUN_COMPLETE);
        check_ball(&R, "ground.N", "ground.Ft1", NULL, "energy", "penetration", 1, 4e6, 1.5, mu_s,
                   &b);
        test_unload(&R);
    }
    for (int i = 0; i < 6; ++i) {
        const double mu_k = urand(&seed, 0.1, 0.8), mu_s = mu_k * urand(&seed, 1.0, 1.4);
        char toml[1400];
        snprintf(
            toml, sizeof toml,
            "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [0.0]\n"
            "lengths = [100.0]\nx_start = -50.0\nz_start = 0.0\nx0 = 0.0\nv0 = 0.0\n"
            "[contact]\nid = \"hunt_crossley\"\nk = 1e5\nc = %.17g\nn = 1.5\np = 1.5\nq = 1.0\n"
            "[friction]\nid = \"coulomb\"\nmu_s = %.17g\nmu_k = %.17g\n"
            "[integrator]\nid = \"dopri5\"\nrtol = 1e-10\natol = 1e-12\n"
            "[initial]\nz = %.17g\nvx = %.17g\nvy = %.17g\nwx = %.17g\nwy = %.17g\n"
            "wz = %.17g\n[run]\nt_end = 3.0\noutput_dt = 5e-4\n",
            urand(&seed, 5e3, 3e4), mu_s, mu_k, urand(&seed, 1.2, 2.0), urand(&seed, -2.0, 2.0),
            urand(&seed, -2.0, 2.0), urand(&seed, -6.0, 6.0), urand(&seed, -6.0, 6.0),
            urand(&seed, -3.0, 3.0));
        run R = {0};
        run_config(&R, toml, NSD_RUN_COMPLETE);
        check_ball(&R, "seg1.N", "seg1.Ft1", "seg1.Ft2", "energy", "gap", -1, 1e5, 1.5, mu_s, &b);
        test_unload(&R);
    }
    /* the runs exercised the modes: contacts closed, slipped and stuck */
    ck_assert_uint_gt(b.closes, 12);
    ck_assert_uint_gt(b.sticks, 0);
    ck_assert_uint_gt(b.slips, 0);
    printf("thrown balls, 12 random cases: largest |F_t| - mu_s N %.3g N, largest energy step "
           "%.3g J (%zu closes, %zu sticks, %zu slips)\n",
           b.cone_excess, b.energy_rise, b.closes, b.sticks, b.slips);
}
END_TEST

/* ---- 3. Section 5 of the rimless wheel: exact against regularized ------ */

static const char *const compared[] = {"x", "y", "theta", "xdot", "ydot", "thetadot"};

/* Largest differences of positions (x, y, theta) and velocities between
 * two runs on the same output grid. */
static void max_diff(const run *a, const run *b, double *dpos, double *dvel) {
    ck_assert_uint_eq(a->res.series.rows, b->res.series.rows);
    *dpos = *dvel = 0.0;
    for (size_t row = 0; row < a->res.series.rows; ++row)
        for (int j = 0; j < 6; ++j) {
            double d = fabs(at(a, row, compared[j]) - at(b, row, compared[j]));
            if (j < 3)
                *dpos = fmax(*dpos, d);
            else
                *dvel = fmax(*dvel, d);
        }
}

/* Kinds of the events of contact c, in order, as letters. */
static void sequence(const run *R, char *buf, size_t len) {
    static const char letter[NSD_EVENT_KIND_COUNT] = {'I', 'R', 'C', 'O', 'S', 'L'};
    size_t k = 0;
    for (size_t e = 0; e < R->res.contact_log.n && k + 3 < len; ++e) {
        buf[k++] = (char)('0' + (int)R->res.contact_log.rec[e].contact);
        buf[k++] = letter[R->res.contact_log.rec[e].kind];
    }
    buf[k] = '\0';
}

START_TEST(section5_exact_vs_regularized) {
    run ex = {0}, r4 = {0}, r5 = {0};
    test_run_file(&ex, "rimless_section5_exact.toml", NULL, 0, NSD_RUN_COMPLETE);
    test_run_file(&r4, "rimless_section5_bistiffness.toml", NULL, 0, NSD_RUN_COMPLETE);
    const char *fine[] = {"friction.eps=1e-5"};
    test_run_file(&r5, "rimless_section5_bistiffness.toml", fine, 1, NSD_RUN_COMPLETE);
    /* the Section 5 sequence (validation-targets.md), spoke0 = Q_f, spoke1 = Q_b:
     * SP slide at Q_f, Q_b lifts, Q_f sticks, Q_b lands (DP), Q_f slips
     * off as its load falls, Q_b sticks, Q_f leaves; Q_b then rocks back */
    char seq[128];
    sequence(&ex, seq, sizeof seq);
    ck_assert_msg(strncmp(seq, "0C0L1C1L1O0S1C0L1S0O", 20) == 0, "event sequence %s", seq);
    const double want[][2] = {{0.0076, 3}, {0.0137, 2}, {0.0380, 1}, {0.0760, 3}};
    const nsd_event_kind kinds[] = {NSD_EVENT_OPEN, NSD_EVENT_STICK, NSD_EVENT_CLOSE,
                                    NSD_EVENT_OPEN};
    const size_t which[] = {1, 0, 1, 0};
    for (int j = 0; j < 4; ++j) {
        int found = 0;
        for (size_t e = 0; e < ex.res.contact_log.n && !found; ++e) {
            const nsd_event_record *rec = &ex.res.contact_log.rec[e];
            if (rec->kind == kinds[j] && rec->contact == which[j] &&
                fabs(rec->t - want[j][0]) < 1e-3)
                found = 1;
        }
        ck_assert_msg(found, "no %s of spoke%zu near %g s (regularized run's phase time)",
                      nsd_event_kind_name(kinds[j]), which[j], want[j][0]);
    }
    /* gap_rate = 0 at the deepest point of each penetration of the impact
     * (Q_b's first, Q_f's, Q_b's second) re-resolved the modes; the
     * regularized run also restarts where a tip touches down (its event
     * function jumps from the open value to u_n < 0), which the exact run
     * does as a contact event */
    ck_assert_uint_ge(ex.res.rate_restarts, 3);
    double p4, v4, p5, v5;
    max_diff(&ex, &r4, &p4, &v4);
    max_diff(&ex, &r5, &p5, &v5);
    const double eps = 1e-4;
    ck_assert_msg(v4 < 20.0 * eps && p4 < 0.1 * eps, "eps = 1e-4: |dv| %g, |dq| %g", v4, p4);
    ck_assert_msg(v5 < v4 / 4.0 && p5 < p4 / 4.0,
                  "not first order in eps: |dv| %g -> %g, |dq| %g -> %g", v4, v5, p4, p5);
    printf("Section 5 exact vs regularized: eps = 1e-4: |dv| %.3g m/s or rad/s, |dq| %.3g; "
           "eps = 1e-5: |dv| %.3g, |dq| %.3g; events %s; %llu rate restarts\n",
           v4, p4, v5, p5, seq, (unsigned long long)ex.res.rate_restarts);
    test_unload(&ex);
    test_unload(&r4);
    test_unload(&r5);
}
END_TEST

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsetenv("NSDYN_PLUGIN_PATH");
    Suite *s = suite_create("coulomb_compliant");
    TCase *tc = tcase_create("coulomb_compliant");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, block_slides_then_sticks);
    tcase_add_test(tc, thrown_balls_dissipate_inside_the_cone);
    tcase_add_test(tc, section5_exact_vs_regularized);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
