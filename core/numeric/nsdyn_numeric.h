/* nsdyn_numeric: the numeric kernels shared by the host and the plugins
 * (static library, built with -fPIC; issue 14). Every function here is
 * stateless, allocates nothing and keeps no globals, so plugins may call it
 * from their hot paths (plugin.h's threading contract).
 *
 *   dense.c        small dense solves: closed forms for 2x2 and 3x3 with a
 *                  singularity test, Gaussian elimination with partial
 *                  pivoting (in place) and with complete pivoting (rank,
 *                  one-dimensional null space)
 *   dense_lapack.c general n: LAPACK's LU (dgetrf/dgetrs through LAPACKE),
 *                  caller-provided pivots; the rank-revealing minimum-norm
 *                  least-squares solve (dgelsy), a null-space basis (dgesvd). In an object of its own, so a
 *                  plugin that does not call nsn_solve() does not pull in
 *                  LAPACK (on Debian liblapack.so.3 may be OpenBLAS, which
 *                  starts a thread pool when loaded).
 *   coulomb.c      the exact one-contact Coulomb solver (velocity level,
 *                  De Saxce's form), tangent dimension 0, 1 or 2
 *   nsgs.c         the non-smooth (block) Gauss-Seidel driver over a
 *                  one-contact solver callback
 *   roots.c        roots of a function of an angle: grid scan + bisection;
 *                  columns of an affine map by probing (M^-1 W^T)
 *
 * Matrices are row-major with a leading dimension (row stride) `lda`.
 */
#ifndef NSDYN_NUMERIC_H
#define NSDYN_NUMERIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { NSN_OK = 0, NSN_SINGULAR = -1 };

/* ---- small dense solves --------------------------------------------------- */

/* A x = b for 2x2 and 3x3 A (row-major, packed: lda 2 and 3) by Cramer's
 * rule. NSN_SINGULAR (x untouched) when |det| <= 1e3 eps times the sum of
 * the magnitudes of det's terms, i.e. A is singular to a few hundred
 * roundings of its own entries. x may alias b. */
int nsn_solve2(const double A[4], const double b[2], double x[2]);
int nsn_solve3(const double A[9], const double b[3], double x[3]);

/* A x = b in place (b receives x), n x n, row stride lda, Gaussian
 * elimination with partial pivoting (row swaps; A is overwritten). Singular
 * (NSN_SINGULAR, b partly reduced) when a pivot is not above
 * max(rtol * max|A_ij|, atol): rtol = 1e-14, atol = 0 is a relative test,
 * rtol = 0, atol = 1e-300 the host's historical absolute one. No
 * allocation, no limit on n. */
int nsn_lu_solve(size_t n, double *A, size_t lda, double *b, double rtol, double atol);

/* A x = b, k x k (k <= NSN_GC_MAX, row stride lda), Gaussian elimination
 * with complete pivoting. Returns the rank (pivots above 1e-12 of the
 * largest |A_ij|), or -1 if the system is inconsistent (a residual row
 * above 1e-9 of max |b|). x gets a solution with the free unknowns zero; if
 * the rank is k - 1, nul gets the null vector (its free unknown one), else
 * zeros. A and b are overwritten. */
#define NSN_GC_MAX 16
int nsn_gauss_complete(int k, double *A, size_t lda, double *b, double *x, double *nul);

/* A x = b in place for any n (b receives x; A is overwritten by its LU
 * factors): n <= 3 by nsn_solve2/3 (A packed, lda = n), larger by LAPACK's
 * dgetrf + dgetrs. `ipiv` (n ints, the caller's) holds the pivots, so no
 * call allocates. Singular (NSN_SINGULAR) when a pivot of U is not above
 * 1e3 eps n max|A_ij|. Row-major A is LAPACK's column-major A^T; the solve
 * uses it as such (dgetrs with 'T'), no transposed copy. */
int nsn_solve(size_t n, double *A, double *b, int *ipiv);

/* The minimum-norm least-squares solution of A x = b (n x n, row-major,
 * packed: lda = n) by LAPACK's dgelsy: QR with column pivoting, the rank r
 * the largest leading block of R whose estimated condition number stays
 * below 1/rcond (a relative test: the scale of A cancels), then a complete
 * orthogonal decomposition of the first r rows, so among all minimisers of
 * |A x - b| the one of least |x| (unique, and for a consistent system an
 * exact solution). A is kept; b receives x. `work` holds work_len >=
 * nsn_least_norm_work(n) doubles (a formula, dense.c: sizing loads no
 * LAPACK) and jpvt n ints (the caller's: no call allocates). Returns the rank r (n: A is non-singular to rcond), or -1 if
 * LAPACK reported an error. */
size_t nsn_least_norm_work(size_t n);
int nsn_least_norm(size_t n, const double *A, double *b, double rcond, double *work,
                   size_t work_len, int *jpvt);

/* An orthonormal basis of the null space of A (n x n, row-major, packed;
 * overwritten) by LAPACK's SVD (dgesvd): the right singular vectors whose
 * singular value is not above rcond times the largest. Z receives them
 * as the first d columns of an n x n column-major array (Z[j n + i] is
 * component i of vector j). `work` holds work_len >=
 * nsn_null_space_work(n) doubles (a formula, dense.c: no LAPACK call). Returns d (0: A has full rank to rcond), or -1 if LAPACK
 * reported an error. */
size_t nsn_null_space_work(size_t n);
int nsn_null_space(size_t n, double *A, double rcond, double *Z, double *work, size_t work_len);

/* Eigenvalues wr + i wi (n each) of a general real n x n matrix (row-major,
 * overwritten), by LAPACK's dgeev (Hessenberg QR, no eigenvectors). `work`
 * holds at least 4 n doubles (the caller's: no call allocates). The
 * eigenvalues come in LAPACK's order; a complex pair is adjacent, positive
 * imaginary part first. Returns NSN_OK, or NSN_SINGULAR when the QR
 * iteration did not converge (then nothing is set). */
int nsn_eigenvalues(size_t n, double *A, double *wr, double *wi, double *work);

/* ---- the one-contact Coulomb problem ------------------------------------- */

/* w = A r + b at one contact (A 3x3 row-major, rows n, t1, t2), find r with
 * De Saxce's Coulomb law with Moreau's velocity-level Signorini condition:
 *   open  r = 0, w_n >= 0;
 *   stick w = 0, |r_T| <= mu r_n;
 *   slide w_n = 0, r_T = -mu r_n w_T / |w_T|.
 * nt: tangent components used, 0 (frictionless), 1 or 2. On entry r holds
 * the previous iterate (a warm start for the 2-D slip angle). Returns 0
 * when a case holds, -1 when none does (singular or non-positive block, a
 * Painleve-like configuration); r then holds the least-violating
 * candidate. The first consistent case wins, in the order open, stick,
 * slide (2-D: Newton from the warm start, then every root of the slip
 * condition, a trigonometric polynomial of degree 2). */
int nsn_coulomb_local(const double A[9], const double b[3], double mu, unsigned nt, double r[3]);

/* Projection onto the cone {|z_T| <= mu z_n}, z_T of nt components. */
void nsn_proj_cone(double z[3], double mu, unsigned nt);

/* ---- non-smooth Gauss-Seidel ---------------------------------------------- */

/* One contact's exact solution with the others frozen: w_c = A r + b.
 * r (3) holds the current iterate on entry and the new one on return.
 * Returns 0, or non-zero when the contact has no solution (then r is what
 * the callback left in it). */
typedef int (*nsn_local_fn)(void *ctx, size_t c, const double A[9], const double b[3], double r[3]);

typedef struct nsn_nsgs_problem {
    size_t m;             /* contacts */
    const double *D;      /* (3m) x (3m) row-major Delassus operator [1/kg] */
    const double *q;      /* 3m local velocities without impulses [m/s] */
    const uint32_t *tdim; /* m tangent dimensions (1 or 2) for the change scale, or NULL (2) */
    nsn_local_fn local;   /* one-contact solver */
    void *ctx;            /* passed to local */
} nsn_nsgs_problem;

/* What one sweep did. */
typedef struct nsn_sweep {
    int sweep;      /* 1, 2, ... over the whole nsn_nsgs call */
    double change;  /* max over contacts of g_c max_k |r_k - old_k| [m/s], g_c the
                           largest used diagonal entry of the contact's block */
    double size;    /* max over contacts of g_c max_k |r_k| [m/s] */
    double change2; /* sum over contacts of |A_c (r - old)|^2 [m^2/s^2] */
    size_t worst;   /* contact with the largest |A_c (r - old)| */
    int moved;      /* an impulse changed */
    int failed;     /* 1 + the last contact whose local solve failed, 0 none */
} nsn_sweep;

/* After each sweep: 1 converged (stop, success), -1 give up, 0 go on. */
typedef int (*nsn_sweep_check_fn)(void *ctx, const nsn_sweep *s, const double *P);

/* Sweep contacts 0 .. m-1, each solved by p->local with the others' current
 * impulses, until check() says stop or max_sweeps are done. With omega < 1
 * each update is under-relaxed, r := old + omega (r_local - old) (the
 * sweep's change and size are those of r_local). P (3m) is the warm start
 * and receives the iterate; *sweeps counts on from its value. Returns 1
 * converged, -1 given up, 0 out of sweeps. */
int nsn_nsgs(const nsn_nsgs_problem *p, double *P, double omega, int max_sweeps,
             nsn_sweep_check_fn check, void *check_ctx, int *sweeps);

/* ---- the response of an affine map: M^-1 W^T by probing ------------------------ */

/* out = f(lambda): an evaluation affine in lambda (a system's dynamics()
 * in the contact forces, architecture.md). Returns 0, or non-zero to stop. */
typedef int (*nsn_affine_fn)(void *ctx, const double *lambda, double *out);

/* Columns of an affine map's linear part at the slots of lambda listed in
 * `slots` (n_sel of them): cols[j * n_out + i] = f(lambda + e_slot_j)_i -
 * base_i, with base = f(lambda) computed by the caller. Exact, not a finite
 * difference, since f is affine. lambda is restored (its slots must be 0 on
 * entry); out (n_out) is scratch. Cost: n_sel evaluations of f, so the
 * caller chooses which columns it needs (moreau: only the contacts in its
 * index set). Returns 0 or f's first non-zero status. */
int nsn_affine_columns(nsn_affine_fn f, void *ctx, double *lambda, const size_t *slots,
                       size_t n_sel, const double *base, size_t n_out, double *out, double *cols);

/* ---- polygons ---------------------------------------------------------------- */

/* The part of the closed polygon (x, y) (n vertices) with a x + b y <= c,
 * into (ox, oy) (room for 2 n vertices): one Sutherland-Hodgman step, exact
 * for a convex polygon (a concave one may keep zero-width bridges along the
 * line, harmless for filling). Returns the number of vertices (0: nothing
 * inside). Used by the plot's window clipping and the PC map's domains. */
size_t nsn_clip_halfplane(size_t n, const double *x, const double *y, double a, double b, double c,
                          double *ox, double *oy);

/* ---- roots of a function of an angle --------------------------------------- */

typedef double (*nsn_angle_fn)(void *ctx, double th);
/* Called for each root found, in increasing order; non-zero stops the scan. */
typedef int (*nsn_root_fn)(void *ctx, double th);

/* Scan f on n_grid equal intervals of [lo, hi]; each interval whose end
 * values have strictly opposite signs is refined by bisection (at most
 * max_bisect halvings, until its width is <= xtol) and its midpoint passed
 * to on_root. An exact zero at a grid point is passed as that point, once
 * (the rest case of the limit directions: V vanishes on the axes).
 * periodic: f(hi) is taken as the value computed at lo (for a 2 pi period:
 * cos and sin of 2 pi are not exactly 1 and 0, so a root at lo could
 * otherwise fall between the two ends), and a zero there is lo's.
 * Returns the number of roots reported. */
size_t nsn_angle_roots(nsn_angle_fn f, void *ctx, double lo, double hi, int n_grid, int periodic,
                       int max_bisect, double xtol, nsn_root_fn on_root, void *root_ctx);

#ifdef __cplusplus
}
#endif
#endif
