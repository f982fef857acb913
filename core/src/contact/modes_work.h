/* Inside the event-driven modes: the work buffers and the helpers that
 * modes.c (phases: forces, events) and modes_resolve.c (resolution at
 * events, drift correction) share. Not for other modules. */
#ifndef NSD_MODES_WORK_H
#define NSD_MODES_WORK_H

#include "affine.h"
#include "modes.h"

/* Largest touching set whose closed subsets are enumerated (2^12 trials). */
#define NSD_MAX_TOUCHING 12

typedef struct nsd_modes_work {
    size_t n_unknown;
    size_t *unk;      /* 3 nc: unknown force components, 3 c + a (affine.h) */
    double *C;        /* 3 nc x nv: response to each unknown */
    double *A, *x;    /* (3 nc)^2, 3 nc */
    double *slip_dir; /* 2 nc: slip direction used in the last solve */
    double *fric;     /* 2 nc: friction force per unit normal force of a
                                       slipping contact, from the friction law [1] */
    double *B;        /* 3 nc x nv: M^-1 W^T rows, every component */
    double *D, *u_minus, *impulse, *u_plus, *mu_s, *mu_k, *gaps; /* impact problem */
    size_t *set;            /* nc: contacts of an impact or touching set */
    nsd_contact_mode *prev; /* modes before a resolution */
    double *u_prev;         /* 3 nc velocities before a resolution */
    double *ytmp;           /* n */
    double *acc;            /* nv */
    double *an;             /* nc: free normal accelerations at a resolution */
    int *cm_old, *cm_new;   /* nc: nsdyn_contact_mode before and after, for the system */
    double *v_hook;         /* nv: velocities before the system's on_contact_modes() */
    double *ln_work;        /* nsn_least_norm's workspace for 3 nc unknowns */
    size_t ln_len;          /* its length (doubles) */
    int *ln_jpvt;           /* 3 nc: its column pivots */
    double *adm_work;       /* the admissible forces (modes_forces.c): A's copy and
                               nsn_null_space's workspace, adm_len doubles */
    size_t adm_len;
    double *adm_Z;                                   /* (3 nc)^2: null-space basis */
    double *adm_x0, *adm_xk, *adm_p, *adm_q, *adm_y; /* 3 nc each: Dykstra's iterates */
    char law_log[256];
    /* nc: the combined choice's trial slips (modes_choose.c): contact c
     * slips along slip_try[c] (1-D) where not 0; else all 0 */
    signed char *slip_try;
    double t_resolved; /* [s] when the modes were last chosen (nsd_modes_resolve) */
} nsd_modes_work;

static inline int is_unilateral(const nsd_model *m, size_t c) {
    return m->layout.contacts[c].type == NSDYN_CONTACT_UNILATERAL;
}

/* A unilateral contact under a compliant law (model.h ed.compliant): its
 * normal force is the law's, never a constraint force or an impulse. */
static inline int is_compliant(const nsd_model *m, size_t c) {
    return m->ed.compliant && is_unilateral(m, c);
}

/* Contact carries a tangential force of its own mode (closed or persistent,
 * with a friction law). */
static inline int tangent_held(const nsd_model *m, nsd_data *data, size_t c) {
    return m->friction && data->ce[c].active && (data->ed.mode[c].closed || !is_unilateral(m, c));
}

/* The unknown forces of the current modes (w->n_unknown = nu of them):
 * w->A x = w->x in place, the least-norm solution, and of the admissible
 * ones the least-norm if that one is not admissible (modes_forces.c).
 * d->lambda holds the fixed parts of the forces. Returns 0, or -1 if the
 * rows are inconsistent (w->x then undefined). */
int nsd_modes_solve_forces(const nsd_model *m, nsd_data *data, size_t nu);

/* Delassus entry between component a of contact c and component b of d
 * (w->B filled at the resolution). */
static inline double nsd_modes_delassus(const nsd_model *m, nsd_data *data, size_t c, size_t a,
                                        size_t d, size_t b) {
    return nsd_affine_entry(m, data, 3 * c + a, data->ed.work->B + (3 * d + b) * m->nv);
}

/* Tangential 2x2 (or 1x1) Delassus block of contact c into G[4]. */
void nsd_modes_tangent_block(const nsd_model *m, nsd_data *data, size_t c, double *G);

/* The modes at an event (modes_choose.c): closed subsets of the touching
 * set (k contacts in w->set) with friction resolved; at a rate event
 * (fired = NSD_FIRED_RATE(c)) with contact c's normal force chosen with
 * them. Returns 1 with consistent modes set, 0 if there are none. */
int nsd_modes_choose(const nsd_model *m, nsd_data *data, double t, const double *y, size_t k,
                     int fired);

#endif
