/* The graphs of runs and comparisons, built on plot.h: time series,
 * phase portraits and strobe pictures of the system drawing itself. */
#ifndef NSD_FIGURES_H
#define NSD_FIGURES_H

#include "config.h"
#include "figure_keys.h"
#include "model.h"
#include "plot.h"
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
 * -1 with err. `title` heads every graph; `draw` (NULL: none) is the data
 * of the run whose system draws the snapshots (its own instance). */
int nsd_figures_write(const char *dir, const nsd_config *cfg, const char *title,
                      const nsd_data *draw, const nsd_figure_run *runs, size_t n_runs,
                      char ***written, size_t *n_written, char *err, size_t err_len);

/* Check the channel names of [plot] (series, phase, highlight) against the
 * model's channels; errors at the key, with a did-you-mean. */
size_t nsd_figures_check(const nsd_config *cfg, const nsd_model *m, nsd_diag *diag);

/* The channel names a config asks to plot (plot.series), or the system's
 * suggestion. */
size_t nsd_figures_series(const nsd_config *cfg, const nsd_model *m, const char ***names);

/* [plot] legend as an nsd_panel legend_position: best 5, outside 4, none 6. */
int nsd_figures_legend(const nsd_config *cfg);

/* The same for the one legend of a stack of panels (on the first): best is "above" (7),
 * which keeps every panel as wide as the others. */
int nsd_figures_stack_legend(const nsd_config *cfg);

/* [plot] limits of a channel: 1 with *lo, *hi set, else 0. */
int nsd_figures_limits(const nsd_config *cfg, const char *channel, double *lo, double *hi);

/* The unit of config key section.key (a plugin parameter or a [run] key),
 * "1" when it has none or is not found: for axis labels of swept and
 * continued parameters. */
const char *nsd_figures_key_unit(const nsd_config *cfg, const char *section, const char *key);

/* "label [unit]" for an axis; dimensionless channels get "[1]". */
void nsd_figures_axis_label(const nsd_channel *c, char *buf, size_t len);

#endif
