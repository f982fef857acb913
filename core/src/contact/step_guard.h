/* The step guard: no impact is missed, whatever the integrator's step.
 *
 * An integrator compares event signs at the ends of its steps, so a gap
 * that dips below zero and comes back within one step is never seen (a
 * wheel flying over a curb edge in one free-flight step). The guard looks
 * inside every accepted step on the integrator's dense output instead: it
 * is the one mechanism that locates impacts of open contacts, for every
 * integrator (modes.c hands the integrator no gap events).
 *
 * Per step [a, b] and open contact, f = gap - threshold [m] and its rate
 * f' = u_n [m/s] are known at both ends. The guard evaluates f, f' at a
 * split point and compares them with the cubic Hermite interpolant of the
 * ends: the difference, scaled by the shape of the Hermite error
 * ((t - a)^2 (t - b)^2, largest at the midpoint), estimates the
 * interpolant's largest error. Each half is
 * safe when its own Hermite interpolant (built from the half's ends, more
 * accurate than the whole step's) cannot fall from above -err to below
 * +err for any contact, nor start inside that band or rise into it (a
 * contact that has just bounced starts at its threshold: its rebound may
 * return within the step unseen by the interpolant) unless the band shaped
 * like the Hermite error (zero at the ends) proves the rebound leaves
 * (guard_hermite.c); otherwise the half is split again, where the
 * interpolant says to look (the midpoint of a half that already brackets
 * a crossing), down to depth
 * NSD_GUARD_DEPTH, following into each half only the contacts that may
 * fall there (evaluated alone through the system's request.wanted, ABI
 * 2.3). At the depth limit, or where every contact a half follows crosses
 * its threshold once through the error band, a falling sign change
 * between samples is a bracket, located on that one contact on the dense
 * output by Newton steps on the gap rate (safeguarded by Illinois and
 * bisection) to 1e-12 s per second of t and reported at its post-crossing
 * end (f <= 0); the earliest over the contacts wins, the others asked at
 * the root found. The stretch before a hit, and before a located root, is
 * scanned for an earlier crossing (a gap with a kink or a jump), passing
 * over the samples a bound on the gaps' acceleration rules out
 * (guard_scan.c).
 * docs/event-driven.md has the argument and the measured cost. */
#ifndef NSD_STEP_GUARD_H
#define NSD_STEP_GUARD_H

#include <stdint.h>

#include "guard_hermite.h"
#include "model.h"
#include "integrator_calls.h"
#include "nsdyn/integrator.h"

typedef struct nsd_step_guard {
    size_t nc, n;
    double t_a;
    double *f, *df;            /* levels x nc (step_guard.c) */
    double *rate;              /* 2 nc: the two scans' bounds on |f''| [m/s^2] */
    unsigned char *wanted;     /* nc: the contact a root finder follows */
    unsigned char *cand;       /* nc: a bracket's contacts still to be located */
    unsigned char *some;       /* nc: the contacts a step's first split or a scan evaluates */
    size_t *watched;           /* nc: the contacts a scan watches, listed */
    double *y;                 /* n: state at the located impact */
    double *ytmp;              /* n */
    unsigned char *mask;       /* 2 NSD_GUARD_DEPTH x nc: the contacts each half follows */
    uint64_t evaluations;      /* evaluations of every contact's gap (dense output) */
    uint64_t evaluations_some; /* of some contacts' (the followed ones, root finding) */
    uint64_t gaps;             /* contact gaps evaluated over both */
    uint64_t hits;             /* impacts located */
    uint64_t unresolved;       /* intervals accepted at the depth limit */
} nsd_step_guard;

void nsd_step_guard_init(nsd_step_guard *g, const nsd_model *m);
void nsd_step_guard_free(nsd_step_guard *g);

/* (Re)start at (t, y): after setup, a restart, a switch. */
nsdyn_status nsd_step_guard_start(nsd_step_guard *g, const nsd_model *m, nsd_data *d, double t,
                                  const double *y);

/* After an accepted step ending at (t_b, y_b): 1 if an open contact's gap
 * falls through its threshold inside the step (then *t_hit, *contact and
 * g->y hold the earliest), 0 if not (the guard moves on to t_b), -1 on
 * failure with d->failure set (a dense-output failure, or an open contact
 * found penetrating and approaching: an impact missed by a previous
 * phase). */
int nsd_step_guard_check(nsd_step_guard *g, const nsd_model *m, nsd_data *d, nsd_ig_call *ig,
                         double t_b, const double *y_b, double *t_hit, size_t *contact);

#endif
