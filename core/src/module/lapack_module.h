/* The LAPACK module's table (module.h): libnsdyn_lapack.so holds
 * nsdyn_numeric's dense_lapack.c (LAPACKE, hence LAPACK, BLAS and, on
 * Debian, possibly OpenBLAS with libgfortran and libquadmath); libnsdyn
 * forwards the nsn_ functions below to it (lapack_module.c). Their
 * workspace sizes (nsn_least_norm_work, nsn_null_space_work) need no
 * LAPACK: core/numeric/dense.c. */
#ifndef NSD_LAPACK_MODULE_H
#define NSD_LAPACK_MODULE_H

#include <stddef.h>

#include "module.h"

#define NSD_MODULE_ABI_LAPACK 1u

typedef struct {
    nsd_module_head head; /* {"lapack", NSD_MODULE_ABI_LAPACK} */
    int (*solve)(size_t n, double *A, double *b, int *ipiv);
    int (*eigenvalues)(size_t n, double *A, double *wr, double *wi, double *work);
    int (*least_norm)(size_t n, const double *A, double *b, double rcond, double *work,
                      size_t work_len, int *jpvt);
    int (*null_space)(size_t n, double *A, double rcond, double *Z, double *work, size_t work_len);
} nsd_lapack_table;

#endif
