/* The rimless wheel (N spokes) or the rocking block (2 contact corners) on
 * a plane of slope gamma, with one unilateral contact per spoke tip.
 * Source: A. Barjau, J. A. Batlle, "Predicting impact scenarios of a
 * rimless wheel: a geometrical approach", Nonlinear Dyn. (2022)
 * (../shared/papers/rimless-wheel-percussion-centre-impact.txt), Sec. 2-3,
 * Appendix A (A.1)-(A.3), Appendix B (B.1); the walking closed form is
 * McGeer's (validation-targets.md, "Rimless wheel walking down a slope").
 *
 * Frame: the slope frame of the paper (Fig. 2): x along the slope,
 * positive downhill (forward), y normal to the slope, up; the ground is
 * y = 0. q = (x_G, y_G, theta) [m, m, rad], theta CLOCKWISE positive (the
 * paper's: a wheel rolling forward has theta' > 0). v = q' (nq = nv = 3).
 * M = diag(m, m, lambda m L^2) (A.3); gravity in this frame
 * (m g sin gamma, -m g cos gamma, 0).
 *
 * Spokes. Spoke k (k = 0..N-1) points from G along (sin a_k, -cos a_k),
 * a_k = beta (1 - 2k) - theta, the angle from the downward normal,
 * positive forward. With N spokes evenly spaced 2 beta = 2 pi / N; with
 * N = 2 the parameter beta sets the half-angle of the rocking block
 * (Fig. 8: its two bottom corners, a/b = 1/tan beta; the top corners are
 * not contact candidates: the block is assumed not to tip over). At
 * theta = 0 spoke 0 is the front spoke Q_f (a = +beta) and spoke 1 the
 * back spoke Q_b (a = -beta); rolling forward, spoke N-1 lands next.
 * Tip k: P_k = G + L (sin a_k, -cos a_k); gap g_k = y_G - L cos a_k.
 * Its velocity (omega = -theta' e_z): (x' - L cos a theta', y' - L sin a
 * theta'), so the local velocity (normal, tangent = +x) is
 *   u_n = y' - L sin a theta',  u_t = x' - L cos a theta',
 * which for a = +beta / -beta are the rows of (A.2):
 *   W_n = (0, 1, -L sin a),  W_t = (1, 0, -L cos a),
 * and the drift (d/dt of W, times v; a' = -theta'):
 *   drift_n = L cos a theta'^2,  drift_t = -L sin a theta'^2.
 * A force (N, F) at the tip gives the generalized force W^T (N, F) =
 * (F, N, -L (N sin a + F cos a)): the clockwise torque of the force about G.
 *
 * Outputs. kinetic, potential (m g times the height of G above the
 * origin, y cos gamma - x sin gamma) and energy [J]. The paper's
 * quantities at the two lowest tips, Q_f the one further forward:
 * front/back (spoke indices), v_nf, v_nb, v_t (at Q_f) [m/s], delta_nf,
 * delta_nb (their gaps: normal displacement, negative = interpenetration
 * of a compliant contact, Sec. 5) [m]; and the Percussion Centre of the
 * current contact forces, (B.1) with the impulse increments replaced by
 * the contact forces' part of the accelerations (the PC of the impulse
 * dP = lambda dt): pc_x = a_y / alpha, pc_y = -a_x / alpha relative to G
 * (alpha the clockwise angular acceleration from the contact forces),
 * pc_valid = 1 where the contact forces have a torque about G (else the
 * PC is at infinity or undefined and pc_x = pc_y = 0).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

#define PI 3.14159265358979323846

enum { MAX_SPOKES = 32 };

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "wheel mass"),
    NSDYN_REAL_F("L", "m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "spoke length (rocking block: distance from G to a corner)"),
    NSDYN_REAL_F("lambda", "1", 0.25, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "inertia ratio I_G / (m L^2) (rocking block: 1/3)"),
    NSDYN_INT("spokes", "1", 8, 2, MAX_SPOKES,
              "number of spokes N (2 beta = 360/N deg); 2 = rod or rocking block"),
    NSDYN_REAL("beta", "deg", 0.0, 0.0, 90.0,
               "half-angle between the two contact spokes; only with spokes = 2 "
               "(rocking block); 0 = 180/N"),
    NSDYN_REAL("gamma", "deg", 0.0, -45.0, 45.0, "slope angle (downhill = +x)"),
    NSDYN_REAL("g", "m/s^2", 9.81, 0.0, HUGE_VAL, "gravitational acceleration"),
    NSDYN_REAL("omega0", "rad/s", 1.0, -HUGE_VAL, HUGE_VAL,
               "default initial state: pivoting on spoke 0 at theta = 0 (both tips "
               "on the ground) with this clockwise angular speed"),
};

typedef struct rimless {
    double m, L, lambda, beta, gamma, g, omega0, I; /* beta, gamma [rad] */
    double beta_deg, gamma_deg;                     /* as declared [deg] */
    int N;
    char names[MAX_SPOKES][12];
    nsdyn_contact_decl decl[MAX_SPOKES];
} rimless;

static const nsdyn_channel q_channels[] = {
    {"x", "m", "centre G along the slope (downhill)"},
    {"y", "m", "centre G normal to the slope"},
    {"theta", "rad", "rotation angle (clockwise)"},
};
static const nsdyn_channel v_channels[] = {
    {"xdot", "m/s", "velocity of G along the slope"},
    {"ydot", "m/s", "velocity of G normal to the slope"},
    {"thetadot", "rad/s", "angular velocity (clockwise)"},
};
enum { O_T, O_V, O_E, O_FRONT, O_BACK, O_VNF, O_VNB, O_VT, O_DNF, O_DNB, O_PCX, O_PCY, O_PCV, N_O };
static const nsdyn_channel outputs[] = {
    [O_T] = {"kinetic_energy", "J", "kinetic energy"},
    [O_V] = {"potential_energy", "J", "potential energy m g h_G"},
    [O_E] = {"energy", "J", "kinetic + potential energy"},
    [O_FRONT] = {"front", "1", "index of the front spoke Q_f (lower two tips, forward one)"},
    [O_BACK] = {"back", "1", "index of the back spoke Q_b"},
    [O_VNF] = {"v_nf", "m/s", "normal velocity of Q_f (A.2)"},
    [O_VNB] = {"v_nb", "m/s", "normal velocity of Q_b (A.2)"},
    [O_VT] = {"v_t", "m/s", "tangential (sliding) velocity of Q_f (A.2)"},
    [O_DNF] = {"delta_nf", "m", "normal displacement (gap) of Q_f; < 0 interpenetration"},
    [O_DNB] = {"delta_nb", "m", "normal displacement (gap) of Q_b; < 0 interpenetration"},
    [O_PCX] = {"pc_x", "m",
               "Percussion Centre of the contact forces, along the slope from G (B.1)"},
    [O_PCY] = {"pc_y", "m", "Percussion Centre, normal to the slope from G (B.1)"},
    [O_PCV] = {"pc_valid", "1", "1 where the contact forces have a torque about G (PC finite)"},
};
static const char *const series[] = {"theta", "thetadot", "v_nf", "v_nb", "v_t", "energy", NULL};
static const char *const phases[] = {"theta:thetadot", NULL};

/* Angle of spoke k from the downward normal, forward positive [rad]. */
static double spoke_angle(const rimless *w, int k, double theta) {
    return w->beta * (1.0 - 2.0 * k) - theta;
}

/* The two lowest tips at theta: *f the forward one, *b the other. */
static void lowest_two(const rimless *w, double theta, int *f, int *b) {
    int i1 = -1, i2 = -1;
    double h1 = HUGE_VAL, h2 = HUGE_VAL;
    for (int k = 0; k < w->N; ++k) {
        double h = -cos(spoke_angle(w, k, theta));
        if (h < h1) {
            i2 = i1, h2 = h1;
            i1 = k, h1 = h;
        } else if (h < h2) {
            i2 = k, h2 = h;
        }
    }
    int one_ahead = sin(spoke_angle(w, i1, theta)) >= sin(spoke_angle(w, i2, theta));
    *f = one_ahead ? i1 : i2;
    *b = one_ahead ? i2 : i1;
}

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len);

/* The parameters, filled by the host into a rimless (plugin.h
 * NSDYN_EXT_PARAM_FIELDS); create() derives beta, gamma [rad], I and the
 * contacts. */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(rimless, m),
                                           NSDYN_FIELD(rimless, L),
                                           NSDYN_FIELD(rimless, lambda),
                                           NSDYN_FIELD_AS(rimless, N, "spokes"),
                                           NSDYN_FIELD_AS(rimless, beta_deg, "beta"),
                                           NSDYN_FIELD_AS(rimless, gamma_deg, "gamma"),
                                           NSDYN_FIELD(rimless, g),
                                           NSDYN_FIELD(rimless, omega0)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(rimless, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const rimless *p = params;
    for (size_t i = 0; i < NSDYN_COUNT(fields); ++i) {
        double x;
        if (fields[i].type != NSDYN_FIELD_DOUBLE) continue; /* spokes: an int */
        memcpy(&x, (const char *)params + fields[i].offset, sizeof x);
        if (!isfinite(x)) {
            snprintf(err, len, "parameter '%s' = %g: expected a finite number", fields[i].name, x);
            return NULL;
        }
    }
    if (!(p->m > 0) || !(p->L > 0) || !(p->lambda > 0) || !(p->g >= 0)) {
        snprintf(err, len,
                 "m = %g kg, L = %g m, lambda = %g, g = %g m/s^2: mass, spoke length and "
                 "inertia ratio must be positive, gravity zero or positive",
                 p->m, p->L, p->lambda, p->g);
        return NULL;
    }
    int N = p->N;
    if (N < 2 || N > MAX_SPOKES) {
        snprintf(err, len, "spokes = %d: expected an integer from 2 to %d", N, MAX_SPOKES);
        return NULL;
    }
    double beta = p->beta_deg * PI / 180.0;
    if (p->beta_deg != 0.0 && N != 2) {
        snprintf(err, len,
                 "beta = %g deg with spokes = %d: beta is set by the spokes (180/N = %g deg); "
                 "give beta only for the rocking block (spokes = 2)",
                 p->beta_deg, N, 180.0 / N);
        return NULL;
    }
    if (p->beta_deg == 0.0) beta = PI / N;
    if (!(beta > 0.0 && beta <= 0.5 * PI) || !(fabs(p->gamma_deg) < 45.0)) {
        snprintf(err, len, "beta = %g deg, gamma = %g deg: expected 0 < beta <= 90, |gamma| < 45",
                 beta * 180.0 / PI, p->gamma_deg);
        return NULL;
    }
    rimless *w = malloc(sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *w = *p; /* the host's block lives only during create() */
    w->beta = beta;
    w->gamma = p->gamma_deg * PI / 180.0;
    w->I = w->lambda * w->m * w->L * w->L; /* (A.3) */
    for (int k = 0; k < N; ++k) {
        snprintf(w->names[k], sizeof w->names[k], "spoke%d", k);
        w->decl[k] = (nsdyn_contact_decl){w->names[k], NSDYN_CONTACT_UNILATERAL, 1};
    }
    return w;
}

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    const rimless *w = inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 3,
        .nv = 3,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = (size_t)w->N,
        .contacts = w->decl,
        .n_outputs = N_O,
        .outputs = outputs,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "horizontal position [m]",
        .draw_y_label = "height [m]",
        .energy_output = "energy",
    };
    return NSDYN_OK;
}

/* theta = 0, both tips 0 and 1 on the ground, rolling without slip about
 * tip 0 (a = beta) at omega0: v_G = omega0 L (cos beta, sin beta). */
static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const rimless *w = inst;
    q[0] = 0.0;
    q[1] = w->L * cos(w->beta);
    q[2] = 0.0;
    v[0] = w->omega0 * w->L * cos(w->beta);
    v[1] = w->omega0 * w->L * sin(w->beta);
    v[2] = w->omega0;
    return NSDYN_OK;
}

/* Contact forces' generalized force sum W^T (N, F) (see the header). */
static void contact_wrench(const rimless *w, double theta, const double *f, double Q[3]) {
    Q[0] = Q[1] = Q[2] = 0.0;
    for (int k = 0; k < w->N; ++k) {
        double N = f[3 * k], F = f[3 * k + 1];
        if (N == 0.0 && F == 0.0) continue;
        double a = spoke_angle(w, k, theta);
        Q[0] += F;
        Q[1] += N;
        Q[2] -= w->L * (N * sin(a) + F * cos(a));
    }
}

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const rimless *w = inst;
    if (qdot)
        for (int i = 0; i < 3; ++i) qdot[i] = v[i];
    if (!vdot) return NSDYN_OK;
    double Q[3];
    contact_wrench(w, q[2], f, Q);
    vdot[0] = (Q[0] + w->m * w->g * sin(w->gamma)) / w->m;
    vdot[1] = (Q[1] - w->m * w->g * cos(w->gamma)) / w->m;
    vdot[2] = Q[2] / w->I;
    return NSDYN_OK;
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *ce) {
    (void)t;
    const rimless *w = inst;
    const double L = w->L, om = v[2];
    for (int k = 0; k < w->N; ++k) {
        nsdyn_contact_eval *e = &ce[k];
        double a = spoke_angle(w, k, q[2]), s = sin(a), c = cos(a);
        e->gap = q[1] - L * c;
        e->u[0] = v[1] - L * s * om;
        e->u[1] = v[0] - L * c * om;
        e->u[2] = 0.0;
        e->normal_load = 0.0;
        if (req->want_geometry) { /* in the drawing's (world) frame, like draw() */
            double x = q[0] + L * s, y = e->gap, cg = cos(w->gamma), sg = sin(w->gamma);
            e->point[0] = x * cg + y * sg;
            e->point[1] = -x * sg + y * cg;
            e->point[2] = 0.0;
            e->normal[0] = sg;
            e->normal[1] = cg;
            e->normal[2] = 0.0;
        }
        double *W = nsdyn_contact_jacobian(req, (size_t)k);
        if (W) { /* (A.2): rows (normal, t1, t2) by (x', y', theta') */
            W[0] = 0.0, W[1] = 1.0, W[2] = -L * s;
            W[3] = 1.0, W[4] = 0.0, W[5] = -L * c;
            W[6] = 0.0, W[7] = 0.0, W[8] = 0.0;
            e->drift[0] = L * c * om * om;
            e->drift[1] = -L * s * om * om;
            e->drift[2] = 0.0;
        }
    }
    return NSDYN_OK;
}

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    const rimless *w = inst;
    const double L = w->L, om = v[2];
    double T = 0.5 * (w->m * (v[0] * v[0] + v[1] * v[1]) + w->I * om * om);
    double V = w->m * w->g * (q[1] * cos(w->gamma) - q[0] * sin(w->gamma));
    out[O_T] = T;
    out[O_V] = V;
    out[O_E] = T + V;
    int fr, bk;
    lowest_two(w, q[2], &fr, &bk);
    double af = spoke_angle(w, fr, q[2]), ab = spoke_angle(w, bk, q[2]);
    out[O_FRONT] = fr;
    out[O_BACK] = bk;
    out[O_VNF] = v[1] - L * sin(af) * om;
    out[O_VNB] = v[1] - L * sin(ab) * om;
    out[O_VT] = v[0] - L * cos(af) * om;
    out[O_DNF] = q[1] - L * cos(af);
    out[O_DNB] = q[1] - L * cos(ab);
    /* (B.1) for the contact forces' accelerations (a_x, a_y, alpha). */
    double Q[3];
    contact_wrench(w, q[2], f, Q);
    double ax = Q[0] / w->m, ay = Q[1] / w->m, al = Q[2] / w->I;
    double scale = fabs(ax) + fabs(ay);
    int valid = fabs(al) * L > 1e-12 * scale && scale > 0.0;
    out[O_PCX] = valid ? ay / al : 0.0;
    out[O_PCY] = valid ? -ax / al : 0.0;
    out[O_PCV] = valid;
    return NSDYN_OK;
}

/* World frame: slope-frame (x, y) -> x (cos g, -sin g) + y (sin g, cos g).
 * Ground (pen 1), spokes (pen 0), G and the two lowest tips (pen 2), and
 * the lambda-line of the front tip (pen 3): the PC of any impulse at Q_f
 * lies on it (Sec. 3, Fig. 6), at distance lambda L from G opposite Q_f;
 * the frictionless PC A (3.6) is marked where it meets the horizontal
 * G-line. (The PC of the current forces needs the forces, which draw()
 * does not receive: it is the pc_x, pc_y output.) */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const rimless *w = inst;
    const double cg = cos(w->gamma), sg = sin(w->gamma), L = w->L;
#define WX(x, y) ((x)*cg + (y)*sg)
#define WY(x, y) (-(x)*sg + (y)*cg)
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    double x0 = q[0] - 2.0 * L, x1 = q[0] + 2.0 * L;
    cv->line(cv->ctx, WX(x0, 0.0), WY(x0, 0.0), WX(x1, 0.0), WY(x1, 0.0));
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    double gx = WX(q[0], q[1]), gy = WY(q[0], q[1]);
    for (int k = 0; k < w->N; ++k) {
        double a = spoke_angle(w, k, q[2]), px = q[0] + L * sin(a), py = q[1] - L * cos(a);
        cv->line(cv->ctx, gx, gy, WX(px, py), WY(px, py));
    }
    cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT);
    cv->circle(cv->ctx, gx, gy, 0.04 * L);
    int fr, bk;
    lowest_two(w, q[2], &fr, &bk);
    int two[2] = {fr, bk};
    for (int i = 0; i < 2; ++i) {
        double a = spoke_angle(w, two[i], q[2]), px = q[0] + L * sin(a), py = q[1] - L * cos(a);
        cv->circle(cv->ctx, WX(px, py), WY(px, py), 0.03 * L);
    }
    const double af = spoke_angle(w, fr, q[2]), lam = w->I / (w->m * L * L);
    const double fx = q[0] - lam * L * sin(af), fy = q[1] + lam * L * cos(af);
    cv->pen(cv->ctx, NSDYN_PEN_TRACE);
    cv->line(cv->ctx, WX(fx - 0.8 * L * cos(af), fy - 0.8 * L * sin(af)),
             WY(fx - 0.8 * L * cos(af), fy - 0.8 * L * sin(af)),
             WX(fx + 0.8 * L * cos(af), fy + 0.8 * L * sin(af)),
             WY(fx + 0.8 * L * cos(af), fy + 0.8 * L * sin(af)));
    if (fabs(sin(af)) > 0.05) { /* A: on the lambda-line at the height of G */
        double s = -lam * L * cos(af) / sin(af), ax = fx + s * cos(af), ay = fy + s * sin(af);
        if (fabs(s) < 0.8 * L) cv->circle(cv->ctx, WX(ax, ay), WY(ax, ay), 0.02 * L);
    }
#undef WX
#undef WY
    return NSDYN_OK;
}

static const nsdyn_system rimless_system = {
    .info =
        NSDYN_SYSTEM_INFO(.id = "rimless_wheel", .version = "1.0.0",
                          .summary =
                              "rimless wheel (N spokes) or rocking block on a slope, a contact per "
                              "spoke tip (Barjau & Batlle 2022)",
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
    return &rimless_system.info;
}
