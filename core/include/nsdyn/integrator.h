/* nsdyn integrator ABI: how time advances.
 *
 * The host hands an integrator a first-order problem y' = f(t, y) of size n
 * (the system's q and v, then the friction laws' internal states) with
 * optional event functions g(t, y). The host drives it one internal step at
 * a time: step() advances by one accepted step, never past t_stop, and stops
 * early at a located event. Output between steps comes from dense() when
 * the integrator has NSDYN_CAP_DENSE_OUTPUT. After the host changes the
 * state (an impact, a mode switch) it calls restart().
 *
 * Status of f: NSDYN_REJECT_STEP asks the integrator to retry a smaller
 * step; NSDYN_ERROR stops the run.
 *
 * Call protocol (held by the host from ABI 2.5, core/src/plugins/
 * integrator_calls.c, so an integrator need not check it): setup()
 * succeeded before any step(), dense() or restart(), and again after
 * reset(); step()'s t_stop lies beyond the time reached; t0, t_end and a
 * restart's t are finite; y0, the report and y are not NULL; dense() is
 * called only with NSDYN_CAP_DENSE_OUTPUT.
 */
#ifndef NSDYN_INTEGRATOR_H
#define NSDYN_INTEGRATOR_H

#include "nsdyn/contact.h"
#include "nsdyn/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- callbacks the host provides to an integrator ---------------------- */

/* The mechanics view (nsdyn_mechanics), each given ctx back. */
typedef nsdyn_status (*nsdyn_mech_qdot_fn)(void *ctx, double t, const double *q, const double *v,
                                           double *qdot);
typedef nsdyn_status (*nsdyn_mech_free_acceleration_fn)(void *ctx, double t, const double *q,
                                                        const double *v, double *vdot);
typedef nsdyn_status (*nsdyn_mech_contacts_fn)(void *ctx, double t, const double *q,
                                               const double *v, double *gap, double *u, double *W,
                                               double *MinvWt);
typedef nsdyn_status (*nsdyn_mech_local_impulse_fn)(void *ctx, size_t c, const double *G,
                                                    const double *u_free, const double *u_start,
                                                    double *P);
typedef nsdyn_status (*nsdyn_mech_contact_rows_fn)(void *ctx, double t, const double *q,
                                                   const double *v, size_t n_sel, const size_t *sel,
                                                   double *W, double *MinvWt);
/* The first-order problem (nsdyn_ode). */
typedef nsdyn_status (*nsdyn_ode_rhs_fn)(void *ctx, double t, const double *y, double *ydot);
typedef nsdyn_status (*nsdyn_ode_events_fn)(void *ctx, double t, const double *y, double *g);

/* The mechanics behind the ODE, for time-stepping integrators
 * (NSDYN_CAP_TIME_STEPPING): the host hands it over when the config's
 * contact law is rigid. State layout y = [q (nq) | v (nv) | rest]; a
 * time-stepping integrator advances q and v itself and solves the
 * velocity-level contact problem of the unilateral contacts listed here,
 * contact by contact through local_impulse(): the config's contact law
 * decides the impulse (ABI 2.0). Persistent contacts and compliant forces
 * are part of free_acceleration. */
typedef struct nsdyn_mechanics {
    uint32_t struct_size;
    size_t nq, nv;
    size_t n_contacts;               /* unilateral contact candidates */
    const uint32_t *tangent_dim;     /* per contact: 1 (planar) or 2 */
    const char *const *contact_name; /* per contact, for messages */
    const double *mu;                /* per contact: kinetic Coulomb coefficient [1], 0 =
                                        frictionless (for solvers that pose the whole problem) */
    /* The contact law's coefficients (contact.h), the same at every contact. */
    const nsdyn_rigid_coefficients *law;
    void *ctx; /* passed back to the callbacks */
    /* q' = N(q) v + n0(t, q) for the given v. */
    nsdyn_mech_qdot_fn qdot;
    /* v' with every unilateral contact force zero [units of v / s]. */
    nsdyn_mech_free_acceleration_fn free_acceleration;
    /* Per contact c: gap[c] [m] (>= 0 open), local velocity u[3c .. 3c+2]
     * (normal, t1, t2) [m/s]. If W is not NULL: W[c * 3 nv ..] the 3 x nv
     * Jacobian rows (row-major) and MinvWt[c * 3 nv ..] the 3 x nv rows of
     * (M^-1 W^T)^T, the velocity change per unit local impulse of each
     * component, so that the Delassus block (c, d) is W_c MinvWt_d^T. */
    nsdyn_mech_contacts_fn contacts;
    /* The contact law's impulse P (3) [N s] at contact c alone, given its
     * 3 x 3 Delassus block G (row-major), the local velocity u_free (3)
     * without an impulse of its own and u_start (3) at the step start
     * (contact.h nsdyn_local_impact); the host adds the friction law's
     * coefficients. Hot path. */
    nsdyn_mech_local_impulse_fn local_impulse;
    /* ABI 2.0, appended (issue 14; optional: read it only if it lies within
     * struct_size and is not NULL). The rows of the n_sel contacts sel[0 ..
     * n_sel) only, in sel order: W[j * 3 nv ..] the 3 x nv Jacobian rows of
     * contact sel[j] and MinvWt[j * 3 nv ..] its 3 x nv rows of
     * (M^-1 W^T)^T, the same values contacts() gives for that contact. The
     * host's cost is one dynamics evaluation per component of the selected
     * contacts, not of every candidate as with contacts(..., W, MinvWt):
     * an integrator that knows its index set (the closed contacts) asks
     * contacts() for gaps and velocities alone (W = NULL) and this for the
     * index set, and a step stays linear in the number of candidates. */
    nsdyn_mech_contact_rows_fn contact_rows;
} nsdyn_mechanics;

typedef struct nsdyn_ode {
    uint32_t struct_size;
    size_t n;        /* state size */
    size_t n_events; /* event functions (0 allowed) */
    void *ctx;       /* passed back to rhs and events */
    nsdyn_ode_rhs_fn rhs;
    nsdyn_ode_events_fn events;
    /* Per event: -1 only falling crossings count, +1 only rising, 0 both. */
    const int *event_direction;
    /* Absolute tolerance scale per component, or NULL for the integrator's
     * scalar atol (states of very different magnitude). */
    const double *atol_scale;
    /* The mechanics, for time-stepping integrators; NULL when the problem
     * is a plain ODE. */
    const nsdyn_mechanics *mech;
} nsdyn_ode;

typedef struct nsdyn_step_report {
    double t;        /* time reached [s] */
    const double *y; /* state at t, integrator-owned, valid until the next
                         step() that succeeds (a failed step leaves it, so
                         the host can report the last accepted state) or
                         restart()/reset() */
    int event;       /* index of the event located at t, or -1 */
    double h;        /* size of the step just taken [s] */
    /* Time-stepping integrators: the contact impulses of the step just
     * taken, 3 per mechanics contact (normal, t1, t2) [N s], valid like y;
     * the host reports impulse / h as the contact force of the step. NULL
     * otherwise (the host zeroes the report before each step). */
    const double *contact_impulse;
} nsdyn_step_report;

typedef struct nsdyn_integrator_stats {
    uint32_t struct_size;
    uint64_t steps;          /* accepted steps */
    uint64_t rhs_evals;      /* right-hand-side evaluations */
    uint64_t rejected_steps; /* error-test and convergence failures */
    uint64_t jacobian_evals; /* Jacobian evaluations (implicit methods) */
    uint64_t event_evals;    /* event-function evaluations */
    uint64_t events;         /* events located */
} nsdyn_integrator_stats;

/* ---- integrator callbacks (see nsdyn_integrator) ---------------------- */

typedef nsdyn_status (*nsdyn_integrator_setup_fn)(void *inst, const nsdyn_ode *ode, double t0,
                                                  const double *y0, double t_end);
typedef nsdyn_status (*nsdyn_integrator_step_fn)(void *inst, double t_stop, nsdyn_step_report *out);
typedef nsdyn_status (*nsdyn_integrator_dense_fn)(void *inst, double t, double *y);
typedef nsdyn_status (*nsdyn_integrator_restart_fn)(void *inst, double t, const double *y);
typedef void (*nsdyn_integrator_stats_fn)(void *inst, nsdyn_integrator_stats *out);
typedef const char *(*nsdyn_integrator_message_fn)(void *inst);

typedef struct nsdyn_integrator {
    nsdyn_plugin_info info;

    /* Bind a problem and its initial value; allocates everything the steps
     * need. `ode` stays valid until reset/destroy. */
    nsdyn_integrator_setup_fn setup;
    /* Hot path: one accepted step (or up to an event), not past t_stop. */
    nsdyn_integrator_step_fn step;
    /* y(t) for t inside the last step; NULL without dense output. */
    nsdyn_integrator_dense_fn dense;
    /* Continue from a new state (after an impact or a mode switch). */
    nsdyn_integrator_restart_fn restart;
    nsdyn_integrator_stats_fn stats;
    /* Text describing the last failure ("step size 1e-14 below minimum"). */
    nsdyn_integrator_message_fn message;

    /* ABI 2.4 (appended, the last field for good): the plugin's optional
     * interfaces by name, or NULL (plugin.h nsdyn_extension_fn). Read only
     * when info.struct_size covers this field. */
    nsdyn_extension_fn extension;
} nsdyn_integrator;

/* Descriptor head of an integrator: NSDYN_INTEGRATOR_INFO(.id = "...", ...). */
#define NSDYN_INTEGRATOR_INFO(...) \
    NSDYN_INFO_OF(nsdyn_integrator, NSDYN_KIND_INTEGRATOR, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
