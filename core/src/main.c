/* nsdyn: command-line front end of the host. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_probe.h"
#include "app.h"
#include "cli.h"
#include "compare.h"
#include "help.h"
#include "nsdyn/plugin.h"
#include "nsdyn_build_config.h"

static int cmd_help(int argc, char **argv) {
    if (argc == 2) {
        nsd_help_print_overview(stdout);
        return NSD_EXIT_OK;
    }
    if (argc == 3 && !strcmp(argv[2], "--man")) {
        nsd_help_print_man(stdout);
        return NSD_EXIT_OK;
    }
    if (argc == 3 && !strcmp(argv[2], "--bash-completion")) {
        nsd_help_print_bash_completion(stdout);
        return NSD_EXIT_OK;
    }
    const char *topic = argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) ? "help"
                        : argc == 3 ? argv[2]
                                    : NULL;
    const nsd_command_help *h = topic ? nsd_help_find(topic) : NULL;
    if (!h) {
        fprintf(stderr, "error: usage: nsdyn help [COMMAND | --man | --bash-completion]%s%s%s\n",
                argc == 3 ? " (no command '" : "", argc == 3 ? argv[2] : "",
                argc == 3 ? "'; nsdyn help lists them)" : "");
        return NSD_EXIT_USAGE;
    }
    nsd_help_print_command(stdout, h);
    return NSD_EXIT_OK;
}

static int cmd_version(int argc, char **argv) {
    (void)argc, (void)argv;
    printf("nsdyn %s (plugin ABI %u.%u)\n", NSDYN_VERSION, NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    return NSD_EXIT_OK;
}

static int cmd_plugins(int argc, char **argv) {
    int ids = argc == 3 && !strcmp(argv[2], "--ids");
    if (argc != 2 && !ids) {
        fprintf(stderr, "error: usage: nsdyn plugins [--ids]\n");
        return NSD_EXIT_USAGE;
    }
    return ids ? nsd_cmd_plugin_ids() : nsd_cmd_plugins();
}

static int cmd_check(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "error: usage: nsdyn check PLUGIN.so...\n");
        return NSD_EXIT_USAGE;
    }
#ifdef NSDYN_ALLOC_PROBE
    const nsd_alloc_probe *probe = nsd_alloc_probe_get();
#else
    const nsd_alloc_probe *probe = NULL; /* sanitizer build: malloc is theirs */
#endif
    return nsd_cmd_check(argc - 2, argv + 2, probe);
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
        } else if (!strcmp(a, "--names") && !strcmp(argv[1], "keys")) {
            cli->names_only = 1;
        } else if (!strcmp(a, "--trust-config-plugins")) {
            setenv("NSDYN_TRUST_CONFIG_PLUGINS", "1", 1); /* read by plugin_trust.c */
        } else if (!strcmp(a, "--accept-plugin-change")) {
            setenv("NSDYN_ACCEPT_PLUGIN_CHANGE", "1", 1);
        } else if (!strcmp(a, "--no-config-plugins")) {
            /* Read where the search path is built (config.c). */
            setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1);
        } else if (a[0] == '-') {
            fprintf(stderr, "error: unknown option '%s' (nsdyn %s --help)\n", a, argv[1]);
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
 * (config_command), the others read their own arguments. Each has its
 * help in help.c. */
static const struct {
    const char *name;
    int (*own)(int argc, char **argv);
    int (*with_config)(const nsd_cli *cli);
} commands[] = {
    {"run", NULL, nsd_cmd_run},       {"compare", NULL, nsd_cmd_compare},
    {"limits", NULL, nsd_cmd_limits}, {"periodic", NULL, nsd_cmd_periodic},
    {"pcmap", NULL, nsd_cmd_pcmap},   {"keys", NULL, nsd_cmd_keys},
    {"plugins", cmd_plugins, NULL},   {"describe", cmd_describe, NULL},
    {"check", cmd_check, NULL},       {"index", cmd_index, NULL},
    {"help", cmd_help, NULL},         {"--version", cmd_version, NULL},
    {"sweep", nsd_cmd_sweep, NULL}, /* reads its own options (-j, --db, ...) */
};

/* `nsdyn CMD --help` or `-h` anywhere after CMD (not after --set). */
static int wants_help(int argc, char **argv) {
    for (int i = 2; i < argc; ++i) {
        if (!strcmp(argv[i], "--set") || !strcmp(argv[i], "-o"))
            ++i;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        nsd_help_print_overview(stderr);
        return NSD_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return cmd_help(2, argv);
    for (size_t i = 0; i < NSDYN_COUNT(commands); ++i) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        const nsd_command_help *h = nsd_help_find(commands[i].name);
        if (!h) {
            fprintf(stderr, "nsdyn: internal error: command '%s' has no help\n", argv[1]);
            return 70; /* EX_SOFTWARE */
        }
        if (strcmp(argv[1], "help") != 0 && wants_help(argc, argv)) {
            nsd_help_print_command(stdout, h);
            return NSD_EXIT_OK;
        }
        return commands[i].own ? commands[i].own(argc, argv)
                               : config_command(commands[i].with_config, argc, argv);
    }
    fprintf(stderr, "error: unknown command '%s' (nsdyn help lists the commands)\n", argv[1]);
    return NSD_EXIT_USAGE;
}
