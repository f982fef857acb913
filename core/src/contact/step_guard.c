/* The step guard (step_guard.h): impacts located inside integrator steps. */
#include "step_guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes.h"

/* Bisection of a located crossing: time resolution per second of t, the
 * same as the integrators' own root finders (dopri5 DP_ROOT_RTOL). */
#define GUARD_ROOT_RTOL 1e-12
#define GUARD_ROOT_MAX_ITER 200

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

void nsd_step_guard_init(nsd_step_guard *g, const nsd_model *m) {
    memset(g, 0, sizeof *g);
    g->nc = m->nc;
    g->n = m->n;
    g->f = xcalloc((NSD_GUARD_DEPTH + 3) * m->nc, sizeof *g->f);
    g->df = xcalloc((NSD_GUARD_DEPTH + 3) * m->nc, sizeof *g->df);
    g->y = xcalloc(m->n, sizeof *g->y);
    g->ytmp = xcalloc(m->n, sizeof *g->ytmp);
}

void nsd_step_guard_free(nsd_step_guard *g) {
    free(g->f);
    free(g->df);
    free(g->y);
    free(g->ytmp);
    memset(g, 0, sizeof *g);
}

/* Level storage: 0 the step start, 1 the step end, 2 + d the midpoint of
 * an interval at depth d. */
static double *lf(nsd_step_guard *g, size_t level) { return g->f + level * g->nc; }
static double *ldf(nsd_step_guard *g, size_t level) { return g->df + level * g->nc; }

nsdyn_status nsd_step_guard_start(nsd_step_guard *g, nsd_model *m, double t, const double *y) {
    g->t_a = t;
    return nsd_modes_gaps(m, t, y, lf(g, 0), ldf(g, 0));
}

typedef struct guard_call {
    nsd_step_guard *g;
    nsd_model *m;
    const nsdyn_integrator *ig;
    void *inst;
    double t_b;
    const double *y_b;
} guard_call;

/* The state at t (the dense output, or the step end itself) into y. */
static int state_at(guard_call *k, double t, double *y) {
    if (t == k->t_b) {
        memcpy(y, k->y_b, k->g->n * sizeof *y);
        return 0;
    }
    if (k->ig->dense(k->inst, t, y) > NSDYN_WARNING) {
        snprintf(k->m->failure, sizeof k->m->failure,
                 "the step guard could not read the dense output at t = %.17g s: %s", t,
                 k->ig->message ? k->ig->message(k->inst) : "");
        return -1;
    }
    return 0;
}

static int gaps_at(guard_call *k, double t, size_t level) {
    if (state_at(k, t, k->g->ytmp) != 0) return -1;
    k->g->evaluations++;
    return nsd_modes_gaps(k->m, t, k->g->ytmp, lf(k->g, level), ldf(k->g, level)) > NSDYN_WARNING
               ? -1
               : 0;
}

/* Cubic Hermite on s in [0, 1] over an interval of length h. */
static double hermite(double f0, double d0, double f1, double d1, double h, double s) {
    double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * f0 + (s3 - 2 * s2 + s) * h * d0 + (3 * s2 - 2 * s3) * f1 +
           (s3 - s2) * h * d1;
}

/* d/dt of the cubic Hermite at s. */
static double hermite_rate(double f0, double d0, double f1, double d1, double h, double s) {
    return ((6 * s * s - 6 * s) * (f0 - f1) + (3 * s * s - 4 * s + 1) * h * d0 +
            (3 * s * s - 2 * s) * h * d1) /
           h;
}

/* Can the function, within margin of the Hermite interpolant of one
 * interval, be above 0 somewhere and at or below 0 later? That is: can the
 * interpolant fall from above -margin to below +margin (its values at the
 * ends and at its critical points, in order, are checked for such a
 * pair), or, with margin > 0, does it start below +margin and reach above
 * -margin at all (it starts inside the band, or rises into it): a contact
 * that has just bounced starts at its threshold, and its rebound's flight
 * above it (d0^2 / (2 |a|), nm for a 1e-4 m/s bounce) can return below it
 * anywhere in a step whose interpolant only sees the ends (a gap that
 * turns up again past a convex edge: the interpolant rises throughout).
 * If so, *split is where to look first (s in [0, 1]): the low point after
 * the fall when it is below 0 and the interval starts above 0 (a dip
 * through the threshold: the two samples bracket it), else the high point
 * before it (a short flight above the threshold that comes back down; a
 * bracket needs a sample above 0 first, and splitting a start at or below
 * 0 at the low point again and again converged on the low point and never
 * sampled the flight: 1.26e-5 m into an incline, tumbleweed study I). */
static int may_fall(double f0, double d0, double f1, double d1, double h, double margin,
                    double *split) {
    double A = 6 * f0 + 3 * h * d0 - 6 * f1 + 3 * h * d1;
    double B = -6 * f0 - 4 * h * d0 + 6 * f1 - 2 * h * d1, C = h * d0;
    double s[4] = {0.0, 2.0, 2.0, 1.0}, disc = B * B - 4 * A * C;
    if (disc >= 0) {
        /* The critical points in the stable form q = -(B + sgn(B) sqrt(disc))/2,
         * roots C/q and q/A: a gap that is a parabola in t (free flight)
         * leaves A a rounding residue, and the textbook (-B -+ sqrt)/(2A)
         * lost the small root (a rebound's high point) to cancellation: the
         * flight was never sampled and the impact after it was missed
         * (dopri5 at rtol 1e-3 on an incline, issue 22). A = 0: C/q = -C/B. */
        double q = -0.5 * (B + copysign(sqrt(disc), B));
        double r1 = q != 0.0 ? C / q : 2.0, r2 = fabs(A) > 1e-300 ? q / A : 2.0;
        s[1] = fmin(r1, r2);
        s[2] = fmax(r1, r2);
    }
    double highest = -INFINITY, s_high = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (!(s[i] >= 0.0 && s[i] <= 1.0)) continue;
        double v = hermite(f0, d0, f1, d1, h, s[i]);
        if (highest > -margin && v < margin) {
            *split = v < 0.0 && f0 > 0.0 ? s[i] : s_high;
            return 1;
        }
        if (v > highest) {
            highest = v;
            s_high = s[i];
        }
    }
    if (margin > 0.0 && f0 < margin && highest > -margin) {
        *split = s_high;
        return 1;
    }
    return 0;
}

/* Bisection of contact c's crossing in [tl, tr] (f(tl) > 0 >= f(tr)) on
 * the dense output; the post-crossing end. */
static int bisect_crossing(guard_call *k, size_t c, double tl, double tr, double *root) {
    double tol = GUARD_ROOT_RTOL * fmax(1.0, fabs(tr));
    size_t scratch = NSD_GUARD_DEPTH + 2;
    for (int it = 0; it < GUARD_ROOT_MAX_ITER && tr - tl > tol; ++it) {
        double mid = 0.5 * (tl + tr);
        if (!(mid > tl && mid < tr)) break;
        if (gaps_at(k, mid, scratch) != 0) return -1;
        if (lf(k->g, scratch)[c] <= 0.0)
            tr = mid;
        else
            tl = mid;
    }
    *root = tr;
    return 0;
}

/* Samples of an interval checked for an earlier crossing (locate). */
#define GUARD_SCAN 64

/* The first crossing of contact c in [tl, tr] (f(tl) > 0 >= f(tr)). A
 * bracket may hold several sign changes: a gap with a kink or a jump where
 * a terrain's nearest feature changes (a sphere past a concave corner sees
 * the decline's gap fall through zero, rise again past the corner and jump
 * where its centre crosses the floor), and bisection converges to any of
 * them; a later one than the first is an impact missed (the sphere sank
 * 6 cm into a valley's decline, tumbleweed_case4 with backspin0). So the
 * stretch before a root is sampled at GUARD_SCAN points, and where a
 * sample is at or below zero the earlier bracket is bisected instead. A
 * bracket with one crossing gives the same root as before. */
static int locate(guard_call *k, size_t c, double tl, double tr, double *root) {
    size_t scratch = NSD_GUARD_DEPTH + 2;
    for (int pass = 0; pass < 8; ++pass) {
        if (bisect_crossing(k, c, tl, tr, root) != 0) return -1;
        double a = tl, h = (*root - tl) / GUARD_SCAN, earlier = NAN;
        for (int i = 1; i < GUARD_SCAN && isnan(earlier); ++i) {
            double t = tl + i * h;
            if (!(t > a && t < *root)) continue;
            if (gaps_at(k, t, scratch) != 0) return -1;
            if (lf(k->g, scratch)[c] <= 0.0)
                earlier = t;
            else
                a = t;
        }
        if (isnan(earlier)) return 0;
        tl = a;
        tr = earlier;
    }
    return 0;
}

/* A falling sign change between two samples: locate every contact that
 * changes sign in [tl, tr], keep the earliest. */
static int bracket(guard_call *k, size_t il, size_t ir, double tl, double tr, double *t_hit,
                   size_t *contact) {
    const double *fl = lf(k->g, il), *fr = lf(k->g, ir);
    int found = 0;
    for (size_t c = 0; c < k->g->nc; ++c) {
        if (!(fl[c] > 0.0 && fr[c] <= 0.0)) continue;
        double root;
        if (locate(k, c, tl, tr, &root) != 0) return -1;
        if (!found || root < *t_hit) {
            *t_hit = root;
            *contact = c;
        }
        found = 1;
    }
    return found;
}

/* Where to split [tl, tr]: the earliest place a contact's Hermite
 * interpolant says to look (may_fall with the margin known so far),
 * strictly inside; else the midpoint. */
static double split_point(guard_call *k, double tl, double tr, size_t il, size_t ir,
                          double margin) {
    const nsd_step_guard *g = k->g;
    const double *fl = g->f + il * g->nc, *dl = g->df + il * g->nc;
    const double *fr = g->f + ir * g->nc, *dr = g->df + ir * g->nc;
    double h = tr - tl, best = 2.0;
    for (size_t c = 0; c < g->nc; ++c) {
        double s;
        if (!isfinite(fl[c]) || !isfinite(fr[c])) continue;
        if (may_fall(fl[c], dl[c], fr[c], dr[c], h, margin, &s) && s > 0.0 && s < 1.0)
            best = fmin(best, s);
    }
    double ts = tl + (best < 1.0 ? best : 0.5) * h;
    return ts > tl && ts < tr ? ts : 0.5 * (tl + tr);
}

/* Search [tl, tr] (samples at levels il, ir) at depth d, with the error
 * estimate of the interpolants known so far (margin): 1 found, 0 none,
 * -1 failure. A half is searched again when any contact's interpolant may
 * fall through its threshold there, a sign change included: one contact's
 * crossing in a half does not rule out another contact's earlier dip and
 * return inside it (a wheel's corner gap passing through zero and back
 * while its floor gap crosses later). At the depth limit, or where a half
 * cannot be split, the sign changes at its samples are located. */
static int search(guard_call *k, double tl, double tr, size_t il, size_t ir, size_t d,
                  double margin, double *t_hit, size_t *contact) {
    nsd_step_guard *g = k->g;
    double ts = split_point(k, tl, tr, il, ir, margin), h = tr - tl, s = (ts - tl) / h;
    size_t im = 2 + d;
    if (!(ts > tl && ts < tr)) return bracket(k, il, ir, tl, tr, t_hit, contact);
    if (gaps_at(k, ts, im) != 0) return -1;
    const double *fl = lf(g, il), *dl = ldf(g, il), *fm = lf(g, im), *dm = ldf(g, im);
    const double *fr = lf(g, ir), *dr = ldf(g, ir);
    double err = 0.0;
    for (size_t c = 0; c < g->nc; ++c) {
        if (!isfinite(fl[c]) || !isfinite(fm[c]) || !isfinite(fr[c])) continue;
        double hm = hermite(fl[c], dl[c], fr[c], dr[c], h, s);
        double hdm = hermite_rate(fl[c], dl[c], fr[c], dr[c], h, s);
        err = fmax(err, fabs(fm[c] - hm) + fmin(s, 1.0 - s) * h * fabs(dm[c] - hdm));
    }
    /* The mismatch at s is the interpolant's error there; for a smooth gap
     * that error is f''''(t)/24 (t - tl)^2 (t - tr)^2, largest at the
     * midpoint, so the estimate of the largest is the mismatch over
     * (4 s (1 - s))^2 (unchanged at the midpoint). Without it a split at
     * the high point 5 % into a step (a rebound's flight) measured ~1/25
     * of the error, and the long half, which held a dip past an edge, was
     * called safe (1.7e-6 m, study I). */
    double w = 4.0 * s * (1.0 - s);
    err /= w * w;
    int unsafe_left = 0, unsafe_right = 0;
    for (size_t c = 0; c < g->nc; ++c) {
        double sc;
        if (!isfinite(fl[c]) || !isfinite(fm[c]) || !isfinite(fr[c])) continue;
        unsafe_left |= may_fall(fl[c], dl[c], fm[c], dm[c], ts - tl, err, &sc);
        unsafe_right |= may_fall(fm[c], dm[c], fr[c], dr[c], tr - ts, err, &sc);
    }
    int leaf = d + 1 >= NSD_GUARD_DEPTH, r = 0;
    if (unsafe_left)
        r = leaf ? bracket(k, il, im, tl, ts, t_hit, contact)
                 : search(k, tl, ts, il, im, d + 1, err, t_hit, contact);
    if (r != 0 || !unsafe_right) {
        g->unresolved += leaf && unsafe_left && r == 0;
        return r;
    }
    r = leaf ? bracket(k, im, ir, ts, tr, t_hit, contact)
             : search(k, ts, tr, im, ir, d + 1, err, t_hit, contact);
    g->unresolved += leaf && r == 0;
    return r;
}

/* The state at a located crossing into g->y. A crossing where the gap's
 * own rate says it separates means the integrator's position and velocity
 * disagree by more than that rebound's flight: the contact remembers the
 * speed (modes.h v_unresolved), and the accumulation rule treats rebounds
 * that slow as rest. */
static int located(guard_call *k, double t_hit, size_t c) {
    size_t scratch = NSD_GUARD_DEPTH + 2;
    if (state_at(k, t_hit, k->g->y) != 0 || gaps_at(k, t_hit, scratch) != 0) return -1;
    double rate = ldf(k->g, scratch)[c];
    nsd_contact_mode *md = &k->m->ed.mode[c];
    if (rate > 0.0) md->v_unresolved = fmax(md->v_unresolved, rate * (1.0 + 1e-9));
    return 1;
}

/* An open contact that is penetrating beyond twice the tolerance and still
 * approaching at a step end: an impact was missed (it started the phase
 * penetrated). Never silent. */
static int penetrating(nsd_model *m, const double *f, const double *df, double t) {
    for (size_t c = 0; c < m->nc; ++c) {
        if (!(f[c] < -m->ed.contact_tolerance && df[c] < 0.0)) continue;
        snprintf(m->failure, sizeof m->failure,
                 "contact '%s' is open but penetrates by %.3g m and approaches at %.3g m/s at t = "
                 "%.9g s (it started the phase penetrated; an impact was missed)",
                 m->layout.contacts[c].name, -(f[c] + m->ed.mode[c].g_ref[0]), -df[c], t);
        return 1;
    }
    return 0;
}

/* A crossing found at t_hit: does any contact fall through its threshold
 * earlier in [t_a, t_hit]? The search follows the Hermite interpolants of
 * the gaps, which a gap with a kink or a jump (a terrain's nearest feature
 * changing) defeats: a long free flight past a concave corner left the
 * search at a leaf where the floor's crossing was bracketed and the
 * decline's earlier one was not. So the stretch before a hit is sampled at
 * GUARD_SCAN points; the first sample where a contact is at or below its
 * threshold brackets an earlier crossing (with the sample before it),
 * which is located instead. Only steps with an impact pay for it. */
static int earliest_hit(guard_call *k, double *t_hit, size_t *contact) {
    nsd_step_guard *g = k->g;
    size_t scan = NSD_GUARD_DEPTH + 1; /* free while the search is over */
    double t_prev = g->t_a, h = (*t_hit - g->t_a) / GUARD_SCAN;
    const double *f0 = lf(g, 0);
    for (int i = 1; i < GUARD_SCAN; ++i) {
        double t = g->t_a + i * h;
        if (!(t > t_prev && t < *t_hit)) continue;
        if (gaps_at(k, t, scan) != 0) return -1;
        const double *f = lf(g, scan);
        for (size_t c = 0; c < g->nc; ++c) {
            if (!(f0[c] > 0.0 && f[c] <= 0.0)) continue;
            double root;
            if (locate(k, c, t_prev, t, &root) != 0) return -1;
            if (root < *t_hit) {
                *t_hit = root;
                *contact = c;
            }
        }
        if (*t_hit <= t) return 0;
        t_prev = t;
    }
    /* The hit itself: another contact already below its threshold there
     * crossed after the last sample (a sphere meeting a concave corner: the
     * decline's crossing 0.6 ms before the floor's, between two samples). */
    double t_end = *t_hit;
    size_t hit = *contact;
    if (gaps_at(k, t_end, scan) != 0) return -1;
    for (size_t c = 0; c < g->nc; ++c) {
        double root;
        if (c == hit || !(f0[c] > 0.0 && lf(g, scan)[c] < 0.0)) continue;
        if (locate(k, c, t_prev, t_end, &root) != 0) return -1;
        if (root < *t_hit) {
            *t_hit = root;
            *contact = c;
        }
    }
    return 0;
}

int nsd_step_guard_check(nsd_step_guard *g, nsd_model *m, const nsdyn_integrator *ig, void *inst,
                         double t_b, const double *y_b, double *t_hit, size_t *contact) {
    guard_call k = {g, m, ig, inst, t_b, y_b};
    if (g->nc == 0 || !(t_b > g->t_a)) return 0;
    if (gaps_at(&k, t_b, 1) != 0) return -1;
    int r = search(&k, g->t_a, t_b, 0, 1, 0, 0.0, t_hit, contact);
    if (r < 0) return -1;
    if (r == 1 && earliest_hit(&k, t_hit, contact) != 0) return -1;
    if (r == 1) return located(&k, *t_hit, *contact);
    if (penetrating(m, lf(g, 1), ldf(g, 1), t_b)) return -1;
    memcpy(lf(g, 0), lf(g, 1), g->nc * sizeof *g->f);
    memcpy(ldf(g, 0), ldf(g, 1), g->nc * sizeof *g->df);
    g->t_a = t_b;
    return 0;
}
