/* A ball above level ground: the test bed of contact laws.
 *
 * A sphere of mass m [kg] and radius r [m] moves in the vertical plane
 * under gravity g [m/s^2] above the ground y = 0, without rotation.
 * Coordinates q = (x, y): horizontal position and height of the centre [m];
 * velocities v = (vx, vy) [m/s], q' = v.
 *
 * One unilateral contact "ground" (tangent_dim 1): gap g = y - r [m] (the
 * penetration is r - y), local velocity u = (vy, vx, 0), so the Jacobian
 * rows are W = [[0, 1], [1, 0], [0, 0]] with no drift (the ground is flat
 * and fixed). With the local contact force (N, F_t) the equations of motion
 * are M v' = f + W^T lambda with M = m I:
 *   vx' = F_t / m,   vy' = -g + N / m,
 * affine in the contact forces, as system.h requires. Without a friction law
 * F_t = 0 and the ball keeps its horizontal speed.
 *
 * This is the "bouncing point mass" of validation-targets.md: with a
 * compliant law (plugins/contact/compliant.c) it measures the law's
 * restitution and static penetration; with g = 0 one impact is a single
 * compression-expansion cycle.
 *
 * Outputs: energy = (1/2) m (vx^2 + vy^2) + m g (y - r) [J], the ball's
 * mechanical energy with the potential zero where the ball touches the
 * undeformed ground (the energy stored in the contact is the law's and is
 * not included, so the channel dips during contact and shows the loss
 * after it); penetration = max(r - y, 0) [m].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 1.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "mass of the ball"),
    NSDYN_REAL_F("r", "m", 0.05, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "radius of the ball: the contact gap is y - r"),
    NSDYN_REAL("g", "m/s^2", 9.81, 0, HUGE_VAL,
               "gravitational acceleration, towards the ground (0: no gravity)"),
};

typedef struct point_mass {
    double m, r, g;
} point_mass;

static const nsdyn_channel q_channels[] = {
    {"x", "m", "horizontal position x"},
    {"y", "m", "height of the centre y"},
};
static const nsdyn_channel v_channels[] = {
    {"vx", "m/s", "horizontal velocity vx"},
    {"vy", "m/s", "vertical velocity vy"},
};
static const nsdyn_channel outputs[] = {
    {"energy", "J", "kinetic + potential energy"},
    {"penetration", "m", "penetration into the ground r − y"},
};
static const nsdyn_contact_decl contacts[] = {{"ground", NSDYN_CONTACT_UNILATERAL, 1}};
static const char *const series[] = {"y", "vy", "ground.N", "energy", NULL};
static const char *const phases[] = {"y:vy", NULL};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const point_mass *p = params;
    double m = p->m, r = p->r, g = p->g;
    if (!(m > 0 && isfinite(m)) || !(r > 0 && isfinite(r)) || !(g >= 0 && isfinite(g))) {
        snprintf(err, len,
                 "m = %g kg, r = %g m, g = %g m/s^2: the mass and radius must be positive "
                 "and gravity zero or positive, all finite",
                 m, r, g);
        return NULL;
    }
    point_mass *pm = malloc(sizeof *pm);
    if (!pm) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *pm = *p; /* the host's block lives only during create() */
    return pm;
}

/* The parameters, filled by the host into a point_mass (plugin.h
 * NSDYN_EXT_PARAM_FIELDS), in declaration order. */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(point_mass, m), NSDYN_FIELD(point_mass, r),
                                           NSDYN_FIELD(point_mass, g)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(point_mass, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 2,
        .nv = 2,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = 1,
        .contacts = contacts,
        .n_outputs = NSDYN_COUNT(outputs),
        .outputs = outputs,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "horizontal position x [m]",
        .draw_y_label = "height y [m]",
        .energy_output = "energy",
    };
    return NSDYN_OK;
}

/* Dropped from rest with its centre 1 m above the ground. */
static nsdyn_status initial_state(void *inst, double *q, double *v) {
    (void)inst;
    q[0] = 0.0;
    q[1] = 1.0;
    v[0] = v[1] = 0.0;
    return NSDYN_OK;
}

/* q' = v; m v' = (0, -m g) + W^T (N, F_t) with f = (N, F_t, -) [N]. */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    (void)q;
    const point_mass *pm = inst;
    if (qdot) {
        qdot[0] = v[0];
        qdot[1] = v[1];
    }
    if (vdot) {
        vdot[0] = f[1] / pm->m;
        vdot[1] = -pm->g + f[0] / pm->m;
    }
    return NSDYN_OK;
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    (void)t;
    const point_mass *pm = inst;
    c->gap = q[1] - pm->r;
    c->u[0] = v[1]; /* gap rate */
    c->u[1] = v[0]; /* slip along +x */
    c->u[2] = 0.0;
    c->normal_load = 0.0;
    if (req->want_geometry) {
        c->point[0] = q[0];
        c->point[1] = 0.0;
        c->point[2] = 0.0;
        c->normal[0] = 0.0;
        c->normal[1] = 1.0;
        c->normal[2] = 0.0;
    }
    double *W = nsdyn_contact_jacobian(req, 0);
    if (W) {
        /* rows (normal, t1, t2) by columns (vx, vy) */
        W[0] = 0.0, W[1] = 1.0;
        W[2] = 1.0, W[3] = 0.0;
        W[4] = 0.0, W[5] = 0.0;
        c->drift[0] = c->drift[1] = c->drift[2] = 0.0;
    }
    return NSDYN_OK;
}

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    (void)f;
    const point_mass *pm = inst;
    out[0] = 0.5 * pm->m * (v[0] * v[0] + v[1] * v[1]) + pm->m * pm->g * (q[1] - pm->r);
    out[1] = q[1] < pm->r ? pm->r - q[1] : 0.0;
    return NSDYN_OK;
}

/* Side view: the ground around the ball and the ball itself. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const point_mass *pm = inst;
    double x = q[0], y = q[1], r = pm->r;
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, x - 4.0 * r, 0.0, x + 4.0 * r, 0.0);
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->circle(cv->ctx, x, y, r);
    cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT); /* the centre */
    cv->circle(cv->ctx, x, y, 0.08 * r);
    return NSDYN_OK;
}

static const nsdyn_system point_mass_system = {
    .info = NSDYN_SYSTEM_INFO(.id = "point_mass", .version = "1.0.0",
                              .summary = "ball of mass m and radius r under gravity above level "
                                         "ground (contact-law test bed)",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_DRAWS |
                                          NSDYN_CAP_CONSERVATIVE,
                              .destroy = destroy),
    .extension = extension,
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts_eval,
    .outputs = outputs_eval,
    .draw = draw,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &point_mass_system.info;
}
