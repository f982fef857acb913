/* The Percussion-Centre half-plane of a planar body with two contact
 * candidates Q_f, Q_b (Barjau & Batlle 2022, Sec. 3-6, Appendices A-B;
 * ../shared/papers/rimless-wheel-percussion-centre-impact.txt), built from
 * the contact geometry (points, normals) and the host's affine response
 * (the Delassus block W M^-1 W^T of the four rows n_f, t_f, n_b, t_b), not
 * from any system's closed form.
 *
 * Frame of the map: origin at the centre of mass G (found as the PC of a
 * pure couple of contact impulses), x along the ground (forward: from Q_b
 * to Q_f), y along the normal of Q_f (up); "vertical" and "horizontal" are
 * the paper's (normal to and along the ground). A PC J of an impulse P at
 * a contact is the body point whose velocity the impulse does not change:
 * from the velocity changes of the two contact points (a planar rigid
 * motion), dw = ((dv_b - dv_f) . z x d)/|d|^2, J = Q_f + z x dv_f / dw.
 *
 * Critical friction coefficients, from the Delassus entries (forward
 * sliding: an impulse (P_n, P_t) = (1, -mu) at Q_f, t forward; the paper's
 * kappa = -mu, (A.4)):
 *   mu_c   = G_tf,nf / G_tf,tf        slip constant ((4.1), (A.5));
 *   mu_i   = G_nf,nf / G_nf,tf        dv_nf = 0: jamb above it ((A.6));
 *   mu_dp  = G_nb,nf / G_nb,tf        dv_nb = 0: initial DP below it
 *                                      (forward sliding, App. A);
 *   mu_dpb = -G_nb,nf / G_nb,tf       backward sliding: DP above it;
 *   mu_inf                            the forward mu-line parallel to the
 *                                      lambda-line (the PC at infinity,
 *                                      Fig. 23's "mu = tan beta").
 * A value that does not exist (its denominator is zero, or it is negative)
 * is NAN. */
#ifndef NSD_PC_MAP_H
#define NSD_PC_MAP_H

#include "model.h"

typedef struct nsd_pc_point {
    double x, y; /* map frame [m] */
} nsd_pc_point;

typedef struct nsd_pc_analysis {
    size_t f, b;            /* contact indices of Q_f and Q_b */
    double scale;           /* |G Q_f| [m] */
    double lambda_eff;      /* the lambda-line's distance from G along -GQ_f, / |G Q_f| */
    nsd_pc_point G, Qf, Qb; /* G at the origin */
    double ground_y;        /* the ground line y = ground_y (through Q_f) */
    double ef[2];           /* unit vector G -> Q_f */
    double D[16];           /* Delassus rows/cols (n_f, t_f, n_b, t_b), t forward [1/kg] */
    double mu_c, mu_i, mu_dp, mu_dpb, mu_inf;
    nsd_pc_point A;         /* PC without friction (lambda-line on the horizontal G-line) */
    nsd_pc_point B;         /* lambda-line on the vertical Q_b-line (NAN if parallel) */
    nsd_pc_point pc_c;      /* critical PC: on the lambda-line and the ground line */
    nsd_pc_point pc_c_conj; /* conjugated critical PC (backward sliding at mu_c) */
    double asymptote_y;     /* horizontal asymptote of the hyperbola of PC'_c [m] */
} nsd_pc_analysis;

/* Analyse the model at (t, y): the two unilateral planar candidates with
 * the smallest gaps are Q_f (the one approaching faster, else the one
 * ahead along the tangent) and Q_b. 0, or -1 with a reason (fewer than two
 * planar candidates, a contact frame that is not a rigid body's, a
 * singular response). */
int nsd_pc_analyse(const nsd_model *m, nsd_data *data, double t, const double *y,
                   nsd_pc_analysis *out, char *err, size_t err_len);

/* The PC of an impulse (1, kappa) (normal, forward tangent) at Q_f; 0, or
 * -1 when the impulse passes through G (the PC is at infinity). */
int nsd_pc_of_impulse(const nsd_pc_analysis *a, double kappa, nsd_pc_point *J);

/* The conjugated critical PC of the lambda-line at distance d from G
 * (lambda = d / |G Q_f|): a point of the hyperbola (4.2); -1 if none. */
int nsd_pc_conjugate(const nsd_pc_analysis *a, double d, nsd_pc_point *J);

/* The critical coefficients of the lambda-line at distance d from G (the
 * family of parallel lambda-lines, Fig. 7: lambda = d / |G Q_f|), read off
 * the geometry as the paper does: mu_c from PC_c (on the ground line),
 * mu_dp from B (on the vertical Q_b-line), mu_i from the lambda-line on the
 * vertical Q_f-line, each as the slope y/x of the forward mu-line through
 * G. NAN where the point does not exist or the value is negative. */
void nsd_pc_critical_at(const nsd_pc_analysis *a, double d, double *mu_c, double *mu_dp,
                        double *mu_i);

#endif
