/* nsdyn contact-law ABI: what happens in the normal direction.
 *
 * Two families, declared by the capability bits:
 *  - compliant (NSDYN_CAP_COMPLIANT_NORMAL): normal_force() gives the force
 *    from the gap and its rate; the problem stays an ODE and any integrator
 *    can run it.
 *  - rigid (NSDYN_CAP_RIGID_IMPACT): impact() maps the local velocities
 *    before an impact to an impulse and the velocities after it, given the
 *    Delassus operator; it needs the event-driven runner or time-stepping.
 *    Time-stepping needs the impulse at one contact alone for each contact
 *    of its Gauss-Seidel sweeps. From ABI 2.4 the host gets it from
 *    impact() on a one-contact problem whose restitution_scale carries
 *    Moreau's rule, so both paths run the law's own code; a law built
 *    before 2.4 gives it through local_impulse() (ABI 2.0, deprecated).
 */
#ifndef NSDYN_CONTACT_H
#define NSDYN_CONTACT_H

#include "nsdyn/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rigid impact of n simultaneous contacts. */
typedef struct nsdyn_impact_problem {
    uint32_t struct_size;
    size_t n_contacts;
    uint32_t tangent_dim; /* 1 or 2, the same for all contacts */
    /* (3n x 3n) row-major W M^-1 W^T: local velocity change per unit local
     * impulse [1/kg]; rows/cols ordered (n, t1, t2) per contact. */
    const double *delassus;
    const double *u_minus;    /* 3n local velocities before impact [m/s] */
    const double *mu_static;  /* n static friction coefficients [1] (no-slip test) */
    const double *mu_kinetic; /* n kinetic friction coefficients [1] (slip impulse) */
    /* n gaps [m]: every contact near closure takes part, including those
     * not yet approaching (a Percussion-Centre law watches them for a
     * single- to double-point transition). */
    const double *gaps;
    /* Optional buffer for the law's phase log ("SP slide; stick; DP"),
     * NUL-terminated, or NULL. */
    char *phase_log;
    size_t phase_log_len;
    /* ABI 2.4 (appended): NULL for a plain impact, or the factor s >= 0 on
     * the law's restitution for this problem [1]: the law applies e_eff =
     * min(s e, 1) (its own e, beta or energetic coefficient). The host sets
     * it for the one-contact problems of time-stepping, where restitution
     * refers to the approach at the step start (Moreau's rule,
     * nsdyn_local_restitution_scale; 0 for a contact at rest: plastic). A
     * pointer, so that a problem whose new fields are left zero is a plain
     * impact, not a plastic one. Read it with
     * nsdyn_impact_restitution_scale(). */
    const double *restitution_scale;
} nsdyn_impact_problem;

/* The problem's restitution scale: 1 when it has none (NULL, or a host
 * built before 2.4). */
static inline double nsdyn_impact_restitution_scale(const nsdyn_impact_problem *pr) {
    const size_t end = offsetof(nsdyn_impact_problem, restitution_scale) + sizeof(const double *);
    return pr->struct_size >= end && pr->restitution_scale ? *pr->restitution_scale : 1.0;
}

/* ABI 2.0: the impulse at one contact alone, at the velocity level. */
typedef struct nsdyn_local_impact {
    uint32_t struct_size;
    uint32_t tangent_dim; /* 1 or 2 */
    const double *G;      /* 3 x 3 row-major local Delassus block [1/kg] */
    /* The local velocity this contact would have without an impulse of its
     * own [m/s]: before the impact (event-driven), or at the end of a time
     * step with the smooth forces and the other contacts' impulses. */
    const double *u_free;
    /* The local velocity at the start of the impact or of the time step
     * [m/s]: restitution refers to the approach it shows, so a contact at
     * rest (u_start,n = 0) never bounces on the velocity the smooth forces
     * give it within a step (Moreau's rule). Event-driven: u_start = u_free. */
    const double *u_start;
    double mu_static, mu_kinetic; /* [1] */
} nsdyn_local_impact;

/* The kind of restitution a rigid law applies, and its coefficient. */
typedef enum nsdyn_restitution_kind {
    NSDYN_RESTITUTION_NEWTON = 1,  /* velocity ratio: u_n+ = -e u_n- */
    NSDYN_RESTITUTION_POISSON = 2, /* impulse ratio: P_restitution = beta P_compression */
    NSDYN_RESTITUTION_OTHER = 3    /* none of the two (a law of its own) */
} nsdyn_restitution_kind;

typedef struct nsdyn_rigid_coefficients {
    uint32_t struct_size;
    nsdyn_restitution_kind kind;
    double restitution; /* e or beta [1] */
} nsdyn_rigid_coefficients;

/* ---- contact-law callbacks (see nsdyn_contact_law) --------------------- */

typedef nsdyn_status (*nsdyn_contact_normal_force_fn)(void *inst, double gap, double gap_rate,
                                                      double *force);
typedef nsdyn_status (*nsdyn_contact_impact_fn)(void *inst, const nsdyn_impact_problem *problem,
                                                double *impulse, double *u_plus);
typedef nsdyn_status (*nsdyn_contact_local_impulse_fn)(void *inst,
                                                       const nsdyn_local_impact *problem,
                                                       double *P);
/* ABI 2.5: returns a status (void before; adapter in the host). */
typedef nsdyn_status (*nsdyn_contact_coefficients_fn)(void *inst, nsdyn_rigid_coefficients *out);

typedef struct nsdyn_contact_law {
    nsdyn_plugin_info info;

    /* Compliant: normal force [N] >= 0 from gap g [m] (negative when
     * penetrating) and gap rate g' [m/s]; zero when separated. */
    nsdyn_contact_normal_force_fn normal_force;

    /* Rigid: impulse (3n) [N s] and post-impact velocities u_plus (3n) [m/s]. */
    nsdyn_contact_impact_fn impact;

    /* Rigid (ABI 2.0; deprecated by 2.4, NULL in new laws): the impulse P
     * (3) [N s] at one contact alone, so that u = u_free + G P obeys the
     * law. A host calls it only for a law built before 2.4; from 2.4 it
     * calls impact() on the one-contact problem with its
     * restitution_scale. Hot path: no allocation. */
    nsdyn_contact_local_impulse_fn local_impulse;
    /* Rigid (ABI 2.0): what the law does at a single frictionless impact,
     * for reports and for solvers that pose the whole problem themselves
     * (a Newton law is what Siconos' friction-contact solvers take). */
    nsdyn_contact_coefficients_fn coefficients;

    /* ABI 2.4 (appended, the last field for good): the plugin's optional
     * interfaces by name, or NULL (plugin.h nsdyn_extension_fn). Read only
     * when info.struct_size covers this field. */
    nsdyn_extension_fn extension;
} nsdyn_contact_law;

/* The one-contact problem of a local impact, with the restitution referred
 * to the approach at the start (Moreau's rule: e_eff = e min(u_start,n, 0)
 * / u_free,n, exactly e event-driven where u_start = u_free, 0 for a
 * contact at rest): the factor that scales e (call it only for an
 * approaching contact, u_free,n < 0), and the problem, whose coefficients
 * and zero gap go into the caller's mu_s, mu_k and gap. The host builds
 * it so, with that factor as its restitution_scale (ABI 2.4); a law built
 * before 2.4 used both in its local_impulse(). */
static inline double nsdyn_local_restitution_scale(const nsdyn_local_impact *p) {
    return (p->u_start[0] < 0.0 ? p->u_start[0] : 0.0) / p->u_free[0];
}
static inline nsdyn_impact_problem nsdyn_local_problem(const nsdyn_local_impact *p, double *mu_s,
                                                       double *mu_k, double *gap) {
    *mu_s = p->mu_static;
    *mu_k = p->mu_kinetic;
    *gap = 0.0;
    nsdyn_impact_problem pr = {.struct_size = sizeof pr,
                               .n_contacts = 1,
                               .tangent_dim = p->tangent_dim,
                               .delassus = p->G,
                               .u_minus = p->u_free,
                               .mu_static = mu_s,
                               .mu_kinetic = mu_k,
                               .gaps = gap};
    return pr;
}

/* Descriptor head of a contact law: NSDYN_CONTACT_INFO(.id = "...", ...). */
#define NSDYN_CONTACT_INFO(...) NSDYN_INFO_OF(nsdyn_contact_law, NSDYN_KIND_CONTACT, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
