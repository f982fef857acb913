/* Limit directions of a 2-D Coulomb contact at a point of the
 * discontinuity set Sigma = {u_t = 0} (Antali & Stepan, towed-wheel paper,
 * equation (3)).
 *
 * Near Sigma the tangential velocity obeys u_t' = a + G F, with a the free
 * tangential acceleration and G = W_t M^-1 W_t^T, both from the system's
 * affine response (nsd_model_tangent_response). Slipping in direction
 * d(phi) = (cos phi, sin phi) the friction force is F = -F_k d, so
 *   R(phi) = < a - F_k G d, d >        (radial component)
 *   V(phi) = < a - F_k G d, d_perp >   (angular component), d_perp = d(phi + pi/2).
 * Roots of V are the limit directions; R < 0 there means trajectories reach
 * Sigma along it (attracting), R > 0 that they leave it (repelling). The
 * paper's (3) as extracted evaluates V at n(phi + pi/2) twice, which would
 * make V(phi) = R(phi + pi/2); the angular component is what classifies
 * sliding and crossing (docs/towed-wheel.md). */
#ifndef NSD_LIMIT_DIRECTIONS_H
#define NSD_LIMIT_DIRECTIONS_H

#include "model.h"

#define NSD_MAX_LIMIT_DIRS 16

typedef struct nsd_limit_dir {
    double phi;     /* [rad] in [0, 2 pi) */
    double R;       /* radial component there [m/s^2] */
    int attracting; /* R < 0 */
} nsd_limit_dir;

typedef struct nsd_limit_analysis {
    size_t contact;             /* index of the analysed contact */
    double a[2];                /* free tangential acceleration [m/s^2] */
    double G[4];                /* row-major 2x2 [1/kg] */
    double F_kinetic, F_static; /* friction bounds at this normal load [N] */
    double stick_force[2];      /* force that keeps u_t' = 0 [N] */
    double stick_ratio;         /* |stick_force| / F_static */
    size_t n_dirs;
    nsd_limit_dir dirs[NSD_MAX_LIMIT_DIRS];
    int rolling_by_force;      /* stick force inside the friction disc */
    int rolling_by_directions; /* every limit direction attracting */
} nsd_limit_analysis;

/* Analyse the first persistent 2-D contact at (t, y); y must lie on Sigma
 * (|u_t| <= 1e-12). Returns 0, or -1 with a reason. */
int nsd_limit_analyse(const nsd_model *m, nsd_data *data, double t, const double *y,
                      nsd_limit_analysis *out, char *err, size_t err_len);
/* R and V of slip_flow.h at the analysis' a, G, F_kinetic. */
double nsd_limit_R(const nsd_limit_analysis *la, double phi);
double nsd_limit_V(const nsd_limit_analysis *la, double phi);

/* The model's switch check (model.h switch_check): at a stick/slip switch
 * of a persistent 2-D contact, on a state y with its slip projected to
 * zero, 1 if the limit directions agree with the force test, 0 if not,
 * -1 if the analysis does not apply. */
int nsd_limit_switch_check(const nsd_model *m, nsd_data *data, double t, const double *y,
                           size_t contact);

#endif
