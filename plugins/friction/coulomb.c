/* Coulomb friction, set-valued and regularized, in 1-D and 2-D (spatial) slip.
 *
 * Set-valued law (coulomb): with slip u_t != 0 the force is
 *   F = -mu_k N u_t / |u_t|,
 * at u_t = 0 any force with |F| <= mu_s N (the friction disc, or the
 * interval [-mu_s N, mu_s N] in 1-D). The rigid schemes use its projection
 *   Proj(tau) = tau                     if |tau| <= mu_s N
 *             = mu_s N tau / |tau|      otherwise,
 * the operator of tau = Proj(tau + rho u_t) (curb-wheel paper, (31)-(35)).
 *
 * Regularized law (coulomb_regularized): a single-valued force of slip that
 * tends to the set-valued law as the width eps -> 0:
 *   sqrt:  F = -mu_k N u_t / sqrt(|u_t|^2 + eps^2)          (C-infinity)
 *   tanh:  F = -mu_k N tanh(|u_t| / eps) u_t / |u_t|
 *   linear:F = -mu_k N u_t / max(|u_t|, eps)  (viscous below eps, saturated above)
 * All three satisfy |F| <= mu_k N and F . u_t <= 0 (they never do positive
 * work), and |F| reaches 99 % of mu_k N at |u_t| = 7.0 eps (sqrt), 2.65 eps
 * (tanh) and 1.0 eps (linear). Near zero slip each is a viscous law with
 * damping mu_k N / eps, which makes the ODE stiff as eps shrinks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "friction_common.h"
#include "nsdyn/friction_batch.h"
#include "nsdyn/nsdyn.h"

/* The parameters, filled by the host (plugin.h NSDYN_EXT_PARAM_FIELDS). */
typedef struct coulomb {
    double mu_s, mu_k;
    double eps; /* regularization width [m/s]; 0 for the set-valued law */
    int shape;  /* 0 sqrt, 1 tanh, 2 linear */
} coulomb;

static const char *const shapes[] = {"sqrt", "tanh", "linear", NULL};

#define MU_DECLS                                                                            \
    FRICTION_MU_S(0.5, 0u, "static friction coefficient: stick holds while |F| <= mu_s N"), \
        FRICTION_MU_K(0.5, 0u, "kinetic friction coefficient: slip force mu_k N")

static const nsdyn_param_decl coulomb_params[] = {MU_DECLS};

static const nsdyn_param_decl regularized_params[] = {
    MU_DECLS,
    NSDYN_REAL_F("eps", "m/s", 1e-3, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "regularization width: slip speed over which the force builds up"),
    NSDYN_CHOICE("shape", 0, shapes,
                 "regularizing function: sqrt (u/sqrt(u^2+eps^2)), tanh, or linear (saturated)"),
};

#define MU_FIELDS NSDYN_FIELD(coulomb, mu_s), NSDYN_FIELD(coulomb, mu_k)
static const nsdyn_param_field coulomb_fields[] = {MU_FIELDS};
static const nsdyn_param_field regularized_fields[] = {MU_FIELDS, NSDYN_FIELD(coulomb, eps),
                                                       NSDYN_FIELD(coulomb, shape)};

/* The set-valued law's eps stays 0 (the host zeroes the struct). */
static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const coulomb *p = params;
    if (friction_mu_check(p->mu_s, p->mu_k, err, len) != 0) return NULL;
    return friction_copy(p, sizeof *p, err, len);
}

static const nsdyn_param_fields coulomb_table = NSDYN_PARAM_FIELDS(coulomb, coulomb_fields, create);
static const nsdyn_param_fields regularized_table =
    NSDYN_PARAM_FIELDS(coulomb, regularized_fields, create);

static const void *coulomb_extension(const char *name) {
    return friction_extension(name, &coulomb_table, 0);
}

static void destroy(void *inst) { free(inst); }

static size_t no_states(void *inst, uint32_t dim) {
    (void)inst;
    (void)dim;
    return 0;
}

/* |u_t|^2: plain squares (|u_t| < 1e150 m/s), no hypot() on the hot path. */
static double slip_speed2(const nsdyn_friction_input *in) {
    double s2 = in->slip[0] * in->slip[0];
    if (in->dim == 2) s2 += in->slip[1] * in->slip[1];
    return s2;
}
static double slip_speed(const nsdyn_friction_input *in) {
    return in->dim == 2 ? sqrt(slip_speed2(in)) : fabs(in->slip[0]);
}

/* F = -s(|u|) u/|u| written as F = -g u with g = s(|u|)/|u| finite at 0. */
static nsdyn_status apply(const nsdyn_friction_input *in, double gain, double *force) {
    force[0] = -gain * in->slip[0];
    if (in->dim == 2) force[1] = -gain * in->slip[1];
    return NSDYN_OK;
}

static nsdyn_status force_set_valued(void *inst, const nsdyn_friction_input *in, double *force,
                                     double *rate) {
    (void)rate;
    const coulomb *c = inst;
    double s = slip_speed(in);
    /* At exact stick the force is set-valued; the host resolves it. */
    return apply(in, s > 0 ? c->mu_k * in->normal_force / s : 0.0, force);
}

/* The tanh and linear shapes, out of line: force_regularized() is then
 * short for the sqrt shape (no switch, one saved register instead of
 * three for the tanh() call). */
static __attribute__((noinline)) nsdyn_status
force_shaped(const coulomb *c, const nsdyn_friction_input *in, double F, double *force) {
    double s = slip_speed(in), gain;
    if (c->shape == 1)
        gain = s > 1e-8 * c->eps ? F * tanh(s / c->eps) / s : F / c->eps;
    else
        gain = F / fmax(s, c->eps);
    return apply(in, gain, force);
}

static nsdyn_status force_regularized(void *inst, const nsdyn_friction_input *in, double *force,
                                      double *rate) {
    (void)rate;
    const coulomb *c = inst;
    double F = c->mu_k * in->normal_force;
    if (c->shape != 0) return force_shaped(c, in, F, force);
    return apply(in, F / sqrt(slip_speed2(in) + c->eps * c->eps), force);
}

/* The tanh and linear shapes in a batch: force_shaped() contact by
 * contact, out of line, so the sqrt loop below calls nothing. */
static __attribute__((noinline)) nsdyn_status forces_shaped(const coulomb *c,
                                                            const nsdyn_friction_batch *b) {
    for (size_t k = 0; k < b->n; ++k) {
        double *f = b->force + 3 * k;
        if (f[0] <= 0.0) continue;
        const double *u = b->eval[k].u;
        nsdyn_friction_input in = {.dim = b->contacts[k].tangent_dim == 2 ? 2u : 1u,
                                   .normal_force = f[0]};
        in.slip[0] = u[1];
        in.slip[1] = in.dim == 2 ? u[2] : 0.0;
        force_shaped(c, &in, c->mu_k * f[0], f + 1);
    }
    return NSDYN_OK;
}

/* The forces of all contacts in one call (nsdyn/friction_batch.h). The
 * sqrt shape is force_regularized()'s arithmetic in its order, on the
 * slip read where the system wrote it (no input struct, no call per
 * contact): bit for bit force()'s (tests/test_friction_batch.c, `nsdyn
 * check`). eps^2 is the same product force() forms on every call. */
static nsdyn_status forces_regularized(void *inst, const nsdyn_friction_batch *b) {
    const coulomb *c = inst;
    if (c->shape != 0) return forces_shaped(c, b);
    const double mu_k = c->mu_k, eps2 = c->eps * c->eps;
    for (size_t k = 0; k < b->n; ++k) {
        double *f = b->force + 3 * k;
        const double N = f[0];
        if (N <= 0.0) continue; /* unloaded: the host's zeros stand */
        const double *u = b->eval[k].u;
        const int two = b->contacts[k].tangent_dim == 2;
        double s2 = u[1] * u[1]; /* slip_speed2() */
        if (two) s2 += u[2] * u[2];
        const double gain = mu_k * N / sqrt(s2 + eps2);
        f[1] = -gain * u[1]; /* apply() */
        if (two) f[2] = -gain * u[2];
    }
    return NSDYN_OK;
}

static const nsdyn_friction_forces regularized_forces = {
    .struct_size = sizeof regularized_forces,
    .forces = forces_regularized,
};

/* The host's parameter block and the all-contacts force call. */
static const void *regularized_extension(const char *name) {
    if (name && strcmp(name, NSDYN_EXT_FRICTION_FORCES) == 0) return &regularized_forces;
    return friction_extension(name, &regularized_table, 0);
}

static nsdyn_status bounds(void *inst, double normal_force, double *static_bound,
                           double *kinetic_bound) {
    const coulomb *c = inst;
    *static_bound = c->mu_s * normal_force;
    *kinetic_bound = c->mu_k * normal_force;
    return NSDYN_OK;
}

static const nsdyn_friction_law coulomb_law = {
    .info = NSDYN_FRICTION_INFO(
            .id = "coulomb", .version = "1.0.0",
            .summary =
                "set-valued Coulomb friction (static/kinetic), 1-D and 2-D slip, with projection",
            NSDYN_PARAMS(coulomb_params),
            .provides = NSDYN_CAP_FRICTION_SET_VALUED | NSDYN_CAP_FRICTION_2D, .destroy = destroy),
    .n_states = no_states,
    .force = force_set_valued,
    .bounds = bounds,
    .extension = coulomb_extension,
};

static const nsdyn_friction_law regularized_law = {
    .info = NSDYN_FRICTION_INFO(
            .id = "coulomb_regularized", .version = "1.0.0",
            .summary =
                "smooth Coulomb friction mu_k N u/sqrt(u^2+eps^2) (or tanh, linear), 1-D and 2-D",
            NSDYN_PARAMS(regularized_params),
            .provides = NSDYN_CAP_FRICTION_SMOOTH | NSDYN_CAP_FRICTION_2D, .destroy = destroy),
    .n_states = no_states,
    .force = force_regularized,
    .bounds = bounds,
    .extension = regularized_extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    switch (index) {
        case 0: return &coulomb_law.info;
        case 1: return &regularized_law.info;
        default: return NULL;
    }
}
