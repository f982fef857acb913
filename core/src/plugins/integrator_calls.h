/* The host's calls into an integrator, through one wrapper that holds the
 * call protocol of integrator.h, so no integrator repeats it (ABI 2.5):
 * setup() before step(), dense() and restart(); a step ends beyond the
 * time reached; finite times; the buffers the ABI says are given. A call
 * out of protocol is refused here with NSDYN_ERROR and a reason that
 * names the plugin and the call ("rk4: step() called before setup()"),
 * and the plugin is not called; every caller takes the reason from
 * nsd_ig_message(), which is the plugin's own message() otherwise, so a
 * failure reaches the run's result and its log the one way (runner/).
 *
 * Hot path (step, dense): a few comparisons, no allocation. */
#ifndef NSD_INTEGRATOR_CALLS_H
#define NSD_INTEGRATOR_CALLS_H

#include "nsdyn/nsdyn.h"

typedef struct nsd_ig_call {
    const nsdyn_integrator *ig;
    void *inst;    /* the integrator's instance (created, not owned here) */
    int set_up;    /* setup() succeeded since the instance was created or reset */
    int refused;   /* the last call was refused here: why holds the reason */
    double t;      /* [s] the time the integrator stands at (setup, step, restart) */
    char why[192]; /* the wrapper's reason for refusing the last call */
} nsd_ig_call;

/* Bind an integrator and its fresh (or reset) instance: nothing set up. */
void nsd_ig_bind(nsd_ig_call *c, const nsdyn_integrator *ig, void *inst);

nsdyn_status nsd_ig_setup(nsd_ig_call *c, const nsdyn_ode *ode, double t0, const double *y0,
                          double t_end);
/* Hot path: inline, so the protocol costs the runner three compares and no
 * call of its own per step; the refusal is out of line. */
nsdyn_status nsd_ig_refuse_step(nsd_ig_call *c, double t_stop, const nsdyn_step_report *out);
static inline nsdyn_status nsd_ig_step(nsd_ig_call *c, double t_stop, nsdyn_step_report *out) {
    if (__builtin_expect(!c->set_up || !out || !(t_stop > c->t), 0))
        return nsd_ig_refuse_step(c, t_stop, out);
    c->refused = 0;
    nsdyn_status st = c->ig->step(c->inst, t_stop, out);
    if (st <= NSDYN_WARNING) c->t = out->t;
    return st;
}
/* Also refused for an integrator without dense output. */
nsdyn_status nsd_ig_dense(nsd_ig_call *c, double t, double *y);
nsdyn_status nsd_ig_restart(nsd_ig_call *c, double t, const double *y);
/* Statistics (zero when the integrator keeps none). */
void nsd_ig_stats(const nsd_ig_call *c, nsdyn_integrator_stats *out);
/* The instance back to its state after create(): setup() must follow. */
void nsd_ig_reset(nsd_ig_call *c);

/* Why the last call failed: the wrapper's refusal, else the plugin's
 * message() ("" when it has none). Never NULL. */
const char *nsd_ig_message(const nsd_ig_call *c);

#endif
