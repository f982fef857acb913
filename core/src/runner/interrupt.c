/* SIGINT/SIGTERM: a flag for the runner (interrupt.h). The host's only
 * mutable global; plugins keep none. */
#define _GNU_SOURCE
#include "interrupt.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t received;
/* The host API's stop request of the run on this thread (host.h
 * nsdyn_data_request_stop): per thread, so one data's stop stops no other
 * data's run. */
static _Thread_local const atomic_int *watched;
/* The calling thread's looks at a received signal (interrupt.h). */
static _Thread_local atomic_uint *looks;

static void report_stuck(void);

static void on_signal(int sig) {
    if (received) {
        if (sig == SIGALRM) report_stuck(); /* the time limit, twice: stuck in a callback */
        signal(sig, SIG_DFL);               /* a second signal ends the process */
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
    if (received) {
        if (looks) atomic_fetch_add_explicit(looks, 1u, memory_order_relaxed);
        return (int)received;
    }
    return watched ? atomic_load_explicit(watched, memory_order_relaxed) : 0;
}

void nsd_interrupt_watch(const atomic_int *flag) { watched = flag; }

void nsd_interrupt_count_looks(atomic_uint *counter) { looks = counter; }

/* ---- the crash guard: host state, set around plugin code ---- */

static volatile sig_atomic_t guard_on;
static char guard_what[512], guard_from[PATH_MAX], guard_to[PATH_MAX];

static void say(const char *s) {
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

/* The message and the kept folder; async-signal-safe (write, rename). */
static void report_crash(const char *how) {
    say("error: ");
    say(how);
    say(" while running ");
    say(guard_what);
    if (guard_from[0] && guard_to[0]) {
        if (rename(guard_from, guard_to) == 0) {
            say("; the finished variants are kept in ");
            say(guard_to);
        } else {
            say("; the finished variants are in ");
            say(guard_from);
        }
    }
    say("\n");
}

/* The time limit's second alarm, 2 s after the first: a plugin callback
 * that does not return. The run named, the finished variants kept. */
static void report_stuck(void) {
    if (!guard_on) {
        say("error: run.timeout: the run did not stop within 2 s of its time limit (a plugin "
            "callback that does not return): ended, its data lost\n");
        return;
    }
    guard_on = 0;
    report_crash("run.timeout: a plugin callback did not return within 2 s of the time limit");
}

static void on_crash(int sig) {
    if (guard_on) {
        guard_on = 0;
        const char *how = sig == SIGSEGV  ? "a plugin crashed (signal SIGSEGV, segmentation fault)"
                          : sig == SIGBUS ? "a plugin crashed (signal SIGBUS)"
                          : sig == SIGFPE ? "a plugin crashed (signal SIGFPE)"
                          : sig == SIGILL ? "a plugin crashed (signal SIGILL)"
                                          : "a plugin aborted (signal SIGABRT)";
        report_crash(how);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_exit_call(void) {
    if (!guard_on) return;
    guard_on = 0;
    report_crash("a plugin called exit()");
    _exit(3); /* never "success" with nothing written */
}

void nsd_crash_guard_set(const char *what, const char *keep_from, const char *keep_to) {
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sigemptyset(&sa.sa_mask);
        const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; ++i) sigaction(sigs[i], &sa, NULL);
        atexit(on_exit_call);
        installed = 1;
    }
    snprintf(guard_what, sizeof guard_what, "%s", what ? what : "a plugin");
    snprintf(guard_from, sizeof guard_from, "%s", keep_from ? keep_from : "");
    snprintf(guard_to, sizeof guard_to, "%s", keep_to ? keep_to : "");
    guard_on = 1;
}

void nsd_crash_guard_clear(void) { guard_on = 0; }

void nsd_interrupt_after(double seconds) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {
        {2, 0}, {(time_t)seconds, (suseconds_t)(1e6 * (seconds - (double)(time_t)seconds))}};
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

int nsd_interrupt_cancel_alarm(int forget) {
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_REAL, &off, NULL);
    int had = received == SIGALRM;
    if (had && forget) received = 0;
    return had;
}
