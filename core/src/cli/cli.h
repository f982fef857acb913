/* The nsdyn command's subcommands. Exit statuses: outdir.h. */
#ifndef NSD_CLI_H
#define NSD_CLI_H

#include <stddef.h>

#include "outdir.h"
#include "scenario.h"

typedef struct nsd_cli {
    const char *config;  /* CONFIG argument */
    const char *out_dir; /* -o DIR, or NULL for out/<config stem> */
    const char **sets;   /* --set k=v */
    size_t n_sets;
    int quiet;
    int repeat; /* compare --repeat N: runs of each variant, for the wall-time
                   median (0: 1) */
    int names_only; /* keys --names */
    const char *command_line;
} nsd_cli;

int nsd_cmd_run(const nsd_cli *cli);
int nsd_cmd_compare(const nsd_cli *cli);
int nsd_cmd_limits(const nsd_cli *cli);
int nsd_cmd_keys(const nsd_cli *cli);
int nsd_cmd_periodic(const nsd_cli *cli); /* cmd_periodic.c */
int nsd_cmd_pcmap(const nsd_cli *cli); /* cmd_pcmap.c: the Percussion-Centre half-plane */
/* nsdyn sweep: reads its own options (cmd_sweep.c). */
int nsd_cmd_sweep(int argc, char **argv);
/* nsdyn animate RUN_DIR: a video of a run (cmd_animate.c, animate.h). */
int nsd_cmd_animate(int argc, char **argv);
int nsd_cmd_plugins(void);
/* The plugin ids on the search path, one a line, from the indexes. */
int nsd_cmd_plugin_ids(void);
int nsd_cmd_describe(const char *id);
/* nsdyn index FILE.so...: check each plugin and write its index. */
int nsd_cmd_index(int n_files, char **files);
/* The conformance checks (conformance.h) on every plugin of the files;
 * probe: the executable's allocation probe, or NULL (not checked). */
struct nsd_alloc_probe;
int nsd_cmd_check(int n_files, char **files, const struct nsd_alloc_probe *probe,
                  double timeout_s);

/* Shared by the commands (cmd_common.c). */
/* out/<stem of config> unless -o was given. */
void nsd_cli_out_dir(const nsd_cli *cli, char *buf, size_t len);
/* Check the output folder and open this command's own (outdir.h), before
 * anything is computed. 0, or -1 with the message printed (exit status 2). */
int nsd_cli_open_outdir(const nsd_cli *cli, nsd_outdir *od);
/* nsd_scenario_load the CONFIG with its --set overrides. 0, or -1 with the
 * diagnostics printed (exit status 2); destroy s in any case. */
int nsd_cli_load(const nsd_cli *cli, nsd_scenario *s, int no_graphs, nsd_diag *diag);
/* The plugins' messages as they come, on stderr (a scenario's log echo,
 * runlog.h): for the commands that run one scenario at a time. */
void nsd_cli_echo_log(void *ctx, nsdyn_log_level level, const char *message);
/* The run's progress line on stderr when it is a terminal (runlog.h
 * nsd_runlog_progress_fn): what `nsdyn run` and `compare` show. */
void nsd_cli_progress(void *ctx, const char *label, double t_s, double t_start_s, double t_end_s,
                      int done);

#endif
