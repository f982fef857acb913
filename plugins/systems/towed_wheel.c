/* Towed wheel with spatial Coulomb friction.
 * Source: M. Antali, G. Stepan, "Discontinuous dynamics of wheels with a
 * towed axis" (../shared/papers/towed-wheel-rolling-slipping.txt).
 *
 * Coordinates q = (psi, w): bar angle about the pin [rad], lateral position
 * of the pin [m]. Pseudo-velocities v = (Omega, u1, u2): bar angular
 * velocity [rad/s], longitudinal and lateral velocity of the wheel's
 * contact point [m/s]. nq = 2 != nv = 3: the pin moves as
 *   psi' = Omega,  w' = v sin(psi) + L Omega + u2            (paper (1)).
 * With the friction force F = (F1, F2) on the wheel in the contact frame
 * (longitudinal, lateral), paper (1) reads
 *   Omega' = -B1 k w/(m L) - B2 F2/(m L)
 *   u1'    = -v Omega sin(psi) + B3 F1/m
 *   u2'    = -v Omega cos(psi) - B4 k w/m + B5 F2/m
 * where slipping gives F = -C u/|u|. The sign of the B2 term is the one for
 * which the rolling constraint u = 0 gives the paper's rolling dynamics (2)
 * with A1 = B1 + B4 B2/B5 and A2 = B2/B5 (the extracted text lost it; see
 * docs/towed-wheel.md). derivatives() is affine in F, as the ABI requires,
 * so the host derives rolling (stick), the rolling force and the limit
 * directions R(phi), V(phi) of (3) from this one function.
 *
 * The wheel-ground contact is persistent with normal load C: with the
 * configs' mu_s = mu_k = 1 the friction disc has radius C, the paper's
 * friction magnitude; another coefficient scales it (mu_k C).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"

enum { P_M, P_L, P_K, P_C, P_V, P_B1, P_B2, P_B3, P_B4, P_B5, P_PSI_MAX, P_R, N_P };

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 10.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "mass scale m of equations (1)-(2)"),
    NSDYN_REAL_F("L", "m", 0.5, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "towing bar length L (pin to wheel contact)"),
    NSDYN_REAL("k", "N/m", 2000.0, 0, HUGE_VAL, "lateral stiffness k of the pin"),
    NSDYN_REAL("C", "N", 100.0, 0, HUGE_VAL,
               "normal load scale of the friction law: slip force mu_k C (paper's C with mu = 1)"),
    NSDYN_REAL("v", "m/s", 2.0, 0, HUGE_VAL, "towing speed v of the vehicle"),
    NSDYN_REAL("B1", "1", 1.0, -HUGE_VAL, HUGE_VAL,
               "dimensionless coefficient B1 (pin spring on bar rotation)"),
    NSDYN_REAL("B2", "1", 0.8, -HUGE_VAL, HUGE_VAL,
               "dimensionless coefficient B2 (lateral friction on bar rotation)"),
    NSDYN_REAL_F("B3", "1", 1.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "dimensionless coefficient B3 (longitudinal friction on u1)"),
    NSDYN_REAL("B4", "1", 1.0, -HUGE_VAL, HUGE_VAL,
               "dimensionless coefficient B4 (pin spring on u2)"),
    NSDYN_REAL_F("B5", "1", 1.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "dimensionless coefficient B5 (lateral friction on u2)"),
    NSDYN_REAL_F("psi_max", "rad", 1.2, 0, 3.14159, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "stop the run when |psi| reaches this (jackknifing)"),
    NSDYN_REAL_F("R", "m", 0.1, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "wheel radius, for drawing only"),
};

typedef struct towed_wheel {
    double p[N_P];
} towed_wheel;

static const nsdyn_channel q_channels[] = {
    {"psi", "rad", "bar angle ψ"},
    {"w", "m", "lateral pin position w"},
};
static const nsdyn_channel v_channels[] = {
    {"Omega", "rad/s", "bar angular velocity Ω"},
    {"u1", "m/s", "longitudinal contact velocity u1"},
    {"u2", "m/s", "lateral contact velocity u2"},
};
static const nsdyn_channel outputs[] = {
    {"slip", "m/s", "slip speed |u|"},
    {"F_ratio", "1", "friction ratio |F| / C"},
};
static const nsdyn_contact_decl contacts[] = {{"wheel", NSDYN_CONTACT_PERSISTENT, 2}};
static const char *const stops[] = {"jackknife"};
static const char *const series[] = {"psi", "w", "Omega", "u1", "u2", "F_ratio", NULL};
static const char *const phases[] = {"psi:Omega", "u1:u2", NULL};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    towed_wheel *tw = malloc(sizeof *tw);
    if (!tw) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *tw = *(const towed_wheel *)params; /* the host's block lives only during create() */
    return tw;
}

/* The parameters, filled by the host into p[] (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field fields[] = {NSDYN_FIELD_AS(towed_wheel, p[P_M], "m"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_L], "L"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_K], "k"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_C], "C"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_V], "v"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_B1], "B1"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_B2], "B2"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_B3], "B3"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_B4], "B4"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_B5], "B5"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_PSI_MAX], "psi_max"),
                                           NSDYN_FIELD_AS(towed_wheel, p[P_R], "R")};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(towed_wheel, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 2,
        .nv = 3,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = 1,
        .contacts = contacts,
        .n_outputs = NSDYN_COUNT(outputs),
        .outputs = outputs,
        .n_stops = 1,
        .stops = stops,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "longitudinal position x [m]",
        .draw_y_label = "lateral position y [m]",
    };
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    (void)inst;
    q[0] = 0.01; /* a small bar angle, rolling (u = 0): on the set Sigma */
    q[1] = 0.0;
    v[0] = v[1] = v[2] = 0.0;
    return NSDYN_OK;
}

/* Paper (1): psi' = Omega, w' = v sin(psi) + L Omega + u2 (rows 1 and 3),
 * and rows 2, 4, 5 with the friction force F = (F1, F2) =
 * (f[1], f[2]) [N] on the wheel. */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const double *p = ((towed_wheel *)inst)->p;
    /* sin and cos first: parameters read before the call would be spilled
     * around it. */
    double psi = q[0], sn = sin(psi), cs = cos(psi);
    double m = p[P_M], L = p[P_L], k = p[P_K], V = p[P_V];
    double w = q[1], Omega = v[0];
    if (qdot) {
        qdot[0] = Omega;
        qdot[1] = V * sn + L * Omega + v[2];
    }
    if (vdot) {
        vdot[0] = -p[P_B1] * k * w / (m * L) - p[P_B2] * f[2] / (m * L);
        vdot[1] = -V * Omega * sn + p[P_B3] * f[1] / m;
        vdot[2] = -V * Omega * cs - p[P_B4] * k * w / m + p[P_B5] * f[2] / m;
    }
    return NSDYN_OK;
}

/* The contact velocity is (0, u1, u2): the Jacobian selects v[1], v[2];
 * no drift. Normal load C (see the header comment). */
static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    const double *p = ((towed_wheel *)inst)->p;
    c->gap = 0.0;
    c->u[0] = 0.0;
    c->u[1] = v[1];
    c->u[2] = v[2];
    c->normal_load = p[P_C];
    if (req->want_geometry) { /* drawing only: spares a sincos per right-hand side */
        c->point[0] = p[P_V] * t - p[P_L] * cos(q[0]);
        c->point[1] = q[1] - p[P_L] * sin(q[0]);
        c->point[2] = 0.0;
        c->normal[0] = c->normal[1] = 0.0;
        c->normal[2] = 1.0;
    }
    double *W = nsdyn_contact_jacobian(req, 0);
    if (W) {
        for (int i = 0; i < 9; ++i) W[i] = 0.0;
        W[3 + 1] = 1.0;
        W[6 + 2] = 1.0;
        c->drift[0] = c->drift[1] = c->drift[2] = 0.0;
    }
    return NSDYN_OK;
}

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    (void)q;
    const double *p = ((towed_wheel *)inst)->p;
    out[0] = hypot(v[1], v[2]);
    out[1] = p[P_C] > 0 ? hypot(f[1], f[2]) / p[P_C] : 0.0;
    return NSDYN_OK;
}

static nsdyn_status stops_eval(void *inst, double t, const double *q, const double *v, double *g) {
    (void)t;
    (void)v;
    g[0] = ((towed_wheel *)inst)->p[P_PSI_MAX] - fabs(q[0]);
    return NSDYN_OK;
}

/* Top view on the ground: the vehicle's path (y = 0), the pin spring, the
 * bar and the wheel seen from above; the pin moves at x = v t. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    const double *p = ((towed_wheel *)inst)->p;
    double x_pin = p[P_V] * t, y_pin = q[1], psi = q[0];
    double c = cos(psi), s = sin(psi);
    double xw = x_pin - p[P_L] * c, yw = y_pin - p[P_L] * s;
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, x_pin - 0.3 * p[P_L], 0.0, x_pin + 0.3 * p[P_L], 0.0);
    cv->pen(cv->ctx, NSDYN_PEN_TRACE); /* lateral spring: a short zigzag from the path to the pin */
    double amp = 0.04 * p[P_L], y0 = 0.0;
    for (int i = 0; i < 6; ++i) {
        double ya = y0 + (y_pin - y0) * i / 6.0, yb = y0 + (y_pin - y0) * (i + 1) / 6.0;
        cv->line(cv->ctx, x_pin + (i % 2 ? amp : -amp), ya, x_pin + (i % 2 ? -amp : amp), yb);
    }
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->line(cv->ctx, x_pin, y_pin, xw, yw);
    cv->circle(cv->ctx, x_pin, y_pin, 0.03 * p[P_L]);
    cv->pen(cv->ctx,
            NSDYN_PEN_STRUCTURE); /* the wheel from above: a slim rectangle along the bar */
    double R = p[P_R], hw = 0.12 * R;
    double xs[4] = {xw - R * c - hw * s, xw + R * c - hw * s, xw + R * c + hw * s,
                    xw - R * c + hw * s};
    double ys[4] = {yw - R * s + hw * c, yw + R * s + hw * c, yw + R * s - hw * c,
                    yw - R * s - hw * c};
    cv->polygon(cv->ctx, 4, xs, ys, 1);
    return NSDYN_OK;
}

static const nsdyn_system towed_wheel_system = {
    .info = NSDYN_SYSTEM_INFO(
            .id = "towed_wheel", .version = "1.0.0",
            .summary =
                "towed wheel with spatial Coulomb friction (Antali & Stepan), rolling and slipping",
            NSDYN_PARAMS(params),
            .provides = NSDYN_CAP_PERSISTENT_CONTACTS | NSDYN_CAP_TANGENT_2D | NSDYN_CAP_DRAWS,
            .needs = NSDYN_CAP_FRICTION_2D, .destroy = destroy),
    .extension = extension,
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts_eval,
    .outputs = outputs_eval,
    .stops = stops_eval,
    .draw = draw,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &towed_wheel_system.info;
}
