/* Stribeck friction: static friction decaying to Coulomb friction with slip
 * speed, regularized at zero slip, in 1-D and 2-D (spatial) slip. Stateless.
 *
 * With slip u_t [m/s] (|u_t| its magnitude) and normal force N [N]:
 *   g(|u|) = mu_k + (mu_s - mu_k) exp(-(|u| / v_s)^delta)
 *   F = -[g(|u|) / sqrt(|u|^2 + eps^2) + sigma2] N u_t
 * g is the steady-state friction curve of the LuGre law (walker paper,
 * ../shared/papers/passive-walker-hunt-crossley-lugre.txt, eq. (16), there
 * with delta = 2), without the bristle state; the exponent delta is the
 * usual generalization of the Stribeck curve (B. Armstrong-Helouvry,
 * P. Dupont, C. Canudas de Wit, "A survey of models, analysis tools and
 * compensation methods for the control of machines with friction",
 * Automatica 30 (1994) 1083-1138): delta = 2 Gaussian, delta = 1
 * exponential (Tustin). The factor u/sqrt(u^2 + eps^2) is the sqrt
 * regularization of coulomb_regularized (plugins/friction/coulomb.c): the
 * force is single-valued, continuous for any delta > 0 (C-infinity for
 * delta = 2), zero at zero slip, and a viscous law of damping mu_s N / eps
 * near it (stiff as eps shrinks). For
 * the Stribeck peak to show, eps must be well below v_s: at |u| = v_s the
 * factor is v_s / sqrt(v_s^2 + eps^2) (0.995 with the defaults).
 * The viscous term is per unit normal load, like LuGre's sigma2 in
 * plugins/friction/lugre.c, so the whole force scales with N.
 *
 * Properties (tests/test_friction_dynamic.c):
 *  - F is antiparallel to u_t, so F.u_t <= 0: it never does positive work;
 *  - |F| <= (mu_s + sigma2 |u|) N, and |F| <= mu_k N + sigma2 N |u| +
 *    (mu_s - mu_k) N exp(-(|u|/v_s)^delta): it tends to (mu_k + sigma2 |u|) N
 *    well above v_s;
 *  - at |u| = v_s: |F| = [mu_k + (mu_s - mu_k)/e] N v_s/sqrt(v_s^2 + eps^2)
 *    + sigma2 N v_s, for every delta.
 * bounds(): static mu_s N, kinetic mu_k N. create() refuses mu_k > mu_s.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "friction_common.h"
#include "nsdyn/nsdyn.h"

typedef struct stribeck {
    double mu_s, mu_k;
    double v_s;    /* Stribeck velocity [m/s] */
    double delta;  /* Stribeck exponent */
    double eps;    /* regularization width [m/s] */
    double sigma2; /* viscous coefficient per unit normal load [s/m] */
} stribeck;

/* Defaults: mu_s, mu_k, v_s of the walker paper's Table 7; delta = 2 as in
 * its (16); eps = v_s / 10. */
static const nsdyn_param_decl stribeck_params[] = {
    FRICTION_MU_S(0.38, 0u,
                  "static friction coefficient: the force at zero slip speed (before "
                  "regularization)"),
    FRICTION_MU_K(0.30, 0u, "kinetic (Coulomb) friction coefficient: the force well above v_s"),
    NSDYN_REAL_F("v_s", "m/s", 1e-4, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "Stribeck velocity: mu = mu_k + (mu_s - mu_k) exp(-(|u|/v_s)^delta)"),
    NSDYN_REAL_F("delta", "1", 2.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "Stribeck exponent: 2 Gaussian (walker paper (16)), 1 exponential (Tustin)"),
    NSDYN_REAL_F(
        "eps", "m/s", 1e-5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
        "regularization width at zero slip (factor u/sqrt(u^2+eps^2)); keep it well below v_s"),
    NSDYN_REAL("sigma2", "s/m", 0.0, 0.0, HUGE_VAL,
               "viscous friction per unit normal load: adds -sigma2 N u"),
};

static const nsdyn_param_field stribeck_fields[] = {
    NSDYN_FIELD(stribeck, mu_s),  NSDYN_FIELD(stribeck, mu_k), NSDYN_FIELD(stribeck, v_s),
    NSDYN_FIELD(stribeck, delta), NSDYN_FIELD(stribeck, eps),  NSDYN_FIELD(stribeck, sigma2)};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const stribeck *p = params;
    if (friction_mu_check(p->mu_s, p->mu_k, err, len) != 0) return NULL;
    return friction_copy(p, sizeof *p, err, len);
}

static const nsdyn_param_fields stribeck_table =
    NSDYN_PARAM_FIELDS(stribeck, stribeck_fields, create);

/* mu_c, the former name of mu_k, and the parameter struct */
static const void *extension(const char *name) {
    return friction_extension(name, &stribeck_table, 1);
}

static void destroy(void *inst) { free(inst); }

static size_t no_states(void *inst, uint32_t dim) {
    (void)inst;
    (void)dim;
    return 0;
}

static nsdyn_status force(void *inst, const nsdyn_friction_input *in, double *F, double *rate) {
    (void)rate;
    const stribeck *c = inst;
    double N = in->normal_force > 0.0 ? in->normal_force : 0.0;
    double s2 = in->slip[0] * in->slip[0];
    if (in->dim == 2) s2 += in->slip[1] * in->slip[1];
    double r = sqrt(s2) / c->v_s;
    /* exp(-r^2) without pow() for the default exponent. */
    double decay = c->delta == 2.0 ? exp(-r * r) : exp(-pow(r, c->delta));
    double g = c->mu_k + (c->mu_s - c->mu_k) * decay;
    double gain = (g / sqrt(s2 + c->eps * c->eps) + c->sigma2) * N;
    F[0] = -gain * in->slip[0];
    if (in->dim == 2) F[1] = -gain * in->slip[1];
    return NSDYN_OK;
}

static nsdyn_status bounds(void *inst, double normal_force, double *static_bound,
                           double *kinetic_bound) {
    const stribeck *c = inst;
    *static_bound = c->mu_s * normal_force;
    *kinetic_bound = c->mu_k * normal_force;
    return NSDYN_OK;
}

static const nsdyn_friction_law stribeck_law = {
    .info = NSDYN_FRICTION_INFO(.id = "stribeck", .version = "1.0.0",
                                .summary = "Stribeck friction: static decaying to Coulomb with "
                                           "slip speed, regularized, 1-D and 2-D",
                                NSDYN_PARAMS(stribeck_params),
                                .provides = NSDYN_CAP_FRICTION_SMOOTH | NSDYN_CAP_FRICTION_2D,
                                .destroy = destroy),
    .n_states = no_states,
    .force = force,
    .bounds = bounds,
    .extension = extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    return index == 0 ? &stribeck_law.info : NULL;
}
