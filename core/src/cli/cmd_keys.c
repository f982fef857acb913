/* nsdyn keys CONFIG: every key the config accepts, resolved (help.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plugin_trust.h"

/* One section: as TOML (`[name]`, the plugin id, key = value # [unit]
 * set|default), or its keys as name.key= lines. */
static void print_section(const char *name, const char *id, const nsd_params *p, int names) {
    if (names) {
        for (size_t i = 0; i < p->n; ++i) printf("%s.%s=\n", name, p->decls[i].name);
        return;
    }
    printf("\n[%s]\n", name);
    if (id) printf("id = \"%s\"\n", id);
    nsd_params_write_toml(stdout, p);
}

/* The keys of a [plot.figure.NAME] table (docs/figures.md), as comments: they override one
 * figure, so none is set unless the config sets it (those are in the [plot] section). */
static void print_figure_keys(int names) {
    for (size_t i = 0; names && i < nsd_n_plot_figure_decls; ++i)
        printf("plot.figure.NAME.%s=\n", nsd_plot_figure_decls[i].name);
    if (names) return;
    printf("\n# [plot.figure.NAME] overrides one figure, NAME its file name without extension "
           "(timeseries, phase, pcmap, a sweep graph's name, ...);\n# [plot.figure.\"NAME.K\"] "
           "its K-th panel only. Keys:\n");
    for (size_t i = 0; i < nsd_n_plot_figure_decls; ++i)
        printf("#   %-7s %s\n", nsd_plot_figure_decls[i].name, nsd_plot_figure_decls[i].help);
}

/* [initial]: the states, at the initial state the model starts from. */
static void print_initial(const nsd_model *m, int names) {
    if (!names) printf("\n[initial]  # the states: q then v\n");
    for (size_t i = 0; i < m->nq + m->nv; ++i) {
        const nsdyn_channel *c = i < m->nq ? &m->layout.q[i] : &m->layout.v[i - m->nq];
        if (names)
            printf("initial.%s=\n", c->name);
        else
            printf("%s = %.17g  # [%s] %s\n", c->name, m->y0[i], c->unit, c->label ? c->label : "");
    }
}

/* The system's output channels and contact candidates, as comments (the
 * names plot.series, compare channels and the contact force channels
 * <name>.N, .Ft1, .Ft2 use). */
static void print_system_names(const nsd_model *m) {
    const nsdyn_system_layout *L = &m->layout;
    printf("\n# output channels of the system:%s\n", L->n_outputs ? "" : " none");
    for (size_t i = 0; i < L->n_outputs; ++i)
        printf("#   %s [%s] %s\n", L->outputs[i].name, L->outputs[i].unit,
               L->outputs[i].label ? L->outputs[i].label : "");
    printf("# contact candidates of the system:%s\n", L->n_contacts ? "" : " none");
    for (size_t i = 0; i < L->n_contacts; ++i)
        printf("#   %s (%s, %u-D slip)\n", L->contacts[i].name,
               L->contacts[i].type == NSDYN_CONTACT_UNILATERAL ? "unilateral" : "persistent",
               (unsigned)L->contacts[i].tangent_dim);
}

int nsd_cmd_keys(const nsd_cli *cli) {
    nsd_scenario s = {0};
    nsd_diag diag = {0};
    int status = NSD_EXIT_USAGE;
    nsd_plugin_trust_read_only("keys"); /* opens no shared object the config names */
    if (nsd_cli_load(cli, &s, 1, &diag) == 0) {
        const nsd_config *c = &s.app.cfg;
        const nsd_section *sec[] = {&c->system, &c->contact, &c->friction, &c->integrator};
        if (!cli->names_only) printf("# %s, resolved: every key and its value\n", c->path);
        for (size_t k = 0; k < 4; ++k)
            if (sec[k]->plugin)
                print_section(nsd_kind_section(sec[k]->kind), sec[k]->plugin->info->id,
                              &sec[k]->params, cli->names_only);
        print_section("run", NULL, &c->run, cli->names_only);
        print_section("plot", NULL, &c->plot, cli->names_only);
        for (size_t i = 0; !cli->names_only && i < c->n_figures; ++i) {
            char key[300];
            snprintf(key, sizeof key,
                     c->figures[i].panel ? "plot.figure.\"%s.%zu\"" : "plot.figure.%s",
                     c->figures[i].name, c->figures[i].panel);
            print_section(key, NULL, &c->figures[i].keys, 0);
        }
        print_figure_keys(cli->names_only);
        print_initial(&s.model, cli->names_only);
        if (!cli->names_only) print_system_names(&s.model);
        status = NSD_EXIT_OK;
    }
    nsd_scenario_destroy(&s);
    nsd_diag_free(&diag);
    return status;
}
