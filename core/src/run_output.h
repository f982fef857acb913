/* What a finished run leaves behind, shared by `run` and `compare`. */
#ifndef NSD_RUN_OUTPUT_H
#define NSD_RUN_OUTPUT_H

#include <stdio.h>

#include "config.h"
#include "model.h"
#include "run.h"

/* Data (timeseries.csv, or timeseries.INCOMPLETE.csv after a failure),
 * the run record run.toml and, if `plots`, the graphs, in dir. */
int nsd_write_run_outputs(const char *dir, const nsd_config *cfg, nsd_model *m,
                          const nsd_run_result *res, const char *command_line, int plots,
                          char ***written, size_t *n_written, char *err, size_t err_len);
void nsd_print_run_summary(FILE *out, const char *label, const nsd_run_result *res);

#endif
