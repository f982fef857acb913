/* nsdyn compare CONFIG: a base scenario and variants that swap plugins or
 * parameters; run each, overlay their graphs, tabulate cost and the
 * largest deviation of each channel from the reference variant. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "compare.h"
#include "figures.h"
#include "interrupt.h"
#include "outdir.h"
#include "output.h"
#include "run_output.h"

/* |x_v(t) - x_ref(t)| at every reference sample, x_v linearly
 * interpolated; NaN where t lies outside the variant's time range.
 * Returns the largest (NaN if there is no overlap). */
static double deviations(const nsd_series *ref, size_t c_ref, const nsd_series *var, size_t c_var,
                         double *out) {
    double worst = -1.0;
    size_t j = 0;
    for (size_t r = 0; r < ref->rows; ++r) {
        double t = nsd_series_at(ref, r, 0);
        out[r] = NAN;
        if (!var->rows || t < nsd_series_at(var, 0, 0) - 1e-12 ||
            t > nsd_series_at(var, var->rows - 1, 0) + 1e-12)
            continue;
        while (j + 1 < var->rows && nsd_series_at(var, j + 1, 0) < t) j++;
        double x;
        if (j + 1 < var->rows) {
            double t0 = nsd_series_at(var, j, 0), t1 = nsd_series_at(var, j + 1, 0);
            double x0 = nsd_series_at(var, j, c_var), x1 = nsd_series_at(var, j + 1, c_var);
            double s = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
            if (s < 0) s = 0;
            if (s > 1) s = 1;
            x = x0 + s * (x1 - x0);
        } else
            x = nsd_series_at(var, j, c_var);
        out[r] = fabs(x - nsd_series_at(ref, r, c_ref));
        if (out[r] > worst || isnan(out[r])) worst = out[r];
    }
    return worst < 0 ? NAN : worst;
}

/* The event columns of the metrics: one per contact-event kind (plural of
 * the kind's name), then switches, stops and unlogged_roots. */
enum { N_EVENT_COLS = NSD_EVENT_KIND_COUNT + 3 };

static void event_col_name(int k, char *buf, size_t len) {
    static const char *const tail[] = {"switches", "stops", "unlogged_roots"};
    if (k < NSD_EVENT_KIND_COUNT)
        snprintf(buf, len, "%ss", nsd_event_kind_name((nsd_event_kind)k));
    else
        snprintf(buf, len, "%s", tail[k - NSD_EVENT_KIND_COUNT]);
}

static void event_col_values(const nsd_run_result *res, unsigned long long out[N_EVENT_COLS]) {
    nsd_event_counts c;
    nsd_run_count_events(res, &c);
    for (int k = 0; k < NSD_EVENT_KIND_COUNT; ++k) out[k] = c.contact[k];
    out[NSD_EVENT_KIND_COUNT] = c.switches;
    out[NSD_EVENT_KIND_COUNT + 1] = c.stops;
    out[NSD_EVENT_KIND_COUNT + 2] = res->unlogged_roots;
}

/* The printed table shows the event columns that are not 0 everywhere. */
static void event_cols_used(const variant *vars, size_t nv, int used[N_EVENT_COLS]) {
    for (int k = 0; k < N_EVENT_COLS; ++k) used[k] = 0;
    for (size_t i = 0; i < nv; ++i) {
        unsigned long long v[N_EVENT_COLS];
        event_col_values(&vars[i].res, v);
        for (int k = 0; k < N_EVENT_COLS; ++k) used[k] |= v[k] != 0;
    }
}

static int event_col_width(int k) {
    char name[64];
    event_col_name(k, name, sizeof name);
    return strlen(name) > 7 ? (int)strlen(name) : 7;
}

static void event_cols_header(FILE *csv, const int used[N_EVENT_COLS]) {
    for (int k = 0; k < N_EVENT_COLS; ++k) {
        char name[64];
        event_col_name(k, name, sizeof name);
        fprintf(csv, ",%s", name);
        if (used[k]) printf(" %*s", event_col_width(k), name);
    }
}

static void event_cols_row(FILE *csv, const nsd_run_result *res, const int used[N_EVENT_COLS]) {
    unsigned long long v[N_EVENT_COLS];
    event_col_values(res, v);
    for (int k = 0; k < N_EVENT_COLS; ++k) {
        fprintf(csv, ",%llu", v[k]);
        if (used[k]) printf(" %*llu", event_col_width(k), v[k]);
    }
}

/* Graphs only a comparison has: the deviation of the first compared
 * channel from the reference against time (log scale), and accuracy
 * against cost (largest deviation vs right-hand-side evaluations). */
static int write_deviation_figures(const char *dir, const nsd_config *cfg, const variant *vars,
                                   size_t nv, size_t ref, const char *channel, double **dev,
                                   const double *max_dev, char ***written, size_t *n_written,
                                   char *err, size_t err_len) {
    int c_ref = nsd_model_channel(&vars[ref].model, channel);
    if (c_ref < 0) return 0;
    const nsd_series *rs = &vars[ref].res.series;
    double *t = malloc((rs->rows ? rs->rows : 1) * sizeof *t);
    nsd_curve *curves = calloc(nv, sizeof *curves);
    nsd_curve *points = calloc(nv, sizeof *points);
    double *cost = calloc(nv, sizeof *cost);
    if (!t || !curves || !points || !cost) abort();
    for (size_t r = 0; r < rs->rows; ++r) t[r] = nsd_series_at(rs, r, 0);
    size_t nc = 0, np = 0;
    for (size_t i = 0; i < nv; ++i) {
        if (i == ref || !dev[i]) continue;
        curves[nc++] = (nsd_curve){
            t, dev[i], rs->rows, vars[i].name, (int)(i % NSD_PLOT_PALETTE_SIZE), 0, 1.2, 0};
        cost[i] = (double)vars[i].res.stats.rhs_evals;
        if (max_dev[i] > 0 && cost[i] > 0)
            points[np++] = (nsd_curve){
                &cost[i], &max_dev[i], 1, vars[i].name, (int)(i % NSD_PLOT_PALETTE_SIZE), 0, 0, 1};
    }
    const nsd_channel *ch = &vars[ref].model.channels[c_ref];
    char ylabel[200], sub[400], ylabel2[200], path[PATH_MAX + 32];
    snprintf(ylabel, sizeof ylabel, "|%s - reference| [%s]", ch->name, ch->unit);
    snprintf(ylabel2, sizeof ylabel2, "largest |%s - reference| [%s]", ch->name, ch->unit);
    snprintf(sub, sizeof sub, "deviation from the reference \"%s\"", vars[ref].name);
    nsd_panel panels[2] = {
        {sub, "time t [s]", ylabel, curves, nc, NULL, 0, NAN, NAN, NAN, NAN, 0, 1, 0, NULL, NULL,
         4},
        {"accuracy against cost", "right-hand-side evaluations", ylabel2, points, np, NULL, 0, NAN,
         NAN, NAN, NAN, 0, 1, 1, NULL, NULL, 4},
    };
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    nsd_figure fig = {cfg->title, panels, 2, 1, 1400, 1100};
    snprintf(path, sizeof path, "%s/deviation.%s", dir, nsd_plot_format_ext(fmt));
    int rc = nc ? nsd_plot_write(path, fmt, &fig, err, err_len) : 0;
    if (nc && rc == 0) {
        *written = realloc(*written, (*n_written + 1) * sizeof **written);
        (*written)[(*n_written)++] = strdup(path);
    }
    free(t);
    free(curves);
    free(points);
    free(cost);
    return rc;
}

static int string_array(const nsd_toml_node *e) {
    int ok = e->type == NSD_TOML_ARRAY;
    for (size_t k = 0; ok && k < e->n_items; ++k) ok = e->items[k].type == NSD_TOML_STRING;
    return ok;
}

static size_t check_compare_section(const nsd_config *cfg, const nsd_toml_node **variants,
                                    compare_keys *ck, nsd_diag *diag) {
    size_t errors = 0;
    const nsd_toml_node *cmp = nsd_toml_get(&cfg->root, "compare");
    memset(ck, 0, sizeof *ck);
    if (cmp) {
        if (cmp->type != NSD_TOML_TABLE) {
            nsd_diag_at(diag, cmp, "'compare' must be a table, found %s",
                        nsd_toml_type_name(cmp->type));
            return 1;
        }
        static const char *const keys[] = {"reference", "channels", "x", "x_label", "summary"};
        for (size_t i = 0; i < cmp->n_items; ++i) {
            const nsd_toml_node *e = &cmp->items[i];
            if (strcmp(e->key, "reference") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(
                        diag, e,
                        "[compare] key 'reference': expected a string (a variant name), found %s",
                        nsd_toml_type_name(e->type));
                    errors++;
                } else
                    ck->reference = e->str;
            } else if (strcmp(e->key, "channels") == 0) {
                if (!string_array(e)) {
                    nsd_diag_at(
                        diag, e,
                        "[compare] key 'channels': expected an array of channel names, found %s",
                        e->type == NSD_TOML_ARRAY ? "an array with a non-string element"
                                                  : nsd_toml_type_name(e->type));
                    errors++;
                } else
                    ck->channels = e;
            } else if (strcmp(e->key, "x") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(diag, e,
                                "[compare] key 'x': expected a string \"section.key\" naming a "
                                "numeric parameter (e.g. \"system.b\"), found %s",
                                nsd_toml_type_name(e->type));
                    errors++;
                } else
                    ck->x = e;
            } else if (strcmp(e->key, "x_label") == 0) {
                if (e->type != NSD_TOML_STRING) {
                    nsd_diag_at(diag, e,
                                "[compare] key 'x_label': expected a string (the x axis label of "
                                "the summary graph), found %s",
                                nsd_toml_type_name(e->type));
                    errors++;
                } else
                    ck->x_label = e;
            } else if (strcmp(e->key, "summary") == 0) {
                if (!string_array(e) || e->n_items == 0) {
                    nsd_diag_at(diag, e,
                                "[compare] key 'summary': expected a non-empty array of channel "
                                "names, found %s",
                                e->type != NSD_TOML_ARRAY ? nsd_toml_type_name(e->type)
                                : e->n_items              ? "an array with a non-string element"
                                                          : "an empty array");
                    errors++;
                } else
                    ck->summary = e;
            } else {
                const char *near = nsd_did_you_mean(e->key, keys, NSDYN_COUNT(keys));
                nsd_diag_at(diag, e, "[compare]: unknown key '%s'%s%s%s", e->key,
                            near ? " (did you mean '"
                                 : " (known keys: reference, channels, x, x_label, summary)",
                            near ? near : "", near ? "'?)" : "");
                errors++;
            }
        }
        /* x and summary go together; x_label labels x. */
        const nsd_toml_node *summary = nsd_toml_get(cmp, "summary"), *x = nsd_toml_get(cmp, "x");
        if (summary && !x) {
            nsd_diag_at(diag, summary,
                        "[compare] key 'summary' needs key 'x' (\"section.key\": the numeric "
                        "parameter to plot the summary against)");
            errors++;
        } else if (x && !summary) {
            nsd_diag_at(diag, x,
                        "[compare] key 'x' needs key 'summary' (the channels whose final values "
                        "are plotted against x)");
            errors++;
        }
        const nsd_toml_node *xl = nsd_toml_get(cmp, "x_label");
        if (xl && !x) {
            nsd_diag_at(diag, xl,
                        "[compare] key 'x_label' labels the summary's x axis: it needs keys 'x' "
                        "and 'summary'");
            errors++;
        }
    }
    const nsd_toml_node *v = nsd_toml_get(&cfg->root, "variant");
    if (!v) {
        nsd_diag_at(diag, &cfg->root,
                    "nsdyn compare needs at least one [[variant]] table (each with a name and the "
                    "sections or keys it changes)");
        return errors + 1;
    }
    if (v->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, v, "'variant' must be an array of tables ([[variant]]), found %s",
                    nsd_toml_type_name(v->type));
        return errors + 1;
    }
    if (v->n_items == 0) { /* found by fuzzing: the comparison then read vars[0] of none */
        nsd_diag_at(
            diag, v,
            "'variant' is an empty array: nsdyn compare needs at least one [[variant]] table");
        return errors + 1;
    }
    for (size_t i = 0; i < v->n_items; ++i) {
        const nsd_toml_node *t = &v->items[i];
        const nsd_toml_node *name = t->type == NSD_TOML_TABLE ? nsd_toml_get(t, "name") : NULL;
        if (t->type != NSD_TOML_TABLE) {
            nsd_diag_at(diag, t, "variant %zu: expected a table, found %s", i + 1,
                        nsd_toml_type_name(t->type));
            errors++;
        } else if (!name || name->type != NSD_TOML_STRING || !name->str[0]) {
            nsd_diag_at(diag, t, "variant %zu: missing key 'name' (a non-empty string)", i + 1);
            errors++;
        } else
            for (size_t k = 0; k < i; ++k) {
                const nsd_toml_node *other = nsd_toml_get(&v->items[k], "name");
                if (other && other->type == NSD_TOML_STRING && strcmp(other->str, name->str) == 0) {
                    nsd_diag_at(diag, name, "variant name \"%s\" is used twice", name->str);
                    errors++;
                }
            }
    }
    *variants = v;
    return errors;
}

int nsd_cmd_compare(const nsd_cli *cli) {
    /* SIGINT/SIGTERM end the running variant between steps; the variants
     * run so far are kept in <out>.INCOMPLETE. */
    nsd_interrupt_install();
    nsd_diag diag = {0};
    nsd_app app;
    int status = NSD_EXIT_OK;
    variant *vars = NULL;
    size_t nv = 0;
    nsd_outdir od = {0};
    char **written = NULL;
    size_t n_written = 0;
    size_t errors = nsd_app_load(&app, cli->config, cli->sets, cli->n_sets, &diag);
    const nsd_toml_node *vt = NULL;
    compare_keys ck;
    memset(&ck, 0, sizeof ck);
    if (!errors) errors = check_compare_section(&app.cfg, &vt, &ck, &diag);
    const char *reference = ck.reference;
    const nsd_toml_node *channels_node = ck.channels;
    double *xs = NULL; /* each variant's value of [compare].x */
    if (!errors) {
        nv = vt->n_items;
        vars = calloc(nv, sizeof *vars);
        if (!vars) abort();
        /* Resolve and instantiate every variant before running any. */
        for (size_t i = 0; i < nv; ++i) {
            variant *v = &vars[i];
            v->name = nsd_toml_get(&vt->items[i], "name")->str;
            nsd_config_derive(&v->cfg, &app.cfg, &vt->items[i]);
            size_t first = diag.n;
            size_t e = nsd_config_resolve(&v->cfg, &app.reg, &diag);
            if (!e) e = nsd_compose_check(&v->cfg, &app.reg, &diag);
            if (!e) e = nsd_model_create(&v->model, &v->cfg, &app.host, &diag);
            if (!e) e = nsd_figures_check(&v->cfg, &v->model, &diag);
            v->resolved = 1;
            char suffix[160];
            snprintf(suffix, sizeof suffix, " (in variant \"%s\")", v->name);
            nsd_diag_suffix(&diag, first, suffix);
            errors += e;
        }
    }
    size_t ref = 0;
    if (!errors && reference) {
        ref = nv;
        for (size_t i = 0; i < nv; ++i)
            if (strcmp(vars[i].name, reference) == 0) ref = i;
        if (ref == nv) {
            const char **names = calloc(nv, sizeof *names);
            for (size_t i = 0; i < nv; ++i) names[i] = vars[i].name;
            const char *near = nsd_did_you_mean(reference, names, nv);
            nsd_diag_at(&diag, nsd_toml_get(nsd_toml_get(&app.cfg.root, "compare"), "reference"),
                        "[compare] key 'reference': no variant named \"%s\"%s%s%s", reference,
                        near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
            free(names);
            errors++;
        }
    }
    /* The summary's x and channels, against the resolved variants: the
     * reference first (whose channels the summary names), then the others,
     * in case a variant swaps the plugin that x names. */
    if (!errors && ck.x) {
        xs = calloc(nv, sizeof *xs);
        if (!xs) abort();
        for (size_t k = 0; k < nv && !errors; ++k) {
            size_t i = k == 0 ? ref : k <= ref ? k - 1 : k;
            const nsd_params *p = NULL;
            int index = -1;
            size_t first = diag.n;
            errors += nsd_compare_resolve_x(ck.x, &vars[i].cfg, &p, &index, &diag);
            if (errors && i != ref) {
                char suffix[160];
                snprintf(suffix, sizeof suffix, " (in variant \"%s\")", vars[i].name);
                nsd_diag_suffix(&diag, first, suffix);
            }
            if (!errors) xs[i] = p->values[index].num;
        }
        if (!errors)
            errors +=
                nsd_compare_check_summary(ck.summary, &vars[ref].model, vars[ref].name, &diag);
    }
    if (errors) {
        nsd_diag_print(&diag, stderr);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    char target[PATH_MAX], err[PATH_MAX + 1024], path[PATH_MAX + 64];
    nsd_cli_out_dir(cli, target, sizeof target);
    /* The output folder is checked, and this comparison's own folder made,
     * before any variant runs (outdir.h); everything is written there. */
    if (nsd_outdir_open(&od, target, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = NSD_EXIT_USAGE;
        goto out;
    }
    const char *dir = od.tmp;
    int outputs_ok = 1; /* every output written */
    int ref_failed = 0;
    size_t n_run = 0; /* variants run (all, unless a signal stopped them) */
    for (size_t i = 0; i < nv && !nsd_interrupt_signal(); ++i) {
        variant *v = &vars[i];
        char label[200];
        snprintf(label, sizeof label, "[%zu/%zu] %s", i + 1, nv, v->name);
        if (nsd_run_simulation(&v->model, &v->cfg, &app.host, label, &v->res, &diag) != 0) {
            nsd_diag_print(&diag, stderr);
            status = NSD_EXIT_USAGE;
            goto out;
        }
        n_run = i + 1;
        if (!cli->quiet) nsd_print_run_summary(stdout, label, &v->res);
        if (v->res.outcome == NSD_RUN_FAILED && !nsd_interrupt_signal())
            fprintf(stderr, "warning: variant \"%s\": %s\n", v->name, v->res.message);
        /* Each variant's own data and record, in a subfolder named by index. */
        char sub[PATH_MAX + 32];
        snprintf(sub, sizeof sub, "%s/variant-%02zu", dir, i + 1);
        if (nsd_write_run_outputs(sub, &v->cfg, &v->model, &v->res, cli->command_line, 0, &written,
                                  &n_written, err, sizeof err) < 0) {
            fprintf(stderr, "error: %s\n", err);
            outputs_ok = 0;
            break;
        }
    }
    if (outputs_ok && nsd_interrupt_signal()) {
        /* Stopped by a signal: the variants run so far, each with its data
         * and record; no table or graphs, which would compare a part. */
        fprintf(stderr, "error: interrupted by signal %d after %zu of %zu variants%s%s\n",
                nsd_interrupt_signal(), n_run, nv, n_run ? ": " : "",
                n_run ? vars[n_run - 1].res.message : "");
        if (!n_run) {
            nsd_outdir_discard(&od); /* nothing ran: nothing to keep */
        } else if (nsd_outdir_commit(&od, 0, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            od.open = 0; /* kept where the message says */
            outputs_ok = 0;
        } else {
            nsd_outdir_relocate(&od, 0, written, n_written);
            fprintf(stderr,
                    "error: their data and records are kept in %s/variant-NN/; the earlier result "
                    "in %s, if any, is untouched\n",
                    od.incomplete, od.target);
        }
        status = nsd_exit_status(outputs_ok, 1);
        goto out;
    }
    if (!outputs_ok) goto written;
    /* Channels to compare: [compare].channels, else the plot series. */
    const char **names = NULL;
    size_t n_names = 0;
    if (channels_node) {
        names = calloc(channels_node->n_items ? channels_node->n_items : 1, sizeof *names);
        for (size_t k = 0; k < channels_node->n_items; ++k)
            names[n_names++] = channels_node->items[k].str;
    } else {
        const char **series;
        size_t ns = nsd_figures_series(&vars[ref].cfg, &vars[ref].model, &series);
        names = calloc(ns ? ns : 1, sizeof *names);
        for (size_t k = 0; k < ns; ++k) names[n_names++] = series[k];
    }
    for (size_t k = 0; k < n_names; ++k)
        if (nsd_model_channel(&vars[ref].model, names[k]) < 0)
            fprintf(stderr,
                    "warning: [compare] channel '%s' is not a channel of the reference variant\n",
                    names[k]);

    /* Metrics table. */
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    FILE *csv = nsd_open_tmp(path, err, sizeof err);
    if (!csv) {
        fprintf(stderr, "error: %s\n", err);
        outputs_ok = 0;
        free(names);
        goto written;
    }
    int used[N_EVENT_COLS];
    event_cols_used(vars, nv, used);
    fprintf(csv, "variant,outcome,t_reached [s],wall_time [s],steps,rhs_evals,rejected_steps");
    printf("\nreference: %s\n%-28s %-9s %10s %9s %10s %9s", vars[ref].name, "variant", "outcome",
           "wall [s]", "steps", "rhs evals", "rejected");
    event_cols_header(csv, used);
    for (size_t k = 0; k < n_names; ++k) {
        int c = nsd_model_channel(&vars[ref].model, names[k]);
        const char *unit = c >= 0 ? vars[ref].model.channels[c].unit : "?";
        fprintf(csv, ",max_dev_%s [%s]", names[k], unit);
        char head[96];
        snprintf(head, sizeof head, "max|d %s| [%s]", names[k], unit);
        printf(" %16s", head);
    }
    fputc('\n', csv);
    printf("\n");
    double **dev = calloc(nv, sizeof *dev), *max_dev0 = calloc(nv, sizeof *max_dev0);
    if (!dev || !max_dev0) abort();
    for (size_t i = 0; i < nv; ++i) {
        const variant *v = &vars[i];
        const char *outcome = v->res.outcome == NSD_RUN_FAILED    ? "FAILED"
                              : v->res.outcome == NSD_RUN_STOPPED ? "stopped"
                                                                  : "complete";
        fprintf(csv, "\"%s\",%s,%.9g,%.6g,%llu,%llu,%llu", v->name, outcome, v->res.t_reached,
                v->res.wall_seconds, (unsigned long long)v->res.stats.steps,
                (unsigned long long)v->res.stats.rhs_evals,
                (unsigned long long)v->res.stats.rejected_steps);
        printf("%-28.28s %-9s %10.4f %9llu %10llu %9llu", v->name, outcome, v->res.wall_seconds,
               (unsigned long long)v->res.stats.steps, (unsigned long long)v->res.stats.rhs_evals,
               (unsigned long long)v->res.stats.rejected_steps);
        event_cols_row(csv, &v->res, used);
        for (size_t k = 0; k < n_names; ++k) {
            int cr = nsd_model_channel(&vars[ref].model, names[k]);
            int cv = nsd_model_channel(&v->model, names[k]);
            double *dv =
                malloc((vars[ref].res.series.rows ? vars[ref].res.series.rows : 1) * sizeof *dv);
            if (!dv) abort();
            double d = cr >= 0 && cv >= 0 ? deviations(&vars[ref].res.series, (size_t)cr,
                                                       &v->res.series, (size_t)cv, dv)
                                          : NAN;
            if (k == 0 && cr >= 0 && cv >= 0) {
                dev[i] = dv; /* the first channel's deviations go on a graph */
                max_dev0[i] = d;
            } else
                free(dv);
            fprintf(csv, ",%.6g", d);
            printf(" %16.4g", d);
        }
        fputc('\n', csv);
        printf("\n");
    }
    if (nsd_commit_file(csv, path, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        outputs_ok = 0;
    } else {
        written = realloc(written, (n_written + 1) * sizeof *written);
        written[n_written++] = strdup(path);
    }

    /* Summary against x: summary.csv and summary.<fmt>. */
    if (ck.x && nsd_compare_write_summary(dir, &app.cfg, vars, nv, ref, &ck, xs,
                                          nsd_plot_num(&app.cfg, "enabled") != 0, &written,
                                          &n_written, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        outputs_ok = 0;
    }

    /* Graphs: deviations, then the overlays. */
    if (nsd_plot_num(&app.cfg, "enabled") != 0 && n_names &&
        write_deviation_figures(dir, &app.cfg, vars, nv, ref, names[0], dev, max_dev0, &written,
                                &n_written, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        outputs_ok = 0;
    }
    for (size_t i = 0; i < nv; ++i) free(dev[i]);
    free(dev);
    free(max_dev0);
    free(names);
    if (nsd_plot_num(&app.cfg, "enabled") != 0) {
        nsd_figure_run *runs = calloc(nv, sizeof *runs);
        size_t nr = 0;
        for (size_t i = 0; i < nv; ++i)
            if (vars[i].res.series.rows >= 2)
                runs[nr++] = (nsd_figure_run){vars[i].name, &vars[i].model, &vars[i].res};
        if (nr && nsd_figures_write(dir, &vars[ref].cfg, app.cfg.title, NULL, runs, nr, &written,
                                    &n_written, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            outputs_ok = 0;
        }
        free(runs);
    }
    /* A variant that fails is a result of the comparison (shown in the
     * table); a failed reference leaves nothing to compare against. */
    ref_failed = vars[ref].res.outcome == NSD_RUN_FAILED;
    if (ref_failed)
        fprintf(stderr,
                "error: the reference variant \"%s\" failed: deviations are over its incomplete "
                "data only\n",
                vars[ref].name);
written:
    /* The comparison replaces <out> only if it is whole: every output
     * written, the reference complete, no signal. Otherwise what was
     * written goes to <out>.INCOMPLETE (a failed reference, a signal
     * during the graphs), or nowhere (a write error). */
    if (!outputs_ok) {
        fprintf(stderr,
                "error: the outputs could not be written; nothing was replaced (%s, if it exists, "
                "is untouched)\n",
                od.target);
        nsd_outdir_discard(&od);
    } else {
        int complete = !ref_failed && !nsd_interrupt_signal();
        if (nsd_outdir_commit(&od, complete, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            od.open = 0; /* kept where the message says */
            outputs_ok = 0;
        } else {
            nsd_outdir_relocate(&od, complete, written, n_written);
            const char *where = complete ? od.target : od.incomplete;
            if (!complete)
                fprintf(stderr,
                        "error: the comparison is incomplete: it is kept in %s; the earlier result "
                        "in %s, if any, is untouched\n",
                        od.incomplete, od.target);
            if (!cli->quiet) {
                for (size_t i = 0; i < n_written; ++i)
                    if (!strstr(written[i], "/variant-")) printf("wrote %s\n", written[i]);
                printf("per-variant data and records: %s/variant-NN/\n", where);
            }
        }
    }
    status = nsd_exit_status(outputs_ok, ref_failed);
out:
    nsd_outdir_discard(&od); /* if still open: nothing to keep */
    for (size_t i = 0; i < n_written; ++i) free(written[i]);
    free(written);
    for (size_t i = 0; i < nv; ++i) {
        nsd_run_result_free(&vars[i].res);
        nsd_model_destroy(&vars[i].model);
        nsd_config_free(&vars[i].cfg);
    }
    free(vars);
    free(xs);
    nsd_app_free(&app);
    nsd_diag_free(&diag);
    return status;
}
