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
 * Several contacts, tangent_dim 1, n <= 4 (ENUM_MAX_CONTACTS), exact: every
 * contact is in one of the states open (P = 0, u_n+ + e_i u_n- >= 0),
 * stick, slide+ (P_t = -mu_k P_n, u_t+ >= 0) or slide- (P_t = +mu_k P_n,
 * u_t+ <= 0), the last three closed (u_n+ + e_i u_n- = 0, P_n >= 0). A
 * combination of states fixes a square linear system for the unknown
 * normal impulses of the closed contacts and the tangential impulses of the
 * sticking ones (at most 2n = 8 unknowns); all 4^n combinations are solved
 * (Gaussian elimination with complete pivoting) and a combination is
 * consistent if its equalities and inequalities hold (relative slack
 * ACCEPT_TOL, then the rounding is cleaned off: P_n >= 0 and the cone hold
 * exactly). Several consistent combinations (friction can make the problem
 * non-unique): the one with the largest energy loss, the first in the
 * enumeration on a tie. A singular system with a one-dimensional null
 * space is kept: when a body has fewer freedoms than constraint rows (the
 * curb wheel, 3 velocities, at the curb's edge and on the floor at once: 4
 * rows; a point mass stopped in a corner) the impulses are not unique; the
 * interval of the free parameter where the inequalities hold is computed
 * and the impulse of least norm in it is taken. Null spaces of dimension 2
 * or more are not decided here: if no other combination is consistent, the
 * iteration below takes over. If every combination was decided and none
 * is consistent, the law has no solution (restitution targets that
 * contradict each other, e.g. contacts wedged against each other):
 * NSDYN_ERROR "no consistent impulse".
 *
 * Several contacts otherwise (tangent_dim 2, n > 4, or undecided
 * combinations): the non-smooth block Gauss-Seidel iteration (NSGS) of
 * Moreau and Jean (M. Jean, "The non-smooth contact dynamics method",
 * CMAME 177 (1999) 235-257): sweep over the contacts and solve each
 * one-contact problem EXACTLY (local_solve, the single-contact solver above,
 * with the target u_n+ = -e_i u_n- folded into the free velocity) with the
 * other contacts' impulses frozen. This is the fixed point Y = Psi(Y) of
 * the wheel-curb paper's (106), solved contact by contact. Converged when a
 * sweep changes no contact's velocity by more than NSGS_TOL (1e-13) of the
 * largest pre-impact velocity; at most 10000 sweeps in four attempts (the
 * last three with mu_s := mu_k and under-relaxation, see nsgs()).
 * Not converged, impulses growing without bound, or a contact without a
 * consistent local impulse at the end: NSDYN_ERROR with a message through
 * the host log. This happens when no solution exists or the contacts are
 * strongly coupled: a sphere jammed in a corner whose walls are steeper
 * than the friction angle (Newton's separation targets then need a slip
 * friction forbids), or bodies with large normal-tangential coupling at
 * 2-3 contacts (about 1 in 20 random ellipsoid problems in the test grid,
 * tests/test_impact_laws.c); a sphere in a valley of moderate slopes, or
 * any plastic impact of a sphere, converges in tens to hundreds of sweeps.
 *
 * Limits: at most IMPACT_MAX_CONTACTS = 16 simultaneous contacts (fixed
 * arrays on the stack, nothing is allocated in impact()); beyond that
 * NSDYN_ERROR with a message.
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
 * Friction coefficients come from the problem (mu_static, mu_kinetic: the
 * friction law's bounds, one pair per contact); negative or non-finite ones
 * are refused with NSDYN_ERROR and a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

enum {
    IMPACT_MAX_CONTACTS = 16, /* simultaneous contacts per impact (stack arrays) */
    MAXR = 3 * IMPACT_MAX_CONTACTS,
    ENUM_MAX_CONTACTS = 4, /* exact enumeration up to this many (tangent_dim 1) */
    ENUM_MAX_UNKNOWNS = 2 * ENUM_MAX_CONTACTS,
    NSGS_CHECK = 500, /* sweeps between the divergence checks */
    N_ANGLES = 360    /* slip-angle grid of the 2-D slide search */
};
/* Slack of the inequalities of a candidate solution, relative to the
 * velocity scale (largest |u-|) or the candidate's largest impulse: a few
 * hundred roundings of the solves; decides only at exact ties (a contact
 * exactly at the stick-slip or open-closed boundary). */
#define ACCEPT_TOL 1e-11
/* NSGS: converged when no contact's velocity changes by more than this
 * fraction of the velocity scale in a sweep. */
#define NSGS_TOL 1e-13

typedef enum law_kind { LAW_NEWTON, LAW_KANE, LAW_POISSON } law_kind;

typedef struct impact_law {
    law_kind kind;
    double e; /* newton, kane_impulse: Newton's coefficient of restitution [1];
                 poisson: beta, Poisson's impulse ratio [1] */
    nsdyn_host host;
    int have_host;
} impact_law;

static const char *law_name(law_kind k) {
    return k == LAW_NEWTON ? "newton" : k == LAW_KANE ? "kane_impulse" : "poisson";
}

/* ---- parameter declarations ------------------------------------------- */

enum { P_E };
static const nsdyn_param_decl newton_params[] = {
    [P_E] = {"e", NSDYN_PARAM_REAL, "1", 0.5, 0.0, 1.0, 0,
             "Newton's coefficient of restitution: u_n+ = -e u_n- at approaching contacts "
             "(0 plastic, 1 elastic)",
             NULL, NULL, 0},
};
static const nsdyn_param_decl kane_params[] = {
    [P_E] =
        {"e", NSDYN_PARAM_REAL, "1", 0.92, 0.0, 1.0, 0,
         "restitution of the contact-point normal velocity (2.8) (default: thesis Sec. 4.2, 0.92)",
         NULL, NULL, 0},
};
static const nsdyn_param_decl poisson_params[] = {
    [P_E] = {"beta", NSDYN_PARAM_REAL, "1", 0.3, 0.0, 1.0, 0,
             "Poisson's coefficient of restitution (wheel-curb paper (16a), (35b)): restitution "
             "impulse "
             "= beta x compression impulse (0 plastic, 1 elastic)",
             NULL, NULL, 0},
};

/* ---- create / destroy -------------------------------------------------- */

static void *create(law_kind kind, const nsdyn_value *v, const nsdyn_host *host, char *err,
                    size_t len) {
    double e = v[P_E].num;
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
    impact_law *law = calloc(1, sizeof *law);
    if (!law) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    law->kind = kind;
    law->e = e;
    if (host && host->struct_size >= offsetof(nsdyn_host, log) + sizeof host->log && host->log) {
        law->host = *host;
        law->have_host = 1;
    }
    return law;
}

static void *create_newton(const nsdyn_value *v, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_NEWTON, v, host, err, len);
}

static void *create_kane(const nsdyn_value *v, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_KANE, v, host, err, len);
}

static void *create_poisson(const nsdyn_value *v, const nsdyn_host *host, char *err, size_t len) {
    return create(LAW_POISSON, v, host, err, len);
}

static void destroy(void *inst) { free(inst); }

/* ---- helpers (no allocation) -------------------------------------------- */

static void phase(const nsdyn_impact_problem *pr, const char *what) {
    if (pr->phase_log && pr->phase_log_len) snprintf(pr->phase_log, pr->phase_log_len, "%s", what);
}

/* Log an error through the host (pre-formatted, fixed buffer); the phase
 * log gets the same text (truncated to its length), for the runner's own
 * failure message. */
static nsdyn_status fail(const impact_law *law, const nsdyn_impact_problem *pr, const char *msg) {
    if (law->have_host) law->host.log(law->host.ctx, NSDYN_LOG_ERROR, msg);
    phase(pr, msg);
    return NSDYN_ERROR;
}

/* Solve A x = b, A k x k (k <= 3, row stride 3), Gaussian elimination with
 * partial pivoting. Returns 0 if A is singular to working precision. */
static int solve(const double *A, const double *b, int k, double *x) {
    double a[3][4];
    double scale = 0.0;
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            a[i][j] = A[3 * i + j];
            scale = fmax(scale, fabs(a[i][j]));
        }
        a[i][k] = b[i];
    }
    if (!(scale > 0.0)) return 0;
    for (int c = 0; c < k; ++c) {
        int p = c;
        for (int i = c + 1; i < k; ++i)
            if (fabs(a[i][c]) > fabs(a[p][c])) p = i;
        if (!(fabs(a[p][c]) > 1e-14 * scale)) return 0;
        if (p != c)
            for (int j = 0; j <= k; ++j) {
                double t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
        for (int i = c + 1; i < k; ++i) {
            double f = a[i][c] / a[c][c];
            for (int j = c; j <= k; ++j) a[i][j] -= f * a[c][j];
        }
    }
    for (int i = k - 1; i >= 0; --i) {
        double s = a[i][k];
        for (int j = i + 1; j < k; ++j) s -= a[i][j] * x[j];
        x[i] = s / a[i][i];
    }
    return 1;
}

/* u+ = u- + G P (3x3). */
static void post_velocity(const double *G, const double *um, const double *P, double *up) {
    for (int i = 0; i < 3; ++i)
        up[i] = um[i] + G[3 * i] * P[0] + G[3 * i + 1] * P[1] + G[3 * i + 2] * P[2];
}

/* dT = P.u- + 1/2 P^T G P over m rows (G row stride m), and the size of its
 * terms for the tolerance. */
static double energy_change(const double *G, size_t m, const double *um, const double *P,
                            double *size) {
    double pu = 0.0, pgp = 0.0;
    for (size_t i = 0; i < m; ++i) {
        pu += P[i] * um[i];
        for (size_t j = 0; j < m; ++j) pgp += P[i] * G[m * i + j] * P[j];
    }
    *size = fabs(pu) + 0.5 * fabs(pgp);
    return pu + 0.5 * pgp;
}

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

/* ---- the one-contact solver (newton, poisson) ----------------------------- */

/* One contact's law with the rest of the impact frozen: u = q + Gi P (Gi
 * the contact's 3x3 diagonal block of G, q its velocity with the other
 * contacts' impulses applied), normal impulse P_n = a + lam with
 *   0 <= lam  _|_  u_n + c >= 0,
 * and Coulomb (C) on u_t. newton: a = 0, c = e_i u_n,i- (so u_n + c = 0 is
 * u_n+ = -e_i u_n-); poisson compression: a = 0, c = 0 ((33a)); poisson
 * restitution: a = beta P_c,n ((35b)), c = 0 (the completion). */
typedef struct local_problem {
    const double *Gi; /* 3x3, row stride 3 [1/kg] */
    const double *q;  /* 3 [m/s] */
    double c;         /* normal offset [m/s] */
    double a;         /* fixed normal impulse [N s], >= 0 */
    double mu_s, mu_k;
    int dim;
    double tol_u;     /* slack of u_n + c >= 0 for a fixed normal impulse [m/s] */
    const double *d0; /* kane_impulse: the slip direction before the impact (2, unit, or
                         zero: none), sliding along +-d0; NULL: the post-impact slip (Routh) */
} local_problem;

/* Outcome of the one-contact solver, also the state reported per contact. */
enum { LS_FAIL = 0, LS_OPEN, LS_OPEN_STICK, LS_OPEN_SLIDE, LS_CLOSED_STICK, LS_CLOSED_SLIDE };

/* Slide along the unit direction d: P_t = -mu_k P_n d, with P_n = a when
 * the normal is open (fixed impulse), else from u_n + c = 0:
 *   P_n(d) = -(q_n + c) / (G_nn - mu_k G_nt.d),
 * whose denominator must be positive. */
static int slide_eval(const local_problem *lp, int open, const double d[2], double P[3],
                      double u[3]) {
    const double *G = lp->Gi;
    double Pn = lp->a;
    if (!open) {
        double den = G[0] - lp->mu_k * (G[1] * d[0] + G[2] * d[1]);
        if (!(den > 0.0)) return 0;
        Pn = -(lp->q[0] + lp->c) / den;
    }
    P[0] = Pn;
    P[1] = -lp->mu_k * Pn * d[0];
    P[2] = -lp->mu_k * Pn * d[1];
    post_velocity(G, lp->q, P, u);
    return 1;
}

/* Consistency of the 2-D slide search: g(th) = d x u_t(d) with
 * d = (cos th, sin th), scaled by the positive denominator when the normal
 * is closed, g = den (d x u_t) = d x (den q_t - (q_n + c)(G_tn - mu_k G_tt d)),
 * a trigonometric polynomial without the pole of P_n(d) at den = 0 (the
 * form of Siconos' one-contact "quartic" solver). Its sign changes bracket
 * the slip directions even where P_n(d) is large. */
static double slide_residual(const local_problem *lp, int open, double th) {
    const double *G = lp->Gi, *q = lp->q, mu = lp->mu_k, d[2] = {cos(th), sin(th)};
    double U[2];
    for (int j = 0; j < 2; ++j) {
        const double *Gt = G + 3 * (1 + j); /* row t_j: G_tn, G_tt1, G_tt2 */
        double w = Gt[0] - mu * (Gt[1] * d[0] + Gt[2] * d[1]);
        if (open)
            U[j] = q[1 + j] + w * lp->a;
        else
            U[j] = (G[0] - mu * (G[1] * d[0] + G[2] * d[1])) * q[1 + j] - (q[0] + lp->c) * w;
    }
    return d[0] * U[1] - d[1] * U[0];
}

typedef struct slide_best {
    double dT, P[3], u[3];
    int found;
} slide_best;

/* A candidate with a consistent slip direction: check its normal condition
 * and keep the one that dissipates most (local dT = P.q + 1/2 P^T Gi P). */
static void slide_keep(const local_problem *lp, int open, const double P[3], const double u[3],
                       slide_best *b) {
    if (open ? !(u[0] + lp->c >= -lp->tol_u) : !(P[0] >= lp->a - ACCEPT_TOL * lp->a)) return;
    double size, dT = energy_change(lp->Gi, 3, lp->q, P, &size);
    if (dT < b->dT) {
        b->dT = dT;
        memcpy(b->P, P, 3 * sizeof *P);
        memcpy(b->u, u, 3 * sizeof *u);
        b->found = 1;
    }
}

/* Sliding solution with d the post-impact slip direction (Routh, (15b)). */
static int slide_search(const local_problem *lp, int open, double *P, double *up) {
    slide_best b = {HUGE_VAL, {0, 0, 0}, {0, 0, 0}, 0};
    double Pc[3], uc[3];
    if (lp->dim == 1) {
        for (int s = -1; s <= 1; s += 2) {
            double d[2] = {(double)s, 0.0};
            if (!slide_eval(lp, open, d, Pc, uc)) continue;
            if (!(s * uc[1] >= 0.0)) continue;
            slide_keep(lp, open, Pc, uc, &b);
        }
    } else {
        /* g is 2 pi-periodic: the last interval ends at th = 2 pi with the
         * value computed at th = 0 (cos and sin of 2 pi are not exactly 1 and
         * 0, so a root at th = 0 could otherwise fall between the two). */
        const double h = 6.283185307179586 / N_ANGLES; /* 2 pi / N */
        const double g_first = slide_residual(lp, open, 0.0);
        double f0 = g_first;
        for (int k = 1; k <= N_ANGLES; ++k) {
            double a = (k - 1) * h, bnd = k * h;
            double f1 = k < N_ANGLES ? slide_residual(lp, open, bnd) : g_first;
            if ((f0 <= 0.0 && f1 >= 0.0) || (f0 >= 0.0 && f1 <= 0.0)) {
                /* Bisection on [a, bnd] down to rounding. */
                double fa = f0, lo = a, hi = bnd;
                for (int it = 0; it < 60 && hi - lo > 1e-15; ++it) {
                    double mid = 0.5 * (lo + hi);
                    double fm = slide_residual(lp, open, mid);
                    if ((fa <= 0.0 && fm <= 0.0) || (fa >= 0.0 && fm >= 0.0)) {
                        lo = mid;
                        fa = fm;
                    } else {
                        hi = mid;
                    }
                }
                double th = 0.5 * (lo + hi), d[2] = {cos(th), sin(th)};
                if (slide_eval(lp, open, d, Pc, uc) && d[0] * uc[1] + d[1] * uc[2] > 0.0)
                    slide_keep(lp, open, Pc, uc, &b);
            }
            f0 = f1;
        }
    }
    if (!b.found) return 0;
    memcpy(P, b.P, sizeof b.P);
    memcpy(up, b.u, sizeof b.u);
    return 1;
}

/* Kane's slip rule in a closed contact (tangent_dim 2): slide along +-d0,
 * the slip direction before the impact (the generalisation of (2.80)-(2.81)
 * in kane_single), with the sign for which the slip does not reverse along
 * d0 (d.u_t >= 0); both signs consistent (strong coupling): the more
 * dissipative. Without an initial slip (d0 = 0), d0 is the direction the
 * contact would slip in, against the stick impulse x_t (x from the stick
 * solve, zero if singular). Returns 0 if no sign gives P_n >= 0. */
static int slide_initial(const local_problem *lp, const double x[3], double *P, double *up) {
    double d0[2] = {lp->d0[0], lp->d0[1]};
    if (!(d0[0] != 0.0 || d0[1] != 0.0)) {
        d0[0] = -x[1];
        d0[1] = -x[2];
    }
    const double s = hypot(d0[0], d0[1]);
    if (!(s > 0.0)) return 0;
    slide_best b = {HUGE_VAL, {0, 0, 0}, {0, 0, 0}, 0};
    for (int sg = 1; sg >= -1; sg -= 2) {
        double d[2] = {sg * d0[0] / s, sg * d0[1] / s}, Pc[3], uc[3];
        if (slide_eval(lp, 0, d, Pc, uc) && d[0] * uc[1] + d[1] * uc[2] >= 0.0)
            slide_keep(lp, 0, Pc, uc, &b);
    }
    if (!b.found) return 0;
    memcpy(P, b.P, sizeof b.P);
    memcpy(up, b.u, sizeof b.u);
    return 1;
}

/* The tangent dimension of one contact: the problem's, except that a
 * contact whose t2 row of the block is zero (a planar contact in a problem
 * that also holds spatial ones; contact.h asks for one tangent_dim, a
 * runner may pass the largest) is solved as tangent_dim 1, its P_t2 = 0:
 * with a zero G_t2t2 its stick system would be singular. */
static int local_dim(int dim, const double Gi[9]) { return dim == 2 && Gi[8] > 0.0 ? 2 : 1; }

/* The exact one-contact solution. Preference: open (no impulse beyond a:
 * "not approaching, no impulse"), then closed stick, then closed slide (the
 * most dissipative consistent slip direction). Returns LS_*. */
static int local_solve(const local_problem *lp, double P[3], double u[3]) {
    const double *G = lp->Gi, *q = lp->q, a = lp->a, c = lp->c;
    const int dim = lp->dim;
    double x[3] = {0.0, 0.0, 0.0};
    if (!(a > 0.0)) {
        if (q[0] + c >= 0.0) {
            P[0] = P[1] = P[2] = 0.0;
            memcpy(u, q, 3 * sizeof *q);
            return LS_OPEN;
        }
    } else {
        /* Normal impulse fixed at a: stick solves the tangent rows
         * G_tt P_t = -(q_t + G_tn a). */
        double A[9] = {0}, r[3] = {0.0, 0.0, 0.0};
        for (int i = 0; i < dim; ++i) {
            for (int j = 0; j < dim; ++j) A[3 * i + j] = G[3 * (i + 1) + j + 1];
            r[i] = -(q[1 + i] + G[3 * (1 + i)] * a);
        }
        if (solve(A, r, dim, x) && hypot(x[0], dim == 2 ? x[1] : 0.0) <= lp->mu_s * a) {
            P[0] = a;
            P[1] = x[0];
            P[2] = dim == 2 ? x[1] : 0.0;
            post_velocity(G, q, P, u);
            if (u[0] + c >= -lp->tol_u) return LS_OPEN_STICK;
        }
        if (slide_search(lp, 1, P, u)) return LS_OPEN_SLIDE;
    }
    /* Closed stick: G P = (-(q_n + c), -q_t) on the first 1 + dim rows. */
    double rhs[3] = {-(q[0] + c), -q[1], -q[2]};
    x[0] = x[1] = x[2] = 0.0;
    if (solve(G, rhs, 1 + dim, x) && x[0] >= a - ACCEPT_TOL * a &&
        hypot(x[1], dim == 2 ? x[2] : 0.0) <= lp->mu_s * x[0]) {
        P[0] = x[0];
        P[1] = x[1];
        P[2] = dim == 2 ? x[2] : 0.0;
        post_velocity(G, q, P, u);
        return LS_CLOSED_STICK;
    }
    if (lp->d0 && dim == 2) return slide_initial(lp, x, P, u) ? LS_CLOSED_SLIDE : LS_FAIL;
    if (slide_search(lp, 0, P, u)) return LS_CLOSED_SLIDE;
    return LS_FAIL;
}

/* ---- several contacts ------------------------------------------------------ */

/* One phase of an impact (newton's impact, poisson's compression or
 * restitution): u = w + G P, every contact with its local law as in
 * local_problem. */
typedef struct phase_problem {
    size_t n;        /* contacts, 1..IMPACT_MAX_CONTACTS */
    int dim;         /* tangent_dim */
    const double *G; /* 3n x 3n [1/kg] */
    const double *w; /* 3n velocities without this phase's impulse [m/s] */
    const double *c; /* n normal offsets [m/s] */
    const double *a; /* n fixed normal impulses [N s] */
    const double *mu_s, *mu_k;
    int restitution;  /* poisson's restitution: try all contacts open first */
    const double *d0; /* kane_impulse: 2n initial slip directions (local_problem.d0), or NULL */
    double us;        /* velocity scale [m/s] */
    double ps;        /* impulse scale floor us / max G_ii [N s] */
} phase_problem;

enum { M_NONE, M_LOCAL, M_ENUM, M_NSGS };

typedef struct phase_result {
    double P[MAXR], u[MAXR];
    int state[IMPACT_MAX_CONTACTS]; /* LS_* */
    int method;                     /* M_* */
    int sweeps;                     /* NSGS sweeps */
    double change;                  /* NSGS: last sweep's largest change [m/s] */
    int failed_contact;             /* a contact without a local solution, or -1 */
    int diverged;                   /* NSGS: the impulses grew without bound */
} phase_result;

/* u = w + G P over all 3n rows. */
static void phase_velocity(const phase_problem *pp, const double *P, double *u) {
    const size_t m = 3 * pp->n;
    for (size_t r = 0; r < m; ++r) {
        double s = pp->w[r];
        for (size_t j = 0; j < m; ++j) s += pp->G[m * r + j] * P[j];
        u[r] = s;
    }
}

/* Non-smooth block Gauss-Seidel (Jean 1999; the paper's (106)): each
 * contact's exact one-contact solution with the others frozen, until a
 * sweep changes no velocity by more than NSGS_TOL us. Four attempts, each
 * continuing from the last iterate (nsgs_attempts):
 *   1. the law as stated (stick within mu_s, slide with mu_k), plain
 *      updates;
 *   2. mu_s replaced by mu_k. With mu_s > mu_k the friction impulse drops
 *      from mu_s P_n to mu_k P_n when a contact starts to slip; with
 *      several coupled contacts this hysteresis can leave no consistent
 *      combination near the stick-slip threshold, and the sweeps cycle
 *      between stick and slip. Coulomb's law with the single coefficient
 *      mu_k has a solution when G is positive definite (the discrete
 *      frictional contact problem; A. Klarbring, J.-S. Pang, "Existence of
 *      solutions to discrete semicoercive frictional contact problems",
 *      SIAM J. Optim. 8 (1998), and the coercive case cited there), and
 *      every such solution is one of the stated law (a stick within mu_k
 *      is within mu_s);
 *   3., 4. as 2. with under-relaxed updates P_i += omega (P_i,local - P_i),
 *      omega = 1/2 and 1/4 (the same fixed points; damps cycling).
 * Stops when the impulses grow without bound (checked every NSGS_CHECK
 * sweeps: a contact's impulse alone changes a velocity by more than
 * 1000 us, half as much again as at the last check). That is a jam: an
 * impulse that squeezes the body between two contacts inside both friction
 * cones changes no velocity (W^T P = 0, G singular: a sphere in a V-groove
 * whose walls are steeper than the friction angle can roll along the
 * groove without slipping at either wall), so the iteration drifts along
 * it; the rigid impact is then indeterminate.
 * Returns 1 converged, 0 not converged, -1 diverged. */
static const struct {
    int kinetic;  /* mu_s := mu_k */
    double omega; /* relaxation */
    int sweeps;
} nsgs_attempts[] = {{0, 1.0, 1000}, {1, 1.0, 1000}, {1, 0.5, 4000}, {1, 0.25, 4000}};

static int nsgs(const phase_problem *pp, phase_result *res) {
    const size_t n = pp->n, m = 3 * n;
    double *P = res->P, last_size = HUGE_VAL;
    for (size_t i = 0; i < n; ++i) {
        P[3 * i] = pp->a[i];
        P[3 * i + 1] = P[3 * i + 2] = 0.0;
    }
    res->method = M_NSGS;
    res->sweeps = 0;
    for (size_t at = 0; at < NSDYN_COUNT(nsgs_attempts); ++at) {
        const int kinetic = nsgs_attempts[at].kinetic;
        const double om = nsgs_attempts[at].omega;
        for (int sweep = 1; sweep <= nsgs_attempts[at].sweeps; ++sweep) {
            double change = 0.0, size = 0.0;
            int bad = -1;
            for (size_t i = 0; i < n; ++i) {
                double Gi[9], q[3], Pi[3], ui[3];
                for (size_t r = 0; r < 3; ++r) {
                    const double *row = pp->G + m * (3 * i + r);
                    double s = pp->w[3 * i + r];
                    for (size_t j = 0; j < m; ++j)
                        if (j / 3 != i) s += row[j] * P[j];
                    q[r] = s;
                    for (size_t k = 0; k < 3; ++k) Gi[3 * r + k] = row[3 * i + k];
                }
                local_problem lp = {Gi,
                                    q,
                                    pp->c[i],
                                    pp->a[i],
                                    kinetic ? pp->mu_k[i] : pp->mu_s[i],
                                    pp->mu_k[i],
                                    local_dim(pp->dim, Gi),
                                    ACCEPT_TOL * pp->us,
                                    pp->d0 ? pp->d0 + 2 * i : NULL};
                int st = local_solve(&lp, Pi, ui);
                if (!st) {
                    bad = (int)i;
                    continue;
                }
                const double gd = fmax(Gi[0], fmax(Gi[4], pp->dim == 2 ? Gi[8] : 0.0));
                for (size_t k = 0; k < 3; ++k) {
                    change = fmax(change, gd * fabs(Pi[k] - P[3 * i + k]));
                    size = fmax(size, gd * fabs(Pi[k]));
                }
                if (om < 1.0)
                    for (size_t k = 0; k < 3; ++k)
                        Pi[k] = P[3 * i + k] + om * (Pi[k] - P[3 * i + k]);
                memcpy(P + 3 * i, Pi, sizeof Pi);
                res->state[i] = st;
            }
            res->sweeps++;
            res->change = change;
            res->failed_contact = bad;
            if (bad < 0 && change <= NSGS_TOL * pp->us) {
                phase_velocity(pp, P, res->u);
                return 1;
            }
            if (res->sweeps % NSGS_CHECK == 0) {
                if (size > 1000.0 * pp->us && size > 1.5 * last_size) return -1;
                last_size = size;
            }
        }
    }
    return 0;
}

/* -- exact enumeration (tangent_dim 1, n <= ENUM_MAX_CONTACTS) -- */

/* Enumeration states: normal open (impulse a) or closed (u_n + c = 0),
 * tangent free (no impulse, only open with a = 0), stick (u_t = 0),
 * slide+ (P_t = -mu_k P_n, u_t >= 0) or slide- (P_t = +mu_k P_n, u_t <= 0). */
enum {
    ES_OPEN_FREE,
    ES_OPEN_STICK,
    ES_OPEN_POS,
    ES_OPEN_NEG,
    ES_CLOSED_STICK,
    ES_CLOSED_POS,
    ES_CLOSED_NEG
};

static int es_closed(int s) { return s >= ES_CLOSED_STICK; }
static int es_stick(int s) { return s == ES_OPEN_STICK || s == ES_CLOSED_STICK; }
static int es_slide(int s) { /* +1, -1 or 0 */
    return s == ES_OPEN_POS || s == ES_CLOSED_POS   ? 1
           : s == ES_OPEN_NEG || s == ES_CLOSED_NEG ? -1
                                                    : 0;
}

/* Impulses of a combination for the unknowns x (normal impulses of closed
 * contacts at kn[i], tangential impulses of sticking ones at kt[i]). */
static void combo_impulse(const phase_problem *pp, const int *st, const int *kn, const int *kt,
                          const double *x, double *P) {
    for (size_t i = 0; i < pp->n; ++i) {
        double Pn = es_closed(st[i]) ? x[kn[i]] : st[i] == ES_OPEN_FREE ? 0.0 : pp->a[i];
        double Pt = es_stick(st[i]) ? x[kt[i]] : -es_slide(st[i]) * pp->mu_k[i] * Pn;
        P[3 * i] = Pn;
        P[3 * i + 1] = Pt;
        P[3 * i + 2] = 0.0;
    }
}

/* The inequalities of a combination at (P, u), each as a value that must be
 * >= -slack; returns their number (<= 3n). */
static int combo_ineq(const phase_problem *pp, const int *st, const double *P, const double *u,
                      double tolP, double tolU, double *g, double *slack) {
    int k = 0;
    for (size_t i = 0; i < pp->n; ++i) {
        double Pn = P[3 * i], Pt = P[3 * i + 1], un = u[3 * i] + pp->c[i], ut = u[3 * i + 1];
        if (es_closed(st[i])) {
            g[k] = Pn - pp->a[i];
            slack[k++] = tolP;
        } else {
            g[k] = un;
            slack[k++] = tolU;
        }
        if (es_stick(st[i])) {
            g[k] = pp->mu_s[i] * Pn - Pt;
            slack[k++] = tolP;
            g[k] = pp->mu_s[i] * Pn + Pt;
            slack[k++] = tolP;
        } else if (es_slide(st[i])) {
            g[k] = es_slide(st[i]) * ut;
            slack[k++] = tolU;
        }
    }
    return k;
}

static double max_abs(const double *v, size_t m) {
    double s = 0.0;
    for (size_t i = 0; i < m; ++i) s = fmax(s, fabs(v[i]));
    return s;
}

/* Does the combination hold at (P, u), equalities and inequalities? */
static int combo_holds(const phase_problem *pp, const int *st, const double *P, const double *u) {
    double g[MAXR], slack[MAXR];
    double tolU = ACCEPT_TOL * pp->us, tolP = ACCEPT_TOL * fmax(max_abs(P, 3 * pp->n), pp->ps);
    int k = combo_ineq(pp, st, P, u, tolP, tolU, g, slack);
    for (int j = 0; j < k; ++j)
        if (!(g[j] >= -slack[j])) return 0;
    for (size_t i = 0; i < pp->n; ++i) {
        if (es_closed(st[i]) && !(fabs(u[3 * i] + pp->c[i]) <= tolU)) return 0;
        if (es_stick(st[i]) && !(fabs(u[3 * i + 1]) <= tolU)) return 0;
    }
    return 1;
}

/* Solve A x = b (k x k, k <= ENUM_MAX_UNKNOWNS, row stride
 * ENUM_MAX_UNKNOWNS) by Gaussian elimination with complete pivoting. Returns
 * the rank (pivots above 1e-12 of the largest |A_ij|), or -1 if the system
 * is inconsistent. x gets a solution with the free unknowns zero; if the
 * rank is k - 1, nul gets the null vector (free unknown one). A and b are
 * overwritten. */
static int gauss_complete(double *A, double *b, int k, double *x, double *nul) {
    enum { S = ENUM_MAX_UNKNOWNS };
    int col[S];
    double amax = 0.0, bmax = 0.0, y[S], yn[S];
    for (int i = 0; i < k; ++i) {
        col[i] = i;
        bmax = fmax(bmax, fabs(b[i]));
        for (int j = 0; j < k; ++j) amax = fmax(amax, fabs(A[S * i + j]));
    }
    int r = 0;
    for (; r < k && amax > 0.0; ++r) {
        int pi = r, pj = r;
        double best = 0.0;
        for (int i = r; i < k; ++i)
            for (int j = r; j < k; ++j)
                if (fabs(A[S * i + j]) > best) {
                    best = fabs(A[S * i + j]);
                    pi = i;
                    pj = j;
                }
        if (!(best > 1e-12 * amax)) break;
        if (pi != r) {
            for (int j = 0; j < k; ++j) {
                double t = A[S * r + j];
                A[S * r + j] = A[S * pi + j];
                A[S * pi + j] = t;
            }
            double t = b[r];
            b[r] = b[pi];
            b[pi] = t;
        }
        if (pj != r) {
            for (int i = 0; i < k; ++i) {
                double t = A[S * i + r];
                A[S * i + r] = A[S * i + pj];
                A[S * i + pj] = t;
            }
            int t = col[r];
            col[r] = col[pj];
            col[pj] = t;
        }
        for (int i = r + 1; i < k; ++i) {
            double f = A[S * i + r] / A[S * r + r];
            for (int j = r; j < k; ++j) A[S * i + j] -= f * A[S * r + j];
            b[i] -= f * b[r];
        }
    }
    for (int i = r; i < k; ++i)
        if (!(fabs(b[i]) <= 1e-9 * bmax)) return -1;
    for (int j = 0; j < k; ++j) y[j] = yn[j] = 0.0;
    if (r == k - 1) yn[k - 1] = 1.0;
    for (int i = r - 1; i >= 0; --i) {
        double s = b[i], sn = r == k - 1 ? -A[S * i + k - 1] : 0.0;
        for (int j = i + 1; j < r; ++j) {
            s -= A[S * i + j] * y[j];
            sn -= A[S * i + j] * yn[j];
        }
        y[i] = s / A[S * i + i];
        yn[i] = sn / A[S * i + i];
    }
    for (int j = 0; j < k; ++j) {
        x[col[j]] = y[j];
        nul[col[j]] = yn[j];
    }
    return r;
}

/* Try one combination: 1 consistent (P and u hold its solution), 0 not,
 * -1 undecided (a null space of dimension >= 2). */
static int combo_solve(const phase_problem *pp, const int *st, double *P, double *u) {
    enum { S = ENUM_MAX_UNKNOWNS };
    const size_t n = pp->n, m = 3 * n;
    int kn[ENUM_MAX_CONTACTS], kt[ENUM_MAX_CONTACTS], rows[S], k = 0;
    double cterm[S];
    for (size_t i = 0; i < n; ++i) {
        kn[i] = kt[i] = -1;
        if (es_closed(st[i])) {
            kn[i] = k;
            rows[k] = (int)(3 * i);
            cterm[k++] = pp->c[i];
        }
        if (es_stick(st[i])) {
            kt[i] = k;
            rows[k] = (int)(3 * i + 1);
            cterm[k++] = 0.0;
        }
    }
    /* P is affine in x: P = P0 + sum_k x_k B_k, and u = U0 + sum_k x_k GB_k. */
    double x[S] = {0}, nul[S] = {0}, U0[MAXR], GB[S][3 * ENUM_MAX_CONTACTS];
    combo_impulse(pp, st, kn, kt, x, P);
    phase_velocity(pp, P, U0);
    for (int j = 0; j < k; ++j) {
        double Bj[3 * ENUM_MAX_CONTACTS];
        x[j] = 1.0;
        combo_impulse(pp, st, kn, kt, x, Bj);
        x[j] = 0.0;
        for (size_t r = 0; r < m; ++r) Bj[r] -= P[r];
        for (size_t r = 0; r < m; ++r) {
            double s = 0.0;
            for (size_t q = 0; q < m; ++q) s += pp->G[m * r + q] * Bj[q];
            GB[j][r] = s;
        }
    }
    if (k > 0) {
        double A[S * S], b[S];
        for (int e = 0; e < k; ++e) {
            for (int j = 0; j < k; ++j) A[S * e + j] = GB[j][rows[e]];
            b[e] = -(U0[rows[e]] + cterm[e]);
        }
        int rank = gauss_complete(A, b, k, x, nul);
        if (rank < 0) return 0;      /* inconsistent */
        if (rank < k - 1) return -1; /* a null space of dimension >= 2: undecided */
        if (rank == k - 1) {
            /* One free parameter z: x = x0 + z nul. Every inequality is
             * affine in z; take the impulse of least norm in the interval
             * where they all hold. */
            double P0[3 * ENUM_MAX_CONTACTS], P1[3 * ENUM_MAX_CONTACTS], u0[MAXR], u1[MAXR], x1[S];
            double g0[MAXR], g1[MAXR], s0[MAXR];
            for (int j = 0; j < k; ++j) x1[j] = x[j] + nul[j];
            combo_impulse(pp, st, kn, kt, x, P0);
            combo_impulse(pp, st, kn, kt, x1, P1);
            phase_velocity(pp, P0, u0);
            phase_velocity(pp, P1, u1);
            int ng = combo_ineq(pp, st, P0, u0, 0.0, 0.0, g0, s0);
            combo_ineq(pp, st, P1, u1, 0.0, 0.0, g1, s0);
            double lo = -HUGE_VAL, hi = HUGE_VAL, xn = 0.0, nn = 0.0;
            for (int j = 0; j < ng; ++j) {
                double d = g1[j] - g0[j];
                if (d > 0.0)
                    lo = fmax(lo, -g0[j] / d);
                else if (d < 0.0)
                    hi = fmin(hi, -g0[j] / d);
            }
            for (int j = 0; j < k; ++j) {
                xn += x[j] * nul[j];
                nn += nul[j] * nul[j];
            }
            double z = -xn / nn;
            if (lo <= hi)
                z = fmin(fmax(z, lo), hi);
            else
                z = 0.5 * (lo + hi); /* empty up to rounding: the check decides */
            if (!isfinite(z)) return 0;
            for (int j = 0; j < k; ++j) x[j] += z * nul[j];
        }
    }
    combo_impulse(pp, st, kn, kt, x, P);
    for (size_t r = 0; r < m; ++r) {
        double s = U0[r];
        for (int j = 0; j < k; ++j) s += x[j] * GB[j][r];
        u[r] = s;
    }
    return combo_holds(pp, st, P, u);
}

/* All combinations of states; keeps the consistent one with the largest
 * energy loss (dT = P.w + 1/2 P^T G P, the phase's change of kinetic
 * energy). open_only: the normal impulses fixed at a (poisson's (35b)).
 * Returns 1 if found; 0 if none and every combination was decided (the law
 * has no solution: exact); -1 if none but some combination had a null
 * space of dimension >= 2 and was not decided. */
static int enumerate(const phase_problem *pp, int open_only, phase_result *res) {
    static const int with_a[6] = {ES_OPEN_STICK,   ES_OPEN_POS,   ES_OPEN_NEG,
                                  ES_CLOSED_STICK, ES_CLOSED_POS, ES_CLOSED_NEG};
    static const int without_a[4] = {ES_OPEN_FREE, ES_CLOSED_STICK, ES_CLOSED_POS, ES_CLOSED_NEG};
    const size_t n = pp->n, m = 3 * n;
    int count[ENUM_MAX_CONTACTS], idx[ENUM_MAX_CONTACTS] = {0}, st[ENUM_MAX_CONTACTS];
    int best_st[ENUM_MAX_CONTACTS];
    const int *list[ENUM_MAX_CONTACTS];
    for (size_t i = 0; i < n; ++i) {
        int has_a = pp->a[i] > 0.0;
        list[i] = has_a ? with_a : without_a;
        count[i] = open_only ? (has_a ? 3 : 1) : (has_a ? 6 : 4);
    }
    double best = HUGE_VAL, P[MAXR], u[MAXR];
    int found = 0, undecided = 0;
    for (;;) {
        for (size_t i = 0; i < n; ++i) st[i] = list[i][idx[i]];
        int r = combo_solve(pp, st, P, u);
        undecided |= r < 0;
        if (r > 0) {
            double size, dT = energy_change(pp->G, m, pp->w, P, &size);
            if (!found || dT < best - 1e-12 * fabs(best)) {
                best = dT;
                found = 1;
                memcpy(res->P, P, m * sizeof *P);
                memcpy(res->u, u, m * sizeof *u);
                memcpy(best_st, st, n * sizeof *st);
            }
        }
        size_t i = 0;
        while (i < n && ++idx[i] == count[i]) idx[i++] = 0;
        if (i == n) break;
    }
    if (!found) return undecided ? -1 : 0;
    /* Clean the rounding off the inequalities: P_n >= a, |P_t| <= mu_s P_n. */
    for (size_t i = 0; i < n; ++i) {
        double *Pi = res->P + 3 * i;
        int s = best_st[i];
        if (es_closed(s) && Pi[0] < pp->a[i]) Pi[0] = pp->a[i];
        if (es_slide(s)) Pi[1] = -es_slide(s) * pp->mu_k[i] * Pi[0];
        if (es_stick(s)) Pi[1] = fmax(-pp->mu_s[i] * Pi[0], fmin(Pi[1], pp->mu_s[i] * Pi[0]));
        res->state[i] = s == ES_OPEN_FREE ? LS_OPEN
                        : es_closed(s)    ? (es_stick(s) ? LS_CLOSED_STICK : LS_CLOSED_SLIDE)
                                          : (es_stick(s) ? LS_OPEN_STICK : LS_OPEN_SLIDE);
    }
    phase_velocity(pp, res->P, res->u);
    res->method = M_ENUM;
    return 1;
}

/* Solve one phase: trivially (nothing approaching), exactly (one contact,
 * or enumeration), else by NSGS. Returns 1 on success. */
static int solve_phase(phase_problem *pp, phase_result *res) {
    const size_t n = pp->n, m = 3 * n;
    memset(res, 0, sizeof *res);
    res->failed_contact = -1;
    /* Scales: the largest velocity of the used rows, including what the
     * fixed impulses a produce, and the impulse that changes it by us. */
    double us = 0.0, gmax = 0.0;
    int nothing = 1;
    for (size_t i = 0; i < n; ++i) {
        for (size_t r = 0; r <= (size_t)pp->dim; ++r) {
            const double *row = pp->G + m * (3 * i + r);
            double s = fabs(pp->w[3 * i + r]);
            for (size_t j = 0; j < n; ++j) s += fabs(row[3 * j]) * pp->a[j];
            us = fmax(us, s);
            gmax = fmax(gmax, row[3 * i + r]);
        }
        us = fmax(us, fabs(pp->c[i]));
        if (pp->a[i] > 0.0 || !(pp->w[3 * i] + pp->c[i] >= 0.0)) nothing = 0;
    }
    pp->us = us;
    pp->ps = gmax > 0.0 ? us / gmax : 0.0;
    if (nothing) { /* no contact approaching: no impulse */
        memset(res->P, 0, m * sizeof *res->P);
        memcpy(res->u, pp->w, m * sizeof *res->u);
        for (size_t i = 0; i < n; ++i) res->state[i] = LS_OPEN;
        res->method = M_NONE;
        return 1;
    }
    if (n == 1) {
        local_problem lp = {pp->G,
                            pp->w,
                            pp->c[0],
                            pp->a[0],
                            pp->mu_s[0],
                            pp->mu_k[0],
                            local_dim(pp->dim, pp->G),
                            ACCEPT_TOL * us,
                            pp->d0};
        res->method = M_LOCAL;
        res->state[0] = local_solve(&lp, res->P, res->u);
        if (!res->state[0]) res->failed_contact = 0;
        return res->state[0] != LS_FAIL;
    }
    if (pp->dim == 1 && n <= ENUM_MAX_CONTACTS) {
        if (pp->restitution && enumerate(pp, 1, res) > 0) return 1;
        int r = enumerate(pp, 0, res);
        if (r > 0) return 1;
        if (r == 0) { /* every combination decided: no solution exists */
            res->method = M_ENUM;
            return 0;
        }
    }
    int r = nsgs(pp, res);
    res->diverged = r < 0;
    return r > 0;
}

/* ---- impact ------------------------------------------------------------- */

/* The phase log's word for a contact's state. */
static const char *state_word(int s, int restitution) {
    switch (s) {
        case LS_OPEN: return "open";
        case LS_OPEN_STICK: return "stick";
        case LS_OPEN_SLIDE: return "slide";
        case LS_CLOSED_STICK: return restitution ? "held stick" : "stick";
        case LS_CLOSED_SLIDE: return restitution ? "held slide" : "slide";
        default: return "?";
    }
}

/* Append "w0, w1, ..." (and the NSGS sweeps) to buf. */
static size_t log_states(char *buf, size_t len, size_t at, const phase_result *res, size_t n,
                         int restitution) {
    for (size_t i = 0; i < n && at < len; ++i) {
        int k = snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                         state_word(res->state[i], restitution));
        if (k < 0) return at;
        at += (size_t)k;
    }
    if (res->method == M_NSGS && at < len) {
        int k = snprintf(buf + at, len - at, " (nsgs, %d sweeps)", res->sweeps);
        if (k > 0) at += (size_t)k;
    }
    return at < len ? at : len - 1;
}

/* The message for a phase that found no impulse. */
static void phase_failure(char *msg, size_t len, const char *who, const phase_problem *pp,
                          const phase_result *res) {
    if (pp->n == 1) {
        snprintf(msg, len,
                 "%s: no consistent impulse: the contact neither sticks nor slides with "
                 "P_n >= 0 (G_nn - mu_k G_nt.d <= 0 for the slip directions, a "
                 "Painleve-type inconsistency; G_nn = %g 1/kg, mu_k = %g)",
                 who, pp->G[0], pp->mu_k[0]);
    } else if (res->method == M_ENUM) {
        snprintf(msg, len,
                 "%s: no consistent impulse for %zu simultaneous contacts: no combination of "
                 "open, sticking and sliding contacts satisfies the law (the restitution "
                 "targets and friction cones cannot all be met: a wedged configuration or a "
                 "Painleve-type coupling)",
                 who, pp->n);
    } else if (res->diverged) {
        snprintf(msg, len,
                 "%s: no bounded impulse for %zu simultaneous contacts: the impulses of the "
                 "non-smooth Gauss-Seidel iteration (NSGS) grow without bound (%d sweeps): the "
                 "contacts jam (a squeeze between them inside the friction cones changes no "
                 "velocity) or their restitution targets cannot all be met",
                 who, pp->n, res->sweeps);
    } else if (res->failed_contact >= 0) {
        size_t i = (size_t)res->failed_contact, m = 3 * pp->n;
        snprintf(msg, len,
                 "%s: no consistent impulse for %zu simultaneous contacts: after %d "
                 "NSGS sweeps contact %zu neither sticks nor slides with P_n >= 0 given "
                 "the others (a Painleve-type inconsistency; G_nn = %g 1/kg, mu_k = %g)",
                 who, pp->n, res->sweeps, i, pp->G[m * 3 * i + 3 * i], pp->mu_k[i]);
    } else {
        snprintf(msg, len,
                 "%s: the non-smooth Gauss-Seidel iteration (NSGS) did not converge for %zu "
                 "simultaneous contacts (tangent_dim %d): a sweep still changes a contact "
                 "velocity by %.3g m/s after %d sweeps (tolerance %.3g m/s; strongly "
                 "coupled contacts, possibly without a solution)",
                 who, pp->n, pp->dim, res->change, res->sweeps, NSGS_TOL * pp->us);
    }
}

/* ---- kane_impulse ------------------------------------------------------------ */

/* A slip below this fraction of the velocity scale counts as no initial
 * slip: its direction would be rounding, or the drift of a rolling contact
 * that the runner holds at the acceleration level only (integration error,
 * about rtol |v|). */
#define SLIP_FLOOR 1e-8

/* The largest |u-| over the used rows (n, t1 and, for tangent_dim 2, t2). */
static double velocity_scale(const double *um, size_t n, int dim) {
    double us = 0.0;
    for (size_t i = 0; i < n; ++i)
        for (int r = 0; r <= dim; ++r) us = fmax(us, fabs(um[3 * i + r]));
    return us;
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
    const int have_stick = solve(G, rhs, 1 + dim, x);
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
 * rounding, see the header). */
static nsdyn_status kane_finish(const impact_law *law, const nsdyn_impact_problem *pr,
                                const double *P, const double *up, const char *states,
                                double *impulse, double *u_plus) {
    const size_t m = 3 * pr->n_contacts;
    char msg[256];
    double size, dT = energy_change(pr->delassus, m, pr->u_minus, P, &size);
    if (dT > 1e-9 * size) {
        energy_refusal(msg, sizeof msg, dT, law->e);
        return fail(law, pr, msg);
    }
    phase(pr, states);
    memcpy(impulse, P, m * sizeof *P);
    memcpy(u_plus, up, m * sizeof *up);
    return NSDYN_OK;
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
static nsdyn_status impact_kane(const impact_law *law, const nsdyn_impact_problem *pr,
                                double *impulse, double *u_plus) {
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
    if (!solve_phase(pp, res)) {
        phase_failure(msg, len, "kane_impulse", pp, res);
        return 0;
    }
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
    phase_problem pp = {n, dim, pr->delassus, um, c, a, pr->mu_static, pr->mu_kinetic,
                        0, d0,  0.0,          0.0};
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
static nsdyn_status impact_kane_multi(const impact_law *law, const nsdyn_impact_problem *pr,
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

static nsdyn_status impact(void *inst, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    const impact_law *law = inst;
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

    const double *um = pr->u_minus;
    double c[IMPACT_MAX_CONTACTS], a[IMPACT_MAX_CONTACTS];
    phase_result r1, r2;
    char log[256];
    size_t at = 0;
    log[0] = '\0';

    /* newton: restitution target at approaching contacts; poisson's
     * compression: plastic at every contact. */
    for (size_t i = 0; i < n; ++i) {
        c[i] = law->kind == LAW_NEWTON && um[3 * i] < 0.0 ? law->e * um[3 * i] : 0.0;
        a[i] = 0.0;
    }
    phase_problem p1 = {n,
                        (int)pr->tangent_dim,
                        pr->delassus,
                        um,
                        c,
                        a,
                        pr->mu_static,
                        pr->mu_kinetic,
                        0,
                        NULL,
                        0.0,
                        0.0};
    if (!solve_phase(&p1, &r1)) {
        phase_failure(msg, sizeof msg, law->kind == LAW_POISSON ? "poisson (compression)" : name,
                      &p1, &r1);
        return fail(law, pr, msg);
    }
    double *P = r1.P, *up = r1.u;
    if (r1.method == M_NONE) {
        at = (size_t)snprintf(log, sizeof log, "no impact");
    } else if (law->kind == LAW_NEWTON) {
        if (n == 1) /* the single-contact words: "stick" or "slide" */
            at = (size_t)snprintf(log, sizeof log, "%s",
                                  r1.state[0] == LS_CLOSED_STICK ? "stick" : "slide");
        else
            at = log_states(log, sizeof log, 0, &r1, n, 0);
    } else {
        /* poisson's restitution (35): P_r,n = beta P_c,n, friction on u*. */
        int any = 0;
        for (size_t i = 0; i < n; ++i) {
            a[i] = law->e * r1.P[3 * i];
            any |= a[i] > 0.0;
        }
        at = (size_t)snprintf(log, sizeof log, "compression: ");
        at = log_states(log, sizeof log, at, &r1, n, 0);
        if (any) {
            phase_problem p2 = {n,
                                (int)pr->tangent_dim,
                                pr->delassus,
                                r1.u,
                                c,
                                a,
                                pr->mu_static,
                                pr->mu_kinetic,
                                1,
                                NULL,
                                0.0,
                                0.0};
            if (!solve_phase(&p2, &r2)) {
                phase_failure(msg, sizeof msg, "poisson (restitution)", &p2, &r2);
                return fail(law, pr, msg);
            }
            for (size_t k = 0; k < m; ++k) r2.P[k] += r1.P[k];
            P = r2.P;
            up = r2.u;
            if (at < sizeof log)
                at += (size_t)snprintf(log + at, sizeof log - at, "; restitution: ");
            if (at < sizeof log) at = log_states(log, sizeof log, at, &r2, n, 1);
        } else if (at < sizeof log) {
            snprintf(log + at, sizeof log - at, "; no restitution");
        }
    }
    (void)at;
    double size, dT = energy_change(pr->delassus, m, um, P, &size);
    if (dT > 1e-9 * size) {
        if (law->kind == LAW_NEWTON)
            snprintf(msg, sizeof msg,
                     "newton: the impulse would add %g J of kinetic energy (Newton "
                     "restitution e = %g with friction and a Delassus that couples "
                     "normal and tangential directions, Kane's energy paradox); refused",
                     dT, law->e);
        else
            snprintf(msg, sizeof msg,
                     "poisson: the impulse would add %g J of kinetic energy (Poisson "
                     "restitution beta = %g with friction and a Delassus that couples "
                     "normal and tangential directions: the restitution phase's friction "
                     "can feed energy back, cf. Glocker 2013); refused",
                     dT, law->e);
        return fail(law, pr, msg);
    }
    phase(pr, log);
    memcpy(impulse, P, m * sizeof *P);
    memcpy(u_plus, up, m * sizeof *up);
    return NSDYN_OK;
}

/* ---- one contact alone, at the velocity level (ABI 2.0) ------------------
 * The law's own impact() for that one contact, with u_free as the velocity
 * before it and the restitution scaled to the approach at the start:
 *   e_eff = e min(u_start,n, 0) / u_free,n   (at most 1).
 * Event-driven (u_start = u_free): exactly impact() for one contact.
 * Time-stepping: Moreau's rule; for newton it is his shifted law
 * 0 <= P_n _|_ u_n+ + e min(u_start,n, 0) >= 0 (Acary & Brogliato 2008,
 * Ch. 10); a contact at rest (u_start,n = 0) takes a plastic impulse and
 * never bounces on the velocity the smooth forces give it within a step;
 * poisson's beta and kane_impulse's e scale the same way. A contact that
 * does not approach (u_free,n >= 0) takes no impulse. */
static nsdyn_status local_impulse(void *inst, const nsdyn_local_impact *p, double *P) {
    const impact_law *law = inst;
    P[0] = P[1] = P[2] = 0.0;
    const double un = p->u_free[0];
    if (un >= 0.0) return NSDYN_OK;
    impact_law scaled = *law;
    scaled.e =
        fmin(law->e * (fmin(p->u_start[0], 0.0) / un), 1.0); /* exactly e when u_start = u_free */
    double mu_s = p->mu_static, mu_k = p->mu_kinetic, gap = 0.0, up[3];
    nsdyn_impact_problem pr = {.struct_size = sizeof pr,
                               .n_contacts = 1,
                               .tangent_dim = p->tangent_dim,
                               .delassus = p->G,
                               .u_minus = p->u_free,
                               .mu_static = &mu_s,
                               .mu_kinetic = &mu_k,
                               .gaps = &gap};
    return impact(&scaled, &pr, P, up);
}

static void coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    const impact_law *law = inst;
    out->kind = law->kind == LAW_POISSON ? NSDYN_RESTITUTION_POISSON : NSDYN_RESTITUTION_NEWTON;
    out->restitution = law->e;
}

/* ---- descriptors ------------------------------------------------------- */

static const nsdyn_contact_law newton_law = {
    NSDYN_INFO(nsdyn_contact_law, NSDYN_KIND_CONTACT, "newton", "2.0.0",
               "Newton restitution u_n+ = -e u_n- with Coulomb friction, post-impact slip, several "
               "contacts",
               newton_params, NSDYN_COUNT(newton_params), NSDYN_CAP_RIGID_IMPACT, 0),
    create_newton,
    destroy,
    NULL,
    NULL,
    impact,
    local_impulse,
    coefficients,
};

static const nsdyn_contact_law kane_law = {
    NSDYN_INFO(nsdyn_contact_law, NSDYN_KIND_CONTACT, "kane_impulse", "2.0.0",
               "Kane's collision model: Newton restitution, no-slip test (mu_s, strict), slip "
               "along the initial slip (mu_k)",
               kane_params, NSDYN_COUNT(kane_params), NSDYN_CAP_RIGID_IMPACT, 0),
    create_kane,
    destroy,
    NULL,
    NULL,
    impact,
    local_impulse,
    coefficients,
};

static const nsdyn_contact_law poisson_law = {
    NSDYN_INFO(nsdyn_contact_law, NSDYN_KIND_CONTACT, "poisson", "2.0.0",
               "Poisson two-phase restitution (impulse ratio beta) with Coulomb friction, "
               "wheel-curb paper (31)-(35)",
               poisson_params, NSDYN_COUNT(poisson_params), NSDYN_CAP_RIGID_IMPACT, 0),
    create_poisson,
    destroy,
    NULL,
    NULL,
    impact,
    local_impulse,
    coefficients,
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
