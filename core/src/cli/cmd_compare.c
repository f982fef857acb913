/* nsdyn compare CONFIG: a base scenario and variants that swap plugins or
 * parameters; run each, overlay their graphs, tabulate cost and the
 * largest deviation of each channel from the reference variant. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "figures.h"
#include "interrupt.h"
#include "outdir.h"
#include "output.h"
#include "run_watched.h"
#include "scenario.h"

static const char *channel_unit_of(const variant *v, const char *name) {
    int c = nsd_model_channel(&v->sc.model, name);
    return c >= 0 ? v->sc.model.channels[c].unit : "?";
}

/* deviation.<fmt>: one panel per compared channel, |error| against time
 * (log scale; exact agreement leaves a gap), and, when the variants differ
 * in numerics only, the largest error of the first channel against wall
 * time. */
static int write_deviation_figures(const char *dir, const nsd_config *cfg, const variant *vars,
                                   size_t nv, size_t ref, const char *const *names, size_t nn,
                                   const nsd_variant_metrics *m, char ***written,
                                   size_t *n_written, char *err, size_t err_len) {
    const nsd_series *rs = &vars[ref].sc.res.series;
    int cost = nsd_compare_numerics_only(vars, nv, ref);
    size_t np = nn + (size_t)cost;
    double *t = malloc((rs->rows ? rs->rows : 1) * sizeof *t);
    nsd_curve *curves = calloc((nn + 1) * nv, sizeof *curves);
    nsd_panel *panels = calloc(np ? np : 1, sizeof *panels);
    char(*labels)[2][200] = calloc(np ? np : 1, sizeof *labels);
    double *px = calloc(nv, sizeof *px), *py = calloc(nv, sizeof *py);
    int rc = -1;
    if (!t || !curves || !panels || !labels || !px || !py) {
        snprintf(err, err_len, "out of memory for the deviation graph");
        goto out;
    }
    for (size_t r = 0; r < rs->rows; ++r) t[r] = nsd_series_at(rs, r, 0);
    size_t drawn = 0;
    for (size_t k = 0; k < nn; ++k) {
        int c = nsd_model_channel(&vars[ref].sc.model, names[k]);
        nsd_curve *cv = &curves[k * nv];
        size_t nc = 0;
        for (size_t i = 0; i < nv && c >= 0; ++i)
            if (i != ref && m[i].valid)
                cv[nc++] = (nsd_curve){.x = t, .y = &m[i].dev[k * rs->rows], .n = rs->rows,
                                       .legend = vars[i].name,
                                       .color = (int)(i % NSD_PLOT_PALETTE_SIZE),
                                       .dashed = (int)(i % 4), .width = 1.2};
        const nsd_channel *ch = c >= 0 ? &vars[ref].sc.model.channels[c] : NULL;
        char sym[96];
        nsd_plot_symbol(names[k], sym, sizeof sym); /* "psi": ψ, as the title's label */
        snprintf(labels[k][0], 200, "|%s − reference| [%s]", sym, ch ? ch->unit : "?");
        snprintf(labels[k][1], 200, "(%c) %s", (int)('a' + k % 26), ch ? ch->label : names[k]);
        panels[k] = (nsd_panel){.title = labels[k][1], .xlabel = "time t [s]",
                                .ylabel = labels[k][0], .curves = cv, .n_curves = nc,
                                .xmin = NAN, .xmax = NAN, .ymin = NAN, .ymax = NAN, .log_y = 1,
                                .legend_position = k == 0 ? nsd_figures_stack_legend(cfg) : 6,
                                /* one time axis: "time t [s]" under the last of them */
                                .shared_x = k + 1 < nn};
        for (size_t c = 0; k > 0 && c < nc; ++c) cv[c].legend = NULL; /* one legend: above */
        drawn += nc;
    }
    if (cost) { /* accuracy against cost: one point per variant */
        nsd_curve *cv = &curves[nn * nv];
        size_t nc = 0;
        for (size_t i = 0; i < nv; ++i)
            if (i != ref && m[i].valid && m[i].err[0].max > 0 && m[i].wall_median > 0) {
                px[i] = m[i].wall_median;
                py[i] = m[i].err[0].max;
                cv[nc++] = (nsd_curve){&px[i], &py[i], 1, vars[i].name,
                                       (int)(i % NSD_PLOT_PALETTE_SIZE), 0, 0, 1, 0, 0};
            }
        char sym[96];
        nsd_plot_symbol(names[0], sym, sizeof sym);
        snprintf(labels[nn][0], 200, "largest |%s − reference| [%s]", sym,
                 nn ? channel_unit_of(&vars[ref], names[0]) : "?");
        snprintf(labels[nn][1], 200, "(%c) accuracy against cost (median wall time of %zu run%s)",
                 (int)('a' + nn % 26), m[ref].repeats, m[ref].repeats == 1 ? "" : "s");
        panels[nn] = (nsd_panel){.title = labels[nn][1], .xlabel = "wall time [s]",
                                 .ylabel = labels[nn][0], .curves = cv, .n_curves = nc,
                                 .xmin = NAN, .xmax = NAN, .ymin = NAN, .ymax = NAN, .log_x = 1,
                                 .log_y = 1, .legend_position = nsd_figures_legend(cfg)};
    }
    char path[PATH_MAX + 32], title[400];
    snprintf(title, sizeof title, "|variant − reference \"%s\"| (log scale; exact agreement "
                                  "leaves a gap)",
             vars[ref].name);
    nsd_plot_format fmt = (nsd_plot_format)(int)nsd_plot_num(cfg, "format");
    nsd_figure fig = {.title = title, .panels = panels, .n_panels = np, .columns = 1,
                      .width_px = 1400, .height_px = np <= 6 ? (int)(330 * np + 120) : 0};
    snprintf(path, sizeof path, "%s/deviation.%s", dir, nsd_plot_format_ext(fmt));
    rc = drawn ? nsd_figure_write(cfg, path, fmt, &fig, err, err_len) : 0;
    if (drawn && rc == 0) rc = nsd_paths_push(written, n_written, path, err, err_len);
out:
    free(t);
    free(curves);
    free(panels);
    free(labels);
    free(px);
    free(py);
    return rc;
}

/* ---- the [compare] table and the [[variant]] array ---------------------- */

static int string_array(const nsd_toml_node *e) {
    int ok = e->type == NSD_TOML_ARRAY;
    for (size_t k = 0; ok && k < e->n_items; ++k) ok = e->items[k].type == NSD_TOML_STRING;
    return ok;
}

/* What a value of the wrong form is, for "found ..." */
static const char *found_text(const nsd_toml_node *e) {
    if (e->type != NSD_TOML_ARRAY) return nsd_toml_type_name(e->type);
    return e->n_items ? "an array with a non-string element" : "an empty array";
}

/* The keys of [compare] and the form of each value. */
enum { KEY_STRING, KEY_NAMES, KEY_NONEMPTY_NAMES };
static const char *const compare_key_names[] = {"reference", "channels", "x", "x_label", "summary"};
static const struct {
    int form;
    const char *expected;
} compare_key_rules[] = {
    {KEY_STRING, "a string (a variant name)"},
    {KEY_NAMES, "an array of channel names"},
    {KEY_STRING, "a string \"section.key\" naming a numeric parameter (e.g. \"system.b\")"},
    {KEY_STRING, "a string (the x axis label of the summary graph)"},
    {KEY_NONEMPTY_NAMES, "a non-empty array of channel names"},
};

/* One entry of [compare]: known, and of its form. Returns the errors. */
static size_t check_compare_key(const nsd_toml_node *e, compare_keys *ck, nsd_diag *diag) {
    const nsd_toml_node **slots[] = {NULL, &ck->channels, &ck->x, &ck->x_label, &ck->summary};
    for (size_t k = 0; k < NSDYN_COUNT(compare_key_names); ++k) {
        if (strcmp(e->key, compare_key_names[k]) != 0) continue;
        int form = compare_key_rules[k].form;
        int ok = form == KEY_STRING ? e->type == NSD_TOML_STRING
                                    : string_array(e) && (form == KEY_NAMES || e->n_items);
        if (!ok) {
            nsd_diag_at(diag, e, "[compare] key '%s': expected %s, found %s", e->key,
                        compare_key_rules[k].expected,
                        form == KEY_STRING ? nsd_toml_type_name(e->type) : found_text(e));
            return 1;
        }
        if (slots[k])
            *slots[k] = e;
        else
            ck->reference = e->str;
        return 0;
    }
    const char *near = nsd_did_you_mean(e->key, compare_key_names, NSDYN_COUNT(compare_key_names));
    nsd_diag_at(diag, e, "[compare]: unknown key '%s'%s%s%s", e->key,
                near ? " (did you mean '"
                     : " (known keys: reference, channels, x, x_label, summary)",
                near ? near : "", near ? "'?)" : "");
    return 1;
}

/* x and summary go together; x_label labels x. */
static size_t check_compare_pairs(const nsd_toml_node *cmp, nsd_diag *diag) {
    size_t errors = 0;
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
    return errors;
}

/* [[variant]]: a non-empty array of tables with distinct non-empty names.
 * Returns the errors; *variants is set when the array can be read. */
static size_t check_variants(const nsd_config *cfg, const nsd_toml_node **variants,
                             nsd_diag *diag) {
    const nsd_toml_node *v = nsd_toml_get(&cfg->root, "variant");
    if (!v) {
        nsd_diag_at(diag, &cfg->root,
                    "nsdyn compare needs at least one [[variant]] table (each with a name and the "
                    "sections or keys it changes)");
        return 1;
    }
    if (v->type != NSD_TOML_ARRAY) {
        nsd_diag_at(diag, v, "'variant' must be an array of tables ([[variant]]), found %s",
                    nsd_toml_type_name(v->type));
        return 1;
    }
    if (v->n_items == 0) { /* found by fuzzing: the comparison then read vars[0] of none */
        nsd_diag_at(
            diag, v,
            "'variant' is an empty array: nsdyn compare needs at least one [[variant]] table");
        return 1;
    }
    size_t errors = 0;
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
    for (size_t i = 0; i < v->n_items; ++i) {
        const nsd_toml_node *pp =
            v->items[i].type == NSD_TOML_TABLE ? nsd_toml_get(&v->items[i], "plugin_path") : NULL;
        if (!pp) continue;
        nsd_diag_at(diag, pp,
                    "variant %zu: plugin_path cannot change in a [[variant]] (the plugins of every "
                    "variant come from one search path); set it at the top of the config",
                    i + 1);
        errors++;
    }
    *variants = v;
    return errors;
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
        for (size_t i = 0; i < cmp->n_items; ++i)
            errors += check_compare_key(&cmp->items[i], ck, diag);
        errors += check_compare_pairs(cmp, diag);
    }
    return errors + check_variants(cfg, variants, diag);
}

/* ---- the comparison ------------------------------------------------------ */

/* Everything one `nsdyn compare` holds. */
typedef struct comparison {
    const nsd_cli *cli;
    nsd_diag diag;
    nsd_scenario base; /* the config as written: opened, never created */
    compare_keys ck;
    variant *vars;
    size_t nv, ref;
    double *xs; /* each variant's value of [compare].x, or NULL */
    nsd_outdir od;
    char **written;
    size_t n_written;
    int outputs_ok; /* every output written so far */
    size_t repeats; /* runs of each variant (--repeat) */
    double *walls;  /* walls[i * repeats + j]: wall time of variant i's run j [s] */
} comparison;

static size_t out_of_memory(comparison *C) {
    nsd_diag_add(&C->diag, "error: out of memory");
    return 1;
}

/* Resolve and instantiate every variant before running any. */
static size_t create_variants(comparison *C, const nsd_toml_node *vt) {
    C->nv = vt->n_items;
    C->vars = calloc(C->nv, sizeof *C->vars);
    if (!C->vars) {
        C->nv = 0;
        return out_of_memory(C);
    }
    size_t errors = 0;
    for (size_t i = 0; i < C->nv; ++i) {
        variant *v = &C->vars[i];
        v->name = nsd_toml_get(&vt->items[i], "name")->str;
        size_t first = C->diag.n;
        size_t e = nsd_scenario_derive(&v->sc, &C->base, &vt->items[i], &C->diag);
        if (!e) e = nsd_scenario_create(&v->sc, &C->diag);
        char suffix[160];
        snprintf(suffix, sizeof suffix, " (in variant \"%s\")", v->name);
        nsd_diag_suffix(&C->diag, first, suffix);
        errors += e;
    }
    return errors;
}

/* [compare].reference names a variant (default: the first). */
static size_t find_reference(comparison *C) {
    C->ref = 0;
    const char *reference = C->ck.reference;
    if (!reference) return 0;
    C->ref = C->nv;
    for (size_t i = 0; i < C->nv; ++i)
        if (strcmp(C->vars[i].name, reference) == 0) C->ref = i;
    if (C->ref < C->nv) return 0;
    const char **names = calloc(C->nv, sizeof *names);
    for (size_t i = 0; names && i < C->nv; ++i) names[i] = C->vars[i].name;
    const char *near = names ? nsd_did_you_mean(reference, names, C->nv) : NULL;
    nsd_diag_at(&C->diag, nsd_toml_get(nsd_toml_get(&C->base.app.cfg.root, "compare"), "reference"),
                "[compare] key 'reference': no variant named \"%s\"%s%s%s", reference,
                near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
    free(names);
    return 1;
}

/* The summary's x and channels, against the resolved variants: the
 * reference first (whose channels the summary names), then the others,
 * in case a variant swaps the plugin that x names. */
static size_t resolve_summary(comparison *C) {
    if (!C->ck.x) return 0;
    C->xs = calloc(C->nv, sizeof *C->xs);
    if (!C->xs) return out_of_memory(C);
    size_t errors = 0, ref = C->ref;
    for (size_t k = 0; k < C->nv && !errors; ++k) {
        size_t i = k == 0 ? ref : k <= ref ? k - 1 : k;
        const nsd_params *p = NULL;
        int index = -1;
        size_t first = C->diag.n;
        errors += nsd_compare_resolve_x(C->ck.x, &C->vars[i].sc.app.cfg, &p, &index, &C->diag);
        if (errors && i != ref) {
            char suffix[160];
            snprintf(suffix, sizeof suffix, " (in variant \"%s\")", C->vars[i].name);
            nsd_diag_suffix(&C->diag, first, suffix);
        }
        if (!errors) C->xs[i] = p->values[index].num;
    }
    if (errors) return errors;
    return nsd_compare_check_summary(C->ck.summary, &C->vars[ref].sc.model, C->vars[ref].name,
                                     &C->diag);
}

/* Everything that can be checked before a variant runs. */
static size_t prepare(comparison *C) {
    const nsd_cli *cli = C->cli;
    size_t errors = nsd_scenario_open(&C->base, cli->config, cli->sets, cli->n_sets, &C->diag);
    C->base.log.echo = nsd_cli_echo_log; /* the variants' plugin messages as they come */
    C->base.log.progress = nsd_cli_progress;
    const nsd_toml_node *vt = NULL;
    if (!errors) errors = check_compare_section(&C->base.app.cfg, &vt, &C->ck, &C->diag);
    if (!errors) errors = create_variants(C, vt);
    if (!errors) errors = find_reference(C);
    if (!errors) errors = resolve_summary(C);
    return errors;
}

/* The variant's run stopped at its run.timeout: its message says so. */
static void timed_out(variant *v, double timeout_s) {
    char msg[sizeof v->sc.res.message];
    snprintf(msg, sizeof msg, "run.timeout = %g s reached in variant \"%s\": %.1900s", timeout_s,
             v->name, v->sc.res.message);
    memcpy(v->sc.res.message, msg, sizeof msg);
}

static _Noreturn void abandon_variant(comparison *C, size_t i, nsd_scenario *stuck, int kept);

/* Run the variants in order until a signal, each with its own data and
 * record in variant-NN/. Returns the variants run, or -1 when one could
 * not start (a config error, in diag). Clears outputs_ok if a write
 * failed. */
static long run_variants(comparison *C) {
    char err[PATH_MAX + 1024];
    size_t n_run = 0;
    for (size_t i = 0; i < C->nv && !nsd_interrupt_signal(); ++i) {
        variant *v = &C->vars[i];
        char label[200];
        snprintf(label, sizeof label, "[%zu/%zu] %s", i + 1, C->nv, v->name);
        char what[300];
        snprintf(what, sizeof what, "variant \"%s\" (%zu of %zu)", v->name, i + 1, C->nv);
        nsd_crash_guard_set(what, i ? C->od.tmp : NULL, C->od.incomplete);
        /* run.timeout per variant: past it this variant stops between
           steps and fails; the next one starts with its own time */
        double timeout_s = v->sc.app.cfg.settings.timeout;
        if (timeout_s > 0) nsd_interrupt_after(timeout_s);
        size_t refused = 0;
        nsd_scenario stuck;
        int kept = nsd_scenario_run_watched(&v->sc, label, &C->diag, &refused, &stuck);
        if (kept != NSD_WATCHED_DONE) abandon_variant(C, i, &stuck, kept);
        int started = refused == 0;
        if (timeout_s > 0 && nsd_interrupt_cancel_alarm(1) && v->sc.res.outcome == NSD_RUN_FAILED)
            timed_out(v, timeout_s);
        nsd_crash_guard_clear();
        if (!started) return -1;
        C->walls[i * C->repeats] = v->sc.res.wall_seconds;
        /* --repeat: the same run again for its wall time (the runs are
           deterministic; the last one's result is kept and written) */
        for (size_t j = 1; j < C->repeats && v->sc.res.outcome != NSD_RUN_FAILED &&
                           !nsd_interrupt_signal();
             ++j) {
            if (nsd_scenario_run(&v->sc, NULL, &C->diag) != 0) return -1;
            C->walls[i * C->repeats + j] = v->sc.res.wall_seconds;
        }
        n_run = i + 1;
        if (!C->cli->quiet) nsd_scenario_print_summary(stdout, label, &v->sc.res);
        if (v->sc.res.outcome == NSD_RUN_FAILED && !nsd_interrupt_signal())
            fprintf(stderr, "warning: variant \"%s\": %s\n", v->name, v->sc.res.message);
        /* Each variant's own data and record, in a subfolder named by index. */
        char sub[PATH_MAX + 32];
        snprintf(sub, sizeof sub, "%s/variant-%02zu", C->od.tmp, i + 1);
        if (nsd_scenario_write_into(&v->sc, sub, 0, C->cli->command_line, &C->written,
                                    &C->n_written, err, sizeof err) < 0) {
            fprintf(stderr, "error: %s\n", err);
            C->outputs_ok = 0;
            break;
        }
    }
    return (long)n_run;
}

/* Stopped by a signal: the variants run so far (n_kept of them written,
 * the last one's message `last`), each with its data and record; no table
 * or graphs, which would compare a part. Returns the exit status. */
static int finish_interrupted(comparison *C, size_t n_kept, const char *last) {
    fprintf(stderr, "error: interrupted by signal %d after %zu of %zu variants%s%s\n",
            nsd_interrupt_signal(), n_kept, C->nv, n_kept ? ": " : "", n_kept ? last : "");
    if (!n_kept) {
        nsd_outdir_discard(&C->od); /* nothing ran: nothing to keep */
    } else if (!nsd_outdir_finish(&C->od, 1, 0, C->written, C->n_written)) {
        C->outputs_ok = 0;
    } else {
        fprintf(stderr,
                "error: their data and records are kept in %s/variant-NN/; the earlier result "
                "in %s, if any, is untouched\n",
                C->od.incomplete, C->od.target);
    }
    return nsd_exit_status(C->outputs_ok, 1);
}

/* Variant i did not come back after a signal (run_watched.h): its data so
 * far are written beside the finished variants', all kept in
 * <out>.INCOMPLETE, and the process ends without waiting for its thread,
 * which is still in the plugin. */
static _Noreturn void abandon_variant(comparison *C, size_t i, nsd_scenario *stuck, int kept) {
    nsd_interrupt_cancel_alarm(0);
    nsd_crash_guard_clear(); /* the host's own exit from here on */
    char msg[sizeof stuck->res.message + 400];
    char why[100] = ""; /* the signal was run.timeout's alarm */
    if (nsd_interrupt_signal() == SIGALRM)
        snprintf(why, sizeof why, "run.timeout = %g s reached: ",
                 C->vars[i].sc.app.cfg.settings.timeout);
    if (kept == NSD_WATCHED_ABANDONED)
        snprintf(msg, sizeof msg, "variant \"%s\" (%zu of %zu): %s%s", C->vars[i].name, i + 1,
                 C->nv, why, stuck->res.message);
    else
        snprintf(msg, sizeof msg,
                 "variant \"%s\" (%zu of %zu): %sinterrupted by signal %d inside a plugin "
                 "callback before its first sample: nothing of it to keep",
                 C->vars[i].name, i + 1, C->nv, why, nsd_interrupt_signal());
    size_t n_kept = i;
    if (kept == NSD_WATCHED_ABANDONED && C->outputs_ok) {
        char sub[PATH_MAX + 32], err[PATH_MAX + 1024];
        snprintf(sub, sizeof sub, "%s/variant-%02zu", C->od.tmp, i + 1);
        if (nsd_scenario_write_into(stuck, sub, 0, C->cli->command_line, &C->written,
                                    &C->n_written, err, sizeof err) < 0) {
            fprintf(stderr, "error: %s\n", err);
            C->outputs_ok = 0;
        } else {
            n_kept = i + 1;
        }
    }
    if (n_kept != i + 1) fprintf(stderr, "error: %s\n", msg); /* not kept: said here */
    const char *last = n_kept == i + 1 ? msg : i ? C->vars[i - 1].sc.res.message : "";
    int status = finish_interrupted(C, n_kept, last);
    fflush(stdout);
    fflush(stderr);
    _exit(status);
}

/* ---- the comparison's own outputs ---------------------------------------- */

/* Channels to compare: [compare].channels, else the plot series of the
 * reference. Returns the count (*names: caller frees), or -1 when out of
 * memory. */
static long compared_channels(const comparison *C, const char ***names) {
    const variant *r = &C->vars[C->ref];
    const nsd_toml_node *ch = C->ck.channels;
    const char **series = NULL;
    size_t n = ch ? ch->n_items : nsd_figures_series(&r->sc.app.cfg, &r->sc.model, &series);
    *names = calloc(n ? n : 1, sizeof **names);
    if (!*names) return -1;
    for (size_t k = 0; k < n; ++k) (*names)[k] = ch ? ch->items[k].str : series[k];
    for (size_t k = 0; k < n; ++k)
        if (nsd_model_channel(&r->sc.model, (*names)[k]) < 0)
            fprintf(stderr,
                    "warning: [compare] channel '%s' is not a channel of the reference variant\n",
                    (*names)[k]);
    return (long)n;
}

/* The overlays of every variant that has at least two samples. */
static int write_overlays(comparison *C, char *err, size_t err_len) {
    nsd_figure_run *runs = calloc(C->nv, sizeof *runs);
    if (!runs) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    size_t nr = 0;
    for (size_t i = 0; i < C->nv; ++i)
        if (C->vars[i].sc.res.series.rows >= 2)
            runs[nr++] =
                (nsd_figure_run){C->vars[i].name, &C->vars[i].sc.model, &C->vars[i].sc.res};
    int rc = nr ? nsd_figures_write(C->od.tmp, &C->vars[C->ref].sc.app.cfg, C->base.app.cfg.title,
                                    NULL, runs, nr, &C->written, &C->n_written, err, err_len)
                : 0;
    free(runs);
    return rc;
}

/* The table, the summary and the graphs. A failed write is reported and
 * clears outputs_ok; the other outputs are still written unless the table
 * could not be started (returns -1 then). */
static int write_comparison(comparison *C) {
    char err[PATH_MAX + 1024];
    const nsd_config *cfg = &C->base.app.cfg;
    int plots = nsd_plot_num(cfg, "enabled") != 0, rc = -1;
    const char **names = NULL;
    long n_names = compared_channels(C, &names);
    nsd_variant_metrics *m = calloc(C->nv, sizeof *m);
    /* a failed variant ran once: its other repeats count as its one time */
    for (size_t i = 0; i < C->nv; ++i)
        for (size_t j = 1; j < C->repeats; ++j)
            if (C->walls[i * C->repeats + j] < 0)
                C->walls[i * C->repeats + j] = C->walls[i * C->repeats];
    if (n_names < 0 || !m ||
        nsd_compare_metrics(C->vars, C->nv, C->ref, names, (size_t)n_names, C->walls,
                            C->repeats, m) != 0)
        snprintf(err, sizeof err, "out of memory");
    else
        rc = nsd_compare_write_tables(C->od.tmp, C->vars, C->nv, C->ref, names, (size_t)n_names,
                                      m, C->cli->quiet, &C->written, &C->n_written, err,
                                      sizeof err);
    if (rc != 0) {
        fprintf(stderr, "error: %s\n", err);
        C->outputs_ok = 0;
    }
    if (rc == 0) {
        /* Summary against x: summary.csv and summary.<fmt>. */
        if (C->ck.x &&
            nsd_compare_write_summary(C->od.tmp, cfg, C->vars, C->nv, C->ref, &C->ck, C->xs, plots,
                                      &C->written, &C->n_written, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            C->outputs_ok = 0;
        }
        /* Graphs: deviations, then the overlays. */
        if (plots && n_names > 0 &&
            write_deviation_figures(C->od.tmp, cfg, C->vars, C->nv, C->ref, names,
                                    (size_t)n_names, m, &C->written, &C->n_written, err,
                                    sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            C->outputs_ok = 0;
        }
    }
    nsd_compare_metrics_free(m, C->nv);
    free(m);
    free(names);
    if (rc == 0 && plots && write_overlays(C, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        C->outputs_ok = 0;
    }
    return rc < 0 ? -1 : 0;
}

/* The comparison replaces <out> only if it is whole: every output written,
 * the reference complete, no signal. Otherwise what was written goes to
 * <out>.INCOMPLETE (a failed reference, a signal during the graphs), or
 * nowhere (a write error). */
static void finish(comparison *C, int ref_failed) {
    int complete = !ref_failed && !nsd_interrupt_signal();
    C->outputs_ok = nsd_outdir_finish(&C->od, C->outputs_ok, complete, C->written, C->n_written);
    if (!C->outputs_ok) return;
    if (!complete)
        fprintf(stderr,
                "error: the comparison is incomplete: it is kept in %s; the earlier result "
                "in %s, if any, is untouched\n",
                C->od.incomplete, C->od.target);
    if (!C->cli->quiet) {
        for (size_t i = 0; i < C->n_written; ++i)
            if (!strstr(C->written[i], "/variant-")) printf("wrote %s\n", C->written[i]);
        printf("per-variant data and records: %s/variant-NN/\n",
               complete ? C->od.target : C->od.incomplete);
    }
}

int nsd_cmd_compare(const nsd_cli *cli) {
    /* SIGINT/SIGTERM end the running variant between steps; the variants
     * run so far are kept in <out>.INCOMPLETE. */
    nsd_interrupt_install();
    comparison C;
    memset(&C, 0, sizeof C);
    C.cli = cli;
    C.outputs_ok = 1;
    C.repeats = cli->repeat > 0 ? (size_t)cli->repeat : 1;
    int status = NSD_EXIT_USAGE;
    if (prepare(&C) != 0) {
        nsd_diag_print(&C.diag, stderr);
        goto out;
    }
    C.walls = malloc(C.nv * C.repeats * sizeof *C.walls);
    if (!C.walls) {
        fprintf(stderr, "error: out of memory\n");
        goto out;
    }
    for (size_t k = 0; k < C.nv * C.repeats; ++k) C.walls[k] = -1.0;
    if (nsd_cli_open_outdir(cli, &C.od) != 0) goto out;
    long n_run = run_variants(&C);
    if (n_run < 0) {
        nsd_diag_print(&C.diag, stderr);
        goto out;
    }
    if (C.outputs_ok && nsd_interrupt_signal()) {
        status = finish_interrupted(&C, (size_t)n_run,
                                    n_run ? C.vars[n_run - 1].sc.res.message : "");
        goto out;
    }
    /* A variant that fails is a result of the comparison (shown in the
     * table); a failed reference leaves nothing to compare against. */
    int ref_failed = 0;
    if (C.outputs_ok && write_comparison(&C) == 0) {
        ref_failed = C.vars[C.ref].sc.res.outcome == NSD_RUN_FAILED;
        if (ref_failed)
            fprintf(stderr,
                    "error: the reference variant \"%s\" failed: deviations are over its "
                    "incomplete data only\n",
                    C.vars[C.ref].name);
    }
    finish(&C, ref_failed);
    status = nsd_exit_status(C.outputs_ok, ref_failed);
out:
    nsd_outdir_discard(&C.od); /* if still open: nothing to keep */
    nsd_paths_free(C.written, C.n_written);
    for (size_t i = 0; i < C.nv; ++i) nsd_scenario_destroy(&C.vars[i].sc);
    free(C.vars);
    free(C.xs);
    free(C.walls);
    nsd_scenario_destroy(&C.base);
    nsd_diag_free(&C.diag);
    return status;
}
