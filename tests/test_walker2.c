/* The passive walker (plugins/systems/walker2.c, Koop & Wu 2013) run
 * through the host the way `nsdyn run` runs it.
 *
 *  (a) energy: with the contact damping and friction removed and the feet
 *      far above the ramp, the walker is a conservative system (gravity
 *      only), so its kinetic + potential energy must stay constant to
 *      integration tolerance. This checks the dynamics (H (4), G (5)) and
 *      the energy channel against each other (H (4) as printed drifts by
 *      3.6 J).
 *  (b) structure: derivatives() is affine in the contact forces; its
 *      response to unit contact forces, M^-1 W^T, equals the one computed
 *      here from (3) written out with m(b^2 + r_g^2), and the Delassus
 *      matrix W M^-1 W^T is symmetric positive definite; the force-free
 *      part satisfies M v' = -H - G with (4) corrected; the contact
 *      velocity u is the time derivative of the gap and u' = W v' + drift
 *      (central differences along a trajectory). The stepping-stone event
 *      functions and on_switch() behave as documented; reset() restores
 *      the mode.
 *  (c) standing on level ground settles at (M + 2m) g with the static
 *      Hunt-Crossley penetration (F/k_s)^(2/3) per foot.
 *  (d) the gait metrics (20)-(23) match the geometry they stand for
 *      (both feet at ramp level, foot offset delta = 8 degrees), and a
 *      short gait run takes heel strikes with plausible step length and
 *      period; (22) matches the contact points' distance, (23) the rolling
 *      advance of the hip, and the hip's actual advance is that plus the
 *      distance the stance foot slid.
 *  (e) bad parameters are refused with clear messages.
 */
#define _GNU_SOURCE
#include <math.h>

#include "registry.h"
#include "test_util.h"
#include "param_fields.h"

static nsd_registry reg;
static const nsdyn_host host = {sizeof(nsdyn_host), NULL, NULL};

/* Table 6-8 values (L#4), as the plugin's defaults. */
static const double L_ = 0.4143, RHO = 0.0860, MLEG = 5.1587, MHIP = 1.2826, B_ = 0.1930,
                    RG = 0.1067, G_ = 9.81, KS = 9.3920e5;

#define CONTACT_HC \
    "[contact]\nid = \"hunt_crossley\"\nk = 9.3920e5\nc = 1.6879e7\nn = 1.5\np = 1.5\nq = 1.0\n"

/* ---- (a) energy ------------------------------------------------------------ */

START_TEST(energy_conserved_in_flight) {
    /* The legs start swinging (1.0 and -0.5 rad/s, hip moving as if the
     * stance foot rolled) with the hip 10 m above the ramp: in 1 s the
     * walker falls 4.9 m and the feet stay > 4 m above the ramp. Gravity
     * acts through all of (5); M and H carry the coupling of the legs'
     * swing with the hip's motion. No damping (c = 0), no friction law. */
    run R;
    run_config(&R,
               "[system]\nid = \"walker2\"\nomega1_0 = 1.0\nomega2_0 = -0.5\n"
               "[contact]\nid = \"hunt_crossley\"\nc = 0.0\n"
               "[integrator]\nid = \"bdf\"\nrtol = 1e-10\natol = 1e-12\n"
               "[initial]\ny_hip = 10.0\n"
               "[run]\nt_end = 1.0\noutput_dt = 1e-3\nprogress = false\n",
               NSD_RUN_COMPLETE);
    double E0 = at(&R, 0, "energy"), drift = 0.0, Tmax = 0.0, ymin = HUGE_VAL;
    double mt = MHIP + 2 * MLEG;
    for (size_t r = 0; r < R.res.series.rows; ++r) {
        ck_assert_double_eq(at(&R, r, "foot1.N"), 0.0);
        ck_assert_double_eq(at(&R, r, "foot2.N"), 0.0);
        drift = fmax(drift, fabs(at(&R, r, "energy") - E0));
        double vx = at(&R, r, "vx_hip"), vy = at(&R, r, "vy_hip");
        Tmax = fmax(Tmax, 0.5 * mt * (vx * vx + vy * vy));
        ymin = fmin(ymin, at(&R, r, "y_hip"));
    }
    ck_assert_double_gt(ymin - L_ - 2 * RHO, 4.0); /* the feet never came near the ramp */
    /* Bound: BDF keeps each step's local error below about rtol relative to
     * the state (weighted RMS norm, atol negligible here), so each step
     * changes the energy by at most ~rtol times the energy being exchanged
     * (the kinetic energy, up to Tmax ~ 580 J), and the steps' errors add
     * at worst with one sign: n_steps * rtol * Tmax (~7e-6 J for ~120
     * steps). With (4) as printed (the sign of H's second entry) the drift
     * is 3.6 J. (The leg inertia erratum is checked in (b): a wrong but
     * consistent inertia would conserve its own energy.) */
    double bound = (double)R.res.stats.steps * 1e-10 * Tmax;
    printf("energy: E0 = %.9f J, max |E - E0| = %.3e J over 1 s (bound %.1e J, kinetic energy "
           "up to %.1f J, %llu steps)\n",
           E0, drift, bound, Tmax, (unsigned long long)R.res.stats.steps);
    ck_assert_double_lt(drift, bound);
    run_free(&R);
}
END_TEST

/* ---- (b) structure ---------------------------------------------------------- */

typedef struct probe {
    run R; /* the scenario: config and model */
    const nsdyn_system *sys;
    void *inst;
} probe;

static void probe_open(probe *P, const char *system_extra) {
    char toml[1024];
    snprintf(toml, sizeof toml,
             "[system]\nid = \"walker2\"\n%s\n" CONTACT_HC "[friction]\nid = \"lugre\"\n"
             "[integrator]\nid = \"bdf\"\n[run]\nt_end = 1.0\nprogress = false\n",
             system_extra);
    test_load(toml, &P->R);
    P->sys = P->R.model.sys;
    P->inst = P->R.data->sys_inst;
}

static void probe_close(probe *P) { test_unload(&P->R); }

static void vdot_of(const probe *P, const double *q, const double *v, const double *f, double *a) {
    ck_assert_int_le(P->sys->derivatives(P->inst, 0.0, q, v, f, NULL, a), NSDYN_WARNING);
}

/* Rows n1, t1, n2, t2 of the contact Jacobian (4 x 4), the velocities u and
 * the drifts. */
static void jacobian(const probe *P, const double *q, const double *v, double Wr[4][4], double u[4],
                     double drift[4], double gap[2], int active[2]) {
    double Wbuf[2][12];
    nsdyn_contact_eval ce[2];
    memset(ce, 0, sizeof ce);
    double *rows[2];
    for (int c = 0; c < 2; ++c) {
        ce[c].active = 1;
        rows[c] = Wbuf[c];
    }
    const nsdyn_contact_request req = {sizeof req, 0, rows, NULL};
    ck_assert_int_le(P->sys->contacts(P->inst, 0.0, q, v, &req, ce), NSDYN_WARNING);
    for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < 4; ++k) {
            Wr[2 * c][k] = Wbuf[c][k];
            Wr[2 * c + 1][k] = Wbuf[c][4 + k];
        }
        for (int k = 8; k < 12; ++k) ck_assert_double_eq(Wbuf[c][k], 0.0); /* planar */
        u[2 * c] = ce[c].u[0];
        u[2 * c + 1] = ce[c].u[1];
        drift[2 * c] = ce[c].drift[0];
        drift[2 * c + 1] = ce[c].drift[1];
        if (gap) gap[c] = ce[c].gap;
        if (active) active[c] = ce[c].active;
    }
}

/* Solve A x = b (4 x 4, partial pivoting) in place. */
static void solve4(double A[4][4], double *b) {
    for (int c = 0; c < 4; ++c) {
        int p = c;
        for (int r = c + 1; r < 4; ++r)
            if (fabs(A[r][c]) > fabs(A[p][c])) p = r;
        ck_assert_double_gt(fabs(A[p][c]), 1e-12);
        for (int k = 0; k < 4; ++k) {
            double t = A[c][k];
            A[c][k] = A[p][k];
            A[p][k] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < 4; ++r) {
            double f = A[r][c] / A[c][c];
            for (int k = c; k < 4; ++k) A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 3; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < 4; ++k) s -= A[r][k] * b[k];
        b[r] = s / A[r][r];
    }
}

START_TEST(mass_matrix_and_affine_forces) {
    probe P;
    probe_open(&P, "");
    const double cfgs[][4] = {
        {0.2, -0.2, 0, 0}, {-0.3, 0.35, 0, 0}, {0.05, 0.6, 0, 0}, {1.0, -0.7, 0, 0}};
    const double mt = MHIP + 2 * MLEG, J = MLEG * (B_ * B_ + RG * RG), mb = MLEG * B_;
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; ++k) {
        double q[4] = {0.1, 0.41, cfgs[k][0], cfgs[k][1]}, v[4] = {0.3, -0.05, -1.2, 2.0};
        /* Affine: f -> v' at f = 0, f1, f2 and a combination. */
        double f0[6] = {0}, f1[6] = {120, -30, 0, 40, 12, 0}, f2[6] = {-7, 3, 0, 80, -25, 0}, fc[6];
        for (int i = 0; i < 6; ++i) fc[i] = 0.3 * f1[i] + 0.7 * f2[i];
        double a0[4], a1[4], a2[4], ac[4];
        vdot_of(&P, q, v, f0, a0);
        vdot_of(&P, q, v, f1, a1);
        vdot_of(&P, q, v, f2, a2);
        vdot_of(&P, q, v, fc, ac);
        for (int i = 0; i < 4; ++i)
            ck_assert_double_eq_tol(ac[i], 0.3 * a1[i] + 0.7 * a2[i], 1e-12 * (1 + fabs(ac[i])));
        /* Columns of M^-1 W^T: responses to unit (N1, Ft1, N2, Ft2). */
        double Minv_Wt[4][4]; /* [column j][coordinate i] */
        const int slot[4] = {0, 1, 3, 4};
        for (int j = 0; j < 4; ++j) {
            double f[6] = {0}, a[4];
            f[slot[j]] = 1.0;
            vdot_of(&P, q, v, f, a);
            for (int i = 0; i < 4; ++i) Minv_Wt[j][i] = a[i] - a0[i];
        }
        double W[4][4], u[4], dr[4];
        jacobian(&P, q, v, W, u, dr, NULL, NULL);
        /* u = W v (no explicit time dependence). */
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int i = 0; i < 4; ++i) s += W[r][i] * v[i];
            ck_assert_double_eq_tol(u[r], s, 1e-14);
        }
        /* Delassus D = W M^-1 W^T: symmetric, positive definite (Cholesky). */
        double D[4][4];
        for (int r = 0; r < 4; ++r)
            for (int j = 0; j < 4; ++j) {
                double s = 0;
                for (int i = 0; i < 4; ++i) s += W[r][i] * Minv_Wt[j][i];
                D[r][j] = s;
            }
        double Lc[4][4] = {{0}};
        for (int r = 0; r < 4; ++r)
            for (int j = 0; j <= r; ++j) {
                ck_assert_double_eq_tol(D[r][j], D[j][r], 1e-12 * fabs(D[r][r]));
                double s = D[r][j];
                for (int i = 0; i < j; ++i) s -= Lc[r][i] * Lc[j][i];
                if (r == j) {
                    ck_assert_msg(s > 0, "D not positive definite at configuration %zu", k);
                    Lc[r][r] = sqrt(s);
                } else
                    Lc[r][j] = s / Lc[j][j];
            }
        /* W is invertible here, so M^-1 = W^-1 D W^-T; compare M^-1 e_i
         * with the inverse of (3) written out: solve M x = e_i with (3). */
        double s1 = sin(q[2]), c1 = cos(q[2]), s2 = sin(q[3]), c2 = cos(q[3]);
        double M3[4][4] = {{mt, 0, mb * c1, mb * c2},
                           {0, mt, mb * s1, mb * s2},
                           {mb * c1, mb * s1, J, 0},
                           {mb * c2, mb * s2, 0, J}};
        /* M^-1 W^T from (3): column j solves M x = W^T e_j. */
        for (int j = 0; j < 4; ++j) {
            double A[4][4], x[4];
            memcpy(A, M3, sizeof A);
            for (int i = 0; i < 4; ++i) x[i] = W[j][i];
            solve4(A, x);
            for (int i = 0; i < 4; ++i)
                ck_assert_double_eq_tol(Minv_Wt[j][i], x[i], 1e-11 * (1 + fabs(x[i])));
        }
        /* The force-free part: M a0 = -H - G with (4) corrected and (5). */
        double gs = sin(2.05 * M_PI / 180), gc = cos(2.05 * M_PI / 180);
        double rhs[4] = {mb * (v[2] * v[2] * s1 + v[3] * v[3] * s2) + mt * G_ * gs,
                         -mb * (v[2] * v[2] * c1 + v[3] * v[3] * c2) - mt * G_ * gc,
                         -mb * G_ * sin(q[2] - 2.05 * M_PI / 180),
                         -mb * G_ * sin(q[3] - 2.05 * M_PI / 180)};
        for (int i = 0; i < 4; ++i) {
            double s = 0;
            for (int j = 0; j < 4; ++j) s += M3[i][j] * a0[j];
            ck_assert_double_eq_tol(s, rhs[i], 1e-11 * (1 + fabs(rhs[i])));
        }
        /* Kinematics along a trajectory with acceleration a1: central
         * differences of gap and u against u[0] and W a + drift (error
         * O(h^2) ~ 1e-10 relative). */
        const double h = 1e-5;
        double qp[4], vp[4], qm[4], vm[4];
        for (int i = 0; i < 4; ++i) {
            qp[i] = q[i] + h * v[i] + 0.5 * h * h * a1[i];
            qm[i] = q[i] - h * v[i] + 0.5 * h * h * a1[i];
            vp[i] = v[i] + h * a1[i];
            vm[i] = v[i] - h * a1[i];
        }
        double Wp[4][4], up[4], dp[4], gp[2], Wm[4][4], um[4], dm[4], gm[2], g0[2];
        jacobian(&P, qp, vp, Wp, up, dp, gp, NULL);
        jacobian(&P, qm, vm, Wm, um, dm, gm, NULL);
        jacobian(&P, q, v, W, u, dr, g0, NULL);
        for (int c = 0; c < 2; ++c)
            ck_assert_double_eq_tol((gp[c] - gm[c]) / (2 * h), u[2 * c], 1e-7);
        for (int r = 0; r < 4; ++r) {
            double s = dr[r];
            for (int i = 0; i < 4; ++i) s += W[r][i] * a1[i];
            ck_assert_double_eq_tol((up[r] - um[r]) / (2 * h), s, 1e-6 * (1 + fabs(s)));
        }
    }
    probe_close(&P);
}
END_TEST

START_TEST(stepping_stone_rule) {
    probe P;
    probe_open(&P, "");
    const nsdyn_system *S = P.sys;
    double g[2], f[6] = {0}, out[32];
    ck_assert_uint_eq(P.R.model.layout.n_switches, 2);
    ck_assert_int_eq(P.R.model.layout.switch_direction[0], -1);
    ck_assert_int_eq(P.R.model.layout.switch_direction[1], -1);
    ck_assert_uint_le(P.R.model.layout.n_outputs, 32);
    int io_st = -1, io_ds = -1, io_steps = -1;
    for (size_t i = 0; i < P.R.model.layout.n_outputs; ++i) {
        if (!strcmp(P.R.model.layout.outputs[i].name, "stance")) io_st = (int)i;
        if (!strcmp(P.R.model.layout.outputs[i].name, "double_support")) io_ds = (int)i;
        if (!strcmp(P.R.model.layout.outputs[i].name, "steps")) io_steps = (int)i;
    }
    ck_assert(io_st >= 0 && io_ds >= 0 && io_steps >= 0);
    /* Start: single support on leg 1 (theta1 = 0.2 > theta2 = -0.2). */
    double q[4], v[4];
    S->initial_state(P.inst, q, v);
    double W[4][4], u[4], dr[4], gap[2];
    int act[2];
    jacobian(&P, q, v, W, u, dr, gap, act);
    ck_assert_int_eq(act[0], 1);
    ck_assert_int_eq(act[1], 0);
    ck_assert_double_eq_tol(gap[0], -2.45e-3, 1e-15); /* h0 */
    ck_assert_double_eq_tol(u[0], 0.0, 1e-15);        /* rolling: no normal velocity */
    ck_assert_double_eq_tol(u[1], 0.0, 1e-15);        /* and no slip */
    /* Mid-swing: lead below alpha0 -> negative constant, whatever the foot. */
    double qs[4] = {0.0, 0.4115, -0.05, 0.05};
    S->switches(P.inst, 0, qs, v, f, g);
    ck_assert_double_lt(g[0], 0.0);
    ck_assert_double_gt(g[1], 0.0);
    /* Lead above alpha0 with the swing foot below the ramp (the graze):
     * still negative, so passing alpha0 there is not a falling crossing. */
    double qg[4] = {0.0, 0.4115, -0.06, 0.115};
    S->switches(P.inst, 0, qg, v, f, g);
    ck_assert_double_lt(g[0], 0.0);
    double gap_sw = qg[1] - L_ * cos(qg[3]) + RHO * (cos(qg[3]) - 1);
    ck_assert_double_eq_tol(g[0], gap_sw, 1e-15);
    /* The spurious crossing (lead back below alpha0, foot in the air) does
     * not change the mode. */
    double qb[4] = {0.0, 0.45, -0.1, -0.02};
    ck_assert_int_eq(S->on_switch(P.inst, 0, 1.0, qb, v), NSDYN_OK);
    S->outputs(P.inst, 1.0, qb, v, f, out);
    ck_assert_double_eq(out[io_ds], 0.0);
    ck_assert_double_eq(out[io_steps], 0.0);
    /* A genuine strike: lead 0.5 rad, swing foot at the ramp. */
    double qh[4] = {0.0, 0.0, -0.25, 0.25};
    qh[1] = L_ * cos(0.25) - RHO * (cos(0.25) - 1); /* c_y(swing) = 0 */
    ck_assert_int_eq(S->on_switch(P.inst, 0, 1.0, qh, v), NSDYN_OK);
    S->outputs(P.inst, 1.0, qh, v, f, out);
    ck_assert_double_eq(out[io_ds], 1.0);
    ck_assert_double_eq(out[io_st], 1.0);
    ck_assert_double_eq(out[io_steps], 1.0);
    jacobian(&P, qh, v, W, u, dr, gap, act);
    ck_assert(act[0] && act[1]);
    /* In double support: heel strike off, end event on the old stance's force. */
    f[0] = 50.0;
    S->switches(P.inst, 0, qh, v, f, g);
    ck_assert_double_lt(g[0], 0.0);
    ck_assert_double_eq_tol(g[1], 50.0 - 1e-3, 1e-12);
    ck_assert_int_eq(S->on_switch(P.inst, 1, 1.01, qh, v), NSDYN_OK);
    S->outputs(P.inst, 1.01, qh, v, f, out);
    ck_assert_double_eq(out[io_ds], 0.0);
    ck_assert_double_eq(out[io_st], 2.0); /* the foot that struck */
    jacobian(&P, qh, v, W, u, dr, gap, act);
    ck_assert(!act[0] && act[1]);
    /* reset() restores the initial mode and the step records. */
    S->info.reset(P.inst);
    S->outputs(P.inst, 0.0, q, v, f, out);
    ck_assert_double_eq(out[io_st], 1.0);
    ck_assert_double_eq(out[io_ds], 0.0);
    ck_assert_double_eq(out[io_steps], 0.0);
    probe_close(&P);
}
END_TEST

/* (20)-(23) against the geometry they stand for, with a foot offset delta:
 * put both feet at ramp level with the lead angle a (the lead leg's angle
 * found here by bisection on c_y(lead) = c_y(trail)), strike, and compare
 * the outputs with the contact points' distance (22) and the rolling hip
 * advance (23). Exact up to rounding, for the corrected (21) only. */
static double cy_rel(double th, double delta) {
    return -L_ * cos(th) + RHO * (cos(th - delta) - 1);
}
static double cx_rel(double th, double delta) { return L_ * sin(th) - RHO * sin(th - delta); }

static double lead_angle_on_level(double a, double delta) {
    double lo = -1.0, hi = 1.5;
    for (int i = 0; i < 200; ++i) {
        double mid = 0.5 * (lo + hi);
        double flo = cy_rel(lo, delta) - cy_rel(lo - a, delta),
               fm = cy_rel(mid, delta) - cy_rel(mid - a, delta);
        if ((flo <= 0) == (fm <= 0))
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

START_TEST(gait_metrics_geometry) {
    const double delta = 8.0 * M_PI / 180;
    probe P;
    probe_open(&P, "delta = 8.0");
    const nsdyn_system *S = P.sys;
    int io_L = -1, io_T = -1, io_v = -1;
    for (size_t i = 0; i < P.R.model.layout.n_outputs; ++i) {
        if (!strcmp(P.R.model.layout.outputs[i].name, "step_length")) io_L = (int)i;
        if (!strcmp(P.R.model.layout.outputs[i].name, "step_period")) io_T = (int)i;
        if (!strcmp(P.R.model.layout.outputs[i].name, "hip_velocity")) io_v = (int)i;
    }
    ck_assert(io_L >= 0 && io_T >= 0 && io_v >= 0);
    double v[4] = {0}, f[6] = {0}, out[32];
    /* Strike 1 at t = 1: leg 1 (stance) trails, leg 2 leads by a1. */
    double a1 = 0.45, ld1 = lead_angle_on_level(a1, delta), tr1 = ld1 - a1;
    double q1[4] = {0.0, -cy_rel(ld1, delta), tr1, ld1};
    ck_assert_double_eq_tol(q1[1] + cy_rel(tr1, delta), 0.0, 1e-14);
    ck_assert_int_eq(S->on_switch(P.inst, 0, 1.0, q1, v), NSDYN_OK);
    S->outputs(P.inst, 1.0, q1, v, f, out);
    double L1 = cx_rel(ld1, delta) - cx_rel(tr1, delta);
    printf("delta = 8 deg, lead 0.45 rad: lead/trail %.6f/%.6f rad, step length (22) %.9f m, "
           "contact points %.9f m apart\n",
           ld1, tr1, out[io_L], L1);
    ck_assert_double_eq_tol(out[io_L], L1, 1e-12);
    ck_assert_double_eq(out[io_T], 0.0);
    S->on_switch(P.inst, 1, 1.01, q1, v); /* stance: leg 2 */
    /* Strike 2 at t = 1.5: leg 2 (stance) trails, leg 1 leads by a2. */
    double a2 = 0.40, ld2 = lead_angle_on_level(a2, delta), tr2 = ld2 - a2;
    double q2[4] = {0.2, -cy_rel(ld2, delta), ld2, tr2};
    ck_assert_int_eq(S->on_switch(P.inst, 0, 1.5, q2, v), NSDYN_OK);
    S->outputs(P.inst, 1.5, q2, v, f, out);
    /* Leg 2 led at strike 1 (angle ld1) and trails at strike 2 (tr2): the
     * hip advances c^hip(ld1) - c^hip(tr2) + rho (ld1 - tr2) if it rolled. */
    double v23 = (cx_rel(ld1, delta) - cx_rel(tr2, delta) + RHO * (ld1 - tr2)) / 0.5;
    ck_assert_double_eq_tol(out[io_L], cx_rel(ld2, delta) - cx_rel(tr2, delta), 1e-12);
    ck_assert_double_eq_tol(out[io_T], 0.5, 1e-15);
    ck_assert_double_eq_tol(out[io_v], v23, 1e-12);
    probe_close(&P);
}
END_TEST

/* ---- (c) standing ------------------------------------------------------------ */

static void standing(const char *mode, int feet) {
    char toml[2048];
    snprintf(
        toml, sizeof toml,
        "[system]\nid = \"walker2\"\ngamma = 0.0\nmode0 = \"%s\"\ntheta1_0 = 0.0\ntheta2_0 = 0.0\n"
        "omega1_0 = 0.0\nomega2_0 = 0.0\nh0 = 0.0\n" CONTACT_HC "[friction]\nid = \"lugre\"\n"
        "[integrator]\nid = \"bdf\"\nrtol = 1e-9\natol = 1e-12\n"
        "[run]\nt_end = 2.0\noutput_dt = 1e-3\nprogress = false\n",
        mode);
    run R;
    run_config(&R, toml, NSD_RUN_COMPLETE);
    double W = (MHIP + 2 * MLEG) * G_;
    double N1 = last(&R, "foot1.N"), N2 = last(&R, "foot2.N");
    /* With both legs along the normal, c_y = y_hip - l for both feet. */
    double pen = L_ - last(&R, "y_hip");
    double want_pen = pow(W / feet / KS, 2.0 / 3.0);
    printf("standing on %d foot/feet: N1 = %.6f N, N2 = %.6f N, total %.6f N (weight %.6f N); "
           "penetration %.6f mm (static %.6f mm)\n",
           feet, N1, N2, N1 + N2, W, 1e3 * pen, 1e3 * want_pen);
    /* Settled: after 2 s the transient (decay time ~0.02 s) is gone, so
     * the remaining error is the integration tolerance rtol = 1e-9 on
     * y_hip ~ 0.41 m, i.e. ~4e-10 m on a penetration of ~2e-3 m (2e-7
     * relative; the force ~ pen^(3/2) then ~3e-7). 1e-6 holds both. */
    ck_assert_double_eq_tol(N1 + N2, W, 1e-6 * W);
    ck_assert_double_eq_tol(pen, want_pen, 1e-6 * want_pen);
    if (feet == 2)
        ck_assert_double_eq_tol(N1, N2, 1e-9 * W);
    else
        ck_assert_double_eq(N2, 0.0);
    ck_assert_double_eq(last(&R, "x_hip"), 0.0); /* an exact equilibrium */
    run_free(&R);
}

START_TEST(standing_settles) {
    standing("double", 2); /* 56.9 N and 1.54 mm per foot */
    standing("leg1", 1);   /* 113.8 N and 2.45 mm */
}
END_TEST

/* ---- (d) gait --------------------------------------------------------------- */

START_TEST(short_gait) {
    run R;
    run_config(&R,
               "[system]\nid = \"walker2\"\n" CONTACT_HC "[friction]\nid = \"lugre\"\n"
               "[integrator]\nid = \"bdf\"\nrtol = 1e-6\natol = 1e-10\nmax_step = 1e-4\n"
               "[run]\nt_end = 1.6\noutput_dt = 1e-4\nprogress = false\n",
               NSD_RUN_COMPLETE);
    ck_assert_double_ge(last(&R, "steps"), 3.0);
    double prev_steps = 0, prev_x = 0, prev_t = 0, prev_stance = 1, prev_ld = 0;
    size_t prev_row = 0;
    int strikes = 0;
    for (size_t r = 0; r < R.res.series.rows; ++r) {
        double steps = at(&R, r, "steps");
        if (steps == prev_steps) continue;
        /* First sample after a heel strike (within output_dt = 1e-4 s). */
        ck_assert_double_eq(steps, prev_steps + 1);
        ck_assert_double_eq(at(&R, r, "double_support"), 1.0);
        strikes++;
        double t = at(&R, r, "t"), st = at(&R, r, "stance"), x = at(&R, r, "x_hip");
        ck_assert_double_eq(st, prev_stance); /* the mode changes at the end of double support */
        double th_st = at(&R, r, st == 1 ? "theta1" : "theta2"),
               th_sw = at(&R, r, st == 1 ? "theta2" : "theta1");
        double Ls = at(&R, r, "step_length"), Ts = at(&R, r, "step_period"),
               vs = at(&R, r, "hip_velocity");
        /* The contact points' actual distance (8) (delta = 0) vs (22) from the lead angle. */
        double cs = (L_ - RHO) * sin(th_st), cw = (L_ - RHO) * sin(th_sw);
        double a = th_sw - th_st, th_ld = a / 2, th_tr = -a / 2; /* (20), (21) for delta = 0 */
        printf("heel strike %d at t = %.4f s on leg %d: lead %.4f rad, step length (22) %.4f m "
               "(contact points %.4f m apart)",
               strikes, t, st == 1 ? 2 : 1, a, Ls, cw - cs);
        ck_assert_double_gt(Ls, 0.1);
        ck_assert_double_lt(Ls, 0.4);
        /* (20)-(22) assume both feet at ramp level; the stance foot sinks
         * ~2.5 mm, which tilts the pair by ~0.03 rad but leaves the
         * distance nearly unchanged (it varies with the cosine of the tilt:
         * ~1e-4 relative); the sample lies up to 1e-4 s after the strike
         * (feet moving < 2 m/s apart: 0.2 mm). 1 % holds both; (21) as
         * printed would give ~17 % less. */
        ck_assert_double_eq_tol(Ls, cw - cs, 0.01 * (cw - cs));
        if (strikes > 1) {
            /* (23) from the sampled lead angles, written out here. */
            double v23 =
                ((L_ - RHO) * (sin(prev_ld) - sin(th_tr)) + RHO * (prev_ld - th_tr)) / (t - prev_t);
            /* The hip's actual displacement and, for the difference, the
             * distance the stance foot slid: (23) assumes rolling without
             * slip, but each heel strike slides the new stance foot (more
             * in the first steps, which are faster at impact). */
            const char *slip = st == 1 ? "slip1" : "slip2";
            double slid = 0;
            for (size_t k = prev_row; k < r; ++k)
                slid += 0.5 * (at(&R, k, slip) + at(&R, k + 1, slip)) *
                        (at(&R, k + 1, "t") - at(&R, k, "t"));
            double v_actual = (x - prev_x) / (t - prev_t);
            printf(
                ", period %.4f s, hip velocity (23) %.4f m/s (hip moved %.4f m/s; the stance foot "
                "slid %.2f mm)",
                Ts, vs, v_actual, 1e3 * slid);
            ck_assert_double_gt(Ts, 0.3);
            ck_assert_double_lt(Ts, 1.0);
            ck_assert_double_eq_tol(Ts, t - prev_t, 2e-4);
            /* Sampled angles lag the strike by < 1e-4 s (lead rate ~2
             * rad/s: 2e-4 rad of ~0.4): 1 %. */
            ck_assert_double_eq_tol(vs, v23, 0.01 * v23);
            /* Kinematics of the rolling arc foot, exact whatever the forces:
             * x1 - x0 = c^hip(th0) - c^hip(th1) + rho (th0 - th1) + slid,
             * with th0, th1 the actual angles of that leg at the two strikes
             * and slid the integral of its sliding velocity (17) (+rho th'
             * included); trapezoid error on the 1e-4 s grid ~1e-5 m. */
            double th0 = at(&R, prev_row, st == 1 ? "theta1" : "theta2"),
                   th1 = at(&R, r, st == 1 ? "theta1" : "theta2");
            double dx = (L_ - RHO) * (sin(th0) - sin(th1)) + RHO * (th0 - th1) + slid;
            ck_assert_double_eq_tol(x - prev_x, dx, 1e-4);
        } else
            ck_assert_double_eq(Ts, 0.0); /* no period before the second strike */
        printf("\n");
        prev_steps = steps;
        prev_x = x;
        prev_t = t;
        prev_row = r;
        prev_ld = th_ld;
        prev_stance = st == 1 ? 2 : 1;
    }
    ck_assert_int_ge(strikes, 3);
    /* Every heel strike is followed by the end of its double support:
     * events alternate, strike then end (2 per step). */
    ck_assert_uint_ge(R.res.n_events, 2 * (size_t)strikes - 1);
    run_free(&R);
}
END_TEST

/* Double support by geometry (issue 22): double_support (force-based, the
 * published flag) ends when the old stance foot's normal force falls to
 * n_lift, while that foot is still ~2 mm in the ramp;
 * double_support_geometric runs from the same heel strike until the foot
 * is out (gap y_hip + c_y > 0, c_y = -l cos th + rho (cos th - 1) for
 * delta = 0). Random starts near the walking one: on every sample the
 * force flag implies the geometric one, the geometric one implies both
 * feet at or below the ramp, each geometric episode starts with a force one
 * and ends later, at the first sample with the trailing foot out. */
static double foot_gap(const run *R, size_t r, const char *theta) {
    double th = at(R, r, theta);
    return at(R, r, "y_hip") - L_ * cos(th) + RHO * (cos(th) - 1.0);
}

START_TEST(double_support_geometric) {
    unsigned seed = 2205u;
    for (int i = 0; i < 2; ++i) {
        double th1 = 0.2 + 0.02 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        double w1 = -1.5 + 0.1 * (rand_r(&seed) / (double)RAND_MAX - 0.5);
        char toml[800];
        snprintf(toml, sizeof toml,
                 "[system]\nid = \"walker2\"\ntheta1_0 = %.17g\nomega1_0 = %.17g\n" CONTACT_HC
                 "[friction]\nid = \"lugre\"\n"
                 "[integrator]\nid = \"bdf\"\nrtol = 1e-6\natol = 1e-10\nmax_step = 1e-4\n"
                 "[run]\nt_end = 1.0\noutput_dt = 1e-4\nprogress = false\n",
                 th1, w1);
        run R;
        run_config(&R, toml, NSD_RUN_COMPLETE);
        int episodes = 0, in_force = 0, in_geo = 0;
        double t_force_end = -1.0;
        for (size_t r = 0; r < R.res.series.rows; ++r) {
            double f = at(&R, r, "double_support"), g = at(&R, r, "double_support_geometric");
            double g1 = foot_gap(&R, r, "theta1"), g2 = foot_gap(&R, r, "theta2");
            double t = at(&R, r, "t");
            ck_assert_msg(!f || g, "case %d t = %.4f: force-based double support only", i, t);
            ck_assert_msg(!g || (g1 <= 0.0 && g2 <= 0.0),
                          "case %d t = %.4f: geometric double support with a foot out (%g, %g m)",
                          i, t, g1, g2);
            if (g && !in_geo) ck_assert_msg(f, "case %d t = %.4f: starts without a strike", i, t);
            if (!f && in_force) t_force_end = t;
            if (!g && in_geo) {
                /* the trailing foot (not the stance foot after the strike) is out */
                const char *trail = at(&R, r, "stance") == 1 ? "theta2" : "theta1";
                ck_assert_msg(foot_gap(&R, r, trail) > 0.0 && t_force_end > 0 && t > t_force_end,
                              "case %d t = %.4f: geometric end without the lift-off", i, t);
                printf("double support %d: force-based to %.4f s, geometric to %.4f s\n", episodes,
                       t_force_end, t);
                episodes++;
            }
            in_force = f != 0.0, in_geo = g != 0.0;
        }
        ck_assert_int_ge(episodes, 1);
        run_free(&R);
    }
}
END_TEST

/* ---- (e) bad input -------------------------------------------------------------- */

/* create() with the defaults but key = value (and key2 = value2 if given)
 * must refuse, with a message holding `want`. */
static void refused2(const char *key, double value, const char *key2, double value2,
                     const char *want) {
    const nsd_plugin *p = nsd_registry_find(&reg, "walker2");
    ck_assert_ptr_nonnull(p);
    const nsdyn_system *S = (const nsdyn_system *)p->info;
    nsdyn_value v[32] = {{0}};
    ck_assert_uint_le(p->info->n_params, 32);
    int found = 0;
    for (size_t i = 0; i < p->info->n_params; ++i) {
        v[i].num = p->info->params[i].default_value;
        if (!strcmp(p->info->params[i].name, key)) {
            v[i].num = value;
            found = 1;
        }
        if (key2 && !strcmp(p->info->params[i].name, key2)) v[i].num = value2;
    }
    ck_assert_msg(found, "no parameter %s", key);
    char err[512] = "";
    void *inst = nsd_plugin_create(&S->info, v, &host, err, sizeof err);
    ck_assert_msg(inst == NULL, "walker2 accepted %s = %g", key, value);
    printf("walker2 refuses %s = %g: %s\n", key, value, err);
    ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

static void refused(const char *key, double value, const char *want) {
    refused2(key, value, NULL, 0, want);
}

START_TEST(bad_input_refused) {
    refused("rho", 0.5,
            "rho = 0.5 m with l = 0.4143 m: the foot radius must be zero or positive and smaller "
            "than the leg length");
    refused("rho", 0.4143, "smaller than the leg length");
    refused("m", -5.0, "m = -5 kg, M = 1.2826 kg: the leg mass must be positive");
    refused("M", -1.0, "the leg mass must be positive and the hip mass zero or positive");
    refused("l", 0.0, "l = 0 m: the leg length must be positive");
    refused("theta1_0", 2.0, "theta1_0 = 2 rad");
    refused2("b", 0.0, "r_g", 0.0,
             "b = 0 m, r_g = 0 m: both must be zero or positive and not both zero");
}
END_TEST

int main(void) {
    if (test_scan_builtin(&reg)) return 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    Suite *s = suite_create("walker2");
    TCase *tc = tcase_create("walker2");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, energy_conserved_in_flight);
    tcase_add_test(tc, mass_matrix_and_affine_forces);
    tcase_add_test(tc, stepping_stone_rule);
    tcase_add_test(tc, gait_metrics_geometry);
    tcase_add_test(tc, standing_settles);
    tcase_add_test(tc, short_gait);
    tcase_add_test(tc, double_support_geometric);
    tcase_add_test(tc, bad_input_refused);
    suite_add_tcase(s, tc);
    int rc = test_run_suite(s);
    nsd_registry_close(&reg);
    return rc;
}
