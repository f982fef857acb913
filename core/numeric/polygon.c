/* Polygons: one Sutherland-Hodgman step (nsdyn_numeric.h). */
#include "nsdyn_numeric.h"

size_t nsn_clip_halfplane(size_t n, const double *x, const double *y, double a, double b, double c,
                          double *ox, double *oy) {
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t j = (i + 1) % n;
        /* signed distances (times |(a, b)|) inside the half-plane */
        double da = c - (a * x[i] + b * y[i]), db = c - (a * x[j] + b * y[j]);
        int ina = da >= 0.0, inb = db >= 0.0;
        if (ina) {
            ox[m] = x[i];
            oy[m] = y[i];
            m++;
        }
        if (ina == inb) continue;
        double t = da / (da - db);
        /* on an axis-parallel edge the clipped coordinate is set exactly
           (the plot clips absurd coordinates that way; the other one may
           lose precision and is clamped by the caller) */
        ox[m] = b == 0.0 ? c / a : x[i] + t * (x[j] - x[i]);
        oy[m] = a == 0.0 ? c / b : y[i] + t * (y[j] - y[i]);
        m++;
    }
    return m;
}
