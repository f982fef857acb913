/* The command line's documentation, written once: `nsdyn help [CMD]`,
 * `nsdyn CMD --help`, the man page (`nsdyn help --man`, installed as
 * nsdyn.1) and the bash completion (`nsdyn help --bash-completion`) are all
 * printed from the table in help.c. Every command of main.c's dispatch
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

/* A bash completion script for nsdyn: commands, options, CONFIG files,
 * plugin ids (describe) and the keys a config accepts (--set, through
 * `nsdyn keys CONFIG`). */
void nsd_help_print_bash_completion(FILE *out);

#endif
