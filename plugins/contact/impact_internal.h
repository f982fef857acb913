/* Private to the rigid impact laws (plugins/contact: impact.c, newton.c,
 * poisson.c, kane_impulse.c, impact_solver.c), one shared object
 * nsdyn_contact_impact.so: the law instance, the one-contact and phase
 * problems, and the shared solver's entry points. Notation: impact.c. */
#ifndef NSDYN_IMPACT_INTERNAL_H
#define NSDYN_IMPACT_INTERNAL_H

#include <stddef.h>

#include "nsdyn/nsdyn.h"

enum {
    IMPACT_MAX_CONTACTS = 16, /* simultaneous contacts per impact (stack arrays) */
    MAXR = 3 * IMPACT_MAX_CONTACTS,
    ENUM_MAX_CONTACTS = 4, /* exact enumeration up to this many (tangent_dim 1) */
    ENUM_MAX_UNKNOWNS = 2 * ENUM_MAX_CONTACTS,
    NSGS_CHECK = 500, /* sweeps between the divergence checks */
    N_ANGLES = 360    /* slip-angle grid of the 2-D slide search */
};
/* Slack of the inequalities of a candidate solution, relative to the
 * velocity scale (largest |u-|) or the candidate's largest impulse: a few
 * hundred roundings of the solves; decides only at exact ties (a contact
 * exactly at the stick-slip or open-closed boundary). */
#define ACCEPT_TOL 1e-11
/* NSGS: converged when no contact's velocity changes by more than this
 * fraction of the velocity scale in a sweep. */
#define NSGS_TOL 1e-13

typedef enum law_kind { LAW_NEWTON, LAW_KANE, LAW_POISSON } law_kind;

typedef struct impact_law {
    law_kind kind;
    double e; /* newton, kane_impulse: Newton's coefficient of restitution [1];
                 poisson: beta, Poisson's impulse ratio [1] */
    nsdyn_host host;
    int have_host;
} impact_law;

/* A slip below this fraction of the velocity scale counts as no initial
 * slip: its direction would be rounding, or the drift of a rolling contact
 * that the runner holds at the acceleration level only (integration error,
 * about rtol |v|). */
#define SLIP_FLOOR 1e-8

/* One contact's law with the rest of the impact frozen: u = q + Gi P (Gi
 * the contact's 3x3 diagonal block of G, q its velocity with the other
 * contacts' impulses applied), normal impulse P_n = a + lam with
 *   0 <= lam  _|_  u_n + c >= 0,
 * and Coulomb (C) on u_t. newton: a = 0, c = e_i u_n,i- (so u_n + c = 0 is
 * u_n+ = -e_i u_n-); poisson compression: a = 0, c = 0 ((33a)); poisson
 * restitution: a = beta P_c,n ((35b)), c = 0 (the completion). */
typedef struct local_problem {
    const double *Gi; /* 3x3, row stride 3 [1/kg] */
    const double *q;  /* 3 [m/s] */
    double c;         /* normal offset [m/s] */
    double a;         /* fixed normal impulse [N s], >= 0 */
    double mu_s, mu_k;
    int dim;
    double tol_u;     /* slack of u_n + c >= 0 for a fixed normal impulse [m/s] */
    const double *d0; /* kane_impulse: the slip direction before the impact (2, unit, or
                         zero: none), sliding along +-d0; NULL: the post-impact slip (Routh) */
} local_problem;

/* Outcome of the one-contact solver, also the state reported per contact. */
enum { LS_FAIL = 0, LS_OPEN, LS_OPEN_STICK, LS_OPEN_SLIDE, LS_CLOSED_STICK, LS_CLOSED_SLIDE };

/* ---- several contacts ------------------------------------------------------ */

/* One phase of an impact (newton's impact, poisson's compression or
 * restitution): u = w + G P, every contact with its local law as in
 * local_problem. */
typedef struct phase_problem {
    size_t n;        /* contacts, 1..IMPACT_MAX_CONTACTS */
    int dim;         /* tangent_dim */
    const double *G; /* 3n x 3n [1/kg] */
    const double *w; /* 3n velocities without this phase's impulse [m/s] */
    const double *c; /* n normal offsets [m/s] */
    const double *a; /* n fixed normal impulses [N s] */
    const double *mu_s, *mu_k;
    int restitution;  /* poisson's restitution: try all contacts open first */
    const double *d0; /* kane_impulse: 2n initial slip directions (local_problem.d0), or NULL */
    double us;        /* velocity scale [m/s] */
    double ps;        /* impulse scale floor us / max G_ii [N s] */
} phase_problem;

enum { M_NONE, M_LOCAL, M_ENUM, M_NSGS };

typedef struct phase_result {
    double P[MAXR], u[MAXR];
    int state[IMPACT_MAX_CONTACTS]; /* LS_* */
    int method;                     /* M_* */
    int sweeps;                     /* NSGS sweeps */
    double change;                  /* NSGS: last sweep's largest change [m/s] */
    int failed_contact;             /* a contact without a local solution, or -1 */
    int diverged;                   /* NSGS: the impulses grew without bound */
} phase_result;

/* impact.c: the phase log, the failure path, the accepted result. */
const char *law_name(law_kind k);
void phase(const nsdyn_impact_problem *pr, const char *what);
nsdyn_status fail(const impact_law *law, const nsdyn_impact_problem *pr, const char *msg);
/* Copy P and u+ out with the phase log, 0; or, if the impulse adds kinetic
 * energy beyond rounding (1e-9 of its terms, impact.c's header), 1 with
 * *dT the gain [J] and nothing written. */
int impact_accept(const nsdyn_impact_problem *pr, const double *P, const double *up,
                  const char *log, double *impulse, double *u_plus, double *dT);

/* impact_solver.c */
int solve_small(const double *A, const double *b, int k, double *x);
void post_velocity(const double *G, const double *um, const double *P, double *up);
double energy_change(const double *G, size_t m, const double *um, const double *P, double *size);
int local_dim(int dim, const double Gi[9]);
int solve_phase(phase_problem *pp, phase_result *res);
size_t log_states(char *buf, size_t len, size_t at, const phase_result *res, size_t n,
                  int restitution);
void phase_failure(char *msg, size_t len, const char *who, const phase_problem *pp,
                   const phase_result *res);
double velocity_scale(const double *um, size_t n, int dim);
phase_problem phase_of(const nsdyn_impact_problem *pr, const double *w, const double *c,
                       const double *a, int restitution, const double *d0);
/* solve_phase(), and phase_failure()'s message in msg when it fails (0). */
int solve_phase_or_say(phase_problem *pp, phase_result *res, const char *who, char *msg,
                       size_t len);

/* newton.c, poisson.c, kane_impulse.c: the laws, after impact()'s checks
 * (1 <= n <= IMPACT_MAX_CONTACTS, finite data). */
nsdyn_status impact_newton(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus);
nsdyn_status impact_poisson(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                            double *u_plus);
nsdyn_status impact_kane(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                         double *u_plus);
nsdyn_status impact_kane_multi(const impact_law *law, const nsdyn_impact_problem *pr,
                               double *impulse, double *u_plus);

#endif
