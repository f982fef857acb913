/* Rimless wheel on a ramp: a point mass m at the hub on massless spokes of
 * length l, n spokes 2 alpha = 2 pi / n apart, rolling down a ramp of
 * angle gamma. The simplest passive walker (McGeer 1990; Coleman, Chatterjee
 * & Ruina, "Motions of a rimless spoked wheel", Dynamics and Stability of
 * Systems 12 (1997) 139-159), with a gait in closed form, which is why it is
 * here: the shooting solver (nsdyn periodic) is checked against it.
 *
 * State: theta, the stance spoke's angle from the ramp normal, positive
 * when the hub is ahead (down the ramp) of the stance foot; omega = theta'.
 * The hub is at l (sin theta, cos theta) in the ramp frame, gravity
 * g (sin gamma, -cos gamma), so V = m g l cos(theta + gamma) and
 *     theta'' = (g / l) sin(theta + gamma).
 * Heel strike (switch "heel_strike", falling): the next spoke reaches the
 * ramp at theta = alpha; event function alpha - theta. The impact is
 * plastic at the new foot, which does not slip; the old foot leaves the
 * ramp. Angular momentum about the new foot is conserved through the
 * impulse there: the hub's velocity l omega, perpendicular to the old
 * spoke, keeps its component perpendicular to the new spoke, 2 alpha away:
 *     theta+ = theta- - 2 alpha,   omega+ = omega- cos(2 alpha).
 * Kinetic energy falls by the factor cos^2(2 alpha).
 * The gait: from theta = -alpha to +alpha the energy equation gives
 *     omega-^2 = omega+^2 + K,   K = (4 g / l) sin(alpha) sin(gamma),
 * so the post-impact rate of the steady gait is
 *     omega*^2 = cos^2(2 alpha) K / (1 - cos^2(2 alpha)),
 * and the step map omega+ -> omega+' = cos(2 alpha) sqrt(omega+^2 + K) has
 * the derivative cos^2(2 alpha) at it: the nontrivial Floquet multiplier.
 * (theta after the section is always -alpha: the other multiplier is 0.)
 * The hub passes over the foot (theta = -gamma) only if
 * omega+^2 > (2 g / l)(1 - cos(alpha - gamma)).
 *
 * Stops: "rolls_back" when theta falls back below -alpha (the wheel would
 * tip onto its previous spoke; not modelled).
 * Outputs: energy [J] (kinetic + potential, the hub's true height over the
 * first foot: m g (l cos(theta) cos(gamma) - x_hub sin(gamma))), steps,
 * x_hub [m] (the hub's travel down the ramp: l sin(theta) plus
 * 2 l sin(alpha) per step).
 * Units: l in m, m in kg, g in m/s^2, gamma in deg, theta0 in rad,
 * omega0 in rad/s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"

#define DEG (3.14159265358979323846 / 180.0)
#define PI 3.14159265358979323846

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("l", "m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "spoke length"),
    NSDYN_REAL_F("m", "kg", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "hub mass"),
    NSDYN_REAL("g", "m/s^2", 9.81, 0.0, HUGE_VAL, "gravitational acceleration"),
    NSDYN_REAL("gamma", "deg", 4.0, -45.0, 45.0, "ramp angle, positive downhill"),
    NSDYN_INT("spokes", "1", 10, 3, 1000, "number of spokes n (2 alpha = 360/n deg)"),
    NSDYN_REAL("theta0", "rad", 0.0, -PI, PI,
               "initial stance angle, within [-alpha, alpha] (0: mid-stance)"),
    NSDYN_REAL("omega0", "rad/s", 1.5, -HUGE_VAL, HUGE_VAL, "initial angular rate"),
};

typedef struct wheel {
    double l, m, g, gamma, alpha, th0, w0; /* gamma, alpha [rad] */
    double gamma_deg, spokes;              /* as declared: gamma [deg], n */
    unsigned steps;
} wheel;

static const nsdyn_channel q_ch[] = {{"theta", "rad", "stance spoke angle from the ramp normal"}};
static const nsdyn_channel v_ch[] = {{"omega", "rad/s", "stance spoke angular rate"}};
static const nsdyn_channel out_ch[] = {
    {"energy", "J", "kinetic + potential energy"},
    {"steps", "1", "heel strikes so far"},
    {"x_hub", "m", "hub travel down the ramp"},
};
static const char *const switches[] = {"heel_strike"};
static const int switch_direction[] = {-1};
static const char *const stops[] = {"rolls_back"};
static const char *const series[] = {"theta", "omega", "energy", NULL};
static const char *const phases[] = {"theta:omega", NULL};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    wheel w = *(const wheel *)params;
    w.gamma = w.gamma_deg * DEG;
    w.alpha = PI / w.spokes;
    if (!(w.l > 0) || !(w.m > 0) || !(w.g >= 0) || !isfinite(w.w0) || !(w.spokes >= 3)) {
        snprintf(err, len, "l, m must be positive, g zero or positive, spokes >= 3, omega0 finite");
        return NULL;
    }
    if (!(fabs(w.th0) <= w.alpha)) {
        snprintf(err, len,
                 "theta0 = %g rad: the stance spoke must be within alpha = %g rad of "
                 "the ramp normal (the next spoke strikes at +alpha)",
                 w.th0, w.alpha);
        return NULL;
    }
    wheel *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *p = w;
    return p;
}

/* The parameters, filled by the host into a wheel (plugin.h
 * NSDYN_EXT_PARAM_FIELDS); create() derives gamma and alpha in radians. */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(wheel, l),
                                           NSDYN_FIELD(wheel, m),
                                           NSDYN_FIELD(wheel, g),
                                           NSDYN_FIELD_AS(wheel, gamma_deg, "gamma"),
                                           NSDYN_FIELD(wheel, spokes),
                                           NSDYN_FIELD_AS(wheel, th0, "theta0"),
                                           NSDYN_FIELD_AS(wheel, w0, "omega0")};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(wheel, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static void reset(void *inst) { ((wheel *)inst)->steps = 0; }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){.struct_size = sizeof *out,
                                 .nq = 1,
                                 .nv = 1,
                                 .q = q_ch,
                                 .v = v_ch,
                                 .n_outputs = NSDYN_COUNT(out_ch),
                                 .outputs = out_ch,
                                 .n_stops = NSDYN_COUNT(stops),
                                 .stops = stops,
                                 .n_switches = NSDYN_COUNT(switches),
                                 .switches = switches,
                                 .switch_direction = switch_direction,
                                 .plot_series = series,
                                 .phase_pairs = phases,
                                 .energy_output = "energy"};
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const wheel *w = inst;
    q[0] = w->th0;
    v[0] = w->w0;
    return NSDYN_OK;
}

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t, (void)f;
    const wheel *w = inst;
    if (qdot) qdot[0] = v[0];
    if (vdot) vdot[0] = w->g / w->l * sin(q[0] + w->gamma);
    return NSDYN_OK;
}

static nsdyn_status contacts(void *inst, double t, const double *q, const double *v,
                             const nsdyn_contact_request *req, nsdyn_contact_eval *out) {
    (void)inst, (void)t, (void)q, (void)v, (void)req, (void)out;
    return NSDYN_OK;
}

/* The hub's travel down the ramp from the first foot: the feet are
 * 2 l sin(alpha) apart. Continuous across a strike. */
static double x_hub(const wheel *w, double th) {
    return w->l * (sin(th) + 2.0 * sin(w->alpha) * w->steps);
}

static nsdyn_status outputs(void *inst, double t, const double *q, const double *v, const double *f,
                            double *out) {
    (void)t, (void)f;
    const wheel *w = inst;
    double x = x_hub(w, q[0]);
    /* true height of the hub: y cos(gamma) - x sin(gamma), y = l cos(theta) */
    out[0] = 0.5 * w->m * w->l * w->l * v[0] * v[0] +
             w->m * w->g * (w->l * cos(q[0]) * cos(w->gamma) - x * sin(w->gamma));
    out[1] = (double)w->steps;
    out[2] = x;
    return NSDYN_OK;
}

static nsdyn_status stops_eval(void *inst, double t, const double *q, const double *v, double *g) {
    (void)t, (void)v;
    const wheel *w = inst;
    g[0] = q[0] + w->alpha + 1e-9; /* falls below -alpha */
    return NSDYN_OK;
}

static nsdyn_status switches_eval(void *inst, double t, const double *q, const double *v,
                                  const double *f, double *g) {
    (void)t, (void)v, (void)f;
    const wheel *w = inst;
    g[0] = w->alpha - q[0];
    return NSDYN_OK;
}

/* The spoke impact's jump: the next spoke becomes the stance spoke, the
 * plastic impact keeps cos(2 alpha) of the rate. */
static void spoke_jump(const wheel *w, double *q, double *v) {
    q[0] -= 2.0 * w->alpha;
    v[0] *= cos(2.0 * w->alpha);
}

/* The jump as a smooth map (system.h switch_map: without on_switch's guard). */
static nsdyn_status switch_map(void *inst, size_t index, double t, double *q, double *v) {
    (void)t;
    if (index == 0) spoke_jump(inst, q, v);
    return NSDYN_OK;
}

static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    (void)t;
    wheel *w = inst;
    if (index != 0 || !(q[0] >= w->alpha - 1e-9)) return NSDYN_OK;
    spoke_jump(w, q, v);
    w->steps++;
    return NSDYN_OK;
}

static const nsdyn_system rimless_hub = {
    .info = NSDYN_SYSTEM_INFO(.id = "rimless_hub", .version = "1.0.0",
                              .summary = "rimless wheel on a ramp: plastic spoke impacts, a "
                                         "closed-form gait (McGeer; Coleman et al. 1997)",
                              NSDYN_PARAMS(params), .provides = NSDYN_CAP_CONSERVATIVE,
                              .destroy = destroy, .reset = reset),
    .extension = extension,
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts,
    .outputs = outputs,
    .stops = stops_eval,
    .switches = switches_eval,
    .on_switch = on_switch,
    .switch_map = switch_map,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &rimless_hub.info;
}
