/* The step guard's scan of a stretch for a crossing between samples
 * (guard_scan.h): samples skipped where a bound on the gaps' acceleration
 * rules a crossing out. */
#include "guard_scan.h"

#include <math.h>

/* Samples of an interval checked for an earlier crossing. */
#define GUARD_SCAN 64
/* The acceleration bound of a scan: this many times the largest |f''|
 * seen in it (the changes of f' between its ends and samples, and those a
 * quadratic through a sample's f, f' and the next f implies). */
#define GUARD_ACCEL_SAFETY 2.0
/* After this many breaks of the bound in one scan, it takes every sample. */
#define GUARD_BREAKS_MAX 4

/* The time [s] an f > 0 with rate f' needs to reach 0 when |f''| <= A:
 * the positive root of f - |f'| tau - A tau^2 / 2 (inf when nothing falls;
 * 0 when f' is not known). */
static double reach_time(double f, double df, double A) {
    double r = fabs(df);
    if (!isfinite(r)) return 0.0;
    if (!isfinite(f)) return INFINITY;
    double q = r + sqrt(r * r + 2.0 * A * f);
    return q > 0.0 ? 2.0 * f / q : INFINITY;
}

/* How many of the samples after the last one the bounds rule out: every
 * watched f stays above 0 there, as f(t) >= f - |f'| tau - A tau^2 / 2
 * from the last sample (f, f') when |f''| <= A. No cap: the bound, checked
 * at the next sample taken (bound_broken()), decides. */
static int ruled_out(const nsd_guard_scan *s, double h) {
    const double *f = s->f_last, *df = s->df_last;
    double cells = GUARD_SCAN;
    for (size_t j = 0; j < s->nw && cells > 0.0; ++j) {
        size_t c = s->w[j];
        cells = fmin(cells, ceil(reach_time(f[c], df[c], s->acc[c]) / h) - 1.0);
    }
    return cells > 0.0 ? (int)cells : 0;
}

/* The |f''| a stretch of dt from (fa, da) to (fb, db) shows: the change of
 * the rate, the acceleration a quadratic from (fa, da) needs to reach fb,
 * and the largest |f''| of the cubic Hermite through both ends (its f'' is
 * linear: largest at an end). The Hermite's is what a gap that turns
 * between two samples shows (a ripple of a few samples' period: the rate
 * and the quadratic from one end alone can look calm over a whole
 * period). */
static double accel_seen(double fa, double da, double fb, double db, double dt) {
    double h0 = (6.0 * (fb - fa) - 4.0 * dt * da - 2.0 * dt * db) / (dt * dt);
    double h1 = (-6.0 * (fb - fa) + 2.0 * dt * da + 4.0 * dt * db) / (dt * dt);
    return fmax(fmax(fabs(db - da) / dt, 2.0 * fabs(fb - fa - da * dt) / (dt * dt)),
                fmax(fabs(h0), fabs(h1)));
}

/* Did the last stretch break the acceleration bound? The bound grows to
 * GUARD_ACCEL_SAFETY times what was seen either way. */
static int bound_broken(nsd_guard_scan *s, double dt) {
    const double *fa = s->f_last, *fb = s->f_cur, *da = s->df_last, *db = s->df_cur;
    int broken = 0;
    for (size_t j = 0; j < s->nw; ++j) {
        size_t c = s->w[j];
        if (!isfinite(fb[c])) continue;
        double seen = accel_seen(fa[c], da[c], fb[c], db[c], dt);
        broken |= !(seen <= s->acc[c]);
        s->acc[c] = fmax(s->acc[c], GUARD_ACCEL_SAFETY * seen);
    }
    return broken;
}

/* The samples in order (guard_scan.h). A sample is taken only where the
 * bound does not rule out a watched gap's reaching 0 since the last sample
 * (ruled_out(): as many samples as the bound allows, no cap). The bound on
 * |f''| starts at GUARD_ACCEL_SAFETY times what the scan's ends show (the
 * change of f' over the stretch and the accelerations the quadratics from
 * either end to the other need) and grows to that factor times what every
 * sample shows; a sample that shows the bound broken over the stretch
 * before it (bound_broken()) sends the scan back over that stretch under
 * the grown bound, and after GUARD_BREAKS_MAX breaks every sample is
 * taken. A falling gap costs a few samples: from f, f' at a sample, the
 * bound reaches to within a factor of the crossing (exactly to it for a
 * parabola at a safety of 1). */
int nsd_guard_scan_run(nsd_guard_scan *s, double tl, double tr, const double *fl, const double *dl,
                       const double *fr, const double *dr, double *t_last, double *t_cur) {
    double h = (tr - tl) / GUARD_SCAN;
    for (size_t j = 0; j < s->nw; ++j) {
        size_t c = s->w[j];
        double seen = isfinite(fr[c]) ? fmax(accel_seen(fl[c], dl[c], fr[c], dr[c], tr - tl),
                                             accel_seen(fr[c], dr[c], fl[c], dl[c], tl - tr))
                                      : 0.0;
        s->acc[c] = GUARD_ACCEL_SAFETY * seen;
        s->f_last[c] = fl[c];
        s->df_last[c] = dl[c];
    }
    int i_last = 0, every = 0, breaks = 0;
    *t_last = tl;
    for (int i = 1; i < GUARD_SCAN; ++i) {
        if (!every) {
            int next = i_last + 1 + ruled_out(s, h);
            i = next > i ? next : i;
        }
        if (i >= GUARD_SCAN) break;
        double t = tl + i * h;
        if (!(t > *t_last && t < tr)) continue;
        if (s->sample(s->ctx, t) != 0) return -1;
        if (bound_broken(s, t - *t_last) && !every && i > i_last + 1) {
            /* passed over samples the bound did not cover: the stretch
             * again under the grown bound, every sample after
             * GUARD_BREAKS_MAX breaks */
            every = ++breaks >= GUARD_BREAKS_MAX;
            i = i_last;
            continue;
        }
        const double *f = s->f_cur;
        for (size_t j = 0; j < s->nw; ++j)
            if (f[s->w[j]] <= 0.0) {
                *t_cur = t;
                return 1;
            }
        for (size_t j = 0; j < s->nw; ++j) {
            size_t c = s->w[j];
            s->f_last[c] = f[c];
            s->df_last[c] = s->df_cur[c];
        }
        *t_last = t;
        i_last = i;
    }
    return 0;
}
