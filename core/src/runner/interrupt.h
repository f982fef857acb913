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

/* Count the calling thread's looks at a received signal into *looks (NULL:
 * stop): a thread that looks is at a step boundary or between runs, on its
 * way out, not stuck in a plugin callback (run_watch.h nsd_stop_watch). */
void nsd_interrupt_count_looks(atomic_uint *looks);

/* Also report *flag (a signal number, or 0) as received, for the runs of
 * the calling thread (the host API's stop request); NULL: stop watching. */
void nsd_interrupt_watch(const atomic_int *flag);
/* run.timeout: SIGALRM after `seconds` [s] acts as a first SIGINT (the
 * run stops between steps, data kept; nsd_interrupt_signal() = SIGALRM);
 * 2 s later, if the run is stuck in a plugin callback, a second SIGALRM
 * ends the process with a message. */
void nsd_interrupt_after(double seconds);
/* Stop the time limit's alarm; with `forget`, also forget an alarm that
 * arrived (the next variant of a compare starts afresh). Returns 1 when
 * the alarm had arrived. */
int nsd_interrupt_cancel_alarm(int forget);

/* A plugin that crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or
 * calls exit() while `what` runs (a variant's name): one line on stderr
 * names it, the folder `keep_from` (the finished variants) is renamed to
 * `keep_to` when both are given, and the process ends by the signal, or
 * with exit status 3 after an exit(). The strings are copied. Clear it
 * when the plugin code is done (the host's own exit is then a plain one). */
void nsd_crash_guard_set(const char *what, const char *keep_from, const char *keep_to);
void nsd_crash_guard_clear(void);

#endif
