#define _GNU_SOURCE
#include "app.h"
#include "plugin_trust.h"
#include "plugin_record.h"

#include <stdlib.h>
#include <string.h>

static const char *const plugin_sections[] = {"system", "contact", "friction", "integrator"};

/* Open the plugin that section `name` of `table` names, if any. Returns 1
 * if its file cannot be used (reported at the id); counts in *unknown an
 * id that no file declares (nsd_config_resolve reports it). */
static size_t open_named(const nsd_registry *reg, const nsd_toml_node *table, const char *name,
                         size_t *unknown, nsd_diag *diag) {
    const nsd_toml_node *t = nsd_toml_get(table, name);
    const nsd_toml_node *id = t && t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "id") : NULL;
    if (!id || id->type != NSD_TOML_STRING || nsd_registry_find(reg, id->str)) return 0;
    const char *why = nsd_registry_problem(reg, id->str);
    if (!why) {
        (*unknown)++;
        return 0;
    }
    nsd_diag_at(diag, id, "[%s]: cannot use '%s': %s", name, id->str, why);
    return 1;
}

/* Only the shared objects that hold the plugins the config (and its
 * [[variant]]s) names are opened, so only their code runs. */
static size_t open_used(const nsd_app *app, size_t *unknown, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *root = &app->cfg.root;
    for (size_t s = 0; s < NSDYN_COUNT(plugin_sections); ++s)
        errors += open_named(&app->reg, root, plugin_sections[s], unknown, diag);
    const nsd_toml_node *variants = nsd_toml_get(root, "variant");
    if (variants && variants->type == NSD_TOML_ARRAY)
        for (size_t v = 0; v < variants->n_items; ++v)
            if (variants->items[v].type == NSD_TOML_TABLE)
                for (size_t s = 0; s < NSDYN_COUNT(plugin_sections); ++s)
                    errors += open_named(&app->reg, &variants->items[v], plugin_sections[s],
                                         unknown, diag);
    return errors;
}

/* After the config is read: index, open, resolve, check. */
static size_t load_read(nsd_app *app, nsd_diag *diag);

size_t nsd_app_load(nsd_app *app, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag) {
    memset(app, 0, sizeof *app); /* no log service: a scenario gives its run log (scenario.h) */
    if (nsd_config_read(&app->cfg, path, sets, n_sets, diag) != 0) return diag->n ? diag->n : 1;
    return load_read(app, diag);
}

size_t nsd_app_load_text(nsd_app *app, const char *text, const char *name, const char *const *sets,
                         size_t n_sets, nsd_diag *diag) {
    memset(app, 0, sizeof *app);
    if (nsd_config_read_text(&app->cfg, text, name, sets, n_sets, diag) != 0)
        return diag->n ? diag->n : 1;
    return load_read(app, diag);
}

static size_t load_read(nsd_app *app, nsd_diag *diag) {
    char **dirs = NULL;
    size_t before = diag->n;
    size_t n = nsd_config_search_path(&app->cfg, &dirs, diag);
    size_t errors = diag->n - before;
    nsd_registry_index(&app->reg, (const char *const *)dirs, n);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
    if (errors) return errors;
    size_t unknown = 0;
    errors += open_used(app, &unknown, diag);
    if (errors) return errors;
    errors += nsd_config_resolve(&app->cfg, &app->reg, diag);
    /* a record re-run: the plugin files that made it (plugin_record.h) */
    if (!errors) errors += nsd_plugin_check_record(&app->cfg, diag);
    /* An id no file declares: say which shared objects were never opened. */
    if (errors && unknown && app->reg.n_skipped) {
        size_t shown = app->reg.n_skipped < 3 ? app->reg.n_skipped : 3;
        for (size_t i = 0; i < shown; ++i) nsd_diag_add(diag, "note: %s", app->reg.skipped[i]);
        if (shown < app->reg.n_skipped)
            nsd_diag_add(diag,
                         "note: %zu more shared objects were not opened (nsdyn plugins lists them)",
                         app->reg.n_skipped - shown);
    }
    if (!errors) errors += nsd_compose_check(&app->cfg, &app->reg, diag);
    return errors;
}

void nsd_app_free(nsd_app *app) {
    nsd_config_free(&app->cfg);
    nsd_registry_close(&app->reg);
}

static size_t default_path(char ***dirs, nsd_diag *diag) {
    nsd_config empty;
    memset(&empty, 0, sizeof empty);
    return nsd_config_search_path(&empty, dirs, diag);
}

size_t nsd_app_scan_default(nsd_registry *reg, nsd_diag *diag) {
    char **dirs = NULL;
    size_t n = default_path(&dirs, diag);
    size_t problems = nsd_registry_scan(reg, (const char *const *)dirs, n, diag);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
    return problems;
}

void nsd_app_index_default(nsd_registry *reg, nsd_diag *diag) {
    char **dirs = NULL;
    size_t n = default_path(&dirs, diag);
    nsd_registry_index(reg, (const char *const *)dirs, n);
    for (size_t i = 0; i < n; ++i) free(dirs[i]);
    free(dirs);
}
