/* newton: Newton's restitution with Coulomb friction on the impulse
 * (impact_internal.h; the common part of the laws: impact.c).
 *
 * ---- newton ---------------------------------------------------------------
 * Newton restitution with Coulomb friction on the impulse, generalised to n
 * simultaneous contacts. Per contact i, with e_i = e if u_n,i- < 0
 * (approaching) and e_i = 0 otherwise:
 *   0 <= P_n,i  _|_  u_n,i+ + e_i u_n,i- >= 0,                          (N)
 * the complementarity (projection, [.]+) form of the plastic law of the
 * wheel-curb paper (W. Grzesikiewicz, A. Zbiciak, "The Non-Smooth Problem
 * of Wheel Motion", Adv. Pure Math. 10 (2020) 658-684; ../shared/papers/
 * wheel-curb-unilateral-constraints.txt), (15a), (33a), (98)-(99), with
 * Newton's restitution term added; and Coulomb on the impulse, the paper's
 * (15b), (33b), (100)-(101) "tau = Pi(tau + rho H^T X'+)" (Routh's
 * hypothesis: the friction impulse opposes the slip AFTER the impact):
 *   stick  u_t,i+ = 0 and |P_t,i| <= mu_s,i P_n,i, or
 *   slide  P_t,i = -mu_k,i P_n,i u_t,i+ / |u_t,i+|.                      (C)
 * Only approaching contacts restitute. A contact that is touching but not
 * approaching (u_n,i- >= 0: at rest on a support, or already separating)
 * takes part with e_i = 0, i.e. 0 <= P_n,i _|_ u_n,i+ >= 0: it can carry an
 * impulse when the impact at another contact would drive it into the
 * obstacle (the curb wheel's floor contact when it hits the curb's edge),
 * but it never rebounds by itself; with e_i = e a separating contact would
 * even be allowed to leave with u_n+ = -e u_n- < 0 (penetrating). The
 * runner passes touching contacts with their actual u_n- (0 when resting).
 * If no contact is approaching (all u_n- >= 0) there is no impulse.
 *
 * Single contact (n = 1), exact:
 *   1. Stick: solve G P = u+ - u- for u+ = (-e u_n-, 0, 0) (2x2 system for
 *      tangent_dim = 1, 3x3 for 2). Accepted if P_n >= 0 and
 *      |P_t| <= mu_static P_n.
 *   2. Slide: P_t = -mu_kinetic P_n d with d the direction of the slip
 *      AFTER the impact, d = u_t+/|u_t+| (maximal dissipation; the slip
 *      direction may rotate during the impact when G_nt or the t1-t2 block
 *      couples, which is why the final, not the initial, direction is used;
 *      it is also Kane's (2.11), friction opposite to v_S at t2). For a
 *      given d the normal row gives
 *        P_n(d) = -(1 + e) u_n- / (G_nn - mu_k G_nt.d),
 *      which must be > 0, and u_t+(d) = u_t- + (G_tn - mu_k G_tt d) P_n(d).
 *      1-D: d = +-1, the sign with sign(u_t+) = d. 2-D: d = (cos th, sin th);
 *      the solutions are the zeros of f(th) = d(th) x u_t+(th) with
 *      d.u_t+ > 0, found as sign changes of den(th) f(th) (no pole where
 *      den = G_nn - mu_k G_nt.d vanishes) on a grid of 360 angles, refined
 *      by bisection to machine precision (no allocation, deterministic).
 *      Among several consistent directions (strong coupling) the one that
 *      dissipates the most energy is taken. None: NSDYN_ERROR (Painleve-type
 *      inconsistency: G_nn - mu_k G_nt.d <= 0).
 *   This one-contact solver (local_solve) is also the building block of the
 *   iteration for several contacts.
 *
 */
#include <stdio.h>

#include "impact_internal.h"

nsdyn_status impact_newton(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    const size_t n = pr->n_contacts;
    const double *um = pr->u_minus;
    double c[IMPACT_MAX_CONTACTS], a[IMPACT_MAX_CONTACTS], dT;
    phase_result r1;
    char log[256], msg[320];
    /* the restitution target at approaching contacts, (N) */
    for (size_t i = 0; i < n; ++i) {
        c[i] = um[3 * i] < 0.0 ? law->e * um[3 * i] : 0.0;
        a[i] = 0.0;
    }
    phase_problem p1 = phase_of(pr, um, c, a, 0, NULL);
    if (!solve_phase_or_say(&p1, &r1, "newton", msg, sizeof msg)) return fail(law, pr, msg);
    if (r1.method == M_NONE)
        snprintf(log, sizeof log, "no impact");
    else if (n == 1) /* the single-contact words: "stick" or "slide" */
        snprintf(log, sizeof log, "%s", r1.state[0] == LS_CLOSED_STICK ? "stick" : "slide");
    else
        log_states(log, sizeof log, 0, &r1, n, 0);
    if (!impact_accept(pr, r1.P, r1.u, log, impulse, u_plus, &dT)) return NSDYN_OK;
    snprintf(msg, sizeof msg,
             "newton: the impulse would add %g J of kinetic energy (Newton "
             "restitution e = %g with friction and a Delassus that couples "
             "normal and tangential directions, Kane's energy paradox); refused",
             dT, law->e);
    return fail(law, pr, msg);
}
