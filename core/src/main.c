/* nsdyn: command-line front end of the host. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "compare.h"
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

static int cmd_help(int argc, char **argv) {
    (void)argc, (void)argv;
    usage(stdout);
    return NSD_EXIT_OK;
}

static int cmd_version(int argc, char **argv) {
    (void)argc, (void)argv;
    printf("nsdyn %s (plugin ABI %u.%u)\n", NSDYN_VERSION, NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    return NSD_EXIT_OK;
}

static int cmd_plugins(int argc, char **argv) {
    (void)argv;
    if (argc != 2) {
        fprintf(stderr, "error: 'nsdyn plugins' takes no arguments\n");
        return NSD_EXIT_USAGE;
    }
    return nsd_cmd_plugins();
}

static int cmd_index(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "error: usage: nsdyn index PLUGIN.so...\n");
        return NSD_EXIT_USAGE;
    }
    return nsd_cmd_index(argc - 2, argv + 2);
}

static int cmd_describe(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "error: usage: nsdyn describe ID\n");
        return NSD_EXIT_USAGE;
    }
    return nsd_cmd_describe(argv[2]);
}

/* The options of the commands that take a CONFIG (argv[2] on) into cli.
 * Returns 0, or NSD_EXIT_USAGE with the message printed. */
static int parse_options(int argc, char **argv, nsd_cli *cli) {
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: %s needs a directory\n", a);
                return NSD_EXIT_USAGE;
            }
            cli->out_dir = argv[++i];
        } else if (!strcmp(a, "--set")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "error: --set needs section.key=value\n");
                return NSD_EXIT_USAGE;
            }
            cli->sets[cli->n_sets++] = argv[++i];
        } else if (!strncmp(a, "--set=", 6)) {
            cli->sets[cli->n_sets++] = a + 6;
        } else if (!strcmp(a, "--repeat") && !strcmp(argv[1], "compare")) {
            char *end = NULL;
            long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || n < 1 || n > NSD_COMPARE_MAX_REPEAT) {
                fprintf(stderr, "error: --repeat needs a whole number of runs from 1 to %d%s%s%s\n",
                        NSD_COMPARE_MAX_REPEAT, i + 1 < argc ? ", found '" : "",
                        i + 1 < argc ? argv[i + 1] : "", i + 1 < argc ? "'" : "");
                return NSD_EXIT_USAGE;
            }
            cli->repeat = (int)n;
            i++;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            cli->quiet = 1;
        } else if (!strcmp(a, "--no-config-plugins")) {
            /* Read where the search path is built (config.c). */
            setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1);
        } else if (a[0] == '-') {
            fprintf(stderr, "error: unknown option '%s' (nsdyn --help)\n", a);
            return NSD_EXIT_USAGE;
        } else if (!cli->config) {
            cli->config = a;
        } else {
            fprintf(stderr, "error: unexpected argument '%s' (one CONFIG per command)\n", a);
            return NSD_EXIT_USAGE;
        }
    }
    if (!cli->config) {
        fprintf(stderr, "error: nsdyn %s needs a CONFIG file\n", argv[1]);
        return NSD_EXIT_USAGE;
    }
    return NSD_EXIT_OK;
}

/* run, compare, limits: CONFIG [-o DIR] [--set k=v]... [-q] */
static int config_command(int (*command)(const nsd_cli *), int argc, char **argv) {
    nsd_cli cli = {0};
    cli.sets = calloc((size_t)argc, sizeof *cli.sets);
    /* The command line, for the run record. */
    size_t len = 1;
    for (int i = 0; i < argc; ++i) len += strlen(argv[i]) + 1;
    char *line = calloc(len, 1);
    int status = NSD_EXIT_FAILED; /* out of memory */
    if (cli.sets && line) {
        for (int i = 0; i < argc; ++i) {
            strcat(line, argv[i]);
            if (i + 1 < argc) strcat(line, " ");
        }
        cli.command_line = line;
        status = parse_options(argc, argv, &cli);
        if (status == NSD_EXIT_OK) status = command(&cli);
    }
    free(cli.sets);
    free(line);
    return status;
}

/* The commands: those that take a CONFIG share their options
 * (config_command), the others read their own arguments. */
static const struct {
    const char *name;
    int (*own)(int argc, char **argv);
    int (*with_config)(const nsd_cli *cli);
} commands[] = {
    {"--help", cmd_help, NULL},         {"-h", cmd_help, NULL},
    {"help", cmd_help, NULL},           {"--version", cmd_version, NULL},
    {"plugins", cmd_plugins, NULL},     {"index", cmd_index, NULL},
    {"describe", cmd_describe, NULL},   {"run", NULL, nsd_cmd_run},
    {"compare", NULL, nsd_cmd_compare}, {"limits", NULL, nsd_cmd_limits},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return NSD_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].own ? commands[i].own(argc, argv)
                                   : config_command(commands[i].with_config, argc, argv);
    fprintf(stderr, "error: unknown command '%s' (nsdyn --help lists the commands)\n", argv[1]);
    return NSD_EXIT_USAGE;
}
