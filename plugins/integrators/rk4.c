/* rk4: the classic fixed-step fourth-order Runge-Kutta method.
 *
 *   k1 = f(t, y)
 *   k2 = f(t + h/2, y + h/2 k1)
 *   k3 = f(t + h/2, y + h/2 k2)
 *   k4 = f(t + h,   y + h   k3)
 *   y+ = y + h/6 (k1 + 2 k2 + 2 k3 + k4)
 *
 * step(t_stop) steps to the next point of the grid t0 + k h (times are
 * computed from the step count, not accumulated) and never passes t_stop. When a
 * full step would leave a remainder below 1e-9 h before t_stop (rounding
 * of accumulated t), the step takes the whole remainder instead, so no
 * sliver step follows.
 *
 * Events are only detected, not located: after each step g is evaluated at
 * the new point and a sign change (filtered by event_direction, g == 0 at
 * the step start is not a crossing) is reported at the end of that step,
 * lowest event index first. If several events change sign in the same step
 * only the lowest index is reported. rk4 therefore does not claim
 * NSDYN_CAP_EVENT_LOCATION, and it has no dense output.
 *
 * NSDYN_REJECT_STEP from the right-hand side at a trial stage halves the
 * step of this call (up to RK4_MAX_HALVINGS times); the next call returns
 * to the nominal h.
 *
 * setup() checks h against the run [t0, t_end] before any step
 * (nsi_check_fixed_step): h no longer than the run, at most
 * NSI_MAX_FIXED_STEPS = 1e9 steps (t_end - t0)/h, h above the spacing of
 * doubles near t0 and t_end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrator_common.h"

#define RK4_MAX_HALVINGS 30
/* A remainder below this fraction of h is merged into the current step. */
#define RK4_SLIVER 1e-9

typedef struct rk4 {
    nsi_host host;
    double h; /* nominal step [s] */
    char msg[NSI_MSG_LEN];

    nsdyn_ode ode;
    size_t n, ne;
    double t;
    double t_base;   /* time of setup/restart or of the last off-grid step */
    uint64_t k_grid; /* full steps since t_base: t = t_base + k_grid h, no drift */
    double *y, *ynew, *ytmp, *k1, *k2, *k3, *k4; /* n each */
    double *g, *gnew;                            /* ne each */
    double *block;                               /* the single allocation */
    nsdyn_integrator_stats st;
} rk4;

static const nsdyn_param_decl rk4_params[] = {
    NSDYN_REAL_F("h", "s", 1e-3, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "fixed step size (the last step of a call may be shorter to land on t_stop)"),
};

static void *rk4_create(const void *params, const nsdyn_host *host, char *err, size_t err_len) {
    double h = ((const rk4 *)params)->h;
    if (!(h > 0.0) || !isfinite(h)) {
        nsi_set_msg(err, err_len, "rk4: h = %g s must be finite and > 0", h);
        return NULL;
    }
    return nsi_keep(params, sizeof(rk4), offsetof(rk4, host), host, "rk4", err, err_len);
}

/* h, filled by the host into rk4.h (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field rk4_fields[] = {NSDYN_FIELD(rk4, h)};
static const nsdyn_param_fields rk4_table = NSDYN_PARAM_FIELDS(rk4, rk4_fields, rk4_create);
NSDYN_FIELDS_EXTENSION(rk4_extension, rk4_table)

static void rk4_reset(void *inst) {
    rk4 *s = inst;
    if (s == NULL) return;
    free(s->block);
    s->block = NULL;
    s->y = s->ynew = s->ytmp = s->k1 = s->k2 = s->k3 = s->k4 = NULL;
    s->g = s->gnew = NULL;
    s->n = s->ne = 0;
    memset(&s->ode, 0, sizeof s->ode);
    memset(&s->st, 0, sizeof s->st);
    s->msg[0] = '\0';
}

static void rk4_destroy(void *inst) {
    rk4 *s = inst;
    if (s == NULL) return;
    rk4_reset(s);
    free(s);
}

/* Evaluate the events at (t, y) into g. */
static nsdyn_status rk4_events(rk4 *s, double t, const double *y, double *g) {
    return nsi_events(&s->ode, &s->st, s->msg, sizeof s->msg, "rk4", t, y, g);
}

static nsdyn_status rk4_setup(void *inst, const nsdyn_ode *ode, double t0, const double *y0,
                              double t_end) {
    rk4 *s = inst;
    rk4_reset(s);
    if (nsi_ode_copy(&s->ode, ode, s->msg, sizeof s->msg) != 0) return NSDYN_ERROR;
    /* The horizon bounds the work before the first step: h fits the run,
     * the step count stays within NSI_MAX_FIXED_STEPS, the time advances. */
    if (nsi_check_fixed_step("rk4", s->h, t0, t_end, s->msg, sizeof s->msg) != 0)
        return NSDYN_ERROR;
    s->n = s->ode.n;
    s->ne = s->ode.n_events;
    size_t n = s->n, ne = s->ne;
    if (n > (SIZE_MAX / sizeof(double) - 2 * ne) / 7) {
        nsi_set_msg(s->msg, sizeof s->msg, "rk4: problem size %zu too large", n);
        return NSDYN_ERROR;
    }
    s->block = malloc((7 * n + 2 * ne) * sizeof(double));
    if (s->block == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "rk4: out of memory for %zu states", n);
        return NSDYN_ERROR;
    }
    double *p = s->block;
    s->y = p;
    p += n;
    s->ynew = p;
    p += n;
    s->ytmp = p;
    p += n;
    s->k1 = p;
    p += n;
    s->k2 = p;
    p += n;
    s->k3 = p;
    p += n;
    s->k4 = p;
    p += n;
    s->g = p;
    p += ne;
    s->gnew = p;
    memcpy(s->y, y0, n * sizeof(double));
    s->t = t0;
    s->t_base = t0;
    s->k_grid = 0;
    if (ne > 0 && rk4_events(s, s->t, s->y, s->g) != NSDYN_OK) return NSDYN_ERROR;
    return NSDYN_OK;
}

/* Inlined into rk4_step(): a call level less on each of the four
 * right-hand sides of a step. */
static inline __attribute__((always_inline)) nsdyn_status rk4_f(rk4 *s, double t, const double *y,
                                                                double *ydot) {
    return nsi_rhs(&s->ode, &s->st, s->msg, sizeof s->msg, "rk4", t, y, ydot);
}

static nsdyn_status rk4_step(void *inst, double t_stop, nsdyn_step_report *out) {
    rk4 *s = inst;
    const double t = s->t;
    const size_t n = s->n;
    double *y = s->y, *yt = s->ytmp, *k1 = s->k1, *k2 = s->k2, *k3 = s->k3, *k4 = s->k4;

    /* Step size of this call and the time it lands on: the next point of
     * the grid t_base + k h (computed, not accumulated, so 2e5 steps of
     * 1e-4 s end on 20 s without a rounding sliver), or t_stop. */
    double t_grid = s->t_base + (double)(s->k_grid + 1) * s->h, h, t_land;
    int on_grid = 0;
    if (t_grid >= t_stop || t_stop - t_grid < RK4_SLIVER * s->h) {
        h = t_stop - t;
        t_land = t_stop;
    } else {
        h = t_grid - t;
        t_land = t_grid;
        on_grid = 1;
    }

    nsdyn_status st = rk4_f(s, t, y, k1);
    if (st == NSDYN_REJECT_STEP) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "rk4: right-hand side rejected the current state at t = %.10g s "
                    "(a smaller step cannot help)",
                    t);
        return NSDYN_ERROR;
    }
    if (st != NSDYN_OK) return NSDYN_ERROR;

    for (int attempt = 0;; ++attempt) {
        const double h2 = 0.5 * h;
        for (size_t i = 0; i < n; ++i) yt[i] = y[i] + h2 * k1[i];
        st = rk4_f(s, t + h2, yt, k2);
        if (st == NSDYN_OK) {
            for (size_t i = 0; i < n; ++i) yt[i] = y[i] + h2 * k2[i];
            st = rk4_f(s, t + h2, yt, k3);
        }
        if (st == NSDYN_OK) {
            for (size_t i = 0; i < n; ++i) yt[i] = y[i] + h * k3[i];
            st = rk4_f(s, t_land, yt, k4);
        }
        if (st == NSDYN_OK) break;
        if (st != NSDYN_REJECT_STEP) return NSDYN_ERROR;
        /* Recoverable: a trial stage left the model's domain. */
        s->st.rejected_steps++;
        if (attempt >= RK4_MAX_HALVINGS) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "rk4: right-hand side kept rejecting; step size %.3g s after %d "
                        "halvings at t = %.10g s",
                        h, attempt, t);
            return NSDYN_ERROR;
        }
        h *= 0.5;
        t_land = t + h;
        on_grid = 0;
    }

    const double h6 = h / 6.0;
    double *yn = s->ynew;
    for (size_t i = 0; i < n; ++i) {
        yn[i] = y[i] + h6 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
        if (!isfinite(yn[i])) {
            nsi_set_msg(s->msg, sizeof s->msg,
                        "rk4: non-finite state component %zu after the step of %.3g s at t = "
                        "%.10g s (h too large for this problem?)",
                        i, h, t);
            return NSDYN_ERROR;
        }
    }

    /* Accept. */
    s->ynew = y;
    s->y = yn;
    s->t = t_land;
    s->st.steps++;
    if (on_grid) {
        s->k_grid++;
    } else { /* a shortened step starts a new grid */
        s->t_base = t_land;
        s->k_grid = 0;
    }

    out->event = -1;
    if (s->ne > 0) {
        if (rk4_events(s, s->t, s->y, s->gnew) != NSDYN_OK) return NSDYN_ERROR;
        for (size_t i = 0; i < s->ne; ++i) {
            if (nsi_crossed(s->g[i], s->gnew[i], nsi_event_dir(&s->ode, i))) {
                out->event = (int)i;
                s->st.events++;
                break;
            }
        }
        double *tmp = s->g;
        s->g = s->gnew;
        s->gnew = tmp;
    }
    out->t = s->t;
    out->y = s->y;
    out->h = h;
    return NSDYN_OK;
}

static nsdyn_status rk4_restart(void *inst, double t, const double *y) {
    rk4 *s = inst;
    if (y != s->y) memmove(s->y, y, s->n * sizeof(double));
    s->t = t;
    s->t_base = t;
    s->k_grid = 0;
    if (s->ne > 0 && rk4_events(s, s->t, s->y, s->g) != NSDYN_OK) return NSDYN_ERROR;
    return NSDYN_OK;
}

static void rk4_stats(void *inst, nsdyn_integrator_stats *out) {
    rk4 *s = inst;
    if (s == NULL) return;
    nsi_stats_write(out, &s->st);
}

static const char *rk4_message(void *inst) {
    rk4 *s = inst;
    return s != NULL ? s->msg : "rk4: no instance";
}

const nsdyn_integrator nsdyn_integrator_rk4 = {
    .info = NSDYN_INTEGRATOR_INFO(
            .id = "rk4", .version = "1.0.0",
            .summary = "classic fixed-step 4th-order Runge-Kutta (event detection at step ends)",
            NSDYN_PARAMS(rk4_params), .provides = NSDYN_CAP_FIXED_STEP, .destroy = rk4_destroy,
            .reset = rk4_reset),
    .setup = rk4_setup,
    .step = rk4_step,
    .dense = NULL,
    .restart = rk4_restart,
    .stats = rk4_stats,
    .message = rk4_message,
    .extension = rk4_extension,
};
