/* nsdyn: command-line front end of the host. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "nsdyn/plugin.h"
#include "nsdyn_build_config.h"

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: nsdyn COMMAND [ARGS]\n"
        "\n"
        "commands:\n"
        "  run CONFIG [-o DIR] [--set section.key=value]...\n"
        "        run one simulation; writes timeseries.csv, run.toml and graphs to DIR\n"
        "        (default out/<config name>)\n"
        "  compare CONFIG [-o DIR] [--set section.key=value]...\n"
        "        run the config's [[variant]]s, overlay their graphs, tabulate cost and\n"
        "        deviations from the reference variant (metrics.csv)\n"
        "  limits CONFIG [-o DIR] [--set ...]\n"
        "        limit directions R(phi), V(phi) of a 2-D Coulomb contact at the initial\n"
        "        state, the stick-force test, and the u1-u2 phase portrait\n"
        "  plugins            list every plugin found (kind, id, version, summary); opens and\n"
        "        checks every shared object on the search path; exit 2 if one is broken\n"
        "  describe ID        a plugin's parameters: units, defaults, ranges, help\n"
        "  index PLUGIN.so... check plugins and write their index (PLUGIN.so.nsdyn-index);\n"
        "        nsdyn_add_plugin runs it when it builds a plugin\n"
        "  --help, --version\n"
        "\n"
        "options of run, compare, limits:\n"
        "  --no-config-plugins  refuse the config's plugin_path (as NSDYN_NO_CONFIG_PLUGINS=1 "
        "does)\n"
        "\n"
        "plugin search path: the config's plugin_path, then NSDYN_PLUGIN_PATH (colon-separated),\n"
        "then the host's own plugin directory. A run opens only the shared objects that hold\n"
        "the plugins its config names, found by their index or their name nsdyn_<kind>_<id>.so;\n"
        "a config's plugin_path is code that runs.\n"
        "exit status: 0 success, 2 usage or config error, 3 the simulation failed,\n"
        "4 the outputs could not be written, 128+N stopped by signal N (130 Ctrl-C); after 3\n"
        "or 128+N the data computed so far are in DIR.INCOMPLETE/, DIR untouched.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return NSD_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return NSD_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("nsdyn %s (plugin ABI %u.%u)\n", NSDYN_VERSION, NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
        return NSD_EXIT_OK;
    }
    if (!strcmp(cmd, "plugins")) {
        if (argc != 2) {
            fprintf(stderr, "error: 'nsdyn plugins' takes no arguments\n");
            return NSD_EXIT_USAGE;
        }
        return nsd_cmd_plugins();
    }
    if (!strcmp(cmd, "index")) {
        if (argc < 3) {
            fprintf(stderr, "error: usage: nsdyn index PLUGIN.so...\n");
            return NSD_EXIT_USAGE;
        }
        return nsd_cmd_index(argc - 2, argv + 2);
    }
    if (!strcmp(cmd, "describe")) {
        if (argc != 3) {
            fprintf(stderr, "error: usage: nsdyn describe ID\n");
            return NSD_EXIT_USAGE;
        }
        return nsd_cmd_describe(argv[2]);
    }
    int (*command)(const nsd_cli *) = NULL;
    if (!strcmp(cmd, "run"))
        command = nsd_cmd_run;
    else if (!strcmp(cmd, "compare"))
        command = nsd_cmd_compare;
    else if (!strcmp(cmd, "limits"))
        command = nsd_cmd_limits;
    else {
        fprintf(stderr, "error: unknown command '%s' (nsdyn --help lists the commands)\n", cmd);
        return NSD_EXIT_USAGE;
    }
    nsd_cli cli = {0};
    cli.sets = calloc((size_t)argc, sizeof *cli.sets);
    /* The command line, for the run record. */
    size_t len = 1;
    for (int i = 0; i < argc; ++i) len += strlen(argv[i]) + 1;
    char *line = calloc(len, 1);
    if (!cli.sets || !line) return NSD_EXIT_FAILED;
    for (int i = 0; i < argc; ++i) {
        strcat(line, argv[i]);
        if (i + 1 < argc) strcat(line, " ");
    }
    cli.command_line = line;
    int status = NSD_EXIT_OK;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: %s needs a directory\n", a);
                status = NSD_EXIT_USAGE;
                goto done;
            }
            cli.out_dir = argv[++i];
        } else if (!strcmp(a, "--set")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: --set needs section.key=value\n");
                status = NSD_EXIT_USAGE;
                goto done;
            }
            cli.sets[cli.n_sets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) {
            cli.sets[cli.n_sets++] = a + 6;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            cli.quiet = 1;
        } else if (!strcmp(a, "--no-config-plugins")) {
            /* Read where the search path is built (config.c). */
            setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1);
        } else if (a[0] == '-') {
            fprintf(stderr, "error: unknown option '%s' (nsdyn --help)\n", a);
            status = NSD_EXIT_USAGE;
            goto done;
        } else if (!cli.config) {
            cli.config = a;
        } else {
            fprintf(stderr, "error: unexpected argument '%s' (one CONFIG per command)\n", a);
            status = NSD_EXIT_USAGE;
            goto done;
        }
    }
    if (!cli.config) {
        fprintf(stderr, "error: nsdyn %s needs a CONFIG file\n", cmd);
        status = NSD_EXIT_USAGE;
        goto done;
    }
    status = command(&cli);
done:
    free(cli.sets);
    free(line);
    return status;
}
