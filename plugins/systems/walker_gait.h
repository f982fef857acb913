/* Geometry and gait metrics shared by the two walker models (walker2.c,
 * the compliant one, and walker_impact.c, Appendix B's impact model) of
 * Koop & Wu 2013 (../shared/papers/passive-walker-hunt-crossley-lugre.txt),
 * so both report step length, period and hip velocity by the same
 * formulas. Header-only: each plugin is its own shared object. */
#ifndef NSDYN_WALKER_GAIT_H
#define NSDYN_WALKER_GAIT_H

#include <math.h>

/* Leg length l, foot arc radius rho, arc offset delta [rad]. */
typedef struct walker_legs {
    double l, rho, delta;
} walker_legs;

/* Foot of a leg at angle th: contact point relative to the hip (8) and the
 * Jacobian entries of its normal (a) and tangential (bt) velocity:
 *   a = l sin th - rho sin(th - delta),  bt = l cos th - rho cos(th - delta) + rho,
 * with their derivatives da, dbt (the drift). */
typedef struct walker_foot {
    double cx, cy;  /* contact point minus hip [m] */
    double a, bt;   /* [m] */
    double da, dbt; /* [m] d a / d th, d bt / d th */
} walker_foot;

static inline walker_foot walker_foot_at(const walker_legs *g, double th) {
    double s = sin(th), c = cos(th), sd = sin(th - g->delta), cd = cos(th - g->delta);
    walker_foot f;
    f.cx = g->l * s - g->rho * sd;
    f.cy = -g->l * c + g->rho * (cd - 1.0);
    f.a = g->l * s - g->rho * sd;
    f.bt = g->l * c - g->rho * cd + g->rho;
    f.da = g->l * c - g->rho * cd;
    f.dbt = -g->l * s + g->rho * sd;
    return f;
}

/* Horizontal offset c_x^hip of (7), used by (22)-(23). */
static inline double walker_cx_hip(const walker_legs *g, double th) {
    return g->l * sin(th) - g->rho * sin(th - g->delta);
}

/* Lead and trail leg angles from the inner leg angle a at heel strike:
 * (20), and (21) with its denominator's sign corrected (as printed, -sin,
 * the step length comes out ~20 % short; only + gives th_tr = -a/2 for
 * delta = 0, as the text says). */
static inline double walker_theta_lead(const walker_legs *g, double a) {
    double l = g->l, r = g->rho, d = g->delta;
    return atan((l * (1 - cos(a)) + r * (cos(a + d) - cos(d))) /
                (l * sin(a) + r * (-sin(a + d) + sin(d))));
}
static inline double walker_theta_trail(const walker_legs *g, double a) {
    double l = g->l, r = g->rho, d = g->delta;
    return atan((l * (1 - cos(a)) + r * (cos(a - d) - cos(d))) /
                (-l * sin(a) + r * (sin(a - d) + sin(d))));
}

/* Step length (22) from the lead angle a at a heel strike. */
static inline double walker_step_length(const walker_legs *g, double a) {
    return walker_cx_hip(g, walker_theta_lead(g, a)) - walker_cx_hip(g, walker_theta_trail(g, a));
}

/* Average hip velocity (23) over a step of period T: th_ld0 the lead angle
 * (20) at the previous strike, a the lead angle at this one. */
static inline double walker_hip_velocity(const walker_legs *g, double th_ld0, double a, double T) {
    double th_tr1 = walker_theta_trail(g, a);
    return (walker_cx_hip(g, th_ld0) - walker_cx_hip(g, th_tr1) + g->rho * (th_ld0 - th_tr1)) / T;
}

#endif
