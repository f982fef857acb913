/* Tests of the moreau integrator (nsdyn_integrator_moreau.so): Moreau-Jean
 * time-stepping driven on hand-built nsdyn_ode + nsdyn_mechanics problems,
 * the shared object dlopen'ed from the build tree as the host loads it.
 *
 * Every tolerance is derived next to its check from the scheme (documented
 * at the head of plugins/integrators/moreau.c) and was not widened to pass.
 * Facts used throughout, for theta = 1/2 and a constant free acceleration:
 *  - in free flight the scheme is Stormer-Verlet, exact for a parabola:
 *    v_{k+1} = v_k - g h, y_{k+1} = y_k + h (v_k + v_{k+1}) / 2, so
 *    y + v^2 / (2 g) is conserved exactly (to rounding);
 *  - a single contact is solved exactly (closed-form case enumeration), so
 *    sticking and sliding with constant forces are reproduced to rounding.
 */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau_fc.h" /* the plugin's contact solver, tested directly below */
#include "nsdyn/integrator.h"
#include "param_fields.h"

#ifndef NSDYN_TEST_PLUGIN_DIR
#error "NSDYN_TEST_PLUGIN_DIR must name the directory of the built plugins"
#endif

#define MOREAU_SO NSDYN_TEST_PLUGIN_DIR "/nsdyn_integrator_moreau.so"
#define IMPACT_SO NSDYN_TEST_PLUGIN_DIR "/nsdyn_contact_impact.so"
#define G_ACC 9.81
#define MAX_PARAMS 16
#define PI 3.14159265358979323846

/* ---- plugin loading and parameters ---------------------------------------- */

typedef struct plugin {
    void *so;
    const nsdyn_integrator *d;
} plugin;

static plugin load(void) {
    plugin p = {NULL, NULL};
    p.so = dlopen(MOREAU_SO, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(p.so != NULL, "dlopen(%s): %s", MOREAU_SO, dlerror());
    void *sym = dlsym(p.so, NSDYN_PLUGIN_ENTRY_NAME);
    ck_assert_ptr_nonnull(sym);
    nsdyn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    ck_assert_ptr_null(entry(NSDYN_ABI_MAJOR + 1u, 0));
    const nsdyn_plugin_info *info = entry(NSDYN_ABI_MAJOR, 0);
    ck_assert_ptr_nonnull(info);
    ck_assert_ptr_null(entry(NSDYN_ABI_MAJOR, 1));
    ck_assert_int_eq(info->kind, NSDYN_KIND_INTEGRATOR);
    ck_assert_str_eq(info->id, "moreau");
    ck_assert_uint_ge(info->struct_size, sizeof(nsdyn_integrator));
    p.d = (const nsdyn_integrator *)info;
    return p;
}

/* ---- the contact law: the real `newton` plugin ------------------------------
 * moreau asks the contact law for each contact's impulse (ABI 2.0
 * local_impulse); these problems use newton with each contact's e. Its
 * instances live until unload() (the end of each test). */

typedef struct newton_pool {
    void *so;
    const nsdyn_contact_law *law;
    void *inst[16];
    size_t n;
} newton_pool;

static newton_pool pool;

static void *newton_instance(double e) {
    if (pool.so == NULL) {
        pool.so = dlopen(IMPACT_SO, RTLD_NOW | RTLD_LOCAL);
        ck_assert_msg(pool.so != NULL, "dlopen(%s): %s", IMPACT_SO, dlerror());
        void *sym = dlsym(pool.so, NSDYN_PLUGIN_ENTRY_NAME);
        nsdyn_plugin_entry_fn entry;
        memcpy(&entry, &sym, sizeof entry);
        pool.law = (const nsdyn_contact_law *)entry(NSDYN_ABI_MAJOR, 0);
        ck_assert_str_eq(pool.law->info.id, "newton");
    }
    ck_assert_uint_lt(pool.n, 16);
    nsdyn_value v = {.num = e};
    char err[256];
    void *inst = nsd_plugin_create(&pool.law->info, &v, NULL, err, sizeof err);
    ck_assert_msg(inst != NULL, "newton: %s", err);
    return pool.inst[pool.n++] = inst;
}

static void unload(plugin *p) {
    ck_assert_int_eq(dlclose(p->so), 0);
    p->so = NULL;
    p->d = NULL;
    for (size_t i = 0; i < pool.n; ++i) pool.law->info.destroy(pool.inst[i]);
    pool.n = 0;
    if (pool.so != NULL) ck_assert_int_eq(dlclose(pool.so), 0);
    memset(&pool, 0, sizeof pool);
}

typedef struct log_sink {
    int count;
    int warnings;
    char last[1024];
} log_sink;

static void test_log(void *ctx, nsdyn_log_level level, const char *message) {
    log_sink *sink = ctx;
    sink->count++;
    if (level == NSDYN_LOG_WARNING) sink->warnings++;
    snprintf(sink->last, sizeof sink->last, "%s", message);
    if (sink->count <= 3) fprintf(stderr, "    [plugin log, level %d] %s\n", (int)level, message);
}

typedef struct override {
    const char *name;
    double value;
} override;

/* Index of a CHOICE parameter's option. */
static double choice(const plugin *p, const char *param, const char *option) {
    for (size_t i = 0; i < p->d->info.n_params; ++i) {
        const nsdyn_param_decl *d = &p->d->info.params[i];
        if (strcmp(d->name, param) != 0) continue;
        ck_assert_int_eq(d->type, NSDYN_PARAM_CHOICE);
        for (size_t k = 0; d->choices[k] != NULL; ++k)
            if (strcmp(d->choices[k], option) == 0) return (double)k;
    }
    ck_abort_msg("no option %s of %s", option, param);
    return -1.0;
}

/* Create from the declared defaults with overrides; NULL + err on refusal. */
static void *try_create(const plugin *p, log_sink *sink, nsdyn_host *host, const override *ov,
                        size_t n_ov, char *err, size_t err_len) {
    nsdyn_value vals[MAX_PARAMS];
    ck_assert_uint_le(p->d->info.n_params, MAX_PARAMS);
    for (size_t i = 0; i < p->d->info.n_params; ++i) {
        const nsdyn_param_decl *d = &p->d->info.params[i];
        vals[i].num = d->default_value;
        vals[i].arr = NULL;
        vals[i].len = 0;
    }
    for (size_t k = 0; k < n_ov; ++k) {
        size_t i = 0;
        while (i < p->d->info.n_params && strcmp(p->d->info.params[i].name, ov[k].name) != 0) ++i;
        ck_assert_msg(i < p->d->info.n_params, "no parameter '%s'", ov[k].name);
        vals[i].num = ov[k].value;
    }
    host->struct_size = (uint32_t)sizeof *host;
    host->ctx = sink;
    host->log = test_log;
    err[0] = '\0';
    return nsd_plugin_create(&p->d->info, vals, host, err, err_len);
}

static void *create(const plugin *p, log_sink *sink, nsdyn_host *host, const override *ov,
                    size_t n_ov) {
    char err[512];
    void *inst = try_create(p, sink, host, ov, n_ov, err, sizeof err);
    ck_assert_msg(inst != NULL, "create failed: %s", err);
    return inst;
}

static nsdyn_integrator_stats get_stats(const plugin *p, void *inst) {
    nsdyn_integrator_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = (uint32_t)sizeof s;
    p->d->stats(inst, &s);
    return s;
}

/* ---- test systems ------------------------------------------------------------
 * Each fills an nsdyn_mechanics; W and MinvWt rows are (n, t1, t2), 3 x nv
 * per contact, row-major; planar contacts leave the t2 row zero. */

/* A system: its parameters and the tables handed to the plugin. */
typedef struct sys {
    double g, m, J, b; /* gravity, mass, inertia, radius/length */
    double alpha;      /* incline angle */
    double wall_x;     /* ladder: wall position */
    uint32_t tdim[2];
    double e[2], mu[2];
    const char *names[2];
    void *law[2]; /* newton instances with e[c] */
    nsdyn_rigid_coefficients coefficients;
    nsdyn_mechanics mech;
    nsdyn_ode ode;
    unsigned long w_requests; /* ball: contacts() calls that asked for W */
} sys;

static nsdyn_status unused_rhs(void *ctx, double t, const double *y, double *ydot) {
    (void)ctx, (void)t, (void)y, (void)ydot;
    return NSDYN_ERROR; /* a time-stepping integrator never calls it */
}

static nsdyn_status qdot_identity(void *ctx, double t, const double *q, const double *v,
                                  double *qd) {
    const sys *S = ctx;
    (void)t, (void)q;
    for (size_t i = 0; i < S->mech.nq; ++i) qd[i] = v[i];
    return NSDYN_OK;
}

/* Local velocity u = W v of all contacts. */
static void local_velocity(const sys *S, const double *W, const double *v, double *u) {
    const size_t nv = S->mech.nv;
    for (size_t r = 0; r < 3 * S->mech.n_contacts; ++r) {
        double s = 0.0;
        for (size_t k = 0; k < nv; ++k) s += W[r * nv + k] * v[k];
        u[r] = s;
    }
}

/* nsdyn_mechanics.local_impulse: newton at contact c, mu static = kinetic,
 * its impact() on the one-contact problem with Moreau's restitution scale
 * (contact.h, ABI 2.4; what the host does, plugins/plugin_calls.c). */
static nsdyn_status newton_local(void *ctx, size_t c, const double *G, const double *u_free,
                                 const double *u_start, double *P) {
    const sys *S = ctx;
    nsdyn_local_impact p = {sizeof p, S->tdim[c], G, u_free, u_start, S->mu[c], S->mu[c]};
    P[0] = P[1] = P[2] = 0.0;
    if (!(u_free[0] < 0.0)) return NSDYN_OK;
    double mu_s, mu_k, gap, up[3];
    const double scale = nsdyn_local_restitution_scale(&p);
    nsdyn_impact_problem pr = nsdyn_local_problem(&p, &mu_s, &mu_k, &gap);
    pr.restitution_scale = &scale;
    return pool.law->impact(S->law[c], &pr, P, up);
}

static void finish(sys *S, size_t nq, size_t nv, size_t nc,
                   nsdyn_status (*acc)(void *, double, const double *, const double *, double *),
                   nsdyn_status (*contacts)(void *, double, const double *, const double *,
                                            double *, double *, double *, double *)) {
    memset(&S->mech, 0, sizeof S->mech);
    S->mech.struct_size = (uint32_t)sizeof S->mech;
    S->mech.nq = nq;
    S->mech.nv = nv;
    S->mech.n_contacts = nc;
    S->mech.tangent_dim = S->tdim;
    S->mech.contact_name = S->names;
    S->mech.mu = S->mu;
    S->mech.law = &S->coefficients;
    S->mech.local_impulse = newton_local;
    S->coefficients =
        (nsdyn_rigid_coefficients){sizeof S->coefficients, NSDYN_RESTITUTION_NEWTON, S->e[0]};
    for (size_t c = 0; c < nc; ++c) S->law[c] = newton_instance(S->e[c]);
    S->mech.ctx = S;
    S->mech.qdot = qdot_identity;
    S->mech.free_acceleration = acc;
    S->mech.contacts = contacts;
    memset(&S->ode, 0, sizeof S->ode);
    S->ode.struct_size = (uint32_t)sizeof S->ode;
    S->ode.n = nq + nv;
    S->ode.ctx = S;
    S->ode.rhs = unused_rhs;
    S->ode.mech = &S->mech;
}

/* (a) Ball: y (nq = nv = 1) above the ground y = 0, frictionless. */
static nsdyn_status ball_acc(void *ctx, double t, const double *q, const double *v, double *a) {
    const sys *S = ctx;
    (void)t, (void)q, (void)v;
    a[0] = -S->g;
    return NSDYN_OK;
}
static nsdyn_status ball_contacts(void *ctx, double t, const double *q, const double *v,
                                  double *gap, double *u, double *W, double *MW) {
    sys *S = ctx;
    (void)t;
    gap[0] = q[0];
    u[0] = v[0], u[1] = u[2] = 0.0;
    if (W != NULL) {
        S->w_requests++;
        W[0] = 1.0, W[1] = W[2] = 0.0;
        MW[0] = 1.0 / S->m, MW[1] = MW[2] = 0.0;
    }
    return NSDYN_OK;
}
static void make_ball(sys *S, double e) {
    memset(S, 0, sizeof *S);
    S->g = G_ACC, S->m = 2.0;
    S->tdim[0] = 1, S->e[0] = e, S->mu[0] = 0.0, S->names[0] = "ground";
    finish(S, 1, 1, 1, ball_acc, ball_contacts);
}

/* (b) Block on an incline: q = (x down the slope, y off the slope). */
static nsdyn_status incline_acc(void *ctx, double t, const double *q, const double *v, double *a) {
    const sys *S = ctx;
    (void)t, (void)q, (void)v;
    a[0] = S->g * sin(S->alpha);
    a[1] = -S->g * cos(S->alpha);
    return NSDYN_OK;
}
static nsdyn_status incline_contacts(void *ctx, double t, const double *q, const double *v,
                                     double *gap, double *u, double *W, double *MW) {
    const sys *S = ctx;
    (void)t;
    gap[0] = q[1];
    u[0] = v[1], u[1] = v[0], u[2] = 0.0;
    if (W != NULL) {
        const double rows[6] = {0, 1, 1, 0, 0, 0};
        for (int i = 0; i < 6; ++i) {
            W[i] = rows[i];
            MW[i] = rows[i] / S->m;
        }
    }
    return NSDYN_OK;
}
static void make_incline(sys *S, double alpha_deg, double mu) {
    memset(S, 0, sizeof *S);
    S->g = G_ACC, S->m = 3.0, S->alpha = alpha_deg * PI / 180.0;
    S->tdim[0] = 1, S->e[0] = 0.0, S->mu[0] = mu, S->names[0] = "slope";
    finish(S, 2, 2, 1, incline_acc, incline_contacts);
}

/* (c) Sphere on the plane z = 0: q = (x, y, z, three angle accumulators),
 * v = (vx, vy, vz, wx, wy, wz), M = diag(m, m, m, J, J, J). Contact point
 * arm r = (0, 0, -b): u = (vz, vx - b wy, vy + b wx). */
static nsdyn_status sphere_acc(void *ctx, double t, const double *q, const double *v, double *a) {
    const sys *S = ctx;
    (void)t, (void)q, (void)v;
    for (int i = 0; i < 6; ++i) a[i] = 0.0;
    a[2] = -S->g;
    return NSDYN_OK;
}
static nsdyn_status sphere_contacts(void *ctx, double t, const double *q, const double *v,
                                    double *gap, double *u, double *W, double *MW) {
    const sys *S = ctx;
    (void)t;
    const double b = S->b;
    const double rows[18] = {0, 0, 1, 0, 0,  0,  /* n  */
                             1, 0, 0, 0, -b, 0,  /* t1 */
                             0, 1, 0, b, 0,  0}; /* t2 */
    const double minv[6] = {1 / S->m, 1 / S->m, 1 / S->m, 1 / S->J, 1 / S->J, 1 / S->J};
    gap[0] = q[2] - b;
    for (int r = 0; r < 3; ++r) {
        double s = 0.0;
        for (int k = 0; k < 6; ++k) s += rows[6 * r + k] * v[k];
        u[r] = s;
    }
    if (W != NULL)
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 6; ++k) {
                W[6 * r + k] = rows[6 * r + k];
                MW[6 * r + k] = rows[6 * r + k] * minv[k];
            }
    return NSDYN_OK;
}
static void make_sphere(sys *S, double mu) {
    memset(S, 0, sizeof *S);
    S->g = G_ACC, S->m = 1.5, S->b = 0.1;
    S->J = 0.4 * S->m * S->b * S->b;
    S->tdim[0] = 2, S->e[0] = 0.0, S->mu[0] = mu, S->names[0] = "table";
    finish(S, 6, 6, 1, sphere_acc, sphere_contacts);
}

/* (d) Ladder: rod (length b, mass m, J = m b^2 / 12), q = (x, y, phi) of
 * its centre and angle to the floor; end A = c - b/2 (cos, sin) on the
 * floor y = 0 (n = (0, 1), t = (1, 0)), end B = c + b/2 (cos, sin) against
 * the wall x = wall_x (n = (-1, 0), t = (0, 1)). W row of direction d at
 * arm r: (d_x, d_y, r_x d_y - r_y d_x). */
static nsdyn_status ladder_acc(void *ctx, double t, const double *q, const double *v, double *a) {
    const sys *S = ctx;
    (void)t, (void)q, (void)v;
    a[0] = 0.0, a[1] = -S->g, a[2] = 0.0;
    return NSDYN_OK;
}
static void ladder_row(const sys *S, double rx, double ry, double dx, double dy, double *W,
                       double *MW) {
    W[0] = dx, W[1] = dy, W[2] = rx * dy - ry * dx;
    MW[0] = W[0] / S->m, MW[1] = W[1] / S->m, MW[2] = W[2] / S->J;
}
static nsdyn_status ladder_contacts(void *ctx, double t, const double *q, const double *v,
                                    double *gap, double *u, double *W, double *MW) {
    const sys *S = ctx;
    (void)t;
    const double hx = 0.5 * S->b * cos(q[2]), hy = 0.5 * S->b * sin(q[2]);
    double Wl[18], Ml[18];
    memset(Wl, 0, sizeof Wl);
    memset(Ml, 0, sizeof Ml);
    ladder_row(S, -hx, -hy, 0, 1, Wl + 0, Ml + 0); /* A normal */
    ladder_row(S, -hx, -hy, 1, 0, Wl + 3, Ml + 3); /* A tangent */
    ladder_row(S, hx, hy, -1, 0, Wl + 9, Ml + 9);  /* B normal */
    ladder_row(S, hx, hy, 0, 1, Wl + 12, Ml + 12); /* B tangent */
    gap[0] = q[1] - hy;
    gap[1] = S->wall_x - (q[0] + hx);
    local_velocity(S, Wl, v, u);
    if (W != NULL) {
        memcpy(W, Wl, sizeof Wl);
        memcpy(MW, Ml, sizeof Ml);
    }
    return NSDYN_OK;
}
static void make_ladder(sys *S, double mu, double phi0, double *y0) {
    memset(S, 0, sizeof *S);
    S->g = G_ACC, S->m = 4.0, S->b = 2.0;
    S->J = S->m * S->b * S->b / 12.0;
    for (int c = 0; c < 2; ++c) S->tdim[c] = 1, S->e[c] = 0.0, S->mu[c] = mu;
    S->names[0] = "floor", S->names[1] = "wall";
    finish(S, 3, 3, 2, ladder_acc, ladder_contacts);
    y0[0] = 0.0, y0[1] = 0.5 * S->b * sin(phi0), y0[2] = phi0;
    y0[3] = y0[4] = y0[5] = 0.0;
    S->wall_x = 0.5 * S->b * cos(phi0);
}

/* (d) A contact that cannot act: its Jacobian rows are zero (a singular,
 * zero Delassus block) while an obstacle closes it at 1 m/s. */
static nsdyn_status pusher_contacts(void *ctx, double t, const double *q, const double *v,
                                    double *gap, double *u, double *W, double *MW) {
    (void)ctx, (void)q, (void)v;
    gap[0] = -1e-3 - t;
    u[0] = -1.0, u[1] = u[2] = 0.0;
    if (W != NULL) {
        memset(W, 0, 6 * sizeof(double));
        memset(MW, 0, 6 * sizeof(double));
    }
    return NSDYN_OK;
}

/* ---- driving -------------------------------------------------------------- */

#define MAX_STEPS 10000000L

/* Step until t_end; returns the status of the last call. */
typedef void (*observer)(void *obs, double t, const double *y);

static nsdyn_status run_to(const plugin *p, void *inst, double t_end, observer f, void *obs) {
    nsdyn_step_report out;
    for (long k = 0; k < MAX_STEPS; ++k) {
        memset(&out, 0, sizeof out);
        const nsdyn_status st = p->d->step(inst, t_end, &out);
        if (st > NSDYN_WARNING) return st;
        ck_assert_int_eq(out.event, -1);
        ck_assert(out.t <= t_end);
        if (f != NULL) f(obs, out.t, out.y);
        if (out.t == t_end) return st;
    }
    ck_abort_msg("too many steps");
    return NSDYN_ERROR;
}

/* ---- (a) bouncing ball ---------------------------------------------------- */

#define BALL_H0 1.0
#define BALL_E 0.5
#define BALL_BOUNCES 3

typedef struct ball_obs {
    double v_prev;
    int bounces;
    double height[BALL_BOUNCES]; /* apex heights after bounces 1.. */
    double t_moving;             /* last step end with v != 0 */
    double t_rest;               /* first step end after it */
    double min_y;
} ball_obs;

static void ball_observe(void *o, double t, const double *y) {
    ball_obs *b = o;
    /* a bounce: the velocity turned from falling to rising in this step;
     * the apex height y + v^2/(2g) is then exact for the whole flight */
    if (b->v_prev < 0.0 && y[1] > 0.0) {
        if (b->bounces < BALL_BOUNCES) b->height[b->bounces] = y[0] + y[1] * y[1] / (2.0 * G_ACC);
        b->bounces++;
    }
    /* at rest the closed contact makes v = 0 up to rounding of g h terms */
    if (fabs(y[1]) > 1e-12) {
        b->t_moving = t;
        b->t_rest = NAN;
    } else if (isnan(b->t_rest)) {
        b->t_rest = t;
    }
    b->min_y = fmin(b->min_y, y[0]);
    b->v_prev = y[1];
}

/* Bounce heights e^(2k) H and the rest time T = sqrt(2H/g)(1+e)/(1-e).
 *
 * Height bound (derived from the scheme, theta = 1/2). Let the impact step
 * start at (y_k, v_k < 0) with apex height E = y_k + v_k^2/(2g) (exact in
 * flight). The contact closes when y_k + h v_k / 2 <= 0 while the step
 * before was open, so |y_k| <= h |v_k| / 2. Newton's law gives
 * v_{k+1} = -e v_k and y_{k+1} = y_k + h (1 - e) v_k / 2, hence the new
 * apex height e^2 E + (1 - e^2) y_k - h (1 - e) |v_k| / 2 differs from
 * e^2 E by at most (1 - e)(2 + e) h |v_k| / 2, where
 * v_k^2 = 2 g (E - y_k) <= 2 g E + g h |v_k| gives |v_k| <= sqrt(2 g E) + g h.
 * With d_k the error of bounce k:
 *     d_k <= e^2 d_{k-1} + (1 - e)(2 + e) h (sqrt(2 g E_{k-1}) + g h) / 2,
 * first order in h; the test checks each height against this bound.
 *
 * Rest time: the error is O(h) per bounce resolved (impact located within
 * a step, pre-impact velocity taken at the step start: flight time changes
 * by at most 2 e h) and the bounces faster than g h are absorbed in about
 * 2 h / (1 - e); with n_b bounces of flight time > h the bound used is
 * (n_b (1 + 2 e) + 2 / (1 - e) + 1) h: order ~1 (h log(1/h) at worst), and
 * the error must shrink from the largest to the smallest h. */
START_TEST(test_bouncing_ball) {
    plugin p = load();
    const double hs[3] = {2e-3, 1e-3, 5e-4};
    const double T_exact = sqrt(2.0 * BALL_H0 / G_ACC) * (1.0 + BALL_E) / (1.0 - BALL_E);
    double err_T[3], err_H[3];
    for (int k = 0; k < 3; ++k) {
        const double h = hs[k];
        sys S;
        make_ball(&S, BALL_E);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", h}};
        void *inst = create(&p, &sink, &host, ov, 1);
        const double y0[2] = {BALL_H0, 0.0};
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 2.0), NSDYN_OK);
        ball_obs b = {0.0, 0, {0}, 0.0, NAN, HUGE_VAL};
        ck_assert_int_eq(run_to(&p, inst, 2.0, ball_observe, &b), NSDYN_OK);
        ck_assert_int_ge(b.bounces, BALL_BOUNCES);
        /* heights against the derived bound */
        double E_prev = BALL_H0, bound = 0.0;
        err_H[k] = 0.0;
        for (int j = 0; j < BALL_BOUNCES; ++j) {
            const double exact = pow(BALL_E, 2.0 * (j + 1)) * BALL_H0;
            bound = BALL_E * BALL_E * bound + 0.5 * (1.0 - BALL_E) * (2.0 + BALL_E) * h *
                                                  (sqrt(2.0 * G_ACC * E_prev) + G_ACC * h);
            const double err = fabs(b.height[j] - exact);
            printf("ball h = %-6g bounce %d: height %.6f exact %.6f error %.3e (bound %.3e)\n", h,
                   j + 1, b.height[j], exact, err, bound);
            ck_assert_msg(err <= bound, "bounce %d height error %g > bound %g", j + 1, err, bound);
            err_H[k] = fmax(err_H[k], err);
            E_prev = fmax(b.height[j], exact);
        }
        /* rest time */
        ck_assert_msg(!isnan(b.t_rest), "the ball did not come to rest");
        const int n_b = (int)ceil(log(h * G_ACC / sqrt(2.0 * G_ACC * BALL_H0)) / log(BALL_E));
        const double T_bound = (n_b * (1.0 + 2.0 * BALL_E) + 2.0 / (1.0 - BALL_E) + 1.0) * h;
        err_T[k] = fabs(b.t_rest - T_exact);
        printf("ball h = %-6g rest at %.6f s, exact %.6f s, error %.3e s = %.2f h (bound %.1f h), "
               "%d bounces seen, deepest y %.2e m\n",
               h, b.t_rest, T_exact, err_T[k], err_T[k] / h, T_bound / h, b.bounces, b.min_y);
        ck_assert_msg(err_T[k] <= T_bound, "rest time error %g > %g", err_T[k], T_bound);
        /* penetration stays O(h |v|): at most h sqrt(2 g H) */
        ck_assert(b.min_y >= -h * sqrt(2.0 * G_ACC * BALL_H0));
        nsdyn_integrator_stats st = get_stats(&p, inst);
        ck_assert_uint_eq(st.steps, (uint64_t)llround(2.0 / h));
        ck_assert_uint_eq(st.rhs_evals, st.steps);      /* one free acceleration per step */
        ck_assert_uint_eq(st.jacobian_evals, st.steps); /* one contacts() per step */
        /* W and M^-1 W^T only for steps with a closed contact (moreau.c,
         * mj_index_set): not in the flights before the ball comes to rest */
        const double t_flight = sqrt(2.0 * BALL_H0 / G_ACC);
        printf("ball h = %-6g: W asked for in %lu of %llu steps\n", h, S.w_requests,
               (unsigned long long)st.steps);
        ck_assert_uint_gt(S.w_requests, 0);
        ck_assert_uint_le(S.w_requests, st.steps - (uint64_t)(t_flight / h));
        ck_assert_uint_eq(st.rejected_steps, 0);
        ck_assert_int_eq(sink.count, 0);
        p.d->info.destroy(inst);
    }
    /* first order: the errors shrink with h (4x smaller h, errors smaller) */
    printf("ball: observed order (heights) %.2f, (rest time) %.2f over h = %g .. %g\n",
           log(err_H[0] / err_H[2]) / log(hs[0] / hs[2]),
           log(err_T[0] / err_T[2]) / log(hs[0] / hs[2]), hs[0], hs[2]);
    ck_assert(err_H[2] < err_H[0]);
    ck_assert(err_T[2] < err_T[0]);
    unload(&p);
}
END_TEST

/* ---- (b) block on an incline ---------------------------------------------- */

typedef struct incline_obs {
    double max_v, max_y, max_err_x, max_err_v, a;
} incline_obs;

static void incline_observe(void *o, double t, const double *y) {
    incline_obs *b = o;
    b->max_v = fmax(b->max_v, hypot(y[2], y[3]));
    b->max_y = fmax(b->max_y, fabs(y[1]));
    b->max_err_x = fmax(b->max_err_x, fabs(y[0] - 0.5 * b->a * t * t));
    b->max_err_v = fmax(b->max_err_v, fabs(y[2] - b->a * t));
}

/* Sticks when tan(alpha) < mu, slides with a = g (sin - mu cos) above.
 * With a constant free acceleration each step is one exact one-contact
 * solve: sticking gives v = 0 to rounding (|v| <= 1e-12 m/s: terms of size
 * g h ~ 1e-2 m/s times a few ulps; a residual velocity does not grow, the
 * next step solves stick again), sliding gives v_{k+1} = v_k + a h, and the
 * midpoint update of x is exact for a linear v. The one-contact solve is a
 * closed form, so the solver tolerance does not enter; rounding of ~1e-16
 * relative per step on quantities of size a t <= 2.4 stays far below the
 * 1e-9 used over the 1000 steps of the run. With theta = 1
 * the update x_{k+1} = x_k + h v_{k+1} has the exact first-order error
 * a t h / 2. */
START_TEST(test_incline) {
    plugin p = load();
    const double t_end = 1.0, h = 1e-3;
    /* stick: tan 20 deg = 0.364 < mu = 0.5 */
    {
        sys S;
        make_incline(&S, 20.0, 0.5);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", h}};
        void *inst = create(&p, &sink, &host, ov, 1);
        const double y0[4] = {0, 0, 0, 0};
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, t_end), NSDYN_OK);
        incline_obs b = {0, 0, 0, 0, 0};
        ck_assert_int_eq(run_to(&p, inst, t_end, incline_observe, &b), NSDYN_OK);
        printf("incline stick: max |v| %.3e m/s, max |y| %.3e m, max |x| %.3e m\n", b.max_v,
               b.max_y, b.max_err_x);
        ck_assert(b.max_v <= 1e-12);
        ck_assert(b.max_err_x <= 1e-12);
        ck_assert(b.max_y <= 1e-12);
        p.d->info.destroy(inst);
    }
    /* slide: tan 30 deg = 0.577 > mu = 0.3 */
    const double thetas[2] = {0.5, 1.0};
    for (int k = 0; k < 2; ++k) {
        sys S;
        make_incline(&S, 30.0, 0.3);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", h}, {"theta", thetas[k]}};
        void *inst = create(&p, &sink, &host, ov, 2);
        const double y0[4] = {0, 0, 0, 0};
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, t_end), NSDYN_OK);
        const double a = G_ACC * (sin(S.alpha) - 0.3 * cos(S.alpha));
        incline_obs b = {0, 0, 0, 0, a};
        ck_assert_int_eq(run_to(&p, inst, t_end, incline_observe, &b), NSDYN_OK);
        printf("incline slide theta %.1f: a = %.6f, max |x - a t^2/2| %.3e m, max |v - a t| "
               "%.3e m/s, max |y| %.3e m\n",
               thetas[k], a, b.max_err_x, b.max_err_v, b.max_y);
        ck_assert(b.max_err_v <= 1e-9);
        ck_assert(b.max_y <= 1e-12);
        if (thetas[k] == 0.5) {
            ck_assert(b.max_err_x <= 1e-9);
        } else {
            /* first order: the error is a t h / 2 at t = 1, to 1e-9 */
            const double expect = 0.5 * a * t_end * h;
            ck_assert_msg(fabs(b.max_err_x - expect) <= 1e-9, "theta = 1 error %g, expected %g",
                          b.max_err_x, expect);
        }
        p.d->info.destroy(inst);
    }
    unload(&p);
}
END_TEST

/* ---- (c) sphere: sliding to rolling --------------------------------------- */

typedef struct sphere_obs {
    double b, v0, t_roll, max_slip_after, max_dir_dev, dir[2];
    double y_last[12];
} sphere_obs;

static void sphere_observe(void *o, double t, const double *y) {
    sphere_obs *s = o;
    const double *v = y + 6;
    const double s1 = v[0] - s->b * v[4], s2 = v[1] + s->b * v[3];
    const double slip = hypot(s1, s2);
    (void)t;
    memcpy(s->y_last, y, sizeof s->y_last);
    if (isnan(s->t_roll)) {
        if (slip <= 1e-12 * s->v0)
            s->t_roll = t;
        else /* while sliding, the slip keeps its direction */
            s->max_dir_dev = fmax(s->max_dir_dev, fabs(s1 * s->dir[1] - s2 * s->dir[0]) / slip);
    } else {
        s->max_slip_after = fmax(s->max_slip_after, slip);
    }
}

/* A sphere launched without spin slides, friction -mu m g decelerates the
 * centre and spins it up, until pure rolling at
 *     t* = v0 / (mu g (1 + m b^2 / J)),  speed 5/7 v0 for J = 2/5 m b^2.
 * In the scheme the slip falls by exactly mu g (1 + m b^2/J) h per sliding
 * step (constant forces, exact one-contact solve: the 3-D slide case), and
 * the step in which the free slip is below that sticks, so rolling is
 * reached at the first grid point >= t*: 0 <= t_roll - t* < h. The final
 * speed is exact: the contact impulses do not change the angular momentum
 * about the contact point, m b v + J w, which at rolling fixes
 * v = m b^2 v0 / (m b^2 + J) = 5/7 v0; only rounding remains (1e-12). The
 * launch direction is oblique (30 deg), so the slip direction is a general
 * angle of the 3-D friction disc; it must not turn while sliding. */
START_TEST(test_sphere_rolling) {
    plugin p = load();
    const double mu = 0.2, v0 = 2.0, beta = 30.0 * PI / 180.0, t_end = 1.0;
    const double hs[2] = {1e-3, 3e-4};
    for (int k = 0; k < 2; ++k) {
        const double h = hs[k];
        sys S;
        make_sphere(&S, mu);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", h}};
        void *inst = create(&p, &sink, &host, ov, 1);
        double y0[12] = {0};
        y0[2] = S.b;
        y0[6] = v0 * cos(beta), y0[7] = v0 * sin(beta);
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, t_end), NSDYN_OK);
        sphere_obs o = {S.b, v0, NAN, 0.0, 0.0, {cos(beta), sin(beta)}, {0}};
        ck_assert_int_eq(run_to(&p, inst, t_end, sphere_observe, &o), NSDYN_OK);
        const double t_star = v0 / (mu * G_ACC * (1.0 + S.m * S.b * S.b / S.J));
        const double v_roll = 5.0 / 7.0 * v0;
        ck_assert(!isnan(o.t_roll));
        printf("sphere h = %-6g rolling at %.6f s, t* = %.6f s (delay %.3f h), slip after %.2e, "
               "slip direction deviation %.2e\n",
               h, o.t_roll, t_star, (o.t_roll - t_star) / h, o.max_slip_after, o.max_dir_dev);
        ck_assert(o.t_roll - t_star >= -1e-12 && o.t_roll - t_star < h);
        ck_assert(o.max_slip_after <= 1e-12 * v0);
        ck_assert(o.max_dir_dev <= 1e-12);
        /* final state at t_end */
        const double *y = o.y_last;
        const double speed = hypot(y[6], y[7]);
        printf("sphere h = %-6g speed %.15f, 5/7 v0 = %.15f, error %.2e; |vz| %.1e, z - b %.1e\n",
               h, speed, v_roll, fabs(speed - v_roll), fabs(y[8]), y[2] - S.b);
        ck_assert(fabs(speed - v_roll) <= 1e-12 * v0);
        ck_assert(fabs(atan2(y[7], y[6]) - beta) <= 1e-12);
        ck_assert(fabs(y[8]) <= 1e-12);
        p.d->info.destroy(inst);
    }
    unload(&p);
}
END_TEST

/* ---- multi-contact: the ladder -------------------------------------------- */

typedef struct ladder_obs {
    const sys *S;
    double min_gap, max_omega;
} ladder_obs;

static void ladder_observe(void *o, double t, const double *y) {
    ladder_obs *L = o;
    double gap[2], u[6];
    ladder_contacts((void *)L->S, t, y, y + 3, gap, u, NULL, NULL);
    L->min_gap = fmin(L->min_gap, fmin(gap[0], gap[1]));
    L->max_omega = fmax(L->max_omega, fabs(y[5]));
    (void)u;
}

/* A ladder at 60 deg with mu = 0.2 at both ends slides (equilibrium needs
 * tan phi >= (1 - mu^2) / (2 mu) = 2.4, i.e. phi >= 67 deg): both contacts
 * stay closed and coupled through the rotation; the default solver must
 * converge every step. While both stay closed the Signorini condition at
 * the velocity level keeps u_n+ >= 0 to tol, so the gaps drift by no more
 * than the O(h^2) curvature of the end-point paths per step. */
START_TEST(test_ladder_converges) {
    plugin p = load();
    sys S;
    double y0[6];
    make_ladder(&S, 0.2, 60.0 * PI / 180.0, y0);
    log_sink sink = {0};
    nsdyn_host host;
    override ov[] = {{"h", 1e-3}};
    void *inst = create(&p, &sink, &host, ov, 1);
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 0.3), NSDYN_OK);
    ladder_obs L = {&S, HUGE_VAL, 0.0};
    ck_assert_int_eq(run_to(&p, inst, 0.3, ladder_observe, &L), NSDYN_OK);
    ck_assert_int_eq(sink.count, 0);
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_eq(st.rejected_steps, 0);
    printf("ladder: 300 steps, deepest gap %.2e m, max |omega| %.3f rad/s\n", L.min_gap,
           L.max_omega);
    /* The velocity-level condition at q_th removes the first-order gap
     * change; what is left per step is the curvature of the end-point path,
     * at most (b/2) omega^2 h^2 = 9e-6 m for |omega| <= 3 rad/s; 300 steps:
     * 2.7e-3 m. */
    ck_assert(L.max_omega <= 3.0);
    ck_assert(L.min_gap >= -300 * 0.5 * S.b * 9.0 * 1e-6);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* ---- (d) failures are reported -------------------------------------------- */

/* The ladder with max_iter = 1: one Gauss-Seidel sweep cannot resolve the
 * coupling of the two contacts (the wall's impulse changes the floor
 * contact's velocity), so the residual stays far above tol = 1e-8. */
START_TEST(test_failure_not_converged) {
    plugin p = load();
    sys S;
    double y0[6];
    make_ladder(&S, 0.2, 60.0 * PI / 180.0, y0);
    log_sink sink = {0};
    nsdyn_host host;
    override ov[] = {{"h", 1e-3}, {"max_iter", 1}};
    void *inst = create(&p, &sink, &host, ov, 2);
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.25, y0, 1.0), NSDYN_OK);
    nsdyn_step_report out;
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_ERROR);
    const char *msg = p.d->message(inst);
    printf("max_iter = 1: %s\n", msg);
    ck_assert_ptr_nonnull(strstr(msg, "t = 0.25"));
    ck_assert_ptr_nonnull(strstr(msg, "'floor'"));
    ck_assert_ptr_nonnull(strstr(msg, "'wall'"));
    ck_assert_ptr_nonnull(strstr(msg, "residual"));
    ck_assert_int_eq(sink.count, 0);
    ck_assert_uint_eq(get_stats(&p, inst).steps, 0);
    p.d->info.destroy(inst);

    /* on_failure = warn: logged as a warning, the step is taken */
    log_sink sink2 = {0};
    override ov2[] = {
        {"h", 1e-3}, {"max_iter", 1}, {"on_failure", choice(&p, "on_failure", "warn")}};
    inst = create(&p, &sink2, &host, ov2, 3);
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.25, y0, 1.0), NSDYN_OK);
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_WARNING);
    ck_assert(out.t > 0.25);
    ck_assert_int_eq(sink2.warnings, 1);
    ck_assert_ptr_nonnull(strstr(sink2.last, "'floor'"));
    ck_assert_ptr_nonnull(strstr(sink2.last, "residual"));
    ck_assert_str_eq(sink2.last, p.d->message(inst));
    nsdyn_integrator_stats st = get_stats(&p, inst);
    ck_assert_uint_eq(st.steps, 1);
    ck_assert_uint_eq(st.rejected_steps, 1);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* A contact whose Delassus block is zero while it is being closed at
 * 1 m/s: no impulse can satisfy u_n+ >= 0, the one-contact problem has no
 * solution and the failure must name the contact. */
START_TEST(test_failure_singular_delassus) {
    plugin p = load();
    sys S;
    make_incline(&S, 0.0, 0.3);
    S.names[0] = "pusher";
    S.mech.contacts = pusher_contacts;
    log_sink sink = {0};
    nsdyn_host host;
    void *inst = create(&p, &sink, &host, NULL, 0);
    const double y0[4] = {0, 0, 0, 0};
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_OK);
    nsdyn_step_report out;
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_ERROR);
    const char *msg = p.d->message(inst);
    printf("singular Delassus: %s\n", msg);
    ck_assert_ptr_nonnull(strstr(msg, "t = 0 s"));
    ck_assert_ptr_nonnull(strstr(msg, "'pusher'"));
    ck_assert_ptr_nonnull(strstr(msg, "no exact one-contact solution"));
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* ---- (e) parameters and problem checks ------------------------------------ */

START_TEST(test_bad_params) {
    plugin p = load();
    ck_assert(p.d->dense == NULL);
    ck_assert(p.d->info.provides & NSDYN_CAP_FIXED_STEP);
    ck_assert(p.d->info.provides & NSDYN_CAP_TIME_STEPPING);
    ck_assert(!(p.d->info.provides & NSDYN_CAP_EVENT_LOCATION));
    ck_assert(!(p.d->info.provides & NSDYN_CAP_DENSE_OUTPUT));
    for (size_t i = 0; i < p.d->info.n_params; ++i) {
        const nsdyn_param_decl *d = &p.d->info.params[i];
        ck_assert_ptr_nonnull(d->unit);
        ck_assert_ptr_nonnull(d->help);
        ck_assert(d->default_value >= d->min && d->default_value <= d->max);
    }
    log_sink sink = {0};
    nsdyn_host host;
    char err[512];
    const struct {
        override ov;
        const char *needle;
    } bad[] = {
        {{"theta", 0.0}, "theta = 0"},
        {{"theta", 1.5}, "theta = 1.5"},
        {{"theta", -0.5}, "theta = -0.5"},
        {{"h", 0.0}, "h = 0 s"},
        {{"h", -1e-3}, "h = -0.001 s"},
        {{"h", NAN}, "h = nan"},
        {{"tol", 0.0}, "tol = 0"},
        {{"max_iter", 0.0}, "max_iter = 0"},
        {{"max_iter", 2.5}, "max_iter = 2.5"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        void *inst = try_create(&p, &sink, &host, &bad[k].ov, 1, err, sizeof err);
        ck_assert_msg(inst == NULL, "%s = %g accepted", bad[k].ov.name, bad[k].ov.value);
        printf("refused %s = %g: %s\n", bad[k].ov.name, bad[k].ov.value, err);
        ck_assert_msg(strstr(err, bad[k].needle) != NULL, "'%s' lacks '%s'", err, bad[k].needle);
    }
    /* theta = 1 is allowed (closed interval at 1) */
    override ok1 = {"theta", 1.0};
    void *inst = create(&p, &sink, &host, &ok1, 1);
    p.d->info.destroy(inst);

    /* setup: no mechanics */
    inst = create(&p, &sink, &host, NULL, 0);
    sys S;
    make_ball(&S, 0.5);
    const double y0[2] = {1.0, 0.0};
    nsdyn_ode ode = S.ode;
    ode.mech = NULL;
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_ERROR);
    printf("mech NULL: %s\n", p.d->message(inst));
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "rigid contact law"));
    /* an ABI 1.0 host: struct_size ends before mech */
    ode = S.ode;
    ode.struct_size = (uint32_t)offsetof(nsdyn_ode, mech);
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_ERROR);
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "rigid contact law"));
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "ABI < 1.1"));
    /* states beyond q and v (a stateful friction law) */
    ode = S.ode;
    ode.n = 3;
    ck_assert_int_eq(p.d->setup(inst, &ode, 0.0, y0, 1.0), NSDYN_ERROR);
    printf("n > nq + nv: %s\n", p.d->message(inst));
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "not supported"));
    /* bad contact data (the restitution is the contact law's to check) */
    S.tdim[0] = 3;
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_ERROR);
    ck_assert_ptr_nonnull(strstr(p.d->message(inst), "tangent_dim"));
    S.tdim[0] = 1;
    /* (a step before a successful setup is the host's to refuse since ABI
     * 2.5: integrator_calls.h, test_plugin_calls.c) */
    nsdyn_step_report out;
    /* a good setup works after all that */
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_OK);
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

/* Steps land on t_stop, lie on the grid t0 + k h, restart() continues from
 * a given state. */
START_TEST(test_stop_and_restart) {
    plugin p = load();
    sys S;
    make_ball(&S, 0.5);
    log_sink sink = {0};
    nsdyn_host host;
    override ov[] = {{"h", 0.01}};
    void *inst = create(&p, &sink, &host, ov, 1);
    const double y0[2] = {1.0, 0.0};
    ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_OK);
    nsdyn_step_report out;
    ck_assert_int_eq(p.d->step(inst, 0.004, &out), NSDYN_OK);
    ck_assert(out.t == 0.004);
    ck_assert_double_eq_tol(out.h, 0.004, 1e-18);
    ck_assert_int_eq(out.event, -1);
    ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_OK);
    ck_assert_double_eq_tol(out.t, 0.014, 1e-15);
    /* free flight is exact (Verlet on a parabola) */
    ck_assert_double_eq_tol(out.y[0], 1.0 - 0.5 * G_ACC * out.t * out.t, 1e-14);
    const double y1[2] = {0.5, 1.0};
    ck_assert_int_eq(p.d->restart(inst, 2.0, y1), NSDYN_OK);
    ck_assert_int_eq(p.d->step(inst, 3.0, &out), NSDYN_OK);
    ck_assert_double_eq_tol(out.t, 2.01, 1e-15);
    ck_assert_double_eq_tol(out.y[1], 1.0 - G_ACC * 0.01, 1e-14);
    /* 100 steps of 0.01 land on 3.0 exactly, no sliver */
    long n = 1;
    while (out.t < 3.0) {
        ck_assert_int_eq(p.d->step(inst, 3.0, &out), NSDYN_OK);
        ++n;
        ck_assert_int_lt(n, 1000);
    }
    ck_assert(out.t == 3.0);
    ck_assert_int_eq(n, 100);
    p.d->info.destroy(inst);
    unload(&p);
}
END_TEST

#ifdef NSDYN_TEST_HAVE_SICONOS
/* solver = "siconos_nsgs" reproduces the own solver: sphere (3-D, one
 * contact: both exact to rounding) and ladder (2-D, two coupled contacts,
 * tol = 1e-10: both within 1e-10 of the same unique solution per step; the
 * states after 300 steps agree to 1e-8, the tolerance times the ~1e2
 * growth of differences in the sliding dynamics over the run). */
START_TEST(test_siconos_agrees) {
    plugin p = load();
    const double sic = choice(&p, "solver", "siconos_nsgs");
    /* sphere */
    double yf[2][12];
    for (int k = 0; k < 2; ++k) {
        sys S;
        make_sphere(&S, 0.2);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", 1e-3}, {"solver", k == 0 ? 0.0 : sic}};
        void *inst = create(&p, &sink, &host, ov, 2);
        double y0[12] = {0};
        y0[2] = S.b, y0[6] = 1.7, y0[7] = 1.0;
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 0.5), NSDYN_OK);
        nsdyn_step_report out;
        memset(&out, 0, sizeof out);
        while (out.t < 0.5) ck_assert_int_eq(p.d->step(inst, 0.5, &out), NSDYN_OK);
        memcpy(yf[k], out.y, sizeof yf[k]);
        ck_assert_int_eq(sink.count, 0);
        p.d->info.destroy(inst);
    }
    for (int i = 0; i < 12; ++i)
        ck_assert_msg(fabs(yf[0][i] - yf[1][i]) <= 1e-12, "sphere y[%d]: %g vs %g", i, yf[0][i],
                      yf[1][i]);
    /* ladder */
    double yl[2][6];
    for (int k = 0; k < 2; ++k) {
        sys S;
        double y0[6];
        make_ladder(&S, 0.2, 60.0 * PI / 180.0, y0);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", 1e-3}, {"solver", k == 0 ? 0.0 : sic}, {"tol", 1e-10}};
        void *inst = create(&p, &sink, &host, ov, 3);
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 0.3), NSDYN_OK);
        ck_assert_int_eq(run_to(&p, inst, 0.3, NULL, NULL), NSDYN_OK);
        nsdyn_step_report out;
        ck_assert_int_eq(p.d->step(inst, 0.3 + 1e-3, &out), NSDYN_OK);
        memcpy(yl[k], out.y, sizeof yl[k]);
        ck_assert_int_eq(sink.count, 0);
        p.d->info.destroy(inst);
    }
    for (int i = 0; i < 6; ++i)
        ck_assert_msg(fabs(yl[0][i] - yl[1][i]) <= 1e-8, "ladder y[%d]: %g vs %g", i, yl[0][i],
                      yl[1][i]);
    /* a Siconos solve that does not converge is reported like the own one */
    {
        sys S;
        double y0[6];
        make_ladder(&S, 0.2, 60.0 * PI / 180.0, y0);
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"h", 1e-3}, {"solver", sic}, {"max_iter", 1}};
        void *inst = create(&p, &sink, &host, ov, 3);
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_OK);
        nsdyn_step_report out;
        ck_assert_int_eq(p.d->step(inst, 1.0, &out), NSDYN_ERROR);
        const char *msg = p.d->message(inst);
        printf("siconos, max_iter = 1: %s\n", msg);
        ck_assert_ptr_nonnull(strstr(msg, "siconos_nsgs"));
        ck_assert_ptr_nonnull(strstr(msg, "'floor'"));
        ck_assert_ptr_nonnull(strstr(msg, "'wall'"));
        p.d->info.destroy(inst);
    }
    /* planar contacts with friction cannot be mixed with spatial ones in
     * one Siconos problem */
    {
        sys S;
        double y0[6];
        make_ladder(&S, 0.2, 60.0 * PI / 180.0, y0);
        S.tdim[1] = 2;
        log_sink sink = {0};
        nsdyn_host host;
        override ov[] = {{"solver", sic}};
        void *inst = create(&p, &sink, &host, ov, 1);
        ck_assert_int_eq(p.d->setup(inst, &S.ode, 0.0, y0, 1.0), NSDYN_ERROR);
        ck_assert_ptr_nonnull(strstr(p.d->message(inst), "'floor'"));
        p.d->info.destroy(inst);
    }
    unload(&p);
}
END_TEST
#endif

/* ---- the one-contact solver on random problems ---------------------------- */

static double rnd(uint64_t *s, double a, double b) {
    *s ^= *s << 13; /* xorshift64 (Marsaglia 2003) */
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return a + (b - a) * (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* For a positive definite Delassus block the one-contact problem always
 * has a solution (Acary, Cadoux, Lemarechal & Malick 2011, "A formulation
 * of the linear discrete Coulomb friction problem via convex
 * optimization", ZAMM 91:155-175), so the case enumeration of moreau_fc.h
 * must find one, in one sweep, for every mu: random A = L L^T (diagonal of
 * L in [0.1, 1.1], condition number below ~1e4), b_n in [-1, 0.2], b_T in
 * [-2, 2]^2, mu in [0, 2] (strong normal-tangent coupling with large mu
 * gives close pairs of slip-angle roots, the hard case of the 3-D slide
 * search). The error is then rounding amplified by cond(A):
 * 1e4 * 1e-16 * O(10) <= 1e-10. */
START_TEST(test_local_solver_random) {
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    double max_err[3] = {0, 0, 0};
    for (int k = 0; k < 200000; ++k) {
        double L[9] = {0}, A[9];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j <= i; ++j) L[3 * i + j] = rnd(&seed, -1.0, 1.0);
        for (int i = 0; i < 3; ++i) L[4 * i] = fabs(L[4 * i]) + rnd(&seed, 0.1, 1.0);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                A[3 * i + j] =
                    L[3 * i] * L[3 * j] + L[3 * i + 1] * L[3 * j + 1] + L[3 * i + 2] * L[3 * j + 2];
        const double b[3] = {rnd(&seed, -1.0, 0.2), rnd(&seed, -2.0, 2.0), rnd(&seed, -2.0, 2.0)};
        const double mu[1] = {rnd(&seed, 0.0, 2.0)};
        for (uint32_t td = 1; td <= 2; ++td) {
            const uint32_t tdim[1] = {td};
            const mfc_problem prob = {1, A, b, mu, tdim, NULL, NULL};
            double P[3] = {0, 0, 0}, w[3];
            mfc_info info;
            const int r = mfc_nsgs(&prob, P, w, 1e-10, 5, &info);
            ck_assert_msg(info.local_fail == 0, "no case found: tdim %u mu %g", td, mu[0]);
            ck_assert_msg(r == 0 && info.iterations == 1, "tdim %u: error %g after %d sweeps", td,
                          info.error, info.iterations);
            max_err[td] = fmax(max_err[td], info.error);
        }
    }
    printf("one-contact solver, 200000 random problems: max error 2-D %.2e, 3-D %.2e\n", max_err[1],
           max_err[2]);
}
END_TEST

static Suite *moreau_suite(void) {
    Suite *s = suite_create("moreau");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_bouncing_ball);
    tcase_add_test(tc, test_incline);
    tcase_add_test(tc, test_sphere_rolling);
    tcase_add_test(tc, test_ladder_converges);
    tcase_add_test(tc, test_failure_not_converged);
    tcase_add_test(tc, test_failure_singular_delassus);
    tcase_add_test(tc, test_bad_params);
    tcase_add_test(tc, test_stop_and_restart);
    tcase_add_test(tc, test_local_solver_random);
#ifdef NSDYN_TEST_HAVE_SICONOS
    tcase_add_test(tc, test_siconos_agrees);
#endif
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(moreau_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
