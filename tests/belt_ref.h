/* The forced stick-slip oscillator of plugins/systems/belt_oscillator.c in
 * closed form, for tests: no simulator, no saltation code of nsdyn.
 *
 *     m x'' + c x' + k x = F0 cos(w t) + F,
 *     slipping: F = s mu_k N, s = sign(v_belt - x') (constant in a phase),
 *     sticking: x' = v_belt, F = lambda(t) = k x + c v_belt - F0 cos(w t),
 *               while |lambda| < mu_s N.
 *
 * A slip phase is the exact linear flow (underdamped: c^2 < 4 m k):
 * z = (x, v) = E(t - t0) (z0 - zp(t0)) + zp(t), zp the particular solution
 * s mu_k N / k + Re(X e^{iwt}), X = F0 / (k - m w^2 + i c w), and
 * E(tau) = exp(J tau), J = [[0, 1], [-k/m, -c/m]]. It ends where x' reaches
 * v_belt (stick if |lambda| < mu_s N there, else the slip reverses); a
 * stick phase x = xi + v_belt t ends where |lambda| reaches mu_s N. Roots
 * are bracketed on a grid of T / 4000 and bisected to rounding.
 *
 * The stroboscopic map over one forcing period T = 2 pi / w from a slipping
 * state, for an orbit with one stick phase [t_s, t_e] inside (0, T):
 * everything the start does to the end passes through xi = x(t_s) -
 * v_belt t_s (the stick erases the velocity), and the exit time moves with
 * xi as dt_e/dxi = -k / lambda'(t_e). With the exit's jump of the
 * acceleration a+ = s (mu_k - mu_s) N / m (s = sign lambda(t_e)),
 *
 *     dP/dz = E(T - t_e) (1, k a+ / lambda'(t_e))^T  e1^T E(t_s),
 *
 * rank one: the multipliers are mu = e1^T E(t_s + T - t_e) (1, k a+ /
 * lambda'(t_e))^T and exactly 0 (docs/periodic.md, "The belt oscillator"). */
#ifndef NSDYN_TEST_BELT_REF_H
#define NSDYN_TEST_BELT_REF_H

#include <math.h>

typedef struct belt_ref {
    double m, k, c, N, vb, F0, w, mus, muk;
    double sig, wd, Xr, Xi, T;
} belt_ref;

typedef struct belt_state {
    double x, v; /* [m], [m/s] */
    int stick;   /* 1 sticking (v = vb) */
    double s;    /* slipping: sign(vb - v) of the phase */
} belt_state;

/* Events of one advance: stick entries, exits and reversals, and the last
 * entry and exit times. */
typedef struct belt_events {
    int entries, exits, reversals;
    double t_s, t_e, s_e; /* s_e: sign of the stick force at the exit */
} belt_events;

static inline belt_ref belt_ref_make(double m, double k, double c, double N, double vb, double F0,
                                     double w, double mus, double muk) {
    belt_ref b = {m, k, c, N, vb, F0, w, mus, muk, 0, 0, 0, 0, 0};
    b.sig = c / (2.0 * m);
    b.wd = sqrt(k / m - b.sig * b.sig);
    double re = k - m * w * w, im = c * w, D = re * re + im * im;
    b.Xr = F0 * re / D;
    b.Xi = -F0 * im / D;
    b.T = 2.0 * M_PI / w;
    return b;
}

/* E(tau) row-major 2 x 2. */
static inline void belt_ref_E(const belt_ref *b, double tau, double *E) {
    double e = exp(-b->sig * tau), C = cos(b->wd * tau), S = sin(b->wd * tau);
    double z = b->sig / b->wd, w2 = b->sig * b->sig + b->wd * b->wd;
    E[0] = e * (C + z * S), E[1] = e * S / b->wd;
    E[2] = -e * w2 * S / b->wd, E[3] = e * (C - z * S);
}

static inline void belt_ref_part(const belt_ref *b, double s, double t, double *x, double *v) {
    double cw = cos(b->w * t), sw = sin(b->w * t);
    *x = s * b->muk * b->N / b->k + b->Xr * cw - b->Xi * sw;
    *v = -b->w * (b->Xr * sw + b->Xi * cw);
}

/* The slip flow from (t0, x0, v0) with sign s to t. */
static inline void belt_ref_slip(const belt_ref *b, double s, double t0, double x0, double v0,
                                 double t, double *x, double *v) {
    double xp, vp, E[4];
    belt_ref_part(b, s, t0, &xp, &vp);
    belt_ref_E(b, t - t0, E);
    double hx = E[0] * (x0 - xp) + E[1] * (v0 - vp), hv = E[2] * (x0 - xp) + E[3] * (v0 - vp);
    belt_ref_part(b, s, t, &xp, &vp);
    *x = hx + xp;
    *v = hv + vp;
}

/* The stick force at t on the stick line x = xi + vb t [N], and its rate. */
static inline double belt_ref_lambda(const belt_ref *b, double xi, double t) {
    return b->k * (xi + b->vb * t) + b->c * b->vb - b->F0 * cos(b->w * t);
}
static inline double belt_ref_lambda_rate(const belt_ref *b, double t) {
    return b->k * b->vb + b->F0 * b->w * sin(b->w * t);
}

/* The phase's own event function at t: slipping s (vb - v) > 0, sticking
 * mu_s N - |lambda| > 0. */
static inline double belt_ref_g(const belt_ref *b, const belt_state *z0, double t0, double xi,
                                double t) {
    if (z0->stick) return b->mus * b->N - fabs(belt_ref_lambda(b, xi, t));
    double x, v;
    belt_ref_slip(b, z0->s, t0, z0->x, z0->v, t, &x, &v);
    return z0->s * (b->vb - v);
}

/* Advance z from t0 to t1 through its phases; ev counts the events. */
static inline void belt_ref_advance(const belt_ref *b, belt_state *z, double t0, double t1,
                                    belt_events *ev) {
    double dt = b->T / 4000.0, t = t0;
    for (int guard = 0; guard < 100000; ++guard) {
        double xi = z->x - b->vb * t, ta = t, hit = -1.0;
        while (ta < t1 && hit < 0.0) {
            double tb = fmin(ta + dt, t1);
            if (belt_ref_g(b, z, t, xi, tb) <= 0.0) {
                double lo = ta, hi = tb;
                for (int i = 0; i < 200 && hi - lo > 4e-16 * fmax(1.0, fabs(hi)); ++i) {
                    double mid = 0.5 * (lo + hi);
                    *(belt_ref_g(b, z, t, xi, mid) <= 0.0 ? &hi : &lo) = mid;
                }
                hit = hi;
            }
            ta = tb;
        }
        double te = hit < 0.0 ? t1 : hit;
        if (z->stick) {
            z->x = xi + b->vb * te;
            z->v = b->vb;
        } else
            belt_ref_slip(b, z->s, t, z->x, z->v, te, &z->x, &z->v);
        t = te;
        if (hit < 0.0) return;
        if (z->stick) { /* the stick force reached the cone: slip against it */
            double lam = belt_ref_lambda(b, xi, t);
            z->stick = 0;
            z->s = lam > 0 ? 1.0 : -1.0;
            ev->exits++;
            ev->t_e = t;
            ev->s_e = z->s;
        } else {
            z->v = b->vb;
            double lam = belt_ref_lambda(b, z->x - b->vb * t, t);
            if (fabs(lam) < b->mus * b->N) {
                z->stick = 1;
                ev->entries++;
                ev->t_s = t;
            } else {
                z->s = lam > 0 ? 1.0 : -1.0;
                ev->reversals++;
            }
        }
    }
}

/* The closed-form dP/dz (2 x 2) of the map over [0, T] from a slipping
 * state whose period has one stick phase [t_s, t_e] and no reversal; its
 * nonzero multiplier is returned. */
static inline double belt_ref_jacobian(const belt_ref *b, const belt_events *ev, double *J) {
    double ap = ev->s_e * (b->muk - b->mus) * b->N / b->m; /* a+ at the exit */
    double r = b->k * ap / belt_ref_lambda_rate(b, ev->t_e);
    double Es[4], Ee[4], Ef[4];
    belt_ref_E(b, ev->t_s, Es);
    belt_ref_E(b, b->T - ev->t_e, Ee);
    belt_ref_E(b, ev->t_s + b->T - ev->t_e, Ef);
    double u[2] = {Ee[0] + Ee[1] * r, Ee[2] + Ee[3] * r};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) J[2 * i + j] = u[i] * Es[j];
    return Ef[0] + Ef[1] * r;
}

#endif
