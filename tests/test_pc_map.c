/* The PC half-plane analysis (core/src/analysis/pc_map.c), computed from the
 * contact geometry and the host's affine response of the rimless_wheel
 * system, against Barjau & Batlle's closed forms
 * (../shared/papers/rimless-wheel-percussion-centre-impact.txt):
 *   mu_c = s c / (lambda + c^2) (4.1), (A.5); mu_i = (lambda + s^2)/(s c)
 *   (A.6); initial DP for forward sliding below mu_DP = tan b (1 -
 *   lambda/s^2), for backward sliding above tan b (lambda/s^2 - 1)
 *   (App. A); the forward PC at infinity at mu = tan b (Fig. 23); A =
 *   (-lambda L/s, 0) (3.6); PC'_c on the hyperbola (4.2) with the
 *   asymptote y = L cos b (App. B);
 * on a random grid of (lambda, beta) (rimless wheels and rocking blocks);
 * the printed Fig. 23 numbers; and the rocking block's beta_DP for
 * lambda = 1/3, found by bisection on the analysis (the generic mu_DP
 * crossing zero), against the geometric condition of Sec. 6 (the
 * lambda-line through the intersection of the Q_b vertical and the
 * horizontal G-line: sin^2 beta_DP = lambda). */
#define _GNU_SOURCE
#include <math.h>

#include "pc_domains.h"
#include "pc_map.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* The analysis of a rimless_wheel (spokes, beta [deg] (0: 180/N),
 * lambda, L) at its default state theta = 0. */
static nsd_pc_analysis analyse(int spokes, double beta_deg, double lam, double L) {
    char toml[800];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"rimless_wheel\"\nspokes = %d\nbeta = %.17g\nlambda = %.17g\nL = "
             "%.17g\n[contact]\nid = \"pc_impact\"\n[friction]\nid = \"coulomb\"\nmu_s = 0.5\n"
             "mu_k = 0.5\n[integrator]\nid = \"dopri5\"\n[run]\nt_end = 1.0\n",
             spokes, beta_deg, lam, L);
    run R = {0};
    test_load(toml, &R);
    nsd_pc_analysis a;
    char err[512] = "";
    int rc = nsd_pc_analyse(&R.model, R.data, 0.0, R.model.y0, &a, err, sizeof err);
    ck_assert_msg(rc == 0, "analysis refused: %s", err);
    test_unload(&R);
    return a;
}

/* Closed forms vs the generic analysis. Tolerance 1e-10 relative: the
 * analysis divides Delassus entries computed exactly from the affine
 * response (a few roundings each). */
static void check_closed_forms(int spokes, double beta_deg, double lam, double L) {
    nsd_pc_analysis a = analyse(spokes, beta_deg, lam, L);
    const double b = (beta_deg > 0 ? beta_deg : 180.0 / spokes) * PI / 180, s = sin(b), c = cos(b);
    const double tol = 1e-10;
#define CLOSE(x, want)                                                                  \
    ck_assert_msg(fabs((x) - (want)) <= tol * (1 + fabs(want)),                         \
                  #x " = %.15g, closed form %.15g (lam %g, beta %g)", (x), (want), lam, \
                  b * 180 / PI)
    CLOSE(a.lambda_eff, lam);
    CLOSE(a.scale, L);
    CLOSE(a.Qf.x, L * s);
    CLOSE(a.Qf.y, -L * c);
    CLOSE(a.Qb.x, -L * s);
    CLOSE(a.ground_y, -L * c);
    CLOSE(a.mu_c, s * c / (lam + c * c));
    CLOSE(a.mu_i, (lam + s * s) / (s * c));
    CLOSE(a.mu_inf, tan(b));
    double mu_dp = tan(b) * (1 - lam / (s * s));
    if (mu_dp > 1e-9)
        CLOSE(a.mu_dp, mu_dp);
    else if (mu_dp < -1e-9)
        ck_assert_msg(isnan(a.mu_dp), "mu_dp = %g where no DP exists", a.mu_dp);
    CLOSE(a.mu_dpb, fmax(0.0, tan(b) * (lam / (s * s) - 1)));
    CLOSE(a.A.x, -lam * L / s);
    CLOSE(a.A.y, 0.0);
    /* PC_c on the ground and the lambda-line: x = -L (lam + c^2)/s */
    CLOSE(a.pc_c.x, -L * (lam + c * c) / s);
    /* PC'_c on the hyperbola (4.2), and (B.3) with y > 0 (see docs) */
    const double x = a.pc_c_conj.x, y = a.pc_c_conj.y;
    double h = y * y - y * x * tan(b) + L * (y * c + x * s);
    ck_assert_msg(fabs(h) < 1e-9 * L * L, "(4.2) residual %g", h);
    const double muc = s * c / (lam + c * c);
    CLOSE(x, -lam * L / (s + muc * c));
    CLOSE(y, lam * L * muc / (s + muc * c));
    ck_assert_msg(fabs(a.asymptote_y - L * c) < 1e-6 * L, "asymptote %.10g, L cos b = %.10g",
                  a.asymptote_y, L * c);
    /* the family of lambda-lines of this geometry (the critical curves of
     * the pcmap figure) against the closed forms at other lambdas */
    for (int k = 1; k <= 6; ++k) {
        const double l2 = 0.25 * k, dp = tan(b) * (1 - l2 / (s * s));
        double mc, md, mi;
        nsd_pc_critical_at(&a, l2 * L, &mc, &md, &mi);
        ck_assert_msg(fabs(mc - s * c / (l2 + c * c)) < tol, "mu_c(%g) = %g", l2, mc);
        ck_assert_msg(fabs(mi - (l2 + s * s) / (s * c)) < tol * (1 + mi), "mu_i(%g) = %g", l2, mi);
        if (dp > 1e-9) ck_assert_msg(fabs(md - dp) < tol * (1 + dp), "mu_dp(%g) = %g", l2, md);
        if (dp < -1e-9) ck_assert_msg(isnan(md), "mu_dp(%g) = %g, expected none", l2, md);
    }
#undef CLOSE
}

START_TEST(closed_forms_on_a_grid) {
    unsigned long long st = 5;
    for (int k = 0; k < 40; ++k) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        double u1 = (double)(st >> 11) / 9007199254740992.0;
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        double u2 = (double)(st >> 11) / 9007199254740992.0;
        double lam = 0.02 + 1.5 * u1, L = 0.3 + 2 * u2;
        if (k % 2)
            check_closed_forms(3 + k % 9, 0.0, lam, L); /* wheels, beta = 180/N */
        else
            check_closed_forms(2, 10 + 75 * u2, lam, L); /* rocking blocks */
    }
}
END_TEST

/* Fig. 23, beta = 60 deg, lambda = 0.625: the paper prints mu_DP = 0.3,
 * mu_c = 0.49, tan b = 1.73, mu_i = 3.18 (two or three digits). */
START_TEST(fig23_printed_values) {
    nsd_pc_analysis a = analyse(3, 0.0, 0.625, 1.0);
    printf("Fig. 23: mu_DP = %.6f, mu_c = %.6f, mu_inf = %.6f, mu_i = %.6f\n", a.mu_dp, a.mu_c,
           a.mu_inf, a.mu_i);
    ck_assert_double_eq_tol(a.mu_dp, 0.3, 0.05);
    ck_assert_double_eq_tol(a.mu_c, 0.49, 0.005);
    ck_assert_double_eq_tol(a.mu_inf, 1.73, 0.005);
    ck_assert_double_eq_tol(a.mu_i, 3.18, 0.005);
    /* "lambda slightly above 0.5, therefore PC_c is in the SP domain":
     * PC_c left of the Q_b vertical iff lambda > -cos 2b = 0.5 */
    ck_assert_double_lt(a.pc_c.x, a.Qb.x);
    nsd_pc_analysis a2 = analyse(3, 0.0, 0.45, 1.0);
    ck_assert_double_gt(a2.pc_c.x, a2.Qb.x);
}
END_TEST

/* beta_DP of the rocking block (lambda = 1/3), withheld in the paper: the
 * beta at which the DP segment AB vanishes (mu_DP -> 0), by bisection on
 * the generic analysis; then no DP below it (mu_DP none), some above. */
START_TEST(rocking_block_beta_dp) {
    double lo = 10.0, hi = 80.0; /* deg */
    for (int it = 0; it < 50; ++it) {
        double mid = 0.5 * (lo + hi);
        nsd_pc_analysis a = analyse(2, mid, 1.0 / 3.0, 1.0);
        if (isnan(a.mu_dp) || a.mu_dp <= 0.0)
            lo = mid;
        else
            hi = mid;
    }
    const double beta_dp = 0.5 * (lo + hi), want = asin(sqrt(1.0 / 3.0)) * 180 / PI;
    printf("rocking block (lambda = 1/3): beta_DP = %.9f deg (a/b = %.9f), geometric %.9f deg\n",
           beta_dp, 1.0 / tan(beta_dp * PI / 180), want);
    ck_assert_double_eq_tol(beta_dp, want, 1e-8);
    ck_assert(isnan(analyse(2, beta_dp - 1.0, 1.0 / 3.0, 1.0).mu_dp));
    ck_assert_double_gt(analyse(2, beta_dp + 1.0, 1.0 / 3.0, 1.0).mu_dp, 0.0);
}
END_TEST

static double lcg(unsigned long long *st) {
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*st >> 11) / 9007199254740992.0;
}

/* The domains of Sec. 4 (geometric predicates, pc_domains.c) against the
 * signs of the velocity changes the host's affine response gives for the
 * same impulse (1, kappa) at Q_f (du = D (1, kappa)), on the body's
 * lambda-line of random wheels and blocks: DP iff du_nb < 0, jamb iff
 * du_nf < 0, forward sliding grows iff kappa < 0 with du_t > 0 in a
 * single-point phase, reversal iff 0 < kappa < mu_c = D_tn/D_tt (backward
 * sliding that the cone cannot stop for good) in a single-point phase,
 * SP-DP iff the sticking impulse (1, -mu_c) pushes Q_b down (Fig. 20). */
START_TEST(domains_match_the_response) {
    unsigned long long st = 11;
    size_t seen[5] = {0};
    for (int k = 0; k < 40; ++k) {
        double lam = 0.02 + 1.5 * lcg(&st), L = 0.3 + 2 * lcg(&st), u = lcg(&st);
        nsd_pc_analysis a =
            k % 2 ? analyse(3 + k % 9, 0.0, lam, L) : analyse(2, 10 + 75 * u, lam, L);
        const double *D = a.D, tiny = 1e-9 * (fabs(D[0]) + fabs(D[5]));
        const double muc = D[4] / D[5], du_nb_stick = D[8] - muc * D[9];
        for (double kap = -6; kap <= 6; kap += 0.01) {
            nsd_pc_point J;
            if (nsd_pc_of_impulse(&a, kap, &J) != 0) continue;
            double du[4];
            for (int i = 0; i < 4; ++i) du[i] = D[4 * i] + kap * D[4 * i + 1];
            if (fabs(du[0]) < tiny || fabs(du[1]) < tiny || fabs(du[2]) < tiny) continue;
            unsigned f = nsd_pc_domains_at(&a, J);
            int sp = du[2] > 0;
            ck_assert_msg(f & NSD_PC_HALF_PLANE, "PC (%g, %g) of kappa %g outside", J.x, J.y, kap);
            ck_assert_int_eq(!!(f & NSD_PC_DOMAIN_DP), du[2] < 0);
            ck_assert_int_eq(!!(f & NSD_PC_DOMAIN_JAMB), du[0] < 0);
            ck_assert_int_eq(!!(f & NSD_PC_DOMAIN_GROWS), kap < 0 && du[1] > 0 && sp);
            if (fabs(kap - muc) > 1e-9)
                ck_assert_int_eq(!!(f & NSD_PC_DOMAIN_REVERSAL), kap > 0 && kap < muc && sp);
            if (fabs(du_nb_stick) > tiny)
                ck_assert_int_eq(!!(f & NSD_PC_DOMAIN_SP_DP), sp && du_nb_stick < 0);
            for (int b = 0; b < 5; ++b) seen[b] += !!(f & (1u << b));
        }
    }
    for (int b = 0; b < 5; ++b)
        ck_assert_msg(seen[b] > 100, "domain bit %d seen %zu times", b, seen[b]);
}
END_TEST

/* The shaded polygons of pcmap hold exactly the points the predicates
 * put in their domains (random points of the window; those within 0.01 L
 * of the hyperbola, drawn as a polyline of chords, are not counted). */
static int in_pieces(const nsd_pc_shade *sh, double x, double y) {
    int in = 0;
    for (size_t s0 = 0; s0 < sh->n;) {
        size_t e = s0;
        while (e < sh->n && !isnan(sh->x[e])) ++e;
        for (size_t i = s0, j = e - 1; i < e; j = i++)
            if ((sh->y[i] > y) != (sh->y[j] > y) &&
                x < sh->x[j] + (y - sh->y[j]) * (sh->x[i] - sh->x[j]) / (sh->y[i] - sh->y[j]))
                in ^= 1;
        s0 = e + 1;
    }
    return in;
}

START_TEST(shades_match_the_predicates) {
    unsigned long long st = 23;
    size_t inside[NSD_PC_N_SHADES] = {0};
    for (int k = 0; k < 12; ++k) {
        double lam = 0.1 + lcg(&st), beta = 20 + 60 * lcg(&st);
        nsd_pc_analysis a = analyse(2, beta, lam, 1.0);
        const double box[4] = {-2.2, 1.4, a.ground_y - 1.2, 1.6};
        static nsd_pc_shade sh[NSD_PC_N_SHADES];
        nsd_pc_shades(&a, box[0], box[1], box[2], box[3], sh);
        for (int n = 0; n < 4000; ++n) {
            nsd_pc_point P = {box[0] + (box[1] - box[0]) * lcg(&st),
                              box[2] + (box[3] - box[2]) * lcg(&st)};
            unsigned f = nsd_pc_domains_at(&a, P);
            nsd_pc_point C;
            double d = -(P.x * a.ef[0] + P.y * a.ef[1]);
            if (nsd_pc_conjugate(&a, d, &C) == 0 && fabs(P.y - C.y) < 0.01) continue;
            const int jamb = !!(f & NSD_PC_DOMAIN_JAMB), spdp = !!(f & NSD_PC_DOMAIN_SP_DP);
            const int want[NSD_PC_N_SHADES] = {!!(f & NSD_PC_DOMAIN_DP),
                                               jamb && !spdp,
                                               jamb && spdp,
                                               spdp && !jamb,
                                               !!(f & NSD_PC_DOMAIN_GROWS),
                                               !!(f & NSD_PC_DOMAIN_REVERSAL)};
            for (int i = 0; i < NSD_PC_N_SHADES; ++i) {
                ck_assert_msg(in_pieces(&sh[i], P.x, P.y) == want[i],
                              "beta %g lambda %g: (%g, %g) shade %d: in %d, predicate %d", beta,
                              lam, P.x, P.y, i, !want[i], want[i]);
                inside[i] += want[i];
            }
        }
    }
    for (int i = 0; i < NSD_PC_N_SHADES; ++i)
        ck_assert_msg(inside[i] > 50, "shade %d: %zu", i, inside[i]);
}
END_TEST

/* The command end to end: nsdyn pcmap on the Fig. 23 config writes
 * pcmap.csv with the critical values and the figure. */
START_TEST(pcmap_command) {
    char dir[] = "/tmp/nsdyn-pcmap-XXXXXX", cmd[2048], path[1100];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s pcmap %s/configs/rimless_pcmap_fig23.toml -o %s/out > /dev/null",
             NSDYN_TEST_BINARY, NSDYN_TEST_SOURCE_DIR, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out/pcmap.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    double muc = NAN, mui = NAN;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "mu_c,,,", 7)) muc = atof(line + 7);
        if (!strncmp(line, "mu_i,,,", 7)) mui = atof(line + 7);
    }
    fclose(f);
    const double b = PI / 3, s = sin(b), c = cos(b);
    ck_assert_double_eq_tol(muc, s * c / (0.625 + c * c), 1e-10);
    ck_assert_double_eq_tol(mui, (0.625 + s * s) / (s * c), 1e-10);
    snprintf(path, sizeof path, "%s/out/pcmap.svg", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* nsdyn pcmap along beta (the Fig. 24 config's [pcmap]): the thresholds
 * it bisects against the closed forms: mu_DP appears at sin^2 beta_DP =
 * lambda (Sec. 6), and equals mu_c where PC_c is on the Q_b vertical,
 * lambda = -cos 2 beta (tan b (1 - lambda/s^2) = s c/(lambda + c^2) there).
 * The bisection stops at 1e-12 of the 65 deg range; the derived scenario
 * and the analysis add roundings: 1e-8 deg. */
START_TEST(pcmap_along_beta) {
    char dir[] = "/tmp/nsdyn-pcmap-XXXXXX", cmd[2048], path[1100];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s pcmap %s/configs/rimless_pcmap_fig24.toml -o %s/out > /dev/null",
             NSDYN_TEST_BINARY, NSDYN_TEST_SOURCE_DIR, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/out/pcmap_marks.csv", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    double appears = NAN, equal = NAN;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *comma = strchr(line, ',');
        if (!comma || !strncmp(line, "what,", 5)) continue;
        rows++;
        if (!strncmp(line, "mu_DP appears,", 14)) appears = atof(comma + 1);
        if (!strncmp(line, "mu_DP = mu_c,", 13)) equal = atof(comma + 1);
    }
    fclose(f);
    ck_assert_int_eq(rows, 2);
    ck_assert_double_eq_tol(appears, asin(sqrt(1.0 / 3.0)) * 180 / PI, 1e-8);
    ck_assert_double_eq_tol(equal, 0.5 * acos(-1.0 / 3.0) * 180 / PI, 1e-8);
    snprintf(path, sizeof path, "%s/out/pcmap_along.csv", dir);
    ck_assert_int_eq(access(path, R_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsetenv("NSDYN_PLUGIN_PATH");
    Suite *s = suite_create("pc_map");
    TCase *tc = tcase_create("pc_map");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, closed_forms_on_a_grid);
    tcase_add_test(tc, fig23_printed_values);
    tcase_add_test(tc, rocking_block_beta_dp);
    tcase_add_test(tc, domains_match_the_response);
    tcase_add_test(tc, shades_match_the_predicates);
    tcase_add_test(tc, pcmap_command);
    tcase_add_test(tc, pcmap_along_beta);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
