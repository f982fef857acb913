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
 * (d) Bad input: e outside [0, 1], several contacts. */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"

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
    void *inst = law->create(v, &host, err, sizeof err);
    ck_assert_msg(inst != NULL, "create failed: %s", err);
    return inst;
}

/* ---- small dense linear algebra (nv <= 6) ------------------------------ */

enum { NV = 6 };

/* Solve M X = B for SPD M (n x n) and k right-hand sides (columns of B,
 * row-major n x k), Cholesky. */
static void spd_solve(const double *M, int n, const double *B, int k, double *X) {
    double L[NV * NV] = {0};
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
        double y[NV];
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
    nsdyn_impact_problem pr = {sizeof pr, 1, dim, s->G, s->um, &mu_s, &mu_k, &gap, ph, phlen};
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
    up[1] = u[1];          /* (2.43) */
    up[4] = -e * u[4];     /* (2.46) */
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
    law->destroy(inst);
    return err;
}

START_TEST(sphere_kane_no_slip) {
    /* alpha1 = 0.9, gamma1 = -0.25: |P_t| = 0.534 < mu S2 = 11.52. */
    const double u[6] = {0.3, -0.2, 1.0, 0.4, -3.0, -0.1};
    const char *ids[2] = {"kane_impulse", "newton"};
    for (int k = 0; k < 2; ++k) {
        char ph[32] = "";
        double err = sphere_case(ids[k], 0, u, ph);
        fprintf(stderr, "sphere no-slip (2.59)-(2.65), %s: max |u+ - closed form| = %.3g\n", ids[k], err);
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
        fprintf(stderr, "sphere slip (2.80)-(2.81), %s: max |u+ - closed form| = %.3g\n", ids[k], err);
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
    nl->destroy(n);
    kl->destroy(k);
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
                        ck_assert_msg(es[ie] > 0, "%s refused a plastic impact: %s", ids[k], last_log);
                        ck_assert_msg(strstr(last_log, "energy") != NULL, "%s", last_log);
                    } else {
                        ck_assert_msg(strstr(last_log, "energy") || strstr(last_log, "no consistent"),
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
                ck_assert_msg(dT <= 1e-12 * Tm, "%s e=%g: energy gain %g of %g", ids[k], es[ie], dT, Tm);
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
            law->destroy(inst);
        }
        fprintf(stderr, "random grid, %s: %zu accepted (%zu sliding), %zu refused (%zu without a "
                        "consistent impulse, %zu of them plastic); max dT/T- = %.3g, "
                        "max |dT_local - dT|/T- = %.3g\n",
                ids[k], n_ok, n_slide, n_refused, n_inconsistent, n_plastic_refused, worst_dT, worst_local);
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
                ck_assert_double_eq_tol(up[r], s.um[r] + s.G[3 * r] * Pn, 1e-12 * (1 + fabs(up[r])));
            law->destroy(inst);
        }
    }
}
END_TEST

/* ---- (d) bad input ------------------------------------------------------ */

START_TEST(bad_input_refused) {
    const char *ids[2] = {"newton", "kane_impulse"};
    for (int k = 0; k < 2; ++k) {
        const nsdyn_contact_law *law = law_of(ids[k]);
        char err[256] = "";
        nsdyn_value v[1] = {{1.5, NULL, 0}};
        ck_assert_ptr_null(law->create(v, &host, err, sizeof err));
        ck_assert_str_eq(err, "e = 1.5 is outside [0, 1]: e < 0 would not separate the bodies and "
                              "e > 1 would create energy at every impact");
        v[0].num = -0.1;
        ck_assert_ptr_null(law->create(v, &host, err, sizeof err));
        /* Two contacts: refused with a message through the host's log. */
        void *inst = make(law, 0.5);
        double G[36] = {0}, um[6] = {-1, 0, 0, -1, 0, 0}, mu[2] = {0.5, 0.5}, gaps[2] = {0, 0};
        for (int i = 0; i < 6; ++i) G[7 * i] = 1.0;
        nsdyn_impact_problem pr = {sizeof pr, 2, 2, G, um, mu, mu, gaps, NULL, 0};
        double P[6], up[6];
        last_log[0] = 0;
        ck_assert_int_eq(law->impact(inst, &pr, P, up), NSDYN_ERROR);
        char want[256];
        snprintf(want, sizeof want, "%s: 2 simultaneous contacts; this law handles one contact per "
                                    "impact (multi-contact impacts are not implemented)", ids[k]);
        ck_assert_str_eq(last_log, want);
        law->destroy(inst);
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
    law->destroy(inst);
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
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    nsd_registry_close(&reg);
    return failed;
}
