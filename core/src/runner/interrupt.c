/* SIGINT/SIGTERM: a flag for the runner (interrupt.h). The host's only
 * mutable global; plugins keep none. */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;

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

int nsd_interrupt_signal(void) { return (int)received; }
