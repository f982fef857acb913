/* nsdyn run CONFIG: one simulation, its data, record and graphs. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "figures.h"
#include "interrupt.h"
#include "outdir.h"
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

static void push_written(char ***written, size_t *n_written, const char *path) {
    *written = realloc(*written, (*n_written + 1) * sizeof **written);
    if (!*written) abort();
    (*written)[(*n_written)++] = strdup(path);
}

/* A signal received while the outputs of a run that did not fail are
 * written: the record (rec) says the outputs are incomplete. Returns 1
 * the first time. */
static int abandon_if_interrupted(nsd_run_result *rec, const nsd_run_result *res) {
    if (rec->outcome == NSD_RUN_FAILED || !nsd_interrupt_signal()) return 0;
    rec->outcome = NSD_RUN_FAILED;
    snprintf(rec->message, sizeof rec->message,
             "interrupted by signal %d while the outputs were written (the simulation had %s at "
             "t = %.9g s%s%.1500s); graphs left out",
             nsd_interrupt_signal(), res->outcome == NSD_RUN_STOPPED ? "stopped" : "ended",
             res->t_reached, res->message[0] ? ": " : "", res->message);
    return 1;
}

/* dir is a folder of this run's own (outdir.h): nothing of an earlier run
 * is in it, and it replaces the result folder only once all is written.
 * The data come first, then the graphs, then the record, which says how
 * the run ended. A SIGINT/SIGTERM that arrives while the outputs of a run
 * that did not fail are written stops the writing: the graphs not yet
 * drawn are left out, the data are renamed timeseries.INCOMPLETE.csv, and
 * the record says so; returns 1 then (the outputs are incomplete). */
int nsd_write_run_outputs(const char *dir, const nsd_config *cfg, nsd_model *m,
                          const nsd_run_result *res, const char *command_line, int plots,
                          char ***written, size_t *n_written, char *err, size_t err_len) {
    if (nsd_make_dirs(dir, err, err_len) != 0) return -1;
    char path[PATH_MAX + 32];
    nsd_run_result rec = *res; /* what the record reports (shares res's arrays) */
    size_t data_entry = *n_written;
    int abandoned = abandon_if_interrupted(&rec, res);
    /* Incomplete data carry it in their name, so no one takes them for a
     * finished run. */
    int data_incomplete = rec.outcome == NSD_RUN_FAILED;
    snprintf(path, sizeof path, "%s/%s", dir,
             data_incomplete ? "timeseries.INCOMPLETE.csv" : "timeseries.csv");
    if (nsd_write_csv(path, m->channels, &res->series, err, err_len) != 0) return -1;
    push_written(written, n_written, path);
    if (m->event_driven) {
        snprintf(path, sizeof path, "%s/events.csv", dir);
        if (nsd_write_event_log(path, m, &res->contact_log, err, err_len) != 0) return -1;
        push_written(written, n_written, path);
    }
    abandoned |= abandon_if_interrupted(&rec, res);
    /* After a signal the user waits: no graphs (they take a while). */
    if (plots && nsd_plot_num(cfg, "enabled") != 0 && res->series.rows >= 2 &&
        !nsd_interrupt_signal()) {
        nsd_figure_run one = {cfg->title, m, res};
        char title[600];
        if (res->outcome == NSD_RUN_FAILED)
            snprintf(title, sizeof title, "INCOMPLETE, failed at t = %.6g s: %s", res->t_reached,
                     cfg->title);
        else
            snprintf(title, sizeof title, "%s", cfg->title);
        if (nsd_figures_write(dir, cfg, title, m, &one, 1, written, n_written, err, err_len) != 0)
            return -1;
        abandoned |= abandon_if_interrupted(&rec, res);
    }
    if (abandoned && !data_incomplete) {
        /* The data are whole, but the outputs are not: name them so. */
        snprintf(path, sizeof path, "%s/timeseries.INCOMPLETE.csv", dir);
        if (rename((*written)[data_entry], path) != 0) {
            snprintf(err, err_len, "cannot rename %s to %s: %s", (*written)[data_entry], path,
                     strerror(errno));
            return -1;
        }
        free((*written)[data_entry]);
        (*written)[data_entry] = strdup(path);
    }
    snprintf(path, sizeof path, "%s/run.toml", dir);
    if (nsd_write_run_record(path, cfg, m, &rec, command_line, err, err_len) != 0) return -1;
    push_written(written, n_written, path);
    return abandoned;
}

/* Append ", N name(s)" to buf when n > 0; `plural` NULL adds an "s". */
static void append_count(char *buf, size_t len, size_t n, const char *name, const char *plural) {
    if (!n) return;
    size_t at = strlen(buf);
    if (at >= len) return;
    if (n == 1)
        snprintf(buf + at, len - at, "%s1 %s", at ? ", " : "", name);
    else if (plural)
        snprintf(buf + at, len - at, "%s%zu %s", at ? ", " : "", n, plural);
    else
        snprintf(buf + at, len - at, "%s%zu %ss", at ? ", " : "", n, name);
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
    fprintf(out,
            "%s%s%s: t = %.6g s, %llu steps, %llu rhs evaluations, %llu rejected, %.3f s wall; "
            "events: %s",
            label ? label : "", label ? " " : "", nsd_outcome_text(res->outcome), res->t_reached,
            (unsigned long long)res->stats.steps, (unsigned long long)res->stats.rhs_evals,
            (unsigned long long)res->stats.rejected_steps, res->wall_seconds, events);
    if (res->unlogged_roots)
        fprintf(out, "; %llu integrator root return%s changed nothing",
                (unsigned long long)res->unlogged_roots, res->unlogged_roots == 1 ? "" : "s");
    fputc('\n', out);
}

int nsd_cmd_run(const nsd_cli *cli) {
    /* SIGINT/SIGTERM end the simulation between steps; what was computed is
     * kept in <out>.INCOMPLETE. */
    nsd_interrupt_install();
    nsd_diag diag = {0};
    nsd_app app;
    nsd_model model = {0};
    nsd_run_result res = {0};
    nsd_outdir od = {0};
    int status = NSD_EXIT_OK;
    char **written = NULL;
    size_t n_written = 0;
    char err[PATH_MAX + 1024];
    size_t errors = nsd_app_load(&app, cli->config, cli->sets, cli->n_sets, &diag);
    if (!errors) errors = nsd_model_create(&model, &app.cfg, &app.host, &diag);
    if (!errors) errors = nsd_figures_check(&app.cfg, &model, &diag);
    if (errors) {
        nsd_diag_print(&diag, stderr);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    /* The output folder is checked, and this run's own folder made, before
     * the simulation: a problem there is a usage error, found at once. */
    char dir[PATH_MAX];
    nsd_cli_out_dir(cli, dir, sizeof dir);
    if (nsd_outdir_open(&od, dir, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    errors = nsd_run_simulation(&model, &app.cfg, &app.host, app.cfg.title, &res, &diag);
    if (errors) {
        nsd_diag_print(&diag, stderr);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    int rc = nsd_write_run_outputs(od.tmp, &app.cfg, &model, &res, cli->command_line, 1, &written,
                                   &n_written, err, sizeof err);
    int complete = rc == 0 && res.outcome != NSD_RUN_FAILED, outputs_ok = 0;
    if (rc < 0) {
        fprintf(stderr, "error: %s\n", err);
        fprintf(stderr,
                "error: the outputs could not be written; nothing was replaced (%s, if it exists, "
                "is untouched)\n",
                od.target);
        nsd_outdir_discard(&od);
    } else if (nsd_outdir_commit(&od, complete, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        od.open = 0; /* kept where the message says */
    } else {
        outputs_ok = 1;
        nsd_outdir_relocate(&od, complete, written, n_written);
    }
    if (res.outcome == NSD_RUN_FAILED) {
        fprintf(stderr, "error: %s\n", res.message);
        if (outputs_ok)
            fprintf(stderr,
                    "error: the data computed up to t = %.9g s are kept in "
                    "%s/timeseries.INCOMPLETE.csv; "
                    "the earlier result in %s, if any, is untouched\n",
                    res.t_reached, od.incomplete, od.target);
    } else if (rc == 1 && outputs_ok) {
        fprintf(stderr,
                "error: interrupted by signal %d while the outputs were written: what was written "
                "is in %s; "
                "the earlier result in %s, if any, is untouched\n",
                nsd_interrupt_signal(), od.incomplete, od.target);
    } else if (res.outcome == NSD_RUN_STOPPED && !cli->quiet) {
        printf("%s\n", res.message);
    }
    if (!cli->quiet) {
        nsd_print_run_summary(stdout, app.cfg.title, &res);
        if (outputs_ok)
            for (size_t i = 0; i < n_written; ++i) printf("wrote %s\n", written[i]);
    }
    status = nsd_exit_status(outputs_ok, res.outcome == NSD_RUN_FAILED);
out:
    nsd_outdir_discard(&od); /* if still open: the simulation never ran */
    for (size_t i = 0; i < n_written; ++i) free(written[i]);
    free(written);
    nsd_run_result_free(&res);
    nsd_model_destroy(&model);
    nsd_app_free(&app);
    nsd_diag_free(&diag);
    return status;
}
