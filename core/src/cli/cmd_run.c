/* nsdyn run CONFIG: one simulation, its data, record and graphs. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "interrupt.h"
#include "output.h"
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
        if (outputs_ok)
            fprintf(stderr,
                    "error: the data computed up to t = %.9g s are kept in "
                    "%s/timeseries.INCOMPLETE.csv; "
                    "the earlier result in %s, if any, is untouched\n",
                    res->t_reached, od->incomplete, od->target);
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
    if (s.app.cfg.settings.timeout > 0) nsd_interrupt_after(s.app.cfg.settings.timeout);
    nsd_crash_guard_set(cli->config, NULL, NULL); /* a plugin's crash or exit() is said */
    size_t refused = nsd_scenario_run(&s, s.app.cfg.title, &diag);
    nsd_crash_guard_clear();
    if (refused != 0) {
        nsd_diag_print(&diag, stderr);
        goto out;
    }
    int abandoned = 0;
    int outputs_ok =
        nsd_scenario_write(&s, &od, cli->command_line, &written, &n_written, &abandoned);
    report(cli, &s, &od, outputs_ok, abandoned, written, n_written);
    status = nsd_exit_status(outputs_ok, s.res.outcome == NSD_RUN_FAILED);
out:
    nsd_outdir_discard(&od); /* if still open: the simulation never ran */
    nsd_paths_free(written, n_written);
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
