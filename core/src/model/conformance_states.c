/* The random-state checks of a system (conformance_internal.h): the
 * driver, the counts of the layout against every buffer the host hands a
 * callback, and the names the layout refers to. The kinematics at each
 * state are in conformance_motion.c.
 *
 * The counts are checked with guard values: every buffer the host passes
 * is followed by NSD_CF_GUARD entries. An output buffer's guards hold a
 * sentinel; a callback that changes one writes past the count the layout
 * declares (nq = 2 while initial_state() fills three coordinates). An
 * input's guards are zero in one call and NaN in another; a callback
 * whose result differs reads past the count. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_system.h"
#include "contact_eval.h"

enum { MAXN = NSD_CF_MAXN, MAXC = NSD_CF_MAXC, MAXO = NSD_CF_MAXOUT, G = NSD_CF_GUARD };
#define SENTINEL (-1.2345678901234567e301)

/* ---- guards ------------------------------------------------------------ */

/* Every buffer of one round of calls (derivatives, contacts, outputs,
 * stops, switches), each with G guard entries. */
typedef struct io {
    double q[MAXN + G], v[MAXN + G], f[3 * MAXC + G];
    double qd[MAXN + G], vd[MAXN + G], out[MAXO + G], stop[MAXO + G], sw[MAXO + G];
    double jac[MAXC][3 * MAXN + G];
    nsdyn_contact_eval ev[MAXC + 1];
} io;

static void fill(double *x, size_t n, double value) {
    for (size_t i = 0; i < n; ++i) x[i] = value;
}

/* The first guard past n that no longer holds the sentinel, or -1. */
static long guard_hit(const double *x, size_t n) {
    const double s = SENTINEL;
    for (size_t i = 0; i < G; ++i)
        if (memcmp(&x[n + i], &s, sizeof s) != 0) return (long)(n + i);
    return -1;
}

/* One round of calls on b; the output buffers' guards set first. */
static void call_all(nsd_cf_sys *y, double t, io *b) {
    const nsdyn_system_layout *L = y->L;
    const nsdyn_system *s = y->s;
    fill(b->qd, MAXN + G, SENTINEL), fill(b->vd, MAXN + G, SENTINEL);
    fill(b->out, MAXO + G, SENTINEL), fill(b->stop, MAXO + G, SENTINEL);
    fill(b->sw, MAXO + G, SENTINEL);
    double *jac[MAXC];
    for (size_t k = 0; k < MAXC; ++k) fill(b->jac[k], 3 * MAXN + G, SENTINEL), jac[k] = b->jac[k];
    memset(b->ev, 0x5a, sizeof b->ev);
    nsd_cf_at(y->c, "derivatives()");
    s->derivatives(y->inst, t, b->q, b->v, b->f, b->qd, b->vd);
    nsd_cf_at(y->c, "contacts()");
    nsd_contacts_evaluate(s, y->inst, t, b->q, b->v, L->n_contacts, 1, jac, b->ev);
    if (L->n_outputs && s->outputs) {
        nsd_cf_at(y->c, "outputs()");
        s->outputs(y->inst, t, b->q, b->v, b->f, b->out);
    }
    if (L->n_stops && s->stops) {
        nsd_cf_at(y->c, "stops()");
        s->stops(y->inst, t, b->q, b->v, b->stop);
    }
    if (L->n_switches && s->switches) {
        nsd_cf_at(y->c, "switches()");
        s->switches(y->inst, t, b->q, b->v, b->f, b->sw);
    }
}

static void report_write(nsd_cf_sys *y, const char *cb, const char *buf, long at, size_t n,
                         const char *count) {
    if (at >= 0)
        nsd_cf_finding(y->c, "%s writes %s[%ld], past %s = %zu (its buffer has %zu entries)", cb,
                       buf, at, count, n, n);
}

static void check_writes(nsd_cf_sys *y, const io *b) {
    const nsdyn_system_layout *L = y->L;
    report_write(y, "derivatives()", "qdot", guard_hit(b->qd, L->nq), L->nq, "nq");
    report_write(y, "derivatives()", "vdot", guard_hit(b->vd, L->nv), L->nv, "nv");
    report_write(y, "outputs()", "out", guard_hit(b->out, L->n_outputs), L->n_outputs, "n_outputs");
    report_write(y, "stops()", "g", guard_hit(b->stop, L->n_stops), L->n_stops, "n_stops");
    report_write(y, "switches()", "g", guard_hit(b->sw, L->n_switches), L->n_switches,
                 "n_switches");
    for (size_t k = 0; k < L->n_contacts; ++k) {
        long at = guard_hit(b->jac[k], 3 * L->nv);
        if (at >= 0)
            nsd_cf_finding(y->c,
                           "contacts() writes entry %ld of contact '%s''s Jacobian buffer, "
                           "past 3 x nv = %zu",
                           at, L->contacts[k].name, 3 * L->nv);
    }
    unsigned char pattern[sizeof b->ev[0]];
    memset(pattern, 0x5a, sizeof pattern);
    if (memcmp(&b->ev[L->n_contacts], pattern, sizeof pattern) != 0)
        nsd_cf_finding(y->c, "contacts() writes out[%zu], past n_contacts = %zu", L->n_contacts,
                       L->n_contacts);
}

/* Which callbacks give other results for a and b (the same inputs but
 * for what lies past the counts): a bit per callback. */
static unsigned differ(const nsd_cf_sys *y, const io *a, const io *b) {
    const nsdyn_system_layout *L = y->L;
    unsigned d = 0;
    if (!nsd_cf_same(a->qd, b->qd, L->nq) || !nsd_cf_same(a->vd, b->vd, L->nv)) d |= 1u;
    for (size_t k = 0; k < L->n_contacts; ++k)
        if (!nsd_cf_same(&a->ev[k].gap, &b->ev[k].gap, 1) ||
            !nsd_cf_same(a->ev[k].u, b->ev[k].u, 3) ||
            !nsd_cf_same(a->ev[k].drift, b->ev[k].drift, 3) ||
            !nsd_cf_same(a->jac[k], b->jac[k], 3 * L->nv))
            d |= 2u;
    if (!nsd_cf_same(a->out, b->out, L->n_outputs)) d |= 4u;
    if (!nsd_cf_same(a->stop, b->stop, L->n_stops) || !nsd_cf_same(a->sw, b->sw, L->n_switches))
        d |= 8u;
    return d;
}

static void check_reads(nsd_cf_sys *y, double t, io *a, io *b) {
    static const char *const cb[] = {"derivatives()", "contacts()", "outputs()",
                                     "stops() or switches()"};
    const nsdyn_system_layout *L = y->L;
    struct {
        size_t off, n;
        const char *name, *count;
    } in[] = {{offsetof(io, q), L->nq, "q", "nq"},
              {offsetof(io, v), L->nv, "v", "nv"},
              {offsetof(io, f), 3 * L->n_contacts, "contact_force", "3 x n_contacts"}};
    for (size_t i = 0; i < 3; ++i) {
        double *xa = (double *)((char *)a + in[i].off), *xb = (double *)((char *)b + in[i].off);
        fill(xa + in[i].n, G, 0.0);
        fill(xb + in[i].n, G, NAN);
        call_all(y, t, a);
        call_all(y, t, b);
        unsigned d = differ(y, a, b);
        for (unsigned k = 0; k < 4; ++k)
            if (d & (1u << k))
                nsd_cf_finding(y->c,
                               "%s reads %s past %s = %zu (its result changes with what lies "
                               "beyond: the layout's counts and the code disagree)",
                               cb[k], in[i].name, in[i].count, in[i].n);
        fill(xa + in[i].n, G, 0.0);
        fill(xb + in[i].n, G, 0.0);
    }
}

/* initial_state() writes nq and nv entries; the round of calls at (q, v)
 * neither writes nor reads past any count. */
static void check_guards(nsd_cf_sys *y, double t, const double *q, const double *v) {
    const nsdyn_system_layout *L = y->L;
    double q0[MAXN + G], v0[MAXN + G];
    fill(q0, MAXN + G, SENTINEL), fill(v0, MAXN + G, SENTINEL);
    nsd_cf_at(y->c, "initial_state()");
    y->s->initial_state(y->inst, q0, v0);
    report_write(y, "initial_state()", "q", guard_hit(q0, L->nq), L->nq, "nq");
    report_write(y, "initial_state()", "v", guard_hit(v0, L->nv), L->nv, "nv");
    io *a = calloc(2, sizeof *a), *b = a + 1;
    if (!a) return;
    memcpy(a->q, q, L->nq * sizeof *q), memcpy(a->v, v, L->nv * sizeof *v);
    *b = *a;
    call_all(y, t, a);
    check_writes(y, a);
    check_reads(y, t, a, b);
    free(a);
}

/* ---- names ------------------------------------------------------------- */

/* A channel the host knows: a state, an output, or "<contact>.<x>" (the
 * host's contact channels: forces, slip, friction states). */
static int channel_known(const nsdyn_system_layout *L, const char *name) {
    for (size_t i = 0; i < L->nq; ++i)
        if (strcmp(L->q[i].name, name) == 0) return 1;
    for (size_t i = 0; i < L->nv; ++i)
        if (strcmp(L->v[i].name, name) == 0) return 1;
    for (size_t i = 0; i < L->n_outputs; ++i)
        if (strcmp(L->outputs[i].name, name) == 0) return 1;
    for (size_t k = 0; k < L->n_contacts; ++k) {
        size_t n = strlen(L->contacts[k].name);
        if (strncmp(name, L->contacts[k].name, n) == 0 && name[n] == '.' && name[n + 1]) return 1;
    }
    return 0;
}

/* energy_output names an output; every plot series and phase pair names
 * channels that exist. Returns the energy output's index, or -1. */
static int check_names(nsd_cf *c, const nsdyn_system_layout *L) {
    int energy = -1;
    if (L->energy_output) {
        for (size_t i = 0; i < L->n_outputs; ++i)
            if (strcmp(L->outputs[i].name, L->energy_output) == 0) energy = (int)i;
        if (energy < 0)
            nsd_cf_finding(c,
                           "layout(): energy_output '%s' names no output channel (the energy "
                           "audit would be off)",
                           L->energy_output);
    } else if (c->p->provides & NSDYN_CAP_CONSERVATIVE) {
        nsd_cf_finding(c, "declares CONSERVATIVE but layout() names no energy_output");
    }
    for (size_t i = 0; L->plot_series && L->plot_series[i] && i < 256; ++i)
        if (!channel_known(L, L->plot_series[i]))
            nsd_cf_finding(c, "layout(): plot_series entry '%s' names no channel",
                           L->plot_series[i]);
    for (size_t i = 0; L->phase_pairs && L->phase_pairs[i] && i < 256; ++i) {
        char pair[256], *colon;
        snprintf(pair, sizeof pair, "%s", L->phase_pairs[i]);
        colon = strchr(pair, ':');
        if (colon) *colon = '\0';
        if (!colon || !channel_known(L, pair) || !channel_known(L, colon + 1))
            nsd_cf_finding(c, "layout(): phase pair '%s' is not two channels 'x:y'",
                           L->phase_pairs[i]);
    }
    return energy;
}

/* ---- the driver ---------------------------------------------------------- */

/* A random number in [-1, 1] (rand_r: no shared state). */
static double uniform(unsigned *seed) { return (rand_r(seed) % 20001) / 10000.0 - 1.0; }

/* A state around (q0, v0): angles within 0.3 rad, other coordinates
 * within 5 % of their size (at least 0.05 of their unit), velocities
 * within 1 of their unit. The plugin's own state, not a physical one:
 * the kinematic identities hold at every state its callbacks accept. */
static void draw_state(const nsdyn_system_layout *L, const double *q0, const double *v0,
                       unsigned *seed, double *q, double *v) {
    for (size_t i = 0; i < L->nq; ++i) {
        double scale = strcmp(L->q[i].unit, "rad") == 0 ? 0.3 : 0.05 * fmax(1.0, fabs(q0[i]));
        q[i] = q0[i] + scale * uniform(seed);
    }
    for (size_t i = 0; i < L->nv; ++i) v[i] = v0[i] + fmax(1.0, fabs(v0[i])) * uniform(seed);
}

static void describe_state(nsd_cf_sys *y, int n, double t, const double *q, const double *v) {
    size_t len = sizeof y->state, at = 0;
    at += (size_t)snprintf(y->state, len, "state #%d (t = %.3g s, q = (", n, t);
    for (size_t i = 0; i < y->L->nq && at < len; ++i)
        at += (size_t)snprintf(y->state + at, len - at, "%s%.6g", i ? ", " : "", q[i]);
    if (at < len) at += (size_t)snprintf(y->state + at, len - at, "), v = (");
    for (size_t i = 0; i < y->L->nv && at < len; ++i)
        at += (size_t)snprintf(y->state + at, len - at, "%s%.6g", i ? ", " : "", v[i]);
    if (at < len) snprintf(y->state + at, len - at, "))");
}

void nsd_cf_system_states(nsd_cf *c, const nsdyn_system *s, void *inst,
                          const nsdyn_system_layout *L, double t0, double t_spread,
                          const double *q0, const double *v0, int n_states, unsigned seed) {
    if (L->nq > MAXN || L->nv > MAXN || L->n_contacts > MAXC || L->n_outputs > MAXO ||
        L->n_stops > MAXO || L->n_switches > MAXO)
        return; /* conformance.c said so */
    unsigned char seen[(MAXC + 1) * NSD_CFK_N] = {0};
    nsd_cf_sys y = {.c = c, .s = s, .inst = inst, .L = L, .seen = seen};
    y.energy = check_names(c, L);
    double q[MAXN], v[MAXN];
    for (int n = 0; n < n_states; ++n) {
        double t = t0 + t_spread * 0.5 * (1.0 + uniform(&seed));
        draw_state(L, q0, v0, &seed, q, v);
        describe_state(&y, n, t, q, v);
        if (n == 0) check_guards(&y, t, q, v);
        nsd_cf_motion(&y, t, q, v);
        if (n < 3 && n_states >= NSD_CF_STATES && y.energy >= 0 &&
            (c->p->provides & NSDYN_CAP_CONSERVATIVE))
            nsd_cf_free_flight(&y, t, q, v);
    }
    nsd_cf_at(c, "the checks");
}

size_t nsd_conformance_precheck(const nsdyn_system *s, void *inst, double t0, const double *q0,
                                const double *v0, int n_states, nsd_diag *diag) {
    nsd_cf c = {.p = &s->info, .diag = diag, .fd = -1};
    nsdyn_system_layout L = {.struct_size = sizeof L};
    if (s->layout(inst, &L) > NSDYN_WARNING) return 0; /* the model's own checks say so */
    nsd_cf_system_states(&c, s, inst, &L, t0, 0.0, q0, v0, n_states, 20261127u);
    return c.out.findings;
}
