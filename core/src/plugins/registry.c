/* The plugin registry: scan or index a search path, find a plugin by id
 * (opening its file on first use), close (registry.h). */
#define _GNU_SOURCE
#include "registry.h"
#include "registry_index.h"
#include "loader_util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsdyn_build_config.h"

/* ---- registry bookkeeping ------------------------------------------------ */

/* The placeholder an index entry stands on until its file is opened. It
 * is as large as any descriptor, so code that lists plugins by their
 * capabilities can read it like the real one. */
typedef struct nsd_stub {
    union {
        nsdyn_plugin_info info;
        nsdyn_system s;
        nsdyn_contact_law c;
        nsdyn_friction_law f;
        nsdyn_integrator g;
    } d;
    char id[NSD_MAX_ID_LEN + 1];
} nsd_stub;

/* Stand-ins that make a placeholder say "gives the impulse at one contact
 * alone" (an ABI 2.4 rigid law: impact() and coefficients()); never called
 * (find() returns only opened plugins). */
static nsdyn_status stub_impact(void *inst, const nsdyn_impact_problem *p, double *P, double *u) {
    (void)inst;
    (void)p;
    (void)P;
    (void)u;
    return NSDYN_FATAL;
}
static nsdyn_status stub_coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    (void)inst;
    out->kind = NSDYN_RESTITUTION_OTHER;
    out->restitution = 0.0;
    return NSDYN_OK;
}

static size_t kind_size(nsdyn_kind kind) {
    switch (kind) {
        case NSDYN_KIND_SYSTEM: return sizeof(nsdyn_system);
        case NSDYN_KIND_CONTACT: return sizeof(nsdyn_contact_law);
        case NSDYN_KIND_FRICTION: return sizeof(nsdyn_friction_law);
        case NSDYN_KIND_INTEGRATOR: return sizeof(nsdyn_integrator);
    }
    return sizeof(nsdyn_plugin_info);
}

size_t nsd_registry_add_file(nsd_registry *r, const char *path, const char *real, int by_name) {
    r->files = xrealloc(r->files, (r->n_files + 1) * sizeof *r->files);
    nsd_plugin_file *f = &r->files[r->n_files];
    memset(f, 0, sizeof *f);
    f->path = dup_str(path);
    f->real = dup_str(real);
    f->by_name = by_name;
    return r->n_files++;
}

static nsd_plugin *add_plugin(nsd_registry *r, const nsdyn_plugin_info *info, size_t file) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->plugins = xrealloc(r->plugins, r->cap * sizeof *r->plugins);
    }
    nsd_plugin *p = &r->plugins[r->n++];
    memset(p, 0, sizeof *p);
    p->info = info;
    p->path = r->files[file].path;
    p->real = r->files[file].real;
    p->file = file;
    p->loaded = info != NULL;
    return p;
}

static void add_stub(nsd_registry *r, const index_entry *e, size_t file) {
    nsd_stub *s = calloc(1, sizeof *s);
    if (!s) abort();
    snprintf(s->id, sizeof s->id, "%s", e->id);
    nsdyn_plugin_info *i = &s->d.info;
    i->struct_size = (uint32_t)kind_size(e->kind);
    i->abi_major = NSDYN_ABI_MAJOR;
    i->abi_minor = NSDYN_ABI_MINOR;
    i->kind = e->kind;
    i->id = s->id;
    i->version = "?";
    i->summary = "(not opened: listed by its index or file name)";
    i->provides = e->provides;
    i->needs = e->needs;
    if (e->kind == NSDYN_KIND_CONTACT && (e->flags & NSD_INDEX_LOCAL_IMPULSE)) {
        s->d.c.impact = stub_impact;
        s->d.c.coefficients = stub_coefficients;
    }
    nsd_plugin *p = add_plugin(r, NULL, file);
    p->info = &s->d.info;
    p->stub = s;
}

static int file_seen(const nsd_registry *r, const char *real) {
    for (size_t k = 0; k < r->n_files; ++k)
        if (strcmp(r->files[k].real, real) == 0) return 1;
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.so names of `dir`, sorted (a deterministic order). */
static char **list_so(const char *dir, size_t *n_out) {
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL; /* a search-path entry that does not exist is skipped */
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".so") == 0)
            push_str(&names, &n, dup_str(e->d_name));
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    *n_out = n;
    return names;
}

static void push_dir(nsd_registry *r, const char *dir) {
    push_str(&r->dirs, &r->n_dirs, dup_str(dir));
}

/* ---- scanning: open everything ----------------------------------------- */

static const nsd_plugin *find_any(const nsd_registry *r, const char *id) {
    for (size_t i = 0; i < r->n; ++i)
        if (strcmp(r->plugins[i].info->id, id) == 0) return &r->plugins[i];
    return NULL;
}

static size_t scan_file(nsd_registry *r, const char *path, const char *real, nsd_diag *diag) {
    size_t k = nsd_registry_add_file(r, path, real, 0);
    found *list;
    size_t n, problems = 0;
    char *whole = nsd_open_plugin_file(&r->files[k], &list, &n);
    if (whole) {
        nsd_diag_add(diag, "%s", whole);
        free(whole);
        return 1;
    }
    for (size_t i = 0; i < n; ++i) {
        nsd_plugin_file *f = &r->files[k];
        if (list[i].problem) {
            nsd_diag_add(diag, "%s", list[i].problem);
            f->failed = 1;
            problems++;
            continue;
        }
        f->descs = xrealloc(f->descs, (f->n_descs + 1) * sizeof *f->descs);
        f->descs[f->n_descs++] = list[i].info;
        const nsd_plugin *other = find_any(r, list[i].id);
        if (other) {
            nsd_diag_add(diag, "duplicate plugin id '%s': %s and %s", list[i].id, other->path,
                         path);
            problems++;
            continue;
        }
        add_plugin(r, list[i].info, k);
    }
    nsd_free_found(list, n);
    return problems;
}

size_t nsd_registry_add_path(nsd_registry *r, const char *so_path, nsd_diag *diag) {
    /* dlopen() searches the library path for a bare name: make it a path. */
    char *path = strchr(so_path, '/') ? dup_str(so_path) : fmt("./%s", so_path);
    char real[PATH_MAX];
    if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
    size_t problems = file_seen(r, real) ? 0 : scan_file(r, path, real, diag);
    free(path);
    return problems;
}

/* realpath() of path = dir/name, from realpath(dir) (real_dir, "" if unknown): one
 * readlink of the file instead of one per component of its path for each of a
 * folder's plugins at start-up (bench/bench_startup.py). */
static void real_in_dir(const char *real_dir, const char *path, const char *name,
                        char real[PATH_MAX]) {
    char link[8];
    if (real_dir[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/') &&
        readlink(path, link, sizeof link) < 0 && errno == EINVAL &&
        snprintf(real, PATH_MAX, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", name) < PATH_MAX)
        return; /* not a link: the folder's real path and the name */
    if (!realpath(path, real)) snprintf(real, PATH_MAX, "%s", path);
}

size_t nsd_registry_scan(nsd_registry *r, const char *const *dirs, size_t n_dirs, nsd_diag *diag) {
    size_t problems = 0;
    for (size_t i = 0; i < n_dirs; ++i) {
        push_dir(r, dirs[i]);
        char real_dir[PATH_MAX];
        if (!realpath(dirs[i], real_dir)) real_dir[0] = '\0';
        size_t n;
        char **names = list_so(dirs[i], &n);
        for (size_t j = 0; j < n; ++j) {
            char *path = fmt("%s/%s", dirs[i], names[j]);
            /* The same file reached twice through the path is opened once. */
            char real[PATH_MAX];
            real_in_dir(real_dir, path, names[j], real);
            if (!file_seen(r, real)) problems += scan_file(r, path, real, diag);
            free(path);
            free(names[j]);
        }
        free(names);
    }
    return problems;
}

/* ---- indexing: open nothing --------------------------------------------- */

void nsd_registry_index(nsd_registry *r, const char *const *dirs, size_t n_dirs) {
    r->lazy = 1;
    for (size_t i = 0; i < n_dirs; ++i) {
        push_dir(r, dirs[i]);
        char real_dir[PATH_MAX];
        if (!realpath(dirs[i], real_dir)) real_dir[0] = '\0';
        size_t n;
        char **names = list_so(dirs[i], &n);
        for (size_t j = 0; j < n; ++j) {
            char *path = fmt("%s/%s", dirs[i], names[j]);
            char *index = fmt("%s%s", path, NSD_INDEX_SUFFIX);
            char real[PATH_MAX];
            index_entry conv, *entries = NULL;
            size_t n_entries = 0;
            real_in_dir(real_dir, path, names[j], real);
            int seen = file_seen(r, real), absent = 1;
            char *problem = seen ? NULL : nsd_index_read(index, &entries, &n_entries, &absent);
            if (seen) {
                /* reached twice through the path: indexed once */
            } else if (!absent) {
                if (problem) {
                    push_str(&r->skipped, &r->n_skipped,
                             fmt("%s: not opened: its index %s is malformed (%s)", path, index,
                                 problem));
                    free(problem);
                } else {
                    size_t k = nsd_registry_add_file(r, path, real, 0);
                    for (size_t e = 0; e < n_entries; ++e) add_stub(r, &entries[e], k);
                }
                free(entries);
            } else if (nsd_index_name_convention(names[j], &conv)) {
                add_stub(r, &conv, nsd_registry_add_file(r, path, real, 1));
            } else {
                push_str(&r->skipped, &r->n_skipped,
                         fmt("%s: not opened: it has no index (%s) and its name is not "
                             "nsdyn_<kind>_<id>.so",
                             path, index));
            }
            free(index);
            free(path);
            free(names[j]);
        }
        free(names);
    }
}

/* Open file k of an index-filled registry and give its entries their
 * descriptors, or their problems. Called through a const registry: only
 * what the registry points to changes. */
static void open_lazy(const nsd_registry *r, size_t k) {
    nsd_plugin_file *f = &r->files[k];
    if (f->opened) return;
    found *list;
    size_t n;
    char *whole = nsd_open_plugin_file(f, &list, &n);
    for (size_t i = 0; i < r->n; ++i) {
        nsd_plugin *p = &r->plugins[i];
        if (p->file != k || p->loaded || p->problem) continue;
        const char *id = p->info->id;
        if (whole) {
            p->problem = dup_str(whole);
            continue;
        }
        const found *d = NULL;
        for (size_t j = 0; j < n && !d; ++j)
            if (strcmp(list[j].id, id) == 0) d = &list[j];
        if (!d && f->by_name)
            p->problem =
                fmt("%s: named for %s %s '%s' (nsdyn_<kind>_<id>.so), but it holds no plugin with "
                    "that id",
                    f->path, nsd_kind_article(p->info->kind), nsd_kind_name(p->info->kind), id);
        else if (!d)
            p->problem = fmt("%s: its index lists %s %s '%s', but the file holds no plugin with "
                             "that id (stale index: rebuild the plugin or run `nsdyn index %s`)",
                             f->path, nsd_kind_article(p->info->kind), nsd_kind_name(p->info->kind),
                             id, f->path);
        else if (d->problem)
            p->problem = dup_str(d->problem);
        else if (d->info->kind != p->info->kind)
            p->problem = fmt("%s: plugin '%s' is %s %s, but its %s says %s %s", f->path, id,
                             nsd_kind_article(d->info->kind), nsd_kind_name(d->info->kind),
                             f->by_name ? "file name" : "index", nsd_kind_article(p->info->kind),
                             nsd_kind_name(p->info->kind));
        else if (!f->by_name &&
                 (d->info->provides != p->info->provides || d->info->needs != p->info->needs ||
                  nsd_descriptor_flags(d->info) != nsd_descriptor_flags(p->info)))
            p->problem = fmt("%s: plugin '%s': its index is stale (the capabilities differ from "
                             "the file's): rebuild the plugin or run `nsdyn index %s`",
                             f->path, id, f->path);
        else {
            p->info = d->info;
            p->loaded = 1;
        }
    }
    free(whole);
    nsd_free_found(list, n);
}

/* Entries with this id: how many, and the first two. */
static size_t matches(const nsd_registry *r, const char *id, nsd_plugin **first,
                      nsd_plugin **second) {
    size_t n = 0;
    *first = *second = NULL;
    for (size_t i = 0; i < r->n; ++i)
        if (strcmp(r->plugins[i].info->id, id) == 0) {
            if (n == 0)
                *first = &r->plugins[i];
            else if (n == 1)
                *second = &r->plugins[i];
            n++;
        }
    return n;
}

const nsd_plugin *nsd_registry_find(const nsd_registry *r, const char *id) {
    if (!id) return NULL;
    nsd_plugin *p, *q;
    size_t n = matches(r, id, &p, &q);
    if (n == 0) return NULL;
    if (n > 1) {
        /* Two files declare the id: neither is opened, the run stops. */
        if (!p->problem)
            p->problem = fmt("duplicate plugin id '%s': %s and %s", id, p->path, q->path);
        return NULL;
    }
    if (!p->loaded && !p->problem && r->lazy) open_lazy(r, p->file);
    return p->loaded ? p : NULL;
}

const char *nsd_registry_problem(const nsd_registry *r, const char *id) {
    if (!id || nsd_registry_find(r, id)) return NULL;
    nsd_plugin *p, *q;
    return matches(r, id, &p, &q) ? p->problem : NULL;
}

void nsd_registry_close(nsd_registry *r) {
    for (size_t i = 0; i < r->n; ++i) {
        free(r->plugins[i].problem);
        free(r->plugins[i].stub);
    }
    /* Handles could stay open until exit, but a sweep may build many
     * registries: close them. */
    for (size_t k = 0; k < r->n_files; ++k) {
        if (r->files[k].handle) dlclose(r->files[k].handle);
        free(r->files[k].path);
        free(r->files[k].real);
        free(r->files[k].descs);
    }
    for (size_t i = 0; i < r->n_dirs; ++i) free(r->dirs[i]);
    for (size_t i = 0; i < r->n_skipped; ++i) free(r->skipped[i]);
    free(r->files);
    free(r->dirs);
    free(r->skipped);
    free(r->plugins);
    memset(r, 0, sizeof *r);
}

const char *nsd_builtin_plugin_dir(void) {
    /* Decide by where this host library lives. */
    static char dir[PATH_MAX + 32]; /* written once per process, read-only after */
    if (dir[0]) return dir;
    Dl_info info;
    char self[PATH_MAX] = "";
    if (dladdr((void *)nsd_builtin_plugin_dir, &info) && info.dli_fname &&
        realpath(info.dli_fname, self)) {
        char build[PATH_MAX];
        if (realpath(NSDYN_BUILD_DIR, build) && strncmp(self, build, strlen(build)) == 0 &&
            self[strlen(build)] == '/') {
            snprintf(dir, sizeof dir, "%s", NSDYN_BUILD_PLUGIN_DIR);
            return dir;
        }
        /* Installed: <prefix>/<libdir>/libnsdyn.so and
         * <prefix>/<libdir>/nsdyn/plugins, wherever the prefix was moved. */
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dir, sizeof dir, "%s/nsdyn/plugins", self);
            return dir;
        }
    }
    snprintf(dir, sizeof dir, "%s", NSDYN_INSTALL_PLUGIN_DIR_ABS);
    return dir;
}
