/* Benchmark (not a test): the contact solvers of the moreau integrator on
 * the small friction-contact problems of one Moreau-Jean step.
 *
 * Solvers (plugins/integrators/moreau_fc.h):
 *   own nsgs       non-smooth Gauss-Seidel with exact one-contact solves
 *                  (the plugin's solver = "nsgs")
 *   siconos nsgs   fc2d_driver / fc3d_driver, SICONOS_FRICTION_2D_NSGS /
 *                  SICONOS_FRICTION_3D_NSGS with Siconos' default local
 *                  solver (the plugin's solver = "siconos_nsgs")
 *   siconos lemke, siconos enum (2-D), siconos nsn_ac (3-D): for reference.
 *
 * Problems: rigid bodies with h = 1 ms, g = 9.81 m/s^2 downwards:
 *   2d-1 disc      disc (m 1 kg, radius 0.1 m) on the floor
 *   2d-2 ladder    rod (1 kg, 1 m) at 60 deg, floor and wall contacts
 *   3d-1 sphere    sphere (1 kg, radius 0.1 m) on the floor
 *   3d-1 vertex    box (1 kg, 0.6 x 0.4 x 0.2 m) on one vertex
 *                  (normal-tangent coupling in the Delassus block)
 *   3d-2 edge      the box on two vertices (an edge)
 *   3d-4 face      the box flat on four vertices (Delassus 12 x 12 of rank 6:
 *                  impulses not unique, velocities are)
 * Each problem has N instances: velocities drawn at random (a third at
 * rest, a third sliding, a third impacting), mu in [0.1, 1], e in [0, 0.8];
 * q = W (v + h g) + e min(W_n v, 0). All solvers start from P = 0.
 *
 * Reported per solver and problem: ns per solve (best of R repetitions of
 * all instances, divided by N), mean and largest iterations (sweeps for
 * the Gauss-Seidel solvers), the largest error by
 * mfc_error (the plugin's `tol` measure), the number of instances whose
 * error exceeds tol, the number whose Siconos info is not 0, the largest
 * disagreement with own nsgs in impulses (dP, relative to ||P||) and in
 * local velocities (du, relative to ||q||; impulses are not unique when D
 * is singular: 3d-2 edge, whose two tangents along the edge have equal
 * rows in W, and 3d-4 face), and the
 * allocations per solve (malloc & co. interposed, as in
 * bench_towed_wheel_rk4; not counted in a sanitizer build).
 *
 * Usage: bench_moreau_solver [tol] [N] [R]     (defaults 1e-8 2000 5;
 *        1e-8 is the plugin's default tol)
 * Exit status 1 when own nsgs misses tol on any instance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moreau_fc.h"

/* ---- allocation counting (as bench_towed_wheel_rk4.c) ------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_COUNT_ALLOCS 0
#endif
#endif
#ifndef BENCH_COUNT_ALLOCS
#define BENCH_COUNT_ALLOCS 1
#endif

/* The allocation probe (core/probe/alloc_probe.c, linked into this
 * executable with ENABLE_EXPORTS: its malloc & co. also serve libnsdyn.so
 * and the dlopen'ed plugins). g_allocs accumulates what the probe saw
 * between count_start() and count_stop(). */
#if BENCH_COUNT_ALLOCS
#include "alloc_probe.h"
static uint64_t g_allocs;
static void count_start(void) { nsd_alloc_probe_get()->start(); }
static void count_stop(void) { g_allocs += nsd_alloc_probe_get()->stop(); }
#else
static uint64_t g_allocs;
static void count_start(void) {}
static void count_stop(void) {}
#endif

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* ---- problems ------------------------------------------------------------ */

#define MAXC 4
#define MAXV 6
#define H_STEP 1e-3
#define GRAV 9.81

typedef struct geom {
    const char *name;
    int three_d;    /* 6 speeds (vx vy vz wx wy wz) or 3 (vx vy w) */
    double m, J[3]; /* mass, principal inertia (world-aligned) */
    size_t nc;
    double r[MAXC][3]; /* arm from the centre of mass to the contact point */
    double n[MAXC][3], t1[MAXC][3], t2[MAXC][3];
} geom;

typedef struct instance {
    double D[9 * MAXC * MAXC], q[3 * MAXC], mu[MAXC];
    uint32_t tdim[MAXC];
} instance;

static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* W row and M^-1 W^T row of direction d at arm r. */
static void rows(const geom *g, const double r[3], const double d[3], double *W, double *MW) {
    if (g->three_d) {
        double rd[3];
        cross(r, d, rd);
        for (int i = 0; i < 3; ++i) {
            W[i] = d[i];
            W[3 + i] = rd[i];
            MW[i] = d[i] / g->m;
            MW[3 + i] = rd[i] / g->J[i];
        }
    } else {
        const double rz = r[0] * d[1] - r[1] * d[0];
        W[0] = d[0], W[1] = d[1], W[2] = rz;
        MW[0] = d[0] / g->m, MW[1] = d[1] / g->m, MW[2] = rz / g->J[0];
    }
}

static uint64_t rng_next(uint64_t *s) { /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}
static double urand(uint64_t *s, double a, double b) {
    return a + (b - a) * (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void make_instance(const geom *g, uint64_t *seed, int kind, instance *in) {
    const size_t nv = g->three_d ? 6 : 3, m = g->nc, n3 = 3 * m;
    double W[3 * MAXC][MAXV], MW[3 * MAXC][MAXV];
    for (size_t c = 0; c < m; ++c) {
        rows(g, g->r[c], g->n[c], W[3 * c], MW[3 * c]);
        rows(g, g->r[c], g->t1[c], W[3 * c + 1], MW[3 * c + 1]);
        if (g->three_d)
            rows(g, g->r[c], g->t2[c], W[3 * c + 2], MW[3 * c + 2]);
        else
            for (size_t k = 0; k < nv; ++k) W[3 * c + 2][k] = MW[3 * c + 2][k] = 0.0;
        in->tdim[c] = g->three_d ? 2u : 1u;
        in->mu[c] = urand(seed, 0.1, 1.0);
    }
    for (size_t i = 0; i < n3; ++i)
        for (size_t j = 0; j < n3; ++j) {
            double s = 0.0;
            for (size_t k = 0; k < nv; ++k) s += W[i][k] * MW[j][k];
            in->D[i * n3 + j] = s;
        }
    /* velocity: 0 at rest, sliding (small normal), impacting (normal down) */
    /* linear speeds in [-1, 1] m/s, angular in [-5, 5] rad/s */
    double v[MAXV] = {0};
    const size_t nlin = g->three_d ? 3u : 2u;
    if (kind == 1) {
        for (size_t k = 0; k < nv; ++k) v[k] = urand(seed, -1.0, 1.0) * (k < nlin ? 1.0 : 5.0);
        v[nlin - 1] = urand(seed, -0.01, 0.01);
    } else if (kind == 2) {
        for (size_t k = 0; k < nv; ++k) v[k] = urand(seed, -1.0, 1.0) * (k < nlin ? 1.0 : 5.0);
        v[nlin - 1] = urand(seed, -3.0, -0.5);
    }
    double vf[MAXV];
    memcpy(vf, v, sizeof vf);
    vf[g->three_d ? 2 : 1] -= H_STEP * GRAV;
    for (size_t c = 0; c < m; ++c) {
        const double e = urand(seed, 0.0, 0.8);
        for (size_t i = 0; i < 3; ++i) {
            double s = 0.0, sk = 0.0;
            for (size_t k = 0; k < nv; ++k) {
                s += W[3 * c + i][k] * vf[k];
                sk += W[3 * c + i][k] * v[k];
            }
            in->q[3 * c + i] = s + (i == 0 ? e * fmin(sk, 0.0) : 0.0);
        }
    }
}

static void set_frame(geom *g, size_t c, double nx, double ny, double nz, double ax, double ay,
                      double az) {
    g->n[c][0] = nx, g->n[c][1] = ny, g->n[c][2] = nz;
    g->t1[c][0] = ax, g->t1[c][1] = ay, g->t1[c][2] = az;
    cross(g->n[c], g->t1[c], g->t2[c]);
}

static int make_geoms(geom *gs) {
    int k = 0;
    geom *g;
    /* 2d-1 disc */
    g = &gs[k++];
    memset(g, 0, sizeof *g);
    g->name = "2d-1 disc", g->m = 1.0, g->J[0] = 0.5 * 0.01, g->nc = 1;
    g->r[0][1] = -0.1;
    set_frame(g, 0, 0, 1, 0, 1, 0, 0);
    /* 2d-2 ladder: bottom end on the floor, top end on a wall to the right */
    g = &gs[k++];
    memset(g, 0, sizeof *g);
    g->name = "2d-2 ladder", g->m = 1.0, g->J[0] = 1.0 / 12.0, g->nc = 2;
    {
        const double a = 60.0 * M_PI / 180.0, hl = 0.5;
        g->r[0][0] = -hl * cos(a), g->r[0][1] = -hl * sin(a);
        g->r[1][0] = hl * cos(a), g->r[1][1] = hl * sin(a);
    }
    set_frame(g, 0, 0, 1, 0, 1, 0, 0);
    set_frame(g, 1, -1, 0, 0, 0, 1, 0);
    /* 3d-1 sphere */
    g = &gs[k++];
    memset(g, 0, sizeof *g);
    g->name = "3d-1 sphere", g->three_d = 1, g->m = 1.0, g->nc = 1;
    g->J[0] = g->J[1] = g->J[2] = 0.4 * 0.01;
    g->r[0][2] = -0.1;
    set_frame(g, 0, 0, 0, 1, 1, 0, 0);
    /* box 0.6 x 0.4 x 0.2 m, 1 kg */
    const double bx = 0.3, by = 0.2, bz = 0.1;
    const double Jx = (4 * by * by + 4 * bz * bz) / 12.0, Jy = (4 * bx * bx + 4 * bz * bz) / 12.0,
                 Jz = (4 * bx * bx + 4 * by * by) / 12.0;
    const double sx[4] = {1, -1, -1, 1}, sy[4] = {1, 1, -1, -1};
    const char *names[3] = {"3d-1 vertex", "3d-2 edge", "3d-4 face"};
    const size_t ncs[3] = {1, 2, 4};
    for (int b = 0; b < 3; ++b) {
        g = &gs[k++];
        memset(g, 0, sizeof *g);
        g->name = names[b], g->three_d = 1, g->m = 1.0, g->nc = ncs[b];
        g->J[0] = Jx, g->J[1] = Jy, g->J[2] = Jz;
        for (size_t c = 0; c < g->nc; ++c) {
            g->r[c][0] = sx[c] * bx, g->r[c][1] = sy[c] * by, g->r[c][2] = -bz;
            set_frame(g, c, 0, 0, 1, 1, 0, 0);
        }
    }
    return k;
}

/* ---- solvers ------------------------------------------------------------- */

enum { S_OWN, S_SIC_NSGS, S_SIC_LEMKE, S_SIC_ENUM, S_SIC_NSN_AC, S_COUNT };
static const char *const solver_name[S_COUNT] = {"own nsgs", "siconos nsgs", "siconos lemke",
                                                 "siconos enum", "siconos nsn_ac"};

static int solver_applies(int s, int three_d) {
    if (s == S_SIC_LEMKE || s == S_SIC_ENUM) return !three_d;
    if (s == S_SIC_NSN_AC) return three_d;
    return 1;
}

static int siconos_id(int s, int three_d) {
    switch (s) {
        case S_SIC_NSGS: return three_d ? SICONOS_FRICTION_3D_NSGS : SICONOS_FRICTION_2D_NSGS;
        case S_SIC_LEMKE: return SICONOS_FRICTION_2D_LEMKE;
        case S_SIC_ENUM: return SICONOS_FRICTION_2D_ENUM;
        case S_SIC_NSN_AC: return SICONOS_FRICTION_3D_NSN_AC;
        default: return -1;
    }
}

typedef struct result {
    double ns, iters, max_err, max_dp, max_du;
    int max_iters;
    int over_tol, infos;
    double allocs;
} result;

static mfc_problem as_problem(const instance *in, size_t m) {
    mfc_problem p = {m, in->D, in->q, in->mu, in->tdim, NULL, NULL};
    return p;
}

static int solve_one(int s, mfc_siconos *sic, const mfc_problem *p, double tol, double *P,
                     int *iters) {
    if (s == S_OWN) {
        double w[3 * MAXC];
        mfc_info info;
        const int r = mfc_nsgs(p, P, w, tol, 10000, &info);
        *iters = info.iterations;
        return r;
    }
    return mfc_siconos_solve(sic, p, P, iters);
}

int main(int argc, char **argv) {
    const double tol = argc > 1 ? atof(argv[1]) : 1e-8;
    const int N = argc > 2 ? atoi(argv[2]) : 2000;
    const int R = argc > 3 ? atoi(argv[3]) : 5;
    if (!(tol > 0.0) || N < 1 || R < 1) {
        fprintf(stderr, "usage: bench_moreau_solver [tol] [N] [R]\n");
        return 2;
    }
    geom gs[8];
    const int ng = make_geoms(gs);
    instance *ins = malloc((size_t)N * sizeof *ins);
    double *Pown = malloc((size_t)N * 3 * MAXC * sizeof(double));
    double *P = malloc((size_t)N * 3 * MAXC * sizeof(double));
    if (ins == NULL || Pown == NULL || P == NULL) return 2;
    int fail = 0;
    printf("moreau contact solvers: tol %g, %d instances per problem, best of %d repetitions\n",
           tol, N, R);
    printf("%-12s %-15s %9s %7s %5s %10s %6s %6s %9s %9s %7s\n", "problem", "solver", "ns/solve",
           "iters", "max", "max err", ">tol", "info!0", "max dP", "max du", "allocs");
    for (int gi = 0; gi < ng; ++gi) {
        const geom *g = &gs[gi];
        uint64_t seed = 0x9E3779B97F4A7C15ull + (uint64_t)gi;
        for (int i = 0; i < N; ++i) make_instance(g, &seed, i % 3, &ins[i]);
        const size_t m = g->nc, n3 = 3 * m;
        for (int s = 0; s < S_COUNT; ++s) {
            if (!solver_applies(s, g->three_d)) continue;
            mfc_siconos sic;
            memset(&sic, 0, sizeof sic);
            char why[256];
            if (s != S_OWN &&
                mfc_siconos_init(&sic, g->three_d ? 3 : 2, m, siconos_id(s, g->three_d), tol, 10000,
                                 why, sizeof why) != 0) {
                fprintf(stderr, "%s\n", why);
                return 2;
            }
            result res = {HUGE_VAL, 0, 0, 0, 0, 0, 0, 0, 0};
            long iter_sum = 0;
            for (int rep = 0; rep < R; ++rep) {
                memset(P, 0, (size_t)N * n3 * sizeof(double));
                iter_sum = 0;
                res.infos = 0;
                const uint64_t a0 = g_allocs;
                count_start();
                const double t0 = now_ns();
                for (int i = 0; i < N; ++i) {
                    mfc_problem p = as_problem(&ins[i], m);
                    int it = 0;
                    if (solve_one(s, &sic, &p, tol, P + (size_t)i * n3, &it) != 0) res.infos++;
                    iter_sum += it;
                    if (it > res.max_iters) res.max_iters = it;
                }
                const double t1 = now_ns();
                count_stop();
                res.allocs = (double)(g_allocs - a0) / N;
                res.ns = fmin(res.ns, (t1 - t0) / N);
            }
            res.iters = (double)iter_sum / N;
            for (int i = 0; i < N; ++i) {
                mfc_problem p = as_problem(&ins[i], m);
                double w[3 * MAXC], wo[3 * MAXC];
                const double *Pi = P + (size_t)i * n3;
                const double err = mfc_error(&p, Pi, w, NULL, NULL);
                res.max_err = fmax(res.max_err, err);
                if (!(err <= tol)) res.over_tol++;
                if (s == S_OWN) {
                    memcpy(Pown + (size_t)i * n3, Pi, n3 * sizeof(double));
                    continue;
                }
                const double *Po = Pown + (size_t)i * n3;
                mfc_velocity(&p, Po, wo);
                double dp2 = 0, p2 = 0, du2 = 0, q2 = 0;
                for (size_t k = 0; k < n3; ++k) {
                    dp2 += (Pi[k] - Po[k]) * (Pi[k] - Po[k]);
                    p2 += Po[k] * Po[k];
                    du2 += (w[k] - wo[k]) * (w[k] - wo[k]);
                    q2 += p.q[k] * p.q[k];
                }
                res.max_dp = fmax(res.max_dp, p2 > 0 ? sqrt(dp2 / p2) : sqrt(dp2));
                res.max_du = fmax(res.max_du, q2 > 0 ? sqrt(du2 / q2) : sqrt(du2));
            }
            if (s == S_OWN && res.over_tol > 0) fail = 1;
            char allocs[32];
            if (BENCH_COUNT_ALLOCS)
                snprintf(allocs, sizeof allocs, "%.1f", res.allocs);
            else
                snprintf(allocs, sizeof allocs, "n/a");
            char dp[32], du[32];
            if (s == S_OWN) {
                snprintf(dp, sizeof dp, "-");
                snprintf(du, sizeof du, "-");
            } else {
                snprintf(dp, sizeof dp, "%.1e", res.max_dp);
                snprintf(du, sizeof du, "%.1e", res.max_du);
            }
            printf("%-12s %-15s %9.0f %7.2f %5d %10.2e %6d %6d %9s %9s %7s\n", g->name,
                   solver_name[s], res.ns, res.iters, res.max_iters, res.max_err, res.over_tol,
                   res.infos, dp, du, allocs);
            if (s != S_OWN) mfc_siconos_free(&sic);
        }
    }
    free(ins);
    free(Pown);
    free(P);
    if (fail) printf("FAIL: own nsgs missed tol on some instance\n");
    return fail;
}
