/* The HDF5 writer module, opened beside this library (hdf5_load.h). */
#define _GNU_SOURCE
#include "hdf5_load.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* libnsdyn_hdf5.so sits in the folder of libnsdyn.so, in the build tree as
 * installed (core/CMakeLists.txt), so the pair found is always one build. */
static int module_path(char *path, size_t len) {
    Dl_info info;
    if (!dladdr((void *)nsd_hdf5_load, &info) || !info.dli_fname) return -1;
    const char *slash = strrchr(info.dli_fname, '/');
    int dir_len = slash ? (int)(slash - info.dli_fname) : 1;
    const char *dir = slash ? info.dli_fname : ".";
    return snprintf(path, len, "%.*s/libnsdyn_hdf5.so", dir_len, dir) < (int)len ? 0 : -1;
}

const nsd_hdf5_api *nsd_hdf5_load(char *err, size_t err_len) {
    char path[PATH_MAX];
    if (module_path(path, sizeof path) != 0) {
        snprintf(err, err_len, "cannot locate libnsdyn_hdf5.so beside libnsdyn");
        return NULL;
    }
    /* dlopen counts references: a second call returns the same handle. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, err_len, "HDF5 output needs %s: %s", path, dlerror());
        return NULL;
    }
    const nsd_hdf5_api *(*get)(void);
    *(void **)&get = dlsym(h, NSD_HDF5_API_SYMBOL);
    const nsd_hdf5_api *api = get ? get() : NULL;
    if (!api || api->version != NSD_HDF5_API_VERSION) {
        snprintf(err, err_len,
                 "%s is not the HDF5 writer of this nsdyn (interface version %u, "
                 "expected %u)",
                 path, api ? api->version : 0u, NSD_HDF5_API_VERSION);
        dlclose(h);
        return NULL;
    }
    return api;
}
