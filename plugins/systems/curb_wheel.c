/* A rigid wheel in the vertical plane against a wall, a step (curb) and the
 * floor, with unilateral constraints.
 * Source: W. Grzesikiewicz, A. Zbiciak, "The non-smooth problem of wheel
 * motion", Advances in Pure Mathematics 10 (2020) 658-684
 * (../shared/papers/wheel-curb-unilateral-constraints.txt), Sections 2, 4,
 * 6.2-6.3, and ../shared/design/validation-targets.md
 * ("wheel-curb-unilateral-constraints"). The extracted text has lost its
 * minus signs and primes; every sign below is rederived (docs/curb-wheel.md).
 *
 * Coordinates (Sec. 4). q = X = (x, y, phi): the wheel centre S [m] and the
 * rotation angle [rad], counterclockwise positive (x right, y up): the slip
 * of the floor contact is x' + r phi' ((42)), so rolling to the right has
 * phi' = -x'/r. v = X' = (xdot, ydot, phidot), q' = v (nq = nv = 3).
 * M = diag(m, m, J), Q = (0, -m g, 0) (Sec. 4), so (17b)/(25a) read
 *     M v' = Q + sum_c W_c^T (N_c, F_c)
 * with each candidate's local normal force N_c and friction force F_c [N]
 * in the unit contact frame below. derivatives() returns
 * v' = M^-1 (Q + sum W^T lambda): affine in the contact forces.
 *
 * Terrain (Fig. 1, (3)-(4)); dimensions r > h > 0 and l > 2 r:
 *   wall   X = 0 for Y >= h                   (the paper's segment I),
 *   step   top Y = h for 0 <= X <= l1          (segment II),
 *   corner K = (l1, h), a sharp edge           (segment III: the centre
 *          turns about K on the arc y = f(x) = sqrt(r^2 - (x - l1)^2) + h, (4c)),
 *   floor  Y = 0 for X >= l1                   (segment IV),
 * with l1 = l - r and a = sqrt(r^2 - (r - h)^2) (4b). The step's vertical
 * face X = l1, 0 <= Y < h is never touched because r > h (the wheel meets
 * K first), as (4a) assumes. The admissible centre positions are
 * Omega = {x >= r, y >= Phi(x)} (3), (4a); its boundary Fr Omega is the
 * paper's segments I-IV (26a)-(26d) with the singular points
 * A = (r, r + h) (wall and step top, (27a)) and B = (l1 + a, r) (corner and
 * floor, (27b)). "Rounded corner" in the design notes is the centre's arc
 * III; the curb edge itself is sharp (the arc's radius is exactly r).
 *
 * Contact candidates: four unilateral, tangent_dim 1, one per segment,
 * "I_wall", "II_step", "III_corner", "IV_floor". Each gap is the signed
 * distance [m] from the wheel's rim to that terrain feature (distance of
 * the centre minus r), the distance form of the paper's constraint
 * functions: x - r (I), y - (r + h) (II), y - r (IV), and for III
 * |S - K| - r, which has the same zero set and sign as y - f(x) of (4a) but
 * unit gradient (the paper's G_III = (-f', 1, 0) has length
 * |G| = sqrt(1 + f'^2) = r/(y - h) >= 1 on the arc; with it the local normal
 * force would be the paper's multiplier lambda instead of the force
 * |G| lambda, and Coulomb's bound mu N would be off by |G|).
 * Outside each segment's own range the gap continues as follows, C^1 and
 * never small where the wheel cannot touch that feature:
 *   I    y >= h: x - r.  y < h (centre below the step top, inside the step,
 *        unreachable): distance to the wall's foot (0, h) minus r.
 *   II   x <= l1: y - h - r.  x > l1 (over the corner, where the wheel can
 *        touch only K, which is III's): |S - K| - r + (x - l1)^2/(2 r).
 *        The true distance to the closed segment would be |S - K| - r,
 *        identical to III's, a duplicate zero gap all along the arc; the
 *        added (x - l1)^2/(2 r) makes II open on the arc exactly as III
 *        opens on the step top (there |S - K| - r = sqrt((l1-x)^2 + r^2) - r
 *        ~ (l1 - x)^2/(2 r)), and at B it is a^2/(2 r) = 37.5 mm.
 *   III  everywhere |S - K| - r (the corner's true distance; it is zero
 *        only on the arc, incl. its ends x = l1 and B).
 *   IV   x >= l1: y - r.  x < l1 (over the step): distance to the floor's
 *        end F = (l1, 0) minus r (>= h on the step top, instead of y - r,
 *        which would be h even far from the edge and small for small h).
 * So along Fr Omega exactly one gap is zero, two at A (I, II) and at B
 * (III, IV), and at the tangential hand-over x = l1 between II and III both
 * are zero at that single point (same normal (0, 1): the paper has no
 * singular point there). Each of II and III reaches zero there with zero
 * rate from its side (quadratically), so the hand-over is grazing, never an
 * impact. With a compliant law and penetration p, II and III both push
 * within |x - l1| < sqrt(2 r p) of the edge (~4.5 mm at p = 0.1 mm): the
 * union of the two features is not represented by one gap there.
 *
 * Local frame and velocities (18a), in unit vectors. n = the gap's gradient
 * in (x, y) (unit, except II beyond l1 where it carries the penalty's
 * (x - l1)/r), pointing from the terrain to the centre; t = n_unit rotated
 * by -90 degrees, t = (n_y, -n_x): +x on the step top and floor, -y on the
 * wall, from II to IV on the arc (the boundary traversed with Omega on the
 * left). The wheel's material point at the contact, S - r n, moves with
 * (x', y') + phi' e_z x (-r n) = (x', y') + r phi' t, so
 *     u_n = n . (x', y')                      (= gap rate, (18a) v_n),
 *     u_t = t . (x', y') + r phi'             (slip along t, (18a) v_t),
 * W = [[n_x, n_y, 0], [t_x, t_y, r], [0, 0, 0]]. A tangential force F along t
 * at S - r n gives the torque r F (e_z . (-r n) x t = r), consistent with W^T.
 * These are (26a)-(26d) with G and H made unit: W_n = G/|G| and
 * W_t = (H_x/|G|, H_y/|G|, r) (the paper's H_III = (1, f', r) has a tangent
 * of length |G| but a rotation term of length r, see docs/curb-wheel.md);
 * H_I = (0, -1, r) (its sign is lost in the extraction).
 *
 * Drift u' - W v' [m/s^2] (18b): zero on the straight segments; for a point
 * feature P at distance d = |S - P| (III, and the extensions of I, II, IV),
 * n' = (t . s') t / d and t' = -(t . s') n / d with s' = (x', y'), so
 *     drift_n = (t . s')^2 / d,    drift_t = -(n . s')(t . s') / d,
 * plus x'^2/r in drift_n for II's penalty. On the arc with u_n = 0 this is
 * the paper's curvature term (26c): gamma_n^III = -f''(x) x'^2 = |G| drift_n
 * (f'' < 0, (26e)). The paper's gamma_t^III = f'' x' y' is the derivative of
 * its unnormalised H_III^T X'; ours is the unit slip's (zero when u_n = 0:
 * on a circle the unit tangent turns only with the normal motion).
 *
 * Outputs: kinetic_energy T = (1/2)(m (x'^2 + y'^2) + J phi'^2),
 * potential_energy V = m g (y - r) (zero with the wheel on the floor),
 * energy = T + V [J]; gap_I ... gap_IV [m] (the four candidates' gaps);
 * nearest_segment (1-4, the candidate with the smallest gap, the first on a
 * tie) and slip = its u_t [m/s] (0 when the wheel rolls there).
 *
 * Default initial state (Sec. 6.3, (114)): X0 = (0.8 m, 0.2 m, 0 rad),
 * V0 = (-5 m/s, 3 m/s, 0 rad/s). The extraction lost V0's signs: the wheel
 * must move towards the curb (x' = -5 m/s); y' = +3 m/s (first contact: the
 * wall, at t = 0.14 s, y = 0.524 m) or -3 m/s (the floor, at t = 0.0317 s,
 * x = 0.642 m); override ydot in [initial] for the other.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

/* Defaults: Sec. 6.3. */
static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("m", "kg", 10.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "mass of the wheel (Sec. 6.3: 10 kg)"),
    NSDYN_REAL_F("J", "kg m^2", 0.05, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "moment of inertia of the wheel about its centre (Sec. 6.3: 0.05 kg m^2)"),
    NSDYN_REAL_F("r", "m", 0.1, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "wheel radius; must exceed h (Sec. 6.3: 0.1 m)"),
    NSDYN_REAL_F("h", "m", 0.05, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "height of the step (curb) above the floor, < r (Sec. 6.3: 5 cm)"),
    NSDYN_REAL_F(
        "l", "m", 0.5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
        "dimension l of Fig. 1: the curb edge is at X = l1 = l - r from the wall, (4b); > 2 r "
        "(Sec. 6.3: 0.5 m)"),
    NSDYN_REAL("g", "m/s^2", 9.81, 0.0, HUGE_VAL,
               "gravitational acceleration, along -y (Sec. 6.3: 9.81 m/s^2)"),
};

typedef struct curb_wheel {
    double m, J, r, h, l, g;
    double l1, a; /* (4b): curb edge abscissa l - r [m], half-chord sqrt(r^2 - (r-h)^2) [m] */
} curb_wheel;

static const nsdyn_channel q_channels[] = {
    {"x", "m", "wheel centre x"},
    {"y", "m", "wheel centre height y"},
    {"phi", "rad", "rotation angle φ (counterclockwise)"},
};
static const nsdyn_channel v_channels[] = {
    {"xdot", "m/s", "horizontal velocity ẋ"},
    {"ydot", "m/s", "vertical velocity ẏ"},
    {"phidot", "rad/s", "angular velocity φ̇ (counterclockwise)"},
};
enum { O_T, O_V, O_E, O_GAP1, O_GAP2, O_GAP3, O_GAP4, O_NEAREST, O_SLIP, N_O };
static const nsdyn_channel outputs[] = {
    [O_T] = {"kinetic_energy", "J", "kinetic energy"},
    [O_V] = {"potential_energy", "J", "potential energy m g (y − r)"},
    [O_E] = {"energy", "J", "kinetic + potential energy"},
    [O_GAP1] = {"gap_I", "m", "gap to the wall (I)"},
    [O_GAP2] = {"gap_II", "m", "gap to the step top (II)"},
    [O_GAP3] = {"gap_III", "m", "gap to the curb corner (III)"},
    [O_GAP4] = {"gap_IV", "m", "gap to the floor (IV)"},
    [O_NEAREST] = {"nearest_segment", "1", "segment with the smallest gap (1-4)"},
    [O_SLIP] = {"slip", "m/s", "slip velocity at the nearest segment"},
};
enum { C_I, C_II, C_III, C_IV, N_C };
static const nsdyn_contact_decl contacts[] = {
    [C_I] = {"I_wall", NSDYN_CONTACT_UNILATERAL, 1},
    [C_II] = {"II_step", NSDYN_CONTACT_UNILATERAL, 1},
    [C_III] = {"III_corner", NSDYN_CONTACT_UNILATERAL, 1},
    [C_IV] = {"IV_floor", NSDYN_CONTACT_UNILATERAL, 1},
};
static const char *const series[] = {"x", "y", "phi", "xdot", "ydot", "phidot", "energy", NULL};
static const char *const phases[] = {"x:y", "phi:phidot", NULL};

/* ---- geometry ------------------------------------------------------------- */

/* One candidate at the centre S = (x, y): gap, the gap's gradient n (row
 * W_n), the unit tangent t (row W_t = (t, r)), the terrain point and unit
 * normal, and what the drift needs (a point feature's distance; II's
 * penalty). */
typedef struct feature {
    double gap;   /* [m] */
    double n[2];  /* d gap / d(x, y) [1] */
    double un[2]; /* unit normal, terrain -> centre [1] */
    double t[2];  /* unit tangent (un_y, -un_x) [1] */
    double p[2];  /* closest terrain point [m] */
    double d;     /* point feature: |S - P| [m]; 0 for a straight segment */
    int penalty;  /* II beyond l1: + (x - l1)^2/(2 r) in the gap */
} feature;

static void line_feature(feature *f, double nx, double ny, double gap, double px, double py) {
    f->gap = gap;
    f->n[0] = f->un[0] = nx;
    f->n[1] = f->un[1] = ny;
    f->t[0] = ny;
    f->t[1] = -nx;
    f->p[0] = px;
    f->p[1] = py;
    f->d = 0.0;
    f->penalty = 0;
}

/* Distance to the point P; (nx0, ny0) is the normal used if S sits on P
 * (direction undefined; the state is a full radius deep in the terrain). */
static void point_feature(feature *f, double r, double x, double y, double px, double py,
                          double nx0, double ny0) {
    double dx = x - px, dy = y - py, d = hypot(dx, dy);
    double nx = nx0, ny = ny0;
    if (d > 1e-12 * r) {
        nx = dx / d;
        ny = dy / d;
    } else
        d = 1e-12 * r;
    line_feature(f, nx, ny, d - r, px, py);
    f->d = d;
}

static void feature_at(const curb_wheel *w, int c, const double *q, feature *f) {
    double x = q[0], y = q[1], r = w->r, h = w->h, l1 = w->l1;
    switch (c) {
        case C_I: /* wall X = 0, Y >= h: (26a), gap x - r */
            if (y >= h)
                line_feature(f, 1.0, 0.0, x - r, 0.0, y);
            else
                point_feature(f, r, x, y, 0.0, h, 1.0, 0.0);
            break;
        case C_II: /* step top Y = h, 0 <= X <= l1: (26b), gap y - (r + h) */
            if (x <= l1)
                line_feature(f, 0.0, 1.0, y - h - r, x, h);
            else {
                double e = x - l1;
                point_feature(f, r, x, y, l1, h, 0.0, 1.0);
                f->gap += 0.5 * e * e / r;
                f->n[0] += e / r;
                f->penalty = 1;
            }
            break;
        case C_III: /* corner K = (l1, h): (4c), (26c), gap |S - K| - r */
            point_feature(f, r, x, y, l1, h, 0.0, 1.0);
            break;
        default: /* C_IV, floor Y = 0, X >= l1: (26d), gap y - r */
            if (x >= l1)
                line_feature(f, 0.0, 1.0, y - r, x, 0.0);
            else
                point_feature(f, r, x, y, l1, 0.0, 0.0, 1.0);
            break;
    }
}

/* ---- lifecycle ------------------------------------------------------------- */

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len);

/* The parameters, filled by the host into a curb_wheel (plugin.h
 * NSDYN_EXT_PARAM_FIELDS); create() derives l1 and a. */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(curb_wheel, m), NSDYN_FIELD(curb_wheel, J),
                                           NSDYN_FIELD(curb_wheel, r), NSDYN_FIELD(curb_wheel, h),
                                           NSDYN_FIELD(curb_wheel, l), NSDYN_FIELD(curb_wheel, g)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(curb_wheel, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const curb_wheel *p = params;
    for (size_t i = 0; i < NSDYN_COUNT(fields); ++i) {
        double x;
        memcpy(&x, (const char *)params + fields[i].offset, sizeof x);
        if (!isfinite(x)) {
            snprintf(err, len, "parameter '%s' = %g: expected a finite number", fields[i].name, x);
            return NULL;
        }
    }
    /* The declared ranges again (tests and other hosts call create()
     * directly), then the paper's assumptions r > h and a step top that
     * holds the wheel (l1 = l - r > r, so that A lies left of the edge). */
    if (!(p->m > 0) || !(p->J > 0) || !(p->g >= 0)) {
        snprintf(err, len,
                 "m = %g kg, J = %g kg m^2, g = %g m/s^2: the mass and moment of inertia "
                 "must be positive, gravity zero or positive",
                 p->m, p->J, p->g);
        return NULL;
    }
    if (!(p->r > 0) || !(p->h > 0) || !(p->h < p->r)) {
        snprintf(err, len,
                 "r = %g m, h = %g m: the step height must be positive and smaller than "
                 "the wheel radius (the paper's r > h, Sec. 2: the wheel meets the curb "
                 "edge, never its vertical face)",
                 p->r, p->h);
        return NULL;
    }
    if (!(p->l > 2.0 * p->r)) {
        snprintf(err, len,
                 "l = %g m with r = %g m: l must exceed 2 r, so that the step top "
                 "r < x <= l1 = l - r (segment II, (26b)) is not empty",
                 p->l, p->r);
        return NULL;
    }
    curb_wheel *w = malloc(sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *w = *p;             /* the host's block lives only during create() */
    w->l1 = w->l - w->r; /* (4b) */
    w->a = sqrt(w->r * w->r - (w->r - w->h) * (w->r - w->h)); /* (4b) */
    return w;
}

static void destroy(void *inst) { free(inst); }

static nsdyn_status layout(void *inst, nsdyn_system_layout *out) {
    (void)inst;
    *out = (nsdyn_system_layout){
        .struct_size = sizeof *out,
        .nq = 3,
        .nv = 3,
        .q = q_channels,
        .v = v_channels,
        .n_contacts = N_C,
        .contacts = contacts,
        .n_outputs = N_O,
        .outputs = outputs,
        .plot_series = series,
        .phase_pairs = phases,
        .draw_x_label = "horizontal position x [m]",
        .draw_y_label = "height y [m]",
        .energy_output = "energy",
    };
    return NSDYN_OK;
}

/* (114), with V0's signs as in the header. */
static nsdyn_status initial_state(void *inst, double *q, double *v) {
    (void)inst;
    q[0] = 0.8;
    q[1] = 0.2;
    q[2] = 0.0;
    v[0] = -5.0;
    v[1] = 3.0;
    v[2] = 0.0;
    return NSDYN_OK;
}

/* ---- dynamics --------------------------------------------------------------- */

/* q' = v; M v' = Q + sum_c W_c^T (N_c, F_c), (17b), (25a); the second
 * tangent of each (planar) contact is ignored. */
static nsdyn_status derivatives(void *inst, double t, const double *q, const double *v,
                                const double *f, double *qdot, double *vdot) {
    (void)t;
    const curb_wheel *w = inst;
    if (qdot)
        for (int i = 0; i < 3; ++i) qdot[i] = v[i];
    if (!vdot) return NSDYN_OK;
    double Fx = 0.0, Fy = -w->m * w->g, Tz = 0.0; /* Q [N, N, N m] */
    for (int c = 0; c < N_C; ++c) {
        double N = f[3 * c], F = f[3 * c + 1];
        if (N == 0.0 && F == 0.0) continue; /* adds exactly nothing */
        feature g;
        feature_at(w, c, q, &g);
        Fx += g.n[0] * N + g.t[0] * F;
        Fy += g.n[1] * N + g.t[1] * F;
        Tz += w->r * F;
    }
    vdot[0] = Fx / w->m;
    vdot[1] = Fy / w->m;
    vdot[2] = Tz / w->J;
    return NSDYN_OK;
}

static nsdyn_status contacts_eval(void *inst, double t, const double *q, const double *v,
                                  const nsdyn_contact_request *req, nsdyn_contact_eval *ce) {
    (void)t;
    const curb_wheel *w = inst;
    for (int c = 0; c < N_C; ++c) {
        nsdyn_contact_eval *e = &ce[c];
        feature g;
        feature_at(w, c, q, &g);
        double sn = g.un[0] * v[0] + g.un[1] * v[1]; /* unit-normal part of s' */
        double st = g.t[0] * v[0] + g.t[1] * v[1];   /* tangential part of s' */
        e->gap = g.gap;
        e->u[0] = g.n[0] * v[0] + g.n[1] * v[1]; /* gap rate, (18a) v_n */
        e->u[1] = st + w->r * v[2];              /* slip, (18a) v_t */
        e->u[2] = 0.0;
        e->normal_load = 0.0;
        if (req->want_geometry) {
            e->point[0] = g.p[0];
            e->point[1] = g.p[1];
            e->point[2] = 0.0;
            e->normal[0] = g.un[0];
            e->normal[1] = g.un[1];
            e->normal[2] = 0.0;
        }
        double *W = nsdyn_contact_jacobian(req, (size_t)c);
        if (W) { /* rows (normal, t1, t2) by columns (x', y', phi') */
            W[0] = g.n[0], W[1] = g.n[1], W[2] = 0.0;
            W[3] = g.t[0], W[4] = g.t[1], W[5] = w->r;
            W[6] = 0.0, W[7] = 0.0, W[8] = 0.0;
            double dn = 0.0, dt = 0.0; /* (18b) gamma_n, gamma_t in unit form */
            if (g.d > 0.0) {
                dn = st * st / g.d;
                dt = -sn * st / g.d;
            }
            if (g.penalty) dn += v[0] * v[0] / w->r;
            e->drift[0] = dn;
            e->drift[1] = dt;
            e->drift[2] = 0.0;
        }
    }
    return NSDYN_OK;
}

/* ---- outputs ------------------------------------------------------------------ */

static nsdyn_status outputs_eval(void *inst, double t, const double *q, const double *v,
                                 const double *f, double *out) {
    (void)t;
    (void)f;
    const curb_wheel *w = inst;
    double T = 0.5 * (w->m * (v[0] * v[0] + v[1] * v[1]) + w->J * v[2] * v[2]);
    double V = w->m * w->g * (q[1] - w->r);
    out[O_T] = T;
    out[O_V] = V;
    out[O_E] = T + V;
    int best = 0;
    double best_gap = HUGE_VAL, best_slip = 0.0;
    for (int c = 0; c < N_C; ++c) {
        feature g;
        feature_at(w, c, q, &g);
        out[O_GAP1 + c] = g.gap;
        if (g.gap < best_gap) {
            best = c;
            best_gap = g.gap;
            best_slip = g.t[0] * v[0] + g.t[1] * v[1] + w->r * v[2];
        }
    }
    out[O_NEAREST] = (double)(best + 1);
    out[O_SLIP] = best_slip;
    return NSDYN_OK;
}

/* ---- drawing -------------------------------------------------------------------- */

/* Side view: the terrain (pen 1: wall, step top, curb edge, step face,
 * floor), the boundary Fr Omega of the centre's admissible region (pen 3:
 * segments I-IV of Fig. 7, with A and B), and the wheel (pen 0: rim and a
 * spoke at angle phi; pen 2: the centre). The terrain reaches past the
 * wheel, so every snapshot draws the same lines, only longer. */
static nsdyn_status draw(void *inst, double t, const double *q, const nsdyn_canvas *cv) {
    (void)t;
    const curb_wheel *w = inst;
    double x = q[0], y = q[1], phi = q[2], r = w->r, h = w->h, l1 = w->l1, a = w->a;
    double top = fmax(y + 2.0 * r, h + 4.0 * r), right = fmax(x + 2.0 * r, l1 + a + 4.0 * r);
    cv->pen(cv->ctx, NSDYN_PEN_GROUND);
    cv->line(cv->ctx, 0.0, top, 0.0, h);    /* I: wall */
    cv->line(cv->ctx, 0.0, h, l1, h);       /* II: step top */
    cv->line(cv->ctx, l1, h, l1, 0.0);      /* step face (never touched, r > h) */
    cv->line(cv->ctx, l1, 0.0, right, 0.0); /* IV: floor */
    cv->pen(cv->ctx, NSDYN_PEN_TRACE);
    cv->line(cv->ctx, r, top, r, r + h);    /* Fr Omega I */
    cv->line(cv->ctx, r, r + h, l1, r + h); /* II */
    enum { NARC = 16 };
    double px = l1, py = r + h;
    for (int k = 1; k <= NARC; ++k) { /* III: y = f(x), (4c) */
        double xa = l1 + a * k / NARC, ya = sqrt(fmax(r * r - (xa - l1) * (xa - l1), 0.0)) + h;
        cv->line(cv->ctx, px, py, xa, ya);
        px = xa;
        py = ya;
    }
    cv->line(cv->ctx, l1 + a, r, right, r); /* IV */
    cv->pen(cv->ctx, NSDYN_PEN_STRUCTURE);
    cv->circle(cv->ctx, x, y, r);
    cv->line(cv->ctx, x, y, x + r * cos(phi), y + r * sin(phi));
    cv->pen(cv->ctx, NSDYN_PEN_HIGHLIGHT);
    cv->circle(cv->ctx, x, y, 0.06 * r);
    return NSDYN_OK;
}

static const nsdyn_system curb_wheel_system = {
    .info = NSDYN_SYSTEM_INFO(
            .id = "curb_wheel", .version = "1.0.0",
            .summary = "rigid wheel against a wall, a curb and the floor, unilateral contacts "
                       "(Grzesikiewicz & Zbiciak 2020)",
            NSDYN_PARAMS(params),
            .provides = NSDYN_CAP_UNILATERAL_CONTACTS | NSDYN_CAP_DRAWS | NSDYN_CAP_CONSERVATIVE,
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
    return &curb_wheel_system.info;
}
