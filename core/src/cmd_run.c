/* nsdyn run CONFIG: one simulation, its data, record and graphs. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "figures.h"
#include "output.h"
#include "run.h"
#include "run_output.h"

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

int nsd_write_run_outputs(const char *dir, const nsd_config *cfg, nsd_model *m,
                          const nsd_run_result *res, const char *command_line, int plots,
                          char ***written, size_t *n_written, char *err, size_t err_len) {
    if (nsd_make_dirs(dir, err, err_len) != 0) return -1;
    char path[PATH_MAX + 32];
    /* Outputs of an earlier run in the same folder would sit beside these
     * as if they belonged to them: remove every file a run writes. */
    static const char *const names[] = {"timeseries.csv", "timeseries.INCOMPLETE.csv", "run.toml",
                                        "events.csv", "timeseries", "phase", "snapshots", "events"};
    static const char *const exts[] = {"png", "svg", "pdf"};
    for (size_t i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    for (size_t i = 4; i < 8; ++i)
        for (size_t k = 0; k < 3; ++k) {
            snprintf(path, sizeof path, "%s/%s.%s", dir, names[i], exts[k]);
            remove(path);
        }
    /* Incomplete data carry it in their name, so no one takes them for a
     * finished run. */
    snprintf(path, sizeof path, "%s/%s", dir,
             res->outcome == NSD_RUN_FAILED ? "timeseries.INCOMPLETE.csv" : "timeseries.csv");
    if (nsd_write_csv(path, m->channels, &res->series, err, err_len) != 0) return -1;
    *written = realloc(*written, (*n_written + 2) * sizeof **written);
    if (!*written) abort();
    (*written)[(*n_written)++] = strdup(path);
    if (m->event_driven) {
        *written = realloc(*written, (*n_written + 3) * sizeof **written);
        if (!*written) abort();
        snprintf(path, sizeof path, "%s/events.csv", dir);
        if (nsd_write_event_log(path, m, &res->contact_log, err, err_len) != 0) return -1;
        (*written)[(*n_written)++] = strdup(path);
    }
    snprintf(path, sizeof path, "%s/run.toml", dir);
    if (nsd_write_run_record(path, cfg, m, res, command_line, err, err_len) != 0) return -1;
    (*written)[(*n_written)++] = strdup(path);
    if (plots && nsd_plot_num(cfg, "enabled") != 0 && res->series.rows >= 2) {
        nsd_figure_run one = {cfg->title, m, res};
        char title[600];
        if (res->outcome == NSD_RUN_FAILED)
            snprintf(title, sizeof title, "INCOMPLETE, failed at t = %.6g s: %s", res->t_reached, cfg->title);
        else snprintf(title, sizeof title, "%s", cfg->title);
        if (nsd_figures_write(dir, cfg, title, m, &one, 1, written, n_written, err, err_len) != 0)
            return -1;
    }
    return 0;
}

/* Append ", N name(s)" to buf when n > 0; `plural` NULL adds an "s". */
static void append_count(char *buf, size_t len, size_t n, const char *name, const char *plural) {
    if (!n) return;
    size_t at = strlen(buf);
    if (at >= len) return;
    if (n == 1) snprintf(buf + at, len - at, "%s1 %s", at ? ", " : "", name);
    else if (plural) snprintf(buf + at, len - at, "%s%zu %s", at ? ", " : "", n, plural);
    else snprintf(buf + at, len - at, "%s%zu %ss", at ? ", " : "", n, name);
}

/* "19 impacts, 1 rest, 2 switches": the kinds that occurred, or "none". */
static void format_event_counts(const nsd_event_counts *c, char *buf, size_t len) {
    buf[0] = '\0';
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k)
        append_count(buf, len, c->contact[k], nsd_event_kind_name((nsd_event_kind)k), NULL);
    append_count(buf, len, c->switches, "switch", "switches");
    append_count(buf, len, c->stops, "stop", NULL);
    if (!buf[0]) snprintf(buf, len, "none");
}

void nsd_print_run_summary(FILE *out, const char *label, const nsd_run_result *res) {
    nsd_event_counts counts;
    nsd_run_count_events(res, &counts);
    char events[512];
    format_event_counts(&counts, events, sizeof events);
    fprintf(out, "%s%s%s: t = %.6g s, %llu steps, %llu rhs evaluations, %llu rejected, %.3f s wall; events: %s",
            label ? label : "", label ? " " : "", nsd_outcome_text(res->outcome), res->t_reached,
            (unsigned long long)res->stats.steps, (unsigned long long)res->stats.rhs_evals,
            (unsigned long long)res->stats.rejected_steps, res->wall_seconds, events);
    if (res->unlogged_roots)
        fprintf(out, "; %llu integrator root return%s changed nothing",
                (unsigned long long)res->unlogged_roots, res->unlogged_roots == 1 ? "" : "s");
    fputc('\n', out);
}

int nsd_cmd_run(const nsd_cli *cli) {
    nsd_diag diag = {0};
    nsd_app app;
    nsd_model model = {0};
    nsd_run_result res = {0};
    int status = NSD_EXIT_OK;
    size_t errors = nsd_app_load(&app, cli->config, cli->sets, cli->n_sets, &diag);
    if (!errors) errors = nsd_model_create(&model, &app.cfg, &app.host, &diag);
    if (!errors) errors = nsd_figures_check(&app.cfg, &model, &diag);
    if (!errors) errors = nsd_run_simulation(&model, &app.cfg, &app.host, app.cfg.title, &res, &diag);
    if (errors) {
        nsd_diag_print(&diag, stderr);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    char dir[PATH_MAX], err[1024];
    nsd_cli_out_dir(cli, dir, sizeof dir);
    char **written = NULL;
    size_t n_written = 0;
    if (nsd_write_run_outputs(dir, &app.cfg, &model, &res, cli->command_line, 1, &written,
                              &n_written, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_FAILED;
    }
    if (res.outcome == NSD_RUN_FAILED) {
        fprintf(stderr, "error: %s\n", res.message);
        fprintf(stderr, "error: the data computed up to t = %.9g s are kept in %s/timeseries.INCOMPLETE.csv\n",
                res.t_reached, dir);
        status = NSD_EXIT_FAILED;
    } else if (res.outcome == NSD_RUN_STOPPED && !cli->quiet) {
        printf("%s\n", res.message);
    }
    if (!cli->quiet) {
        nsd_print_run_summary(stdout, app.cfg.title, &res);
        for (size_t i = 0; i < n_written; ++i) printf("wrote %s\n", written[i]);
    }
    for (size_t i = 0; i < n_written; ++i) free(written[i]);
    free(written);
out:
    nsd_run_result_free(&res);
    nsd_model_destroy(&model);
    nsd_app_free(&app);
    nsd_diag_free(&diag);
    return status;
}
