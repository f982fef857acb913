/* The module loader (module.h): dlopen on first use, one mutex around the
 * slots, the tables read afterwards without the lock. */
#define _GNU_SOURCE /* dladdr */
#include "module.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One slot per module name; a handful exist (module.h). */
#define NSD_MODULE_SLOTS 8

typedef struct {
    char name[32];
    _Atomic(const void *) table;
} slot;

static slot slots[NSD_MODULE_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t len, const char *fmt, ...) {
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* The folder to look in: $NSDYN_MODULE_DIR, else libnsdyn's own folder. */
static int module_dir(char *out, size_t len) {
    const char *env = getenv("NSDYN_MODULE_DIR");
    if (env && *env) return snprintf(out, len, "%s", env) < (int)len ? 0 : -1;
    Dl_info info;
    if (!dladdr((void *)&nsd_module_get, &info) || !info.dli_fname) return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return snprintf(out, len, ".") < (int)len ? 0 : -1;
    int n = (int)(slash - info.dli_fname);
    return snprintf(out, len, "%.*s", n, info.dli_fname) < (int)len ? 0 : -1;
}

static slot *find(const char *name, int create) {
    for (size_t i = 0; i < NSD_MODULE_SLOTS; ++i) {
        if (strcmp(slots[i].name, name) == 0) return &slots[i];
        if (!slots[i].name[0]) {
            if (!create) return NULL;
            snprintf(slots[i].name, sizeof slots[i].name, "%s", name);
            return &slots[i];
        }
    }
    return NULL;
}

/* Opens libnsdyn_<name>.so and checks its table; under the lock. */
static const void *open_module(const char *name, unsigned abi, const char *what, char *err,
                               size_t len) {
    char dir[4096], path[4200];
    if (module_dir(dir, sizeof dir) != 0) {
        say(err, len, "module '%s' (needed for %s): cannot tell where libnsdyn lies", name, what);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/libnsdyn_%s.so", dir, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        say(err, len, "module '%s' (needed for %s) cannot be loaded: %s", name, what,
            why ? why : path);
        return NULL;
    }
    const nsd_module_head *t = dlsym(h, "nsd_module_table");
    if (!t || !t->name || strcmp(t->name, name) != 0 || t->abi != abi) {
        say(err, len, "%s: expected module '%s' ABI %u, found '%s' ABI %u (rebuild nsdyn)", path,
            name, abi, t && t->name ? t->name : "no nsd_module_table", t ? t->abi : 0u);
        dlclose(h);
        return NULL;
    }
    return t; /* the handle stays open for the process's life */
}

const void *nsd_module_get(const char *name, unsigned abi, const char *needed_for, char *err,
                           size_t err_len) {
    const void *t = nsd_module_loaded(name);
    if (t) return t;
    pthread_mutex_lock(&lock);
    slot *s = find(name, 1);
    t = s ? atomic_load(&s->table) : NULL;
    if (!t && s) {
        t = open_module(name, abi, needed_for ? needed_for : name, err, err_len);
        if (t) atomic_store(&s->table, t);
    } else if (!s) {
        say(err, err_len, "module '%s': more than %d modules", name, NSD_MODULE_SLOTS);
    }
    pthread_mutex_unlock(&lock);
    return t;
}

const void *nsd_module_loaded(const char *name) {
    for (size_t i = 0; i < NSD_MODULE_SLOTS; ++i) {
        const void *t = atomic_load(&slots[i].table);
        if (!t) continue; /* a slot is named under the lock before its table is set */
        if (strcmp(((const nsd_module_head *)t)->name, name) == 0) return t;
    }
    return NULL;
}
