/* Event-driven rigid contact: the contact modes of the composed model.
 *
 * Used when the config's contact law is rigid (impacts) or its friction law
 * is set-valued (Coulomb) without run.hold_stick, with an integrator that
 * locates events. The motion is a sequence of smooth phases, each with a
 * fixed mode per contact:
 *   unilateral contacts  OPEN (no force) or CLOSED (sustained: normal force
 *                        from the constraint u_n' = 0);
 *   closed or persistent STICK (tangential force from u_t' = 0) or SLIP
 *   contacts with        (force -mu_k N d along the slip direction d).
 *   friction
 * Inside a phase every right-hand side solves one small linear system for
 * the unknown forces, through the system's affine response to contact
 * forces (system.h). Each contact has two event functions (falling zero
 * crossings): open: the gap; closed: the normal force; slip: u_t . d;
 * stick: mu_s N - |F_t|. At a located event nsd_modes_resolve(, ->d) applies
 * the impact law, chooses the new modes (acceleration-level complementarity
 * with Coulomb friction) and the integrator restarts.
 *
 * The accumulation rule (Zeno): an approach slower than run.rest_velocity
 * closes the contact plastically instead of bouncing; docs/event-driven.md
 * derives the resulting error of the time to rest. */
#ifndef NSD_MODES_H
#define NSD_MODES_H

#include "model.h"

typedef enum nsd_event_kind {
    NSD_EVENT_IMPACT = 0,   /* velocity jump by the impact law */
    NSD_EVENT_REST,         /* slow approach closed plastically (accumulation rule) */
    NSD_EVENT_CLOSE,        /* touching contact enters sustained contact */
    NSD_EVENT_OPEN,         /* sustained contact separates (normal force reached 0) */
    NSD_EVENT_STICK,        /* slip velocity reached 0 and the force stays in the cone */
    NSD_EVENT_SLIP,         /* stick force left the cone, or slip restarted */
    NSD_EVENT_SYSTEM_RESET, /* the system changed the velocities when told that contacts
                               opened or closed (system.h on_contact_modes, ABI 2.2) */
    NSD_EVENT_KIND_COUNT
} nsd_event_kind;

const char *nsd_event_kind_name(nsd_event_kind kind);

typedef struct nsd_event_record {
    double t;       /* [s] */
    size_t contact; /* index in the system's contact list */
    nsd_event_kind kind;
    double u_before[3]; /* local velocity (n, t1, t2) [m/s] */
    double u_after[3];
    double impulse[3];  /* local impulse [N s] (impacts and velocity projections) */
    double slip_dir[2]; /* SLIP: the direction slip starts in (unit) */
    int limit_check;    /* SLIP/STICK of a 2-D persistent contact: 1 if the limit
                              directions of (3) agree with the force test, 0 if not,
                              -1 not checked */
    char law_log[72];   /* IMPACT: the rigid law's phase log (contact.h phase_log), truncated;
                           "" if the law wrote none (events.csv column impact_phases) */
} nsd_event_record;

typedef struct nsd_event_log {
    size_t n, cap;
    nsd_event_record *rec;
} nsd_event_log;

void nsd_event_log_free(nsd_event_log *log);

/* Mode of one contact. */
typedef struct nsd_contact_mode {
    int closed;          /* unilateral: sustained contact; persistent: always 1 */
    int stick;           /* tangential motion held at zero (-1: not yet known) */
    double dir[2];       /* slip direction (unit; 1-D: dir[0] = +-1) */
    double g_ref[2];     /* event thresholds: an event fires where g falls
                         through g_ref. Gap: fixed, 0 or -contact_tolerance
                         (never relative to the gap's own value, which
                         would let a bouncing body sink a little more at
                         every impact). Forces and slip: 0, or just below
                         g's value at the restart when that is not
                         positive, so a phase never starts on its own
                         event */
    double v_scale;      /* largest approach speed of an impact at this
                         contact so far [m/s]: the velocity scale of the
                         accumulation rule */
    double v_unresolved; /* [m/s] the largest separating speed at which the
                         step guard found this gap falling through its
                         threshold: position and velocity of the
                         integrator's solution disagree by more than such
                         a rebound's flight, which it cannot resolve */
} nsd_contact_mode;

/* Every contact's mode back to its state before the first resolution
 * (model create, and a run of a model that ran before). */
void nsd_modes_reset(const nsd_model *m, nsd_data *d);

/* The modes' settings (model create); mu from the friction law.
 * rest_ratio: the accumulation rule's threshold relative to the contact's
 * velocity scale; rest_velocity: zero slip speed [m/s]; contact_tolerance:
 * touching gap and the gap threshold of impacts [m]. */
void nsd_modes_init(nsd_model *m, double rest_ratio, double rest_velocity,
                    double contact_tolerance);
/* The modes and their buffers in a run's data (the regime's data_init),
 * reset; freed by nsd_modes_free (its release). */
void nsd_modes_alloc(const nsd_model *m, nsd_data *d);
void nsd_modes_free(nsd_data *d);

/* Forces of the current modes at (t, y): fills d->lambda and vdot (nv). */
nsdyn_status nsd_modes_forces(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *vdot);

/* The 2 nc contact event functions at (t, y). The gap of an open contact
 * reads +1 here: impacts are located by the step guard (step_guard.h) on
 * the integrator's dense output, for every integrator alike. */
nsdyn_status nsd_modes_events(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *g);

/* At an event (or the start): impacts, accumulation rule, new modes and the
 * velocity projection onto them. May change the velocities in y. Appends
 * the contact events to log. `fired`: the contact event function that
 * fired (0 .. 2 nc - 1, as in nsd_modes_events), or -1. Returns NSDYN_OK, or an error with
 * d->failure set (no consistent mode, impact law failure). */
/* Open-contact gaps at (t, y) for the step guard: f[c] = gap - threshold
 * [m] (an impact where f falls through 0) and its rate df[c] = u_n [m/s];
 * f[c] = +inf for contacts that are closed, persistent or inactive. */
nsdyn_status nsd_modes_gaps(const nsd_model *m, nsd_data *data, double t, const double *y,
                            double *f, double *df);

/* The accumulation rule's speed at contact c [m/s]: an approach slower
 * than this closes the contact plastically; a rebound slower than this
 * closes it too. rest_ratio times the contact's velocity scale, and never
 * below a bounce too short to resolve in time (docs/event-driven.md). */
double nsd_modes_rest_speed(const nsd_model *m, nsd_data *data, size_t c, double t,
                            double normal_acc);

/* Sustained contacts whose gap drifted out of half the touching band:
 * positions projected back onto the closed constraints (and velocities
 * onto their tangent). Returns 1 if y changed (the integrator must
 * restart), 0 if nothing drifted, -1 on failure with d->failure set. */
/* *deepest_open: the most negative gap of an open contact found deeper
 * than twice the tolerance (projected out with the others), else 0: a
 * penetration no impact caught (the run reports it, run.h). */
int nsd_modes_correct_drift(const nsd_model *m, nsd_data *data, double t, double *y,
                            double *deepest_open);

nsdyn_status nsd_modes_resolve(const nsd_model *m, nsd_data *data, double t, double *y,
                               nsd_event_log *log, int fired);

/* The velocity projection of nsd_modes_resolve alone, with the current
 * modes: v onto the constraints of the closed and sticking contacts at
 * (t, y) (the M-orthogonal projection). At a stick event this is the jump
 * the runner makes (a 2-D slip is stopped at run.rest_velocity and the rest
 * projected away); the variational equations differentiate it there
 * (analysis/periodic_tangent.c). NSDYN_OK, or an error with data->failure
 * set (singular constraints). */
nsdyn_status nsd_modes_project(const nsd_model *m, nsd_data *data, double t, double *y);

/* At the end of a step at (t, y): 1 when a 1-D slip of a compliant
 * contact has stalled below rest_velocity without the sign change that
 * ends it (modes_choose.c slip_stalled) and the modes chosen afresh would
 * have it stick strictly inside its cone: the runner then resolves the
 * modes there (docs/event-driven.md "Compliant contacts"). 0 otherwise
 * (the modes untouched), -1 on a failure (data->failure). */
int nsd_modes_slip_stalled(const nsd_model *m, nsd_data *data, double t, const double *y);

/* `fired` of nsd_modes_resolve after a system's velocity reset: each
 * touching contact keeps its open/closed status if that is consistent. */
#define NSD_FIRED_KEEP (-2)
/* `fired` at a rate event of contact c (a rate-discontinuous compliant
 * law's gap rate at zero, or a hold's end): c's normal force (held, or
 * one side's) is chosen with the friction modes (modes_choose.c). */
#define NSD_FIRED_RATE(c) (-3 - (int)(c))
#define NSD_FIRED_RATE_CONTACT(fired) ((size_t)(-3 - (fired)))

/* What the system's resets at one resolution did (nsd_modes_resolve_notify). */
typedef struct nsd_reset_tally {
    size_t n;      /* resets (velocities changed by on_contact_modes) */
    double change; /* [J] sum of the changes of the system's energy output they made */
    double gain;   /* [J] sum of the rises among them (0 without an energy output) */
} nsd_reset_tally;

/* nsd_modes_resolve, then, when a unilateral contact went from open to
 * closed or back (or at the start: initial != 0), the system's
 * on_contact_modes() (system.h, ABI 2.2). If it changes the velocities,
 * the reset is logged (NSD_EVENT_SYSTEM_RESET) and the modes are resolved
 * again for the new velocities; at most 4 rounds at one instant. Adds to
 * *tally. Without the callback it is nsd_modes_resolve. Returns as
 * nsd_modes_resolve (d->failure set on error). */
nsdyn_status nsd_modes_resolve_notify(const nsd_model *m, nsd_data *data, double t, double *y,
                                      nsd_event_log *log, int fired, int initial,
                                      nsd_reset_tally *tally);

#endif
