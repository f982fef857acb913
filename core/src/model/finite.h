/* Is every entry of a vector finite? The host's check of a right-hand
 * side's derivatives (rhs.c) and of each new state (runner/run.c), once
 * per evaluation rather than once per entry: a NaN or an infinity makes
 * the sum non-finite, and a sum of finite terms is finite unless it
 * overflows, so the hot path pays one addition per entry and one test;
 * the entry-by-entry scan runs only when the sum is not finite (a real
 * NaN, or finite terms whose sum overflowed, which then passes). Two
 * partial sums, so the additions do not wait for each other. */
#ifndef NSD_FINITE_H
#define NSD_FINITE_H

#include <math.h>
#include <stddef.h>

/* The index of the first non-finite entry of x[0..n), or n when all are
 * finite. */
static inline size_t nsd_first_nonfinite(const double *x, size_t n) {
    double a = 0.0, b = 0.0;
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        a += x[i];
        b += x[i + 1];
    }
    if (i < n) a += x[i];
    if (__builtin_expect(isfinite(a + b), 1)) return n;
    for (i = 0; i < n; ++i)
        if (!isfinite(x[i])) return i;
    return n;
}

#endif
