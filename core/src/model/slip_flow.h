/* The tangential flow of a 2-D Coulomb contact near Sigma = {u_t = 0}
 * (Antali & Stepan, towed-wheel paper, equation (3)): slipping in
 * direction d(phi) = (cos phi, sin phi), u_t' = a - F_k G d, with a the
 * free tangential acceleration [m/s^2], G = W_t M^-1 W_t^T (row-major
 * 2x2) [1/kg] and F_k the kinetic friction force [N]. Its radial component
 * R(phi) = <u_t', d> and its angular component V(phi) = <u_t', d_perp>
 * [m/s^2]: roots of V are the limit directions, R > 0 there means the slip
 * grows. Used by the event-driven modes (the direction a 2-D stick starts
 * to slip in) and by the limit-direction analysis (analysis/). */
#ifndef NSD_SLIP_FLOW_H
#define NSD_SLIP_FLOW_H

#include <math.h>

static inline void nsd_slip_flow(const double a[2], const double G[4], double F_kinetic, double phi,
                                 double *ux, double *uy) {
    double dx = cos(phi), dy = sin(phi);
    *ux = a[0] - F_kinetic * (G[0] * dx + G[1] * dy);
    *uy = a[1] - F_kinetic * (G[2] * dx + G[3] * dy);
}

static inline double nsd_slip_flow_R(const double a[2], const double G[4], double F_kinetic,
                                     double phi) {
    double ux, uy;
    nsd_slip_flow(a, G, F_kinetic, phi, &ux, &uy);
    return ux * cos(phi) + uy * sin(phi);
}

static inline double nsd_slip_flow_V(const double a[2], const double G[4], double F_kinetic,
                                     double phi) {
    double ux, uy;
    nsd_slip_flow(a, G, F_kinetic, phi, &ux, &uy);
    return -ux * sin(phi) + uy * cos(phi);
}

#endif
