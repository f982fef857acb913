/* Compliant contact laws: the normal force from the penetration and its rate.
 *
 * The host passes the gap g [m] (negative when the bodies overlap) and its
 * rate g' [m/s]. Every law here works with the penetration and its rate,
 *   delta = -g [m],   delta' = -g' [m/s]   (walker paper (10)-(11): h, h'),
 * gives no force while delta <= 0, and never pulls (F >= 0). The force is a
 * function of the state, so the problem stays an ODE that every integrator
 * runs (rk4, dopri5, bdf); stiffness grows with k, which is why the configs
 * use bdf.
 *
 * hunt_crossley  F = k spow(delta, n) + c spow(delta, p) spow(delta', q),
 *                F = max(F, 0)
 *   P. C. Koop, C. Q. Wu, "Passive dynamic biped walking - Part I", eq. (12)
 *   with the clamp (13) (../shared/papers/passive-walker-hunt-crossley-lugre.txt),
 *   after K. H. Hunt, F. R. E. Crossley, J. Appl. Mech. 42 (1975) 440-445.
 *   spow(x, e) = sign(x) |x|^e keeps the sign of the rate, so the damping
 *   term resists compression (delta' > 0) and expansion (delta' < 0) alike.
 *   Naming of the exponents: here p acts on the penetration and q on its
 *   rate. The paper prints (12) as k_s h^n + k_d h'^p h^q with "n = p = 3/2,
 *   q = 1"; taken literally that is k_d h'^{3/2} h, whereas Hunt and
 *   Crossley's damping is k_d h^{3/2} h' (validation-targets.md, walker
 *   note). With the exponents named by what they act on, the paper's values
 *   n = p = 3/2, q = 1 give exactly Hunt and Crossley's form
 *   F = k delta^{3/2} + c delta^{3/2} delta', and they are the defaults
 *   (c in N s/m^{5/2}; Table 7 prints k_d's unit without the s). With
 *   p = n, q = 1 the force is k delta^n (1 + (c/k) delta'), which vanishes
 *   at delta = 0, so contact starts without a force step. For this choice
 *   the clamp (13) does not act in a single impact of a body that nothing
 *   but gravity pulls towards or away from the ground (delta' cannot fall
 *   through -k/c, where delta'' >= 0; see tests/test_compliant_contact.c);
 *   it does act for other exponents (p < n, e.g. the linear
 *   spring-damper) and in multibody systems.
 *   Special cases: n = 1, p = 0, q = 1 is the linear spring-damper; n = 1,
 *   p = 1, q = 0 with c = mu_n k is the bi-stiffness law below (apart from
 *   delta' = 0, where spow(0, 0) = 0).
 *
 * hertz          F = k delta^{3/2} (1 + (3/2) alpha delta')
 *   Hertz's sphere-plane law with Hunt and Crossley's damping
 *   lambda = (3/2) alpha k (Hunt & Crossley 1975; Marhefka & Orin, IEEE SMC-A
 *   29 (1999) 566-572): the hunt_crossley law with n = p = 3/2,
 *   q = 1, c = (3/2) alpha k. alpha [s/m] is Hunt and Crossley's slope of
 *   the coefficient of restitution, e ~ 1 - alpha v_in for alpha v_in << 1.
 *   The exact relation (no gravity during contact) is
 *   G(-e z) = G(z), G(z) = z - ln(1 + z), z = (3/2) alpha v_in.
 *   For a sphere of radius R on a rigid plane, k = (4/3) E* sqrt(R).
 *
 * spring_damper  F = max(k delta + c delta', 0)
 *   The linear (Kelvin-Voigt) contact: hunt_crossley with n = 1, p = 0,
 *   q = 1. The damping term makes the force jump to c delta' at impact, and
 *   the clamp ends the contact where k delta + c delta' = 0, before delta
 *   returns to zero (Schwager & Poeschel, Granular Matter 9 (2007) 465-469).
 *
 * bistiffness    F = k (1 + mu_n) delta   while delta' >= 0 (compression)
 *                F = k (1 - mu_n) delta   while delta' <  0 (expansion)
 *   A. Barjau, J. A. Batlle, "Percussion-Centre impact analysis of a rimless
 *   wheel", Section 5, eq. (5.1)
 *   (../shared/papers/rimless-wheel-percussion-centre-impact.txt): a linear
 *   spring k in parallel with a dry-friction damper whose force is mu_n
 *   times the spring force, mu_n < 1, no permanent indentation. In one
 *   compression-expansion cycle from impact speed v0 (no other force) the
 *   spring stores (1/2) k (1 + mu_n) delta_max^2 = (1/2) m v0^2 and returns
 *   (1/2) k (1 - mu_n) delta_max^2, so the rebound speed is
 *   v0 sqrt((1 - mu_n)/(1 + mu_n)) and the energy lost is
 *   (1/2) m v0^2 * 2 mu_n/(1 + mu_n). The force is discontinuous in the
 *   state at delta' = 0 (a jump of 2 mu_n k delta_max): adaptive integrators
 *   cross it by rejecting steps; a fixed-step rk4 loses first order there.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nsdyn/nsdyn.h"

typedef enum law_kind { LAW_HUNT_CROSSLEY, LAW_HERTZ, LAW_SPRING_DAMPER, LAW_BISTIFFNESS } law_kind;

typedef struct compliant {
    law_kind kind;
    /* General form F = k spow(delta, n) + c spow(delta, p) spow(delta', q);
     * every law but bistiffness is stored in it. */
    double k, c, n, p, q;
    double alpha;         /* hertz: Hunt and Crossley's slope [s/m] */
    double mu_n;          /* bistiffness: normal damper friction [1] */
    double k_comp, k_exp; /* bistiffness: k (1 + mu_n), k (1 - mu_n) [N/m] */
} compliant;

/* ---- parameter declarations ------------------------------------------- */

static const nsdyn_param_decl hunt_crossley_params[] = {
    NSDYN_REAL_F("k", "N/m^n", 9.392e5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "stiffness k of the elastic term k delta^n (default: walker paper Table 7 k_s)"),
    NSDYN_REAL("c", "N s^q/m^(p+q)", 1.6879e7, 0.0, HUGE_VAL,
               "damping c of the term c delta^p delta'^q (default: walker paper Table 7 k_d)"),
    NSDYN_REAL_F("n", "1", 1.5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "exponent of the penetration in the elastic term (3/2 Hertz, 1 linear)"),
    NSDYN_REAL("p", "1", 1.5, 0.0, HUGE_VAL,
               "exponent of the penetration in the damping term (Hunt-Crossley: p = n)"),
    NSDYN_REAL("q", "1", 1.0, 0.0, HUGE_VAL,
               "exponent of the penetration rate in the damping term, sign kept (usual: 1)"),
};

static const nsdyn_param_decl hertz_params[] = {
    NSDYN_REAL_F("k", "N/m^(3/2)", 1e6, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "Hertz stiffness; (4/3) E* sqrt(R) for a sphere of radius R on a plane"),
    NSDYN_REAL("alpha", "s/m", 0.1, 0.0, HUGE_VAL,
               "Hunt-Crossley damping: restitution e ~ 1 - alpha v_in at impact speed v_in"),
};

static const nsdyn_param_decl spring_damper_params[] = {
    NSDYN_REAL_F("k", "N/m", 1e5, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "spring stiffness k of F = k delta + c delta'"),
    NSDYN_REAL("c", "N s/m", 50.0, 0.0, HUGE_VAL,
               "damping coefficient c of F = k delta + c delta' (force clamped at zero)"),
};

static const nsdyn_param_decl bistiffness_params[] = {
    NSDYN_REAL_F("k", "N/m", 1e3, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "spring stiffness k of (5.1); default: the paper's Section 5 example, 1 kN/m"),
    NSDYN_REAL_F("mu_n", "1", 0.2, 0.0, 1.0, NSDYN_PARAM_MAX_EXCLUSIVE,
                 "normal damper friction: stiffness k(1+mu_n) compressing, k(1-mu_n) expanding"),
};

/* ---- create / destroy -------------------------------------------------- */

/* The parameters, filled by the host into a compliant struct (plugin.h
 * NSDYN_EXT_PARAM_FIELDS): each law's declared parameters at their members,
 * every other member 0. */
#define C compliant
static const nsdyn_param_field hunt_crossley_fields[] = {
    NSDYN_FIELD(C, k), NSDYN_FIELD(C, c), NSDYN_FIELD(C, n), NSDYN_FIELD(C, p), NSDYN_FIELD(C, q)};
static const nsdyn_param_field hertz_fields[] = {NSDYN_FIELD(C, k), NSDYN_FIELD(C, alpha)};
static const nsdyn_param_field spring_damper_fields[] = {NSDYN_FIELD(C, k), NSDYN_FIELD(C, c)};
static const nsdyn_param_field bistiffness_fields[] = {NSDYN_FIELD(C, k), NSDYN_FIELD(C, mu_n)};
#undef C

/* The instance: a copy of the filled struct (the host's block lives only
 * during create()), of law `kind`. */
static compliant *keep(const void *params, law_kind kind, char *err, size_t len) {
    compliant *law = malloc(sizeof *law);
    if (!law) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *law = *(const compliant *)params;
    law->kind = kind;
    return law;
}

/* Single-parameter checks repeat the declared ranges: the host has applied
 * them already, but create() may be called by other hosts and tests. */
static int check_stiffness(const char *name, double k, const char *unit, char *err, size_t len) {
    if (k > 0 && isfinite(k)) return 1;
    snprintf(err, len,
             "%s = %g %s: the stiffness must be positive and finite (a contact that does "
             "not push back cannot stop the bodies from passing through each other)",
             name, k, unit);
    return 0;
}

static int check_nonnegative(const char *name, double x, const char *what, char *err, size_t len) {
    if (x >= 0 && isfinite(x)) return 1;
    snprintf(err, len, "%s = %g: %s must be zero or positive and finite", name, x, what);
    return 0;
}

static void *create_hunt_crossley(const void *params, const nsdyn_host *host, char *err,
                                  size_t len) {
    (void)host;
    const compliant *v = params;
    double k = v->k, c = v->c, n = v->n, p = v->p, q = v->q;
    if (!check_stiffness("k", k, "N/m^n", err, len)) return NULL;
    if (!check_nonnegative("c", c, "the damping coefficient", err, len)) return NULL;
    if (!(n > 0) || !isfinite(n)) {
        snprintf(err, len,
                 "n = %g: the elastic exponent must be positive (n = 3/2 Hertz, n = 1 linear); "
                 "with n <= 0 the force would not grow with the penetration",
                 n);
        return NULL;
    }
    if (!check_nonnegative("p", p, "the damping's penetration exponent", err, len)) return NULL;
    if (!check_nonnegative("q", q, "the damping's rate exponent", err, len)) return NULL;
    /* With p = q = 0 the damping term is c sign(delta'): a force of constant
     * size c that neither fades with the penetration nor with the rate. */
    if (c > 0 && p == 0 && q == 0) {
        snprintf(err, len,
                 "p = 0 and q = 0 with c = %g: the damping term c sign(delta') would be a "
                 "constant force step of %g N at any penetration and rate; use q > 0 "
                 "(viscous, usual q = 1) or p > 0",
                 c, c);
        return NULL;
    }
    return keep(params, LAW_HUNT_CROSSLEY, err, len);
}

static void *create_hertz(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const compliant *v = params;
    if (!check_stiffness("k", v->k, "N/m^(3/2)", err, len)) return NULL;
    if (!check_nonnegative("alpha", v->alpha, "the Hunt-Crossley damping slope", err, len))
        return NULL;
    compliant *law = keep(params, LAW_HERTZ, err, len);
    if (!law) return NULL;
    law->c = 1.5 * law->alpha * law->k; /* Hunt & Crossley's lambda = (3/2) alpha k [N s/m^{5/2}] */
    law->n = law->p = 1.5;
    law->q = 1.0;
    return law;
}

static void *create_spring_damper(const void *params, const nsdyn_host *host, char *err,
                                  size_t len) {
    (void)host;
    const compliant *v = params;
    if (!check_stiffness("k", v->k, "N/m", err, len)) return NULL;
    if (!check_nonnegative("c", v->c, "the damping coefficient", err, len)) return NULL;
    compliant *law = keep(params, LAW_SPRING_DAMPER, err, len);
    if (!law) return NULL;
    law->n = law->q = 1.0;
    law->p = 0.0;
    return law;
}

static void *create_bistiffness(const void *params, const nsdyn_host *host, char *err, size_t len) {
    (void)host;
    const compliant *v = params;
    double k = v->k, mu_n = v->mu_n;
    if (!check_stiffness("k", k, "N/m", err, len)) return NULL;
    if (!(mu_n >= 0 && mu_n < 1)) {
        snprintf(err, len,
                 "mu_n = %g is outside [0, 1): the expansion stiffness k(1 - mu_n) of (5.1) "
                 "must stay positive (mu_n >= 1 would give no or a pulling force while the "
                 "contact expands), and mu_n < 0 would create energy",
                 mu_n);
        return NULL;
    }
    compliant *law = keep(params, LAW_BISTIFFNESS, err, len);
    if (!law) return NULL;
    law->k_comp = k * (1.0 + mu_n);
    law->k_exp = k * (1.0 - mu_n);
    return law;
}

static const nsdyn_param_fields hunt_crossley_table =
    NSDYN_PARAM_FIELDS(compliant, hunt_crossley_fields, create_hunt_crossley);
static const nsdyn_param_fields hertz_table =
    NSDYN_PARAM_FIELDS(compliant, hertz_fields, create_hertz);
static const nsdyn_param_fields spring_damper_table =
    NSDYN_PARAM_FIELDS(compliant, spring_damper_fields, create_spring_damper);
static const nsdyn_param_fields bistiffness_table =
    NSDYN_PARAM_FIELDS(compliant, bistiffness_fields, create_bistiffness);
NSDYN_FIELDS_EXTENSION(hunt_crossley_extension, hunt_crossley_table)
NSDYN_FIELDS_EXTENSION(hertz_extension, hertz_table)
NSDYN_FIELDS_EXTENSION(spring_damper_extension, spring_damper_table)
NSDYN_FIELDS_EXTENSION(bistiffness_extension, bistiffness_table)

static void destroy(void *inst) { free(inst); }

/* ---- force ------------------------------------------------------------- */

/* |x|^e, with the exponents that occur most (0, 1, 3/2, 2) without pow(). */
static double apow(double ax, double e) {
    if (e == 1.0) return ax;
    if (e == 1.5) return ax * sqrt(ax);
    if (e == 0.0) return 1.0;
    if (e == 2.0) return ax * ax;
    return pow(ax, e);
}

/* Sign-preserving power sign(x) |x|^e; spow(0, e) = 0 for every e. */
static double spow(double x, double e) {
    if (x == 0.0) return 0.0;
    double m = apow(fabs(x), e);
    return x < 0 ? -m : m;
}

static nsdyn_status normal_force(void *inst, double gap, double gap_rate, double *force) {
    const compliant *law = inst;
    double delta = -gap, rate = -gap_rate; /* penetration [m] and its rate [m/s], (10)-(11) */
    if (!(delta > 0)) {
        *force = 0.0; /* separated or just touching: no force */
        return NSDYN_OK;
    }
    double F;
    if (law->kind == LAW_BISTIFFNESS)
        F = (rate >= 0 ? law->k_comp : law->k_exp) * delta; /* (5.1) */
    else
        F = law->k * apow(delta, law->n) +
            law->c * apow(delta, law->p) * spow(rate, law->q); /* (12) */
    *force = F > 0 ? F : 0.0; /* (13): no pulling force on separation */
    return NSDYN_OK;
}

/* ---- descriptors ------------------------------------------------------- */

static const nsdyn_contact_law hunt_crossley_law = {
    .info = NSDYN_CONTACT_INFO(.id = "hunt_crossley", .version = "1.0.0",
                               .summary = "Hunt-Crossley k d^n + c d^p d'^q (general exponents), "
                                          "clamped at zero (walker (12)-(13))",
                               NSDYN_PARAMS(hunt_crossley_params),
                               .provides = NSDYN_CAP_COMPLIANT_NORMAL, .destroy = destroy),
    .normal_force = normal_force,
    .extension = hunt_crossley_extension,
};

static const nsdyn_contact_law hertz_law = {
    .info = NSDYN_CONTACT_INFO(
            .id = "hertz", .version = "1.0.0",
            .summary =
                "Hertz k d^(3/2) with Hunt-Crossley damping (1 + 3/2 alpha d'), e ~ 1 - alpha v_in",
            NSDYN_PARAMS(hertz_params), .provides = NSDYN_CAP_COMPLIANT_NORMAL, .destroy = destroy),
    .normal_force = normal_force,
    .extension = hertz_extension,
};

static const nsdyn_contact_law spring_damper_law = {
    .info = NSDYN_CONTACT_INFO(
            .id = "spring_damper", .version = "1.0.0",
            .summary = "linear spring-damper k d + c d', clamped at zero (Kelvin-Voigt contact)",
            NSDYN_PARAMS(spring_damper_params), .provides = NSDYN_CAP_COMPLIANT_NORMAL,
            .destroy = destroy),
    .normal_force = normal_force,
    .extension = spring_damper_extension,
};

static const nsdyn_contact_law bistiffness_law = {
    .info = NSDYN_CONTACT_INFO(
            .id = "bistiffness", .version = "1.0.0",
            .summary =
                "linear bi-stiffness k(1 +- mu_n) d, compression/expansion (Barjau & Batlle (5.1))",
            NSDYN_PARAMS(bistiffness_params),
            .provides = NSDYN_CAP_COMPLIANT_NORMAL | NSDYN_CAP_RATE_DISCONTINUITY,
            .destroy = destroy),
    .normal_force = normal_force,
    .extension = bistiffness_extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    switch (index) {
        case 0: return &hunt_crossley_law.info;
        case 1: return &hertz_law.info;
        case 2: return &spring_damper_law.info;
        case 3: return &bistiffness_law.info;
        default: return NULL;
    }
}
