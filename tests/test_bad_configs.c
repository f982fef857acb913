/* The bad-config corpus: every file in tests/bad-configs is a config with one
 * mistake (or several) a user could make. Each is run through the nsdyn CLI
 * the way a user would run it; the CLI must exit with status 2, print every
 * "# expect:" line of the file's header as a full line "error: <expect>" on
 * stderr, and write nothing (the output directory must not be created).
 *
 * Header lines of a corpus file (leading comment lines):
 *   # expect: <error line without "error: ">   one or more; {file} ({dir}) stands for
 *                                              the config path as passed
 *   # args: --set a.b=c ...                    extra arguments (split on spaces)
 *   # command: compare                         run `nsdyn compare` (or limits, periodic, pcmap, sweep)
 *                                              instead of run */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NSDYN_TEST_SOURCE_DIR
#error "NSDYN_TEST_SOURCE_DIR must be defined"
#endif
#ifndef NSDYN_TEST_BINARY
#error "NSDYN_TEST_BINARY must be defined"
#endif

#define CORPUS_DIR NSDYN_TEST_SOURCE_DIR "/tests/bad-configs"
#define MIN_CORPUS 30

extern char **environ;

static char **corpus; /* sorted file names (not paths) */
static size_t n_corpus;

static char *xstrdup(const char *s) {
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_corpus(void) {
    DIR *d = opendir(CORPUS_DIR);
    if (!d) return; /* the corpus_size test reports it */
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".toml") != 0) continue;
        char **grown = realloc(corpus, (n_corpus + 1) * sizeof *corpus);
        if (!grown) abort();
        corpus = grown;
        corpus[n_corpus++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n_corpus) qsort(corpus, n_corpus, sizeof *corpus, by_name);
}

/* ---- growing string and string list ------------------------------------- */

typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) abort();
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

typedef struct strs {
    char **v;
    size_t n;
} strs;

static void strs_push(strs *s, char *owned) {
    char **p = realloc(s->v, (s->n + 2) * sizeof *p);
    if (!p) abort();
    s->v = p;
    s->v[s->n++] = owned;
    s->v[s->n] = NULL;
}

static void strs_free(strs *s) {
    for (size_t i = 0; i < s->n; ++i) free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* `text` with every `key` replaced by `value`. */
static char *subst(const char *text, const char *key, const char *value) {
    buf b = {0};
    buf_add(&b, "", 0);
    const char *p = text, *hit;
    while ((hit = strstr(p, key))) {
        buf_add(&b, p, (size_t)(hit - p));
        buf_add(&b, value, strlen(value));
        p = hit + strlen(key);
    }
    buf_add(&b, p, strlen(p));
    return b.data;
}

/* {file}: the config's path as passed; {dir}: the folder it is in. */
static char *subst_file(const char *text, const char *path) {
    char *dir = xstrdup(path), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    char *a = subst(text, "{file}", path), *b = subst(a, "{dir}", dir);
    free(a);
    free(dir);
    return b;
}

/* ---- header of a corpus file -------------------------------------------- */

typedef struct header {
    strs expect; /* with {file} substituted */
    strs args;
    char *command;
} header;

static const char *after_prefix(const char *line, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(line, prefix, n) != 0) return NULL;
    line += n;
    while (*line == ' ') line++;
    return line;
}

static void read_header(const char *path, const char *name, header *h) {
    memset(h, 0, sizeof *h);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open: %s", name, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (line[0] != '#') break; /* the header is the leading comment block */
        const char *v;
        if ((v = after_prefix(line, "# expect:"))) {
            ck_assert_msg(*v != '\0', "%s: empty '# expect:' line", name);
            strs_push(&h->expect, subst_file(v, path));
        } else if ((v = after_prefix(line, "# args:"))) {
            char *copy = xstrdup(v), *save = NULL;
            for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
                strs_push(&h->args, xstrdup(w));
            free(copy);
        } else if ((v = after_prefix(line, "# command:"))) {
            ck_assert_msg(h->command == NULL, "%s: more than one '# command:' line", name);
            h->command = xstrdup(v);
        }
    }
    free(line);
    fclose(f);
    if (!h->command) h->command = xstrdup("run");
    ck_assert_msg(strcmp(h->command, "run") == 0 || strcmp(h->command, "compare") == 0 ||
                      strcmp(h->command, "limits") == 0 || strcmp(h->command, "periodic") == 0 ||
                      strcmp(h->command, "pcmap") == 0 || strcmp(h->command, "sweep") == 0,
                  "%s: '# command: %s' is not run, compare, limits, periodic, pcmap or sweep", name, h->command);
    ck_assert_msg(h->expect.n > 0, "%s: no '# expect:' line in the header", name);
}

static void free_header(header *h) {
    strs_free(&h->expect);
    strs_free(&h->args);
    free(h->command);
}

/* ---- running the CLI ---------------------------------------------------- */

/* Run argv with stdout and stderr captured; returns the wait status. */
static int run_captured(char *const argv[], buf *out, buf *err, const char *name) {
    int po[2], pe[2];
    ck_assert_msg(pipe(po) == 0 && pipe(pe) == 0, "%s: pipe: %s", name, strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    posix_spawn_file_actions_addclose(&fa, pe[0]);
    posix_spawn_file_actions_addclose(&fa, po[1]);
    posix_spawn_file_actions_addclose(&fa, pe[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    ck_assert_msg(rc == 0, "%s: cannot start %s: %s", name, argv[0], strerror(rc));

    buf_add(out, "", 0);
    buf_add(err, "", 0);
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    buf *dst[2] = {out, err};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            ck_abort_msg("%s: poll: %s", name, strerror(errno));
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char chunk[4096];
            ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
            if (n > 0)
                buf_add(dst[i], chunk, (size_t)n);
            else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ck_assert_msg(errno == EINTR, "%s: waitpid: %s", name, strerror(errno));
    return status;
}

/* Is `line` one full line of `text`? */
static int has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)); ++p)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(corpus_size) {
    ck_assert_msg(n_corpus >= MIN_CORPUS, "%s holds %zu .toml files, expected at least %d",
                  CORPUS_DIR, n_corpus, MIN_CORPUS);
}
END_TEST

START_TEST(bad_config) {
    const char *name = corpus[_i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", CORPUS_DIR, name);
    header h;
    read_header(path, name, &h);

    char tmp[] = "/tmp/nsdyn-bad-config-XXXXXX";
    ck_assert_msg(mkdtemp(tmp) != NULL, "%s: mkdtemp: %s", name, strerror(errno));
    char out_dir[sizeof tmp + 16];
    snprintf(out_dir, sizeof out_dir, "%s/out", tmp);

    strs argv = {0};
    strs_push(&argv, xstrdup(NSDYN_TEST_BINARY));
    strs_push(&argv, xstrdup(h.command));
    strs_push(&argv, xstrdup(path));
    strs_push(&argv, xstrdup("-o"));
    strs_push(&argv, xstrdup(out_dir));
    for (size_t i = 0; i < h.args.n; ++i) strs_push(&argv, xstrdup(h.args.v[i]));

    buf out = {0}, err = {0};
    int status = run_captured(argv.v, &out, &err, name);

    struct stat st;
    int created = stat(out_dir, &st) == 0;
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);

    ck_assert_msg(WIFEXITED(status),
                  "%s: nsdyn did not exit normally (wait status 0x%x)\nstderr:\n%s", name,
                  (unsigned)status, err.data);
    ck_assert_msg(
        WEXITSTATUS(status) == 2,
        "%s: nsdyn %s exited with status %d, expected 2 (config error)\nstdout:\n%s\nstderr:\n%s",
        name, h.command, WEXITSTATUS(status), out.data, err.data);
    for (size_t i = 0; i < h.expect.n; ++i) {
        buf want = {0};
        buf_add(&want, "error: ", 7);
        buf_add(&want, h.expect.v[i], strlen(h.expect.v[i]));
        int found = has_line(err.data, want.data);
        ck_assert_msg(found, "%s: expected the line\n%s\nin stderr, which was:\n%s", name,
                      want.data, err.data);
        free(want.data);
    }
    ck_assert_msg(!created, "%s: the output directory %s was created for a config error", name,
                  out_dir);

    free(out.data);
    free(err.data);
    strs_free(&argv);
    free_header(&h);
}
END_TEST

int main(void) {
    /* Only the host's own plugin directory: the expected messages list the
     * plugins that are built with it. */
    unsetenv("NSDYN_PLUGIN_PATH");
    find_corpus();
    Suite *s = suite_create("bad_configs");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, corpus_size);
    if (n_corpus) tcase_add_loop_test(tc, bad_config, 0, (int)n_corpus);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (size_t i = 0; i < n_corpus; ++i) free(corpus[i]);
    free(corpus);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
