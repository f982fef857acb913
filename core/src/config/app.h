/* Loading a config the way every command does: read and override, build
 * the plugin search path, index it (no plugin code runs), open and check
 * only the plugins the config and its variants name, resolve and check
 * the composition. */
#ifndef NSD_APP_H
#define NSD_APP_H

#include "compose.h"
#include "config.h"
#include "nsdyn/nsdyn.h"
#include "registry.h"

typedef struct nsd_app {
    nsd_registry reg;
    nsd_config cfg;
    /* The services handed to the plugins: none after load; the scenario
     * sets its run log (scenario.h) unless the caller set a log first. */
    nsdyn_host host;
} nsd_app;

/* Returns the number of errors (reported in diag). */
size_t nsd_app_load(nsd_app *app, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag);
/* The same from TOML text named `name` (the host API). */
size_t nsd_app_load_text(nsd_app *app, const char *text, const char *name, const char *const *sets,
                         size_t n_sets, nsd_diag *diag);
void nsd_app_free(nsd_app *app);

/* NSDYN_PLUGIN_PATH and the host's own directory, with every shared
 * object opened and checked (`nsdyn plugins`). Returns the problems. */
size_t nsd_app_scan_default(nsd_registry *reg, nsd_diag *diag);
/* The same path, indexed only (`nsdyn describe`: find() then opens just
 * the file of the id asked for). */
void nsd_app_index_default(nsd_registry *reg, nsd_diag *diag);

#endif
