/* What the commands that write a result folder share: where it goes and
 * how it is opened before anything is computed. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void nsd_cli_out_dir(const nsd_cli *cli, char *buf, size_t len) {
    if (cli->out_dir) {
        snprintf(buf, len, "%s", cli->out_dir);
        return;
    }
    const char *base = strrchr(cli->config, '/');
    base = base ? base + 1 : cli->config;
    snprintf(buf, len, "out/%s", base);
    char *dot = strrchr(buf, '.');
    if (dot && dot > buf + 4) *dot = '\0';
}

/* The output folder is checked, and the command's own folder made, before
 * anything is computed: a problem there is a usage error, found at once. */
int nsd_cli_open_outdir(const nsd_cli *cli, nsd_outdir *od) {
    char dir[PATH_MAX], err[PATH_MAX + 1024];
    nsd_cli_out_dir(cli, dir, sizeof dir);
    if (nsd_outdir_open(od, dir, err, sizeof err) == 0) return 0;
    fprintf(stderr, "error: %s\n", err);
    return -1;
}

/* Load the config and create its model; on errors print them. */
int nsd_cli_load(const nsd_cli *cli, nsd_scenario *s, int no_graphs, nsd_diag *diag) {
    /* open, then the plugins' messages shown as they come (run.log keeps
     * them too), then create */
    size_t errors = nsd_scenario_open(s, cli->config, cli->sets, cli->n_sets, diag);
    s->no_graphs = no_graphs;
    s->log.echo = nsd_cli_echo_log;
    s->log.progress = nsd_cli_progress;
    if (!errors) errors = nsd_scenario_create(s, diag);
    if (errors == 0) return 0;
    nsd_diag_print(diag, stderr);
    return -1;
}

/* The progress line: on a terminal only (a redirected stderr keeps the
 * messages, not a line rewritten in place). */
void nsd_cli_progress(void *ctx, const char *label, double t_s, double t_start_s, double t_end_s,
                      int done) {
    (void)ctx;
    if (!isatty(STDERR_FILENO)) return;
    if (done)
        fprintf(stderr, "\r%70s\r", "");
    else
        fprintf(stderr, "\r%s t = %.4g / %.4g s (%3.0f%%)   ", label ? label : "", t_s, t_end_s,
                100.0 * (t_s - t_start_s) / (t_end_s - t_start_s));
}

void nsd_cli_echo_log(void *ctx, nsdyn_log_level level, const char *message) {
    (void)ctx;
    static const char *const names[] = {"debug", "info", "warning", "error"};
    fprintf(stderr, "%s: %s\n", names[level <= NSDYN_LOG_ERROR ? level : NSDYN_LOG_ERROR], message);
}
