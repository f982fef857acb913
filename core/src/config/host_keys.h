/* The host's own keys, [run] and [plot] (host_keys.c). */
#ifndef NSD_HOST_KEYS_H
#define NSD_HOST_KEYS_H

#include <stddef.h>

#include "nsdyn/plugin.h"

/* The host's [run] keys, in declaration order: the index of each in
 * nsd_run_decls (host_keys.c declares them by these indices, so a key and its
 * field cannot drift apart). */
enum nsd_run_key {
    NSD_RUN_T_END = 0,
    NSD_RUN_T_START,
    NSD_RUN_OUTPUT_DT,
    NSD_RUN_MAX_SAMPLES,
    NSD_RUN_HOLD_STICK,
    NSD_RUN_PROGRESS,
    NSD_RUN_REST_RATIO,
    NSD_RUN_REST_VELOCITY,
    NSD_RUN_CONTACT_TOLERANCE,
    NSD_RUN_MAX_EVENTS,
    NSD_RUN_ENERGY_AUDIT,
    NSD_RUN_ENERGY_TOLERANCE,
    NSD_RUN_FRICTION_STATES_OPEN, /* issue 12 */
    NSD_RUN_PRECHECK,             /* issue 22 */
    NSD_RUN_PENETRATION_AUDIT,    /* issue 28 */
    NSD_RUN_PENETRATION_TOLERANCE,
    NSD_RUN_TIMEOUT,
    NSD_RUN_MAX_MEMORY,
    NSD_RUN_DATA_FORMAT, /* issue 26: HDF5 output */
    NSD_RUN_KEY_COUNT
};

/* Host-declared keys of [run] and [plot]: the same declaration type the
 * plugins use, so one parser checks both. */
extern const nsdyn_param_decl nsd_run_decls[];
extern const size_t nsd_n_run_decls;
extern const nsdyn_param_decl nsd_plot_decls[];
extern const size_t nsd_n_plot_decls;
/* The keys of [plot.figure.NAME] tables (one figure's overrides, docs/figures.md). */
extern const nsdyn_param_decl nsd_plot_figure_decls[];
extern const size_t nsd_n_plot_figure_decls;

#endif
