/* An example system plugin, built out of tree against an installed nsdyn
 * (README.md of this folder): a pendulum that swings into a wall.
 *
 * A point mass m [kg] on a massless rod of length L [m], pivoted at the
 * origin, under gravity g [m/s^2]. q = theta [rad], the angle from the
 * downward vertical (positive towards +x); v = omega [rad/s]. The bob, a
 * disc of radius r [m], is at p = (L sin theta, -L cos theta). A wall, the
 * vertical line x = d [m], stands to the right of the pivot (r < d < L + r).
 *
 * One unilateral contact "wall" (tangent_dim 1):
 *   gap     g = d - r - L sin theta                       [m]
 *   normal  -x (from the wall towards the bob), tangent t1 = +y
 *   u_n = g' = -L cos(theta) omega,  u_t = y' = L sin(theta) omega
 * so the Jacobian rows (one column, omega) are W = [-L cos th; L sin th; 0]
 * and the drift u' - W v' = (L sin(th) omega^2, L cos(th) omega^2, 0).
 * With the local contact force (N, F_t):
 *   m L^2 omega' = -m g L sin(theta) + W^T (N, F_t)
 *                = -m g L sin(theta) - L cos(theta) N + L sin(theta) F_t,
 * affine in the forces, as system.h requires.
 *
 * Outputs: energy = 1/2 m L^2 omega^2 + m g L (1 - cos theta) [J] (the
 * system is conservative: with every contact force zero it is constant, so
 * the host audits it), x_bob [m]. With plastic impacts (newton, e = 0) the
 * bob comes to rest against the wall; with e > 0 it rebounds; with a
 * compliant law (hunt_crossley) it presses into the wall.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"

enum { P_M, P_L, P_R, P_D, P_G, P_TH0, N_P };

static const nsdyn_param_decl params[] = {
    [P_M] = NSDYN_REAL_F("m", "kg", 1.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "bob mass"),
    [P_L] = NSDYN_REAL_F("L", "m", 1.0, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "rod length"),
    [P_R] = NSDYN_REAL_F("r", "m", 0.05, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "bob radius"),
    [P_D] = NSDYN_REAL_F("d", "m", 0.5, 0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "distance of the wall x = d from the pivot"),
    [P_G] = NSDYN_REAL("g", "m/s^2", 9.81, 0, HUGE_VAL, "gravitational acceleration"),
    [P_TH0] = NSDYN_REAL("theta0", "rad", -1.0, -3.0, 3.0,
                         "initial angle from the downward vertical (released at rest)"),
};

typedef struct swing {
    double m, L, r, d, g, theta0;
} swing;

static const nsdyn_channel q_channels[] = {{"theta", "rad", "rod angle theta"}};
static const nsdyn_channel v_channels[] = {{"omega", "rad/s", "angular velocity omega"}};
static const nsdyn_channel outputs[] = {
    {"energy", "J", "kinetic + potential energy"},
    {"x_bob", "m", "horizontal position of the bob"},
};
static const nsdyn_contact_decl contacts[] = {{"wall", NSDYN_CONTACT_UNILATERAL, 1}};
static const char *const series[] = {"theta", "omega", "wall.N", "energy", NULL};
static const char *const phases[] = {"theta:omega", NULL};

static void *create(const nsdyn_value *v, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    swing s = {v[P_M].num, v[P_L].num, v[P_R].num, v[P_D].num, v[P_G].num, v[P_TH0].num};
    if (!(s.d > s.r && s.d < s.L + s.r)) {
        snprintf(err, len, "d = %g m: the wall must stand between r = %g m and L + r = %g m", s.d,
                 s.r, s.L + s.r);
        return NULL;
    }
    if (!(s.d - s.r - s.L * sin(s.theta0) >= 0.0)) {
        snprintf(err, len, "theta0 = %g rad puts the bob inside the wall", s.theta0);
        return NULL;
    }
    swing *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *p = s;
    return p;
}

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 1,
        .nv = 1,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = 1,
        .contacts = contacts,
        .n_outputs = NSDYN_COUNT(outputs),
        .outputs = outputs,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "x [m]",
        .draw_y_label = "y [m]",
        .energy_output = "energy",
    };
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const swing *s = inst;
    q[0] = s->theta0;
    v[0] = 0.0;
    return NSDYN_OK;
}

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const swing *s = inst;
    if (qdot) qdot[0] = v[0];
    if (vdot) {
        double sn = sin(q[0]), cs = cos(q[0]);
        vdot[0] =
            (-s->m * s->g * s->L * sn - s->L * cs * f[0] + s->L * sn * f[1]) / (s->m * s->L * s->L);
    }
    return NSDYN_OK;
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    (void)t;
    const swing *s = inst;
    double sn = sin(q[0]), cs = cos(q[0]), w = v[0];
    c->gap = s->d - s->r - s->L * sn;
    c->u[0] = -s->L * cs * w;
    c->u[1] = s->L * sn * w;
    c->u[2] = 0.0;
    c->normal_load = 0.0;
    if (req->want_geometry) {
        c->point[0] = s->d, c->point[1] = -s->L * cs, c->point[2] = 0.0;
        c->normal[0] = -1.0, c->normal[1] = 0.0, c->normal[2] = 0.0;
    }
    double *W = nsdyn_contact_jacobian(req, 0);
    if (W) {
        W[0] = -s->L * cs, W[1] = s->L * sn, W[2] = 0.0;
        c->drift[0] = s->L * sn * w * w;
        c->drift[1] = s->L * cs * w * w;
        c->drift[2] = 0.0;
    }
    return NSDYN_OK;
}

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t, (void)f;
    const swing *s = inst;
    out[0] = 0.5 * s->m * s->L * s->L * v[0] * v[0] + s->m * s->g * s->L * (1.0 - cos(q[0]));
    out[1] = s->L * sin(q[0]);
    return NSDYN_OK;
}

static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const swing *s = inst;
    double x = s->L * sin(q[0]), y = -s->L * cos(q[0]);
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, s->d, 0.2 * s->L, s->d, -1.2 * s->L);
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->line(cv->ctx, 0.0, 0.0, x, y);
    cv->circle(cv->ctx, x, y, s->r);
    cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT); /* the pivot */
    cv->circle(cv->ctx, 0.0, 0.0, 0.2 * s->r);
    return NSDYN_OK;
}

static const nsdyn_system swing_system = {
    .info = NSDYN_SYSTEM_INFO(.id = "swing", .version = "1.0.0",
                              .summary = "pendulum swinging into a wall (SDK example system)",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_DRAWS |
                                          NSDYN_CAP_CONSERVATIVE,
                              .create = create, .destroy = destroy),
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts_eval,
    .outputs = outputs_eval,
    .draw = draw,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    return host_abi_major == NSDYN_ABI_MAJOR && index == 0 ? &swing_system.info : NULL;
}
