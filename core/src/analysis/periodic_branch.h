/* Continuation of a periodic orbit along a parameter ([periodic.continuation]):
 * natural-parameter steps with a secant predictor, Newton at each value
 * (periodic.h), the multipliers along the branch, and the points where
 * they cross the unit circle marked: a real multiplier through +1 (a fold
 * or a branch point), through -1 (period doubling), a complex pair
 * (Neimark-Sacker). The branch stops where Newton fails; past a fold
 * natural continuation cannot follow it (the message says so). */
#ifndef NSD_PERIODIC_BRANCH_H
#define NSD_PERIODIC_BRANCH_H

#include <stdio.h>

#include "periodic_config.h"

/* What a branch leaves for a summary over several branches: per point
 * (np) the first parameter, convergence, stability, period, largest
 * |multiplier| and the report channels (np x nr, row-major). */
typedef struct nsd_branch_summary {
    size_t np, nr;
    double *p, *period, *max_mu, *rep;
    int *converged, *stable;
    /* The rest of continuation.csv (nsd_periodic_branch fills them; the
     * host API's branch in memory): per point whether it was solved (a
     * row of the CSV), its n_par parameter values, Newton's residual, the
     * multipliers' error, the k free states after the section and the k
     * multipliers (np x k, row-major), the crossing marked there; and
     * the period and stability as Newton left them, converged or not. */
    size_t n_par, k;
    int *solved, *stable_raw;
    double *par, *residual, *mu_error, *x, *mu_re, *mu_im, *period_raw;
    char (*mark)[160];
} nsd_branch_summary;
void nsd_branch_summary_free(nsd_branch_summary *sum);

/* Continue from the converged orbit r of scenario s (at the config's
 * parameter value) over pc->values; continuation.csv and
 * continuation.<fmt> into dir (NULL: no files), and the points into *sum
 * (NULL: not wanted). Returns the number of converged points, or -1 with err when an
 * output could not be written. */
int nsd_periodic_branch(nsd_scenario *s, const nsd_periodic_config *pc,
                        const nsd_periodic_result *r, const char *dir, FILE *progress,
                        nsd_branch_summary *sum, char *err, size_t err_len);

#endif
