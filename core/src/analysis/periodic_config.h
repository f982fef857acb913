/* The [periodic] section of a config (docs/configs.md): the Poincare
 * section, the free states, the Newton settings and an optional
 * continuation along a parameter, checked against the created model. */
#ifndef NSD_PERIODIC_CONFIG_H
#define NSD_PERIODIC_CONFIG_H

#include "diag.h"
#include "periodic.h"

enum { NSD_PERIODIC_MAX_PAR = 4 };

typedef struct nsd_periodic_config {
    nsd_periodic_spec spec;
    int verify;                        /* periods of the repeat check after Newton */
    const nsd_toml_node *table;        /* [periodic] */
    const nsd_toml_node *section_node; /* its 'section' key */
    /* [periodic.continuation]: parameters "SECTION.KEY" set together to
     * each row of `values` (n_values x n_par, row-major). */
    const nsd_toml_node *cont;
    size_t n_par;
    char cont_section[NSD_PERIODIC_MAX_PAR][16], cont_key[NSD_PERIODIC_MAX_PAR][64];
    double *values;
    size_t n_values;
    /* report: channels read at the end of a run of two periods from the
     * orbit (gait metrics a system updates at its section) */
    size_t n_report;
    size_t *report; /* channel indices */
} nsd_periodic_config;

/* Read and check [periodic] against the created model m. Returns the
 * number of errors (in diag, at file:line:col); free pc in any case. */
size_t nsd_periodic_read(const nsd_config *cfg, const nsd_model *m, nsd_periodic_config *pc,
                         nsd_diag *diag);
void nsd_periodic_config_free(nsd_periodic_config *pc);

#endif
