/* moreau: Moreau-Jean time-stepping (theta-method) at the velocity level,
 * for mechanical systems with rigid unilateral contacts and Coulomb
 * friction (NSDYN_CAP_TIME_STEPPING; needs nsdyn_ode.mech). The impulse at
 * each contact is the config's contact law's (nsdyn_mechanics.local_impulse,
 * ABI 2.0): newton, poisson and kane_impulse all run here.
 *
 * Sources: Moreau 1988, "Unilateral contact and dry friction in finite
 * freedom dynamics" (CISM 302); Jean 1999, "The non-smooth contact dynamics
 * method", CMAME 177:235-257; Acary & Brogliato 2008, "Numerical Methods for
 * Nonsmooth Dynamical Systems", Springer LNACM 35, Ch. 10 (the Moreau-Jean
 * scheme) and Ch. 13 (the one-step friction-contact problem).
 *
 * Scheme. State y = [q (nq) | v (nv)]. One step of size h from (t_k, q_k,
 * v_k), theta in (0, 1], t_th = t_k + theta h:
 *
 *   1. q_th   = q_k + theta h qdot(t_k, q_k, v_k)           (prediction)
 *   2. a      = free_acceleration(t_th, q_th, v_k)
 *      v_free = v_k + h a
 *   3. contacts at (t_th, q_th, v_k): gap g_c, local velocity u_k,c, W, M^-1 W^T.
 *      Index set: I = {c : g_c(q_th) <= 0}: the contacts whose gap at the
 *      predicted configuration is closed. To first order
 *      g_c(q_th) = g_c(q_k) + theta h u_n,k: the "gap predicted to close"
 *      rule of the Moreau-Jean scheme (Acary & Brogliato 2008, Ch. 10;
 *      Siconos' MoreauJeanOSI::addInteractionInIndexSet activates when
 *      y + gamma h y' <= 0, gamma = 1/2 by default) with gamma = theta; for
 *      theta = 1/2 it is Moreau's midpoint rule (contacts detected at the
 *      midpoint configuration, Moreau 1988, Jean 1999), for theta = 1 the
 *      full-step prediction. A contact still open at q_th waits for the
 *      next step, so a penetration of O(h |u_n|) is possible and stays O(h).
 *   4. For c in I: u+ = u_free + D P, u_free = u_k + h W a, D = W M^-1 W^T,
 *      Newton's law at the velocity level with Moreau's shift
 *          0 <= P_n  ⊥  u_n+ + e_c min(u_n,k, 0) >= 0
 *      (the restitution applies to approaching velocities only; a closed
 *      contact that already separates only keeps u_n+ >= 0, so a contact
 *      found closed after a bounce does not pull the body in) for the
 *      newton law; the contact law decides (its local_impulse, with u_k as
 *      the velocity restitution refers to: poisson scales beta and
 *      kane_impulse e to the approach at the step start the same way), and
 *      Coulomb's law in Moreau's velocity form, P_T in the disc of radius
 *      mu_c P_n, maximal dissipation; written with De Saxce's modified
 *      velocity this is the friction-contact problem of moreau_fc.h,
 *          w = D P + q,  q = u_free + e min(u_n,k, 0) e_n,
 *          K ∋ P ⊥ w + mu ||w_T|| e_n ∈ K*.
 *      Tangent dimension 1: P_T an interval; 2: a disc.
 *   5. v_{k+1} = v_free + M^-1 W^T P
 *   6. q_{k+1} = q_k + h qdot(t_th, q_th, (1 - theta) v_k + theta v_{k+1})
 *      (qdot is affine in v; it is evaluated at the predicted q_th, so that
 *      for theta = 1/2 the kinematic update is a midpoint rule).
 *
 * The free acceleration is explicit in v (evaluated at v_k) and
 * theta-weighted in t and q (at t_th, q_th): one evaluation per step. For
 * theta = 1/2 and forces of q alone, steps 1, 2, 6 without contact are the
 * Stormer-Verlet method (drift-kick-drift, second order and symplectic;
 * Hairer, Lubich & Wanner 2003, Acta Numerica 12:399-450); with contacts
 * the scheme is first order (impacts are located to within a step).
 * Velocity-dependent forces are explicit, hence first order and subject to
 * the usual explicit step limit (h < 2 / damping rate).
 *
 * Contact solver (`solver`): "nsgs", the own non-smooth Gauss-Seidel whose
 * one-contact solves are the contact law's local_impulse (moreau_fc.h;
 * error: how much a sweep still changes the local velocities, relative to
 * ||q||), or "siconos_nsgs", Siconos numerics' fc2d_nsgs / fc3d_nsgs (when
 * built with Siconos; Newton-type laws only, the cross-check; error: the
 * natural-map residual relative to ||q||), against `tol`; impulses of the previous step warm-start the
 * contacts that stay closed. bench/README.md has the comparison behind the
 * default. A solve whose error stays above tol is never ignored: with
 * on_failure = "error" step() returns NSDYN_ERROR and message() names the
 * time, the solver, the residual and each closed contact with its own
 * residual; with "warn" the same text goes to the host log (warning), the
 * step is taken with the last iterate, step() returns NSDYN_WARNING and
 * the failure is counted in stats.rejected_steps.
 *
 * Steps lie on the grid t0 + k h (computed from the count, as rk4.c); the
 * last step of a call is shortened to land on t_stop exactly. A callback
 * returning NSDYN_REJECT_STEP halves the step of this call (up to 30
 * times). No event location and no dense output: out->event is always -1.
 * setup() checks h against the run [t0, t_end] before any step
 * (nsi_check_fixed_step): h no longer than the run, at most
 * NSI_MAX_FIXED_STEPS = 1e9 steps (t_end - t0)/h, h above the spacing of
 * doubles near t0 and t_end.
 *
 * Statistics: steps; rhs_evals = free_acceleration calls; jacobian_evals =
 * steps that evaluated the contacts (gaps; W and M^-1 W^T only when a
 * contact is closed, step 3); rejected_steps = step
 * halvings plus contact solves that failed under on_failure = "warn".
 *
 * Not supported: state components beyond nq + nv (friction laws with
 * internal states): setup() refuses them.
 *
 * The only allocation is in setup() (and, with solver = "siconos_nsgs",
 * inside Siconos' drivers at each solve; see moreau_fc.h, which also loads
 * Siconos with dlopen() only when an instance chooses it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrator_common.h"
#include "moreau_fc.h"

#define MJ_MAX_HALVINGS 30
/* A remainder below this fraction of h is merged into the current step. */
#define MJ_SLIVER 1e-9

enum { SOLVER_NSGS, SOLVER_SICONOS_NSGS };
enum { FAIL_ERROR, FAIL_WARN };

static const char *const mj_solver_choices[] = {"nsgs", "siconos_nsgs", NULL};
static const char *const mj_failure_choices[] = {"error", "warn", NULL};

static const nsdyn_param_decl mj_params[] = {
    NSDYN_REAL_F("h", "s", 1e-3, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "fixed step size (the last step of a call may be shorter to land on t_stop)"),
    NSDYN_REAL_F("theta", "1", 0.5, 0.0, 1.0, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "theta of the theta-method: 1/2 Moreau's midpoint scheme (Stormer-Verlet in "
                 "free flight), 1 full-step prediction (first order)"),
    NSDYN_CHOICE("solver", 0.0, mj_solver_choices,
                 "contact solver: nsgs (own Gauss-Seidel, exact per contact) or siconos_nsgs "
                 "(Siconos fc2d/fc3d NSGS)"),
    /* Defaults from bench/README.md: at 1e-8 the slowest of 2000 random
     * box-on-face problems (4 contacts, singular Delassus) needed 5312
     * sweeps, the mean 34; one contact is solved exactly in one sweep. */
    NSDYN_REAL_F("tol", "1", 1e-8, 0.0, 1e-2, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "contact solver tolerance: natural-map residual relative to the free local "
                 "velocity"),
    NSDYN_INT("max_iter", "1", 10000.0, 1.0, 1e7,
              "most contact solver iterations (Gauss-Seidel sweeps) per step"),
    NSDYN_CHOICE("on_failure", 0.0, mj_failure_choices,
                 "a failed contact solve stops the run (error) or is logged and the step "
                 "taken with the last iterate (warn)"),
};

typedef struct moreau {
    nsi_host host;
    double h, theta, tol;
    int max_iter, solver, on_failure;
    char msg[NSI_MSG_LEN];

    /* the problem: a copy of the host's mechanics table */
    nsdyn_mechanics mech;
    size_t n, nq, nv, nc;
    /* time grid */
    double t, t_base;
    uint64_t k_grid;
    /* state and work (one allocation) */
    double *y, *ynew;               /* n */
    double *qth, *qd, *vfree, *acc; /* nq, nq, nv, nv */
    double *gap, *u, *W, *MW;       /* nc, 3 nc, 3 nc nv, 3 nc nv */
    double *D, *qv, *P, *w, *cres;  /* (3 nc)^2, 3 nc, 3 nc, 3 nc, nc */
    double *mu_act, *P_last;        /* nc, 3 nc */
    double *P_report;               /* 3 nc: impulses of the last step, every contact */
    size_t *act;                    /* nc: closed contacts of the step */
    size_t *row;                    /* nc: row block of act[a] in W and MW (mj_index_set) */
    uint32_t *tdim_act;             /* nc */
    unsigned char *was_active;      /* nc */
    size_t m_last;                  /* index set size of the last contacts() (mj_index_set) */
    void *block;
    nsdyn_integrator_stats st;
#ifdef NSDYN_HAVE_SICONOS
    mfc_siconos sic;
    int sic_ready;
#endif
} moreau;

/* ---- life cycle -------------------------------------------------------- */

static void *mj_create(const void *params, const nsdyn_host *host, char *err, size_t err_len) {
    const moreau *p = params;
    const double h = p->h, theta = p->theta, tol = p->tol;
    const int max_iter = p->max_iter, solver = p->solver, on_failure = p->on_failure;
    if (!(h > 0.0) || !isfinite(h)) {
        nsi_set_msg(err, err_len, "moreau: h = %g s must be finite and > 0", h);
        return NULL;
    }
    if (!(theta > 0.0 && theta <= 1.0)) {
        nsi_set_msg(err, err_len,
                    "moreau: theta = %g must lie in (0, 1] (0 would be the explicit Euler "
                    "method, whose contact impulses do not act on the positions; 1/2 is "
                    "Moreau's midpoint scheme)",
                    theta);
        return NULL;
    }
    if (!(tol > 0.0 && tol <= 1e-2)) {
        nsi_set_msg(err, err_len, "moreau: tol = %g must lie in (0, 1e-2]", tol);
        return NULL;
    }
    if (max_iter < 1 || max_iter > 10000000) {
        nsi_set_msg(err, err_len, "moreau: max_iter = %d must be an integer in [1, 1e7]", max_iter);
        return NULL;
    }
    if (solver < 0 || solver > 1) {
        nsi_set_msg(err, err_len, "moreau: solver index %d is not one of nsgs, siconos_nsgs",
                    solver);
        return NULL;
    }
#ifndef NSDYN_HAVE_SICONOS
    if (solver == SOLVER_SICONOS_NSGS) {
        nsi_set_msg(err, err_len,
                    "moreau: solver = \"siconos_nsgs\" is not available: this plugin was built "
                    "without Siconos numerics (install libsiconos-numerics-dev and rebuild, or "
                    "use solver = \"nsgs\")");
        return NULL;
    }
#endif
    if (on_failure < 0 || on_failure > 1) {
        nsi_set_msg(err, err_len, "moreau: on_failure index %d is not one of error, warn",
                    on_failure);
        return NULL;
    }
    return nsi_keep(params, sizeof(moreau), offsetof(moreau, host), host, "moreau", err, err_len);
}

/* The parameters, filled by the host into moreau (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field mj_fields[] = {
    NSDYN_FIELD(moreau, h),   NSDYN_FIELD(moreau, theta),    NSDYN_FIELD(moreau, solver),
    NSDYN_FIELD(moreau, tol), NSDYN_FIELD(moreau, max_iter), NSDYN_FIELD(moreau, on_failure)};
static const nsdyn_param_fields mj_table = NSDYN_PARAM_FIELDS(moreau, mj_fields, mj_create);
NSDYN_FIELDS_EXTENSION(mj_extension, mj_table)

static void mj_reset(void *inst) {
    moreau *s = inst;
    if (s == NULL) return;
#ifdef NSDYN_HAVE_SICONOS
    if (s->sic_ready) mfc_siconos_free(&s->sic);
    s->sic_ready = 0;
#endif
    free(s->block);
    s->block = NULL;
    s->y = s->ynew = s->qth = s->qd = s->vfree = s->acc = NULL;
    s->gap = s->u = s->W = s->MW = s->D = s->qv = s->P = s->w = s->cres = NULL;
    s->mu_act = s->P_last = s->P_report = NULL;
    s->act = s->row = NULL;
    s->tdim_act = NULL;
    s->was_active = NULL;
    s->m_last = 0;
    s->n = s->nq = s->nv = s->nc = 0;
    memset(&s->mech, 0, sizeof s->mech);
    memset(&s->st, 0, sizeof s->st);
    s->msg[0] = '\0';
}

static void mj_destroy(void *inst) {
    moreau *s = inst;
    if (s == NULL) return;
    mj_reset(s);
    free(s);
}

/* Name of contact c for messages. */
static const char *mj_name(const moreau *s, size_t c, char *buf, size_t len) {
    if (s->mech.contact_name != NULL && s->mech.contact_name[c] != NULL)
        return s->mech.contact_name[c];
    nsi_set_msg(buf, len, "#%zu", c);
    return buf;
}

/* Copy and check the mechanics; 0 or -1 with s->msg set. */
static int mj_take_problem(moreau *s, const nsdyn_ode *ode) {
    if (ode == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "moreau: setup: no problem (ode is NULL)");
        return -1;
    }
    const nsdyn_mechanics *m = NSI_HAS_FIELD(nsdyn_ode, ode, mech) ? ode->mech : NULL;
    if (m == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "moreau: setup: this problem carries no mechanics (nsdyn_ode.mech is %s): "
                    "the Moreau-Jean time-stepping needs a rigid contact law, whose "
                    "unilateral contacts it solves at the velocity level; use a rigid contact "
                    "law in the config, or an ODE integrator (rk4, dopri5, bdf) for compliant "
                    "contact",
                    NSI_HAS_FIELD(nsdyn_ode, ode, mech) ? "NULL"
                                                        : "beyond the host's nsdyn_ode, ABI < 1.1");
        return -1;
    }
    if (!NSI_HAS_FIELD(nsdyn_mechanics, m, contacts)) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "moreau: setup: nsdyn_mechanics.struct_size %u is too small (needs %zu)",
                    (unsigned)m->struct_size,
                    offsetof(nsdyn_mechanics, contacts) + sizeof m->contacts);
        return -1;
    }
    /* an older host's shorter table: the fields beyond it stay NULL */
    memset(&s->mech, 0, sizeof s->mech);
    memcpy(&s->mech, m, m->struct_size < sizeof s->mech ? m->struct_size : sizeof s->mech);
    s->mech.struct_size = (uint32_t)sizeof s->mech;
    s->n = ode->n;
    s->nq = m->nq;
    s->nv = m->nv;
    s->nc = m->n_contacts;
    if (m->qdot == NULL || m->free_acceleration == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "moreau: setup: the mechanics lack qdot or free_acceleration");
        return -1;
    }
    if (s->nv == 0) {
        nsi_set_msg(s->msg, sizeof s->msg, "moreau: setup: the mechanics have no speeds (nv = 0)");
        return -1;
    }
    if (s->n != s->nq + s->nv) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "moreau: setup: the state has %zu components but q and v only %zu + %zu: "
                    "states beyond q and v (friction laws with internal states) are not "
                    "supported by the Moreau-Jean time-stepping, use a set-valued Coulomb "
                    "friction law without states",
                    s->n, s->nq, s->nv);
        return -1;
    }
    if (s->nc > 0) {
        if (m->contacts == NULL || m->tangent_dim == NULL || m->mu == NULL ||
            m->local_impulse == NULL || m->law == NULL) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: setup: %zu contacts but contacts, tangent_dim, mu, "
                        "local_impulse or law is NULL",
                        s->nc);
            return -1;
        }
        if (s->nc > SIZE_MAX / 64 || s->nv > SIZE_MAX / 64 / s->nc) {
            nsi_set_msg(s->msg, sizeof s->msg, "moreau: setup: problem too large");
            return -1;
        }
    }
    char nb[32];
    for (size_t c = 0; c < s->nc; ++c) {
        const char *name = mj_name(s, c, nb, sizeof nb);
        if (m->tangent_dim[c] != 1 && m->tangent_dim[c] != 2) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: setup: contact '%s' has tangent_dim %u (must be 1 or 2)", name,
                        (unsigned)m->tangent_dim[c]);
            return -1;
        }
        if (!(m->mu[c] >= 0.0) || !isfinite(m->mu[c])) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: setup: contact '%s' has mu = %g (must be finite and >= 0)", name,
                        m->mu[c]);
            return -1;
        }
    }
    return 0;
}

static nsdyn_status mj_setup(void *inst, const nsdyn_ode *ode, double t0, const double *y0,
                             double t_end) {
    moreau *s = inst;
    mj_reset(s);
    if (mj_take_problem(s, ode) != 0) return NSDYN_ERROR;
    /* The horizon bounds the work before the first step: h fits the run,
     * the step count stays within NSI_MAX_FIXED_STEPS, the time advances. */
    if (nsi_check_fixed_step("moreau", s->h, t0, t_end, s->msg, sizeof s->msg) != 0)
        return NSDYN_ERROR;
    const size_t n = s->n, nq = s->nq, nv = s->nv, nc = s->nc, n3 = 3 * nc;
    const size_t n_dbl =
        2 * n + 2 * nq + 2 * nv + nc + 3 * nc + 2 * n3 * nv + n3 * n3 + 3 * n3 + nc + nc + n3 + n3;
    const size_t bytes =
        n_dbl * sizeof(double) + 2 * nc * sizeof(size_t) + nc * sizeof(uint32_t) + nc + 16;
    s->block = calloc(1, bytes);
    if (s->block == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "moreau: out of memory for %zu states, %zu contacts", n,
                    nc);
        return NSDYN_ERROR;
    }
    double *p = s->block;
    s->y = p;
    p += n;
    s->ynew = p;
    p += n;
    s->qth = p;
    p += nq;
    s->qd = p;
    p += nq;
    s->vfree = p;
    p += nv;
    s->acc = p;
    p += nv;
    s->gap = p;
    p += nc;
    s->u = p;
    p += n3;
    s->W = p;
    p += n3 * nv;
    s->MW = p;
    p += n3 * nv;
    s->D = p;
    p += n3 * n3;
    s->qv = p;
    p += n3;
    s->P = p;
    p += n3;
    s->w = p;
    p += n3;
    s->cres = p;
    p += nc;
    s->mu_act = p;
    p += nc;
    s->P_last = p;
    p += n3;
    s->P_report = p;
    p += n3;
    s->act = (size_t *)(void *)p; /* doubles then size_t: alignment kept */
    s->row = s->act + nc;
    s->tdim_act = (uint32_t *)(void *)(s->row + nc);
    s->was_active = (unsigned char *)(s->tdim_act + nc);

#ifdef NSDYN_HAVE_SICONOS
    if (s->solver == SOLVER_SICONOS_NSGS) {
        /* Siconos solves one dimension for all contacts: 2 when every
         * frictional contact is planar, else 3 (a planar contact with
         * friction cannot be posed in a 3-D cone without a spurious t2). */
        int any2 = 0, fric1 = -1;
        for (size_t c = 0; c < nc; ++c) {
            if (s->mech.tangent_dim[c] == 2)
                any2 = 1;
            else if (s->mech.mu[c] > 0.0 && fric1 < 0)
                fric1 = (int)c;
        }
        if (any2 && fric1 >= 0) {
            char nb[32];
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: setup: solver = \"siconos_nsgs\" cannot mix planar contacts "
                        "with friction ('%s') and spatial ones; use solver = \"nsgs\"",
                        mj_name(s, (size_t)fric1, nb, sizeof nb));
            return NSDYN_ERROR;
        }
        /* Siconos poses Newton's law with Moreau's shift itself: the
         * cross-check exists for Newton-type laws only. */
        if (nc > 0 && s->mech.law->kind != NSDYN_RESTITUTION_NEWTON) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: setup: solver = \"siconos_nsgs\" solves Newton's restitution "
                        "law only; the contact law reports another kind (%d); use solver = "
                        "\"nsgs\", which asks the contact law itself",
                        (int)s->mech.law->kind);
            return NSDYN_ERROR;
        }
        const int dim = any2 ? 3 : 2;
        char why[NSI_MSG_LEN - 64];
        if (mfc_siconos_init(&s->sic, dim, nc,
                             dim == 2 ? SICONOS_FRICTION_2D_NSGS : SICONOS_FRICTION_3D_NSGS, s->tol,
                             s->max_iter, why, sizeof why) != 0) {
            nsi_set_msg(s->msg, sizeof s->msg, "moreau: setup: solver = \"siconos_nsgs\": %s", why);
            return NSDYN_ERROR;
        }
        s->sic_ready = 1;
    }
#endif
    memcpy(s->y, y0, n * sizeof(double));
    s->t = t0;
    s->t_base = t0;
    s->k_grid = 0;
    return NSDYN_OK;
}

/* ---- one step ------------------------------------------------------------ */

/* Map a callback status: OK/WARNING -> OK, REJECT_STEP kept, else ERROR
 * with a message naming the callback. */
static nsdyn_status mj_cb(moreau *s, nsdyn_status r, const char *what, double t) {
    if (r == NSDYN_OK || r == NSDYN_WARNING) return NSDYN_OK;
    if (r == NSDYN_REJECT_STEP) return NSDYN_REJECT_STEP;
    nsi_set_msg(s->msg, sizeof s->msg, "moreau: %s returned %s at t = %.10g s", what,
                nsi_status_name(r), t);
    return NSDYN_ERROR;
}

/* Append to s->msg (truncating). */
static void mj_append(moreau *s, const char *fmt, ...) NSI_PRINTF(2, 3);
static void mj_append(moreau *s, const char *fmt, ...) {
    const size_t len = strlen(s->msg);
    if (len + 1 >= sizeof s->msg) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg + len, sizeof s->msg - len, fmt, ap);
    va_end(ap);
}

/* Describe a failed contact solve in s->msg. */
static void mj_describe_failure(moreau *s, double t, double h, size_t m, const mfc_info *info,
                                int siconos_info) {
    char nb[32];
    nsi_set_msg(s->msg, sizeof s->msg,
                "moreau: contact solve failed in the step from t = %.10g s (h = %.3g s): "
                "relative residual %.3e > tol %.3e after %d iteration%s of %s",
                t, h, info->error, s->tol, info->iterations, info->iterations == 1 ? "" : "s",
                mj_solver_choices[s->solver]);
    if (siconos_info == -2)
        mj_append(s, " (Siconos raised an error)");
    else if (siconos_info > 0)
        mj_append(s, " (Siconos info %d)", siconos_info);
    mj_append(s, "; closed contacts:");
    for (size_t a = 0; a < m; ++a)
        mj_append(s, "%s '%s' (residual %.3e m/s)", a == 0 ? "" : ",",
                  mj_name(s, s->act[a], nb, sizeof nb), s->cres[a]);
    if (info->local_fail > 0)
        mj_append(s,
                  "; contact '%s' has no exact one-contact solution (singular or non-positive "
                  "Delassus block, or a Painleve-like configuration)",
                  mj_name(s, s->act[info->local_fail - 1], nb, sizeof nb));
}

/* The contact law's impulse at closed contact a (of s->act) alone, for
 * mfc_nsgs: b is its local velocity without its own impulse; restitution
 * refers to the velocity at the step start (contact.h). */
static int mj_local(void *ctx, size_t a, const double A[9], const double b[3], double r[3]) {
    moreau *s = ctx;
    const size_t c = s->act[a];
    return s->mech.local_impulse(s->mech.ctx, c, A, b, s->u + 3 * c, r) > NSDYN_WARNING ? -1 : 0;
}

/* Step 3: contacts at (tth, s->qth, v), index set s->act (size *m), and W,
 * M^-1 W^T of the closed contacts (act[a]'s at block row[a]); the host pays
 * a dynamics evaluation per component of M^-1 W^T. With contact_rows
 * (integrator.h): gaps (W = NULL), then rows of the index set only (issue
 * 14). An older host gives every candidate's rows: gaps first after a step
 * without closed contacts, else all in one call. Both calls report the same
 * gaps and velocities. Counted once per step (jacobian_evals). */
static nsdyn_status mj_index_set(moreau *s, double tth, const double *v, size_t *m) {
    void *ctx = s->mech.ctx;
    const int by_rows = s->mech.contact_rows != NULL;
    const int with_w = !by_rows && s->m_last > 0;
    *m = 0;
    if (s->nc == 0) return NSDYN_OK;
    s->st.jacobian_evals++;
    nsdyn_status st = mj_cb(s,
                            s->mech.contacts(ctx, tth, s->qth, v, s->gap, s->u,
                                             with_w ? s->W : NULL, with_w ? s->MW : NULL),
                            "contacts", tth);
    if (st != NSDYN_OK) return st;
    for (size_t c = 0; c < s->nc; ++c)
        if (s->gap[c] <= 0.0) s->act[(*m)++] = c;
    s->m_last = *m;
    for (size_t a = 0; a < *m; ++a) s->row[a] = by_rows ? a : s->act[a];
    if (*m == 0 || with_w) return NSDYN_OK;
    if (by_rows)
        return mj_cb(s, s->mech.contact_rows(ctx, tth, s->qth, v, *m, s->act, s->W, s->MW),
                     "contact_rows", tth);
    return mj_cb(s, s->mech.contacts(ctx, tth, s->qth, v, s->gap, s->u, s->W, s->MW), "contacts",
                 tth);
}

/* Try one step of size h from (s->t, s->y) into s->ynew. Returns OK,
 * WARNING (a failed solve under on_failure = warn), REJECT_STEP or ERROR. */
static nsdyn_status mj_try(moreau *s, double h) {
    const size_t nq = s->nq, nv = s->nv, nc = s->nc;
    const double t = s->t, th = s->theta, tth = t + th * h;
    const double *q = s->y, *v = s->y + nq;
    double *qn = s->ynew, *vn = s->ynew + nq;
    void *ctx = s->mech.ctx;
    nsdyn_status st;
    nsdyn_status result = NSDYN_OK;

    /* 1. predicted configuration */
    st = mj_cb(s, s->mech.qdot(ctx, t, q, v, s->qd), "qdot", t);
    if (st != NSDYN_OK) return st;
    for (size_t i = 0; i < nq; ++i) s->qth[i] = q[i] + th * h * s->qd[i];
    /* 2. free velocity */
    s->st.rhs_evals++;
    st = mj_cb(s, s->mech.free_acceleration(ctx, tth, s->qth, v, s->acc), "free_acceleration", tth);
    if (st != NSDYN_OK) return st;
    for (size_t i = 0; i < nv; ++i) {
        s->vfree[i] = v[i] + h * s->acc[i];
        vn[i] = s->vfree[i];
    }
    /* 3. contacts at the predicted configuration, index set */
    size_t m = 0;
    st = mj_index_set(s, tth, v, &m);
    if (st != NSDYN_OK) return st;
    if (m > 0) {
        /* 4. the friction-contact problem of the closed contacts */
        const size_t n3 = 3 * m;
        for (size_t a = 0; a < m; ++a) {
            const size_t c = s->act[a], rc = s->row[a];
            for (size_t i = 0; i < 3; ++i) {
                const double *Wr = s->W + (3 * rc + i) * nv;
                double du = 0.0;
                for (size_t k = 0; k < nv; ++k) du += Wr[k] * s->acc[k];
                s->qv[3 * a + i] = s->u[3 * c + i] + h * du;
                s->P[3 * a + i] = s->was_active[c] ? s->P_last[3 * c + i] : 0.0;
            }
            /* Siconos poses the Newton problem with Moreau's shift; nsgs
             * asks the contact law (mj_local), which applies its own. */
            if (s->solver == SOLVER_SICONOS_NSGS)
                s->qv[3 * a] += s->mech.law->restitution * fmin(s->u[3 * c], 0.0);
            s->mu_act[a] = s->mech.mu[c];
            s->tdim_act[a] = s->mech.tangent_dim[c];
            for (size_t b = 0; b < m; ++b) {
                const size_t rd = s->row[b];
                for (size_t i = 0; i < 3; ++i) {
                    const double *Wr = s->W + (3 * rc + i) * nv;
                    for (size_t j = 0; j < 3; ++j) {
                        const double *Mr = s->MW + (3 * rd + j) * nv;
                        double sum = 0.0;
                        for (size_t k = 0; k < nv; ++k) sum += Wr[k] * Mr[k];
                        s->D[(3 * a + i) * n3 + 3 * b + j] = sum;
                    }
                }
            }
        }
        const mfc_problem prob = {
            m, s->D, s->qv, s->mu_act, s->tdim_act, s->solver == SOLVER_NSGS ? mj_local : NULL, s};
        mfc_info info = {0, 0.0, 0, 0};
        int siconos_info = 0, ok;
        if (s->solver == SOLVER_NSGS) {
            ok = mfc_nsgs(&prob, s->P, s->w, s->tol, s->max_iter, &info) == 0;
        } else {
#ifdef NSDYN_HAVE_SICONOS
            siconos_info = mfc_siconos_solve(&s->sic, &prob, s->P, &info.iterations);
            info.error = mfc_error(&prob, s->P, s->w, NULL, &info.worst);
            ok = siconos_info == 0 && info.error <= s->tol;
#else
            ok = 0; /* refused in create() */
#endif
        }
        if (!ok || !isfinite(info.error)) {
            /* each closed contact's residual, for the message */
            (void)mfc_error(&prob, s->P, s->w, s->cres, NULL);
            mj_describe_failure(s, t, h, m, &info, siconos_info);
            if (s->on_failure == FAIL_ERROR) return NSDYN_ERROR;
            nsi_log(&s->host, NSDYN_LOG_WARNING, s->msg);
            result = NSDYN_WARNING;
        }
        /* 5. post-impact / end-of-step velocity */
        for (size_t a = 0; a < m; ++a) {
            const size_t rc = s->row[a];
            for (size_t i = 0; i < 3; ++i) {
                const double Pi = s->P[3 * a + i];
                if (Pi == 0.0) continue;
                const double *Mr = s->MW + (3 * rc + i) * nv;
                for (size_t k = 0; k < nv; ++k) vn[k] += Pi * Mr[k];
            }
        }
    }
    /* warm start of the next step: impulses of the contacts closed now */
    for (size_t c = 0; c < nc; ++c) s->was_active[c] = 0;
    for (size_t a = 0; a < m; ++a) {
        const size_t c = s->act[a];
        s->was_active[c] = 1;
        memcpy(s->P_last + 3 * c, s->P + 3 * a, 3 * sizeof(double));
    }
    /* 6. positions with v_theta (vfree is free now: reuse it) */
    double *vth = s->vfree;
    for (size_t i = 0; i < nv; ++i) vth[i] = (1.0 - th) * v[i] + th * vn[i];
    st = mj_cb(s, s->mech.qdot(ctx, tth, s->qth, vth, s->qd), "qdot", tth);
    if (st != NSDYN_OK) return st;
    for (size_t i = 0; i < nq; ++i) qn[i] = q[i] + h * s->qd[i];
    for (size_t i = 0; i < nq + nv; ++i) {
        if (!isfinite(s->ynew[i])) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: non-finite state component %zu after the step of %.3g s at t = "
                        "%.10g s (h too large for this problem?)",
                        i, h, t);
            return NSDYN_ERROR;
        }
    }
    return result;
}

static nsdyn_status mj_step(void *inst, double t_stop, nsdyn_step_report *out) {
    moreau *s = inst;
    const double t = s->t;
    /* Step of this call: to the next grid point t_base + k h (computed, not
     * accumulated), or to t_stop (as rk4.c). */
    double t_grid = s->t_base + (double)(s->k_grid + 1) * s->h, h, t_land;
    int on_grid = 0;
    if (t_grid >= t_stop || t_stop - t_grid < MJ_SLIVER * s->h) {
        h = t_stop - t;
        t_land = t_stop;
    } else {
        h = t_grid - t;
        t_land = t_grid;
        on_grid = 1;
    }
    nsdyn_status st;
    for (int attempt = 0;; ++attempt) {
        st = mj_try(s, h);
        if (st != NSDYN_REJECT_STEP) break;
        s->st.rejected_steps++;
        if (attempt >= MJ_MAX_HALVINGS) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "moreau: a callback kept rejecting; step size %.3g s after %d halvings "
                        "at t = %.10g s",
                        h, attempt, t);
            return NSDYN_ERROR;
        }
        h *= 0.5;
        t_land = t + h;
        on_grid = 0;
    }
    if (st != NSDYN_OK && st != NSDYN_WARNING) return NSDYN_ERROR;
    if (st == NSDYN_WARNING) s->st.rejected_steps++; /* a failed solve, logged, step taken */

    /* Accept. */
    double *tmp = s->y;
    s->y = s->ynew;
    s->ynew = tmp;
    s->t = t_land;
    s->st.steps++;
    if (on_grid) {
        s->k_grid++;
    } else {
        s->t_base = t_land;
        s->k_grid = 0;
    }
    /* impulses of the step, every contact (zero where open) */
    for (size_t c = 0; c < s->nc; ++c)
        for (int i = 0; i < 3; ++i)
            s->P_report[3 * c + i] = s->was_active[c] ? s->P_last[3 * c + i] : 0.0;
    out->t = s->t;
    out->y = s->y;
    out->event = -1;
    out->h = h;
    out->contact_impulse = s->P_report;
    return st;
}

static nsdyn_status mj_restart(void *inst, double t, const double *y) {
    moreau *s = inst;
    if (y != s->y) memmove(s->y, y, s->n * sizeof(double));
    s->t = t;
    s->t_base = t;
    s->k_grid = 0;
    memset(s->was_active, 0, s->nc); /* no warm start across a restart */
    return NSDYN_OK;
}

static void mj_stats(void *inst, nsdyn_integrator_stats *out) {
    moreau *s = inst;
    if (s == NULL) return;
    nsi_stats_write(out, &s->st);
}

static const char *mj_message(void *inst) {
    moreau *s = inst;
    return s != NULL ? s->msg : "moreau: no instance";
}

static const nsdyn_integrator nsdyn_integrator_moreau = {
    .info = NSDYN_INTEGRATOR_INFO(
            .id = "moreau", .version = "1.0.0",
            .summary = "Moreau-Jean time-stepping (theta-method, velocity-level contact with "
                       "restitution and Coulomb friction)",
            NSDYN_PARAMS(mj_params), .provides = NSDYN_CAP_FIXED_STEP | NSDYN_CAP_TIME_STEPPING,
            .destroy = mj_destroy, .reset = mj_reset),
    .setup = mj_setup,
    .step = mj_step,
    .restart = mj_restart,
    .stats = mj_stats,
    .message = mj_message,
    .extension = mj_extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index);

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    return index == 0 ? &nsdyn_integrator_moreau.info : NULL;
}
