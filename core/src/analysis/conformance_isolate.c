/* The conformance checks of one plugin in a child process (conformance.h,
 * issue 28): a plugin whose callback crashes, aborts, calls exit() or
 * loops must give a finding, not take `nsdyn check` down or hang it.
 *
 * The child runs nsd_conformance_run() with its findings going down a pipe
 * line by line as they are found, and the callback it is about to call in
 * a page shared with the parent. It ends with a result line and _exit(0).
 * The parent reads the pipe under a wall-clock limit; without the result
 * line the child's end (signal, exit status, time limit) becomes a finding
 * naming the callback that was running. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance.h"
#include "plugin_file.h"

#define RESULT_TAG "\x01result "

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void child(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe, int fd, char *where) {
    /* A crash ends the child by its signal, which the parent names: a
     * sanitizer's handler would turn it into an exit status (and a report
     * about the plugin, not the host). */
    static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof crash / sizeof *crash; ++i) signal(crash[i], SIG_DFL);
    nsd_conformance r = nsd_conformance_run(p, probe, NULL, fd, where);
    char line[96];
    int n = snprintf(line, sizeof line, RESULT_TAG "%zu %d %d\n", r.findings, r.instance_checked,
                     r.allocs_checked);
    if (write(fd, line, (size_t)n) != n) _exit(3);
    _exit(0);
}

/* Split the pipe's text into lines: findings into diag, the result line
 * into *r. Returns whether the result line came. */
static int take_lines(char *buf, size_t len, nsd_diag *diag, nsd_conformance *r) {
    int done = 0;
    char *s = buf, *end = buf + len;
    while (s < end) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) nl = end;
        *nl = '\0';
        if (strncmp(s, RESULT_TAG, strlen(RESULT_TAG)) == 0) {
            size_t f = 0;
            int inst = 0, allocs = 0;
            if (sscanf(s + strlen(RESULT_TAG), "%zu %d %d", &f, &inst, &allocs) == 3) {
                r->instance_checked = inst, r->allocs_checked = allocs;
                done = 1;
            }
        } else if (*s) {
            nsd_diag_add(diag, "%s", s);
            r->findings++;
        }
        s = nl + 1;
    }
    return done;
}

/* Read the child's pipe until it closes or the limit passes; 1 on time out. */
static int read_child(int fd, double timeout_s, char **buf, size_t *len) {
    size_t cap = 4096;
    *buf = malloc(cap), *len = 0;
    double end = now_s() + timeout_s;
    for (;;) {
        double left = end - now_s();
        if (left <= 0) return 1;
        struct pollfd pf = {fd, POLLIN, 0};
        int k = poll(&pf, 1, (int)(left * 1000) + 1);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) continue;
        if (*len + 1024 > cap) *buf = realloc(*buf, cap *= 2);
        ssize_t n = read(fd, *buf + *len, cap - *len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        *len += (size_t)n;
    }
}

nsd_conformance nsd_conformance_isolated(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                         nsd_diag *diag, double timeout_s) {
    nsd_conformance r = {0};
    const char *kind = nsd_kind_name(p->kind);
    char *where =
        mmap(NULL, NSD_CF_WHERE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int fds[2];
    if (where == MAP_FAILED || pipe(fds) != 0) {
        if (where != MAP_FAILED) munmap(where, NSD_CF_WHERE_LEN);
        return nsd_conformance_check(p, probe, diag); /* no isolation to be had */
    }
    snprintf(where, NSD_CF_WHERE_LEN, "the start");
    fflush(NULL); /* the child must not print the parent's buffered output */
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(p, probe, fds[1], where);
    }
    close(fds[1]);
    char *buf = NULL;
    size_t len = 0;
    int timed_out = pid > 0 ? read_child(fds[0], timeout_s, &buf, &len) : 0;
    close(fds[0]);
    int status = 0;
    if (pid > 0) {
        if (timed_out) kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    }
    int done = buf && take_lines(buf, len, diag, &r);
    free(buf);
    char cb[NSD_CF_WHERE_LEN];
    snprintf(cb, sizeof cb, "%s", where);
    if (pid < 0) {
        nsd_diag_add(diag, "%s '%s': cannot start a process for the checks", kind, p->id);
        r.findings++;
    } else if (timed_out) {
        nsd_diag_add(diag, "%s '%s': %s did not return within %g s (killed)", kind, p->id, cb,
                     timeout_s);
        r.findings++;
    } else if (WIFSIGNALED(status)) {
        nsd_diag_add(diag, "%s '%s': %s crashed with signal %d (%s)", kind, p->id, cb,
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        r.findings++;
    } else if (!done) {
        nsd_diag_add(diag,
                     "%s '%s': %s ended the process (exit status %d): a plugin must return "
                     "to the host, never exit",
                     kind, p->id, cb, WEXITSTATUS(status));
        r.findings++;
    }
    r.ended_early = pid < 0 || timed_out || WIFSIGNALED(status) || !done;
    munmap(where, NSD_CF_WHERE_LEN);
    return r;
}
