/* Loading the HDF5 writer (hdf5_api.h) on first use: libnsdyn_hdf5.so, and
 * through it libhdf5, are mapped only into a process that writes HDF5; every
 * other command starts without them (issue 26: start-up time). */
#ifndef NSD_HDF5_LOAD_H
#define NSD_HDF5_LOAD_H

#include "hdf5_api.h"

/* The writer, or NULL with the reason in err (the module missing, or of
 * another version). The module stays loaded for the process. */
const nsd_hdf5_api *nsd_hdf5_load(char *err, size_t err_len);

#endif
