/* One argument parser for every command (getopt_long), built from the
 * option table of help.c, so that every command follows the same rules:
 * --output=DIR and --output DIR, -oDIR and -o DIR, -qj2 (short options
 * together), "--" ends the options, a unique prefix of a long name is
 * accepted (GNU), and an option a command does not take is an error that
 * names the command's help. Numbers are whole and in range ("-j2x" is an
 * error, not 2). */
#ifndef NSD_CLI_ARGS_H
#define NSD_CLI_ARGS_H

/* Called for each option in order: key (help.h: a letter or NSD_OPT_*)
 * and its value (NULL if it takes none). Returns 0, or -1 after printing
 * an error (parsing stops). */
typedef int (*nsd_cli_option_fn)(void *ctx, int key, const char *value);

enum { NSD_CLI_OK = 0, NSD_CLI_HELP = 1, NSD_CLI_ERROR = -1 };

/* Parse argv[1..argc-1] as the options and operands of `command`
 * (argv[0]; argv is argv + 1 of main's). Operands are moved to the end
 * (GNU getopt) and returned as *operands, *n_operands; -h/--help returns
 * NSD_CLI_HELP at once. Errors are printed ("error: ...") and return
 * NSD_CLI_ERROR. */
int nsd_cli_parse(const char *command, int argc, char **argv, nsd_cli_option_fn on, void *ctx,
                  char ***operands, int *n_operands);

/* text as a whole number in [lo, hi] for option `flag` ("-j"); 0, or -1
 * with "error: -j '2x': expected a whole number from 1 to 1024" printed. */
int nsd_cli_whole(const char *flag, const char *text, long lo, long hi, long *out);

/* A file operand that must be a readable regular file (what: "config",
 * "plugin file"): 0, or -1 with the reason printed, e.g. "error: config
 * 'configs' is a directory, not a file". */
int nsd_cli_check_file(const char *what, const char *path);

#endif
