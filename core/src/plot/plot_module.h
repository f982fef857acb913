/* The plot module's table (module/module.h): libnsdyn_plot.so holds every
 * plot file that calls PLplot, and exports these entry points of
 * plot.h; libnsdyn forwards to them (plot_module.c), so only a command that
 * draws maps PLplot, cairo and pango. */
#ifndef NSD_PLOT_MODULE_H
#define NSD_PLOT_MODULE_H

#include "module.h"
#include "plot.h"

#define NSD_MODULE_ABI_PLOT 3u /* 2: write takes the PNG's dpi; 3: nsd_figure.fit_height */

typedef struct {
    nsd_module_head head; /* {"plot", NSD_MODULE_ABI_PLOT} */
    int (*write)(const char *path, nsd_plot_format format, const nsd_figure *fig, double dpi,
                 char *err, size_t err_len); /* nsd_plot_write_dpi */
    void (*canvas_begin)(const nsdyn_canvas *canvas, double opacity);
    void (*canvas_end)(const nsdyn_canvas *canvas, const char *label);
} nsd_plot_table;

#endif
