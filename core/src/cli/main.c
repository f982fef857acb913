/* nsdyn: command-line front end of the host. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_probe.h"
#include "app.h"
#include "cli_args.h"
#include "cli.h"
#include "compare.h"
#include "help.h"
#include "nsdyn/plugin.h"
#include "nsdyn_build_config.h"

/* A command's options that take no value and set a flag (help, plugins). */
static int on_flag(void *ctx, int key, const char *value) {
    (void)value;
    *(int *)ctx = key;
    return 0;
}

/* Parse a command without a CONFIG: only flag options; its operands. The
 * status NSD_CLI_HELP has printed the help. */
static int parse_plain(int argc, char **argv, int *flag, char ***ops, int *n_ops) {
    int rc = nsd_cli_parse(argv[1], argc - 1, argv + 1, on_flag, flag, ops, n_ops);
    if (rc == NSD_CLI_HELP) nsd_help_print_command(stdout, nsd_help_find(argv[1]));
    return rc;
}

/* The operand count of a command without a CONFIG, or its usage error. */
static int usage_unless(int ok, const char *command) {
    if (ok) return NSD_EXIT_OK;
    const nsd_command_help *h = nsd_help_find(command);
    fprintf(stderr, "error: usage: nsdyn %s %s\n", h->name, h->args);
    return NSD_EXIT_USAGE;
}

static int cmd_help(int argc, char **argv) {
    if (argc == 3 && nsd_help_find(argv[2])) { /* also "nsdyn help --version" */
        nsd_help_print_command(stdout, nsd_help_find(argv[2]));
        return NSD_EXIT_OK;
    }
    int flag = 0, n = 0;
    char **ops = NULL;
    int rc = parse_plain(argc, argv, &flag, &ops, &n);
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (flag && n == 0) {
        if (flag == NSD_OPT_MAN) nsd_help_print_man(stdout);
        if (flag == NSD_OPT_BASH) nsd_help_print_bash_completion(stdout);
        if (flag == NSD_OPT_ZSH) nsd_help_print_zsh_completion(stdout);
        if (flag == NSD_OPT_FISH) nsd_help_print_fish_completion(stdout);
        return NSD_EXIT_OK;
    }
    if (!flag && n == 0) {
        nsd_help_print_overview(stdout);
        return NSD_EXIT_OK;
    }
    const nsd_command_help *h = !flag && n == 1 ? nsd_help_find(ops[0]) : NULL;
    if (!h) {
        fprintf(stderr, "error: usage: nsdyn help %s%s%s%s\n", nsd_help_find("help")->args,
                n == 1 && !flag ? " (no command '" : "", n == 1 && !flag ? ops[0] : "",
                n == 1 && !flag ? "'; nsdyn help lists them)" : "");
        return NSD_EXIT_USAGE;
    }
    nsd_help_print_command(stdout, h);
    return NSD_EXIT_OK;
}

static int cmd_version(int argc, char **argv) {
    int flag = 0, n = 0;
    char **ops = NULL;
    int rc = parse_plain(argc, argv, &flag, &ops, &n);
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (usage_unless(n == 0, "--version")) return NSD_EXIT_USAGE;
    printf("nsdyn %s (plugin ABI %u.%u)\n", NSDYN_VERSION, NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    return NSD_EXIT_OK;
}

static int cmd_plugins(int argc, char **argv) {
    int flag = 0, n = 0;
    char **ops = NULL;
    int rc = parse_plain(argc, argv, &flag, &ops, &n);
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (usage_unless(n == 0, "plugins")) return NSD_EXIT_USAGE;
    return flag == NSD_OPT_IDS ? nsd_cmd_plugin_ids() : nsd_cmd_plugins();
}

/* check and index: PLUGIN.so... each a readable file. */
static int plugin_files(int argc, char **argv, char ***ops, int *n) {
    int flag = 0;
    int rc = parse_plain(argc, argv, &flag, ops, n);
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? -1 : NSD_EXIT_USAGE;
    if (usage_unless(*n > 0, argv[1])) return NSD_EXIT_USAGE;
    for (int i = 0; i < *n; ++i)
        if (nsd_cli_check_file("plugin file", (*ops)[i]) != 0) return NSD_EXIT_USAGE;
    return NSD_EXIT_OK;
}

/* check's --timeout S: seconds per plugin before a callback that never
 * returns is a finding (conformance_isolate.c). */
static int on_check_option(void *ctx, int key, const char *value) {
    if (key != NSD_OPT_TIMEOUT) return 0;
    char *end;
    double s = strtod(value, &end);
    if (end == value || *end || !(s > 0 && s <= 86400)) {
        fprintf(stderr,
                "error: nsdyn check --timeout: expected seconds in (0, 86400], found '%s'\n",
                value);
        return -1;
    }
    *(double *)ctx = s;
    return 0;
}

static int cmd_check(int argc, char **argv) {
    double timeout_s = 60.0; /* per plugin */
    char **ops = NULL;
    int n = 0;
    int rc = nsd_cli_parse(argv[1], argc - 1, argv + 1, on_check_option, &timeout_s, &ops, &n);
    if (rc == NSD_CLI_HELP) nsd_help_print_command(stdout, nsd_help_find(argv[1]));
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (usage_unless(n > 0, argv[1])) return NSD_EXIT_USAGE;
    for (int i = 0; i < n; ++i)
        if (nsd_cli_check_file("plugin file", ops[i]) != 0) return NSD_EXIT_USAGE;
#ifdef NSDYN_ALLOC_PROBE
    const nsd_alloc_probe *probe = nsd_alloc_probe_get();
#else
    const nsd_alloc_probe *probe = NULL; /* sanitizer build: malloc is theirs */
#endif
    return nsd_cmd_check(n, ops, probe, timeout_s);
}

static int cmd_index(int argc, char **argv) {
    char **ops = NULL;
    int n = 0, rc = plugin_files(argc, argv, &ops, &n);
    if (rc) return rc < 0 ? NSD_EXIT_OK : rc;
    return nsd_cmd_index(n, ops);
}

static int cmd_describe(int argc, char **argv) {
    int flag = 0, n = 0;
    char **ops = NULL;
    int rc = parse_plain(argc, argv, &flag, &ops, &n);
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_EXIT_OK : NSD_EXIT_USAGE;
    if (usage_unless(n == 1, "describe")) return NSD_EXIT_USAGE;
    return nsd_cmd_describe(ops[0]);
}

/* An option of the CONFIG commands into the nsd_cli. */
static int on_config_option(void *ctx, int key, const char *value) {
    nsd_cli *cli = ctx;
    long n = 0;
    switch (key) {
        case 'o': cli->out_dir = value; return 0;
        case NSD_OPT_SET: cli->sets[cli->n_sets++] = value; return 0;
        case 'q': cli->quiet = 1; return 0;
        case NSD_OPT_NAMES: cli->names_only = 1; return 0;
        case NSD_OPT_NO_CONFIG_PLUGINS: /* read where the search path is built (config.c) */
            setenv("NSDYN_NO_CONFIG_PLUGINS", "1", 1);
            return 0;
        case NSD_OPT_TRUST_CONFIG_PLUGINS: /* read by plugin_trust.c */
            setenv("NSDYN_TRUST_CONFIG_PLUGINS", "1", 1);
            return 0;
        case NSD_OPT_ACCEPT_PLUGIN_CHANGE: setenv("NSDYN_ACCEPT_PLUGIN_CHANGE", "1", 1); return 0;
        case NSD_OPT_REPEAT:
            if (nsd_cli_whole("--repeat", value, 1, NSD_COMPARE_MAX_REPEAT, &n) != 0) return -1;
            cli->repeat = (int)n;
            return 0;
        default: return -1; /* not in the table: cannot happen */
    }
}

/* The options and the CONFIG of a command that takes one. Returns 0,
 * NSD_CLI_HELP (the help printed) or NSD_EXIT_USAGE (message printed). */
static int parse_options(int argc, char **argv, nsd_cli *cli) {
    char **ops = NULL;
    int n = 0, rc = nsd_cli_parse(argv[1], argc - 1, argv + 1, on_config_option, cli, &ops, &n);
    if (rc == NSD_CLI_HELP) nsd_help_print_command(stdout, nsd_help_find(argv[1]));
    if (rc != NSD_CLI_OK) return rc == NSD_CLI_HELP ? NSD_CLI_HELP : NSD_EXIT_USAGE;
    if (n == 0) {
        fprintf(stderr, "error: nsdyn %s needs a CONFIG file\n", argv[1]);
        return NSD_EXIT_USAGE;
    }
    if (n > 1) {
        fprintf(stderr, "error: unexpected argument '%s' (one CONFIG per command)\n", ops[1]);
        return NSD_EXIT_USAGE;
    }
    cli->config = ops[0];
    return nsd_cli_check_file("config", cli->config) ? NSD_EXIT_USAGE : NSD_EXIT_OK;
}

/* run, compare, limits, periodic, pcmap, keys: CONFIG and their options */
static int config_command(int (*command)(const nsd_cli *), int argc, char **argv) {
    nsd_cli cli = {0};
    cli.sets = calloc((size_t)argc, sizeof *cli.sets);
    /* The command line, for the run record (before getopt reorders it). */
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
        if (status == NSD_CLI_HELP)
            status = NSD_EXIT_OK;
        else if (status == NSD_EXIT_OK)
            status = command(&cli);
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
    {"run", NULL, nsd_cmd_run},         {"compare", NULL, nsd_cmd_compare},
    {"limits", NULL, nsd_cmd_limits},   {"periodic", NULL, nsd_cmd_periodic},
    {"pcmap", NULL, nsd_cmd_pcmap},     {"keys", NULL, nsd_cmd_keys},
    {"plugins", cmd_plugins, NULL},     {"describe", cmd_describe, NULL},
    {"check", cmd_check, NULL},         {"index", cmd_index, NULL},
    {"help", cmd_help, NULL},           {"--version", cmd_version, NULL},
    {"sweep", nsd_cmd_sweep, NULL}, /* reads its own options (-j, --db, ...) */
    {"animate", nsd_cmd_animate, NULL},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        nsd_help_print_overview(stderr);
        return NSD_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        nsd_help_print_overview(stdout);
        return NSD_EXIT_OK;
    }
    for (size_t i = 0; i < NSDYN_COUNT(commands); ++i) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        const nsd_command_help *h = nsd_help_find(commands[i].name);
        if (!h) {
            fprintf(stderr, "nsdyn: internal error: command '%s' has no help\n", argv[1]);
            return 70; /* EX_SOFTWARE */
        }
        return commands[i].own ? commands[i].own(argc, argv)
                               : config_command(commands[i].with_config, argc, argv);
    }
    fprintf(stderr, "error: unknown command '%s' (nsdyn help lists the commands)\n", argv[1]);
    return NSD_EXIT_USAGE;
}
