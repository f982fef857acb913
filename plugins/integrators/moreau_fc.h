/* Private to the moreau integrator (and bench/bench_moreau_solver.c): the
 * velocity-level friction-contact problem of one Moreau-Jean step and an
 * own solver for it.
 *
 * Problem (Acary & Brogliato 2008, "Numerical Methods for Nonsmooth
 * Dynamical Systems", Springer LNACM 35, Ch. 10 and 13; Jean 1999, "The
 * non-smooth contact dynamics method", CMAME 177:235-257). For m contacts,
 * local impulses P = (P_1 .. P_m), P_c = (P_n, P_t1, P_t2), and
 *
 *     w = D P + q,
 *     K_c  ∋  P_c  ⊥  ŵ_c = w_c + mu_c ||w_cT|| e_n  ∈  K_c*      (every c)
 *
 * with D the Delassus matrix W M^-1 W^T, K_c = {||P_T|| <= mu_c P_n} the
 * Coulomb cone and K_c* its dual. This is De Saxce's bipotential form of
 * Coulomb's law with Moreau's velocity-level Signorini condition (De Saxce &
 * Feng 1991, "New inequality and functional for contact with friction: the
 * implicit standard material approach", Mech. Struct. Mach. 19:301-325;
 * Acary & Brogliato 2008, Ch. 13); it is the problem Siconos
 * calls a FrictionContactProblem (same D, q, mu). Its solutions are exactly
 * those of: P_n = 0 and w_n >= 0 (open), or w = 0 and ||P_T|| <= mu P_n
 * (stick), or w_n = 0, P_T = -mu P_n w_T/||w_T|| (slide).
 *
 * Layout: 3 rows per contact, always (n, t1, t2). A contact with tangent
 * dimension 1 uses (n, t1) and keeps P_t2 = 0; a frictionless one (mu = 0)
 * keeps P_T = 0. D is (3m) x (3m), row-major.
 *
 * Error measure (used for every solver, the plugin's `tol`): the natural-map
 * residual of the cone complementarity (Acary & Brogliato 2008, Ch. 13),
 *
 *     res_c = (P_c - proj_K_c(P_c - rho_c ŵ_c)) / rho_c,   rho_c = 1 / D_cc,nn,
 *
 * a velocity [m/s] that is zero exactly at a solution; the error is
 * ||res|| / ||q|| (relative to the free velocity; ||res|| itself when q = 0,
 * where P = 0 solves). With rho_c = 1/D_nn every contact is measured in
 * velocity units whatever its mass (Siconos uses rho = 1, which mixes
 * impulse and velocity units).
 *
 * Own solver "nsgs": the non-smooth (block) Gauss-Seidel of Moreau 1994
 * ("Some numerical methods in multibody dynamics: application to granular
 * materials", Eur. J. Mech. A 13:93-114) and Jean 1999: sweep over the
 * contacts, solving each one-contact problem exactly with the others'
 * impulses frozen, until the error is <= tol. One contact is solved in one
 * sweep. The one-contact solver enumerates the cases open / stick / slide:
 *  - 2-D (tangent dimension 1) and frictionless: closed form for each case
 *    (slide to + and to -), the first case whose inequalities hold wins;
 *  - 3-D: open and stick in closed form; slide by the slip angle phi: with
 *    d = (1, -mu cos phi, -mu sin phi), P = P_n d, w_n = 0 gives
 *    P_n = -b_n / (A_n . d) and w_T must be parallel to (cos phi, sin phi):
 *    g(phi) = U(phi) x e(phi) = 0 with U = -b_n A_T d + (A_n . d) b_T,
 *    a trigonometric polynomial of degree 2 (at most 4 roots, cf. the
 *    quartic of Siconos' ONECONTACT_QUARTIC local solver). Newton from the
 *    previous slip angle is tried first; otherwise the roots are bracketed
 *    on 32 samples of g and g' and refined by safeguarded Newton; the
 *    first root with A_n . d > 0 and U . e > 0 wins.
 * Every function here is stateless and allocation free (but for the
 * Siconos part). The kernels are nsdyn_numeric's (core/numeric/): the
 * one-contact solver is nsn_coulomb_local, the sweeps nsn_nsgs; this file
 * adds the moreau problem's error measure, stopping rule and the optional
 * Siconos cross-check. Compiled once, in moreau_fc.c.
 */
#ifndef NSDYN_MOREAU_FC_H
#define NSDYN_MOREAU_FC_H

#include <stddef.h>
#include <stdint.h>

/* A one-contact solver of the caller's: r (3) such that w = A r + b obeys
 * the contact's law (the moreau integrator hands over the contact law
 * plugin's local_impulse). Returns 0, or -1 when it has no solution. */
typedef int (*mfc_local_fn)(void *ctx, size_t c, const double A[9], const double b[3], double r[3]);

typedef struct mfc_problem {
    size_t m;             /* contacts */
    const double *D;      /* (3m) x (3m), row-major */
    const double *q;      /* 3m */
    const double *mu;     /* m, >= 0 */
    const uint32_t *tdim; /* m, 1 or 2 */
    /* NULL: the problem above (Coulomb with Moreau's Signorini condition),
     * solved contact by contact by mfc_local_solve and measured by
     * mfc_error. Set: each contact's law is local's (q then carries no
     * restitution shift), and mfc_nsgs measures a sweep by how much it
     * changes the local velocities, ||A dP|| / ||q|| (a fixed point of the
     * sweep solves every contact's law). */
    mfc_local_fn local;
    void *local_ctx;
} mfc_problem;

typedef struct mfc_info {
    int iterations; /* sweeps done */
    double error;   /* final error (see above) */
    size_t worst;   /* contact with the largest residual */
    int local_fail; /* 1 + the contact whose one-contact problem had no exact
                         case in the last sweep (0: none) */
} mfc_info;

/* w = D P + q (3m). */
void mfc_velocity(const mfc_problem *p, const double *P, double *w);

/* Error of P (see the head of this file); w (3m) receives D P + q, cres (m,
 * may be NULL) the residual norm of each contact [m/s]. */
double mfc_error(const mfc_problem *p, const double *P, double *w, double *cres, size_t *worst);

/* Exact solution of the one-contact problem w = A r + b (nsn_coulomb_local,
 * nsdyn_numeric.h): 0 when a case holds, -1 when none does. */
int mfc_local_solve(const double A[9], const double b[3], double mu, unsigned nt, double r[3]);

/* Solve p to error <= tol in at most max_iter sweeps, starting from P (warm
 * start; zeros are fine). w (3m) receives D P + q. Returns 0 when
 * converged, -1 otherwise (P: the last iterate; mfc_error with cres gives
 * each contact's residual). */
int mfc_nsgs(const mfc_problem *p, double *P, double *w, double tol, int max_iter, mfc_info *info);

/* ---- Siconos (optional) -------------------------------------------------- */
#ifdef NSDYN_HAVE_SICONOS
/* The same problem handed to Siconos numerics 4.4 (Debian's
 * libsiconos-numerics-dev): fc2d_driver / fc3d_driver with a dense
 * NumericsMatrix, dimension 2 when every contact has tangent dimension 1,
 * else 3. Options, matrix and buffers are made once (mfc_siconos_init);
 * each solve still allocates inside Siconos (its drivers make their
 * local-problem work space per call: 2 blocks per fc2d solve, about 6 per
 * fc3d solve, bench/README.md). Siconos' own tolerance test uses its error
 * (rho = 1, relative to ||q||); the caller checks the result with
 * mfc_error. Siconos' error state (verbosity, setjmp buffers) is
 * thread-local, so instances on different threads do not interfere.
 *
 * The library is loaded with dlopen() when an instance asks for it, not
 * linked: libsiconos_numerics pulls in some 20 libraries (OpenBLAS, MUMPS,
 * HDF5, ...) and OpenBLAS starts a thread pool when loaded, which every
 * process that merely lists the plugins would otherwise pay (~18 ms and a
 * thread). Only the headers are needed at build time. */
#include <setjmp.h>

#include "Friction_cst.h"
#include "FrictionContactProblem.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"

#ifndef NSDYN_SICONOS_SONAME
#define NSDYN_SICONOS_SONAME "libsiconos_numerics.so.7"
#endif

/* The Siconos functions used, resolved by dlsym (signatures of Siconos 4.4's
 * SolverOptions.h, NumericsMatrix.h, NonSmoothDrivers.h and
 * sn_error_handling.h). */
typedef struct mfc_siconos_api {
    void *so;
    SolverOptions *(*options_create)(int solver_id);
    void (*options_delete)(SolverOptions *options);
    NumericsMatrix *(*nm_new)(void);
    void (*nm_clear)(NumericsMatrix *m);
    int (*fc2d_driver)(FrictionContactProblem *p, double *r, double *u, SolverOptions *o);
    int (*fc3d_driver)(FrictionContactProblem *p, double *r, double *u, SolverOptions *o);
    jmp_buf *(*get_jmp_buf)(void);
    void (*release_jmp_buf)(void);
} mfc_siconos_api;

typedef struct mfc_siconos {
    mfc_siconos_api api;
    int dim;    /* 2 or 3 */
    size_t cap; /* most contacts */
    SolverOptions *opt;
    NumericsMatrix *M; /* dense, matrix0 = Md (ours) */
    FrictionContactProblem prob;
    double *Md, *q, *mu, *r, *u; /* one block, owned here */
} mfc_siconos;

/* Release everything mfc_siconos_init made (a zeroed s is fine). */
void mfc_siconos_free(mfc_siconos *s);
/* solver_id: SICONOS_FRICTION_2D_* or SICONOS_FRICTION_3D_* matching dim.
 * Returns 0, or -1 with a message in err (library not found, out of
 * memory). */
int mfc_siconos_init(mfc_siconos *s, int dim, size_t max_contacts, int solver_id, double tol,
                     int max_iter, char *err, size_t err_len);
/* Solve p (p->m <= cap) from the warm start P; P receives the impulses.
 * Returns Siconos' info (0 = converged by its own test), or -2 when
 * Siconos raised a fatal error (sn_fatal_error). *iters: iterations done. */
int mfc_siconos_solve(mfc_siconos *s, const mfc_problem *p, double *P, int *iters);
#endif

#endif
