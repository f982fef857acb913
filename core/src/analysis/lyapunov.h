/* Lyapunov exponents of a trajectory through the Poincare section of
 * [periodic] ([periodic.lyapunov]; docs/periodic.md "Lyapunov exponents").
 *
 * Benettin's method (Benettin, Galgani, Giorgilli & Strelcyn, Meccanica 15
 * (1980) 9-30) on the section map P: after `transient` crossings from the
 * config's initial state, each period the m tangent vectors q_j (scaled
 * free states, orthonormal) are carried by finite differences of the map,
 * (P(x + d0 S q_j) - P(x)) / d0, then orthonormalised again by modified
 * Gram-Schmidt (QR); the exponents are the running means of ln R_jj per
 * unit time (the summed periods). The differences are of the map as the
 * runner computes it: each perturbed run locates its own impacts, so the
 * saltation at every impact is in them (Mueller 1995; the two-trajectory
 * form of Benettin's method, renormalised every period). The section's own
 * direction (time along the flow) has exponent 0 and is not among them.
 *
 * On a stable periodic orbit of period T with multipliers mu_j the
 * exponents tend to ln|mu_j| / T (the test's check); the sum of the m = k
 * exponents is ln|det dP/dx| / T at every period. */
#ifndef NSD_LYAPUNOV_H
#define NSD_LYAPUNOV_H

#include <stdio.h>

#include "periodic_config.h"

typedef struct nsd_lyap_config {
    int transient; /* section crossings before the exponents are measured */
    int periods;   /* crossings measured */
    int count;     /* exponents wanted, 1..n_free */
    double d0;     /* scaled perturbation */
} nsd_lyap_config;

/* Whether [periodic] has a lyapunov table; read it (errors into diag). */
int nsd_lyap_wanted(const nsd_periodic_config *pc);
size_t nsd_lyap_read(const nsd_periodic_config *pc, nsd_lyap_config *lc, nsd_diag *diag);

typedef struct nsd_lyap_result {
    size_t m, n_hist;
    double exponent[16]; /* [1/s], descending */
    double *hist;        /* n_hist x (2 + m): crossing, time [s], running exponents */
    double change;       /* max_j |lambda_j(N) - lambda_j(N/2)|: the convergence shown */
    double time;         /* [s] measured */
    size_t collapses;    /* tangent vectors the map sent to exactly zero (a sticking phase
                            erases every perturbation): their periods are left out of the
                            means, and the command says so */
    unsigned long long map_evals, rhs_evals;
    char message[1024];
} nsd_lyap_result;

/* From the scenario's initial state. 0, or -1 with out->message (a run of
 * the map failed or stopped: the trajectory left the section). */
int nsd_lyapunov(nsd_scenario *s, const nsd_periodic_spec *sp, const nsd_lyap_config *lc,
                 nsd_lyap_result *out, FILE *progress);
void nsd_lyap_result_free(nsd_lyap_result *r);

/* lyapunov.csv and lyapunov.<fmt> (the running exponents against time)
 * into dir. 0 or -1 (err). */
int nsd_lyap_write(const nsd_scenario *s, const nsd_lyap_result *r, const char *dir, char *err,
                   size_t len);

#endif
