/* The impact oscillator in closed form, the reference of
 * test_bifurcation.c: x'' + 2 zeta x' + x = cos(omega t), x <= sigma,
 * v -> -r v at an impact (plugins/systems/impact_oscillator.c with m = k =
 * F0 = 1, c = 2 zeta). Between impacts the flow is the exact solution of the
 * linear equation (steady part A cos(omega t - phi) plus the damped free
 * oscillation), so nothing here integrates numerically: impact times are
 * roots of a closed-form function, found by sampling (1/64 of the damped
 * period, far finer than any return time of the orbits tested) and
 * bisection to rounding. Independent of the simulator, the runner and the
 * contact law. Header-only, static functions: one test includes it. */
#ifndef IMPACT_OSCILLATOR_REF_H
#define IMPACT_OSCILLATOR_REF_H

#include <math.h>

typedef struct io_ref {
    double zeta, omega, sigma, r;
    double wd, A, phi; /* damped frequency, steady amplitude and phase */
} io_ref;

static io_ref io_ref_make(double zeta, double omega, double sigma, double r) {
    io_ref o = {zeta, omega, sigma, r, sqrt(1.0 - zeta * zeta), 0.0, 0.0};
    double d = 1.0 - omega * omega, e = 2.0 * zeta * omega;
    o.A = 1.0 / sqrt(d * d + e * e);
    o.phi = atan2(e, d);
    return o;
}

/* The state at t from (x0, v0) at t0, without impacts. */
static void io_ref_flow(const io_ref *o, double t0, double x0, double v0, double t, double *x,
                        double *v) {
    double p0 = o->A * cos(o->omega * t0 - o->phi),
           dp0 = -o->A * o->omega * sin(o->omega * t0 - o->phi);
    double a = x0 - p0, b = (v0 - dp0 + o->zeta * a) / o->wd, tau = t - t0;
    double e = exp(-o->zeta * tau), c = cos(o->wd * tau), s = sin(o->wd * tau);
    *x = e * (a * c + b * s) + o->A * cos(o->omega * t - o->phi);
    *v = e * ((-o->zeta * a + o->wd * b) * c + (-o->zeta * b - o->wd * a) * s) -
         o->A * o->omega * sin(o->omega * t - o->phi);
}

/* From (x, v) at t0 over [t0, t1] with impacts: the state at t1, the
 * number of impacts into *n (-1: more than max_imp, a chatter the
 * reference does not follow), and the smallest distance to the stop
 * sigma - x at a turning point away from impacts into *dmin (grazing:
 * dmin -> 0). */
static void io_ref_advance(const io_ref *o, double t0, double t1, double *x, double *v, int *n,
                           int max_imp, double *dmin) {
    double t = t0, dt = 2.0 * M_PI / o->wd / 64.0;
    *n = 0;
    *dmin = HUGE_VAL;
    for (;;) {
        double ta = t, xa, va, hit = -1.0;
        io_ref_flow(o, t, *x, *v, ta, &xa, &va);
        while (ta < t1) {
            double tb = fmin(ta + dt, t1), xb, vb;
            io_ref_flow(o, t, *x, *v, tb, &xb, &vb);
            if (va > 0.0 && vb <= 0.0 && xb < o->sigma) { /* a turning point below the stop */
                double lo = ta, hi = tb;
                for (int i = 0; i < 200 && hi - lo > 1e-15 * fmax(1.0, hi); ++i) {
                    double mid = 0.5 * (lo + hi), xm, vm;
                    io_ref_flow(o, t, *x, *v, mid, &xm, &vm);
                    *(vm > 0.0 ? &lo : &hi) = mid;
                }
                double xm, vm;
                io_ref_flow(o, t, *x, *v, lo, &xm, &vm);
                *dmin = fmin(*dmin, o->sigma - xm);
            }
            if (xb > o->sigma && tb > t) {
                double lo = ta, hi = tb;
                for (int i = 0; i < 200 && hi - lo > 1e-15 * fmax(1.0, hi); ++i) {
                    double mid = 0.5 * (lo + hi), xm, vm;
                    io_ref_flow(o, t, *x, *v, mid, &xm, &vm);
                    *(xm > o->sigma ? &hi : &lo) = mid;
                }
                hit = lo;
                break;
            }
            ta = tb, xa = xb, va = vb;
        }
        if (hit < 0.0) {
            io_ref_flow(o, t, *x, *v, t1, x, v);
            return;
        }
        double xi, vi;
        io_ref_flow(o, t, *x, *v, hit, &xi, &vi);
        if (++*n > max_imp) {
            *n = -1;
            return;
        }
        t = hit;
        *x = o->sigma;
        *v = -o->r * vi;
    }
}

/* The stroboscopic map over k forcing periods from phase 0. */
static int io_ref_strobe(const io_ref *o, int k, double *x, double *v, double *dmin) {
    int n;
    io_ref_advance(o, 0.0, 2.0 * M_PI * k / o->omega, x, v, &n, 64 * k, dmin);
    return n;
}

#endif
