/* Arclength continuation: branches traced, bifurcations located, branch
 * switching at period doublings (periodic_arc.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "periodic_arc_core.h"

/* What a bisection watches: a code that changes across the bifurcation. */
typedef long (*arc_crit_fn)(const arc_ctx *c, const arc_point *pt);

static long crit_events(const arc_ctx *c, const arc_point *pt) {
    (void)c;
    return arc_seq_code(&pt->seq);
}
static long crit_pd(const arc_ctx *c, const arc_point *pt) {
    int n[3];
    arc_count_outside(pt, c->k, n);
    return n[1];
}
static long crit_ns(const arc_ctx *c, const arc_point *pt) {
    int n[3];
    arc_count_outside(pt, c->k, n);
    return n[2];
}
static long crit_fold(const arc_ctx *c, const arc_point *pt) { return pt->t[c->k] > 0.0; }

static const char *const kind_name[NSD_ARC_KIND_COUNT] = {
    "fold", "period_doubling", "neimark_sacker", "nonsmooth", "collapse"};

/* The critical multiplier of a located point: the real one nearest -1
 * (PD), +1 (fold), the complex one nearest the circle (NS). */
static void critical_mu(const arc_ctx *c, const arc_point *pt, nsd_arc_kind kind, double *re,
                        double *im) {
    double best = HUGE_VAL;
    *re = *im = NAN;
    for (size_t i = 0; i < c->k; ++i) {
        double d = kind == NSD_ARC_PD     ? (pt->im[i] == 0.0 ? fabs(pt->re[i] + 1.0) : HUGE_VAL)
                   : kind == NSD_ARC_FOLD ? (pt->im[i] == 0.0 ? fabs(pt->re[i] - 1.0) : HUGE_VAL)
                   : kind == NSD_ARC_NS
                       ? (pt->im[i] != 0.0 ? fabs(hypot(pt->re[i], pt->im[i]) - 1.0) : HUGE_VAL)
                       : HUGE_VAL;
        if (d < best) best = d, *re = pt->re[i], *im = pt->im[i];
    }
}

static nsd_arc_special *add_special(arc_ctx *c, nsd_arc_kind kind, int bi, double p, double p_err) {
    nsd_arc_outcome *o = c->out;
    if (o->n_special >= NSD_ARC_MAX_SPECIAL) return NULL;
    nsd_arc_special *sp = &o->special[o->n_special++];
    memset(sp, 0, sizeof *sp);
    sp->kind = kind, sp->branch = bi, sp->crossings = c->br[bi].crossings;
    sp->p = p, sp->p_err = p_err, sp->mu_re = sp->mu_im = NAN;
    return sp;
}

/* Bisection along the arclength from a (its tangent) over (0, ds], where
 * crit changes: the first point with b's value into hi. Returns the
 * located special, or NULL (too many specials). */
static nsd_arc_special *locate(arc_ctx *c, int bi, nsd_arc_kind kind, arc_crit_fn crit,
                               const arc_point *a, const arc_point *b, double ds, arc_point *hi,
                               arc_point *tmp) {
    size_t m = c->k + 1;
    long ca = crit(c, a);
    double lo_s = 0.0, hi_s = 1.0, plo = arc_p(c, a->u), phi = arc_p(c, b->u);
    arc_point_copy(c, hi, b, 1);
    /* along the secant from a to b, each corrector in the hyperplane
     * normal to it: the branch crosses every such plane between a and b,
     * also where it turns at a non-smooth corner (a grazing), which
     * planes normal to a's tangent may miss */
    double pred[65], d[65], nrm = 0.0;
    int failed = 0;
    for (size_t j = 0; j < m; ++j) d[j] = b->u[j] - a->u[j], nrm += d[j] * d[j];
    nrm = sqrt(nrm);
    for (size_t j = 0; j < m; ++j) d[j] /= nrm > 0.0 ? nrm : 1.0;
    (void)ds;
    for (int it = 0; it < 60 && fabs(phi - plo) > c->ac->locate_tol; ++it) {
        double mid = 0.5 * (lo_s + hi_s);
        for (size_t j = 0; j < m; ++j) pred[j] = a->u[j] + mid * (b->u[j] - a->u[j]);
        c->patient = 1; /* a bisection step may start far from the chord's point */
        int rc = arc_correct(c, pred, d, a, tmp);
        c->patient = 0;
        if (rc != 0) { /* the bracket stands */
            failed = 1;
            break;
        }
        if (crit(c, tmp) == ca)
            lo_s = mid, plo = arc_p(c, tmp->u);
        else {
            hi_s = mid, phi = arc_p(c, tmp->u);
            arc_point_copy(c, hi, tmp, 1);
        }
    }
    nsd_arc_special *sp = add_special(c, kind, bi, 0.5 * (plo + phi), 0.5 * fabs(phi - plo));
    if (!sp) return NULL;
    critical_mu(c, hi, kind, &sp->mu_re, &sp->mu_im);
    sp->x = hi->u[0] * c->sx[0];
    if (failed && fabs(phi - plo) > c->ac->locate_tol) { /* bracketed, not located */
        snprintf(sp->text, sizeof sp->text,
                 "%s between %s = %.10g and %.10g, not located: the corrector failed inside the "
                 "bracket (%.300s)",
                 kind_name[kind], c->pc->cont_key[0], plo, phi, c->why);
        if (c->progress) fprintf(c->progress, "  %s on branch %d\n", sp->text, bi);
        return NULL; /* not a point to switch at */
    }
    if (kind == NSD_ARC_FOLD && !(fabs(sp->mu_re - 1.0) < 0.1)) {
        sp->kind = NSD_ARC_NONSMOOTH;
        snprintf(sp->text, sizeof sp->text,
                 "non-smooth fold at %s = %.10g: dp/ds changes sign with no multiplier near +1 "
                 "(the nearest real one %.4f): the branch turns at a corner of the map, where an "
                 "impact or contact grazes",
                 c->pc->cont_key[0], arc_p(c, hi->u), sp->mu_re);
        if (c->progress) fprintf(c->progress, "  (relabelled: %s)\n", sp->text);
        return sp;
    }
    double want = kind == NSD_ARC_PD ? -1.0 : 1.0;
    if (kind != NSD_ARC_NONSMOOTH && kind != NSD_ARC_FOLD &&
        !(fabs(hypot(sp->mu_re, sp->mu_im) - 1.0) < 0.05 &&
          (kind == NSD_ARC_NS || fabs(sp->mu_re - want) < 0.05))) {
        sp->kind = NSD_ARC_NONSMOOTH; /* the multipliers jumped across: not a smooth crossing */
        snprintf(sp->text, sizeof sp->text,
                 "multipliers jump across the unit circle with none near it (nearest %.4f%+.4fi): "
                 "the map is not smooth here (an event sequence changes within the difference "
                 "steps)",
                 sp->mu_re, sp->mu_im);
        if (c->progress) fprintf(c->progress, "  (relabelled: %s)\n", sp->text);
        return sp;
    }
    const char *par = c->pc->cont_key[0];
    if (kind == NSD_ARC_NONSMOOTH)
        arc_name_change(c, &a->seq, &hi->seq, sp->text, sizeof sp->text);
    else
        snprintf(sp->text, sizeof sp->text, "%s: multiplier %.6f%+.6fi at %s = %.10g",
                 kind == NSD_ARC_PD     ? "period doubling (a real multiplier through -1)"
                 : kind == NSD_ARC_FOLD ? "fold (dp/ds changes sign; a real multiplier +1)"
                                        : "Neimark-Sacker (a complex pair through the circle)",
                 sp->mu_re, sp->mu_im, par, arc_p(c, hi->u));
    if (c->progress)
        fprintf(c->progress,
                "  located %s on branch %d (%zu crossing%s): %s.%s = %.10g +- %.1e: %s\n",
                kind_name[kind], bi, c->br[bi].crossings, c->br[bi].crossings == 1 ? "" : "s",
                c->pc->cont_section[0], par, sp->p, sp->p_err, sp->text);
    return sp;
}

static int push(arc_ctx *c, arc_branch *br, const arc_point *pt) {
    if (br->np == br->cap) {
        size_t cap = br->cap ? 2 * br->cap : 32;
        arc_point *p = realloc(br->pt, cap * sizeof *p);
        if (!p) return -1;
        br->pt = p, br->cap = cap;
    }
    if (arc_point_alloc(c, &br->pt[br->np], br->crossings) != 0) return -1;
    arc_point_copy(c, &br->pt[br->np], pt, 1);
    br->np++;
    return 0;
}

/* Where a branch stopped and why: 0 normally (range, points, collapse),
 * 1 when it ended on a failure (c->why). pd: the located period-doubling
 * point to switch at (pd->u NULL: none). */
typedef struct arc_end {
    int failed;
    arc_point pd;
    int have_pd;
} arc_end;

static void check_pair(arc_ctx *c, int bi, const arc_point *a, const arc_point *b, double ds,
                       arc_point *hi, arc_point *tmp, arc_end *end) {
    static const struct {
        nsd_arc_kind kind;
        arc_crit_fn crit;
    } tests[] = {{NSD_ARC_NONSMOOTH, crit_events},
                 {NSD_ARC_PD, crit_pd},
                 {NSD_ARC_NS, crit_ns},
                 {NSD_ARC_FOLD, crit_fold}};
    for (size_t i = 0; i < sizeof tests / sizeof *tests; ++i) {
        if (tests[i].crit(c, a) == tests[i].crit(c, b)) continue;
        nsd_arc_special *sp = locate(c, bi, tests[i].kind, tests[i].crit, a, b, ds, hi, tmp);
        if (sp && tests[i].kind == NSD_ARC_PD && !end->have_pd) {
            arc_point_copy(c, &end->pd, hi, 1);
            end->have_pd = 1;
        }
    }
}

/* The branch ends between a and a + s_fail t_a: bisect for where the
 * orbit with a's events stops existing (the corrector fails or finds
 * other events). Located to locate_tol: a non-smooth boundary (a grazing
 * of the orbit: beyond it no orbit of this event sequence exists), its
 * special returned, the last orbit of a's sequence in lo (J and
 * multipliers a's, at_boundary), the boundary at s_b along a's tangent;
 * otherwise NULL. */
static nsd_arc_special *locate_end(arc_ctx *c, int bi, const arc_point *a, double s_fail,
                                   arc_point *tmp, arc_point *lo_pt, double *s_b) {
    size_t m = c->k + 1;
    long ca = crit_events(c, a);
    double lo = 0.0, hi = s_fail, plo = arc_p(c, a->u), phi = plo + s_fail * a->t[c->k] * c->ps;
    double pred[65];
    arc_seq seq_hi = a->seq;
    arc_point_copy(c, lo_pt, a, 1);
    for (int it = 0; it < 80 && fabs(phi - plo) > c->ac->locate_tol; ++it) {
        double mid = 0.5 * (lo + hi);
        for (size_t j = 0; j < m; ++j) pred[j] = a->u[j] + mid * a->t[j];
        /* the orbit itself; its Jacobian may straddle the boundary */
        c->chord_only = 1; /* a's Jacobian: differences straddling the boundary are useless */
        int ok = arc_correct(c, pred, a->t, a, tmp) == 0;
        c->chord_only = 0;
        if (ok && crit_events(c, tmp) == ca) {
            lo = mid, plo = arc_p(c, tmp->u);
            memcpy(lo_pt->u, tmp->u, m * sizeof *tmp->u);
            lo_pt->period = tmp->period;
            continue;
        }
        const arc_seq *seen = &tmp->seq;
        if (!ok) {
            if (arc_map(c, pred, c->Pt, &tmp->period) != 0)
                return NULL;     /* the map itself fails there (c->why): no event boundary */
            seen = &c->last_seq; /* the runs there see other events, or not */
        }
        if (arc_seq_code(seen) != ca) seq_hi = *seen;
        hi = mid, phi = arc_p(c, pred);
    }
    /* a boundary only where runs beyond it see other events: a corrector
     * that merely fails to converge is not a bifurcation */
    if (arc_seq_code(&seq_hi) == ca || !(fabs(phi - plo) <= c->ac->locate_tol)) return NULL;
    nsd_arc_special *sp =
        add_special(c, NSD_ARC_NONSMOOTH, bi, 0.5 * (plo + phi), 0.5 * fabs(phi - plo));
    if (!sp) return NULL;
    lo_pt->at_boundary = 1;
    *s_b = 0.5 * (lo + hi);
    sp->x = lo_pt->u[0] * c->sx[0];
    arc_name_change(c, &a->seq, &seq_hi, sp->text, sizeof sp->text);
    size_t n = strlen(sp->text);
    snprintf(sp->text + n, sizeof sp->text - n, "; the orbit with the old sequence ends here");
    if (c->progress)
        fprintf(c->progress, "  located nonsmooth end of branch %d: %s.%s = %.10g +- %.1e: %s\n",
                bi, c->pc->cont_section[0], c->pc->cont_key[0], sp->p, sp->p_err, sp->text);
    return sp;
}

/* The branch bi ended at a non-smooth boundary (sp, at s_b along a's
 * tangent; lo its last orbit): continue it on the new sequence. 0 with
 * lo and the first new orbit pushed, -1 (the branch ends there). */
static int join_at(arc_ctx *c, int bi, const arc_point *a, arc_point *lo, double s_b,
                   nsd_arc_special *sp, arc_point *first) {
    char how[200];
    size_t n = strlen(sp->text);
    if (arc_join(c, a, s_b, &a->seq, first, how, sizeof how) != 0) {
        snprintf(sp->text + n, sizeof sp->text - n, "; %s", c->why);
        if (c->progress) fprintf(c->progress, "  branch %d ends: %s\n", bi, c->why);
        return -1;
    }
    double pf = arc_p(c, first->u), span = 1e-12 * c->ps;
    if (pf < fmin(c->ac->from, c->ac->to) - span || pf > fmax(c->ac->from, c->ac->to) + span) {
        snprintf(sp->text + n, sizeof sp->text - n,
                 "; the new sequence's branch leaves the range at once (%s = %.8g)",
                 c->pc->cont_key[0], pf);
        return -1;
    }
    int turns = first->t[c->k] * a->t[c->k] < 0.0;
    snprintf(sp->text + n, sizeof sp->text - n,
             "; the branch continues on the new sequence (%s), largest |mu| %.4g before, %.4g "
             "after (at %s = %.8g)",
             turns ? "turning back in the parameter: a non-smooth fold" : "going on",
             hypot(a->re[0], a->im[0]), hypot(first->re[0], first->im[0]), c->pc->cont_key[0],
             arc_p(c, first->u));
    memcpy(lo->J, a->J, c->k * c->k * sizeof *lo->J); /* the old side's limit */
    memcpy(lo->re, a->re, c->k * sizeof *lo->re);
    memcpy(lo->im, a->im, c->k * sizeof *lo->im);
    memcpy(lo->t, a->t, (c->k + 1) * sizeof *lo->t);
    lo->stable = a->stable;
    if (c->progress) fprintf(c->progress, "  branch %d goes on past the boundary: %s\n", bi, how);
    if (push(c, &c->br[bi], lo) != 0 || push(c, &c->br[bi], first) != 0) return -1;
    return 0;
}

/* Follow branch bi from its last point along its tangent. */
static void trace(arc_ctx *c, int bi, arc_end *end) {
    arc_branch *br = &c->br[bi];
    const nsd_arc_config *ac = c->ac;
    double lo = fmin(ac->from, ac->to), hi_p = fmax(ac->from, ac->to), ds = ac->ds;
    size_t m = c->k + 1;
    arc_point nb, hi, tmp, lo_pt;
    if (arc_point_alloc(c, &nb, 1) || arc_point_alloc(c, &hi, 1) || arc_point_alloc(c, &tmp, 1) ||
        arc_point_alloc(c, &lo_pt, 1)) {
        end->failed = 1;
        snprintf(c->why, sizeof c->why, "out of memory");
        goto out;
    }
    while (br->np < (size_t)ac->max_points) {
        arc_point *a = &br->pt[br->np - 1];
        double pred[65], s_b;
        for (size_t j = 0; j < m; ++j) pred[j] = a->u[j] + ds * a->t[j];
        int bad = arc_correct(c, pred, a->t, a, &nb) != 0;
        if (!bad && nb.straddles && arc_seq_code(&nb.seq) == arc_seq_code(&a->seq)) {
            /* its differences cross a non-smooth boundary: not a point of the branch */
            snprintf(c->why, sizeof c->why,
                     "the difference steps of the orbit at %s = %.10g cross a change of its event "
                     "sequence",
                     c->pc->cont_key[0], arc_p(c, nb.u));
            bad = 1;
        }
        if (bad) {
            ds *= 0.5;
            if (ds >= ac->ds_min) continue;
            nsd_arc_special *sp =
                locate_end(c, bi, a, fmin(4.0 * ac->ds_min * 1e5, ac->ds), &tmp, &lo_pt, &s_b);
            if (sp) {
                if (join_at(c, bi, a, &lo_pt, s_b, sp, &nb) != 0) break;
                ds = ac->ds;
                continue;
            }
            end->failed = 1;
            char why[sizeof c->why];
            snprintf(why, sizeof why, "%s", c->why);
            snprintf(c->why, sizeof c->why,
                     "branch %d ends at %s.%s = %.10g: no orbit found a step of %.1e (scaled) "
                     "further: %.600s",
                     bi, c->pc->cont_section[0], c->pc->cont_key[0], arc_p(c, a->u), ac->ds_min,
                     why);
            break;
        }
        double hop = 0.0;
        for (size_t j = 0; j < m; ++j) hop += (nb.u[j] - a->u[j]) * (nb.u[j] - a->u[j]);
        if (sqrt(hop) > 3.0 * ds) { /* landed far from the predictor: another branch? */
            snprintf(c->why, sizeof c->why,
                     "the corrector landed %.3g (scaled) from the last point, more than 3 steps",
                     sqrt(hop));
            ds *= 0.5;
            if (ds >= ac->ds_min) continue;
            end->failed = 1;
            break;
        }
        double pb = arc_p(c, nb.u);
        if (pb < lo - 1e-12 * c->ps || pb > hi_p + 1e-12 * c->ps) break; /* the range's end */
        if (br->crossings >= 2) {
            double r = arc_half_residual(c, &nb, br->crossings);
            if (r < 1e3 * c->spec.tol) {
                nsd_arc_special *sp = add_special(c, NSD_ARC_COLLAPSE, bi, pb, 0.0);
                if (sp) sp->x = nb.u[0] * c->sx[0];
                if (sp)
                    snprintf(sp->text, sizeof sp->text,
                             "the period-%zu orbit returns after %zu crossings (residual %.1e): "
                             "it is the branch below counted twice; the branch stops here",
                             br->crossings, br->crossings / 2, r);
                if (c->progress && sp) fprintf(c->progress, "  branch %d: %s\n", bi, sp->text);
                break;
            }
        }
        check_pair(c, bi, a, &nb, ds, &hi, &tmp, end);
        if (push(c, br, &nb) != 0) {
            end->failed = 1;
            snprintf(c->why, sizeof c->why, "out of memory");
            break;
        }
        if (c->progress)
            fprintf(c->progress, "  branch %d: %s.%s = %-12.8g %s period %.8g s, max |mu| %.5f\n",
                    bi, c->pc->cont_section[0], c->pc->cont_key[0], pb,
                    nb.stable ? "stable  " : "UNSTABLE", nb.period, hypot(nb.re[0], nb.im[0]));
        ds = fmin(1.3 * ds, ac->ds_max);
    }
out:
    arc_point_free(&nb), arc_point_free(&hi), arc_point_free(&tmp), arc_point_free(&lo_pt);
}

/* A new branch in c->br with crossings; its index or -1. */
static int new_branch(arc_ctx *c, size_t crossings, int parent) {
    if (c->nbr >= NSD_ARC_MAX_BRANCHES) return -1;
    arc_branch *br = &c->br[c->nbr];
    memset(br, 0, sizeof *br);
    br->crossings = crossings, br->parent = parent;
    return (int)c->nbr++;
}

/* Switch at the located period doubling pd of branch bi: the period-2k
 * branch from x* + ds w (w the multiplier -1's eigenvector), continued. */
static int switch_at(arc_ctx *c, int bi, const arc_point *pd, arc_end *end) {
    size_t k = c->k, m = k + 1;
    int nb = new_branch(c, 2 * c->br[bi].crossings, bi);
    if (nb < 0) return -1;
    double w[65], t_sw[65], pred[65];
    if (arc_eigenvector(c, pd, -1.0, w) != 0) {
        snprintf(c->why, sizeof c->why, "no eigenvector for the multiplier -1");
        return -1;
    }
    for (size_t j = 0; j < k; ++j) t_sw[j] = w[j];
    t_sw[k] = 0.0;
    arc_set_crossings(c, c->br[nb].crossings);
    arc_point first;
    if (arc_point_alloc(c, &first, 1) != 0) return -1;
    int rc = -1;
    for (double ds = c->ac->ds; ds >= c->ac->ds_min && rc != 0; ds *= 0.5) {
        for (size_t j = 0; j < m; ++j) pred[j] = pd->u[j] + ds * t_sw[j];
        rc = arc_correct(c, pred, t_sw, NULL, &first);
        if (rc == 0 && arc_half_residual(c, &first, c->br[nb].crossings) < 1e3 * c->spec.tol) {
            snprintf(c->why, sizeof c->why, "the corrector returned to the period-%zu orbit",
                     c->br[bi].crossings);
            rc = -1;
        }
    }
    if (rc == 0) rc = push(c, &c->br[nb], &first);
    arc_point_free(&first);
    if (rc != 0) {
        char why[sizeof c->why];
        snprintf(why, sizeof why, "%s", c->why);
        snprintf(c->why, sizeof c->why,
                 "branch switching at the period doubling of branch %d (%s.%s = %.10g) found no "
                 "period-%zu orbit: %.600s",
                 bi, c->pc->cont_section[0], c->pc->cont_key[0], arc_p(c, pd->u),
                 c->br[nb].crossings, why);
        return -1;
    }
    if (c->progress)
        fprintf(c->progress, "branch %d: period-%zu orbits from the period doubling of branch %d\n",
                nb, c->br[nb].crossings, bi);
    trace(c, nb, end);
    return nb;
}

/* The config's own value of the parameter. */
static double config_value(const nsd_scenario *s, const nsd_periodic_config *pc) {
    const nsd_config *cfg = &s->app.cfg;
    const char *sec = pc->cont_section[0];
    const nsd_section *S = !strcmp(sec, "system")    ? &cfg->system
                           : !strcmp(sec, "contact") ? &cfg->contact
                                                     : &cfg->friction;
    return nsd_params_num(&S->params, pc->cont_key[0]);
}

/* Feigenbaum's ratio from the first three doublings of the cascade. */
static void feigenbaum(nsd_arc_outcome *o) {
    double p[3];
    size_t n = 0;
    for (size_t want = 1; n < 3 && want <= 64; want *= 2)
        for (size_t i = 0; i < o->n_special; ++i)
            if (o->special[i].kind == NSD_ARC_PD && o->special[i].crossings == want) {
                p[n++] = o->special[i].p;
                break;
            }
    o->feigenbaum = o->p_inf = NAN;
    if (n < 3 || p[2] == p[1]) return;
    o->feigenbaum = (p[1] - p[0]) / (p[2] - p[1]);
    o->p_inf = p[2] + (p[2] - p[1]) / (o->feigenbaum - 1.0);
}

/* The first branch from the orbit r, in one direction (sign of dp). */
static int start_branch(arc_ctx *c, const nsd_periodic_result *r, double p0, double dir,
                        arc_end *end) {
    int bi = new_branch(c, c->pc->spec.crossings, -1);
    arc_point pt;
    if (bi < 0 || arc_point_alloc(c, &pt, 1) != 0) return -1;
    double t0[65] = {0};
    for (size_t i = 0; i < c->k; ++i) pt.u[i] = r->y[c->pc->spec.free[i]] / c->sx[i];
    pt.u[c->k] = p0 / c->ps;
    t0[c->k] = dir;
    arc_set_crossings(c, c->br[bi].crossings);
    int rc = arc_point_eval(c, pt.u, t0, &pt);
    if (rc == 0) rc = push(c, &c->br[bi], &pt);
    arc_point_free(&pt);
    if (rc != 0) return -1;
    trace(c, bi, end);
    return bi;
}

static void end_failed(arc_ctx *c, nsd_arc_outcome *out) {
    if (out->complete) snprintf(out->why, sizeof out->why, "%s", c->why);
    out->complete = 0;
}

/* Period-1 branches both ways from the start, then the cascade: each
 * branch's first period doubling switched at, up to ac->doublings. */
static void run_all(arc_ctx *c, const nsd_periodic_result *r, nsd_arc_outcome *out) {
    const nsd_arc_config *ac = c->ac;
    double p0 = config_value(c->s, c->pc);
    arc_end ends[NSD_ARC_MAX_BRANCHES];
    memset(ends, 0, sizeof ends);
    for (int i = 0; i < NSD_ARC_MAX_BRANCHES; ++i)
        if (arc_point_alloc(c, &ends[i].pd, 1) != 0) return;
    double dirs[2] = {ac->to >= p0 ? 1.0 : -1.0, ac->to >= p0 ? -1.0 : 1.0};
    for (int d = 0; d < 2; ++d) {
        double other = d == 0 ? ac->to : ac->from;
        if (d == 1 && fabs(other - p0) <= 1e-12 * c->ps) break;
        if (c->progress)
            fprintf(c->progress, "arclength continuation along %s.%s from %.10g towards %.10g:\n",
                    c->pc->cont_section[0], c->pc->cont_key[0], p0, other);
        int bi = start_branch(c, r, p0, dirs[d], &ends[c->nbr]);
        if (bi < 0 || ends[bi].failed) end_failed(c, out);
    }
    for (size_t b = 0; b < c->nbr; ++b) {
        int level = 0;
        for (int q = (int)b; c->br[q].parent >= 0; q = c->br[q].parent) level++;
        if (!ends[b].have_pd || level >= ac->doublings) continue;
        size_t before = c->nbr;
        int nb = switch_at(c, (int)b, &ends[b].pd, &ends[before]);
        if (nb < 0 || ends[nb].failed) end_failed(c, out);
    }
    for (int i = 0; i < NSD_ARC_MAX_BRANCHES; ++i) arc_point_free(&ends[i].pd);
}

int nsd_periodic_arclength(nsd_scenario *s, const nsd_periodic_config *pc, const nsd_arc_config *ac,
                           const nsd_periodic_result *r, const char *dir, FILE *progress,
                           nsd_arc_outcome *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    out->complete = 1;
    arc_ctx c;
    memset(&c, 0, sizeof c);
    c.out = out, c.progress = progress;
    if (pc->spec.n_free > 64 || arc_ctx_init(&c, s, pc, ac, r->y, config_value(s, pc)) != 0) {
        arc_ctx_free(&c);
        snprintf(err, err_len, "out of memory (or more than 64 free states)");
        return -1;
    }
    run_all(&c, r, out);
    for (size_t b = 0; b < c.nbr; ++b) {
        arc_set_crossings(&c, c.br[b].crossings);
        for (size_t i = 0; i < c.br[b].np; ++i) arc_iterates(&c, &c.br[b].pt[i], c.br[b].crossings);
        out->n_points += c.br[b].np;
    }
    out->n_branches = c.nbr;
    feigenbaum(out);
    if (progress && isfinite(out->feigenbaum))
        fprintf(progress,
                "Feigenbaum ratio from the first three doublings: delta = %.4f (4.6692 "
                "asymptotically); accumulation estimated at %s.%s = %.8g\n",
                out->feigenbaum, pc->cont_section[0], pc->cont_key[0], out->p_inf);
    int rc = arc_write(&c, dir, err, err_len);
    arc_ctx_free(&c);
    return rc;
}
