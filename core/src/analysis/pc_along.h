/* The critical friction coefficients of the PC half-plane (pc_map.h) along
 * a parameter that changes the geometry (the rimless wheel's or the rocking
 * block's beta, Barjau & Batlle 2022, Sec. 6 and Appendix A): the config's
 * [pcmap] table
 *
 *   [pcmap]
 *   along = "system.beta"   # a real parameter of the system, contact or friction law
 *   from = 10.0
 *   to = 85.0
 *   steps = 151             # samples, from and to included (2 .. 10001)
 *
 * Each sample is the config with the value set (a scenario derived from
 * it), analysed at its initial state. Where mu_DP appears or vanishes
 * (beta_DP, Sec. 6) and where it crosses mu_c (PC_c on the Q_b vertical:
 * the edge of the SP-DP area, Fig. 19), the parameter is refined by
 * bisection to 1e-12 of the range. */
#ifndef NSD_PC_ALONG_H
#define NSD_PC_ALONG_H

#include "scenario.h"

enum { NSD_PC_ALONG_MAX_MARKS = 16 };

typedef struct nsd_pc_along {
    char section[16], key[64];
    double from, to;
    size_t n; /* samples; 0: the config has no [pcmap] along */
    double *par, *lambda, *mu_dp, *mu_c, *mu_inf, *mu_i; /* n each */
    size_t n_marks;
    struct {
        const char *what; /* "mu_DP appears", "mu_DP vanishes", "mu_DP = mu_c" */
        double at;        /* parameter value */
        double mu;        /* mu_DP there (0 where it appears or vanishes) */
    } marks[NSD_PC_ALONG_MAX_MARKS];
} nsd_pc_along;

/* Read [pcmap] of s's config into a (a->n = 0 without one). Returns the
 * number of errors, in diag at their keys. */
size_t nsd_pc_along_read(const nsd_scenario *s, nsd_pc_along *a, nsd_diag *diag);

/* The samples and the marks. Returns 0, or the number of errors in diag (a
 * value the config refuses, or a geometry without a PC map, at the [pcmap]
 * key that led to it). */
size_t nsd_pc_along_compute(const nsd_scenario *s, nsd_pc_along *a, nsd_diag *diag);

void nsd_pc_along_free(nsd_pc_along *a);

#endif
