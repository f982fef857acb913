/* poisson: Poisson's two-phase restitution with Coulomb friction
 * (impact_internal.h; the common part of the laws: impact.c).
 *
 * ---- poisson --------------------------------------------------------------
 * Poisson's (Routh's) two-phase impact with Coulomb friction in projection
 * form, the wheel-curb paper (above), Sec. 3, 5 and 6.2:
 *   compression (15), (31)-(34): the plastic impact, i.e. `newton` with
 *     e = 0 at every contact (the same solver): P_c with
 *     0 <= P_c,n _|_ u_n+ >= 0 ((15a), (33a)) and Coulomb on the
 *     post-compression slip ((15b), (33b)); several contacts (34), per
 *     contact (98)-(101).
 *   restitution (16), (35): a second impulse P_r with the normal part KNOWN,
 *     P_r,n,i = beta P_c,n,i ((35b), (107): "lambda = beta lambda~"), and
 *     friction again in projection form on the final slip, (35c), (111):
 *     u* = u+ + G P_r, stick u_t,i* = 0 with |P_r,t,i| <= mu_s P_r,n,i, or
 *     slide P_r,t,i = -mu_k P_r,n,i u_t,i* / |u_t,i*|.
 *   The law returns P = P_c + P_r and u* (the paper's X'* of (35a)). This
 *   is the paper's two-phase form (35); its one-line summary (16b)-(16c)
 *   (one Coulomb law on the total impulse) agrees when the slip does not
 *   change direction between the phases.
 * beta is the paper's coefficient of restitution (an impulse ratio, (16a):
 * total normal impulse (1 + beta) P_c,n), beta = 0 plastic (then `poisson`
 * equals `newton` with e = 0 exactly: P_r = 0), beta = 1 elastic; the paper
 * writes beta in (0, 1], its first task uses beta = 0 (validation-targets.md
 * "wheel-curb-unilateral-constraints": beta = 0 and beta = 0.3).
 * Frictionless, or one contact with a decoupled Delassus (G_nt = 0), the
 * result is Newton's with e = beta; they differ with friction and coupling
 * (one contact sticking in both phases: u_n* = beta (-u_n- + u_t- G_nt/G_tt)
 * instead of -beta u_n-). When the plastic impulse is not unique (more
 * constraint rows than the body has velocities, all contacts stopped) the
 * restitution scales the one chosen (least norm, see newton), so the result
 * depends on that choice: the rigid model leaves it open.
 *
 * Completion for several contacts (this plugin's, not in the paper). With
 * coupling between contacts and friction, or a contact that was separating
 * before the impact and took a compression impulse, the paper's restitution
 * impulse can leave a contact approaching (u_n,i* < 0). Then the
 * restitution normal impulse is
 *   P_r,n,i = beta P_c,n,i + dP_i,  0 <= dP_i _|_ u_n,i* >= 0,
 * the least extra impulse that keeps the contacts from penetrating. The
 * paper's (35b) is tried first (all dP = 0) and kept whenever it leaves no
 * contact approaching; it always does frictionless when no contact was
 * separating (then u* - u- = (1 + beta)(u+ - u-) row by row) and for one
 * contact with G_nt = 0. The phase log marks completed contacts "held".
 * The restitution phase is solved like `newton`'s problem: by enumeration
 * (tangent_dim 1, n <= 4; first the states stick/slide+/slide- with the
 * normal impulses fixed, then, if none is consistent, with the completion)
 * or by the NSGS iteration, whose one-contact solver tries the fixed normal
 * impulse first.
 * Energy: frictionless and without completion, the total change is
 * -(1 - beta^2)/2 P_c^T G P_c <= 0 (with P_c.u+ = 0); with friction and
 * coupling it can increase (see above), and such impulses are refused like
 * newton's.
 *
 */
#include <stdio.h>

#include "impact_internal.h"

/* The restitution phase (35) after the compression r1: P_r,n = beta P_c,n,
 * friction on u*; appends to log from at. r2 gets P = P_c + P_r and u*.
 * Returns 1, 0 if no impulse was found (msg says why), or 2 when there is
 * no restitution impulse (r2 untouched). */
static int restitution(const impact_law *law, const nsdyn_impact_problem *pr,
                       const phase_result *r1, double *c, double *a, phase_result *r2, char *log,
                       size_t len, size_t at, char *msg, size_t msg_len) {
    const size_t n = pr->n_contacts;
    int any = 0;
    for (size_t i = 0; i < n; ++i) {
        a[i] = law->e * r1->P[3 * i];
        any |= a[i] > 0.0;
    }
    if (!any) {
        if (at < len) snprintf(log + at, len - at, "; no restitution");
        return 2;
    }
    phase_problem p2 = phase_of(pr, r1->u, c, a, 1, NULL);
    if (!solve_phase_or_say(&p2, r2, "poisson (restitution)", msg, msg_len)) return 0;
    for (size_t k = 0; k < 3 * n; ++k) r2->P[k] += r1->P[k];
    if (at < len) at += (size_t)snprintf(log + at, len - at, "; restitution: ");
    if (at < len) log_states(log, len, at, r2, n, 1);
    return 1;
}

nsdyn_status impact_poisson(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                            double *u_plus) {
    const size_t n = pr->n_contacts;
    double c[IMPACT_MAX_CONTACTS], a[IMPACT_MAX_CONTACTS], dT;
    phase_result r1, r2;
    char log[256], msg[320];
    /* compression (33): plastic at every contact */
    for (size_t i = 0; i < n; ++i) c[i] = a[i] = 0.0;
    phase_problem p1 = phase_of(pr, pr->u_minus, c, a, 0, NULL);
    if (!solve_phase_or_say(&p1, &r1, "poisson (compression)", msg, sizeof msg))
        return fail(law, pr, msg);
    const phase_result *res = &r1;
    if (r1.method == M_NONE) {
        snprintf(log, sizeof log, "no impact");
    } else {
        size_t at = (size_t)snprintf(log, sizeof log, "compression: ");
        at = log_states(log, sizeof log, at, &r1, n, 0);
        int r = restitution(law, pr, &r1, c, a, &r2, log, sizeof log, at, msg, sizeof msg);
        if (r == 0) return fail(law, pr, msg);
        if (r == 1) res = &r2;
    }
    if (!impact_accept(pr, res->P, res->u, log, impulse, u_plus, &dT)) return NSDYN_OK;
    snprintf(msg, sizeof msg,
             "poisson: the impulse would add %g J of kinetic energy (Poisson "
             "restitution beta = %g with friction and a Delassus that couples "
             "normal and tangential directions: the restitution phase's friction "
             "can feed energy back, cf. Glocker 2013); refused",
             dT, law->e);
    return fail(law, pr, msg);
}
