/* The plugin index (FILE.so.nsdyn-index): its format, reading it,
 * writing it (`nsdyn index`), and auditing it against the file it
 * describes (`nsdyn plugins`). Format:
 *   # comments
 *   nsdyn-index 1
 *   <kind section> <id> <provides hex> <needs hex> <flags hex>   (one line per plugin) */
#define _GNU_SOURCE
#include "registry_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    *out = NULL;
    *n_out = 0;
    char *not_regular = nsd_plugin_not_regular(path); /* a FIFO would block fopen() */
    if (not_regular) return not_regular;
    FILE *f = fopen(path, "r");
    if (!f) return fmt("cannot read it: %s", strerror(errno));
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

/* ---- audit and index writing --------------------------------------------- */

static const nsdyn_plugin_info *desc_with_id(const nsd_plugin_file *f, const char *id) {
    for (size_t i = 0; i < f->n_descs; ++i)
        if (strcmp(f->descs[i]->id, id) == 0) return f->descs[i];
    return NULL;
}

/* What a run would see of scanned file f, against what it holds: NULL
 * when they agree, else the problem. */
static char *audit_file(const nsd_plugin_file *f) {
    const char *name = strrchr(f->path, '/');
    name = name ? name + 1 : f->path;
    char *index = fmt("%s%s", f->path, NSD_INDEX_SUFFIX), *problem = NULL;
    index_entry conv, *entries = NULL;
    size_t n = 0;
    if (access(index, F_OK) == 0) {
        char *why = nsd_index_parse(index, &entries, &n);
        if (why) {
            problem = fmt("%s: its index %s is malformed (%s): runs never open the file; rebuild "
                          "the plugin or run `nsdyn index %s`",
                          f->path, index, why, f->path);
            free(why);
        }
        for (size_t i = 0; !problem && i < n; ++i) {
            const nsdyn_plugin_info *d = desc_with_id(f, entries[i].id);
            if (!d || d->kind != entries[i].kind || d->provides != entries[i].provides ||
                d->needs != entries[i].needs || nsd_descriptor_flags(d) != entries[i].flags)
                problem = fmt("%s: its index %s is stale (%s '%s'): rebuild the plugin or run "
                              "`nsdyn index %s`",
                              f->path, index, d ? "it describes differently" : "it lists",
                              entries[i].id, f->path);
        }
        for (size_t i = 0; !problem && i < f->n_descs; ++i) {
            int listed = 0;
            for (size_t k = 0; k < n; ++k) listed |= strcmp(entries[k].id, f->descs[i]->id) == 0;
            if (!listed)
                problem = fmt("%s: its index %s is stale (it lacks '%s'): rebuild the plugin or "
                              "run `nsdyn index %s`",
                              f->path, index, f->descs[i]->id, f->path);
        }
    } else if (nsd_index_name_convention(name, &conv)) {
        const nsdyn_plugin_info *d = desc_with_id(f, conv.id);
        if (!d || d->kind != conv.kind)
            problem =
                fmt("%s: named for %s %s '%s' (nsdyn_<kind>_<id>.so), but it holds no such plugin",
                    f->path, nsd_kind_article(conv.kind), nsd_kind_name(conv.kind), conv.id);
        else if (f->n_descs > 1)
            problem = fmt("%s: holds %zu plugins, but without an index runs find only '%s' (its "
                          "name); write one with `nsdyn index %s`",
                          f->path, f->n_descs, conv.id, f->path);
    } else {
        problem =
            fmt("%s: not indexed: runs never open it (no %s, and its name is not "
                "nsdyn_<kind>_<id>.so); build it with nsdyn_add_plugin or run `nsdyn index %s`",
                f->path, index, f->path);
    }
    free(entries);
    free(index);
    return problem;
}

size_t nsd_registry_audit(const nsd_registry *r, nsd_diag *diag) {
    size_t problems = 0;
    for (size_t k = 0; k < r->n_files; ++k) {
        const nsd_plugin_file *f = &r->files[k];
        /* A file that failed to open, or with a descriptor that failed a
         * check, has had its one line already. */
        if (!f->handle || !f->n_descs || f->failed) continue;
        char *problem = audit_file(f);
        if (problem) {
            nsd_diag_add(diag, "%s", problem);
            free(problem);
            problems++;
        }
    }
    return problems;
}

size_t nsd_registry_write_index(const char *so_path, nsd_diag *diag) {
    /* dlopen() searches the library path for a bare name: make it a path. */
    char *path = strchr(so_path, '/') ? dup_str(so_path) : fmt("./%s", so_path);
    char *index = fmt("%s%s", path, NSD_INDEX_SUFFIX);
    nsd_registry r = {0};
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    size_t k = nsd_registry_add_file(&r, path, real, 0);
    found *list;
    size_t n, problems = 0;
    char *whole = nsd_open_plugin_file(&r.files[k], &list, &n);
    if (whole) {
        nsd_diag_add(diag, "%s", whole);
        free(whole);
        problems++;
    }
    for (size_t i = 0; i < n; ++i)
        if (list[i].problem) {
            nsd_diag_add(diag, "%s", list[i].problem);
            problems++;
        }
    if (problems) {
        if (remove(index) != 0 && errno != ENOENT)
            nsd_diag_add(diag, "%s: cannot remove the stale index: %s", index, strerror(errno));
    } else {
        const char *name = strrchr(path, '/') + 1;
        char *tmp = fmt("%s.tmp.%ld", index, (long)getpid());
        FILE *out = fopen(tmp, "w");
        int ok = out != NULL;
        if (out) {
            fprintf(out,
                    "# nsdyn plugin index of %s, written by `nsdyn index` when it was built.\n",
                    name);
            fprintf(
                out,
                "# Runs read this instead of opening the file; they open it only for these ids.\n");
            fprintf(out, "# <kind> <id> <provides> <needs> <flags>\n");
            fprintf(out, "nsdyn-index 1\n");
            for (size_t i = 0; i < n; ++i) {
                const nsdyn_plugin_info *d = list[i].info;
                fprintf(out, "%s %s 0x%08x 0x%08x 0x%x\n", nsd_kind_section(d->kind), d->id,
                        (unsigned)d->provides, (unsigned)d->needs,
                        (unsigned)nsd_descriptor_flags(d));
            }
            ok = !ferror(out);
            ok = fclose(out) == 0 && ok;
        }
        if (!ok || rename(tmp, index) != 0) {
            nsd_diag_add(diag, "%s: cannot write the index: %s", index, strerror(errno));
            remove(tmp);
            problems++;
        }
        free(tmp);
    }
    nsd_free_found(list, n);
    nsd_registry_close(&r);
    free(index);
    free(path);
    return problems;
}
