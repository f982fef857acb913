/* Roots of a function of an angle, and columns of an affine map by
 * probing (nsdyn_numeric.h). */
#include <math.h>

#include "nsdyn_numeric.h"

/* The bisection of impact.c's 2-D slide search (the first user): keep the
 * end whose value has the same sign as fa, a zero included. */
static double bisect(nsn_angle_fn f, void *ctx, double lo, double hi, double fa, int max_bisect,
                     double xtol) {
    for (int it = 0; it < max_bisect && hi - lo > xtol; ++it) {
        double mid = 0.5 * (lo + hi);
        double fm = f(ctx, mid);
        if ((fa <= 0.0 && fm <= 0.0) || (fa >= 0.0 && fm >= 0.0)) {
            lo = mid;
            fa = fm;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

size_t nsn_angle_roots(nsn_angle_fn f, void *ctx, double lo, double hi, int n_grid, int periodic,
                       int max_bisect, double xtol, nsn_root_fn on_root, void *root_ctx) {
    if (n_grid < 1) return 0;
    const double h = (hi - lo) / n_grid;
    const double f_first = f(ctx, lo);
    double f0 = f_first;
    size_t found = 0;
    for (int k = 1; k <= n_grid; ++k) {
        const double a = lo + (k - 1) * h, b = lo + k * h;
        const double f1 = k < n_grid || !periodic ? f(ctx, b) : f_first;
        double root = NAN;
        if (f0 == 0.0)
            root = a; /* exact zero at the left end: itself, once */
        else if (f1 != 0.0 && (f0 < 0.0) != (f1 < 0.0))
            root = bisect(f, ctx, a, b, f0, max_bisect, xtol);
        /* f1 == 0: reported as the next interval's left end (below, for
         * the last one) */
        if (root == root) {
            ++found;
            if (on_root(root_ctx, root)) return found;
        }
        f0 = f1;
    }
    if (!periodic && f0 == 0.0) {
        ++found;
        on_root(root_ctx, hi);
    }
    return found;
}

int nsn_affine_columns(nsn_affine_fn f, void *ctx, double *lambda, const size_t *slots,
                       size_t n_sel, const double *base, size_t n_out, double *out, double *cols) {
    for (size_t j = 0; j < n_sel; ++j) {
        lambda[slots[j]] = 1.0;
        int st = f(ctx, lambda, out);
        lambda[slots[j]] = 0.0;
        if (st != 0) return st;
        for (size_t i = 0; i < n_out; ++i) cols[j * n_out + i] = out[i] - base[i];
    }
    return 0;
}
