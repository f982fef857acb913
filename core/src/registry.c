#define _GNU_SOURCE
#include "registry.h"

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
#include "params.h"

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

static const nsdyn_kind all_kinds[] = {NSDYN_KIND_SYSTEM, NSDYN_KIND_CONTACT, NSDYN_KIND_FRICTION,
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

/* ---- small helpers ------------------------------------------------------ */

static char *dup_str(const char *s) {
    char *p = strdup(s);
    if (!p) abort();
    return p;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    int n = vasprintf(&s, f, ap);
    va_end(ap);
    if (n < 0) abort();
    return s;
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) abort();
    return p;
}

static void push_str(char ***list, size_t *n, char *s) {
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = s;
}

/* A plugin id: [a-z0-9_]+, at most NSD_MAX_ID_LEN characters. The length
 * bound also keeps the scan of a string without a terminator short. */
static int valid_id(const char *id) {
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
        if (d->type < NSDYN_PARAM_REAL || d->type > NSDYN_PARAM_REAL_ARRAY)
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

#define NEED(fn, name)                                                 \
    do {                                                               \
        if (!(fn)) return fmt("required callback %s() is NULL", name); \
    } while (0)

static char *check_callbacks(const nsdyn_plugin_info *p) {
    switch (p->kind) {
        case NSDYN_KIND_SYSTEM: {
            const nsdyn_system *s = (const nsdyn_system *)p;
            NEED(s->create, "create");
            NEED(s->destroy, "destroy");
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
            NEED(c->create, "create");
            NEED(c->destroy, "destroy");
            int compliant = (p->provides & NSDYN_CAP_COMPLIANT_NORMAL) != 0;
            int rigid = (p->provides & NSDYN_CAP_RIGID_IMPACT) != 0;
            if (!compliant && !rigid)
                return fmt("a contact law must declare NSDYN_CAP_COMPLIANT_NORMAL or "
                           "NSDYN_CAP_RIGID_IMPACT");
            if (compliant && !c->normal_force)
                return fmt("declares NSDYN_CAP_COMPLIANT_NORMAL but normal_force() is NULL");
            if (rigid && !c->impact)
                return fmt("declares NSDYN_CAP_RIGID_IMPACT but impact() is NULL");
            if (!c->local_impulse != !c->coefficients)
                return fmt("local_impulse() and coefficients() come together (contact.h, ABI 2.0), "
                           "but one of them is NULL");
            if (c->local_impulse && !rigid)
                return fmt("gives local_impulse() but does not declare NSDYN_CAP_RIGID_IMPACT");
            break;
        }
        case NSDYN_KIND_FRICTION: {
            const nsdyn_friction_law *f = (const nsdyn_friction_law *)p;
            NEED(f->create, "create");
            NEED(f->destroy, "destroy");
            NEED(f->n_states, "n_states");
            NEED(f->force, "force");
            NEED(f->bounds, "bounds");
            break;
        }
        case NSDYN_KIND_INTEGRATOR: {
            const nsdyn_integrator *g = (const nsdyn_integrator *)p;
            NEED(g->create, "create");
            NEED(g->destroy, "destroy");
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

/* Every check of descriptor `i` of `path`: NULL when it passes, else the
 * one-line problem (it names the file). */
static char *check_descriptor(const char *path, uint32_t i, const nsdyn_plugin_info *info) {
    if (info->abi_major != NSDYN_ABI_MAJOR)
        return fmt(
            "%s: ABI mismatch: plugin '%s' was built for nsdyn ABI %u.%u, this host speaks %u.%u",
            path, valid_id(info->id) ? info->id : "?", info->abi_major, info->abi_minor,
            NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR);
    if (!valid_id(info->id))
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
    if (!why) return NULL;
    char *line = fmt("%s: plugin '%s': %s", path, info->id, why);
    free(why);
    return line;
}

/* ---- opening a file ----------------------------------------------------- */

typedef struct found {
    const nsdyn_plugin_info *info; /* NULL when it failed a check */
    char id[NSD_MAX_ID_LEN + 1];   /* its id when that is valid, else "" */
    char *problem;
} found;

static void free_found(found *list, size_t n) {
    for (size_t i = 0; i < n; ++i) free(list[i].problem);
    free(list);
}

/* Open `f` (this runs its code) and check every descriptor. Returns a
 * problem of the whole file (then *n_out = 0), or NULL and the
 * descriptors, each with its own problem or none. */
static char *open_file(nsd_plugin_file *f, found **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
    f->opened = 1;
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
        if (valid_id(info->id)) snprintf(d->id, sizeof d->id, "%s", info->id);
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
        free_found(list, n);
        return problem;
    }
    *out = list;
    *n_out = n;
    return NULL;
}

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

/* Index flag: a contact law with local_impulse() and coefficients(). */
#define NSD_INDEX_LOCAL_IMPULSE 1u

/* Stand-ins that make a placeholder say "has local_impulse()"; never
 * called (find() returns only opened plugins). */
static nsdyn_status stub_local_impulse(void *inst, const nsdyn_local_impact *p, double *P) {
    (void)inst;
    (void)p;
    (void)P;
    return NSDYN_FATAL;
}
static void stub_coefficients(void *inst, nsdyn_rigid_coefficients *out) {
    (void)inst;
    out->kind = NSDYN_RESTITUTION_OTHER;
    out->restitution = 0.0;
}

static uint32_t descriptor_flags(const nsdyn_plugin_info *p) {
    if (p->kind != NSDYN_KIND_CONTACT) return 0;
    const nsdyn_contact_law *c = (const nsdyn_contact_law *)p;
    return c->local_impulse && c->coefficients ? NSD_INDEX_LOCAL_IMPULSE : 0;
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

static size_t add_file(nsd_registry *r, const char *path, const char *real, int by_name) {
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
    p->file = file;
    p->loaded = info != NULL;
    return p;
}

/* An index entry: a placeholder descriptor until the file is opened. */
typedef struct index_entry {
    nsdyn_kind kind;
    char id[NSD_MAX_ID_LEN + 1];
    uint32_t provides, needs, flags;
} index_entry;

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
        s->d.c.local_impulse = stub_local_impulse;
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

/* nsdyn_<kind>_<id>.so: the name alone says what a file without an index
 * holds. */
static int name_convention(const char *name, index_entry *e) {
    memset(e, 0, sizeof *e);
    if (strncmp(name, "nsdyn_", 6) != 0) return 0;
    const char *rest = name + 6;
    size_t len = strlen(rest);
    if (len < 3 || strcmp(rest + len - 3, ".so") != 0) return 0;
    for (size_t k = 0; k < NSDYN_COUNT(all_kinds); ++k) {
        const char *sec = nsd_kind_section(all_kinds[k]);
        size_t sl = strlen(sec);
        if (strncmp(rest, sec, sl) != 0 || rest[sl] != '_') continue;
        size_t idl = len - 3 - sl - 1;
        if (idl == 0 || idl > NSD_MAX_ID_LEN) return 0;
        memcpy(e->id, rest + sl + 1, idl);
        e->id[idl] = '\0';
        e->kind = all_kinds[k];
        return valid_id(e->id);
    }
    return 0;
}

/* Parse an index. Returns NULL and the entries, or the problem. Format:
 *   # comments
 *   nsdyn-index 1
 *   <kind section> <id> <provides hex> <needs hex> <flags hex>   (one line per plugin) */
static char *parse_index(const char *path, index_entry **out, size_t *n_out) {
    *out = NULL;
    *n_out = 0;
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
        for (size_t k = 0; k < NSDYN_COUNT(all_kinds); ++k)
            if (strcmp(tok[0], nsd_kind_section(all_kinds[k])) == 0) e.kind = all_kinds[k];
        if (!e.kind) {
            problem = fmt("line %d: unknown kind '%.32s'", lineno, tok[0]);
            break;
        }
        if (!valid_id(tok[1])) {
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
    size_t k = add_file(r, path, real, 0);
    found *list;
    size_t n, problems = 0;
    char *whole = open_file(&r->files[k], &list, &n);
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
    free_found(list, n);
    return problems;
}

size_t nsd_registry_scan(nsd_registry *r, const char *const *dirs, size_t n_dirs, nsd_diag *diag) {
    size_t problems = 0;
    for (size_t i = 0; i < n_dirs; ++i) {
        push_dir(r, dirs[i]);
        size_t n;
        char **names = list_so(dirs[i], &n);
        for (size_t j = 0; j < n; ++j) {
            char *path = fmt("%s/%s", dirs[i], names[j]);
            /* The same file reached twice through the path is opened once. */
            char real[PATH_MAX];
            if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
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
        size_t n;
        char **names = list_so(dirs[i], &n);
        for (size_t j = 0; j < n; ++j) {
            char *path = fmt("%s/%s", dirs[i], names[j]);
            char *index = fmt("%s%s", path, NSD_INDEX_SUFFIX);
            char real[PATH_MAX];
            index_entry conv, *entries = NULL;
            size_t n_entries = 0;
            if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
            if (file_seen(r, real)) {
                /* reached twice through the path: indexed once */
            } else if (access(index, F_OK) == 0) {
                char *problem = parse_index(index, &entries, &n_entries);
                if (problem) {
                    push_str(&r->skipped, &r->n_skipped,
                             fmt("%s: not opened: its index %s is malformed (%s)", path, index,
                                 problem));
                    free(problem);
                } else {
                    size_t k = add_file(r, path, real, 0);
                    for (size_t e = 0; e < n_entries; ++e) add_stub(r, &entries[e], k);
                }
                free(entries);
            } else if (name_convention(names[j], &conv)) {
                add_stub(r, &conv, add_file(r, path, real, 1));
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
    char *whole = open_file(f, &list, &n);
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
                  descriptor_flags(d->info) != descriptor_flags(p->info)))
            p->problem = fmt("%s: plugin '%s': its index is stale (the capabilities differ from "
                             "the file's): rebuild the plugin or run `nsdyn index %s`",
                             f->path, id, f->path);
        else {
            p->info = d->info;
            p->loaded = 1;
        }
    }
    free(whole);
    free_found(list, n);
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
        char *why = parse_index(index, &entries, &n);
        if (why) {
            problem = fmt("%s: its index %s is malformed (%s): runs never open the file; rebuild "
                          "the plugin or run `nsdyn index %s`",
                          f->path, index, why, f->path);
            free(why);
        }
        for (size_t i = 0; !problem && i < n; ++i) {
            const nsdyn_plugin_info *d = desc_with_id(f, entries[i].id);
            if (!d || d->kind != entries[i].kind || d->provides != entries[i].provides ||
                d->needs != entries[i].needs || descriptor_flags(d) != entries[i].flags)
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
    } else if (name_convention(name, &conv)) {
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
    size_t k = add_file(&r, path, real, 0);
    found *list;
    size_t n, problems = 0;
    char *whole = open_file(&r.files[k], &list, &n);
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
                        (unsigned)d->provides, (unsigned)d->needs, (unsigned)descriptor_flags(d));
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
    free_found(list, n);
    nsd_registry_close(&r);
    free(index);
    free(path);
    return problems;
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
