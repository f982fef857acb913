#define _GNU_SOURCE
#include "registry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsdyn_build_config.h"

const char *nsd_kind_name(nsdyn_kind kind) {
    switch (kind) {
    case NSDYN_KIND_SYSTEM: return "system";
    case NSDYN_KIND_CONTACT: return "contact law";
    case NSDYN_KIND_FRICTION: return "friction law";
    case NSDYN_KIND_INTEGRATOR: return "integrator";
    }
    return "unknown kind";
}

const char *nsd_kind_article(nsdyn_kind kind) { return kind == NSDYN_KIND_INTEGRATOR ? "an" : "a"; }

const char *nsd_kind_section(nsdyn_kind kind) {
    switch (kind) {
    case NSDYN_KIND_SYSTEM: return "system";
    case NSDYN_KIND_CONTACT: return "contact";
    case NSDYN_KIND_FRICTION: return "friction";
    case NSDYN_KIND_INTEGRATOR: return "integrator";
    }
    return "?";
}

/* Smallest descriptor size of each kind that ABI 2.0 requires. */
static size_t min_descriptor_size(nsdyn_kind kind) {
    switch (kind) {
    case NSDYN_KIND_SYSTEM: return offsetof(nsdyn_system, on_switch) + sizeof(void *);
    case NSDYN_KIND_CONTACT: return offsetof(nsdyn_contact_law, coefficients) + sizeof(void *);
    case NSDYN_KIND_FRICTION: return offsetof(nsdyn_friction_law, bounds) + sizeof(void *);
    case NSDYN_KIND_INTEGRATOR: return offsetof(nsdyn_integrator, message) + sizeof(void *);
    }
    return 0;
}

static char *dup_str(const char *s) {
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static void add_plugin(nsd_registry *r, const nsdyn_plugin_info *info, const char *path) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        nsd_plugin *p = realloc(r->plugins, r->cap * sizeof *p);
        if (!p) abort();
        r->plugins = p;
    }
    r->plugins[r->n].info = info;
    r->plugins[r->n].path = path;
    r->n++;
}

static int valid_id(const char *id) {
    if (!id || !*id) return 0;
    for (const char *c = id; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

static size_t load_file(nsd_registry *r, const char *path, nsd_diag *diag) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        nsd_diag_add(diag, "%s: cannot load plugin: %s", path, dlerror());
        return 1;
    }
    nsdyn_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, NSDYN_PLUGIN_ENTRY_NAME);
    if (!entry) {
        nsd_diag_add(diag, "%s: no entry point '%s' (not an nsdyn plugin?)", path,
                     NSDYN_PLUGIN_ENTRY_NAME);
        dlclose(handle);
        return 1;
    }
    char *kept_path = dup_str(path);
    r->handles = realloc(r->handles, (r->n_handles + 1) * sizeof *r->handles);
    r->paths = realloc(r->paths, (r->n_handles + 1) * sizeof *r->paths);
    if (!r->handles || !r->paths) abort();
    r->handles[r->n_handles] = handle;
    r->paths[r->n_handles] = kept_path;
    r->n_handles++;

    size_t problems = 0, count = 0;
    for (uint32_t i = 0; i < 1024; ++i) {
        const nsdyn_plugin_info *info = entry(NSDYN_ABI_MAJOR, i);
        if (!info) break;
        count++;
        if (info->abi_major != NSDYN_ABI_MAJOR) {
            nsd_diag_add(diag, "%s: ABI mismatch: plugin '%s' was built for nsdyn ABI %u.%u, this host speaks %u.%u",
                         path, info->id ? info->id : "?", info->abi_major, info->abi_minor,
                         NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
            problems++;
            continue;
        }
        if (!valid_id(info->id)) {
            nsd_diag_add(diag, "%s: descriptor %u has an invalid id (expected [a-z0-9_]+)", path, i);
            problems++;
            continue;
        }
        if (info->kind < NSDYN_KIND_SYSTEM || info->kind > NSDYN_KIND_INTEGRATOR) {
            nsd_diag_add(diag, "%s: plugin '%s' declares unknown kind %d", path, info->id,
                         (int)info->kind);
            problems++;
            continue;
        }
        if (info->struct_size < min_descriptor_size(info->kind)) {
            nsd_diag_add(diag, "%s: plugin '%s': %s descriptor is %u bytes, ABI %u.0 needs at least %zu",
                         path, info->id, nsd_kind_name(info->kind), info->struct_size,
                         NSDYN_ABI_MAJOR, min_descriptor_size(info->kind));
            problems++;
            continue;
        }
        const nsd_plugin *other = nsd_registry_find(r, info->id);
        if (other) {
            nsd_diag_add(diag, "duplicate plugin id '%s': %s and %s", info->id, other->path, path);
            problems++;
            continue;
        }
        add_plugin(r, info, kept_path);
    }
    if (count == 0 && problems == 0) {
        nsd_diag_add(diag, "%s: plugin entry point returned no descriptors (ABI mismatch?)", path);
        problems++;
    }
    return problems;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t scan_dir(nsd_registry *r, const char *dir, nsd_diag *diag) {
    DIR *d = opendir(dir);
    if (!d) return 0; /* a search-path entry that does not exist is skipped */
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".so") == 0) {
            names = realloc(names, (n + 1) * sizeof *names);
            if (!names) abort();
            names[n++] = dup_str(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name); /* deterministic order */
    size_t problems = 0;
    for (size_t i = 0; i < n; ++i) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        /* The same file reached twice through the path is loaded once. */
        char real[PATH_MAX];
        int seen = 0;
        if (realpath(path, real))
            for (size_t h = 0; h < r->n_handles; ++h) {
                char other[PATH_MAX];
                if (realpath(r->paths[h], other) && strcmp(other, real) == 0) seen = 1;
            }
        if (!seen) problems += load_file(r, path, diag);
        free(names[i]);
    }
    free(names);
    return problems;
}

size_t nsd_registry_scan(nsd_registry *r, const char *const *dirs, size_t n_dirs,
                         nsd_diag *diag) {
    size_t problems = 0;
    for (size_t i = 0; i < n_dirs; ++i) {
        r->dirs = realloc(r->dirs, (r->n_dirs + 1) * sizeof *r->dirs);
        if (!r->dirs) abort();
        r->dirs[r->n_dirs++] = dup_str(dirs[i]);
        problems += scan_dir(r, dirs[i], diag);
    }
    return problems;
}

const nsd_plugin *nsd_registry_find(const nsd_registry *r, const char *id) {
    for (size_t i = 0; i < r->n; ++i)
        if (strcmp(r->plugins[i].info->id, id) == 0) return &r->plugins[i];
    return NULL;
}

void nsd_registry_close(nsd_registry *r) {
    /* Handles stay open until exit would be simpler, but a sweep may build
     * many registries: close them. */
    for (size_t i = 0; i < r->n_handles; ++i) {
        dlclose(r->handles[i]);
        free(r->paths[i]);
    }
    for (size_t i = 0; i < r->n_dirs; ++i) free(r->dirs[i]);
    free(r->handles);
    free(r->paths);
    free(r->dirs);
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
