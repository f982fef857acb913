/* Rigid impact laws: the impulses of one or several simultaneous contacts
 * from the velocities before the impact and the Delassus operator.
 *
 * Notation (contact.h). n contacts, 3 rows each (n, t1, t2). Local
 * velocities u = (u_n, u_t1, u_t2) [m/s], u_n < 0 approaching; local
 * impulses P = (P_n, P_t1, P_t2) [N s]; Delassus G = W M^-1 W^T [1/kg]
 * (3n x 3n), so u+ = u- + G P (configuration frozen during the impact,
 * Kane's (2.7) "I_r = p_r(t2) - p_r(t1)"). With tangent_dim = 1 every t2
 * impulse is zero (the t2 rows still give u_t2+). The gaps of the problem
 * are not used: every contact passed is treated as closed (the runner
 * passes the contacts whose gap is zero within its event tolerance).
 *
 * Energy across an impact. T = 1/2 v^T M v and v+ = v- + M^-1 W^T P, so
 *   dT = v-^T W^T P + 1/2 P^T W M^-1 W^T P = P.(u- - w) + 1/2 P^T G P,
 * where u = W v + w. For fixed obstacles (w = 0, every system of this
 * project) dT = P.u- + 1/2 P^T G P = 1/2 P.(u- + u+): the change of kinetic
 * energy is known from local quantities alone. Every law here computes it
 * and refuses (NSDYN_ERROR, with a log message) an impulse that would add
 * energy by more than rounding (1e-9 of |P.u-| + 1/2 |P^T G P|).
 *   - Plastic impacts (e = 0, beta = 0) never add energy in `newton` and
 *     `poisson`, whose slip directions are the post-impact ones: with
 *     P_n,i u_n,i+ = 0 at every contact, dT = P.u+ - 1/2 P^T G P, and
 *     P.u+ = sum_i P_t,i.u_t,i+ = -sum_i mu_k,i P_n,i |u_t,i+| <= 0
 *     (stick: u_t+ = 0), while P^T G P >= 0. This holds for any number of
 *     contacts, touching or approaching.
 *   - With e > 0 Newton's restitution together with friction CAN add energy
 *     when the Delassus couples the normal and tangential directions (Kane's
 *     energy paradox: T. R. Kane, D. A. Levinson, "Dynamics: Theory and
 *     Applications" (1985); W. J. Stronge, "Impact Mechanics" (2000),
 *     Sec. 5.2). E.g. stick with e = 1: dT = -u_n u_t (G^-1)_nt -
 *     1/2 u_t^2 (G^-1)_tt, positive for a large enough coupling. Poisson's
 *     law in Glocker's inequality form is energetically consistent for
 *     frictionless systems and for one frictional contact, but not always
 *     for two or more frictional contacts (Ch. Glocker, "Energetic
 *     consistency conditions for standard impacts, Part II: Poisson-type
 *     inequality impact laws", Multibody Syst. Dyn. (2013),
 *     doi:10.1007/s11044-013-9387-2, abstract and counter-example). The
 *     wheel-curb paper's form used by `poisson` (friction of the
 *     restitution phase on the final slip, (35c)) can add energy even at
 *     one strongly coupled frictional contact (13 of 20000 random
 *     single-contact problems with mu up to 1.5 and beta up to 1 in a trial
 *     run). Such impacts are refused rather than computed; for decoupled
 *     operators (the sphere on a plane, G = diag(1/m, 1/m + b^2/J,
 *     1/m + b^2/J)) they never occur.
 *
 *
 * Files (one shared object, nsdyn_contact_impact.so, issue 14):
 *   impact.c          this header, parameters, create/destroy, impact()'s
 *                     checks and dispatch, descriptors
 *   newton.c          newton; poisson.c poisson; kane_impulse.c
 *                     kane_impulse (each with its law's description)
 *   impact_solver.c   the shared solver: one contact exactly, exact
 *                     enumeration, NSGS (nsdyn_numeric's driver)
 *   impact_internal.h their private interface
 *
 * Friction coefficients come from the problem (mu_static, mu_kinetic: the
 * friction law's bounds, one pair per contact); negative or non-finite ones
 * are refused with NSDYN_ERROR and a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impact_internal.h"

/* ---- parameter declarations ------------------------------------------- */

static const nsdyn_param_decl newton_params[] = {
    NSDYN_REAL("e", "1", 0.5, 0.0, 1.0,
               "Newton's coefficient of restitution: u_n+ = -e u_n- at approaching contacts "
               "(0 plastic, 1 elastic)"),
};
static const nsdyn_param_decl kane_params[] = {
    NSDYN_REAL(
        "e", "1", 0.92, 0.0, 1.0,
        "restitution of the contact-point normal velocity (2.8) (default: thesis Sec. 4.2, 0.92)"),
};
static const nsdyn_param_decl poisson_params[] = {
    NSDYN_REAL("beta", "1", 0.3, 0.0, 1.0,
               "Poisson's coefficient of restitution (wheel-curb paper (16a), (35b)): restitution "
               "impulse "
               "= beta x compression impulse (0 plastic, 1 elastic)"),
};

/* ---- create / destroy -------------------------------------------------- */

static void *create(law_kind kind, const void *params, const nsdyn_host *host, char *err,
                    size_t len) {
    double e = ((const impact_law *)params)->e;
    /* Repeats the declared range: create() may be called by other hosts. */
    if (!(e >= 0.0 && e <= 1.0)) {
        if (kind == LAW_POISSON)
            snprintf(err, len,
                     "beta = %g is outside [0, 1]: beta < 0 would pull the bodies back "
                     "together and beta > 1 would create energy at every impact",
                     e);
        else
            snprintf(err, len,
                     "e = %g is outside [0, 1]: e < 0 would not separate the bodies and "
                     "e > 1 would create energy at every impact",
                     e);
        return NULL;
    }
    impact_law *law = malloc(sizeof *law);
    if (!law) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *law = *(const impact_law *)params; /* e; the host's block lives only during create() */
    law->kind = kind;
    if (NSDYN_HOST_HAS(host, log)) {
        law->host = *host;
        law->have_host = 1;
    }
    return law;
}

static void *create_newton(const void *p, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_NEWTON, p, host, err, len);
}
static void *create_kane(const void *p, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_KANE, p, host, err, len);
}
static void *create_poisson(const void *p, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_POISSON, p, host, err, len);
}

/* The one parameter, filled by the host into impact_law.e (plugin.h
 * NSDYN_EXT_PARAM_FIELDS); poisson calls it beta. */
static const nsdyn_param_field e_field[] = {NSDYN_FIELD(impact_law, e)};
static const nsdyn_param_field beta_field[] = {NSDYN_FIELD_AS(impact_law, e, "beta")};
static const nsdyn_param_fields newton_table =
    NSDYN_PARAM_FIELDS(impact_law, e_field, create_newton);
static const nsdyn_param_fields kane_table = NSDYN_PARAM_FIELDS(impact_law, e_field, create_kane);
static const nsdyn_param_fields poisson_table =
    NSDYN_PARAM_FIELDS(impact_law, beta_field, create_poisson);
NSDYN_FIELDS_EXTENSION(newton_extension, newton_table)
NSDYN_FIELDS_EXTENSION(kane_extension, kane_table)
NSDYN_FIELDS_EXTENSION(poisson_extension, poisson_table)

static void destroy(void *inst) { free(inst); }

/* ---- impact ------------------------------------------------------------- */

/* The problem's restitution_scale s (contact.h, ABI 2.4) gives the law
 * e_eff = min(s e, 1): 1 for a plain impact; time-stepping's one-contact
 * problems carry Moreau's rule, e referred to the approach at the step
 * start, e_eff = e min(u_start,n, 0) / u_free,n; for newton that is his
 * shifted law 0 <= P_n _|_ u_n+ + e min(u_start,n, 0) >= 0 (Acary &
 * Brogliato 2008, Ch. 10): a contact at rest (s = 0) takes a plastic
 * impulse and never bounces on the velocity the smooth forces give it
 * within a step; poisson's beta and kane_impulse's e scale the same way.
 * The law's instance is copied with e_eff (a few words, no allocation). */
static nsdyn_status impact(void *inst, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    impact_law law_e = *(const impact_law *)inst;
    const double scale = nsdyn_impact_restitution_scale(pr);
    if (scale != 1.0) law_e.e = fmin(law_e.e * scale, 1.0);
    const impact_law *law = &law_e;
    const char *name = law_name(law->kind);
    char msg[320];
    const size_t n = pr->n_contacts, m = 3 * n;
    if (n > IMPACT_MAX_CONTACTS) {
        snprintf(msg, sizeof msg,
                 "%s: %zu simultaneous contacts; at most %d per impact (fixed-size "
                 "arrays, IMPACT_MAX_CONTACTS in plugins/contact/impact.c)",
                 name, n, (int)IMPACT_MAX_CONTACTS);
        return fail(law, pr, msg);
    }
    if (n == 0) { /* nothing to do */
        phase(pr, "no impact");
        return NSDYN_OK;
    }
    if (pr->tangent_dim != 1 && pr->tangent_dim != 2) {
        snprintf(msg, sizeof msg, "%s: tangent_dim = %u, expected 1 or 2", name,
                 (unsigned)pr->tangent_dim);
        return fail(law, pr, msg);
    }
    for (size_t i = 0; i < n; ++i) {
        const double mus = pr->mu_static[i], muk = pr->mu_kinetic[i];
        if (!(mus >= 0.0 && isfinite(mus)) || !(muk >= 0.0 && isfinite(muk))) {
            snprintf(msg, sizeof msg,
                     "%s: contact %zu: friction coefficients mu_static = %g, "
                     "mu_kinetic = %g; both must be finite and >= 0",
                     name, i, mus, muk);
            return fail(law, pr, msg);
        }
        for (size_t r = 0; r < 3; ++r)
            if (!isfinite(pr->u_minus[3 * i + r])) {
                snprintf(msg, sizeof msg,
                         "%s: contact %zu: non-finite pre-impact velocity u_minus[%zu] = %g", name,
                         i, 3 * i + r, pr->u_minus[3 * i + r]);
                return fail(law, pr, msg);
            }
    }
    for (size_t k = 0; k < m * m; ++k)
        if (!isfinite(pr->delassus[k])) {
            snprintf(msg, sizeof msg, "%s: non-finite Delassus entry (%zu, %zu) = %g", name, k / m,
                     k % m, pr->delassus[k]);
            return fail(law, pr, msg);
        }
    if (law->kind == LAW_KANE)
        return n == 1 ? impact_kane(law, pr, impulse, u_plus)
                      : impact_kane_multi(law, pr, impulse, u_plus);
    return law->kind == LAW_NEWTON ? impact_newton(law, pr, impulse, u_plus)
                                   : impact_poisson(law, pr, impulse, u_plus);
}

static nsdyn_status coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    const impact_law *law = inst;
    out->kind = law->kind == LAW_POISSON ? NSDYN_RESTITUTION_POISSON : NSDYN_RESTITUTION_NEWTON;
    out->restitution = law->e;
    return NSDYN_OK;
}

/* ---- descriptors ------------------------------------------------------- */

static const nsdyn_contact_law newton_law = {
    .info = NSDYN_CONTACT_INFO(.id = "newton", .version = "2.0.0",
                               .summary = "Newton restitution u_n+ = -e u_n- with Coulomb "
                                          "friction, post-impact slip, several "
                                          "contacts",
                               NSDYN_PARAMS(newton_params), .provides = NSDYN_CAP_RIGID_IMPACT,
                               .destroy = destroy),
    .impact = impact,
    .coefficients = coefficients,
    .extension = newton_extension,
};

static const nsdyn_contact_law kane_law = {
    .info = NSDYN_CONTACT_INFO(
            .id = "kane_impulse", .version = "2.0.0",
            .summary =
                "Kane's collision model: Newton restitution, no-slip test (mu_s, strict), slip "
                "along the initial slip (mu_k)",
            NSDYN_PARAMS(kane_params), .provides = NSDYN_CAP_RIGID_IMPACT, .destroy = destroy),
    .impact = impact,
    .coefficients = coefficients,
    .extension = kane_extension,
};

static const nsdyn_contact_law poisson_law = {
    .info = NSDYN_CONTACT_INFO(
            .id = "poisson", .version = "2.0.0",
            .summary = "Poisson two-phase restitution (impulse ratio beta) with Coulomb friction, "
                       "wheel-curb paper (31)-(35)",
            NSDYN_PARAMS(poisson_params), .provides = NSDYN_CAP_RIGID_IMPACT, .destroy = destroy),
    .impact = impact,
    .coefficients = coefficients,
    .extension = poisson_extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    switch (index) {
        case 0: return &newton_law.info;
        case 1: return &kane_law.info;
        case 2: return &poisson_law.info;
        default: return NULL;
    }
}
