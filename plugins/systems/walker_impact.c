/* The impact-based passive walker of Koop & Wu 2013, Appendix B
 * (../shared/papers/passive-walker-hunt-crossley-lugre.txt): the same
 * two-link walker as walker2 (arced feet of radius rho and offset delta, a
 * hip mass M, legs of mass m with their centre b from the hip and radius
 * of gyration r_g), but with a rigid stance foot that rolls without
 * slipping and an instantaneous plastic heel strike. docs/walker.md holds
 * the derivation; this header the results.
 *
 * Coordinates. theta_st, theta_sw: the stance and swing legs' angles from
 * the ramp normal, positive when the foot is ahead (down the ramp) of the
 * hip (walker2's theta). The stance foot rolls: the hip moves with
 *     x' = -bt(theta_st) omega_st,   y = l cos th - rho cos(th - delta) + rho,
 * bt = l cos th - rho cos(th - delta) + rho (walker_gait.h). q = (theta_st,
 * theta_sw, x_hip), v = (omega_st, omega_sw): x_hip is carried (q' = N v)
 * only for the energy and the drawing; nothing depends on it.
 *
 * Swing phase (B1). With walker2's full coordinates p = (x, y, th_st, th_sw),
 * its mass matrix M4 (3, with the erratum m(b^2 + r_g^2)) and right-hand
 * side f4 = F - H - G without contact forces, and the rolling map
 * p' = A(q) v, A = [[-bt, 0], [-a, 0], [1, 0], [0, 1]], the reduced
 * equations are
 *     (A^T M4 A) v' = A^T (f4 - M4 A' v),   A' v = (-dbt w_st^2, -da w_st^2, 0, 0):
 * d'Alembert with the rolling constraint, whose contact force does no
 * virtual work. Written out, A^T M4 A is (B2)-(B5) exactly (checked in
 * docs/walker.md); the 2 x 2 system is solved by Cramer's rule.
 *
 * Foot scuffing (Sec. 2.3, "stepping stones"): the swing foot passes
 * through the ramp until the swing leg leads the stance leg by more than
 * alpha0; the heel strike is the swing foot's lowest point crossing the
 * ramp downwards with that lead (walker2's rule and event function, whose
 * negative constant -l keeps mid-swing from firing):
 *     g = l (cos th_st - cos th_sw) - rho (cos(th_st - delta) - cos(th_sw - delta))
 * when lead > alpha0, else -l.
 *
 * Heel strike (B11)-(B12): a plastic impulse at the new stance foot,
 * which then rolls (no slip, no rebound); the old stance foot leaves the
 * ramp without an impulse. In p: M4 (p'+ - p'-) = W^T Lambda with the new
 * foot's rows W, and W p'+ = 0, so the post-impact rates solve
 *     (A_new^T M4 A_new) v+ = A_new^T M4 p'-,   p'- = A_old v-:
 * the generalized momenta of the new coordinates are conserved: the swing
 * row is the old stance leg's angular momentum about the hip, the sum of
 * the rows the whole walker's angular momentum about the new contact
 * point (the paper's two conservation laws). Positions swap (B12): th_st+
 * = th_sw-, th_sw+ = th_st-. Kinetic energy falls by
 * (1/2)(p'- - p'+)^T M4 (p'- - p'+) >= 0. The printed (B13)-(B19) differ
 * from this: they omit the legs' own inertia m r_g^2 in (B14)-(B17) and
 * (B19), and (B13) keeps only the rho-terms of Q-_11 (docs/walker.md).
 *
 * Outputs: theta1, theta2, omega1, omega2 (by leg; leg 1 stands first),
 * alpha = theta1 - theta2, hip_height, energy [J] (kinetic + potential as
 * walker2's, V = g[(M+2m)(y cos gamma - x sin gamma) - m b (cos(th1 -
 * gamma) + cos(th2 - gamma))]), stance (1 or 2), steps, and at each heel
 * strike step_length (22), step_period and hip_velocity (23) as walker2
 * computes them (walker_gait.h).
 * Stops: "fall" (hip below fall_height l), "leg_angle" (|theta| >= 90 deg),
 * "pitched_forward" (the stance leg rotates forward past theta_st = -pi/4:
 * the hip has gone far past the stance foot, the walker falls forward,
 * downhill, with x_hip still growing; legs lead with larger theta, so
 * progression lowers theta_st. It was named "backwards" before issue 27,
 * which misnamed the forward fall).
 * Units: l, rho, b, r_g in m; m, M in kg; gamma, delta, alpha0 in degrees
 * (Tables 6-8); the initial angles and rates in rad and rad/s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"
#include "walker_gait.h"

#define DEG (3.14159265358979323846 / 180.0)
#define HALF_PI 1.57079632679489661923

enum {
    P_L,
    P_RHO,
    P_DELTA,
    P_GAMMA,
    P_m,
    P_M,
    P_B,
    P_RG,
    P_G,
    P_ALPHA0,
    P_TH_ST,
    P_TH_SW,
    P_W_ST,
    P_W_SW,
    P_FALL,
    P_IMPACT_RG,
    N_P
};

static const char *const impact_choices[] = {"full", "printed", NULL};

static const nsdyn_param_decl params[] = {
    [P_L] = NSDYN_REAL_F("l", "m", 0.4143, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "leg length l (Table 6)"),
    [P_RHO] = NSDYN_REAL("rho", "m", 0.0860, 0.0, HUGE_VAL, "foot arc radius rho, < l (Table 6)"),
    [P_DELTA] = NSDYN_REAL_F("delta", "deg", 0.0, -90.0, 90.0,
                             NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                             "angle offset delta of the foot arc (Table 6)"),
    [P_GAMMA] = NSDYN_REAL("gamma", "deg", 2.05, -45.0, 45.0, "ramp angle gamma (Table 6)"),
    [P_m] = NSDYN_REAL_F("m", "kg", 5.1587, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "mass m of each leg (Table 6)"),
    [P_M] = NSDYN_REAL("M", "kg", 1.2826, 0.0, HUGE_VAL, "hip mass M (Table 6)"),
    [P_B] =
        NSDYN_REAL("b", "m", 0.1930, 0.0, HUGE_VAL, "hip to a leg's centre of mass (Table 8, L#4)"),
    [P_RG] = NSDYN_REAL("r_g", "m", 0.1067, 0.0, HUGE_VAL,
                        "radius of gyration of a leg about its centre (Table 8, L#4)"),
    [P_G] = NSDYN_REAL("g", "m/s^2", 9.81, 0.0, HUGE_VAL, "gravitational acceleration"),
    [P_ALPHA0] = NSDYN_REAL_F("alpha0", "deg", 10.0, 0.0, 90.0, NSDYN_PARAM_MAX_EXCLUSIVE,
                              "minimum lead of the swing leg for a heel strike (Table 7)"),
    [P_TH_ST] = NSDYN_REAL_F("theta_st0", "rad", 0.2, -HALF_PI, HALF_PI,
                             NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                             "initial stance leg angle (leg 1)"),
    [P_TH_SW] = NSDYN_REAL_F("theta_sw0", "rad", -0.2, -HALF_PI, HALF_PI,
                             NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                             "initial swing leg angle (leg 2)"),
    [P_W_ST] =
        NSDYN_REAL("omega_st0", "rad/s", -1.5, -HUGE_VAL, HUGE_VAL, "initial stance leg rate"),
    [P_W_SW] =
        NSDYN_REAL("omega_sw0", "rad/s", -1.0, -HUGE_VAL, HUGE_VAL, "initial swing leg rate"),
    [P_FALL] = NSDYN_REAL("fall_height", "1", 0.5, 0.0, 1.0,
                          "stop 'fall' when the hip is lower than this fraction of l"),
    [P_IMPACT_RG] = NSDYN_CHOICE("impact_inertia", 0.0, impact_choices,
                                 "legs' inertia in the heel strike: full = m(b^2 + r_g^2) "
                                 "(derived), printed = m b^2 as (B13)-(B19) print it"),
};

typedef struct walker {
    walker_legs legs;
    double gamma, m, M, b, rg, g, alpha0, th0[2], w0[2], fall;
    double mt, J, mb, sg, cg; /* derived */
    double J_impact;          /* leg inertia about the hip in the heel strike */
    /* discrete state */
    int stance; /* leg (0 or 1) that stands */
    unsigned steps;
    double t_hs, th_ld_hs, step_length, step_period, hip_velocity;
} walker;

static const nsdyn_channel q_ch[] = {
    {"theta_st", "rad", "stance leg angle"},
    {"theta_sw", "rad", "swing leg angle"},
    {"x_hip", "m", "hip position along the ramp"},
};
static const nsdyn_channel v_ch[] = {
    {"omega_st", "rad/s", "stance leg angular velocity"},
    {"omega_sw", "rad/s", "swing leg angular velocity"},
};
enum {
    O_TH1,
    O_TH2,
    O_W1,
    O_W2,
    O_ALPHA,
    O_HIP_H,
    O_ENERGY,
    O_STANCE,
    O_STEPS,
    O_LEN,
    O_PER,
    O_VEL,
    N_O
};
static const nsdyn_channel out_ch[] = {
    [O_TH1] = {"theta1", "rad", "leg 1 angle"},
    [O_TH2] = {"theta2", "rad", "leg 2 angle"},
    [O_W1] = {"omega1", "rad/s", "leg 1 angular velocity"},
    [O_W2] = {"omega2", "rad/s", "leg 2 angular velocity"},
    [O_ALPHA] = {"alpha", "rad", "inner leg angle θ₁ − θ₂"},
    [O_HIP_H] = {"hip_height", "m", "hip height above the ramp"},
    [O_ENERGY] = {"energy", "J", "kinetic + potential energy"},
    [O_STANCE] = {"stance", "1", "stance leg (1 or 2)"},
    [O_STEPS] = {"steps", "1", "heel strikes so far"},
    [O_LEN] = {"step_length", "m", "last step length (22)"},
    [O_PER] = {"step_period", "s", "last step period"},
    [O_VEL] = {"hip_velocity", "m/s", "last average hip velocity (23)"},
};
static const char *const stops[] = {"fall", "leg_angle", "pitched_forward"};
static const char *const switches[] = {"heel_strike"};
static const int switch_direction[] = {-1};
static const char *const series[] = {"theta1", "theta2",      "alpha", "hip_height",
                                     "energy", "step_length", NULL};
static const char *const phases[] = {"theta1:omega1", NULL};

/* ---- mechanics ----------------------------------------------------------- */

/* walker2's mass matrix M4 (3, corrected) at leg angles (th_a, th_b), in
 * the order (x, y, th_a, th_b), row-major, with the legs' inertia J about
 * the hip. */
static void mass4(const walker *w, double J, double th_a, double th_b, double M4[16]) {
    double ca = cos(th_a), sa = sin(th_a), cb = cos(th_b), sb = sin(th_b), mb = w->mb;
    const double v[16] = {w->mt,   0.0,     mb * ca, mb * cb, 0.0,     w->mt,   mb * sa, mb * sb,
                          mb * ca, mb * sa, J,       0.0,     mb * cb, mb * sb, 0.0,     J};
    for (int i = 0; i < 16; ++i) M4[i] = v[i];
}

/* The rolling map's columns for stance angle th_s in slot s (2 or 3) and
 * swing slot the other: A (4 x 2, row-major). */
static void rolling_map(const walker *w, double th_s, int s, double A[8]) {
    walker_foot f = walker_foot_at(&w->legs, th_s);
    for (int i = 0; i < 8; ++i) A[i] = 0.0;
    A[0] = -f.bt;
    A[2] = -f.a;
    A[s * 2 + 0] = 1.0;
    A[(5 - s) * 2 + 1] = 1.0;
}

/* R = A^T M4 B (2 x 2) for A, B 4 x 2. */
static void congruence(const double A[8], const double M4[16], const double B[8], double R[4]) {
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            double s = 0.0;
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c) s += A[r * 2 + i] * M4[r * 4 + c] * B[c * 2 + j];
            R[i * 2 + j] = s;
        }
}

static int solve2(const double A[4], const double b[2], double x[2]) {
    double det = A[0] * A[3] - A[1] * A[2];
    if (!(fabs(det) > 0.0)) return -1;
    x[0] = (b[0] * A[3] - A[1] * b[1]) / det;
    x[1] = (A[0] * b[1] - A[2] * b[0]) / det;
    return 0;
}

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t, (void)f;
    const walker *w = inst;
    double s = q[0], sw = q[1], ws = v[0], ww = v[1];
    walker_foot fs = walker_foot_at(&w->legs, s);
    if (qdot) {
        qdot[0] = ws;
        qdot[1] = ww;
        qdot[2] = -fs.bt * ws;
    }
    if (!vdot) return NSDYN_OK;
    double M4[16], A[8], Mr[4];
    mass4(w, w->J, s, sw, M4);
    rolling_map(w, s, 2, A);
    congruence(A, M4, A, Mr);
    /* f4 - M4 A'v: walker2's right-hand side without contact forces,
     * minus the rolling drift's inertia */
    double f4[4] = {w->mb * (ws * ws * sin(s) + ww * ww * sin(sw)) + w->mt * w->g * w->sg,
                    -w->mb * (ws * ws * cos(s) + ww * ww * cos(sw)) - w->mt * w->g * w->cg,
                    -w->mb * w->g * sin(s - w->gamma), -w->mb * w->g * sin(sw - w->gamma)};
    double d[4] = {-fs.dbt * ws * ws, -fs.da * ws * ws, 0.0, 0.0};
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) f4[r] -= M4[r * 4 + c] * d[c];
    double rhs[2] = {0.0, 0.0};
    for (int r = 0; r < 4; ++r) {
        rhs[0] += A[r * 2] * f4[r];
        rhs[1] += A[r * 2 + 1] * f4[r];
    }
    return solve2(Mr, rhs, vdot) == 0 ? NSDYN_OK : NSDYN_ERROR;
}

static nsdyn_status contacts(void *inst, double t, const double *q, const double *v,
                             const nsdyn_contact_request *req, nsdyn_contact_eval *out) {
    (void)inst, (void)t, (void)q, (void)v, (void)req, (void)out;
    return NSDYN_OK;
}

/* Hip height with the stance foot on the ramp. */
static double hip_y(const walker *w, double th_st) { return -walker_foot_at(&w->legs, th_st).cy; }

static double energy(const walker *w, const double *q, const double *v) {
    double M4[16], A[8], Mr[4];
    mass4(w, w->J, q[0], q[1], M4);
    rolling_map(w, q[0], 2, A);
    congruence(A, M4, A, Mr);
    double T = 0.5 * (Mr[0] * v[0] * v[0] + 2.0 * Mr[1] * v[0] * v[1] + Mr[3] * v[1] * v[1]);
    double V = w->g * (w->mt * (hip_y(w, q[0]) * w->cg - q[2] * w->sg) -
                       w->mb * (cos(q[0] - w->gamma) + cos(q[1] - w->gamma)));
    return T + V;
}

static nsdyn_status outputs(void *inst, double t, const double *q, const double *v, const double *f,
                            double *out) {
    (void)t, (void)f;
    const walker *w = inst;
    int s = w->stance;
    out[O_TH1] = s == 0 ? q[0] : q[1];
    out[O_TH2] = s == 0 ? q[1] : q[0];
    out[O_W1] = s == 0 ? v[0] : v[1];
    out[O_W2] = s == 0 ? v[1] : v[0];
    out[O_ALPHA] = out[O_TH1] - out[O_TH2];
    out[O_HIP_H] = hip_y(w, q[0]);
    out[O_ENERGY] = energy(w, q, v);
    out[O_STANCE] = (double)(s + 1);
    out[O_STEPS] = (double)w->steps;
    out[O_LEN] = w->step_length;
    out[O_PER] = w->step_period;
    out[O_VEL] = w->hip_velocity;
    return NSDYN_OK;
}

static nsdyn_status stops_eval(void *inst, double t, const double *q, const double *v, double *g) {
    (void)t, (void)v;
    const walker *w = inst;
    g[0] = hip_y(w, q[0]) - w->fall * w->legs.l;
    g[1] = HALF_PI - fmax(fabs(q[0]), fabs(q[1]));
    g[2] = q[0] + 0.5 * HALF_PI;
    return NSDYN_OK;
}

/* Height of the swing foot's lowest point above the ramp. */
static double swing_height(const walker *w, const double *q) {
    return hip_y(w, q[0]) + walker_foot_at(&w->legs, q[1]).cy;
}

static nsdyn_status switches_eval(void *inst, double t, const double *q, const double *v,
                                  const double *f, double *g) {
    (void)t, (void)v, (void)f;
    const walker *w = inst;
    g[0] = q[1] - q[0] > w->alpha0 ? swing_height(w, q) : -w->legs.l;
    return NSDYN_OK;
}

/* The plastic heel strike (header): v+ from the conserved momenta,
 * positions swapped. The state arrays in and out may alias. */
static int impact_map(const walker *w, const double *q, const double *v, double *q_out,
                      double *v_out) {
    double M4[16], Ao[8], An[8], Qp[4], Qm[4];
    mass4(w, w->J_impact, q[0], q[1], M4); /* slots: 2 = old stance, 3 = old swing */
    rolling_map(w, q[0], 2, Ao);
    rolling_map(w, q[1], 3, An); /* new stance = the old swing leg */
    congruence(An, M4, An, Qp);
    congruence(An, M4, Ao, Qm);
    double b[2] = {Qm[0] * v[0] + Qm[1] * v[1], Qm[2] * v[0] + Qm[3] * v[1]}, vp[2];
    if (solve2(Qp, b, vp) != 0) return -1;
    double th_st = q[0];
    q_out[0] = q[1];
    q_out[1] = th_st;
    q_out[2] = q[2];
    v_out[0] = vp[0];
    v_out[1] = vp[1];
    return 0;
}

/* The heel strike's jump as a smooth map (system.h switch_map): without
 * on_switch's guard, the instance keeps its stance and counters. */
static nsdyn_status switch_map(void *inst, size_t index, double t, double *q, double *v) {
    (void)t;
    if (index != 0) return NSDYN_OK;
    return impact_map(inst, q, v, q, v) != 0 ? NSDYN_ERROR : NSDYN_OK;
}

static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    walker *w = inst;
    double lead = q[1] - q[0];
    /* the falling jump of g where the lead shrinks back through alpha0 with
     * the foot in the air is no strike */
    if (index != 0 || !(lead > w->alpha0) || swing_height(w, q) > 1e-6 * w->legs.l) return NSDYN_OK;
    if (impact_map(w, q, v, q, v) != 0) return NSDYN_ERROR;
    double th_ld = walker_theta_lead(&w->legs, lead);
    w->step_length = walker_step_length(&w->legs, lead);
    if (w->steps > 0 && t > w->t_hs) {
        w->step_period = t - w->t_hs;
        w->hip_velocity = walker_hip_velocity(&w->legs, w->th_ld_hs, lead, w->step_period);
    }
    w->steps++;
    w->t_hs = t;
    w->th_ld_hs = th_ld;
    w->stance = 1 - w->stance;
    return NSDYN_OK;
}

/* ---- lifecycle -------------------------------------------------------------- */

static void reset(void *inst) {
    walker *w = inst;
    w->stance = 0;
    w->steps = 0;
    w->t_hs = w->th_ld_hs = w->step_length = w->step_period = w->hip_velocity = 0.0;
}

static void *create(const nsdyn_value *values, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    double p[N_P];
    for (int i = 0; i < N_P; ++i) p[i] = values[i].num;
    if (!(p[P_L] > 0) || !(p[P_RHO] >= 0) || !(p[P_RHO] < p[P_L])) {
        snprintf(err, len, "l = %g m, rho = %g m: need 0 <= rho < l", p[P_L], p[P_RHO]);
        return NULL;
    }
    if (!(p[P_m] > 0) || !(p[P_M] >= 0) || !(p[P_B] >= 0) || !(p[P_RG] >= 0) ||
        !(p[P_B] > 0 || p[P_RG] > 0)) {
        snprintf(err, len,
                 "m = %g kg, M = %g kg, b = %g m, r_g = %g m: m > 0, M >= 0, and b, r_g >= 0 "
                 "not both zero",
                 p[P_m], p[P_M], p[P_B], p[P_RG]);
        return NULL;
    }
    walker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    w->legs = (walker_legs){p[P_L], p[P_RHO], p[P_DELTA] * DEG};
    w->gamma = p[P_GAMMA] * DEG;
    w->m = p[P_m];
    w->M = p[P_M];
    w->b = p[P_B];
    w->rg = p[P_RG];
    w->g = p[P_G];
    w->alpha0 = p[P_ALPHA0] * DEG;
    w->th0[0] = p[P_TH_ST];
    w->th0[1] = p[P_TH_SW];
    w->w0[0] = p[P_W_ST];
    w->w0[1] = p[P_W_SW];
    w->fall = p[P_FALL];
    w->mt = w->M + 2.0 * w->m;
    w->J = w->m * (w->b * w->b + w->rg * w->rg);
    w->J_impact = (int)p[P_IMPACT_RG] == 1 ? w->m * w->b * w->b : w->J;
    w->mb = w->m * w->b;
    w->sg = sin(w->gamma);
    w->cg = cos(w->gamma);
    reset(w);
    return w;
}

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){.struct_size = sizeof *out,
                                 .nq = 3,
                                 .nv = 2,
                                 .q = q_ch,
                                 .v = v_ch,
                                 .n_outputs = N_O,
                                 .outputs = out_ch,
                                 .n_stops = NSDYN_COUNT(stops),
                                 .stops = stops,
                                 .n_switches = 1,
                                 .switches = switches,
                                 .switch_direction = switch_direction,
                                 .plot_series = series,
                                 .phase_pairs = phases,
                                 .energy_output = "energy"};
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const walker *w = inst;
    q[0] = w->th0[0];
    q[1] = w->th0[1];
    q[2] = 0.0;
    v[0] = w->w0[0];
    v[1] = w->w0[1];
    return NSDYN_OK;
}

static const nsdyn_system walker_impact = {
    .info = NSDYN_SYSTEM_INFO(.id = "walker_impact", .version = "1.0.0",
                              .summary = "two-link passive walker, rolling arced feet, plastic "
                                         "heel strike (Koop & Wu 2013, Appendix B)",
                              NSDYN_PARAMS(params), .provides = NSDYN_CAP_CONSERVATIVE,
                              .create = create, .destroy = destroy, .reset = reset),
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
    return &walker_impact.info;
}
