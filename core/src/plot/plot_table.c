/* The plot module's one export (plot_module.h), in libnsdyn_plot.so only. */
#include "plot_module.h"

__attribute__((visibility("default"))) const nsd_plot_table nsd_module_table = {
    {"plot", NSD_MODULE_ABI_PLOT}, nsd_plot_write_dpi, nsd_plot_canvas_begin, nsd_plot_canvas_end};
