/* SIGINT/SIGTERM: a flag for the runner (interrupt.h). The host's only
 * mutable global; plugins keep none. */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;
/* The host API's stop request of the run on this thread (host.h
 * nsdyn_data_request_stop): per thread, so one data's stop stops no other
 * data's run. */
static _Thread_local const atomic_int *watched;

static void on_signal(int sig) {
    if (received) {
        signal(sig, SIG_DFL); /* a second signal ends the process */
        raise(sig);
        return;
    }
    received = sig;
}

void nsd_interrupt_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int nsd_interrupt_signal(void) {
    if (received) return (int)received;
    return watched ? atomic_load_explicit(watched, memory_order_relaxed) : 0;
}

void nsd_interrupt_watch(const atomic_int *flag) { watched = flag; }
