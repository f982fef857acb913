#define _GNU_SOURCE
#include "app.h"

#include <stdlib.h>
#include <string.h>

static void log_to_stderr(void *ctx, nsdyn_log_level level, const char *message) {
    (void)ctx;
    static const char *const names[] = {"debug", "info", "warning", "error"};
    if (level < NSDYN_LOG_INFO) return;
    fprintf(stderr, "%s: %s\n", names[level <= NSDYN_LOG_ERROR ? level : NSDYN_LOG_ERROR], message);
}

void nsd_host_services(nsdyn_host *host) {
    *host = (nsdyn_host){sizeof *host, NULL, log_to_stderr};
}

size_t nsd_app_load(nsd_app *app, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag) {
    memset(app, 0, sizeof *app);
    nsd_host_services(&app->host);
    if (nsd_config_read(&app->cfg, path, sets, n_sets, diag) != 0) return diag->n ? diag->n : 1;
    char **dirs = NULL;
    size_t before = diag->n;
    size_t n = nsd_config_search_path(&app->cfg, &dirs, diag);
    size_t errors = diag->n - before;
    errors += nsd_registry_scan(&app->reg, (const char *const *)dirs, n, diag);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
    if (errors) return errors;
    errors += nsd_config_resolve(&app->cfg, &app->reg, diag);
    if (!errors) errors += nsd_compose_check(&app->cfg, &app->reg, diag);
    return errors;
}

void nsd_app_free(nsd_app *app) {
    nsd_config_free(&app->cfg);
    nsd_registry_close(&app->reg);
}

size_t nsd_app_scan_default(nsd_registry *reg, nsd_diag *diag) {
    nsd_config empty;
    memset(&empty, 0, sizeof empty);
    char **dirs = NULL;
    size_t n = nsd_config_search_path(&empty, &dirs, diag);
    size_t problems = nsd_registry_scan(reg, (const char *const *)dirs, n, diag);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
    return problems;
}
