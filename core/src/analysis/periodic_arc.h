/* Pseudo-arclength continuation of periodic orbits ([periodic.continuation]
 * method = "arclength"; docs/periodic.md "Arclength continuation").
 *
 * Unknowns u = (x, p): the free entries of the state after the section
 * and one real parameter of the config, both scaled (x_i / scale_i,
 * p / p_scale with p_scale = |to - from|). A branch is the curve
 * F(u) = P(x; p) - x = 0 (P: the section map of periodic.h, run on a
 * scenario derived at p). From a point u with unit tangent t (the null
 * vector of [dF/dx dF/dp], oriented along the previous one) the predictor
 * is u + ds t; the corrector is Newton on
 *     F(u) = 0,   t . (u - u_pred) = 0
 * (Keller's pseudo-arclength condition), so the branch is followed round
 * folds, where dF/dx is singular but [dF/dx dF/dp; t^T] is not. The
 * Jacobian is the central differences of periodic.c's map (2 k + 2 runs)
 * at each converged point, kept (chord Newton) while the corrector
 * converges, refreshed when it stalls.
 *
 * At each point: the multipliers (eigenvalues of dP/dx), the period, and
 * the events of one period (impacts, closes, opens, sticks, slips: the
 * event-driven runner's log, run.h nsd_event_counts). Between two points
 *  - a change of those counts (a new impact: grazing; a sticking or
 *    sliding phase starting or ending) is a non-smooth bifurcation;
 *  - a real multiplier through -1 is a period doubling, a complex pair
 *    through the unit circle a Neimark-Sacker point, a sign change of
 *    dp/ds a fold;
 * each is located by bisection along the arclength (the corrector at
 * intermediate steps from the earlier point) until the parameter is known
 * to locate_tol, and reported with the orbit there.
 *
 * Branch switching at a period doubling: at the located point x*, with
 * w the eigenvector of dP/dx for mu = -1, the period-2k orbits are the
 * fixed points of P^2 near x* + eps w (a pitchfork of P^2 whose new
 * branch is tangent to (w, 0)); the new branch (crossings doubled) starts
 * with the predictor x* + ds w at p* and is continued the same way. A
 * period-2k point whose map of k crossings already returns (the orbit of
 * the branch below counted twice) ends the branch: it has collapsed onto
 * the branch it came from. Repeated, this traces the cascade; from three
 * doublings p_1, p_2, p_3 the Feigenbaum ratio
 *     delta = (p_2 - p_1) / (p_3 - p_2)
 * and the accumulation point p_inf = p_3 + (p_3 - p_2) / (delta - 1)
 * are reported (Feigenbaum's delta = 4.6692... holds asymptotically; early
 * ratios differ). */
#ifndef NSD_PERIODIC_ARC_H
#define NSD_PERIODIC_ARC_H

#include <stdio.h>

#include "periodic_config.h"

enum { NSD_ARC_MAX_BRANCHES = 8, NSD_ARC_MAX_SPECIAL = 64 };

typedef struct nsd_arc_config {
    double from, to;           /* the parameter's range: a branch ends where it leaves it */
    double ds, ds_min, ds_max; /* scaled arclength steps */
    int max_points;            /* per branch */
    double locate_tol;         /* located points: the parameter to this (absolute) */
    int doublings;             /* period doublings to switch at (0: none) */
    int brute_n, brute_transient, brute_record; /* brute-force overlay: values, periods */
} nsd_arc_config;

/* Whether [periodic.continuation] asks for arclength (method key). */
int nsd_arc_wanted(const nsd_periodic_config *pc);

/* Read the arclength keys of [periodic.continuation]. Returns the number
 * of errors (in diag, at file:line:col). */
size_t nsd_arc_read(const nsd_periodic_config *pc, nsd_arc_config *ac, nsd_diag *diag);

typedef enum nsd_arc_kind {
    NSD_ARC_FOLD,
    NSD_ARC_PD,
    NSD_ARC_NS,
    NSD_ARC_NONSMOOTH, /* the event counts of a period changed */
    NSD_ARC_COLLAPSE,  /* a period-2k branch returned onto the period-k one */
    NSD_ARC_KIND_COUNT
} nsd_arc_kind;

typedef struct nsd_arc_special {
    nsd_arc_kind kind;
    int branch;          /* index of the branch it was found on */
    size_t crossings;    /* the branch's crossings per period */
    double p;            /* located parameter value */
    double p_err;        /* the bracket's half width: |p| is known to this */
    double x;            /* the first free state there (after the section) */
    double mu_re, mu_im; /* the critical multiplier there (NaN: none) */
    char text[640];
} nsd_arc_special;

typedef struct nsd_arc_outcome {
    int complete;   /* 0: a branch ended on bad input or a Newton failure */
    char why[1024]; /* the first such end */
    size_t n_branches, n_points;
    size_t n_special;
    nsd_arc_special special[NSD_ARC_MAX_SPECIAL];
    double feigenbaum, p_inf; /* NaN when fewer than three doublings */
    unsigned long long map_evals, rhs_evals;
} nsd_arc_outcome;

/* Continue the converged orbit r of scenario s (at the config's value of
 * the parameter): branches.csv, special.csv and bifurcation.<fmt> into
 * dir, what happened into *out. Returns 0 (see out->complete), or -1
 * with err when an output could not be written. */
int nsd_periodic_arclength(nsd_scenario *s, const nsd_periodic_config *pc, const nsd_arc_config *ac,
                           const nsd_periodic_result *r, const char *dir, FILE *progress,
                           nsd_arc_outcome *out, char *err, size_t err_len);

#endif
