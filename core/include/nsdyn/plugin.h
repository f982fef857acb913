/* nsdyn plugin ABI: what every plugin kind shares.
 *
 * A plugin is a shared object that exports one function, NSDYN_PLUGIN_ENTRY,
 * which returns its read-only descriptors by index until NULL (LV2 style).
 * Each descriptor begins with an nsdyn_plugin_info, so the host reads the
 * kind, id and ABI version before it touches the kind-specific table.
 *
 * Versioning. NSDYN_ABI_MAJOR changes when an existing field changes meaning
 * or position; the host refuses a plugin of another major. NSDYN_ABI_MINOR
 * grows when fields are appended. Every table that can grow starts with
 * struct_size (sizeof the table the plugin was compiled with): the host reads
 * a field only if it lies inside struct_size, so older plugins keep working.
 * From ABI 2.4 on, a new optional interface of a plugin is not appended to
 * its kind's table: the table's last field, extension(), returns it by name
 * (LV2's extension_data), so a table stops growing with every minor version
 * (docs/plugin-guide.md, "Migrating to ABI 2.4"). ABI 2.5 gave the last
 * callbacks that could fail and returned void a status (friction bounds(),
 * contact coefficients(), system draw()), keeping their slots: the host
 * calls a plugin built before 2.5 through the old, void type (an adapter
 * in one place, core/src/plugins/plugin_calls.c), so it still loads, and
 * the host, not each plugin, checks the integrators' call protocol
 * (docs/plugin-guide.md, "Migrating to ABI 2.5"). ABI 2.6 lets the host
 * fill a plugin's own parameter struct from offsetof() in an optional
 * interface (NSDYN_EXT_PARAM_FIELDS), so create() no longer unpacks the
 * nsdyn_value array by hand; a plugin without it is called as before
 * (docs/plugin-guide.md, "Migrating to ABI 2.6").
 *
 * Threading contract (read this before writing a plugin).
 *  - Discovery class: the entry point and every descriptor are immutable and
 *    may be read from any thread at any time.
 *  - Instantiation class: create/destroy may run concurrently for different
 *    instances; a plugin keeps NO mutable global or static state.
 *  - Run class: every other callback receives an instance pointer; the host
 *    calls one instance from one thread at a time, while other instances of
 *    the same plugin may run on other threads (parameter sweeps).
 *  - Hot-path callbacks (right-hand sides, contact and friction evaluations,
 *    integrator steps) must not allocate, block or print; they use memory
 *    obtained in create/setup and report trouble with a status code and the
 *    host's log service.
 */
#ifndef NSDYN_PLUGIN_H
#define NSDYN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NSDYN_ABI_MAJOR 2u
#define NSDYN_ABI_MINOR 6u

/* Name of the single exported entry point. */
#define NSDYN_PLUGIN_ENTRY nsdyn_plugin_entry
#define NSDYN_PLUGIN_ENTRY_NAME "nsdyn_plugin_entry"

#if defined(_WIN32)
#define NSDYN_EXPORT __declspec(dllexport)
#else
#define NSDYN_EXPORT __attribute__((visibility("default")))
#endif

/* Status ladder (FMI 3 / SUNDIALS): callers treat anything above
 * NSDYN_WARNING as "did not produce a usable result". */
typedef enum nsdyn_status {
    NSDYN_OK = 0,          /* result is valid */
    NSDYN_WARNING = 1,     /* result is valid; something was logged */
    NSDYN_REJECT_STEP = 2, /* recoverable: the caller should retry with a
                              smaller step (e.g. a state outside the model's
                              domain was reached by a trial stage) */
    NSDYN_ERROR = 3,       /* this evaluation failed; the run stops */
    NSDYN_FATAL = 4        /* the instance is unusable and must be destroyed */
} nsdyn_status;

/* Name of a status for messages ("REJECT_STEP"); inline because plugins do
 * not link against the host. Never NULL: a value outside the ladder gives
 * "unknown status". */
static inline const char *nsdyn_status_name(nsdyn_status status) {
    switch (status) {
        case NSDYN_OK: return "OK";
        case NSDYN_WARNING: return "WARNING";
        case NSDYN_REJECT_STEP: return "REJECT_STEP";
        case NSDYN_ERROR: return "ERROR";
        case NSDYN_FATAL: return "FATAL";
    }
    return "unknown status";
}

typedef enum nsdyn_kind {
    NSDYN_KIND_SYSTEM = 1,
    NSDYN_KIND_CONTACT = 2,
    NSDYN_KIND_FRICTION = 3,
    NSDYN_KIND_INTEGRATOR = 4
} nsdyn_kind;

/* ---- parameters ------------------------------------------------------- */

typedef enum nsdyn_param_type {
    NSDYN_PARAM_REAL = 1,      /* double */
    NSDYN_PARAM_INT = 2,       /* integer, passed as a double holding an integer */
    NSDYN_PARAM_BOOL = 3,      /* 0 or 1, passed as a double */
    NSDYN_PARAM_CHOICE = 4,    /* one of `choices`; passed as the index */
    NSDYN_PARAM_REAL_ARRAY = 5, /* array of doubles */
    /* Text (appended, issue 23: a model file's name, names of its parts).
     * Passed in nsdyn_value.arr as the NUL-terminated text in memory the
     * host aligns for double; read it with nsdyn_value_text(). len is its
     * strlen. The default is the empty text (or NSDYN_PARAM_REQUIRED). A
     * host older than this addition refuses such a declaration by name. */
    NSDYN_PARAM_STRING = 6
} nsdyn_param_type;

/* Flags of a parameter declaration. */
enum {
    NSDYN_PARAM_REQUIRED = 1u << 0,      /* no default: the config must set it */
    NSDYN_PARAM_MIN_EXCLUSIVE = 1u << 1, /* value must be > min, not >= min */
    NSDYN_PARAM_MAX_EXCLUSIVE = 1u << 2, /* value must be < max, not <= max */
    /* REAL and REAL_ARRAY: the value may be +inf or -inf (say, "no limit"),
     * still subject to the range. Without this flag the host refuses a
     * non-finite value even where a side of the range is open (HUGE_VAL).
     * NaN is refused always. (Appended; older hosts checked no finiteness.) */
    NSDYN_PARAM_NONFINITE = 1u << 3,
    /* STRING only (appended, issue 23): the text names a file. The host
     * resolves it relative to the folder of the config file that set it
     * (the working folder for --set), checks that it can be read, and
     * passes the absolute path; a missing file is an error at the key. */
    NSDYN_PARAM_PATH = 1u << 4
};

/* One parameter, declared in C inside the plugin. The host validates config
 * values against it (type, range, required) and prints help from it.
 * Ranges apply to REAL, INT and to every element of REAL_ARRAY. Use
 * -HUGE_VAL / HUGE_VAL for an open side; an open side does not admit
 * +-inf itself (see NSDYN_PARAM_NONFINITE). */
typedef struct nsdyn_param_decl {
    const char *name; /* TOML key, [a-z0-9_]+ */
    nsdyn_param_type type;
    const char *unit;     /* SI unit text, "1" for dimensionless */
    double default_value; /* REAL/INT/BOOL/CHOICE index */
    double min, max;      /* inclusive unless flagged exclusive */
    uint32_t flags;
    const char *help;            /* one line */
    const char *const *choices;  /* CHOICE only: NULL-terminated list */
    const double *default_array; /* REAL_ARRAY only (may be NULL) */
    size_t default_array_len;
} nsdyn_param_decl;

/* A resolved parameter value, passed to create() in declaration order. */
typedef struct nsdyn_value {
    double num;        /* REAL, INT, BOOL, CHOICE index */
    const double *arr; /* REAL_ARRAY elements (owned by the host; valid
                           until destroy()) */
    size_t len;        /* REAL_ARRAY length */
} nsdyn_value;

/* The text of a STRING value ("" when unset). */
static inline const char *nsdyn_value_text(const nsdyn_value *v) {
    return v && v->arr ? (const char *)(const void *)v->arr : "";
}

/* Designated initialisers of nsdyn_param_decl, one per type, so a
 * declaration names its fields instead of relying on their order:
 *
 *   NSDYN_REAL("mu", "1", 0.5, 0.0, HUGE_VAL, "friction coefficient"),
 *   NSDYN_REAL_F("c", "N s/m", 1.0, 0.0, HUGE_VAL, NSDYN_PARAM_MIN_EXCLUSIVE, "damping"),
 *
 * The _F variants take the flags (NSDYN_PARAM_REQUIRED, _MIN_EXCLUSIVE,
 * _MAX_EXCLUSIVE, _NONFINITE) before the help text; the plain forms pass 0.
 * BOOL is dimensionless ("1") with range [0, 1]; CHOICE is dimensionless,
 * its default is the index into the NULL-terminated `choices`, and its range
 * is unused (0, 0). REAL_ARRAY takes its default as an array and checks
 * min/max on every element. Fields not named are zero (NULL). */
/* REAL and INT share their fields; INT values travel as doubles holding an
 * integer (nsdyn_value.num). NSDYN_SCALAR_ is internal to these macros. */
#define NSDYN_SCALAR_(type_, name_, unit_, default_, min_, max_, flags_, help_)         \
    {                                                                                   \
        .name = (name_), .type = (type_), .unit = (unit_), .default_value = (default_), \
        .min = (min_), .max = (max_), .flags = (flags_), .help = (help_)                \
    }
#define NSDYN_REAL_F(name_, unit_, default_, min_, max_, flags_, help_) \
    NSDYN_SCALAR_(NSDYN_PARAM_REAL, name_, unit_, default_, min_, max_, flags_, help_)
#define NSDYN_REAL(name_, unit_, default_, min_, max_, help_) \
    NSDYN_REAL_F(name_, unit_, default_, min_, max_, 0u, help_)
#define NSDYN_INT_F(name_, unit_, default_, min_, max_, flags_, help_) \
    NSDYN_SCALAR_(NSDYN_PARAM_INT, name_, unit_, default_, min_, max_, flags_, help_)
#define NSDYN_INT(name_, unit_, default_, min_, max_, help_) \
    NSDYN_INT_F(name_, unit_, default_, min_, max_, 0u, help_)

/* default_ is 0 (false) or 1 (true). */
#define NSDYN_BOOL_F(name_, default_, flags_, help_)                                         \
    {                                                                                        \
        .name = (name_), .type = NSDYN_PARAM_BOOL, .unit = "1", .default_value = (default_), \
        .min = 0.0, .max = 1.0, .flags = (flags_), .help = (help_)                           \
    }
#define NSDYN_BOOL(name_, default_, help_) NSDYN_BOOL_F(name_, default_, 0u, help_)

/* choices_: a NULL-terminated array of names; default_index_ selects one. */
#define NSDYN_CHOICE_F(name_, default_index_, choices_, flags_, help_)         \
    {                                                                          \
        .name = (name_), .type = NSDYN_PARAM_CHOICE, .unit = "1",              \
        .default_value = (default_index_), .flags = (flags_), .help = (help_), \
        .choices = (choices_)                                                  \
    }
#define NSDYN_CHOICE(name_, default_index_, choices_, help_) \
    NSDYN_CHOICE_F(name_, default_index_, choices_, 0u, help_)

/* default_array_: a static array of doubles, not a pointer: its length is
 * taken with NSDYN_COUNT (GCC's -Wsizeof-pointer-div catches a pointer).
 * An array parameter without default elements is written out with
 * designators (.default_array = NULL, .default_array_len = 0). */
#define NSDYN_REAL_ARRAY_F(name_, unit_, default_array_, min_, max_, flags_, help_)           \
    {                                                                                         \
        .name = (name_), .type = NSDYN_PARAM_REAL_ARRAY, .unit = (unit_), .min = (min_),      \
        .max = (max_), .flags = (flags_), .help = (help_), .default_array = (default_array_), \
        .default_array_len = NSDYN_COUNT(default_array_)                                      \
    }
#define NSDYN_REAL_ARRAY(name_, unit_, default_array_, min_, max_, help_) \
    NSDYN_REAL_ARRAY_F(name_, unit_, default_array_, min_, max_, 0u, help_)

/* A text parameter; flags_ may hold NSDYN_PARAM_PATH, NSDYN_PARAM_REQUIRED. */
#define NSDYN_STRING_F(name_, flags_, help_)                                                      \
    {                                                                                             \
        .name = (name_), .type = NSDYN_PARAM_STRING, .unit = "1", .flags = (flags_), .help = (help_) \
    }

/* ---- named quantities -------------------------------------------------- */

/* A named quantity with a unit: a state, an output channel, a friction
 * law's internal state (system.h, friction.h). */
typedef struct nsdyn_channel {
    const char *name;  /* short id, [A-Za-z0-9_.]+ e.g. "psi" */
    const char *unit;  /* "rad", "m/s", "1" */
    const char *label; /* words for graph axes, e.g. "bar angle psi" */
} nsdyn_channel;

/* ---- host services ----------------------------------------------------- */

typedef enum nsdyn_log_level {
    NSDYN_LOG_DEBUG = 0,
    NSDYN_LOG_INFO = 1,
    NSDYN_LOG_WARNING = 2,
    NSDYN_LOG_ERROR = 3
} nsdyn_log_level;

/* Pre-formatted message (no varargs across the ABI). Thread-safe. */
typedef void (*nsdyn_log_fn)(void *ctx, nsdyn_log_level level, const char *message);

/* Table of services the host passes to create(); the plugin never links
 * against host symbols (SQLite-extension style). Valid until destroy(). */
typedef struct nsdyn_host {
    uint32_t struct_size;
    void *ctx; /* host-private, pass back unchanged */
    nsdyn_log_fn log;
} nsdyn_host;

/* A service of the table is there when struct_size covers it and it is
 * set (a later host may append services; an earlier one lacks them):
 * NSDYN_HOST_HAS(host, log). */
#define NSDYN_HOST_HAS(host, member)                                                         \
    ((host) && (host)->struct_size >= offsetof(nsdyn_host, member) + sizeof(host)->member && \
     (host)->member)

/* ---- instance operations, the same signature in every kind ------------ */

/* Make an instance from the resolved parameters (declaration order). On
 * refusal write a one-line reason into err (err_len bytes, NUL-terminated)
 * and return NULL; the host reports it at the config section. */
typedef void *(*nsdyn_create_fn)(const nsdyn_value *params, const nsdyn_host *host, char *err,
                                 size_t err_len);
/* Free an instance; never NULL in a descriptor. */
typedef void (*nsdyn_destroy_fn)(void *inst);
/* Return an instance to its state right after create(); see each kind for
 * whether it may be NULL. */
typedef void (*nsdyn_reset_fn)(void *inst);

/* ---- capabilities used by the composition check ----------------------- */
/* Each plugin declares what it provides and what it needs from the others;
 * the host refuses an impossible combination before anything runs. */
enum {
    /* integrators */
    NSDYN_CAP_FIXED_STEP = 1u << 0,
    NSDYN_CAP_ADAPTIVE_STEP = 1u << 1,
    NSDYN_CAP_DENSE_OUTPUT = 1u << 2,
    NSDYN_CAP_EVENT_LOCATION = 1u << 3, /* locates sign changes of event functions */
    NSDYN_CAP_STIFF = 1u << 4,
    NSDYN_CAP_TIME_STEPPING = 1u << 5, /* velocity-level contact solver (Moreau) */
    /* contact laws */
    NSDYN_CAP_COMPLIANT_NORMAL = 1u << 8, /* normal force from gap and gap rate */
    NSDYN_CAP_RIGID_IMPACT = 1u << 9,     /* velocity jumps at impact */
    /* ABI 2.0 addition (issue 11): a compliant law whose normal force jumps
     * where the gap rate changes sign while penetrating (the bi-stiffness
     * law: k(1 + mu_n) compressing, k(1 - mu_n) expanding); the host
     * locates gap_rate = 0 as an event and restarts the integrator there,
     * so no step straddles the jump. Old hosts ignore the bit. */
    NSDYN_CAP_RATE_DISCONTINUITY = 1u << 10,
    /* friction laws */
    NSDYN_CAP_FRICTION_SMOOTH = 1u << 12,     /* single-valued force of slip */
    NSDYN_CAP_FRICTION_SET_VALUED = 1u << 13, /* set-valued at zero slip */
    NSDYN_CAP_FRICTION_STATEFUL = 1u << 14,   /* internal states in the ODE */
    NSDYN_CAP_FRICTION_2D = 1u << 15,         /* spatial (2-D) slip */
    /* The force does not scale with the normal force (a viscous damper):
     * fine for persistent contacts with a given load and compliant
     * contact; rigid contact evaluates force() at N = 1 and scales it, so
     * the composition check refuses the pair (friction.h). */
    NSDYN_CAP_FRICTION_LOAD_FREE = 1u << 16,
    /* systems */
    NSDYN_CAP_UNILATERAL_CONTACTS = 1u << 20, /* candidates that can open */
    NSDYN_CAP_PERSISTENT_CONTACTS = 1u << 21, /* candidates with given normal load */
    NSDYN_CAP_TANGENT_2D = 1u << 22,          /* some contact slips in 2-D */
    NSDYN_CAP_DRAWS = 1u << 23,               /* draw() is provided */
    /* With every contact force zero, the layout's energy_output stays
     * constant (no external work, no damping): the host audits it. */
    NSDYN_CAP_CONSERVATIVE = 1u << 24
};

/* Common head of every descriptor. */
typedef struct nsdyn_plugin_info {
    uint32_t struct_size; /* sizeof the whole kind-specific descriptor */
    uint16_t abi_major;   /* NSDYN_ABI_MAJOR the plugin was built with */
    uint16_t abi_minor;   /* NSDYN_ABI_MINOR the plugin was built with */
    nsdyn_kind kind;
    const char *id;      /* unique, [a-z0-9_]+ e.g. "dopri5" */
    const char *version; /* plugin's own version, "1.0.0" */
    const char *summary; /* one line for `nsdyn plugins` */
    const nsdyn_param_decl *params;
    size_t n_params;
    uint32_t provides; /* NSDYN_CAP_* bits */
    uint32_t needs;    /* NSDYN_CAP_* bits required of the partners */
    /* The instance operations, the same in every kind, so the host reaches
     * them without knowing the kind (ABI 2.0; they followed the head in
     * each kind's table before, at the same offsets). create and destroy
     * are required; reset may be NULL (an instance that holds nothing but
     * its parameters; an integrator's reset forgets the problem and the
     * statistics, and setup() must follow). */
    nsdyn_create_fn create;
    nsdyn_destroy_fn destroy;
    nsdyn_reset_fn reset;
} nsdyn_plugin_info;

#define NSDYN_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* ---- optional interfaces, looked up by name (ABI 2.4) ------------------ */

/* The last field of every kind's table (nsdyn_system, nsdyn_contact_law,
 * nsdyn_friction_law, nsdyn_integrator): the plugin's optional interface
 * called `name` (one of the NSDYN_EXT_* names below, or a name of a later
 * ABI), or NULL when it does not offer it. Discovery class: it returns a
 * pointer to immutable data that lives as long as the plugin is loaded,
 * and may be called from any thread. The field itself may be NULL (no
 * optional interfaces); a host reads it only when info.struct_size covers
 * it (a plugin built before 2.4 has none). */
typedef const void *(*nsdyn_extension_fn)(const char *name);

/* NSDYN_EXT_PARAM_ALIASES: an nsdyn_param_aliases. Former names of
 * parameters: a config that still uses `old_name` sets `name`, and the
 * host writes a warning with the key's file:line:col into the run's log
 * (a config setting both is refused). For a renamed parameter, so old
 * configs keep running while they are moved over. */
#define NSDYN_EXT_PARAM_ALIASES "nsdyn.param_aliases"

typedef struct nsdyn_param_alias {
    const char *old_name; /* the key configs used before */
    const char *name;     /* the declared parameter it now sets */
} nsdyn_param_alias;

typedef struct nsdyn_param_aliases {
    uint32_t struct_size; /* sizeof(nsdyn_param_aliases) the plugin was built with */
    size_t n;
    const nsdyn_param_alias *alias;
} nsdyn_param_aliases;

/* NSDYN_EXT_PARAM_FIELDS (ABI 2.6): an nsdyn_param_fields. The plugin's
 * parameters as a C struct of its own: per declared parameter (in
 * declaration order, one entry each) the member's offset, C type and size.
 * The host checks the table when it loads the plugin (every member inside
 * the struct, aligned, no two overlapping, its C type one the declared
 * parameter converts to, an int's declared range inside int's), then for
 * each instance fills a zeroed block of that struct from the validated,
 * defaulted values and calls the table's create() with it instead of
 * info.create (which may then be NULL: a host before 2.6 refuses such a
 * plugin by name, "required callback create() is NULL"). The block lives
 * only during create(): copy the struct into the instance. Its TEXT and
 * ARRAY pointers point into the host's values, valid until destroy(). */
#define NSDYN_EXT_PARAM_FIELDS "nsdyn.param_fields"

/* The C type of a member, and the declared types each takes:
 *   DOUBLE  double       REAL, INT, BOOL (0 or 1), CHOICE (the index)
 *   INT     int          INT (declared range inside int's), BOOL, CHOICE
 *   BOOL    _Bool        BOOL
 *   TEXT    const char * STRING (the text, "" when unset)
 *   ARRAY   const double * with a size_t count member: REAL_ARRAY */
typedef enum nsdyn_field_type {
    NSDYN_FIELD_DOUBLE = 1,
    NSDYN_FIELD_INT = 2,
    NSDYN_FIELD_BOOL = 3,
    NSDYN_FIELD_TEXT = 4,
    NSDYN_FIELD_ARRAY = 5,
    NSDYN_FIELD_UNSUPPORTED = 0 /* a member of another C type: refused */
} nsdyn_field_type;

typedef struct nsdyn_param_field {
    const char *name;      /* the declared parameter this member holds */
    nsdyn_field_type type; /* the member's C type */
    size_t offset;         /* offsetof(struct, member) [bytes] */
    size_t size;           /* sizeof the member, checked against type */
    size_t count_offset;   /* ARRAY: offsetof its size_t element count */
    size_t count_size;     /* ARRAY: sizeof that member */
} nsdyn_param_field;

/* create() given the filled struct (params: `size` bytes, aligned to
 * `align`) instead of the value array; the same contract otherwise. */
typedef void *(*nsdyn_create_fields_fn)(const void *params, const nsdyn_host *host, char *err,
                                        size_t err_len);

typedef struct nsdyn_param_fields {
    uint32_t struct_size; /* sizeof(nsdyn_param_fields) the plugin was built with */
    size_t size;          /* sizeof the parameter struct [bytes] */
    size_t align;         /* _Alignof the parameter struct [bytes] */
    size_t n;             /* entries: info.n_params */
    const nsdyn_param_field *field;
    nsdyn_create_fields_fn create;
} nsdyn_param_fields;

/* Does an extension() call ask for interface `ext`? (no <string.h>) */
static inline int nsdyn_ext_is(const char *name, const char *ext) {
    if (!name) return 0;
    while (*name && *name == *ext) ++name, ++ext;
    return *name == *ext;
}

/* An extension() function fn_ that offers only the parameter struct
 * table table_ (an nsdyn_param_fields object):
 *   NSDYN_FIELDS_EXTENSION(extension, table)  ...  .extension = extension */
#define NSDYN_FIELDS_EXTENSION(fn_, table_)                                                 \
    static const void *fn_(const char *name) {                                              \
        return nsdyn_ext_is(name, NSDYN_EXT_PARAM_FIELDS) ? (const void *)&(table_) : NULL; \
    }

#ifndef __cplusplus
/* The member's type by _Generic, so an entry cannot name the wrong one:
 *   NSDYN_FIELD(coulomb_params, mu_s)            parameter "mu_s"
 *   NSDYN_FIELD_AS(coulomb_params, eps_mps, "eps") another name
 *   NSDYN_FIELD_ARRAY(my_params, q0, n_q0)       REAL_ARRAY and its count
 * and the table, with its create():
 *   NSDYN_PARAM_FIELDS(coulomb_params, fields, create_from_fields) */
#define NSDYN_FIELD_TYPE_OF_(x) \
    _Generic((x), double: NSDYN_FIELD_DOUBLE, int: NSDYN_FIELD_INT, _Bool: NSDYN_FIELD_BOOL, \
             const char *: NSDYN_FIELD_TEXT, const double *: NSDYN_FIELD_ARRAY,              \
             default: NSDYN_FIELD_UNSUPPORTED)
#define NSDYN_FIELD_AS(struct_, member_, name_)                                       \
    {                                                                                 \
        .name = (name_), .type = NSDYN_FIELD_TYPE_OF_(((struct_ *)0)->member_),       \
        .offset = offsetof(struct_, member_), .size = sizeof(((struct_ *)0)->member_) \
    }
#define NSDYN_FIELD(struct_, member_) NSDYN_FIELD_AS(struct_, member_, #member_)
#define NSDYN_FIELD_ARRAY_AS(struct_, member_, count_, name_)                                   \
    {                                                                                           \
        .name = (name_), .type = NSDYN_FIELD_TYPE_OF_(((struct_ *)0)->member_),                 \
        .offset = offsetof(struct_, member_), .size = sizeof(((struct_ *)0)->member_),          \
        .count_offset = offsetof(struct_, count_), .count_size = sizeof(((struct_ *)0)->count_) \
    }
#define NSDYN_FIELD_ARRAY(struct_, member_, count_) \
    NSDYN_FIELD_ARRAY_AS(struct_, member_, count_, #member_)
#define NSDYN_PARAM_FIELDS(struct_, fields_, create_)                              \
    {                                                                              \
        .struct_size = sizeof(nsdyn_param_fields), .size = sizeof(struct_),        \
        .align = _Alignof(struct_), .n = NSDYN_COUNT(fields_), .field = (fields_), \
        .create = (create_)                                                        \
    }
#endif

/* pi, the one spelling for host and plugins (M_PI is not ISO C). */
#define NSDYN_PI 3.14159265358979323846

/* Initialise the head of a descriptor with designators. The macro sets
 * struct_size, the ABI version and the kind; the plugin names the rest:
 *
 *   static const nsdyn_friction_law law = {
 *       .info = NSDYN_FRICTION_INFO(.id = "viscous", .version = "1.0.0",
 *                                   .summary = "viscous friction -c u",
 *                                   NSDYN_PARAMS(params),
 *                                   .provides = NSDYN_CAP_FRICTION_SMOOTH),
 *       .create = create, ...
 *   };
 *
 * Each kind header defines its shorthand (NSDYN_SYSTEM_INFO,
 * NSDYN_CONTACT_INFO, NSDYN_FRICTION_INFO, NSDYN_INTEGRATOR_INFO), which
 * ties struct_size to the kind's table so the two cannot disagree. */
#define NSDYN_INFO_OF(descriptor_type, kind_, ...)                                      \
    {                                                                                   \
        .struct_size = (uint32_t)sizeof(descriptor_type), .abi_major = NSDYN_ABI_MAJOR, \
        .abi_minor = NSDYN_ABI_MINOR, .kind = (kind_), __VA_ARGS__                      \
    }
/* The parameter table of a descriptor head: .params and .n_params. */
#define NSDYN_PARAMS(array) .params = (array), .n_params = NSDYN_COUNT(array)

/* The entry point: return descriptor `index` (0, 1, ...) or NULL past the
 * last. `host_abi_major` lets a plugin refuse an incompatible host. */
typedef const nsdyn_plugin_info *(*nsdyn_plugin_entry_fn)(uint32_t host_abi_major, uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
