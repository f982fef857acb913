/* The domains of the PC half-plane as predicates and as shaded polygons
 * (pc_domains.h). Every area is an intersection of half-planes (a x + b y
 * <= c), with the box or, for the reversal area, the region under the
 * hyperbola (4.2) as the polygon they cut. */
#include "pc_domains.h"

#include <math.h>
#include <string.h>

#include "nsdyn_numeric.h"

enum { N_HYP = 160 };

typedef struct cut {
    double a, b, c; /* keep a x + b y <= c */
} cut;

/* The lambda-line through Q_b is at distance d_b = -Q_b . e_f from G; the
 * SP-DP band 0 <= lambda L <= d_b exists when d_b > 0. */
static double band_d(const nsd_pc_analysis *a) {
    return -(a->Qb.x * a->ef[0] + a->Qb.y * a->ef[1]);
}

unsigned nsd_pc_domains_at(const nsd_pc_analysis *a, nsd_pc_point J) {
    const double d = -(J.x * a->ef[0] + J.y * a->ef[1]), xb = a->Qb.x, xf = a->Qf.x;
    if (!(d >= 0)) return 0;
    unsigned s = NSD_PC_HALF_PLANE;
    if (J.x > xb && J.x < 0) s |= NSD_PC_DOMAIN_DP;
    if (J.x > 0 && J.x < xf) s |= NSD_PC_DOMAIN_JAMB;
    if (J.x < xb && J.y > a->ground_y && J.y < 0) s |= NSD_PC_DOMAIN_GROWS;
    nsd_pc_point C;
    if (J.x < xb && J.y > 0 && nsd_pc_conjugate(a, d, &C) == 0 && J.y < C.y)
        s |= NSD_PC_DOMAIN_REVERSAL;
    if (d < band_d(a) && !(s & NSD_PC_DOMAIN_DP)) s |= NSD_PC_DOMAIN_SP_DP;
    return s;
}

/* Append to sh the polygon (x, y) cut by the n cuts, as one more piece. */
static void add_piece(nsd_pc_shade *sh, const double *x, const double *y, size_t n, const cut *cuts,
                      size_t n_cuts) {
    double bufx[2][4 * N_HYP], bufy[2][4 * N_HYP];
    memcpy(bufx[0], x, n * sizeof *x);
    memcpy(bufy[0], y, n * sizeof *y);
    int k = 0;
    for (size_t i = 0; i < n_cuts && n >= 3; ++i, k ^= 1)
        n = nsn_clip_halfplane(n, bufx[k], bufy[k], cuts[i].a, cuts[i].b, cuts[i].c, bufx[k ^ 1],
                               bufy[k ^ 1]);
    if (n < 3 || sh->n + n + 1 > sizeof sh->x / sizeof sh->x[0]) return;
    if (sh->n) sh->x[sh->n] = sh->y[sh->n] = NAN, sh->n++;
    memcpy(sh->x + sh->n, bufx[k], n * sizeof *sh->x);
    memcpy(sh->y + sh->n, bufy[k], n * sizeof *sh->y);
    sh->n += n;
}

/* The region between the horizontal G-line and the hyperbola of PC'_c,
 * left of G: (0, 0), the hyperbola outwards, back to the G-line. */
static size_t hyperbola_region(const nsd_pc_analysis *a, double reach, double *x, double *y) {
    size_t n = 0;
    x[n] = y[n] = 0, n++;
    for (int i = 1; i <= N_HYP; ++i) {
        nsd_pc_point J;
        /* denser near G, where the curve turns fastest */
        double u = (double)i / N_HYP, d = reach * u * u;
        if (nsd_pc_conjugate(a, d, &J) != 0) continue;
        x[n] = J.x, y[n] = J.y, n++;
    }
    x[n] = x[n - 1], y[n] = 0, n++;
    return n;
}

void nsd_pc_shades(const nsd_pc_analysis *a, double x0, double x1, double y0, double y1,
                   nsd_pc_shade out[NSD_PC_N_SHADES]) {
    static const char *const legends[NSD_PC_N_SHADES] = {
        "DP from the start (dv_nb < 0)",        "dynamic jamb (dv_nf < 0)",
        "jamb, then possibly DP (SP-DP area)",  "SP-DP area: SP, possibly DP after sticking",
        "SP: forward sliding grows, one phase", "SP: backward sliding may reverse"};
    static const unsigned doms[NSD_PC_N_SHADES] = {
        NSD_PC_DOMAIN_DP,    NSD_PC_DOMAIN_JAMB,  NSD_PC_DOMAIN_JAMB | NSD_PC_DOMAIN_SP_DP,
        NSD_PC_DOMAIN_SP_DP, NSD_PC_DOMAIN_GROWS, NSD_PC_DOMAIN_REVERSAL};
    for (int i = 0; i < NSD_PC_N_SHADES; ++i)
        out[i] = (nsd_pc_shade){.domains = doms[i] | NSD_PC_HALF_PLANE, .legend = legends[i]};
    const double bx[4] = {x0, x1, x1, x0}, by[4] = {y0, y0, y1, y1};
    const double xb = a->Qb.x, xf = a->Qf.x, yg = a->ground_y, db = band_d(a);
    const cut half = {a->ef[0], a->ef[1], 0}, in_band = {-a->ef[0], -a->ef[1], db},
              out_band = {a->ef[0], a->ef[1], -db};
    const cut right_of_b = {-1, 0, -xb}, left_of_g = {1, 0, 0}, right_of_g = {-1, 0, 0},
              left_of_f = {1, 0, xf}, left_of_b = {1, 0, xb}, right_of_f = {-1, 0, -xf},
              above_ground = {0, -1, -yg}, below_g = {0, 1, 0};
    const int band = db > 0;
    add_piece(&out[0], bx, by, 4, (cut[]){half, right_of_b, left_of_g}, 3);
    add_piece(&out[1], bx, by, 4, (cut[]){half, right_of_g, left_of_f, out_band}, band ? 4 : 3);
    if (band) {
        add_piece(&out[2], bx, by, 4, (cut[]){half, in_band, right_of_g, left_of_f}, 4);
        add_piece(&out[3], bx, by, 4, (cut[]){half, in_band, left_of_b}, 3);
        add_piece(&out[3], bx, by, 4, (cut[]){half, in_band, right_of_f}, 3);
    }
    add_piece(&out[4], bx, by, 4, (cut[]){half, left_of_b, above_ground, below_g}, 4);
    double hx[N_HYP + 2], hy[N_HYP + 2];
    size_t nh = hyperbola_region(a, 4 * (fabs(x0) + fabs(x1) + fabs(y0) + fabs(y1)), hx, hy);
    if (nh >= 3) {
        const cut box[4] = {{-1, 0, -x0}, {1, 0, x1}, {0, -1, -y0}, {0, 1, y1}};
        add_piece(&out[5], hx, hy, nh, (cut[]){half, left_of_b, box[0], box[1], box[2], box[3]}, 6);
    }
}
