/* [plot.figure.NAME] tables (config.h, docs/figures.md): the overrides of one figure, named
 * by its file name without extension ("timeseries", "pcmap", a sweep graph's name), or of
 * its K-th panel ("timeseries.2"), each checked against nsd_plot_figure_decls like any
 * section: unknown keys, wrong types and ranges are errors at file:line:col. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_keys.h"
#include "plot_figures.h"

/* The figures the commands write under a fixed name (a sweep's graphs are named by the
 * study). */
static const char *const fixed_names[] = {
    "timeseries",       "phase", "events",       "snapshots",   "deviation",   "summary",
    "limit_directions", "pcmap", "continuation", "multipliers", "bifurcation", "lyapunov",
};
enum { N_FIXED = sizeof fixed_names / sizeof fixed_names[0] };

static char *dup_n(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) abort();
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* "NAME.K" with K a panel number (1..256): the name and K; else the whole key, 0. */
static char *split_panel(const char *key, size_t *panel) {
    const char *dot = strrchr(key, '.');
    *panel = 0;
    if (dot && dot[1]) {
        char *end = NULL;
        long k = strtol(dot + 1, &end, 10);
        int digits = 1;
        for (const char *p = dot + 1; *p; ++p) digits &= isdigit((unsigned char)*p) != 0;
        if (digits && *end == '\0' && k >= 1 && k <= 256) {
            *panel = (size_t)k;
            return dup_n(key, (size_t)(dot - key));
        }
    }
    return dup_n(key, strlen(key));
}

/* A figure name the config can draw: a fixed one, or any with a [sweep] (its graphs'
 * names); derived configs (variants, a sweep's runs) were checked as the base. */
static size_t check_name(int any_name, const nsd_toml_node *t, const char *name, nsd_diag *diag) {
    if (any_name) return 0;
    for (size_t i = 0; i < N_FIXED; ++i)
        if (!strcmp(fixed_names[i], name)) return 0;
    const char *near = nsd_did_you_mean(name, fixed_names, N_FIXED);
    nsd_diag_at(diag, t,
                "[plot.figure] '%s': no figure of that name (expected one of timeseries, phase, "
                "events, snapshots, deviation, summary, limit_directions, pcmap, continuation, "
                "multipliers, bifurcation, lyapunov, or a sweep graph's name)%s%s%s",
                name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return 1;
}

/* xlim / ylim: two finite numbers, lo < hi. */
static size_t check_range(const nsd_plot_figure *f, const char *key, nsd_diag *diag) {
    int i = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, key);
    const nsdyn_value *v = &f->keys.values[i];
    if (!f->keys.from[i]) return 0;
    if (v->len == 2 && isfinite(v->arr[0]) && isfinite(v->arr[1]) && v->arr[1] > v->arr[0])
        return 0;
    nsd_diag_at(diag, f->keys.from[i],
                "[plot.figure.%s] key '%s': expected [lo, hi], two finite numbers with hi > lo, "
                "found %zu value%s%s",
                f->name, key, v->len, v->len == 1 ? "" : "s",
                v->len == 2 ? " not in increasing order" : "");
    return 1;
}

/* width / height belong to the figure, not to a panel. */
static size_t check_panel_keys(const nsd_plot_figure *f, nsd_diag *diag) {
    static const char *const figure_only[] = {"width", "height"};
    size_t errors = 0;
    for (size_t k = 0; f->panel && k < 2; ++k) {
        int i = nsd_params_index(nsd_plot_figure_decls, nsd_n_plot_figure_decls, figure_only[k]);
        if (!f->keys.from[i] || f->keys.values[i].num == 0) continue; /* 0: as the figure */
        nsd_diag_at(diag, f->keys.from[i],
                    "[plot.figure.\"%s.%zu\"] key '%s': the size is the figure's: set it in "
                    "[plot.figure.%s]",
                    f->name, f->panel, figure_only[k], f->name);
        errors++;
    }
    return errors;
}

size_t nsd_plot_figures_parse(const nsd_toml_node *plot, int any_name, nsd_plot_figure **out,
                              size_t *n_out, nsd_diag *diag) {
    const nsd_toml_node *figs = nsd_toml_get(plot, "figure");
    if (!figs) return 0;
    if (figs->type != NSD_TOML_TABLE) {
        nsd_diag_at(diag, figs,
                    "[plot] key 'figure': expected tables of figures by name, e.g. "
                    "[plot.figure.timeseries] title = \"...\", found %s",
                    nsd_toml_type_name(figs->type));
        return 1;
    }
    size_t errors = 0;
    nsd_plot_figure *list = calloc(figs->n_items ? figs->n_items : 1, sizeof *list);
    if (!list) abort();
    *out = list;
    for (size_t i = 0; i < figs->n_items; ++i) {
        const nsd_toml_node *t = &figs->items[i];
        if (t->type != NSD_TOML_TABLE) {
            nsd_diag_at(diag, t,
                        "[plot.figure] key '%s': expected a table of the figure's keys (title, "
                        "xlabel, ylabel, xlim, ylim, width, height), found %s",
                        t->key, nsd_toml_type_name(t->type));
            errors++;
            continue;
        }
        nsd_plot_figure *f = &list[(*n_out)++];
        f->name = split_panel(t->key, &f->panel);
        f->where = t;
        char section[300];
        snprintf(section, sizeof section, "[plot.figure.%s]", t->key);
        size_t e = check_name(any_name, t, f->name, diag);
        e += nsd_params_resolve(&f->keys, nsd_plot_figure_decls, nsd_n_plot_figure_decls, t,
                                section, NULL, diag);
        if (e == 0) e += check_range(f, "xlim", diag) + check_range(f, "ylim", diag);
        if (e == 0) e += check_panel_keys(f, diag);
        errors += e;
    }
    return errors;
}

void nsd_plot_figures_free(nsd_plot_figure *figs, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        free(figs[i].name);
        nsd_params_free(&figs[i].keys);
    }
    free(figs);
}
