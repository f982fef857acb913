/* Rigid impact laws: the impulse of one contact from the velocities before
 * the impact and the Delassus operator.
 *
 * Notation (contact.h). Local velocities u = (u_n, u_t1, u_t2) [m/s],
 * u_n < 0 approaching; local impulse P = (P_n, P_t1, P_t2) [N s]; Delassus
 * G = W M^-1 W^T [1/kg], so u+ = u- + G P (configuration frozen during the
 * impact, Kane's (2.7) "I_r = p_r(t2) - p_r(t1)"). With tangent_dim = 1 the
 * t2 impulse is zero (the t2 row still gives u_t2+).
 *
 * Energy across an impact. T = 1/2 v^T M v and v+ = v- + M^-1 W^T P, so
 *   dT = v-^T W^T P + 1/2 P^T W M^-1 W^T P = P.(u- - w) + 1/2 P^T G P,
 * where u = W v + w. For fixed obstacles (w = 0, every system of this
 * project) dT = P.u- + 1/2 P^T G P = 1/2 P.(u- + u+): the change of kinetic
 * energy is known from local quantities alone. Every law here computes it
 * and refuses (NSDYN_ERROR, with a log message) an impulse that would add
 * energy by more than rounding (1e-9 of |P.u-| + 1/2 P^T G P).
 *   - Plastic impacts (e = 0) never add energy in `newton`, whose slip
 *     direction is the post-impact one: with u_n+ = 0,
 *     dT = P.u+ - 1/2 P^T G P, and P.u+ = P_t.u_t+ = -mu P_n |u_t+| <= 0
 *     (stick: u_t+ = 0), while P^T G P >= 0.
 *   - With e > 0 Newton's restitution together with friction CAN add energy
 *     when the Delassus couples the normal and tangential directions (Kane's
 *     energy paradox: T. R. Kane, D. A. Levinson, "Dynamics: Theory and
 *     Applications" (1985); W. J. Stronge, "Impact Mechanics" (2000),
 *     Sec. 5.2). E.g. stick with e = 1: dT = -u_n u_t (G^-1)_nt -
 *     1/2 u_t^2 (G^-1)_tt, positive for a large enough coupling. Such
 *     impacts are refused rather than computed; for decoupled operators (the
 *     sphere on a plane, G = diag(1/m, 1/m + b^2/J, 1/m + b^2/J)) they
 *     never occur.
 * A contact that is not approaching (u_n- >= 0) gets no impulse.
 *
 * newton        Newton restitution u_n+ = -e u_n- and Coulomb friction on
 *               the impulse, P_n >= 0.
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
 *      d.u_t+ > 0. They are bracketed on a grid of 360 angles and refined by
 *      bisection to machine precision (no allocation, deterministic); a
 *      Newton iteration on th would need a good start, which the grid is.
 *      Among several consistent directions (strong coupling) the one that
 *      dissipates the most energy is taken. None: NSDYN_ERROR (Painleve-type
 *      inconsistency: G_nn - mu_k G_nt.d <= 0).
 *
 * kane_impulse  Kane's collision model, J. Hartl, "Bouncing, Sliding and
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
 *   during the impact) or, even for e = 0, add energy (P_t.u_t+ need not be
 *   <= 0); both are refused with NSDYN_ERROR. In the random test grid
 *   (tests/test_impact_laws.c) that is about 1 in 10 coupled problems; use
 *   `newton` for coupled systems.
 *
 * Friction coefficients come from the problem (mu_static, mu_kinetic: the
 * friction law's bounds). Only one contact per impact (n_contacts == 1);
 * simultaneous impacts are a later issue. Poisson restitution (wheel-curb
 * paper (31)-(35)) is not implemented yet.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

typedef enum law_kind { LAW_NEWTON, LAW_KANE } law_kind;

typedef struct impact_law {
    law_kind kind;
    double e; /* coefficient of restitution [1] */
    nsdyn_host host;
    int have_host;
} impact_law;

/* ---- parameter declarations ------------------------------------------- */

enum { P_E };
static const nsdyn_param_decl newton_params[] = {
    [P_E] = {"e", NSDYN_PARAM_REAL, "1", 0.5, 0.0, 1.0, 0,
             "Newton's coefficient of restitution: u_n+ = -e u_n- (0 plastic, 1 elastic)", NULL,
             NULL, 0},
};
static const nsdyn_param_decl kane_params[] = {
    [P_E] = {"e", NSDYN_PARAM_REAL, "1", 0.92, 0.0, 1.0, 0,
             "restitution of the contact-point normal velocity (2.8) (default: thesis Sec. 4.2, 0.92)",
             NULL, NULL, 0},
};

/* ---- create / destroy -------------------------------------------------- */

static void *create(law_kind kind, const nsdyn_value *v, const nsdyn_host *host, char *err,
                    size_t len) {
    double e = v[P_E].num;
    /* Repeats the declared range: create() may be called by other hosts. */
    if (!(e >= 0.0 && e <= 1.0)) {
        snprintf(err, len, "e = %g is outside [0, 1]: e < 0 would not separate the bodies and "
                           "e > 1 would create energy at every impact", e);
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

static void destroy(void *inst) { free(inst); }

/* ---- helpers (no allocation) -------------------------------------------- */

/* Log an error through the host (pre-formatted, fixed buffer). */
static nsdyn_status fail(const impact_law *law, const char *msg) {
    if (law->have_host) law->host.log(law->host.ctx, NSDYN_LOG_ERROR, msg);
    return NSDYN_ERROR;
}

static void phase(const nsdyn_impact_problem *pr, const char *what) {
    if (pr->phase_log && pr->phase_log_len) snprintf(pr->phase_log, pr->phase_log_len, "%s", what);
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
    for (int i = 0; i < 3; ++i) up[i] = um[i] + G[3 * i] * P[0] + G[3 * i + 1] * P[1] + G[3 * i + 2] * P[2];
}

/* dT = P.u- + 1/2 P^T G P, and the size of its terms for the tolerance. */
static double energy_change(const double *G, const double *um, const double *P, double *size) {
    double pu = 0.0, pgp = 0.0;
    for (int i = 0; i < 3; ++i) {
        pu += P[i] * um[i];
        for (int j = 0; j < 3; ++j) pgp += P[i] * G[3 * i + j] * P[j];
    }
    *size = fabs(pu) + 0.5 * fabs(pgp);
    return pu + 0.5 * pgp;
}

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

/* Consistency f(th) = d x u_t+ for the 2-D search; flags if infeasible. */
static double slide_residual(const double *G, const double *um, double e, double mu, double th,
                             int *ok, double *dot) {
    double d[2] = {cos(th), sin(th)}, P[3], up[3];
    *ok = slide_impulse(G, um, e, mu, d, P, up);
    if (!*ok) return 0.0;
    *dot = d[0] * up[1] + d[1] * up[2];
    return d[0] * up[2] - d[1] * up[1];
}

enum { N_ANGLES = 360 };

/* Newton's sliding solution with d the post-impact slip direction. */
static int slide_newton(const double *G, const double *um, double e, double mu, int dim,
                        double *P, double *up) {
    double best = HUGE_VAL, Pc[3], uc[3], size;
    int found = 0;
    if (dim == 1) {
        for (int s = -1; s <= 1; s += 2) {
            double d[2] = {(double)s, 0.0};
            if (!slide_impulse(G, um, e, mu, d, Pc, uc)) continue;
            if (!(s * uc[1] >= 0.0)) continue;
            double dT = energy_change(G, um, Pc, &size);
            if (dT < best) {
                best = dT;
                memcpy(P, Pc, sizeof Pc);
                memcpy(up, uc, sizeof uc);
                found = 1;
            }
        }
        return found;
    }
    const double h = 6.283185307179586 / N_ANGLES; /* 2 pi / N */
    int ok0, ok1;
    double dot0, dot1;
    double f0 = slide_residual(G, um, e, mu, 0.0, &ok0, &dot0);
    for (int k = 1; k <= N_ANGLES; ++k) {
        double a = (k - 1) * h, b = k * h;
        double f1 = slide_residual(G, um, e, mu, b, &ok1, &dot1);
        if (ok0 && ok1 && ((f0 <= 0.0 && f1 >= 0.0) || (f0 >= 0.0 && f1 <= 0.0))) {
            /* Bisection on [a, b] down to rounding. */
            double fa = f0, lo = a, hi = b;
            for (int it = 0; it < 60 && hi - lo > 1e-15; ++it) {
                int okm;
                double dotm, mid = 0.5 * (lo + hi);
                double fm = slide_residual(G, um, e, mu, mid, &okm, &dotm);
                if (!okm) break;
                if ((fa <= 0.0 && fm <= 0.0) || (fa >= 0.0 && fm >= 0.0)) {
                    lo = mid;
                    fa = fm;
                } else {
                    hi = mid;
                }
            }
            double th = 0.5 * (lo + hi), d[2] = {cos(th), sin(th)};
            if (slide_impulse(G, um, e, mu, d, Pc, uc) && d[0] * uc[1] + d[1] * uc[2] > 0.0) {
                double dT = energy_change(G, um, Pc, &size);
                if (dT < best) {
                    best = dT;
                    memcpy(P, Pc, sizeof Pc);
                    memcpy(up, uc, sizeof uc);
                    found = 1;
                }
            }
        }
        f0 = f1;
        ok0 = ok1;
        dot0 = dot1;
    }
    (void)dot0;
    return found;
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

/* ---- impact ------------------------------------------------------------- */

static nsdyn_status impact(void *inst, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    const impact_law *law = inst;
    const char *name = law->kind == LAW_NEWTON ? "newton" : "kane_impulse";
    char msg[256];
    if (pr->n_contacts != 1) {
        snprintf(msg, sizeof msg, "%s: %zu simultaneous contacts; this law handles one contact per "
                                  "impact (multi-contact impacts are not implemented)",
                 name, pr->n_contacts);
        return fail(law, msg);
    }
    if (pr->tangent_dim != 1 && pr->tangent_dim != 2) {
        snprintf(msg, sizeof msg, "%s: tangent_dim = %u, expected 1 or 2", name, (unsigned)pr->tangent_dim);
        return fail(law, msg);
    }
    const double *G = pr->delassus, *um = pr->u_minus;
    const int dim = (int)pr->tangent_dim;
    const double e = law->e, mu_s = pr->mu_static[0], mu_k = pr->mu_kinetic[0];
    double P[3] = {0.0, 0.0, 0.0}, up[3];

    if (!(um[0] < 0.0)) { /* not approaching: no impulse */
        memcpy(impulse, P, sizeof P);
        memcpy(u_plus, um, 3 * sizeof *um);
        phase(pr, "no impact");
        return NSDYN_OK;
    }

    /* 1. Stick: G P = (-(1+e) u_n-, -u_t-) on the first 1 + dim rows. */
    double rhs[3] = {-(1.0 + e) * um[0], -um[1], -um[2]}, x[3] = {0.0, 0.0, 0.0};
    int have_stick = solve(G, rhs, 1 + dim, x);
    double Pt_stick = have_stick ? hypot(x[1], dim == 2 ? x[2] : 0.0) : 0.0;
    int stick = 0;
    if (have_stick && x[0] >= 0.0) {
        if (law->kind == LAW_NEWTON) stick = Pt_stick <= mu_s * x[0];
        else stick = Pt_stick < mu_s * x[0]; /* (2.9), (2.53): strict */
    }
    if (stick) {
        P[0] = x[0];
        P[1] = x[1];
        P[2] = dim == 2 ? x[2] : 0.0;
        post_velocity(G, um, P, up);
        phase(pr, "stick");
    } else {
        int ok;
        if (law->kind == LAW_NEWTON) {
            ok = slide_newton(G, um, e, mu_k, dim, P, up);
        } else {
            double d0[2] = {um[1], dim == 2 ? um[2] : 0.0}, s = hypot(d0[0], d0[1]);
            if (!(s > 0.0) && have_stick && Pt_stick > 0.0) { /* no initial slip */
                d0[0] = -x[1];
                d0[1] = dim == 2 ? -x[2] : 0.0;
                s = Pt_stick;
            }
            if (s > 0.0) {
                d0[0] /= s;
                d0[1] /= s;
                ok = slide_kane(G, um, e, mu_k, d0, P, up);
            } else {
                ok = 0;
            }
        }
        if (!ok) {
            snprintf(msg, sizeof msg, "%s: no consistent impulse: the contact neither sticks nor "
                                      "slides with P_n >= 0 (G_nn - mu_k G_nt.d <= 0 for the slip "
                                      "directions, a Painleve-type inconsistency; G_nn = %g 1/kg, "
                                      "mu_k = %g)", name, G[0], mu_k);
            return fail(law, msg);
        }
        phase(pr, "slide");
    }
    double size, dT = energy_change(G, um, P, &size);
    if (dT > 1e-9 * size) {
        snprintf(msg, sizeof msg, "%s: the impulse would add %g J of kinetic energy (Newton restitution "
                                  "e = %g with friction and a Delassus that couples normal and "
                                  "tangential directions, Kane's energy paradox); refused", name, dT, e);
        return fail(law, msg);
    }
    memcpy(impulse, P, sizeof P);
    memcpy(u_plus, up, sizeof up);
    return NSDYN_OK;
}

/* ---- descriptors ------------------------------------------------------- */

static const nsdyn_contact_law newton_law = {
    NSDYN_INFO(nsdyn_contact_law, NSDYN_KIND_CONTACT, "newton", "1.0.0",
               "Newton restitution u_n+ = -e u_n- with Coulomb friction, post-impact slip direction (1 contact)",
               newton_params, NSDYN_COUNT(newton_params), NSDYN_CAP_RIGID_IMPACT, 0),
    create_newton, destroy, NULL, NULL, impact,
};

static const nsdyn_contact_law kane_law = {
    NSDYN_INFO(nsdyn_contact_law, NSDYN_KIND_CONTACT, "kane_impulse", "1.0.0",
               "Kane's collision model: Newton restitution, no-slip test (mu_s, strict), slip along the initial slip (mu_k)",
               kane_params, NSDYN_COUNT(kane_params), NSDYN_CAP_RIGID_IMPACT, 0),
    create_kane, destroy, NULL, NULL, impact,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    switch (index) {
    case 0: return &newton_law.info;
    case 1: return &kane_law.info;
    default: return NULL;
    }
}
