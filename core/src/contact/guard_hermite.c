/* The step guard's tests on the cubic Hermite interpolant of one interval
 * (guard_hermite.h): where a gap may fall through its threshold, where it
 * crosses once, where a rebound leaves it. */
#include "guard_hermite.h"

#include <math.h>

/* Cubic Hermite on s in [0, 1] over an interval of length h. */
double nsd_guard_hermite(double f0, double d0, double f1, double d1, double h, double s) {
    double s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * f0 + (s3 - 2 * s2 + s) * h * d0 + (3 * s2 - 2 * s3) * f1 +
           (s3 - s2) * h * d1;
}

/* d/dt of the cubic Hermite at s. */
double nsd_guard_hermite_rate(double f0, double d0, double f1, double d1, double h, double s) {
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
/* The interpolant's ends and critical points, in order, into s (those
 * outside [0, 1] are left at 2: skipped). */
static void critical_points(double f0, double d0, double f1, double d1, double h, double s[4]) {
    double A = 6 * f0 + 3 * h * d0 - 6 * f1 + 3 * h * d1;
    double B = -6 * f0 - 4 * h * d0 + 6 * f1 - 2 * h * d1, C = h * d0;
    double disc = B * B - 4 * A * C;
    s[0] = 0.0;
    s[1] = s[2] = 2.0;
    s[3] = 1.0;
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
}

/* Does a rebound leave its threshold for good within one interval? The
 * contact starts inside the band (f0 < margin, at its threshold after an
 * impact) and rises (d0 > 0). The band around the interpolant H is uniform
 * (margin = err), but err estimates the Hermite error's largest value, and
 * that error has the shape err (4 s (1 - s))^2 (split_error(): the model
 * f4/24 (t - tl)^2 (t - tr)^2, f4 the fourth derivative, that the estimate
 * is scaled by), zero to second order at the ends. So the function is at
 * least L(s) = H(s) - err (4 s (1 - s))^2, with L(0) = f0, L'(0) = h d0
 * and |L''| <= M = max|H''| + 32 err (H'' is linear in s, largest at an
 * end; 32 is the largest |d^2/ds^2 16 s^2 (1 - s)^2|). Then
 * L(s) >= q(s) = f0 + h d0 s - M s^2 / 2 (Taylor), positive between its
 * roots r1 < r2; from r2 / 2, where q is still positive, L is checked on
 * REBOUND_GRID cells, each end above M cell^2 / 8 (the most a function
 * with |L''| <= M sags below its chord). If L > 0 on [r1, 1], r1 (the
 * start's own residue f0 <= 0 left behind: picoseconds) at most
 * 2^-NSD_GUARD_DEPTH of the interval (the depth limit's resolution), the
 * function does not come back to its threshold there: the half is safe for
 * this contact. This replaces the descent to the depth limit that the
 * uniform band forced after every bounce (a 1.24 m/s rebound leaves a
 * 1e-15 m band in femtoseconds); a rebound too slow for the bound (its
 * flight d0^2 / (2 |f''|) inside the interval: an accumulation's tail, a
 * rebound at a convex edge) is still split down to the depth limit. */
#define REBOUND_GRID 16
static int rebound_leaves(double f0, double d0, double f1, double d1, double h, double err) {
    double v = h * d0;
    double c0 = -6 * f0 - 4 * v + 6 * f1 - 2 * h * d1, c1 = 6 * f0 + 2 * v - 6 * f1 + 4 * h * d1;
    double M = fmax(fabs(c0), fabs(c1)) + 32.0 * err;
    double disc = v * v + 2.0 * M * f0;
    if (!(d0 > 0.0 && disc > 0.0 && M > 0.0)) return 0;
    double root = sqrt(disc), r1 = f0 >= 0.0 ? 0.0 : -2.0 * f0 / (v + root), r2 = (v + root) / M;
    if (!(r1 <= ldexp(1.0, -NSD_GUARD_DEPTH))) return 0;
    if (r2 > 1.0) return 1;
    double s0 = 0.5 * r2, cell = (1.0 - s0) / REBOUND_GRID, sag = M * cell * cell / 8.0;
    double prev = INFINITY;
    for (int i = 0; i <= REBOUND_GRID; ++i) {
        double s = i == REBOUND_GRID ? 1.0 : s0 + i * cell, w = 4.0 * s * (1.0 - s);
        double L = nsd_guard_hermite(f0, d0, f1, d1, h, s) - err * w * w;
        if (!(fmin(L, prev) - sag > 0.0)) return 0;
        prev = L;
    }
    return 1;
}

int nsd_guard_may_fall(double f0, double d0, double f1, double d1, double h, double margin,
                       double *split) {
    /* The interpolant is H00 f0 + H01 f1 + h (H10 d0 + H11 d1) with H00,
     * H01 >= 0 summing to 1 and |H10|, |H11| <= 4/27 on [0, 1]: never below
     * min(f0, f1) - 4/27 h (|d0| + |d1|). Above the band there, it can
     * neither fall into it nor start in it: the answer is no, without the
     * critical points (most contacts of most steps are far from contact). */
    if (fmin(f0, f1) - (4.0 / 27.0) * h * (fabs(d0) + fabs(d1)) > margin) return 0;
    if (margin > 0.0 && f0 < margin && rebound_leaves(f0, d0, f1, d1, h, margin)) return 0;
    double s[4];
    critical_points(f0, d0, f1, d1, h, s);
    double highest = -INFINITY, s_high = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (!(s[i] >= 0.0 && s[i] <= 1.0)) continue;
        double v = nsd_guard_hermite(f0, d0, f1, d1, h, s[i]);
        if (highest > -margin && v < margin) {
            *split = f0 > 0.0 && f1 <= 0.0 ? 0.5 : v < 0.0 && f0 > 0.0 ? s[i] : s_high;
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

/* Does the function, within margin of the Hermite interpolant of one
 * interval, cross its threshold there once and only falling? It starts
 * above the band (f0 > margin), ends at or below 0, and once the
 * interpolant's values at its critical points and ends (in order) come
 * below +margin, every later one is below -margin (the end itself may be
 * the first): the interpolant passes through the band once, so the
 * function's crossings lie where it is in the band, and no dip of the
 * function returns above the band before a later crossing. Then the
 * search need not split the interval further for this contact: a root
 * finder on its bracket finds the crossing (and locate() scans before the
 * root for a kink's earlier one, as at the depth limit). */
int nsd_guard_clean_crossing(double f0, double d0, double f1, double d1, double h, double margin) {
    if (!(f0 > margin && f1 <= 0.0)) return 0;
    double s[4];
    critical_points(f0, d0, f1, d1, h, s);
    int below = 0;
    for (int i = 1; i < 3; ++i) {
        if (!(s[i] > 0.0 && s[i] < 1.0)) continue;
        double v = nsd_guard_hermite(f0, d0, f1, d1, h, s[i]);
        if (below && v >= -margin) return 0;
        below |= v < margin;
    }
    return !below || f1 < -margin;
}
