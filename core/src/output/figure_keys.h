/* Every figure through the config's figure keys (figure_keys.c, docs/figures.md). */
#ifndef NSD_FIGURE_KEYS_H
#define NSD_FIGURE_KEYS_H

#include <stddef.h>

#include "config.h"
#include "plot.h"

/* nsd_plot_write with the config's figure keys laid over fig (figure_keys.c): the [plot]
 * size preset (size, dpi, font_pt) and the [plot.figure.NAME] tables of the figure named by
 * path's file name without extension (title, labels, ranges, size; "NAME.K": panel K).
 * Every figure of every command is written through here. */
int nsd_figure_write(const nsd_config *cfg, const char *path, nsd_plot_format fmt,
                     const nsd_figure *fig, char *err, size_t err_len);

#endif
