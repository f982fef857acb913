/* Private helpers shared by the integrator plugins (rk4, dopri5, bdf).
 *
 * Everything here is static inline and stateless: no globals, no statics
 * with mutable state, so the threading contract of plugin.h holds.
 */
#ifndef NSDYN_INTEGRATOR_COMMON_H
#define NSDYN_INTEGRATOR_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsdyn/integrator.h"

/* Size of the instance-owned failure text buffer returned by message(). */
#define NSI_MSG_LEN 512

/* True when member `field` of a table of type `type` lies inside the
 * table's declared struct_size (ABI growth rule of plugin.h). */
#define NSI_HAS_FIELD(type, ptr, field) \
    ((size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

#if defined(__GNUC__)
#define NSI_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define NSI_PRINTF(fmt_index, first_arg)
#endif

/* Write a formatted message into an instance-owned buffer (truncates).
 * vsnprintf into a caller buffer does not allocate. */
static inline void nsi_set_msg(char *buf, size_t len, const char *fmt, ...) NSI_PRINTF(3, 4);
static inline void nsi_set_msg(char *buf, size_t len, const char *fmt, ...) {
    if (buf == NULL || len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (r < 0) buf[0] = '\0';
}

/* The host services, copied field by field so that a host compiled against
 * an older (shorter) nsdyn_host is read safely. */
typedef struct nsi_host {
    void *ctx;
    void (*log)(void *ctx, nsdyn_log_level level, const char *message);
} nsi_host;

static inline void nsi_host_copy(nsi_host *dst, const nsdyn_host *src) {
    dst->ctx = NULL;
    dst->log = NULL;
    if (src == NULL) return;
    if (NSI_HAS_FIELD(nsdyn_host, src, ctx)) dst->ctx = src->ctx;
    if (NSI_HAS_FIELD(nsdyn_host, src, log)) dst->log = src->log;
}

/* The instance of an integrator whose parameters the host filled into its
 * own struct (plugin.h NSDYN_EXT_PARAM_FIELDS): a copy of that struct
 * (size bytes; the host's block lives only during create()), the host's
 * services copied into its nsi_host at host_offset. NULL with "<who>: out
 * of memory" in err. */
static inline void *nsi_keep(const void *params, size_t size, size_t host_offset,
                             const nsdyn_host *host, const char *who, char *err, size_t err_len) {
    void *s = malloc(size);
    if (s == NULL) {
        nsi_set_msg(err, err_len, "%s: out of memory", who);
        return NULL;
    }
    memcpy(s, params, size);
    nsi_host_copy((nsi_host *)(void *)((char *)s + host_offset), host);
    return s;
}

static inline void nsi_log(const nsi_host *host, nsdyn_log_level level, const char *text) {
    if (host != NULL && host->log != NULL) host->log(host->ctx, level, text);
}

/* Copy the problem description, reading only the fields the host's
 * struct_size covers; missing optional fields stay NULL/0. Returns 0 on
 * success, -1 with a message in `msg` when the problem is unusable. */
static inline int nsi_ode_copy(nsdyn_ode *dst, const nsdyn_ode *src, char *msg, size_t msg_len) {
    memset(dst, 0, sizeof *dst);
    dst->struct_size = (uint32_t)sizeof *dst;
    if (src == NULL) {
        nsi_set_msg(msg, msg_len, "setup: no problem (ode is NULL)");
        return -1;
    }
    if (!NSI_HAS_FIELD(nsdyn_ode, src, rhs)) {
        nsi_set_msg(msg, msg_len, "setup: nsdyn_ode.struct_size %u too small",
                    (unsigned)src->struct_size);
        return -1;
    }
    dst->n = src->n;
    dst->n_events = src->n_events;
    dst->ctx = src->ctx;
    dst->rhs = src->rhs;
    if (NSI_HAS_FIELD(nsdyn_ode, src, events)) dst->events = src->events;
    if (NSI_HAS_FIELD(nsdyn_ode, src, event_direction)) dst->event_direction = src->event_direction;
    if (NSI_HAS_FIELD(nsdyn_ode, src, atol_scale)) dst->atol_scale = src->atol_scale;
    if (dst->rhs == NULL) {
        nsi_set_msg(msg, msg_len, "setup: the problem has no right-hand side");
        return -1;
    }
    if (dst->n == 0) {
        nsi_set_msg(msg, msg_len, "setup: the problem has no states (n = 0)");
        return -1;
    }
    if (dst->n_events > 0 && dst->events == NULL) {
        nsi_set_msg(msg, msg_len, "setup: %zu event functions declared but events is NULL",
                    dst->n_events);
        return -1;
    }
    if (dst->atol_scale != NULL) {
        for (size_t i = 0; i < dst->n; ++i) {
            if (!(dst->atol_scale[i] > 0.0) || !isfinite(dst->atol_scale[i])) {
                nsi_set_msg(msg, msg_len, "setup: atol_scale[%zu] = %g must be finite and > 0", i,
                            dst->atol_scale[i]);
                return -1;
            }
        }
    }
    return 0;
}

/* Direction filter of event i (NULL event_direction means "both"). */
static inline int nsi_event_dir(const nsdyn_ode *ode, size_t i) {
    return ode->event_direction != NULL ? ode->event_direction[i] : 0;
}

/* Does g going from g0 (step start) to g1 (step end) count as a crossing?
 * g0 == 0 exactly is not a crossing (the event was reported there, or the
 * run starts on the surface). g1 == 0 counts: the root is at the end. */
static inline int nsi_crossed(double g0, double g1, int dir) {
    if (g0 < 0.0 && g1 >= 0.0) return dir >= 0; /* rising */
    if (g0 > 0.0 && g1 <= 0.0) return dir <= 0; /* falling */
    return 0;
}

/* Most steps a fixed-step method (rk4, moreau) accepts for one run, its
 * (t_end - t0)/h: 1e9 steps take hours even for a small system; beyond it
 * an h is a typo (1e-12 for 1e-2) that would run for years. */
#define NSI_MAX_FIXED_STEPS 1e9

/* A fixed-step method's step h against the run [t0, t_end] it is set up
 * for, before the first step: the run must be finite and ahead, h no
 * longer than the run (a longer step is never taken whole: the first
 * step would be cut to the run, so h would mean nothing), the steps
 * (t_end - t0)/h at most NSI_MAX_FIXED_STEPS, and h above the spacing of
 * doubles near t0 and t_end (a shorter step does not advance the time at
 * all). Returns 0, or -1 with a message naming h and the run. */
static inline int nsi_check_fixed_step(const char *who, double h, double t0, double t_end,
                                       char *msg, size_t msg_len) {
    if (!isfinite(t_end) || !(t_end > t0)) {
        nsi_set_msg(msg, msg_len,
                    "%s: setup: the run must end at a finite time after t0 = %.17g s, "
                    "not at t_end = %g s",
                    who, t0, t_end);
        return -1;
    }
    const double span = t_end - t0;
    if (!isfinite(span)) {
        nsi_set_msg(msg, msg_len, "%s: setup: the run t_end - t0 = %g s - (%g s) overflows", who,
                    t_end, t0);
        return -1;
    }
    if (h > span) {
        nsi_set_msg(msg, msg_len,
                    "%s: h = %g s is longer than the run (t_end - t_start = %g s): a fixed step "
                    "must fit into the run; choose h <= %g s",
                    who, h, span, span);
        return -1;
    }
    const double steps = span / h;
    if (!(steps <= NSI_MAX_FIXED_STEPS)) {
        nsi_set_msg(msg, msg_len,
                    "%s: h = %g s needs (t_end - t_start)/h = %g s / %g s = %.3g steps, more "
                    "than the %.0e a fixed-step run may take: choose a larger h or a shorter run",
                    who, h, span, h, steps, NSI_MAX_FIXED_STEPS);
        return -1;
    }
    const double scale = fmax(fabs(t0), fabs(t_end));
    if (h < 1e-12 * scale) {
        nsi_set_msg(msg, msg_len,
                    "%s: h = %g s is below the time resolution near t = %g s (doubles there "
                    "are %g s apart): choose h >= %g s",
                    who, h, scale, nextafter(scale, HUGE_VAL) - scale, 1e-12 * scale);
        return -1;
    }
    return 0;
}

/* Is the parameter value an integer (INT parameters arrive as doubles)? */
static inline int nsi_is_integer(double v) { return isfinite(v) && floor(v) == v; }

/* Copy statistics into the host's table, writing only fields that fit in
 * the struct_size the host declared; struct_size itself is not modified. */
static inline void nsi_stats_write(nsdyn_integrator_stats *out, const nsdyn_integrator_stats *in) {
    if (out == NULL) return;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, steps)) out->steps = in->steps;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, rhs_evals)) out->rhs_evals = in->rhs_evals;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, rejected_steps))
        out->rejected_steps = in->rejected_steps;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, jacobian_evals))
        out->jacobian_evals = in->jacobian_evals;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, event_evals)) out->event_evals = in->event_evals;
    if (NSI_HAS_FIELD(nsdyn_integrator_stats, out, events)) out->events = in->events;
}

static inline const char *nsi_status_name(nsdyn_status s) {
    switch (s) {
        case NSDYN_OK: return "NSDYN_OK";
        case NSDYN_WARNING: return "NSDYN_WARNING";
        case NSDYN_REJECT_STEP: return "NSDYN_REJECT_STEP";
        case NSDYN_ERROR: return "NSDYN_ERROR";
        case NSDYN_FATAL: return "NSDYN_FATAL";
    }
    return "unknown status";
}

/* The problem's right-hand side, counted in st: OK/WARNING -> OK,
 * REJECT_STEP -> REJECT_STEP (retry smaller), anything else -> ERROR with a
 * message naming the integrator `who`. */
static inline nsdyn_status nsi_rhs(const nsdyn_ode *ode, nsdyn_integrator_stats *st, char *msg,
                                   size_t msg_len, const char *who, double t, const double *y,
                                   double *ydot) {
    st->rhs_evals++;
    nsdyn_status r = ode->rhs(ode->ctx, t, y, ydot);
    if (r == NSDYN_OK || r == NSDYN_WARNING) return NSDYN_OK;
    if (r == NSDYN_REJECT_STEP) return NSDYN_REJECT_STEP;
    nsi_set_msg(msg, msg_len, "%s: right-hand side returned %s at t = %.10g s", who,
                nsi_status_name(r), t);
    return NSDYN_ERROR;
}

/* The problem's event functions, counted in st: OK/WARNING -> OK, anything
 * else -> ERROR with a message. */
static inline nsdyn_status nsi_events(const nsdyn_ode *ode, nsdyn_integrator_stats *st, char *msg,
                                      size_t msg_len, const char *who, double t, const double *y,
                                      double *g) {
    st->event_evals++;
    nsdyn_status r = ode->events(ode->ctx, t, y, g);
    if (r == NSDYN_OK || r == NSDYN_WARNING) return NSDYN_OK;
    nsi_set_msg(msg, msg_len, "%s: event function returned %s at t = %.10g s", who,
                nsi_status_name(r), t);
    return NSDYN_ERROR;
}

#endif
