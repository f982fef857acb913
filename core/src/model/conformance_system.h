/* What the random-state checks of a system share (conformance_states.c,
 * conformance_motion.c): the system under check and which findings were
 * made, so that each kind of mistake is reported once per contact, at the
 * first state where it shows. */
#ifndef NSD_CONFORMANCE_SYSTEM_H
#define NSD_CONFORMANCE_SYSTEM_H

#include "conformance_probe.h"

/* The kinds of finding, each reported once per contact (bit k * NSD_CFK_N + kind). */
enum {
    NSD_CFK_NONFINITE,
    NSD_CFK_REQUEST,  /* u differs with and without a Jacobian request */
    NSD_CFK_AFFINE,   /* u not affine in v */
    NSD_CFK_JACOBIAN, /* a Jacobian entry against the change of u with v */
    NSD_CFK_GAP_RATE, /* u_n against d(gap)/dt along the motion */
    NSD_CFK_DRIFT,    /* drift against du/dt - W v' along the motion */
    NSD_CFK_POWER,    /* the work of a unit contact force against W v */
    NSD_CFK_ENERGY,   /* a CONSERVATIVE system's energy in free flight */
    NSD_CFK_FAILS,    /* a callback returned an error at a random state */
    NSD_CFK_N
};

typedef struct nsd_cf_sys {
    nsd_cf *c;
    const nsdyn_system *s;
    void *inst;
    const nsdyn_system_layout *L;
    int energy;          /* index of the energy output, or -1 */
    unsigned char *seen; /* (n_contacts + 1) * NSD_CFK_N flags: reported already */
    char state[400];     /* the state being checked, for the findings */
} nsd_cf_sys;

/* Whether a finding of `kind` at contact k (n_contacts: the system as a
 * whole) is still to be made; marks it made. */
static inline int nsd_cf_sys_first(nsd_cf_sys *y, size_t k, int kind) {
    unsigned char *f = &y->seen[k * NSD_CFK_N + (size_t)kind];
    if (*f) return 0;
    *f = 1;
    return 1;
}
/* Contact k's name, or "the system" for k == n_contacts. */
static inline const char *nsd_cf_sys_contact(const nsd_cf_sys *y, size_t k) {
    return k < y->L->n_contacts ? y->L->contacts[k].name : "the system";
}

/* The kinematic and energy checks at one state (conformance_motion.c). */
void nsd_cf_motion(nsd_cf_sys *y, double t, const double *q, const double *v);
/* A CONSERVATIVE system's energy over a short free flight from (t, q, v). */
void nsd_cf_free_flight(nsd_cf_sys *y, double t, const double *q, const double *v);

#endif
