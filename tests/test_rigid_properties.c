/* Property tests of event-driven rigid contact (core/src/contact/modes_phase.c with the
 * step guard, core/src/contact/step_guard.c): seeded pseudo-random scenarios, run
 * in-process through the host as `nsdyn run` runs them, checked against
 * invariants rather than closed forms.
 *
 *  sphere_*   100 launches of a sphere (sphere_planes: position, velocity
 *             and spin in 3-D) over random profiles of planes (slopes,
 *             vertical steps up and down, level stretches, convex breaks,
 *             concave corners), kane_impulse or newton, Coulomb friction
 *             or none, no max_step;
 *  curb_*     100 launches of the curb wheel (curb_wheel) above and near
 *             the step, towards the curb, spinning, newton or poisson with
 *             Coulomb friction;
 *  ball_*     the accumulation grid: point_mass dropped with e in {0, 0.3,
 *             0.5, 0.8, 0.9, 0.95, 0.99}, g in {1.62, 3.71, 9.81}, h in
 *             {0.01, 1, 10} m;
 *  incline_*  sphere_planes dropped onto one frictionless plane at 10, 30,
 *             50 degrees (the normal motion is a bouncing ball under
 *             g cos(angle)), e in {0, 0.5, 0.9}, h in {0.01, 1} m;
 *  each under dopri5 and bdf (rtol 1e-10, atol 1e-12) and moreau (h = 1e-3
 *  s, only what holds for time stepping: energy, rest, no failure).
 *
 * Invariants (their tolerances are derived at PEN_SLACK and IMPACT_SLACK):
 *  (a) penetration: the smallest gap of the gap channels, over every
 *      output sample and at every impact (the state there reconstructed
 *      exactly from the last sample before it when the motion in between
 *      is free flight), is >= -(contact_tolerance + PEN_SLACK); the same
 *      for the geometric clearance computed here, independently of the
 *      systems' gap functions (a disagreement points at the gap function);
 *  (b) impacts: every impact of the run has one at the same contact and
 *      time (within tol_t) in a reference run of the same scenario with
 *      integrator.max_step = 1e-4, and every impact of the reference one
 *      in the run, up to where the two runs part; they end alike;
 *  (c) energy: the mechanical energy never rises above its earlier
 *      maximum by more than ENERGY_RTOL of its scale;
 *  (d) counts: nsd_run_count_events reports the contact log's kinds,
 *      switches and stops; the log is in time order;
 *  no run fails; and the accumulation ends (rest or close) after at most
 *  log(v_r/v0)/log(e) + IMPACT_SLACK impacts, at the closed-form time to
 *  rest within the rule's bound.
 *
 * The generator is a 64-bit LCG (Knuth's MMIX constants) with fixed
 * seeds, integer arithmetic, so the same on every machine; values are
 * rounded to 3 decimals so a failing scenario prints as a readable config.
 * scripts/rigid-campaign.py draws the same scenarios (sphere k and curb k
 * there are sphere k and curb k here) and runs them through the CLI. A
 * failure prints every failing scenario with its config text.
 * NSDYN_RIGID_N=<n> overrides the number of random scenarios per test,
 * NSDYN_RIGID_VERBOSE=1 prints one line per scenario. */
#define _GNU_SOURCE
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Fewer scenarios under AddressSanitizer (scripts/test.sh runs every test
 * again in an ASan/UBSan build, several times slower). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#define DEG (M_PI / 180.0)
#define CONTACT_TOL 1e-9 /* run.contact_tolerance, default */
#define REST_RATIO 1e-6  /* run.rest_ratio, default */

static int verbose(void) {
    const char *v = getenv("NSDYN_RIGID_VERBOSE");
    return v && *v && *v != '0';
}

static int n_scenarios(int normal, int sanitized) {
    const char *v = getenv("NSDYN_RIGID_N");
    if (v && atoi(v) > 0) return atoi(v);
    return SANITIZED ? sanitized : normal;
}

/* ---- the generator ---------------------------------------------------- */

typedef struct lcg {
    uint64_t s;
} lcg;

static double lcg_u(lcg *r) { /* [0, 1), 53 bits */
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(r->s >> 11) * 0x1p-53;
}
static double lcg_range(lcg *r, double a, double b) { return a + (b - a) * lcg_u(r); }
static int lcg_int(lcg *r, int n) { return (int)(lcg_u(r) * n); }
static double r3(double x) { return nearbyint(x * 1000.0) / 1000.0; }

/* ---- text buffers ----------------------------------------------------- */

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void bprintf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        ck_assert_int_ge(k, 0);
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        b->cap = 2 * (b->cap + (size_t)k + 256);
        b->s = realloc(b->s, b->cap);
        ck_assert_ptr_nonnull(b->s);
        if (b->n == 0) b->s[0] = '\0';
    }
}

/* ---- scenarios -------------------------------------------------------- */

#define MAX_SEG 12

typedef struct sphere_scn {
    int n;
    double ang[MAX_SEG], len[MAX_SEG];
    double b, jm, g;
    double x0, H; /* launch x, height above resting there [m] */
    double w[3], v[3];
    int kane; /* 1 kane_impulse, 0 newton */
    double e;
    int friction;
    double mu_s, mu_k;
} sphere_scn;

/* The profile's geometry as sphere_planes builds it (add_segment). */
typedef struct seg {
    double x, z, c, s, lo, hi;
    int convex_start;
} seg;

static void sphere_geometry(const sphere_scn *S, seg *g) {
    double x = -20.0, z = 0.0; /* x_start, z_start */
    for (int i = 0; i < S->n; ++i) {
        g[i].x = x;
        g[i].z = z;
        g[i].c = cos(S->ang[i] * DEG);
        g[i].s = sin(S->ang[i] * DEG);
        if (fabs(S->ang[i]) == 90.0) g[i].c = 0.0;
        g[i].lo = 0.0;
        g[i].hi = S->len[i];
        x = g[i].x + S->len[i] * g[i].c;
        z = g[i].z + S->len[i] * g[i].s;
        g[i].convex_start = i > 0 && atan2(g[i].s, g[i].c) - atan2(g[i - 1].s, g[i - 1].c) <= 0.0;
    }
    g[0].lo = -HUGE_VAL;
    g[S->n - 1].hi = HUGE_VAL;
}

/* Height of the centre resting on the terrain at x (lowered from above). */
static double sphere_rest_height(const sphere_scn *S, const seg *g, double x) {
    double zr = -HUGE_VAL, b = S->b;
    for (int i = 0; i < S->n; ++i) {
        if (g[i].c > 0.0) {
            double z = g[i].z + (x - g[i].x) * g[i].s / g[i].c + b / g[i].c;
            double sa = g[i].c * (x - g[i].x) + g[i].s * (z - g[i].z);
            if (sa >= g[i].lo && sa <= g[i].hi) zr = fmax(zr, z);
        }
        for (int end = 0; end < 2; ++end) {
            double t = end ? g[i].hi : g[i].lo;
            if (!isfinite(t)) continue;
            double ex = g[i].x + t * g[i].c, ez = g[i].z + t * g[i].s, dx = x - ex;
            if (fabs(dx) <= b) zr = fmax(zr, ez + sqrt(b * b - dx * dx));
        }
    }
    return zr;
}

/* A random profile: a level approach, 2 to 5 features (slopes, vertical
 * steps up or down, level stretches), then a drop below every vertex and
 * a level run-out. The drop makes the run-out's start the lowest vertex,
 * so sphere_planes' rolled_back stop is armed only there and the sphere
 * may bounce about the features freely. */
static void sphere_draw(lcg *r, sphere_scn *S) {
    static const double gs[] = {1.62, 3.71, 9.81};
    for (;;) {
        memset(S, 0, sizeof *S);
        S->b = r3(lcg_range(r, 0.2, 1.0));
        S->jm = r3(S->b * S->b * lcg_range(r, 0.4, 0.67));
        S->g = gs[lcg_int(r, 3)];
        S->ang[0] = 0.0;
        S->len[0] = 20.0;
        int nf = 2 + lcg_int(r, 4);
        double z = 0.0, zmin = 0.0;
        for (int k = 0; k < nf; ++k) {
            int type = lcg_int(r, 3);
            double a, L;
            if (type == 0) { /* slope */
                a = r3(lcg_range(r, -50.0, 50.0));
                L = r3(lcg_range(r, 0.5, 3.0));
            } else if (type == 1) { /* vertical step */
                a = lcg_u(r) < 0.5 ? 90.0 : -90.0;
                L = r3(lcg_range(r, 0.05, 0.8));
            } else { /* level */
                a = 0.0;
                L = r3(lcg_range(r, 0.5, 3.0));
            }
            S->ang[1 + k] = a;
            S->len[1 + k] = L;
            z += L * sin(a * DEG);
            zmin = fmin(zmin, z);
        }
        S->n = nf + 1;
        /* the drop at -60 degrees to 0.5 m below the lowest vertex */
        S->ang[S->n] = -60.0;
        S->len[S->n] = r3((z - zmin + 0.5) / sin(60.0 * DEG));
        S->n++;
        S->ang[S->n] = 0.0;
        S->len[S->n] = 20.0;
        S->n++;
        seg g[MAX_SEG];
        sphere_geometry(S, g);
        double x_end = g[S->n - 2].x; /* top of the drop */
        S->x0 = r3(lcg_range(r, -1.0, x_end));
        S->H = lcg_u(r) < 0.2 ? 0.0 : r3(lcg_range(r, 0.05, 2.0));
        S->v[0] = r3(lcg_range(r, -3.0, 5.0));
        S->v[1] = r3(lcg_range(r, -0.5, 0.5));
        S->v[2] = r3(lcg_range(r, -3.0, 3.0));
        for (int k = 0; k < 3; ++k) S->w[k] = r3(lcg_range(r, -4.0, 4.0));
        S->kane = lcg_u(r) < 0.5;
        S->e = r3(S->kane ? lcg_range(r, 0.3, 0.95) : lcg_range(r, 0.0, 0.9));
        S->friction = S->kane || lcg_u(r) < 0.8;
        S->mu_k = r3(lcg_range(r, 0.1, 0.7));
        S->mu_s = r3(S->mu_k + lcg_range(r, 0.0, 0.2));
        /* sphere_planes sets the convex edges' owners from the resting
         * point at x0; keep launches whose own side of every handover line
         * is the same (docs/sphere-planes.md: [initial] x, z are not seen) */
        double zr = sphere_rest_height(S, g, S->x0);
        int same = isfinite(zr);
        for (int i = 1; i < S->n && same; ++i) {
            if (!g[i].convex_start) continue;
            double a0 = g[i].c * (S->x0 - g[i].x) + g[i].s * (zr - g[i].z);
            double a1 = g[i].c * (S->x0 - g[i].x) + g[i].s * (zr + S->H - g[i].z);
            same = (a0 > 0.0) == (a1 > 0.0);
        }
        if (same) return;
    }
}

static const double SPHERE_T_END = 3.0;

static void sphere_toml_v(const void *scn, const char *integrator, buf *b) {
    const sphere_scn *S = scn;
    seg g[MAX_SEG];
    sphere_geometry(S, g);
    bprintf(b, "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = [");
    for (int i = 0; i < S->n; ++i) bprintf(b, "%s%.15g", i ? ", " : "", S->ang[i]);
    bprintf(b, "]\nlengths = [");
    for (int i = 0; i < S->n; ++i) bprintf(b, "%s%.15g", i ? ", " : "", S->len[i]);
    bprintf(b,
            "]\nx_start = -20.0\nz_start = 0.0\nb = %.15g\nm = 1.0\nj_over_m = %.15g\ng = %.15g\n"
            "x0 = %.15g\nv0 = 0.0\nrolling0 = false\n",
            S->b, S->jm, S->g, S->x0);
    bprintf(b, "[contact]\nid = \"%s\"\ne = %.15g\n", S->kane ? "kane_impulse" : "newton", S->e);
    if (S->friction)
        bprintf(b, "[friction]\nid = \"coulomb\"\nmu_s = %.15g\nmu_k = %.15g\n", S->mu_s, S->mu_k);
    bprintf(b, "%s", integrator);
    bprintf(b,
            "[initial]\nwx = %.15g\nwy = %.15g\nwz = %.15g\nvx = %.15g\nvy = %.15g\nvz = %.15g\n",
            S->w[0], S->w[1], S->w[2], S->v[0], S->v[1], S->v[2]);
    if (S->H > 0.0) bprintf(b, "z = %.17g\n", sphere_rest_height(S, g, S->x0) + S->H);
    bprintf(b, "[run]\nt_end = %g\noutput_dt = 1e-3\nprogress = false\n", SPHERE_T_END);
}

typedef struct curb_scn {
    double J, h, l;
    double x, H, xd, yd, pd;
    int poisson; /* 1 poisson (beta), 0 newton (e) */
    double e, mu_s, mu_k;
} curb_scn;

static const double CURB_M = 10.0, CURB_R = 0.1, CURB_G = 9.81, CURB_T_END = 1.0;

/* Height of the centre resting on the terrain at x: step top, arc about
 * the edge K = (l1, h), floor (docs/curb-wheel.md). */
static double curb_rest_height(const curb_scn *C, double x) {
    double r = CURB_R, l1 = C->l - r;
    if (x <= l1) return r + C->h;
    double d = x - l1;
    return d < r ? fmax(C->h + sqrt(r * r - d * d), r) : r;
}

static void curb_draw(lcg *r, curb_scn *C) {
    memset(C, 0, sizeof *C);
    C->J = r3(lcg_range(r, 0.02, 0.08));
    C->h = r3(lcg_range(r, 0.02, 0.08));
    C->l = r3(lcg_range(r, 0.4, 0.6));
    double l1 = C->l - CURB_R;
    C->x = r3(fmax(lcg_range(r, l1 - 0.2, l1 + 0.3), CURB_R + 0.01));
    C->H = lcg_u(r) < 0.15 ? 0.0 : r3(lcg_range(r, 0.005, 0.3));
    C->xd = r3(lcg_range(r, -5.0, -0.3));
    C->yd = r3(lcg_range(r, -3.0, 2.0));
    C->pd = r3(lcg_range(r, -40.0, 40.0));
    C->poisson = lcg_u(r) < 0.5;
    C->e = r3(lcg_range(r, 0.0, 0.8));
    C->mu_k = r3(lcg_range(r, 0.1, 0.8));
    C->mu_s = r3(C->mu_k + lcg_range(r, 0.0, 0.2));
}

static void curb_toml_v(const void *scn, const char *integrator, buf *b) {
    const curb_scn *C = scn;
    bprintf(
        b,
        "[system]\nid = \"curb_wheel\"\nm = %g\nJ = %.15g\nr = %g\nh = %.15g\nl = %.15g\ng = %g\n",
        CURB_M, C->J, CURB_R, C->h, C->l, CURB_G);
    if (C->poisson)
        bprintf(b, "[contact]\nid = \"poisson\"\nbeta = %.15g\n", C->e);
    else
        bprintf(b, "[contact]\nid = \"newton\"\ne = %.15g\n", C->e);
    bprintf(b, "[friction]\nid = \"coulomb\"\nmu_s = %.15g\nmu_k = %.15g\n", C->mu_s, C->mu_k);
    bprintf(b, "%s", integrator);
    bprintf(
        b,
        "[initial]\nx = %.15g\ny = %.17g\nphi = 0.0\nxdot = %.15g\nydot = %.15g\nphidot = %.15g\n",
        C->x, curb_rest_height(C, C->x) + C->H, C->xd, C->yd, C->pd);
    bprintf(b, "[run]\nt_end = %g\noutput_dt = 5e-4\nprogress = false\n", CURB_T_END);
}

/* ---- integrators ------------------------------------------------------ */

enum { IG_DOPRI5, IG_BDF, IG_MOREAU };
static const char *const ig_names[] = {"dopri5", "bdf", "moreau"};

static void integrator_toml(int ig, double max_step, char *out, size_t len) {
    if (ig == IG_MOREAU) {
        snprintf(out, len, "[integrator]\nid = \"moreau\"\nh = %g\n",
                 max_step > 0 ? max_step : 1e-3);
        return;
    }
    int k =
        snprintf(out, len, "[integrator]\nid = \"%s\"\nrtol = 1e-10\natol = 1e-12\n", ig_names[ig]);
    if (max_step > 0) snprintf(out + k, len - (size_t)k, "max_step = %g\n", max_step);
}

/* ---- running ---------------------------------------------------------- */

/* Load and run; any outcome (the caller judges it). */
static void run_any(run *R, const char *toml) {
    memset(R, 0, sizeof *R);
    test_load(toml, R);
    test_run(R);
}

/* ---- the geometry, independently of the systems' gap functions ------- */

/* Distance from (x, z) to the segment A + s (B - A), s in [lo, hi]. */
static double seg_dist(double ax, double az, double bx, double bz, double lo, double hi, double x,
                       double z) {
    double dx = bx - ax, dz = bz - az, L2 = dx * dx + dz * dz;
    double s = L2 > 0.0 ? ((x - ax) * dx + (z - az) * dz) / L2 : 0.0;
    s = fmin(fmax(s, lo), hi);
    return hypot(x - ax - s * dx, z - az - s * dz);
}

/* The sphere's signed clearance [m]: the centre's distance from the
 * profile (first and last segments unbounded) minus b, negative when the
 * centre is below the terrain. */
static double sphere_true_gap(const void *scn, const double *q) {
    const sphere_scn *S = scn;
    seg g[MAX_SEG];
    sphere_geometry(S, g);
    double x = q[0], z = q[2], d = HUGE_VAL;
    int below = 0, found = 0;
    for (int i = 0; i < S->n; ++i) {
        double ex = g[i].x + S->len[i] * g[i].c, ez = g[i].z + S->len[i] * g[i].s;
        d = fmin(d, seg_dist(g[i].x, g[i].z, ex, ez, i == 0 ? -HUGE_VAL : 0.0,
                             i == S->n - 1 ? HUGE_VAL : 1.0, x, z));
        int spans = g[i].c > 0.0 && (i == 0 || x >= g[i].x) && (i == S->n - 1 || x <= ex);
        if (spans && !found) {
            below = z < g[i].z + (x - g[i].x) * g[i].s / g[i].c;
            found = 1;
        }
    }
    return (below ? -d : d) - S->b;
}

/* The wheel's signed clearance [m]: the centre's distance from the wall
 * (x = 0, y >= h), the step top, the step face and the floor, minus r;
 * negative inside the solid. */
static double curb_true_gap(const void *scn, const double *q) {
    const curb_scn *C = scn;
    double l1 = C->l - CURB_R, x = q[0], y = q[1];
    double d = seg_dist(0.0, C->h, 0.0, C->h + 1.0, 0.0, HUGE_VAL, x, y);
    d = fmin(d, seg_dist(0.0, C->h, l1, C->h, 0.0, 1.0, x, y));
    d = fmin(d, seg_dist(l1, C->h, l1, 0.0, 0.0, 1.0, x, y));
    d = fmin(d, seg_dist(l1, 0.0, l1 + 1.0, 0.0, 0.0, HUGE_VAL, x, y));
    int inside = x < 0.0 || y < 0.0 || (x <= l1 && y < C->h);
    return (inside ? -d : d) - CURB_R;
}

/* ---- analysis of one run ---------------------------------------------- */

typedef double (*true_gap_fn)(const void *scn, const double *q);

typedef struct impact {
    double t, v; /* time [s], approach speed [m/s] */
    size_t c;
} impact;

typedef struct analysis {
    double min_gap; /* gap channels over samples and impacts [m] */
    double t_min_gap;
    int min_at_event;
    double true_at_min; /* the geometric clearance there [m] */
    double min_true;    /* the geometric clearance, samples and impacts [m] */
    double t_min_true;
    size_t n_event_states; /* impacts whose state was reconstructed */
    double energy_rise;    /* largest E_i - max_{j<i} E_j [J] */
    double t_energy_rise;
    double energy_scale; /* largest |E| and kinetic energy seen [J] */
    impact *imp;
    size_t n_imp;
    double v_closed; /* largest normal speed closed by the accumulation rule [m/s] */
} analysis;

static void analysis_free(analysis *A) { free(A->imp); }

/* The state at t_s + dt from a sample at t_s in free flight (no contact
 * closed, no contact event in between): every system here has q' = N v
 * with N constant and, without contact forces, v' = a constant (gravity),
 * so q(t_s + dt) = q + dt N v + dt^2/2 N a, exactly. */
static void ballistic(run *R, const double *y_s, double dt, double *y) {
    nsd_model *m = &R->model;
    size_t nq = m->nq, nv = m->nv;
    double qd[16], qa[16], a[16];
    ck_assert_uint_le(nq, 16);
    ck_assert_uint_le(nv, 16);
    memset(R->data->lambda, 0, 3 * m->nc * sizeof *R->data->lambda);
    ck_assert_int_le(
        m->sys->derivatives(R->data->sys_inst, 0.0, y_s, y_s + nq, R->data->lambda, qd, a),
        NSDYN_WARNING);
    ck_assert_int_le(m->sys->derivatives(R->data->sys_inst, 0.0, y_s, a, R->data->lambda, qa, NULL),
                     NSDYN_WARNING);
    for (size_t i = 0; i < nq; ++i) y[i] = y_s[i] + dt * qd[i] + 0.5 * dt * dt * qa[i];
    for (size_t i = 0; i < nv; ++i) y[nq + i] = y_s[nq + i] + dt * a[i];
    for (size_t i = nq + nv; i < m->n; ++i) y[i] = y_s[i];
}

/* Gap channels: the system outputs named gap* in metres; point_mass has
 * none, its gap is y - r (here from the state channel y, r given). */
typedef struct gaps {
    size_t n, ch[8];
    int y_channel;
    double r;
} gaps;

static void gap_channels(const run *R, gaps *G, double r_ball) {
    memset(G, 0, sizeof *G);
    G->y_channel = -1;
    for (size_t i = 0; i < R->model.n_channels && G->n < 8; ++i)
        if (strncmp(R->model.channels[i].name, "gap", 3) == 0 &&
            strcmp(R->model.channels[i].unit, "m") == 0)
            G->ch[G->n++] = i;
    if (G->n == 0) {
        G->y_channel = (int)chan(R, "y");
        G->r = r_ball;
    }
}

static double min_gap_of(const gaps *G, const double *row) {
    double g = HUGE_VAL;
    for (size_t k = 0; k < G->n; ++k) g = fmin(g, row[G->ch[k]]);
    if (G->y_channel >= 0) g = fmin(g, row[G->y_channel] - G->r);
    return g;
}

/* All channels at (t, y) as a sample has them (contact forces left 0:
 * only positions, velocities and the system's outputs are read). */
static void sample_at(run *R, double t, const double *y, double *row) {
    nsd_model *m = &R->model;
    size_t base = m->n_channels - m->layout.n_outputs;
    memset(row, 0, m->n_channels * sizeof *row);
    row[0] = t;
    memcpy(row + 1, y, m->n * sizeof *y);
    memset(R->data->lambda, 0, 3 * m->nc * sizeof *R->data->lambda);
    if (m->layout.n_outputs)
        ck_assert_int_le(
            m->sys->outputs(R->data->sys_inst, t, y, y + m->nq, R->data->lambda, row + base),
            NSDYN_WARNING);
}

static void analyse(run *R, const void *scn, true_gap_fn true_gap, double r_ball, analysis *A) {
    memset(A, 0, sizeof *A);
    const nsd_series *S = &R->res.series;
    const nsd_event_log *log = &R->res.contact_log;
    size_t nc = R->model.nc, n = R->model.n, nch = R->model.n_channels;
    gaps G;
    gap_channels(R, &G, r_ball);
    size_t ce = chan(R, "energy");
    int ck = nsd_model_channel(&R->model, "kinetic");
    if (ck < 0) ck = nsd_model_channel(&R->model, "kinetic_energy");
    A->min_gap = A->min_true = A->true_at_min = HUGE_VAL;
    double Emax = -HUGE_VAL;
    for (size_t i = 0; i < S->rows; ++i) {
        const double *row = S->data + i * nch;
        double g = min_gap_of(&G, row), tg = true_gap ? true_gap(scn, row + 1) : g;
        if (g < A->min_gap) {
            A->min_gap = g;
            A->t_min_gap = row[0];
            A->true_at_min = tg;
        }
        if (tg < A->min_true) {
            A->min_true = tg;
            A->t_min_true = row[0];
        }
        double E = row[ce];
        A->energy_scale = fmax(A->energy_scale, fabs(E));
        if (ck >= 0) A->energy_scale = fmax(A->energy_scale, row[ck]);
        if (i > 0 && E - Emax > A->energy_rise) {
            A->energy_rise = E - Emax;
            A->t_energy_rise = row[0];
        }
        Emax = fmax(Emax, E);
    }
    /* impacts, and the gaps at them, reconstructed from the last sample
     * before each impact when the motion in between is free flight */
    A->imp = calloc(log->n + 1, sizeof *A->imp);
    int closed[64] = {0};
    ck_assert_uint_le(nc, 64);
    size_t next = 0; /* log records applied to `closed` */
    double *row = malloc(nch * sizeof *row), *y = malloc(n * sizeof *y);
    for (size_t j = 0; j < log->n; ++j) {
        const nsd_event_record *ev = &log->rec[j];
        if (ev->kind == NSD_EVENT_REST) A->v_closed = fmax(A->v_closed, -ev->u_before[0]);
        if (ev->kind == NSD_EVENT_CLOSE) /* the rebound of an impact at the same instant, if any */
            for (size_t i = j; i-- > 0 && log->rec[i].t == ev->t;)
                if (log->rec[i].kind == NSD_EVENT_IMPACT && log->rec[i].contact == ev->contact)
                    A->v_closed = fmax(A->v_closed, log->rec[i].u_after[0]);
        if (ev->kind != NSD_EVENT_IMPACT) continue;
        impact *im = &A->imp[A->n_imp++];
        im->t = ev->t;
        im->v = -ev->u_before[0];
        im->c = ev->contact;
        size_t lo = 0, hi = S->rows; /* the last sample strictly before the impact */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (nsd_series_at(S, mid, 0) < ev->t)
                lo = mid;
            else
                hi = mid;
        }
        double ts = S->rows ? nsd_series_at(S, lo, 0) : ev->t;
        if (!(ts < ev->t)) continue;
        while (next < log->n && log->rec[next].t < ts) {
            const nsd_event_record *p = &log->rec[next++];
            if (p->kind == NSD_EVENT_CLOSE || p->kind == NSD_EVENT_REST) closed[p->contact] = 1;
            if (p->kind == NSD_EVENT_OPEN) closed[p->contact] = 0;
        }
        int free_flight = log->rec[next].t >= ev->t; /* no event in [ts, t_impact) */
        for (size_t c = 0; c < nc; ++c) free_flight &= !closed[c];
        if (!free_flight) continue;
        ballistic(R, S->data + lo * nch + 1, ev->t - ts, y);
        sample_at(R, ev->t, y, row);
        A->n_event_states++;
        double g = min_gap_of(&G, row), tg = true_gap ? true_gap(scn, y) : g;
        if (g < A->min_gap) {
            A->min_gap = g;
            A->t_min_gap = ev->t;
            A->min_at_event = 1;
            A->true_at_min = tg;
        }
        if (tg < A->min_true) {
            A->min_true = tg;
            A->t_min_true = ev->t;
        }
    }
    free(row);
    free(y);
}

/* (d): the counts by kind that the summary line, run.toml [status] and
 * compare's metrics print (nsd_run_count_events) are the contact log's;
 * the log is in time order. */
static int counts_agree(const run *R, char *why, size_t len) {
    nsd_event_counts cnt;
    nsd_run_count_events(&R->res, &cnt);
    const nsd_event_log *log = &R->res.contact_log;
    size_t mine[NSD_EVENT_KIND_COUNT] = {0};
    for (size_t i = 0; i < log->n; ++i) {
        nsd_event_kind k = log->rec[i].kind;
        if (k >= NSD_EVENT_KIND_COUNT || log->rec[i].contact >= R->model.nc) {
            snprintf(why, len, "event %zu: kind %d at contact %zu", i, (int)k, log->rec[i].contact);
            return 0;
        }
        mine[k]++;
        if (i > 0 && log->rec[i].t < log->rec[i - 1].t) {
            snprintf(why, len, "event %zu at %.17g s comes before event %zu at %.17g s", i,
                     log->rec[i].t, i - 1, log->rec[i - 1].t);
            return 0;
        }
    }
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k)
        if (mine[k] != cnt.contact[k]) {
            snprintf(why, len, "%s events: %zu in the log, %zu counted",
                     nsd_event_kind_name((nsd_event_kind)k), mine[k], cnt.contact[k]);
            return 0;
        }
    if (cnt.switches != R->res.n_switches || cnt.stops != R->res.n_stops ||
        cnt.total != log->n + R->res.n_switches + R->res.n_stops ||
        cnt.stops != (R->res.outcome == NSD_RUN_STOPPED ? 1u : 0u)) {
        snprintf(why, len, "switches %zu (run %zu), stops %zu (run %zu, outcome %d), total %zu",
                 cnt.switches, R->res.n_switches, cnt.stops, R->res.n_stops, (int)R->res.outcome,
                 cnt.total);
        return 0;
    }
    return 1;
}

/* ---- tolerances -------------------------------------------------------
 *
 * PEN_SLACK, (a): impacts are located where a gap falls through 0, or
 * through -contact_tolerance for a contact that starts its phase touching
 * (after a bounce), so a contact that the accumulation rule closes rests
 * at -contact_tolerance. Beyond that, a located impact penetrates by its
 * location error, |u_n| 1e-12 max(1, t) s (the guard's bisection): < 1e-10
 * m at 10 m/s over 3 s; a reconstructed state carries rounding (1e-15 m);
 * a closed contact's gap drifts by the integration error (projected back
 * when it leaves half the touching band, docs/event-driven.md): rounding
 * with dopri5 on planes, about rtol |q| per phase with bdf. 1e-9 m bounds
 * these; measured: at most 0.7e-9 m beyond contact_tolerance (bdf), 0.1e-9
 * m (dopri5), 1e-16 m for the geometric clearance at reconstructed
 * impacts.
 *
 * (b), the impact sequences. Two runs agree to their integration error
 * only while the flow does not amplify it, and impacts on edges do (a
 * position error eps turns the normal by eps/b): the comparison runs up to
 * the horizon where the positions at common output samples first differ by
 * more than HORIZON_DELTA (most runs agree to the end). A missed impact
 * sets the horizon itself, after the impact (the positions part by ~ v x
 * output_dt >> HORIZON_DELTA at the next sample), so it is always
 * compared. Before the horizon an impact's time differs by at most the
 * position difference over the approach speed, plus the location
 * resolution: tol_t = HORIZON_DELTA / v + 1e-9 s (the positions differ by
 * the integration error; measured |dt| up to 1e-9 s for dopri5 and 2e-7 s
 * for bdf at rtol 1e-10). Impacts slower than V_SIG need not match: one
 * run may close such a bounce by the accumulation rule while the other
 * still makes it, as v_r = max(rest_ratio v_max, sqrt(2 |a_n|
 * contact_tolerance), v_unres) depends on the integrator's steps through
 * v_unres; measured, the rule closes nothing faster than 1.4e-4 m/s in
 * these campaigns, and V_SIG is 70 times that. An impact is unmatched
 * when the other run has none at its contact within tol_t; both runs are
 * checked against each other.
 *
 * ENERGY_RTOL, (c): free flight and impacts change the energy only by
 * rounding (the impact laws and the velocity projection never add
 * kinetic energy), sustained contact on planes is integrated exactly (the
 * motion is polynomial), pivoting about an edge with the integrator's
 * local error, rtol = 1e-10 per step, relative. Measured: 2.4e-16 (5e-16
 * for the balls, 2e-14 for moreau). */
#define PEN_SLACK 1e-9
#define HORIZON_DELTA 1e-6
#define V_SIG 1e-2
#define ENERGY_RTOL 1e-10

/* ---- comparison with the reference ------------------------------------ */

/* Where the positions q[0 .. n_pos) of two runs first differ by more than
 * delta at a common output sample [s] (HUGE_VAL: never). */
static double horizon(const run *A, const run *B, size_t n_pos, double delta) {
    const nsd_series *S = &A->res.series, *T = &B->res.series;
    size_t rows = S->rows < T->rows ? S->rows : T->rows;
    for (size_t i = 0; i < rows; ++i) {
        double ta = nsd_series_at(S, i, 0), tb = nsd_series_at(T, i, 0);
        if (fabs(ta - tb) > 1e-9) return fmin(ta, tb);
        for (size_t k = 0; k < n_pos; ++k)
            if (fabs(nsd_series_at(S, i, 1 + k) - nsd_series_at(T, i, 1 + k)) > delta) return ta;
    }
    return HUGE_VAL;
}

typedef struct cmp_stats {
    size_t must, matched, unmatched;
    double dt_max; /* largest |t - t_ref| of matched impacts [s] */
    char first[400];
} cmp_stats;

/* Every impact of `a` before t_h and not slower than V_SIG has one of `b`
 * at the same contact within tol_t of its time. */
static void match_impacts(const analysis *a, const analysis *b, const run *Ra, double t_h,
                          const char *label, cmp_stats *st) {
    for (size_t i = 0; i < a->n_imp; ++i) {
        const impact *p = &a->imp[i];
        if (!(p->t < t_h) || p->v < V_SIG) continue;
        st->must++;
        double tol_t = HORIZON_DELTA / p->v + 1e-9, best = HUGE_VAL;
        for (size_t j = 0; j < b->n_imp; ++j)
            if (b->imp[j].c == p->c) best = fmin(best, fabs(b->imp[j].t - p->t));
        if (best <= tol_t) {
            st->matched++;
            st->dt_max = fmax(st->dt_max, best);
            continue;
        }
        if (!st->unmatched)
            snprintf(st->first, sizeof st->first,
                     "%s impact at '%s', t = %.12g s, %.6g m/s: the other run's nearest at that "
                     "contact is %.3g s "
                     "away (tolerance %.3g s)",
                     label, Ra->model.layout.contacts[p->c].name, p->t, p->v, best, tol_t);
        st->unmatched++;
    }
}

/* ---- random campaigns ------------------------------------------------- */

typedef struct sysdef {
    const char *name;
    size_t n_pos; /* translational coordinates q[0 .. n_pos) [m] */
    void (*toml)(const void *scn, const char *integrator, buf *b);
    true_gap_fn true_gap;
} sysdef;

typedef struct campaign {
    char name[32];
    const sysdef *sys;
    int ig;
    int n, failed;
    size_t impacts, event_states, must, matched, compared_to_end;
    double worst_pen, worst_true_pen, worst_dt, worst_rise, v_closed;
    buf report;
} campaign;

static void note(buf *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(buf *why, const char *fmt, ...) {
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    bprintf(why, "  %s\n", line);
}

static void run_scenario(campaign *K, int k, const void *scn) {
    char igt[256], igr[256];
    integrator_toml(K->ig, 0.0, igt, sizeof igt);
    integrator_toml(K->ig, 1e-4, igr, sizeof igr);
    buf tt = {0}, tr = {0}, why = {0};
    K->sys->toml(scn, igt, &tt);
    K->sys->toml(scn, igr, &tr);
    run R, Q;
    run_any(&R, tt.s);
    analysis A, B = {0};
    analyse(&R, scn, K->sys->true_gap, 0.0, &A);
    int moreau = K->ig == IG_MOREAU;
    if (!moreau) {
        run_any(&Q, tr.s);
        analyse(&Q, scn, K->sys->true_gap, 0.0, &B);
    }
    K->n++;
    int ok = 1;
    if (R.res.outcome == NSD_RUN_FAILED) {
        note(&why, "the run failed: %s", R.res.message);
        ok = 0;
    }
    if (!moreau && Q.res.outcome == NSD_RUN_FAILED) {
        note(&why, "the reference (max_step = 1e-4) failed too: %s", Q.res.message);
        ok = 0;
    }
    K->impacts += A.n_imp;
    K->event_states += A.n_event_states;
    if (ok) K->v_closed = fmax(K->v_closed, fmax(A.v_closed, B.v_closed));
    /* (a) the gap channels, and the geometry; not for moreau (time
     * stepping penetrates by O(h v)) */
    double pen = -A.min_gap, tpen = -A.min_true;
    if (ok && !moreau) {
        K->worst_pen = fmax(K->worst_pen, pen);
        K->worst_true_pen = fmax(K->worst_true_pen, tpen);
        if (pen > CONTACT_TOL + PEN_SLACK)
            note(&why,
                 "(a) penetration %.3g m (gap channels) at t = %.12g s (%s; the geometric "
                 "clearance there "
                 "is %.3g m) > contact_tolerance + %.0e m",
                 pen, A.t_min_gap, A.min_at_event ? "at an impact, reconstructed" : "at a sample",
                 A.true_at_min, PEN_SLACK);
        if (tpen > CONTACT_TOL + PEN_SLACK)
            note(&why, "(a) penetration %.3g m (geometry) at t = %.12g s", tpen, A.t_min_true);
    }
    /* (c) */
    double rise = A.energy_rise / fmax(A.energy_scale, 1e-300);
    if (ok || moreau) {
        K->worst_rise = fmax(K->worst_rise, rise);
        if (rise > ENERGY_RTOL)
            note(&why, "(c) the energy rises by %.3g J (%.3g of its scale %.3g J) at t = %.12g s",
                 A.energy_rise, rise, A.energy_scale, A.t_energy_rise);
    }
    /* (d) */
    char cwhy[600];
    if (!counts_agree(&R, cwhy, sizeof cwhy)) note(&why, "(d) counts: %s", cwhy);
    /* (b) */
    cmp_stats st = {0};
    double t_h = HUGE_VAL;
    if (ok && !moreau) {
        t_h = horizon(&R, &Q, K->sys->n_pos, HORIZON_DELTA);
        if (t_h == HUGE_VAL) {
            K->compared_to_end++;
            /* the positions agree throughout: so do the outcome and the
             * time a stop condition ends the run */
            if (R.res.outcome != Q.res.outcome || fabs(R.res.t_reached - Q.res.t_reached) > 1e-6)
                note(&why, "(b) the run ends %s at t = %.12g s, the reference %s at t = %.12g s",
                     R.res.outcome == NSD_RUN_STOPPED ? "stopped" : "complete", R.res.t_reached,
                     Q.res.outcome == NSD_RUN_STOPPED ? "stopped" : "complete", Q.res.t_reached);
        }
        double t_cmp = fmin(t_h, fmin(R.res.t_reached, Q.res.t_reached) + 1e-9);
        match_impacts(&B, &A, &Q, t_cmp, "reference", &st);
        match_impacts(&A, &B, &R, t_cmp, "run", &st);
        K->must += st.must;
        K->matched += st.matched;
        K->worst_dt = fmax(K->worst_dt, st.dt_max);
        if (st.unmatched)
            note(&why, "(b) %zu of %zu impacts unmatched before t = %.6g s, first: %s",
                 st.unmatched, st.must, t_cmp, st.first);
    }
    if (why.n) {
        K->failed++;
        bprintf(&K->report, "---- %s scenario %d:\n%s%s\n", K->name, k, why.s, tt.s);
    }
    if (verbose())
        fprintf(stderr,
                "%s %3d %-8s impacts %3zu/%3zu (states %3zu) pen %9.3g geom %9.3g rise %9.3g | "
                "horizon %-9.4g "
                "impacts %3zu matched %3zu dt %9.3g | steps %llu\n",
                K->name, k,
                R.res.outcome == NSD_RUN_COMPLETE  ? "complete"
                : R.res.outcome == NSD_RUN_STOPPED ? "stopped"
                                                   : "FAILED",
                A.n_imp, B.n_imp, A.n_event_states, pen, tpen, rise, t_h, st.must, st.matched,
                st.dt_max, (unsigned long long)R.res.stats.steps);
    analysis_free(&A);
    analysis_free(&B);
    run_free(&R);
    if (!moreau) run_free(&Q);
    free(tt.s);
    free(tr.s);
    free(why.s);
}

static void campaign_end(campaign *K) {
    fprintf(stderr,
            "%s: %d scenarios, %zu impacts (%zu at reconstructed free-flight states); largest "
            "penetration %.3g m "
            "(gap channels), %.3g m (geometry); largest energy rise %.3g (relative); %zu/%zu "
            "impacts matched the "
            "max_step = 1e-4 reference (largest |dt| %.3g s), %zu runs agreeing with it to the "
            "end; largest speed "
            "closed by the accumulation rule %.3g m/s; %d failing scenarios\n",
            K->name, K->n, K->impacts, K->event_states, K->worst_pen, K->worst_true_pen,
            K->worst_rise, K->matched, K->must, K->worst_dt, K->compared_to_end, K->v_closed,
            K->failed);
    if (K->failed) fprintf(stderr, "%s", K->report.s);
    int failed = K->failed, n = K->n;
    free(K->report.s);
    ck_assert_msg(failed == 0, "%s: %d of %d scenarios fail (their configs are printed above)",
                  K->name, failed, n);
}

static const sysdef sphere_sys = {"sphere", 3, sphere_toml_v, sphere_true_gap};
static const sysdef curb_sys = {"curb", 2, curb_toml_v, curb_true_gap};

/* The seeds; scripts/rigid-campaign.py uses the same. */
#define SPHERE_SEED 20240611u
#define CURB_SEED 20240612u

static void sphere_campaign(int ig) {
    campaign K = {.sys = &sphere_sys, .ig = ig};
    snprintf(K.name, sizeof K.name, "sphere_%s", ig_names[ig]);
    lcg r = {SPHERE_SEED};
    int n = n_scenarios(100, 12);
    for (int k = 0; k < n; ++k) {
        sphere_scn S;
        sphere_draw(&r, &S);
        run_scenario(&K, k, &S);
    }
    campaign_end(&K);
}

static void curb_campaign(int ig) {
    campaign K = {.sys = &curb_sys, .ig = ig};
    snprintf(K.name, sizeof K.name, "curb_%s", ig_names[ig]);
    lcg r = {CURB_SEED};
    int n = n_scenarios(100, 12);
    for (int k = 0; k < n; ++k) {
        curb_scn C;
        curb_draw(&r, &C);
        run_scenario(&K, k, &C);
    }
    campaign_end(&K);
}

START_TEST(sphere_dopri5) { sphere_campaign(IG_DOPRI5); }
END_TEST
START_TEST(sphere_bdf) { sphere_campaign(IG_BDF); }
END_TEST
START_TEST(sphere_moreau) { sphere_campaign(IG_MOREAU); }
END_TEST
START_TEST(curb_dopri5) { curb_campaign(IG_DOPRI5); }
END_TEST
START_TEST(curb_bdf) { curb_campaign(IG_BDF); }
END_TEST
START_TEST(curb_moreau) { curb_campaign(IG_MOREAU); }
END_TEST

/* ---- the accumulation grid ---------------------------------------------
 *
 * A ball dropped from rest with its gap h onto level ground under g, with
 * Newton's restitution e: impact k at speed e^k v0, v0 = sqrt(2 g h), the
 * bounces accumulate at T = sqrt(2h/g)(1 + e)/(1 - e). The rule
 * (nsd_modes_rest_speed) closes the contact at the first rebound, or
 * approach, slower than v_r = max(rest_ratio v0, sqrt(2 g
 * contact_tolerance), v_unres); v_unres, the largest separating rate at
 * which the guard found the gap falling through its threshold, measures
 * the integrator's inconsistency between position and velocity: zero for
 * dopri5 on a plane (free flight, a quadratic, is integrated exactly),
 * about sqrt(2 g eps) for bdf with a position error eps.
 *
 *  - the impacts: every rebound but the last is >= v_r >= v_r,min =
 *    max(rest_ratio v0, sqrt(2 g contact_tolerance)), so there are at
 *    most N = ceil(log(v_r,min / v0) / log(e)) impacts (1 for e = 0), and
 *    IMPACT_SLACK more for rounding at the threshold;
 *  - the closing speed (the last impact's rebound u_c, or the approach a
 *    rest stopped) is < v_r <= v_r,max = max(v_r,min, sqrt(2 g band_max)),
 *    band_max for bdf = max(BDF_BAND, BAND_FACTOR sqrt(n) (rtol |q|_max
 *    + atol)), its position error near the contact (measured ~2e-9 m at
 *    |q| ~ 0.05 m, inferred from the closing speeds; it grows with |q| on
 *    the incline), and contact_tolerance for dopri5;
 *  - the time to rest: the flights the rule skips would have lasted
 *    exactly 2 u_c / (g (1 - e)) (a geometric series from the closing
 *    rebound u_c; for a rest, u_c = e times the approach), so t_rest = T -
 *    2 u_c/(g (1 - e)) + thr up to loc, and in particular t_rest lies in
 *    [T - 2 v_r,max/(g (1 - e)) - loc, T + thr + loc]. thr: the first
 *    impact is located where the gap falls through 0, every later one
 *    where it falls through -contact_tolerance (the ball bounces from the
 *    touching band), which lengthens the first rebound's flight by
 *    tol/(e v0) and every later one in proportion: thr = tol (1 + e)/(e
 *    v0 (1 - e)) to first order in tol. loc: every impact is located late
 *    by at most the bisection's 1e-12 max(1, t) s, shortening the next
 *    flight by (1/e - 1) times that (N 1e-12 max(1, T)/e); and a position
 *    error eps at an impact of speed v moves the later impacts by about
 *    eps/(e v), summed down to u_c: eps/(e (1 - e) u_c), with eps = 1e-15
 *    (1 + |q|_max + the incline's 500 m offset of its vertex) m for dopri5
 *    (rounding of the coordinates) and BDF_STEPS times bdf's error
 *    test per step, sqrt(n) (rtol |q|_max + atol), for bdf (its global
 *    error over the steps of a slow bounce, ~20 on average, after a
 *    restart at order 1; measured worst: 0.2 of this loc).
 *
 * The incline: sphere_planes on one frictionless plane at `angle`, the
 * sphere dropped from rest with its gap h: the normal motion is this
 * bouncing ball under g cos(angle) (the sphere slides down meanwhile; its
 * positions, and bdf's errors, grow). Moreau-Jean (time stepping, fixed
 * h = 1e-3 s): the ball comes to rest (zero normal velocity from some time
 * before t_end = 1.1 T + 0.05 s to the end) and its energy never rises. */
#define IMPACT_SLACK 2
#define BAND_FACTOR 10.0
#define BDF_STEPS 1000.0
#define BDF_BAND 1e-8

typedef struct ball_case {
    double e, g, h;
    int incline;  /* sphere_planes on a plane at `angle`, frictionless */
    double angle; /* [deg] */
} ball_case;

static void ball_toml(const ball_case *c, int ig, buf *b, double t_end) {
    char igt[256];
    integrator_toml(ig, 0.0, igt, sizeof igt);
    if (!c->incline) {
        bprintf(b,
                "[system]\nid = \"point_mass\"\nm = 0.1\nr = 0.05\ng = %.15g\n[contact]\nid = "
                "\"newton\"\ne = %.15g\n"
                "%s[initial]\nx = 0.0\ny = %.17g\nvx = 0.0\nvy = 0.0\n",
                c->g, c->e, igt, c->h + 0.05);
    } else {
        /* one plane through the origin at `angle`; the centre on its normal
         * through the origin, at b + h: c = (b + h) n, n = (-sin, cos) */
        double a = c->angle * DEG, R = 0.5;
        bprintf(b,
                "[system]\nid = \"sphere_planes\"\nterrain = \"profile\"\nangles = "
                "[%.15g]\nlengths = [1000.0]\n"
                "x_start = %.17g\nz_start = %.17g\nb = %g\nm = 1.0\nj_over_m = 0.1\ng = %.15g\nx0 "
                "= 0.0\nv0 = 0.0\n"
                "rolling0 = false\n[contact]\nid = \"newton\"\ne = %.15g\n%s[initial]\nx = "
                "%.17g\nz = %.17g\n",
                c->angle, -500.0 * cos(a), -500.0 * sin(a), R, c->g, c->e, igt,
                -(R + c->h) * sin(a), (R + c->h) * cos(a));
    }
    bprintf(b, "[run]\nt_end = %.17g\noutput_dt = %.17g\nprogress = false\n", t_end,
            ig == IG_MOREAU ? 1e-3 * ceil(t_end / 2.0) : t_end / 2000.0);
}

typedef struct ball_stats {
    int n, failed;
    int dn_lo, dn_hi;    /* impacts - N */
    double worst_loc;    /* |t_rest - (T - 2 u_c/(g(1-e)))| / loc */
    double worst_early;  /* (T - t_rest) / (2 v_r,max/(g(1-e)) + loc) */
    double worst_vr;     /* u_c / v_r,max */
    double worst_settle; /* moreau: (t_settle - T) / T */
    double worst_rise, worst_pen;
    buf report;
} ball_stats;

static void ball_case_run(const ball_case *c, int ig, ball_stats *K) {
    double gn = c->incline ? c->g * cos(c->angle * DEG) : c->g; /* normal gravity */
    double v0 = sqrt(2.0 * gn * c->h), T = sqrt(2.0 * c->h / gn) * (1.0 + c->e) / (1.0 - c->e);
    double t_end = T * 1.1 + 0.05;
    buf tt = {0}, why = {0};
    ball_toml(c, ig, &tt, t_end);
    run R;
    run_any(&R, tt.s);
    K->n++;
    const nsd_event_log *elog = &R.res.contact_log;
    analysis A;
    analyse(&R, NULL, NULL, 0.05, &A);
    /* the integrator's position error at the slow bounces (see above) */
    const nsd_series *S = &R.res.series;
    double qmax = 0.0;
    for (size_t i = 0; i < S->rows; ++i)
        for (size_t k = 0; k < R.model.nq; ++k) qmax = fmax(qmax, fabs(nsd_series_at(S, i, 1 + k)));
    double step_err =
        sqrt((double)R.model.n) * (1e-10 * qmax + 1e-12); /* bdf's error test, per step */
    double eps =
        ig == IG_BDF ? BDF_STEPS * step_err : 1e-15 * (1.0 + qmax + (c->incline ? 500.0 : 0.0));
    double band_max =
        fmax(CONTACT_TOL, ig == IG_BDF ? fmax(BDF_BAND, BAND_FACTOR * step_err) : 0.0);
    double vr_min = fmax(REST_RATIO * v0, sqrt(2.0 * gn * CONTACT_TOL));
    double vr_max = fmax(REST_RATIO * v0, sqrt(2.0 * gn * band_max));
    long n_max = c->e > 0.0 ? (long)ceil(log(vr_min / v0) / log(c->e)) : 1;
    long n_min = c->e > 0.0 ? (long)ceil(log(vr_max / v0) / log(c->e)) : 1;
    double early = 2.0 * vr_max / (gn * (1.0 - c->e)), t_rest = -1.0, u_c = 0.0, loc = 0.0;
    if (R.res.outcome != NSD_RUN_COMPLETE)
        note(&why, "outcome %d: %s", (int)R.res.outcome, R.res.message);
    double rise = A.energy_rise / fmax(A.energy_scale, 1e-300);
    K->worst_rise = fmax(K->worst_rise, rise);
    if (rise > ENERGY_RTOL)
        note(&why, "the energy rises by %.3g J (%.3g relative) at t = %.12g s", A.energy_rise, rise,
             A.t_energy_rise);
    if (ig != IG_MOREAU) {
        K->worst_pen = fmax(K->worst_pen, -A.min_gap);
        if (-A.min_gap > CONTACT_TOL + PEN_SLACK)
            note(&why, "penetration %.3g m at t = %.12g s", -A.min_gap, A.t_min_gap);
        long n_imp = (long)A.n_imp;
        if (n_imp - n_max > K->dn_hi) K->dn_hi = (int)(n_imp - n_max);
        if (n_imp - n_min < K->dn_lo) K->dn_lo = (int)(n_imp - n_min);
        if (n_imp > n_max + IMPACT_SLACK || n_imp < n_min - IMPACT_SLACK)
            note(&why,
                 "%ld impacts, expected %ld to %ld (v_r from %.3g to %.3g m/s, v0 = %.6g m/s)",
                 n_imp, n_min, n_max, vr_min, vr_max, v0);
        const nsd_event_record *end = elog->n ? &elog->rec[elog->n - 1] : NULL, *last_imp = NULL;
        for (size_t i = 0; i < elog->n; ++i)
            if (elog->rec[i].kind == NSD_EVENT_IMPACT) last_imp = &elog->rec[i];
        if (!end || (end->kind != NSD_EVENT_CLOSE && end->kind != NSD_EVENT_REST) || !last_imp) {
            note(&why, "the accumulation does not end: last event %s",
                 end ? nsd_event_kind_name(end->kind) : "none");
        } else {
            /* the closing rebound: the last impact's (close), or e times
             * the slow approach the rule stopped (rest) */
            t_rest = end->t;
            int rest = end->kind == NSD_EVENT_REST;
            double slow = rest ? -end->u_before[0] : last_imp->u_after[0]; /* < v_r */
            u_c = rest ? c->e * slow : slow;
            double thr = c->e > 0.0 ? CONTACT_TOL * (1.0 + c->e) / (c->e * v0 * (1.0 - c->e)) : 0.0;
            loc = (double)n_imp * 1e-12 * fmax(1.0, T) / fmax(c->e, 1e-3) +
                  eps / (c->e > 0.0 ? c->e * (1.0 - c->e) * fmax(u_c, 1e-300) : v0);
            double skipped = 2.0 * u_c / (gn * (1.0 - c->e));
            double off = t_rest - (T - skipped) - thr;
            K->worst_loc = fmax(K->worst_loc, fabs(off) / loc);
            K->worst_early = fmax(K->worst_early, (T - t_rest) / (early + loc));
            K->worst_vr = fmax(K->worst_vr, slow / vr_max);
            if (fabs(off) > loc)
                note(&why,
                     "rest at %.12g s; T - 2 u_c/(g (1 - e)) + %.3g s (the touching band) = %.12g "
                     "s, u_c = %.3g "
                     "m/s: %.3g s off (allowed %.3g s)",
                     t_rest, thr, T - skipped + thr, u_c, off, loc);
            if (t_rest < T - early - loc || t_rest > T + thr + loc)
                note(&why, "rest at %.12g s, T = %.12g s: allowed [T - %.3g, T + %.3g] s", t_rest,
                     T, early + loc, thr + loc);
            if (!(slow < vr_max))
                note(&why, "the %s closed at %.3g m/s, not below v_r,max = %.3g m/s",
                     rest ? "approach" : "rebound", slow, vr_max);
            if (rest ? end->t < last_imp->t : end->t != last_imp->t)
                note(&why, "the contact closes at %.12g s, the last impact is at %.12g s", end->t,
                     last_imp->t);
        }
    } else {
        /* at rest: zero normal velocity from t_settle to the end */
        size_t cvn = chan(&R, c->incline ? "vz" : "vy"), cvx = chan(&R, "vx");
        double t_settle = HUGE_VAL;
        for (size_t i = S->rows; i-- > 0;) {
            double vn = c->incline ? -sin(c->angle * DEG) * nsd_series_at(S, i, cvx) +
                                         cos(c->angle * DEG) * nsd_series_at(S, i, cvn)
                                   : nsd_series_at(S, i, cvn);
            if (fabs(vn) > 1e-9 * v0) break;
            t_settle = nsd_series_at(S, i, 0);
        }
        t_rest = t_settle;
        K->worst_settle = fmax(K->worst_settle, (t_settle - T) / T);
        if (!(t_settle < t_end))
            note(&why, "the ball does not come to rest before t_end = %.6g s (T = %.6g s)", t_end,
                 T);
    }
    if (why.n) {
        K->failed++;
        bprintf(&K->report, "---- e = %g, g = %g, h = %g%s%g:\n%s%s\n", c->e, c->g, c->h,
                c->incline ? ", incline " : "", c->incline ? c->angle : 0.0, why.s, tt.s);
    }
    if (verbose())
        fprintf(stderr,
                "%s %-6s e %.2f g %.2f h %5.2f: %3zu impacts (%ld..%ld) rest %.10g T %.10g (%+.3g) "
                "u_c %.3g "
                "v_r %.3g..%.3g loc %.3g rise %.3g pen %.3g steps %llu\n",
                c->incline ? "incline" : "ball", ig_names[ig], c->e, c->g, c->h, A.n_imp, n_min,
                n_max, t_rest, T, t_rest - T, u_c, vr_min, vr_max, loc, rise, -A.min_gap,
                (unsigned long long)R.res.stats.steps);
    analysis_free(&A);
    run_free(&R);
    free(tt.s);
    free(why.s);
}

static void ball_end(const char *name, ball_stats *K) {
    fprintf(stderr,
            "%s: %d drops; impacts - N in [%d, %d]; rest time against T - 2 u_c/(g(1-e)): worst "
            "%.3g of loc; "
            "T - t_rest: worst %.3g of 2 v_r,max/(g(1-e)) + loc; u_c: worst %.3g of v_r,max; "
            "moreau: rest by "
            "T (1 + %.3g); largest energy rise %.3g (relative); penetration %.3g m; %d failing\n",
            name, K->n, K->dn_lo, K->dn_hi, K->worst_loc, K->worst_early, K->worst_vr,
            K->worst_settle, K->worst_rise, K->worst_pen, K->failed);
    if (K->failed) fprintf(stderr, "%s", K->report.s);
    int failed = K->failed, n = K->n;
    free(K->report.s);
    ck_assert_msg(failed == 0, "%s: %d of %d drops fail (printed above)", name, failed, n);
}

static void ball_grid(int ig) {
    static const double es[] = {0.0, 0.3, 0.5, 0.8, 0.9, 0.95, 0.99};
    static const double gs[] = {1.62, 3.71, 9.81};
    static const double hs[] = {0.01, 1.0, 10.0};
    ball_stats K = {0};
    for (size_t i = 0; i < 7; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 3; ++k) {
                if (SANITIZED && (k == 2 || es[i] == 0.99)) continue;
                ball_case c = {es[i], gs[j], hs[k], 0, 0.0};
                ball_case_run(&c, ig, &K);
            }
    char name[32];
    snprintf(name, sizeof name, "ball_%s", ig_names[ig]);
    ball_end(name, &K);
}

static void incline_grid(int ig) {
    static const double es[] = {0.0, 0.5, 0.9};
    static const double as[] = {10.0, 30.0, 50.0};
    static const double hs[] = {0.01, 1.0};
    ball_stats K = {0};
    for (size_t i = 0; i < 3; ++i)
        for (size_t j = 0; j < 3; ++j)
            for (size_t k = 0; k < 2; ++k) {
                ball_case c = {es[i], 9.81, hs[k], 1, as[j]};
                ball_case_run(&c, ig, &K);
            }
    char name[32];
    snprintf(name, sizeof name, "incline_%s", ig_names[ig]);
    ball_end(name, &K);
}

START_TEST(ball_dopri5) { ball_grid(IG_DOPRI5); }
END_TEST
START_TEST(ball_bdf) { ball_grid(IG_BDF); }
END_TEST
START_TEST(ball_moreau) { ball_grid(IG_MOREAU); }
END_TEST
START_TEST(incline_dopri5) { incline_grid(IG_DOPRI5); }
END_TEST
START_TEST(incline_bdf) { incline_grid(IG_BDF); }
END_TEST
START_TEST(incline_moreau) { incline_grid(IG_MOREAU); }
END_TEST

int main(void) {
    Suite *s = suite_create("rigid_properties");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, sphere_dopri5);
    tcase_add_test(tc, sphere_bdf);
    tcase_add_test(tc, sphere_moreau);
    tcase_add_test(tc, curb_dopri5);
    tcase_add_test(tc, curb_bdf);
    tcase_add_test(tc, curb_moreau);
    suite_add_tcase(s, tc);
    TCase *ta = tcase_create("accumulation");
    tcase_set_timeout(ta, 600);
    tcase_add_test(ta, ball_dopri5);
    tcase_add_test(ta, ball_bdf);
    tcase_add_test(ta, ball_moreau);
    tcase_add_test(ta, incline_dopri5);
    tcase_add_test(ta, incline_bdf);
    tcase_add_test(ta, incline_moreau);
    suite_add_tcase(s, ta);
    return test_run_suite(s);
}
