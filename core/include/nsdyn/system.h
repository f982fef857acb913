/* nsdyn system ABI: a mechanical model.
 *
 * State. Generalized coordinates q (nq) and velocities or pseudo-velocities
 * v (nv, may differ from nq). derivatives() gives both halves of the
 * motion: q' = N(q) v + n0(t, q) and v' from M(q) v' = f(t, q, v) +
 * W(q)^T lambda, returned directly, so a system may use a mass matrix, its
 * inverse, or closed-form equations (the towed wheel uses the paper's
 * equations (1)). One call computes both because they share work (the
 * sines and cosines of the same angles); the host passes NULL for a half it
 * does not need. v' MUST be affine in the contact forces lambda: the host
 * obtains M^-1 W^T (the response to a unit contact force) by evaluating it,
 * exactly, and uses it for stick constraints, limit directions, impacts and
 * Delassus operators.
 *
 * Contacts. A system exposes a fixed list of contact candidates. For each,
 * contacts() reports the gap g(q) (>= 0 when open), the local contact
 * velocity u = W v + w in the contact frame (normal, tangent 1, tangent 2),
 * for persistent contacts the prescribed normal load, and a point and
 * normal for drawing. The host's inputs come apart from the outputs, in an
 * nsdyn_contact_request: whether it wants the point and normal, and where
 * it passes a Jacobian buffer for a contact, the 3 x nv Jacobian rows and
 * the drift (W' v + w', the gamma_n, gamma_t of the curb-wheel paper) that
 * make the local acceleration u' = W v' + drift.
 *
 * Contact forces are passed to derivatives() and outputs() in local
 * coordinates, 3 per candidate: (normal, tangent 1, tangent 2) [N]. A
 * planar contact has tangent_dim 1 and ignores tangent 2.
 */
#ifndef NSDYN_SYSTEM_H
#define NSDYN_SYSTEM_H

#include "nsdyn/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nsdyn_contact_type {
    NSDYN_CONTACT_UNILATERAL = 1, /* can open and close; normal force from the contact law */
    NSDYN_CONTACT_PERSISTENT = 2  /* never opens; normal load given by the system */
} nsdyn_contact_type;

typedef struct nsdyn_contact_decl {
    const char *name; /* e.g. "wheel", "foot1", "corner_A" */
    nsdyn_contact_type type;
    uint32_t tangent_dim; /* 1 (planar) or 2 (spatial slip) */
} nsdyn_contact_decl;

/* Instance layout, filled by layout(); pointers stay valid until destroy(). */
typedef struct nsdyn_system_layout {
    uint32_t struct_size;
    size_t nq, nv;
    const nsdyn_channel *q; /* nq entries */
    const nsdyn_channel *v; /* nv entries */
    size_t n_contacts;
    const nsdyn_contact_decl *contacts;
    size_t n_outputs;
    const nsdyn_channel *outputs; /* system-computed output channels */
    size_t n_stops;
    const char *const *stops; /* names of stop conditions */
    /* Mode switches: event functions of the system's own discrete mode
     * (the walker's stepping-stone rule: heel strike, end of double
     * support). At a located crossing the host calls on_switch(). */
    size_t n_switches;
    const char *const *switches; /* names */
    const int *switch_direction; /* per switch: -1 falling, +1 rising, 0 both */
    /* Suggested graphs: channel names (states or outputs). */
    const char *const *plot_series; /* NULL-terminated */
    const char *const *phase_pairs; /* NULL-terminated, "x:y" */
    const char *draw_x_label;       /* axis labels of the drawing plane */
    const char *draw_y_label;
    /* The output channel that is the mechanical energy (kinetic +
     * potential) [J], or NULL. With NSDYN_CAP_CONSERVATIVE the host checks
     * that it never rises where the contact and friction laws dissipate
     * (ABI 2.0). */
    const char *energy_output;
} nsdyn_system_layout;

/* What the host asks of one contacts() call: inputs only, read-only to the
 * plugin (ABI 2.0). */
typedef struct nsdyn_contact_request {
    uint32_t struct_size;
    /* Nonzero when the host needs point and normal (drawing, event logs);
     * skip them otherwise. */
    int want_geometry;
    /* NULL, or n_contacts entries: jacobian[c] is NULL or a host buffer of
     * 3 x nv (row-major) for the rows of contact c's u with respect to v.
     * Where it is set, fill it and that contact's drift. Read it with
     * nsdyn_contact_jacobian(). */
    double *const *jacobian;
    /* ABI 2.3 (appended): NULL, or n_contacts flags: the host reads the
     * outputs of the contacts c with wanted[c] != 0 only (the step guard
     * follows one contact to its impact), so a system may skip the others
     * and leave their outputs as they are. Read it with
     * nsdyn_contact_wanted(), which also covers an older host's shorter
     * request (every contact wanted). */
    const unsigned char *wanted;
} nsdyn_contact_request;

/* Contact c's Jacobian buffer, or NULL when the host does not want it. */
static inline double *nsdyn_contact_jacobian(const nsdyn_contact_request *request, size_t c) {
    return request && request->jacobian ? request->jacobian[c] : NULL;
}

/* Does the host read contact c's outputs from this call? (ABI 2.3) */
static inline int nsdyn_contact_wanted(const nsdyn_contact_request *request, size_t c) {
    size_t end = offsetof(nsdyn_contact_request, wanted) + sizeof request->wanted;
    if (!request || request->struct_size < end || !request->wanted) return 1;
    return request->wanted[c] != 0;
}

/* What contacts() reports for one candidate: outputs only. */
typedef struct nsdyn_contact_eval {
    double gap;         /* [m], >= 0 open; 0 for persistent contacts */
    double u[3];        /* local velocity (normal, t1, t2) [m/s]; u[0] = g' */
    double normal_load; /* persistent contacts: normal force [N] */
    double point[3];    /* contact point, world frame, for drawing [m]; only
                           when the request wants geometry */
    double normal[3];   /* unit normal, world frame; likewise */
    double drift[3];    /* only where the request gives a Jacobian buffer:
                           u' - W v' [m/s^2] */
    int active;         /* preset to 1 by the host; a system clears it to
                           switch a candidate off in its current mode (no force) */
} nsdyn_contact_eval;

/* The pens of a drawing: what a stroke shows, not its colour; the host
 * picks the colours (plot.c). The values are the ABI's (0..3). */
typedef enum nsdyn_pen {
    NSDYN_PEN_STRUCTURE = 0, /* the bodies: wheel, legs, frame */
    NSDYN_PEN_GROUND = 1,    /* ground, terrain, walls */
    NSDYN_PEN_HIGHLIGHT = 2, /* what the eye should find: contact points, the stance foot */
    NSDYN_PEN_TRACE = 3      /* forces and traces: arrows, paths */
} nsdyn_pen;

typedef void (*nsdyn_canvas_line_fn)(void *ctx, double x0, double y0, double x1, double y1);
typedef void (*nsdyn_canvas_circle_fn)(void *ctx, double x, double y, double r);
typedef void (*nsdyn_canvas_polygon_fn)(void *ctx, size_t n, const double *x, const double *y,
                                        int filled);
/* `pen` is an nsdyn_pen. It stays an int so a canvas receives, and can
 * refuse, a value outside the enum from a plugin built against a later
 * minor (the host draws unknown pens as NSDYN_PEN_STRUCTURE). */
typedef void (*nsdyn_canvas_pen_fn)(void *ctx, int pen);

/* Drawing services the host hands to draw(); coordinates in the drawing
 * plane [m]. */
typedef struct nsdyn_canvas {
    uint32_t struct_size;
    void *ctx;
    nsdyn_canvas_line_fn line;
    nsdyn_canvas_circle_fn circle;
    nsdyn_canvas_polygon_fn polygon;
    nsdyn_canvas_pen_fn pen; /* select an nsdyn_pen for what follows */
} nsdyn_canvas;

/* ---- system callbacks (see nsdyn_system for when each is called) ------ */

typedef nsdyn_status (*nsdyn_system_layout_fn)(void *inst, nsdyn_system_layout *out);
typedef nsdyn_status (*nsdyn_system_initial_state_fn)(void *inst, double *q, double *v);
typedef nsdyn_status (*nsdyn_system_derivatives_fn)(void *inst, double t, const double *q,
                                                    const double *v, const double *contact_force,
                                                    double *qdot, double *vdot);
/* out has n_contacts entries; see nsdyn_contact_request for what to fill. */
typedef nsdyn_status (*nsdyn_system_contacts_fn)(void *inst, double t, const double *q,
                                                 const double *v,
                                                 const nsdyn_contact_request *request,
                                                 nsdyn_contact_eval *out);
typedef nsdyn_status (*nsdyn_system_outputs_fn)(void *inst, double t, const double *q,
                                                const double *v, const double *contact_force,
                                                double *out);
typedef nsdyn_status (*nsdyn_system_stops_fn)(void *inst, double t, const double *q,
                                              const double *v, double *g);
/* ABI 2.5: returns a status, NSDYN_ERROR for a state it cannot draw (void
 * before; the host calls an older system's void draw() through an adapter). */
typedef nsdyn_status (*nsdyn_system_draw_fn)(void *inst, double t, const double *q,
                                             const nsdyn_canvas *canvas);
typedef nsdyn_status (*nsdyn_system_switches_fn)(void *inst, double t, const double *q,
                                                 const double *v, const double *contact_force,
                                                 double *g);
typedef nsdyn_status (*nsdyn_system_on_switch_fn)(void *inst, size_t index, double t, double *q,
                                                  double *v);

/* Summary values a system declares for parameter studies (ABI 2.1; `nsdyn
 * sweep`, docs/sweep.md): numbers the system itself knows how to read off
 * a run, such as the height the tumbleweed reached on the incline. The
 * host calls update() on every sample of a finished run in time order,
 * first = 1 on the first, with that sample's state; update() keeps its
 * running values in values[n] (host-owned; the host sets them to NaN
 * before the first call) and must not change the instance. A value left
 * NaN reads as "not reached". Run class, called between runs only. */
typedef nsdyn_status (*nsdyn_system_summary_fn)(void *inst, double t, const double *q,
                                                const double *v, int first, double *values);

typedef struct nsdyn_system_summaries {
    uint32_t struct_size; /* sizeof(nsdyn_system_summaries) the plugin was built with */
    size_t n;
    const nsdyn_channel *values; /* n: name ([a-z0-9_]+), unit, label */
    nsdyn_system_summary_fn update;
} nsdyn_system_summaries;

/* NSDYN_EXT_FORCE_FREE_OUTPUTS: an nsdyn_force_free_outputs, through the
 * system's extension() (plugin.h). The output channels whose values
 * outputs() computes from t, q, v and the instance alone, without reading
 * contact_force. A study that reads only such outputs (a smallest gap, an
 * energy) samples them without evaluating the contact forces, which costs
 * a contact-law and friction solve per sample (docs/sweep.md, "What a run
 * samples"). For those samples the host passes contact forces of NaN, so
 * an output that does read them comes out NaN and the run fails at that
 * sample with the channel's name, never a silently wrong value. An output
 * not named here is taken to read the forces (the default, and what a
 * system without this interface gets). Discovery class: immutable. */
#define NSDYN_EXT_FORCE_FREE_OUTPUTS "nsdyn.force_free_outputs"

typedef struct nsdyn_force_free_outputs {
    uint32_t struct_size;     /* sizeof(nsdyn_force_free_outputs) the plugin was built with */
    const char *const *names; /* NULL-terminated output channel names */
} nsdyn_force_free_outputs;

/* Contact modes as a system sees them (ABI 2.2, on_contact_modes below).
 * The values are the ABI's. */
typedef enum nsdyn_contact_mode {
    NSDYN_CMODE_UNKNOWN = -1, /* before the first choice of modes (the start) */
    NSDYN_CMODE_OPEN = 0,     /* no force: flight, or bouncing (impacts only) */
    NSDYN_CMODE_CLOSED = 1,   /* sustained contact without tangential force (no friction law) */
    NSDYN_CMODE_STICK = 2,    /* sustained, no slip: rolling */
    NSDYN_CMODE_SLIP = 3      /* sustained, slipping: sliding */
} nsdyn_contact_mode;

/* The event-driven runner changed whether a contact is open or closed
 * (ABI 2.2): the end of an accumulation of impacts (rest, close), a
 * touch-down, a lift-off (open), or a contact switched off by the system's
 * own mode. Called once per resolution of the contact modes in which at
 * least one unilateral contact went from open to closed or back (stick <->
 * slip alone does not call it), and once at the start after the initial
 * modes are chosen, with every old mode NSDYN_CMODE_UNKNOWN. old_modes and
 * new_modes have n (= n_contacts) entries, nsdyn_contact_mode values
 * (persistent contacts always closed: CLOSED, STICK or SLIP). The system
 * may change the velocities v in place (a reset map; q is read-only, the
 * contact geometry stays). If it does, the host logs a `system_reset`
 * event, tells the energy audit, and chooses the contact modes again for
 * the new velocities (impacts, touching set, stick or slip), as after an
 * impact; if that changes an open/closed status again, it calls this
 * again (at most 4 times at one instant). May change instance state (like
 * on_switch); the host calls it only between steps. NULL: not called. */
typedef nsdyn_status (*nsdyn_system_on_contact_modes_fn)(void *inst, double t, size_t n,
                                                         const int *old_modes, const int *new_modes,
                                                         const double *q, double *v);

/* The jump of switch `index` alone (ABI 2.3): the (q, v) that on_switch()
 * leaves when it applies its reset, for the instance in the mode it is in
 * now, written in place, WITHOUT changing the instance (no mode, counter
 * or record). Analyses call it on states near a crossing to differentiate
 * the reset map (the saltation matrices of the variational equations,
 * core/src/analysis/periodic_tangent.c, docs/periodic.md), so it is the
 * reset as a smooth function of the state: leave out the guards with which
 * on_switch() tells a real switch from a spurious crossing (a tolerance
 * on a position would cut through the difference steps). The host calls
 * it only at a crossing, and checks that the run's own state after the
 * switch is its result (or, where on_switch() applied nothing, the state
 * before). A system whose on_switch() never changes q or v may leave it
 * NULL: the jump is then taken as none, and checked likewise. Run class. */
typedef nsdyn_status (*nsdyn_system_switch_map_fn)(void *inst, size_t index, double t, double *q,
                                                   double *v);

typedef struct nsdyn_system {
    nsdyn_plugin_info info;

    nsdyn_system_layout_fn layout;
    /* Default initial state; the config overrides entries by name. */
    nsdyn_system_initial_state_fn initial_state;

    /* Hot path. q' into qdot (nq) and v' into vdot (nv) for the local contact
     * forces contact_force (3 per contact); either output may be NULL, and
     * then only the other is wanted. */
    nsdyn_system_derivatives_fn derivatives;
    nsdyn_system_contacts_fn contacts;

    /* Output channels (n_outputs), optional when n_outputs == 0. */
    nsdyn_system_outputs_fn outputs;
    /* Stop conditions (n_stops): the run ends where one falls through zero. */
    nsdyn_system_stops_fn stops;
    /* Picture of the system at (t, q); optional (NULL when it cannot draw). */
    nsdyn_system_draw_fn draw;

    /* Mode switches (n_switches), optional when n_switches == 0. The event
     * functions may depend on the contact forces. */
    nsdyn_system_switches_fn switches;
    /* Switch `index` fired at t: update the instance's discrete mode; may
     * change q and v in place (a reset map). The host restarts the
     * integrator afterwards. This is the one run-class callback that may
     * change instance state, and the host calls it only between steps. */
    nsdyn_system_on_switch_fn on_switch;

    /* ABI 2.1 (appended): the system's own summary values of a run, or
     * NULL. Read only when info.struct_size covers this field. */
    const nsdyn_system_summaries *summaries;

    /* ABI 2.2 (appended): contact modes changed between open and closed,
     * or NULL (see nsdyn_system_on_contact_modes_fn). Event-driven runs
     * only. Read only when info.struct_size covers this field. */
    nsdyn_system_on_contact_modes_fn on_contact_modes;

    /* ABI 2.3 (appended): the switches' jumps without the mode change, or
     * NULL (see nsdyn_system_switch_map_fn). Read only when
     * info.struct_size covers this field. */
    nsdyn_system_switch_map_fn switch_map;

    /* ABI 2.4 (appended, the last field for good): the plugin's optional
     * interfaces by name, or NULL (plugin.h nsdyn_extension_fn). Read only
     * when info.struct_size covers this field. */
    nsdyn_extension_fn extension;
} nsdyn_system;

/* Descriptor head of a system: NSDYN_SYSTEM_INFO(.id = "...", ...). */
#define NSDYN_SYSTEM_INFO(...) NSDYN_INFO_OF(nsdyn_system, NSDYN_KIND_SYSTEM, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
