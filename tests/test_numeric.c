/* The shared numeric kernels (core/numeric, nsdyn_numeric.h) against
 * closed forms and independent checks:
 *  - dense solves: known 2x2 / 3x3 solutions; random well-conditioned
 *    systems (diagonally dominant, n = 2 .. 12) against the residual bound
 *    |A x - b| <= 1e-12 |A| |x| for every solver; singular matrices refused;
 *    the complete-pivoting solver's rank and null vector;
 *  - the one-contact Coulomb solver: on random blocks (symmetric positive
 *    definite, tangent dimension 0, 1, 2) every accepted solution is checked
 *    against the Coulomb conditions themselves (cone, complementarity,
 *    maximal dissipation: slip opposite the friction impulse);
 *  - NSGS: a decoupled problem is solved in one sweep; a frictionless
 *    coupled one matches the linear solve of its closed contacts;
 *  - angle roots: the roots of cos(th) - c and of sin(2 th) on [0, 2 pi);
 *  - the affine probe: the columns of a known matrix.
 * Random numbers: a fixed-seed xorshift, so runs are reproducible. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "nsdyn_numeric.h"

#define PI 3.14159265358979323846

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) { /* uniform in [-1, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

/* Diagonally dominant random n x n (well conditioned). */
static void random_system(size_t n, double *A, double *b) {
    for (size_t i = 0; i < n; ++i) {
        double row = 0.0;
        for (size_t j = 0; j < n; ++j) {
            A[i * n + j] = urand();
            if (j != i) row += fabs(A[i * n + j]);
        }
        A[i * n + i] = (A[i * n + i] < 0 ? -1.0 : 1.0) * (row + 0.5 + fabs(urand()));
        b[i] = 10.0 * urand();
    }
}

/* |A x - b|_inf <= 1e-12 |A|_inf |x|_inf (backward stable solve). */
static void check_residual(size_t n, const double *A, const double *b, const double *x) {
    double an = 0.0, xn = 0.0, rn = 0.0;
    for (size_t i = 0; i < n; ++i) {
        double s = -b[i], row = 0.0;
        for (size_t j = 0; j < n; ++j) {
            s += A[i * n + j] * x[j];
            row += fabs(A[i * n + j]);
        }
        an = fmax(an, row);
        xn = fmax(xn, fabs(x[i]));
        rn = fmax(rn, fabs(s));
    }
    ck_assert_msg(rn <= 1e-12 * an * xn, "n = %zu: residual %g > 1e-12 |A| |x| = %g", n, rn,
                  1e-12 * an * xn);
}

START_TEST(test_closed_forms) {
    const double A2[4] = {2.0, 1.0, 1.0, 3.0}, b2[2] = {3.0, 5.0};
    double x2[2];
    ck_assert_int_eq(nsn_solve2(A2, b2, x2), NSN_OK);
    ck_assert(fabs(x2[0] - 0.8) < 1e-15 && fabs(x2[1] - 1.4) < 1e-15);
    /* A = [[4,1,0],[1,3,1],[0,1,2]], x = (1, -1, 2): b = A x */
    const double A3[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2}, b3[3] = {3.0, 0.0, 3.0};
    double x3[3];
    ck_assert_int_eq(nsn_solve3(A3, b3, x3), NSN_OK);
    ck_assert(fabs(x3[0] - 1.0) < 1e-15 && fabs(x3[1] + 1.0) < 1e-15 && fabs(x3[2] - 2.0) < 1e-15);
}
END_TEST

START_TEST(test_random_systems) {
    double A[144], A0[144], b[12], b0[12], x[12];
    int ipiv[12];
    for (int trial = 0; trial < 500; ++trial) {
        const size_t n = 2 + (size_t)trial % 11;
        random_system(n, A0, b0);
        /* nsn_solve: closed forms or LAPACK */
        memcpy(A, A0, n * n * sizeof *A);
        memcpy(x, b0, n * sizeof *x);
        ck_assert_int_eq(nsn_solve(n, A, x, ipiv), NSN_OK);
        check_residual(n, A0, b0, x);
        /* partial pivoting in place */
        memcpy(A, A0, n * n * sizeof *A);
        memcpy(x, b0, n * sizeof *x);
        ck_assert_int_eq(nsn_lu_solve(n, A, n, x, 1e-14, 0.0), NSN_OK);
        check_residual(n, A0, b0, x);
        /* complete pivoting: full rank */
        double nul[12];
        memcpy(A, A0, n * n * sizeof *A);
        memcpy(b, b0, n * sizeof *b);
        ck_assert_int_eq(nsn_gauss_complete((int)n, A, n, b, x, nul), (int)n);
        check_residual(n, A0, b0, x);
    }
}
END_TEST

START_TEST(test_singular_refused) {
    /* rank 1, and rank n - 1 with the last row the sum of the others */
    const double S2[4] = {1.0, 2.0, 2.0, 4.0}, b[6] = {1, 2, 3, 4, 5, 6};
    const double S3[9] = {1, 2, 3, 4, 5, 6, 5, 7, 9};
    double x[6], A[36];
    int ipiv[6];
    ck_assert_int_eq(nsn_solve2(S2, b, x), NSN_SINGULAR);
    ck_assert_int_eq(nsn_solve3(S3, b, x), NSN_SINGULAR);
    for (size_t i = 0; i < 5; ++i)
        for (size_t j = 0; j < 6; ++j) A[i * 6 + j] = urand();
    for (size_t j = 0; j < 6; ++j) {
        A[30 + j] = 0.0;
        for (size_t i = 0; i < 5; ++i) A[30 + j] += A[i * 6 + j];
    }
    double B[36], y[6], nul[6];
    memcpy(B, A, sizeof B);
    memcpy(y, b, sizeof y);
    ck_assert_int_eq(nsn_solve(6, B, y, ipiv), NSN_SINGULAR);
    memcpy(B, A, sizeof B);
    memcpy(y, b, sizeof y);
    ck_assert_int_eq(nsn_lu_solve(6, B, 6, y, 1e-14, 0.0), NSN_SINGULAR);
    /* consistent right-hand side (b = A x0): rank 5, A nul = 0 */
    double x0[6], bc[6];
    for (size_t i = 0; i < 6; ++i) x0[i] = urand();
    for (size_t i = 0; i < 6; ++i) {
        bc[i] = 0.0;
        for (size_t j = 0; j < 6; ++j) bc[i] += A[i * 6 + j] * x0[j];
    }
    memcpy(B, A, sizeof B);
    ck_assert_int_eq(nsn_gauss_complete(6, B, 6, bc, y, nul), 5);
    for (size_t i = 0; i < 6; ++i) {
        double s = 0.0;
        for (size_t j = 0; j < 6; ++j) s += A[i * 6 + j] * nul[j];
        ck_assert(fabs(s) < 1e-12);
    }
    /* inconsistent right-hand side: -1 */
    memcpy(B, A, sizeof B);
    memcpy(y, b, sizeof y);
    ck_assert_int_eq(nsn_gauss_complete(6, B, 6, y, x, nul), -1);
}
END_TEST

/* nsn_least_norm and nsn_null_space on random matrices of rank r < n
 * (A = U V^T, U, V n x r random): the minimum-norm solution of a
 * consistent A x = b solves it and is orthogonal to the null space, whose
 * basis (n - r vectors) is orthonormal with A Z = 0; the rank is
 * reported; full-rank systems give the unique solution. */
START_TEST(test_least_norm) {
    enum { NMAX = 9 };
    double work_ln[NMAX * NMAX + 1024], work_ns[3 * NMAX * NMAX + 2048];
    int jpvt[NMAX];
    for (int trial = 0; trial < 40; ++trial) {
        size_t n = 2 + (size_t)(trial % 8), r = 1 + (size_t)trial % n; /* r = n: full rank */
        ck_assert_uint_le(nsn_least_norm_work(n), sizeof work_ln / sizeof *work_ln);
        ck_assert_uint_le(nsn_null_space_work(n), sizeof work_ns / sizeof *work_ns);
        double U[NMAX * NMAX], V[NMAX * NMAX], A[NMAX * NMAX], B[NMAX * NMAX], x0[NMAX], b[NMAX],
            x[NMAX], Z[NMAX * NMAX];
        for (size_t i = 0; i < n * r; ++i) U[i] = urand() - 0.5, V[i] = urand() - 0.5;
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n; ++j) {
                A[i * n + j] = 0.0;
                for (size_t k = 0; k < r; ++k) A[i * n + j] += U[i * r + k] * V[j * r + k];
            }
        for (size_t i = 0; i < n; ++i) x0[i] = urand() - 0.5;
        for (size_t i = 0; i < n; ++i) {
            b[i] = 0.0;
            for (size_t j = 0; j < n; ++j) b[i] += A[i * n + j] * x0[j];
            x[i] = b[i];
        }
        int rank = nsn_least_norm(n, A, x, 1e-10, work_ln, sizeof work_ln / sizeof *work_ln, jpvt);
        ck_assert_int_eq(rank, (int)r);
        for (size_t i = 0; i < n; ++i) {
            double s = -b[i];
            for (size_t j = 0; j < n; ++j) s += A[i * n + j] * x[j];
            ck_assert_msg(fabs(s) < 1e-12, "n %zu r %zu: residual %g", n, r, s);
        }
        memcpy(B, A, n * n * sizeof *A);
        int d = nsn_null_space(n, B, 1e-10, Z, work_ns, sizeof work_ns / sizeof *work_ns);
        ck_assert_int_eq(d, (int)(n - r));
        for (int a = 0; a < d; ++a) {
            double xz = 0.0;
            for (size_t i = 0; i < n; ++i) xz += x[i] * Z[a * n + i];
            ck_assert_msg(fabs(xz) < 1e-12, "x not orthogonal to null(A): %g", xz);
            for (int c = 0; c < d; ++c) {
                double zz = 0.0;
                for (size_t i = 0; i < n; ++i) zz += Z[a * n + i] * Z[c * n + i];
                ck_assert(fabs(zz - (a == c)) < 1e-12);
            }
            for (size_t i = 0; i < n; ++i) {
                double s = 0.0;
                for (size_t j = 0; j < n; ++j) s += A[i * n + j] * Z[a * n + j];
                ck_assert(fabs(s) < 1e-12);
            }
        }
        if (r == n)
            for (size_t i = 0; i < n; ++i) ck_assert(fabs(x[i] - x0[i]) < 1e-8);
    }
}
END_TEST

/* Random symmetric positive definite 3x3 block: L L^T + 0.1 I. */
static void random_spd(double A[9]) {
    double L[9] = {0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j <= i; ++j) L[3 * i + j] = urand();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = i == j ? 0.1 : 0.0;
            for (int k = 0; k < 3; ++k) s += L[3 * i + k] * L[3 * j + k];
            A[3 * i + j] = s;
        }
}

/* The Coulomb conditions at (r, w = A r + b), to tol of the scale. */
static void check_coulomb(const double A[9], const double b[3], double mu, unsigned nt,
                          const double r[3]) {
    double w[3];
    for (int i = 0; i < 3; ++i)
        w[i] = A[3 * i] * r[0] + A[3 * i + 1] * r[1] + A[3 * i + 2] * r[2] + b[i];
    const double us = fabs(b[0]) + fabs(b[1]) + fabs(b[2]) + 1e-300;
    const double rs = fabs(r[0]) + fabs(r[1]) + fabs(r[2]) + 1e-300, tol = 1e-9;
    const double rt = hypot(r[1], nt == 2 ? r[2] : 0.0);
    const double wt = hypot(nt >= 1 ? w[1] : 0.0, nt == 2 ? w[2] : 0.0);
    ck_assert_msg(r[0] >= -tol * rs, "r_n = %g < 0", r[0]);
    ck_assert_msg(w[0] >= -tol * us, "w_n = %g < 0 (penetrating)", w[0]);
    ck_assert_msg(fabs(r[0] * w[0]) <= tol * rs * us, "r_n w_n = %g != 0", r[0] * w[0]);
    if (nt == 0) {
        ck_assert(r[1] == 0.0 && r[2] == 0.0);
        return;
    }
    if (nt == 1) ck_assert(r[2] == 0.0);
    ck_assert_msg(rt <= mu * r[0] + tol * rs, "|r_T| = %g > mu r_n = %g", rt, mu * r[0]);
    if (wt > tol * us) { /* sliding: on the cone's edge, opposite the slip */
        ck_assert_msg(fabs(rt - mu * r[0]) <= tol * rs, "slides inside the cone");
        const double dot = r[1] * w[1] + (nt == 2 ? r[2] * w[2] : 0.0);
        ck_assert_msg(dot <= -(1.0 - 1e-6) * rt * wt, "friction not opposite the slip");
    }
}

/* The workspace sizes (dense.c, a formula so that sizing loads no LAPACK)
 * against LAPACK's own optimal-lwork query, which they must not undercut
 * (then LAPACK takes the same path and blocks as with the query's size,
 * the same bits): n = 1..160, past every block size crossover. */
START_TEST(test_work_bounds) {
    for (lapack_int n = 1; n <= 160; ++n) {
        double q = 0.0, dummy = 0.0;
        lapack_int rank = 0, jpvt = 0;
        ck_assert_int_eq(LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, n, n, 1, &dummy, n, &dummy, n, &jpvt,
                                             0.1, &rank, &q, -1),
                         0);
        size_t nn = (size_t)n * (size_t)n;
        ck_assert_msg(nsn_least_norm_work((size_t)n) >= nn + (size_t)q + 1,
                      "least_norm n=%d: %zu < %zu", (int)n, nsn_least_norm_work((size_t)n),
                      nn + (size_t)q + 1);
        ck_assert_int_eq(LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'N', n, n, &dummy, n, &dummy,
                                             &dummy, n, &dummy, 1, &q, -1),
                         0);
        ck_assert_msg(nsn_null_space_work((size_t)n) >= nn + (size_t)n + (size_t)q + 1,
                      "null_space n=%d: %zu < %zu", (int)n, nsn_null_space_work((size_t)n),
                      nn + (size_t)n + (size_t)q + 1);
    }
}
END_TEST

START_TEST(test_coulomb_local) {
    int solved = 0, total = 0;
    for (int trial = 0; trial < 6000; ++trial) {
        double A[9], b[3], r[3] = {0.0, 0.0, 0.0};
        random_spd(A);
        for (int i = 0; i < 3; ++i) b[i] = urand();
        const unsigned nt = (unsigned)(trial % 3);
        const double mu = nt ? 1.5 * fabs(urand()) : 0.0;
        ++total;
        if (nsn_coulomb_local(A, b, mu, nt, r) != 0) continue;
        ++solved;
        check_coulomb(A, b, mu, nt, r);
    }
    /* Painleve-type blocks are rare for SPD blocks with mu <= 1.5 */
    ck_assert_msg(solved >= total * 99 / 100, "solved %d of %d", solved, total);
    /* decoupled block, closed form: sphere (m = 1, J/m b^2 = 0.4): G = diag(1, 3.5, 3.5) */
    const double G[9] = {1, 0, 0, 0, 3.5, 0, 0, 0, 3.5}, u[3] = {-2.0, 1.0, 0.0};
    double P[3] = {0, 0, 0};
    ck_assert_int_eq(nsn_coulomb_local(G, u, 0.1, 2, P), 0);
    ck_assert(fabs(P[0] - 2.0) < 1e-14 && fabs(P[1] + 0.2) < 1e-14 && fabs(P[2]) < 1e-14);
}
END_TEST

/* NSGS: local = the Coulomb solver; converge when a sweep changes nothing. */
typedef struct coulomb_ctx {
    const double *mu;
    unsigned nt;
} coulomb_ctx;
static int local_coulomb(void *ctx, size_t c, const double A[9], const double b[3], double r[3]) {
    const coulomb_ctx *cc = ctx;
    return nsn_coulomb_local(A, b, cc->mu[c], cc->nt, r);
}
static int check_change(void *ctx, const nsn_sweep *s, const double *P) {
    (void)P;
    return s->change2 <= *(const double *)ctx ? 1 : 0;
}

START_TEST(test_nsgs) {
    /* two frictionless contacts, coupled: D = [[2, .5], [.5, 1]] on the
     * normal rows, q_n = (-1, -1): both close, P = D^-1 (1, 1) */
    double D[36] = {0}, q[6] = {-1, 0, 0, -1, 0, 0}, P[6] = {0};
    D[0] = 2.0, D[3] = D[18] = 0.5, D[21] = 1.0;
    for (int i = 0; i < 6; ++i)
        if (i % 3) D[6 * i + i] = 1.0;
    const double mu[2] = {0.0, 0.0}, tol2 = 1e-30;
    coulomb_ctx cc = {mu, 0};
    const nsn_nsgs_problem p = {2, D, q, NULL, local_coulomb, &cc};
    int sweeps = 0;
    ck_assert_int_eq(nsn_nsgs(&p, P, 1.0, 200, check_change, (void *)&tol2, &sweeps), 1);
    const double det = 2.0 - 0.25;
    ck_assert(fabs(P[0] - (1.0 - 0.5) / det) < 1e-14);
    ck_assert(fabs(P[3] - (2.0 - 0.5) / det) < 1e-14);
    /* decoupled: converged after the second sweep (the first solves, the
     * second changes nothing) */
    D[3] = D[18] = 0.0;
    memset(P, 0, sizeof P);
    sweeps = 0;
    ck_assert_int_eq(nsn_nsgs(&p, P, 1.0, 200, check_change, (void *)&tol2, &sweeps), 1);
    ck_assert_int_eq(sweeps, 2);
    ck_assert(P[0] == 0.5 && P[3] == 1.0);
}
END_TEST

typedef struct roots_seen {
    double th[16];
    size_t n;
} roots_seen;
static int keep_root(void *ctx, double th) {
    roots_seen *r = ctx;
    if (r->n < 16) r->th[r->n++] = th;
    return 0;
}
static double f_cos(void *ctx, double th) { return cos(th) - *(const double *)ctx; }
static double f_sin2(void *ctx, double th) {
    (void)ctx;
    return sin(2.0 * th + 0.3);
}

START_TEST(test_angle_roots) {
    const double c = 0.3;
    roots_seen r = {{0}, 0};
    ck_assert_uint_eq(
        nsn_angle_roots(f_cos, (void *)&c, 0.0, 2 * PI, 360, 1, 60, 1e-15, keep_root, &r), 2);
    ck_assert(fabs(r.th[0] - acos(c)) < 1e-14);
    ck_assert(fabs(r.th[1] - (2 * PI - acos(c))) < 1e-14);
    /* sin(2 th + 0.3): four roots (k pi - 0.3) / 2 in [0, 2 pi) */
    r.n = 0;
    ck_assert_uint_eq(nsn_angle_roots(f_sin2, NULL, 0.0, 2 * PI, 100, 1, 80, 1e-15, keep_root, &r),
                      4);
    for (size_t k = 0; k < 4; ++k) ck_assert(fabs(r.th[k] - ((k + 1) * PI - 0.3) / 2) < 1e-13);
}
END_TEST

/* out = M lambda + a, M 3 x 2 */
static int affine(void *ctx, const double *lam, double *out) {
    const double *M = ctx;
    for (int i = 0; i < 3; ++i) out[i] = M[2 * i] * lam[0] + M[2 * i + 1] * lam[1] + 7.0;
    return 0;
}

START_TEST(test_affine_columns) {
    const double M[6] = {1, 2, 3, 4, 5, 6};
    double lam[2] = {0, 0}, base[3], out[3], cols[6];
    const size_t slots[2] = {1, 0};
    affine((void *)M, lam, base);
    ck_assert_int_eq(nsn_affine_columns(affine, (void *)M, lam, slots, 2, base, 3, out, cols), 0);
    for (int i = 0; i < 3; ++i) {
        ck_assert(cols[i] == M[2 * i + 1]);
        ck_assert(cols[3 + i] == M[2 * i]);
    }
    ck_assert(lam[0] == 0.0 && lam[1] == 0.0);
}
END_TEST

/* nsn_eigenvalues: A = V D V^-1 with D a rotation-scaling block (a
 * complex pair r e^(+-i phi)) and two real eigenvalues, V random: the
 * eigenvalues come back to 1e-12 of the largest. */
START_TEST(test_eigenvalues) {
    unsigned long long st = 12345;
    for (int trial = 0; trial < 50; ++trial) {
        double u[5];
        for (int i = 0; i < 5; ++i) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            u[i] = (double)(st >> 11) / 9007199254740992.0;
        }
        double r = 0.2 + u[0], phi = 0.1 + 2.5 * u[1], l1 = u[2] - 0.5, l2 = 2.0 * u[3] - 1.0;
        double D[16] = {r * cos(phi),
                        -r * sin(phi),
                        0,
                        0,
                        r * sin(phi),
                        r * cos(phi),
                        0,
                        0,
                        0,
                        0,
                        l1,
                        0,
                        0,
                        0,
                        0,
                        l2};
        double V[16], Vi[16], A[16], T[16];
        for (int i = 0; i < 16; ++i) { /* V = I + small random: well conditioned */
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            V[i] = (i % 5 == 0 ? 1.0 : 0.0) + 0.3 * ((double)(st >> 11) / 9007199254740992.0 - 0.5);
        }
        /* V^-1 column by column */
        for (int c = 0; c < 4; ++c) {
            double M[16], b[4] = {0, 0, 0, 0};
            int ipiv[4];
            memcpy(M, V, sizeof M);
            b[c] = 1.0;
            ck_assert_int_eq(nsn_solve(4, M, b, ipiv), NSN_OK);
            for (int i = 0; i < 4; ++i) Vi[i * 4 + c] = b[i];
        }
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                T[i * 4 + j] = 0.0;
                for (int k = 0; k < 4; ++k) T[i * 4 + j] += D[i * 4 + k] * Vi[k * 4 + j];
            }
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                A[i * 4 + j] = 0.0;
                for (int k = 0; k < 4; ++k) A[i * 4 + j] += V[i * 4 + k] * T[k * 4 + j];
            }
        double wr[4], wi[4], work[16];
        ck_assert_int_eq(nsn_eigenvalues(4, A, wr, wi, work), NSN_OK);
        const double er[4] = {r * cos(phi), r * cos(phi), l1, l2};
        const double ei[4] = {r * sin(phi), -r * sin(phi), 0, 0};
        for (int k = 0; k < 4; ++k) { /* each expected one is found */
            double d = HUGE_VAL;
            for (int j = 0; j < 4; ++j) d = fmin(d, hypot(wr[j] - er[k], wi[j] - ei[k]));
            ck_assert_msg(d < 1e-12, "trial %d: eigenvalue %g%+gi missed by %g", trial, er[k],
                          ei[k], d);
        }
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("numeric");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_closed_forms);
    tcase_add_test(tc, test_random_systems);
    tcase_add_test(tc, test_singular_refused);
    tcase_add_test(tc, test_least_norm);
    tcase_add_test(tc, test_work_bounds);
    tcase_add_test(tc, test_coulomb_local);
    tcase_add_test(tc, test_nsgs);
    tcase_add_test(tc, test_angle_roots);
    tcase_add_test(tc, test_affine_columns);
    tcase_add_test(tc, test_eigenvalues);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
