/* The wheel against the curb (plugins/systems/curb_wheel.c; Grzesikiewicz &
 * Zbiciak 2020, ../shared/papers/wheel-curb-unilateral-constraints.txt).
 *
 *  (a) geometry: the gaps at known positions (resting on the floor, at the
 *      wall, at the singular points A (27a) and B (27b) with two zero gaps),
 *      and along the whole boundary Fr Omega (3)-(4): exactly the touched
 *      segment's gap is zero, every other one positive; the designed
 *      continuations (II over the corner, III over the step top, IV over
 *      the step) have the values docs/curb-wheel.md gives; a low step does
 *      not make the floor look near from the step top.
 *  (b) the paper's mappings (26a)-(26e): our unit rows are its G and H
 *      scaled, its curvature term gamma_n^III = -f'' x'^2 equals |G| times
 *      our normal drift on the arc, and the slip u_t is the velocity of the
 *      wheel's material point at the contact (rigid-body kinematics worked
 *      out here independently of the plugin).
 *  (c) kinematics by finite differences along random states: u_n = d gap/dt,
 *      u = W v, and u' = W v' + drift.
 *  (d) dynamics: v' is affine in the contact forces and equals
 *      M^-1 (Q + W^T lambda) with M = diag(m, m, J), Q = (0, -m g, 0).
 *  (e) energy output; a free flight conserves it (through the host), and a
 *      wheel that starts sliding on the floor (compliant contact,
 *      regularised Coulomb) ends up rolling at 2/3 of its speed, as the
 *      conservation of angular momentum about the contact line requires.
 *  (f) drawing, and bad parameters refused with clear messages.
 */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

static nsd_registry reg;
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

/* Sec. 6.3 values, the plugin's defaults. */
static const double M_ = 10.0, J_ = 0.05, R_ = 0.1, H_ = 0.05, L_ = 0.5, G_ = 9.81;
#define L1 (L_ - R_)                               /* (4b) */
#define A_ (sqrt(R_ * R_ - (R_ - H_) * (R_ - H_))) /* (4b) */

enum { I, II, III, IV, NC };

/* ---- helpers ------------------------------------------------------------- */

typedef struct wheel {
    const nsdyn_system *S;
    void *inst;
} wheel;

/* An instance with the defaults, except key = value if key is given. */
static void *make(const char *key, double value, char *err, size_t len, const nsdyn_system **S) {
    const nsd_plugin *p = nsd_registry_find(&reg, "curb_wheel");
    ck_assert_ptr_nonnull(p);
    *S = (const nsdyn_system *)p->info;
    nsdyn_value v[16] = {{0}};
    ck_assert_uint_le(p->info->n_params, 16);
    int found = key == NULL;
    for (size_t i = 0; i < p->info->n_params; ++i) {
        v[i].num = p->info->params[i].default_value;
        if (key && !strcmp(p->info->params[i].name, key)) {
            v[i].num = value;
            found = 1;
        }
    }
    ck_assert_msg(found, "no parameter %s", key);
    return nsd_plugin_create(&(*S)->info, v, &host, err, len);
}

static wheel open_wheel(const char *key, double value) {
    wheel w;
    char err[512] = "";
    w.inst = make(key, value, err, sizeof err, &w.S);
    ck_assert_msg(w.inst != NULL, "create failed: %s", err);
    return w;
}

static void close_wheel(wheel *w) { w->S->info.destroy(w->inst); }

/* All four candidates at (q, v), with Jacobian rows W[c] (3 x 3) and
 * geometry. */
static void eval(const wheel *w, const double *q, const double *v, nsdyn_contact_eval ce[NC],
                 double W[NC][9]) {
    memset(ce, 0, NC * sizeof *ce);
    double *rows[NC];
    for (int c = 0; c < NC; ++c) {
        ce[c].active = 1;
        rows[c] = W[c];
    }
    const nsdyn_contact_request req = {sizeof req, 1, rows, NULL};
    ck_assert_int_eq(w->S->contacts(w->inst, 0.0, q, v, &req, ce), NSDYN_OK);
    for (int c = 0; c < NC; ++c) ck_assert_int_eq(ce[c].active, 1); /* never switched off */
}

static void gaps_at(const wheel *w, double x, double y, double g[NC]) {
    double q[3] = {x, y, 0.0}, v[3] = {0.0, 0.0, 0.0}, W[NC][9];
    nsdyn_contact_eval ce[NC];
    eval(w, q, v, ce, W);
    for (int c = 0; c < NC; ++c) g[c] = ce[c].gap;
}

static void vdot_of(const wheel *w, const double *q, const double *v, const double *f, double *a) {
    double qd[3];
    ck_assert_int_eq(w->S->derivatives(w->inst, 0.0, q, v, f, qd, a), NSDYN_OK);
    for (int i = 0; i < 3; ++i) ck_assert_double_eq(qd[i], v[i]); /* q' = v */
}

/* Deterministic uniform numbers in [lo, hi) (64-bit LCG, Knuth's MMIX). */
static double uniform(unsigned long long *s, double lo, double hi) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* The arc (4c) and its derivatives (26e), signs rederived: f' < 0, f'' < 0. */
static double f_arc(double x) { return sqrt(R_ * R_ - (x - L1) * (x - L1)) + H_; }
static double fp_arc(double x) { return -(x - L1) / sqrt(R_ * R_ - (x - L1) * (x - L1)); }
static double fpp_arc(double x) { return -R_ * R_ / pow(R_ * R_ - (x - L1) * (x - L1), 1.5); }

/* ---- (a) geometry ------------------------------------------------------------ */

START_TEST(layout_and_initial_state) {
    wheel w = open_wheel(NULL, 0);
    nsdyn_system_layout lay;
    ck_assert_int_eq(w.S->layout(w.inst, &lay), NSDYN_OK);
    ck_assert_uint_eq(lay.nq, 3);
    ck_assert_uint_eq(lay.nv, 3);
    ck_assert_uint_eq(lay.n_contacts, NC);
    const char *names[NC] = {"I_wall", "II_step", "III_corner", "IV_floor"};
    for (int c = 0; c < NC; ++c) {
        ck_assert_str_eq(lay.contacts[c].name, names[c]);
        ck_assert_int_eq(lay.contacts[c].type, NSDYN_CONTACT_UNILATERAL);
        ck_assert_uint_eq(lay.contacts[c].tangent_dim, 1);
    }
    double q[3], v[3];
    ck_assert_int_eq(w.S->initial_state(w.inst, q, v), NSDYN_OK);
    const double q0[3] = {0.8, 0.2, 0.0}, v0[3] = {-5.0, 3.0, 0.0}; /* (114) */
    for (int i = 0; i < 3; ++i) {
        ck_assert_double_eq(q[i], q0[i]);
        ck_assert_double_eq(v[i], v0[i]);
    }
    close_wheel(&w);
}
END_TEST

START_TEST(gaps_at_known_positions) {
    wheel w = open_wheel(NULL, 0);
    double g[NC];
    /* Exact zeros are expected to a few ulps of the coordinates (1e-16 m);
     * 1e-15 m allows the rounding of hypot and of l - r. */
    const double tol = 1e-15;
    /* Resting on the floor right of the curb. */
    gaps_at(&w, 0.7, R_, g);
    ck_assert_double_eq_tol(g[IV], 0.0, tol);
    ck_assert_double_eq_tol(g[I], 0.7 - R_, tol);
    ck_assert_double_eq_tol(g[III], hypot(0.7 - L1, R_ - H_) - R_, tol);
    ck_assert_double_eq_tol(g[II], g[III] + (0.7 - L1) * (0.7 - L1) / (2 * R_), tol);
    /* Touching the wall, 0.4 m up. */
    gaps_at(&w, R_, 0.4, g);
    ck_assert_double_eq_tol(g[I], 0.0, tol);
    ck_assert_double_eq_tol(g[II], 0.4 - H_ - R_, tol);
    ck_assert_double_eq_tol(g[III], hypot(L1 - R_, 0.4 - H_) - R_, tol);
    ck_assert_double_eq_tol(g[IV], hypot(L1 - R_, 0.4) - R_, tol);
    /* A (27a): wall and step top at once. */
    gaps_at(&w, R_, R_ + H_, g);
    ck_assert_double_eq_tol(g[I], 0.0, tol);
    ck_assert_double_eq_tol(g[II], 0.0, tol);
    ck_assert_double_gt(g[III], 0.2);
    ck_assert_double_gt(g[IV], 0.2);
    /* B (27b): corner and floor at once; II is a^2/(2 r) = 37.5 mm away
     * there (its continuation over the corner), not zero. */
    gaps_at(&w, L1 + A_, R_, g);
    ck_assert_double_eq_tol(g[III], 0.0, tol);
    ck_assert_double_eq_tol(g[IV], 0.0, tol);
    ck_assert_double_eq_tol(g[II], A_ * A_ / (2 * R_), tol);
    ck_assert_double_eq_tol(g[I], L1 + A_ - R_, tol);
    /* On the step top in the middle; on the arc half-way. */
    gaps_at(&w, 0.25, R_ + H_, g);
    ck_assert_double_eq_tol(g[II], 0.0, tol);
    ck_assert_double_eq_tol(g[III], hypot(L1 - 0.25, R_) - R_, tol);
    ck_assert_double_eq_tol(g[IV], hypot(L1 - 0.25, R_ + H_) - R_, tol);
    double xa = L1 + 0.5 * A_;
    gaps_at(&w, xa, f_arc(xa), g);
    ck_assert_double_eq_tol(g[III], 0.0, tol);
    ck_assert_double_eq_tol(g[II], 0.125 * A_ * A_ / R_, tol);
    ck_assert_double_eq_tol(g[IV], f_arc(xa) - R_, tol);
    /* Penetration is negative: 1 mm into the floor, 1 mm into the corner. */
    gaps_at(&w, 0.7, R_ - 1e-3, g);
    ck_assert_double_eq_tol(g[IV], -1e-3, tol);
    gaps_at(&w, L1 + 0.6 * A_, H_ + sqrt((R_ - 1e-3) * (R_ - 1e-3) - 0.36 * A_ * A_), g);
    ck_assert_double_eq_tol(g[III], -1e-3, 1e-14);

    /* Normals at A and B are the paper's G vectors (28a)-(28b), made unit:
     * G_I = (1, 0), G_II = G_IV = (0, 1), G_III(B) = (-f_B, 1) with
     * f_B = -a/(r - h) (80). */
    double q[3] = {R_, R_ + H_, 0.3}, v[3] = {0}, W[NC][9];
    nsdyn_contact_eval ce[NC];
    eval(&w, q, v, ce, W);
    ck_assert_double_eq(ce[I].normal[0], 1.0);
    ck_assert_double_eq(ce[I].normal[1], 0.0);
    ck_assert_double_eq(ce[II].normal[0], 0.0);
    ck_assert_double_eq(ce[II].normal[1], 1.0);
    ck_assert_double_eq(ce[I].point[0], 0.0); /* the wall, at the centre's height */
    ck_assert_double_eq(ce[I].point[1], R_ + H_);
    ck_assert_double_eq(ce[II].point[0], R_); /* the step top under the centre */
    ck_assert_double_eq(ce[II].point[1], H_);
    q[0] = L1 + A_;
    q[1] = R_;
    eval(&w, q, v, ce, W);
    double fB = -A_ / (R_ - H_), nG = hypot(fB, 1.0);
    ck_assert_double_eq_tol(ce[III].normal[0], -fB / nG, 1e-15);
    ck_assert_double_eq_tol(ce[III].normal[1], 1.0 / nG, 1e-15);
    ck_assert_double_eq_tol(ce[III].point[0], L1, 1e-15); /* the corner K */
    ck_assert_double_eq_tol(ce[III].point[1], H_, 1e-15);
    ck_assert_double_eq(ce[IV].normal[1], 1.0);
    ck_assert_double_eq(ce[IV].point[1], 0.0);
    close_wheel(&w);
}
END_TEST

/* Walk the centre along Fr Omega (the paper's (5b) with (4a)): wall from
 * 0.5 m down to A, step top to the edge, arc to B, floor to x = 1 m. At each
 * point the touched segment's gap is zero and every other candidate's is
 * positive; at A, B and the edge x = l1 (tangential hand-over II -> III) two
 * are zero. The continuations have their documented values. */
START_TEST(boundary_walk) {
    wheel w = open_wheel(NULL, 0);
    const int n = 400;
    double min_other = HUGE_VAL;
    for (int seg = 0; seg < 4; ++seg)
        for (int k = 0; k <= n; ++k) {
            double s = (double)k / n, x, y;
            if (seg == 0)
                x = R_, y = 0.5 - s * (0.5 - R_ - H_);
            else if (seg == 1)
                x = R_ + s * (L1 - R_), y = R_ + H_;
            else if (seg == 2)
                x = L1 + s * A_, y = k == n ? R_ : f_arc(L1 + s * A_);
            else
                x = L1 + A_ + s * (1.0 - L1 - A_), y = R_;
            double g[NC];
            gaps_at(&w, x, y, g);
            /* 2e-16 m: the arc's points come from f (4c), one rounding off. */
            ck_assert_msg(fabs(g[seg]) < 2e-16, "segment %d at (%g, %g): gap %g", seg + 1, x, y,
                          g[seg]);
            int endA = (seg == 0 && k == n) || (seg == 1 && k == 0);
            int endB = (seg == 2 && k == n) || (seg == 3 && k == 0);
            int edge = (seg == 1 && k == n) || (seg == 2 && k == 0);
            for (int c = 0; c < NC; ++c) {
                if (c == seg) continue;
                if (endA && (c == I || c == II)) continue;
                if (endB && (c == III || c == IV)) continue;
                if (edge && (c == II || c == III)) continue;
                ck_assert_msg(g[c] > 0.0, "segment %d at (%g, %g): candidate %d has gap %g",
                              seg + 1, x, y, c + 1, g[c]);
                if (!(edge || endA || endB)) min_other = fmin(min_other, g[c]);
            }
            if (seg == 1) { /* over the step top: III is the true corner distance, IV >= h */
                ck_assert_double_eq_tol(g[III], hypot(L1 - x, R_) - R_, 1e-15);
                ck_assert_double_ge(g[IV], H_ - 1e-15);
            }
            if (seg == 2) /* over the arc: II opens as (x - l1)^2/(2 r) */
                ck_assert_double_eq_tol(g[II], (x - L1) * (x - L1) / (2 * R_), 1e-15);
            if (seg == 3) /* on the floor: II at least a^2/(2 r) away */
                ck_assert_double_ge(g[II], A_ * A_ / (2 * R_) - 1e-15);
        }
    printf(
        "boundary walk: smallest gap of an untouched candidate %.3e m (next to A, B or the edge)\n",
        min_other);
    close_wheel(&w);
}
END_TEST

/* A low step (h = 1 mm): on the step top far from the edge the floor's gap
 * is its true distance, not h (which y - r everywhere would report). */
START_TEST(low_step_floor_is_far) {
    wheel w = open_wheel("h", 1e-3);
    double g[NC];
    gaps_at(&w, 0.2, R_ + 1e-3, g);
    ck_assert_double_eq_tol(g[II], 0.0, 1e-15);
    ck_assert_double_eq_tol(g[IV], hypot(L1 - 0.2, R_ + 1e-3) - R_, 1e-15);
    ck_assert_double_gt(g[IV], 0.1);
    close_wheel(&w);
}
END_TEST

/* ---- (b) the paper's mappings (26) ----------------------------------------------- */

START_TEST(paper_rows_and_curvature) {
    wheel w = open_wheel(NULL, 0);
    double W[NC][9];
    nsdyn_contact_eval ce[NC];
    /* Straight segments (26a), (26b), (26d): G, H exactly, no drift. H_I
     * = (0, -1, r): the extraction lost its sign; the slip of the rim point
     * at the wall along -y is -y' + r phi'. */
    double q[3] = {R_, 0.3, 0.7}, v[3] = {0.4, -1.1, 3.0};
    eval(&w, q, v, ce, W);
    const double rowsI[6] = {1, 0, 0, 0, -1, R_};
    for (int k = 0; k < 6; ++k) ck_assert_double_eq(W[I][k], rowsI[k]);
    for (int k = 6; k < 9; ++k) ck_assert_double_eq(W[I][k], 0.0);
    ck_assert_double_eq(ce[I].drift[0], 0.0);
    ck_assert_double_eq(ce[I].drift[1], 0.0);
    ck_assert_double_eq_tol(ce[I].u[1], -v[1] + R_ * v[2], 1e-15);
    q[0] = 0.25, q[1] = R_ + H_;
    eval(&w, q, v, ce, W);
    const double rowsII[6] = {0, 1, 0, 1, 0, R_};
    for (int k = 0; k < 6; ++k) ck_assert_double_eq(W[II][k], rowsII[k]);
    q[0] = 0.7, q[1] = R_;
    eval(&w, q, v, ce, W);
    for (int k = 0; k < 6; ++k) ck_assert_double_eq(W[IV][k], rowsII[k]);
    ck_assert_double_eq_tol(ce[IV].u[1], v[0] + R_ * v[2], 1e-15); /* (42) */
    ck_assert_double_eq(ce[IV].drift[0], 0.0);

    /* Segment III (26c), (26e) at points of the arc: W_n = G/|G| with
     * G = (-f', 1, 0), the translational part of W_t = (1, f')/|G|, and with
     * a velocity along the arc (u_n = 0) the paper's curvature term
     * gamma_n = -f'' x'^2 (the derivative of G^T X') is |G| drift_n.
     * Tolerance 1e-12: f' and f'' here and the plugin's distance form
     * round differently, relative errors ~1e-15 amplified by |f'| <= 1.8. */
    for (int k = 1; k < 10; ++k) {
        double x = L1 + A_ * k / 10.0, fp = fp_arc(x), nG = hypot(fp, 1.0);
        double qa[3] = {x, f_arc(x), 0.0};
        double speed = 2.0 - 0.3 * k; /* along the arc, both ways */
        double va[3] = {speed / nG, speed * fp / nG, 5.0};
        eval(&w, qa, va, ce, W);
        ck_assert_double_eq_tol(ce[III].gap, 0.0, 1e-15);
        ck_assert_double_eq_tol(W[III][0], -fp / nG, 1e-12);
        ck_assert_double_eq_tol(W[III][1], 1.0 / nG, 1e-12);
        ck_assert_double_eq(W[III][2], 0.0);
        ck_assert_double_eq_tol(W[III][3], 1.0 / nG, 1e-12);
        ck_assert_double_eq_tol(W[III][4], fp / nG, 1e-12);
        ck_assert_double_eq(W[III][5], R_);
        ck_assert_double_eq_tol(ce[III].u[0], 0.0, 1e-12);
        double gamma_n = -fpp_arc(x) * va[0] * va[0];
        ck_assert_double_eq_tol(nG * ce[III].drift[0], gamma_n, 1e-12 * (1 + fabs(gamma_n)));
        ck_assert_double_eq_tol(ce[III].drift[1], 0.0, 1e-12); /* unit slip: no drift at u_n = 0 */
    }
    close_wheel(&w);
}
END_TEST

/* u_t is the velocity of the wheel's material point at the contact along
 * t = (n_y, -n_x): the point S - r n moves with (x', y') + phi' e_z x (-r n)
 * (phi counterclockwise), worked out here from the reported unit normal. */
START_TEST(slip_is_material_point_velocity) {
    wheel w = open_wheel(NULL, 0);
    unsigned long long seed = 12345;
    for (int k = 0; k < 200; ++k) {
        double q[3] = {uniform(&seed, 0.0, 0.9), uniform(&seed, 0.06, 0.6), uniform(&seed, -3, 3)};
        double v[3] = {uniform(&seed, -3, 3), uniform(&seed, -3, 3), uniform(&seed, -30, 30)};
        double W[NC][9];
        nsdyn_contact_eval ce[NC];
        eval(&w, q, v, ce, W);
        for (int c = 0; c < NC; ++c) {
            double nx = ce[c].normal[0], ny = ce[c].normal[1];
            ck_assert_double_eq_tol(hypot(nx, ny), 1.0, 1e-15);
            double rx = -R_ * nx, ry = -R_ * ny;                 /* S -> contact point */
            double px = v[0] - v[2] * ry, py = v[1] + v[2] * rx; /* v_S + omega x r */
            double slip = ny * px - nx * py;                     /* along t = (n_y, -n_x) */
            ck_assert_double_eq_tol(ce[c].u[1], slip, 1e-13);
            ck_assert_double_eq(ce[c].u[2], 0.0);
        }
    }
    close_wheel(&w);
}
END_TEST

/* ---- (c) kinematics by finite differences ------------------------------------------ */

START_TEST(gap_rate_and_drift_by_differences) {
    wheel w = open_wheel(NULL, 0);
    unsigned long long seed = 2020;
    int checked = 0;
    double err_un = 0.0, err_acc = 0.0;
    while (checked < 2000) {
        double q[3] = {uniform(&seed, -0.05, 0.95), uniform(&seed, 0.0, 0.6),
                       uniform(&seed, -3, 3)};
        /* Keep 2 mm away from the region boundaries (x = l1, y = h), where
         * the gaps are C^1 but their second derivatives jump, and 3 cm from
         * the feature points (corner K, the floor's end F, the wall's foot)
         * so that the distance's third derivative stays bounded. */
        if (fabs(q[0] - L1) < 2e-3 || fabs(q[1] - H_) < 2e-3) continue;
        if (hypot(q[0] - L1, q[1] - H_) < 0.03 || hypot(q[0] - L1, q[1]) < 0.03 ||
            hypot(q[0], q[1] - H_) < 0.03)
            continue;
        double v[3] = {uniform(&seed, -3, 3), uniform(&seed, -3, 3), uniform(&seed, -30, 30)};
        double a[3] = {uniform(&seed, -20, 20), uniform(&seed, -20, 20), uniform(&seed, -200, 200)};
        ++checked;
        /* Trajectory q(t) = q + t v + t^2 a/2, v(t) = v + t a, at t = +-h.
         * Errors: truncation h^2/6 times the third derivative of the gap
         * (~|v|^3/d^2 <= 3 (4.3)^3/0.03^2 ~ 3e5 m/s^3) or of u (~|v|^4/d^3
         * + |a||v|^2/d^2 ~ 1e7 m/s^4): <= 2e-6 m/s^2 at h = 1e-6 s;
         * rounding eps |u|/h ~ 1e-9. Bounds: 1e-6 m/s (gap rate) and
         * 1e-5 (1 + |u'|) m/s^2. */
        const double h = 1e-6;
        double qp[3], vp[3], qm[3], vm[3];
        for (int i = 0; i < 3; ++i) {
            qp[i] = q[i] + h * v[i] + 0.5 * h * h * a[i];
            qm[i] = q[i] - h * v[i] + 0.5 * h * h * a[i];
            vp[i] = v[i] + h * a[i];
            vm[i] = v[i] - h * a[i];
        }
        double W0[NC][9], Wp[NC][9], Wm[NC][9];
        nsdyn_contact_eval c0[NC], cp[NC], cm[NC];
        eval(&w, q, v, c0, W0);
        eval(&w, qp, vp, cp, Wp);
        eval(&w, qm, vm, cm, Wm);
        for (int c = 0; c < NC; ++c) {
            for (int r = 0; r < 3; ++r) { /* u = W v, no explicit time dependence */
                double s = W0[c][3 * r] * v[0] + W0[c][3 * r + 1] * v[1] + W0[c][3 * r + 2] * v[2];
                ck_assert_double_eq_tol(c0[c].u[r], s, 1e-14 * (1 + fabs(s)));
            }
            double rate = (cp[c].gap - cm[c].gap) / (2 * h);
            err_un = fmax(err_un, fabs(rate - c0[c].u[0]));
            ck_assert_msg(fabs(rate - c0[c].u[0]) < 1e-6,
                          "candidate %d at (%g, %g): gap rate %.9g vs u_n %.9g", c + 1, q[0], q[1],
                          rate, c0[c].u[0]);
            for (int r = 0; r < 2; ++r) {
                double s = c0[c].drift[r];
                for (int i = 0; i < 3; ++i) s += W0[c][3 * r + i] * a[i];
                double du = (cp[c].u[r] - cm[c].u[r]) / (2 * h);
                err_acc = fmax(err_acc, fabs(du - s) / (1 + fabs(s)));
                ck_assert_msg(fabs(du - s) < 1e-5 * (1 + fabs(s)),
                              "candidate %d row %d at (%g, %g): u' %.9g vs W a + drift %.9g", c + 1,
                              r, q[0], q[1], du, s);
            }
            ck_assert_double_eq(c0[c].drift[2], 0.0);
        }
    }
    printf("finite differences over %d states: max |dg/dt - u_n| = %.2e m/s, max |u' - (W a + "
           "drift)|/(1 + |.|) = %.2e\n",
           checked, err_un, err_acc);
    close_wheel(&w);
}
END_TEST

/* ---- (d) dynamics ---------------------------------------------------------------------- */

START_TEST(dynamics_affine_with_diagonal_mass) {
    wheel w = open_wheel(NULL, 0);
    /* On the floor, at A, at B, on the arc, in the air. */
    const double states[][3] = {{0.7, R_, 0.3},
                                {R_, R_ + H_, -1.0},
                                {L1 + A_, R_, 2.0},
                                {L1 + 0.3 * A_, 0.0, 0.0},
                                {0.55, 0.35, 4.0}};
    for (size_t k = 0; k < sizeof states / sizeof states[0]; ++k) {
        double q[3] = {states[k][0], states[k][1], states[k][2]};
        if (k == 3) q[1] = f_arc(q[0]);
        double v[3] = {-1.5, 0.4, 12.0};
        double f0[3 * NC] = {0}, a0[3];
        vdot_of(&w, q, v, f0, a0);
        /* No contact force: free fall, no torque, Q = (0, -m g, 0). */
        ck_assert_double_eq(a0[0], 0.0);
        ck_assert_double_eq_tol(a0[1], -G_, 1e-15);
        ck_assert_double_eq(a0[2], 0.0);
        double W[NC][9];
        nsdyn_contact_eval ce[NC];
        eval(&w, q, v, ce, W);
        /* Unit local forces: the response is M^-1 W^T e = (W_x/m, W_y/m,
         * W_phi/J) of that row, exactly; the second tangent does nothing. */
        for (int c = 0; c < NC; ++c)
            for (int r = 0; r < 3; ++r) {
                double f[3 * NC] = {0}, a[3];
                f[3 * c + r] = 1.0;
                vdot_of(&w, q, v, f, a);
                const double Minv[3] = {1 / M_, 1 / M_, 1 / J_};
                for (int i = 0; i < 3; ++i)
                    ck_assert_double_eq_tol(a[i] - a0[i], W[c][3 * r + i] * Minv[i], 1e-14);
            }
        /* Affine in the forces: v'(0.3 f1 + 0.7 f2) = 0.3 v'(f1) + 0.7 v'(f2). */
        double f1[3 * NC], f2[3 * NC], fc[3 * NC], a1[3], a2[3], ac[3];
        unsigned long long seed = 7 + k;
        for (int i = 0; i < 3 * NC; ++i) {
            f1[i] = uniform(&seed, -200, 200);
            f2[i] = uniform(&seed, -200, 200);
            fc[i] = 0.3 * f1[i] + 0.7 * f2[i];
        }
        vdot_of(&w, q, v, f1, a1);
        vdot_of(&w, q, v, f2, a2);
        vdot_of(&w, q, v, fc, ac);
        for (int i = 0; i < 3; ++i)
            ck_assert_double_eq_tol(ac[i], 0.3 * a1[i] + 0.7 * a2[i], 1e-12 * (1 + fabs(ac[i])));
    }
    /* The brief's reading aids: on the floor a unit normal force lifts by
     * 1/m, a unit friction force along +x accelerates x by 1/m and spins
     * counterclockwise by r/J; at the wall the friction acts along -y. */
    double q[3] = {0.7, R_, 0.0}, v[3] = {0}, a0[3], a[3], f[3 * NC] = {0};
    vdot_of(&w, q, v, f, a0);
    f[3 * IV] = 1.0;
    vdot_of(&w, q, v, f, a);
    ck_assert_double_eq_tol(a[1] - a0[1], 1.0 / M_, 1e-15);
    f[3 * IV] = 0.0;
    f[3 * IV + 1] = 1.0;
    vdot_of(&w, q, v, f, a);
    ck_assert_double_eq_tol(a[0], 1.0 / M_, 1e-15);
    ck_assert_double_eq_tol(a[2], R_ / J_, 1e-15);
    double qw[3] = {R_, 0.4, 0.0}, fw[3 * NC] = {0};
    fw[3 * I + 1] = 1.0;
    vdot_of(&w, qw, v, fw, a);
    ck_assert_double_eq_tol(a[1] + G_, -1.0 / M_, 1e-15);
    ck_assert_double_eq_tol(a[2], R_ / J_, 1e-15);
    /* Delassus of the two normals at A and at B (28a)-(28b): positive
     * definite (independent normals), so both can be closed at once. */
    const double corners[2][2] = {{R_, R_ + H_}, {L1 + A_, R_}};
    const int pair[2][2] = {{I, II}, {III, IV}};
    for (int k = 0; k < 2; ++k) {
        double qc[3] = {corners[k][0], corners[k][1], 0.0}, W[NC][9];
        nsdyn_contact_eval ce[NC];
        eval(&w, qc, v, ce, W);
        double D[2][2];
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const double *ri = W[pair[k][i]], *rj = W[pair[k][j]];
                D[i][j] = ri[0] * rj[0] / M_ + ri[1] * rj[1] / M_ + ri[2] * rj[2] / J_;
            }
        double det = D[0][0] * D[1][1] - D[0][1] * D[1][0];
        ck_assert_double_gt(D[0][0], 0.0);
        ck_assert_double_gt(det,
                            1e-3 / (M_ * M_)); /* sin^2 of the angle between the normals >= 0.25 */
    }
    close_wheel(&w);
}
END_TEST

/* ---- (e) energy ------------------------------------------------------------------------ */

START_TEST(energy_outputs) {
    wheel w = open_wheel(NULL, 0);
    nsdyn_system_layout lay;
    w.S->layout(w.inst, &lay);
    int iT = -1, iV = -1, iE = -1, ig = -1, in = -1, is = -1;
    for (size_t i = 0; i < lay.n_outputs; ++i) {
        const char *nm = lay.outputs[i].name;
        if (!strcmp(nm, "kinetic_energy")) iT = (int)i;
        if (!strcmp(nm, "potential_energy")) iV = (int)i;
        if (!strcmp(nm, "energy")) iE = (int)i;
        if (!strcmp(nm, "gap_I")) ig = (int)i;
        if (!strcmp(nm, "nearest_segment")) in = (int)i;
        if (!strcmp(nm, "slip")) is = (int)i;
        ck_assert_str_ne(lay.outputs[i].unit, "");
    }
    ck_assert(iT >= 0 && iV >= 0 && iE >= 0 && ig >= 0 && in >= 0 && is >= 0);
    double q[3] = {0.6, 0.13, 1.0}, v[3] = {-2.0, 0.5, 7.0}, f[3 * NC] = {0}, out[16];
    ck_assert_uint_le(lay.n_outputs, 16);
    ck_assert_int_eq(w.S->outputs(w.inst, 0.0, q, v, f, out), NSDYN_OK);
    double T = 0.5 * M_ * (4.0 + 0.25) + 0.5 * J_ * 49.0, V = M_ * G_ * (0.13 - R_);
    ck_assert_double_eq_tol(out[iT], T, 1e-13);
    ck_assert_double_eq_tol(out[iV], V, 1e-13);
    ck_assert_double_eq_tol(out[iE], T + V, 1e-13);
    double W[NC][9];
    nsdyn_contact_eval ce[NC];
    eval(&w, q, v, ce, W);
    for (int c = 0; c < NC; ++c) ck_assert_double_eq(out[ig + c], ce[c].gap);
    ck_assert_double_eq(out[in], 4.0); /* the floor is nearest (3 cm) */
    ck_assert_double_eq_tol(out[is], v[0] + R_ * v[2], 1e-15);
    close_wheel(&w);
}
END_TEST

/* Free flight far above the terrain through the host: rk4 integrates the
 * quadratic ballistic motion exactly, so the energy is constant to
 * rounding (~1e-13 of the ~250 J involved) and phi' stays put. */
START_TEST(flight_conserves_energy) {
    run R;
    run_config(&R,
               "[system]\nid = \"curb_wheel\"\n"
               "[contact]\nid = \"hunt_crossley\"\n"
               "[integrator]\nid = \"rk4\"\nh = 1e-3\n"
               "[initial]\nx = 0.6\ny = 5.0\nxdot = 0.3\nydot = 0.0\nphidot = 2.0\n"
               "[run]\nt_end = 0.5\noutput_dt = 0.01\nprogress = false\n",
               NSD_RUN_COMPLETE);
    double E0 = at(&R, 0, "energy"), drift = 0.0;
    for (size_t r = 0; r < R.res.series.rows; ++r) {
        drift = fmax(drift, fabs(at(&R, r, "energy") - E0));
        ck_assert_double_eq(at(&R, r, "IV_floor.N"), 0.0);
        ck_assert_double_eq_tol(at(&R, r, "phidot"), 2.0, 1e-14);
    }
    ck_assert_double_eq_tol(last(&R, "y"), 5.0 - 0.5 * G_ * 0.25, 1e-12);
    printf("flight: E0 = %.6f J, max |E - E0| = %.2e J\n", E0, drift);
    ck_assert_double_lt(drift, 1e-10);
    run_free(&R);
}
END_TEST

/* A wheel set down on the floor sliding at x' = -1 m/s without spin
 * (Hunt-Crossley contact, Coulomb friction regularised over 1e-4 m/s):
 * friction acts at the contact point, on the line y = 0, as do the normal
 * force and (with its vertical line through the contact) gravity's torque
 * about that point vanishes, so the angular momentum about the contact
 * line L = J phi' - m r x' is conserved. Rolling (phi' = -x'/r) then has
 * x' = x0' (m r)/(m r + J/r) = -2/3 m/s, and the kinetic energy drops from
 * 5 J to 10/3 J. Slip ends after |u_t|/(mu g (1 + m r^2/J)) = 0.085 s.
 * Tolerances: the regularised law creeps by ~eps at most (1e-4 m/s), and
 * the vertical motion settles (bdf rtol 1e-8): 1e-3 m/s and 1e-2 J. This
 * checks the sign of r phi' in u_t against the torque of W^T. */
START_TEST(sliding_wheel_starts_rolling) {
    /* Static Hunt-Crossley penetration (m g / k)^(2/3) under m g = 98.1 N. */
    double k = 9.392e5, pen = pow(M_ * G_ / k, 2.0 / 3.0);
    char toml[1024];
    snprintf(
        toml, sizeof toml,
        "[system]\nid = \"curb_wheel\"\n"
        "[contact]\nid = \"hunt_crossley\"\nk = 9.392e5\nc = 2.0e6\nn = 1.5\np = 1.5\nq = 1.0\n"
        "[friction]\nid = \"coulomb_regularized\"\nmu_s = 0.4\nmu_k = 0.4\neps = 1e-4\n"
        "[integrator]\nid = \"bdf\"\nrtol = 1e-8\natol = 1e-10\n"
        "[initial]\nx = 0.75\ny = %.17g\nphi = 0.0\nxdot = -1.0\nydot = 0.0\nphidot = 0.0\n"
        "[run]\nt_end = 0.2\noutput_dt = 1e-3\nprogress = false\n",
        R_ - pen);
    run R;
    run_config(&R, toml, NSD_RUN_COMPLETE);
    double xd = last(&R, "xdot"), wd = last(&R, "phidot");
    double T_end = last(&R, "kinetic_energy"), slip = last(&R, "slip");
    printf("sliding -> rolling: x' = %.6f m/s (2/3 expected), phi' = %.4f rad/s, slip %.2e m/s, "
           "T = %.5f J (10/3 expected), N = %.4f N\n",
           xd, wd, slip, T_end, last(&R, "IV_floor.N"));
    ck_assert_double_eq_tol(xd, -2.0 / 3.0, 1e-3);
    ck_assert_double_eq_tol(wd, 2.0 / 3.0 / R_, 1e-2);
    ck_assert_double_lt(fabs(slip), 1e-3);
    ck_assert_double_eq_tol(T_end, 10.0 / 3.0, 1e-2);
    ck_assert_double_eq_tol(last(&R, "IV_floor.N"), M_ * G_, 1e-2 * M_ * G_);
    ck_assert_double_eq(last(&R, "nearest_segment"), 4.0);
    for (size_t r = 0; r < R.res.series.rows; ++r) {
        ck_assert_double_eq(at(&R, r, "I_wall.N"), 0.0);
        ck_assert_double_eq(at(&R, r, "II_step.N"), 0.0);
        ck_assert_double_eq(at(&R, r, "III_corner.N"), 0.0);
    }
    run_free(&R);
}
END_TEST

/* ---- (f) drawing, bad input -------------------------------------------------------------- */

typedef struct rec {
    int pen, lines[4], circles[4];
    int wall, floor, rim, spoke;
    double x, y, phi;
} rec;

static void rec_line(void *ctx, double x0, double y0, double x1, double y1) {
    rec *r = ctx;
    r->lines[r->pen]++;
    if (r->pen == 1 && x0 == 0.0 && x1 == 0.0 && fmin(y0, y1) == H_) r->wall = 1;
    if (r->pen == 1 && y0 == 0.0 && y1 == 0.0 && fmin(x0, x1) == L1) r->floor = 1;
    if (r->pen == 0 && x0 == r->x && y0 == r->y && fabs(x1 - (r->x + R_ * cos(r->phi))) < 1e-15 &&
        fabs(y1 - (r->y + R_ * sin(r->phi))) < 1e-15)
        r->spoke = 1;
}
static void rec_circle(void *ctx, double x, double y, double rad) {
    rec *r = ctx;
    r->circles[r->pen]++;
    if (r->pen == 0 && x == r->x && y == r->y && rad == R_) r->rim = 1;
}
static void rec_polygon(void *ctx, size_t n, const double *x, const double *y, int filled) {
    (void)ctx, (void)n, (void)x, (void)y, (void)filled;
}
static void rec_pen(void *ctx, int style) {
    rec *r = ctx;
    ck_assert(style >= 0 && style < 4);
    r->pen = style;
}

START_TEST(draws_terrain_and_wheel) {
    wheel w = open_wheel(NULL, 0);
    rec r = {0};
    r.x = 0.3, r.y = 0.2, r.phi = 0.8;
    nsdyn_canvas cv = {sizeof cv, &r, rec_line, rec_circle, rec_polygon, rec_pen};
    double q[3] = {r.x, r.y, r.phi};
    w.S->draw(w.inst, 0.0, q, &cv);
    ck_assert(r.wall && r.floor && r.rim && r.spoke);
    ck_assert_int_ge(r.lines[1], 4); /* wall, step top, step face, floor */
    close_wheel(&w);
}
END_TEST

static void refused(const char *key, double value, const char *want) {
    const nsdyn_system *S;
    char err[512] = "";
    void *inst = make(key, value, err, sizeof err, &S);
    ck_assert_msg(inst == NULL, "curb_wheel accepted %s = %g", key, value);
    printf("curb_wheel refuses %s = %g: %s\n", key, value, err);
    ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

START_TEST(bad_input_refused) {
    refused(
        "h", 0.1,
        "r = 0.1 m, h = 0.1 m: the step height must be positive and smaller than the wheel radius");
    refused("h", 0.0, "the step height must be positive");
    refused("r", 0.04, "smaller than the wheel radius");
    refused("l", 0.2, "l = 0.2 m with r = 0.1 m: l must exceed 2 r");
    refused("m", 0.0, "m = 0 kg");
    refused("J", -1.0, "the mass and moment of inertia must be positive");
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("curb_wheel");
    TCase *tc = tcase_create("curb_wheel");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, layout_and_initial_state);
    tcase_add_test(tc, gaps_at_known_positions);
    tcase_add_test(tc, boundary_walk);
    tcase_add_test(tc, low_step_floor_is_far);
    tcase_add_test(tc, paper_rows_and_curvature);
    tcase_add_test(tc, slip_is_material_point_velocity);
    tcase_add_test(tc, gap_rate_and_drift_by_differences);
    tcase_add_test(tc, dynamics_affine_with_diagonal_mass);
    tcase_add_test(tc, energy_outputs);
    tcase_add_test(tc, flight_conserves_energy);
    tcase_add_test(tc, sliding_wheel_starts_rolling);
    tcase_add_test(tc, draws_terrain_and_wheel);
    tcase_add_test(tc, bad_input_refused);
    suite_add_tcase(s, tc);
    int rc = test_run_suite(s);
    nsd_registry_close(&reg);
    return rc;
}
