/* The composed model: one system with its contact and friction laws,
 * assembled into the first-order problem y' = f(t, y) the integrators see.
 *
 * y = [ q (nq) | v (nv) | friction internal states (per contact) ].
 *
 * For each right-hand side: the system reports its contacts; the normal
 * force of each comes from its persistent load or from the compliant
 * contact law; the tangential force from the friction law (or, for a
 * contact held in stick, from the stick constraint solved through the
 * system's affine response to contact forces); then the system's
 * kinematics and dynamics give q' and v'. Nothing here allocates after
 * nsd_model_create. */
#ifndef NSD_MODEL_H
#define NSD_MODEL_H

#include <float.h>

#include "config.h"
#include "contact_eval.h"
#include "diag.h"
#include "events.h"
#include "integrator_calls.h"
#include "nsdyn/nsdyn.h"
#include "runlog.h"

typedef struct nsd_channel {
    char name[64];
    char unit[24];
    char label[112];
    /* Sampling it evaluates the contact forces: a force channel, or an
     * output the system does not declare force-free (system.h
     * NSDYN_EXT_FORCE_FREE_OUTPUTS). t and the states: 0. */
    int reads_contacts;
} nsd_channel;

/* run.hold_stick (stick.c): persistent contacts held in stick, their
 * tangential forces solved from the system's affine response. */
typedef struct nsd_stick_view {
    int hold;     /* persistent contacts held in stick */
    size_t m;     /* number of stick force components */
    size_t *comp; /* m: their components in lambda (affine.h), 3 c + 1 + direction */
} nsd_stick_view;

/* The stick solver's buffers (nsd_data): the tangential response of the
 * persistent contacts (nsd_model_tangent_response). */
typedef struct nsd_stick_work {
    double *B;   /* M^-1 W^T columns of stick components: m x nv */
    double *G;   /* m x m: tangential forces -> tangential accelerations */
    double *rhs; /* m */
} nsd_stick_work;

struct nsd_model;
struct nsd_data;

/* Event-driven contact (modes.c): set when the contact law is rigid or the
 * friction law set-valued without hold_stick, and the integrator locates
 * events. */
typedef struct nsd_event_modes {
    int on;
    double rest_velocity;     /* [m/s] run.rest_velocity: zero slip speed */
    double rest_ratio;        /* [1] run.rest_ratio: accumulation rule */
    double contact_tolerance; /* [m] run.contact_tolerance */
    /* The contact law is compliant (set-valued friction on compliant
     * contacts): a unilateral contact's normal force comes from the law,
     * and it is closed while it penetrates (gap < 0), open otherwise;
     * no impacts, no normal constraint (docs/event-driven.md). */
    int compliant;
    /* An analysis run at every stick/slip switch of a persistent 2-D
     * contact, on the state with its slip projected to zero (the event
     * record's limit_check): 1 agrees with the force test, 0 not, -1 does
     * not apply. nsd_model_create installs the limit-direction test
     * (contact/limit_directions.h); NULL: none. */
    int (*switch_check)(const struct nsd_model *m, struct nsd_data *data, double t, const double *y,
                        size_t contact);
} nsd_event_modes;

/* Compliant contacts held at gap_rate = 0 by a rate-discontinuous law
 * (contact/rate_hold.h; docs/event-driven.md "Bi-stiffness at rest"):
 * Filippov's sliding mode, the normal force of a held contact the one
 * that keeps its gap rate at zero (equivalent control). Per-run state in
 * nsd_data (nsd_data_reset clears it), allocated with the data when the
 * model has rate events (NULL arrays otherwise). */
typedef struct nsd_hold_view {
    size_t n_held;       /* contacts held now */
    unsigned char *held; /* nc: 1 while contact c is held */
    /* nc: the side of gap_rate = 0 the last rate event chose (+1
     * expansion, -1 compression; 0 none: the gap rate's sign), where a
     * hold ended or both sides' fields cross the surface the same way:
     * the law gives that side's force whatever the sign of the few
     * 1e-12 m/s of gap rate left, until the gap rate crosses u_ref [m/s]
     * (its rate event; nsd_hold_law_rate) */
    signed char *side;
    double *u_ref;
    /* nc [1]: where the held force lies in the law's band, 0 at the
     * expansion force k (1 - mu_n) d, 1 at the compression force
     * k (1 + mu_n) d (Filippov's weight of the compression field); the
     * hold ends where it leaves [0, 1]. Set by every solve. */
    double *alpha;
    /* the compliant regime's solve (rate_hold.c): nc x nv columns, nc^2
     * matrix, nc right-hand side and contacts, 2 nc unit friction */
    double *cols, *A, *b, *fric;
    size_t *unk;
} nsd_hold_view;

/* The gap rate [m/s] contact c's law sees: u_n, or the side chosen at its
 * last rate event (nsd_hold_view.side) while u_n has the other sign. The
 * field stays that side's until the event that ends the side is located
 * (its function s u_n - u_ref is continuous there): with the law's own
 * jump at the same place, the motion would slide along gap_rate = 0 and
 * the integrator might never see the crossing. */
static inline double nsd_hold_law_rate(const nsd_hold_view *h, size_t c, double u_n) {
    int s = h->side ? h->side[c] : 0;
    return s == 0 || (double)s * u_n > 0.0 ? u_n : (double)s * DBL_MIN;
}

/* Time-stepping view (nsd_model_mechanics): the unilateral contacts. */
typedef struct nsd_mech_view {
    size_t n;
    size_t *contact;
    uint32_t *tangent_dim;
    const char **name;
    double *mu, *y;
    nsdyn_rigid_coefficients law;
    /* The contact impulses of the last step (3 per mechanics contact,
     * integrator-owned) and its size; a sample reports impulse / h as the
     * force of each unilateral contact (NULL: none). */
    const double *step_impulse;
    double step_h;
} nsd_mech_view;

/* The contact regime: how the contacts' forces and events come about,
 * chosen once by nsd_model_create (contact/regime.c) from the config: the
 * compliant laws, the stick hold (run.hold_stick), event-driven rigid or
 * set-valued contact, or a time-stepping integrator's own contact
 * treatment. The right-hand side, the event functions, a run's reset and
 * the model's end call through it instead of branching on the regime. */
typedef enum nsd_regime_kind {
    NSD_REGIME_COMPLIANT = 0,
    NSD_REGIME_HOLD_STICK,
    NSD_REGIME_EVENT_DRIVEN,
    NSD_REGIME_TIME_STEPPING
} nsd_regime_kind;

typedef struct nsd_regime {
    nsd_regime_kind kind;
    const char *name; /* "compliant", "hold-stick", "event-driven", "time-stepping" */
    /* A run keeps a log of its contact events (events.csv, the event chart,
     * compare's event metrics); the other regimes have none to keep. */
    int logs_events;
    /* The contact forces (m->lambda) and v' (nv) together at (t, y); NULL:
     * the laws give the forces (nsd_model_contact_forces) and the system's
     * derivatives() gives v'. */
    nsdyn_status (*solve)(const struct nsd_model *m, struct nsd_data *data, double t,
                          const double *y, double *vdot);
    /* The regime's 2 nc contact event functions at (t, y), from
     * event_first[NSD_SOURCE_CONTACT] (NULL: it has none). */
    nsdyn_status (*events)(const struct nsd_model *m, struct nsd_data *data, double t,
                           const double *y, double *g);
    /* The forces with the contacts held at gap_rate = 0 (nsd_hold_view)
     * solved, v' (nv) and the friction states' rates (zdot, may be NULL),
     * while data->hold.n_held; set where solve is NULL (contact/regime.c:
     * a regime's own solve handles held contacts itself). */
    nsdyn_status (*hold_solve)(const struct nsd_model *m, struct nsd_data *data, double t,
                               const double *y, double *vdot, double *zdot);
    /* A run's data: their regime part sized (nsd_data_create), reset
     * before every run, freed (NULL: the regime keeps nothing there). */
    void (*data_init)(const struct nsd_model *m, struct nsd_data *d);
    void (*reset)(const struct nsd_model *m, struct nsd_data *d);
    void (*release)(struct nsd_data *d);
} nsd_regime;

/* The energy audit (run.c): the index of the system's energy output (-1:
 * no audit: the system is not conservative, has no energy output, or a
 * friction law stores energy in internal states), the mode and the
 * relative tolerance; compliant contacts hold spring energy while
 * compressed. Its scratch (n_outputs) is the data's audit_scratch. */
typedef struct nsd_energy_check {
    int output;
    nsd_energy_audit mode;
    double tolerance;
    int contact_compliant;
    /* Time-stepping runs (run_audit.h): the penetration audit's mode and
     * tolerance [m] (run.penetration_audit, run.penetration_tolerance). */
    int time_stepping;
    nsd_energy_audit penetration_mode;
    double penetration_tolerance;
} nsd_energy_check;

/* An observer of a run's smooth flow and its jumps, for analyses that
 * carry more than the state along (analysis/periodic_tangent.h: the
 * variational equations and saltation matrices of a section map). The
 * runner calls step() after every accepted step from (t0, y0) to (t1, y1),
 * while the integrator's dense output (ig, integrator_calls.h) covers it, and
 * jump_before() / jump_after() around the jump of every contact event,
 * system switch and gap-rate restart at t, with the contact modes and the
 * system's own mode as they are before and after it. A nonzero return
 * fails the run with message(). The runner refuses an observer with an
 * integrator that does not locate events (a jump at a step end is not at
 * its event). */
typedef struct nsd_run_observer {
    void *ctx;
    int (*step)(void *ctx, double t0, const double *y0, double t1, const double *y1,
                nsd_ig_call *ig);
    int (*jump_before)(void *ctx, const nsd_event_source *src, double t, const double *y);
    int (*jump_after)(void *ctx, const nsd_event_source *src, double t, const double *y);
    const char *(*message)(void *ctx);
} nsd_run_observer;

/* One instance of each plugin of a composition (NULL: no such section). */
typedef struct nsd_instances {
    void *sys, *contact, *friction;
} nsd_instances;

/* Which plugin of a composition (nsd_model.params). */
enum { NSD_PART_SYSTEM = 0, NSD_PART_CONTACT, NSD_PART_FRICTION, NSD_PART_COUNT };

/* Parameter values of one plugin, in its declaration order. */
typedef struct nsd_param_values {
    nsdyn_value *v;
    size_t n;
} nsd_param_values;

typedef struct nsd_model {
    /* The loaded plugins; their instances are a run's (nsd_data), created
     * from the parsed parameters below. */
    const nsdyn_system *sys;
    const nsdyn_contact_law *contact;
    const nsdyn_friction_law *friction;
    /* The law's forces of all contacts in one call (nsdyn/friction_batch.h),
     * or NULL: force() per contact (model_create.c choose_friction_batch) */
    const nsdyn_friction_forces *friction_batch;
    /* The config's resolved parameters of each part, in declaration order
     * (NULL: no such section); the config outlives the model. */
    const nsdyn_value *params[NSD_PART_COUNT];
    /* The model's own instances, created once: the owner of the layout's
     * names, asked at creation for what the model is made of (the layout,
     * the initial state, the friction states, the kinematic precheck).
     * No run calls them: a run's plugin calls go to its data's instances,
     * which hold its discrete state (a walker's stance leg). They are
     * created with `quiet`, host services without a log: what a plugin
     * says at create or at those calls, each run's data say in the run's
     * own log (nsd_data_create), once. */
    nsd_instances own;
    nsdyn_host quiet;
    nsdyn_system_layout layout;

    size_t nq, nv, nz, n, nc;
    size_t *z_offset; /* per contact: first internal state in y */
    size_t *z_count;
    /* run.friction_states_open: the friction states of a contact without
     * normal force evolve with its slip (the law at N = 0) instead of
     * being held */
    int friction_states_open;

    /* Channels of a sample: t, q, v, z, contact forces, system outputs. */
    size_t n_channels;
    nsd_channel *channels;

    double *y0;            /* initial state */
    unsigned char *y0_set; /* n: 1 where the config's [initial] set y0 (else the system's) */

    /* Event functions of the ODE: what each is (events.h), its direction
     * (the nsdyn_ode's event_direction), and where each kind starts in g. */
    size_t n_events;
    nsd_event_source *event_sources;
    int *event_direction;
    size_t event_first[4]; /* by nsd_event_source_kind */
    size_t n_rate_events;  /* NSD_SOURCE_RATE entries, at event_first[NSD_SOURCE_RATE] */

    /* How the contacts run (chosen at creation), and its view: one of the
     * three below is in use (the compliant path needs none of them). */
    const nsd_regime *regime;
    nsd_stick_view stick;   /* run.hold_stick (stick.c) */
    nsd_event_modes ed;     /* event-driven rigid or set-valued contact (modes.c) */
    nsd_energy_check audit; /* the energy audit (run.c) */

} nsd_model;

/* The contact modes of event-driven contact and the buffers of modes.c
 * (NULL under the other regimes). */
typedef struct nsd_modes_state {
    struct nsd_contact_mode *mode; /* per contact */
    struct nsd_modes_work *work;   /* buffers of modes.c */
} nsd_modes_state;

/* What one run of a model changes, the way MuJoCo's mjData stands beside
 * its mjModel: the contact evaluations, multipliers, Jacobian rows and
 * work buffers (sized from the model at nsd_data_create, so nothing
 * allocates while running), the contact modes, the mechanics view, the
 * counters, the failure text and the analyses' section and observer. One
 * per run or thread: the model itself is constant after creation, and every
 * stage takes the data it writes beside it. */
typedef struct nsd_data {
    const struct nsd_model *model; /* the model it was created for (the callbacks' ctx) */
    /* The plugin instances of this data's runs (one set per data, created
     * with it from the model's parameters or the run's own): every plugin
     * call of a run goes to these, so two data on one model are two
     * independent runs. Not owned when borrowed from the model
     * (nsd_data_create_checks). */
    void *sys_inst, *contact_inst, *friction_inst;
    int owns_instances;
    /* The parameter values each instance was created from (owned, with
     * their arrays and texts: an instance may keep pointers into them
     * until its destroy()), compared by nsd_data_set_params to keep an
     * instance whose values did not change. */
    nsd_param_values params[NSD_PART_COUNT];
    /* n: the start for these parameters: the model's y0, with the
     * system's initial state for its own parameters where [initial] did
     * not set it; nsd_data_set_params copies it into y0. */
    double *y_start;
    /* The friction law's bounds per unit normal force [1] (event-driven
     * modes and the time-stepping view), constants of friction_inst. */
    double mu_static, mu_kinetic;
    nsdyn_contact_eval *ce;
    double *lambda; /* 3 nc local contact forces */
    double *W;      /* 3 nv per contact */
    double **jac;   /* per contact: its rows in W, or NULL: the Jacobians the last
                               nsd_model_contacts_now(, ->d) asked for (the right-hand side asks
                               for none and leaves jac alone) */
    /* The initial state of this data's runs (n): the model's y0 at
     * nsd_data_create; shooting sets it (analysis/periodic.c), a reset
     * keeps it. */
    double *y0;
    double *a0, *vdot_unit; /* nv */
    double *vdot_sample;    /* nv, accelerations while sampling */
    nsd_stick_work stick;   /* run.hold_stick and the limit directions (stick.c) */
    nsd_modes_state ed;     /* event-driven contact (modes.c) */
    nsd_mech_view mech;     /* time-stepping integrators (mechanics.c) */
    nsd_hold_view hold;     /* rate-discontinuous compliant contacts held (rate_hold.c) */
    double *audit_scratch;  /* n_outputs: the energy audit's system outputs (run.c) */
    double *nan_forces;     /* 3 nc NaN: the contact forces of a sample that does not
                               evaluate them (nsd_model_sample_some) */

    uint64_t rhs_evals;
    char failure[512]; /* last failure of an evaluation */

    /* A Poincare section for analyses (analysis/periodic.h): the run ends
     * STOPPED right after the system's switch section_switch - 1 has been
     * applied section_count times (its reset map included); the last
     * sample is the state after it. 0: no section (set it after create). */
    size_t section_switch, section_count;
    /* NULL, or the run's observer (above); set it after create, like the
     * section, and clear it after the run. */
    const nsd_run_observer *observer;
    /* NULL, or the reader of the run's progress and its ctx (the
     * scenario's log sets them before every run: runlog.h). */
    nsd_runlog_progress_fn progress;
    void *progress_ctx;
} nsd_data;

/* The data of one run of m (model/data.c), sized from m, with the
 * regime's part (the contact modes of event-driven contact) when m has
 * its regime, and its own plugin instances, created with the model's
 * parameters and host services (host must outlive the data). NULL with
 * err when a plugin refuses; aborts when out of memory, like the model's
 * creation. */
nsd_data *nsd_data_create(const nsd_model *m, const nsdyn_host *host, char *err, size_t err_len);
/* The same with parameters of the run's own for each part (params[k]
 * NULL: the model's), in the declaration order of the model's plugins:
 * a sweep's run on a shared model. A plugin whose instance then has
 * another shape than the model's (its layout's sizes, contact kinds or
 * friction state counts) is refused with err: such parameters need a
 * model of their own. */
nsd_data *nsd_data_create_with(const nsd_model *m, const nsdyn_host *host,
                               const nsdyn_value *const params[NSD_PART_COUNT], char *err,
                               size_t err_len);
/* Change the parameters of d's runs (params[k] NULL: the model's): the
 * instance of each part whose values differ from those it was created
 * from is created anew, the others kept (force: a bit 1u << k re-creates
 * part k anyway); then the start for these parameters into y0. Returns
 * the parts created anew (bit 1u << k), 0 when none; -1 with err when a plugin refuses the values or the friction law's
 * bounds fail ("[section] (id): reason"); -2 with err when the values
 * give the system another shape than the model's (they need a model of
 * their own). On -1 and -2 d is as it was, usable for the next values.
 * Does not reset d: nsd_data_reset before the next run. */
int nsd_data_set_params(const nsd_model *m, nsd_data *d, const nsdyn_host *host,
                        const nsdyn_value *const params[NSD_PART_COUNT], unsigned force, char *err,
                        size_t err_len);
/* Data over the model's own instances (not owned: destroying the data
 * leaves them), for the checks at the model's creation; never for runs.
 * A failure of the friction law's bounds() is left in its failure. */
nsd_data *nsd_data_create_checks(const nsd_model *m);
/* The data back to their state right after nsd_data_create, before every
 * run: the plugins' reset() (their state right after create, e.g. a
 * walker's stance leg), the counters, the failure, the contact modes and
 * the holds at gap_rate = 0 (not the section nor the observer, which the
 * analyses set around runs). */
void nsd_data_reset(const nsd_model *m, nsd_data *d);
/* Free d (NULL: nothing), created for m. */
void nsd_data_destroy(const nsd_model *m, nsd_data *d);

/* Instantiate the plugins of a resolved config, read [initial], choose the
 * contact regime (contact/regime.c). */
size_t nsd_model_create(nsd_model *m, const nsd_config *cfg, nsd_diag *diag);
/* The checks of a run's start that creation makes on the model's own
 * instances (the kinematic precheck unless [run] precheck = false, rigid
 * contacts not penetrating at the start), on d's instances at d->y0:
 * for data created with parameters of their own (nsd_data_create_with).
 * Returns the errors added to diag, at cfg's [system]. */
size_t nsd_model_check_start(const nsd_model *m, nsd_data *d, const nsd_config *cfg,
                             nsd_diag *diag);
/* cfg's [initial] entries (the file's, then the overrides) into y0 (n
 * states) and, unless NULL, 1 into y0_set where set; each checked (a
 * state of m's system, a finite real number of a magnitude a step can
 * change), with the config's message at the entry. Returns the errors.
 * The model's creation reads them so, and a run's data on a shared model
 * whose [initial] differs from the model's (nsd_scenario_set_params). */
size_t nsd_model_read_initial(const nsd_model *m, const nsd_config *cfg, double *y0,
                              unsigned char *y0_set, nsd_diag *diag);
/* nsd_model_create without the regime (model_create.c): m->regime NULL.
 * m->y0 stays NULL when the plugins or the layout failed. */
size_t nsd_model_build(nsd_model *m, const nsd_config *cfg, nsd_diag *diag);
void nsd_model_destroy(nsd_model *m);

/* y' = f(t, y) into ydot (n), with the run's data (its counters, failure,
 * buffers); nsd_model_ode hands it to an integrator. */
nsdyn_status nsd_model_rhs(const nsd_model *m, nsd_data *data, double t, const double *y,
                           double *ydot);
/* The event functions g (n_events) at (t, y), in the order of
 * m->event_sources: stop conditions, mode switches, contact events. */
nsdyn_status nsd_model_event_functions(const nsd_model *m, nsd_data *data, double t,
                                       const double *y, double *g);
/* The system's switch functions alone (layout.n_switches values) at (t, y),
 * with the contact modes as they are (the runner's simultaneous switches,
 * run.c). */
nsdyn_status nsd_model_switch_functions(const nsd_model *m, nsd_data *data, double t,
                                        const double *y, double *g);
/* The nsdyn_ode of m for a run with data (ctx = data; data->model is m). */
void nsd_model_ode(const nsd_model *m, nsd_data *data, nsdyn_ode *ode);

/* One sample of every channel at (t, y). */
nsdyn_status nsd_model_sample(const nsd_model *m, nsd_data *data, double t, const double *y,
                              double *row);
/* One sample of the channels c with want[c] != 0 (n_channels flags; NULL:
 * every channel, nsd_model_sample), the others NaN. t and the states are
 * always written. The contact forces are evaluated only when a wanted
 * channel reads them (nsd_channel reads_contacts); the system's outputs
 * are computed only when one is wanted, with contact forces of NaN when
 * none of the wanted ones reads them. A wanted channel that is not
 * finite fails the sample with its name. */
nsdyn_status nsd_model_sample_some(const nsd_model *m, nsd_data *data, double t, const double *y,
                                   const unsigned char *want, double *row);

/* Tangential response of the persistent contacts at (t, y): the free
 * tangential acceleration a_t (m) with zero tangential forces, and the
 * matrix G (m x m) mapping tangential forces to tangential accelerations
 * (G = W_t M^-1 W_t^T). Valid for any system, since dynamics() is affine in
 * the contact forces. Fills m->stick.G and m->stick.rhs (= a_t). */
nsdyn_status nsd_model_tangent_response(const nsd_model *m, nsd_data *data, double t,
                                        const double *y);

/* Time-stepping integrators: the mechanics view of the model (unilateral
 * contacts, free accelerations, Jacobians, M^-1 W^T). */
/* NSDYN_ERROR when the contact law's coefficients() fails (data->failure). */
nsdyn_status nsd_model_mechanics(const nsd_model *m, nsd_data *data, nsdyn_mechanics *mech);

/* After the system's contacts(): every active contact's gap and local
 * velocity finite (and its Jacobian rows and drift, when asked for);
 * otherwise NSDYN_ERROR with m->failure naming the contact and time. */
nsdyn_status nsd_model_check_contacts(const nsd_model *m, nsd_data *data, double t);

/* Rigid contact at the start: a unilateral contact penetrating deeper
 * than tol [m] is an error (m->failure names it): the body would rest
 * there, under the surface. */
nsdyn_status nsd_model_check_initial_gaps(const nsd_model *m, nsd_data *data, double t,
                                          const double *y, double tol);

/* Index of a channel by name, or -1. */
int nsd_model_channel(const nsd_model *m, const char *name);

/* ---- inside the host: the layers above share these ---- */

/* m->failure = "<what> returned status <st> at t = ..."; returns st. */
nsdyn_status nsd_model_fail(const nsd_model *m, nsd_data *data, nsdyn_status st, double t,
                            const char *what);

/* Contact evaluation plus the normal (persistent load, compliant law) and
 * friction forces into m->lambda and the friction state rates into zdot
 * (NULL: none), for contacts not held in stick (their tangential
 * components stay zero). want_jacobians: rows of the persistent contacts
 * into m->W. */
nsdyn_status nsd_model_contact_forces(const nsd_model *m, nsd_data *data, double t, const double *y,
                                      double *zdot, int want_jacobians);

/* Which contacts report their Jacobian rows (into m->W, 3 nv each). */
typedef enum { NSD_ROWS_NONE = 0, NSD_ROWS_PERSISTENT, NSD_ROWS_ALL } nsd_rows;

/* The system's contacts() at (t, q, v) into m->ce, with Jacobian rows (into
 * m->W, 3 nv each) for the contacts `rows` names (m->jac[c] says which got
 * them; a caller may add more before calling nsd_model_contacts_now).
 * Inline: the right-hand side calls it. */
static inline void nsd_model_ask_contacts(const nsd_model *m, nsd_data *data, nsd_rows rows) {
    for (size_t c = 0; c < m->nc; ++c) {
        int want = rows == NSD_ROWS_ALL || (rows == NSD_ROWS_PERSISTENT &&
                                            m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT);
        data->jac[c] = want ? data->W + c * 3 * m->nv : NULL;
    }
}
static inline nsdyn_status nsd_model_contacts_now(const nsd_model *m, nsd_data *data, double t,
                                                  const double *q, const double *v) {
    return nsd_contacts_evaluate(m->sys, data->sys_inst, t, q, v, m->nc, 0, data->jac, data->ce);
}

/* Solve A x = b in place (n small, partial pivoting); returns 0 or -1 if
 * singular. A is overwritten, b becomes x. */
int nsd_solve_small(double *A, double *b, size_t n);

#endif
