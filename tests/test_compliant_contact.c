/* Compliant contact laws (plugins/contact/compliant.c) on the ball above
 * level ground (plugins/systems/point_mass.c), run through the host the way
 * `nsdyn run` runs them, against closed forms and against an independent
 * integration written here.
 *
 * Penetration coordinates: delta = r - y (> 0 in contact), delta' = -vy.
 * An impact at speed v_in leaves at speed v_out; e = v_out / v_in.
 *
 * Closed forms used (derived here, no gravity during the contact):
 *
 * Hunt-Crossley, F = k delta^n (1 + a delta'), a = c/k [s/m] (p = n, q = 1):
 *   m v dv/d(delta) = -k delta^n (1 + a v), separable:
 *   m/a^2 [a v - ln(1 + a v)] = -k delta^{n+1}/(n+1) + const.
 *   At delta = 0 on the way in and out, G(z) = z - ln(1 + z) takes the same
 *   value at z = a v_in and at z = -a v_out, so e solves
 *       G(-e a v_in) = G(a v_in),                                   (HC)
 *   for every n. The force never needs the clamp (13): 1 + a v = 0 is a
 *   solution curve (dv/d(delta) = 0 there), so a trajectory starting above
 *   it (v_in > 0) never reaches it. For small a v_in, e ~ 1 - (2/3) a v_in
 *   (Hunt & Crossley 1975; with a = (3/2) alpha: e ~ 1 - alpha v_in).
 *
 * Linear spring-damper, F = max(k delta + c delta', 0): with beta = c/(2m),
 * w0^2 = k/m, w = sqrt(w0^2 - beta^2), delta = (v_in/w) e^{-beta t} sin(w t).
 * The clamp ends the contact where k delta + c delta' = 0, i.e. delta'' = 0,
 * at w t* = atan2(2 beta w, beta^2 - w^2), where |delta'| = v_in e^{-beta t*}
 * exactly (cos - (beta/w) sin = -1 there), so
 *       e = exp(-(beta/w) atan2(2 beta w, beta^2 - w^2))            (LSD)
 * (Schwager & Poeschel, Granular Matter 9 (2007) 465-469). Without the clamp
 * the contact would last until delta = 0 and e = exp(-beta pi / w).
 *
 * Bi-stiffness (5.1), F = k(1 + mu_n) delta compressing, k(1 - mu_n) delta
 * expanding: compression stores (1/2) k (1 + mu_n) delta_max^2 = (1/2) m
 * v0^2, expansion returns (1/2) k (1 - mu_n) delta_max^2, so
 *       e = sqrt((1 - mu_n)/(1 + mu_n)),
 *       energy lost = (1/2) m v0^2 * 2 mu_n / (1 + mu_n),
 *       delta_max = v0 sqrt(m / (k (1 + mu_n))).                        (BS)
 *
 * With gravity during the contact there is no closed form for Hunt-Crossley;
 * the drop test compares with a fine fixed-step RK4 integration of
 * delta'' = g - F/m written below (its own force code, not the plugin's),
 * whose step convergence the test checks.
 */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

static nsd_registry reg;
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

/* ---- running the ball through the host ----------------------------------- */

typedef struct ball {
    double m, r, g;
    double y0, vy0; /* initial height [m] and vertical velocity [m/s] */
} ball;

static void run_ball(run *R, const ball *b, const char *contact, const char *integrator,
                     double t_end, double output_dt) {
    char cfg[2048];
    snprintf(cfg, sizeof cfg,
             "[system]\nid = \"point_mass\"\nm = %.17g\nr = %.17g\ng = %.17g\n"
             "[contact]\n%s\n[integrator]\n%s\n"
             "[initial]\ny = %.17g\nvy = %.17g\n"
             "[run]\nt_end = %.17g\noutput_dt = %.17g\nprogress = false\n",
             b->m, b->r, b->g, contact, integrator, b->y0, b->vy0, t_end, output_dt);
    run_config(R, cfg, NSD_RUN_COMPLETE);
}

static double column_max(const run *R, const char *name) {
    double mx = -HUGE_VAL;
    for (size_t r = 0; r < R->res.series.rows; ++r) mx = fmax(mx, at(R, r, name));
    return mx;
}

/* ---- closed forms ------------------------------------------------------- */

/* (HC): e from G(-e z) = G(z), z = a v_in > 0. G(-w) = -w - ln(1 - w)
 * increases from 0 to infinity on w in [0, 1): bisection on w = e z. */
static double hc_restitution(double z) {
    double target = z - log1p(z), lo = 0.0, hi = fmin(z, 1.0);
    for (int i = 0; i < 200; ++i) {
        double w = 0.5 * (lo + hi);
        if (-w - log1p(-w) < target)
            lo = w;
        else
            hi = w;
    }
    return 0.5 * (lo + hi) / z;
}

/* (LSD), underdamped (beta < w0). */
static double lsd_restitution(double m, double k, double c) {
    double beta = c / (2 * m), w = sqrt(k / m - beta * beta);
    return exp(-(beta / w) * atan2(2 * beta * w, beta * beta - w * w));
}

/* ---- independent reference: 1-D impact with gravity --------------------- */

typedef struct law1d {
    double k, c, n, p, q;
} law1d;

/* Written out again here (not the plugin's code): walker (12)-(13). */
static double ref_force(const law1d *L, double d, double dd) {
    if (d <= 0) return 0.0;
    double damp = dd == 0 ? 0.0 : copysign(pow(fabs(dd), L->q), dd);
    double F = L->k * pow(d, L->n) + L->c * pow(d, L->p) * damp;
    return F > 0 ? F : 0.0;
}

static void ref_rk4(const law1d *L, double m, double g, double h, double *d, double *dd) {
    double x = *d, v = *dd;
    double k1x = v, k1v = g - ref_force(L, x, v) / m;
    double k2x = v + 0.5 * h * k1v,
           k2v = g - ref_force(L, x + 0.5 * h * k1x, v + 0.5 * h * k1v) / m;
    double k3x = v + 0.5 * h * k2v,
           k3v = g - ref_force(L, x + 0.5 * h * k2x, v + 0.5 * h * k2v) / m;
    double k4x = v + h * k3v, k4v = g - ref_force(L, x + h * k3x, v + h * k3v) / m;
    *d = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    *dd = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
}

/* Speed at which delta returns to zero after an impact at v_in: RK4 with
 * step h, the last (partial) step found by bisection on its length. */
static double ref_rebound_speed(const law1d *L, double m, double g, double v_in, double h) {
    double d = 0.0, dd = v_in;
    for (long i = 0; i < 100000000L; ++i) {
        double d1 = d, dd1 = dd;
        ref_rk4(L, m, g, h, &d1, &dd1);
        if (i > 0 && d1 <= 0) {
            double lo = 0.0, hi = h;
            for (int j = 0; j < 100; ++j) {
                double s = 0.5 * (lo + hi), ds = d, dds = dd;
                ref_rk4(L, m, g, s, &ds, &dds);
                if (ds > 0)
                    lo = s;
                else
                    hi = s;
            }
            double ds = d, dds = dd;
            ref_rk4(L, m, g, 0.5 * (lo + hi), &ds, &dds);
            return -dds;
        }
        d = d1;
        dd = dd1;
    }
    ck_abort_msg("reference integration did not leave the contact");
    return NAN;
}

/* ---- the laws' formulas, pointwise --------------------------------------- */

static void *make(const char *id, const double *values, size_t n) {
    const nsd_plugin *p = nsd_registry_find(&reg, id);
    ck_assert_ptr_nonnull(p);
    const nsdyn_contact_law *law = (const nsdyn_contact_law *)p->info;
    nsdyn_value v[8] = {{0}};
    for (size_t i = 0; i < n; ++i) v[i].num = values[i];
    char err[512] = "";
    void *inst = nsd_plugin_create(&law->info, v, &host, err, sizeof err);
    ck_assert_msg(inst != NULL, "%s: %s", id, err);
    return inst;
}

static double force(const char *id, void *inst, double gap, double gap_rate) {
    const nsdyn_contact_law *law = (const nsdyn_contact_law *)nsd_registry_find(&reg, id)->info;
    double F = -1;
    ck_assert_int_eq(law->normal_force(inst, gap, gap_rate, &F), NSDYN_OK);
    return F;
}

static void destroy_law(const char *id, void *inst) {
    ((const nsdyn_contact_law *)nsd_registry_find(&reg, id)->info)->info.destroy(inst);
}

START_TEST(force_formulas) {
    const double d = 2e-3, tol = 1e-12;
    /* hunt_crossley k d^n + c d^p sign(d') |d'|^q with unusual exponents. */
    void *hc = make("hunt_crossley", (double[]){1e5, 3e3, 1.3, 0.7, 0.5}, 5);
    double el = 1e5 * pow(d, 1.3), dm = 3e3 * pow(d, 0.7);
    ck_assert_double_eq_tol(force("hunt_crossley", hc, -d, -0.4), el + dm * pow(0.4, 0.5),
                            tol * el);
    ck_assert_double_eq_tol(force("hunt_crossley", hc, -d, 0.01), el - dm * pow(0.01, 0.5),
                            tol * el);
    ck_assert_double_eq(force("hunt_crossley", hc, -d, 0.0), el);
    ck_assert_double_eq(force("hunt_crossley", hc, -d, 5.0), 0.0);    /* (13): clamped */
    ck_assert_double_eq(force("hunt_crossley", hc, 1e-3, -0.4), 0.0); /* open */
    ck_assert_double_eq(force("hunt_crossley", hc, 0.0, -0.4), 0.0);  /* touching */
    destroy_law("hunt_crossley", hc);
    /* hertz k d^{3/2} (1 + (3/2) alpha d') */
    void *hz = make("hertz", (double[]){2e6, 0.2}, 2);
    ck_assert_double_eq_tol(force("hertz", hz, -d, -0.5), 2e6 * pow(d, 1.5) * (1 + 1.5 * 0.2 * 0.5),
                            tol * 2e6 * pow(d, 1.5));
    ck_assert_double_eq(force("hertz", hz, -d, 4.0), 0.0); /* 1 + 0.3 (-4) < 0 */
    destroy_law("hertz", hz);
    /* spring_damper k d + c d' */
    void *sd = make("spring_damper", (double[]){1e4, 40}, 2);
    ck_assert_double_eq_tol(force("spring_damper", sd, -d, -0.5), 1e4 * d + 40 * 0.5, 1e-12);
    ck_assert_double_eq_tol(force("spring_damper", sd, -1e-9, -0.5), 20.0,
                            1e-4); /* step at impact */
    ck_assert_double_eq(force("spring_damper", sd, -d, 1.0), 0.0);
    destroy_law("spring_damper", sd);
    /* bistiffness (5.1) */
    void *bs = make("bistiffness", (double[]){1e3, 0.2}, 2);
    ck_assert_double_eq_tol(force("bistiffness", bs, -d, -1e-6), 1.2e3 * d,
                            1e-12); /* compressing */
    ck_assert_double_eq_tol(force("bistiffness", bs, -d, 0.0), 1.2e3 * d,
                            1e-12); /* turning point */
    ck_assert_double_eq_tol(force("bistiffness", bs, -d, 1e-6), 0.8e3 * d, 1e-12); /* expanding */
    ck_assert_double_eq(force("bistiffness", bs, d, -1.0), 0.0);
    destroy_law("bistiffness", bs);
}
END_TEST

/* ---- (a) restitution ------------------------------------------------------ */

/* One impact without gravity: the ball starts 1 mm above the ground at
 * -v_in and flies on at constant speed after the contact, so the last
 * sample's vy is the rebound speed. */
static double impact_restitution_steps(const char *contact, const char *integrator, double m,
                                       double v_in, double t_end, double *steps) {
    ball b = {m, 0.05, 0.0, 0.051, -v_in};
    run R;
    run_ball(&R, &b, contact, integrator, t_end, t_end / 1000);
    double vy = last(&R, "vy"), gap = last(&R, "y") - b.r;
    ck_assert_msg(gap > 0 && last(&R, "ground.N") == 0.0, "still in contact at t_end");
    if (steps) *steps = (double)R.res.stats.steps;
    run_free(&R);
    return vy / v_in;
}

static double impact_restitution(const char *contact, const char *integrator, double m, double v_in,
                                 double t_end) {
    return impact_restitution_steps(contact, integrator, m, v_in, t_end, NULL);
}

/* The host runs of (a)-(c) use bdf at rtol = 1e-10 (atol 1e-13 m, m/s).
 * Each accepted step commits a local error of about rtol relative to
 * |v| ~ 1 m/s; one impact takes 100-400 steps and the contact is damped, so
 * the errors add without growing: the error of e is of order
 * steps x rtol ~ 4e-8. Tolerance 1e-7 on e (measured: 1e-9 to 1e-8). It is
 * far below what the tests tell apart: gravity's effect on e in the drop
 * (7e-4), the clamp's effect on the spring-damper's e (4.5e-2). */
#define BDF_TIGHT "id = \"bdf\"\nrtol = 1e-10\natol = 1e-13"

START_TEST(hunt_crossley_restitution_without_gravity) {
    /* k = 1e5 N/m^1.5, c = 1e4 N s/m^2.5: a = c/k = 0.1 s/m, m = 1 kg. */
    const double v_in[] = {0.5, 2.0, 5.0};
    for (int i = 0; i < 3; ++i) {
        double e =
            impact_restitution("id = \"hunt_crossley\"\nk = 1e5\nc = 1e4\nn = 1.5\np = 1.5\nq = 1",
                               BDF_TIGHT, 1.0, v_in[i], 0.2);
        double e_exact = hc_restitution(0.1 * v_in[i]);
        printf("hunt_crossley, v_in = %.1f m/s: e = %.10f, closed form (HC) %.10f, diff %.2e\n",
               v_in[i], e, e_exact, e - e_exact);
        ck_assert_double_eq_tol(e, e_exact, 1e-7);
    }
    /* The hertz id: the same law with c = (3/2) alpha k. */
    double e =
        impact_restitution("id = \"hertz\"\nk = 1e5\nalpha = 0.08", BDF_TIGHT, 1.0, 2.0, 0.2);
    double e_exact = hc_restitution(1.5 * 0.08 * 2.0);
    printf("hertz, alpha v_in = 0.16: e = %.10f, closed form (HC) %.10f, 1 - alpha v_in = %.4f\n",
           e, e_exact, 1 - 0.16);
    ck_assert_double_eq_tol(e, e_exact, 1e-7);
    /* Hunt & Crossley's small-damping reading e ~ 1 - alpha v_in: the next
     * term of (HC) is O((alpha v_in)^2) ~ 0.03 here. */
    ck_assert_double_eq_tol(e, 1 - 0.16, 0.05);
}
END_TEST

START_TEST(spring_damper_restitution_with_clamp) {
    /* m = 1 kg, k = 1e4 N/m (w0 = 100 1/s), c = 40 N s/m (zeta = 0.2). */
    double e =
        impact_restitution("id = \"spring_damper\"\nk = 1e4\nc = 40", BDF_TIGHT, 1.0, 1.0, 0.2);
    double e_exact = lsd_restitution(1.0, 1e4, 40.0);
    double beta = 20.0, w = sqrt(1e4 - beta * beta), e_unclamped = exp(-beta * M_PI / w);
    printf("spring_damper, zeta = 0.2: e = %.10f, closed form (LSD) %.10f, diff %.2e; unclamped "
           "exp(-zeta pi/sqrt(1-zeta^2)) = %.6f\n",
           e, e_exact, e - e_exact, e_unclamped);
    ck_assert_double_eq_tol(e, e_exact, 1e-7);
    /* The clamp matters: the test tells the two apart. */
    ck_assert_double_gt(fabs(e_exact - e_unclamped), 1e-2);
    /* The same law through hunt_crossley's general form (n = 1, p = 0, q = 1). */
    double e_hc = impact_restitution("id = \"hunt_crossley\"\nk = 1e4\nc = 40\nn = 1\np = 0\nq = 1",
                                     BDF_TIGHT, 1.0, 1.0, 0.2);
    ck_assert_double_eq_tol(e_hc, e_exact, 1e-7);
}
END_TEST

/* A 100 g ball dropped from rest, centre at 1 m (0.95 m above the contact),
 * on hunt_crossley with gravity: v_in = sqrt(2 g h) exactly (free fall),
 * v_out from any sample after lift-off by energy, v_out^2 = vy^2 + 2 g (y - r)
 * (free flight). */
START_TEST(hunt_crossley_drop_with_gravity) {
    ball b = {0.1, 0.05, 9.81, 1.0, 0.0};
    law1d L = {4e6, 3e5, 1.5, 1.5, 1.0};
    double v_in = sqrt(2 * b.g * (b.y0 - b.r)), t_hit = v_in / b.g;
    run R;
    run_ball(&R, &b, "id = \"hunt_crossley\"\nk = 4e6\nc = 3e5\nn = 1.5\np = 1.5\nq = 1", BDF_TIGHT,
             t_hit + 0.2, 1e-3);
    double y = last(&R, "y"), vy = last(&R, "vy");
    ck_assert_msg(y > b.r && vy > 0, "not in free flight after the first impact");
    double e = sqrt(vy * vy + 2 * b.g * (y - b.r)) / v_in;
    /* Energy lost in the impact, from the system's energy channel. */
    double lost = at(&R, 0, "energy") - last(&R, "energy");
    run_free(&R);
    double e_ref = ref_rebound_speed(&L, b.m, b.g, v_in, 1e-7) / v_in;
    double e_ref2 = ref_rebound_speed(&L, b.m, b.g, v_in, 2e-7) / v_in;
    double e_nograv = hc_restitution(L.c / L.k * v_in);
    printf("drop from 0.95 m: e = %.10f, reference RK4 %.10f (step 2h: %.10f), no-gravity closed "
           "form %.10f\n",
           e, e_ref, e_ref2, e_nograv);
    /* The reference is converged: halving its step changes e by < 1e-11. */
    ck_assert_double_eq_tol(e_ref, e_ref2, 1e-11);
    ck_assert_double_eq_tol(e, e_ref, 1e-7);
    /* Gravity during the 2 ms contact matters at this tolerance. */
    ck_assert_double_gt(fabs(e_ref - e_nograv), 1e-4);
    ck_assert_double_eq_tol(lost, 0.5 * b.m * v_in * v_in * (1 - e * e), 1e-7);
}
END_TEST

/* ---- (b) static equilibrium --------------------------------------------- */

/* The ball released touching the ground settles where k delta*^n = m g.
 * The damping is chosen for a damping ratio zeta = 0.5 at delta* (linear
 * stiffness n k delta*^{n-1}, circular frequency w); after 60/w the
 * transient has decayed by e^{-zeta w t} = e^{-30} ~ 1e-13, and bdf holds the
 * rest state to about atol = 1e-13 m against delta* ~ 1e-3 m, so 1e-9
 * relative is a bound with room. */
static void settle(double n, const char *contact_fmt, double k) {
    ball b = {1.0, 0.05, 9.81, 0.05, 0.0};
    double d_star = pow(b.m * b.g / k, 1.0 / n);
    double k_lin = n * k * pow(d_star, n - 1), w = sqrt(k_lin / b.m);
    double c_at_star = 2 * 0.5 * sqrt(k_lin * b.m); /* zeta = 0.5 */
    char contact[256];
    snprintf(contact, sizeof contact, contact_fmt, k, c_at_star / pow(d_star, n == 1 ? 0.0 : n));
    run R;
    run_ball(&R, &b, contact, BDF_TIGHT, 60.0 / w, 0.1 / w);
    double d = last(&R, "penetration"), N = last(&R, "ground.N");
    printf("n = %g: settled at delta = %.12g m, k delta^n = m g gives %.12g m; N = %.12g N\n", n, d,
           d_star, N);
    ck_assert_double_eq_tol(d, d_star, 1e-9 * d_star);
    ck_assert_double_eq_tol(N, b.m * b.g, 1e-9 * b.m * b.g);
    run_free(&R);
}

START_TEST(static_penetration) {
    settle(1.5, "id = \"hunt_crossley\"\nk = %.17g\nc = %.17g\nn = 1.5\np = 1.5\nq = 1", 1e5);
    settle(1.0, "id = \"hunt_crossley\"\nk = %.17g\nc = %.17g\nn = 1\np = 0\nq = 1", 1e4);
}
END_TEST

/* ---- (c) bi-stiffness ------------------------------------------------------ */

static void bistiffness_cycle(const char *label, const char *integrator, const char *contact,
                              double tol) {
    /* m = 1 kg, k = 1 kN/m, mu_n = 0.2 (the paper's Section 5 values),
     * v0 = 1 m/s, no gravity, starting at the ground (delta = 0). */
    const double m = 1.0, k = 1e3, mu = 0.2, v0 = 1.0;
    ball b = {m, 0.05, 0.0, 0.05, -v0};
    run R;
    const double dt = 2e-5; /* output step [s] */
    run_ball(&R, &b, contact, integrator, 0.3, dt);
    double e = last(&R, "vy") / v0;
    double lost = at(&R, 0, "energy") - last(&R, "energy");
    double d_max = column_max(&R, "penetration");
    double e_exact = sqrt((1 - mu) / (1 + mu)), lost_exact = 0.5 * m * v0 * v0 * 2 * mu / (1 + mu);
    double d_exact = v0 * sqrt(m / (k * (1 + mu)));
    printf("%s: e = %.10f (BS %.10f), energy lost %.10f J (BS %.10f J), delta_max %.10f m (BS "
           "%.10f m)\n",
           label, e, e_exact, lost, lost_exact, d_max, d_exact);
    ck_assert_double_eq_tol(e, e_exact, tol);
    ck_assert_double_eq_tol(lost, lost_exact, tol);
    /* delta_max read from samples dt apart: the nearest lies within dt/2 of
     * the maximum, where delta = delta_max (1 - w^2 tau^2 / 2) with w^2 at
     * most k (1 + mu_n)/m, so it is low by at most w^2 dt^2 / 8 (6e-8
     * relative), plus the integration error. */
    double w2 = k * (1 + mu) / m;
    ck_assert_double_le(d_max, d_exact * (1 + tol));
    ck_assert_double_ge(d_max, d_exact * (1 - w2 * dt * dt / 8 - tol));
    run_free(&R);
}

/* Tolerance 1e-7 for the adaptive methods at rtol = 1e-10: the force jumps
 * (by 2 mu_n k delta_max = 11.5 N) where delta' changes sign, and the
 * error-controlled step is cut down until the jump's local error is below
 * rtol; with some hundred steps in the contact the global error is of order
 * steps x rtol ~ 1e-8 (measured 1e-8). rk4 at fixed h has no such control:
 * the one step across the jump takes a velocity error of at most
 * 2 mu_n k delta_max h / m (the whole jump over the whole step), 1.2e-4 m/s at
 * h = 1e-5 s, and that bound (relative to v0) is its tolerance. */
START_TEST(bistiffness_energy_loss) {
    const char *law = "id = \"bistiffness\"\nk = 1e3\nmu_n = 0.2";
    bistiffness_cycle("bistiffness, dopri5", "id = \"dopri5\"\nrtol = 1e-10\natol = 1e-13", law,
                      1e-7);
    bistiffness_cycle("bistiffness, bdf", BDF_TIGHT, law, 1e-7);
    double jump = 2 * 0.2 * 1e3 * (1.0 * sqrt(1.0 / (1e3 * 1.2)));
    bistiffness_cycle("bistiffness, rk4 h = 1e-5", "id = \"rk4\"\nh = 1e-5", law,
                      jump * 1e-5 / 1.0);
    /* The same law written as hunt_crossley with n = p = 1, q = 0 and
     * c = mu_n k: k delta + mu_n k delta sign(delta'). */
    bistiffness_cycle("hunt_crossley n = p = 1, q = 0",
                      "id = \"dopri5\"\nrtol = 1e-10\natol = 1e-13",
                      "id = \"hunt_crossley\"\nk = 1e3\nc = 200\nn = 1\np = 1\nq = 0", 1e-7);
}
END_TEST

/* ---- (d) every integrator --------------------------------------------------- */

/* One Hunt-Crossley impact (k = 1e5 N/m^1.5, a = 0.1 s/m, m = 1 kg,
 * v_in = 2 m/s, about 26 ms of contact) with each integrator, against (HC).
 * Tolerances:
 *  - dopri5 and bdf at rtol = 1e-10: each accepted step commits a local
 *    error of about rtol (|v| ~ 1 m/s) and the run takes 120-320 steps,
 *    so without growth (the contact is damped) the error of e is of order
 *    steps x rtol ~ 3e-8; 1e-7. A sweep rtol = 1e-4 ... 1e-11 measured
 *    |error| <= 6 steps rtol for both.
 *  - at the default rtol = 1e-6 (measured 1.3e-4 dopri5, 2e-5 bdf): 1e-3.
 *  - rk4 at h = 1e-5 s: the smooth part's O(h^4) error is negligible; what
 *    remains are the steps where the contact starts and ends, where the
 *    force grows like (v_in t)^{3/2}: their local error is below
 *    (k/m) v_in^{3/2} h^{5/2} = 9e-8 m/s each, so e is within
 *    2 x 9e-8 / v_in = 9e-8; 1e-7. */
START_TEST(every_integrator_gives_the_restitution) {
    const char *law = "id = \"hunt_crossley\"\nk = 1e5\nc = 1e4\nn = 1.5\np = 1.5\nq = 1";
    const double v_in = 2.0, e_exact = hc_restitution(0.1 * v_in);
    struct {
        const char *integrator;
        double tol;
    } cases[] = {
        {"id = \"rk4\"\nh = 1e-5", 1e-7},
        {"id = \"dopri5\"\nrtol = 1e-10\natol = 1e-13", 1e-7},
        {BDF_TIGHT, 1e-7},
        {"id = \"dopri5\"", 1e-3},
        {"id = \"bdf\"", 1e-3},
    };
    for (size_t i = 0; i < NSDYN_COUNT(cases); ++i) {
        double steps,
            e = impact_restitution_steps(law, cases[i].integrator, 1.0, v_in, 0.1, &steps);
        char label[128];
        snprintf(label, sizeof label, "%s", cases[i].integrator);
        for (char *c = label; *c; ++c)
            if (*c == '\n') *c = ' ';
        printf("%-40s e = %.10f, closed form (HC) %.10f, diff %+.2e, %.0f steps\n", label, e,
               e_exact, e - e_exact, steps);
        ck_assert_double_eq_tol(e, e_exact, cases[i].tol);
    }
}
END_TEST

/* ---- (e) bad input ------------------------------------------------------------ */

static const nsdyn_contact_law *law_of(const char *id) {
    const nsd_plugin *p = nsd_registry_find(&reg, id);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->info->kind, NSDYN_KIND_CONTACT);
    return (const nsdyn_contact_law *)p->info;
}

/* create() with the given values must refuse, with a message holding `want`. */
static void refused(const char *id, const double *values, size_t n, const char *want) {
    const nsdyn_contact_law *law = law_of(id);
    nsdyn_value v[8] = {{0}};
    for (size_t i = 0; i < n; ++i) v[i].num = values[i];
    char err[512] = "";
    void *inst = nsd_plugin_create(&law->info, v, &host, err, sizeof err);
    ck_assert_msg(inst == NULL, "%s accepted bad values", id);
    printf("%s refuses: %s\n", id, err);
    ck_assert_msg(strstr(err, want) != NULL, "%s: message '%s' lacks '%s'", id, err, want);
}

START_TEST(create_refuses_nonsense) {
    /* hunt_crossley: k, c, n, p, q */
    refused("hunt_crossley", (double[]){-1e5, 1e4, 1.5, 1.5, 1}, 5,
            "k = -100000 N/m^n: the stiffness must be positive");
    refused("hunt_crossley", (double[]){1e5, 1e4, 0, 1.5, 1}, 5,
            "n = 0: the elastic exponent must be positive");
    refused("hunt_crossley", (double[]){1e5, 1e4, -1, 1.5, 1}, 5,
            "n = -1: the elastic exponent must be positive");
    refused("hunt_crossley", (double[]){1e5, -3, 1.5, 1.5, 1}, 5,
            "c = -3: the damping coefficient must be zero or positive");
    refused("hunt_crossley", (double[]){1e5, 1e4, 1.5, 1.5, -1}, 5, "q = -1");
    refused("hunt_crossley", (double[]){1e5, 1e4, 1.5, 0, 0}, 5, "p = 0 and q = 0 with c = 10000");
    /* hertz: k, alpha */
    refused("hertz", (double[]){0, 0.1}, 2, "k = 0 N/m^(3/2): the stiffness must be positive");
    refused("hertz", (double[]){1e6, -0.1}, 2, "alpha = -0.1");
    /* spring_damper: k, c */
    refused("spring_damper", (double[]){-1, 10}, 2, "k = -1 N/m: the stiffness must be positive");
    /* bistiffness: k, mu_n */
    refused("bistiffness", (double[]){1e3, 1.0}, 2, "mu_n = 1 is outside [0, 1)");
    refused("bistiffness", (double[]){1e3, 1.5}, 2, "mu_n = 1.5 is outside [0, 1)");
    refused("bistiffness", (double[]){1e3, -0.1}, 2, "mu_n = -0.1 is outside [0, 1)");
    refused("bistiffness", (double[]){-1e3, 0.2}, 2,
            "k = -1000 N/m: the stiffness must be positive");
}
END_TEST

/* Through the host: a config with a bad [contact] section does not load,
 * and the message names the section, the plugin and the problem. */
static void config_refused(const char *contact, const char *want) {
    char toml[1024], path[] = "/tmp/nsdyn-test-XXXXXX.toml";
    snprintf(toml, sizeof toml,
             "[system]\nid = \"point_mass\"\n[contact]\n%s\n[integrator]\nid = "
             "\"bdf\"\n[run]\nt_end = 1\n",
             contact);
    int fd = mkstemps(path, 5);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(toml, f);
    fclose(f);
    nsd_app app;
    nsd_model m;
    nsd_diag diag = {0};
    size_t errors = nsd_app_load(&app, path, NULL, 0, &diag);
    if (!errors) {
        errors = nsd_model_create(&m, &app.cfg, &diag);
        nsd_model_destroy(&m);
    }
    nsd_app_free(&app);
    remove(path);
    ck_assert_uint_gt(errors, 0);
    int found = 0;
    for (size_t i = 0; i < diag.n; ++i) {
        printf("config refused: %s\n", diag.lines[i]);
        found |= strstr(diag.lines[i], want) != NULL;
    }
    ck_assert_msg(found, "no message holds '%s'", want);
    nsd_diag_free(&diag);
}

START_TEST(config_refuses_nonsense) {
    /* Ranges, checked by the host from the declarations. */
    config_refused(
        "id = \"hunt_crossley\"\nk = -1e5",
        "[contact] (hunt_crossley) key 'k' = -100000 is out of range: expected > 0 N/m^n");
    config_refused("id = \"hunt_crossley\"\nn = 0",
                   "[contact] (hunt_crossley) key 'n' = 0 is out of range: expected > 0");
    config_refused("id = \"bistiffness\"\nmu_n = 1",
                   "[contact] (bistiffness) key 'mu_n' = 1 is out of range: expected [0, 1)");
    /* A combination, refused by create() and reported at the section. */
    config_refused("id = \"hunt_crossley\"\np = 0\nq = 0",
                   "[contact] (hunt_crossley): p = 0 and q = 0 with c = 1.6879e+07: the damping "
                   "term c sign(delta')");
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0); /* keep the measured numbers of a failing case */
    Suite *s = suite_create("compliant_contact");
    TCase *tc = tcase_create("laws");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, force_formulas);
    tcase_add_test(tc, hunt_crossley_restitution_without_gravity);
    tcase_add_test(tc, spring_damper_restitution_with_clamp);
    tcase_add_test(tc, hunt_crossley_drop_with_gravity);
    tcase_add_test(tc, static_penetration);
    tcase_add_test(tc, bistiffness_energy_loss);
    tcase_add_test(tc, every_integrator_gives_the_restitution);
    tcase_add_test(tc, create_refuses_nonsense);
    tcase_add_test(tc, config_refuses_nonsense);
    suite_add_tcase(s, tc);
    int failed = test_run_suite(s);
    nsd_registry_close(&reg);
    return failed;
}
