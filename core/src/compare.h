/* nsdyn compare, shared between the command (cmd_compare.c) and the
 * summary of variants against a parameter (compare_summary.c). */
#ifndef NSD_COMPARE_H
#define NSD_COMPARE_H

#include "config.h"
#include "model.h"
#include "run.h"
#include "scenario.h"

/* One variant: a scenario derived from the base config (the base with the
 * variant laid over it): its config, model and run. */
typedef struct variant {
    const char *name;
    nsd_scenario sc;
} variant;

/* The [compare] table's keys, checked for form here; the ones that depend
 * on the plugins (x, summary) are checked against the variants later. */
typedef struct compare_keys {
    const char *reference;
    const nsd_toml_node *channels;
    const nsd_toml_node *x;       /* "section.key" string */
    const nsd_toml_node *x_label; /* string */
    const nsd_toml_node *summary; /* array of channel names */
} compare_keys;

/* [compare].x = "section.key" against one variant's resolved config: the
 * parameters and index of the key. Returns the number of errors (0 or 1). */
size_t nsd_compare_resolve_x(const nsd_toml_node *x, const nsd_config *cfg,
                             const nsd_params **params, int *index, nsd_diag *diag);
/* Every element of [compare].summary must be a channel of the reference. */
size_t nsd_compare_check_summary(const nsd_toml_node *summary, const nsd_model *m,
                                 const char *ref_name, nsd_diag *diag);
/* summary.csv, the printed table and summary.<fmt> (see compare_summary.c).
 * Returns 0, or -1 with err. */
int nsd_compare_write_summary(const char *dir, const nsd_config *cfg, const variant *vars,
                              size_t nv, size_t ref, const compare_keys *ck, const double *x,
                              int plots, char ***written, size_t *n_written, char *err,
                              size_t err_len);

#endif
