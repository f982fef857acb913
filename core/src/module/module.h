/* Modules: the parts of the host that need a heavy library (PLplot, SQLite, HDF5,
 * MPI, LAPACK), each its own shared object beside libnsdyn
 * (libnsdyn_NAME.so), opened with dlopen the first time a command uses it.
 * `nsdyn run` without graphs then maps none of those libraries (issue 26;
 * bench/bench_startup.py, docs/architecture.md "Modules").
 *
 * A module exports one symbol, `nsd_module_table`: a struct that begins
 * with an nsd_module_head and goes on with the module's functions (the
 * narrow table the core calls through; the forwarders beside each caller's
 * layer: plot/plot_module.c, module/lapack_module.c, study/sweep_modules.c).
 * Lookup: $NSDYN_MODULE_DIR when set, else the folder libnsdyn itself was
 * loaded from. */
#ifndef NSD_MODULE_H
#define NSD_MODULE_H

#include <stddef.h>

typedef struct {
    const char *name; /* "plot", "lapack", ... : must be the name asked for */
    unsigned abi;     /* the table's layout version, NSD_MODULE_ABI_<NAME> */
} nsd_module_head;

/* The module `name`'s table, loaded on first use (thread-safe; later calls
 * return the same table). NULL when the module cannot be opened or is not
 * what the core expects; then `err` (when not NULL) says which file, why
 * (dlerror's words: a missing library is named there) and what needs the
 * module (`needed_for`, e.g. "graphs"). */
const void *nsd_module_get(const char *name, unsigned abi, const char *needed_for, char *err,
                           size_t err_len);

/* The table of `name` if it is already loaded, else NULL; never loads.
 * For calls that only make sense on objects a loaded module made. */
const void *nsd_module_loaded(const char *name);

#endif
