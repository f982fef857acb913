/* Periodic orbits of a composed model through a Poincare section: Newton
 * shooting on the section map, with Floquet multipliers.
 *
 * The section is one of the system's mode switches (the walker's heel
 * strike, the end of its double support). The map P takes a state just
 * after the switch (its reset map applied, the system in the mode the
 * switch leaves it in) to the state just after its `crossings`-th next
 * application. Only the `free` entries of the state are unknowns; the
 * others start at the model's initial values and are not compared (the
 * walker's x_hip, which grows step by step). `swap` relabels the end
 * state (pairs of entries exchanged) before it is compared: the walker's
 * legs change roles every step, so its period-1 gait is a fixed point of
 * P followed by the exchange of the legs.
 *
 * Jacobian ([periodic] jacobian): "differences" (the default) or
 * "variational", one run carrying the variational equations and the
 * saltation matrices of its jumps (periodic_tangent.h), where the system
 * and the run allow it (every jump reproduced, events located). The
 * differences: central finite differences of the whole map, one column per
 * free entry (2 n_free runs). Why they stay the default: the map
 * crosses integrator restarts, located events, the system's reset maps
 * and, for compliant contacts, very stiff short phases; a variational
 * Jacobian needs the system's state Jacobian (the ABI has none) and the
 * saltation matrix of every event on the way. Differences of the map as
 * the runner computes it include all of that, for any system. They are
 * careful in three ways: central (error O(h^2)), a step per entry scaled
 * to that entry (h_i = fd_step max(|x_i|, scale_i)), and a check of the
 * differences' own error (the Jacobian at h and at 2h: their difference
 * estimates the truncation and integrator noise, reported with the
 * multipliers). Set the integrator's tolerances about 100 times below
 * the Newton tolerance: the map is no more accurate than the runs.
 *
 * The multipliers are the eigenvalues of dP/dx on the free entries
 * (LAPACK dgeev). With every entry free but one along the flow, the map's
 * image lies on the section and one multiplier is about 0 (the section's
 * own direction); it says nothing about stability. */
#ifndef NSD_PERIODIC_H
#define NSD_PERIODIC_H

#include <stddef.h>

#include "scenario.h"

enum { NSD_PERIODIC_MAX_ITER = 100 };

/* How dP/dx is computed ([periodic] jacobian). */
typedef enum nsd_periodic_jacobian {
    NSD_PERIODIC_JAC_DIFFERENCES = 0, /* central differences of the whole map (2 n_free runs) */
    NSD_PERIODIC_JAC_VARIATIONAL = 1  /* one run with the variational equations and saltation
                                         matrices (periodic_tangent.h) */
} nsd_periodic_jacobian;

typedef struct nsd_periodic_spec {
    size_t section;   /* index of the system's switch */
    size_t crossings; /* applications of the switch per period, >= 1 */
    size_t n_free;
    size_t *free;   /* n_free state indices (into y) */
    double *scale;  /* n_free typical magnitudes (FD steps, tolerance) */
    size_t n_swap;  /* pairs of state indices exchanged in the end state */
    size_t *swap;   /* 2 n_swap */
    double tol;     /* Newton: max_i |P_i - x_i| / max(|x_i|, scale_i) */
    int max_iter;   /* Newton iterations, <= NSD_PERIODIC_MAX_ITER */
    double fd_step; /* relative finite-difference step */
    nsd_periodic_jacobian jacobian;
    int substeps; /* variational: Magnus steps per integrator step (the check uses twice as many) */
} nsd_periodic_spec;

typedef struct nsd_periodic_result {
    int converged;
    int iterations;
    double residual;                           /* scaled, as tol */
    double history[NSD_PERIODIC_MAX_ITER + 1]; /* residual before each iteration */
    double *y;                 /* n: the full state on the orbit after the section */
    double period;             /* [s] time for `crossings` crossings */
    double *J;                 /* n_free^2 row-major dP/dx */
    double *mult_re, *mult_im; /* n_free multipliers, by modulus descending */
    double jac_error;          /* max |J_h - J_2h| s_j / s_i (scaled); variational: the
                                  Jacobians at substeps and twice as many */
    size_t jac_error_at[2];    /* its row and column (free entries) */
    double mult_error;         /* max over the multipliers of J_h of the distance to the nearest of
                          J_2h's: the multipliers' own error estimate */
    int stable;                /* every multiplier inside the unit circle */
    size_t map_evals;          /* simulations of the map */
    unsigned long long rhs_evals; /* the runs' right-hand sides (variational: with those of the
                                     variational equations and the event functions of the jumps) */
    size_t jumps;                 /* variational: jumps composed in the last Jacobian's run */
    double wall_seconds;
    char message[1024]; /* why it failed */
} nsd_periodic_result;

/* Allocate out's arrays for a model of n states and n_free unknowns. 0 or
 * -1 (out of memory). */
int nsd_periodic_result_init(nsd_periodic_result *out, size_t n, size_t n_free);
void nsd_periodic_result_free(nsd_periodic_result *out);

/* One application of the map from the full state y0 (n): the state after
 * the section into y_end (swap applied), the time into *period. Returns 0,
 * or -1 with why (the run failed, stopped, or ended without crossing the
 * section). The scenario's model and settings are used as they are; its
 * y0 is overwritten. */
int nsd_periodic_map(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y0, double *y_end,
                     double *period, char *why, size_t why_len);

/* nsd_periodic_map with the map's Jacobian on the free entries from the
 * variational equations and saltation matrices (periodic_tangent.h): J
 * (n_free^2 row-major, rows through the swap), with substeps_mult times
 * the spec's Magnus substeps; *rhs_evals grows by the variational
 * equations' evaluations (the run's own are in s->res.stats), *jumps the
 * saltation matrices composed. 0, or -1 with why (a jump the variational
 * equations cannot follow is named there). */
int nsd_periodic_map_tangent(nsd_scenario *s, const nsd_periodic_spec *sp, int substeps_mult,
                             const double *y0, double *y_end, double *period, double *J,
                             unsigned long long *rhs_evals, size_t *jumps, char *why,
                             size_t why_len);

/* Newton from the full state y_guess (n): the orbit, its period and
 * multipliers into out (initialised). Returns 0 when converged, 1 when
 * Newton did not converge (out->history, out->message), -1 when the map
 * cannot be evaluated at the guess (out->message). progress: NULL or a
 * stream for one line per iteration. */
int nsd_periodic_solve(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y_guess,
                       nsd_periodic_result *out, FILE *progress);

/* Run two periods from the orbit's state y and read the channels ch
 * (n) at the end (gait metrics a system updates at the section and that
 * need two crossings, like a step period) into out. 0, or -1 with why. */
int nsd_periodic_report(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y,
                        const size_t *ch, size_t n, double *out, char *why, size_t why_len);

/* Run k more periods from the orbit's state and return the largest scaled
 * deviation of the free entries from it after each (the orbit repeats
 * under plain simulation). -1 when a run fails (why). */
double nsd_periodic_repeat(nsd_scenario *s, const nsd_periodic_spec *sp, const double *y, int k,
                           char *why, size_t why_len);

#endif
