/* Opening one plugin file and checking every descriptor it declares
 * (registry_internal.h). Plugins are checked, not trusted: the host reads
 * nothing of a descriptor that has not passed these checks. */
#define _GNU_SOURCE
#include "plugin_file.h"
#include "loader_util.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "param_fields.h"
#include "plugin_calls.h"

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

const nsdyn_kind nsd_all_kinds[4] = {NSDYN_KIND_SYSTEM, NSDYN_KIND_CONTACT, NSDYN_KIND_FRICTION,
                                     NSDYN_KIND_INTEGRATOR};

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

uint32_t nsd_descriptor_flags(const nsdyn_plugin_info *p) {
    return nsd_contact_has_local_impulse(p) ? NSD_INDEX_LOCAL_IMPULSE : 0;
}

/* A plugin id: [a-z0-9_]+, at most NSD_MAX_ID_LEN characters. The length
 * bound also keeps the scan of a string without a terminator short. */
int nsd_valid_plugin_id(const char *id) {
    if (!id || !*id) return 0;
    for (size_t n = 0; id[n]; ++n) {
        char c = id[n];
        if (n >= NSD_MAX_ID_LEN) return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
    }
    return 1;
}

/* A parameter name: a plain TOML key [A-Za-z0-9_]+ (the shipped plugins
 * use "B2", "F_max"), at most NSD_MAX_ID_LEN characters. */
static int valid_key(const char *s) {
    if (!s || !*s) return 0;
    for (size_t n = 0; s[n]; ++n) {
        char c = s[n];
        if (n >= NSD_MAX_ID_LEN) return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

/* One line of printable text, at most `max` bytes (and not empty). */
static int valid_text(const char *s, size_t max) {
    if (!s || !*s) return 0;
    for (size_t n = 0; s[n]; ++n) {
        unsigned char c = (unsigned char)s[n];
        if (n >= max || c < 0x20 || c == 0x7f) return 0;
    }
    return 1;
}

static const char *null_or_bad(const void *p) { return p ? "an invalid" : "a NULL"; }

/* ---- checks of one descriptor ------------------------------------------ */

static char *check_params(const nsdyn_plugin_info *p) {
    if (p->n_params > NSD_MAX_PARAMS)
        return fmt("declares %zu parameters, more than the %d a plugin may have", p->n_params,
                   NSD_MAX_PARAMS);
    if (p->n_params && !p->params)
        return fmt("declares %zu parameters but its params table is NULL", p->n_params);
    for (size_t i = 0; i < p->n_params; ++i) {
        const nsdyn_param_decl *d = &p->params[i];
        if (!valid_key(d->name))
            return fmt("parameter %zu has %s name (expected [A-Za-z0-9_]+, at most %d characters)",
                       i + 1, null_or_bad(d->name), NSD_MAX_ID_LEN);
        if (!valid_text(d->unit, NSD_MAX_UNIT_LEN))
            return fmt("parameter '%s' has %s unit (a short text; \"1\" for dimensionless)",
                       d->name, null_or_bad(d->unit));
        if (!valid_text(d->help, NSD_MAX_TEXT_LEN))
            return fmt("parameter '%s' has %s help text (one line)", d->name, null_or_bad(d->help));
        if (d->type < NSDYN_PARAM_REAL || d->type > NSDYN_PARAM_STRING)
            return fmt("parameter '%s' has unknown type %d", d->name, (int)d->type);
        if (d->type == NSDYN_PARAM_CHOICE) {
            if (!d->choices)
                return fmt("choice parameter '%s' has no choices list (NULL)", d->name);
            size_t k = 0;
            for (; k < NSD_MAX_CHOICES && d->choices[k]; ++k)
                if (!valid_text(d->choices[k], NSD_MAX_ID_LEN))
                    return fmt(
                        "choice parameter '%s': choice %zu is empty or not a short one-line text",
                        d->name, k + 1);
            if (k == NSD_MAX_CHOICES)
                return fmt("choice parameter '%s': its choices list is not NULL-terminated within "
                           "%d entries",
                           d->name, NSD_MAX_CHOICES);
        }
        if (d->type == NSDYN_PARAM_REAL_ARRAY && d->default_array_len > 1000000)
            return fmt("array parameter '%s' declares a default of %zu elements", d->name,
                       d->default_array_len);
        if (d->type == NSDYN_PARAM_REAL_ARRAY && d->default_array_len && !d->default_array)
            return fmt(
                "array parameter '%s' declares %zu default elements but default_array is NULL",
                d->name, d->default_array_len);
    }
    /* What the declarations mean (ranges, defaults inside them, names
     * declared twice): the host's own checker, first problem only. */
    nsd_diag diag = {0};
    char *why = NULL;
    if (nsd_params_check_decls(p->params, p->n_params, "", &diag) && diag.n) {
        const char *line = diag.lines[0];
        if (!strncmp(line, ": ", 2)) line += 2;
        why = dup_str(line);
    }
    nsd_diag_free(&diag);
    return why;
}

/* The parameter struct table (plugin.h NSDYN_EXT_PARAM_FIELDS): a struct
 * the host can fill for the declarations (param_fields.c). */
static char *check_fields(const nsdyn_plugin_info *p) {
    const nsdyn_param_fields *f = nsd_plugin_param_fields(p);
    char why[384];
    if (!f || !nsd_param_fields_check(f, p->params, p->n_params, why, sizeof why)) return NULL;
    return dup_str(why);
}

#define NEED(fn, name)                                                 \
    do {                                                               \
        if (!(fn)) return fmt("required callback %s() is NULL", name); \
    } while (0)

static char *check_callbacks(const nsdyn_plugin_info *p) {
    /* with a parameter struct table (ABI 2.6) its create() stands in */
    if (!nsd_plugin_param_fields(p)) NEED(p->create, "create");
    NEED(p->destroy, "destroy");
    switch (p->kind) {
        case NSDYN_KIND_SYSTEM: {
            const nsdyn_system *s = (const nsdyn_system *)p;
            NEED(s->layout, "layout");
            NEED(s->derivatives, "derivatives");
            NEED(s->contacts, "contacts");
            if ((p->provides & NSDYN_CAP_DRAWS) && !s->draw)
                return fmt("declares NSDYN_CAP_DRAWS but draw() is NULL");
            if (!s->switches != !s->on_switch)
                return fmt(
                    "switches() and on_switch() come together (system.h), but one of them is NULL");
            break;
        }
        case NSDYN_KIND_CONTACT: {
            const nsdyn_contact_law *c = (const nsdyn_contact_law *)p;
            int compliant = (p->provides & NSDYN_CAP_COMPLIANT_NORMAL) != 0;
            int rigid = (p->provides & NSDYN_CAP_RIGID_IMPACT) != 0;
            if (!compliant && !rigid)
                return fmt("a contact law must declare NSDYN_CAP_COMPLIANT_NORMAL or "
                           "NSDYN_CAP_RIGID_IMPACT");
            if (compliant && !c->normal_force)
                return fmt("declares NSDYN_CAP_COMPLIANT_NORMAL but normal_force() is NULL");
            if (rigid && !c->impact)
                return fmt("declares NSDYN_CAP_RIGID_IMPACT but impact() is NULL");
            if (nsd_plugin_abi_2_4(p) && c->local_impulse)
                return fmt("gives local_impulse(), which a host never calls from ABI 2.4: "
                           "time-stepping calls impact() on one contact with the problem's "
                           "restitution_scale; set it NULL (docs/plugin-guide.md, \"Migrating "
                           "to ABI 2.4\")");
            if (!nsd_plugin_abi_2_4(p) && !c->local_impulse != !c->coefficients)
                return fmt("local_impulse() and coefficients() come together (contact.h, ABI 2.0), "
                           "but one of them is NULL");
            if (c->local_impulse && !rigid)
                return fmt("gives local_impulse() but does not declare NSDYN_CAP_RIGID_IMPACT");
            break;
        }
        case NSDYN_KIND_FRICTION: {
            const nsdyn_friction_law *f = (const nsdyn_friction_law *)p;
            NEED(f->n_states, "n_states");
            NEED(f->force, "force");
            NEED(f->bounds, "bounds");
            break;
        }
        case NSDYN_KIND_INTEGRATOR: {
            const nsdyn_integrator *g = (const nsdyn_integrator *)p;
            NEED(g->setup, "setup");
            NEED(g->step, "step");
            NEED(g->restart, "restart");
            NEED(g->stats, "stats");
            NEED(g->message, "message");
            if ((p->provides & NSDYN_CAP_DENSE_OUTPUT) && !g->dense)
                return fmt("declares NSDYN_CAP_DENSE_OUTPUT but dense() is NULL");
            break;
        }
    }
    return NULL;
}
#undef NEED

/* The former names of parameters (plugin.h NSDYN_EXT_PARAM_ALIASES): each
 * names a declared parameter and is not itself one. */
static char *check_aliases(const nsdyn_plugin_info *p) {
    const nsdyn_param_aliases *a = nsd_plugin_extension(p, NSDYN_EXT_PARAM_ALIASES);
    if (!a) return NULL;
    if (a->struct_size < offsetof(nsdyn_param_aliases, alias) + sizeof a->alias ||
        (a->n && !a->alias))
        return fmt("its %s table is cut short or has no entries", NSDYN_EXT_PARAM_ALIASES);
    for (size_t i = 0; i < a->n; ++i) {
        const nsdyn_param_alias *x = &a->alias[i];
        if (!x->old_name || !x->name || nsd_params_index(p->params, p->n_params, x->name) < 0)
            return fmt("%s entry %zu: '%s' is not a declared parameter", NSDYN_EXT_PARAM_ALIASES, i,
                       x->name ? x->name : "(null)");
        if (nsd_params_index(p->params, p->n_params, x->old_name) >= 0)
            return fmt("%s entry %zu: the former name '%s' is still a declared parameter",
                       NSDYN_EXT_PARAM_ALIASES, i, x->old_name);
    }
    return NULL;
}

/* Every check of descriptor `i` of `path`: NULL when it passes, else the
 * one-line problem (it names the file). */
static char *check_descriptor(const char *path, uint32_t i, const nsdyn_plugin_info *info) {
    if (info->abi_major != NSDYN_ABI_MAJOR)
        return fmt(
            "%s: ABI mismatch: plugin '%s' was built for nsdyn ABI %u.%u, this host speaks %u.%u",
            path, nsd_valid_plugin_id(info->id) ? info->id : "?", info->abi_major, info->abi_minor,
            NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    if (!nsd_valid_plugin_id(info->id))
        return fmt("%s: descriptor %u has %s id (expected [a-z0-9_]+, at most %d characters)", path,
                   i, null_or_bad(info->id), NSD_MAX_ID_LEN);
    if (info->kind < NSDYN_KIND_SYSTEM || info->kind > NSDYN_KIND_INTEGRATOR)
        return fmt("%s: plugin '%s' declares unknown kind %d", path, info->id, (int)info->kind);
    if (info->struct_size < min_descriptor_size(info->kind))
        return fmt("%s: plugin '%s': %s descriptor is %u bytes, ABI %u.0 needs at least %zu", path,
                   info->id, nsd_kind_name(info->kind), info->struct_size, NSDYN_ABI_MAJOR,
                   min_descriptor_size(info->kind));
    char *why = NULL;
    if (!valid_text(info->version, 64))
        why = fmt("has %s version (expected a short one-line text such as \"1.0.0\")",
                  null_or_bad(info->version));
    else if (!valid_text(info->summary, NSD_MAX_TEXT_LEN))
        why = fmt("has %s summary (expected one line of text)", null_or_bad(info->summary));
    if (!why) why = check_params(info);
    if (!why) why = check_callbacks(info);
    if (!why) why = check_aliases(info);
    if (!why) why = check_fields(info);
    if (!why) return NULL;
    char *line = fmt("%s: plugin '%s': %s", path, info->id, why);
    free(why);
    return line;
}

/* ---- opening a file ----------------------------------------------------- */

void nsd_free_found(found *list, size_t n) {
    for (size_t i = 0; i < n; ++i) free(list[i].problem);
    free(list);
}

/* A FIFO, device or folder named like a plugin: dlopen() would block on a
 * FIFO with no writer (a hung `nsdyn run`). Opened without blocking and
 * checked by fstat(); NULL for a regular file (through links). */
char *nsd_plugin_not_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL; /* dlopen() reports why it cannot be read */
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    close(fd);
    return regular ? NULL
                   : fmt("%s: not a regular file (a FIFO, device or folder): not opened", path);
}

/* Open `f` (this runs its code) and check every descriptor. Returns a
 * problem of the whole file (then *n_out = 0), or NULL and the
 * descriptors, each with its own problem or none. */
char *nsd_open_plugin_file(nsd_plugin_file *f, found **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
    f->opened = 1;
    char *not_regular = nsd_plugin_not_regular(f->path);
    if (not_regular) return not_regular;
    dlerror();
    void *handle = dlopen(f->path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        return fmt("%s: cannot load plugin: %s", f->path, e ? e : "dlopen failed");
    }
    nsdyn_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, NSDYN_PLUGIN_ENTRY_NAME);
    if (!entry) {
        dlclose(handle);
        return fmt("%s: no entry point '%s' (not an nsdyn plugin?)", f->path,
                   NSDYN_PLUGIN_ENTRY_NAME);
    }
    f->handle = handle;
    found *list = NULL;
    size_t n = 0;
    uint32_t i = 0;
    for (; i < NSD_MAX_DESCRIPTORS; ++i) {
        const nsdyn_plugin_info *info = entry(NSDYN_ABI_MAJOR, i);
        if (!info) break;
        list = xrealloc(list, (n + 1) * sizeof *list);
        found *d = &list[n++];
        memset(d, 0, sizeof *d);
        if (nsd_valid_plugin_id(info->id)) snprintf(d->id, sizeof d->id, "%s", info->id);
        d->problem = check_descriptor(f->path, i, info);
        for (size_t k = 0; !d->problem && k + 1 < n; ++k)
            if (d->id[0] && strcmp(list[k].id, d->id) == 0)
                d->problem =
                    fmt("%s: plugin '%s' is declared twice in one file (descriptors %zu and %u)",
                        f->path, d->id, k, i);
        if (!d->problem) d->info = info;
    }
    char *problem = NULL;
    if (i == NSD_MAX_DESCRIPTORS)
        problem = fmt("%s: the entry point returns more than %d descriptors (it must return NULL "
                      "past the last)",
                      f->path, NSD_MAX_DESCRIPTORS);
    else if (n == 0)
        problem = fmt("%s: plugin entry point returned no descriptors (ABI mismatch?)", f->path);
    if (problem) {
        nsd_free_found(list, n);
        return problem;
    }
    *out = list;
    *n_out = n;
    return NULL;
}
