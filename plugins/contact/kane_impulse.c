/* kane_impulse: Kane's collision model, one contact and several
 * (impact_internal.h; the common part of the laws: impact.c).
 *
 * ---- kane_impulse ---------------------------------------------------------
 * Kane's collision model, J. Hartl, "Bouncing, Sliding and
 *   Rolling Dynamics of a Spherical Rover Crossing a Ravine", M.S. thesis,
 *   NC State (2006), Sec. 2.1.2 (../shared/papers/
 *   tumbleweed-rover-valley-crossing.txt), written for a general Delassus:
 *   - normal: Newton's restitution on the contact-point normal velocity
 *     (2.8), u_n+ = -e u_n- ((2.46)-(2.47) for the sphere);
 *   - no slip at t2 (2.10): the impulse with u_t+ = 0 (the stick solve
 *     above; (2.59)-(2.65) for the sphere), accepted iff |P_t| < mu P_n
 *     with the static coefficient and the thesis's strict inequality (2.9),
 *     (2.53);
 *   - otherwise slip with the kinetic coefficient mu' along the INITIAL slip
 *     direction d0 = u_t-/|u_t-|: P_t = -mu' P_n s d0, s = +-1 the sign of
 *     d0.u_t+ (the generalisation of (2.80)-(2.81): S3/S1 = gamma1/alpha1
 *     fixes the direction, the sign is sgn(alpha1 + k1 S1)). For the sphere
 *     G is diagonal and this is exactly (2.66)-(2.67) = (2.11); for a
 *     coupled G the slip direction may rotate and this law keeps d0, as
 *     Kane's closed forms do. If there is no initial slip (u_t- = 0) but
 *     stick fails, d0 is the direction the contact would slip in,
 *     -P_t(stick)/|P_t(stick)|.
 *   The thesis text divides by alpha1 in (2.81); here the direction is the
 *   vector d0, which needs no component to be non-zero.
 *   With a coupled G the initial-direction impulse may be inconsistent (no
 *   sign s gives P_n > 0 and d0.u_t+ >= 0: the slip would reverse or rotate
 *   during the impact) or, for e > 0, add energy (Kane's energy paradox);
 *   both are refused with NSDYN_ERROR. In the random test grid
 *   (tests/test_impact_laws.c) that is about 1 in 10 coupled problems; use
 *   `newton` for coupled systems. With e = 0 it never adds energy:
 *   P_n u_n+ = 0 and P_t.u_t+ = -mu' P_n d.u_t+ <= 0 (the sign test), so
 *   dT = P.u+ - 1/2 P^T G P <= 0. A slip below SLIP_FLOOR = 1e-8 of the
 *   velocity scale counts as no initial slip (rounding, or the drift of a
 *   rolling contact held by the runner at the acceleration level only).
 *
 * kane_impulse, several contacts. Kane's model, and the thesis, treat one
 * contact per impact (the thesis runs each collision on the one plane hit,
 * Sec. 2.1-2.3, 4.1); what follows is this plugin's generalisation. The
 * runner passes every touching contact: at a concave corner of the valley
 * (rolling along the floor into the incline, down the decline onto the
 * floor) one contact is hit and the other touches with u_n = 0 (or a
 * rounding-level u_n of either sign) or separates.
 *   The law (L), per contact i: Newton's restitution as in newton's (N),
 *     0 <= P_n,i _|_ u_n,i+ + e_i u_n,i- >= 0, e_i = e if the contact
 *     approached (u_n,i- < 0), else 0 (a touching contact may take an
 *     impulse but never rebounds by itself);
 *   and friction by Kane's rule: stick (u_t,i+ = 0, |P_t,i| <= mu_s P_n,i)
 *     or slide with mu_k along the contact's initial slip,
 *     P_t,i = -mu_k P_n,i s_i d0_i, d0_i = u_t,i-/|u_t,i-|, s_i = +-1 with
 *     s_i d0_i.u_t,i+ >= 0 (no slip: d0_i against the stick impulse).
 *   1. Kane's model at one contact (kane_primary): the contact that
 *      approaches fastest gets the single-contact impulse above on its own
 *      3x3 block of G, the others none. That solves (L) if every other
 *      contact leaves with u_n,j+ + e_j u_n,j- >= 0 (to ACCEPT_TOL of the
 *      velocity scale): none is driven into approach, and one that
 *      approached leaves at least at its restitution speed. Then it is the
 *      result: exactly Kane's model. The common case: at the valley's
 *      corners (normals 30 deg apart) the sphere's other contact gets
 *      u_n,j+ = (P_n n_i + P_t).n_j/m >= P_n (cos 30 - mu sin 30)/m > 0 for
 *      mu < cot 30 = 1.73 (the thesis's mu = 1): the hit plane lifts the
 *      sphere off the other one.
 *   2. Otherwise (the impulse would drive a touching contact into its
 *      plane, as in a groove narrower than 90 deg; two contacts approach
 *      and Kane's model at one does not clear the other; or that contact
 *      alone has no consistent impulse), every touching contact takes part
 *      and (L) is solved by newton's solvers (kane_coupled): tangent_dim 1,
 *      n <= 4, the exact enumeration, where Kane's slide +-d0 and newton's
 *      post-impact slide are the same states, so (L) is newton's problem
 *      with e (Kane's strict stick test (2.53) becomes <=, which decides
 *      only on the cone's boundary); otherwise NSGS, whose one-contact
 *      solver slides along +-d0_i (slide_initial) instead of searching the
 *      post-impact direction. Sticking contacts are treated alike by both
 *      rules: there Kane's model reduces to newton's.
 *   3. Where (L) has no solution with Kane's slide rule without an energy
 *      gain (tangent_dim 2: the other contacts' impulses turn a contact's
 *      slip so far that neither sign of d0 stays consistent; the impulse
 *      adds energy; NSGS does not converge), the post-impact slip (Routh,
 *      newton's (C)) is used, i.e. newton's law with e; the phase log then
 *      says "coupled, post-impact slip". For a sphere (each contact's block
 *      diag(1/m, k1, k1)) this is Kane's single-contact model at every
 *      contact with the other contacts' impulses included in its velocity
 *      before the impact (the slip then only shrinks along its direction,
 *      so the initial and final directions agree).
 *   Energy: as for one contact, an impulse that adds energy by more than
 *   rounding is refused (Kane's energy paradox, now also through the
 *   coupling between contacts: e = 1 with friction in a corner can do it).
 *   With e = 0 every path dissipates: P_n,i u_n,i+ = 0 and
 *   P_t,i.u_t,i+ <= 0 at every contact (stick, Kane's sign test, Routh), so
 *   dT = P.u+ - 1/2 P^T G P <= 0.
 *   The phase log lists the contacts' states: "slide, open" (case 1),
 *   "coupled: stick, slide (nsgs, 25 sweeps)" (case 2).
 *   Limits: the solution of (L) need not be unique (friction; more
 *   constraint rows than velocities: two sticking contacts in a corner fix
 *   the sphere's velocity but not how the impulse is shared between them):
 *   the enumeration takes the most dissipative, NSGS the one it reaches,
 *   case 1 comes first. Contacts jammed against each other (a sphere in a
 *   groove whose walls are steeper than the friction angle, e > 0) have no
 *   solution: refused as by newton.
 *
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "impact_internal.h"

/* ---- kane_impulse: slip along the initial direction ----------------------- */

/* Sliding impulse for a given unit tangent direction d (the friction impulse
 * is -mu P_n d). Returns 0 if P_n would not be positive. */
static int slide_impulse(const double *G, const double *um, double e, double mu, const double d[2],
                         double *P, double *up) {
    double den = G[0] - mu * (G[1] * d[0] + G[2] * d[1]);
    if (!(den > 0.0)) return 0;
    P[0] = -(1.0 + e) * um[0] / den;
    P[1] = -mu * P[0] * d[0];
    P[2] = -mu * P[0] * d[1];
    post_velocity(G, um, P, up);
    return 1;
}

/* Kane's sliding solution: direction +-d0 (initial slip), sign from the
 * final slip along d0, (2.81). */
static int slide_kane(const double *G, const double *um, double e, double mu, const double d0[2],
                      double *P, double *up) {
    for (int s = 1; s >= -1; s -= 2) {
        double d[2] = {s * d0[0], s * d0[1]};
        if (!slide_impulse(G, um, e, mu, d, P, up)) continue;
        if (d[0] * up[1] + d[1] * up[2] >= 0.0) return 1;
    }
    return 0;
}

/* Kane's single-contact model (thesis Sec. 2.1.1-2.1.2) on one contact: G
 * its 3x3 Delassus block (row stride 3), um its velocity before the impact,
 * slip_min the slip below which there is no initial slip. Fills P, up and
 * *word ("stick" or "slide"); returns 0 if the contact neither sticks nor
 * slides with P_n > 0.
 *   normal (2.8), (2.46)-(2.47): u_n+ = -e u_n-;
 *   stick (2.10), (2.51)-(2.52): u_t+ = 0, accepted iff |P_t| < mu_s P_n,
 *     strict as in (2.9), (2.53);
 *   slide: along the initial slip d0 with mu_k, (2.66)-(2.67) as solved in
 *     (2.80)-(2.81) (slide_kane). */
static int kane_single(const double *G, const double *um, int dim, double e, double mu_s,
                       double mu_k, double slip_min, double *P, double *up, const char **word) {
    double rhs[3] = {-(1.0 + e) * um[0], -um[1], -um[2]}, x[3] = {0.0, 0.0, 0.0};
    const int have_stick = solve_small(G, rhs, 1 + dim, x);
    const double Pt_stick = have_stick ? hypot(x[1], dim == 2 ? x[2] : 0.0) : 0.0;
    if (have_stick && x[0] >= 0.0 && Pt_stick < mu_s * x[0]) {
        P[0] = x[0];
        P[1] = x[1];
        P[2] = dim == 2 ? x[2] : 0.0;
        post_velocity(G, um, P, up);
        *word = "stick";
        return 1;
    }
    *word = "slide";
    double d0[2] = {um[1], dim == 2 ? um[2] : 0.0}, s = hypot(d0[0], d0[1]);
    if (!(s > slip_min) && have_stick && Pt_stick > 0.0) { /* no initial slip */
        d0[0] = -x[1];
        d0[1] = dim == 2 ? -x[2] : 0.0;
        s = Pt_stick;
    }
    if (!(s > 0.0)) {
        /* No slip and no strict stick: frictionless (mu = 0, where the
         * strict no-slip test (2.53) cannot hold), any direction slides
         * without friction; else no consistent impulse. */
        if (mu_k > 0.0) return 0;
        d0[0] = s = 1.0;
        d0[1] = 0.0;
    }
    d0[0] /= s;
    d0[1] /= s;
    return slide_kane(G, um, e, mu_k, d0, P, up);
}

/* The refusal of an impulse that adds energy (Kane's energy paradox). */
static void energy_refusal(char *msg, size_t len, double dT, double e) {
    snprintf(msg, len,
             "kane_impulse: the impulse would add %g J of kinetic energy (Newton restitution "
             "e = %g with friction and a Delassus that couples normal and tangential "
             "directions, Kane's energy paradox); refused",
             dT, e);
}

/* Copy the result out, or refuse it if it adds energy (1e-9 of its terms:
 * rounding, see impact.c's header). */
static nsdyn_status kane_finish(const impact_law *law, const nsdyn_impact_problem *pr,
                                const double *P, const double *up, const char *states,
                                double *impulse, double *u_plus) {
    double dT;
    if (!impact_accept(pr, P, up, states, impulse, u_plus, &dT)) return NSDYN_OK;
    char msg[256];
    energy_refusal(msg, sizeof msg, dT, law->e);
    return fail(law, pr, msg);
}

/* No contact approaching: no impulse. */
static nsdyn_status no_impact(const nsdyn_impact_problem *pr, double *impulse, double *u_plus) {
    const size_t m = 3 * pr->n_contacts;
    memset(impulse, 0, m * sizeof *impulse);
    memcpy(u_plus, pr->u_minus, m * sizeof *u_plus);
    phase(pr, "no impact");
    return NSDYN_OK;
}

/* kane_impulse, one contact. */
nsdyn_status impact_kane(const impact_law *law, const nsdyn_impact_problem *pr, double *impulse,
                         double *u_plus) {
    const double *G = pr->delassus, *um = pr->u_minus;
    const int dim = local_dim((int)pr->tangent_dim, G);
    double P[3] = {0.0, 0.0, 0.0}, up[3];
    const char *word = "";
    if (!(um[0] < 0.0)) return no_impact(pr, impulse, u_plus);
    if (!kane_single(G, um, dim, law->e, pr->mu_static[0], pr->mu_kinetic[0],
                     SLIP_FLOOR * velocity_scale(um, 1, dim), P, up, &word)) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "kane_impulse: no consistent impulse: the contact neither sticks nor "
                 "slides with P_n >= 0 (G_nn - mu_k G_nt.d <= 0 for the slip "
                 "directions, a Painleve-type inconsistency; G_nn = %g 1/kg, "
                 "mu_k = %g)",
                 G[0], pr->mu_kinetic[0]);
        return fail(law, pr, msg);
    }
    return kane_finish(law, pr, P, up, word, impulse, u_plus);
}

/* Kane's model at contact k alone, the others without impulse. Returns 1
 * if that is a solution of the coupled law (kane_coupled): every other
 * contact j leaves with u_n,j+ + e_j u_n,j- >= 0 to rounding (ACCEPT_TOL
 * of the velocity scale us), its open state (e_j = e if it approached,
 * else 0: a resting contact must not be driven into approach). P, up get
 * all 3n rows, states the contacts' states ("slide, open"). */
static int kane_primary(const impact_law *law, const nsdyn_impact_problem *pr, size_t k, double us,
                        double *P, double *up, char *states, size_t len) {
    const size_t n = pr->n_contacts, m = 3 * n;
    const double *G = pr->delassus, *um = pr->u_minus;
    double Gk[9], Pk[3], uk[3];
    const char *word = "";
    for (size_t r = 0; r < 3; ++r)
        for (size_t q = 0; q < 3; ++q) Gk[3 * r + q] = G[m * (3 * k + r) + 3 * k + q];
    if (!kane_single(Gk, um + 3 * k, local_dim((int)pr->tangent_dim, Gk), law->e, pr->mu_static[k],
                     pr->mu_kinetic[k], SLIP_FLOOR * us, Pk, uk, &word))
        return 0;
    memset(P, 0, m * sizeof *P);
    memcpy(P + 3 * k, Pk, sizeof Pk);
    for (size_t r = 0; r < m; ++r)
        up[r] = um[r] + G[m * r + 3 * k] * Pk[0] + G[m * r + 3 * k + 1] * Pk[1] +
                G[m * r + 3 * k + 2] * Pk[2];
    size_t at = 0;
    for (size_t j = 0; j < n; ++j) {
        const double target = um[3 * j] < 0.0 ? law->e * um[3 * j] : 0.0;
        if (j != k && !(up[3 * j] + target >= -ACCEPT_TOL * us)) return 0;
        int w = snprintf(states + at, len - at, "%s%s", j ? ", " : "", j == k ? word : "open");
        if (w > 0 && (size_t)w < len - at) at += (size_t)w;
    }
    return 1;
}

/* One solve of the coupled law: 1 solved without an energy gain, 0 not
 * (msg says why). */
static int kane_attempt(const impact_law *law, phase_problem *pp, phase_result *res, char *msg,
                        size_t len) {
    if (!solve_phase_or_say(pp, res, "kane_impulse", msg, len)) return 0;
    double size, dT = energy_change(pp->G, 3 * pp->n, pp->w, res->P, &size);
    if (dT > 1e-9 * size) {
        energy_refusal(msg, len, dT, law->e);
        return 0;
    }
    return 1;
}

/* The coupled law for several contacts (header, "kane_impulse, several
 * contacts"): Newton's restitution per contact (newton's (N)), friction
 * by Kane's rule (stick, or slide along the initial slip), the same
 * solvers as newton; where Kane's rule has no consistent impulse without
 * an energy gain (tangent_dim 2), the post-impact slip (Routh, newton's
 * (C)). */
static nsdyn_status kane_coupled(const impact_law *law, const nsdyn_impact_problem *pr, double us,
                                 double *impulse, double *u_plus) {
    const size_t n = pr->n_contacts;
    const int dim = (int)pr->tangent_dim;
    const double *um = pr->u_minus;
    double c[IMPACT_MAX_CONTACTS], a[IMPACT_MAX_CONTACTS], d0[2 * IMPACT_MAX_CONTACTS];
    for (size_t i = 0; i < n; ++i) {
        const double *u = um + 3 * i, slip = hypot(u[1], dim == 2 ? u[2] : 0.0);
        c[i] = u[0] < 0.0 ? law->e * u[0] : 0.0;
        a[i] = 0.0;
        d0[2 * i] = slip > SLIP_FLOOR * us ? u[1] / slip : 0.0;
        d0[2 * i + 1] = slip > SLIP_FLOOR * us && dim == 2 ? u[2] / slip : 0.0;
    }
    phase_problem pp = phase_of(pr, um, c, a, 0, d0);
    phase_result res;
    char msg[320], other[320], states[256];
    int ok = kane_attempt(law, &pp, &res, msg, sizeof msg), routh = 0;
    if (!ok && dim == 2) { /* in 1-D both rules are the same */
        pp.d0 = NULL;
        ok = routh = kane_attempt(law, &pp, &res, other, sizeof other);
    }
    if (!ok) return fail(law, pr, msg);
    size_t at = (size_t)snprintf(states, sizeof states, "%s",
                                 routh ? "coupled, post-impact slip: " : "coupled: ");
    log_states(states, sizeof states, at, &res, n, 0);
    return kane_finish(law, pr, res.P, res.u, states, impulse, u_plus);
}

/* kane_impulse, several contacts: Kane's model at the most approaching
 * contact if the others stay consistent, else the coupled law. */
nsdyn_status impact_kane_multi(const impact_law *law, const nsdyn_impact_problem *pr,
                               double *impulse, double *u_plus) {
    const size_t n = pr->n_contacts;
    const double *um = pr->u_minus;
    const double us = velocity_scale(um, n, (int)pr->tangent_dim);
    size_t k = 0;
    for (size_t i = 1; i < n; ++i)
        if (um[3 * i] < um[3 * k]) k = i;
    if (!(um[3 * k] < 0.0)) return no_impact(pr, impulse, u_plus);
    double P[MAXR], up[MAXR];
    char states[256] = "";
    if (kane_primary(law, pr, k, us, P, up, states, sizeof states))
        return kane_finish(law, pr, P, up, states, impulse, u_plus);
    return kane_coupled(law, pr, us, impulse, u_plus);
}
