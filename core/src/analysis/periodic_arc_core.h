/* Internals of the arclength continuation (periodic_arc.h): the working
 * context, a branch point, and the steps the files share:
 * periodic_arc_core.c (the map at a parameter, Jacobian, tangent, corrector),
 * periodic_arc_trace.c (branches, bifurcations located, switching) and
 * periodic_arc_out.c (CSV, figure, brute-force overlay). */
#ifndef NSD_PERIODIC_ARC_CORE_H
#define NSD_PERIODIC_ARC_CORE_H

#include "periodic_arc.h"
#include "run.h"

enum { ARC_CACHE = 3, ARC_SEQ_MAX = 48 };

/* The contact events of one period in time order (the branch's event
 * sequence): ev = contact * NSD_EVENT_KIND_COUNT + kind, t [s] after the
 * section. n counts all of them; only the first ARC_SEQ_MAX are kept. */
typedef struct arc_seq {
    size_t n;
    unsigned short ev[ARC_SEQ_MAX];
    double t[ARC_SEQ_MAX];
} arc_seq;

/* A code of the sequence (its length and events, not the times): equal
 * for equal sequences. */
long arc_seq_code(const arc_seq *q);

/* One orbit on a branch. u and t are scaled (x_i / sx_i, p / ps). */
typedef struct arc_point {
    double *u, *t;   /* k + 1 */
    double *J, *Jp;  /* k x k dP/dx and k dP/dp, unscaled */
    double *re, *im; /* k multipliers, by modulus descending */
    double *iter;    /* crossings: the first free state at each section crossing */
    double period;   /* [s] */
    int stable, have_J;
    size_t ev[NSD_EVENT_KIND_COUNT]; /* contact events of one period */
    arc_seq seq;                     /* and their order */
    int straddles;   /* the Jacobian's difference runs saw another event sequence than the
                      orbit's: it is within the steps of a non-smooth boundary */
    int at_boundary; /* the located end of an event sequence (its J: the last point's) */
} arc_point;

typedef struct arc_branch {
    size_t crossings;
    size_t np, cap;
    arc_point *pt;
    int parent; /* the branch it was switched from, or -1 */
} arc_branch;

typedef struct arc_ctx {
    nsd_scenario *s;
    const nsd_periodic_config *pc;
    const nsd_arc_config *ac;
    nsd_periodic_spec spec; /* pc->spec with the current branch's crossings */
    size_t n, k;
    double *sx, ps;                                /* scales */
    double *base;                                  /* n: the full state the free entries go into */
    double *y, *y_end, *xt, *Pt, *Pm, *M, *b, *wk; /* work */
    int *ipiv;
    nsd_scenario cache[ARC_CACHE];
    double cache_p[ARC_CACHE];
    int cache_used[ARC_CACHE], cache_clock;
    size_t last_ev[NSD_EVENT_KIND_COUNT]; /* events of the last map run */
    arc_seq last_seq;                     /* and their order */
    nsd_arc_outcome *out;
    FILE *progress;
    char why[1024]; /* why the last step failed */
    int chord_only; /* the corrector keeps the given Jacobian (no refresh, no evaluation at
                        the end): the side of a non-smooth boundary it was computed on */
    int patient;    /* the corrector refreshes its Jacobian whenever the residual does not
                       halve, for up to 40 iterations: near a grazing the Jacobian changes
                       like 1/sqrt of the distance to it (periodic_arc_join.c) */
    arc_branch br[NSD_ARC_MAX_BRANCHES];
    size_t nbr;
} arc_ctx;

int arc_ctx_init(arc_ctx *c, nsd_scenario *s, const nsd_periodic_config *pc,
                 const nsd_arc_config *ac, const double *y_orbit, double p0);
void arc_ctx_free(arc_ctx *c);
int arc_point_alloc(const arc_ctx *c, arc_point *pt, size_t crossings);
void arc_point_free(arc_point *pt);
void arc_point_copy(const arc_ctx *c, arc_point *dst, const arc_point *src, size_t crossings);

/* The parameter of a scaled point. */
static inline double arc_p(const arc_ctx *c, const double *u) { return u[c->k] * c->ps; }

/* A scenario at parameter value p (cached), or NULL with c->why. */
nsd_scenario *arc_scenario_at(arc_ctx *c, double p);

/* P(x; p) from the scaled u into Px (unscaled, k), the period into *T, the
 * events into c->last_ev. 0 or -1 (c->why). */
int arc_map(arc_ctx *c, const double *u, double *Px, double *T);

/* At u: the Jacobian, multipliers, period, events and the tangent
 * (oriented along t_prev) into pt. 0 or -1 (c->why). */
int arc_point_eval(arc_ctx *c, const double *u, const double *t_prev, arc_point *pt);

/* The corrector from u_pred along t, starting from the Jacobian of `from`
 * (NULL: computed at u_pred). Converged u into pt->u (then evaluated as
 * arc_point_eval with t as orientation). 0, or -1 (c->why). */
int arc_correct(arc_ctx *c, const double *u_pred, const double *t, const arc_point *from,
                arc_point *pt);

/* The bordered matrix [[S^-1 (J - I) S, S^-1 Jp ps], [t^T]] of pt into
 * c->M; the scaled residual F = S^-1 (P - x) of Px at u into F, its max
 * norm returned. */
void arc_bordered(arc_ctx *c, const arc_point *pt, const double *t);
double arc_residual(const arc_ctx *c, const double *u, const double *Px, double *F);

/* The last map run's events into pt (ev, seq). */
void arc_take_events(const arc_ctx *c, arc_point *pt);

/* The map over `crossings` section crossings (the swap applied when the
 * number of the config's periods in it is odd). */
void arc_set_crossings(arc_ctx *c, size_t crossings);

/* The first free state at each of the pt's crossings (pt->iter). */
int arc_iterates(arc_ctx *c, arc_point *pt, size_t crossings);

/* Multipliers outside the unit circle by kind (real > 1, real < -1,
 * complex). */
void arc_count_outside(const arc_point *pt, size_t k, int out[3]);

/* The scaled one-period residual of pt on the branch below (crossings
 * / 2): small when a period-2k orbit is the period-k one counted twice. */
double arc_half_residual(arc_ctx *c, const arc_point *pt, size_t crossings);

/* The eigenvector (scaled, unit) of pt's dP/dx for its real multiplier
 * nearest mu into w (k). 0 or -1. */
int arc_eigenvector(arc_ctx *c, const arc_point *pt, double mu, double *w);

/* Where the event sequence changes between old and new (one event more
 * or less), named: "grazing: impact 3 of contact 'stop' (of 3 per period)
 * appears, 4.2 s after the section"; otherwise both sequences listed
 * (periodic_arc_join.c). */
void arc_name_change(const arc_ctx *c, const arc_seq *old, const arc_seq *now, char *text,
                     size_t len);

/* The event sequence as text ("impact stop, impact stop"), cut to len. */
void arc_seq_text(const arc_ctx *c, const arc_seq *q, char *text, size_t len);

/* A branch ended at a non-smooth boundary: a (its last point, old
 * sequence) and the boundary at a->u + s_b a->t. Find the first orbit of
 * the new sequence that leaves the boundary: the predictor from the
 * square-root law of a grazing impact (the map beyond the boundary is
 * F(u) + c sqrt(g . (u - u_b)): probed at two points), else along a's
 * tangent and its reflection in the parameter; the corrector restarted
 * with a fresh Jacobian there. Accepted only with a sequence other than
 * old, no straddling Jacobian, within 3 steps of the boundary. 0 with the
 * orbit in first (tangent oriented away from the boundary), or -1
 * (c->why). */
int arc_join(arc_ctx *c, const arc_point *a, double s_b, const arc_seq *old, arc_point *first,
             char *how, size_t how_len);

/* Outputs (periodic_arc_out.c). */
int arc_write(arc_ctx *c, const char *dir, char *err, size_t len);

#endif
