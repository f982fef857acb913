/* What conformance.c and conformance_laws.c share: one plugin's check in
 * progress, its findings, the allocation probe around hot paths
 * (conformance_probe.c). */
#ifndef NSD_CONFORMANCE_PROBE_H
#define NSD_CONFORMANCE_PROBE_H

#include "alloc_probe.h"
#include "diag.h"
#include "nsdyn/nsdyn.h"

/* Bounds of what the checks size on the stack; a larger system is
 * checked for its declarations only. */
enum { NSD_CF_MAXN = 64, NSD_CF_MAXC = 16, NSD_CF_MAXOUT = 128, NSD_CF_GUARD = 4 };
/* Random states a system is checked at by `nsdyn check`. */
enum { NSD_CF_STATES = 24 };
/* The size of the page naming the callback being called (isolation). */
enum { NSD_CF_WHERE_LEN = 1024 };

typedef struct nsd_conformance {
    size_t findings;      /* lines added to diag */
    int instance_checked; /* 0: declarations only (a required parameter) */
    int allocs_checked;   /* the hot paths ran under an allocation probe */
    int ended_early;      /* isolated: the child crashed, exited or timed out */
} nsd_conformance;

typedef struct nsd_cf {
    const nsdyn_plugin_info *p;
    const nsd_alloc_probe *probe;
    nsd_diag *diag;
    nsd_conformance out;
    /* Isolation (conformance_isolate.c): where >= 0 is a pipe that takes
     * each finding as it is found (so the findings before a crash survive)
     * and `where` a page shared with the parent naming the callback being
     * called (so a crash names it). -1 and NULL in process. */
    int fd;
    char *where;
} nsd_cf;

/* The callback about to be called, for a crash report (no-op in process). */
void nsd_cf_at(nsd_cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One finding: "<kind> '<id>': <message>". */
void nsd_cf_finding(nsd_cf *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Count allocations between start and stop; stop reports `what` if any. */
void nsd_cf_probe_start(nsd_cf *c);
void nsd_cf_probe_stop(nsd_cf *c, const char *what);
/* The same bits. */
int nsd_cf_same(const double *a, const double *b, size_t n);

/* The system checks at random states (conformance_states.c and
 * conformance_motion.c): the counts against every buffer, then the
 * kinematics of every contact, the work of the contact forces and, for a
 * CONSERVATIVE system, its energy in free flight. q0, v0: the state the
 * random states are drawn around, at times t0 + [0, t_spread] s; n_states
 * of them, from seed. */
void nsd_cf_system_states(nsd_cf *c, const nsdyn_system *s, void *inst,
                          const nsdyn_system_layout *L, double t0, double t_spread,
                          const double *q0, const double *v0, int n_states, unsigned seed);

/* The kinematic checks of a config's system before a run (the instance
 * with the config's parameters, around its initial state q0, v0 at the
 * start time t0 [s]: a plugin is not called at times the run never
 * reaches before it starts), at n_states random states: a wrong Jacobian
 * row, drift or gap rate, a write past a count. Each finding is one line in diag ("system 'id':
 * ..."); returns their number. */
size_t nsd_conformance_precheck(const nsdyn_system *s, void *inst, double t0, const double *q0,
                                const double *v0, int n_states, nsd_diag *diag);

#endif
