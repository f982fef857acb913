/* Dense solves of any size through LAPACKE (Debian liblapacke-dev), in an
 * object of its own: only callers of nsn_solve(), nsn_least_norm(),
 * nsn_null_space() and nsn_eigenvalues() link LAPACK (nsdyn_numeric.h says
 * why). Their workspace sizes are in dense.c, without LAPACK, so a caller
 * can size its buffers at setup without loading LAPACK (libnsdyn opens it
 * as a module on first use: core/src/module/lapack_module.c). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "nsdyn_numeric.h"

int nsn_solve(size_t n, double *A, double *b, int *ipiv) {
    if (n == 0) return NSN_OK;
    if (n == 1) {
        if (!(fabs(A[0]) > 0.0)) return NSN_SINGULAR;
        b[0] /= A[0];
        return NSN_OK;
    }
    if (n == 2) return nsn_solve2(A, b, b);
    if (n == 3) return nsn_solve3(A, b, b);
    double scale = 0.0;
    for (size_t i = 0; i < n * n; ++i) scale = fmax(scale, fabs(A[i]));
    /* LAPACKE_dgesv is dgetrf + dgetrs('N') on a column-major A. Our A is
     * row-major, i.e. column-major A^T: factor A^T = P L U and solve with
     * the transpose ('T'), which is A x = b, without the transposed copy
     * that LAPACKE's row-major path allocates. The _work variants allocate
     * nothing. */
    const lapack_int ln = (lapack_int)n;
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, ln, ln, A, ln, ipiv);
    if (info != 0) return NSN_SINGULAR; /* < 0 cannot happen; > 0 an exact zero pivot */
    const double floor = 1e3 * DBL_EPSILON * (double)n * scale;
    for (size_t i = 0; i < n; ++i)
        if (!(fabs(A[i * n + i]) > floor)) return NSN_SINGULAR;
    info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', ln, 1, A, ln, ipiv, b, ln);
    return info == 0 ? NSN_OK : NSN_SINGULAR;
}

int nsn_eigenvalues(size_t n, double *A, double *wr, double *wi, double *work) {
    if (n == 0) return NSN_OK;
    /* Row-major A is column-major A^T, which has the same eigenvalues. */
    const lapack_int ln = (lapack_int)n;
    double dummy = 0.0;
    lapack_int info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', ln, A, ln, wr, wi, &dummy, 1,
                                         &dummy, 1, work, (lapack_int)(4 * n));
    return info == 0 ? NSN_OK : NSN_SINGULAR;
}

int nsn_least_norm(size_t n, const double *A, double *b, double rcond, double *work,
                   size_t work_len, int *jpvt) {
    if (n == 0) return 0;
    if (work_len <= n * n) return -1;
    /* dgelsy has no transposed mode: A, row-major, is copied column-major. */
    double *a = work;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) a[j * n + i] = A[i * n + j];
    for (size_t j = 0; j < n; ++j) jpvt[j] = 0; /* every column free to move */
    const lapack_int ln = (lapack_int)n;
    lapack_int rank = 0;
    lapack_int lwork = (lapack_int)(work_len - n * n);
    lapack_int info = LAPACKE_dgelsy_work(LAPACK_COL_MAJOR, ln, ln, 1, a, ln, b, ln, jpvt, rcond,
                                          &rank, work + n * n, lwork);
    return info == 0 ? (int)rank : -1;
}

int nsn_null_space(size_t n, double *A, double rcond, double *Z, double *work, size_t work_len) {
    if (n == 0) return 0;
    if (work_len <= n * n + n) return -1;
    /* Row-major A is column-major A^T = U S V^T, so A = V S U^T: the right
     * singular vectors of A are the columns of U, singular values in
     * decreasing order. */
    double *U = work, *s = work + n * n, dummy = 0.0;
    const lapack_int ln = (lapack_int)n;
    lapack_int info =
        LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'N', ln, ln, A, ln, s, U, ln, &dummy, 1,
                            work + n * n + n, (lapack_int)(work_len - n * n - n));
    if (info != 0) return -1;
    size_t rank = 0;
    while (rank < n && s[rank] > rcond * s[0]) ++rank;
    size_t d = n - rank;
    memcpy(Z, U + rank * n, d * n * sizeof *Z);
    return (int)d;
}
