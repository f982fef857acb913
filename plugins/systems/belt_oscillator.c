/* A mass on a moving belt: the classic stick-slip oscillator with exact
 * Coulomb friction (Leine & Nijmeijer, "Dynamics and Bifurcations of
 * Non-Smooth Mechanical Systems" (Springer 2004), ch. 7 and 8, the forced
 * 1-DOF stick-slip system; Popp & Stelter, Phil. Trans. R. Soc. A 332
 * (1990) 89-105).
 *
 *     m x'' + c x' + k x = F0 cos(theta) + F,   theta' = omega,
 *
 * x [m] from the spring's rest position, the belt moving at v_belt [m/s],
 * F [N] the friction force of the belt on the mass. The config's friction
 * law (set-valued "coulomb": mu_s >= mu_k) acts at one persistent contact
 * with the normal load N [N]: while the mass slips on the belt,
 * F = mu_k N sign(v_belt - x'); while it sticks (x' = v_belt), F holds it
 * there, F = k x + c v_belt - F0 cos(theta), until |F| reaches mu_s N. The
 * event-driven runner locates both transitions; the variational Jacobian
 * composes their saltation matrices (docs/periodic.md "Variational
 * Jacobian"): a stick phase erases every perturbation of the velocity, so
 * the monodromy matrix of an orbit with a stick phase is singular.
 *
 * The forcing phase theta [rad] is a state (q' = omega, no velocity of its
 * own), and the stroboscopic Poincare section is the switch
 * "forcing_period" (theta reaches 2 pi, reset to 0), as in
 * impact_oscillator.c. With F0 = 0 the phase only marks the time.
 *
 * Contact: persistent, one tangent along x; local velocity
 * u = (0, x' - v_belt, 0), so the Jacobian row of the tangent is [1] and
 * the tangential force f[1] enters as m v' = ... + f[1].
 * Outputs: slip = x' - v_belt [m/s], F_ratio = F / (N) [1] (its modulus
 * reaches mu_s at the end of a stick phase), energy [J] (kinetic in the
 * ground frame + spring). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"
#include "forcing_phase.h"

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "mass"),
    NSDYN_REAL_F("k", "N/m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "spring stiffness"),
    NSDYN_REAL("c", "N s/m", 0.0, 0.0, HUGE_VAL, "viscous damping coefficient"),
    NSDYN_REAL_F("N", "N", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "normal load of the mass on the belt"),
    NSDYN_REAL("v_belt", "m/s", 0.2, -HUGE_VAL, HUGE_VAL, "belt speed"),
    NSDYN_REAL("F0", "N", 0.0, 0.0, HUGE_VAL, "forcing amplitude: F0 cos(theta)"),
    NSDYN_REAL_F("omega", "rad/s", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "forcing frequency: theta' = omega"),
};

typedef struct belt {
    double m, k, c, N, v_belt, F0, omega;
} belt;

static const nsdyn_channel q_ch[] = {
    {"x", "m", "displacement x from the spring's rest position"},
    {"theta", "rad", "forcing phase θ in [0, 2π)"},
};
static const nsdyn_channel v_ch[] = {{"v", "m/s", "velocity v = ẋ (ground frame)"}};
static const nsdyn_channel out_ch[] = {
    {"slip", "m/s", "slip speed v − v_belt"},
    {"F_ratio", "1", "friction force over the normal load F / N"},
    {"energy", "J", "kinetic (ground frame) + spring energy"},
};
static const nsdyn_contact_decl contacts_decl[] = {{"belt", NSDYN_CONTACT_PERSISTENT, 1}};
static const char *const switches[] = {"forcing_period"};
static const int switch_direction[] = {-1};
static const char *const series[] = {"x", "v", "F_ratio", NULL};
static const char *const phases[] = {"x:v", NULL};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    belt b = *(const belt *)params;
    if (!(b.m > 0 && isfinite(b.m)) || !(b.k > 0 && isfinite(b.k)) ||
        !(b.c >= 0 && isfinite(b.c)) || !(b.N > 0 && isfinite(b.N)) || !isfinite(b.v_belt) ||
        !(b.F0 >= 0 && isfinite(b.F0)) || !(b.omega > 0 && isfinite(b.omega))) {
        snprintf(err, len,
                 "m = %g kg, k = %g N/m, c = %g N s/m, N = %g N, v_belt = %g m/s, F0 = %g N, "
                 "omega = %g rad/s: m, k, N, omega must be positive, c and F0 zero or "
                 "positive, all finite",
                 b.m, b.k, b.c, b.N, b.v_belt, b.F0, b.omega);
        return NULL;
    }
    belt *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *p = b;
    return p;
}

/* The parameters, filled by the host into a belt (plugin.h
 * NSDYN_EXT_PARAM_FIELDS), in declaration order. */
static const nsdyn_param_field fields[] = {
    NSDYN_FIELD(belt, m),      NSDYN_FIELD(belt, k),  NSDYN_FIELD(belt, c),    NSDYN_FIELD(belt, N),
    NSDYN_FIELD(belt, v_belt), NSDYN_FIELD(belt, F0), NSDYN_FIELD(belt, omega)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(belt, fields, create);
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
                                 .phase_pairs = phases,
                                 .draw_x_label = "position x [m]",
                                 .draw_y_label = "height [m]"};
    return NSDYN_OK;
}

/* At the spring's rest position, at rest on the moving belt (slipping
 * unless v_belt = 0), forcing phase 0. */
static nsdyn_status initial_state(void *inst, double *q, double *v) {
    (void)inst;
    q[0] = q[1] = v[0] = 0.0;
    return NSDYN_OK;
}

/* x' = v, theta' = omega; m v' = F0 cos(theta) - k x - c v + F [N]. */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const belt *b = inst;
    if (qdot) {
        qdot[0] = v[0];
        qdot[1] = b->omega;
    }
    if (vdot) vdot[0] = (b->F0 * cos(q[1]) - b->k * q[0] - b->c * v[0] + f[1]) / b->m;
    return NSDYN_OK;
}

static nsdyn_status contacts(void *inst, double t, const double *q, const double *v,
                             const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    (void)t;
    const belt *b = inst;
    c->gap = 0.0;
    c->u[0] = 0.0;
    c->u[1] = v[0] - b->v_belt;
    c->u[2] = 0.0;
    c->normal_load = b->N;
    if (req->want_geometry) {
        c->point[0] = q[0], c->point[1] = 0.0, c->point[2] = 0.0;
        c->normal[0] = 0.0, c->normal[1] = 1.0, c->normal[2] = 0.0;
    }
    double *W = nsdyn_contact_jacobian(req, 0);
    if (W) {
        W[0] = 0.0, W[1] = 1.0, W[2] = 0.0; /* rows (normal, t1, t2), column v */
        c->drift[0] = c->drift[1] = c->drift[2] = 0.0;
    }
    return NSDYN_OK;
}

static nsdyn_status outputs(void *inst, double t, const double *q, const double *v, const double *f,
                            double *out) {
    (void)t;
    const belt *b = inst;
    out[0] = v[0] - b->v_belt;
    out[1] = f[1] / b->N;
    out[2] = 0.5 * b->m * v[0] * v[0] + 0.5 * b->k * q[0] * q[0];
    return NSDYN_OK;
}

/* Side view: the wall, the spring, the mass on the belt, at the fixed
 * length scale (N + F0) / k [m] (the largest spring deflection friction
 * and forcing can hold is of that order), so the wall stays put. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const belt *b = inst;
    double s = (b->N + b->F0) / b->k, w = 0.06 * s;
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, -s, 0.0, 2.0 * s, 0.0);
    cv->line(cv->ctx, -s, 0.0, -s, 4.0 * w);
    cv->pen(cv->ctx, NSDYN_PEN_TRACE);
    cv->line(cv->ctx, -s, w, q[0] - w, w);
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    double xs[4] = {q[0] - w, q[0] + w, q[0] + w, q[0] - w};
    double ys[4] = {0.0, 0.0, 2.0 * w, 2.0 * w};
    cv->polygon(cv->ctx, 4, xs, ys, 1);
    return NSDYN_OK;
}

static const nsdyn_system belt_oscillator = {
    .info = NSDYN_SYSTEM_INFO(.id = "belt_oscillator", .version = "1.0.0",
                              .summary = "mass on a moving belt with a spring, a damper and exact "
                                         "Coulomb friction: the stick-slip oscillator",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_PERSISTENT_CONTACTS | NSDYN_CAP_DRAWS,
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
    return &belt_oscillator.info;
}
