/* The step guard (step_guard.h): impacts located inside integrator steps. */
#include "step_guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact_eval.h"
#include "guard_hermite.h"
#include "guard_scan.h"
#include "modes.h"
#include "modes_work.h"

/* A located crossing's time resolution per second of t, the same as the
 * integrators' own root finders (dopri5 DP_ROOT_RTOL). */
#define GUARD_ROOT_RTOL 1e-12
#define GUARD_ROOT_MAX_ITER 200

/* Level storage (f and f' of every contact at one time): 0 the step start,
 * 1 the step end, 2 + d the midpoint of a search interval at depth d; then
 * the scan over every contact (its last sample above 0, the current one,
 * the hit's end), then the one-contact root finder and its scan (bracket
 * ends, last sample, current one), which write only their contact's entry;
 * last the candidates of a bracket at the earliest root so far (bracket()). */
enum { L_LAST = NSD_GUARD_DEPTH + 2, L_CUR, L_END, L1_L, L1_R, L1_LAST, L1_CUR, L_AT, L_COUNT };

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

void nsd_step_guard_init(nsd_step_guard *g, const nsd_model *m) {
    memset(g, 0, sizeof *g);
    g->nc = m->nc;
    g->n = m->n;
    g->f = xcalloc(L_COUNT * m->nc, sizeof *g->f);
    g->df = xcalloc(L_COUNT * m->nc, sizeof *g->df);
    g->rate = xcalloc(2 * m->nc, sizeof *g->rate);
    g->wanted = xcalloc(m->nc, 1);
    g->cand = xcalloc(m->nc, 1);
    g->some = xcalloc(m->nc, 1);
    g->watched = xcalloc(m->nc, sizeof *g->watched);
    g->mask = xcalloc(2 * NSD_GUARD_DEPTH * m->nc, 1);
    g->y = xcalloc(m->n, sizeof *g->y);
    g->ytmp = xcalloc(m->n, sizeof *g->ytmp);
}

void nsd_step_guard_free(nsd_step_guard *g) {
    free(g->f);
    free(g->df);
    free(g->rate);
    free(g->wanted);
    free(g->cand);
    free(g->some);
    free(g->watched);
    free(g->mask);
    free(g->y);
    free(g->ytmp);
    memset(g, 0, sizeof *g);
}

static double *lf(nsd_step_guard *g, size_t level) { return g->f + level * g->nc; }
static double *ldf(nsd_step_guard *g, size_t level) { return g->df + level * g->nc; }

nsdyn_status nsd_step_guard_start(nsd_step_guard *g, const nsd_model *m, nsd_data *d, double t,
                                  const double *y) {
    g->t_a = t;
    return nsd_modes_gaps(m, d, t, y, lf(g, 0), ldf(g, 0));
}

typedef struct guard_call {
    nsd_step_guard *g;
    const nsd_model *m;
    nsd_data *d;
    nsd_ig_call *ig;
    double t_b;
    const double *y_b;
} guard_call;

/* The state at t (the dense output, or the step end itself) into y. */
static int state_at(guard_call *k, double t, double *y) {
    if (t == k->t_b) {
        memcpy(y, k->y_b, k->g->n * sizeof *y);
        return 0;
    }
    if (nsd_ig_dense(k->ig, t, y) > NSDYN_WARNING) {
        snprintf(k->d->failure, sizeof k->d->failure,
                 "the step guard could not read the dense output at t = %.17g s: %s", t,
                 nsd_ig_message(k->ig));
        return -1;
    }
    return 0;
}

/* Every contact's f, f' at t into level. */
static int gaps_at(guard_call *k, double t, size_t level) {
    if (state_at(k, t, k->g->ytmp) != 0) return -1;
    k->g->evaluations++;
    k->g->gaps += k->g->nc;
    return nsd_modes_gaps(k->m, k->d, t, k->g->ytmp, lf(k->g, level), ldf(k->g, level)) >
                   NSDYN_WARNING
               ? -1
               : 0;
}

/* The f, f' at the state y at t of the contacts c with mask[c] != 0 into
 * their entries of level: the system is asked for those only (system.h
 * request.wanted, ABI 2.3; sphere_planes then evaluates those segments of
 * its terrain, not all). */
static int gaps_masked_at(guard_call *k, double t, const double *y, const unsigned char *mask,
                          size_t level) {
    const nsd_model *m = k->m;
    nsd_data *d = k->d;
    nsd_step_guard *g = k->g;
    g->evaluations_some++;
    nsd_model_ask_contacts(m, d, NSD_ROWS_NONE);
    nsdyn_status st =
        nsd_contacts_evaluate_some(m->sys, d->sys_inst, t, y, y + m->nq, m->nc, mask, d->ce);
    if (st > NSDYN_WARNING) {
        nsd_model_fail(m, d, st, t, "system contacts()");
        return -1;
    }
    for (size_t c = 0; c < m->nc; ++c) {
        if (!mask[c]) continue;
        g->gaps++;
        const nsdyn_contact_eval *e = &d->ce[c];
        if (e->active && !isfinite(e->gap + e->u[0] + e->u[1] + e->u[2] + e->normal_load)) {
            snprintf(d->failure, sizeof d->failure,
                     "system '%s' returned a non-finite gap, velocity or load at contact '%s' at "
                     "t = %.9g s (gap %g m, u_n %g m/s)",
                     m->sys->info.id, m->layout.contacts[c].name, t, e->gap, e->u[0]);
            return -1;
        }
        int open = is_unilateral(m, c) && e->active && !d->ed.mode[c].closed;
        lf(g, level)[c] = open ? e->gap - d->ed.mode[c].g_ref[0] : INFINITY;
        ldf(g, level)[c] = e->u[0];
    }
    return 0;
}

/* Contact c's f, f' at the state y at t into its entry of level. */
static int gap_one_at(guard_call *k, double t, const double *y, size_t c, size_t level) {
    memset(k->g->wanted, 0, k->g->nc);
    k->g->wanted[c] = 1;
    return gaps_masked_at(k, t, y, k->g->wanted, level);
}

static int gap_one(guard_call *k, double t, size_t c, size_t level) {
    if (state_at(k, t, k->g->ytmp) != 0) return -1;
    return gap_one_at(k, t, k->g->ytmp, c, level);
}

/* The f, f' at t of the contacts with mask[c] != 0 into level, one
 * dense-output state for all of them; the others' entries are set to
 * +inf (not watched: no sample of theirs is read). */
static int gaps_some_at(guard_call *k, double t, const unsigned char *mask, size_t level) {
    if (state_at(k, t, k->g->ytmp) != 0) return -1;
    for (size_t c = 0; c < k->g->nc; ++c)
        if (!mask[c]) {
            lf(k->g, level)[c] = INFINITY;
            ldf(k->g, level)[c] = 0.0;
        }
    return gaps_masked_at(k, t, k->g->ytmp, mask, level);
}

/* Newton's step for the root from one bracket end (t, f, f'), if it falls
 * (f' < 0) and lands strictly inside (tl, tr); NAN if not. */
static double newton_inside(double t, double f, double df, double tl, double tr) {
    double tn = df < 0.0 ? t - f / df : NAN;
    return tn > tl && tn < tr ? tn : NAN;
}

/* Contact c's crossing in [tl, tr] (f(tl) > 0 >= f(tr), the ends' f, f'
 * in levels L1_L and L1_R) on the dense output, one contact per
 * evaluation; *root is the post-crossing end of a final bracket no wider
 * than 1e-12 s per second of t, and its f, f' go to L1_R. Every evaluation
 * gives the gap's rate f' = u_n as well, so a trial point is Newton's step
 * from the bracket end nearer the root (smaller |f|) when it lands inside
 * the bracket (quadratic on a smooth gap); once that step is below half
 * the tolerance, the trial is put half the tolerance past it, to the
 * bracket's other side, which closes the bracket (Newton alone approaches
 * from one side). Else the Illinois step (regula falsi that halves the
 * kept end's value when the same end is kept twice; Dowell & Jarratt
 * 1971). A trial point is kept half the tolerance inside the bracket (as
 * SUNDIALS' CVODE rootfinder does), and a bisection step is forced
 * whenever three steps neither halved the bracket nor quartered the
 * smaller |f| at its ends (a kink or a jump of the gap, where Newton and
 * the secant stall; a grazing gap, flat at its left end, stalled Illinois
 * for 34 steps in tumbleweed_case3_physical). */
static int illinois(guard_call *k, size_t c, double tl, double tr, double *root) {
    nsd_step_guard *g = k->g;
    double fl = lf(g, L1_L)[c], fr = lf(g, L1_R)[c], dl = ldf(g, L1_L)[c], dr = ldf(g, L1_R)[c];
    double wl = fl, wr = fr; /* the Illinois weights: fl, fr, halved when kept */
    double tol = GUARD_ROOT_RTOL * fmax(1.0, fabs(tr)), width = tr - tl;
    double f_small = fmin(fabs(fl), fabs(fr));
    int kept = 0; /* -1: the last step moved tr (kept tl), +1: moved tl */
    for (int it = 0; it < GUARD_ROOT_MAX_ITER && tr - tl > tol; ++it) {
        double mid = 0.5 * (tl + tr);
        int right = fabs(fr) <= fabs(fl);
        double tn = right ? newton_inside(tr, fr, dr, tl, tr) : newton_inside(tl, fl, dl, tl, tr);
        if (isnan(tn)) {
            right = !right;
            tn = right ? newton_inside(tr, fr, dr, tl, tr) : newton_inside(tl, fl, dl, tl, tr);
        }
        double t = (tl * wr - tr * wl) / (wr - wl);
        if (!isnan(tn)) {
            double step = right ? tr - tn : tn - tl;
            t = step >= 0.5 * tol ? tn : right ? tn - 0.5 * tol : tn + 0.5 * tol;
        }
        if (it % 3 == 0) {
            double f_now = fmin(fabs(fl), fabs(fr));
            if (it > 0 && tr - tl > 0.5 * width && f_now > 0.25 * f_small) t = mid;
            width = tr - tl;
            f_small = f_now;
        }
        if (!isfinite(t)) t = mid;
        t = fmin(fmax(t, tl + 0.5 * tol), tr - 0.5 * tol);
        if (!(t > tl && t < tr)) t = mid;
        if (!(t > tl && t < tr)) break;
        if (gap_one(k, t, c, L1_CUR) != 0) return -1;
        double f = lf(g, L1_CUR)[c];
        if (f <= 0.0) {
            tr = t;
            fr = wr = f;
            dr = ldf(g, L1_CUR)[c];
            if (kept == -1) wl *= 0.5;
            kept = -1;
        } else if (isfinite(f)) {
            tl = t;
            fl = wl = f;
            dl = ldf(g, L1_CUR)[c];
            if (kept == +1) wr *= 0.5;
            kept = +1;
        } else { /* switched off: above, its size unknown */
            tl = t;
            dl = NAN;
            if (kept == +1) wr *= 0.5;
            kept = +1;
        }
    }
    *root = tr;
    lf(g, L1_R)[c] = fr;
    ldf(g, L1_R)[c] = dr;
    return 0;
}

typedef struct scan_levels {
    size_t only;      /* one contact (SIZE_MAX: every contact above 0 at tl) */
    size_t l, r;      /* levels of the ends */
    size_t last, cur; /* levels of the last sample above 0 and the current one */
    double *acc;      /* per contact: the bound on |f''| [m/s^2] */
} scan_levels;

static int watched(const scan_levels *s, const double *fl, size_t c) {
    return (s->only == SIZE_MAX || c == s->only) && fl[c] > 0.0 && isfinite(fl[c]);
}

typedef struct scan_call {
    guard_call *k;
    const scan_levels *s;
} scan_call;

/* One sample of a scan: the watched contacts' gaps (g->some, set by
 * earliest_hit(): those above their threshold at the step start; the
 * others are never read), or the one contact's. */
static int scan_sample(void *ctx, double t) {
    scan_call *sc = ctx;
    return sc->s->only == SIZE_MAX ? gaps_some_at(sc->k, t, sc->k->g->some, sc->s->cur)
                                   : gap_one(sc->k, t, sc->s->only, sc->s->cur);
}

/* The scan (guard_scan.h) of [tl, tr] over the contacts s watches, on the
 * guard's levels: 1 with the first sample at or below 0 at *t_cur (level
 * cur) and the one before at *t_last (level last), 0 if none, -1 on
 * failure. */
static int scan(guard_call *k, scan_levels *s, double tl, double tr, double *t_last,
                double *t_cur) {
    nsd_step_guard *g = k->g;
    const double *fl = lf(g, s->l);
    size_t nw = 0;
    for (size_t c = 0; c < g->nc; ++c)
        if (watched(s, fl, c)) g->watched[nw++] = c;
    scan_call sc = {k, s};
    nsd_guard_scan S = {.w = g->watched,
                        .nw = nw,
                        .f_last = lf(g, s->last),
                        .df_last = ldf(g, s->last),
                        .f_cur = lf(g, s->cur),
                        .df_cur = ldf(g, s->cur),
                        .acc = s->acc,
                        .sample = scan_sample,
                        .ctx = &sc};
    return nsd_guard_scan_run(&S, tl, tr, fl, ldf(g, s->l), lf(g, s->r), ldf(g, s->r), t_last,
                              t_cur);
}

/* The first crossing of contact c in [tl, tr] (f(tl) > 0 >= f(tr), at
 * levels il, ir). A bracket may hold several sign changes: a gap with a
 * kink or a jump where a terrain's nearest feature changes (a sphere past
 * a concave corner sees the decline's gap fall through zero, rise again
 * past the corner and jump where its centre crosses the floor), and a
 * root finder converges to any of them; a later one than the first is an
 * impact missed (the sphere sank 6 cm into a valley's decline,
 * tumbleweed_case4 with backspin0). So the stretch before a root is
 * scanned (scan(): GUARD_SCAN samples, those a bound on the gap's
 * acceleration rules out passed over), and where a sample is at or below
 * zero the earlier bracket is searched instead. A bracket with one
 * crossing gives its root. */
static int locate(guard_call *k, size_t c, double tl, size_t il, double tr, size_t ir, int later,
                  double *root) {
    nsd_step_guard *g = k->g;
    lf(g, L1_L)[c] = lf(g, il)[c];
    ldf(g, L1_L)[c] = ldf(g, il)[c];
    lf(g, L1_R)[c] = lf(g, ir)[c];
    ldf(g, L1_R)[c] = ldf(g, ir)[c];
    scan_levels s = {c, L1_L, L1_R, L1_LAST, L1_CUR, g->rate + g->nc};
    for (int pass = 0; pass < 8; ++pass) {
        if (illinois(k, c, tl, tr, root) != 0) return -1;
        /* A bracket from the step's start, found by the search: the scan of
         * [t_a, hit] that follows (earliest_hit()) samples every contact
         * above its threshold at t_a, this one included, on the same grid
         * (t_a + i (hit - t_a) / GUARD_SCAN) under the same bounds (from the same ends);
         * when another contact's hit comes first, this root is after it. */
        if (later && tl == g->t_a) return 0;
        double t_last, t_cur;
        int r = scan(k, &s, tl, *root, &t_last, &t_cur);
        if (r <= 0) return r;
        tl = t_last;
        tr = t_cur;
        lf(g, L1_L)[c] = lf(g, L1_LAST)[c];
        ldf(g, L1_L)[c] = ldf(g, L1_LAST)[c];
        lf(g, L1_R)[c] = lf(g, L1_CUR)[c];
        ldf(g, L1_R)[c] = ldf(g, L1_CUR)[c];
    }
    return 0;
}

/* The candidate with the earliest crossing of [tl, tr] by the straight
 * line through its ends' values (a first guess of the order to locate
 * them in); SIZE_MAX if none is left. */
static size_t first_guess(const nsd_step_guard *g, const double *fl, const double *fr) {
    size_t best = SIZE_MAX;
    double s_best = INFINITY;
    for (size_t c = 0; c < g->nc; ++c) {
        if (!g->cand[c]) continue;
        double s = fl[c] / (fl[c] - fr[c]);
        if (best == SIZE_MAX || s < s_best) {
            best = c;
            s_best = s;
        }
    }
    return best;
}

/* A falling sign change between two samples: the earliest crossing in
 * [tl, tr] (levels il, ir) of the contacts that fall through their
 * threshold there (f(tl) > 0 >= f(tr); mask NULL: any contact, watch
 * non-NULL: only those with watch[c] > 0, the contacts a scan watched).
 * One is located; the others are evaluated together at its root (one
 * dense-output state for all), and only one still at or below 0 there
 * crossed earlier, in [tl, root]: it is located there and the rest are
 * asked again at its root. A candidate above 0 at the root crosses later
 * as far as the samples show (a dip and return before the root is what
 * the scans look for: locate() for its own contact, earliest_hit() for
 * every contact). Every candidate was located before, and a far face
 * whose gap jumps through its threshold after the impact cost a
 * bisection's 40 evaluations (tumbleweed_case3_physical). */
static int bracket(guard_call *k, size_t il, size_t ir, double tl, double tr,
                   const unsigned char *mask, const double *watch, double *t_hit, size_t *contact) {
    nsd_step_guard *g = k->g;
    int later = watch == NULL; /* from the search: earliest_hit() scans before the hit */
    const double *fl = lf(g, il), *fr = lf(g, ir);
    for (size_t c = 0; c < g->nc; ++c)
        g->cand[c] = (unsigned char)((!mask || mask[c]) &&
                                     (!watch || (watch[c] > 0.0 && isfinite(watch[c]))) &&
                                     fl[c] > 0.0 && fr[c] <= 0.0);
    size_t c = first_guess(g, fl, fr), right = ir;
    if (c == SIZE_MAX) return 0;
    while (c != SIZE_MAX) {
        double root;
        if (locate(k, c, tl, il, tr, right, later, &root) != 0) return -1;
        *t_hit = tr = root;
        *contact = c;
        g->cand[c] = 0;
        right = L_AT;
        size_t left = 0;
        for (size_t i = 0; i < g->nc; ++i) left += g->cand[i];
        if (!left) break;
        if (state_at(k, root, g->ytmp) != 0 || gaps_masked_at(k, root, g->ytmp, g->cand, L_AT) != 0)
            return -1;
        for (size_t i = 0; i < g->nc; ++i) g->cand[i] &= lf(g, L_AT)[i] <= 0.0;
        c = first_guess(g, fl, lf(g, L_AT));
    }
    return 1;
}

/* Does the search follow contact c in this interval? (mask NULL: every
 * contact, the whole step; else those its parent found unsafe here.) */
static int follows(const unsigned char *mask, size_t c) { return !mask || mask[c]; }

/* Where to split [tl, tr]: the earliest place a followed contact's Hermite
 * interpolant says to look (may_fall with the margin known so far),
 * strictly inside; else the midpoint. */
/* The earlier of a split best so far and s, where s is strictly inside. */
static double earlier(double best, double s) { return s > 0.0 && s < 1.0 ? fmin(best, s) : best; }

/* The split time of [tl, tr] at s (the midpoint if s is not inside). */
static double split_at(double tl, double tr, double s) {
    double ts = tl + (s < 1.0 ? s : 0.5) * (tr - tl);
    return ts > tl && ts < tr ? ts : 0.5 * (tl + tr);
}

static double split_point(guard_call *k, double tl, double tr, size_t il, size_t ir, double margin,
                          const unsigned char *mask) {
    const nsd_step_guard *g = k->g;
    const double *fl = g->f + il * g->nc, *dl = g->df + il * g->nc;
    const double *fr = g->f + ir * g->nc, *dr = g->df + ir * g->nc;
    double h = tr - tl, best = 2.0;
    for (size_t c = 0; c < g->nc; ++c) {
        double s;
        if (!follows(mask, c) || !isfinite(fl[c]) || !isfinite(fr[c])) continue;
        if (nsd_guard_may_fall(fl[c], dl[c], fr[c], dr[c], h, margin, &s)) best = earlier(best, s);
    }
    return split_at(tl, tr, best);
}

/* The estimate of the largest error of the followed contacts' Hermite
 * interpolants over [tl, tr] from their mismatch at the split s. The
 * mismatch at s is the interpolant's error there; for a smooth gap that
 * error is f''''(t)/24 (t - tl)^2 (t - tr)^2, largest at the midpoint, so
 * the estimate of the largest is the mismatch over (4 s (1 - s))^2
 * (unchanged at the midpoint). Without it a split at the high point 5 %
 * into a step (a rebound's flight) measured ~1/25 of the error, and the
 * long half, which held a dip past an edge, was called safe (1.7e-6 m,
 * study I). */
static double split_error(const nsd_step_guard *g, size_t il, size_t im, size_t ir, double h,
                          double s, const unsigned char *mask) {
    const double *fl = g->f + il * g->nc, *dl = g->df + il * g->nc;
    const double *fm = g->f + im * g->nc, *dm = g->df + im * g->nc;
    const double *fr = g->f + ir * g->nc, *dr = g->df + ir * g->nc;
    double err = 0.0;
    for (size_t c = 0; c < g->nc; ++c) {
        if (!follows(mask, c) || !isfinite(fl[c]) || !isfinite(fm[c]) || !isfinite(fr[c])) continue;
        double hm = nsd_guard_hermite(fl[c], dl[c], fr[c], dr[c], h, s);
        double hdm = nsd_guard_hermite_rate(fl[c], dl[c], fr[c], dr[c], h, s);
        err = fmax(err, fabs(fm[c] - hm) + fmin(s, 1.0 - s) * h * fabs(dm[c] - hdm));
    }
    double w = 4.0 * s * (1.0 - s);
    return err / (w * w);
}

/* Is every contact a half follows (mask) a clean crossing there? Then its
 * bracket is located now, not split down to the depth limit. */
static int all_clean(const nsd_step_guard *g, size_t il, size_t ir, double h, double margin,
                     const unsigned char *mask) {
    const double *fl = g->f + il * g->nc, *dl = g->df + il * g->nc;
    const double *fr = g->f + ir * g->nc, *dr = g->df + ir * g->nc;
    for (size_t c = 0; c < g->nc; ++c)
        if (mask[c] && !nsd_guard_clean_crossing(fl[c], dl[c], fr[c], dr[c], h, margin)) return 0;
    return 1;
}

/* Search [tl, tr] (samples at levels il, ir) at depth d for the followed
 * contacts (mask), with the error estimate of the interpolants known so
 * far (margin): 1 found, 0 none, -1 failure. A half is searched again for
 * each contact whose interpolant may fall through its threshold there, a
 * sign change included: one contact's crossing in a half does not rule out
 * another contact's earlier dip and return inside it (a wheel's corner gap
 * passing through zero and back while its floor gap crosses later). A
 * contact a half is safe for is not followed into it, as it is not into a
 * safe half: the deeper samples evaluate the followed contacts only (a
 * rebound at a contact's threshold is followed to the depth limit without
 * evaluating the terrain's other faces at every level). At the depth
 * limit, or where a half cannot be split, the sign changes at its samples
 * are located. */
static int search(guard_call *k, double tl, double tr, size_t il, size_t ir, size_t d,
                  double margin, const unsigned char *mask, double s_mask, double *t_hit,
                  size_t *contact) {
    nsd_step_guard *g = k->g;
    double ts = mask ? split_at(tl, tr, s_mask) : split_point(k, tl, tr, il, ir, margin, mask);
    double h = tr - tl, s = (ts - tl) / h, s_left = 2.0, s_right = 2.0;
    size_t im = 2 + d;
    if (!(ts > tl && ts < tr)) return bracket(k, il, ir, tl, tr, mask, NULL, t_hit, contact);
    if (!mask) /* the whole step: a contact off (+inf) at either end is never followed */
        for (size_t c = 0; c < g->nc; ++c)
            g->some[c] = (unsigned char)(isfinite(lf(g, il)[c]) && isfinite(lf(g, ir)[c]));
    if (gaps_some_at(k, ts, mask ? mask : g->some, im) != 0) return -1;
    double err = split_error(g, il, im, ir, h, s, mask);
    const double *fl = lf(g, il), *dl = ldf(g, il), *fm = lf(g, im), *dm = ldf(g, im);
    const double *fr = lf(g, ir), *dr = ldf(g, ir);
    unsigned char *left = g->mask + 2 * d * g->nc, *right = left + g->nc;
    int unsafe_left = 0, unsafe_right = 0;
    for (size_t c = 0; c < g->nc; ++c) {
        double sc;
        left[c] = right[c] = 0;
        if (!follows(mask, c) || !isfinite(fl[c]) || !isfinite(fm[c]) || !isfinite(fr[c])) continue;
        if ((left[c] =
                 (unsigned char)nsd_guard_may_fall(fl[c], dl[c], fm[c], dm[c], ts - tl, err, &sc)))
            s_left = earlier(s_left, sc);
        if ((right[c] =
                 (unsigned char)nsd_guard_may_fall(fm[c], dm[c], fr[c], dr[c], tr - ts, err, &sc)))
            s_right = earlier(s_right, sc);
        unsafe_left |= left[c];
        unsafe_right |= right[c];
    }
    int leaf = d + 1 >= NSD_GUARD_DEPTH, r = 0;
    if (unsafe_left)
        r = leaf || all_clean(g, il, im, ts - tl, err, left)
                ? bracket(k, il, im, tl, ts, left, NULL, t_hit, contact)
                : search(k, tl, ts, il, im, d + 1, err, left, s_left, t_hit, contact);
    if (r != 0 || !unsafe_right) {
        g->unresolved += leaf && unsafe_left && r == 0;
        return r;
    }
    r = leaf || all_clean(g, im, ir, tr - ts, err, right)
            ? bracket(k, im, ir, ts, tr, right, NULL, t_hit, contact)
            : search(k, ts, tr, im, ir, d + 1, err, right, s_right, t_hit, contact);
    g->unresolved += leaf && r == 0;
    return r;
}

/* The state at a located crossing into g->y. A crossing where the gap's
 * own rate says it separates means the integrator's position and velocity
 * disagree by more than that rebound's flight: the contact remembers the
 * speed (modes.h v_unresolved), and the accumulation rule treats rebounds
 * that slow as rest. */
static int located(guard_call *k, double t_hit, size_t c) {
    if (state_at(k, t_hit, k->g->y) != 0) return -1;
    k->g->hits++;
    double rate = ldf(k->g, L1_R)[c];
    nsd_contact_mode *md = &k->d->ed.mode[c];
    if (rate > 0.0) md->v_unresolved = fmax(md->v_unresolved, rate * (1.0 + 1e-9));
    return 1;
}

/* An open contact that is penetrating beyond twice the tolerance and still
 * approaching at a step end: an impact was missed (it started the phase
 * penetrated). Never silent. */
static int penetrating(const nsd_model *m, nsd_data *data, const double *f, const double *df,
                       double t) {
    for (size_t c = 0; c < m->nc; ++c) {
        if (!(f[c] < -m->ed.contact_tolerance && df[c] < 0.0)) continue;
        snprintf(data->failure, sizeof data->failure,
                 "contact '%s' is open but penetrates by %.3g m and approaches at %.3g m/s at t = "
                 "%.9g s (it started the phase penetrated; an impact was missed)",
                 m->layout.contacts[c].name, -(f[c] + data->ed.mode[c].g_ref[0]), -df[c], t);
        return 1;
    }
    return 0;
}

/* A crossing found at t_hit: does any contact fall through its threshold
 * earlier in [t_a, t_hit]? The search follows the Hermite interpolants of
 * the gaps, which a gap with a kink or a jump (a terrain's nearest feature
 * changing) defeats: a long free flight past a concave corner left the
 * search at a leaf where the floor's crossing was bracketed and the
 * decline's earlier one was not. So the stretch before a hit is scanned
 * (scan(): GUARD_SCAN samples of every contact above its threshold at t_a,
 * those an acceleration bound rules out passed over); the first sample where a
 * contact is at or below its threshold brackets an earlier crossing (with
 * the sample before it), which is located instead. Only steps with an
 * impact pay for it. */
static int earliest_hit(guard_call *k, double *t_hit, size_t *contact) {
    nsd_step_guard *g = k->g;
    double t_end = *t_hit, t_last, t_cur;
    size_t hit = *contact;
    for (size_t c = 0; c < g->nc; ++c)
        g->some[c] = (unsigned char)(lf(g, 0)[c] > 0.0 && isfinite(lf(g, 0)[c]));
    if (gaps_some_at(k, t_end, g->some, L_END) != 0) return -1;
    scan_levels s = {SIZE_MAX, 0, L_END, L_LAST, L_CUR, g->rate};
    int r = scan(k, &s, g->t_a, t_end, &t_last, &t_cur);
    if (r < 0) return -1;
    /* Found: the contacts at or below 0 at t_cur crossed in [t_last,
     * t_cur]. None: the hit itself, where another contact already below
     * its threshold crossed after the last sample (a sphere meeting a
     * concave corner: the decline's crossing 0.6 ms before the floor's,
     * between two samples). */
    const double *f0 = lf(g, 0), *f = lf(g, L_END);
    if (r == 1) /* every root is before t_cur < t_end */
        return bracket(k, L_LAST, L_CUR, t_last, t_cur, NULL, f0, t_hit, contact) < 0 ? -1 : 0;
    for (size_t c = 0; c < g->nc; ++c) {
        double root;
        if (!(f0[c] > 0.0 && c != hit && f[c] < 0.0)) continue;
        if (locate(k, c, t_last, L_LAST, t_end, L_END, 0, &root) != 0) return -1;
        if (root < *t_hit) {
            *t_hit = root;
            *contact = c;
        }
    }
    return 0;
}

int nsd_step_guard_check(nsd_step_guard *g, const nsd_model *m, nsd_data *d, nsd_ig_call *ig,
                         double t_b, const double *y_b, double *t_hit, size_t *contact) {
    guard_call k = {g, m, d, ig, t_b, y_b};
    if (g->nc == 0 || !(t_b > g->t_a)) return 0;
    if (gaps_at(&k, t_b, 1) != 0) return -1;
    int r = search(&k, g->t_a, t_b, 0, 1, 0, 0.0, NULL, 2.0, t_hit, contact);
    if (r < 0) return -1;
    if (r == 1 && earliest_hit(&k, t_hit, contact) != 0) return -1;
    if (r == 1) return located(&k, *t_hit, *contact);
    if (penetrating(m, d, lf(g, 1), ldf(g, 1), t_b)) return -1;
    memcpy(lf(g, 0), lf(g, 1), g->nc * sizeof *g->f);
    memcpy(ldf(g, 0), ldf(g, 1), g->nc * sizeof *g->df);
    g->t_a = t_b;
    return 0;
}
