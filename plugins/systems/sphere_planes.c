/* A sphere rolling, sliding and bouncing on a terrain of planes: the
 * tumbleweed rover crossing a valley.
 * Source: J. Hartl, "Bouncing, Sliding and Rolling Dynamics of a Spherical
 * Rover Crossing a Ravine", M.S. thesis, NC State (2006)
 * (../shared/papers/tumbleweed-rover-valley-crossing.txt), Chapters 2-4, and
 * ../shared/design/validation-targets.md (section
 * tumbleweed-rover-valley-crossing and the sphere closed forms at the top).
 * docs/sphere-planes.md has the derivations and the notation map.
 *
 * Body. A sphere of radius b [m], mass m [kg] and central moment of inertia
 * J = m (J/m) [kg m^2] (the same about every axis through the centre: the
 * thesis's (2.29), J = L11 = L22 = L33). Gravity g [m/s^2] along -z. No drag
 * and no Magnus force (thesis Sec. 1.1).
 *
 * Frame. World axes x along the valley (the direction of travel), y across
 * it, z up; right-handed. The thesis's horizontal frame (n1, n2, n3) of
 * Sec. 2.1 has n1 along the travel, n2 up and n3 = n1 x n2, so
 *     n1 = x,  n2 = z,  n3 = -y.
 *
 * Coordinates q (nq = 4): x, y, z of the centre [m] and phi [rad], the
 * rotation angle about +y, integrated only for the spoke of the drawing (a
 * sphere's dynamics do not depend on its attitude, since J is isotropic;
 * phi is exact for planar motion, wx = wz = 0, and a drawing aid otherwise).
 *
 * Speeds v (nv = 6), the thesis's generalized speeds (2.1)-(2.2) in its
 * order (angular velocity first, then the centre's velocity), expressed on
 * the world axes:
 *     v = (wx, wy, wz, vx, vy, vz)  [rad/s, rad/s, rad/s, m/s, m/s, m/s]
 * and the map to the thesis (n3 = -y):
 *     u1 = wx, u2 = wz, u3 = -wy, u4 = vx, u5 = vz, u6 = -vy,
 *     q1 = x, q2 = z, q3 = -y.
 * q' = N(q) v: x' = vx, y' = vy, z' = vz, phi' = wy.
 *
 * Equations of motion (Kane's equations with the thesis's generalized
 * momenta (2.31)-(2.36), p = M v): M = diag(J, J, J, m, m, m) and
 *     M v' = (0, 0, 0, 0, 0, -m g) + sum_i W_i^T lambda_i,
 * the free flight (2.82)-(2.84) plus the contact forces; lambda_i = (N, F1,
 * F2) [N] is contact i's force in its local frame (normal, t1, t2), applied
 * at the contact point P = centre - b nu. W_i^T lambda_i is the generalized
 * active force of the contact: the partial velocities of P (2.13)-(2.18)
 * dotted with the force, as in (2.19)-(2.25). derivatives() adds it in closed
 * form: affine in lambda, no allocation.
 *
 * Terrain and contacts: sphere_planes_terrain.c (the profile, the gap of
 * each candidate, the ownership of convex edges and its handover switches).
 *
 * Local velocity (thesis (2.3), (2.12)): the contact point's velocity v_P =
 * v + w x (-b nu), in the local frame nu (normal), t1 = (nu_z, 0, -nu_x) (in
 * the x-z plane, along the slope with a positive x component: the thesis's
 * n1, c1 (2.170) and a1 (2.256) on a face) and t2 = y (so t1 x t2 = nu):
 *   u_n  = nu.v_P = nu_x vx + nu_z vz        (= d gap/dt)
 *   u_t1 = t1.v_P = t1.v - b wy              (thesis: u4 + b u3 on the floor)
 *   u_t2 = t2.v_P = vy + b (t1_x wx + t1_z wz)  (thesis: -(u6 - b u1))
 * so the Jacobian rows, columns (wx, wy, wz, vx, vy, vz), are
 *   n:  [0, 0, 0, nu_x, 0, nu_z]
 *   t1: [0, -b, 0, t1_x, 0, t1_z]
 *   t2: [b t1_x, 0, b t1_z, 0, 1, 0]
 * and the Delassus of any one contact is W M^-1 W^T = diag(1/m, 1/m + b^2/J,
 * 1/m + b^2/J): the thesis's k1 (2.76) in the tangential entries.
 * Drift u' - W v': zero on a face (nu, t1 fixed). At an end, with kappa =
 * sg/|c - E| and sigma = t1.v (the centre's speed across the edge normal),
 * nu' = kappa sigma t1 and t1' = -kappa sigma nu, so
 *   drift = (kappa sigma^2, -kappa sigma u_n, -b kappa sigma (wx nu_x + wz nu_z)),
 * the first entry the centripetal term of pivoting about the edge.
 *
 * Closed forms this reproduces (validation-targets.md): sliding without spin
 * on a level floor at v0 with kinetic coefficient mu' (thesis (3.2)-(3.3)):
 * u_t1' = -mu' g (1 + m b^2/J), rolling from t* = v0/(mu' g (1 + m b^2/J))
 * at v0/(1 + J/(m b^2)) (5/7 v0 for J/m = 0.4 b^2); rolling on an incline at
 * theta: acceleration -g sin(theta)/(1 + J/(m b^2)) (3.15)-(3.16), friction
 * (3.18).
 *
 * Initial state (thesis Sec. 4.1-4.2). The centre starts at x = x0 resting
 * on the terrain (lowered from above until it touches), moving at v0 along
 * the supporting contact's t1, rolling (u_t1 = 0, wy = v0/b; Sec. 4.1's
 * "u3 = -u4/b") or, with rolling0 = false, sliding without spin. No side
 * spin or side speed (u1 = u2 = u6 = 0, Sec. 4.1). Defaults: the Sec. 4.2
 * example, x0 = 0 (q1 = 0, the near rim's edge), z = b = 1 m (q2 = 1 m),
 * vx = 5 m/s (u4), wy = 5 rad/s. The example prints "u3 = 5 rad/s", which
 * contradicts Sec. 4.1's u3 = -u4/b and the no-slip condition (2.51) (it
 * would spin backwards at 10 m/s slip); we take it as a lost minus sign,
 * u3 = -5 rad/s, i.e. wy = +5 rad/s. Override single states in [initial]
 * only together with the ones that keep the start consistent.
 *
 * Outputs: kinetic = 1/2 J |w|^2 + 1/2 m |v|^2 (2.30), potential = m g z,
 * energy = their sum [J] (energy stored in a compliant contact not included);
 * height = z - b - z_low [m], the centre's rise above its height resting on
 * the lowest interior vertex (the valley floor; the thesis's "meters up
 * from the valley's floor", Sec. 4.2); gap [m], slip = |(u_t1, u_t2)| [m/s]
 * and nearest (1-based index) of the active candidate with the smallest gap
 * (in flight, slip is the slip that contact would have).
 *
 * Models (parameter `model`, docs/tumbleweed.md). "physical": every segment
 * is a candidate everywhere, so a sphere in a concave corner touches both
 * planes (a two-contact impact there). "thesis": the thesis switches plane
 * models (Sec. 4.1) and never has two planes at once: each concave vertex
 * gets an owner mode and two switches corner<k>_to_<segment>, the entered
 * plane taking the corner THESIS_MARGIN b before the centre crosses the
 * corner's bisector (sp_handover()); the other plane is off (corner_lost()
 * in sphere_planes_terrain.c) and the owner is its infinite plane past the
 * corner, on its side of the bisector (sp_nearest()). Convex edges are the
 * same in both. backspin0 starts with wy = -v0/b, the spin as Sec. 4.2
 * prints it (u3 = +u4/b).
 *
 * Stops (thesis Sec. 4.1: "stopped once the rover rebounds or begins to roll
 * or slide down the incline plane"; validation-targets.md: "crossed" means
 * it reached the far rim):
 *   crossed      x_cross + d - x, d = CROSS_MARGIN b = 1e-6 b: the centre
 *                passes the last vertex x_cross (the far rim's edge, the top
 *                of the incline) by d; the constant +1 when the profile has
 *                one segment or its last vertex is no top of a rise (the
 *                profile turns up there, floor -> incline: passing that
 *                vertex is getting onto the incline, not over it). Why d: on a level last segment (the valley's
 *                far rim) the handover switch edge<k>_to_<last> is the
 *                function x - x_cross, the same root as x_cross - x. The
 *                integrator locates each root on its own (dopri5: regula
 *                falsi to 1e-12 s), so rounding may put the switch's root
 *                first; the host then restarts from the switch with the stop
 *                function already <= 0, which is no crossing, and the stop
 *                was lost: the run went on to t_end (valley, x0 = 60 m, v0 =
 *                3.9 m/s, dopri5). Lowest-index-first on ties does not help
 *                when the two roots come out a rounding apart. With d the
 *                switch always fires first and the stop d/vx later (1e-6 s
 *                at 1 m/s, b = 1 m): d is far above the switch's location
 *                error in x (vx times 1e-12 max(1, t) s, ~1e-10 m) and far
 *                below anything physical. Past, not short of, the edge: a
 *                centre beyond the vertical through the edge is over the far
 *                rim (pivoting on the edge, gravity's moment now turns it
 *                forward; the stop state is already in the far rim's edge
 *                mode), while one d short of it could still stall and roll
 *                back. On a sloped last segment the handover line (along its
 *                normal at the edge) is tilted and meets the stop line only
 *                ~d/|sin(alpha)| from the edge, where the centre (>= b from
 *                it) never is unless |alpha| < ~d/b.
 *   rolled_back  vx [m/s] while the centre is beyond x_low - b, x_low the
 *                last lowest vertex (the foot of the incline); the constant
 *                +1 elsewhere and when the profile has one segment. Stops
 *                fall (model.c gives every stop direction -1): the stop is
 *                vx falling through zero there, a rebound off the incline or
 *                the start of rolling or sliding back down it. Why x_low - b:
 *                it is the smallest such bound for any incline angle up to
 *                90 deg, since every contact with the incline (its face: x
 *                >= x_low - b sin(theta); its foot vertex: |c - E| = b) has
 *                the centre there. Entering the region needs vx > 0 and
 *                leaving it vx < 0, so neither jump of the function is a
 *                falling crossing. With a compliant law a rebound stops the
 *                run inside the impact, where the normal force has just
 *                reversed vx (a continuous crossing). With a rigid law every
 *                rebound reverses vx in the impact's velocity jump: q does
 *                not jump, so the region is the same on both sides and the
 *                function jumps from vx- > 0 to vx+ <= 0, falling. The
 *                integrator sees no crossing there; the host evaluates the
 *                stops before and after a contact event's jump and fires
 *                one the jump takes down through zero (core/src/run.c). A
 *                stop across an impact means: the impact itself sent the
 *                sphere back, so the run ends at the impact time and the
 *                flight after it is not integrated. A start inside the
 *                region with vx <= 0 (say at rest on the incline) never
 *                fires: the function starts at or below zero.
 * Switches: the edge handovers above (two per convex vertex, rising).
 *
 * Not supported: a zero-width spike, a wall up followed at once by a wall
 * down (angles 90, -90): the two segments overlap, and a sphere touching
 * the overlap from the side is reported by both (the face of one is the
 * back of the other, and an end vertex of the longer one lies on the
 * shorter one's face).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sphere_planes.h"

enum {
    P_TERRAIN,
    P_BETA,
    P_THETA,
    P_DEPTH,
    P_FLOOR,
    P_RIM,
    P_ANGLES,
    P_LENGTHS,
    P_XS,
    P_ZS,
    P_B,
    P_M,
    P_JM,
    P_G,
    P_X0,
    P_V0,
    P_ROLL0,
    P_MODEL,
    P_BACKSPIN,
    P_SPIN_FLIP,
    N_P
};

static const char *const model_choices[] = {"physical", "thesis", NULL};

static const char *const terrain_choices[] = {"valley", "profile", NULL};
/* The profile default is the thesis's Sec. 4.2 valley written out: rim,
 * decline 10 m / sin 30 deg = 20 m, floor 30 m, incline 20 m, rim. */
static const double default_angles[] = {0.0, -30.0, 0.0, 30.0, 0.0};
static const double default_lengths[] = {20.0, 20.0, 30.0, 20.0, 20.0};

static const nsdyn_param_decl params[] = {
    [P_TERRAIN] = NSDYN_CHOICE("terrain", 0.0, terrain_choices,
                               "terrain: valley = the thesis's [beta, theta, depth, floor_length]; "
                               "profile = angles[] and lengths[] from (x_start, z_start)"),
    [P_BETA] = NSDYN_REAL_F("beta", "deg", 30.0, 0.0, 90.0,
                            NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                            "valley: decline angle beta (thesis Sec. 4.2: 30)"),
    [P_THETA] = NSDYN_REAL_F("theta", "deg", 30.0, 0.0, 90.0,
                             NSDYN_PARAM_MIN_EXCLUSIVE | NSDYN_PARAM_MAX_EXCLUSIVE,
                             "valley: incline angle theta (thesis Sec. 4.2: 30)"),
    [P_DEPTH] =
        NSDYN_REAL_F("depth", "m", -10.0, -HUGE_VAL, 0.0, NSDYN_PARAM_MAX_EXCLUSIVE,
                     "valley: height dh of the floor relative to the rims, negative (thesis: -10)"),
    [P_FLOOR] = NSDYN_REAL_F("floor_length", "m", 30.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                             "valley: length pl of the level floor (thesis: 30)"),
    [P_RIM] = NSDYN_REAL_F("rim_length", "m", 20.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                           "valley: drawn length of each level rim (the rims extend indefinitely)"),
    [P_ANGLES] = NSDYN_REAL_ARRAY("angles", "deg", default_angles, -90.0, 90.0,
                                  "profile: slope angle of each segment, positive rising along +x"),
    [P_LENGTHS] = NSDYN_REAL_ARRAY_F(
        "lengths", "m", default_lengths, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
        "profile: along-slope length of each segment (first and last extend "
        "indefinitely; their lengths place the vertices and the drawing)"),
    [P_XS] =
        NSDYN_REAL("x_start", "m", -20.0, -HUGE_VAL, HUGE_VAL, "profile: x of the first vertex"),
    [P_ZS] = NSDYN_REAL("z_start", "m", 0.0, -HUGE_VAL, HUGE_VAL, "profile: z of the first vertex"),
    [P_B] = NSDYN_REAL_F("b", "m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                         "radius b of the sphere (thesis Sec. 4.2: 1 m)"),
    [P_M] = NSDYN_REAL_F(
        "m", "kg", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
        "mass m (the thesis gives only J/m; rigid-contact motion does not depend on m)"),
    [P_JM] = NSDYN_REAL_F("j_over_m", "m^2", 0.4, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                          "central moment of inertia over mass J/m (0.4 b^2 solid, 0.67 b^2 shell; "
                          "thesis Sec. 4.2: 0.4)"),
    [P_G] = NSDYN_REAL("g", "m/s^2", 3.71, 0.0, HUGE_VAL,
                       "gravitational acceleration along -z (Mars 3.71, Earth 9.81, Moon 1.60)"),
    [P_X0] = NSDYN_REAL(
        "x0", "m", 0.0, -HUGE_VAL, HUGE_VAL,
        "initial x of the centre, resting on the terrain (thesis q1 = 0: the near rim's edge)"),
    [P_V0] = NSDYN_REAL("v0", "m/s", 5.0, -HUGE_VAL, HUGE_VAL,
                        "initial speed of the centre along the supporting surface (thesis u4 = 5)"),
    [P_ROLL0] = NSDYN_BOOL(
        "rolling0", 1.0, "start rolling without slip (wy = v0/b, thesis Sec. 4.1); false: no spin"),
    [P_MODEL] = NSDYN_CHOICE("model", 0.0, model_choices,
                             "physical = both planes of a concave corner (decline -> floor, floor "
                             "-> incline) in contact together (a two-contact impact there); thesis "
                             "= one plane model at a time, switched at the corner's bisector (a "
                             "single-plane Kane impact on the entered plane; docs/tumbleweed.md)"),
    [P_BACKSPIN] = NSDYN_BOOL("backspin0", 0.0,
                              "start with the spin as Sec. 4.2 prints it, u3 = +u4/b (wy = -v0/b: "
                              "backspin, slip 2 v0) instead of rolling; overrides rolling0"),
    [P_SPIN_FLIP] = NSDYN_BOOL(
        "spin_flip", 0.0,
        "model = \"thesis\" only: reverse the spin wy at every change between the thesis's "
        "bouncing (Ch. 2) and rolling/sliding (Ch. 3) models, the first when the rover leaves "
        "the near rim (reading F, docs/tumbleweed.md)"),
};

static const nsdyn_channel q_channels[] = {
    {"x", "m", "centre position along the valley x"},
    {"y", "m", "centre position across the valley y"},
    {"z", "m", "centre height z"},
    {"phi", "rad", "rotation angle φ about y (drawing)"},
};
static const nsdyn_channel v_channels[] = {
    {"wx", "rad/s", "angular velocity ω, x component (thesis u1)"},
    {"wy", "rad/s", "angular velocity ω, y component (thesis −u3)"},
    {"wz", "rad/s", "angular velocity ω, z component (thesis u2)"},
    {"vx", "m/s", "centre velocity vx (thesis u4)"},
    {"vy", "m/s", "centre velocity vy (thesis −u6)"},
    {"vz", "m/s", "centre velocity vz (thesis u5)"},
};
enum { O_KIN, O_POT, O_ENERGY, O_HEIGHT, O_GAP, O_SLIP, O_NEAREST, N_O };
static const nsdyn_channel outputs[] = {
    [O_KIN] = {"kinetic", "J", "kinetic energy (2.30)"},
    [O_POT] = {"potential", "J", "potential energy m g z"},
    [O_ENERGY] = {"energy", "J", "kinetic + potential energy"},
    [O_HEIGHT] = {"height", "m", "centre rise above resting on the valley floor z − b − z_low"},
    [O_GAP] = {"gap", "m", "smallest gap of the active contacts"},
    [O_SLIP] = {"slip", "m/s", "slip speed at the nearest contact"},
    [O_NEAREST] = {"nearest", "1", "index of the nearest contact (1-based)"},
};
static const char *const stops[] = {"crossed", "rolled_back"};
static const char *const phases[] = {"x:z", "vx:wy", NULL};

/* ---- lifecycle ----------------------------------------------------------- */

static void *create(const nsdyn_value *values, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    for (int i = 0; i < N_P; ++i)
        if (params[i].type != NSDYN_PARAM_REAL_ARRAY && !isfinite(values[i].num)) {
            snprintf(err, len, "parameter '%s' = %g: expected a finite number", params[i].name,
                     values[i].num);
            return NULL;
        }
    double b = values[P_B].num, m = values[P_M].num, jm = values[P_JM].num, g = values[P_G].num;
    if (!(b > 0) || !(m > 0) || !(jm > 0) || !(g >= 0)) {
        snprintf(err, len,
                 "b = %g m, m = %g kg, j_over_m = %g m^2, g = %g m/s^2: the radius, mass "
                 "and J/m must be positive and g zero or positive",
                 b, m, jm, g);
        return NULL;
    }
    int profile = (int)values[P_TERRAIN].num == 1;
    if (profile) {
        const nsdyn_value *a = &values[P_ANGLES], *l = &values[P_LENGTHS];
        if (a->len == 0 || a->len != l->len || a->len > MAX_SEG) {
            snprintf(err, len,
                     "angles has %zu entries and lengths %zu: the profile needs one angle "
                     "and one length per segment, 1 to %d segments",
                     a->len, l->len, MAX_SEG);
            return NULL;
        }
        for (size_t k = 0; k < a->len; ++k)
            if (!(fabs(a->arr[k]) <= 90.0) || !(l->arr[k] > 0) || !isfinite(l->arr[k])) {
                snprintf(err, len,
                         "segment %zu: angle %g deg, length %g m: angles must lie in "
                         "[-90, 90] degrees and lengths be positive and finite",
                         k + 1, a->arr[k], l->arr[k]);
                return NULL;
            }
    } else {
        double be = values[P_BETA].num, th = values[P_THETA].num, dh = values[P_DEPTH].num;
        double pl = values[P_FLOOR].num, rim = values[P_RIM].num;
        if (!(be > 0 && be < 90) || !(th > 0 && th < 90) || !(dh < 0) || !(pl > 0) || !(rim > 0)) {
            snprintf(err, len,
                     "valley [beta = %g deg, theta = %g deg, depth = %g m, floor_length = "
                     "%g m], rim_length = %g m: the angles must lie strictly between 0 and "
                     "90 degrees, the depth be negative (the floor below the rims) and the "
                     "lengths positive",
                     be, th, dh, pl, rim);
            return NULL;
        }
    }
    sphere *S = calloc(1, sizeof *S);
    if (!S) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    S->b = b;
    S->m = m;
    S->J = m * jm;
    S->g = g;
    S->x0 = values[P_X0].num;
    S->v0 = values[P_V0].num;
    S->rolling0 = values[P_ROLL0].num != 0;
    S->backspin0 = values[P_BACKSPIN].num != 0;
    S->thesis = (int)values[P_MODEL].num == 1;
    S->spin_flip = values[P_SPIN_FLIP].num != 0;
    S->ch3 = 1;
    if (S->spin_flip && (!S->thesis || S->backspin0)) {
        snprintf(err, len, "%s",
                 !S->thesis ? "spin_flip = true needs model = \"thesis\": the flip belongs to "
                              "the thesis's plane models, which open the plane rolled on before "
                              "the next plane's impact (the physical model's two-contact "
                              "corner impact would come before the flip)"
                            : "spin_flip = true with backspin0 = true: reading F already "
                              "reverses the rolling start's spin when the rover leaves the near "
                              "rim (that is backspin0); both would reverse it twice");
        free(S);
        return NULL;
    }
    if (profile) {
        S->xv[0] = values[P_XS].num;
        S->zv[0] = values[P_ZS].num;
        for (size_t k = 0; k < values[P_ANGLES].len; ++k) {
            char name[16];
            snprintf(name, sizeof name, "seg%u", (unsigned)(k + 1));
            sp_add_segment(S, values[P_ANGLES].arr[k], values[P_LENGTHS].arr[k], name);
        }
    } else {
        /* Thesis Sec. 4.2, Fig. 4.1: the near rim ends at x = 0, z = 0. */
        double be = values[P_BETA].num, th = values[P_THETA].num, dh = values[P_DEPTH].num;
        double pl = values[P_FLOOR].num, rim = values[P_RIM].num;
        S->xv[0] = -rim;
        S->zv[0] = 0.0;
        sp_add_segment(S, 0.0, rim, "rim_near");
        sp_add_segment(S, -be, -dh / sin(be * DEG), "decline");
        sp_add_segment(S, 0.0, pl, "floor");
        sp_add_segment(S, th, -dh / sin(th * DEG), "incline");
        sp_add_segment(S, 0.0, rim, "rim_far");
        /* Heights exactly 0 and dh (L sin(beta) rounds). */
        const double zs[] = {0.0, 0.0, dh, dh, 0.0, 0.0};
        for (size_t k = 0; k < 6; ++k) {
            S->zv[k] = zs[k];
            if (k < 5) S->seg[k].z = zs[k];
        }
    }
    sp_finish_terrain(S);
    size_t k = 0;
    S->series[k++] = "z";
    S->series[k++] = "vx";
    S->series[k++] = "wy";
    S->series[k++] = "slip";
    S->series[k++] = "energy";
    if (!profile) {
        S->series[k++] = "floor.N";
        S->series[k++] = "incline.N";
    } else {
        S->series[k++] = "gap";
    }
    S->series[k] = NULL;
    return S;
}

static void destroy(void *inst) { free(inst); }

static void reset(void *inst) {
    sphere *S = inst;
    memcpy(S->owner_next, S->owner0, sizeof S->owner_next);
    S->ch3 = 1;
}

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    const sphere *S = inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 4,
        .nv = 6,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = S->n,
        .contacts = S->decl,
        .n_outputs = N_O,
        .outputs = outputs,
        .n_stops = NSDYN_COUNT(stops),
        .stops = stops,
        .n_switches = S->n_sw,
        .switches = S->sw_ptr,
        .switch_direction = S->sw_dir,
        .plot_series = S->series,
        .phase_pairs = phases,
        .draw_x_label = "position along the valley x [m]",
        .draw_y_label = "height z [m]",
        .energy_output = "energy",
    };
    return NSDYN_OK;
}

static nsdyn_status initial_state(void *inst, double *q, double *v) {
    const sphere *S = inst;
    double z = sp_rest_height(S, S->x0);
    if (!isfinite(z)) return NSDYN_ERROR; /* only vertical walls under x0 */
    /* The supporting contact: the active candidate with the smallest gap. */
    int ground = -1;
    feature best = sp_nearest(S, 0, S->x0, z, &ground);
    for (size_t i = 1; i < S->n; ++i) {
        feature f = sp_nearest(S, i, S->x0, z, &ground);
        if (f.active && (!best.active || f.gap < best.gap)) best = f;
    }
    double t1x = best.nz, t1z = -best.nx;
    q[0] = S->x0;
    q[1] = 0.0;
    q[2] = z;
    q[3] = 0.0;
    v[0] = v[2] = 0.0;
    v[1] = S->rolling0 ? S->v0 / S->b : 0.0; /* u_t1 = v0 - b wy = 0 */
    if (S->backspin0) v[1] = -S->v0 / S->b;  /* u3 = +u4/b as Sec. 4.2 prints it */
    v[3] = S->v0 * t1x;
    v[4] = 0.0;
    v[5] = S->v0 * t1z;
    return NSDYN_OK;
}

/* ---- dynamics ------------------------------------------------------------ */

/* M v' = f + sum W_i^T lambda_i with M = diag(J, J, J, m, m, m): the force
 * N nu + F1 t1 + F2 t2 at the contact point -b nu from the centre, whose
 * moment is -b nu x (F1 t1 + F2 t2) = -b F1 t2 + b F2 t1 (t1 x t2 = nu). */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const sphere *S = inst;
    if (qdot) {
        qdot[0] = v[3];
        qdot[1] = v[4];
        qdot[2] = v[5];
        qdot[3] = v[1];
    }
    if (!vdot) return NSDYN_OK;
    double tau[3] = {0.0, 0.0, 0.0}, F[3] = {0.0, 0.0, -S->m * S->g};
    int ground = -1;
    for (size_t i = 0; i < S->n; ++i) {
        const double *l = f + 3 * i;
        if (l[0] == 0.0 && l[1] == 0.0 && l[2] == 0.0) continue;
        feature c = sp_nearest(S, i, q[0], q[2], &ground);
        double t1x = c.nz, t1z = -c.nx;
        F[0] += l[0] * c.nx + l[1] * t1x;
        F[1] += l[2];
        F[2] += l[0] * c.nz + l[1] * t1z;
        tau[0] += S->b * l[2] * t1x;
        tau[1] -= S->b * l[1];
        tau[2] += S->b * l[2] * t1z;
    }
    for (int k = 0; k < 3; ++k) {
        vdot[k] = tau[k] / S->J;
        vdot[3 + k] = F[k] / S->m;
    }
    return NSDYN_OK;
}

/* Local velocity (2.3)/(2.12) of candidate i's contact point. */
static void local_velocity(const sphere *S, const feature *c, const double *v, double u[3]) {
    double t1x = c->nz, t1z = -c->nx;
    u[0] = c->nx * v[3] + c->nz * v[5];
    u[1] = t1x * v[3] + t1z * v[5] - S->b * v[1];
    u[2] = v[4] + S->b * (t1x * v[0] + t1z * v[2]);
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *out) {
    (void)t;
    const sphere *S = inst;
    const double b = S->b;
    int ground = -1;
    for (size_t i = 0; i < S->n; ++i) {
        if (!nsdyn_contact_wanted(req, i)) continue; /* the step guard follows one */
        nsdyn_contact_eval *e = &out[i];
        feature c = sp_nearest(S, i, q[0], q[2], &ground);
        double t1x = c.nz, t1z = -c.nx;
        e->gap = c.gap;
        local_velocity(S, &c, v, e->u);
        e->normal_load = 0.0;
        if (!c.active) e->active = 0;
        if (req->want_geometry) {
            e->point[0] = c.px;
            e->point[1] = q[1];
            e->point[2] = c.pz;
            e->normal[0] = c.nx;
            e->normal[1] = 0.0;
            e->normal[2] = c.nz;
        }
        double *W = nsdyn_contact_jacobian(req, i);
        if (W) { /* 3 x 6, columns (wx, wy, wz, vx, vy, vz) */
            for (int k = 0; k < 18; ++k) W[k] = 0.0;
            W[0 * 6 + 3] = c.nx;
            W[0 * 6 + 5] = c.nz;
            W[1 * 6 + 1] = -b;
            W[1 * 6 + 3] = t1x;
            W[1 * 6 + 5] = t1z;
            W[2 * 6 + 0] = b * t1x;
            W[2 * 6 + 2] = b * t1z;
            W[2 * 6 + 4] = 1.0;
            /* Faces: nu, t1 fixed, no drift. Ends: nu' = (sigma/rho) t1,
             * t1' = -(sigma/rho) nu with sigma = t1.v (see the header). */
            double sk = (t1x * v[3] + t1z * v[5]) * c.kappa;
            e->drift[0] = sk * (t1x * v[3] + t1z * v[5]);
            e->drift[1] = -sk * e->u[0];
            e->drift[2] = -b * sk * (v[0] * c.nx + v[2] * c.nz);
        }
    }
    return NSDYN_OK;
}

/* ---- outputs, stops, drawing ---------------------------------------------- */

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    (void)f;
    const sphere *S = inst;
    double kin = 0.5 * S->J * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                 0.5 * S->m * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    double pot = S->m * S->g * q[2];
    size_t best = 0;
    feature fb = {0};
    int found = 0, ground = -1;
    for (size_t i = 0; i < S->n; ++i) {
        feature c = sp_nearest(S, i, q[0], q[2], &ground);
        if (c.active && (!found || c.gap < fb.gap)) {
            fb = c;
            best = i;
            found = 1;
        }
    }
    double u[3];
    local_velocity(S, &fb, v, u);
    out[O_KIN] = kin;
    out[O_POT] = pot;
    out[O_ENERGY] = kin + pot;
    out[O_HEIGHT] = q[2] - S->b - S->z_low;
    out[O_GAP] = fb.gap;
    out[O_SLIP] = hypot(u[1], u[2]);
    out[O_NEAREST] = (double)(best + 1);
    return NSDYN_OK;
}

static nsdyn_status stops_eval(void *inst, double t, const double *q, const double *v, double *g) {
    (void)t;
    const sphere *S = inst;
    g[0] = S->has_cross ? S->x_stop - q[0] : 1.0; /* d past the edge, not on the handover */
    g[1] = S->has_low && q[0] > S->x_low - S->b ? v[3] : 1.0;
    return NSDYN_OK;
}

/* Summary values for parameter studies (system.h, ABI 2.1; docs/sweep.md).
 * incline_height: the thesis's "height reached on the incline" (Sec. 5.2,
 * studies III/IV read it against an area of interest at -15 m): the
 * highest sample of the sphere's lowest point z - b while the centre is
 * in the incline region x > x_low - b (the region of the rolled_back
 * stop), relative to the far rim's edge (the last vertex): the valley's
 * depth at the foot, 0 at the rim, NaN when the centre never got there
 * or the profile has no incline. crossed: 1 once the centre is past that
 * edge (x >= x_cross; the stop fires 1e-6 b later), else 0. Sample
 * resolution: near the top of a climb z - b is flat in t, so output_dt
 * = h costs at most g h^2 / 8 of height. */
/* floor_height: the same highest sample measured from the valley floor
 * (z - b - z_low: Sec. 4.2's "meters up from the valley's floor").
 * rebound_time: the first sample in the incline region with vx <= 0 (the
 * rolled_back stop's state, which ends the samples), NaN if none. */
enum { SUM_HEIGHT, SUM_CROSSED, SUM_FLOOR_HEIGHT, SUM_REBOUND, N_SUM };
static const nsdyn_channel summary_values[] = {
    [SUM_HEIGHT] = {"incline_height", "m",
                    "height reached on the incline, relative to the far rim (thesis Sec. 5.2)"},
    [SUM_CROSSED] = {"crossed", "1", "1 when the centre passed the far rim's edge"},
    [SUM_FLOOR_HEIGHT] = {"floor_height", "m",
                          "height reached on the incline above the valley floor (thesis Sec. 4.2)"},
    [SUM_REBOUND] = {"rebound_time", "s",
                     "time the centre first moved back (vx <= 0) in the incline region"},
};

static nsdyn_status summary_update(void *inst, double t, const double *q, const double *v,
                                   int first, double *values) {
    const sphere *S = inst;
    if (first) {
        values[SUM_CROSSED] = 0.0;
        values[SUM_HEIGHT] = values[SUM_FLOOR_HEIGHT] = values[SUM_REBOUND] = NAN;
    }
    if (S->has_low && q[0] > S->x_low - S->b) {
        double h = q[2] - S->b - S->zv[S->n - 1];
        if (!(values[SUM_HEIGHT] >= h)) values[SUM_HEIGHT] = h; /* NaN at first */
        values[SUM_FLOOR_HEIGHT] = values[SUM_HEIGHT] + S->zv[S->n - 1] - S->z_low;
        if (isnan(values[SUM_REBOUND]) && v[3] <= 0.0) values[SUM_REBOUND] = t;
    }
    if (S->has_cross && q[0] >= S->x_cross) values[SUM_CROSSED] = 1.0;
    return NSDYN_OK;
}

static const nsdyn_system_summaries summaries = {
    .struct_size = sizeof(nsdyn_system_summaries),
    .n = N_SUM,
    .values = summary_values,
    .update = summary_update,
};

/* Edge handovers (see the header and handover()): rising through zero
 * when the centre crosses the ray of the new owner's face normal at the
 * edge, from the wedge into the new owner's quadrant. */
static nsdyn_status switches_eval(void *inst, double t, const double *q, const double *v,
                                  const double *f, double *g) {
    (void)t;
    (void)v;
    (void)f;
    const sphere *S = inst;
    for (size_t j = 0; j < S->n_sw; ++j) {
        g[j] = sp_handover(S, S->sw_vertex[j], S->sw_to_next[j], q[0], q[2]);
    }
    return NSDYN_OK;
}

static nsdyn_status on_switch(void *inst, size_t index, double t, double *q, double *v) {
    (void)t;
    (void)q;
    (void)v;
    sphere *S = inst;
    if (index >= S->n_sw) return NSDYN_ERROR;
    S->owner_next[S->sw_vertex[index]] = S->sw_to_next[index];
    return NSDYN_OK;
}

/* Reading F (spin_flip; docs/tumbleweed.md Sec. 1.3). The thesis's rolling and
 * sliding model keeps the spin clockwise-positive ((3.3), (3.6): "with the
 * clockwise direction as positive"; Appendix B integrates it under the name
 * u3, (B.32)-(B.40) and (B.52)-(B.60), where sliding forward raises it), its
 * bouncing model counter-clockwise (Kane's u3 about n3 = n1 x n2, (2.12);
 * rolling is u3 = -u4/b, (2.51)). A code that hands the number from one to
 * the other unchanged reverses the physical spin at every change between
 * them. Here wy is Ch. 3's clockwise spin (wy = v/b rolls forward) and
 * -wy Kane's u3, so the flip is wy -> -wy; wx, wz (u1, u2) exist only in
 * Ch. 2 and keep their values. The rover is in Ch. 3 while a contact is
 * closed (rolling, sliding, pivoting on an edge) and in Ch. 2 while all
 * are open (flight, bounces). It starts in Ch. 3 (Sec. 4.1: it "rolls
 * without slipping over the valley edge"; Sec. 4.2's u3 = +5 rad/s with u4
 * = 5 m/s rolls in Ch. 3's sense), so the first flip comes when it leaves
 * the near rim, before its first bounce. With model = "thesis" the plane
 * rolled on is off before the next plane's impact (the corner switch), so
 * a bounce from rolling sees the flipped spin, as the thesis's Kane model
 * would. The flip keeps the kinetic energy. */
static nsdyn_status on_contact_modes(void *inst, double t, size_t n, const int *old_modes,
                                     const int *new_modes, const double *q, double *v) {
    (void)t;
    (void)old_modes;
    (void)q;
    sphere *S = inst;
    if (!S->spin_flip) return NSDYN_OK;
    int ch3 = 0;
    for (size_t i = 0; i < n; ++i)
        if (new_modes[i] != NSDYN_CMODE_OPEN) ch3 = 1;
    if (ch3 != S->ch3) {
        v[1] = -v[1];
        S->ch3 = ch3;
    }
    return NSDYN_OK;
}

/* Side view in the x-z plane: the terrain polyline (pen 1), the sphere and a
 * spoke at phi from the upward vertical, clockwise for wy > 0 (pen 0). */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const sphere *S = inst;
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    for (size_t i = 0; i < S->n; ++i)
        cv->line(cv->ctx, S->xv[i], S->zv[i], S->xv[i + 1], S->zv[i + 1]);
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->circle(cv->ctx, q[0], q[2], S->b);
    cv->line(cv->ctx, q[0], q[2], q[0] + S->b * sin(q[3]), q[2] + S->b * cos(q[3]));
    cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT);
    cv->circle(cv->ctx, q[0], q[2], 0.06 * S->b);
    return NSDYN_OK;
}

/* Every output is computed from q, v and the terrain (outputs_eval reads
 * no contact force): a study sampling `gap` alone evaluates no contact
 * forces (system.h NSDYN_EXT_FORCE_FREE_OUTPUTS). */
static const char *const force_free_names[] = {"kinetic", "potential", "energy",  "height",
                                               "gap",     "slip",      "nearest", NULL};
static const nsdyn_force_free_outputs force_free = {.struct_size = sizeof force_free,
                                                    .names = force_free_names};
_Static_assert(NSDYN_COUNT(force_free_names) == N_O + 1, "every output is force-free");

static const void *extension(const char *name) {
    return name && !strcmp(name, NSDYN_EXT_FORCE_FREE_OUTPUTS) ? &force_free : NULL;
}

static const nsdyn_system sphere_planes_system = {
    .info = NSDYN_SYSTEM_INFO(.id = "sphere_planes", .version = "1.0.0",
                              .summary = "sphere (6 speeds) rolling, sliding, bouncing on planes: "
                                         "tumbleweed valley crossing "
                                         "(Hartl 2006)",
                              NSDYN_PARAMS(params),
                              .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_TANGENT_2D |
                                          NSDYN_CAP_DRAWS | NSDYN_CAP_CONSERVATIVE,
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
    .summaries = &summaries,
    .on_contact_modes = on_contact_modes,
    .extension = extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &sphere_planes_system.info;
}
