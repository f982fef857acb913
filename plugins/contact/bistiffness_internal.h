/* bistiffness_limit's internals shared by its two files: the law
 * (bistiffness_limit.c: checks, normalization, the ABI) and the flow of one
 * impact (bistiffness_limit_flow.c: modes, exact propagation, events, the
 * phase log). See bistiffness_limit.c's header for the model. */
#ifndef NSDYN_BISTIFFNESS_INTERNAL_H
#define NSDYN_BISTIFFNESS_INTERNAL_H

#include <stddef.h>

#include "nsdyn/nsdyn.h"

enum { N_OPEN = 0, N_COMP = 1, N_EXP = 2, N_HOLD = 3 };
enum { F_NONE = 0, F_STICK = 1, F_SLIDE_P = 2, F_SLIDE_M = 3 };
enum {
    STACK_N = 4,
    STACK_DOUBLES = 1024,
    STACK_INTS = 28 * STACK_N,
    MAX_STEPS = 2000000,
    MAX_EVENTS = 20000,
    MAX_COMBOS = 6561
};

/* Normalized units (|u-| <= 1, |G| <= 1, k = 1): a quantity within TOL_C
 * of zero is at its boundary (its mode is chosen again), a condition must
 * fail by TOL_T beyond its start value to end a mode, and the probe looks
 * PROBE ahead (the impact lasts O(1)). */
#define TOL_C 1e-9
#define TOL_T 1e-12
#define PROBE 1e-6
#define ROUND 1e-13 /* a change this small in a normalized condition is rounding */
#define BIG 1e300

/* One impact. Arrays point into one buffer (stack for n <= STACK_N). */
typedef struct blx {
    int n, N, f, b; /* contacts, state size 4n + 1, Q_f, Q_b (n == 2) */
    double kc, ke;  /* 1 + mu_n, 1 - mu_n */
    const double *mus, *muk;
    double *G, *um;                    /* normalized Delassus (3n x 3n), u- (3n) */
    double *A, *B, *z;                 /* mode: x' = A x, F = B d, null split z */
    double *M, *rhs, *sol, *nul, *col; /* force solve */
    double *x, *y, *t, *xp, *F, *u, *g, *g0, *c0, *c1;
    int *nm, *fm, *cnm, *cfm, *opt, *nopt, *idx, *unk;
    int has_z, nunk;
    double anorm;
    char *log;
    size_t log_len, at;
    char last[64];
    int last_sigma, ended;
    double tau; /* normalized time since the impact's start */
} blx;

/* A test that compiles bistiffness_limit_flow.c defines BL_TRACE(x) to record the
 * trajectory (tests/test_bistiffness_limit_vs_compliant.c); the plugin
 * build records nothing. */
#ifndef BL_TRACE
#define BL_TRACE(x) ((void)0)
#endif

size_t bl_ws_doubles(size_t n);
size_t bl_ws_ints(size_t n);
/* Points x's arrays into d (bl_ws_doubles(n)) and iv (bl_ws_ints(n)). */
void bl_ws_bind(blx *x, double *d, int *iv);
/* Integrates the impact from x->x; 1, or 0 with a message. */
int bl_integrate(blx *x, char *msg, size_t len);

#endif
