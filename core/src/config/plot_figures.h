/* [plot.figure.NAME] tables (plot_figures.c, docs/figures.md): one figure's overrides. */
#ifndef NSD_PLOT_FIGURES_H
#define NSD_PLOT_FIGURES_H

#include <stddef.h>

#include "diag.h"
#include "params.h"
#include "toml_adapter.h"

/* One [plot.figure.NAME] table: the figure's file name without extension, the panel
 * (1-based; 0 = the figure and every panel) and its keys (nsd_plot_figure_decls). */
typedef struct nsd_plot_figure {
    char *name;
    size_t panel;
    nsd_params keys;
    const nsd_toml_node *where; /* the table, for messages */
} nsd_plot_figure;

/* The [plot.figure.*] tables of `plot` into *out (n_out of them; free with
 * nsd_plot_figures_free), each checked against nsd_plot_figure_decls (errors at
 * file:line:col). Figure names are checked unless `any_name` (a config with a [sweep], whose
 * graphs the study names; a derived config, checked as its base). Returns the errors. */
size_t nsd_plot_figures_parse(const nsd_toml_node *plot, int any_name, nsd_plot_figure **out,
                              size_t *n_out, nsd_diag *diag);
void nsd_plot_figures_free(nsd_plot_figure *figs, size_t n);

#endif
