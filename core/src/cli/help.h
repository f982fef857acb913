/* The command line's documentation, written once: `nsdyn help [CMD]`,
 * `nsdyn CMD --help`, the man page (`nsdyn help --man`, installed as
 * nsdyn.1) and the bash completion (`nsdyn help --bash-completion`) are all
 * printed from the tables in help.c (commands and options). Every command of main.c's dispatch
 * table has an entry (main.c checks it when asked for help; the test
 * cli_help runs `nsdyn CMD --help` for each). */
#ifndef NSD_HELP_H
#define NSD_HELP_H

#include <stdio.h>

typedef struct nsd_command_help {
    const char *name;
    const char *args;    /* after the name: "CONFIG [options]" */
    const char *summary; /* one line */
    /* Paragraphs separated by blank lines, already wrapped at 76 columns;
     * a line starting with two spaces is kept as it is (a list). */
    const char *text;
    int config_options; /* takes the options of the CONFIG commands */
} nsd_command_help;

/* One option: its short letter (key < 128) or an NSD_OPT_ key (long
 * only), long name, the placeholder of its value (NULL: takes none), help
 * text and the commands that take it (" run sweep ", or "*" for all). */
typedef struct nsd_option_help {
    int key;
    const char *name, *arg, *text, *commands;
} nsd_option_help;

enum {
    NSD_OPT_SET = 256,
    NSD_OPT_NO_CONFIG_PLUGINS,
    NSD_OPT_REPEAT,
    NSD_OPT_NAMES,
    NSD_OPT_DB,
    NSD_OPT_CSV,
    NSD_OPT_NO_CSV,
    NSD_OPT_NO_GRAPHS,
    NSD_OPT_IDS,
    NSD_OPT_MAN,
    NSD_OPT_BASH,
    NSD_OPT_ZSH,
    NSD_OPT_FISH,
    NSD_OPT_FPS,
    NSD_OPT_SLOW,
    NSD_OPT_TRAILS,
    NSD_OPT_FORMAT,
    NSD_OPT_TIMEOUT,
    NSD_OPT_TRUST_CONFIG_PLUGINS,
    NSD_OPT_ACCEPT_PLUGIN_CHANGE,
    NSD_OPT_IN_PROCESS,
    NSD_OPT_RETRY_CRASHED,
};

/* Every option, in the order of the help. */
const nsd_option_help *nsd_help_options(size_t *n);
/* Does command take option o? */
int nsd_help_option_of(const nsd_option_help *o, const char *command);

/* The entry of command `name`, or NULL. */
const nsd_command_help *nsd_help_find(const char *name);

/* Every command's entry, in the order of the overview. */
const nsd_command_help *nsd_help_commands(size_t *n);

/* `nsdyn --help`: the commands with their summaries, the options, the
 * plugin search path and the exit statuses. */
void nsd_help_print_overview(FILE *out);

/* `nsdyn help CMD`: its usage, text and options. */
void nsd_help_print_command(FILE *out, const nsd_command_help *h);

/* The man page nsdyn(1) in roff (man macros). */
void nsd_help_print_man(FILE *out);

/* Completion scripts for bash, zsh and fish (help_completion.c): commands,
 * each command's own options, CONFIG files, folders for DIR, plugin ids
 * (describe) and the keys a config accepts (--set, through
 * `nsdyn keys CONFIG --names`). */
void nsd_help_print_bash_completion(FILE *out);
void nsd_help_print_zsh_completion(FILE *out);
void nsd_help_print_fish_completion(FILE *out);

#endif
