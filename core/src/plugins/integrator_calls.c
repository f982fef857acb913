/* The call protocol of integrator.h, held once on the host's side
 * (integrator_calls.h); the integrators check only what is their own
 * (a step size against the run, a dense time inside their last step). */
#include "integrator_calls.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void nsd_ig_bind(nsd_ig_call *c, const nsdyn_integrator *ig, void *inst) {
    memset(c, 0, sizeof *c);
    c->ig = ig;
    c->inst = inst;
}

/* Refuse the call: NSDYN_ERROR with the reason, naming the plugin. */
__attribute__((format(printf, 2, 3))) static nsdyn_status refuse(nsd_ig_call *c, const char *fmt,
                                                                 ...) {
    int k = snprintf(c->why, sizeof c->why, "%s: ", c->ig ? c->ig->info.id : "integrator");
    if (k < 0 || (size_t)k >= sizeof c->why) k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why + k, sizeof c->why - (size_t)k, fmt, ap);
    va_end(ap);
    c->refused = 1;
    return NSDYN_ERROR;
}

/* The checks every call shares: an instance, and setup() done. */
static int ready(nsd_ig_call *c, const char *call) {
    c->refused = 0;
    if (!c->ig || !c->inst) return refuse(c, "%s() without an instance", call), 0;
    if (!c->set_up) return refuse(c, "%s() called before setup()", call), 0;
    return 1;
}

nsdyn_status nsd_ig_setup(nsd_ig_call *c, const nsdyn_ode *ode, double t0, const double *y0,
                          double t_end) {
    c->refused = 0;
    c->set_up = 0;
    if (!c->ig || !c->inst) return refuse(c, "setup() without an instance");
    if (!ode) return refuse(c, "setup: no problem (ode is NULL)");
    if (!y0 || !isfinite(t0) || !isfinite(t_end))
        return refuse(c, "setup needs a finite t0, t_end and y0");
    nsdyn_status st = c->ig->setup(c->inst, ode, t0, y0, t_end);
    if (st > NSDYN_WARNING) return st;
    c->set_up = 1;
    c->t = t0;
    return st;
}

nsdyn_status nsd_ig_refuse_step(nsd_ig_call *c, double t_stop, const nsdyn_step_report *out) {
    if (!ready(c, "step")) return NSDYN_ERROR;
    if (!out) return refuse(c, "step() without a report");
    return refuse(c, "t_stop = %.17g s is not beyond the current time %.17g s", t_stop, c->t);
}

nsdyn_status nsd_ig_dense(nsd_ig_call *c, double t, double *y) {
    if (!ready(c, "dense")) return NSDYN_ERROR;
    if (!c->ig->dense || !(c->ig->info.provides & NSDYN_CAP_DENSE_OUTPUT))
        return refuse(c, "dense() asked of an integrator without dense output");
    if (!y || !isfinite(t)) return refuse(c, "dense() needs a finite t and a buffer");
    return c->ig->dense(c->inst, t, y);
}

nsdyn_status nsd_ig_restart(nsd_ig_call *c, double t, const double *y) {
    if (!ready(c, "restart")) return NSDYN_ERROR;
    if (!y || !isfinite(t)) return refuse(c, "restart needs a finite t and a state");
    nsdyn_status st = c->ig->restart(c->inst, t, y);
    if (st <= NSDYN_WARNING) c->t = t;
    return st;
}

void nsd_ig_stats(const nsd_ig_call *c, nsdyn_integrator_stats *out) {
    memset(out, 0, sizeof *out);
    out->struct_size = (uint32_t)sizeof *out;
    if (c->ig && c->inst && c->ig->stats) c->ig->stats(c->inst, out);
}

void nsd_ig_reset(nsd_ig_call *c) {
    if (c->ig && c->inst && c->ig->info.reset) c->ig->info.reset(c->inst);
    c->set_up = 0;
    c->refused = 0;
}

const char *nsd_ig_message(const nsd_ig_call *c) {
    if (c->refused) return c->why;
    const char *m = c->ig && c->inst && c->ig->message ? c->ig->message(c->inst) : NULL;
    return m ? m : "";
}
