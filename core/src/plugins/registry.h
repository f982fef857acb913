/* Plugin discovery and checking. Plugins are checked, not trusted.
 *
 * A registry is filled one of two ways:
 *  - nsd_registry_index(): what runs use. No plugin code runs while the
 *    path is searched: the host reads the index next to each shared object
 *    (FILE.so.nsdyn-index, written by `nsdyn index FILE.so`, which the
 *    CMake function nsdyn_add_plugin runs when it builds a plugin), and
 *    for a shared object without one, its name, nsdyn_<kind>_<id>.so. A
 *    shared object is opened (dlopen, its constructors run) only when
 *    nsd_registry_find() is asked for an id it holds; a file neither
 *    indexed nor named that way is never opened. A broken file therefore
 *    stops only the runs that use it.
 *  - nsd_registry_scan(): opens every shared object on the path and checks
 *    all of it (`nsdyn plugins`, `nsdyn index`, the conformance test).
 *
 * Every descriptor of an opened file is checked before the host uses it:
 * ABI major, id syntax, kind, table size, version and summary, the
 * parameter declarations (count, names, units, types, choices), the
 * callbacks its kind requires, and capabilities that need callbacks. A
 * problem is one line that names the file. */
#ifndef NSD_REGISTRY_H
#define NSD_REGISTRY_H

#include "diag.h"
#include "plugin_file.h"
#include "nsdyn/nsdyn.h"

/* Suffix of the index that sits next to a plugin: nsdyn_x.so.nsdyn-index. */
#define NSD_INDEX_SUFFIX ".nsdyn-index"

/* Bounds a descriptor must keep. */
typedef struct nsd_plugin {
    /* The descriptor. In an index-filled registry, until find() opens the
     * file, a placeholder holding what the index says (id, kind,
     * capabilities) so that listings and suggestions work: never call
     * through it (loaded says which). */
    const nsdyn_plugin_info *info;
    const char *path; /* shared object it comes from */
    const char *real; /* its realpath, as the registry found it (run.toml's provenance) */
    size_t file;      /* its entry in the registry's files */
    int loaded;       /* info is the plugin's own descriptor */
    char *problem;    /* why it cannot be used, once known; or NULL */
    void *stub;       /* the placeholder (owned) */
} nsd_plugin;

typedef struct nsd_registry {
    nsd_plugin *plugins;
    size_t n, cap;
    nsd_plugin_file *files;
    size_t n_files;
    char **dirs; /* the search path, in order */
    size_t n_dirs;
    /* Index mode: shared objects that are never opened, one line each
     * saying why (no index and not named nsdyn_<kind>_<id>.so, or a
     * malformed index). */
    char **skipped;
    size_t n_skipped;
    int lazy; /* filled by nsd_registry_index */
} nsd_registry;

/* Open every shared object in `dirs`, in order, and check it. Problems
 * (unloadable file, missing entry point, ABI mismatch, unknown kind, a
 * descriptor that fails a check, duplicate id) go to `diag`, one line
 * each; returns the number of problems. */
size_t nsd_registry_scan(nsd_registry *r, const char *const *dirs, size_t n_dirs, nsd_diag *diag);

/* Index `dirs` without running any plugin code (see above). Never fails:
 * a file it cannot use is skipped (r->skipped says why). */
void nsd_registry_index(nsd_registry *r, const char *const *dirs, size_t n_dirs);

/* The plugin with this id, or NULL. In an index-filled registry the first
 * call for an id opens and checks the file that holds it; NULL then also
 * when that fails or when two files declare the id, and
 * nsd_registry_problem() says why. */
const nsd_plugin *nsd_registry_find(const nsd_registry *r, const char *id);

/* After find() returned NULL: the one-line reason the id cannot be used
 * (it names the file), or NULL when no file declares it. */
const char *nsd_registry_problem(const nsd_registry *r, const char *id);

/* After nsd_registry_scan(): the problems a run would meet that opening
 * the files did not show, one line each: a shared object that runs never
 * open (no index, not named nsdyn_<kind>_<id>.so), a stale or malformed
 * index, a name that promises an id the file lacks. Returns the count. */
size_t nsd_registry_audit(const nsd_registry *r, nsd_diag *diag);

/* Open and check one shared object and, if every descriptor passes,
 * write its index FILE.nsdyn-index next to it. Returns the number of
 * problems (in diag; no index is written then, and a stale one is
 * removed). */
size_t nsd_registry_write_index(const char *so_path, nsd_diag *diag);

void nsd_registry_close(nsd_registry *r);

/* The host's own plugin directory: the build tree's when this binary runs
 * from the build tree, else the install prefix's. */
const char *nsd_builtin_plugin_dir(void);

/* Add file `path` (realpath `real`) to r; returns its number (the index
 * audit and `nsdyn index`, registry_audit.c). */
size_t nsd_registry_add_file(nsd_registry *r, const char *path, const char *real, int by_name);

/* Open and check one shared object (as nsd_registry_scan does for each
 * file of a folder) and add its plugins. Returns the problems. */
size_t nsd_registry_add_path(nsd_registry *r, const char *so_path, nsd_diag *diag);

#endif
