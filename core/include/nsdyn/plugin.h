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
#define NSDYN_ABI_MINOR 0u

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
    NSDYN_PARAM_REAL_ARRAY = 5 /* array of doubles */
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
    NSDYN_PARAM_NONFINITE = 1u << 3
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

/* ---- host services ----------------------------------------------------- */

typedef enum nsdyn_log_level {
    NSDYN_LOG_DEBUG = 0,
    NSDYN_LOG_INFO = 1,
    NSDYN_LOG_WARNING = 2,
    NSDYN_LOG_ERROR = 3
} nsdyn_log_level;

/* Table of services the host passes to create(); the plugin never links
 * against host symbols (SQLite-extension style). Valid until destroy(). */
typedef struct nsdyn_host {
    uint32_t struct_size;
    void *ctx; /* host-private, pass back unchanged */
    /* Pre-formatted message (no varargs across the ABI). Thread-safe. */
    void (*log)(void *ctx, nsdyn_log_level level, const char *message);
} nsdyn_host;

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
    /* friction laws */
    NSDYN_CAP_FRICTION_SMOOTH = 1u << 12,     /* single-valued force of slip */
    NSDYN_CAP_FRICTION_SET_VALUED = 1u << 13, /* set-valued at zero slip */
    NSDYN_CAP_FRICTION_STATEFUL = 1u << 14,   /* internal states in the ODE */
    NSDYN_CAP_FRICTION_2D = 1u << 15,         /* spatial (2-D) slip */
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
} nsdyn_plugin_info;

/* Initialise the head of a descriptor. */
#define NSDYN_INFO(descriptor_type, kind_, id_, version_, summary_, params_, n_params_, provides_, \
                   needs_)                                                                         \
    {                                                                                              \
        sizeof(descriptor_type), NSDYN_ABI_MAJOR, NSDYN_ABI_MINOR, kind_, id_, version_, summary_, \
            params_, n_params_, provides_, needs_                                                  \
    }

#define NSDYN_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The entry point: return descriptor `index` (0, 1, ...) or NULL past the
 * last. `host_abi_major` lets a plugin refuse an incompatible host. */
typedef const nsdyn_plugin_info *(*nsdyn_plugin_entry_fn)(uint32_t host_abi_major, uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
