/* LuGre friction: a bristle model with one internal state per slip direction.
 *
 * Source: P. C. Koop, C. Q. Wu, "Passive dynamic biped walking - Part I",
 * eqs. (14)-(16) (../shared/papers/passive-walker-hunt-crossley-lugre.txt),
 * after C. Canudas de Wit, H. Olsson, K. J. Astrom, P. Lischinsky, "A new
 * model for control of systems with friction", IEEE TAC 40 (1995) 419-425.
 * In 1-D, with slip v [m/s], normal force N [N] and bristle deflection z [m]:
 *   F  = -(sigma0 z + sigma1 z' + sigma2 v) N                    (14)
 *   z' = v - sigma0 |v| z / g(v)                                 (15)
 *   g(v) = mu_k + (mu_s - mu_k) exp(-(v / v_s)^2)                (16)
 * (the paper writes mu_c, the Coulomb level, for the kinetic coefficient
 * mu_k; one name across the friction laws, friction_common.h).
 * (15) prints [v]; its state-space form (A4)-(A5) shows the absolute value.
 * The paper's viscous term is omitted (sigma2 = 0 is the default); it is
 * added inside the bracket, like the other two, so the whole force scales
 * with N and vanishes continuously as a compliant contact unloads.
 *
 * Units: the paper's form is normalized by the normal load. g is a friction
 * coefficient (dimensionless), so sigma0 z is one too, and sigma0 is a
 * stiffness per unit normal load [1/m] = [N/m per N]; the tangential bristle
 * stiffness is sigma0 N [N/m]. Likewise sigma1 and sigma2 are in [s/m]
 * (damping sigma1 N, viscous coefficient sigma2 N, both in [N s/m]). The
 * paper prints "N/m" and "Ns/m" for sigma0 and sigma1 (Tables 5 and 7), the
 * units of the classical, unnormalized LuGre model; in (14), where the
 * bracket multiplies F_N, the same numbers act per newton of normal load
 * (the walker standing, N ~ 114 N: bristle stiffness 1.1e7 N/m).
 *
 * Sign convention: the same as the paper's. z has the sign of the slip in
 * steady sliding (z -> g(v)/sigma0 sign(v)), and F is the force on the body
 * whose contact point slips with velocity v, opposing it, as the ABI asks.
 *
 * Spatial slip (dim = 2): the isotropic vector extension, z in R^2,
 *   z' = v - sigma0 |v| z / g(|v|),  F = -(sigma0 z + sigma1 z' + sigma2 v) N,
 * which reduces to (14)-(16) when v and z lie on one axis. n_states(dim) =
 * dim: the host carries z per contact in the ODE state and starts it at 0.
 * When the contact is open (N = 0) the host does not call force() and holds
 * z (rate 0); force() itself is safe at N = 0, since g does not depend on N.
 * (The paper keeps integrating (15) during swing and reports that resetting
 * z at separation made no discernible difference.)
 *
 * Properties (tests/test_friction_dynamic.c checks each):
 *  - bounded state: d|z|^2/dt / 2 = z.v - sigma0 |v| |z|^2 / g
 *    <= |v| |z| (1 - sigma0 |z| / g) < 0 for |z| > g/sigma0, and g <= mu_s,
 *    so |z| <= mu_s / sigma0 holds for all time when it holds at the start
 *    (z = 0): |sigma0 z N| <= mu_s N. With |z'| <= |v| (1 + mu_s/mu_k) the
 *    whole force obeys |F| <= [mu_s + (sigma1 (1 + mu_s/mu_k) + sigma2) |v|] N.
 *  - steady sliding: z' = 0 at z = g(|v|) v / (sigma0 |v|), F = -(g + sigma2 |v|) N v/|v|;
 *    bounds(): static mu_s N (the largest bristle force), kinetic mu_k N.
 *  - dissipation: with the storage S = sigma0 N |z|^2 / 2 and k = sigma0 |v| / g,
 *    -F.v - dS/dt = N [sigma1 |z'|^2 + k sigma0 |z|^2 + sigma1 k z.z' + sigma2 |v|^2].
 *    Writing z = a (g/sigma0) e (|e| = 1, a = sigma0 |z| / g) and c = e.v/|v|,
 *    the bracket without sigma2 is sigma1 |v|^2 (1 - a c) + a^2 g |v|, which
 *    can be negative only if a c > 1, i.e. while |z| exceeds its steady value
 *    g/sigma0 (after g has dropped). So the law is passive at every instant
 *    (Olsson et al., Eur. J. Control 4 (1998) 176-195: sigma1 |v| < 4 g)
 *    whenever sigma1 |v| <= 4 mu_k, or, since a <= mu_s/g, whenever
 *    sigma1 |v| <= mu_s^2 / (mu_s - mu_k) if mu_s <= 2 mu_k; unconditionally
 *    if mu_s = mu_k. Barabanov and Ortega (IEEE TAC 45 (2000) 830-832) give
 *    the condition for passivity of the whole operator v -> F. With the
 *    paper's values (Table 7) the instantaneous condition holds for
 *    |v| <= 2.9 mm/s. Above that, a bristle loaded near mu_s/sigma0 by slow
 *    creep and then slipped fast (v >> v_s within a few um) returns part of
 *    its stored energy: in the test's creep-then-jump cycle (N = 100 N,
 *    0.05 m/s) 2e-4 J come back, against 0.30 J dissipated over the cycle.
 *    Every closed cycle measured dissipates.
 *  - stiffness: the state relaxes at the rate sigma0 |v| / g (3.3e5 1/s at
 *    1 m/s with Table 7's values), so runs with this law want bdf.
 *
 * create() refuses mu_k > mu_s. mu_k must be positive (g >= mu_k is a
 * divisor in (15)); v_s > 0 is declared as the parameter's range.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "friction_common.h"
#include "nsdyn/nsdyn.h"

typedef struct lugre {
    double sigma0, sigma1, sigma2; /* per unit normal load: [1/m], [s/m], [s/m] */
    double mu_s, mu_k;             /* static and kinetic (Coulomb) coefficients */
    double v_s;                    /* Stribeck velocity [m/s] */
} lugre;

/* Defaults: the walker paper's Table 7 (validation): sigma0 = 1e5,
 * sigma1 = 2 sqrt(sigma0) = 632.456, mu_s = 0.38, mu_k = 0.30, v_s = 1e-4 m/s. */
static const nsdyn_param_decl lugre_params[] = {
    NSDYN_REAL_F(
        "sigma0", "1/m", 1e5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
        "bristle stiffness per unit normal load (stiffness sigma0 N in N/m); walker Table 7: 1e5"),
    NSDYN_REAL("sigma1", "s/m", 632.4555320336759, 0.0, HUGE_VAL,
               "bristle damping per unit normal load (damping sigma1 N in N s/m); Table 7: 2 "
               "sqrt(sigma0)"),
    NSDYN_REAL("sigma2", "s/m", 0.0, 0.0, HUGE_VAL,
               "viscous friction per unit normal load: adds -sigma2 N v (the paper omits it: 0)"),
    FRICTION_MU_S(0.38, NSDYN_PARAM_MIN_EXCLUSIVE,
                  "static friction coefficient: largest bristle force mu_s N (breakaway)"),
    FRICTION_MU_K(
        0.30, NSDYN_PARAM_MIN_EXCLUSIVE,
        "kinetic (Coulomb) friction coefficient: sliding force mu_k N well above v_s; > 0 "
        "(divisor); the paper's mu_c"),
    NSDYN_REAL_F("v_s", "m/s", 1e-4, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "Stribeck velocity: g = mu_k + (mu_s - mu_k) exp(-(v/v_s)^2)"),
};

static const nsdyn_param_field lugre_fields[] = {
    NSDYN_FIELD(lugre, sigma0), NSDYN_FIELD(lugre, sigma1), NSDYN_FIELD(lugre, sigma2),
    NSDYN_FIELD(lugre, mu_s),   NSDYN_FIELD(lugre, mu_k),   NSDYN_FIELD(lugre, v_s)};

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const lugre *p = params;
    if (friction_mu_check(p->mu_s, p->mu_k, err, len) != 0) return NULL;
    return friction_copy(p, sizeof *p, err, len);
}

static const nsdyn_param_fields lugre_table = NSDYN_PARAM_FIELDS(lugre, lugre_fields, create);

/* mu_c, the former name of mu_k, and the parameter struct */
static const void *extension(const char *name) { return friction_extension(name, &lugre_table, 1); }

static void destroy(void *inst) { free(inst); }

/* One bristle deflection per slip direction. */
static size_t n_states(void *inst, uint32_t dim) {
    (void)inst;
    return dim;
}

/* The states are the bristle deflections z along each tangent [m] (the
 * bracket of (14) adds sigma0 z, dimensionless, so z is a length). */
static nsdyn_status state_channels(void *inst, uint32_t dim, nsdyn_channel *out) {
    (void)inst;
    static const nsdyn_channel z[2] = {
        {"z1", "m", "LuGre bristle deflection z along tangent 1"},
        {"z2", "m", "LuGre bristle deflection z along tangent 2"},
    };
    out[0] = z[0];
    if (dim == 2) out[1] = z[1]; /* n_states(dim) = dim, and dim is 1 or 2 */
    return NSDYN_OK;
}

static nsdyn_status force(void *inst, const nsdyn_friction_input *in, double *F, double *rate) {
    const lugre *l = inst;
    if (!in->state) return NSDYN_ERROR; /* the host always passes n_states(dim) states */
    uint32_t dim = in->dim == 2 ? 2 : 1;
    double N = in->normal_force > 0.0 ? in->normal_force : 0.0;
    double s2 = in->slip[0] * in->slip[0];
    if (dim == 2) s2 += in->slip[1] * in->slip[1];
    double s = sqrt(s2), r = s / l->v_s;
    double g = l->mu_k + (l->mu_s - l->mu_k) * exp(-r * r); /* (16), g >= mu_k > 0 */
    double k = l->sigma0 * s / g;                           /* relaxation rate of (15) */
    for (uint32_t i = 0; i < dim; ++i) {
        double z = in->state[i], v = in->slip[i];
        double zdot = v - k * z;                                        /* (15) */
        F[i] = -(l->sigma0 * z + l->sigma1 * zdot + l->sigma2 * v) * N; /* (14) */
        if (rate) rate[i] = zdot;
    }
    return NSDYN_OK;
}

/* The bristle force sigma0 |z| N never exceeds mu_s N; steady sliding well
 * above v_s gives mu_k N. */
static nsdyn_status bounds(void *inst, double normal_force, double *static_bound,
                           double *kinetic_bound) {
    const lugre *l = inst;
    *static_bound = l->mu_s * normal_force;
    *kinetic_bound = l->mu_k * normal_force;
    return NSDYN_OK;
}

static const nsdyn_friction_law lugre_law = {
    .info = NSDYN_FRICTION_INFO(
            .id = "lugre", .version = "1.0.0",
            .summary =
                "LuGre bristle friction (Stribeck, pre-sliding), state z per contact, 1-D and 2-D",
            NSDYN_PARAMS(lugre_params),
            .provides =
                NSDYN_CAP_FRICTION_STATEFUL | NSDYN_CAP_FRICTION_SMOOTH | NSDYN_CAP_FRICTION_2D,
            .destroy = destroy),
    .n_states = n_states,
    .force = force,
    .bounds = bounds,
    .state_channels = state_channels,
    .extension = extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    return index == 0 ? &lugre_law.info : NULL;
}
