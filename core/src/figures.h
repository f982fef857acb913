/* The graphs of runs and comparisons, built on plot.h: time series,
 * phase portraits and strobe pictures of the system drawing itself. */
#ifndef NSD_FIGURES_H
#define NSD_FIGURES_H

#include "config.h"
#include "model.h"
#include "run.h"

/* One curve source for overlays: a run's samples under a name. */
typedef struct nsd_figure_run {
    const char *name;
    const nsd_model *model;
    const nsd_run_result *result;
} nsd_figure_run;

/* Write the graphs of one or several runs of the same scenario into dir:
 * timeseries.<ext>, phase.<ext>, and (one run only) snapshots.<ext>.
 * The paths written are appended to *written (caller frees). Returns 0 or
 * -1 with err. `title` heads every graph. */
int nsd_figures_write(const char *dir, const nsd_config *cfg, const char *title,
                      nsd_model *draw_model, const nsd_figure_run *runs, size_t n_runs,
                      char ***written, size_t *n_written, char *err, size_t err_len);

/* Check the channel names of [plot] (series, phase, highlight) against the
 * model's channels; errors at the key, with a did-you-mean. */
size_t nsd_figures_check(const nsd_config *cfg, const nsd_model *m, nsd_diag *diag);

/* The channel names a config asks to plot (plot.series), or the system's
 * suggestion. */
size_t nsd_figures_series(const nsd_config *cfg, const nsd_model *m, const char ***names);

#endif
