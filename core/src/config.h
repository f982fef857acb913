/* A config: the TOML tree (with --set overrides applied), the plugins it
 * names resolved against the registry, and every value checked against the
 * declarations of its plugin or of the host. */
#ifndef NSD_CONFIG_H
#define NSD_CONFIG_H

#include "diag.h"
#include "params.h"
#include "plot.h"
#include "registry.h"

typedef struct nsd_section {
    nsdyn_kind kind;
    const nsd_toml_node *table; /* NULL when the config has no such section */
    const nsd_plugin *plugin;   /* NULL when absent */
    nsd_params params;
} nsd_section;

typedef struct nsd_config {
    nsd_toml_doc *doc;       /* the parsed file (owns the source strings) */
    nsd_toml_node root;      /* working tree: file + overrides (+ variant) */
    nsd_toml_doc **set_docs; /* documents of --set values (own their sources) */
    size_t n_set_docs;
    int derived; /* a variant: doc and set_docs belong to the base */
    char *path;  /* config file */
    char *title; /* run title for graphs */
    nsd_section system, contact, friction, integrator;
    nsd_params run;  /* host [run] values (run_decls) */
    nsd_params plot; /* host [plot] values (plot_decls) */
    char **series;   /* plot.series, or NULL for the system's suggestion */
    size_t n_series;
    char **phase; /* plot.phase "x:y" pairs */
    size_t n_phase;
    char **highlight; /* plot.highlight: channels whose nonzero stretches are drawn thick */
    size_t n_highlight;
    int have_series, have_phase, have_highlight;
} nsd_config;

/* Host-declared keys of [run] and [plot]: the same declaration type the
 * plugins use, so one parser checks both. */
extern const nsdyn_param_decl nsd_run_decls[];
extern const size_t nsd_n_run_decls;
extern const nsdyn_param_decl nsd_plot_decls[];
extern const size_t nsd_n_plot_decls;

/* Step 1: parse `path` and apply `--set section.key=value` overrides. */
int nsd_config_read(nsd_config *cfg, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag);
/* The plugin search path: config plugin_path (relative to the config),
 * NSDYN_PLUGIN_PATH, then the host's own plugin directory. Returns count;
 * caller frees each entry and the array. */
size_t nsd_config_search_path(const nsd_config *cfg, char ***dirs, nsd_diag *diag);
/* Step 2: check every section and resolve its plugin. Returns errors. */
size_t nsd_config_resolve(nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag);
void nsd_config_free(nsd_config *cfg);

/* A copy of cfg's tree with `variant` laid over it (see docs/configs.md):
 * a section whose id changes is replaced, otherwise keys are merged. The
 * result shares cfg's source strings; resolve it with nsd_config_resolve. */
void nsd_config_derive(nsd_config *out, const nsd_config *base, const nsd_toml_node *variant);

/* Convenience accessors for [run] and [plot]. */
double nsd_run_num(const nsd_config *cfg, const char *key);
double nsd_plot_num(const nsd_config *cfg, const char *key);

#endif
