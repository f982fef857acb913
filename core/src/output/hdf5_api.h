/* The HDF5 data writer's interface (docs/configs.md): one struct of function
 * pointers, so the writer and libhdf5 live in their own shared object
 * (libnsdyn_hdf5.so, beside libnsdyn) that is loaded only by a run that
 * writes HDF5, through the one module loader (module/module.h). Nothing here
 * names an HDF5 type. */
#ifndef NSD_HDF5_API_H
#define NSD_HDF5_API_H

#include <stddef.h>

#include "module.h"

/* The samples of a run: rows x cols doubles, row-major (a row is one
 * sample time), with each column's channel name and unit. */
typedef struct nsd_h5_samples {
    size_t rows, cols;
    const double *data;
    const char *const *names; /* cols names: each an HDF5 link name (no '/', not ".") */
    const char *const *units; /* cols units, e.g. "m/s" */
} nsd_h5_samples;

/* One text attribute of the file's root group (the run's metadata). */
typedef struct nsd_h5_text {
    const char *name, *value;
} nsd_h5_text;

#define NSD_MODULE_ABI_HDF5 1u
typedef struct nsd_hdf5_api {
    nsd_module_head head; /* {"hdf5", NSD_MODULE_ABI_HDF5} */
    /* Write path (through path.tmp and a rename, as every output): group
     * /timeseries holds one 1-D float64 dataset per channel, in column
     * order, each with attributes "unit" and "column"; the group's
     * attributes "channels" and "units" list them in order; the root group
     * carries the n_meta texts. Returns 0, or -1 with the reason in err (no
     * file left behind). */
    int (*write_samples)(const char *path, const nsd_h5_samples *s, const nsd_h5_text *meta,
                         size_t n_meta, char *err, size_t err_len);
} nsd_hdf5_api;


#endif
