/* The classic impact oscillator: a harmonically forced mass-spring-damper
 * that hits a rigid stop.
 *
 *     m x'' + c x' + k x = F0 cos(theta),   theta' = omega,   x <= gap,
 *
 * x [m] from the spring's rest position, the stop at x = gap [m] (gap > 0:
 * the stop is not touched at rest). The impacts come from the config's
 * contact law through the event-driven runner: with the rigid law "newton"
 * (coefficient e = r) the velocity after an impact is -r times the one
 * before, the impact oscillator of Shaw & Holmes (J. Sound Vib. 90 (1983)
 * 129-155), Nordmark (J. Sound Vib. 145 (1991) 279-297), Budd & Dux (Phil.
 * Trans. R. Soc. A 347 (1994) 365-389) and di Bernardo, Budd, Champneys &
 * Kowalczyk, "Piecewise-smooth Dynamical Systems" (Springer 2008), §1.2.2
 * and §2.5. Where the forcing holds the mass against the stop, the runner
 * keeps the contact closed (a sticking phase, "chattering" ends in one,
 * Budd & Dux 1994) until the normal force falls to zero.
 *
 * The forcing phase theta [rad] is a state (q' = omega, no velocity of its
 * own: nq = 2, nv = 1), so the system is autonomous and the stroboscopic
 * Poincare section is one of its switches: "forcing_period" fires where
 * theta reaches 2 pi and resets theta to 0. nsdyn periodic shoots on it
 * (free = ["x", "v"]; crossings = k for a period-k orbit).
 *
 * Grazing in closed form: without impacts the steady response is
 *     x(t) = A cos(omega t - phi),  A = F0 / sqrt((k - m omega^2)^2 + (c omega)^2),
 * and it grazes the stop where A = gap (the output a_free [m] is A; the
 * output clearance_free = gap - A [m] is its distance from grazing).
 * Contact: gap function g = gap - x, normal velocity u = -v, so W = [-1]
 * and the contact force N >= 0 enters as m v' = ... - N.
 * Outputs: energy [J] (kinetic + spring, not conserved: the forcing works),
 * clearance = gap - x [m], a_free, clearance_free [m]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"
#include "forcing_phase.h"

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "mass"),
    NSDYN_REAL_F("k", "N/m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "spring stiffness"),
    NSDYN_REAL("c", "N s/m", 0.0, 0.0, HUGE_VAL, "viscous damping coefficient"),
    NSDYN_REAL("F0", "N", 1.0, 0.0, HUGE_VAL, "forcing amplitude: F0 cos(theta)"),
    NSDYN_REAL_F("omega", "rad/s", 2.8, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "forcing frequency: theta' = omega"),
    NSDYN_REAL("gap", "m", 0.1, -HUGE_VAL, HUGE_VAL, "position of the rigid stop: x <= gap"),
};

typedef struct oscillator {
    double m, k, c, F0, omega, gap;
} oscillator;

static const nsdyn_channel q_ch[] = {
    {"x", "m", "displacement x from the spring's rest position"},
    {"theta", "rad", "forcing phase θ in [0, 2π)"},
};
static const nsdyn_channel v_ch[] = {{"v", "m/s", "velocity v = ẋ"}};
static const nsdyn_channel out_ch[] = {
    {"energy", "J", "kinetic + spring energy"},
    {"clearance", "m", "distance to the stop gap − x"},
    {"a_free", "m", "amplitude A of the non-impacting periodic response"},
    {"clearance_free", "m", "gap − A: zero at grazing"},
};
static const nsdyn_contact_decl contacts_decl[] = {{"stop", NSDYN_CONTACT_UNILATERAL, 1}};
static const char *const switches[] = {"forcing_period"};
static const int switch_direction[] = {-1};
static const char *const series[] = {"x", "v", "stop.N", NULL};
static const char *const phases[] = {"x:v", NULL};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    oscillator o = *(const oscillator *)params;
    if (!(o.m > 0 && isfinite(o.m)) || !(o.k > 0 && isfinite(o.k)) ||
        !(o.c >= 0 && isfinite(o.c)) || !(o.F0 >= 0 && isfinite(o.F0)) ||
        !(o.omega > 0 && isfinite(o.omega)) || !isfinite(o.gap)) {
        snprintf(err, len,
                 "m = %g kg, k = %g N/m, c = %g N s/m, F0 = %g N, omega = %g rad/s, gap = %g m: "
                 "m, k, omega must be positive, c and F0 zero or positive, all finite",
                 o.m, o.k, o.c, o.F0, o.omega, o.gap);
        return NULL;
    }
    oscillator *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *p = o;
    return p;
}

/* The parameters, filled by the host into a oscillator (plugin.h
 * NSDYN_EXT_PARAM_FIELDS), in declaration order. */
static const nsdyn_param_field fields[] = {
    NSDYN_FIELD(oscillator, m),  NSDYN_FIELD(oscillator, k),     NSDYN_FIELD(oscillator, c),
    NSDYN_FIELD(oscillator, F0), NSDYN_FIELD(oscillator, omega), NSDYN_FIELD(oscillator, gap)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(oscillator, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){.struct_size = sizeof *out,
                                 .nq = 2,
                                 .nv = 1,
                                 .q = q_ch,
                                 .v = v_ch,
                                 .n_contacts = 1,
                                 .contacts = contacts_decl,
                                 .n_outputs = NSDYN_COUNT(out_ch),
                                 .outputs = out_ch,
                                 .n_switches = NSDYN_COUNT(switches),
                                 .switches = switches,
                                 .switch_direction = switch_direction,
                                 .plot_series = series,
                                 .phase_pairs = phases};
    return NSDYN_OK;
}

/* At rest at the spring's rest position, forcing phase 0. */
static nsdyn_status initial_state(void *inst, double *q, double *v) {
    (void)inst;
    q[0] = q[1] = v[0] = 0.0;
    return NSDYN_OK;
}

/* x' = v, theta' = omega; m v' = F0 cos(theta) - k x - c v - N [N]. */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const oscillator *o = inst;
    if (qdot) {
        qdot[0] = v[0];
        qdot[1] = o->omega;
    }
    if (vdot) vdot[0] = (o->F0 * cos(q[1]) - o->k * q[0] - o->c * v[0] - f[0]) / o->m;
    return NSDYN_OK;
}

static nsdyn_status contacts(void *inst, double t, const double *q, const double *v,
                             const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    (void)t;
    const oscillator *o = inst;
    c->gap = o->gap - q[0];
    c->u[0] = -v[0];
    c->u[1] = c->u[2] = 0.0;
    c->normal_load = 0.0;
    if (req->want_geometry) {
        c->point[0] = o->gap, c->point[1] = 0.0, c->point[2] = 0.0;
        c->normal[0] = -1.0, c->normal[1] = 0.0, c->normal[2] = 0.0;
    }
    double *W = nsdyn_contact_jacobian(req, 0);
    if (W) {
        W[0] = -1.0, W[1] = 0.0, W[2] = 0.0; /* rows (normal, t1, t2), column v */
        c->drift[0] = c->drift[1] = c->drift[2] = 0.0;
    }
    return NSDYN_OK;
}

/* The amplitude of the steady non-impacting response [m]. */
static double free_amplitude(const oscillator *o) {
    double d = o->k - o->m * o->omega * o->omega, e = o->c * o->omega;
    return o->F0 / sqrt(d * d + e * e);
}

static nsdyn_status outputs(void *inst, double t, const double *q, const double *v, const double *f,
                            double *out) {
    (void)t, (void)f;
    const oscillator *o = inst;
    double a = free_amplitude(o);
    out[0] = 0.5 * o->m * v[0] * v[0] + 0.5 * o->k * q[0] * q[0];
    out[1] = o->gap - q[0];
    out[2] = a;
    out[3] = o->gap - a;
    return NSDYN_OK;
}

/* Side view along x: the stop, the spring's anchor and the mass. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const oscillator *o = inst;
    double s = fmax(fabs(o->gap), 0.1);
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, o->gap, -0.5 * s, o->gap, 0.5 * s);
    cv->line(cv->ctx, -4.0 * s, -0.5 * s, -4.0 * s, 0.5 * s);
    cv->pen(cv->ctx, NSDYN_PEN_TRACE);
    cv->line(cv->ctx, -4.0 * s, 0.0, q[0] - 0.2 * s, 0.0);
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->circle(cv->ctx, q[0] - 0.2 * s, 0.0, 0.2 * s);
    return NSDYN_OK;
}

static const nsdyn_system impact_oscillator = {
    .info = NSDYN_SYSTEM_INFO(.id = "impact_oscillator", .version = "1.0.0",
                              .summary = "harmonically forced mass-spring-damper against a rigid "
                                         "stop (Shaw & Holmes 1983; Nordmark 1991)",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_DRAWS,
                              .destroy = destroy),
    .extension = extension,
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts,
    .outputs = outputs,
    .draw = draw,
    .switches = switches_eval,
    .on_switch = on_switch,
    .switch_map = switch_map,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &impact_oscillator.info;
}
