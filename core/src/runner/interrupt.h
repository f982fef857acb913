/* SIGINT/SIGTERM during a run: the handler only sets a flag; the runner
 * checks it between integrator steps, stops cleanly and keeps what was
 * computed (outcome "interrupted", data marked incomplete). A second
 * signal while stopping restores the default action (the process ends). */
#ifndef NSD_INTERRUPT_H
#define NSD_INTERRUPT_H

#include <stdatomic.h>

/* Install the handlers (commands that run simulations call it once). */
void nsd_interrupt_install(void);

/* The signal received since the install (SIGINT, SIGTERM), or 0. */
int nsd_interrupt_signal(void);

/* Also report *flag (a signal number, or 0) as received, for the runs of
 * the calling thread (the host API's stop request); NULL: stop watching. */
void nsd_interrupt_watch(const atomic_int *flag);

#endif
