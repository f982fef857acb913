/* nsdyn plugins / nsdyn describe ID */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "help.h"
#include "param_fields.h"
#include "params.h"
#include "runlog.h"

static void caps_text(uint32_t caps, char *buf, size_t len) {
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {
        {NSDYN_CAP_FIXED_STEP, "fixed-step"},
        {NSDYN_CAP_ADAPTIVE_STEP, "adaptive"},
        {NSDYN_CAP_DENSE_OUTPUT, "dense-output"},
        {NSDYN_CAP_EVENT_LOCATION, "event-location"},
        {NSDYN_CAP_STIFF, "stiff"},
        {NSDYN_CAP_TIME_STEPPING, "time-stepping"},
        {NSDYN_CAP_COMPLIANT_NORMAL, "compliant"},
        {NSDYN_CAP_RIGID_IMPACT, "rigid-impact"},
        {NSDYN_CAP_FRICTION_SMOOTH, "smooth"},
        {NSDYN_CAP_FRICTION_SET_VALUED, "set-valued"},
        {NSDYN_CAP_FRICTION_STATEFUL, "internal-state"},
        {NSDYN_CAP_FRICTION_2D, "2-D slip"},
        {NSDYN_CAP_UNILATERAL_CONTACTS, "unilateral contacts"},
        {NSDYN_CAP_PERSISTENT_CONTACTS, "persistent contacts"},
        {NSDYN_CAP_FRICTION_LOAD_FREE, "load-free (not proportional to N)"},
        {NSDYN_CAP_TANGENT_2D, "2-D slip"},
        {NSDYN_CAP_DRAWS, "draws itself"},
        {NSDYN_CAP_RATE_DISCONTINUITY, "rate-discontinuous (force jumps where the gap rate "
                                       "changes sign)"},
        {NSDYN_CAP_CONSERVATIVE, "conservative (its energy output is audited)"},
    };
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (caps & names[i].bit) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
        }
    if (!buf[0]) snprintf(buf, len, "-");
}

/* Lists everything: unlike a run, it opens every shared object on the path
 * (their code runs) and checks all of them, and it reports what a run
 * would meet (nsd_registry_audit). Any problem: exit 2. */
int nsd_cmd_plugins(void) {
    nsd_registry reg = {0};
    nsd_diag diag = {0};
    size_t problems = nsd_app_scan_default(&reg, &diag);
    problems += nsd_registry_audit(&reg, &diag);
    printf("search path:\n");
    for (size_t i = 0; i < reg.n_dirs; ++i) printf("  %s\n", reg.dirs[i]);
    const nsdyn_kind kinds[] = {NSDYN_KIND_SYSTEM, NSDYN_KIND_CONTACT, NSDYN_KIND_FRICTION,
                                NSDYN_KIND_INTEGRATOR};
    for (size_t k = 0; k < 4; ++k) {
        printf("\n%ss:\n", nsd_kind_name(kinds[k]));
        size_t shown = 0;
        for (size_t i = 0; i < reg.n; ++i) {
            const nsdyn_plugin_info *p = reg.plugins[i].info;
            if (p->kind != kinds[k]) continue;
            printf("  %-22s %-8s %s\n", p->id, p->version, p->summary);
            shown++;
        }
        if (!shown) printf("  (none)\n");
    }
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    nsd_registry_close(&reg);
    return problems ? NSD_EXIT_USAGE : NSD_EXIT_OK;
}

int nsd_cmd_plugin_ids(void) {
    nsd_registry reg = {0};
    nsd_diag diag = {0};
    nsd_app_index_default(&reg, &diag);
    for (size_t i = 0; i < reg.n; ++i) printf("%s\n", reg.plugins[i].info->id);
    nsd_diag_free(&diag);
    nsd_registry_close(&reg);
    return NSD_EXIT_OK;
}

static void print_channels(const char *what, const nsdyn_channel *c, size_t n) {
    printf("\n%s:\n", what);
    if (!n) printf("  (none)\n");
    for (size_t i = 0; i < n; ++i)
        printf("  %-16s [%s]  %s\n", c[i].name, c[i].unit, c[i].label ? c[i].label : "");
}

static void print_names(const char *what, const char *const *names, size_t n) {
    printf("\n%s:\n", what);
    if (!n) printf("  (none)\n");
    for (size_t i = 0; i < n; ++i) printf("  %s\n", names[i]);
}

/* What a system declares with its default parameters: states, outputs,
 * contacts, stops, switches (the names [initial], plot.series and compare
 * channels use). */
static void describe_layout(const nsdyn_system *s, const nsdyn_value *v, const nsdyn_host *host) {
    char err[256] = "";
    void *inst = nsd_plugin_create(&s->info, v, host, err, sizeof err);
    if (!inst) {
        printf("\n(with its default parameters it does not start: %s)\n", err);
        return;
    }
    nsdyn_system_layout L = {.struct_size = sizeof L};
    if (s->layout(inst, &L) <= NSDYN_WARNING) {
        printf("\nwith its default parameters:\n");
        print_channels("states q ([initial])", L.q, L.nq);
        print_channels("states v ([initial])", L.v, L.nv);
        print_channels("outputs (plot.series, compare channels)", L.outputs, L.n_outputs);
        printf("\ncontacts (each gives <name>.N and friction channels):\n");
        if (!L.n_contacts) printf("  (none)\n");
        for (size_t i = 0; i < L.n_contacts; ++i)
            printf("  %-16s %s, %u-D slip\n", L.contacts[i].name,
                   L.contacts[i].type == NSDYN_CONTACT_UNILATERAL ? "unilateral" : "persistent",
                   (unsigned)L.contacts[i].tangent_dim);
        print_names("stop conditions", L.stops, L.n_stops);
        print_names("switches", L.switches, L.n_switches);
    }
    s->info.destroy(inst);
}

/* A friction law's internal states (one set per contact). */
static void describe_states(const nsdyn_friction_law *f, const nsdyn_value *v,
                            const nsdyn_host *host) {
    char err[256] = "";
    void *inst = nsd_plugin_create(&f->info, v, host, err, sizeof err);
    if (!inst) return;
    for (uint32_t dim = 1; dim <= 2; ++dim) {
        size_t n = f->n_states(inst, dim);
        nsdyn_channel ch[16] = {{0}};
        char what[64];
        snprintf(what, sizeof what, "internal states per contact, %u-D slip", (unsigned)dim);
        if (n <= 16 && f->state_channels && f->state_channels(inst, dim, ch) <= NSDYN_WARNING)
            print_channels(what, ch, n);
        else if (n)
            printf("\n%s: %zu\n", what, n);
    }
    f->info.destroy(inst);
}

static void describe_instance(const nsdyn_plugin_info *i) {
    nsd_params p = {0};
    nsd_diag diag = {0};
    nsd_runlog log = {0}; /* the instance's messages, printed below */
    nsdyn_host host = nsd_runlog_host(&log);
    int required = 0;
    for (size_t k = 0; k < i->n_params; ++k)
        required |= (i->params[k].flags & NSDYN_PARAM_REQUIRED) != 0;
    if (!required && nsd_params_resolve(&p, i->params, i->n_params, NULL, "", NULL, &diag) == 0) {
        if (i->kind == NSDYN_KIND_SYSTEM)
            describe_layout((const nsdyn_system *)i, p.values, &host);
        else if (i->kind == NSDYN_KIND_FRICTION)
            describe_states((const nsdyn_friction_law *)i, p.values, &host);
    }
    nsd_params_free(&p);
    nsd_runlog_print(stderr, &log);
    nsd_runlog_free(&log);
    nsd_diag_free(&diag);
}

/* Opens only the shared object that holds `id`, as a run would. */
int nsd_cmd_describe(const char *id) {
    nsd_registry reg = {0};
    nsd_diag diag = {0};
    nsd_app_index_default(&reg, &diag);
    const nsd_plugin *p = nsd_registry_find(&reg, id);
    const char *why = p ? NULL : nsd_registry_problem(&reg, id);
    int status = NSD_EXIT_OK;
    if (why) {
        fprintf(stderr, "error: cannot use '%s': %s\n", id, why);
        status = NSD_EXIT_USAGE;
    } else if (!p) {
        const char **ids = calloc(reg.n ? reg.n : 1, sizeof *ids);
        for (size_t i = 0; i < reg.n; ++i) ids[i] = reg.plugins[i].info->id;
        const char *near = nsd_did_you_mean(id, ids, reg.n);
        if (nsd_help_find(id))
            fprintf(stderr, "error: '%s' is a command, not a plugin: nsdyn help %s\n", id, id);
        else
            fprintf(stderr,
                    "error: no plugin '%s' in the search path%s%s%s (nsdyn plugins lists them)\n",
                    id, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        for (size_t k = 0; k < reg.n_skipped && k < 3; ++k)
            fprintf(stderr, "note: %s\n", reg.skipped[k]);
        free(ids);
        status = NSD_EXIT_USAGE;
    } else {
        const nsdyn_plugin_info *i = p->info;
        char provides[512], needs[512];
        caps_text(i->provides, provides, sizeof provides);
        caps_text(i->needs, needs, sizeof needs);
        printf("%s %s (%s)\n  %s\n  file: %s\n  ABI %u.%u; provides: %s; needs: %s\n\nparameters "
               "([%s] section):\n",
               i->id, i->version, nsd_kind_name(i->kind), i->summary, p->path, i->abi_major,
               i->abi_minor, provides, needs, nsd_kind_section(i->kind));
        nsd_params_print_help(stdout, i->params, i->n_params);
        describe_instance(i);
    }
    nsd_diag_print(&diag, stderr);
    nsd_diag_free(&diag);
    nsd_registry_close(&reg);
    return status;
}

int nsd_cmd_index(int n_files, char **files) {
    size_t problems = 0;
    for (int i = 0; i < n_files; ++i) {
        nsd_diag diag = {0};
        problems += nsd_registry_write_index(files[i], &diag);
        nsd_diag_print(&diag, stderr);
        nsd_diag_free(&diag);
    }
    return problems ? NSD_EXIT_USAGE : NSD_EXIT_OK;
}
