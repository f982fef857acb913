/* nsdyn run CONFIG: one simulation, its data, record and graphs. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "interrupt.h"
#include "output.h"
#include "run_watched.h"
#include "scenario.h"

/* What went wrong, on stderr, and the stop message and summary. */
static void report(const nsd_cli *cli, const nsd_scenario *s, const nsd_outdir *od, int outputs_ok,
                   int abandoned, char **written, size_t n_written) {
    const nsd_run_result *res = &s->res;
    if (res->outcome == NSD_RUN_FAILED) {
        if (nsd_interrupt_signal() == SIGALRM)
            fprintf(stderr, "error: run.timeout = %g s reached (signal %d is its alarm)\n",
                    s->app.cfg.settings.timeout, SIGALRM);
        fprintf(stderr, "error: %s\n", res->message);
        if (s->app.cfg.settings.max_memory_mib > 0 && strstr(res->message, "out of memory"))
            fprintf(stderr, "error: run.max_memory = %g MiB reached\n",
                    s->app.cfg.settings.max_memory_mib);
        if (outputs_ok)
            fprintf(stderr,
                    "error: the data computed up to t = %.9g s are kept in "
                    "%s/timeseries.INCOMPLETE.csv; "
                    "the earlier result in %s, if any, is untouched\n",
                    res->t_reached, od->incomplete, od->target);
    } else if (abandoned == 2 && outputs_ok) {
        fprintf(stderr,
                "error: the outputs are incomplete (a graph could not be written): the data and "
                "the record are kept in %s; the earlier result in %s, if any, is untouched\n",
                od->incomplete, od->target);
    } else if (abandoned && outputs_ok) {
        fprintf(stderr,
                "error: interrupted by signal %d while the outputs were written: what was written "
                "is in %s; "
                "the earlier result in %s, if any, is untouched\n",
                nsd_interrupt_signal(), od->incomplete, od->target);
    } else if (res->outcome == NSD_RUN_STOPPED && !cli->quiet) {
        printf("%s\n", res->message);
    }
    if (!cli->quiet) {
        nsd_scenario_print_summary(stdout, s->app.cfg.title, res);
        if (outputs_ok)
            for (size_t i = 0; i < n_written; ++i) printf("wrote %s\n", written[i]);
    }
}

/* The run did not come back after a signal (run_watched.h): its data as
 * of the last sample, written by this thread, marked incomplete; the
 * process then ends without waiting for the run's thread. */
static _Noreturn void abandon_run(const nsd_cli *cli, nsd_scenario *w, int kept, nsd_outdir *od) {
    nsd_interrupt_cancel_alarm(0);
    nsd_crash_guard_clear(); /* the host's own exit from here on */
    if (kept != NSD_WATCHED_ABANDONED) {
        fprintf(stderr,
                "error: interrupted by signal %d inside a plugin callback before the first "
                "sample: nothing to keep\n",
                nsd_interrupt_signal());
        nsd_outdir_discard(od);
        fflush(stdout);
        _exit(nsd_exit_status(1, 1));
    }
    char **written = NULL;
    size_t n_written = 0;
    int abandoned = 0;
    int ok = nsd_scenario_write(w, od, cli->command_line, &written, &n_written, &abandoned);
    report(cli, w, od, ok, abandoned, written, n_written);
    fflush(stdout);
    fflush(stderr);
    _exit(nsd_exit_status(ok, 1)); /* the run's thread is still in the plugin */
}

/* run.max_memory: the process's address space bounded (RLIMIT_AS, as
 * [sweep] run_max_memory bounds a sweep's worker). `what` names the run
 * for the crash guard, with the limit: a plugin that ends on a refused
 * allocation (abort, SIGSEGV on NULL) is then said to have met it.
 * 0, or -1 with a message when the limit is below what the process
 * already maps. */
static int limit_memory(const nsd_cli *cli, double mib, char *what, size_t len) {
    snprintf(what, len, "%s", cli->config);
    if (!(mib > 0)) return 0;
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    /* what is mapped now, and a thread's stack (8 MiB) with room to spare */
    double mapped_mib = (double)pages * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
    if (mib < mapped_mib + 16.0) {
        fprintf(stderr,
                "error: run.max_memory = %g MiB: expected more than %.0f MiB, found %g (the "
                "process maps %.0f MiB before the run: its libraries and plugins)\n",
                mib, mapped_mib + 16.0, mib, mapped_mib);
        return -1;
    }
    struct rlimit rl = {(rlim_t)(mib * 1048576.0), (rlim_t)(mib * 1048576.0)};
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
        fprintf(stderr, "error: run.max_memory = %g MiB: cannot set the limit: %s\n", mib,
                strerror(errno));
        return -1;
    }
    snprintf(what, len,
             "%s (run.max_memory = %g MiB: the run's allocations past it are refused, and a "
             "plugin may end on a refused one)",
             cli->config, mib);
    return 0;
}

int nsd_cmd_run(const nsd_cli *cli) {
    /* SIGINT/SIGTERM end the simulation between steps; what was computed is
     * kept in <out>.INCOMPLETE. */
    nsd_interrupt_install();
    nsd_diag diag = {0};
    nsd_scenario s;
    nsd_outdir od = {0};
    int status = NSD_EXIT_USAGE;
    char **written = NULL;
    size_t n_written = 0;
    if (nsd_cli_load(cli, &s, 0, &diag) != 0 || nsd_cli_open_outdir(cli, &od) != 0) goto out;
    char what[PATH_MAX + 200];
    if (limit_memory(cli, s.app.cfg.settings.max_memory_mib, what, sizeof what) != 0) goto out;
    if (s.app.cfg.settings.timeout > 0) nsd_interrupt_after(s.app.cfg.settings.timeout);
    nsd_crash_guard_set(what, NULL, NULL); /* a plugin's crash or exit() is said */
    size_t refused = 0;
    nsd_scenario stuck;
    int kept = nsd_scenario_run_watched(&s, s.app.cfg.title, &diag, &refused, &stuck);
    if (kept != NSD_WATCHED_DONE) abandon_run(cli, &stuck, kept, &od);
    nsd_crash_guard_clear();
    if (refused != 0) {
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    int abandoned = 0;
    int outputs_ok =
        nsd_scenario_write(&s, &od, cli->command_line, &written, &n_written, &abandoned);
    report(cli, &s, &od, outputs_ok, abandoned, written, n_written);
    status = abandoned == 2 ? NSD_EXIT_OUTPUT
                            : nsd_exit_status(outputs_ok, s.res.outcome == NSD_RUN_FAILED);
out:
    nsd_outdir_discard(&od); /* if still open: the simulation never ran */
    nsd_paths_free(written, n_written);
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
