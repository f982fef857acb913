/* Rigid impact laws (plugins/contact/impact.c) called directly with
 * hand-built impact problems.
 *
 * (a) Sphere on a plane against Kane's closed forms (Hartl's thesis,
 *     ../shared/papers/tumbleweed-rover-valley-crossing.txt, Sec. 2.1.2).
 *     Generalized speeds (2.1)-(2.2): v = (u1, u2, u3, u4, u5, u6) =
 *     (omega, v_G), M = diag(J, J, J, m, m, m) (2.30). The contact point is
 *     rho = -b n from the centre (2.3), so v_P = v_G + omega x rho and
 *       u_n = n.v_G,   u_t = t.v_G - b t.(omega x n) = t.v_G - b omega.(n x t):
 *     W has rows (0, n) and (-b (n x t), t). Then G = W M^-1 W^T has
 *       G_nn = 1/m, G_nt = (1/m) n.t = 0,
 *       G_titj = (1/m) ti.tj + (b^2/J) (n x ti).(n x tj) = (1/m + b^2/J) delta_ij,
 *     G = diag(1/m, k1, k1), k1 = 1/m + b^2/J (2.76), for ANY plane
 *     orientation (checked for a tilted plane). For n = n2, t1 = n1,
 *     t2 = n3 the rows are u5, u4 + b u3, u6 - b u1 (2.12), and W^T P is the
 *     generalized impulse (-b S3, 0, b S1, S1, S2, S3) of (2.19)-(2.25).
 * (b) A grid of random SPD problems: energy never increases (checked from
 *     the generalized velocities, T = 1/2 v^T M v, independent of the local
 *     formula the law uses), u_n+ = -e u_n- >= 0, plastic e = 0 gives
 *     u_n+ = 0, the impulse lies in the friction cone.
 * (c) Frictionless: pure Newton restitution.
 * (d) Bad input: e or beta outside [0, 1], negative or non-finite friction
 *     coefficients, more contacts than the laws hold, tangent_dim.
 * (e) Several simultaneous contacts (newton, poisson): independent
 *     contacts equal the single-contact results; hand-derived coupled cases
 *     (a point mass in a V-groove, a point mass on a floor hitting an edge
 *     with the floor contact touching or separating, the curb paper's wheel
 *     at its point B, a sphere in a corner of two planes and jammed in a
 *     narrow one); random grids (energy, complementarity, Coulomb).
 * (f) poisson: closed forms for one contact (frictionless; the sphere's
 *     stick/slide phases; a coupled contact where it differs from Newton),
 *     beta = 0 equals newton with e = 0.
 * (g) kane_impulse with several contacts (impact.c, "kane_impulse, several
 *     contacts"; docs/kane-multicontact.md): the sphere at the valley's
 *     concave corners (rolling along the floor into a 30 deg incline, down
 *     a 30 deg decline onto the floor) gets Kane's single-contact impulse at
 *     the plane hit and none at the other; a touching contact driven into
 *     approach (a 120 deg groove) and two contacts approaching at once take
 *     part in the coupled law (closed forms frictionless; enumeration and
 *     NSGS agree); a randomized property test (no approach left, P_n >= 0,
 *     energy never increases, the cone, Kane's slip rule). */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

static nsd_registry reg;

/* The host's log: keep the last message. */
static char last_log[512];
static void log_to_buffer(void *ctx, nsdyn_log_level level, const char *msg) {
    (void)ctx;
    (void)level;
    snprintf(last_log, sizeof last_log, "%s", msg);
}
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, log_to_buffer};

static const nsdyn_contact_law *law_of(const char *id) {
    const nsd_plugin *p = nsd_registry_find(&reg, id);
    ck_assert_msg(p != NULL, "plugin %s not found", id);
    ck_assert(p->info->provides & NSDYN_CAP_RIGID_IMPACT);
    return (const nsdyn_contact_law *)p->info;
}

static void *make(const nsdyn_contact_law *law, double e) {
    char err[256] = "";
    nsdyn_value v[1] = {{e, NULL, 0}};
    void *inst = nsd_plugin_create(&law->info, v, &host, err, sizeof err);
    ck_assert_msg(inst != NULL, "create failed: %s", err);
    return inst;
}

/* ---- small dense linear algebra (nv <= 6) ------------------------------ */

enum { NV = 6, NVM = 12 };

/* Solve M X = B for SPD M (n x n, n <= NVM) and k right-hand sides (columns
 * of B, row-major n x k), Cholesky. */
static void spd_solve(const double *M, int n, const double *B, int k, double *X) {
    double L[NVM * NVM] = {0};
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = M[i * n + j];
            for (int p = 0; p < j; ++p) s -= L[i * n + p] * L[j * n + p];
            if (i == j) {
                ck_assert(s > 0);
                L[i * n + i] = sqrt(s);
            } else {
                L[i * n + j] = s / L[j * n + j];
            }
        }
    for (int c = 0; c < k; ++c) {
        double y[NVM];
        for (int i = 0; i < n; ++i) {
            double s = B[i * k + c];
            for (int p = 0; p < i; ++p) s -= L[i * n + p] * y[p];
            y[i] = s / L[i * n + i];
        }
        for (int i = n - 1; i >= 0; --i) {
            double s = y[i];
            for (int p = i + 1; p < n; ++p) s -= L[p * n + i] * X[p * k + c];
            X[i * k + c] = s / L[i * n + i];
        }
    }
}

/* A mechanical impact: mass matrix M (nv x nv), W (3 x nv), v-. */
typedef struct mech {
    int nv;
    double M[NV * NV], W[3 * NV], MinvWt[NV * 3], G[9], vm[NV], um[3];
} mech;

static void mech_setup(mech *s) {
    double Wt[NV * 3];
    for (int i = 0; i < s->nv; ++i)
        for (int r = 0; r < 3; ++r) Wt[i * 3 + r] = s->W[r * s->nv + i];
    spd_solve(s->M, s->nv, Wt, 3, s->MinvWt);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double g = 0;
            for (int i = 0; i < s->nv; ++i) g += s->W[r * s->nv + i] * s->MinvWt[i * 3 + c];
            s->G[3 * r + c] = g;
        }
    for (int r = 0; r < 3; ++r) {
        s->um[r] = 0;
        for (int i = 0; i < s->nv; ++i) s->um[r] += s->W[r * s->nv + i] * s->vm[i];
    }
}

static double kinetic(const mech *s, const double *v) {
    double T = 0;
    for (int i = 0; i < s->nv; ++i)
        for (int j = 0; j < s->nv; ++j) T += 0.5 * v[i] * s->M[i * s->nv + j] * v[j];
    return T;
}

/* v+ = v- + M^-1 W^T P. */
static void post(const mech *s, const double *P, double *vp) {
    for (int i = 0; i < s->nv; ++i)
        vp[i] = s->vm[i] + s->MinvWt[i * 3] * P[0] + s->MinvWt[i * 3 + 1] * P[1] +
                s->MinvWt[i * 3 + 2] * P[2];
}

static nsdyn_status call(const nsdyn_contact_law *law, void *inst, const mech *s, unsigned dim,
                         double mu_s, double mu_k, double *P, double *up, char *ph, size_t phlen) {
    double gap = 0.0;
    nsdyn_impact_problem pr = {sizeof pr, 1, dim, s->G, s->um, &mu_s, &mu_k, &gap, ph, phlen, NULL};
    return law->impact(inst, &pr, P, up);
}

/* ---- (a) sphere on a plane --------------------------------------------- */

static void cross(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Sphere (m, b, J) with contact frame (n, t1, t2) and speeds u[6]. */
static void sphere(mech *s, double m, double b, double J, const double *n, const double *t1,
                   const double *t2, const double *u) {
    s->nv = 6;
    memset(s->M, 0, sizeof s->M);
    for (int i = 0; i < 3; ++i) {
        s->M[i * 6 + i] = J;
        s->M[(i + 3) * 6 + i + 3] = m;
    }
    const double *axes[3] = {n, t1, t2};
    for (int r = 0; r < 3; ++r) {
        double nx[3] = {0, 0, 0};
        if (r > 0) cross(n, axes[r], nx);
        for (int i = 0; i < 3; ++i) {
            s->W[r * 6 + i] = -b * nx[i];
            s->W[r * 6 + 3 + i] = axes[r][i];
        }
    }
    memcpy(s->vm, u, 6 * sizeof *u);
    mech_setup(s);
}

static const double N2[3] = {0, 1, 0}, N1[3] = {1, 0, 0}, N3[3] = {0, 0, 1};

START_TEST(sphere_delassus_any_plane) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, k1 = 1 / m + b * b / J;
    const double u[6] = {0.3, -0.2, 1.0, 0.4, -3.0, -0.1};
    mech s;
    /* A tilted plane: n at 30 deg in the n1-n2 plane, tilted again about n1. */
    double c = cos(0.5236), sn = sin(0.5236), ca = cos(0.3), sa = sin(0.3);
    double n[3] = {-sn, c * ca, c * sa}, t1[3] = {c, sn * ca, sn * sa}, t2[3];
    cross(t1, n, t2);
    const double *frames[2][3] = {{N2, N1, N3}, {n, t1, t2}};
    for (int f = 0; f < 2; ++f) {
        sphere(&s, m, b, J, frames[f][0], frames[f][1], frames[f][2], u);
        const double want[9] = {1 / m, 0, 0, 0, k1, 0, 0, 0, k1};
        for (int i = 0; i < 9; ++i) ck_assert_double_eq_tol(s.G[i], want[i], 1e-15 * k1);
    }
}
END_TEST

/* Kane's closed forms: no slip (2.43), (2.46), (2.59), (2.60), (2.64),
 * (2.65); slip (2.47), (2.74)-(2.76), (2.81), (2.80), (2.68)-(2.71). */
static void kane_closed_form(double m, double b, double J, double e, double mu_k, int slip,
                             const double *u, double *up) {
    double den = m * b * b + J;
    up[1] = u[1];      /* (2.43) */
    up[4] = -e * u[4]; /* (2.46) */
    if (!slip) {
        up[2] = (J * u[2] - m * b * u[3]) / den; /* (2.59) */
        up[3] = -b * up[2];                      /* (2.60) */
        up[0] = (J * u[0] + m * b * u[5]) / den; /* (2.64) */
        up[5] = b * up[0];                       /* (2.65) */
        return;
    }
    double S2 = -m * (1 + e) * u[4];                   /* (2.47) */
    double a1 = u[3] + b * u[2], g1 = u[5] - b * u[0]; /* (2.74), (2.75) */
    /* (2.81): sgn(alpha1 + k1 S1) = sgn(alpha1) while slipping. */
    double S1 = -mu_k * fabs(S2) * (a1 > 0 ? 1 : -1) / sqrt(1 + (g1 / a1) * (g1 / a1));
    double S3 = (g1 / a1) * S1; /* (2.80) */
    up[0] = u[0] - b * S3 / J;  /* (2.68) */
    up[2] = u[2] + b * S1 / J;  /* (2.69) */
    up[3] = u[3] + S1 / m;      /* (2.70) */
    up[5] = u[5] + S3 / m;      /* (2.71) */
}

static double sphere_case(const char *id, int slip, const double *u, char *ph) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, e = 0.92, mu = 1.0, mu_k = 0.8;
    const nsdyn_contact_law *law = law_of(id);
    void *inst = make(law, e);
    mech s;
    sphere(&s, m, b, J, N2, N1, N3, u);
    double P[3], up[3], vp[6], want[6];
    ck_assert_int_eq(call(law, inst, &s, 2, mu, mu_k, P, up, ph, 32), NSDYN_OK);
    post(&s, P, vp);
    kane_closed_form(m, b, J, e, mu_k, slip, u, want);
    double err = 0;
    for (int i = 0; i < 6; ++i) err = fmax(err, fabs(vp[i] - want[i]));
    law->info.destroy(inst);
    return err;
}

START_TEST(sphere_kane_no_slip) {
    /* alpha1 = 0.9, gamma1 = -0.25: |P_t| = 0.534 < mu S2 = 11.52. */
    const double u[6] = {0.3, -0.2, 1.0, 0.4, -3.0, -0.1};
    const char *ids[2] = {"kane_impulse", "newton"};
    for (int k = 0; k < 2; ++k) {
        char ph[32] = "";
        double err = sphere_case(ids[k], 0, u, ph);
        fprintf(stderr, "sphere no-slip (2.59)-(2.65), %s: max |u+ - closed form| = %.3g\n", ids[k],
                err);
        ck_assert_str_eq(ph, "stick");
        ck_assert_double_le(err, 1e-14);
    }
}
END_TEST

START_TEST(sphere_kane_slip) {
    /* alpha1 = 10, gamma1 = -2.15: |P_t(stick)| = 5.84 > mu S2 = 3.84. */
    const double u[6] = {0.3, -0.2, 8.0, 6.0, -1.0, -2.0};
    const char *ids[2] = {"kane_impulse", "newton"};
    for (int k = 0; k < 2; ++k) {
        char ph[32] = "";
        double err = sphere_case(ids[k], 1, u, ph);
        fprintf(stderr, "sphere slip (2.80)-(2.81), %s: max |u+ - closed form| = %.3g\n", ids[k],
                err);
        ck_assert_str_eq(ph, "slide");
        ck_assert_double_le(err, 1e-13);
    }
}
END_TEST

START_TEST(kane_strict_stick_test) {
    /* Exactly on the cone |P_t| = mu_s P_n: newton (<=) sticks, kane (2.9)
     * (strict <) slides. 1-D, G = diag(1, 1): P_n = 2 (e = 1, u_n = -1),
     * P_t(stick) = -u_t = 1, mu_s = 0.5. */
    mech s = {0};
    s.nv = 3;
    for (int i = 0; i < 3; ++i) s.M[i * 3 + i] = 1.0;
    for (int i = 0; i < 3; ++i) s.W[i * 3 + i] = 1.0;
    s.vm[0] = -1.0;
    s.vm[1] = -1.0;
    mech_setup(&s);
    double P[3], up[3];
    char ph[32];
    const nsdyn_contact_law *nl = law_of("newton"), *kl = law_of("kane_impulse");
    void *n = make(nl, 1.0), *k = make(kl, 1.0);
    ck_assert_int_eq(call(nl, n, &s, 1, 0.5, 0.25, P, up, ph, sizeof ph), NSDYN_OK);
    ck_assert_str_eq(ph, "stick");
    ck_assert_double_eq_tol(up[1], 0.0, 1e-15);
    ck_assert_int_eq(call(kl, k, &s, 1, 0.5, 0.25, P, up, ph, sizeof ph), NSDYN_OK);
    ck_assert_str_eq(ph, "slide");
    ck_assert_double_eq_tol(P[1], 0.25 * 2.0, 1e-15);
    ck_assert_double_eq_tol(up[1], -0.5, 1e-15);
    nl->info.destroy(n);
    kl->info.destroy(k);
}
END_TEST

/* ---- (b), (c) random problems ------------------------------------------ */

static unsigned long long rng_state = 88172645463325252ULL;
static double urand(double lo, double hi) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static void random_mech(mech *s) {
    s->nv = NV;
    double A[NV * NV];
    for (int i = 0; i < NV * NV; ++i) A[i] = urand(-1, 1);
    for (int i = 0; i < NV; ++i)
        for (int j = 0; j < NV; ++j) {
            double x = i == j ? 0.2 : 0.0;
            for (int p = 0; p < NV; ++p) x += A[i * NV + p] * A[j * NV + p];
            s->M[i * NV + j] = x;
        }
    for (int i = 0; i < 3 * NV; ++i) s->W[i] = urand(-1, 1);
    for (int i = 0; i < NV; ++i) s->vm[i] = urand(-2, 2);
    mech_setup(s);
    if (s->um[0] >= 0) { /* approaching */
        for (int i = 0; i < NV; ++i) s->vm[i] = -s->vm[i];
        for (int r = 0; r < 3; ++r) s->um[r] = -s->um[r];
    }
}

START_TEST(random_grid_energy_and_restitution) {
    const char *ids[2] = {"newton", "kane_impulse"};
    const double es[5] = {0.0, 0.25, 0.5, 0.8, 1.0};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        size_t n_ok = 0, n_refused = 0, n_slide = 0, n_inconsistent = 0, n_plastic_refused = 0;
        double worst_dT = -HUGE_VAL, worst_local = 0;
        for (int ie = 0; ie < 5; ++ie) {
            void *inst = make(law, es[ie]);
            for (int trial = 0; trial < 400; ++trial) {
                mech s;
                random_mech(&s);
                unsigned dim = 1 + (unsigned)(trial % 2);
                double mu_s = urand(0, 2), mu_k = mu_s * urand(0.5, 1);
                double P[3], up[3], vp[NV];
                char ph[32] = "";
                last_log[0] = 0;
                nsdyn_status st = call(law, inst, &s, dim, mu_s, mu_k, P, up, ph, sizeof ph);
                if (st != NSDYN_OK) {
                    /* newton: refused only when restitution + friction would
                     * add energy (never for e = 0, proof in impact.c).
                     * kane_impulse: also when the initial slip direction
                     * admits no consistent impulse (the slip rotates or
                     * reverses during the impact; Kane's closed form assumes
                     * it does not, which holds for the sphere). */
                    if (k == 0) {
                        ck_assert_msg(es[ie] > 0, "%s refused a plastic impact: %s", ids[k],
                                      last_log);
                        ck_assert_msg(strstr(last_log, "energy") != NULL, "%s", last_log);
                    } else {
                        ck_assert_msg(strstr(last_log, "energy") ||
                                          strstr(last_log, "no consistent"),
                                      "%s", last_log);
                        n_inconsistent += strstr(last_log, "no consistent") != NULL;
                        n_plastic_refused += es[ie] == 0;
                    }
                    n_refused++;
                    continue;
                }
                n_ok++;
                n_slide += strcmp(ph, "slide") == 0;
                post(&s, P, vp);
                double Tm = kinetic(&s, s.vm), dT = kinetic(&s, vp) - Tm;
                double local = P[0] * s.um[0] + P[1] * s.um[1] + P[2] * s.um[2];
                for (int i = 0; i < 3; ++i)
                    for (int j = 0; j < 3; ++j) local += 0.5 * P[i] * s.G[3 * i + j] * P[j];
                worst_dT = fmax(worst_dT, dT / Tm);
                worst_local = fmax(worst_local, fabs(local - dT) / Tm);
                /* Rounding: T+ and T- are sums of ~36 terms of size T. */
                ck_assert_msg(dT <= 1e-12 * Tm, "%s e=%g: energy gain %g of %g", ids[k], es[ie], dT,
                              Tm);
                ck_assert_double_le(fabs(local - dT), 1e-12 * Tm);
                /* u+ = W v+ and u_n+ = -e u_n- >= 0. */
                for (int r = 0; r < 3; ++r) {
                    double w = 0;
                    for (int i = 0; i < NV; ++i) w += s.W[r * NV + i] * vp[i];
                    ck_assert_double_le(fabs(w - up[r]), 1e-10 * (1 + fabs(w)));
                }
                ck_assert_double_le(fabs(up[0] + es[ie] * s.um[0]), 1e-10 * fabs(s.um[0]));
                ck_assert_double_ge(up[0], -1e-10 * fabs(s.um[0]));
                if (es[ie] == 0) ck_assert_double_le(fabs(up[0]), 1e-10 * fabs(s.um[0]));
                /* Cone and Coulomb directions. */
                double Pt = hypot(P[1], P[2]), ut = hypot(up[1], dim == 2 ? up[2] : 0);
                ck_assert_double_ge(P[0], 0);
                if (dim == 1) ck_assert_double_eq(P[2], 0);
                if (strcmp(ph, "stick") == 0) {
                    ck_assert_double_le(Pt, mu_s * P[0] * (1 + 1e-12));
                    ck_assert_double_le(ut, 1e-10 * (1 + hypot(s.um[1], s.um[2])));
                } else {
                    ck_assert_str_eq(ph, "slide");
                    ck_assert_double_le(fabs(Pt - mu_k * P[0]), 1e-12 * (1 + mu_k * P[0]));
                    if (k == 0 && ut > 0) /* newton: opposite to the post-impact slip */
                        for (int j = 1; j <= (int)dim; ++j)
                            ck_assert_double_le(fabs(P[j] + mu_k * P[0] * up[j] / ut),
                                                1e-8 * (1 + mu_k * P[0]));
                }
            }
            law->info.destroy(inst);
        }
        fprintf(stderr,
                "random grid, %s: %zu accepted (%zu sliding), %zu refused (%zu without a "
                "consistent impulse, %zu of them plastic); max dT/T- = %.3g, "
                "max |dT_local - dT|/T- = %.3g\n",
                ids[k], n_ok, n_slide, n_refused, n_inconsistent, n_plastic_refused, worst_dT,
                worst_local);
        ck_assert_uint_gt(n_slide, 50);
        ck_assert_uint_gt(n_ok - n_slide, 50);
    }
}
END_TEST

START_TEST(frictionless_is_newton) {
    const char *ids[2] = {"newton", "kane_impulse"};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        for (int trial = 0; trial < 100; ++trial) {
            double e = urand(0, 1);
            void *inst = make(law, e);
            mech s;
            random_mech(&s);
            double P[3], up[3];
            char ph[32];
            ck_assert_int_eq(call(law, inst, &s, 2, 0.0, 0.0, P, up, ph, sizeof ph), NSDYN_OK);
            double Pn = -(1 + e) * s.um[0] / s.G[0];
            ck_assert_double_eq_tol(P[0], Pn, 1e-12 * Pn);
            ck_assert_double_eq(P[1], 0.0);
            ck_assert_double_eq(P[2], 0.0);
            ck_assert_double_eq_tol(up[0], -e * s.um[0], 1e-12 * fabs(s.um[0]));
            for (int r = 1; r < 3; ++r)
                ck_assert_double_eq_tol(up[r], s.um[r] + s.G[3 * r] * Pn,
                                        1e-12 * (1 + fabs(up[r])));
            law->info.destroy(inst);
        }
    }
}
END_TEST

/* ---- (d) bad input ------------------------------------------------------ */

START_TEST(bad_input_refused) {
    const char *ids[3] = {"newton", "kane_impulse", "poisson"};
    for (int k = 0; k < 3; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        char err[256] = "";
        nsdyn_value v[1] = {{1.5, NULL, 0}};
        ck_assert_ptr_null(nsd_plugin_create(&law->info, v, &host, err, sizeof err));
        if (k == 2)
            ck_assert_str_eq(err,
                             "beta = 1.5 is outside [0, 1]: beta < 0 would pull the bodies back "
                             "together and beta > 1 would create energy at every impact");
        else
            ck_assert_str_eq(err,
                             "e = 1.5 is outside [0, 1]: e < 0 would not separate the bodies and "
                             "e > 1 would create energy at every impact");
        v[0].num = -0.1;
        ck_assert_ptr_null(nsd_plugin_create(&law->info, v, &host, err, sizeof err));
        ck_assert_ptr_nonnull(strstr(err, "is outside [0, 1]"));
        v[0].num = NAN;
        ck_assert_ptr_null(nsd_plugin_create(&law->info, v, &host, err, sizeof err));
        /* The declared range says the same to the host. */
        const nsd_plugin *p = nsd_registry_find(&reg, ids[k]);
        ck_assert_uint_eq(p->info->n_params, 1);
        ck_assert_str_eq(p->info->params[0].name, k == 2 ? "beta" : "e");
        ck_assert_double_eq(p->info->params[0].min, 0.0);
        ck_assert_double_eq(p->info->params[0].max, 1.0);
        ck_assert_uint_eq(p->info->params[0].flags, 0);

        void *inst = make(law, 0.5);
        double G[36] = {0}, um[6] = {-1, 0, 0, -1, 0, 0}, mu[2] = {0.5, 0.5}, gaps[2] = {0, 0};
        for (int i = 0; i < 6; ++i) G[7 * i] = 1.0;
        double P[6], up[6];
        char want[320];
        /* Two independent contacts approaching at once: every law solves
         * them (kane_impulse by its coupled law, see kane_multi_*). */
        nsdyn_impact_problem pr = {sizeof pr, 2, 2, G, um, mu, mu, gaps, NULL, 0, NULL};
        last_log[0] = 0;
        ck_assert_msg(law->impact(inst, &pr, P, up) == NSDYN_OK, "%s: %s", ids[k], last_log);
        ck_assert_double_eq_tol(up[0], 0.5, 1e-15);
        ck_assert_double_eq_tol(up[3], 0.5, 1e-15);
        /* Friction coefficients: negative or not finite. */
        double bad_mu[2] = {0.5, -0.1};
        nsdyn_impact_problem pb = {sizeof pb, 2, 1, G, um, mu, bad_mu, gaps, NULL, 0, NULL};
        ck_assert_int_eq(law->impact(inst, &pb, P, up), NSDYN_ERROR);
        snprintf(want, sizeof want,
                 "%s: contact 1: friction coefficients mu_static = 0.5, mu_kinetic = "
                 "-0.1; both must be finite and >= 0",
                 ids[k]);
        ck_assert_str_eq(last_log, want);
        bad_mu[1] = NAN;
        ck_assert_int_eq(law->impact(inst, &pb, P, up), NSDYN_ERROR);
        ck_assert_ptr_nonnull(strstr(last_log, "must be finite and >= 0"));
        /* More contacts than the fixed arrays hold. */
        nsdyn_impact_problem pm = pr;
        pm.n_contacts = 17;
        ck_assert_int_eq(law->impact(inst, &pm, P, up), NSDYN_ERROR);
        snprintf(want, sizeof want,
                 "%s: 17 simultaneous contacts; at most 16 per impact (fixed-size "
                 "arrays, IMPACT_MAX_CONTACTS in plugins/contact/impact.c)",
                 ids[k]);
        ck_assert_str_eq(last_log, want);
        /* tangent_dim */
        pr.tangent_dim = 3;
        pr.n_contacts = 1;
        ck_assert_int_eq(law->impact(inst, &pr, P, up), NSDYN_ERROR);
        ck_assert_ptr_nonnull(strstr(last_log, "tangent_dim = 3, expected 1 or 2"));
        law->info.destroy(inst);
    }
}
END_TEST

START_TEST(not_approaching_no_impulse) {
    const nsdyn_contact_law *law = law_of("newton");
    void *inst = make(law, 0.5);
    mech s;
    random_mech(&s);
    for (int r = 0; r < 3; ++r) s.um[r] = -s.um[r]; /* separating */
    double P[3], up[3];
    char ph[32];
    ck_assert_int_eq(call(law, inst, &s, 2, 0.5, 0.5, P, up, ph, sizeof ph), NSDYN_OK);
    for (int r = 0; r < 3; ++r) {
        ck_assert_double_eq(P[r], 0.0);
        ck_assert_double_eq(up[r], s.um[r]);
    }
    law->info.destroy(inst);
}
END_TEST

/* ---- (e) several simultaneous contacts ---------------------------------- */

enum { NCM = 6, RM = 3 * NCM };

/* A mechanical impact with n contacts: M (nv x nv), W (3n x nv), v-. */
typedef struct mmech {
    int nv;
    size_t n;
    double M[NVM * NVM], W[RM * NVM], MinvWt[NVM * RM], G[RM * RM], vm[NVM], um[RM];
} mmech;

static void mmech_setup(mmech *s) {
    const int nv = s->nv, m = (int)(3 * s->n);
    double Wt[NVM * RM] = {0};
    for (int i = 0; i < nv; ++i)
        for (int r = 0; r < m; ++r) Wt[i * m + r] = s->W[r * nv + i];
    spd_solve(s->M, nv, Wt, m, s->MinvWt);
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < m; ++c) {
            double g = 0;
            for (int i = 0; i < nv; ++i) g += s->W[r * nv + i] * s->MinvWt[i * m + c];
            s->G[m * r + c] = g;
        }
    for (int r = 0; r < m; ++r) {
        s->um[r] = 0;
        for (int i = 0; i < nv; ++i) s->um[r] += s->W[r * nv + i] * s->vm[i];
    }
}

static double mkinetic(const mmech *s, const double *v) {
    double T = 0;
    for (int i = 0; i < s->nv; ++i)
        for (int j = 0; j < s->nv; ++j) T += 0.5 * v[i] * s->M[i * s->nv + j] * v[j];
    return T;
}

/* v+ = v- + M^-1 W^T P and u+ = W v+. */
static void mpost(const mmech *s, const double *P, double *vp, double *up) {
    const int m = (int)(3 * s->n);
    for (int i = 0; i < s->nv; ++i) {
        vp[i] = s->vm[i];
        for (int r = 0; r < m; ++r) vp[i] += s->MinvWt[i * m + r] * P[r];
    }
    for (int r = 0; r < m; ++r) {
        up[r] = 0;
        for (int i = 0; i < s->nv; ++i) up[r] += s->W[r * s->nv + i] * vp[i];
    }
}

static nsdyn_status mcall(const nsdyn_contact_law *law, void *inst, const mmech *s, unsigned dim,
                          const double *mu_s, const double *mu_k, double *P, double *up, char *ph,
                          size_t phlen) {
    double gaps[NCM] = {0};
    nsdyn_impact_problem pr = {sizeof pr, s->n, dim, s->G,  s->um, mu_s,
                               mu_k,      gaps, ph,  phlen, NULL};
    return law->impact(inst, &pr, P, up);
}

/* A point mass m in the plane (v = (vx, vy)): contact i with unit normal
 * (nx, ny) has the tangent t = (ny, -nx) (the curb wheel's convention) and
 * no t2 (tangent_dim 1). */
static void point_mass(mmech *s, double m, size_t n) {
    memset(s, 0, sizeof *s);
    s->nv = 2;
    s->n = n;
    s->M[0] = s->M[3] = m;
}
static void pm_contact(mmech *s, size_t i, double nx, double ny) {
    double *W = s->W + 3 * i * 2;
    W[0] = nx;
    W[1] = ny;
    W[2] = ny;
    W[3] = -nx;
    W[4] = W[5] = 0.0;
}

/* Contacts on a block-diagonal Delassus act independently: each result is
 * the single-contact law's. Blocks with G_nt = 0 (as for a sphere) and a
 * random SPD tangent block, so that each single-contact solution is unique
 * (stick, when consistent, is also the most dissipative: the enumeration's
 * and the single-contact solver's preferences agree). 2..6 contacts: the
 * enumeration (tangent_dim 1, n <= 4) and NSGS (tangent_dim 2, n > 4). */
START_TEST(multi_independent_contacts) {
    const char *ids[2] = {"newton", "poisson"};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        double worst = 0;
        for (int trial = 0; trial < 100; ++trial) {
            void *inst = make(law, urand(0, 1));
            const size_t n = 2 + (size_t)(trial % 5);
            const unsigned dim = 1 + (unsigned)(trial / 5 % 2);
            double G[RM * RM] = {0}, um[RM], mu_s[NCM], mu_k[NCM], gaps[NCM] = {0};
            double Pi[NCM][3], ui[NCM][3];
            for (size_t i = 0; i < n; ++i) {
                double g[9] = {urand(0.2, 2), 0, 0, 0, 0, 0, 0, 0, 0}, a = urand(-1, 1),
                       b = urand(-1, 1), c = urand(-1, 1);
                g[4] = 0.2 + a * a + b * b; /* [a b; c 0] [a b; c 0]^T + 0.2 I */
                g[5] = g[7] = a * c;
                g[8] = 0.2 + c * c;
                double u[3] = {urand(-2, i == 1 ? 2 : -0.1), urand(-2, 2), urand(-2, 2)};
                if (i == 1) u[0] = fabs(u[0]); /* one separating: no impulse there */
                for (int r = 0; r < 3; ++r) {
                    um[3 * i + r] = u[r];
                    for (int q = 0; q < 3; ++q) G[3 * n * (3 * i + r) + 3 * i + q] = g[3 * r + q];
                }
                mu_s[i] = urand(0, 1);
                mu_k[i] = mu_s[i] * urand(0.5, 1);
                nsdyn_impact_problem p1 = {sizeof p1, 1,    dim,  g, u,   mu_s + i,
                                           mu_k + i,  gaps, NULL, 0, NULL};
                ck_assert_int_eq(law->impact(inst, &p1, Pi[i], ui[i]), NSDYN_OK);
            }
            nsdyn_impact_problem pr = {sizeof pr, n, dim, G, um, mu_s, mu_k, gaps, NULL, 0, NULL};
            double P[RM], up[RM];
            last_log[0] = 0;
            ck_assert_msg(law->impact(inst, &pr, P, up) == NSDYN_OK, "%s", last_log);
            for (size_t i = 0; i < n; ++i)
                for (int r = 0; r < 3; ++r) {
                    double sc = 1 + fabs(Pi[i][0]);
                    worst = fmax(worst, fabs(P[3 * i + r] - Pi[i][r]) / sc);
                    ck_assert_double_le(fabs(P[3 * i + r] - Pi[i][r]), 1e-10 * sc);
                    ck_assert_double_le(fabs(up[3 * i + r] - ui[i][r]),
                                        1e-10 * (1 + fabs(um[3 * i])));
                }
            ck_assert_double_eq(P[3], 0.0); /* the separating contact */
            law->info.destroy(inst);
        }
        fprintf(stderr, "independent contacts, %s: max |P - P_single|/(1 + P_n) = %.3g\n", ids[k],
                worst);
    }
}
END_TEST

/* Two frictionless contacts with a diagonal Delassus: independent Newton
 * restitution, u_n+ = -e u_n-, P_n = -(1 + e) u_n- / G_nn. */
START_TEST(multi_frictionless_diagonal) {
    const nsdyn_contact_law *law = law_of("newton");
    const double e = 0.6;
    void *inst = make(law, e);
    double G[36] = {0}, d[6] = {2, 3, 3, 0.5, 1, 1}, um[6] = {-1, 0.3, 0.1, -2, -0.4, 0.2};
    double mu[2] = {0, 0}, gaps[2] = {0, 0}, P[6], up[6];
    for (int i = 0; i < 6; ++i) G[7 * i] = d[i];
    for (unsigned dim = 1; dim <= 2; ++dim) {
        nsdyn_impact_problem pr = {sizeof pr, 2, dim, G, um, mu, mu, gaps, NULL, 0, NULL};
        ck_assert_int_eq(law->impact(inst, &pr, P, up), NSDYN_OK);
        ck_assert_double_eq_tol(P[0], (1 + e) * 1 / 2.0, 1e-15);
        ck_assert_double_eq_tol(P[3], (1 + e) * 2 / 0.5, 1e-15);
        for (int i = 0; i < 2; ++i) {
            ck_assert_double_eq_tol(up[3 * i], -e * um[3 * i], 1e-15);
            for (int r = 1; r < 3; ++r) {
                ck_assert_double_eq(P[3 * i + r], 0.0);
                ck_assert_double_eq(up[3 * i + r], um[3 * i + r]);
            }
        }
    }
    law->info.destroy(inst);
}
END_TEST

/* A problem with tangent_dim 2 in which one contact is planar (its t2 row
 * and column of G are zero, as when a runner passes the largest tangent
 * dimension of a mixed set): that contact is solved with tangent_dim 1 and
 * can stick. Decoupled blocks: contact 0 spatial, G_0 = diag(1, 2, 2),
 * u- = (-1, 0.3, -0.4); contact 1 planar, G_1 = diag(1, 2, 0),
 * u- = (-1, 0.1, 0). mu = 1, e = 0: both stick, P_0 = (1, -0.15, 0.2),
 * P_1 = (1, -0.05, 0). */
START_TEST(multi_mixed_tangent_dims) {
    const char *ids[2] = {"newton", "poisson"};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        void *inst = make(law, 0.0);
        double G[36] = {0}, d[6] = {1, 2, 2, 1, 2, 0}, um[6] = {-1, 0.3, -0.4, -1, 0.1, 0};
        double mu[2] = {1, 1}, gaps[2] = {0, 0}, P[6], up[6],
               want[6] = {1, -0.15, 0.2, 1, -0.05, 0};
        for (int i = 0; i < 6; ++i) G[7 * i] = d[i];
        char ph[128] = "";
        nsdyn_impact_problem pr = {sizeof pr, 2, 2, G, um, mu, mu, gaps, ph, sizeof ph, NULL};
        last_log[0] = 0;
        ck_assert_msg(law->impact(inst, &pr, P, up) == NSDYN_OK, "%s", last_log);
        for (int r = 0; r < 6; ++r) {
            ck_assert_double_eq_tol(P[r], want[r], 1e-14);
            ck_assert_double_eq_tol(up[r], 0.0, 1e-14);
        }
        fprintf(stderr, "mixed tangent dims, %s: [%s]\n", ids[k], ph);
        law->info.destroy(inst);
    }
}
END_TEST

/* A point mass m falling straight into a V-groove: walls at alpha = 60 deg
 * from the horizontal, normals n1 = (sin a, cos a), n2 = (-sin a, cos a),
 * v- = (0, -V), so u_n1- = u_n2- = -V cos a = -V/2. The normals couple:
 * G_n1n2 = n1.n2/m = cos 2a/m = -1/(2m). Frictionless, both closed:
 *   [1 -1/2; -1/2 1] P/m = (1 + e)(V/2, V/2)  =>  P1 = P2 = (1 + e) m V,
 * twice a single wall's (1 + e) m V/2, and v+ = v- + (P1 n1 + P2 n2)/m =
 * (0, -V + 2 (1 + e) V cos a) = (0, e V): u_n+ = e V/2 = -e u_n-.
 * With friction mu < cot a the mass still leaves with v+ = (0, e V) (by
 * symmetry, and u_n+ = -e u_n- fixes v_y+), sliding: u_t1+ = t1.v+ =
 * -e V sin a < 0 (t1 = (cos a, -sin a)), u_t2+ = +e V sin a, so
 * P_t1 = +mu P_n, P_t2 = -mu P_n, and the y momentum
 *   m (1 + e) V = 2 P_n cos a - 2 mu P_n sin a
 * gives P_n = (1 + e) m V / (2 (cos a - mu sin a)).
 * poisson (beta = e) frictionless: the same, P_n = (1 + beta) m V. With
 * friction its plastic compression stops the mass (v+ = 0) with impulses
 * that are not unique (four constraint rows on two velocities), and the
 * restitution scales whichever was taken: no hand value to compare. */
START_TEST(multi_v_groove_coupled) {
    const double m = 2.0, V = 3.0, a = M_PI / 3, sa = sin(a), ca = cos(a);
    const char *ids[2] = {"newton", "poisson"};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        for (int f = 0; f < 2 - k; ++f) {
            const double e = 0.5, mu = f ? 0.3 : 0.0, mus[2] = {mu, mu};
            void *inst = make(law, e);
            mmech s;
            point_mass(&s, m, 2);
            pm_contact(&s, 0, sa, ca);
            pm_contact(&s, 1, -sa, ca);
            s.vm[1] = -V;
            mmech_setup(&s);
            double P[6], up[6], vp[2], u2[6];
            char ph[64] = "";
            ck_assert_int_eq(mcall(law, inst, &s, 1, mus, mus, P, up, ph, sizeof ph), NSDYN_OK);
            const double Pn = (1 + e) * m * V / (2 * (ca - mu * sa));
            fprintf(stderr, "V-groove, %s, mu = %g: P_n = %.15g, %.15g (hand: %.15g) [%s]\n",
                    ids[k], mu, P[0], P[3], Pn, ph);
            mpost(&s, P, vp, u2);
            ck_assert_double_eq_tol(P[0], Pn, 1e-13 * Pn);
            ck_assert_double_eq_tol(P[3], Pn, 1e-13 * Pn);
            ck_assert_double_eq_tol(P[1], mu * Pn, 1e-13 * Pn);
            ck_assert_double_eq_tol(P[4], -mu * Pn, 1e-13 * Pn);
            ck_assert_double_eq_tol(vp[0], 0.0, 1e-13 * V);
            ck_assert_double_eq_tol(vp[1], e * V, 1e-13 * V);
            for (int r = 0; r < 6; ++r) ck_assert_double_eq_tol(up[r], u2[r], 1e-13 * V);
            if (mu == 0) ck_assert_double_eq_tol(Pn, (1 + e) * m * V, 1e-14 * Pn);
            law->info.destroy(inst);
        }
    }
}
END_TEST

/* The curb case: a point mass on the floor (contact 2, n2 = (0, 1),
 * t2 = (1, 0), u_n2- = 0: touching, not approaching) runs with v- = (-U, 0)
 * into an edge (contact 1, frictionless) whose normal is
 *   (a) n1 = (cos g, sin g), pointing up: the edge lifts the mass. Contact
 *       2 opens: P2 = 0, P1 = (1 + e) m U cos g (the single-contact
 *       impulse), u_n2+ = n2.v+ = sin g P1/m = (1 + e) U cos g sin g > 0.
 *   (b) n1 = (cos g, -sin g), pointing down (an overhanging edge presses the
 *       mass onto the floor). Both closed, with u_n1+ = -e u_n1- = e U cos g
 *       and u_n2+ = 0 (e_2 = 0: the floor was not approaching):
 *         [1 -s; -s 1] (P1, P2)/m = ((1 + e) U c, 0)
 *       => P2 = s P1, P1 = (1 + e) m U c/(1 - s^2) = (1 + e) m U / c,
 *       P2 = (1 + e) m U tan g; v+ = (e U, 0): the mass rebounds along the
 *       floor.
 *   (c) as (b) with floor friction mu (mu s < c): v+ = (e U, 0) still
 *       (u_n1+, u_n2+ fix it), the floor slides with u_t2+ = e U > 0, so
 *       P_t2 = -mu P2, and the x momentum m (1 + e) U = c P1 - mu s P1:
 *       P1 = (1 + e) m U/(c - mu s), P2 = s P1.
 *   (d) as (c) with e = 0: v+ = 0 and the impulses are not unique (three
 *       constraint rows on two velocities): any P1 in
 *       [m U/(c + mu s), m U/(c - mu s)] with P2 = s P1 and
 *       P_t2 = m U - c P1 (|P_t2| <= mu P2) stops the mass.
 *   (e) as (b) with the floor separating slowly (v- = (-U, d), u_n2- = d > 0):
 *       it gets e_2 = 0 too, so u_n2+ = 0 (not -e d < 0, which would
 *       penetrate). With u_n1- = -(U c + s d): v_y+ = 0, c v_x+ = e (U c + s d),
 *       so v_x+ = e U + e s d/c, P1 = m (v_x+ + U)/c = (1 + e) m U/c +
 *       e m s d/c^2 and P2 = s P1 - m d (y momentum). */
START_TEST(multi_curb_touching_contact) {
    const double m = 1.5, U = 2.0, g = 0.5, c = cos(g), sn = sin(g);
    const nsdyn_contact_law *law = law_of("newton");
    for (int cs = 0; cs < 5; ++cs) {
        const double e = cs == 3 ? 0.0 : 0.4, mu = cs >= 2 && cs <= 3 ? 0.5 : 0.0,
                     d = cs == 4 ? 0.1 : 0.0;
        const double mus[2] = {0.0, mu};
        void *inst = make(law, e);
        mmech s;
        point_mass(&s, m, 2);
        pm_contact(&s, 0, c, cs == 0 ? sn : -sn);
        pm_contact(&s, 1, 0, 1);
        s.vm[0] = -U;
        s.vm[1] = d;
        mmech_setup(&s);
        ck_assert_double_eq(s.um[3], d);
        double P[6], up[6], vp[2], u2[6];
        char ph[64] = "";
        ck_assert_int_eq(mcall(law, inst, &s, 1, mus, mus, P, up, ph, sizeof ph), NSDYN_OK);
        mpost(&s, P, vp, u2);
        fprintf(stderr, "curb case (%c): P = (%.6g, %.6g; %.6g, %.6g), v+ = (%.6g, %.6g) [%s]\n",
                'a' + cs, P[0], P[1], P[3], P[4], vp[0], vp[1], ph);
        for (int r = 0; r < 6; ++r) ck_assert_double_eq_tol(up[r], u2[r], 1e-13 * U);
        ck_assert_double_eq(P[1], 0.0); /* frictionless edge */
        switch (cs) {
            case 0:
                ck_assert_double_eq_tol(P[0], (1 + e) * m * U * c, 1e-14 * m * U);
                ck_assert_double_eq(P[3], 0.0);
                ck_assert_double_eq_tol(up[3], (1 + e) * U * c * sn, 1e-14 * U);
                ck_assert_str_eq(ph, "slide, open");
                break;
            case 1:
            case 4:
                ck_assert_double_eq_tol(P[0], (1 + e) * m * U / c + e * m * sn * d / (c * c),
                                        1e-13 * m * U);
                ck_assert_double_eq_tol(P[3], sn * P[0] - m * d, 1e-13 * m * U);
                ck_assert_double_eq_tol(vp[0], e * U + e * sn * d / c, 1e-13 * U);
                ck_assert_double_eq_tol(vp[1], 0.0, 1e-13 * U);
                ck_assert_double_eq_tol(up[0], -e * s.um[0], 1e-13 * U);
                break;
            case 2:
                ck_assert_double_eq_tol(P[0], (1 + e) * m * U / (c - mu * sn), 1e-13 * m * U);
                ck_assert_double_eq_tol(P[3], sn * P[0], 1e-13 * m * U);
                ck_assert_double_eq_tol(P[4], -mu * P[3], 1e-13 * m * U);
                ck_assert_double_eq_tol(vp[0], e * U, 1e-13 * U);
                ck_assert_double_eq_tol(vp[1], 0.0, 1e-13 * U);
                break;
            case 3: {
                const double lo = m * U / (c + mu * sn), hi = m * U / (c - mu * sn);
                ck_assert_double_ge(P[0], lo * (1 - 1e-12));
                ck_assert_double_le(P[0], hi * (1 + 1e-12));
                ck_assert_double_eq_tol(P[3], sn * P[0], 1e-13 * m * U);
                ck_assert_double_eq_tol(P[4], m * U - c * P[0], 1e-13 * m * U);
                ck_assert_double_le(fabs(P[4]), mu * P[3] * (1 + 1e-12));
                for (int r = 0; r < 2; ++r) ck_assert_double_eq_tol(vp[r], 0.0, 1e-13 * U);
                break;
            }
        }
        law->info.destroy(inst);
    }
}
END_TEST

/* The wheel of the curb paper (Sec. 6.3: m = 10 kg, J = 0.05 kg m^2,
 * r = 0.1 m, h = 5 cm, mu = 0.4) rolls at U = 5 m/s (x' = -5, phi' = U/r)
 * into the step's edge while touching the floor: point B of (27b), where
 * the edge normal is n1 = (a, r - h)/r = (cos 30, sin 30) deg,
 * a = sqrt(r^2 - (r - h)^2) (4b). Velocities (x', y', phi'); the contact
 * rows (curb_wheel.c, (18a)): u_n = n.(x', y'), u_t = t.(x', y') + r phi',
 * t = (n_y, -n_x). G has rank 3 (4 rows). At the edge G is decoupled:
 * G_nn = 1/m, G_nt = 0, G_tt = k1 = 1/m + r^2/J = 0.3 1/kg. Plastic
 * compression: P_c,n = m U cos 30 = 43.30 N s; the slip
 * u_t1- = U (1 - sin 30) = 2.5 m/s needs |P_t| = u_t/k1 = 8.33 <= mu P_n =
 * 17.3: stick, u_t1+ = 0. The floor: v_y+ = (P_n sin 30 - P_t cos 30)/m > 0,
 * it opens (the wheel starts climbing). Poisson's restitution (35) adds
 * beta P_c,n at the edge; the edge keeps sticking (u_t1+ = 0 and G_tn = 0),
 * so u_n1* = beta U cos 30, P_t unchanged. Newton with e = beta gives the
 * same here (decoupled contact). */
START_TEST(multi_curb_wheel_at_B) {
    const double m = 10, J = 0.05, r = 0.1, h = 0.05, U = 5, a = sqrt(r * r - (r - h) * (r - h));
    const double nx = a / r, ny = (r - h) / r, k1 = 1 / m + r * r / J, mus[2] = {0.4, 0.4};
    const double Pc = m * U * nx, ut = U * (1 - ny), Pt = -ut / k1;
    ck_assert_double_eq_tol(nx, cos(M_PI / 6), 1e-15);
    const char *ids[2] = {"newton", "poisson"};
    for (int k = 0; k < 2; ++k)
        for (int b = 0; b < 2; ++b) {
            const double beta = b ? 0.3 : 0.0;
            const nsdyn_contact_law *law = law_of(ids[k]);
            void *inst = make(law, beta);
            mmech s;
            memset(&s, 0, sizeof s);
            s.nv = 3;
            s.n = 2;
            s.M[0] = s.M[4] = m;
            s.M[8] = J;
            const double nrm[2][2] = {{nx, ny}, {0, 1}};
            for (int i = 0; i < 2; ++i) {
                double *W = s.W + 3 * i * 3;
                W[0] = nrm[i][0];
                W[1] = nrm[i][1];
                W[3] = nrm[i][1];
                W[4] = -nrm[i][0];
                W[5] = r;
            }
            s.vm[0] = -U;
            s.vm[2] = U / r;
            mmech_setup(&s);
            ck_assert_double_eq_tol(s.um[3], 0.0, 1e-15); /* floor: touching, rolling */
            ck_assert_double_eq_tol(s.um[4], 0.0, 1e-15);
            s.um[3] = s.um[4] = 0.0;
            double P[6], up[6], vp[3], u2[6];
            char ph[96] = "";
            ck_assert_int_eq(mcall(law, inst, &s, 1, mus, mus, P, up, ph, sizeof ph), NSDYN_OK);
            mpost(&s, P, vp, u2);
            fprintf(stderr,
                    "curb wheel at B, %s %g: P = (%.6g, %.6g; %.3g, %.3g), v+ = (%.6g, %.6g, %.6g) "
                    "[%s]\n",
                    ids[k], beta, P[0], P[1], P[3], P[4], vp[0], vp[1], vp[2], ph);
            ck_assert_double_eq_tol(P[0], (1 + beta) * Pc, 1e-12 * Pc);
            ck_assert_double_eq_tol(P[1], Pt, 1e-12 * Pc);
            ck_assert_double_eq(P[3], 0.0);
            ck_assert_double_eq(P[4], 0.0);
            ck_assert_double_eq_tol(up[0], beta * U * nx, 1e-12 * U);
            ck_assert_double_eq_tol(up[1], 0.0, 1e-12 * U);
            ck_assert_double_gt(up[3], 0.0);
            for (int q = 0; q < 6; ++q) ck_assert_double_eq_tol(up[q], u2[q], 1e-12 * U);
            if (k == 1)
                ck_assert_str_eq(ph, b ? "compression: stick, open; restitution: stick, open"
                                       : "compression: stick, open; no restitution");
            law->info.destroy(inst);
        }
}
END_TEST

/* A sphere (m, b, J = 2/5 m b^2) in a V-groove of two planes whose normals
 * are at +-a from the vertical in the n1-n2 plane (contact i at -b n_i,
 * tangent_dim 2), falling with v_G- = (0, -V, 0) and no spin. */
static void sphere_groove(mmech *s, double m, double b, double a, double V) {
    const double J = 0.4 * m * b * b;
    memset(s, 0, sizeof *s);
    s->nv = 6;
    s->n = 2;
    for (int i = 0; i < 3; ++i) {
        s->M[i * 6 + i] = J;
        s->M[(i + 3) * 6 + i + 3] = m;
    }
    for (int i = 0; i < 2; ++i) {
        const double sg = i ? -1 : 1;
        double n[3] = {sg * sin(a), cos(a), 0}, t1[3] = {cos(a), -sg * sin(a), 0}, t2[3];
        cross(n, t1, t2);
        const double *axes[3] = {n, t1, t2};
        for (int r = 0; r < 3; ++r) {
            double nx[3] = {0, 0, 0};
            if (r > 0) cross(n, axes[r], nx);
            for (int q = 0; q < 3; ++q) {
                s->W[(3 * i + r) * 6 + q] = -b * nx[q];
                s->W[(3 * i + r) * 6 + 3 + q] = axes[r][q];
            }
        }
    }
    s->vm[4] = -V;
    mmech_setup(s);
}

/* The sphere in a corner of two planes, tangent_dim 2 (the NSGS path),
 * walls at a = 60 deg as in the V-groove. Frictionless the rotation is not
 * excited and the point-mass result holds: P_n = (1 + e) m V at both
 * contacts, v_G+ = (0, e V, 0). With friction (mu < cot 60 deg, no spin by
 * the mirror symmetry) the point-mass slide result:
 * P_n = (1 + e) m V / (2 (cos a - mu sin a)).
 * Steep walls (a = 80 deg) with mu = 0.5 > cot a: the sphere jams. Leaving
 * both walls (u_n+ = -e u_n- > 0) needs the contacts to slip outwards, and
 * friction then pulls it in harder than the normals push it out
 * (cos a - mu sin a < 0); sticking instead, a squeeze between the walls
 * inside both cones changes no velocity. newton has no solution: its
 * iteration cycles or drifts, and the law says so (NSDYN_ERROR and a
 * message through the host log); poisson's plastic compression stops the
 * sphere. */
START_TEST(multi_sphere_corner_3d) {
    const double m = 2.0, b = 0.5, V = 3.0, a = M_PI / 3;
    const nsdyn_contact_law *law = law_of("newton");
    for (int f = 0; f < 2; ++f) {
        const double e = 0.5, mu = f ? 0.3 : 0.0, mus[2] = {mu, mu};
        void *inst = make(law, e);
        mmech s;
        sphere_groove(&s, m, b, a, V);
        double P[6], up[6], vp[6], u2[6];
        char ph[64] = "";
        last_log[0] = 0;
        ck_assert_msg(mcall(law, inst, &s, 2, mus, mus, P, up, ph, sizeof ph) == NSDYN_OK, "%s",
                      last_log);
        mpost(&s, P, vp, u2);
        const double Pn = (1 + e) * m * V / (2 * (cos(a) - mu * sin(a)));
        fprintf(stderr,
                "sphere in a corner (tangent_dim 2), mu = %g: P_n = %.15g, %.15g (hand %.15g), "
                "v+ = (%.3g %.3g %.3g | %.3g %.3g %.3g) [%s]\n",
                mu, P[0], P[3], Pn, vp[0], vp[1], vp[2], vp[3], vp[4], vp[5], ph);
        ck_assert_double_eq_tol(P[0], Pn, 1e-10 * Pn);
        ck_assert_double_eq_tol(P[3], Pn, 1e-10 * Pn);
        ck_assert_double_eq_tol(vp[4], e * V, 1e-10 * V);
        for (int q = 0; q < 6; ++q)
            if (q != 4) ck_assert_double_eq_tol(vp[q], 0.0, 1e-10 * V);
        law->info.destroy(inst);
    }
    /* The jam. */
    const double mus[2] = {0.5, 0.5};
    mmech s;
    sphere_groove(&s, m, b, 80 * M_PI / 180, V);
    double P[6], up[6], vp[6], u2[6];
    char ph[96] = "";
    void *inst = make(law, 0.5);
    last_log[0] = 0;
    ck_assert_int_eq(mcall(law, inst, &s, 2, mus, mus, P, up, ph, sizeof ph), NSDYN_ERROR);
    fprintf(stderr, "sphere jammed in a narrow corner, newton: %s\n", last_log);
    ck_assert_msg(
        strstr(last_log, "newton: no bounded impulse for 2 simultaneous contacts") ||
            strstr(last_log,
                   "newton: the non-smooth Gauss-Seidel iteration (NSGS) did not converge "
                   "for 2 simultaneous contacts"),
        "%s", last_log);
    law->info.destroy(inst);
    const nsdyn_contact_law *pl = law_of("poisson");
    inst = make(pl, 0.5);
    last_log[0] = 0;
    ck_assert_msg(mcall(pl, inst, &s, 2, mus, mus, P, up, ph, sizeof ph) == NSDYN_OK, "%s",
                  last_log);
    mpost(&s, P, vp, u2);
    fprintf(stderr,
            "sphere jammed in a narrow corner, poisson: P_n = %.6g, %.6g, v+ = (%.3g %.3g %.3g | "
            "%.3g %.3g "
            "%.3g) [%s]\n",
            P[0], P[3], vp[0], vp[1], vp[2], vp[3], vp[4], vp[5], ph);
    for (int q = 0; q < 6; ++q) ck_assert_double_eq_tol(up[q], u2[q], 1e-10 * V);
    ck_assert_double_ge(up[0], -1e-10 * V);
    ck_assert_double_ge(up[3], -1e-10 * V);
    pl->info.destroy(inst);
}
END_TEST

/* ---- (f) poisson ---------------------------------------------------------- */

/* Frictionless, decoupled G: u_n+ = -beta u_n-, P_n = (1 + beta) m |u_n-|. */
START_TEST(poisson_frictionless_closed_form) {
    const nsdyn_contact_law *law = law_of("poisson");
    for (int trial = 0; trial < 50; ++trial) {
        const double beta = trial == 0 ? 0.0 : trial == 1 ? 1.0 : urand(0, 1);
        void *inst = make(law, beta);
        double G[9] = {0}, um[3] = {urand(-3, -0.1), urand(-1, 1), urand(-1, 1)}, mu = 0, gap = 0;
        G[0] = urand(0.1, 2);
        G[4] = G[8] = urand(0.1, 2);
        nsdyn_impact_problem pr = {sizeof pr, 1, 2, G, um, &mu, &mu, &gap, NULL, 0, NULL};
        double P[3], up[3];
        ck_assert_int_eq(law->impact(inst, &pr, P, up), NSDYN_OK);
        ck_assert_double_eq_tol(up[0], -beta * um[0], 1e-15 * fabs(um[0]));
        ck_assert_double_eq_tol(P[0], -(1 + beta) * um[0] / G[0], 1e-14 * P[0]);
        ck_assert_double_eq(up[1], um[1]);
        ck_assert_double_eq(up[2], um[2]);
        law->info.destroy(inst);
    }
}
END_TEST

/* The sphere on a plane with friction (decoupled G = diag(1/m, k1, k1)):
 * compression P_c,n = m |u_n-|; stick if |u_t-| <= mu_s k1 P_c,n, else the
 * slip keeps its direction d and shrinks by mu_k k1 P_c,n. Restitution
 * P_r,n = beta P_c,n: stick if |u_t+| <= mu_s k1 P_r,n, else it shrinks by
 * mu_k k1 P_r,n. Three cases: stick/stick, slide/slide, slide/stick. */
START_TEST(poisson_sphere_phases) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, k1 = 1 / m + b * b / J, beta = 0.3;
    const double mu_s = 0.5, mu_k = 0.4;
    const nsdyn_contact_law *law = law_of("poisson");
    void *inst = make(law, beta);
    /* u_n- = -2 (P_c,n = 4); slip of the contact point along (0.6, 0.8). */
    const double slips[3] = {1.0, 6.0, 3.7};
    const char *want[3] = {"compression: stick; restitution: stick",
                           "compression: slide; restitution: slide",
                           "compression: slide; restitution: stick"};
    for (int c = 0; c < 3; ++c) {
        /* u_t = (u4 + b u3, u6 - b u1) (2.12): put the slip into v_G. */
        const double u[6] = {0, 0, 0, 0.6 * slips[c], -2.0, 0.8 * slips[c]};
        mech s;
        sphere(&s, m, b, J, N2, N1, N3, u);
        double P[3], up[3];
        char ph[96] = "";
        ck_assert_int_eq(call(law, inst, &s, 2, mu_s, mu_k, P, up, ph, sizeof ph), NSDYN_OK);
        const double Pc = 2.0 * m, s0 = slips[c];
        double s1 = s0 <= mu_s * k1 * Pc ? 0 : s0 - mu_k * k1 * Pc;
        double s2 = s1 <= mu_s * k1 * beta * Pc ? 0 : s1 - mu_k * k1 * beta * Pc;
        fprintf(stderr, "poisson sphere: |u_t-| = %g: |u_t*| = %.15g (closed form %.15g) [%s]\n",
                s0, hypot(up[1], up[2]), s2, ph);
        ck_assert_str_eq(ph, want[c]);
        ck_assert_double_eq_tol(up[0], 2.0 * beta, 1e-14);
        ck_assert_double_eq_tol(P[0], (1 + beta) * Pc, 1e-13);
        ck_assert_double_eq_tol(up[1], 0.6 * s2, 1e-12);
        ck_assert_double_eq_tol(up[2], 0.8 * s2, 1e-12);
    }
    law->info.destroy(inst);
}
END_TEST

/* One contact with a coupled G = [g_nn g_nt; g_nt g_tt] (tangent_dim 1),
 * sticking in both phases. Compression: G P_c = (-u_n, -u_t), so
 * P_c,n = (-u_n g_tt + u_t g_nt)/det. Restitution: P_r,n = beta P_c,n and
 * stick u_t* = 0: P_r,t = -g_nt beta P_c,n/g_tt, so
 *   u_n* = beta P_c,n (g_nn - g_nt^2/g_tt) = beta (-u_n + u_t g_nt/g_tt),
 * not Newton's -beta u_n: the two laws differ by beta u_t g_nt/g_tt. */
START_TEST(poisson_coupled_single_contact) {
    const double gnn = 1.0, gnt = 0.3, gtt = 2.0, un = -1.0, ut = 0.5, mu = 1.0, gap = 0.0;
    const double G[9] = {gnn, gnt, 0, gnt, gtt, 0, 0, 0, 1}, um[3] = {un, ut, 0};
    for (int k = 0; k < 2; ++k) {
        const double beta = k ? 0.7 : 0.3;
        const nsdyn_contact_law *pl = law_of("poisson"), *nl = law_of("newton");
        void *p = make(pl, beta), *n = make(nl, beta);
        nsdyn_impact_problem pr = {sizeof pr, 1, 1, G, um, &mu, &mu, &gap, NULL, 0, NULL};
        double P[3], up[3], Pn[3], upn[3];
        ck_assert_int_eq(pl->impact(p, &pr, P, up), NSDYN_OK);
        ck_assert_int_eq(nl->impact(n, &pr, Pn, upn), NSDYN_OK);
        const double det = gnn * gtt - gnt * gnt, Pc = (-un * gtt + ut * gnt) / det;
        fprintf(stderr,
                "coupled contact, beta = %g: poisson u_n* = %.15g (closed form %.15g), newton "
                "u_n+ = %.15g\n",
                beta, up[0], beta * (-un + ut * gnt / gtt), upn[0]);
        ck_assert_double_eq_tol(up[0], beta * (-un + ut * gnt / gtt), 1e-15);
        ck_assert_double_eq_tol(up[1], 0.0, 1e-15);
        ck_assert_double_eq_tol(P[0], (1 + beta) * Pc, 1e-15);
        ck_assert_double_eq_tol(upn[0], -beta * un, 1e-15);
        pl->info.destroy(p);
        nl->info.destroy(n);
    }
}
END_TEST

/* A random multi-contact problem: n contacts on nv velocities (nv < 3n
 * gives a singular Delassus, like the curb wheel). Contact 0 approaches;
 * the others approach, touch (u_n- = 0: the normal row made orthogonal to
 * v-) or have any sign. */
static void random_mmech(mmech *s, size_t n, int nv) {
    memset(s, 0, sizeof *s);
    s->nv = nv;
    s->n = n;
    double A[NVM * NVM];
    for (int i = 0; i < nv * nv; ++i) A[i] = urand(-1, 1);
    for (int i = 0; i < nv; ++i)
        for (int j = 0; j < nv; ++j) {
            double x = i == j ? 0.2 : 0.0;
            for (int p = 0; p < nv; ++p) x += A[i * nv + p] * A[j * nv + p];
            s->M[i * nv + j] = x;
        }
    for (size_t i = 0; i < 3 * n * (size_t)nv; ++i) s->W[i] = urand(-1, 1);
    for (int i = 0; i < nv; ++i) s->vm[i] = urand(-2, 2);
    int kind[NCM];
    for (size_t i = 0; i < n; ++i) {
        kind[i] = i == 0 ? 0 : (int)(urand(0, 3));
        double *Wn = s->W + 3 * i * nv, wv = 0, vv = 0;
        for (int q = 0; q < nv; ++q) {
            wv += Wn[q] * s->vm[q];
            vv += s->vm[q] * s->vm[q];
        }
        if (kind[i] == 1) /* touching */
            for (int q = 0; q < nv; ++q) Wn[q] -= wv / vv * s->vm[q];
        else if (kind[i] == 0 && wv > 0) /* approaching */
            for (int q = 0; q < nv; ++q) Wn[q] = -Wn[q];
    }
    mmech_setup(s);
    for (size_t i = 0; i < n; ++i)
        if (kind[i] == 1) s->um[3 * i] = 0.0;
}

typedef struct grid_stats {
    size_t ok, refused, impacts, slides, opens, held;
    double worst_dT, worst_compl, worst_cone;
} grid_stats;

/* Checks of one accepted multi-contact result; returns nothing, asserts. */
static void check_multi(const char *id, const mmech *s, unsigned dim, double coef,
                        const double *mu_s, const double *mu_k, const double *P, const double *up,
                        const double *Pc, grid_stats *st) {
    const size_t n = s->n, m = 3 * n;
    double vp[NVM], u2[RM];
    mpost(s, P, vp, u2);
    const double Tm = mkinetic(s, s->vm), dT = mkinetic(s, vp) - Tm;
    double Us = 0, Ps = 0, Gmax = 0;
    for (size_t i = 0; i < n; ++i)
        for (unsigned r = 0; r <= dim; ++r) {
            Us = fmax(Us, fabs(s->um[3 * i + r]));
            Gmax = fmax(Gmax, s->G[m * (3 * i + r) + 3 * i + r]);
        }
    for (size_t r = 0; r < m; ++r) Ps = fmax(Ps, fabs(P[r]));
    Ps = fmax(Ps, Us / Gmax);
    const double tol = 1e-10;
    /* Energy, from the generalized velocities. */
    st->worst_dT = fmax(st->worst_dT, dT / Tm);
    ck_assert_msg(dT <= 1e-12 * Tm, "%s %g: energy gain %g of %g", id, coef, dT, Tm);
    /* u+ = W v+ */
    for (size_t r = 0; r < m; ++r) ck_assert_double_le(fabs(u2[r] - up[r]), 1e-10 * (Us + 1e-300));
    for (size_t i = 0; i < n; ++i) {
        const double *Pi = P + 3 * i, *ui = up + 3 * i, un_m = s->um[3 * i];
        double Pt = hypot(Pi[1], Pi[2]), ut = hypot(ui[1], dim == 2 ? ui[2] : 0);
        ck_assert_double_ge(Pi[0], 0.0);
        if (dim == 1) ck_assert_double_eq(Pi[2], 0.0);
        double v, lam, Ptf[2] = {Pi[1], Pi[2]}, Pnf = Pi[0];
        if (Pc == NULL) { /* newton: 0 <= P_n _|_ u_n+ + e_i u_n- >= 0 */
            v = ui[0] + (un_m < 0 ? coef * un_m : 0.0);
            lam = Pi[0];
        } else { /* poisson: P_n - (1 + beta) P_c,n >= 0 _|_ u_n* >= 0 */
            v = ui[0];
            lam = Pi[0] - (1 + coef) * Pc[3 * i];
            ck_assert_double_ge(lam, -tol * Ps);
            st->held += lam > tol * Ps;
            /* restitution friction: on P_r = P - P_c against u* */
            Pnf = Pi[0] - Pc[3 * i];
            Ptf[0] -= Pc[3 * i + 1];
            Ptf[1] -= Pc[3 * i + 2];
            Pt = hypot(Ptf[0], Ptf[1]);
        }
        ck_assert_msg(v >= -tol * Us, "%s: contact %zu leaves approaching: %g (scale %g)", id, i, v,
                      Us);
        double compl = fmin(fabs(v) / Us, fabs(lam) / Ps);
        st->worst_compl = fmax(st->worst_compl, compl );
        ck_assert_msg(compl <= tol, "%s: complementarity at contact %zu: %g, %g", id, i, v, lam);
        /* Coulomb: cone (mu_s), and sliding opposite the final slip (mu_k). */
        double cone = Pt - mu_s[i] * Pnf;
        st->worst_cone = fmax(st->worst_cone, cone / Ps);
        ck_assert_msg(cone <= tol * Ps, "%s: outside the cone at %zu: %g", id, i, cone);
        if (Pi[0] > tol * Ps) st->impacts++;
        if (ut > 1e-8 * Us && Pnf > tol * Ps) {
            st->slides++;
            for (unsigned j = 1; j <= dim; ++j)
                ck_assert_msg(fabs(Ptf[j - 1] + mu_k[i] * Pnf * ui[j] / ut) <= 1e-8 * Ps,
                              "%s: slip direction at %zu: %g", id, i,
                              Ptf[j - 1] + mu_k[i] * Pnf * ui[j] / ut);
        }
        if (Pi[0] == 0.0) st->opens++;
    }
}

/* A rigid ellipsoid (semi-axes a, b, c, mass m, v = (v_G, omega), M =
 * diag(m, m, m, J), J = m/5 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)) touched
 * at n random points of its surface. Contact i at r (body point) with the
 * normal n pointing into the body (minus the outward surface normal, which
 * does not pass through the centre: G_nt != 0) and u = d.(v_G + omega x r)
 * = d.v_G + (r x d).omega for d = n, t1, t2. Contact 0 approaches; contact
 * 1 touches (u_n- = 0, v- projected) in every other problem. */
static void random_rigid(mmech *s, size_t n, int touching) {
    memset(s, 0, sizeof *s);
    s->nv = 6;
    s->n = n;
    const double m = urand(0.5, 2), ax[3] = {urand(0.2, 1), urand(0.2, 1), urand(0.2, 1)};
    for (int i = 0; i < 3; ++i) {
        s->M[7 * i] = m;
        s->M[7 * (i + 3)] = m / 5 * (ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2] - ax[i] * ax[i]);
    }
    for (size_t i = 0; i < n; ++i) {
        double dir[3], r[3], nu[3], nn = 0, dn = 0;
        for (int q = 0; q < 3; ++q) {
            dir[q] = urand(-1, 1);
            dn += dir[q] * dir[q];
        }
        for (int q = 0; q < 3; ++q) {
            r[q] = ax[q] * dir[q] / sqrt(dn);
            nu[q] = -dir[q] / ax[q];
            nn += nu[q] * nu[q];
        }
        double nvec[3] = {nu[0] / sqrt(nn), nu[1] / sqrt(nn), nu[2] / sqrt(nn)}, t1[3], t2[3];
        double helper[3] = {fabs(nvec[0]) < 0.9 ? 1 : 0, fabs(nvec[0]) < 0.9 ? 0 : 1, 0}, tl;
        cross(nvec, helper, t1);
        tl = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (int q = 0; q < 3; ++q) t1[q] /= tl;
        cross(nvec, t1, t2);
        const double *axes[3] = {nvec, t1, t2};
        for (int k = 0; k < 3; ++k) {
            double rx[3];
            cross(r, axes[k], rx);
            for (int q = 0; q < 3; ++q) {
                s->W[(3 * i + k) * 6 + q] = axes[k][q];
                s->W[(3 * i + k) * 6 + 3 + q] = rx[q];
            }
        }
    }
    for (int q = 0; q < 6; ++q) s->vm[q] = urand(-2, 2);
    if (touching && n > 1) { /* v- -= (W_n1 v-)/(W_n1 M^-1 W_n1^T) M^-1 W_n1^T */
        const double *Wn = s->W + 3 * 6;
        double wv = 0, wmw = 0;
        for (int q = 0; q < 6; ++q) {
            wv += Wn[q] * s->vm[q];
            wmw += Wn[q] * Wn[q] / s->M[7 * q];
        }
        for (int q = 0; q < 6; ++q) s->vm[q] -= wv / wmw * Wn[q] / s->M[7 * q];
    }
    double un0 = 0;
    for (int q = 0; q < 6; ++q) un0 += s->W[q] * s->vm[q];
    if (un0 > 0)
        for (int q = 0; q < 6; ++q) s->vm[q] = -s->vm[q];
    mmech_setup(s);
    if (touching && n > 1) s->um[3] = 0.0;
}

/* A sphere (radius b, mass m, J = 2/5 m b^2) in a corner of two planes at
 * random orientations (normals n_i, contact points r_i = -b n_i): the
 * tumbleweed rover in a valley. G_nt = 0 within a contact; the contacts
 * couple through the translation and the rotation. */
static void random_sphere(mmech *s, int touching) {
    memset(s, 0, sizeof *s);
    s->nv = 6;
    s->n = 2;
    const double m = urand(0.5, 2), b = urand(0.2, 1), J = 0.4 * m * b * b;
    for (int i = 0; i < 3; ++i) {
        s->M[7 * i] = m;
        s->M[7 * (i + 3)] = J;
    }
    for (size_t i = 0; i < 2; ++i) {
        double nv[3], nn = 0, t1[3], t2[3], r[3];
        for (int q = 0; q < 3; ++q) {
            nv[q] = urand(-1, 1);
            nn += nv[q] * nv[q];
        }
        for (int q = 0; q < 3; ++q) {
            nv[q] /= sqrt(nn);
            r[q] = -b * nv[q];
        }
        double helper[3] = {fabs(nv[0]) < 0.9 ? 1 : 0, fabs(nv[0]) < 0.9 ? 0 : 1, 0}, tl;
        cross(nv, helper, t1);
        tl = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (int q = 0; q < 3; ++q) t1[q] /= tl;
        cross(nv, t1, t2);
        const double *axes[3] = {nv, t1, t2};
        for (int k = 0; k < 3; ++k) {
            double rx[3];
            cross(r, axes[k], rx);
            for (int q = 0; q < 3; ++q) {
                s->W[(3 * i + k) * 6 + q] = axes[k][q];
                s->W[(3 * i + k) * 6 + 3 + q] = rx[q];
            }
        }
    }
    for (int q = 0; q < 6; ++q) s->vm[q] = urand(-2, 2);
    if (touching) { /* v- -= (W_n1 v-)/(W_n1 M^-1 W_n1^T) M^-1 W_n1^T */
        const double *Wn = s->W + 3 * 6;
        double wv = 0, wmw = 0;
        for (int q = 0; q < 6; ++q) {
            wv += Wn[q] * s->vm[q];
            wmw += Wn[q] * Wn[q] / s->M[7 * q];
        }
        for (int q = 0; q < 6; ++q) s->vm[q] -= wv / wmw * Wn[q] / s->M[7 * q];
    }
    double un0 = 0;
    for (int q = 0; q < 6; ++q) un0 += s->W[q] * s->vm[q];
    if (un0 > 0)
        for (int q = 0; q < 6; ++q) s->vm[q] = -s->vm[q];
    mmech_setup(s);
    if (touching) s->um[3] = 0.0;
}

/* Random multi-contact problems, both laws, e and beta in [0, 1], mu in
 * [0, 1]:
 *   A. arbitrary Delassus operators (random W and M, nv = 3..12 velocities,
 *      often fewer than the constraint rows: singular G), tangent_dim 1,
 *      2-4 contacts: the exact enumeration;
 *   B. a rigid ellipsoid touched at 2-3 points, tangent_dim 2 (the NSGS
 *      iteration) and 1;
 *   C. a sphere in a corner of two planes, tangent_dim 2 (NSGS).
 * Checked on every accepted result: energy never increases (from the
 * generalized velocities); per contact the normal complementarity
 * (newton: 0 <= P_n _|_ u_n+ + e_i u_n- >= 0; poisson: P_n >= (1 + beta)
 * P_c,n with equality unless u_n* = 0, P_c from newton with e = 0, which is
 * poisson's compression) and Coulomb (cone with mu_s; sliding contacts:
 * P_t = -mu_k P_n u_t/|u_t|, for poisson on the restitution impulse).
 * Tolerance 1e-10 relative to the largest |u-| and |P|: the exact paths
 * are at rounding (~1e-15 cond(G)); the NSGS iteration stops when a sweep
 * changes no velocity by more than 1e-13 of |u-|, and its local solves are
 * exact, so 1e-10 leaves a factor 1000 over the iteration's tolerance.
 * Refused (NSDYN_ERROR with a message), and counted:
 *   - an energy gain (restitution with friction and coupling; never
 *     plastic);
 *   - A: "no consistent impulse" when no combination of contact states
 *     satisfies the law (contacts wedged against each other make Newton's
 *     restitution targets contradictory; never plastic, never poisson);
 *   - A: NSGS without convergence, after an enumeration that could not
 *     decide a combination with a null space of dimension >= 2 (4 contacts
 *     on 3 or 4 velocities);
 *   - B: NSGS without convergence (an ellipsoid squeezed at 2-3 points with
 *     strong normal-tangential coupling: the iteration cycles or the
 *     impulses grow; some of these have no solution). Bounded here
 *     (measured: 18 of 400 tangent_dim 2 problems for newton, 1 for
 *     poisson) so that a regression shows;
 *   - C: newton with e > 0 only: the sphere jams in a narrow corner (the
 *     normals more than 2 acot(mu) apart: a squeeze inside both friction
 *     cones changes no velocity, and leaving both walls with u_n+ =
 *     -e u_n- would need a slip that friction forbids; cf. the V-groove
 *     formula, whose cos a - mu sin a turns negative), where no bounded
 *     impulse satisfies Newton's law (measured: 46 of 600). */
START_TEST(multi_random_grid) {
    const char *ids[2] = {"newton", "poisson"};
    const double coefs[5] = {0.0, 0.25, 0.5, 0.8, 1.0};
    const int nvs[5] = {3, 4, 6, 9, 12};
    const nsdyn_contact_law *plastic = law_of("newton");
    void *p0 = make(plastic, 0.0);
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        for (int part = 0; part < 3; ++part) {
            grid_stats st = {0, 0, 0, 0, 0, 0, -HUGE_VAL, 0, -HUGE_VAL};
            size_t by_dim[3] = {0}, by_dim_ok[3] = {0}, nsgs = 0, energy = 0, inconsistent = 0,
                   noconv = 0;
            double max_sweeps = 0;
            for (int ie = 0; ie < 5; ++ie) {
                void *inst = make(law, coefs[ie]);
                for (int trial = 0; trial < 120; ++trial) {
                    unsigned dim;
                    size_t n;
                    mmech s;
                    if (part == 0) {
                        dim = 1;
                        n = 2 + (size_t)(trial % 3);
                        random_mmech(&s, n, nvs[trial / 3 % 5]);
                    } else if (part == 1) {
                        dim = trial % 3 ? 2 : 1;
                        n = 2 + (size_t)(trial / 3 % 2);
                        random_rigid(&s, n, trial / 6 % 2);
                    } else {
                        dim = 2;
                        n = 2;
                        random_sphere(&s, trial % 2);
                    }
                    by_dim[dim]++;
                    double mu_s[NCM], mu_k[NCM], P[RM], up[RM], Pc[RM], uc[RM];
                    for (size_t i = 0; i < n; ++i) {
                        mu_s[i] = urand(0, 1);
                        mu_k[i] = mu_s[i] * urand(0.5, 1);
                    }
                    char ph[256] = "";
                    last_log[0] = 0;
                    nsdyn_status rc = mcall(law, inst, &s, dim, mu_s, mu_k, P, up, ph, sizeof ph);
                    if (rc != NSDYN_OK) {
                        ck_assert_int_eq(rc, NSDYN_ERROR);
                        st.refused++;
                        if (strstr(last_log, "kinetic energy")) {
                            ck_assert_msg(coefs[ie] > 0, "%s refused a plastic impact: %s", ids[k],
                                          last_log);
                            energy++;
                        } else if (strstr(last_log, "no consistent impulse")) {
                            ck_assert_msg(part == 0 && k == 0 && coefs[ie] > 0, "%s: %s", ids[k],
                                          last_log);
                            inconsistent++;
                        } else {
                            ck_assert_msg((part == 0 || (part == 1 && dim == 2) ||
                                           (part == 2 && k == 0 && coefs[ie] > 0)) &&
                                              (strstr(last_log, "did not converge") ||
                                               strstr(last_log, "no bounded")),
                                          "%s (part %c, n = %zu, tangent_dim %u): %s", ids[k],
                                          'A' + part, n, dim, last_log);
                            noconv++;
                        }
                        continue;
                    }
                    st.ok++;
                    by_dim_ok[dim]++;
                    nsgs += strstr(ph, "nsgs") != NULL;
                    for (const char *q = strstr(ph, "(nsgs, "); q; q = strstr(q + 1, "(nsgs, "))
                        max_sweeps = fmax(max_sweeps, atof(q + 7));
                    if (k == 1)
                        ck_assert_int_eq(mcall(plastic, p0, &s, dim, mu_s, mu_k, Pc, uc, NULL, 0),
                                         NSDYN_OK);
                    check_multi(ids[k], &s, dim, coefs[ie], mu_s, mu_k, P, up, k == 1 ? Pc : NULL,
                                &st);
                }
                law->info.destroy(inst);
            }
            fprintf(
                stderr,
                "multi-contact grid %c, %s: %zu problems, %zu accepted (tangent_dim 1: %zu of %zu, "
                "tangent_dim 2: %zu of %zu; %zu by NSGS, at most %g sweeps); refused: %zu energy, "
                "%zu without a "
                "consistent impulse, %zu NSGS not converged; contacts: %zu with impulse, %zu "
                "sliding, %zu open, %zu held (poisson completion); max dT/T- = %.3g, max "
                "complementarity %.3g, max cone excess %.3g\n",
                'A' + part, ids[k], st.ok + st.refused, st.ok, by_dim_ok[1], by_dim[1],
                by_dim_ok[2], by_dim[2], nsgs, max_sweeps, energy, inconsistent, noconv, st.impacts,
                st.slides, st.opens, st.held, st.worst_dT, st.worst_compl, st.worst_cone);
            ck_assert_uint_le(inconsistent, (st.ok + st.refused) / 20);
            ck_assert_uint_le(noconv, part == 0   ? (st.ok + st.refused) / 50
                                      : part == 1 ? by_dim[2] / 4
                                                  : by_dim[2] / 8);
            ck_assert_uint_gt(st.slides, 100);
            ck_assert_uint_gt(st.opens, part == 2 ? 50 : 100);
        }
    }
    plastic->info.destroy(p0);
}
END_TEST

/* poisson with beta = 0 is newton with e = 0: the same compression, no
 * restitution. Identical results (or the same refusal) on random
 * multi-contact problems of both kinds. */
START_TEST(poisson_beta0_is_plastic_newton) {
    const nsdyn_contact_law *pl = law_of("poisson"), *nl = law_of("newton");
    void *p = make(pl, 0.0), *n0 = make(nl, 0.0);
    size_t same = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const unsigned dim = 1 + (unsigned)(trial % 2);
        const size_t n = 1 + (size_t)(trial / 2 % 3);
        mmech s;
        if (trial % 3)
            random_mmech(&s, n, 3 + trial % 8);
        else
            random_rigid(&s, n, trial % 2);
        double mu_s[NCM], mu_k[NCM], P[RM], up[RM], Pn[RM], upn[RM];
        for (size_t i = 0; i < n; ++i) {
            mu_s[i] = urand(0, 1);
            mu_k[i] = mu_s[i] * urand(0.5, 1);
        }
        nsdyn_status a = mcall(pl, p, &s, dim, mu_s, mu_k, P, up, NULL, 0);
        nsdyn_status b = mcall(nl, n0, &s, dim, mu_s, mu_k, Pn, upn, NULL, 0);
        ck_assert_int_eq(a, b);
        if (a != NSDYN_OK) continue;
        same++;
        for (size_t r = 0; r < 3 * n; ++r) {
            ck_assert_double_eq(P[r], Pn[r]);
            ck_assert_double_eq(up[r], upn[r]);
        }
    }
    fprintf(stderr,
            "poisson beta = 0 vs newton e = 0: %zu of 300 random problems solved, all identical\n",
            same);
    ck_assert_uint_gt(same, 250);
    pl->info.destroy(p);
    nl->info.destroy(n0);
}
END_TEST

/* ---- (g) kane_impulse with several contacts -------------------------------- */

/* A sphere (m, b, J) touching n planes whose unit normals nrm[i] lie in the
 * x-y plane (x forward, y up, z across: the thesis's n1, n2, n3): contact i
 * at -b nrm[i], t1 = (n_y, -n_x, 0) (forward along the plane), t2 = n x t1;
 * v = (omega, v_G) and the rows as in sphere(). */
static void sphere_on_planes(mmech *s, double m, double b, double J, size_t n,
                             const double (*nrm)[3], const double *v) {
    memset(s, 0, sizeof *s);
    s->nv = 6;
    s->n = n;
    for (int i = 0; i < 3; ++i) {
        s->M[i * 6 + i] = J;
        s->M[(i + 3) * 6 + i + 3] = m;
    }
    for (size_t i = 0; i < n; ++i) {
        const double *nv = nrm[i];
        double t1[3] = {nv[1], -nv[0], 0}, t2[3];
        cross(nv, t1, t2);
        const double *axes[3] = {nv, t1, t2};
        for (int r = 0; r < 3; ++r) {
            double nx[3] = {0, 0, 0};
            if (r > 0) cross(nv, axes[r], nx);
            for (int q = 0; q < 3; ++q) {
                s->W[(3 * i + r) * 6 + q] = -b * nx[q];
                s->W[(3 * i + r) * 6 + 3 + q] = axes[r][q];
            }
        }
    }
    memcpy(s->vm, v, 6 * sizeof *v);
    mmech_setup(s);
}

typedef struct kane_stats {
    size_t ok, single, coupled, routh, slides, sticks, opens;
    double worst_dT, worst_approach, worst_cone;
} kane_stats;

/* Checks of one accepted kane_impulse result (asserts):
 *  - u+ = W v+ with v+ = v- + M^-1 W^T P: the law's u_plus against the
 *    generalized velocities;
 *  - energy: T(v+) - T(v-) <= 1e-12 T(v-) (T- and T+ are sums of ~36
 *    terms of size T), and from local quantities alone
 *    dT = 1/2 P.(u- + u+) <= 1e-12 sum_r |P_r| (|u-_r| + |u+_r|) (each
 *    product rounds to 1e-16, and u+ holds the solver's residual, at most
 *    1e-13 of |u-| for NSGS);
 *  - per contact: P_n >= 0; u_n+ + e_i u_n- >= -tol with e_i = e if it
 *    approached, else 0 (no contact approaches after the impact, and none
 *    leaves slower than its restitution target), complementary to P_n;
 *    |P_t| <= mu_s P_n; Kane's friction rule: stick (u_t+ = 0) or slide with
 *    |P_t| = mu_k P_n along -+d0 (d0 the slip before the impact, when there
 *    was one) without reversing along it (P_t.u_t+ <= 0); where the phase
 *    log says "post-impact slip", against the final slip u_t+/|u_t+|.
 * tol = 1e-10 relative to the velocity scale Us = max |u-| (impulses:
 * Ps = max(|P|, Us / max G_ii)): the exact paths are at rounding
 * (~1e-15 cond G), NSGS stops when a sweep changes no velocity by more than
 * 1e-13 Us, so 1e-10 leaves a factor 1000. */
static void check_kane(const mmech *s, unsigned dim, double e, const double *mu_s,
                       const double *mu_k, const double *P, const double *up, const char *ph,
                       kane_stats *st) {
    const size_t n = s->n, m = 3 * n;
    const double tol = 1e-10;
    double vp[NVM], u2[RM], Us = 0, Ps = 0, Gmax = 0, dTl = 0, sumPU = 0;
    mpost(s, P, vp, u2);
    for (size_t i = 0; i < n; ++i)
        for (unsigned r = 0; r <= dim; ++r) {
            Us = fmax(Us, fabs(s->um[3 * i + r]));
            Gmax = fmax(Gmax, s->G[m * (3 * i + r) + 3 * i + r]);
        }
    for (size_t r = 0; r < m; ++r) {
        Ps = fmax(Ps, fabs(P[r]));
        dTl += 0.5 * P[r] * (s->um[r] + up[r]);
        sumPU += fabs(P[r]) * (fabs(s->um[r]) + fabs(up[r]));
    }
    Ps = fmax(Ps, Us / Gmax);
    const double Tm = mkinetic(s, s->vm), dT = mkinetic(s, vp) - Tm;
    const int routh = strstr(ph, "post-impact slip") != NULL;
    st->ok++;
    st->single += strncmp(ph, "coupled", 7) != 0;
    st->coupled += strncmp(ph, "coupled", 7) == 0;
    st->routh += routh;
    st->worst_dT = fmax(st->worst_dT, dT / Tm);
    ck_assert_msg(dT <= 1e-12 * Tm, "energy gain %g of %g [%s]", dT, Tm, ph);
    ck_assert_msg(dTl <= 1e-12 * sumPU, "local energy gain %g (scale %g) [%s]", dTl, sumPU, ph);
    for (size_t r = 0; r < m; ++r) ck_assert_double_le(fabs(u2[r] - up[r]), tol * Us);
    for (size_t i = 0; i < n; ++i) {
        const double *Pi = P + 3 * i, *ui = up + 3 * i, *ur = s->um + 3 * i;
        const double v = ui[0] + (ur[0] < 0 ? e * ur[0] : 0.0);
        const double Pt = hypot(Pi[1], Pi[2]), ut = hypot(ui[1], dim == 2 ? ui[2] : 0);
        const double u0 = hypot(ur[1], dim == 2 ? ur[2] : 0);
        ck_assert_double_ge(Pi[0], 0.0);
        st->worst_approach = fmax(st->worst_approach, -ui[0] / Us);
        ck_assert_msg(v >= -tol * Us, "contact %zu leaves approaching: u_n+ = %g, u_n- = %g [%s]",
                      i, ui[0], ur[0], ph);
        ck_assert_msg(fmin(fabs(v) / Us, Pi[0] / Ps) <= tol, "complementarity at %zu: %g, %g [%s]",
                      i, v, Pi[0], ph);
        if (dim == 1) ck_assert_double_eq(Pi[2], 0.0);
        st->worst_cone = fmax(st->worst_cone, (Pt - mu_s[i] * Pi[0]) / Ps);
        ck_assert_msg(Pt - mu_s[i] * Pi[0] <= tol * Ps, "outside the cone at %zu [%s]", i, ph);
        if (Pi[0] == 0.0) {
            ck_assert_double_eq(Pt, 0.0);
            st->opens++;
            continue;
        }
        if (ut <= 1e-8 * Us) {
            st->sticks++;
            continue;
        }
        st->slides++;
        ck_assert_msg(fabs(Pt - mu_k[i] * Pi[0]) <= tol * Ps,
                      "slide at %zu: |P_t| = %g, mu_k P_n = %g [%s]", i, Pt, mu_k[i] * Pi[0], ph);
        if (routh) {
            for (unsigned j = 1; j <= dim; ++j)
                ck_assert_double_le(fabs(Pi[j] + mu_k[i] * Pi[0] * ui[j] / ut), 1e-8 * Ps);
            continue;
        }
        ck_assert_msg(Pi[1] * ui[1] + Pi[2] * ui[2] <= tol * Ps * Us, "slip reverses at %zu [%s]",
                      i, ph);
        if (dim == 2 && u0 > 1e-8 * Us)
            ck_assert_msg(fabs(Pi[1] * ur[2] - Pi[2] * ur[1]) / u0 <= tol * Ps,
                          "slide at %zu not along the initial slip [%s]", i, ph);
    }
}

/* The law on one contact's own block (contact k of s): the single-contact
 * kane_impulse. */
static void kane_alone(const nsdyn_contact_law *law, void *inst, const mmech *s, size_t k,
                       unsigned dim, double mu_s, double mu_k, double *P, double *up) {
    const size_t m = 3 * s->n;
    double G[9], gap = 0.0;
    for (size_t r = 0; r < 3; ++r)
        for (size_t q = 0; q < 3; ++q) G[3 * r + q] = s->G[m * (3 * k + r) + 3 * k + q];
    nsdyn_impact_problem pr = {sizeof pr, 1,    dim,  G, s->um + 3 * k, &mu_s,
                               &mu_k,     &gap, NULL, 0, NULL};
    ck_assert_int_eq(law->impact(inst, &pr, P, up), NSDYN_OK);
}

/* One contact approaches, the other touches with u_n = 0 and is not driven
 * into approach: the result is Kane's single-contact model at the
 * approaching contact (the same impulse as the law on that contact alone),
 * the touching contact gets no impulse and leaves. Contact `hit` of the
 * two planes nrm approaches, the sphere (m = 2 kg, b = 0.5 m,
 * J = 2/5 m b^2) moves with the speeds v (three states each). Over e in
 * {0, 0.5, 0.92, 1} and mu in {0, 0.3/0.25, 1/0.8} (static/kinetic),
 * tangent_dim 2 (and 1 for the planar states). */
static void kane_corner_single(const double (*nrm)[3], size_t hit, const double (*vs)[6],
                               const char *what) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, es[4] = {0, 0.5, 0.92, 1};
    const double mus[3][2] = {{0, 0}, {0.3, 0.25}, {1.0, 0.8}};
    const size_t rest = 1 - hit;
    const nsdyn_contact_law *law = law_of("kane_impulse");
    kane_stats st = {0, 0, 0, 0, 0, 0, 0, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double worst = 0;
    for (int ie = 0; ie < 4; ++ie) {
        void *inst = make(law, es[ie]);
        for (int f = 0; f < 3; ++f)
            for (int k = 0; k < 3; ++k)
                for (unsigned dim = 1; dim <= 2; ++dim) {
                    if (dim == 1 && k == 2) continue; /* the 3-D state */
                    const double mu_s[2] = {mus[f][0], mus[f][0]}, mu_k[2] = {mus[f][1], mus[f][1]};
                    mmech s;
                    sphere_on_planes(&s, m, b, J, 2, nrm, vs[k]);
                    ck_assert_double_le(fabs(s.um[3 * rest]), 1e-15); /* touching */
                    ck_assert_double_lt(s.um[3 * hit], -0.1);         /* approaching */
                    double P[6], up[6], P1[3], u1[3];
                    char ph[128] = "";
                    last_log[0] = 0;
                    ck_assert_msg(mcall(law, inst, &s, dim, mu_s, mu_k, P, up, ph, sizeof ph) ==
                                      NSDYN_OK,
                                  "%s", last_log);
                    check_kane(&s, dim, es[ie], mu_s, mu_k, P, up, ph, &st);
                    ck_assert_msg(strncmp(ph, "coupled", 7) != 0, "%s: %s", what, ph);
                    for (int r = 0; r < 3; ++r) ck_assert_double_eq(P[3 * rest + r], 0.0);
                    ck_assert_double_gt(up[3 * rest], 0.1); /* it leaves */
                    kane_alone(law, inst, &s, hit, dim, mu_s[0], mu_k[0], P1, u1);
                    for (int r = 0; r < 3; ++r) {
                        worst = fmax(worst, fabs(P[3 * hit + r] - P1[r]) / P1[0]);
                        ck_assert_double_le(fabs(P[3 * hit + r] - P1[r]), 1e-14 * P1[0]);
                        ck_assert_double_le(fabs(up[3 * hit + r] - u1[r]),
                                            1e-14 * fabs(s.um[3 * hit]));
                    }
                    /* The runner's touching contact carries the integration
                     * error of sustained contact: a tiny approach there is
                     * not a second impact, the result stays Kane's. */
                    s.um[3 * rest] = -1e-12;
                    double P2[6], u2[6];
                    ck_assert_int_eq(mcall(law, inst, &s, dim, mu_s, mu_k, P2, u2, ph, sizeof ph),
                                     NSDYN_OK);
                    ck_assert_msg(strncmp(ph, "coupled", 7) != 0, "%s", ph);
                    for (int r = 0; r < 6; ++r) ck_assert_double_eq(P2[r], P[r]);
                }
        law->info.destroy(inst);
    }
    fprintf(stderr,
            "kane_impulse, %s: %zu impacts, all Kane's single-contact model (%zu sticking, %zu "
            "sliding), the touching contact open in all; max |P - P_alone|/P_n = %.3g, max dT/T- = "
            "%.3g\n",
            what, st.ok, st.sticks, st.slides, worst, st.worst_dT);
    ck_assert_uint_gt(st.sticks, 10);
    ck_assert_uint_gt(st.slides, 10);
}

/* (a) Rolling along the floor (contact 0, n = (0, 1, 0)) into a 30 deg
 * incline (contact 1, n = (-sin 30, cos 30, 0)) at the corner: the floor
 * contact touches with u_n = 0, the incline is hit at u_n = -V sin 30.
 * States: rolling (wz = -V/b), sliding without spin, rolling with a side
 * speed vz = 0.4 m/s (wx = vz/b). The incline's impulse lifts the sphere
 * off the floor (its normal and friction impulses both have an upward
 * component: the contact point slips down the incline), so the floor
 * stays without impulse and opens. */
START_TEST(kane_multi_roll_into_incline) {
    const double V = 3.0, b = 0.5, th = M_PI / 6;
    const double nrm[2][3] = {{0, 1, 0}, {-sin(th), cos(th), 0}};
    const double vs[3][6] = {
        {0, 0, -V / b, V, 0, 0}, {0, 0, 0, V, 0, 0}, {0.4 / b, 0, -V / b, V, 0, 0.4}};
    kane_corner_single(nrm, 1, vs, "rolling on the floor into a 30 deg incline");
}
END_TEST

/* (b) Rolling down a 30 deg decline (contact 0, n = (sin 30, cos 30, 0),
 * touching) onto the floor at the bottom (contact 1, hit at
 * u_n = -V sin 30): the concave corner at the foot of the thesis's
 * valley. States: rolling down (wz = -V/b), sliding without spin, rolling
 * with a side speed (t2 rolling on the decline: wx = vz/(b cos 30)). */
START_TEST(kane_multi_decline_onto_floor) {
    const double V = 3.0, b = 0.5, th = M_PI / 6, c = cos(th), sn = sin(th);
    const double nrm[2][3] = {{sn, c, 0}, {0, 1, 0}};
    const double vs[3][6] = {{0, 0, -V / b, V * c, -V * sn, 0},
                             {0, 0, 0, V * c, -V * sn, 0},
                             {0.4 / (b * c), 0, -V / b, V * c, -V * sn, 0.4}};
    kane_corner_single(nrm, 1, vs, "rolling down a 30 deg decline onto the floor");
}
END_TEST

/* Call kane_impulse on s. Refused is allowed only as Kane's energy paradox
 * with e = 1 and friction (Newton's elastic restitution at contacts
 * coupled through the body, with friction, can feed energy back; the law
 * refuses such impulses, impact.c): counted in *paradox, returns 0. */
static int kane_call(const nsdyn_contact_law *law, void *inst, const mmech *s, unsigned dim,
                     double e, const double *mu_s, const double *mu_k, double *P, double *up,
                     char *ph, size_t len, size_t *paradox) {
    last_log[0] = 0;
    if (mcall(law, inst, s, dim, mu_s, mu_k, P, up, ph, len) == NSDYN_OK) return 1;
    ck_assert_msg(e == 1 && mu_s[0] > 0 && strstr(last_log, "kinetic energy"), "%s", last_log);
    fprintf(stderr, "  refused (e = 1, mu_s = %g, tangent_dim %u): %s\n", mu_s[0], dim, last_log);
    ++*paradox;
    return 0;
}

/* A touching contact driven into approach: the sphere touches wall A of a
 * 120 deg V-groove (normals nA = (sin 60, cos 60, 0), nB = (-sin 60,
 * cos 60, 0), nA.nB = -1/2) and moves along it, v_G = V (cos 60, -sin 60, 0)
 * (u_nA = 0), into wall B (u_nB = -V sin 120). Kane's model at B alone
 * would push the sphere into A (u_nA+ = nA.nB P_B/m < 0), so both take
 * part: the coupled law. Frictionless, both closed with u_nA+ = 0
 * (e_A = 0: A was not approaching) and u_nB+ = -e u_nB-:
 *   [1 -1/2; -1/2 1] (P_A, P_B)/m = (0, (1 + e) |u_nB-|)
 *   => P_B = 4/3 (1 + e) m |u_nB-|, P_A = P_B/2.
 * With friction (mu_s = 0.4, mu_k = 0.3; the sphere sliding or rolling on
 * A): the planar problem gives the same impulses through the exact
 * enumeration (tangent_dim 1) and the NSGS iteration with Kane's slip rule
 * (tangent_dim 2), and the checks of check_kane hold. */
START_TEST(kane_multi_driven_contact) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, V = 3.0, a = M_PI / 3;
    const double nrm[2][3] = {{sin(a), cos(a), 0}, {-sin(a), cos(a), 0}};
    const double vs[2][6] = {{0, 0, 0, V * cos(a), -V * sin(a), 0},
                             {0, 0, -V / b, V * cos(a), -V * sin(a), 0}};
    const double es[3] = {0, 0.5, 1};
    const nsdyn_contact_law *law = law_of("kane_impulse");
    kane_stats st = {0, 0, 0, 0, 0, 0, 0, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double worst = 0;
    size_t paradox = 0;
    for (int ie = 0; ie < 3; ++ie) {
        void *inst = make(law, es[ie]);
        for (int f = 0; f < 2; ++f)
            for (int k = 0; k < 2; ++k) {
                const double mu_s[2] = {f ? 0.4 : 0, f ? 0.4 : 0},
                             mu_k[2] = {f ? 0.3 : 0, f ? 0.3 : 0};
                double P[2][6], up[2][6];
                int solved = 0;
                mmech s;
                sphere_on_planes(&s, m, b, J, 2, nrm, vs[k]);
                ck_assert_double_le(fabs(s.um[0]), 1e-15);
                s.um[0] = 0.0;
                for (unsigned dim = 1; dim <= 2; ++dim) {
                    char ph[128] = "";
                    if (!(solved = kane_call(law, inst, &s, dim, es[ie], mu_s, mu_k, P[dim - 1],
                                             up[dim - 1], ph, sizeof ph, &paradox)))
                        break;
                    check_kane(&s, dim, es[ie], mu_s, mu_k, P[dim - 1], up[dim - 1], ph, &st);
                    fprintf(
                        stderr,
                        "driven contact, e = %g, mu = %g, %s, tangent_dim %u: P_n = %.12g, %.12g, "
                        "P_t = %.6g, %.6g [%s]\n",
                        es[ie], mu_s[0], k ? "rolling" : "sliding", dim, P[dim - 1][0],
                        P[dim - 1][3], P[dim - 1][1], P[dim - 1][4], ph);
                    ck_assert_msg(strncmp(ph, "coupled: ", 9) == 0, "%s", ph);
                    ck_assert_double_gt(P[dim - 1][0], 0.0); /* A takes part */
                    if (f == 0) {
                        const double PB = 4.0 / 3.0 * (1 + es[ie]) * m * V * sin(2 * a);
                        ck_assert_double_eq_tol(P[dim - 1][3], PB, 1e-10 * PB);
                        ck_assert_double_eq_tol(P[dim - 1][0], PB / 2, 1e-10 * PB);
                        ck_assert_double_eq_tol(up[dim - 1][0], 0.0, 1e-10 * V);
                        ck_assert_double_eq_tol(up[dim - 1][3], es[ie] * V * sin(2 * a), 1e-10 * V);
                    }
                }
                for (int r = 0; r < 6 && solved; ++r) {
                    worst = fmax(worst, fabs(up[0][r] - up[1][r]) / V);
                    ck_assert_double_le(fabs(up[0][r] - up[1][r]), 1e-9 * V);
                }
            }
        law->info.destroy(inst);
    }
    fprintf(
        stderr,
        "driven contact: max |u+(enumeration) - u+(NSGS, Kane's rule)|/V = %.3g, max dT/T- = %.3g; "
        "%zu refused (energy, e = 1 with friction)\n",
        worst, st.worst_dT, paradox);
    ck_assert_uint_gt(st.slides, 4);
}
END_TEST

/* (c) Two contacts approaching at once: the sphere falls into the corner
 * of the floor (contact 0) and a 30 deg incline (contact 1) with
 * v_G = (1, -2, 0) m/s, u_n- = (-2, -(sin 30 + 2 cos 30)). Frictionless,
 * the normal Delassus block is (1/m) [1 c; c 1], c = cos 30, and both
 * contacts close (the frictionless problem has one solution, G being
 * positive definite):
 *   P = m (1 + e) [1 c; c 1]^-1 |u_n-|, u_n+ = -e u_n-,
 * positive because |u_n0|/|u_n1| = 0.896 lies in (c, 1/c). Kane's model at
 * the incline alone leaves the floor below its target for every e, so the
 * coupled law decides. With friction (mu_s = 0.5, mu_k = 0.4) and spin
 * (none, backspin, side spin and side speed): check_kane (with side spin
 * Kane's model at the incline alone is consistent: the floor leaves faster
 * than its target), and the planar states give the same post-impact
 * velocities with tangent_dim 1 (enumeration) and 2 (NSGS) for e < 1 (the
 * impulses of two sticking contacts in a corner are not unique: the
 * sphere has 3 planar velocities for 4 constraint rows). With e = 1 and
 * backspin the frictional problem has two solutions (slide-slide, taken by
 * the enumeration as the more dissipative, and slide-stick, reached by
 * NSGS; both pass check_kane), and without spin it is refused as Kane's
 * energy paradox. */
START_TEST(kane_multi_two_approaching) {
    const double m = 2.0, b = 0.5, J = 0.4 * m * b * b, th = M_PI / 6, c = cos(th);
    const double nrm[2][3] = {{0, 1, 0}, {-sin(th), cos(th), 0}};
    const double vs[3][6] = {{0, 0, 0, 1, -2, 0}, {0, 0, 3, 1, -2, 0}, {1.5, 0.5, -2, 1, -2, 0.7}};
    const double es[4] = {0, 0.5, 0.92, 1};
    const nsdyn_contact_law *law = law_of("kane_impulse");
    kane_stats st = {0, 0, 0, 0, 0, 0, 0, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double worst = 0;
    size_t paradox = 0;
    for (int ie = 0; ie < 4; ++ie) {
        void *inst = make(law, es[ie]);
        for (int f = 0; f < 2; ++f)
            for (int k = 0; k < 3; ++k) {
                const double mu_s[2] = {f ? 0.5 : 0, f ? 0.5 : 0},
                             mu_k[2] = {f ? 0.4 : 0, f ? 0.4 : 0};
                double P[2][6], up[2][6];
                int solved = 0;
                mmech s;
                sphere_on_planes(&s, m, b, J, 2, nrm, vs[k]);
                for (unsigned dim = 2; dim >= 1 + (k == 2); --dim) {
                    char ph[128] = "";
                    if (!(solved = kane_call(law, inst, &s, dim, es[ie], mu_s, mu_k, P[dim - 1],
                                             up[dim - 1], ph, sizeof ph, &paradox)))
                        break;
                    check_kane(&s, dim, es[ie], mu_s, mu_k, P[dim - 1], up[dim - 1], ph, &st);
                    if (f)
                        fprintf(stderr,
                                "two approaching, e = %g, state %d, tangent_dim %u: P_n = %.6g, "
                                "%.6g [%s]\n",
                                es[ie], k, dim, P[dim - 1][0], P[dim - 1][3], ph);
                    if (f == 0) {
                        ck_assert_msg(strncmp(ph, "coupled: ", 9) == 0, "%s", ph);
                        const double u0 = -s.um[0], u1 = -s.um[3], det = 1 - c * c;
                        const double P0 = m * (1 + es[ie]) * (u0 - c * u1) / det;
                        const double P1 = m * (1 + es[ie]) * (u1 - c * u0) / det;
                        ck_assert_double_eq_tol(P[dim - 1][0], P0, 1e-10 * P1);
                        ck_assert_double_eq_tol(P[dim - 1][3], P1, 1e-10 * P1);
                        ck_assert_double_eq_tol(up[dim - 1][0], es[ie] * u0, 1e-10 * u1);
                        ck_assert_double_eq_tol(up[dim - 1][3], es[ie] * u1, 1e-10 * u1);
                    }
                }
                if (k < 2 && solved && es[ie] < 1)
                    for (int r = 0; r < 6; ++r) {
                        worst = fmax(worst, fabs(up[0][r] - up[1][r]) / fabs(s.um[3]));
                        ck_assert_double_le(fabs(up[0][r] - up[1][r]), 1e-9 * fabs(s.um[3]));
                    }
            }
        law->info.destroy(inst);
    }
    fprintf(
        stderr,
        "two contacts approaching: %zu impacts (%zu contacts sticking, %zu sliding, %zu open); "
        "max |u+(tangent_dim 1) - u+(tangent_dim 2)|/|u_n-| = %.3g, max dT/T- = %.3g; %zu refused "
        "(energy, e = 1 with friction)\n",
        st.ok, st.sticks, st.slides, st.opens, worst, st.worst_dT, paradox);
    ck_assert_uint_gt(st.slides, 4);
}
END_TEST

/* Make the normal rows of the contacts marked in touch orthogonal to v-
 * (u_n = 0, touching): v -= M^-1 W_T^T (W_T M^-1 W_T^T)^-1 W_T v, the
 * M-orthogonal projection onto their constraints. */
static void touch_project(mmech *s, const int *touch) {
    const int nv = s->nv;
    size_t rows[NCM], k = 0;
    for (size_t i = 0; i < s->n; ++i)
        if (touch[i]) rows[k++] = 3 * i;
    if (k == 0) return;
    double Wt[NVM * NCM], X[NVM * NCM], A[NCM * NCM], wv[NCM], y[NCM];
    for (int q = 0; q < nv; ++q)
        for (size_t j = 0; j < k; ++j)
            Wt[q * (int)k + (int)j] = s->W[rows[j] * (size_t)nv + (size_t)q];
    spd_solve(s->M, nv, Wt, (int)k, X);
    for (size_t a = 0; a < k; ++a) {
        wv[a] = 0;
        for (int q = 0; q < nv; ++q) wv[a] += s->W[rows[a] * (size_t)nv + (size_t)q] * s->vm[q];
        for (size_t c = 0; c < k; ++c) {
            A[a * k + c] = 0;
            for (int q = 0; q < nv; ++q)
                A[a * k + c] += s->W[rows[a] * (size_t)nv + (size_t)q] * X[q * (int)k + (int)c];
        }
    }
    spd_solve(A, (int)k, wv, 1, y);
    for (int q = 0; q < nv; ++q)
        for (size_t j = 0; j < k; ++j) s->vm[q] -= X[q * (int)k + (int)j] * y[j];
}

/* A unit vector with random direction; y >= ymin when ymin > -1. */
static void random_unit(double *d, double ymin) {
    double l;
    do {
        d[0] = urand(-1, 1);
        d[1] = urand(ymin > -1 ? ymin : -1, 1);
        d[2] = urand(-1, 1);
        l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (l < 0.2 || l > 1);
    for (int q = 0; q < 3; ++q) d[q] /= l;
}

/* Contact i of a rigid body with velocities (v_G, omega): at body point r
 * with unit normal nv (into the body), a random tangent frame; rows
 * d.v_G + (r x d).omega for d = n, t1, t2. */
static void body_contact(mmech *s, size_t i, const double *r, const double *nv) {
    double t1[3], t2[3], helper[3] = {fabs(nv[0]) < 0.9 ? 1 : 0, fabs(nv[0]) < 0.9 ? 0 : 1, 0},
                         rot = urand(0, 6.3);
    double a[3], bb[3];
    cross(nv, helper, a);
    double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    for (int q = 0; q < 3; ++q) a[q] /= l;
    cross(nv, a, bb);
    for (int q = 0; q < 3; ++q) t1[q] = cos(rot) * a[q] + sin(rot) * bb[q];
    cross(nv, t1, t2);
    const double *axes[3] = {nv, t1, t2};
    for (int k = 0; k < 3; ++k) {
        double rx[3];
        cross(r, axes[k], rx);
        for (int q = 0; q < 3; ++q) {
            s->W[(3 * i + (size_t)k) * 6 + (size_t)q] = axes[k][q];
            s->W[(3 * i + (size_t)k) * 6 + 3 + (size_t)q] = rx[q];
        }
    }
}

/* A random impact problem with n touching contacts (kind: 0 a sphere on
 * planes of the terrain, normals within about 70 deg of the vertical;
 * 1 a rigid body with a random inertia tensor touched at random points in
 * random directions, G_nt != 0; 2 a system of 9-12 velocities with a
 * random SPD mass matrix and random contact rows). Contact 0 approaches;
 * every other one approaches, touches (u_n- = 0, exactly) or separates at
 * random. With 3 contacts on the 6 velocities of a body (kinds 0, 1) G has
 * rank 6 of 9 (positive semi-definite), otherwise it is positive definite. */
static void random_kane_problem(mmech *s, size_t n, int kind) {
    memset(s, 0, sizeof *s);
    s->n = n;
    if (kind == 2) {
        const int nv = 9 + (int)urand(0, 4);
        double A[NVM * NVM];
        s->nv = nv;
        for (int i = 0; i < nv * nv; ++i) A[i] = urand(-1, 1);
        for (int i = 0; i < nv; ++i)
            for (int j = 0; j < nv; ++j) {
                double x = i == j ? 0.2 : 0.0;
                for (int p = 0; p < nv; ++p) x += A[i * nv + p] * A[j * nv + p];
                s->M[i * nv + j] = x;
            }
        for (size_t i = 0; i < 3 * n * (size_t)nv; ++i) s->W[i] = urand(-1, 1);
    } else {
        const double m = urand(0.5, 2), b = urand(0.2, 1);
        double I[9] = {0}, R[9];
        s->nv = 6;
        for (int i = 0; i < 9; ++i) R[i] = urand(-1, 1);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                for (int p = 0; p < 3; ++p)
                    I[3 * i + j] += kind ? R[3 * i + p] * R[3 * j + p] : 0.0;
                if (i == j)
                    I[3 * i + j] += kind ? 0.05 : urand(0.2, 0.67) * b * b; /* sphere: J/m */
            }
        for (int i = 0; i < 3; ++i) {
            s->M[7 * i] = m;
            for (int j = 0; j < 3; ++j)
                s->M[6 * (i + 3) + j + 3] = m * (kind ? I[3 * i + j] : I[0] * (i == j));
        }
        for (size_t i = 0; i < n; ++i) {
            double nv[3], r[3];
            random_unit(nv, kind ? -1 : 0.35);
            if (kind) random_unit(r, -1);
            for (int q = 0; q < 3; ++q) r[q] = kind ? urand(0.2, 1) * r[q] : -b * nv[q];
            body_contact(s, i, r, nv);
        }
    }
    int touch[NCM] = {0};
    for (int q = 0; q < s->nv; ++q) s->vm[q] = urand(-2, 2);
    for (size_t i = 1; i < n; ++i) touch[i] = urand(0, 3) < 1;
    touch_project(s, touch);
    mmech_setup(s);
    if (s->um[0] > 0) {
        for (int q = 0; q < s->nv; ++q) s->vm[q] = -s->vm[q];
        for (size_t r = 0; r < 3 * n; ++r) s->um[r] = -s->um[r];
    }
    for (size_t i = 1; i < n; ++i)
        if (touch[i]) s->um[3 * i] = 0.0;
}

/* (d) The randomized property test: 900 random problems (300 of each kind
 * of random_kane_problem, 1-3 contacts, tangent_dim 1 and 2, e in [0, 1]
 * with 0 and 1 among them, mu_s in [0, 1.2], mu_k in [0.5, 1] mu_s).
 * Every accepted result passes check_kane: no contact approaching after
 * the impact beyond rounding, P_n >= 0, the energy never increases, the
 * friction impulse in the cone, Kane's rule at sliding contacts. Refused
 * (NSDYN_ERROR with a message through the host log) and counted:
 *   - an energy gain (Kane's energy paradox: restitution with friction and
 *     normal-tangential coupling; never plastic, e = 0, proof in impact.c);
 *   - no consistent impulse (a Painleve-type coupling at one contact, or
 *     restitution targets that contradict each other), or a coupled
 *     problem whose NSGS iteration does not converge or grows without
 *     bound (contacts jammed). Bounded here (measured, see the printed
 *     counts) so that a regression shows. */
START_TEST(kane_multi_random_properties) {
    const nsdyn_contact_law *law = law_of("kane_impulse");
    const double es[6] = {0, 1, 0.5, 0.92, 0.25, 0.8};
    for (int kind = 0; kind < 3; ++kind) {
        kane_stats st = {0, 0, 0, 0, 0, 0, 0, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        size_t energy = 0, inconsistent = 0, noconv = 0, by_n[4] = {0}, multi = 0;
        for (int trial = 0; trial < 300; ++trial) {
            const size_t n = 1 + (size_t)(trial % 3);
            const unsigned dim = 1 + (unsigned)(trial / 3 % 2);
            const double e = trial < 36 ? es[trial / 6] : urand(0, 1);
            void *inst = make(law, e);
            mmech s;
            random_kane_problem(&s, n, kind);
            double mu_s[NCM], mu_k[NCM], P[RM], up[RM];
            for (size_t i = 0; i < n; ++i) {
                mu_s[i] = urand(0, 1.2);
                mu_k[i] = mu_s[i] * urand(0.5, 1);
            }
            char ph[256] = "";
            last_log[0] = 0;
            nsdyn_status rc = mcall(law, inst, &s, dim, mu_s, mu_k, P, up, ph, sizeof ph);
            by_n[n]++;
            if (rc != NSDYN_OK) {
                ck_assert_int_eq(rc, NSDYN_ERROR);
                if (strstr(last_log, "kinetic energy")) {
                    ck_assert_msg(e > 0, "a plastic impact refused: %s", last_log);
                    energy++;
                } else if (strstr(last_log, "no consistent impulse")) {
                    inconsistent++;
                } else {
                    ck_assert_msg(n > 1 && (strstr(last_log, "did not converge") ||
                                            strstr(last_log, "no bounded")),
                                  "%s", last_log);
                    noconv++;
                }
                law->info.destroy(inst);
                continue;
            }
            multi += n > 1;
            check_kane(&s, dim, e, mu_s, mu_k, P, up, ph, &st);
            law->info.destroy(inst);
        }
        const size_t refused = energy + inconsistent + noconv;
        fprintf(
            stderr,
            "kane_impulse random problems, %s: %zu (1/2/3 contacts: %zu/%zu/%zu), %zu accepted "
            "(%zu with several contacts: %zu by Kane's model at one contact, %zu coupled, %zu of "
            "them with the post-impact slip); refused: %zu energy, %zu without a consistent "
            "impulse, %zu NSGS not converged; contacts: %zu sticking, %zu sliding, %zu open; max "
            "dT/T- = %.3g, max approach u_n+/|u-| = %.3g, max cone excess %.3g\n",
            kind == 0   ? "sphere on planes"
            : kind == 1 ? "rigid body"
                        : "9-12 velocities",
            st.ok + refused, by_n[1], by_n[2], by_n[3], st.ok, multi, multi - st.coupled,
            st.coupled, st.routh, energy, inconsistent, noconv, st.sticks, st.slides, st.opens,
            st.worst_dT, st.worst_approach, st.worst_cone);
        ck_assert_uint_ge(st.ok, 240);
        ck_assert_uint_gt(st.coupled, 30);
        ck_assert_uint_gt(st.slides, 50);
        ck_assert_uint_gt(st.opens, 30);
    }
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    Suite *s = suite_create("impact_laws");
    TCase *tc = tcase_create("impact");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sphere_delassus_any_plane);
    tcase_add_test(tc, sphere_kane_no_slip);
    tcase_add_test(tc, sphere_kane_slip);
    tcase_add_test(tc, kane_strict_stick_test);
    tcase_add_test(tc, random_grid_energy_and_restitution);
    tcase_add_test(tc, frictionless_is_newton);
    tcase_add_test(tc, bad_input_refused);
    tcase_add_test(tc, not_approaching_no_impulse);
    tcase_add_test(tc, multi_independent_contacts);
    tcase_add_test(tc, multi_frictionless_diagonal);
    tcase_add_test(tc, multi_mixed_tangent_dims);
    tcase_add_test(tc, multi_v_groove_coupled);
    tcase_add_test(tc, multi_curb_touching_contact);
    tcase_add_test(tc, multi_curb_wheel_at_B);
    tcase_add_test(tc, multi_sphere_corner_3d);
    tcase_add_test(tc, poisson_frictionless_closed_form);
    tcase_add_test(tc, poisson_sphere_phases);
    tcase_add_test(tc, poisson_coupled_single_contact);
    tcase_add_test(tc, poisson_beta0_is_plastic_newton);
    tcase_add_test(tc, multi_random_grid);
    tcase_add_test(tc, kane_multi_roll_into_incline);
    tcase_add_test(tc, kane_multi_decline_onto_floor);
    tcase_add_test(tc, kane_multi_driven_contact);
    tcase_add_test(tc, kane_multi_two_approaching);
    tcase_add_test(tc, kane_multi_random_properties);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    nsd_registry_close(&reg);
    return failed;
}
