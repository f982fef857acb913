/* bistiffness_limit: the flow of one impact (modes, the exact propagation
 * exp(A h) x, event location by bisection, the mode choice, the phase log).
 * The model and the method: bistiffness_limit.c's header. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bistiffness_internal.h"
#include "nsdyn_numeric.h"

size_t bl_ws_doubles(size_t n) {
    const size_t N = 4 * n + 1, m = 3 * n, k = 2 * n;
    return m * m + m + N * N + m * n + m + k * k + 3 * k + k * m + 5 * N + 2 * m + 2 * (m + 1) +
           8 * n;
}
size_t bl_ws_ints(size_t n) { return 28 * n; }

void bl_ws_bind(blx *x, double *d, int *iv) {
    const size_t n = (size_t)x->n, N = 4 * n + 1, m = 3 * n, k = 2 * n;
    x->G = d, d += m * m;
    x->um = d, d += m;
    x->A = d, d += N * N;
    x->B = d, d += m * n;
    x->z = d, d += m;
    x->M = d, d += k * k;
    x->rhs = d, d += k;
    x->sol = d, d += k;
    x->nul = d, d += k;
    x->col = d, d += k * m;
    x->x = d, d += N;
    x->y = d, d += N;
    x->t = d, d += N;
    x->xp = d, d += N;
    x->g0 = d, d += N;
    x->F = d, d += m;
    x->u = d, d += m;
    x->g = d, d += m + 1;
    x->c0 = d, d += 4 * n;
    x->c1 = d;
    x->nm = iv, iv += n;
    x->fm = iv, iv += n;
    x->cnm = iv, iv += n;
    x->cfm = iv, iv += n;
    x->opt = iv, iv += 18 * n;
    x->nopt = iv, iv += 2 * n;
    x->idx = iv, iv += 2 * n;
    x->unk = iv;
}

static double Gq(const blx *x, int i, int j) { return x->G[(size_t)i * 3 * x->n + j]; }
static double sigma_of(int fm) { return fm == F_SLIDE_P ? 1.0 : fm == F_SLIDE_M ? -1.0 : 0.0; }

/* ---- forces of a mode: F = B d (+ alpha z) ------------------------------ */

/* The unknowns (hold normals, stick tangents) and their force columns. */
static void unknowns(blx *x, const int *nm, const int *fm) {
    const int m = 3 * x->n;
    x->nunk = 0;
    for (int i = 0; i < x->n; ++i) {
        if (nm[i] == N_HOLD) {
            double *c = x->col + (size_t)x->nunk * m;
            memset(c, 0, (size_t)m * sizeof *c);
            c[3 * i] = 1.0;
            c[3 * i + 1] = -sigma_of(fm[i]) * x->muk[i];
            x->unk[x->nunk++] = 3 * i; /* its equation: u_n,i' = 0 */
        }
        if (nm[i] != N_OPEN && fm[i] == F_STICK) {
            double *c = x->col + (size_t)x->nunk * m;
            memset(c, 0, (size_t)m * sizeof *c);
            c[3 * i + 1] = 1.0;
            x->unk[x->nunk++] = 3 * i + 1; /* u_t,i' = 0 */
        }
    }
}

/* B (3n x n) and the null split z of modes (nm, fm); 0 if the equations
 * of the stick and hold unknowns have no solution. */
static int mode_forces(blx *x, const int *nm, const int *fm) {
    const int n = x->n, m = 3 * n;
    unknowns(x, nm, fm);
    const int k = x->nunk;
    x->has_z = 0;
    memset(x->z, 0, (size_t)m * sizeof *x->z);
    for (int j = 0; j < n; ++j) {
        double *Fj = x->F; /* forces for d = e_j */
        memset(Fj, 0, (size_t)m * sizeof *Fj);
        if (nm[j] == N_COMP || nm[j] == N_EXP) {
            Fj[3 * j] = nm[j] == N_COMP ? x->kc : x->ke;
            Fj[3 * j + 1] = -sigma_of(fm[j]) * x->muk[j] * Fj[3 * j];
        }
        for (int r = 0; r < k; ++r) {
            double s = 0.0;
            for (int q = 0; q < m; ++q) s += Gq(x, x->unk[r], q) * Fj[q];
            x->rhs[r] = -s;
            for (int c = 0; c < k; ++c) {
                const double *cc = x->col + (size_t)c * m;
                double a = 0.0;
                for (int q = 0; q < m; ++q) a += Gq(x, x->unk[r], q) * cc[q];
                x->M[r * k + c] = a;
            }
        }
        if (k > 0 && k <= NSN_GC_MAX) {
            int rank = nsn_gauss_complete(k, x->M, (size_t)k, x->rhs, x->sol, x->nul);
            if (rank < 0) return 0;
            if (j == 0 && rank == k - 1) {
                x->has_z = 1;
                for (int c = 0; c < k; ++c)
                    for (int q = 0; q < m; ++q) x->z[q] += x->nul[c] * x->col[(size_t)c * m + q];
            }
        } else if (k > 0) {
            if (nsn_lu_solve((size_t)k, x->M, (size_t)k, x->rhs, 1e-13, 0.0) != NSN_OK) return 0;
            memcpy(x->sol, x->rhs, (size_t)k * sizeof *x->sol);
        }
        for (int c = 0; c < k; ++c)
            for (int q = 0; q < m; ++q) Fj[q] += x->sol[c] * x->col[(size_t)c * m + q];
        for (int q = 0; q < m; ++q) x->B[(size_t)q * n + j] = Fj[q];
    }
    return 1;
}

/* x' = A x, x = (d, P, 1): d' = -(u- + G P)_n, P' = B d. */
static void build_A(blx *x) {
    const int n = x->n, N = x->N, m = 3 * n;
    memset(x->A, 0, (size_t)N * N * sizeof *x->A);
    for (int i = 0; i < n; ++i) {
        for (int c = 0; c < m; ++c) x->A[(size_t)i * N + n + c] = -Gq(x, 3 * i, c);
        x->A[(size_t)i * N + N - 1] = -x->um[3 * i];
    }
    for (int q = 0; q < m; ++q)
        for (int j = 0; j < n; ++j) x->A[(size_t)(n + q) * N + j] = x->B[(size_t)q * n + j];
    x->anorm = 0.0;
    for (int i = 0; i < N; ++i) {
        double s = 0.0;
        for (int j = 0; j < N; ++j) s += fabs(x->A[(size_t)i * N + j]);
        x->anorm = fmax(x->anorm, s);
    }
}

/* out = exp(A th) in, by its Taylor series (|A th| <= 0.1: 12 terms reach
 * rounding; the loop stops when a term no longer changes the sum). */
static void propagate(blx *x, const double *in, double th, double *out) {
    const int N = x->N;
    memcpy(out, in, (size_t)N * sizeof *out);
    memcpy(x->t, in, (size_t)N * sizeof *x->t);
    for (int k = 1; k < 40; ++k) {
        double tn = 0.0, on = 0.0;
        for (int i = 0; i < N; ++i) {
            double s = 0.0;
            for (int j = 0; j < N; ++j) s += x->A[(size_t)i * N + j] * x->t[j];
            x->y[i] = s * th / k;
        }
        for (int i = 0; i < N; ++i) {
            x->t[i] = x->y[i];
            out[i] += x->t[i];
            tn = fmax(tn, fabs(x->t[i]));
            on = fmax(on, fabs(out[i]));
        }
        if (tn <= 1e-18 * on) break;
    }
}

/* u = u- + G P and F = B d at state s (current mode). */
static void state_uF(blx *x, const double *s) {
    const int n = x->n, m = 3 * n;
    for (int i = 0; i < m; ++i) {
        double v = x->um[i];
        for (int j = 0; j < m; ++j) v += Gq(x, i, j) * s[n + j];
        x->u[i] = v;
        double f = 0.0;
        for (int j = 0; j < n; ++j) f += x->B[(size_t)i * n + j] * s[j];
        x->F[i] = f;
    }
}

/* max over alpha of min_j (c0_j + c1_j alpha): the friction cones' and hold
 * bounds' smallest margin at the best split along z. */
static double maximin(const double *c0, const double *c1, int m) {
    double fixed = BIG, best = -BIG;
    int pos = 0, neg = 0;
    for (int j = 0; j < m; ++j) {
        if (c1[j] > 0)
            pos = 1;
        else if (c1[j] < 0)
            neg = 1;
        else
            fixed = fmin(fixed, c0[j]);
    }
    if (!(pos && neg)) return fixed; /* the free ones can all be satisfied */
    for (int j = 0; j < m; ++j)
        for (int l = 0; l < m; ++l) {
            if (!(c1[j] > 0 && c1[l] < 0)) continue;
            double a = (c0[l] - c0[j]) / (c1[j] - c1[l]), v = BIG;
            for (int q = 0; q < m; ++q) v = fmin(v, c0[q] + c1[q] * a);
            best = fmax(best, v);
        }
    return fmin(best, fixed);
}

/* The mode's conditions at state s into g (each >= 0 while it holds):
 * per contact the normal position, the normal rate, the slip direction,
 * then the cones and hold bounds. Calls state_uF. */
static void conditions(blx *x, const double *s) {
    const int n = x->n;
    int mc = 0;
    state_uF(x, s);
    const double w = x->has_z ? 1.0 : 0.0;
    for (int i = 0; i < n; ++i) {
        const double d = s[i], un = x->u[3 * i], ut = x->u[3 * i + 1];
        double *g = x->g + 3 * i;
        g[0] = x->nm[i] == N_OPEN ? -d : d;
        g[1] = x->nm[i] == N_COMP ? -un : x->nm[i] == N_EXP ? un : BIG;
        g[2] = x->nm[i] != N_OPEN && x->fm[i] != F_STICK ? sigma_of(x->fm[i]) * ut : BIG;
        const double Fn = x->F[3 * i], Ft = x->F[3 * i + 1], zn = w * x->z[3 * i],
                     zt = w * x->z[3 * i + 1];
        if (x->nm[i] == N_HOLD) { /* ke d <= F_n <= kc d */
            x->c0[mc] = Fn - x->ke * d, x->c1[mc++] = zn;
            x->c0[mc] = x->kc * d - Fn, x->c1[mc++] = -zn;
        }
        if (x->nm[i] != N_OPEN && x->fm[i] == F_STICK) { /* |F_t| <= mu_s F_n */
            x->c0[mc] = x->mus[i] * Fn - Ft, x->c1[mc++] = x->mus[i] * zn - zt;
            x->c0[mc] = x->mus[i] * Fn + Ft, x->c1[mc++] = x->mus[i] * zn + zt;
        }
    }
    x->g[3 * n] = maximin(x->c0, x->c1, mc);
}

/* ---- mode choice ---------------------------------------------------------- */

/* Sets the mode (nm, fm) <- (cnm, cfm) and its matrices; 0 if infeasible. */
static int set_mode(blx *x, const int *cnm, const int *cfm) {
    if (cnm != x->nm) memcpy(x->nm, cnm, (size_t)x->n * sizeof *x->nm);
    if (cfm != x->fm) memcpy(x->fm, cfm, (size_t)x->n * sizeof *x->fm);
    if (!mode_forces(x, x->nm, x->fm)) return 0;
    build_A(x);
    return 1;
}

/* Is the mode just set consistent at state x->x? Conditions clearly true
 * must stay true over the probe, conditions at zero must not decrease.
 * A change within rounding (ROUND) decides nothing: the probe is then
 * lengthened (x 100, up to 1e-2) for those conditions alone, so a tie whose
 * first derivatives vanish (a hold reaching its bound: the compression
 * branch starts with u_n' = 0) is settled by the next order; a condition
 * that stays unchanged (a stick held) passes. */
static int consistent(blx *x) {
    const int ng = 3 * x->n + 1;
    unsigned long long unsure = 0; /* conditions still undecided (first 64) */
    conditions(x, x->x);
    for (int k = 0; k < ng; ++k) {
        if (x->g[k] < -TOL_C) return 0;
        x->g0[k] = x->g[k];
    }
    for (double pr = PROBE; pr <= 1.001e-2; pr *= 100.0) {
        propagate(x, x->x, pr, x->xp);
        conditions(x, x->xp);
        unsigned long long still = 0;
        for (int k = 0; k < ng; ++k) {
            const int at_zero = x->g0[k] <= TOL_C;
            if (pr > PROBE && (k >= 64 || !(unsure >> k & 1ull))) continue;
            if (!at_zero) {
                if (x->g[k] < 0.0) return 0;
                continue;
            }
            const double d = x->g[k] - x->g0[k];
            if (d < -ROUND) return 0;
            if (d <= ROUND && k < 64) still |= 1ull << k;
        }
        unsure = still;
        if (!unsure) return 1;
    }
    return 1;
}

/* Each contact's candidate modes at the current state, in the order of
 * preference (stick before slide; expansion, hold, then compression). */
static void candidates(blx *x) {
    state_uF(x, x->x);
    for (int i = 0; i < x->n; ++i) {
        const double d = x->x[i], un = x->u[3 * i], ut = x->u[3 * i + 1];
        int ns[3], nn = 0, fs[3], nf = 0, *o = x->opt + 18 * i, no = 0;
        if (d > TOL_C) {
            if (un < -TOL_C)
                ns[nn++] = N_COMP;
            else if (un > TOL_C)
                ns[nn++] = N_EXP;
            else
                ns[nn++] = N_EXP, ns[nn++] = N_HOLD, ns[nn++] = N_COMP;
        } else if (d >= -TOL_C) {
            if (un < -TOL_C)
                ns[nn++] = N_COMP;
            else if (un > TOL_C)
                ns[nn++] = N_OPEN;
            else
                ns[nn++] = N_OPEN, ns[nn++] = N_COMP;
        } else {
            ns[nn++] = N_OPEN;
        }
        if (ut > TOL_C)
            fs[nf++] = F_SLIDE_P;
        else if (ut < -TOL_C)
            fs[nf++] = F_SLIDE_M;
        else
            fs[nf++] = F_STICK, fs[nf++] = F_SLIDE_P, fs[nf++] = F_SLIDE_M;
        for (int a = 0; a < nn; ++a) {
            if (ns[a] == N_OPEN) {
                o[2 * no] = N_OPEN, o[2 * no + 1] = F_NONE, ++no;
                continue;
            }
            for (int c = 0; c < nf; ++c) o[2 * no] = ns[a], o[2 * no + 1] = fs[c], ++no;
        }
        x->nopt[i] = no;
    }
}

/* The first consistent combination of the candidates; 0 if none. */
static int choose_modes(blx *x) {
    candidates(x);
    long combos = 1;
    for (int i = 0; i < x->n; ++i) {
        x->idx[i] = 0;
        combos *= x->nopt[i];
        if (combos > MAX_COMBOS) combos = MAX_COMBOS;
    }
    for (long c = 0; c < combos; ++c) {
        for (int i = 0; i < x->n; ++i) {
            const int *o = x->opt + 18 * i + 2 * x->idx[i];
            x->cnm[i] = o[0], x->cfm[i] = o[1];
        }
        if (set_mode(x, x->cnm, x->cfm) && consistent(x)) return 1;
        for (int i = x->n - 1; i >= 0; --i) { /* next combination, the last contact fastest */
            if (++x->idx[i] < x->nopt[i]) break;
            x->idx[i] = 0;
        }
    }
    return 0;
}

/* ---- phase log ------------------------------------------------------------ */

static const char *fname(int fm) {
    return fm == F_STICK     ? "stick"
           : fm == F_SLIDE_P ? "slide+"
           : fm == F_SLIDE_M ? "slide-"
                             : "off";
}

static void say(blx *x, const char *s) {
    if (!x->log || x->at + 1 >= x->log_len) return;
    int k = snprintf(x->log + x->at, x->log_len - x->at, "%s", s);
    if (k > 0) x->at += (size_t)k;
    if (x->at > x->log_len - 1) x->at = x->log_len - 1;
}

/* Is contact i touching for the log: in contact and loaded, or being
 * loaded (its approach or its normal acceleration at the probe state
 * that choose_modes() left in x->F)? An unloaded tip resting on the ground
 * (u_n' = 0 exactly, the PC on its vertical) is not. */
static int touching(blx *x, int i) {
    if (i < 0 || x->nm[i] == N_OPEN) return 0;
    if (x->x[i] > TOL_C || x->u[3 * i] < -TOL_C) return 1;
    double a = 0.0;
    for (int q = 0; q < 3 * x->n; ++q) a += Gq(x, 3 * i, q) * x->F[q];
    return a < -1e-12;
}

/* The label of the mode just chosen (pc_impact's words); logged once. */
static void log_phase(blx *x) {
    char lab[64] = "";
    const int n = x->n, f = x->f, b = x->b;
    const int fon = x->nm[f] != N_OPEN, bon = touching(x, b);
    int k = 0;
    if (fon && x->ended) x->ended = 0; /* Q_f closes again: a new impact phase */
    if (n <= 2 && fon && bon)
        k = snprintf(lab, sizeof lab, "DP %s/%s", fname(x->fm[f]), fname(x->fm[b]));
    else if (n <= 2 && fon)
        k = snprintf(lab, sizeof lab, "SP %s", fname(x->fm[f]));
    else if (n <= 2 && bon)
        k = snprintf(lab, sizeof lab, "Q_b %s", fname(x->fm[b]));
    else if (n > 2)
        for (int i = 0; i < n && k >= 0 && (size_t)k < sizeof lab; ++i)
            if (x->nm[i] != N_OPEN)
                k += snprintf(lab + k, sizeof lab - (size_t)k, "%sc%d %s", k ? "," : "", i,
                              fname(x->fm[i]));
    if (lab[0] == '\0' || k < 0 || (size_t)k >= sizeof lab) return;
    if (fon) {
        double dun = 0.0; /* u_nf' at the probe: the approach grows (jamb) */
        for (int q = 0; q < 3 * n; ++q) dun += Gq(x, 3 * f, q) * x->F[q];
        const int sg = x->fm[f] == F_SLIDE_P ? 1 : x->fm[f] == F_SLIDE_M ? -1 : 0;
        if (dun < 0.0 && (size_t)k < sizeof lab)
            k += snprintf(lab + k, sizeof lab - (size_t)k, " jamb");
        if (sg && x->last_sigma && sg != x->last_sigma && k > 0 && (size_t)k < sizeof lab)
            snprintf(lab + k, sizeof lab - (size_t)k, " reversal");
        if (sg) x->last_sigma = sg;
    }
    if (strcmp(lab, x->last) == 0) return;
    snprintf(x->last, sizeof x->last, "%s", lab);
    if (x->at) say(x, "; ");
    say(x, lab);
}

/* Q_f has left: "end", and whether Q_b still touches (pc_impact's words). */
static void log_end(blx *x) {
    if (x->ended) return;
    x->ended = 1;
    say(x, x->at ? "; end" : "end");
    if (x->n == 2 && touching(x, x->b)) say(x, " (Q_b stays closed)");
    x->last[0] = '\0';
}

/* ---- the integration ----------------------------------------------------- */

/* Does any condition at state s fall TOL_T below its start value? */
static int violated(blx *x, const double *s) {
    conditions(x, s);
    for (int k = 0; k < 3 * x->n + 1; ++k)
        if (x->g[k] < fmin(x->g0[k], 0.0) - TOL_T) return 1;
    return 0;
}

/* No force can act any more and no contact approaches: the impact is
 * over. No force: every force column zero (an expansion with k(1 - mu_n)
 * = 0), or every touching contact back at zero penetration (to TOL_C; a
 * tip resting on the ground with no load, e.g. Q_b when the PC lies on its
 * vertical, lambda = -cos 2 beta). */
static int quiescent(blx *x) {
    int no_force = 1, unloaded = 1;
    for (int q = 0; q < 3 * x->n * x->n; ++q) no_force &= x->B[q] == 0.0;
    state_uF(x, x->x);
    for (int i = 0; i < x->n; ++i) {
        if (x->u[3 * i] < -TOL_C) return 0;
        if (x->nm[i] != N_OPEN && x->x[i] > TOL_C) unloaded = 0;
    }
    return no_force || unloaded;
}

/* Nothing moves any more while forces act: every contact with a force at
 * rest (u_n = 0) and the forces self-equilibrated (G F = 0), e.g. a body
 * wedged between two contacts whose dampers hold. The velocities are final
 * (the impulse would only grow along the null space of G). */
static int wedged(blx *x) {
    const int m = 3 * x->n;
    double fmax_ = 0.0, acc = 0.0;
    state_uF(x, x->x);
    for (int i = 0; i < x->n; ++i)
        if (x->nm[i] != N_OPEN && fabs(x->u[3 * i]) > TOL_C) return 0;
    for (int q = 0; q < m; ++q) fmax_ = fmax(fmax_, fabs(x->F[q]));
    for (int i = 0; i < m; ++i) {
        double a = 0.0;
        for (int q = 0; q < m; ++q) a += Gq(x, i, q) * x->F[q];
        acc = fmax(acc, fabs(a));
    }
    return fmax_ > 0.0 && acc <= 1e-9 * fmax_;
}

/* One mode from x->x to its end (the event state in x->x). 1 ok, 0 with msg. */
static int run_mode(blx *x, long *steps, char *msg, size_t len) {
    conditions(x, x->x);
    memcpy(x->g0, x->g, (size_t)(3 * x->n + 1) * sizeof *x->g0);
    const double h = 0.1 / fmax(x->anorm, 1e-300);
    for (;;) {
        if (++*steps > MAX_STEPS) {
            snprintf(msg, len,
                     "bistiffness_limit: more than %d steps in one impact (a mode "
                     "that never ends)",
                     MAX_STEPS);
            return 0;
        }
        double *s1 = x->xp;
        propagate(x, x->x, h, s1);
        if (!isfinite(s1[0]) || !isfinite(s1[x->n])) {
            snprintf(msg, len,
                     "bistiffness_limit: the impact diverges (a Delassus operator that "
                     "is not positive semi-definite?)");
            return 0;
        }
        if (!violated(x, s1)) {
            memcpy(x->x, s1, (size_t)x->N * sizeof *x->x);
            x->tau += h;
            BL_TRACE(x);
            continue;
        }
        double lo = 0.0, hi = h; /* bisection on the exact solution */
        for (int it = 0; it < 200 && hi - lo > 1e-16 * h; ++it) {
            double mid = 0.5 * (lo + hi);
            propagate(x, x->x, mid, s1);
            if (violated(x, s1))
                hi = mid;
            else
                lo = mid;
        }
        propagate(x, x->x, hi, s1);
        memcpy(x->x, s1, (size_t)x->N * sizeof *x->x);
        x->tau += hi;
        BL_TRACE(x);
        return 1;
    }
}

/* Free flight (no contact pushes): jump to the first closing contact.
 * Returns 0 if none approaches (the impact is over). */
static int flight(blx *x) {
    state_uF(x, x->x);
    double best = BIG;
    for (int i = 0; i < x->n; ++i)
        if (x->u[3 * i] < -TOL_C && x->x[i] < 0.0) best = fmin(best, x->x[i] / x->u[3 * i]);
    if (best >= BIG) return 0;
    for (int i = 0; i < x->n; ++i) x->x[i] -= best * x->u[3 * i];
    x->tau += best;
    BL_TRACE(x);
    return 1;
}

int bl_integrate(blx *x, char *msg, size_t len) {
    long steps = 0;
    for (int ev = 0; ev < MAX_EVENTS; ++ev) {
        if (!choose_modes(x)) {
            state_uF(x, x->x);
            snprintf(msg, len,
                     "bistiffness_limit: no consistent contact modes after %d mode changes "
                     "(Painleve-type: a sliding contact's friction drives it into the ground; "
                     "or a tie at a mode boundary that the law cannot resolve); u_n,0 = %g, "
                     "u_t,0 = %g (normalized)",
                     ev, x->u[0], x->u[1]);
            return 0;
        }
        int any = 0;
        for (int i = 0; i < x->n; ++i) any |= x->nm[i] != N_OPEN;
        if (x->n <= 2 && x->nm[x->f] == N_OPEN && ev > 0) log_end(x);
        if (!any && x->n > 2 && ev > 0) log_end(x);
        log_phase(x);
        if (quiescent(x)) {
            log_end(x);
            return 1;
        }
        if (wedged(x)) {
            say(x, x->at ? "; wedged" : "wedged");
            log_end(x);
            return 1;
        }
        if (!any) {
            if (!flight(x)) {
                log_end(x);
                return 1;
            }
            continue;
        }
        if (!run_mode(x, &steps, msg, len)) return 0;
    }
    snprintf(msg, len, "bistiffness_limit: more than %d mode changes in one impact", MAX_EVENTS);
    return 0;
}
