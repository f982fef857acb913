/* What a finished run leaves behind, shared by `run` and `compare`. */
#ifndef NSD_RUN_OUTPUT_H
#define NSD_RUN_OUTPUT_H

#include <stdio.h>

#include "config.h"
#include "model.h"
#include "run.h"

/* Data (timeseries.csv, or timeseries.INCOMPLETE.csv after a failure),
 * the graphs if `plots`, and the run record run.toml, into dir: a fresh
 * folder of the command's own (outdir.h), put in place once all is written.
 * Returns 0; 1 when a SIGINT/SIGTERM arrived while the outputs of a run
 * that had not failed were written (the record then says so, the data are
 * named INCOMPLETE: the outputs belong in <out>.INCOMPLETE); -1 with err
 * when a write failed. */
int nsd_write_run_outputs(const char *dir, const nsd_config *cfg, nsd_model *m,
                          const nsd_run_result *res, const char *command_line, int plots,
                          char ***written, size_t *n_written, char *err, size_t err_len);
void nsd_print_run_summary(FILE *out, const char *label, const nsd_run_result *res);

#endif
