/* Two-link passive dynamic walker with arced feet and a hip mass on a ramp.
 * Source: P. C. Koop, C. Q. Wu, "Passive dynamic biped walking - Part I:
 * development and validation of an advanced model", ASME J. Comput. Nonlinear
 * Dyn. 8 (2013) 041007 (../shared/papers/passive-walker-hunt-crossley-lugre.txt),
 * with the errata of ../shared/design/validation-targets.md (walker section),
 * each checked here against a derivation of our own.
 *
 * Frame and coordinates (paper Sec. 2, Fig. 1, eq. (2)). The frame is the
 * ramp's: x runs down the ramp, y along the ramp normal, the ramp surface is
 * y = 0 and gravity points along (sin gamma, -cos gamma). q = (x_hip, y_hip,
 * theta1, theta2), v = q' (nq = nv = 4); theta_i is leg i's angle from the
 * ramp normal, positive when its foot is ahead (down the ramp) of the hip.
 * With the host's two LuGre states z1, z2 (one per foot, from the friction
 * law) the ODE state is Appendix A's ten states (A2) (whose first entry is
 * x_hip, not x_hip' as printed).
 *
 * Legs: mass m, centre of mass at distance b from the hip, radius of gyration
 * r_g about that centre, length l; arced foot of radius rho whose centre lies
 * rho back from the leg's end along the direction rotated by the offset
 * delta; a non-rotating point mass M at the hip. Leg i's centre of mass is at
 * (x + b sin th, y - b cos th). Lagrange's equations give (1)
 *     M(q) q'' + H(q, q') + G(q) = F(q, q'),
 * with, after the errata,
 *   (3) M = [[M+2m, 0, mb c1, mb c2], [0, M+2m, mb s1, mb s2],
 *            [mb c1, mb s1, m(b^2 + r_g^2), 0], [mb c2, mb s2, 0, m(b^2 + r_g^2)]]
 *       ERRATUM: (3) prints the leg entries as mb^2 + r_g^2 (dimensionally
 *       wrong); the leg's rotary inertia about the hip is m(b^2 + r_g^2), as
 *       Appendix A's A_M (A12) assumes.
 *   (4) H = [-mb(th1'^2 s1 + th2'^2 s2), +mb(th1'^2 c1 + th2'^2 c2), 0, 0]
 *       ERRATUM: (4) prints the second entry -mb th1'^2 c1 + mb th2'^2 c2;
 *       differentiating the leg centre's velocity (x' + b c th', y' + b s th')
 *       gives +mb th'^2 cos th for both legs, as (A20) has it.
 *   (5) G = g [-(M+2m) sin gamma, (M+2m) cos gamma, mb sin(th1 - gamma),
 *              mb sin(th2 - gamma)]                                (as printed)
 *   (6) F = W1^T (N1, Ft1) + W2^T (N2, Ft2): the contact forces in the
 *       contact frame (normal = +y, tangent = +x) mapped by the Jacobian rows
 *       below; written out this is exactly (6) with c_i^hip of (7), whose
 *       second entry is the hip height above the contact point (the
 *       friction force's moment arm).
 * derivatives() solves M v' = F - H - G by block elimination: with
 * mt = M + 2m, J = m(b^2 + r_g^2), kappa = (mb)^2/mt and C = cos(th1 - th2),
 * the Schur complement of the hip block is S = [[J-kappa, -kappa C],
 * [-kappa C, J-kappa]], so th'' = S^-1 (f_th - B^T f_xy/mt) and
 * (x'', y'') = (f_xy - B th'')/mt, B = mb [[c1, c2], [s1, s2]]. This is
 * Appendix A's closed-form inverse (A8)-(A19) (S^-1 is its lower-right block:
 * J - kappa = (m b^2/M_W) A_M with M_W = 2 + M/m (A11), A_M (A12); in
 * (A18)-(A19) "A_m" means A_M) in a form that needs no division by b. No
 * allocation, affine in the contact forces as system.h requires.
 *
 * Contacts: two unilateral candidates "foot1", "foot2", tangent_dim 1.
 * The contact point of foot i is its lowest point, (8):
 *   c_i = (x + l sin th - rho sin(th - delta), y - l cos th + rho (cos(th - delta) - 1)),
 * gap = c_yi (ramp surface y = 0; the paper's penetration (10) is h = -gap).
 * Local velocity u = (c_yi', v_i, 0):
 *   c_yi' = y' + th' (l sin th - rho sin(th - delta))     from differentiating (8)
 *       ERRATUM: (9) prints y' - th'(l sin th + rho sin(th - delta)), two sign
 *       errors.
 *   v_i   = x' + th' (l cos th - rho cos(th - delta) + rho)     (9), (17)
 *       the velocity of the foot's material point at the contact (the arc
 *       rolls, so this is the sliding velocity, not d c_xi/dt; the +rho th'
 *       is right). The LuGre law's slip is v_i, (17).
 * Jacobian rows (columns x, y, th1, th2; th_i's column only):
 *   n_i = [0, 1, l sin th - rho sin(th - delta)],  t_i = [1, 0, l cos th - rho cos(th - delta) + rho]
 * drift (u' - W v'): (th'^2 (l cos th - rho cos(th - delta)), th'^2 (-l sin th + rho sin(th - delta)))
 * (papers digest, Sec. 1.3; rederived here).
 *
 * Stepping stones (Sec. 2.3; Figs. 4-6 are not in the text, the rule is
 * validation-targets.md's). The instance holds a discrete mode: the stance
 * foot s and a double-support flag. In single support only the stance foot
 * makes contact force (contacts() clears `active` on the swing foot: the
 * swing leg may pass through the ramp, as on the physical walker's stepping
 * stones); in double support both feet do. Two switches:
 *  0 "heel_strike" (falling): the swing foot's contact point crossing the
 *    ramp level downwards while the swing leg leads by more than alpha0
 *    (lead = th_swing - th_stance > alpha0). Event function:
 *        c_y(swing)  in single support with lead > alpha0,
 *        -l          otherwise (a NEGATIVE constant).
 *    Why negative: the function jumps where the lead passes alpha0. In
 *    mid-swing the swing foot can be below ramp level there (it grazes up to
 *    ~1 mm below, because the stance foot itself sinks ~2.4 mm), and with a
 *    positive constant that jump would be a falling sign change: a false
 *    heel strike the integrator would locate at the jump. With -l, a jump
 *    as the lead grows is never falling, so the function is continuous
 *    wherever it can fire: it fires only when c_y(swing) itself falls through
 *    zero with the lead above alpha0, i.e. after the swing foot has come up
 *    above ramp level and goes down again (a genuine heel strike). The one
 *    jump that can still be falling is the lead shrinking back through
 *    alpha0 while the swing foot is above the ramp (a walker swinging its leg
 *    back, i.e. failing); on_switch() recognises that crossing (lead not
 *    above alpha0, or swing foot above the ramp) and leaves the mode as is.
 *  1 "double_support_end" (falling): the old stance foot's normal force
 *    falling to n_lift. Event function: N(old stance) - n_lift in double
 *    support, 1 + (M + 2m) g (a positive constant) in single support. The
 *    small threshold makes a sign change the root finder can locate: once
 *    the foot has left, the compliant force is exactly 0 and stays 0, and a
 *    function that only touches zero is reported at the end of the step,
 *    not where it reached zero (CVODE's rule for a zero at a step end).
 * on_switch(): heel strike -> double support (both feet active); end of
 * double support -> single support on the foot that struck. Neither changes
 * q or v (the contact is compliant: no impact map). The paper tests the
 * phase conditions at every time step; here both switches are events the
 * integrator locates. Consequence of the rule: a swing foot that is still
 * below ramp level when the lead passes alpha0 and never rises above it
 * again (a start far too fast) never strikes; the walker then falls and the
 * 'fall' stop ends the run.
 *
 * LuGre states: the host integrates z_i only while foot i carries a normal
 * force and holds it otherwise (swing); the paper integrates (15)
 * throughout and reports that resetting z at separation made no
 * discernible difference (Sec. 4.1). At a heel strike the foot slides and z
 * reaches its sliding value within microseconds either way.
 *
 * Initial state (paper Sec. 2.3 and validation-targets.md's start that
 * walks): the leg angles and rates are parameters theta1_0, theta2_0,
 * omega1_0, omega2_0; the stance foot (mode0 = auto: the leg with the larger
 * theta, the paper's rule) sinks h0 into the ramp, and the hip moves so that
 * this foot rolls without slipping: u = W v = 0 for the stance foot, i.e.
 *   x' = -th_s' (l cos th_s - rho cos(th_s - delta) + rho),
 *   y' = -th_s' (l sin th_s - rho sin(th_s - delta)).
 * x_hip starts at 0. The mode is taken from these parameters, not from
 * [initial] overrides (the system does not see those): set the start through
 * the parameters, which also keeps the hip velocity consistent.
 *
 * Outputs (besides the states and the host's foot1.N, foot1.Ft1, foot1.z1,
 * ...): alpha = th1 - th2 (the inner leg angle the walker's encoders measure,
 * Sec. 3.2; its sign alternates from step to step), hip_height = y_hip (the
 * hip's height above the ramp surface), slip1, slip2 (v_i of (17)), energy
 * = kinetic + potential [J]: T = (1/2) v^T M v and
 *   V = g [(M+2m)(y cos gamma - x sin gamma) - m b (cos(th1 - gamma) + cos(th2 - gamma))],
 * the height above the ramp point x = 0 measured along true vertical, so
 * walking down the ramp (x growing) lowers V; the energy stored in the
 * compliant contacts and the LuGre bristles is not included. stance (1 or
 * 2; during double support the old stance foot), double_support (0/1),
 * steps (heel strikes so far), and the per-step gait metrics of (20)-(23),
 * updated at each heel strike and held until the next:
 *   step_length (22) with th_ld (20) and th_tr (21) from the lead angle
 *     alpha_hs = th_swing - th_stance at the strike, as the paper computes
 *     them from the encoders. ERRATUM: (21)'s denominator is
 *     -l sin a + rho(+sin(a - delta) + sin delta); as printed (-sin) the
 *     step length comes out ~20 % short (only the + gives th_tr = -a/2 for
 *     delta = 0, as the text says).
 *   step_period: time between this heel strike and the previous one (0
 *     until there are two);
 *   hip_velocity (23): [c_x^hip(th_ld^0) - c_x^hip(th_tr^1) + rho(th_ld^0 - th_tr^1)]/T_step,
 *     th_ld^0 from the previous strike, th_tr^1 from this one (0 until two).
 * and the state at the last heel strike, held until the next (0 before the
 * first): hs_t, hs_x_hip, hs_y_hip, hs_theta_trail, hs_theta_lead,
 * hs_vx_hip, hs_vy_hip, hs_omega_trail, hs_omega_lead, the (q, v) on_switch()
 * receives at the located event, with the legs named by their role (trail =
 * the old stance leg, lead = the striking leg). A period-1 gait is a fixed
 * point of the step-to-step map on these (x_hip aside); docs/walker.md and
 * tests/test_walker2_gait.c find it.
 * Stops: "fall" when the hip sinks below fall_height * l above the ramp;
 * "leg_angle" when a leg's |theta| reaches 90 degrees.
 *
 * Units: l, rho, b, r_g, h0 in m; m, M in kg; the table angles gamma, delta,
 * alpha0 in degrees as the paper's Tables 6-7 print them; the initial leg
 * angles and rates in rad and rad/s like the states.
 *
 * With the defaults (configs/walker2_gait.toml: Table 7 contact and
 * friction, bdf) the walker settles onto a period-1 gait: step length (22)
 * 0.166 m, step period 0.491 s, average hip velocity (23) 0.428 m/s.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"
#include "walker_gait.h"

#define DEG (NSDYN_PI / 180.0)
#define HALF_PI (0.5 * NSDYN_PI)

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
    P_MODE0,
    P_TH1,
    P_TH2,
    P_W1,
    P_W2,
    P_H0,
    P_N_LIFT,
    P_FALL,
    N_P
};

static const char *const mode_choices[] = {"auto", "leg1", "leg2", "double", NULL};

/* Defaults: Tables 6-8 (CoM position L#4), with validation-targets' typo
 * fixes (rho = 0.0860 m, alpha0 = 10 degrees). */
static const nsdyn_param_decl params[] = {
    [P_L] = NSDYN_REAL_F("l", "m", 0.4143, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "leg length l, hip to the foot's lowest point at theta = delta (Table 6)"),
    [P_RHO] = NSDYN_REAL("rho", "m", 0.0860, 0.0, HUGE_VAL,
                         "foot arc radius rho, < l (Table 6; Table 4's 0.860 is a typo)"),
    [P_DELTA] = NSDYN_REAL_F("delta", "deg", 0.0, -90.0, 90.0,
                             NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                             "angle offset delta of the foot arc (Table 6)"),
    [P_GAMMA] = NSDYN_REAL("gamma", "deg", 2.05, -45.0, 45.0,
                           "ramp angle gamma, positive downhill in +x (Table 6: 2.05 degrees)"),
    [P_m] = NSDYN_REAL_F("m", "kg", 5.1587, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "mass m of each leg (Table 6)"),
    [P_M] = NSDYN_REAL("M", "kg", 1.2826, 0.0, HUGE_VAL, "non-rotating hip mass M (Table 6)"),
    [P_B] = NSDYN_REAL("b", "m", 0.1930, 0.0, HUGE_VAL,
                       "distance b of a leg's centre of mass from the hip (Table 8, L#4)"),
    [P_RG] = NSDYN_REAL("r_g", "m", 0.1067, 0.0, HUGE_VAL,
                        "radius of gyration r_g of a leg about its centre of mass (Table 8, L#4)"),
    [P_G] = NSDYN_REAL("g", "m/s^2", 9.81, 0.0, HUGE_VAL, "gravitational acceleration"),
    [P_ALPHA0] =
        NSDYN_REAL_F("alpha0", "deg", 10.0, 0.0, 90.0, NSDYN_PARAM_MAX_EXCLUSIVE,
                     "minimum lead of the swing leg for a heel strike (Table 7: 10 degrees)"),
    [P_MODE0] = NSDYN_CHOICE(
        "mode0", 0.0, mode_choices,
        "initial mode: auto = single support on the leg with the larger theta (paper), "
        "leg1, leg2, double"),
    [P_TH1] = NSDYN_REAL_F("theta1_0", "rad", 0.2, -HALF_PI, HALF_PI,
                           NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                           "initial angle of leg 1 (a start that walks: stance 0.2)"),
    [P_TH2] = NSDYN_REAL_F("theta2_0", "rad", -0.2, -HALF_PI, HALF_PI,
                           NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                           "initial angle of leg 2 (a start that walks: swing -0.2)"),
    [P_W1] = NSDYN_REAL("omega1_0", "rad/s", -1.5, -HUGE_VAL, HUGE_VAL,
                        "initial angular velocity of leg 1 (a start that walks: stance -1.5)"),
    [P_W2] = NSDYN_REAL("omega2_0", "rad/s", -1.0, -HUGE_VAL, HUGE_VAL,
                        "initial angular velocity of leg 2 (a start that walks: swing -1.0)"),
    [P_H0] = NSDYN_REAL(
        "h0", "m", 2.45e-3, 0.0, HUGE_VAL,
        "initial penetration of the stance foot; static on one foot: ((M+2m) g/k_s)^(2/3)"),
    [P_N_LIFT] =
        NSDYN_REAL_F("n_lift", "N", 1e-3, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                     "double support ends when the old stance foot's normal force falls to this"),
    [P_FALL] =
        NSDYN_REAL("fall_height", "1", 0.5, 0.0, 1.0,
                   "stop 'fall' when the hip is lower than this fraction of l above the ramp"),
};

typedef struct walker {
    double l, rho, delta, gamma, m, M, b, rg, g, alpha0;
    double th0[2], w0[2], h0, n_lift, fall;
    int mode0_stance, mode0_double;
    /* derived */
    double mt, J, mb, sg, cg;
    /* discrete mode: stance foot (0 or 1), double support */
    int stance, dbl;
    /* geometric double support (double_geometric): the foot that was the
     * stance foot at the last heel strike has not been seen out of the
     * ramp at an output sample since */
    int trail_in;
    /* step records, updated at each heel strike */
    unsigned steps;
    double t_hs, th_ld_hs; /* time and lead angle (20) of the last strike */
    double step_length, step_period, hip_velocity;
    double hs[9]; /* state at the last strike, in O_HS_T.. order */
} walker;

static const nsdyn_channel q_channels[] = {
    {"x_hip", "m", "hip position along the ramp x_hip"},
    {"y_hip", "m", "hip height above the ramp y_hip"},
    {"theta1", "rad", "leg 1 angle θ₁"},
    {"theta2", "rad", "leg 2 angle θ₂"},
};
static const nsdyn_channel v_channels[] = {
    {"vx_hip", "m/s", "hip velocity along the ramp"},
    {"vy_hip", "m/s", "hip velocity normal to the ramp"},
    {"omega1", "rad/s", "leg 1 angular velocity ω₁"},
    {"omega2", "rad/s", "leg 2 angular velocity ω₂"},
};
enum {
    O_ALPHA,
    O_HIP_HEIGHT,
    O_SLIP1,
    O_SLIP2,
    O_ENERGY,
    O_STANCE,
    O_DOUBLE,
    O_DOUBLE_GEO,
    O_STEPS,
    O_STEP_LENGTH,
    O_STEP_PERIOD,
    O_HIP_VELOCITY,
    O_HS_T,
    O_HS_X,
    O_HS_Y,
    O_HS_TH_TR,
    O_HS_TH_LD,
    O_HS_VX,
    O_HS_VY,
    O_HS_W_TR,
    O_HS_W_LD,
    N_O
};
_Static_assert(N_O - O_HS_T == sizeof((walker *)0)->hs / sizeof(double),
               "walker.hs holds the hs_* outputs");
static const nsdyn_channel outputs[] = {
    [O_ALPHA] = {"alpha", "rad", "inner leg angle α = θ₁ − θ₂"},
    [O_HIP_HEIGHT] = {"hip_height", "m", "hip height above the ramp"},
    [O_SLIP1] = {"slip1", "m/s", "sliding velocity of foot 1"},
    [O_SLIP2] = {"slip2", "m/s", "sliding velocity of foot 2"},
    [O_ENERGY] = {"energy", "J", "kinetic + potential energy"},
    [O_STANCE] = {"stance", "1", "stance leg (1 or 2)"},
    [O_DOUBLE] = {"double_support", "1", "double support (1) or single (0)"},
    [O_DOUBLE_GEO] = {"double_support_geometric", "1",
                      "both feet in the ramp (1): the trailing foot not yet out"},
    [O_STEPS] = {"steps", "1", "heel strikes so far"},
    [O_STEP_LENGTH] = {"step_length", "m", "last step length"},
    [O_STEP_PERIOD] = {"step_period", "s", "last step period"},
    [O_HIP_VELOCITY] = {"hip_velocity", "m/s", "last average hip velocity"},
    /* The state (q, v) at the last heel strike, the step-to-step map's
     * section, with the legs named by their role there: trail = the old
     * stance leg, lead = the leg that strikes. */
    [O_HS_T] = {"hs_t", "s", "time of the last heel strike"},
    [O_HS_X] = {"hs_x_hip", "m", "x_hip at the last heel strike"},
    [O_HS_Y] = {"hs_y_hip", "m", "y_hip at the last heel strike"},
    [O_HS_TH_TR] = {"hs_theta_trail", "rad", "trailing (stance) leg angle at the last heel strike"},
    [O_HS_TH_LD] = {"hs_theta_lead", "rad", "leading (striking) leg angle at the last heel strike"},
    [O_HS_VX] = {"hs_vx_hip", "m/s", "hip velocity along the ramp at the last heel strike"},
    [O_HS_VY] = {"hs_vy_hip", "m/s", "hip velocity normal to the ramp at the last heel strike"},
    [O_HS_W_TR] = {"hs_omega_trail", "rad/s",
                   "trailing leg angular velocity at the last heel strike"},
    [O_HS_W_LD] = {"hs_omega_lead", "rad/s",
                   "leading leg angular velocity at the last heel strike"},
};
static const nsdyn_contact_decl contacts[] = {
    {"foot1", NSDYN_CONTACT_UNILATERAL, 1},
    {"foot2", NSDYN_CONTACT_UNILATERAL, 1},
};
static const char *const stops[] = {"fall", "leg_angle"};
static const char *const switches[] = {"heel_strike", "double_support_end"};
static const int switch_direction[] = {-1, -1};
static const char *const series[] = {"theta1",  "theta2",    "alpha", "hip_height",
                                     "foot1.N", "foot1.Ft1", NULL};
static const char *const phases[] = {"theta1:omega1", NULL};

/* ---- geometry ---------------------------------------------------------- */

/* The foot (8), its Jacobian entries a, bt and their derivatives, and the
 * gait metrics (20)-(23) come from walker_gait.h, which walker_impact.c
 * shares, so both models measure a gait by the same formulas. */
typedef walker_foot foot;

static walker_legs legs_of(const walker *w) { return (walker_legs){w->l, w->rho, w->delta}; }

static foot foot_at(const walker *w, double th) {
    walker_legs g = legs_of(w);
    return walker_foot_at(&g, th);
}

/* ---- lifecycle ---------------------------------------------------------- */

static void set_initial_mode(walker *w) {
    w->stance = w->mode0_stance;
    w->dbl = w->mode0_double;
    w->trail_in = w->mode0_double;
    w->steps = 0;
    w->t_hs = 0.0;
    w->th_ld_hs = 0.0;
    w->step_length = w->step_period = w->hip_velocity = 0.0;
    for (int i = 0; i < N_O - O_HS_T; ++i) w->hs[i] = 0.0;
}

static void *create(const nsdyn_value *values, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    double p[N_P];
    for (int i = 0; i < N_P; ++i) p[i] = values[i].num;
    for (int i = 0; i < N_P; ++i)
        if (!isfinite(p[i])) {
            snprintf(err, len, "parameter '%s' = %g: expected a finite number", params[i].name,
                     p[i]);
            return NULL;
        }
    /* Single-parameter checks repeat the declared ranges (other hosts and
     * tests call create() directly); then the combinations. */
    if (!(p[P_L] > 0)) {
        snprintf(err, len, "l = %g m: the leg length must be positive", p[P_L]);
        return NULL;
    }
    if (!(p[P_m] > 0) || !(p[P_M] >= 0)) {
        snprintf(err, len,
                 "m = %g kg, M = %g kg: the leg mass must be positive and the hip mass "
                 "zero or positive",
                 p[P_m], p[P_M]);
        return NULL;
    }
    if (!(p[P_RHO] >= 0) || !(p[P_RHO] < p[P_L])) {
        snprintf(err, len,
                 "rho = %g m with l = %g m: the foot radius must be zero or positive and "
                 "smaller than the leg length (the foot's centre lies on the leg, l - rho "
                 "from the hip)",
                 p[P_RHO], p[P_L]);
        return NULL;
    }
    if (!(p[P_B] >= 0) || !(p[P_RG] >= 0) || !(p[P_B] > 0 || p[P_RG] > 0)) {
        snprintf(err, len,
                 "b = %g m, r_g = %g m: both must be zero or positive and not both zero "
                 "(a leg needs rotary inertia m (b^2 + r_g^2) > 0 about the hip)",
                 p[P_B], p[P_RG]);
        return NULL;
    }
    if (!(p[P_G] >= 0) || !(p[P_H0] >= 0) || !(p[P_N_LIFT] > 0)) {
        snprintf(err, len,
                 "g = %g, h0 = %g, n_lift = %g: g and h0 must be zero or positive, "
                 "n_lift positive",
                 p[P_G], p[P_H0], p[P_N_LIFT]);
        return NULL;
    }
    if (!(fabs(p[P_TH1]) < HALF_PI) || !(fabs(p[P_TH2]) < HALF_PI)) {
        snprintf(err, len,
                 "theta1_0 = %g rad, theta2_0 = %g rad: the legs must start within 90 "
                 "degrees of the ramp normal",
                 p[P_TH1], p[P_TH2]);
        return NULL;
    }
    walker *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    w->l = p[P_L];
    w->rho = p[P_RHO];
    w->delta = p[P_DELTA] * DEG;
    w->gamma = p[P_GAMMA] * DEG;
    w->m = p[P_m];
    w->M = p[P_M];
    w->b = p[P_B];
    w->rg = p[P_RG];
    w->g = p[P_G];
    w->alpha0 = p[P_ALPHA0] * DEG;
    w->th0[0] = p[P_TH1];
    w->th0[1] = p[P_TH2];
    w->w0[0] = p[P_W1];
    w->w0[1] = p[P_W2];
    w->h0 = p[P_H0];
    w->n_lift = p[P_N_LIFT];
    w->fall = p[P_FALL];
    int mode0 = (int)p[P_MODE0];
    /* auto: the paper's rule, stance = the leg with the larger theta. */
    w->mode0_stance = mode0 == 1 ? 0 : mode0 == 2 ? 1 : (w->th0[1] > w->th0[0] ? 1 : 0);
    w->mode0_double = mode0 == 3;
    w->mt = w->M + 2.0 * w->m;
    w->J = w->m * (w->b * w->b + w->rg * w->rg); /* (3), corrected */
    w->mb = w->m * w->b;
    w->sg = sin(w->gamma);
    w->cg = cos(w->gamma);
    set_initial_mode(w);
    return w;
}

static void destroy(void *inst) { free(inst); }

static void reset(void *inst) { set_initial_mode(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 4,
        .nv = 4,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = 2,
        .contacts = contacts,
        .n_outputs = N_O,
        .outputs = outputs,
        .n_stops = NSDYN_COUNT(stops),
        .stops = stops,
        .n_switches = NSDYN_COUNT(switches),
        .switches = switches,
        .switch_direction = switch_direction,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "horizontal position X [m]",
        .draw_y_label = "height Y [m]",
    };
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const walker *w = inst;
    int s = w->mode0_stance;
    foot f = foot_at(w, w->th0[s]);
    q[0] = 0.0;
    q[1] = -w->h0 - f.cy; /* c_y(stance) = -h0 */
    q[2] = w->th0[0];
    q[3] = w->th0[1];
    v[2] = w->w0[0];
    v[3] = w->w0[1];
    v[0] = -w->w0[s] * f.bt; /* the stance foot rolls: u_t = 0 */
    v[1] = -w->w0[s] * f.a;  /* and keeps its penetration: u_n = 0 */
    return NSDYN_OK;
}

/* ---- dynamics ------------------------------------------------------------ */

static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const walker *w = inst;
    if (qdot)
        for (int i = 0; i < 4; ++i) qdot[i] = v[i];
    if (!vdot) return NSDYN_OK;
    double s1 = sin(q[2]), c1 = cos(q[2]), s2 = sin(q[3]), c2 = cos(q[3]);
    double w1 = v[2], w2 = v[3];
    foot f1 = foot_at(w, q[2]), f2 = foot_at(w, q[3]);
    /* Right-hand side F - H - G of (1): (A20) with (6) written as W^T lambda,
     * lambda_i = (N_i, Ft_i) = (f[3i], f[3i+1]). */
    double fx = w->mb * (w1 * w1 * s1 + w2 * w2 * s2) + w->mt * w->g * w->sg + f[1] + f[4];
    double fy = -w->mb * (w1 * w1 * c1 + w2 * w2 * c2) - w->mt * w->g * w->cg + f[0] + f[3];
    double ft1 = -w->mb * w->g * sin(q[2] - w->gamma) + f[0] * f1.a + f[1] * f1.bt;
    double ft2 = -w->mb * w->g * sin(q[3] - w->gamma) + f[3] * f2.a + f[4] * f2.bt;
    /* Block elimination (see the header): Schur complement on the legs. */
    double kappa = w->mb * w->mb / w->mt, C = c1 * c2 + s1 * s2;
    double r1 = ft1 - w->mb * (c1 * fx + s1 * fy) / w->mt;
    double r2 = ft2 - w->mb * (c2 * fx + s2 * fy) / w->mt;
    double d = w->J - kappa, det = d * d - kappa * kappa * C * C;
    double a1 = (d * r1 + kappa * C * r2) / det;
    double a2 = (kappa * C * r1 + d * r2) / det;
    vdot[0] = (fx - w->mb * (c1 * a1 + c2 * a2)) / w->mt;
    vdot[1] = (fy - w->mb * (s1 * a1 + s2 * a2)) / w->mt;
    vdot[2] = a1;
    vdot[3] = a2;
    return NSDYN_OK;
}

/* World frame for drawing: X horizontal, Y up; the ramp frame is rotated by
 * gamma (x runs down the ramp). */
static void to_world(const walker *w, double x, double y, double *X, double *Y) {
    *X = x * w->cg + y * w->sg;
    *Y = -x * w->sg + y * w->cg;
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *c) {
    (void)t;
    const walker *w = inst;
    for (int i = 0; i < 2; ++i) {
        double th = q[2 + i], om = v[2 + i];
        foot f = foot_at(w, th);
        nsdyn_contact_eval *e = &c[i];
        e->gap = q[1] + f.cy;       /* c_yi of (8) */
        e->u[0] = v[1] + om * f.a;  /* d c_yi/dt */
        e->u[1] = v[0] + om * f.bt; /* sliding velocity (17) */
        e->u[2] = 0.0;
        e->normal_load = 0.0;
        e->active = w->dbl || i == w->stance;
        if (req->want_geometry) {
            to_world(w, q[0] + f.cx, q[1] + f.cy, &e->point[0], &e->point[1]);
            e->point[2] = 0.0;
            e->normal[0] = w->sg; /* ramp normal (0, 1) in the world frame */
            e->normal[1] = w->cg;
            e->normal[2] = 0.0;
        }
        double *W = nsdyn_contact_jacobian(req, (size_t)i);
        if (W) {
            for (int k = 0; k < 12; ++k) W[k] = 0.0;
            W[0 * 4 + 1] = 1.0;
            W[0 * 4 + 2 + i] = f.a;
            W[1 * 4 + 0] = 1.0;
            W[1 * 4 + 2 + i] = f.bt;
            e->drift[0] = om * om * f.da;
            e->drift[1] = om * om * f.dbt;
            e->drift[2] = 0.0;
        }
    }
    return NSDYN_OK;
}

/* ---- outputs, stops, switches -------------------------------------------- */

static double energy(const walker *w, const double *q, const double *v) {
    double s1 = sin(q[2]), c1 = cos(q[2]), s2 = sin(q[3]), c2 = cos(q[3]);
    double T = 0.5 * w->mt * (v[0] * v[0] + v[1] * v[1]) +
               w->mb * (v[2] * (v[0] * c1 + v[1] * s1) + v[3] * (v[0] * c2 + v[1] * s2)) +
               0.5 * w->J * (v[2] * v[2] + v[3] * v[3]);
    double V = w->g * (w->mt * (q[1] * w->cg - q[0] * w->sg) -
                       w->mb * (cos(q[2] - w->gamma) + cos(q[3] - w->gamma)));
    return T + V;
}

/* Double support by geometry (issue 22): from the heel strike (where
 * double_support starts too) until the foot that was the stance foot is out
 * of the ramp (gap y_hip + c_y > 0), with both feet's contact points at or
 * below the ramp surface meanwhile. double_support ends earlier, when that
 * foot's normal force falls to n_lift: the compliant force reaches zero
 * while the foot is still in the ramp (the damper's pull is clamped),
 * about 2 mm deep on the walker of docs/walker.md. The lift-off is seen at
 * the output samples (outputs() are evaluated in time order during a run,
 * and trail_in latches it), so its end is known to one output step; an
 * event of its own would restart the integrator and change the published
 * runs. Without the latch the swing foot passing through the ramp
 * (stepping stones) would count. */
static int double_geometric(walker *w, const double *q) {
    int st = w->stance, sw = 1 - st;
    double gap_st = q[1] + foot_at(w, q[2 + st]).cy, gap_sw = q[1] + foot_at(w, q[2 + sw]).cy;
    /* after double_support: the stance foot is the one that struck, the
     * trailing (old stance) foot is sw */
    if (!w->dbl && w->trail_in && gap_sw > 0.0) w->trail_in = 0;
    return (w->dbl || w->trail_in) && gap_st <= 0.0 && gap_sw <= 0.0;
}

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    (void)f;
    walker *w = inst;
    foot f1 = foot_at(w, q[2]), f2 = foot_at(w, q[3]);
    out[O_ALPHA] = q[2] - q[3];
    out[O_HIP_HEIGHT] = q[1];
    out[O_SLIP1] = v[0] + v[2] * f1.bt;
    out[O_SLIP2] = v[0] + v[3] * f2.bt;
    out[O_ENERGY] = energy(w, q, v);
    out[O_STANCE] = (double)(w->stance + 1);
    out[O_DOUBLE] = (double)w->dbl;
    out[O_DOUBLE_GEO] = (double)double_geometric(w, q);
    out[O_STEPS] = (double)w->steps;
    out[O_STEP_LENGTH] = w->step_length;
    out[O_STEP_PERIOD] = w->step_period;
    out[O_HIP_VELOCITY] = w->hip_velocity;
    for (int i = 0; i < N_O - O_HS_T; ++i) out[O_HS_T + i] = w->hs[i];
    return NSDYN_OK;
}

static nsdyn_status stops_eval(void *inst, double t, const double *q, const double *v, double *g) {
    (void)t;
    (void)v;
    const walker *w = inst;
    g[0] = q[1] - w->fall * w->l;
    g[1] = HALF_PI - fmax(fabs(q[2]), fabs(q[3]));
    return NSDYN_OK;
}

/* Lead of the swing leg over the stance leg. */
static double lead(const walker *w, const double *q) {
    return q[2 + (1 - w->stance)] - q[2 + w->stance];
}

static nsdyn_status switches_eval(void *inst, double t, const double *q, const double *v,
                                  const double *f, double *g) {
    (void)t;
    (void)v;
    const walker *w = inst;
    int sw = 1 - w->stance;
    /* 0: heel strike; the negative constant is explained in the header. */
    if (!w->dbl && lead(w, q) > w->alpha0)
        g[0] = q[1] + foot_at(w, q[2 + sw]).cy;
    else
        g[0] = -w->l;
    /* 1: end of double support, on the old stance foot's normal force. */
    g[1] = w->dbl ? f[3 * w->stance] - w->n_lift : 1.0 + w->mt * w->g;
    return NSDYN_OK;
}

static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    (void)v;
    walker *w = inst;
    if (index == 0) {
        int sw = 1 - w->stance;
        double a = lead(w, q), cy = q[1] + foot_at(w, q[2 + sw]).cy;
        /* A genuine strike: the lead exceeds alpha0 and the swing foot is at
         * ramp level (the root finder stops just past the crossing). The
         * other falling crossing is the jump of the event function when the
         * lead shrinks back through alpha0 with the foot in the air: no
         * strike, the mode stays. */
        if (w->dbl || !(a > w->alpha0) || cy > 1e-6 * w->l) return NSDYN_OK;
        walker_legs g = legs_of(w);
        double th_ld = walker_theta_lead(&g, a);
        w->step_length = walker_step_length(&g, a); /* (22) */
        if (w->steps > 0) {
            double T = t - w->t_hs;
            w->step_period = T;
            if (T > 0) /* (23): the leg that led at the last strike trails now */
                w->hip_velocity = walker_hip_velocity(&g, w->th_ld_hs, a, T);
        }
        /* The state at the strike, in the outputs' order (O_HS_T..). */
        const double hs[] = {
            t, q[0], q[1], q[2 + w->stance], q[2 + sw], v[0], v[1], v[2 + w->stance], v[2 + sw]};
        for (int i = 0; i < N_O - O_HS_T; ++i) w->hs[i] = hs[i];
        w->steps++;
        w->t_hs = t;
        w->th_ld_hs = th_ld;
        w->dbl = 1;
        w->trail_in = 1;
    } else if (index == 1) {
        if (!w->dbl) return NSDYN_OK;
        w->dbl = 0;
        w->stance = 1 - w->stance; /* single support on the foot that struck */
    }
    return NSDYN_OK;
}

/* ---- drawing ------------------------------------------------------------- */

static void line_w(const walker *w, const nsdyn_canvas *cv, double x0, double y0, double x1,
                   double y1) {
    double X0, Y0, X1, Y1;
    to_world(w, x0, y0, &X0, &Y0);
    to_world(w, x1, y1, &X1, &Y1);
    cv->line(cv->ctx, X0, Y0, X1, Y1);
}

/* Side view in the world frame: the ramp under the walker, each leg (hip to
 * its foot), the foot as a circular sector of radius rho, the hip mass. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const walker *w = inst;
    double x = q[0], y = q[1], l = w->l, r = w->rho;
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    line_w(w, cv, x - 0.7 * l, 0.0, x + 0.7 * l, 0.0);
    for (int i = 0; i < 2; ++i) {
        double th = q[2 + i], ph = th - w->delta;
        /* foot arc centre: l along the leg, then rho back along th - delta */
        double cxa = x + l * sin(th) - r * sin(ph), cya = y - l * cos(th) + r * cos(ph);
        cv->pen(cv->ctx, i == 0 ? NSDYN_PEN_STRUCTURE : NSDYN_PEN_HIGHLIGHT);
        line_w(w, cv, x, y, cxa, cya);
        enum { NARC = 12 };
        const double half = 0.6; /* half-angle of the foot arc [rad] */
        double px = 0, py = 0;
        for (int k = 0; k <= NARC; ++k) {
            double a = ph - half + 2.0 * half * k / NARC;
            double ax = cxa + r * sin(a), ay = cya - r * cos(a);
            if (k == 0 || k == NARC) line_w(w, cv, cxa, cya, ax, ay);
            if (k > 0) line_w(w, cv, px, py, ax, ay);
            px = ax;
            py = ay;
        }
    }
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    double X, Y;
    to_world(w, x, y, &X, &Y);
    cv->circle(cv->ctx, X, Y, 0.04 * l);
    return NSDYN_OK;
}

static const nsdyn_system walker2_system = {
    .info = NSDYN_SYSTEM_INFO(
            .id = "walker2", .version = "1.0.0",
            .summary =
                "two-link passive walker, arced feet, hip mass, stepping stones (Koop & Wu 2013)",
            NSDYN_PARAMS(params), .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_DRAWS,
            .create = create, .destroy = destroy, .reset = reset),
    .layout = layout,
    .initial_state = initial_state,
    .derivatives = derivatives,
    .contacts = contacts_eval,
    .outputs = outputs_eval,
    .stops = stops_eval,
    .draw = draw,
    .switches = switches_eval,
    .on_switch = on_switch,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &walker2_system.info;
}
