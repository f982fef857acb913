/* The plugin index (FILE.so.nsdyn-index): its format and reading it
 * (writing it, `nsdyn index`, and auditing it against the file it
 * describes, `nsdyn plugins`: registry_audit.c). Format:
 *   # comments
 *   nsdyn-index 1
 *   <kind section> <id> <provides hex> <needs hex> <flags hex>   (one line per plugin) */
#define _GNU_SOURCE
#include "registry_index.h"
#include "plugin_file.h"
#include "loader_util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nsdyn_<kind>_<id>.so: the name alone says what a file without an index
 * holds. */
int nsd_index_name_convention(const char *name, index_entry *e) {
    memset(e, 0, sizeof *e);
    if (strncmp(name, "nsdyn_", 6) != 0) return 0;
    const char *rest = name + 6;
    size_t len = strlen(rest);
    if (len < 3 || strcmp(rest + len - 3, ".so") != 0) return 0;
    for (size_t k = 0; k < NSDYN_COUNT(nsd_all_kinds); ++k) {
        const char *sec = nsd_kind_section(nsd_all_kinds[k]);
        size_t sl = strlen(sec);
        if (strncmp(rest, sec, sl) != 0 || rest[sl] != '_') continue;
        size_t idl = len - 3 - sl - 1;
        if (idl == 0 || idl > NSD_MAX_ID_LEN) return 0;
        memcpy(e->id, rest + sl + 1, idl);
        e->id[idl] = '\0';
        e->kind = nsd_all_kinds[k];
        return nsd_valid_plugin_id(e->id);
    }
    return 0;
}

/* Parse an index. Returns NULL and the entries, or the problem. Format:
 *   # comments
 *   nsdyn-index 1
 *   <kind section> <id> <provides hex> <needs hex> <flags hex>   (one line per plugin) */
char *nsd_index_parse(const char *path, index_entry **out, size_t *n_out) {
    return nsd_index_read(path, out, n_out, NULL);
}

/* An index is a few hundred bytes: read whole, in one read(2), to be
 * parsed from memory (fmemopen makes no system calls), instead of stdio's
 * fcntl, fstat and the read that finds the end, for each of a folder's
 * plugins at every start (bench/README.md, start-up). *text (NUL-ended,
 * *got bytes before it), or NULL and why not. */
static char *read_whole(int fd, const struct stat *st, char **text, size_t *got) {
    if (st->st_size > (1 << 20))
        return fmt("it is larger than 1 MiB (%lld bytes)", (long long)st->st_size);
    size_t want = (size_t)st->st_size;
    *text = xrealloc(NULL, want + 1);
    *got = 0;
    while (*got < want) {
        ssize_t r = read(fd, *text + *got, want - *got);
        if (r > 0)
            *got += (size_t)r;
        else if (r < 0 && errno == EINTR)
            continue;
        else if (r < 0)
            return fmt("cannot read it: %s", strerror(errno));
        else
            break; /* it shrank meanwhile: what is there */
    }
    (*text)[*got] = '\0';
    return NULL;
}

char *nsd_index_read(const char *path, index_entry **out, size_t *n_out, int *absent) {
    *out = NULL;
    *n_out = 0;
    if (absent) *absent = 0;
    /* Opened once, without blocking (a FIFO named like an index would block a
     * plain open) and checked by fstat: one open per plugin at start-up
     * instead of an access() and two opens (bench/bench_startup.py). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && absent) {
        *absent = 1;
        return NULL;
    }
    if (fd < 0) return fmt("cannot read it: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return fmt("%s: not a regular file (a FIFO, device or folder): not opened", path);
    }
    char *text = NULL;
    size_t got = 0;
    char *why = read_whole(fd, &st, &text, &got);
    close(fd);
    FILE *f = why ? NULL : fmemopen(text, got ? got : 1, "r"); /* empty: one NUL, an empty line */
    if (!f) {
        if (!why) why = fmt("cannot read it: %s", strerror(errno));
        free(text);
        return why;
    }
    char line[512], *problem = NULL;
    int lineno = 0, header = 0;
    index_entry *list = NULL;
    size_t n = 0;
    while (!problem && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(f)) {
            problem = fmt("line %d is too long", lineno);
            break;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        if (!header) {
            if (strcmp(s, "nsdyn-index 1") != 0)
                problem = fmt("line %d: expected 'nsdyn-index 1'", lineno);
            header = 1;
            continue;
        }
        char *tok[6] = {0}, *save = NULL;
        int nt = 0;
        for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
            if (nt < 6)
                tok[nt++] = t;
            else
                nt++;
        if (nt != 5) {
            problem = fmt("line %d: expected '<kind> <id> <provides> <needs> <flags>'", lineno);
            break;
        }
        index_entry e = {0};
        for (size_t k = 0; k < NSDYN_COUNT(nsd_all_kinds); ++k)
            if (strcmp(tok[0], nsd_kind_section(nsd_all_kinds[k])) == 0) e.kind = nsd_all_kinds[k];
        if (!e.kind) {
            problem = fmt("line %d: unknown kind '%.32s'", lineno, tok[0]);
            break;
        }
        if (!nsd_valid_plugin_id(tok[1])) {
            problem = fmt("line %d: invalid id", lineno);
            break;
        }
        snprintf(e.id, sizeof e.id, "%s", tok[1]);
        uint32_t *fields[3] = {&e.provides, &e.needs, &e.flags};
        for (int k = 0; k < 3 && !problem; ++k) {
            char *end = NULL;
            errno = 0;
            unsigned long v = strtoul(tok[2 + k], &end, 16);
            if (errno || !end || *end || end == tok[2 + k] || v > 0xffffffffUL ||
                tok[2 + k][0] == '-')
                problem = fmt("line %d: field %d is not a hexadecimal number", lineno, 3 + k);
            else
                *fields[k] = (uint32_t)v;
        }
        for (size_t k = 0; !problem && k < n; ++k)
            if (strcmp(list[k].id, e.id) == 0)
                problem = fmt("line %d: id '%s' listed twice", lineno, e.id);
        if (!problem && n >= NSD_MAX_DESCRIPTORS)
            problem = fmt("more than %d plugins", NSD_MAX_DESCRIPTORS);
        if (problem) break;
        list = xrealloc(list, (n + 1) * sizeof *list);
        list[n++] = e;
    }
    if (!problem && ferror(f)) problem = fmt("read error");
    fclose(f);
    free(text);
    if (!problem && !header) problem = fmt("it is empty");
    if (!problem && n == 0) problem = fmt("it lists no plugins");
    if (problem) {
        free(list);
        return problem;
    }
    *out = list;
    *n_out = n;
    return NULL;
}
