/* Arclength continuation past a change of the event sequence (periodic_arc.h,
 * docs/periodic.md "Through a grazing"): the change named, and the branch
 * restarted on the new sequence from the located point.
 *
 * Why a predictor of its own: at a grazing impact the section map is not
 * smooth. On the side where the grazing impact happens the map is (Nordmark
 * 1991; di Bernardo et al. 2008, ch. 4)
 *     F(u) = L (u - u_b) + c sqrt(g . (u - u_b)) + O(|u - u_b|),
 * L = [dF/dx dF/dp] of the old side, g the normal of the grazing surface,
 * c the direction the grazing impact kicks the orbit (carried to the
 * section). Its fixed points leave the boundary point u_b along
 *     r = -L^+ c + beta t,   beta = (g . L^+ c) / (g . t)
 * (t the old branch's tangent, L t = 0): tangent to the grazing surface,
 * with g . (u - u_b) = s^2 growing quadratically, so the new orbit's
 * grazing impact has a speed ~ s and its multiplier grows like 1/s. A
 * predictor along the old tangent, or differences of the map at the
 * boundary, land where no Newton step converges. c (direction and scale)
 * comes from the residual of one run beyond the boundary; the beta t part
 * and the distance s^2 past the grazing surface from bisecting for that
 * surface along t at the step (beta from a second probe would be the
 * difference of two numbers 100 times larger than it), then moving 1.5
 * times the law's distance beyond it. Nothing else of the system is
 * assumed. Where the map has no square-root term (a
 * continuous map with a kink: a sticking or sliding phase begins), the old
 * tangent and its reflection in the parameter are tried. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nsdyn_numeric.h"
#include "periodic_arc_core.h"

static const char *contact_name(const arc_ctx *c, size_t contact) {
    const nsdyn_system_layout *L = &c->s->model.layout;
    return contact < L->n_contacts && L->contacts[contact].name ? L->contacts[contact].name : "?";
}

void arc_seq_text(const arc_ctx *c, const arc_seq *q, char *text, size_t len) {
    size_t used = 0;
    text[0] = 0;
    for (size_t i = 0; i < q->n && i < ARC_SEQ_MAX && used + 1 < len; ++i) {
        int n = snprintf(text + used, len - used, "%s%s %s", i ? " " : "",
                         nsd_event_kind_name((nsd_event_kind)(q->ev[i] % NSD_EVENT_KIND_COUNT)),
                         contact_name(c, q->ev[i] / NSD_EVENT_KIND_COUNT));
        if (n < 0) break;
        used += (size_t)n;
    }
    if (q->n > ARC_SEQ_MAX && used + 1 < len) snprintf(text + used, len - used, " ...");
}

/* The event of long_ (one more than short_) whose removal leaves short_'s
 * sequence, the times matching best; -1 when none does. */
static long extra_event(const arc_seq *lng, const arc_seq *sht) {
    long best = -1;
    double best_dt = HUGE_VAL;
    if (lng->n != sht->n + 1 || lng->n > ARC_SEQ_MAX) return -1;
    for (size_t i = 0; i < lng->n; ++i) {
        double dt = 0.0;
        int same = 1;
        for (size_t j = 0, q = 0; j < lng->n && same; ++j) {
            if (j == i) continue;
            same = lng->ev[j] == sht->ev[q];
            dt = fmax(dt, fabs(lng->t[j] - sht->t[q]));
            q++;
        }
        if (same && dt < best_dt) best_dt = dt, best = (long)i;
    }
    return best;
}

void arc_name_change(const arc_ctx *c, const arc_seq *old, const arc_seq *now, char *text,
                     size_t len) {
    int appears = now->n > old->n;
    const arc_seq *lng = appears ? now : old, *sht = appears ? old : now;
    long i = extra_event(lng, sht);
    if (i < 0) {
        char a[200], b[200];
        arc_seq_text(c, old, a, sizeof a);
        arc_seq_text(c, now, b, sizeof b);
        snprintf(text, len, "the event sequence of the orbit changes: (%s) -> (%s)", a, b);
        return;
    }
    unsigned short ev = lng->ev[i];
    size_t nth = 0, of = 0;
    for (size_t j = 0; j < lng->n; ++j)
        if (lng->ev[j] == ev) of++, nth += j <= (size_t)i;
    nsd_event_kind kind = (nsd_event_kind)(ev % NSD_EVENT_KIND_COUNT);
    const char *what = kind == NSD_EVENT_IMPACT                            ? "grazing"
                       : kind == NSD_EVENT_REST || kind == NSD_EVENT_CLOSE ? "sticking"
                       : kind == NSD_EVENT_STICK || kind == NSD_EVENT_SLIP ? "sliding"
                                                                           : "event";
    snprintf(text, len,
             "%s: %s %zu of contact '%s' (%zu per period on the %s side) %s, %.6g s after the "
             "section",
             what, nsd_event_kind_name(kind), nth, contact_name(c, ev / NSD_EVENT_KIND_COUNT), of,
             appears ? "new" : "old", appears ? "appears" : "vanishes", lng->t[i]);
}

/* R = F(u) - L (u - a) (scaled, k) at u: the part of the residual the
 * old side's L (rows of a's bordered matrix, kept in Lk) does not explain. 0 or -1. */
static int beyond(arc_ctx *c, const arc_point *a, const double *Lk, const double *u, double *R) {
    size_t k = c->k, m = k + 1;
    double T;
    if (arc_map(c, u, c->Pt, &T) != 0) return -1;
    arc_residual(c, u, c->Pt, R);
    for (size_t i = 0; i < k; ++i)
        for (size_t j = 0; j < m; ++j) R[i] -= Lk[i * m + j] * (u[j] - a->u[j]);
    return 0;
}

static double norm(const double *v, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) s += v[i] * v[i];
    return sqrt(s);
}

/* The square-root law's direction r (unit, m) across the branch and the
 * distance q sigma^2 beyond the grazing surface (along t) the new orbit
 * lies at a step sigma along r. 0, or -1 when the map beyond the boundary
 * has no square-root term. */
static int sqrt_law(arc_ctx *c, const arc_point *a, const double *ub, double *r, double *q) {
    size_t k = c->k, m = k + 1;
    double Lk[65 * 65], R1[65], u[65], eps = 1e-4;
    arc_bordered(c, a, a->t);
    memcpy(Lk, c->M, m * m * sizeof *Lk);
    for (size_t j = 0; j < m; ++j) u[j] = ub[j] + eps * a->t[j];
    if (beyond(c, a, Lk, u, R1) != 0) return -1;
    double n1 = norm(R1, k), K = n1 / sqrt(eps); /* K = |c| sqrt(g . t) */
    if (!(n1 > 1e3 * c->spec.tol)) return -1;    /* no jump of the order sqrt(eps) */
    /* v1 = L^+ c^: [L; t^T] v1 = (c^, 0); the branch goes along -v1 */
    memcpy(c->M, Lk, m * m * sizeof *Lk);
    for (size_t i = 0; i < k; ++i) r[i] = R1[i] / n1;
    r[k] = 0.0;
    if (nsn_solve(m, c->M, r, c->ipiv) != NSN_OK) return -1;
    double nv = norm(r, m);
    for (size_t j = 0; j < m; ++j) r[j] /= -nv;
    *q = 1.0 / (K * K * nv * nv); /* s^2 / (g . t) with s |c| |v1| = sigma */
    return 0;
}

/* From q0 along t: where the event sequence stops being old (the grazing
 * surface), to a bracket of tol, into *chi. 0 or -1 (no crossing within
 * 1, or the map fails). */
static int surface_along(arc_ctx *c, const double *q0, const double *t, long code_old, double tol,
                         double *chi) {
    size_t m = c->k + 1;
    double u[65], T, lo = 0.0, hi = 0.0, h = 1e-7;
    int side0 = -1;
    for (int it = 0; it < 30; ++it, h *= 2.0) { /* a bracket: old at lo, new at hi */
        double x = side0 < 0 ? 0.0 : side0 ? h : -h;
        for (size_t j = 0; j < m; ++j) u[j] = q0[j] + x * t[j];
        if (arc_map(c, u, c->Pt, &T) != 0) return -1;
        int now_old = arc_seq_code(&c->last_seq) == code_old;
        if (side0 < 0) {
            side0 = now_old, lo = hi = 0.0;
            continue;
        }
        *(now_old ? &lo : &hi) = x;
        if (now_old != side0) break;
        if (it == 29) return -1;
    }
    for (int it = 0; it < 60 && fabs(hi - lo) > tol; ++it) {
        double mid = 0.5 * (lo + hi);
        for (size_t j = 0; j < m; ++j) u[j] = q0[j] + mid * t[j];
        if (arc_map(c, u, c->Pt, &T) != 0) return -1;
        *(arc_seq_code(&c->last_seq) == code_old ? &lo : &hi) = mid;
    }
    *chi = hi;
    return 0;
}

int arc_join(arc_ctx *c, const arc_point *a, double s_b, const arc_seq *old, arc_point *first,
             char *how, size_t how_len) {
    size_t k = c->k, m = k + 1;
    if (k > 64) return -1;
    double ub[65], dirs[3][65], push[3] = {0.0, 0.0, 0.0}, pred[65];
    const char *names[3] = {"the square-root law of a grazing impact", "the old tangent",
                            "the old tangent reflected in the parameter"};
    for (size_t j = 0; j < m; ++j) ub[j] = a->u[j] + s_b * a->t[j];
    int nd = 0;
    long code_old = arc_seq_code(old);
    if (sqrt_law(c, a, ub, dirs[0], &push[0]) == 0)
        nd = 1;
    else
        names[0] = NULL;
    memcpy(dirs[nd], a->t, m * sizeof *ub);
    memcpy(dirs[nd + 1], a->t, m * sizeof *ub);
    dirs[nd + 1][k] = -a->t[k];
    if (nd == 0) names[0] = names[1], names[1] = names[2];
    nd += 2;
    char why[sizeof c->why] = "no direction tried";
    for (int d = 0; d < nd; ++d) {
        double *r = dirs[d], nr = norm(r, m);
        for (size_t j = 0; j < m; ++j) r[j] /= nr;
        for (double ds = c->ac->ds; ds >= 1e-3 * c->ac->ds; ds *= 0.25) {
            for (size_t j = 0; j < m; ++j) pred[j] = ub[j] + ds * r[j];
            double chi = 0.0;
            /* on the grazing surface, then beyond it by 1.5 times the law's distance:
             * Newton on a square root converges from beyond the root, not from the side
             * where the term vanishes */
            if (push[d] > 0.0 &&
                surface_along(c, pred, a->t, code_old, 0.05 * push[d] * ds * ds, &chi) != 0)
                continue;
            for (size_t j = 0; j < m; ++j) pred[j] += (chi + 1.5 * push[d] * ds * ds) * a->t[j];
            c->patient = 1;
            int rc = arc_correct(c, pred, r, NULL, first);
            c->patient = 0;
            if (rc != 0) {
                snprintf(why, sizeof why, "%s", c->why);
                continue;
            }
            double dist = 0.0;
            for (size_t j = 0; j < m; ++j) dist += (first->u[j] - ub[j]) * (first->u[j] - ub[j]);
            double half = arc_half_residual(c, first, c->spec.crossings);
            if (half < 1e3 * c->spec.tol) { /* a different orbit: the one below, twice */
                snprintf(why, sizeof why,
                         "the corrector found the period-%zu orbit counted twice (residual %.1e)",
                         c->spec.crossings / 2, half);
                continue;
            }
            if (arc_seq_code(&first->seq) == code_old || first->straddles ||
                sqrt(dist) > 3.0 * ds) {
                snprintf(why, sizeof why,
                         "the corrector found %s (distance %.3g scaled, step %.3g)",
                         arc_seq_code(&first->seq) == code_old ? "the old event sequence again"
                         : first->straddles ? "an orbit within the differences of the boundary"
                                            : "an orbit too far away",
                         sqrt(dist), ds);
                continue;
            }
            snprintf(how, how_len, "restarted along %s, first orbit %.3g (scaled) from it",
                     names[d], sqrt(dist));
            return 0;
        }
    }
    snprintf(c->why, sizeof c->why, "no orbit of the new event sequence found from it: %.700s",
             why);
    return -1;
}
