/* Small dense solves without allocation (nsdyn_numeric.h). The arithmetic
 * of each routine is that of the code it replaces, operation for operation,
 * so its callers' results do not change: nsn_solve3 is moreau_fc.h's
 * Cramer stick solve, nsn_lu_solve impact.c's solve() and the host's
 * nsd_solve_small(), nsn_gauss_complete impact.c's enumeration solver. */
#include <float.h>
#include <math.h>

#include "nsdyn_numeric.h"

/* |det| above a few hundred roundings of its terms (relative test: the
 * scale of A cancels). */
#define NSN_DET_SLACK (1e3 * DBL_EPSILON)

int nsn_solve2(const double A[4], const double b[2], double x[2]) {
    const double a00 = A[0], a01 = A[1], a10 = A[2], a11 = A[3];
    const double det = a00 * a11 - a01 * a10;
    if (!(fabs(det) > NSN_DET_SLACK * (fabs(a00 * a11) + fabs(a01 * a10)))) return NSN_SINGULAR;
    const double idet = 1.0 / det, b0 = b[0], b1 = b[1];
    x[0] = (a11 * b0 - a01 * b1) * idet;
    x[1] = (a00 * b1 - a10 * b0) * idet;
    return NSN_OK;
}

int nsn_solve3(const double A[9], const double b[3], double x[3]) {
    /* cofactors c_ij of A; inverse = adj / det, adj_ij = c_ji */
    const double c00 = A[4] * A[8] - A[5] * A[7];
    const double c01 = A[5] * A[6] - A[3] * A[8];
    const double c02 = A[3] * A[7] - A[4] * A[6];
    const double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
    const double dscale = fabs(A[0] * c00) + fabs(A[1] * c01) + fabs(A[2] * c02);
    if (!(fabs(det) > NSN_DET_SLACK * dscale)) return NSN_SINGULAR;
    const double c10 = A[2] * A[7] - A[1] * A[8];
    const double c11 = A[0] * A[8] - A[2] * A[6];
    const double c12 = A[1] * A[6] - A[0] * A[7];
    const double c20 = A[1] * A[5] - A[2] * A[4];
    const double c21 = A[2] * A[3] - A[0] * A[5];
    const double c22 = A[0] * A[4] - A[1] * A[3];
    const double idet = 1.0 / det, b0 = b[0], b1 = b[1], b2 = b[2];
    x[0] = (c00 * b0 + c10 * b1 + c20 * b2) * idet;
    x[1] = (c01 * b0 + c11 * b1 + c21 * b2) * idet;
    x[2] = (c02 * b0 + c12 * b1 + c22 * b2) * idet;
    return NSN_OK;
}

static void swap_d(double *a, double *b) {
    double t = *a;
    *a = *b;
    *b = t;
}

int nsn_lu_solve(size_t n, double *A, size_t lda, double *b, double rtol, double atol) {
    double scale = 0.0;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) scale = fmax(scale, fabs(A[i * lda + j]));
    const double floor = fmax(rtol * scale, atol);
    for (size_t col = 0; col < n; ++col) {
        size_t piv = col;
        for (size_t r = col + 1; r < n; ++r)
            if (fabs(A[r * lda + col]) > fabs(A[piv * lda + col])) piv = r;
        if (!(fabs(A[piv * lda + col]) > floor)) return NSN_SINGULAR;
        if (piv != col) {
            for (size_t c = col; c < n; ++c) swap_d(&A[col * lda + c], &A[piv * lda + c]);
            swap_d(&b[col], &b[piv]);
        }
        for (size_t r = col + 1; r < n; ++r) {
            double f = A[r * lda + col] / A[col * lda + col];
            for (size_t c = col; c < n; ++c) A[r * lda + c] -= f * A[col * lda + c];
            b[r] -= f * b[col];
        }
    }
    for (size_t r = n; r-- > 0;) {
        double s = b[r];
        for (size_t c = r + 1; c < n; ++c) s -= A[r * lda + c] * b[c];
        b[r] = s / A[r * lda + r];
    }
    return NSN_OK;
}

/* Largest |A_ij| over the trailing block from (r, r): its position. */
static double gc_pivot(int k, const double *A, size_t lda, int r, int *pi, int *pj) {
    double best = 0.0;
    *pi = *pj = r;
    for (int i = r; i < k; ++i)
        for (int j = r; j < k; ++j)
            if (fabs(A[lda * i + j]) > best) {
                best = fabs(A[lda * i + j]);
                *pi = i;
                *pj = j;
            }
    return best;
}

int nsn_gauss_complete(int k, double *A, size_t lda, double *b, double *x, double *nul) {
    int col[NSN_GC_MAX];
    double amax = 0.0, bmax = 0.0, y[NSN_GC_MAX], yn[NSN_GC_MAX];
    if (k > NSN_GC_MAX) return -1;
    for (int i = 0; i < k; ++i) {
        col[i] = i;
        bmax = fmax(bmax, fabs(b[i]));
        for (int j = 0; j < k; ++j) amax = fmax(amax, fabs(A[lda * i + j]));
    }
    int r = 0;
    for (; r < k && amax > 0.0; ++r) {
        int pi, pj;
        if (!(gc_pivot(k, A, lda, r, &pi, &pj) > 1e-12 * amax)) break;
        if (pi != r) {
            for (int j = 0; j < k; ++j) swap_d(&A[lda * r + j], &A[lda * pi + j]);
            swap_d(&b[r], &b[pi]);
        }
        if (pj != r) {
            for (int i = 0; i < k; ++i) swap_d(&A[lda * i + r], &A[lda * i + pj]);
            int t = col[r];
            col[r] = col[pj];
            col[pj] = t;
        }
        for (int i = r + 1; i < k; ++i) {
            double f = A[lda * i + r] / A[lda * r + r];
            for (int j = r; j < k; ++j) A[lda * i + j] -= f * A[lda * r + j];
            b[i] -= f * b[r];
        }
    }
    for (int i = r; i < k; ++i)
        if (!(fabs(b[i]) <= 1e-9 * bmax)) return -1;
    for (int j = 0; j < k; ++j) y[j] = yn[j] = 0.0;
    if (r == k - 1) yn[k - 1] = 1.0;
    for (int i = r - 1; i >= 0; --i) {
        double s = b[i], sn = r == k - 1 ? -A[lda * i + k - 1] : 0.0;
        for (int j = i + 1; j < r; ++j) {
            s -= A[lda * i + j] * y[j];
            sn -= A[lda * i + j] * yn[j];
        }
        y[i] = s / A[lda * i + i];
        yn[i] = sn / A[lda * i + i];
    }
    for (int j = 0; j < k; ++j) {
        x[col[j]] = y[j];
        nul[col[j]] = yn[j];
    }
    return r;
}

/* Workspace sizes for nsn_least_norm and nsn_null_space from LAPACK's own
 * formulas for the optimal lwork, with every block size NB (ILAENV: 32 for
 * dgeqrf, dgerqf, dormqr, dormrq, dgebrd and dorgbr in reference LAPACK,
 * which OpenBLAS ships) taken as NSN_LAPACK_NB. No LAPACK call, so sizing
 * loads no library. A workspace at least the optimal one makes LAPACK pick
 * the same path and blocking as its own query would, hence the same bits;
 * test_numeric checks these bounds against the query (test_work_bounds).
 * Were NB ever larger, LAPACK would shrink its blocks to fit: the same
 * solution up to rounding, never a wrong one. */
#define NSN_LAPACK_NB 64

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

size_t nsn_least_norm_work(size_t n) {
    if (n == 0) return 1;
    /* dgelsy, M = N = n, NRHS = 1: LWKOPT = max(LWKMIN, MN + 2N + NB(N + 1),
     * 2MN + NB NRHS), LWKMIN = MN + max(2MN, N + 1, MN + NRHS); plus the
     * n x n column-major copy of A */
    const size_t nb = NSN_LAPACK_NB;
    size_t lwork = max3(n + max3(2 * n, n + 1, n + 1), 3 * n + nb * (n + 1), 2 * n + nb);
    return n * n + lwork + 1;
}

size_t nsn_null_space_work(size_t n) {
    if (n == 0) return 1;
    /* dgesvd, JOBU = 'A', JOBVT = 'N', square: the QR path (taken for n = 1)
     * needs n^2 + max(n + n NB (dgeqrf, dorgqr), 3n + 2n NB (dgebrd),
     * 3n + n NB (dorgbr), 5n (dbdsqr)), the direct path 3n + max(2n NB, 5n):
     * both below n^2 + 3n + 2n NB + 5n. Plus the left singular vectors
     * (n x n) and the singular values (n). */
    const size_t nb = NSN_LAPACK_NB;
    return n * n + n + (n * n + 8 * n + 2 * n * nb) + 1;
}
