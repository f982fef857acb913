/* The LAPACK module's one export (lapack_module.h), in libnsdyn_lapack.so
 * only: nsdyn_numeric's own LAPACK path, linked from its archive. */
#include "lapack_module.h"
#include "nsdyn_numeric.h"

__attribute__((visibility("default"))) const nsd_lapack_table nsd_module_table = {
    {"lapack", NSD_MODULE_ABI_LAPACK}, nsn_solve, nsn_eigenvalues, nsn_least_norm, nsn_null_space};
