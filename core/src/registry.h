/* Plugin discovery: every shared object in the search path is opened,
 * its descriptors are checked (entry point, ABI major, kind, table size)
 * and indexed by id. */
#ifndef NSD_REGISTRY_H
#define NSD_REGISTRY_H

#include "diag.h"
#include "nsdyn/nsdyn.h"

typedef struct nsd_plugin {
    const nsdyn_plugin_info *info;
    const char *path; /* shared object it came from */
} nsd_plugin;

typedef struct nsd_registry {
    nsd_plugin *plugins;
    size_t n, cap;
    void **handles;
    char **paths;
    size_t n_handles;
    char **dirs; /* the search path, in order */
    size_t n_dirs;
} nsd_registry;

/* Scan `dirs` in order. Problems (unloadable file, missing entry point,
 * ABI mismatch, unknown kind, duplicate id) go to `diag`; returns the
 * number of problems. */
size_t nsd_registry_scan(nsd_registry *r, const char *const *dirs, size_t n_dirs,
                         nsd_diag *diag);
const nsd_plugin *nsd_registry_find(const nsd_registry *r, const char *id);
void nsd_registry_close(nsd_registry *r);

const char *nsd_kind_name(nsdyn_kind kind);   /* "friction law" */
const char *nsd_kind_article(nsdyn_kind kind);/* "a" or "an" */
const char *nsd_kind_section(nsdyn_kind kind);/* "friction" */

/* The host's own plugin directory: the build tree's when this binary runs
 * from the build tree, else the install prefix's. */
const char *nsd_builtin_plugin_dir(void);

#endif
