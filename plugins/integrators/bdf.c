/* bdf: variable-order (1..5) variable-step BDF from SUNDIALS CVODE 6.x,
 * for stiff problems.
 *
 * Newton iteration with a dense direct linear solver and CVODE's internal
 * difference-quotient Jacobian. The host's step() maps to one call of
 * CVode(..., CV_ONE_STEP) with the stop time set to t_stop, so no internal
 * step passes t_stop. Events are handed to CVODE's root finder
 * (CVodeRootInit, CVodeSetRootDirection); on CV_ROOT_RETURN the lowest
 * index among the simultaneous roots is reported. Dense output is
 * CVodeGetDky (the Nordsieck interpolant of the current order). restart()
 * re-initialises CVODE (CVodeReInit), which also restarts at order 1.
 *
 * Status mapping of the right-hand side: NSDYN_OK/WARNING -> 0,
 * NSDYN_REJECT_STEP -> +1 (recoverable: CVODE retries with a smaller step),
 * anything else -> -1 (unrecoverable: the step fails, step() returns
 * NSDYN_ERROR with the CVODE flag in message()).
 *
 * CVODE's diagnostics go to the host's log service through an error
 * handler, never to stderr (except failures inside CVodeCreate itself,
 * before a handler can be installed).
 *
 * Statistics accumulate over restarts (CVodeReInit zeroes CVODE's own
 * counters). rhs_evals counts the difference-quotient Jacobian evaluations
 * of f as well (CVodeGetNumRhsEvals + CVodeGetNumLinRhsEvals);
 * rejected_steps = error-test failures + nonlinear-solver convergence
 * failures. max_steps limits the accepted steps of a run (since setup).
 *
 * If the host asks for a t_stop that lies before CVODE's internal time
 * (possible only after a root return, since CVODE may have stepped past
 * the root), the state at t_stop is interpolated and CVODE is
 * re-initialised there; dense() is then valid only at the reached time.
 *
 * Integration runs forward in time only (t_stop > t).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_types.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "integrator_common.h"

#if !defined(SUNDIALS_VERSION_MAJOR) || SUNDIALS_VERSION_MAJOR != 6
#error "bdf.c is written against the SUNDIALS 6.x API"
#endif
#if !defined(SUNDIALS_DOUBLE_PRECISION)
#error "bdf.c needs SUNDIALS built with double precision"
#endif

typedef struct bdf {
    nsi_host host;
    double rtol, atol, max_step, nonlin_conv_coef;
    int max_order;
    double max_steps_declared; /* the INT parameter (up to 1e15), as the host fills it */
    uint64_t max_steps;
    char msg[NSI_MSG_LEN];
    char cv_text[NSI_MSG_LEN]; /* last error text CVODE handed to the handler */

    nsdyn_ode ode;
    size_t n, ne;
    SUNContext sunctx;
    void *cv;
    N_Vector y, dky;
    SUNMatrix A;
    SUNLinearSolver LS;
    int *rootsfound, *rootdir;

    double t, t_prev;        /* reached time; start of the last reported step */
    int dense_ok;            /* dense() valid on [t_prev, t] */
    nsdyn_status rhs_status; /* last unrecoverable status of f or g */
    double rhs_fail_t;
    const char *fail_what;       /* "right-hand side" or "event function" */
    nsdyn_integrator_stats base; /* counters of CVODE lifetimes before ReInit */
    uint64_t events;
} bdf;

static const nsdyn_param_decl bdf_params[] = {
    NSDYN_REAL_F("rtol", "1", 1e-6, 0.0, 1.0, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "relative tolerance of the local error"),
    NSDYN_REAL_F("atol", "1", 1e-9, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "absolute tolerance (in state units, times the problem's atol_scale)"),
    NSDYN_REAL("max_step", "s", 0.0, 0.0, HUGE_VAL, "largest step; 0 = unlimited"),
    NSDYN_INT("max_order", "1", 5.0, 1.0, 5.0,
              "highest BDF order (lower it for better stability on oscillatory "
              "stiff problems)"),
    NSDYN_INT("max_steps", "1", 1e6, 1.0, 1e15, "most accepted steps per run (setup to reset)"),
    /* CVODE's safety factor in the Newton convergence test (CVodeSetNonlinConvCoef;
     * CVODE's default 0.1). With stiff contact the default lets Newton errors
     * of about a tenth of the tolerance through in every step: on the walker
     * at rtol 1e-6, 0.01 cuts the leg-angle error from 2.2e-5 to 7.4e-6 rad at
     * about the same cost (bench/README.md). */
    NSDYN_REAL_F("nonlin_conv_coef", "1", 0.1, 0.0, 1.0, NSDYN_PARAM_MIN_EXCLUSIVE,
                 "Newton convergence test coefficient (CVODE's default 0.1; smaller "
                 "is stricter)"),
};

/* CVODE flag names, as CVodeGetReturnFlagName prints them. Kept here
 * because CVodeGetReturnFlagName returns malloc'ed text and step() must not
 * allocate. */
static const char *bdf_flag_name(int flag) {
    switch (flag) {
        case CV_SUCCESS: return "CV_SUCCESS";
        case CV_TSTOP_RETURN: return "CV_TSTOP_RETURN";
        case CV_ROOT_RETURN: return "CV_ROOT_RETURN";
        case CV_WARNING: return "CV_WARNING";
        case CV_TOO_MUCH_WORK: return "CV_TOO_MUCH_WORK";
        case CV_TOO_MUCH_ACC: return "CV_TOO_MUCH_ACC";
        case CV_ERR_FAILURE: return "CV_ERR_FAILURE";
        case CV_CONV_FAILURE: return "CV_CONV_FAILURE";
        case CV_LINIT_FAIL: return "CV_LINIT_FAIL";
        case CV_LSETUP_FAIL: return "CV_LSETUP_FAIL";
        case CV_LSOLVE_FAIL: return "CV_LSOLVE_FAIL";
        case CV_RHSFUNC_FAIL: return "CV_RHSFUNC_FAIL";
        case CV_FIRST_RHSFUNC_ERR: return "CV_FIRST_RHSFUNC_ERR";
        case CV_REPTD_RHSFUNC_ERR: return "CV_REPTD_RHSFUNC_ERR";
        case CV_UNREC_RHSFUNC_ERR: return "CV_UNREC_RHSFUNC_ERR";
        case CV_RTFUNC_FAIL: return "CV_RTFUNC_FAIL";
        case CV_NLS_INIT_FAIL: return "CV_NLS_INIT_FAIL";
        case CV_NLS_SETUP_FAIL: return "CV_NLS_SETUP_FAIL";
        case CV_CONSTR_FAIL: return "CV_CONSTR_FAIL";
        case CV_NLS_FAIL: return "CV_NLS_FAIL";
        case CV_MEM_FAIL: return "CV_MEM_FAIL";
        case CV_MEM_NULL: return "CV_MEM_NULL";
        case CV_ILL_INPUT: return "CV_ILL_INPUT";
        case CV_NO_MALLOC: return "CV_NO_MALLOC";
        case CV_BAD_K: return "CV_BAD_K";
        case CV_BAD_T: return "CV_BAD_T";
        case CV_BAD_DKY: return "CV_BAD_DKY";
        case CV_TOO_CLOSE: return "CV_TOO_CLOSE";
        case CV_VECTOROP_ERR: return "CV_VECTOROP_ERR";
        case CV_PROJ_MEM_NULL: return "CV_PROJ_MEM_NULL";
        case CV_PROJFUNC_FAIL: return "CV_PROJFUNC_FAIL";
        case CV_REPTD_PROJFUNC_ERR: return "CV_REPTD_PROJFUNC_ERR";
        case CV_CONTEXT_ERR: return "CV_CONTEXT_ERR";
        case CV_UNRECOGNIZED_ERR: return "CV_UNRECOGNIZED_ERR";
        default: return "CV_UNKNOWN_FLAG";
    }
}

/* ---- CVODE callbacks --------------------------------------------------- */

static int bdf_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
    bdf *s = user_data;
    nsdyn_status st = s->ode.rhs(s->ode.ctx, t, NV_DATA_S(y), NV_DATA_S(ydot));
    if (st == NSDYN_OK || st == NSDYN_WARNING) return 0;
    if (st == NSDYN_REJECT_STEP) return 1; /* recoverable */
    s->rhs_status = st;
    s->rhs_fail_t = t;
    s->fail_what = "right-hand side";
    return -1;
}

static int bdf_roots(sunrealtype t, N_Vector y, sunrealtype *gout, void *user_data) {
    bdf *s = user_data;
    nsdyn_status st = s->ode.events(s->ode.ctx, t, NV_DATA_S(y), gout);
    if (st == NSDYN_OK || st == NSDYN_WARNING) return 0;
    s->rhs_status = st;
    s->rhs_fail_t = t;
    s->fail_what = "event function";
    return -1;
}

/* Forward CVODE's diagnostics to the host log (no stderr). */
static void bdf_err_handler(int error_code, const char *module, const char *function, char *msg,
                            void *eh_data) {
    bdf *s = eh_data;
    char line[NSI_MSG_LEN];
    nsi_set_msg(line, sizeof line, "bdf: %s %s (%s): %s", module ? module : "CVODE",
                function ? function : "?", bdf_flag_name(error_code), msg ? msg : "");
    const int warning = error_code == CV_WARNING;
    nsi_log(&s->host, warning ? NSDYN_LOG_WARNING : NSDYN_LOG_ERROR, line);
    if (!warning) nsi_set_msg(s->cv_text, sizeof s->cv_text, "%s", msg ? msg : "");
}

/* ---- life cycle -------------------------------------------------------- */

static void *bdf_create(const void *params, const nsdyn_host *host, char *err, size_t err_len) {
    const bdf *p = params;
    const double rtol = p->rtol, atol = p->atol, max_step = p->max_step;
    const int max_order = p->max_order;
    const double max_steps = p->max_steps_declared;
    if (!(rtol > 0.0 && rtol <= 1.0)) {
        nsi_set_msg(err, err_len, "bdf: rtol = %g must lie in (0, 1]", rtol);
        return NULL;
    }
    if (!(atol > 0.0) || !isfinite(atol)) {
        nsi_set_msg(err, err_len, "bdf: atol = %g must be finite and > 0", atol);
        return NULL;
    }
    if (!(max_step >= 0.0) || !isfinite(max_step)) {
        nsi_set_msg(err, err_len, "bdf: max_step = %g s must be finite and >= 0", max_step);
        return NULL;
    }
    if (max_order < 1 || max_order > 5) {
        nsi_set_msg(err, err_len, "bdf: max_order = %d must be an integer in [1, 5]", max_order);
        return NULL;
    }
    /* 1e15 < LONG_MAX on LP64; CVodeSetMaxNumSteps takes a long. */
    if (!nsi_is_integer(max_steps) || max_steps < 1.0 || max_steps > 1e15) {
        nsi_set_msg(err, err_len, "bdf: max_steps = %g must be an integer in [1, 1e15]", max_steps);
        return NULL;
    }
    bdf *s = nsi_keep(params, sizeof *s, offsetof(bdf, host), host, "bdf", err, err_len);
    if (s != NULL) s->max_steps = (uint64_t)max_steps;
    return s;
}

/* The parameters, filled by the host into bdf (plugin.h NSDYN_EXT_PARAM_FIELDS). */
static const nsdyn_param_field bdf_fields[] = {NSDYN_FIELD(bdf, rtol),
                                               NSDYN_FIELD(bdf, atol),
                                               NSDYN_FIELD(bdf, max_step),
                                               NSDYN_FIELD(bdf, max_order),
                                               NSDYN_FIELD_AS(bdf, max_steps_declared, "max_steps"),
                                               NSDYN_FIELD(bdf, nonlin_conv_coef)};
static const nsdyn_param_fields bdf_table = NSDYN_PARAM_FIELDS(bdf, bdf_fields, bdf_create);
NSDYN_FIELDS_EXTENSION(bdf_extension, bdf_table)

static void bdf_reset(void *inst) {
    bdf *s = inst;
    if (s == NULL) return;
    if (s->cv != NULL) CVodeFree(&s->cv);
    s->cv = NULL;
    if (s->LS != NULL) (void)SUNLinSolFree(s->LS);
    s->LS = NULL;
    if (s->A != NULL) SUNMatDestroy(s->A);
    s->A = NULL;
    if (s->y != NULL) N_VDestroy(s->y);
    s->y = NULL;
    if (s->dky != NULL) N_VDestroy(s->dky);
    s->dky = NULL;
    if (s->sunctx != NULL) (void)SUNContext_Free(&s->sunctx);
    s->sunctx = NULL;
    free(s->rootsfound);
    free(s->rootdir);
    s->rootsfound = s->rootdir = NULL;
    s->dense_ok = 0;
    s->n = s->ne = 0;
    memset(&s->ode, 0, sizeof s->ode);
    memset(&s->base, 0, sizeof s->base);
    s->events = 0;
    s->msg[0] = '\0';
    s->cv_text[0] = '\0';
}

static void bdf_destroy(void *inst) {
    bdf *s = inst;
    if (s == NULL) return;
    bdf_reset(s);
    free(s);
}

/* Record a failed CVODE set-up call; always returns NSDYN_ERROR. */
static nsdyn_status bdf_setup_fail(bdf *s, const char *call, int flag) {
    if (s->cv_text[0] != '\0')
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: %s failed: %s: %s", call, bdf_flag_name(flag),
                    s->cv_text);
    else
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: %s failed: %s", call, bdf_flag_name(flag));
    return NSDYN_ERROR;
}

#define BDF_CHECK(call_expr, name)                               \
    do {                                                         \
        int flag_ = (call_expr);                                 \
        if (flag_ != 0) return bdf_setup_fail(s, (name), flag_); \
    } while (0)

static nsdyn_status bdf_setup(void *inst, const nsdyn_ode *ode, double t0, const double *y0,
                              double t_end) {
    bdf *s = inst;
    bdf_reset(s);
    (void)t_end; /* CVODE estimates its initial step from each call's t_stop */
    if (nsi_ode_copy(&s->ode, ode, s->msg, sizeof s->msg) != 0) return NSDYN_ERROR;
    s->n = s->ode.n;
    s->ne = s->ode.n_events;
    const size_t n = s->n, ne = s->ne;
    if (n > (size_t)INT32_MAX || ne > (size_t)INT32_MAX) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: problem size %zu too large", n);
        return NSDYN_ERROR;
    }
    const sunindextype nn = (sunindextype)n;

    BDF_CHECK(SUNContext_Create(NULL, &s->sunctx), "SUNContext_Create");
    s->y = N_VNew_Serial(nn, s->sunctx);
    s->dky = N_VNew_Serial(nn, s->sunctx);
    if (s->y == NULL || s->dky == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: out of memory (N_VNew_Serial, n = %zu)", n);
        return NSDYN_ERROR;
    }
    memcpy(NV_DATA_S(s->y), y0, n * sizeof(double));

    s->cv = CVodeCreate(CV_BDF, s->sunctx);
    if (s->cv == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: CVodeCreate failed (out of memory?)");
        return NSDYN_ERROR;
    }
    BDF_CHECK(CVodeSetErrHandlerFn(s->cv, bdf_err_handler, s), "CVodeSetErrHandlerFn");
    BDF_CHECK(CVodeInit(s->cv, bdf_rhs, t0, s->y), "CVodeInit");
    BDF_CHECK(CVodeSetUserData(s->cv, s), "CVodeSetUserData");
    if (s->ode.atol_scale != NULL) {
        N_Vector av = N_VNew_Serial(nn, s->sunctx);
        if (av == NULL) {
            nsi_set_msg(s->msg, sizeof s->msg, "bdf: out of memory (tolerance vector)");
            return NSDYN_ERROR;
        }
        for (size_t i = 0; i < n; ++i) NV_DATA_S(av)[i] = s->atol * s->ode.atol_scale[i];
        int flag = CVodeSVtolerances(s->cv, s->rtol, av); /* CVODE keeps a copy */
        N_VDestroy(av);
        if (flag != CV_SUCCESS) return bdf_setup_fail(s, "CVodeSVtolerances", flag);
    } else {
        BDF_CHECK(CVodeSStolerances(s->cv, s->rtol, s->atol), "CVodeSStolerances");
    }
    s->A = SUNDenseMatrix(nn, nn, s->sunctx);
    if (s->A == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: out of memory (SUNDenseMatrix %zu x %zu)", n, n);
        return NSDYN_ERROR;
    }
    s->LS = SUNLinSol_Dense(s->y, s->A, s->sunctx);
    if (s->LS == NULL) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: SUNLinSol_Dense failed");
        return NSDYN_ERROR;
    }
    /* No Jacobian function: CVODE uses difference quotients. */
    BDF_CHECK(CVodeSetLinearSolver(s->cv, s->LS, s->A), "CVodeSetLinearSolver");
    BDF_CHECK(CVodeSetMaxStep(s->cv, s->max_step), "CVodeSetMaxStep"); /* 0 = unlimited */
    BDF_CHECK(CVodeSetMaxNumSteps(s->cv, (long int)s->max_steps), "CVodeSetMaxNumSteps");
    BDF_CHECK(CVodeSetMaxOrd(s->cv, s->max_order), "CVodeSetMaxOrd");
    BDF_CHECK(CVodeSetNonlinConvCoef(s->cv, s->nonlin_conv_coef), "CVodeSetNonlinConvCoef");
    if (ne > 0) {
        s->rootsfound = calloc(ne, sizeof(int));
        s->rootdir = calloc(ne, sizeof(int));
        if (s->rootsfound == NULL || s->rootdir == NULL) {
            nsi_set_msg(s->msg, sizeof s->msg, "bdf: out of memory (%zu events)", ne);
            return NSDYN_ERROR;
        }
        for (size_t i = 0; i < ne; ++i) {
            const int d = nsi_event_dir(&s->ode, i);
            s->rootdir[i] = d > 0 ? 1 : (d < 0 ? -1 : 0);
        }
        BDF_CHECK(CVodeRootInit(s->cv, (int)ne, bdf_roots), "CVodeRootInit");
        BDF_CHECK(CVodeSetRootDirection(s->cv, s->rootdir), "CVodeSetRootDirection");
        /* g == 0 at the start is expected after an event: no warning. */
        BDF_CHECK(CVodeSetNoInactiveRootWarn(s->cv), "CVodeSetNoInactiveRootWarn");
    }
    s->t = s->t_prev = t0;
    s->dense_ok = 0;
    return NSDYN_OK;
}

/* ---- statistics -------------------------------------------------------- */

/* CVODE's counters of the current lifetime (since CVodeInit/ReInit). */
static void bdf_current_counts(bdf *s, nsdyn_integrator_stats *c) {
    memset(c, 0, sizeof *c);
    if (s->cv == NULL) return;
    long int nst = 0, nfe = 0, nfels = 0, netf = 0, ncfn = 0, nje = 0, nge = 0;
    if (CVodeGetNumSteps(s->cv, &nst) != CV_SUCCESS) nst = 0;
    if (CVodeGetNumRhsEvals(s->cv, &nfe) != CV_SUCCESS) nfe = 0;
    if (CVodeGetNumLinRhsEvals(s->cv, &nfels) != CV_SUCCESS) nfels = 0;
    if (CVodeGetNumErrTestFails(s->cv, &netf) != CV_SUCCESS) netf = 0;
    if (CVodeGetNumNonlinSolvConvFails(s->cv, &ncfn) != CV_SUCCESS) ncfn = 0;
    if (CVodeGetNumJacEvals(s->cv, &nje) != CV_SUCCESS) nje = 0;
    if (s->ne > 0 && CVodeGetNumGEvals(s->cv, &nge) != CV_SUCCESS) nge = 0;
    c->steps = (uint64_t)nst;
    c->rhs_evals = (uint64_t)nfe + (uint64_t)nfels;
    c->rejected_steps = (uint64_t)netf + (uint64_t)ncfn;
    c->jacobian_evals = (uint64_t)nje;
    c->event_evals = (uint64_t)nge;
}

static void bdf_stats(void *inst, nsdyn_integrator_stats *out) {
    bdf *s = inst;
    if (s == NULL) return;
    nsdyn_integrator_stats c;
    bdf_current_counts(s, &c);
    c.struct_size = (uint32_t)sizeof c;
    c.steps += s->base.steps;
    c.rhs_evals += s->base.rhs_evals;
    c.rejected_steps += s->base.rejected_steps;
    c.jacobian_evals += s->base.jacobian_evals;
    c.event_evals += s->base.event_evals;
    c.events = s->events;
    nsi_stats_write(out, &c);
}

/* ---- stepping ---------------------------------------------------------- */

/* Re-initialise CVODE at (t, s->y), keeping the statistics. */
static nsdyn_status bdf_reinit(bdf *s, double t) {
    nsdyn_integrator_stats c;
    bdf_current_counts(s, &c);
    s->base.steps += c.steps;
    s->base.rhs_evals += c.rhs_evals;
    s->base.rejected_steps += c.rejected_steps;
    s->base.jacobian_evals += c.jacobian_evals;
    s->base.event_evals += c.event_evals;
    s->cv_text[0] = '\0';
    int flag = CVodeReInit(s->cv, t, s->y);
    if (flag != CV_SUCCESS) return bdf_setup_fail(s, "CVodeReInit", flag);
    s->t = s->t_prev = t;
    s->dense_ok = 0;
    return NSDYN_OK;
}

static nsdyn_status bdf_fail(bdf *s, int flag) {
    sunrealtype tcur = NAN, hcur = NAN;
    if (CVodeGetCurrentTime(s->cv, &tcur) != CV_SUCCESS) tcur = NAN;
    if (CVodeGetCurrentStep(s->cv, &hcur) != CV_SUCCESS) hcur = NAN;
    char extra[NSI_MSG_LEN];
    extra[0] = '\0';
    if (s->rhs_status != NSDYN_OK)
        nsi_set_msg(extra, sizeof extra, "; %s returned %s at t = %.10g s",
                    s->fail_what ? s->fail_what : "callback", nsi_status_name(s->rhs_status),
                    s->rhs_fail_t);
    nsi_set_msg(s->msg, sizeof s->msg, "CVODE: %s at t = %.10g s (step size %.3g s)%s%s%s",
                bdf_flag_name(flag), tcur, hcur, extra, s->cv_text[0] ? ": " : "", s->cv_text);
    return NSDYN_ERROR;
}

static nsdyn_status bdf_step(void *inst, double t_stop, nsdyn_step_report *out) {
    bdf *s = inst;
    const double t = s->t;
    long int nst = 0;
    if (CVodeGetNumSteps(s->cv, &nst) != CV_SUCCESS) nst = 0;
    if (s->base.steps + (uint64_t)nst >= s->max_steps) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "bdf: max_steps = %llu accepted steps reached at t = %.10g s",
                    (unsigned long long)s->max_steps, t);
        return NSDYN_ERROR;
    }
    sunrealtype tn = t;
    if (CVodeGetCurrentTime(s->cv, &tn) != CV_SUCCESS) tn = t;

    s->rhs_status = NSDYN_OK;
    s->fail_what = NULL;
    s->cv_text[0] = '\0';
    const int behind = t_stop < tn; /* CVODE already stepped past t_stop */
    if (!behind) {
        int flag = CVodeSetStopTime(s->cv, t_stop);
        if (flag != CV_SUCCESS) return bdf_fail(s, flag);
    }
    sunrealtype tret = t;
    int flag = CVode(s->cv, t_stop, s->y, &tret, CV_ONE_STEP);
    if (flag < 0) return bdf_fail(s, flag);

    if (!(tret > t)) {
        /* CVODE "succeeded" without advancing: its step size is below the
         * resolution of t (it only warns, t + h == t, and would go on
         * updating y at a frozen t). Stop the run instead of looping. */
        sunrealtype hlast = NAN;
        if (CVodeGetLastStep(s->cv, &hlast) != CV_SUCCESS) hlast = NAN;
        nsi_set_msg(s->msg, sizeof s->msg,
                    "CVODE: no progress: step size %.3g s is below the time resolution at t = "
                    "%.10g s (solution blowing up or too stiff for the tolerances?)",
                    hlast, t);
        return NSDYN_ERROR;
    }

    int event = -1;
    if (behind && tret > t_stop) {
        /* No root before t_stop: interpolate there and restart CVODE. */
        flag = CVodeGetDky(s->cv, t_stop, 0, s->y);
        if (flag != CV_SUCCESS) return bdf_fail(s, flag);
        if (bdf_reinit(s, t_stop) != NSDYN_OK) return NSDYN_ERROR;
        s->t_prev = t;
        s->dense_ok = 0;
        tret = t_stop;
    } else {
        if (flag == CV_ROOT_RETURN) {
            flag = CVodeGetRootInfo(s->cv, s->rootsfound);
            if (flag != CV_SUCCESS) return bdf_fail(s, flag);
            for (size_t i = 0; i < s->ne; ++i) {
                if (s->rootsfound[i] != 0) {
                    event = (int)i;
                    break;
                }
            }
            if (event >= 0) s->events++;
        }
        s->t_prev = t;
        s->dense_ok = 1;
    }
    s->t = tret;
    out->t = tret;
    out->y = NV_DATA_S(s->y);
    out->event = event;
    out->h = tret - t;
    return NSDYN_OK;
}

static nsdyn_status bdf_dense(void *inst, double t, double *y) {
    bdf *s = inst;
    if (t == s->t) {
        memcpy(y, NV_DATA_S(s->y), s->n * sizeof(double));
        return NSDYN_OK;
    }
    const double slack = 64.0 * DBL_EPSILON * fmax(fabs(s->t_prev), fabs(s->t));
    if (!s->dense_ok || !(t >= s->t_prev - slack && t <= s->t + slack)) {
        nsi_set_msg(s->msg, sizeof s->msg,
                    "bdf: dense(%.17g s) outside the last step [%.17g, %.17g] s%s", t, s->t_prev,
                    s->t, s->dense_ok ? "" : " (no interpolant since setup/restart)");
        return NSDYN_ERROR;
    }
    s->cv_text[0] = '\0';
    int flag = CVodeGetDky(s->cv, t, 0, s->dky);
    if (flag != CV_SUCCESS) {
        nsi_set_msg(s->msg, sizeof s->msg, "bdf: CVodeGetDky(%.17g s) failed: %s%s%s", t,
                    bdf_flag_name(flag), s->cv_text[0] ? ": " : "", s->cv_text);
        return NSDYN_ERROR;
    }
    memcpy(y, NV_DATA_S(s->dky), s->n * sizeof(double));
    return NSDYN_OK;
}

static nsdyn_status bdf_restart(void *inst, double t, const double *y) {
    bdf *s = inst;
    double *yy = NV_DATA_S(s->y);
    if (y != yy) memmove(yy, y, s->n * sizeof(double));
    return bdf_reinit(s, t);
}

static const char *bdf_message(void *inst) {
    bdf *s = inst;
    return s != NULL ? s->msg : "bdf: no instance";
}

static const nsdyn_integrator bdf_descriptor = {
    .info = NSDYN_INTEGRATOR_INFO(.id = "bdf", .version = "1.0.0",
                                  .summary = "SUNDIALS CVODE variable-order BDF for stiff problems",
                                  NSDYN_PARAMS(bdf_params),
                                  .provides = NSDYN_CAP_ADAPTIVE_STEP | NSDYN_CAP_DENSE_OUTPUT |
                                              NSDYN_CAP_EVENT_LOCATION | NSDYN_CAP_STIFF,
                                  .destroy = bdf_destroy, .reset = bdf_reset),
    .setup = bdf_setup,
    .step = bdf_step,
    .dense = bdf_dense,
    .restart = bdf_restart,
    .stats = bdf_stats,
    .message = bdf_message,
    .extension = bdf_extension,
};

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index);

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    return index == 0 ? &bdf_descriptor.info : NULL;
}
