/* A config: the TOML tree (with --set overrides applied), the plugins it
 * names resolved against the registry, and every value checked against the
 * declarations of its plugin or of the host. */
#ifndef NSD_CONFIG_H
#define NSD_CONFIG_H

#include "diag.h"
#include "host_keys.h"
#include "overrides.h"
#include "params.h"
#include "plot.h"
#include "plot_figures.h"
#include "registry.h"

typedef struct nsd_section {
    nsdyn_kind kind;
    /* The file's table; when overrides make the section (a plugin the file
     * does not name, or another id) the first override: a place for
     * messages only. NULL when the config has no such section. */
    const nsd_toml_node *table;
    const nsd_toml_node *id;  /* the id's entry (file or override) */
    const nsd_plugin *plugin; /* NULL when absent */
    nsd_params params;
} nsd_section;

/* run.energy_audit, in the order of its choices. */
typedef enum nsd_energy_audit {
    NSD_AUDIT_ERROR = 0,
    NSD_AUDIT_WARN = 1,
    NSD_AUDIT_OFF = 2
} nsd_energy_audit;

/* [run], parsed once (nsd_config_resolve) into typed fields; the help,
 * units and ranges of each are in nsd_run_decls. After a [run] with errors
 * the fields hold the defaults. */
typedef struct nsd_run_settings {
    double t_end, t_start;    /* [s] */
    double output_dt;         /* [s] sampling interval; 0: (t_end - t_start)/2000 */
    double max_samples;       /* [1] most samples of the output grid */
    int hold_stick;           /* persistent contacts held in stick */
    int progress;             /* progress on a terminal */
    double rest_ratio;        /* [1] accumulation rule */
    double rest_velocity;     /* [m/s] zero slip speed */
    double contact_tolerance; /* [m] touching band */
    size_t max_events;        /* contact events before the run fails */
    nsd_energy_audit energy_audit;
    double energy_tolerance;            /* [1] relative energy rise allowed */
    int friction_states_open;           /* integrate friction states while the contact is open */
    int precheck;                       /* the system's kinematics checked before the run */
    nsd_energy_audit penetration_audit; /* time-stepping: the deepest penetration judged */
    double penetration_tolerance;       /* [m] deepest penetration allowed (time-stepping) */
    double timeout;                     /* [s] wall time of a run (0: none) */
    /* Not a [run] key: the host's own choice (a study samples only the
     * channels its summaries read, docs/sweep.md): NULL, every channel;
     * else n_channels flags of the model's channels to sample (t and the
     * states always are), the caller's, read when the run starts. */
    const unsigned char *sample_channels;
    double max_memory_mib; /* [MiB] address space of `nsdyn run` (0: none) */
    int hdf5;              /* data_format "csv+hdf5": timeseries.h5 too */
} nsd_run_settings;

typedef struct nsd_config {
    nsd_toml_doc *doc;  /* the parsed file (owns the source strings) */
    nsd_toml_node root; /* working tree: file + --set values (+ variant) */
    nsd_overrides over; /* laid over root when resolved (overrides.h) */
    /* [initial] as resolved: root's entries, then the overrides; has_initial
     * when there is a table or an override */
    const nsd_toml_node **initial;
    size_t n_initial;
    int has_initial;
    nsd_toml_doc **set_docs; /* documents of --set values (own their sources) */
    size_t n_set_docs;
    int derived; /* a variant: doc and set_docs belong to the base */
    char *path;  /* config file */
    char *title; /* run title for graphs */
    nsd_section system, contact, friction, integrator;
    nsd_params run;            /* host [run] values (run_decls), as written back to run.toml */
    nsd_run_settings settings; /* the same values, typed */
    nsd_params plot;           /* host [plot] values (plot_decls) */
    char **series;             /* plot.series, or NULL for the system's suggestion */
    size_t n_series;
    char **phase; /* plot.phase "x:y" pairs */
    size_t n_phase;
    char **highlight; /* plot.highlight: channels whose nonzero stretches are drawn thick */
    size_t n_highlight;
    int have_series, have_phase, have_highlight;
    /* plot.limits: axis limits [lo, hi] by channel name */
    char **limit_names;
    double (*limits)[2];
    size_t n_limits;
    /* [plot.figure.NAME] / [plot.figure."NAME.K"]: overrides of one figure or of its K-th
       panel (plot_figures.c; applied by output/figure_keys.c) */
    struct nsd_plot_figure *figures;
    size_t n_figures;
} nsd_config;

/* Step 1: parse `path` and apply `--set section.key=value` overrides. */
int nsd_config_read(nsd_config *cfg, const char *path, const char *const *sets, size_t n_sets,
                    nsd_diag *diag);
/* The same from TOML text; `name` stands for the file in messages (the
 * host API, nsdyn/host.h). */
int nsd_config_read_text(nsd_config *cfg, const char *text, const char *name,
                         const char *const *sets, size_t n_sets, nsd_diag *diag);
/* The plugin search path: config plugin_path (relative to the config),
 * NSDYN_PLUGIN_PATH, then the host's own plugin directory. Returns count;
 * caller frees each entry and the array. */
size_t nsd_config_search_path(const nsd_config *cfg, char ***dirs, nsd_diag *diag);
/* Step 2: check every section and resolve its plugin. Returns errors. */
size_t nsd_config_resolve(nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag);
void nsd_config_free(nsd_config *cfg);

/* A copy of cfg's tree with `variant` (a [[variant]] table of the file,
 * or NULL) laid over it (see docs/configs.md): a section whose id changes
 * is replaced, otherwise keys are merged; and base's overrides with `over`
 * (NULL: none) laid over them, kept aside (never written into the tree).
 * The result shares cfg's source strings; resolve it with
 * nsd_config_resolve. */
void nsd_config_derive(nsd_config *out, const nsd_config *base, const nsd_toml_node *variant,
                       const nsd_overrides *over);

/* Split "SECTION.KEY" into section and key; 0 when it names a real
 * parameter of the config's system, contact or friction plugin, else -1
 * (config_param.c). For the keys analyses vary along. */
/* The declaration of the real parameter "SECTION.KEY" (as
 * nsd_config_real_param accepts it), or NULL. */
const nsdyn_param_decl *nsd_config_real_param_decl(const nsd_config *cfg, const char *section,
                                                   const char *key);
int nsd_config_real_param(const nsd_config *cfg, const char *dotted, char *section,
                          size_t section_len, char *key, size_t key_len);

/* [plot] by key name; a key the host does not declare aborts (a host bug). */
double nsd_plot_num(const nsd_config *cfg, const char *key);

#endif
