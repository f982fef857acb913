/* pc_impact: the Percussion-Centre impact analysis of Barjau & Batlle
 * ("Predicting impact scenarios of a rimless wheel: a geometrical
 * approach", Nonlinear Dyn. 2022; ../shared/papers/rimless-wheel-
 * percussion-centre-impact.txt) as a rigid impact law: one impact
 * integrated in the impulse domain, phase by phase.
 *
 * Problem (contact.h): n = 1 or 2 planar contacts (tangent_dim 1), local
 * velocities u = u- + G P with the Delassus operator G = W M^-1 W^T. The
 * driver Q_f is the contact that approaches fastest; the other, Q_b, is
 * touching with u_nb- >= 0 (the paper's initial conditions v_nb^0 = 0,
 * v_nf^0 < 0, v_t^0 any, Fig. 3). Two contacts approaching at once (a
 * double-point impact from the start with both approaching) are refused:
 * the paper's analysis does not cover them (Sec. 1, "calls for a
 * constitutive model").
 *
 * Phases. The independent variable is the normal impulse s = P_nf at Q_f
 * (it never decreases: the normal percussion pushes, Sec. 4.1). In a phase
 * every contact keeps its mode (the paper's PSLC phases, "permanent
 * sliding characteristics"), so dP/ds and du/ds = G dP/ds are constant and
 * the phase is a straight segment, solved exactly:
 *   Q_f  stick (du_tf/ds = 0, |dP_tf/ds| <= mu_s) or slide
 *        (dP_tf/ds = -mu_k sigma, sigma = sign(u_tf));
 *   Q_b  off (no impulse: SP phase), or on (DP phase) with du_nb/ds = 0 and
 *        dP_nb/ds >= 0 (a plastic unilateral contact; it arrives at zero
 *        normal velocity), stick or slide like Q_f.
 * The mode of a contact without slip is chosen like the paper's Fig. 17:
 * stick if the sticking impulse lies in the cone (mu >= mu_c), else slide
 * in the direction the slip then takes. A phase ends at the first of:
 *   - a sliding contact's slip reaches zero (slide-stick; the next phase
 *     sticks or slides back: "sliding reversal", Fig. 15b);
 *   - Q_b, lifted (u_nb > 0) in an SP phase, comes back to u_nb = 0: the
 *     SP -> DP transition (Sec. 5; in the rigid limit Q_b's displacement
 *     during the impact is zero, so it is back on the ground when its
 *     normal velocity returns to zero; see docs/rimless-wheel.md for how
 *     this differs from the compliant model's delta_nb = 0);
 *   - Q_f's compression ends (u_nf = 0 from below);
 *   - the impact ends.
 * Dynamic jamb (Sec. 4.3, (A.6)): a phase with du_nf/ds < 0 (the normal
 * approach grows while Q_f slides); it is logged as "jamb".
 *
 * End of the impact. The paper leaves it open ("it depends on the initial
 * conditions"). This law ends it by Stronge's energetic coefficient e at
 * Q_f: with W(s) = int u_nf ds the normal work at Q_f, compression ends
 * at W_c = min W (u_nf = 0), and the impact ends when
 *   W = (1 - e^2) W_c   (e = 0: at the end of compression).
 * Every friction impulse dissipates (it opposes the slip, or the slip is
 * zero), and Q_b's normal impulse does no work (u_nb = 0 while it acts),
 * so the kinetic energy falls by -(1 - e^2) W_c plus the friction work:
 * it never increases (checked, and refused otherwise).
 *
 * The phase log: "SP slide+ jamb; SP stick; DP stick/stick", one entry per
 * phase (modes of Q_f[/Q_b]; flags jamb, reversal), then "end" and the
 * contact that stays closed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"
#include "nsdyn_numeric.h"

enum { MAX_PHASES = 64 };
enum { OFF = 0, STICK = 1, SLIDE_P = 2, SLIDE_M = 3 };

static const nsdyn_param_decl params[] = {
    NSDYN_REAL("e", "1", 0.0, 0.0, 1.0,
               "Stronge's energetic coefficient of restitution at the driving contact Q_f "
               "(0: the impact ends with Q_f's compression)"),
};

typedef struct pc_law {
    double e;
    nsdyn_host host;
    int have_host;
} pc_law;

/* One impact: data, state and the phase log. */
typedef struct pcx {
    int n, f, b;      /* contacts, driver, other (-1 if none) */
    const double *G;  /* 3n x 3n */
    const double *um; /* 3n */
    double mus[2], muk[2];
    double e;
    double tol_u, tol_r; /* slack of velocities [m/s] and rates [1/kg] */
    double P[6], u[6];   /* impulse and velocity so far */
    double W, Wc;        /* normal work at Q_f, its minimum [J] */
    int compressed;      /* Q_f's compression has ended once */
    int fm, bm;          /* current modes */
    double dP[6], r[6];  /* current phase: dP/ds, du/ds */
    char *log;
    size_t log_len, at;
    char last[48];  /* the last phase's label, so a split phase is logged once */
    int last_sigma; /* Q_f's last slide direction (reversal), 0 none */
} pcx;

static double Gij(const pcx *x, int i, int j) { return x->G[(size_t)i * 3 * x->n + j]; }

static int sgn(double v) { return (v > 0) - (v < 0); }

static void say(pcx *x, const char *fmt, const char *a, const char *b, const char *c) {
    if (!x->log || x->at >= x->log_len) return;
    int k = snprintf(x->log + x->at, x->log_len - x->at, fmt, a, b, c);
    if (k > 0) x->at += (size_t)k;
}

/* dP/ds for modes (fm, bm) with unknowns xk; column builder. A contact i
 * with normal rate pn gets the tangential rate of its mode. */
static void rates_of(const pcx *x, int fm, int bm, const double *xk, double *dP) {
    memset(dP, 0, 6 * sizeof *dP);
    int k = 0;
    dP[3 * x->f] = 1.0;
    if (fm == STICK)
        dP[3 * x->f + 1] = xk[k++];
    else
        dP[3 * x->f + 1] = -x->muk[x->f] * (fm == SLIDE_P ? 1.0 : -1.0);
    if (bm != OFF) {
        double pn = xk[k++];
        dP[3 * x->b] = pn;
        if (bm == STICK)
            dP[3 * x->b + 1] = xk[k++];
        else
            dP[3 * x->b + 1] = -x->muk[x->b] * (bm == SLIDE_P ? 1.0 : -1.0) * pn;
    }
}

static void apply_G(const pcx *x, const double *dP, double *r) {
    const int m = 3 * x->n;
    for (int i = 0; i < m; ++i) {
        r[i] = 0.0;
        for (int j = 0; j < m; ++j) r[i] += Gij(x, i, j) * dP[j];
    }
}

/* Solve the modes' constraint rows for the unknowns; 0 if inconsistent. */
static int solve_modes(pcx *x, int fm, int bm) {
    int rows[3], nk = 0;
    if (fm == STICK) rows[nk++] = 3 * x->f + 1;
    if (bm != OFF) rows[nk++] = 3 * x->b;
    if (bm == STICK) rows[nk++] = 3 * x->b + 1;
    double xk[3] = {0, 0, 0}, base[6], r0[6];
    rates_of(x, fm, bm, xk, base);
    apply_G(x, base, r0);
    if (nk > 0) { /* columns: the response to each unknown (affine in xk) */
        double A[9], rhs[3], col[6], rc[6], sol[3], nul[3];
        for (int c = 0; c < nk; ++c) {
            double e1[3] = {0, 0, 0};
            e1[c] = 1.0;
            rates_of(x, fm, bm, e1, col);
            for (int j = 0; j < 6; ++j) col[j] -= base[j];
            apply_G(x, col, rc);
            for (int i = 0; i < nk; ++i) A[i * nk + c] = rc[rows[i]];
        }
        for (int i = 0; i < nk; ++i) rhs[i] = -r0[rows[i]];
        if (nsn_gauss_complete(nk, A, (size_t)nk, rhs, sol, nul) < 0) return 0;
        for (int c = 0; c < nk; ++c) xk[c] = sol[c];
    }
    rates_of(x, fm, bm, xk, x->dP);
    apply_G(x, x->dP, x->r);
    return 1;
}

/* Does contact i's mode agree with Coulomb (and, for Q_b, unilaterality)?
 * Impulse rates are per unit P_nf (dimensionless): 1e-12 is rounding. */
static int admissible(const pcx *x, int i, int mode) {
    const double ut = x->u[3 * i + 1], pn = x->dP[3 * i], pt = x->dP[3 * i + 1];
    const double rt = x->r[3 * i + 1];
    if (mode == OFF) return x->u[3 * i] > x->tol_u || x->r[3 * i] >= -x->tol_r;
    if (i == x->b && pn < -1e-12) return 0;
    if (mode == STICK) return fabs(ut) <= x->tol_u && fabs(pt) <= x->mus[i] * pn + 1e-12;
    int sigma = mode == SLIDE_P ? 1 : -1;
    if (fabs(ut) > x->tol_u) return sgn(ut) == sigma;
    return sigma * rt >= -x->tol_r; /* a slip that starts grows in direction sigma */
}

/* Choose the modes of the next phase (first consistent in the order of
 * preference: Q_b off, then on; stick before slide). 0 if none. */
static int choose_modes(pcx *x) {
    static const int order[3] = {STICK, SLIDE_P, SLIDE_M};
    int bopts[4] = {OFF, -1, -1, -1}, nb = 1;
    if (x->b >= 0 && x->u[3 * x->b] <= x->tol_u)
        for (int k = 0; k < 3; ++k) bopts[nb++] = order[k];
    if (x->b < 0) nb = 1;
    for (int ib = 0; ib < nb; ++ib)
        for (int kf = 0; kf < 3; ++kf) {
            int fm = order[kf], bm = bopts[ib];
            if (!solve_modes(x, fm, bm)) continue;
            if (!admissible(x, x->f, fm)) continue;
            if (x->b >= 0 && !admissible(x, x->b, bm)) continue;
            x->fm = fm;
            x->bm = bm;
            return 1;
        }
    return 0;
}

static const char *mode_name(int m) {
    return m == STICK ? "stick" : m == SLIDE_P ? "slide+" : m == SLIDE_M ? "slide-" : "off";
}

static void log_phase(pcx *x) {
    const int sigma = x->fm == SLIDE_P ? 1 : x->fm == SLIDE_M ? -1 : 0;
    char label[48];
    int k;
    if (x->bm != OFF)
        k = snprintf(label, sizeof label, "DP %s/%s", mode_name(x->fm), mode_name(x->bm));
    else
        k = snprintf(label, sizeof label, "SP %s", mode_name(x->fm));
    if (x->r[3 * x->f] < -x->tol_r && k > 0 && (size_t)k < sizeof label)
        k += snprintf(label + k, sizeof label - (size_t)k, " jamb");
    if (sigma && x->last_sigma && sigma != x->last_sigma && k > 0 && (size_t)k < sizeof label)
        snprintf(label + k, sizeof label - (size_t)k, " reversal");
    if (sigma) x->last_sigma = sigma;
    if (strcmp(label, x->last) == 0) return;
    snprintf(x->last, sizeof x->last, "%s", label);
    say(x, "%s%s%s", x->at ? "; " : "", label, "");
}

/* Smallest positive root of W0 + u0 d + r d^2 / 2 = Wend (W0 <= Wend). */
static double work_root(double W0, double u0, double r, double Wend) {
    double c = W0 - Wend, a = 0.5 * r;
    if (c >= 0.0) return 0.0;
    if (fabs(a) < 1e-300) return u0 > 0.0 ? -c / u0 : HUGE_VAL;
    double disc = u0 * u0 - 4.0 * a * c;
    if (disc < 0.0) return HUGE_VAL;
    double q = -0.5 * (u0 + (u0 >= 0 ? 1.0 : -1.0) * sqrt(disc));
    double r1 = q / a, r2 = q != 0.0 ? c / q : HUGE_VAL, best = HUGE_VAL;
    if (r1 > 0.0) best = r1;
    if (r2 > 0.0 && r2 < best) best = r2;
    return best;
}

/* Length of the current phase in s, and what ends it: 1 a slip stops
 * (contact *which), 2 Q_b lands, 3 compression ends, 4 the impact ends,
 * 5 recompression. */
static double phase_length(const pcx *x, int *what, int *which) {
    double best = HUGE_VAL;
    *what = 0;
    const int cs[2] = {x->f, x->b};
    const int ms[2] = {x->fm, x->bm};
    for (int k = 0; k < 2; ++k) {
        int i = cs[k];
        if (i < 0 || ms[k] == OFF || ms[k] == STICK) continue;
        double ut = x->u[3 * i + 1], rt = x->r[3 * i + 1];
        if (fabs(ut) > x->tol_u && ut * rt < 0.0 && -ut / rt < best)
            best = -ut / rt, *what = 1, *which = i;
    }
    if (x->b >= 0 && x->bm == OFF) {
        double un = x->u[3 * x->b], rn = x->r[3 * x->b];
        if (un > x->tol_u && rn < 0.0 && -un / rn < best) best = -un / rn, *what = 2;
    }
    double unf = x->u[3 * x->f], rnf = x->r[3 * x->f];
    if (unf < -x->tol_u) {
        if (rnf > 0.0 && -unf / rnf < best) best = -unf / rnf, *what = 3;
    } else if (x->compressed) {
        double d = work_root(x->W, unf, rnf, (1.0 - x->e * x->e) * x->Wc);
        if (d < best) best = d, *what = 4;
        if (rnf < 0.0 && unf > x->tol_u && -unf / rnf < best) best = -unf / rnf, *what = 5;
    } else if (rnf > 0.0 || unf > x->tol_u) { /* u_nf = 0 at a boundary: compression ends now */
        best = 0.0, *what = 3;
    }
    return best;
}

/* Integrate the impact; 0 with a message on failure. */
static int integrate(pcx *x, char *msg, size_t len) {
    for (int ph = 0; ph < MAX_PHASES; ++ph) {
        if (!choose_modes(x)) {
            snprintf(msg, len,
                     "pc_impact: no consistent contact modes at P_nf = %g N s (u_nf = %g, "
                     "u_t = %g m/s): Painleve-type, the friction of a sliding Q_b would drive "
                     "it into the ground (G_nn - mu sigma G_nt < 0 at Q_b)",
                     x->P[3 * x->f], x->u[3 * x->f], x->u[3 * x->f + 1]);
            return 0;
        }
        int what, which = -1;
        double d = phase_length(x, &what, &which);
        if (!isfinite(d)) {
            snprintf(msg, len,
                     "pc_impact: the impact never ends (phase %s with u_nf = %g m/s, du_nf/dP = "
                     "%g 1/kg: a jamb whose sliding never stops, Painleve-type)",
                     mode_name(x->fm), x->u[3 * x->f], x->r[3 * x->f]);
            return 0;
        }
        if (d > 0.0) log_phase(x);
        double unf0 = x->u[3 * x->f];
        for (int j = 0; j < 3 * x->n; ++j) x->P[j] += d * x->dP[j];
        for (int i = 0; i < 3 * x->n; ++i) {
            x->u[i] = x->um[i];
            for (int j = 0; j < 3 * x->n; ++j) x->u[i] += Gij(x, i, j) * x->P[j];
        }
        x->W += unf0 * d + 0.5 * x->r[3 * x->f] * d * d;
        if (what == 1) x->u[3 * which + 1] = 0.0;
        if (what == 2) x->u[3 * x->b] = 0.0;
        if (what == 3 || what == 5) x->u[3 * x->f] = 0.0;
        if (what == 3) {
            x->Wc = x->compressed ? fmin(x->Wc, x->W) : x->W;
            x->compressed = 1;
            if (x->e == 0.0) what = 4;
        }
        if (what == 4) {
            say(x, "%s%s%s", "; end", "", "");
            if (x->b >= 0 && x->bm != OFF) say(x, "%s%s%s", " (Q_b stays closed)", "", "");
            return 1;
        }
    }
    snprintf(msg, len, "pc_impact: more than %d phases in one impact", MAX_PHASES);
    return 0;
}

static nsdyn_status fail(const pc_law *law, const nsdyn_impact_problem *pr, const char *msg) {
    if (law->have_host) law->host.log(law->host.ctx, NSDYN_LOG_ERROR, msg);
    if (pr->phase_log && pr->phase_log_len) snprintf(pr->phase_log, pr->phase_log_len, "%s", msg);
    return NSDYN_ERROR;
}

/* Checks, the driver, the velocity and rate scales. 0 when there is no
 * impact (every contact separating or at rest); -1 on bad data (msg). */
static int setup(const pc_law *law, const nsdyn_impact_problem *pr, pcx *x, char *msg, size_t len) {
    const size_t n = pr->n_contacts;
    if (n > 2 || pr->tangent_dim != 1) {
        snprintf(msg, len,
                 "pc_impact: %zu contacts with tangent_dim %u; the Percussion-Centre analysis is "
                 "planar with at most two contacts (Q_f, Q_b)",
                 n, (unsigned)pr->tangent_dim);
        return -1;
    }
    memset(x, 0, sizeof *x);
    x->n = (int)n;
    x->G = pr->delassus;
    x->um = pr->u_minus;
    /* e_eff = min(s e, 1) with the problem's restitution scale s (contact.h;
     * time-stepping's Moreau rule, as impact.c does for the other laws) */
    const double scale = nsdyn_impact_restitution_scale(pr);
    x->e = scale == 1.0 ? law->e : fmin(law->e * scale, 1.0);
    double us = 0.0, gs = 0.0;
    for (size_t i = 0; i < n; ++i) {
        x->mus[i] = pr->mu_static[i];
        x->muk[i] = pr->mu_kinetic[i];
        if (!(x->mus[i] >= 0 && isfinite(x->mus[i]) && x->muk[i] >= 0 && isfinite(x->muk[i]))) {
            snprintf(msg, len,
                     "pc_impact: contact %zu: mu_s = %g, mu_k = %g: expected finite, >= 0", i,
                     x->mus[i], x->muk[i]);
            return -1;
        }
        for (int a = 0; a < 2; ++a) us = fmax(us, fabs(x->um[3 * i + a]));
    }
    for (size_t k = 0; k < 9 * n * n; ++k) {
        if (!isfinite(x->G[k])) {
            snprintf(msg, len, "pc_impact: non-finite Delassus entry %zu", k);
            return -1;
        }
        gs = fmax(gs, fabs(x->G[k]));
    }
    if (!isfinite(us)) {
        snprintf(msg, len, "pc_impact: non-finite pre-impact velocity");
        return -1;
    }
    x->tol_u =
        1e-8 *
        us; /* a slip or normal velocity this small is zero: the drift of a held contact (SLIP_FLOOR of the other rigid laws) */
    x->tol_r = 1e-12 * gs;
    x->f = 0;
    if (n == 2 && x->um[3] < x->um[0]) x->f = 1;
    x->b = n == 2 ? 1 - x->f : -1;
    if (!(x->um[3 * x->f] < -x->tol_u)) return 0;
    if (x->b >= 0 && x->um[3 * x->b] < -x->tol_u) {
        snprintf(msg, len,
                 "pc_impact: both contacts approach (u_n = %g, %g m/s): a double-point impact "
                 "from the start, which the Percussion-Centre analysis leaves to a constitutive "
                 "model (Barjau & Batlle Sec. 1, 5); use bistiffness or newton",
                 x->um[0], x->um[3]);
        return -1;
    }
    for (int i = 0; i < 3 * x->n; ++i) x->u[i] = x->um[i];
    return 1;
}

static nsdyn_status impact(void *inst, const nsdyn_impact_problem *pr, double *impulse,
                           double *u_plus) {
    const pc_law *law = inst;
    char msg[320];
    pcx x;
    const size_t m = 3 * pr->n_contacts;
    int s = setup(law, pr, &x, msg, sizeof msg);
    if (s < 0) return fail(law, pr, msg);
    if (s == 0) {
        memset(impulse, 0, m * sizeof *impulse);
        memcpy(u_plus, pr->u_minus, m * sizeof *u_plus);
        if (pr->phase_log && pr->phase_log_len)
            snprintf(pr->phase_log, pr->phase_log_len, "no impact");
        return NSDYN_OK;
    }
    char local[256];
    x.log = pr->phase_log && pr->phase_log_len ? pr->phase_log : local;
    x.log_len = pr->phase_log && pr->phase_log_len ? pr->phase_log_len : sizeof local;
    x.log[0] = '\0';
    if (!integrate(&x, msg, sizeof msg)) return fail(law, pr, msg);
    /* dT = P.u- + P^T G P / 2 (impact.c's header) must not be positive. */
    double dT = 0.0, size = 0.0;
    for (size_t i = 0; i < m; ++i) {
        dT += x.P[i] * (pr->u_minus[i] + 0.5 * (x.u[i] - pr->u_minus[i]));
        size += fabs(x.P[i] * pr->u_minus[i]);
    }
    if (dT > 1e-9 * size) {
        snprintf(msg, sizeof msg, "pc_impact: the impulse would add %g J of kinetic energy", dT);
        return fail(law, pr, msg);
    }
    memcpy(impulse, x.P, m * sizeof *impulse);
    memcpy(u_plus, x.u, m * sizeof *u_plus);
    return NSDYN_OK;
}

static nsdyn_status coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    const pc_law *law = inst;
    out->kind = NSDYN_RESTITUTION_OTHER;
    out->restitution = law->e;
    return NSDYN_OK;
}

static void *create(const void *params, const nsdyn_host *host, char *err, size_t len) {
    double e = ((const pc_law *)params)->e;
    if (!(e >= 0.0 && e <= 1.0)) {
        snprintf(err, len, "e = %g is outside [0, 1] (Stronge's energetic coefficient)", e);
        return NULL;
    }
    pc_law *law = malloc(sizeof *law);
    if (!law) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *law = *(const pc_law *)params; /* e; the host's block lives only during create() */
    if (NSDYN_HOST_HAS(host, log)) {
        law->host = *host;
        law->have_host = 1;
    }
    return law;
}

/* e, filled by the host into pc_law (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field fields[] = {NSDYN_FIELD(pc_law, e)};
static const nsdyn_param_fields table = NSDYN_PARAM_FIELDS(pc_law, fields, create);
NSDYN_FIELDS_EXTENSION(extension, table)

static void destroy(void *inst) { free(inst); }

static const nsdyn_contact_law pc_impact_law = {
    .info = NSDYN_CONTACT_INFO(.id = "pc_impact", .version = "1.0.0",
                               .summary = "Percussion-Centre impact analysis (Barjau & Batlle "
                                          "2022): SP/DP phases in the impulse domain",
                               NSDYN_PARAMS(params), .provides = NSDYN_CAP_RIGID_IMPACT,
                               .destroy = destroy),
    .impact = impact,
    .coefficients = coefficients,
    .extension = extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR || index > 0) return NULL;
    return &pc_impact_law.info;
}
