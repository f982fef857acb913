/* The argument parser of every command (cli_args.h). */
#define _GNU_SOURCE
#include "cli_args.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "help.h"

enum { MAX_OPTIONS = 64 };

/* The getopt_long tables of `command` from help.c's option table. The
 * short string starts with ':' so a missing value is told from an unknown
 * option. */
static int build_tables(const char *command, struct option *lo, char *so, size_t so_len) {
    size_t n_opt, n = 0, k = 0;
    const nsd_option_help *o = nsd_help_options(&n_opt);
    so[k++] = ':';
    for (size_t i = 0; i < n_opt && n + 1 < MAX_OPTIONS; ++i) {
        if (!nsd_help_option_of(&o[i], command)) continue;
        lo[n++] =
            (struct option){o[i].name, o[i].arg ? required_argument : no_argument, NULL, o[i].key};
        if (o[i].key < 128 && k + 3 < so_len) {
            so[k++] = (char)o[i].key;
            if (o[i].arg) so[k++] = ':';
        }
    }
    lo[n] = (struct option){0};
    so[k] = '\0';
    return (int)n;
}

static const nsd_option_help *find_key(const char *command, int key) {
    size_t n;
    const nsd_option_help *o = nsd_help_options(&n);
    for (size_t i = 0; i < n; ++i)
        if (o[i].key == key && nsd_help_option_of(&o[i], command)) return &o[i];
    return NULL;
}

/* The error for getopt's '?' or ':' on argument `arg`. */
static void report(const char *command, int c, const char *arg, const struct option *lo) {
    const nsd_option_help *o = optopt ? find_key(command, optopt) : NULL;
    if (c == ':') {
        char flag[48];
        if (optopt && optopt < 128 && strncmp(arg, "--", 2) != 0)
            snprintf(flag, sizeof flag, "-%c", optopt);
        else
            snprintf(flag, sizeof flag, "%s", arg);
        fprintf(stderr, "error: %s needs a value (%s)\n", flag, o && o->arg ? o->arg : "a value");
        return;
    }
    if (optopt && optopt < 128 && strncmp(arg, "--", 2) != 0) {
        fprintf(stderr, "error: unknown option '-%c' (nsdyn %s --help)\n", optopt, command);
        return;
    }
    /* a long option: unknown, ambiguous, or given a value it does not take */
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (const struct option *l = lo; eq && l->name; ++l)
        if (l->has_arg == no_argument && len > 2 && !strncmp(arg + 2, l->name, len - 2)) {
            fprintf(stderr, "error: --%s takes no value, found '%s'\n", l->name, arg);
            return;
        }
    int matches = 0;
    for (const struct option *l = lo; l->name; ++l)
        matches += len > 2 && !strncmp(arg + 2, l->name, len - 2);
    fprintf(stderr, "error: %s option '%.*s' (nsdyn %s --help)\n",
            matches > 1 ? "ambiguous" : "unknown", (int)len, arg, command);
}

int nsd_cli_parse(const char *command, int argc, char **argv, nsd_cli_option_fn on, void *ctx,
                  char ***operands, int *n_operands) {
    struct option lo[MAX_OPTIONS];
    char so[2 * MAX_OPTIONS + 2];
    build_tables(command, lo, so, sizeof so);
    optind = 0; /* GNU: start afresh (the table differs between calls) */
    opterr = 0; /* our own messages */
    for (;;) {
        int c = getopt_long(argc, argv, so, lo, NULL);
        if (c == -1) break;
        if (c == '?' || c == ':') {
            /* a long option that failed is the argument before optind (a
             * short one is named by optopt) */
            report(command, c, argv[optind - 1 < argc ? optind - 1 : argc - 1], lo);
            return NSD_CLI_ERROR;
        }
        if (c == 'h') return NSD_CLI_HELP;
        if (on(ctx, c, optarg) != 0) return NSD_CLI_ERROR;
    }
    *operands = argv + optind;
    *n_operands = argc - optind;
    return NSD_CLI_OK;
}

int nsd_cli_whole(const char *flag, const char *text, long lo, long hi, long *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "error: %s '%s': expected a whole number from %ld to %ld\n", flag, text, lo,
                hi);
        return -1;
    }
    *out = v;
    return 0;
}

int nsd_cli_check_file(const char *what, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "error: %s '%s': %s\n", what, path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "error: %s '%s' is a directory, not a file\n", what, path);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "error: %s '%s' cannot be read: %s\n", what, path, strerror(errno));
        return -1;
    }
    return 0;
}
