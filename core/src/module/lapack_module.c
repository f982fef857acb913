/* nsdyn_numeric's LAPACK functions (nsdyn_numeric.h) as libnsdyn sees them:
 * forwarded to the LAPACK module (lapack_module.h), loaded by the first
 * call. Defining all of them here keeps the archive's dense_lapack.o, and
 * with it LAPACKE, out of libnsdyn (core/numeric/CMakeLists.txt links
 * LAPACKE --as-needed). Without the module every call fails (NSN_SINGULAR,
 * -1) after the loader's reason is printed, so a run stops with an error,
 * never with a made-up solution. */
#include <stdio.h>

#include "lapack_module.h"
#include "nsdyn_numeric.h"

static const nsd_lapack_table *lapack(void) {
    const nsd_lapack_table *t = nsd_module_loaded("lapack");
    if (t) return t;
    char err[1024];
    t = nsd_module_get("lapack", NSD_MODULE_ABI_LAPACK, "dense solves of more than 3 unknowns", err,
                       sizeof err);
    if (!t) fprintf(stderr, "nsdyn: error: %s\n", err);
    return t;
}

int nsn_solve(size_t n, double *A, double *b, int *ipiv) {
    const nsd_lapack_table *t = lapack();
    return t ? t->solve(n, A, b, ipiv) : NSN_SINGULAR;
}

int nsn_eigenvalues(size_t n, double *A, double *wr, double *wi, double *work) {
    const nsd_lapack_table *t = lapack();
    return t ? t->eigenvalues(n, A, wr, wi, work) : NSN_SINGULAR;
}

int nsn_least_norm(size_t n, const double *A, double *b, double rcond, double *work,
                   size_t work_len, int *jpvt) {
    const nsd_lapack_table *t = lapack();
    return t ? t->least_norm(n, A, b, rcond, work, work_len, jpvt) : -1;
}

int nsn_null_space(size_t n, double *A, double rcond, double *Z, double *work, size_t work_len) {
    const nsd_lapack_table *t = lapack();
    return t ? t->null_space(n, A, rcond, Z, work, work_len) : -1;
}
