/* SIGINT/SIGTERM during a run: the handler only sets a flag; the runner
 * checks it between integrator steps, stops cleanly and keeps what was
 * computed (outcome "interrupted", data marked incomplete). A second
 * signal while stopping restores the default action (the process ends). */
#ifndef NSD_INTERRUPT_H
#define NSD_INTERRUPT_H

/* Install the handlers (commands that run simulations call it once). */
void nsd_interrupt_install(void);

/* The signal received since the install (SIGINT, SIGTERM), or 0. */
int nsd_interrupt_signal(void);

#endif
