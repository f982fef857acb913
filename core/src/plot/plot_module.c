/* plot.h's drawing entry points in libnsdyn: forwarded to the plot module
 * (plot_module.h), which is loaded by the first figure written. */
#include <stdio.h>

#include "plot_module.h"

int nsd_plot_write_dpi(const char *path, nsd_plot_format format, const nsd_figure *fig, double dpi,
                       char *err, size_t err_len) {
    char why[1024];
    const nsd_plot_table *t =
        nsd_module_get("plot", NSD_MODULE_ABI_PLOT, "graphs", why, sizeof why);
    if (!t) {
        if (err && err_len) snprintf(err, err_len, "%s", why);
        return -1;
    }
    return t->write(path, format, fig, dpi, err, err_len);
}

int nsd_plot_write(const char *path, nsd_plot_format format, const nsd_figure *fig, char *err,
                   size_t err_len) {
    return nsd_plot_write_dpi(path, format, fig, 0.0, err, err_len);
}

/* Canvases that draw with PLplot exist only once the module is loaded (they
 * are made by its write); on any other canvas both are no-ops (plot.h). */
void nsd_plot_canvas_begin(const nsdyn_canvas *canvas, double opacity) {
    const nsd_plot_table *t = nsd_module_loaded("plot");
    if (t) t->canvas_begin(canvas, opacity);
}

void nsd_plot_canvas_end(const nsdyn_canvas *canvas, const char *label) {
    const nsd_plot_table *t = nsd_module_loaded("plot");
    if (t) t->canvas_end(canvas, label);
}
