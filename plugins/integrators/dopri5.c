/* dopri5: adaptive explicit Runge-Kutta method of Dormand and Prince,
 * order 5 with an embedded order-4 error estimate, FSAL (the 7th stage is
 * f at the new point and becomes the 1st stage of the next step).
 *
 * Tableau (Dormand & Prince 1980; Hairer, Norsett & Wanner, "Solving ODE I",
 * II.5, Table 5.2):
 *
 *   c     a
 *   0
 *   1/5   1/5
 *   3/10  3/40        9/40
 *   4/5   44/45       -56/15      32/9
 *   8/9   19372/6561  -25360/2187 64448/6561 -212/729
 *   1     9017/3168   -355/33     46732/5247 49/176   -5103/18656
 *   1     35/384      0           500/1113   125/192  -2187/6784   11/84
 *
 *   b  (order 5) = last row of a, b7 = 0
 *   b* (order 4) = 5179/57600 0 7571/16695 393/640 -92097/339200 187/2100 1/40
 *   error estimate  err = h sum (b_i - b*_i) k_i.
 *
 * Error norm: RMS over i of err_i / sc_i with
 *   sc_i = atol * scale_i + rtol * max(|y_i|, |ynew_i|),
 * scale_i = ode->atol_scale[i] or 1. A step is accepted when the norm <= 1.
 *
 * Step-size control ("PI/I"):
 *  - after an accepted step, the PI controller of Gustafsson as used by
 *    Hairer's DOPRI5 code: h_new = h * 0.9 * err^-alpha * err_prev^beta
 *    with beta = 0.04, alpha = 1/5 - 0.75 beta, err_prev = max(err, 1e-4)
 *    of the previous accepted step; the factor is limited to [0.2, 5] and
 *    to <= 1 right after a rejection;
 *  - after a rejected step, the elementary (I) controller
 *    h_new = h * max(0.2, 0.9 * err^-1/5);
 *  - a step rejected by the right-hand side (NSDYN_REJECT_STEP) or with a
 *    non-finite state or error estimate is retried with h/2.
 * A step shorter than min_step (other than the one that lands on t_stop)
 * is a failure.
 *
 * Dense output: the 4th-order continuous extension of Dormand and Prince
 * (the one of Hairer's DOPRI5 code). With theta = (t - t_n)/h, D = y_{n+1} - y_n,
 *   y(t_n + theta h) = y_n + theta (D + (1 - theta)(B + theta (C + (1 - theta) E)))
 *   B = h k1 - D,  C = 2 D - h (k1 + k7),  E = h sum_i d_i k_i,
 *   d = (-12715105075/11282082432, 0, 87487479700/32700410799,
 *        -10690763975/1880347072, 701980252875/199316789632,
 *        -1453857185/822651844, 69997945/29380423).
 * We checked with exact rational arithmetic that the resulting weights
 * b_i(theta) satisfy all eight order conditions up to order 4 for every
 * theta, give b_i at theta = 1 and are Hermite (derivative k1 at theta = 0,
 * k7 at theta = 1), so the interpolant is C1 across steps.
 *
 * Events: after each accepted step g is evaluated at the new point; an
 * event whose sign changed (event_direction filter, g == 0 at the step
 * start is not a crossing) is located with the Illinois variant of regula
 * falsi on the dense output until the bracket is shorter than
 * 1e-12 * max(1, |t|). The earliest root wins (lowest index on a tie); the
 * integrator then continues from the root, on the far side of the crossing,
 * so the same crossing is not reported twice. An event that changes sign
 * twice inside one step is not seen (as in every step-end sign test).
 *
 * Integration runs forward in time only (t_stop > t).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrator_common.h"

/* ---- method constants ------------------------------------------------- */

static const double DP_C[7] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};

/* Row s holds a[s][0..s-1]; row 6 is the order-5 weight vector b. */
static const double DP_A[7][6] = {
    {0, 0, 0, 0, 0, 0},
    {1.0 / 5.0, 0, 0, 0, 0, 0},
    {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0},
};

/* b - b*: weights of the error estimate. */
static const double DP_E[7] = {71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
                               -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};

/* Dense output weights d_i (see the header comment). */
static const double DP_D[7] = {-12715105075.0 / 11282082432.0,  0.0,
                               87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
                               701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                               69997945.0 / 29380423.0};

#define DP_SAFETY 0.9
#define DP_FAC_MIN 0.2 /* h may shrink at most by 5x per attempt */
#define DP_FAC_MAX 5.0 /* and grow at most by 5x per accepted step */
#define DP_BETA 0.04
#define DP_ALPHA (0.2 - 0.75 * DP_BETA)
#define DP_ERROLD_MIN 1e-4
/* The step that lands on t_stop may exceed the proposed h by this factor,
 * which avoids a sliver step right before t_stop. */
#define DP_STRETCH 1.01
#define DP_ROOT_RTOL 1e-12
#define DP_ROOT_MAX_ITER 200
#define DP_ROOT_ILLINOIS_ITER 60 /* then plain bisection, a safety net only */

typedef struct dp5 {
    nsi_host host;
    double rtol, atol, h0, max_step, min_step;
    double max_steps_declared; /* the INT parameter (up to 1e15), as the host fills it */
    uint64_t max_steps;
    char msg[NSI_MSG_LEN];

    nsdyn_ode ode;
    size_t n, ne;
    double t, t_end;
    double h_next;          /* proposed size of the next step */
    double errold;          /* error norm of the previous accepted step */
    int reject_last;        /* previous attempt was rejected */
    const char *reject_why; /* reason of the last rejection (static text) */

    /* state and stages; after an accepted step y is the new state, k[0] its
     * derivative (FSAL), ynew the old state and k[6] the old k1 */
    double *y, *ynew, *ytmp, *k[7];
    /* dense output of the last accepted step on [dt0, dt1], dt1 <= dt0 + dh */
    int dense_ok, dense_prepared;
    double dt0, dh, dt1;
    double *cd, *cb, *cc, *ce; /* D, B, C, E of the header comment */
    /* events */
    double *g, *gnew, *gbest, *gr, *gc;
    double *block;
    nsdyn_integrator_stats st;
} dp5;

static const nsdyn_param_decl dp5_params[] = {
    NSDYN_REAL_F("rtol", "1", 1e-6, 0.0, 1.0, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "relative tolerance of the local error"),
    NSDYN_REAL_F("atol", "1", 1e-9, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "absolute tolerance (in state units, times the problem's atol_scale)"),
    NSDYN_REAL("h0", "s", 0.0, 0.0, HUGE_VAL,
               "initial step; 0 = automatic (Hairer-Norsett-Wanner heuristic)"),
    NSDYN_REAL("max_step", "s", 0.0, 0.0, HUGE_VAL, "largest step; 0 = unlimited"),
    NSDYN_REAL("min_step", "s", 1e-14, 0.0, HUGE_VAL,
               "a step below this size is a failure (0 = only the time resolution)"),
    NSDYN_INT("max_steps", "1", 1e6, 1.0, 1e15, "most accepted steps per run (setup to reset)"),
};

/* ---- life cycle ------------------------------------------------------- */

static void *dp5_create(const void *params, const nsdyn_host *host, char *err, size_t err_len) {
    const dp5 *p = params;
    const double rtol = p->rtol, atol = p->atol, h0 = p->h0, max_step = p->max_step;
    const double min_step = p->min_step, max_steps = p->max_steps_declared;
    if (!(rtol > 0.0 && rtol <= 1.0)) {
        nsi_set_msg(err, err_len, "dopri5: rtol = %g must lie in (0, 1]", rtol);
        return NULL;
    }
    if (!(atol > 0.0) || !isfinite(atol)) {
        nsi_set_msg(err, err_len, "dopri5: atol = %g must be finite and > 0", atol);
        return NULL;
    }
    if (!(h0 >= 0.0) || !isfinite(h0)) {
        nsi_set_msg(err, err_len, "dopri5: h0 = %g s must be finite and >= 0", h0);
        return NULL;
    }
    if (!(max_step >= 0.0) || !isfinite(max_step)) {
        nsi_set_msg(err, err_len, "dopri5: max_step = %g s must be finite and >= 0", max_step);
        return NULL;
    }
    if (!(min_step >= 0.0) || !isfinite(min_step)) {
        nsi_set_msg(err, err_len, "dopri5: min_step = %g s must be finite and >= 0", min_step);
        return NULL;
    }
    if (!nsi_is_integer(max_steps) || max_steps < 1.0 || max_steps > 1e15) {
        nsi_set_msg(err, err_len, "dopri5: max_steps = %g must be an integer in [1, 1e15]",
                    max_steps);
        return NULL;
    }
    if (max_step > 0.0 && min_step > max_step) {
        nsi_set_msg(err, err_len, "dopri5: min_step = %g s exceeds max_step = %g s", min_step,
                    max_step);
        return NULL;
    }
    if (h0 > 0.0 && max_step > 0.0 && h0 > max_step) {
        nsi_set_msg(err, err_len, "dopri5: h0 = %g s exceeds max_step = %g s", h0, max_step);
        return NULL;
    }
    if (h0 > 0.0 && h0 < min_step) {
        nsi_set_msg(err, err_len, "dopri5: h0 = %g s is below min_step = %g s", h0, min_step);
        return NULL;
    }
    dp5 *s = nsi_keep(params, sizeof *s, offsetof(dp5, host), host, "dopri5", err, err_len);
    if (s != NULL) s->max_steps = (uint64_t)max_steps;
    return s;
}

/* The parameters, filled by the host into dp5 (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field dp5_fields[] = {
    NSDYN_FIELD(dp5, rtol),     NSDYN_FIELD(dp5, atol),
    NSDYN_FIELD(dp5, h0),       NSDYN_FIELD(dp5, max_step),
    NSDYN_FIELD(dp5, min_step), NSDYN_FIELD_AS(dp5, max_steps_declared, "max_steps")};
static const nsdyn_param_fields dp5_table = NSDYN_PARAM_FIELDS(dp5, dp5_fields, dp5_create);
NSDYN_FIELDS_EXTENSION(dp5_extension, dp5_table)

static void dp5_reset(void *inst) {
    dp5 *s = inst;
    if (s == NULL) return;
    free(s->block);
    s->block = NULL;
    s->y = s->ynew = s->ytmp = NULL;
    for (int i = 0; i < 7; ++i) s->k[i] = NULL;
    s->cd = s->cb = s->cc = s->ce = NULL;
    s->g = s->gnew = s->gbest = s->gr = s->gc = NULL;
    s->dense_ok = s->dense_prepared = 0;
    s->n = s->ne = 0;
    memset(&s->ode, 0, sizeof s->ode);
    memset(&s->st, 0, sizeof s->st);
    s->msg[0] = '\0';
}

static void dp5_destroy(void *inst) {
    dp5 *s = inst;
    if (s == NULL) return;
    dp5_reset(s);
    free(s);
}

/* ---- evaluations with status mapping ---------------------------------- */

static nsdyn_status dp5_f(dp5 *s, double t, const double *y, double *ydot) {
    return nsi_rhs(&s->ode, &s->st, s->msg, sizeof s->msg, "dopri5", t, y, ydot);
}

static nsdyn_status dp5_g(dp5 *s, double t, const double *y, double *g) {
    return nsi_events(&s->ode, &s->st, s->msg, sizeof s->msg, "dopri5", t, y, g);
}

static inline double dp5_scale(const dp5 *s, size_t i) {
    return s->ode.atol_scale != NULL ? s->ode.atol_scale[i] : 1.0;
}

/* ---- initial step (Hairer, Norsett & Wanner, "Solving ODE I", II.4) --- */

/* Needs k[0] = f(t, y). Uses ytmp and k[1] as scratch. */
static nsdyn_status dp5_initial_step(dp5 *s, double *h_out) {
    const size_t n = s->n;
    const double *y = s->y, *f0 = s->k[0];
    double hmax = s->max_step > 0.0 ? s->max_step : HUGE_VAL;
    if (s->t_end > s->t) hmax = fmin(hmax, s->t_end - s->t);

    if (s->h0 > 0.0) {
        *h_out = fmin(s->h0, hmax);
        return NSDYN_OK;
    }
    double d0 = 0.0, d1 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double sk = s->atol * dp5_scale(s, i) + s->rtol * fabs(y[i]);
        d0 += (y[i] / sk) * (y[i] / sk);
        d1 += (f0[i] / sk) * (f0[i] / sk);
    }
    d0 = sqrt(d0 / (double)n);
    d1 = sqrt(d1 / (double)n);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(h0, hmax);

    /* One explicit Euler step to estimate the second derivative. */
    double *y1 = s->ytmp, *f1 = s->k[1];
    for (size_t i = 0; i < n; ++i) y1[i] = y[i] + h0 * f0[i];
    nsdyn_status st = dp5_f(s, s->t + h0, y1, f1);
    if (st == NSDYN_REJECT_STEP) {
        /* The Euler probe left the model's domain: start with the smaller
         * guess and let the controller cut further if needed. */
        *h_out = h0;
        return NSDYN_OK;
    }
    if (st != NSDYN_OK) return st;
    double d2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double sk = s->atol * dp5_scale(s, i) + s->rtol * fabs(y[i]);
        const double r = (f1[i] - f0[i]) / sk;
        d2 += r * r;
    }
    d2 = sqrt(d2 / (double)n) / h0;
    const double m = fmax(d1, d2);
    const double h1 = (m <= 1e-15 || !isfinite(m)) ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / m, 0.2);
    double h = fmin(100.0 * h0, h1);
    h = fmin(h, hmax);
    if (!(h > 0.0) || !isfinite(h)) h = h0;
    *h_out = h;
    return NSDYN_OK;
}

/* Derivative, events and initial step at the current (t, y). */
static nsdyn_status dp5_start_at_current(dp5 *s, const char *what) {
    nsdyn_status st = dp5_f(s, s->t, s->y, s->k[0]);
    if (st == NSDYN_REJECT_STEP) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "dopri5: %s: right-hand side rejected the state at t = %.10g s", what, s->t);
        return NSDYN_ERROR;
    }
    if (st != NSDYN_OK) return NSDYN_ERROR;
    for (size_t i = 0; i < s->n; ++i) {
        if (!isfinite(s->y[i]) || !isfinite(s->k[0][i])) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "dopri5: %s: non-finite state or derivative (component %zu) at t = "
                        "%.10g s",
                        what, i, s->t);
            return NSDYN_ERROR;
        }
    }
    if (s->ne > 0 && dp5_g(s, s->t, s->y, s->g) != NSDYN_OK) return NSDYN_ERROR;
    double h = 0.0;
    if (dp5_initial_step(s, &h) != NSDYN_OK) return NSDYN_ERROR;
    s->h_next = h;
    s->errold = DP_ERROLD_MIN;
    s->reject_last = 0;
    s->dense_ok = 0;
    s->dense_prepared = 0;
    return NSDYN_OK;
}

static nsdyn_status dp5_setup(void *inst, const nsdyn_ode *ode, double t0, const double *y0,
                              double t_end) {
    dp5 *s = inst;
    dp5_reset(s);
    if (nsi_ode_copy(&s->ode, ode, s->msg, sizeof s->msg) != 0) return NSDYN_ERROR;
    s->n = s->ode.n;
    s->ne = s->ode.n_events;
    const size_t n = s->n, ne = s->ne;
    if (n > (SIZE_MAX / sizeof(double) - 5 * ne) / 14) {
        nsi_set_msg(s->msg, sizeof s->msg, "dopri5: problem size %zu too large", n);
        return NSDYN_ERROR;
    }
    s->block = malloc((14 * n + 5 * ne) * sizeof(double));
    if (s->block == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "dopri5: out of memory for %zu states", n);
        return NSDYN_ERROR;
    }
    double *p = s->block;
    s->y = p;
    p += n;
    s->ynew = p;
    p += n;
    s->ytmp = p;
    p += n;
    for (int i = 0; i < 7; ++i) {
        s->k[i] = p;
        p += n;
    }
    s->cd = p;
    p += n;
    s->cb = p;
    p += n;
    s->cc = p;
    p += n;
    s->ce = p;
    p += n;
    s->g = p;
    p += ne;
    s->gnew = p;
    p += ne;
    s->gbest = p;
    p += ne;
    s->gr = p;
    p += ne;
    s->gc = p;

    memcpy(s->y, y0, n * sizeof(double));
    s->t = t0;
    s->t_end = t_end;
    if (dp5_start_at_current(s, "setup") != NSDYN_OK) return NSDYN_ERROR;
    return NSDYN_OK;
}

static nsdyn_status dp5_restart(void *inst, double t, const double *y) {
    dp5 *s = inst;
    if (y != s->y) memmove(s->y, y, s->n * sizeof(double));
    s->t = t;
    return dp5_start_at_current(s, "restart");
}

/* ---- one attempted step ----------------------------------------------- */

/* Stages 2..7 from (t, y) with k[0] = f(t, y), step h, landing at t_land
 * (t + h, or exactly t_stop). Writes ynew and the error norm. Returns OK,
 * REJECT_STEP (rhs asked, or non-finite values) or ERROR. */
static nsdyn_status dp5_attempt(dp5 *s, double t, double h, double t_land, double *err_out) {
    const size_t n = s->n;
    const double *y = s->y;
    double *yt = s->ytmp;
    double *const *k = s->k;

    for (int st = 1; st < 7; ++st) {
        double *dst = (st == 6) ? s->ynew : yt;
        const double *a = DP_A[st];
        for (size_t i = 0; i < n; ++i) {
            double acc = 0.0;
            for (int j = 0; j < st; ++j) acc += a[j] * k[j][i];
            dst[i] = y[i] + h * acc;
        }
        const double ts = (DP_C[st] == 1.0) ? t_land : t + DP_C[st] * h;
        nsdyn_status r = dp5_f(s, ts, dst, k[st]);
        if (r == NSDYN_REJECT_STEP) {
            s->reject_why = "right-hand side rejected a stage";
            return NSDYN_REJECT_STEP;
        }
        if (r != NSDYN_OK) return NSDYN_ERROR;
    }

    const double *yn = s->ynew;
    double sum = 0.0;
    int finite = 1;
    for (size_t i = 0; i < n; ++i) {
        double e = 0.0;
        for (int j = 0; j < 7; ++j) e += DP_E[j] * k[j][i];
        e *= h;
        const double sc = s->atol * dp5_scale(s, i) + s->rtol * fmax(fabs(y[i]), fabs(yn[i]));
        const double r = e / sc;
        sum += r * r;
        if (!isfinite(yn[i]) || !isfinite(k[6][i])) finite = 0;
    }
    const double err = sqrt(sum / (double)n);
    if (!finite || !isfinite(err)) {
        s->reject_why = "non-finite state or error estimate";
        return NSDYN_REJECT_STEP;
    }
    *err_out = err;
    return NSDYN_OK;
}

/* ---- dense output ----------------------------------------------------- */

/* Build D, B, C, E of the last accepted step. Valid until the next step or
 * restart: uses ynew (old state), k[6] (old k1), k[1..5] and k[0] (f at the
 * step end) -- so this must run before k[0] is overwritten at a root. */
static void dp5_dense_prepare(dp5 *s) {
    if (s->dense_prepared) return;
    const size_t n = s->n;
    const double h = s->dh;
    const double *y0 = s->ynew, *y1 = s->y;
    const double *k1 = s->k[6], *k7 = s->k[0];
    for (size_t i = 0; i < n; ++i) {
        const double d = y1[i] - y0[i];
        s->cd[i] = d;
        s->cb[i] = h * k1[i] - d;
        s->cc[i] = 2.0 * d - h * (k1[i] + k7[i]);
        s->ce[i] = h * (DP_D[0] * k1[i] + DP_D[2] * s->k[2][i] + DP_D[3] * s->k[3][i] +
                        DP_D[4] * s->k[4][i] + DP_D[5] * s->k[5][i] + DP_D[6] * k7[i]);
    }
    s->dense_prepared = 1;
}

static void dp5_dense_eval(const dp5 *s, double t, double *out) {
    const double th = (t - s->dt0) / s->dh, th1 = 1.0 - th;
    const double *y0 = s->ynew;
    for (size_t i = 0; i < s->n; ++i)
        out[i] = y0[i] + th * (s->cd[i] + th1 * (s->cb[i] + th * (s->cc[i] + th1 * s->ce[i])));
}

static nsdyn_status dp5_dense(void *inst, double t, double *y) {
    dp5 *s = inst;
    if (t == s->t) {
        memcpy(y, s->y, s->n * sizeof(double));
        return NSDYN_OK;
    }
    const double slack = 64.0 * DBL_EPSILON * fmax(fabs(s->dt0), fabs(s->dt1));
    if (!s->dense_ok || !(t >= s->dt0 - slack && t <= s->dt1 + slack)) {
        if (s->dense_ok)
            nsi_set_msg(s->msg, sizeof s->msg,
                        "dopri5: dense(%.17g s) outside the last step [%.17g, %.17g] s", t, s->dt0,
                        s->dt1);
        else
            nsi_set_msg(s->msg, sizeof s->msg,
                        "dopri5: dense(%.17g s): no step taken since setup/restart at %.17g s", t,
                        s->t);
        return NSDYN_ERROR;
    }
    dp5_dense_prepare(s);
    dp5_dense_eval(s, t, y);
    return NSDYN_OK;
}

/* ---- event location ---------------------------------------------------- */

/* Locate the crossing of event i inside [tl, tr] where g_i(tl) = gl is on
 * the pre-crossing side and s->gbest holds all g at tr (post side or 0).
 * Illinois: regula falsi where the function value kept at an end that is
 * retained twice in a row is halved, which restores superlinear
 * convergence. On return s->gr holds all g at the returned time, which is
 * the right end of the final bracket (post side, so the crossing is not
 * seen again from there). */
static nsdyn_status dp5_locate(dp5 *s, size_t i, double tl, double gl, double tr, double *root) {
    const size_t ne = s->ne;
    memcpy(s->gr, s->gbest, ne * sizeof(double));
    double gr = s->gr[i];
    const int pre_positive = gl > 0.0;
    const double tol = DP_ROOT_RTOL * fmax(1.0, fabs(tr));
    int side = 0; /* +1: the last update moved tr, -1: moved tl */
    for (int it = 0; it < DP_ROOT_MAX_ITER && gr != 0.0 && tr - tl > tol; ++it) {
        double c = (it < DP_ROOT_ILLINOIS_ITER) ? tr - gr * (tr - tl) / (gr - gl) : 0.5 * (tl + tr);
        if (!(c > tl && c < tr)) {
            c = 0.5 * (tl + tr);
            if (!(c > tl && c < tr)) break; /* tl and tr are adjacent doubles */
        }
        dp5_dense_eval(s, c, s->ytmp);
        if (dp5_g(s, c, s->ytmp, s->gc) != NSDYN_OK) return NSDYN_ERROR;
        const double gcv = s->gc[i];
        if (gcv == 0.0 || (gcv > 0.0) != pre_positive) {
            /* root in [tl, c] */
            tr = c;
            gr = gcv;
            double *tmp = s->gr;
            s->gr = s->gc;
            s->gc = tmp;
            if (side == 1) gl *= 0.5;
            side = 1;
        } else {
            tl = c;
            gl = gcv;
            if (side == -1) gr *= 0.5;
            side = -1;
        }
    }
    *root = tr;
    return NSDYN_OK;
}

/* After an accepted step from t_old to s->t: detect, locate and move to the
 * earliest event. Sets *event to its index or -1. */
static nsdyn_status dp5_handle_events(dp5 *s, double t_old, int *event) {
    const size_t ne = s->ne;
    *event = -1;
    if (dp5_g(s, s->t, s->y, s->gnew) != NSDYN_OK) return NSDYN_ERROR;
    int any = 0;
    for (size_t i = 0; i < ne && !any; ++i)
        any = nsi_crossed(s->g[i], s->gnew[i], nsi_event_dir(&s->ode, i));
    if (!any) {
        double *tmp = s->g;
        s->g = s->gnew;
        s->gnew = tmp;
        return NSDYN_OK;
    }

    dp5_dense_prepare(s);
    const double t_end_step = s->t;
    double t_best = t_end_step;
    memcpy(s->gbest, s->gnew, ne * sizeof(double));
    int best = -1;
    for (size_t i = 0; i < ne; ++i) {
        /* crosses inside [t_old, t_best]? (gbest holds g at t_best) */
        if (!nsi_crossed(s->g[i], s->gbest[i], nsi_event_dir(&s->ode, i))) continue;
        double tr = t_best;
        if (dp5_locate(s, i, t_old, s->g[i], t_best, &tr) != NSDYN_OK) return NSDYN_ERROR;
        if (best < 0 || tr < t_best) {
            best = (int)i;
            t_best = tr;
            memcpy(s->gbest, s->gr, ne * sizeof(double));
        }
    }
    if (best < 0) /* cannot happen: `any` found a crossing over the step */
        return NSDYN_OK;

    if (t_best < t_end_step) {
        /* Continue from the root: state from the dense output, fresh FSAL
         * derivative. The dense coefficients are already built. */
        dp5_dense_eval(s, t_best, s->y);
        s->t = t_best;
        s->dt1 = t_best;
        nsdyn_status st = dp5_f(s, t_best, s->y, s->k[0]);
        if (st == NSDYN_REJECT_STEP) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "dopri5: right-hand side rejected the state at the located event %d "
                        "at t = %.10g s",
                        best, t_best);
            return NSDYN_ERROR;
        }
        if (st != NSDYN_OK) return NSDYN_ERROR;
    }
    memcpy(s->g, s->gbest, ne * sizeof(double));
    s->st.events++;
    *event = best;
    return NSDYN_OK;
}

/* ---- the step ---------------------------------------------------------- */

static nsdyn_status dp5_step(void *inst, double t_stop, nsdyn_step_report *out) {
    dp5 *s = inst;
    const double t = s->t;
    if (s->st.steps >= s->max_steps) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "dopri5: max_steps = %llu accepted steps reached at t = %.10g s",
                    (unsigned long long)s->max_steps, t);
        return NSDYN_ERROR;
    }

    double h = s->h_next;
    if (s->max_step > 0.0 && h > s->max_step) h = s->max_step;
    s->reject_why = NULL;

    double hh, t_land, err = 0.0;
    int truncated;
    for (;;) {
        double reach = DP_STRETCH * h;
        if (s->max_step > 0.0 && reach > s->max_step) reach = fmax(h, s->max_step);
        if (t_stop - t <= reach) {
            hh = t_stop - t;
            t_land = t_stop;
            truncated = 1;
        } else {
            hh = h;
            t_land = t + h;
            truncated = 0;
        }
        if (!truncated && hh < s->min_step) {
            if (s->reject_why != NULL)
                nsi_set_msg(s->msg, sizeof s->msg,
                            "dopri5: step size %.3g s fell below min_step %.3g s at t = %.10g "
                            "s (last rejection: %s)",
                            hh, s->min_step, t, s->reject_why);
            else
                nsi_set_msg(s->msg, sizeof s->msg,
                            "dopri5: step size %.3g s fell below min_step %.3g s at t = %.10g s",
                            hh, s->min_step, t);
            return NSDYN_ERROR;
        }
        if (!(t_land > t)) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "dopri5: step size %.3g s is below the time resolution at t = %.17g s", hh,
                        t);
            return NSDYN_ERROR;
        }

        nsdyn_status r = dp5_attempt(s, t, hh, t_land, &err);
        if (r == NSDYN_ERROR) return NSDYN_ERROR;
        if (r == NSDYN_REJECT_STEP) {
            s->st.rejected_steps++;
            s->reject_last = 1;
            h = 0.5 * hh;
            continue;
        }
        if (err <= 1.0) break;
        /* Error test failed: elementary controller, shrink only. */
        s->st.rejected_steps++;
        s->reject_last = 1;
        s->reject_why = "error test";
        h = hh * fmax(DP_FAC_MIN, DP_SAFETY * pow(err, -0.2));
    }

    /* Accepted: PI controller for the next step. */
    double fac;
    if (err == 0.0)
        fac = DP_FAC_MAX;
    else
        fac = DP_SAFETY * pow(err, -DP_ALPHA) * pow(s->errold, DP_BETA);
    fac = fmin(DP_FAC_MAX, fmax(DP_FAC_MIN, fac));
    if (s->reject_last) fac = fmin(fac, 1.0);
    double h_new = hh * fac;
    if (truncated && h_new < h) h_new = h; /* a short landing step says little about the next one */
    s->h_next = h_new;
    s->errold = fmax(err, DP_ERROLD_MIN);
    s->reject_last = 0;

    double *tmp = s->y;
    s->y = s->ynew;
    s->ynew = tmp; /* now the old state, kept for the dense output */
    tmp = s->k[0];
    s->k[0] = s->k[6]; /* FSAL: f at the new point */
    s->k[6] = tmp;     /* old k1, kept for the dense output */
    s->t = t_land;
    s->st.steps++;
    s->dense_ok = 1;
    s->dense_prepared = 0;
    s->dt0 = t;
    s->dh = hh;
    s->dt1 = t_land;

    int event = -1;
    if (s->ne > 0 && dp5_handle_events(s, t, &event) != NSDYN_OK) return NSDYN_ERROR;

    out->t = s->t;
    out->y = s->y;
    out->event = event;
    out->h = (s->t == t_land) ? hh : s->t - t; /* hh exactly, unless cut at a root */
    return NSDYN_OK;
}

static void dp5_stats(void *inst, nsdyn_integrator_stats *out) {
    dp5 *s = inst;
    if (s == NULL) return;
    nsi_stats_write(out, &s->st);
}

static const char *dp5_message(void *inst) {
    dp5 *s = inst;
    return s != NULL ? s->msg : "dopri5: no instance";
}

const nsdyn_integrator nsdyn_integrator_dopri5 = {
    .info = NSDYN_INTEGRATOR_INFO(.id = "dopri5", .version = "1.0.0",
                                  .summary =
                                      "adaptive Dormand-Prince 5(4), dense output, event location",
                                  NSDYN_PARAMS(dp5_params),
                                  .provides = NSDYN_CAP_ADAPTIVE_STEP | NSDYN_CAP_DENSE_OUTPUT |
                                              NSDYN_CAP_EVENT_LOCATION,
                                  .destroy = dp5_destroy, .reset = dp5_reset),
    .setup = dp5_setup,
    .step = dp5_step,
    .dense = dp5_dense,
    .restart = dp5_restart,
    .stats = dp5_stats,
    .message = dp5_message,
    .extension = dp5_extension,
};
