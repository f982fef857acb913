/* The affine response of a system to its contact forces: the one place the
 * host probes M^-1 W^T and builds Delassus blocks W M^-1 W^T.
 *
 * A system's dynamics() is affine in the local contact forces lambda
 * (system.h: M v' = f + W^T lambda), so for any base forces lambda_0
 *   v'(lambda_0 + x e_k) = a0 + x C_k,   C_k = v'(lambda_0 + e_k) - a0,
 * exactly (a difference of two affine evaluations, not a finite
 * difference): C_k is the column M^-1 W^T e_k of a unit force on component
 * k. A component is 3 c + a (contact c; a = 0 normal, 1, 2 tangents), the
 * index into lambda and into the Jacobian rows d->W (3 nv per contact),
 * whose rows must have been evaluated (contacts() with W buffers). Used by
 * the stick solver (stick.c), the event-driven modes (modes.c), the
 * mechanics view (mechanics.c) and the analyses (analysis/). Nothing here
 * allocates. */
#ifndef NSD_AFFINE_H
#define NSD_AFFINE_H

#include "model.h"

/* A probe other than a unit force on one component: adds `amount` times
 * the pattern of unknown k to d->lambda (the event-driven modes' normal
 * force of a slipping contact carries its friction force along). */
typedef void (*nsd_affine_probe)(const nsd_model *m, nsd_data *data, size_t k, double amount);

/* The free acceleration at (t, q, v) under the current d->lambda into
 * d->a0 (nv). */
nsdyn_status nsd_affine_base(const nsd_model *m, nsd_data *data, double t, const double *q,
                             const double *v);

/* n columns into cols (n x nv, column j at cols + j nv): the response to
 * probe j minus d->a0 (call nsd_affine_base first, with the same lambda).
 * probe NULL: a unit force on component comp[j] (comp NULL: component j).
 * d->lambda is restored. */
nsdyn_status nsd_affine_columns(const nsd_model *m, nsd_data *data, double t, const double *q,
                                const double *v, size_t n, const size_t *comp,
                                nsd_affine_probe probe, double *cols);

/* Jacobian row of component comp (nv entries). */
static inline const double *nsd_affine_row(const nsd_model *m, nsd_data *data, size_t comp) {
    return data->W + comp * m->nv;
}

/* W_row(comp) . col: the local acceleration of component comp per unit of
 * the probe whose column is col (a Delassus entry). */
double nsd_affine_entry(const nsd_model *m, nsd_data *data, size_t comp, const double *col);

/* The local acceleration of component comp for the velocity derivative
 * vdot: W_row(comp) . vdot + drift [m/s^2]. */
double nsd_affine_local_acc(const nsd_model *m, nsd_data *data, size_t comp, const double *vdot);

/* The Delassus block A (nr x nk, row-major): A[r][k] = W_row(rows[r]) .
 * column k of cols (nv each). */
void nsd_affine_block(const nsd_model *m, nsd_data *data, const size_t *rows, size_t nr,
                      const double *cols, size_t nk, double *A);

#endif
