/* The step guard's tests on one interval's cubic Hermite interpolant of a
 * contact's f = gap - threshold [m] from its values f0, f1 and rates
 * d0, d1 [m/s] at the ends of an interval of h [s] (step_guard.c searches
 * with them; the argument is in docs/event-driven.md). s in [0, 1] is the
 * place in the interval; margin [m] the estimate of the interpolant's
 * largest error. */
#ifndef NSD_GUARD_HERMITE_H
#define NSD_GUARD_HERMITE_H

/* The deepest level of the step guard's search (step_guard.c): an interval
 * is split at most this many times, down to 2^-NSD_GUARD_DEPTH of a step. */
#define NSD_GUARD_DEPTH 10

/* The interpolant at s [m], and its rate d/dt there [m/s]. */
double nsd_guard_hermite(double f0, double d0, double f1, double d1, double h, double s);
double nsd_guard_hermite_rate(double f0, double d0, double f1, double d1, double h, double s);

/* Can the function, within margin of the interpolant, be above 0 and later
 * at or below 0 in the interval (or start in the band and rise into it,
 * unless a rebound provably leaves)? 1 with *split where to look first. */
int nsd_guard_may_fall(double f0, double d0, double f1, double d1, double h, double margin,
                       double *split);

/* Does the function cross its threshold there once and only falling? */
int nsd_guard_clean_crossing(double f0, double d0, double f1, double d1, double h, double margin);

#endif
