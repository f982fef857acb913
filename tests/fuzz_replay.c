/* Corpus replay of the fuzz targets, in the normal build (no clang needed):
 * every file given (or found in a folder given) is fed to the function the
 * fuzz target calls (fuzz/fuzz_entry.c), each in its own child process with
 * a time limit, so a crash, a sanitizer report (in the ASan build), a leak
 * or a hang names the input that caused it.
 *
 * usage: fuzz_replay [--min N] [-v] --config PATH... --set PATH...
 *   --config  the following files/folders are config inputs (nsd_fuzz_config)
 *   --set     the following are --set inputs (nsd_fuzz_set)
 *   --min N   fail if fewer than N inputs were found (a lost corpus)
 *   -v        print each input, the checks' messages and the number of errors */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_entry.h"

#define TIME_LIMIT 60 /* s per input; the slowest seed takes well under 1 s */

typedef size_t (*entry_fn)(const uint8_t *, size_t);

static size_t n_inputs, n_failed;
static int verbose;

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, got;
    unsigned char *data = malloc(cap);
    if (!data) abort();
    while ((got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            data = realloc(data, cap *= 2);
            if (!data) abort();
        }
    }
    fclose(f);
    *size = n;
    return data;
}

static void replay_file(const char *path, entry_fn fn, const char *what) {
    size_t size = 0;
    unsigned char *data = slurp(path, &size);
    if (!data) {
        fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
        n_failed++;
        return;
    }
    n_inputs++;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        alarm(TIME_LIMIT);
        size_t errors = fn(data, size);
        if (verbose) printf("== %s: %zu error%s\n", path, errors, errors == 1 ? "" : "s");
        free(data);
        exit(0); /* LeakSanitizer checks here in the ASan build */
    }
    free(data);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    n_failed++;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        fprintf(stderr, "FAIL %s input %s: no result after %d s (hang)\n", what, path, TIME_LIMIT);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "FAIL %s input %s: killed by signal %d (%s)\n", what, path,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        fprintf(stderr, "FAIL %s input %s: exit status %d (a sanitizer report is above)\n", what,
                path, WEXITSTATUS(status));
}

static void replay_path(const char *path, entry_fn fn, const char *what) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "fuzz_replay: no such file or folder: %s\n", path);
        n_failed++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file(path, fn, what);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "fuzz_replay: cannot open %s\n", path);
        n_failed++;
        return;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        if (!names || !(names[n++] = strdup(e->d_name))) abort();
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; ++i) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) replay_file(file, fn, what);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv) {
    if (nsd_fuzz_init() != 0) {
        fprintf(stderr, "fuzz_replay: no plugins found; nothing would be checked past the ids\n");
        return 1;
    }
    entry_fn fn = NULL;
    const char *what = NULL;
    size_t min = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--config")) {
            fn = nsd_fuzz_config;
            what = "config";
        } else if (!strcmp(argv[i], "--set")) {
            fn = nsd_fuzz_set;
            what = "--set";
        } else if (!strcmp(argv[i], "-v")) {
            verbose = 1;
            nsd_fuzz_report_to(stdout);
        } else if (!strcmp(argv[i], "--min") && i + 1 < argc) {
            min = strtoul(argv[++i], NULL, 10);
        } else if (!fn) {
            fprintf(stderr, "usage: fuzz_replay [--min N] [-v] --config PATH... --set PATH...\n");
            return 2;
        } else {
            replay_path(argv[i], fn, what);
        }
    }
    printf("fuzz_replay: %zu inputs, %zu failed\n", n_inputs, n_failed);
    if (n_inputs < min) {
        fprintf(stderr, "fuzz_replay: only %zu inputs, expected at least %zu (corpus missing?)\n",
                n_inputs, min);
        return 1;
    }
    return n_failed ? 1 : 0;
}
