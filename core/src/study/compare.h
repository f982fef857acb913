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

/* The errors of one compared channel of a variant against the reference
 * (compare_metrics.c), over the common time base: the reference's samples
 * at which the variant has a sample too (same time to 1e-6 output
 * intervals), so no interpolation enters and the reference against itself
 * is exactly 0; the variant is interpolated linearly only when its grid
 * does not share the reference's (time_base_interpolated). NaN: not
 * computed (a failed variant, a channel it lacks). */
typedef struct nsd_channel_error {
    double rms, max; /* outside the windows of matched events */
    double max_all;  /* over every compared sample, event windows included */
    double final;    /* at the reference's last sample, when the variant has it */
    size_t n, n_masked; /* samples compared; of those, inside event windows */
} nsd_channel_error;

/* nsdyn compare --repeat N: at most this many runs of each variant. */
#define NSD_COMPARE_MAX_REPEAT 100

/* One variant's metrics against the reference. */
typedef struct nsd_variant_metrics {
    int valid;                  /* not failed: errors computed */
    int time_base_interpolated; /* see nsd_channel_error */
    nsd_channel_error *err;     /* per compared channel */
    double *dev; /* |error| per channel and reference row: dev[k * rows + r], NaN where not
                    compared (the deviation graph) */
    /* Events matched by kind and contact, the k-th of a kind with the k-th
     * (the system's switches and stops count as one more kind); time errors
     * over matched events [s]. */
    size_t n_matched, n_unmatched;
    double event_dt_max, event_dt_rms;
    double t_rest, t_stop;         /* first rest event, stop time [s]; NaN: none */
    double energy_start, energy_end; /* the system's energy output [J]; NaN: none */
    double wall_median, wall_min, wall_max; /* over the repeats [s] */
    size_t repeats;
    char config[1024]; /* plugins and resolved parameters, one line */
} nsd_variant_metrics;

/* Compute the metrics of every variant against vars[ref] for the channels
 * names[0 .. nn-1]; walls[i * repeats + j]: wall time of repeat j of
 * variant i. m[i] is filled (free with nsd_compare_metrics_free). Returns
 * 0, -1 when out of memory. */
int nsd_compare_metrics(const variant *vars, size_t nv, size_t ref, const char *const *names,
                        size_t nn, const double *walls, size_t repeats,
                        nsd_variant_metrics *m);
void nsd_compare_metrics_free(nsd_variant_metrics *m, size_t nv);

/* 1 when the variants differ in integrator settings only (the same system,
 * contact and friction laws with the same parameters and initial state):
 * then, and only then, accuracy against cost is a meaningful graph. */
int nsd_compare_numerics_only(const variant *vars, size_t nv, size_t ref);

/* metrics.csv (every column), metrics.md and metrics.tex (the compact
 * table) into dir, and the compact table on stdout unless quiet
 * (compare_table.c). Returns 0, or -1 with err. */
int nsd_compare_write_tables(const char *dir, const variant *vars, size_t nv, size_t ref,
                             const char *const *names, size_t nn, const nsd_variant_metrics *m,
                             int quiet, char ***written, size_t *n_written, char *err,
                             size_t err_len);

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
