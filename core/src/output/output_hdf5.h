/* A run's samples as HDF5 (run.data_format = "csv+hdf5", docs/configs.md),
 * through the writer module loaded on first use (module/module.h). */
#ifndef NSD_OUTPUT_HDF5_H
#define NSD_OUTPUT_HDF5_H

#include "config.h"
#include "model.h"
#include "run.h"

/* Write path (e.g. DIR/timeseries.h5): the samples of rec with the
 * channels' names and units, and the run's metadata (title, nsdyn version,
 * config, command, outcome, message, and the whole run record as
 * "run_toml"). Returns 0, or -1 with the reason in err. */
int nsd_write_hdf5(const char *path, const nsd_config *cfg, const nsd_model *m,
                   const nsd_run_result *rec, const char *command_line, char *err, size_t err_len);

#endif
