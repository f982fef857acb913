/* The velocity-level friction-contact problem of one Moreau-Jean step
 * (moreau_fc.h): error measure, the own NSGS over nsdyn_numeric's driver
 * and one-contact Coulomb solver, and the optional Siconos cross-check. */
#include <math.h>
#include <string.h>

#include "moreau_fc.h"
#include "nsdyn_numeric.h"

#ifdef NSDYN_HAVE_SICONOS
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#endif

static unsigned mfc_nt(const mfc_problem *p, size_t c) {
    return p->mu[c] > 0.0 ? (unsigned)p->tdim[c] : 0u;
}

/* w = D P + q (3m). */
void mfc_velocity(const mfc_problem *p, const double *P, double *w) {
    const size_t n3 = 3 * p->m;
    for (size_t i = 0; i < n3; ++i) {
        const double *row = p->D + i * n3;
        double s = p->q[i];
        for (size_t j = 0; j < n3; ++j) s += row[j] * P[j];
        w[i] = s;
    }
}

/* Error of P (see the head of this file); w (3m) receives D P + q, cres (m,
 * may be NULL) the residual norm of each contact [m/s]. */
double mfc_error(const mfc_problem *p, const double *P, double *w, double *cres, size_t *worst) {
    mfc_velocity(p, P, w);
    const size_t n3 = 3 * p->m;
    double r2 = 0.0, q2 = 0.0, wmax = -1.0;
    size_t iw = 0;
    for (size_t c = 0; c < p->m; ++c) {
        const unsigned nt = mfc_nt(p, c);
        const double dnn = p->D[(3 * c) * n3 + 3 * c];
        const double rho = dnn > 0.0 ? 1.0 / dnn : 1.0, irho = dnn > 0.0 ? dnn : 1.0;
        const double *Pc = P + 3 * c, *wc = w + 3 * c;
        const double wt = nt == 2   ? sqrt(wc[1] * wc[1] + wc[2] * wc[2])
                          : nt == 1 ? fabs(wc[1])
                                    : 0.0;
        double z[3] = {Pc[0] - rho * (wc[0] + p->mu[c] * wt), Pc[1] - rho * wc[1],
                       Pc[2] - rho * wc[2]};
        if (nt < 2) z[2] = 0.0;
        if (nt < 1) z[1] = 0.0;
        nsn_proj_cone(z, p->mu[c], nt);
        /* components a contact does not use must be zero: their residual is
         * the impulse itself */
        double e2 = 0.0;
        for (int i = 0; i < 3; ++i) {
            const double ri = (Pc[i] - z[i]) * irho;
            e2 += ri * ri;
        }
        r2 += e2;
        if (cres != NULL) cres[c] = sqrt(e2);
        if (e2 > wmax) {
            wmax = e2;
            iw = c;
        }
        q2 += p->q[3 * c] * p->q[3 * c];
        for (unsigned i = 1; i <= nt; ++i) q2 += p->q[3 * c + i] * p->q[3 * c + i];
    }
    if (worst != NULL) *worst = iw;
    const double qn = sqrt(q2);
    return qn > 0.0 ? sqrt(r2) / qn : sqrt(r2);
}

int mfc_local_solve(const double A[9], const double b[3], double mu, unsigned nt, double r[3]) {
    return nsn_coulomb_local(A, b, mu, nt, r);
}

/* ---- non-smooth Gauss-Seidel --------------------------------------------- */

/* A velocity [m/s] relative to ||q|| (itself when q = 0), as mfc_error. */
static double mfc_scaled(const mfc_problem *p, double v) {
    double q2 = 0.0;
    for (size_t i = 0; i < 3 * p->m; ++i) q2 += p->q[i] * p->q[i];
    return q2 > 0.0 ? v / sqrt(q2) : v;
}

/* One contact: the caller's law, or Coulomb with Moreau's Signorini
 * condition. */
static int mfc_local_any(void *ctx, size_t c, const double A[9], const double b[3], double r[3]) {
    const mfc_problem *p = ctx;
    return p->local ? p->local(p->local_ctx, c, A, b, r)
                    : nsn_coulomb_local(A, b, p->mu[c], mfc_nt(p, c), r);
}

typedef struct mfc_run {
    const mfc_problem *p;
    double *w, tol;
    mfc_info *info;
} mfc_run;

/* The stopping rule after each sweep (nsn_sweep_check_fn). */
static int mfc_check(void *ctx, const nsn_sweep *s, const double *P) {
    mfc_run *run = ctx;
    const mfc_problem *p = run->p;
    mfc_info *info = run->info;
    info->iterations = s->sweep;
    info->local_fail = s->failed;
    info->worst = s->worst;
    if (p->local) {
        /* the contact law found no impulse: no sweep can repair that */
        if (s->failed) return -1;
        mfc_velocity(p, P, run->w);
        info->error = mfc_scaled(p, sqrt(s->change2));
    } else {
        info->error = mfc_error(p, P, run->w, NULL, &info->worst);
    }
    if (info->error <= run->tol) return 1;
    /* a sweep that changed nothing is a fixed point of the sweep: more
     * sweeps cannot help (e.g. a contact without a solution) */
    if (!s->moved && s->sweep > 1) return -1;
    return 0;
}

int mfc_nsgs(const mfc_problem *p, double *P, double *w, double tol, int max_iter, mfc_info *info) {
    info->iterations = 0;
    info->local_fail = 0;
    info->worst = 0;
    /* unused components start (and stay) at zero */
    for (size_t c = 0; c < p->m; ++c) {
        const unsigned nt = mfc_nt(p, c);
        for (unsigned i = nt + 1; i < 3; ++i) P[3 * c + i] = 0.0;
    }
    const nsn_nsgs_problem np = {p->m, p->D, p->q, p->tdim, mfc_local_any, (void *)p};
    mfc_run run = {p, w, tol, info};
    int sweeps = 0;
    return nsn_nsgs(&np, P, 1.0, max_iter, mfc_check, &run, &sweeps) == 1 ? 0 : -1;
}

/* ---- Siconos (optional) -------------------------------------------------- */
#ifdef NSDYN_HAVE_SICONOS
/* dlsym into a function pointer (object -> function pointer by memcpy, the
 * POSIX way). Returns 0 or -1. */
static int mfc_sym(void *so, const char *name, void *fp, size_t size) {
    void *sym = dlsym(so, name);
    if (sym == NULL) return -1;
    memcpy(fp, &sym, size);
    return 0;
}
#define MFC_SYM(api, field, name) mfc_sym((api)->so, name, &(api)->field, sizeof(api)->field)

/* solver_options_delete() of Siconos 4.4 clears an options tree but frees
 * neither the struct it is given nor those of its internal solvers (its
 * source: "double free or corruption // free(op);"), so the caller frees
 * them: detach the internal solvers, delete, free, recurse. (Checked under
 * LeakSanitizer: without this, 120 bytes leak per options struct.) */
static void mfc_siconos_options_free(const mfc_siconos_api *api, SolverOptions *op) {
    if (op == NULL) return;
    SolverOptions *kids[8];
    size_t nk = 0;
    if (op->internalSolvers != NULL)
        for (size_t i = 0; i < op->numberOfInternalSolvers; ++i) {
            if (nk < 8) kids[nk++] = op->internalSolvers[i];
            op->internalSolvers[i] = NULL; /* solver_options_delete(NULL) is a no-op */
        }
    api->options_delete(op);
    free(op);
    for (size_t i = 0; i < nk; ++i) mfc_siconos_options_free(api, kids[i]);
}

void mfc_siconos_free(mfc_siconos *s) {
    if (s->M != NULL) {
        s->M->matrix0 = NULL; /* ours, not Siconos' */
        s->api.nm_clear(s->M);
        free(s->M);
    }
    if (s->opt != NULL) mfc_siconos_options_free(&s->api, s->opt);
    free(s->Md);
    if (s->api.so != NULL) dlclose(s->api.so);
    memset(s, 0, sizeof *s);
}

/* solver_id: SICONOS_FRICTION_2D_* or SICONOS_FRICTION_3D_* matching dim.
 * Returns 0, or -1 with a message in err (library not found, out of
 * memory). */
int mfc_siconos_init(mfc_siconos *s, int dim, size_t max_contacts, int solver_id, double tol,
                     int max_iter, char *err, size_t err_len) {
    memset(s, 0, sizeof *s);
    s->dim = dim;
    s->cap = max_contacts;
    mfc_siconos_api *api = &s->api;
    api->so = dlopen(NSDYN_SICONOS_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (api->so == NULL) {
        const char *why = dlerror();
        snprintf(err, err_len, "cannot load Siconos numerics (%s): %s", NSDYN_SICONOS_SONAME,
                 why != NULL ? why : "?");
        return -1;
    }
    if (MFC_SYM(api, options_create, "solver_options_create") != 0 ||
        MFC_SYM(api, options_delete, "solver_options_delete") != 0 ||
        MFC_SYM(api, nm_new, "NM_new") != 0 || MFC_SYM(api, nm_clear, "NM_clear") != 0 ||
        MFC_SYM(api, fc2d_driver, "fc2d_driver") != 0 ||
        MFC_SYM(api, fc3d_driver, "fc3d_driver") != 0 ||
        MFC_SYM(api, get_jmp_buf, "sn_get_jmp_buf") != 0 ||
        MFC_SYM(api, release_jmp_buf, "sn_release_jmp_buf") != 0) {
        const char *why = dlerror();
        snprintf(err, err_len, "%s lacks a function nsdyn needs: %s", NSDYN_SICONOS_SONAME,
                 why != NULL ? why : "?");
        dlclose(api->so);
        api->so = NULL;
        return -1;
    }
    const size_t nd = (size_t)dim * (max_contacts > 0 ? max_contacts : 1);
    s->Md = malloc((nd * nd + 4 * nd) * sizeof(double));
    s->opt = api->options_create(solver_id);
    s->M = api->nm_new();
    if (s->Md == NULL || s->opt == NULL || s->M == NULL) {
        snprintf(err, err_len, "out of memory for the Siconos problem");
        mfc_siconos_free(s);
        return -1;
    }
    s->q = s->Md + nd * nd;
    s->mu = s->q + nd;
    s->r = s->mu + nd;
    s->u = s->r + nd;
    s->opt->dparam[SICONOS_DPARAM_TOL] = tol;
    s->opt->iparam[SICONOS_IPARAM_MAX_ITER] = max_iter;
    s->M->storageType = NM_DENSE;
    s->M->matrix0 = s->Md;
    s->prob.dimension = dim;
    s->prob.M = s->M;
    s->prob.q = s->q;
    s->prob.mu = s->mu;
    return 0;
}

/* Solve p (p->m <= cap) from the warm start P; P receives the impulses.
 * Returns Siconos' info (0 = converged by its own test), or -2 when
 * Siconos raised a fatal error (sn_fatal_error). *iters: iterations done. */
int mfc_siconos_solve(mfc_siconos *s, const mfc_problem *p, double *P, int *iters) {
    const size_t m = p->m, d = (size_t)s->dim, nd = d * m, n3 = 3 * m;
    /* dense storage is column-major */
    for (size_t c = 0; c < m; ++c)
        for (size_t i = 0; i < d; ++i) {
            const size_t row = d * c + i;
            for (size_t e = 0; e < m; ++e)
                for (size_t k = 0; k < d; ++k)
                    s->Md[(d * e + k) * nd + row] = p->D[(3 * c + i) * n3 + 3 * e + k];
            s->q[row] = p->q[3 * c + i];
            s->r[row] = P[3 * c + i];
        }
    for (size_t c = 0; c < m; ++c) s->mu[c] = p->mu[c];
    s->M->size0 = s->M->size1 = (int)nd;
    s->prob.numberOfContacts = (int)m;
    volatile int info;
    jmp_buf *jb = s->api.get_jmp_buf();
    if (setjmp(*jb) == 0) {
        info = s->dim == 2 ? s->api.fc2d_driver(&s->prob, s->r, s->u, s->opt)
                           : s->api.fc3d_driver(&s->prob, s->r, s->u, s->opt);
        s->api.release_jmp_buf();
    } else {
        s->api.release_jmp_buf();
        info = -2;
    }
    *iters = s->opt->iparam[SICONOS_IPARAM_ITER_DONE];
    /* locals set before setjmp are not trusted after it (-Wclobbered) */
    const size_t dd = (size_t)s->dim, mm = (size_t)s->prob.numberOfContacts;
    for (size_t c = 0; c < mm; ++c)
        for (size_t i = 0; i < 3; ++i) P[3 * c + i] = i < dd ? s->r[dd * c + i] : 0.0;
    return info;
}
#endif
