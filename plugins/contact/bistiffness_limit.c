/* bistiffness_limit: the rigid (infinite-stiffness) limit of the
 * bi-stiffness contact law of Barjau & Batlle (Section 5, eq. (5.1);
 * ../shared/papers/rimless-wheel-percussion-centre-impact.txt) with
 * set-valued Coulomb friction, as a rigid impact law for any number of
 * planar contacts. Derivation and checks: docs/rimless-wheel.md, "The
 * stiff limit of the bi-stiffness model".
 *
 * Model. During the impact the configuration is frozen (the contacts move
 * by O(v sqrt(m/k)), which vanishes as k -> inf) and every finite force
 * (gravity, springs, drift terms) is negligible against the contact forces
 * (O(v sqrt(k m))). With the Delassus operator G = W M^-1 W^T, the local
 * velocities u = u- + G P, the penetrations delta_i (zero at the start)
 * and the impulses P:
 *   delta_i' = -u_n,i,   P' = F,
 *   F_n,i = k (1 + mu_n) delta_i (compression, delta_i' > 0),
 *           k (1 - mu_n) delta_i (expansion, delta_i' < 0),
 *           in [k(1 - mu_n), k(1 + mu_n)] delta_i with delta_i' = 0 held
 *           (the damper's dry friction sticks: "hold", a Filippov mode of
 *           (5.1) that two coupled contacts can reach), 0 when delta_i <= 0;
 *   F_t,i = -mu_k F_n,i sign(u_t,i) (slip), or any |F_t,i| <= mu_s F_n,i
 *           that keeps u_t,i = 0 (stick).
 * With tau = sqrt(k) t and d = sqrt(k) delta the equations lose k:
 * d' = -u_n, dP/dtau = f(d) (f: (5.1) with k = 1), so P and u+ do not
 * depend on k. They are also of degree one in u- and depend on G only
 * through its scale: the law solves the normalized problem (u-/max|u-|,
 * G/max|G|) and scales P back.
 *
 * Integration. In a mode (each contact's normal branch and stick/slip
 * fixed) the forces are linear in d (the stick and hold forces solve
 * linear equations whose right-hand side is linear in d), so the state
 * x = (d, P, 1) obeys x' = A x with a constant A: each step is the exact
 * exp(A h) x (Taylor series to rounding, |A h| <= 0.1). A mode ends where
 * one of its conditions (d_i >= 0 or <= 0, the sign of u_n,i in
 * compression/expansion, the slip direction, the friction cone and the
 * hold bounds) is about to fail: the root is bisected on the exact
 * solution to rounding. The next modes are the first consistent
 * combination (stick before slide) for the contacts whose mode is open at
 * that state, judged a short probe (tau = 1e-6) ahead on the candidate's
 * exact solution, so ties at zero (a contact touching at rest, a slip that
 * stops, the deepest point) are decided by the higher derivatives.
 *
 * Redundant stick (two contacts with the same tangent row, a rimless wheel
 * at theta = 0): the split between them does not change the motion (a null
 * vector z of a principal block of G is in the null space of G); the
 * friction cones are checked at the split that maximizes the smallest
 * margin, and the final tangential impulses of contacts with identical
 * tangent columns are shared in proportion to mu_s P_n.
 *
 * The impact ends when no contact carries a force and none approaches. The
 * phase log uses pc_impact's vocabulary: with two contacts Q_f is the one
 * approaching fastest, "SP <Q_f mode>" or "DP <Q_f>/<Q_b>", " jamb" when
 * u_nf' < 0 at the phase's start, " reversal" when Q_f's slip changes
 * sign, "; end" when Q_f leaves (" (Q_b stays closed)" if Q_b still
 * touches), then "Q_b <mode>" while Q_b alone still pushes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bistiffness_internal.h"
#include "nsdyn/nsdyn.h"

static const nsdyn_param_decl params[] = {
    NSDYN_REAL_F("mu_n", "1", 0.2, 0.0, 1.0, NSDYN_PARAM_MAX_EXCLUSIVE,
                 "normal damper friction of (5.1): stiffness k(1+mu_n) compressing, k(1-mu_n) "
                 "expanding; one contact rebounds with e = sqrt((1-mu_n)/(1+mu_n))"),
};

typedef struct bl_law {
    double mu_n;
    nsdyn_host host;
    int have_host;
} bl_law;

/* ---- the law -------------------------------------------------------------- */

static nsdyn_status fail(const bl_law *law, const nsdyn_impact_problem *pr, const char *msg) {
    if (law->have_host) law->host.log(law->host.ctx, NSDYN_LOG_ERROR, msg);
    if (pr->phase_log && pr->phase_log_len) snprintf(pr->phase_log, pr->phase_log_len, "%s", msg);
    return NSDYN_ERROR;
}

/* Checks and normalization; 0 no impact, 1 go, -1 bad data (msg). */
static int setup(const nsdyn_impact_problem *pr, blx *x, double *vs, double *gs, char *msg,
                 size_t len) {
    const int n = x->n, m = 3 * n;
    *vs = 0.0, *gs = 0.0;
    for (int i = 0; i < n; ++i)
        if (!(pr->mu_static[i] >= 0 && isfinite(pr->mu_static[i]) && pr->mu_kinetic[i] >= 0 &&
              isfinite(pr->mu_kinetic[i]))) {
            snprintf(msg, len,
                     "bistiffness_limit: contact %d: mu_s = %g, mu_k = %g: expected "
                     "finite, >= 0",
                     i, pr->mu_static[i], pr->mu_kinetic[i]);
            return -1;
        }
    for (int q = 0; q < m * m; ++q) {
        if (!isfinite(pr->delassus[q])) {
            snprintf(msg, len, "bistiffness_limit: non-finite Delassus entry %d", q);
            return -1;
        }
        *gs = fmax(*gs, fabs(pr->delassus[q]));
    }
    int approach = 0;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(pr->u_minus[3 * i]) || !isfinite(pr->u_minus[3 * i + 1])) {
            snprintf(msg, len, "bistiffness_limit: non-finite pre-impact velocity");
            return -1;
        }
        *vs = fmax(*vs, fmax(fabs(pr->u_minus[3 * i]), fabs(pr->u_minus[3 * i + 1])));
    }
    for (int i = 0; i < n; ++i) approach |= pr->u_minus[3 * i] < -1e-12 * *vs;
    if (!approach || !(*gs > 0.0)) return 0;
    for (int i = 0; i < m; ++i) {
        x->um[i] = (i % 3 == 2) ? 0.0 : pr->u_minus[i] / *vs;
        for (int j = 0; j < m; ++j) x->G[(size_t)i * m + j] = pr->delassus[(size_t)i * m + j] / *gs;
    }
    x->f = 0;
    for (int i = 1; i < n; ++i)
        if (pr->u_minus[3 * i] < pr->u_minus[3 * x->f]) x->f = i;
    x->b = n == 2 ? 1 - x->f : -1;
    return 1;
}

/* Do contacts i and j have the same tangent column of G (to rounding)? */
static int same_tangent(const nsdyn_impact_problem *pr, size_t i, size_t j) {
    const size_t m = 3 * pr->n_contacts;
    double d = 0.0, scale = 0.0;
    for (size_t q = 0; q < m; ++q) {
        d = fmax(d, fabs(pr->delassus[q * m + 3 * i + 1] - pr->delassus[q * m + 3 * j + 1]));
        scale = fmax(scale, fabs(pr->delassus[q * m + 3 * i + 1]));
    }
    return d <= 1e-12 * scale;
}

/* Contacts with identical tangent columns of G share their tangential
 * impulse in proportion to mu_s P_n (the motion does not see the split). */
static void share_tangential(const nsdyn_impact_problem *pr, double *P) {
    const size_t n = pr->n_contacts;
    for (size_t i = 0; i < n; ++i) {
        double T = 0.0, cap = 0.0;
        int grp = 0;
        for (size_t j = i; j < n; ++j) {
            if (j > i && !same_tangent(pr, i, j)) continue;
            grp += j > i;
            T += P[3 * j + 1];
            cap += pr->mu_static[j] * P[3 * j];
        }
        if (!grp || !(cap > 0.0)) continue;
        for (size_t j = i; j < n; ++j)
            if (j == i || same_tangent(pr, i, j))
                P[3 * j + 1] = T * pr->mu_static[j] * P[3 * j] / cap;
    }
}

/* The impact with workspace buffers d, iv (sized by ws_doubles/ws_ints). */
static nsdyn_status solve(const bl_law *law, double mu_n, const nsdyn_impact_problem *pr,
                          double *impulse, double *u_plus, double *d, int *iv) {
    char msg[320], local[96];
    const size_t n = pr->n_contacts, m = 3 * n;
    blx x;
    memset(&x, 0, sizeof x);
    x.n = (int)n, x.N = 4 * x.n + 1;
    x.kc = 1.0 + mu_n, x.ke = 1.0 - mu_n;
    x.mus = pr->mu_static, x.muk = pr->mu_kinetic;
    bl_ws_bind(&x, d, iv);
    double vs, gs;
    int s = setup(pr, &x, &vs, &gs, msg, sizeof msg);
    if (s < 0) return fail(law, pr, msg);
    memset(impulse, 0, m * sizeof *impulse);
    memcpy(u_plus, pr->u_minus, m * sizeof *u_plus);
    if (s == 0) {
        if (pr->phase_log && pr->phase_log_len)
            snprintf(pr->phase_log, pr->phase_log_len, "no impact");
        return NSDYN_OK;
    }
    x.log = pr->phase_log && pr->phase_log_len ? pr->phase_log : local;
    x.log_len = pr->phase_log && pr->phase_log_len ? pr->phase_log_len : sizeof local;
    x.log[0] = '\0';
    memset(x.x, 0, (size_t)x.N * sizeof *x.x);
    x.x[x.N - 1] = 1.0;
    if (!bl_integrate(&x, msg, sizeof msg)) return fail(law, pr, msg);
    for (size_t q = 0; q < m; ++q) impulse[q] = (q % 3 == 2) ? 0.0 : x.x[n + q] * vs / gs;
    share_tangential(pr, impulse);
    double dT = 0.0, size = 0.0;
    for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < m; ++j) u_plus[i] += pr->delassus[i * m + j] * impulse[j];
        size += fabs(impulse[i] * pr->u_minus[i]);
    }
    for (size_t i = 0; i < m; ++i) dT += impulse[i] * 0.5 * (pr->u_minus[i] + u_plus[i]);
    for (size_t i = 0; i < n; ++i) { /* Coulomb for the impulses (the law's forces integrated) */
        const double mu = fmax(pr->mu_static[i], pr->mu_kinetic[i]);
        if (fabs(impulse[3 * i + 1]) > mu * impulse[3 * i] * (1 + 1e-7) + 1e-9 * size / vs) {
            snprintf(msg, sizeof msg,
                     "bistiffness_limit: contact %zu: tangential impulse %g outside the cone "
                     "mu P_n = %g (an unresolved redundant stick)",
                     i, impulse[3 * i + 1], mu * impulse[3 * i]);
            return fail(law, pr, msg);
        }
    }
    if (dT > 1e-9 * size) {
        snprintf(msg, sizeof msg, "bistiffness_limit: the impulse would add %g J", dT);
        return fail(law, pr, msg);
    }
    return NSDYN_OK;
}

static nsdyn_status impact_mu(const bl_law *law, double mu_n, const nsdyn_impact_problem *pr,
                              double *impulse, double *u_plus) {
    if (pr->tangent_dim != 1) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "bistiffness_limit: tangent_dim %u; the law is planar "
                 "(tangent_dim 1: stick and slip along one tangent)",
                 (unsigned)pr->tangent_dim);
        return fail(law, pr, msg);
    }
    const size_t n = pr->n_contacts;
    if (n == 0) return NSDYN_OK;
    if (n <= STACK_N) { /* no allocation: one-contact impact() is a hot path (time-stepping) */
        double d[STACK_DOUBLES];
        int iv[STACK_INTS];
        return solve(law, mu_n, pr, impulse, u_plus, d, iv);
    }
    double *d = malloc(bl_ws_doubles(n) * sizeof *d);
    int *iv = malloc(bl_ws_ints(n) * sizeof *iv);
    nsdyn_status st = NSDYN_ERROR;
    if (d && iv)
        st = solve(law, mu_n, pr, impulse, u_plus, d, iv);
    else
        st = fail(law, pr, "bistiffness_limit: out of memory");
    free(d);
    free(iv);
    return st;
}

/* The problem's restitution scale s (contact.h, ABI 2.4; time-stepping's
 * Moreau rule, as impact.c does for the other laws): e_eff = min(s e, 1)
 * with e = sqrt((1 - mu_n)/(1 + mu_n)) the energetic coefficient, realized
 * by the mu_n of that coefficient, mu_n' = (1 - e_eff^2)/(1 + e_eff^2) (1
 * for a contact at rest: plastic; mu_n itself when s = 1, so a plain impact
 * is untouched bit for bit). Planar only: the scale applies where the
 * problem is one the law solves (tangent_dim 1). */
static nsdyn_status impact(void *inst, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    const bl_law *law = inst;
    double mu_n = law->mu_n;
    const double scale = nsdyn_impact_restitution_scale(pr);
    if (pr->tangent_dim == 1 && scale != 1.0) {
        const double e = fmin(sqrt((1.0 - mu_n) / (1.0 + mu_n)) * fmax(scale, 0.0), 1.0);
        mu_n = (1.0 - e * e) / (1.0 + e * e);
    }
    return impact_mu(law, mu_n, pr, impulse, u_plus);
}

static nsdyn_status coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    const bl_law *law = inst;
    out->kind = NSDYN_RESTITUTION_OTHER; /* energetic (Stronge) at one contact */
    out->restitution = sqrt((1.0 - law->mu_n) / (1.0 + law->mu_n));
    return NSDYN_OK;
}

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    const double mu_n = ((const bl_law *)params)->mu_n;
    if (!(mu_n >= 0.0 && mu_n < 1.0)) {
        snprintf(err, len,
                 "mu_n = %g is outside [0, 1): the expansion stiffness k(1 - mu_n) of (5.1) must "
                 "stay positive, and mu_n < 0 would create energy",
                 mu_n);
        return NULL;
    }
    bl_law *law = malloc(sizeof *law);
    if (!law) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *law = *(const bl_law *)params; /* mu_n; the host's block lives only during create() */
    if (NSDYN_HOST_HAS(host, log)) {
        law->host = *host;
        law->have_host = 1;
    }
    return law;
}

/* mu_n, filled by the host into bl_law (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(bl_law, mu_n)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(bl_law, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static const nsdyn_contact_law bistiffness_limit_law = {
    .info = NSDYN_CONTACT_INFO(.id = "bistiffness_limit", .version = "1.0.0",
                               .summary = "rigid limit k -> inf of the bi-stiffness law (5.1) "
                                          "with set-valued Coulomb, any number of planar contacts",
                               NSDYN_PARAMS(params), .provides = NSDYN_CAP_RIGID_IMPACT,
                               .destroy = destroy),
    .impact = impact,
    .coefficients = coefficients,
    .extension = extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &bistiffness_limit_law.info;
}
