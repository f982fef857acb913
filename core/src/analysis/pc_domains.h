/* The domains of the PC half-plane (Barjau & Batlle 2022, Sec. 4, Figs 12,
 * 18-20; ../shared/papers/rimless-wheel-percussion-centre-impact.txt), from
 * the signs of the incremental motions of one single-point phase: the
 * impulse at Q_f turns the body about its PC J by dw, so a point S changes
 * its velocity by dw z x (S - J) (Sec. 4). In the map frame of pc_map.h
 * (G at the origin, x forward along the ground, Q_b behind G, Q_f ahead):
 *   dv_n(G) > 0 always            dw = -dv_n(G)/x: clockwise right of G;
 *   dv_nb = dw (x_b - x) < 0      DP from the start: x_b < x < 0;
 *   dv_nf = dw (x_f - x) < 0      dynamic jamb: 0 < x < x_f;
 *   dv_t  = dw (y - y_g) ... > 0  left of G and above the ground: forward
 *                                 sliding grows between the ground and the
 *                                 horizontal G-line (one phase, Fig. 15a);
 *   backward sliding stops and restarts forwards (reversal) for a PC
 *   between the horizontal G-line and the hyperbola (4.2) of conjugated
 *   critical PCs (Fig. 18);
 *   SP-DP area: between the lambda = 0 line and the lambda-line through
 *   Q_b, outside the DP strip (Fig. 19a): the sticking phase that may follow
 *   pushes Q_b down (dv_nb < 0 at the critical PC), so the impact may end in
 *   DP (Fig. 20). It exists for beta > 45 deg on the rimless wheel.
 * Only the half-plane of PCs is classified: lambda >= 0 (J . e_f <= 0). */
#ifndef NSD_PC_DOMAINS_H
#define NSD_PC_DOMAINS_H

#include "pc_map.h"

enum {
    NSD_PC_DOMAIN_DP = 1,       /* double point from the start */
    NSD_PC_DOMAIN_JAMB = 2,     /* dynamic jamb */
    NSD_PC_DOMAIN_GROWS = 4,    /* single point, forward sliding grows (one phase) */
    NSD_PC_DOMAIN_REVERSAL = 8, /* single point, backward sliding may reverse */
    NSD_PC_DOMAIN_SP_DP = 16,   /* single point that may end in DP */
    NSD_PC_HALF_PLANE = 32      /* lambda >= 0: a PC of some body (all others are 0) */
};
enum { NSD_PC_N_SHADES = 6 };

/* The domains J lies in (a set of the bits above). */
unsigned nsd_pc_domains_at(const nsd_pc_analysis *a, nsd_pc_point J);

/* One shaded area of the map: a union of convex pieces, NaN-separated. */
typedef struct nsd_pc_shade {
    unsigned domains; /* the domain bits every point of it has */
    const char *legend;
    size_t n; /* points in x, y (pieces separated by a NaN) */
    double x[512], y[512];
} nsd_pc_shade;

/* The NSD_PC_N_SHADES areas (DP; jamb; jamb and SP-DP; SP-DP outside the
 * jamb; forward sliding grows; reversal), clipped to the box [x0, x1] x
 * [y0, y1] of the map frame; an area that does not exist has n = 0. */
void nsd_pc_shades(const nsd_pc_analysis *a, double x0, double x1, double y0, double y1,
                   nsd_pc_shade out[NSD_PC_N_SHADES]);

#endif
