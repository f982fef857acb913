#define _GNU_SOURCE
#include "model.h"

#include "modes.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) abort();
    return p;
}

static void add_channel(nsd_model *m, const char *name, const char *unit, const char *label) {
    nsd_channel *c = &m->channels[m->n_channels++];
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->unit, sizeof c->unit, "%s", unit && *unit ? unit : "1");
    snprintf(c->label, sizeof c->label, "%s", label && *label ? label : name);
}

int nsd_model_channel(const nsd_model *m, const char *name) {
    for (size_t i = 0; i < m->n_channels; ++i)
        if (strcmp(m->channels[i].name, name) == 0) return (int)i;
    return -1;
}

static void *create_plugin(const nsd_section *s, const nsdyn_host *host, nsd_diag *diag,
                           size_t *errors) {
    char err[512] = "";
    void *(*create)(const nsdyn_value *, const nsdyn_host *, char *, size_t) = NULL;
    switch (s->kind) {
        case NSDYN_KIND_SYSTEM: create = ((const nsdyn_system *)s->plugin->info)->create; break;
        case NSDYN_KIND_CONTACT:
            create = ((const nsdyn_contact_law *)s->plugin->info)->create;
            break;
        case NSDYN_KIND_FRICTION:
            create = ((const nsdyn_friction_law *)s->plugin->info)->create;
            break;
        case NSDYN_KIND_INTEGRATOR:
            create = ((const nsdyn_integrator *)s->plugin->info)->create;
            break;
    }
    void *inst = create(s->params.values, host, err, sizeof err);
    if (!inst) {
        nsd_diag_at(diag, s->table, "[%s] (%s): %s", nsd_kind_section(s->kind), s->plugin->info->id,
                    err[0] ? err : "the plugin refused these parameters");
        (*errors)++;
    }
    return inst;
}

static size_t read_initial(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    const nsd_toml_node *init = nsd_toml_get(&cfg->root, "initial");
    if (!init || init->type != NSD_TOML_TABLE) return 0;
    size_t errors = 0, ns = m->nq + m->nv;
    const char **names = xcalloc(ns, sizeof *names);
    for (size_t i = 0; i < m->nq; ++i) names[i] = m->layout.q[i].name;
    for (size_t i = 0; i < m->nv; ++i) names[m->nq + i] = m->layout.v[i].name;
    for (size_t k = 0; k < init->n_items; ++k) {
        const nsd_toml_node *e = &init->items[k];
        size_t i = 0;
        while (i < ns && strcmp(names[i], e->key) != 0) i++;
        if (i == ns) {
            const char *near = nsd_did_you_mean(e->key, names, ns);
            char list[512] = "";
            for (size_t j = 0; j < ns; ++j) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", j ? ", " : "", names[j]);
            }
            if (near)
                nsd_diag_at(diag, e,
                            "[initial]: '%s' is not a state of system '%s' (did you mean '%s'?)",
                            e->key, cfg->system.plugin->info->id, near);
            else
                nsd_diag_at(diag, e, "[initial]: '%s' is not a state of system '%s' (states: %s)",
                            e->key, cfg->system.plugin->info->id, list);
            errors++;
            continue;
        }
        if (e->type != NSD_TOML_FLOAT && e->type != NSD_TOML_INTEGER) {
            nsd_diag_at(diag, e, "[initial] key '%s': expected a real number, found %s", e->key,
                        nsd_toml_type_name(e->type));
            errors++;
            continue;
        }
        if (!isfinite(e->real)) {
            nsd_diag_at(diag, e, "[initial] key '%s': expected a finite number, found %g", e->key,
                        e->real);
            errors++;
            continue;
        }
        m->y0[i] = e->real;
    }
    free(names);
    return errors;
}

static int all_finite_n(const double *a, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(a[i])) return 0;
    return 1;
}

nsdyn_status nsd_model_check_contacts(nsd_model *m, double t) {
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &m->ce[c];
        if (!e->active) continue;
        int ok = isfinite(e->gap) && all_finite_n(e->u, 3) && isfinite(e->normal_load);
        if (ok && e->W) ok = all_finite_n(e->W, 3 * m->nv) && all_finite_n(e->drift, 3);
        if (ok) continue;
        snprintf(m->failure, sizeof m->failure,
                 "system '%s' returned a non-finite gap, velocity, load or Jacobian at contact "
                 "'%s' at t = %.9g s (gap %g m, u_n %g m/s)",
                 m->sys->info.id, m->layout.contacts[c].name, t, e->gap, e->u[0]);
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_check_initial_gaps(nsd_model *m, double t, const double *y, double tol) {
    for (size_t c = 0; c < m->nc; ++c) {
        m->ce[c].active = 1;
        m->ce[c].want_geometry = 0;
        m->ce[c].W = NULL;
    }
    nsdyn_status st = m->sys->contacts(m->sys_inst, t, y, y + m->nq, m->ce);
    if (st > NSDYN_WARNING) {
        snprintf(m->failure, sizeof m->failure,
                 "system contacts() returned status %d at t = %.9g s", (int)st, t);
        return st;
    }
    if (nsd_model_check_contacts(m, t) > NSDYN_WARNING) return NSDYN_ERROR;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_eval *e = &m->ce[c];
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL || !e->active || e->gap >= -tol)
            continue;
        snprintf(m->failure, sizeof m->failure,
                 "contact '%s' starts penetrated by %.6g m, deeper than run.contact_tolerance = %g "
                 "m: a rigid contact cannot push the body out (it would rest under the surface); "
                 "start it on or above the surface",
                 m->layout.contacts[c].name, -e->gap, tol);
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

/* The energy audit applies to a conservative system with an energy output
 * whose friction law keeps no internal states (LuGre's bristles store
 * energy the output does not count). */
static void setup_energy_audit(nsd_model *m, const nsd_config *cfg) {
    m->energy_output = -1;
    m->energy_audit = cfg->settings.energy_audit;
    m->energy_tolerance = cfg->settings.energy_tolerance;
    m->contact_compliant = m->contact && (m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
    m->contact_tolerance = cfg->settings.contact_tolerance;
    int stateful = m->friction && (m->friction->info.provides & NSDYN_CAP_FRICTION_STATEFUL);
    size_t has = offsetof(nsdyn_system_layout, energy_output) + sizeof m->layout.energy_output;
    if (!(m->sys->info.provides & NSDYN_CAP_CONSERVATIVE) || stateful ||
        m->layout.struct_size < has || !m->layout.energy_output)
        return;
    for (size_t i = 0; i < m->layout.n_outputs; ++i)
        if (strcmp(m->layout.outputs[i].name, m->layout.energy_output) == 0)
            m->energy_output = (int)i;
    if (m->energy_output >= 0)
        m->audit_outputs = xcalloc(m->layout.n_outputs, sizeof *m->audit_outputs);
}

/* ---- the system's layout, checked before the host sizes anything by it -- */

/* What a system may report (plugins are checked, not trusted): the host
 * allocates state, Jacobian, channel and event buffers by these counts. */
enum {
    NSD_LAYOUT_MAX_STATES = 100000, /* nq and nv, each */
    NSD_LAYOUT_MAX_CONTACTS = 1000,
    NSD_LAYOUT_MAX_OUTPUTS = 100000,
    NSD_LAYOUT_MAX_EVENTS = 1000,        /* stops, switches */
    NSD_LAYOUT_MAX_FRICTION_STATES = 64, /* per contact, from the friction law */
    NSD_LAYOUT_MAX_JACOBIAN = 1 << 24,   /* 3 nv n_contacts entries */
    NSD_LAYOUT_MAX_LIST = 1000           /* plot_series, phase_pairs */
};
#define NSD_CHANNEL_NAME_MAX sizeof(((nsd_channel *)0)->name)
#define NSD_CHANNEL_UNIT_MAX sizeof(((nsd_channel *)0)->unit)

/* A channel or contact name: [A-Za-z0-9_.]+ (system.h), shorter than max. */
static int layout_name_ok(const char *s, size_t max) {
    if (!s || !*s) return 0;
    for (size_t n = 0; s[n]; ++n) {
        char c = s[n];
        if (n + 1 >= max) return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

/* A unit or a label: no control characters, shorter than max. */
static int layout_text_ok(const char *s, size_t max) {
    if (!s) return 0;
    for (size_t n = 0; s[n]; ++n)
        if (n + 1 >= max || (unsigned char)s[n] < 0x20) return 0;
    return 1;
}

static int layout_channels_ok(const nsdyn_channel *ch, size_t n, const char *what, char *why,
                              size_t len) {
    for (size_t i = 0; i < n; ++i) {
        if (!layout_name_ok(ch[i].name, NSD_CHANNEL_NAME_MAX))
            return snprintf(
                       why, len,
                       "%s channel %zu has %s name (expected [A-Za-z0-9_.]+, under %zu characters)",
                       what, i + 1, ch[i].name ? "an invalid" : "a NULL", NSD_CHANNEL_NAME_MAX),
                   0;
        if (!layout_text_ok(ch[i].unit, NSD_CHANNEL_UNIT_MAX))
            return snprintf(why, len, "%s channel '%s' has %s unit", what, ch[i].name,
                            ch[i].unit ? "an over-long or invalid" : "a NULL"),
                   0;
        if (ch[i].label && !layout_text_ok(ch[i].label, 1000))
            return snprintf(why, len, "%s channel '%s' has an invalid label", what, ch[i].name), 0;
    }
    return 1;
}

static int layout_names_ok(const char *const *names, size_t n, const char *what, char *why,
                           size_t len) {
    if (n && !names) return snprintf(why, len, "%zu %s but no names", n, what), 0;
    for (size_t i = 0; i < n; ++i)
        if (!layout_text_ok(names[i], 200) || !names[i][0])
            return snprintf(why, len, "%s %zu has %s name", what, i + 1,
                            names[i] ? "an invalid" : "a NULL"),
                   0;
    return 1;
}

static int layout_list_ok(const char *const *list, const char *what, char *why, size_t len) {
    if (!list) return 1;
    for (size_t i = 0; i < NSD_LAYOUT_MAX_LIST; ++i) {
        if (!list[i]) return 1;
        if (!layout_text_ok(list[i], 200))
            return snprintf(why, len, "%s entry %zu is not a short text", what, i + 1), 0;
    }
    return snprintf(why, len, "%s is not NULL-terminated within %d entries", what,
                    NSD_LAYOUT_MAX_LIST),
           0;
}

/* Called right after the system's layout() returns: non-zero, with the
 * reason in `why`, if anything the host would size or read by is wrong
 * (counts out of bounds, a table missing, a NULL name or unit); 2 when it
 * is the friction law's states per contact. */
static int check_layout(const nsd_model *m, char *why, size_t len) {
    const nsdyn_system_layout *L = &m->layout;
    if (L->nq + L->nv == 0) return snprintf(why, len, "no states (nq = nv = 0)"), 1;
    if (L->nq > NSD_LAYOUT_MAX_STATES || L->nv > NSD_LAYOUT_MAX_STATES)
        return snprintf(why, len, "nq = %zu, nv = %zu (at most %d each)", L->nq, L->nv,
                        NSD_LAYOUT_MAX_STATES),
               1;
    if (L->n_contacts > NSD_LAYOUT_MAX_CONTACTS)
        return snprintf(why, len, "%zu contacts (at most %d)", L->n_contacts,
                        NSD_LAYOUT_MAX_CONTACTS),
               1;
    if (3 * L->nv * (L->n_contacts ? L->n_contacts : 1) > NSD_LAYOUT_MAX_JACOBIAN)
        return snprintf(
                   why, len,
                   "%zu contacts over %zu velocities: a contact Jacobian of more than %d entries",
                   L->n_contacts, L->nv, NSD_LAYOUT_MAX_JACOBIAN),
               1;
    if (L->n_outputs > NSD_LAYOUT_MAX_OUTPUTS)
        return snprintf(why, len, "%zu outputs (at most %d)", L->n_outputs, NSD_LAYOUT_MAX_OUTPUTS),
               1;
    if (L->n_stops > NSD_LAYOUT_MAX_EVENTS || L->n_switches > NSD_LAYOUT_MAX_EVENTS)
        return snprintf(why, len, "%zu stops, %zu switches (at most %d each)", L->n_stops,
                        L->n_switches, NSD_LAYOUT_MAX_EVENTS),
               1;
    if ((L->nq && !L->q) || (L->nv && !L->v) || (L->n_contacts && !L->contacts) ||
        (L->n_outputs && !L->outputs))
        return snprintf(why, len,
                        "a count is set but its table (q, v, contacts or outputs) is NULL"),
               1;
    if (L->n_outputs && !m->sys->outputs)
        return snprintf(why, len, "%zu outputs but outputs() is NULL", L->n_outputs), 1;
    if (!layout_channels_ok(L->q, L->nq, "q", why, len) ||
        !layout_channels_ok(L->v, L->nv, "v", why, len) ||
        !layout_channels_ok(L->outputs, L->n_outputs, "output", why, len))
        return 1;
    for (size_t c = 0; c < L->n_contacts; ++c) {
        const nsdyn_contact_decl *d = &L->contacts[c];
        /* Room for the host's channels "<contact>.Ft1", "<contact>.z12". */
        if (!layout_name_ok(d->name, NSD_CHANNEL_NAME_MAX - 8))
            return snprintf(why, len, "contact %zu has %s name", c + 1,
                            d->name ? "an invalid or over-long" : "a NULL"),
                   1;
        if (d->type != NSDYN_CONTACT_UNILATERAL && d->type != NSDYN_CONTACT_PERSISTENT)
            return snprintf(why, len, "contact '%s' has unknown type %d", d->name, (int)d->type), 1;
        if (d->tangent_dim != 1 && d->tangent_dim != 2)
            return snprintf(why, len, "contact '%s' has tangent_dim %u (1 or 2)", d->name,
                            d->tangent_dim),
                   1;
        size_t z = m->friction ? m->friction->n_states(m->friction_inst, d->tangent_dim) : 0;
        if (z > NSD_LAYOUT_MAX_FRICTION_STATES)
            return snprintf(why, len, "n_states(%u) = %zu internal states per contact (at most %d)",
                            d->tangent_dim, z, NSD_LAYOUT_MAX_FRICTION_STATES),
                   2;
    }
    if (m->sys->stops && !layout_names_ok(L->stops, L->n_stops, "stops", why, len)) return 1;
    if (m->sys->switches && !layout_names_ok(L->switches, L->n_switches, "switches", why, len))
        return 1;
    if (m->sys->switches && L->switch_direction)
        for (size_t i = 0; i < L->n_switches; ++i)
            if (L->switch_direction[i] < -1 || L->switch_direction[i] > 1)
                return snprintf(why, len, "switch %zu has direction %d (-1, 0 or +1)", i + 1,
                                L->switch_direction[i]),
                       1;
    if (!layout_list_ok(L->plot_series, "plot_series", why, len) ||
        !layout_list_ok(L->phase_pairs, "phase_pairs", why, len))
        return 1;
    if ((L->draw_x_label && !layout_text_ok(L->draw_x_label, 200)) ||
        (L->draw_y_label && !layout_text_ok(L->draw_y_label, 200)))
        return snprintf(why, len, "a drawing axis label is not a short text"), 1;
    return 0;
}

size_t nsd_model_create(nsd_model *m, const nsd_config *cfg, const nsdyn_host *host,
                        nsd_diag *diag) {
    memset(m, 0, sizeof *m);
    size_t errors = 0;
    m->sys = (const nsdyn_system *)cfg->system.plugin->info;
    m->sys_inst = create_plugin(&cfg->system, host, diag, &errors);
    if (cfg->contact.plugin) {
        m->contact = (const nsdyn_contact_law *)cfg->contact.plugin->info;
        m->contact_inst = create_plugin(&cfg->contact, host, diag, &errors);
    }
    if (cfg->friction.plugin) {
        m->friction = (const nsdyn_friction_law *)cfg->friction.plugin->info;
        m->friction_inst = create_plugin(&cfg->friction, host, diag, &errors);
    }
    if (errors) return errors;

    m->layout.struct_size = sizeof m->layout;
    char bad_layout[320] = "it returned an error status";
    int bad = m->sys->layout(m->sys_inst, &m->layout) > NSDYN_WARNING
                  ? 1
                  : check_layout(m, bad_layout, sizeof bad_layout);
    if (bad) {
        const nsd_section *sec = bad == 2 ? &cfg->friction : &cfg->system;
        nsd_diag_at(diag, sec->table, "[%s] (%s): the plugin reported an invalid %s: %s (%s)",
                    nsd_kind_section(sec->kind), sec->plugin->info->id,
                    bad == 2 ? "state count" : "layout", bad_layout, sec->plugin->path);
        return errors + 1;
    }
    m->nq = m->layout.nq;
    m->nv = m->layout.nv;
    m->nc = m->layout.n_contacts;
    m->hold_stick = cfg->settings.hold_stick;
    /* Event-driven contact: a rigid law, or set-valued friction left free
     * to switch, over an integrator that locates events (compose.c has
     * refused the combinations that nothing can run). */
    uint32_t ig_caps = cfg->integrator.plugin ? cfg->integrator.plugin->info->provides : 0;
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT) &&
                !(m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
    int set_valued = m->friction && (m->friction->info.provides & NSDYN_CAP_FRICTION_SET_VALUED);
    m->event_driven = (rigid || (set_valued && !m->hold_stick)) &&
                      (ig_caps & NSDYN_CAP_EVENT_LOCATION) && !(ig_caps & NSDYN_CAP_TIME_STEPPING);

    m->z_offset = xcalloc(m->nc, sizeof *m->z_offset);
    m->z_count = xcalloc(m->nc, sizeof *m->z_count);
    size_t nz = 0, n_persistent = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_decl *d = &m->layout.contacts[c];
        m->z_offset[c] = m->nq + m->nv + nz;
        int stick = m->hold_stick && d->type == NSDYN_CONTACT_PERSISTENT;
        if (m->friction && !stick)
            m->z_count[c] = m->friction->n_states(m->friction_inst, d->tangent_dim);
        nz += m->z_count[c];
        if (d->type == NSDYN_CONTACT_PERSISTENT) {
            n_persistent++;
            if (m->hold_stick) m->m_stick += d->tangent_dim;
        }
    }
    if (m->hold_stick && n_persistent == 0) {
        nsd_diag_at(diag, cfg->run.from[NSD_RUN_HOLD_STICK],
                    "[run] key 'hold_stick' = true, but system '%s' has no persistent contact to "
                    "hold in stick",
                    m->sys->info.id);
        errors++;
    }
    m->nz = nz;
    m->n = m->nq + m->nv + nz;

    m->ce = xcalloc(m->nc, sizeof *m->ce);
    m->lambda = xcalloc(3 * m->nc, sizeof *m->lambda);
    m->W = xcalloc(3 * m->nv * (m->nc ? m->nc : 1), sizeof *m->W);
    m->a0 = xcalloc(m->nv, sizeof *m->a0);
    m->vdot_unit = xcalloc(m->nv, sizeof *m->vdot_unit);
    m->vdot_sample = xcalloc(m->nv, sizeof *m->vdot_sample);
    /* Tangential response buffers serve stick and limit directions: size
     * them for every tangential direction of every persistent contact. */
    size_t m_all = 0;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT)
            m_all += m->layout.contacts[c].tangent_dim;
    m->m_stick = m_all;
    m->B = xcalloc(m_all * m->nv, sizeof *m->B);
    m->G = xcalloc(m_all * m_all, sizeof *m->G);
    m->rhs_m = xcalloc(m_all, sizeof *m->rhs_m);
    m->stick_contact = xcalloc(m_all, sizeof *m->stick_contact);
    m->stick_dir = xcalloc(m_all, sizeof *m->stick_dir);
    size_t k = 0;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT)
            for (size_t d = 0; d < m->layout.contacts[c].tangent_dim; ++d) {
                m->stick_contact[k] = c;
                m->stick_dir[k] = d;
                k++;
            }
    /* Event functions: the system's stop conditions, then its switches. */
    size_t n_stops = m->sys->stops ? m->layout.n_stops : 0;
    size_t n_switches = m->sys->switches && m->sys->on_switch ? m->layout.n_switches : 0;
    if (n_stops < m->layout.n_stops) m->layout.n_stops = 0;
    if (n_switches < m->layout.n_switches) m->layout.n_switches = 0;
    size_t room = n_stops + n_switches + 2 * m->nc;
    m->event_sources = xcalloc(room, sizeof *m->event_sources);
    m->event_direction = xcalloc(room, sizeof *m->event_direction);
    m->n_events = nsd_event_sources_build(m->event_sources, m->event_direction, n_stops, n_switches,
                                          m->layout.switch_direction, m->nc, m->event_driven);
    m->event_first[NSD_SOURCE_STOP] = 0;
    m->event_first[NSD_SOURCE_SWITCH] = n_stops;
    m->event_first[NSD_SOURCE_CONTACT] = n_stops + n_switches;

    /* Channels. */
    size_t nch = 1 + m->n + 3 * m->nc + m->layout.n_outputs;
    m->channels = xcalloc(nch, sizeof *m->channels);
    add_channel(m, "t", "s", "time t");
    for (size_t i = 0; i < m->nq; ++i)
        add_channel(m, m->layout.q[i].name, m->layout.q[i].unit, m->layout.q[i].label);
    for (size_t i = 0; i < m->nv; ++i)
        add_channel(m, m->layout.v[i].name, m->layout.v[i].unit, m->layout.v[i].label);
    for (size_t c = 0; c < m->nc; ++c)
        for (size_t i = 0; i < m->z_count[c]; ++i) {
            char name[64], label[112];
            snprintf(name, sizeof name, "%s.z%zu", m->layout.contacts[c].name, i + 1);
            snprintf(label, sizeof label, "friction state %zu at %s", i + 1,
                     m->layout.contacts[c].name);
            add_channel(m, name, "m", label);
        }
    for (size_t c = 0; c < m->nc; ++c) {
        const char *cn = m->layout.contacts[c].name;
        char name[64], label[112];
        snprintf(name, sizeof name, "%s.N", cn);
        snprintf(label, sizeof label, "normal force at %s", cn);
        add_channel(m, name, "N", label);
        for (size_t d = 0; d < m->layout.contacts[c].tangent_dim && d < 2; ++d) {
            snprintf(name, sizeof name, "%s.Ft%zu", cn, d + 1);
            snprintf(label, sizeof label, "friction force %zu at %s", d + 1, cn);
            add_channel(m, name, "N", label);
        }
    }
    for (size_t i = 0; i < m->layout.n_outputs; ++i)
        add_channel(m, m->layout.outputs[i].name, m->layout.outputs[i].unit,
                    m->layout.outputs[i].label);

    if (m->event_driven)
        nsd_modes_init(m, cfg->settings.rest_ratio, cfg->settings.rest_velocity,
                       cfg->settings.contact_tolerance);
    m->y0 = xcalloc(m->n, sizeof *m->y0);
    if (m->sys->initial_state) m->sys->initial_state(m->sys_inst, m->y0, m->y0 + m->nq);
    errors += read_initial(m, cfg, diag);
    setup_energy_audit(m, cfg);
    return errors;
}

void nsd_model_destroy(nsd_model *m) {
    free(m->audit_outputs);
    if (m->sys && m->sys_inst) m->sys->destroy(m->sys_inst);
    if (m->contact && m->contact_inst) m->contact->destroy(m->contact_inst);
    if (m->friction && m->friction_inst) m->friction->destroy(m->friction_inst);
    free(m->z_offset);
    free(m->z_count);
    free(m->channels);
    free(m->y0);
    free(m->ce);
    free(m->lambda);
    free(m->W);
    free(m->a0);
    free(m->vdot_unit);
    free(m->vdot_sample);
    free(m->B);
    free(m->G);
    free(m->rhs_m);
    free(m->stick_contact);
    free(m->stick_dir);
    free(m->event_sources);
    free(m->event_direction);
    nsd_modes_free(m);
    free(m->mech_contact);
    free(m->mech_tangent_dim);
    free(m->mech_name);
    free(m->mech_mu);
    free(m->mech_y);
    memset(m, 0, sizeof *m);
}

static nsdyn_status fail(nsd_model *m, nsdyn_status st, double t, const char *what) {
    snprintf(m->failure, sizeof m->failure, "%s returned status %d at t = %.9g s", what, (int)st,
             t);
    return st;
}

int nsd_solve_small(double *A, double *b, size_t n) {
    for (size_t col = 0; col < n; ++col) {
        size_t piv = col;
        for (size_t r = col + 1; r < n; ++r)
            if (fabs(A[r * n + col]) > fabs(A[piv * n + col])) piv = r;
        if (!(fabs(A[piv * n + col]) > 1e-300)) return -1;
        if (piv != col) {
            for (size_t c = 0; c < n; ++c) {
                double tmp = A[col * n + c];
                A[col * n + c] = A[piv * n + c];
                A[piv * n + c] = tmp;
            }
            double tmp = b[col];
            b[col] = b[piv];
            b[piv] = tmp;
        }
        for (size_t r = col + 1; r < n; ++r) {
            double f = A[r * n + col] / A[col * n + col];
            for (size_t c = col; c < n; ++c) A[r * n + c] -= f * A[col * n + c];
            b[r] -= f * b[col];
        }
    }
    for (size_t r = n; r-- > 0;) {
        double s = b[r];
        for (size_t c = r + 1; c < n; ++c) s -= A[r * n + c] * b[c];
        b[r] = s / A[r * n + r];
    }
    return 0;
}

/* Contact evaluation plus normal and friction forces of contacts that are
 * not held in stick. Stick components of lambda are left at zero. */
static nsdyn_status contact_forces(nsd_model *m, double t, const double *y, double *zdot,
                                   int want_jacobians) {
    const double *q = y, *v = y + m->nq;
    for (size_t c = 0; c < m->nc; ++c) {
        m->ce[c].active = 1;
        m->ce[c].want_geometry = 0;
        m->ce[c].W = want_jacobians && m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT
                         ? m->W + c * 3 * m->nv
                         : NULL;
    }
    if (m->nc) {
        nsdyn_status st = m->sys->contacts(m->sys_inst, t, q, v, m->ce);
        if (st > NSDYN_WARNING) return fail(m, st, t, "system contacts()");
    }
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_decl *d = &m->layout.contacts[c];
        const nsdyn_contact_eval *e = &m->ce[c];
        double *lam = m->lambda + 3 * c;
        double N = 0.0;
        if (!e->active)
            N = 0.0; /* switched off in the system's current mode */
        else if (d->type == NSDYN_CONTACT_PERSISTENT)
            N = e->normal_load;
        else if (m->contact && m->contact->normal_force) {
            double Nc = 0.0; /* not &N, which would keep N in memory on every path */
            nsdyn_status st = m->contact->normal_force(m->contact_inst, e->gap, e->u[0], &Nc);
            if (st > NSDYN_WARNING) return fail(m, st, t, "contact law normal_force()");
            N = Nc;
        }
        lam[0] = N;
        lam[1] = lam[2] = 0.0;
        int stick = m->hold_stick && d->type == NSDYN_CONTACT_PERSISTENT;
        if (stick || !m->friction || N <= 0.0) {
            if (zdot)
                for (size_t i = 0; i < m->z_count[c]; ++i)
                    zdot[m->z_offset[c] - m->nq - m->nv + i] = 0.0;
            continue;
        }
        nsdyn_friction_input in;
        /* normal_force first: stored last, next to slip[1], GCC packs the
         * two into one 16-byte store and the slip waits for N. */
        in.normal_force = N;
        in.dim = d->tangent_dim;
        in.slip[0] = e->u[1];
        in.slip[1] = d->tangent_dim == 2 ? e->u[2] : 0.0;
        in.state = m->z_count[c] ? y + m->z_offset[c] : NULL;
        double *rate = zdot && m->z_count[c] ? zdot + (m->z_offset[c] - m->nq - m->nv) : NULL;
        double scratch[8];
        nsdyn_status st = m->friction->force(m->friction_inst, &in, lam + 1, rate ? rate : scratch);
        if (st > NSDYN_WARNING) return fail(m, st, t, "friction law force()");
    }
    return NSDYN_OK;
}

nsdyn_status nsd_model_tangent_response(nsd_model *m, double t, const double *y) {
    const double *q = y, *v = y + m->nq;
    nsdyn_status st = contact_forces(m, t, y, NULL, 1);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->m_stick, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) m->lambda[3 * m->stick_contact[k] + 1 + m->stick_dir[k]] = 0.0;
    st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, NULL, m->a0);
    if (st > NSDYN_WARNING) return fail(m, st, t, "system derivatives()");
    /* Columns of M^-1 W_t^T: response to a unit force on each component
     * (exact, since derivatives() is affine in the contact forces). */
    for (size_t j = 0; j < ms; ++j) {
        double *slot = &m->lambda[3 * m->stick_contact[j] + 1 + m->stick_dir[j]];
        *slot = 1.0;
        st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, NULL, m->vdot_unit);
        *slot = 0.0;
        if (st > NSDYN_WARNING) return fail(m, st, t, "system derivatives()");
        for (size_t i = 0; i < nv; ++i) m->B[j * nv + i] = m->vdot_unit[i] - m->a0[i];
    }
    for (size_t k = 0; k < ms; ++k) {
        const double *Wrow = m->W + m->stick_contact[k] * 3 * nv + (1 + m->stick_dir[k]) * nv;
        double acc = m->ce[m->stick_contact[k]].drift[1 + m->stick_dir[k]];
        for (size_t i = 0; i < nv; ++i) acc += Wrow[i] * m->a0[i];
        m->rhs_m[k] = acc;
        for (size_t j = 0; j < ms; ++j) {
            double g = 0.0;
            for (size_t i = 0; i < nv; ++i) g += Wrow[i] * m->B[j * nv + i];
            m->G[k * ms + j] = g;
        }
    }
    return NSDYN_OK;
}

/* Stick: choose the tangential forces x with G x = -a_t, so the tangential
 * accelerations vanish; then v' = a0 + B x. */
static nsdyn_status solve_stick(nsd_model *m, double t, const double *y, double *vdot) {
    nsdyn_status st = nsd_model_tangent_response(m, t, y);
    if (st > NSDYN_WARNING) return st;
    size_t ms = m->m_stick, nv = m->nv;
    for (size_t k = 0; k < ms; ++k) m->rhs_m[k] = -m->rhs_m[k];
    if (nsd_solve_small(m->G, m->rhs_m, ms) != 0) {
        snprintf(m->failure, sizeof m->failure,
                 "stick constraint is singular at t = %.9g s (the friction force cannot hold the "
                 "contact)",
                 t);
        return NSDYN_ERROR;
    }
    for (size_t i = 0; i < nv; ++i) vdot[i] = m->a0[i];
    for (size_t j = 0; j < ms; ++j) {
        m->lambda[3 * m->stick_contact[j] + 1 + m->stick_dir[j]] = m->rhs_m[j];
        for (size_t i = 0; i < nv; ++i) vdot[i] += m->B[j * nv + i] * m->rhs_m[j];
    }
    return NSDYN_OK;
}

/* Forces and derivatives at (t, y): fills lambda, qdot (if not NULL), vdot
 * and zdot (if not NULL). */
static nsdyn_status evaluate(nsd_model *m, double t, const double *y, double *qdot, double *vdot,
                             double *zdot) {
    const double *q = y, *v = y + m->nq;
    nsdyn_status st;
    if (m->event_driven) {
        st = nsd_modes_forces(m, t, y, vdot);
        if (st > NSDYN_WARNING || !qdot) return st;
        vdot = NULL;
    } else if (m->hold_stick && m->m_stick) {
        st = solve_stick(m, t, y, vdot);
        if (st > NSDYN_WARNING || !qdot) return st;
        vdot = NULL; /* already known: only q' is left */
    } else {
        st = contact_forces(m, t, y, zdot, 0);
        if (st > NSDYN_WARNING) return st;
    }
    st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, qdot, vdot);
    if (st > NSDYN_WARNING) return fail(m, st, t, "system derivatives()");
    return NSDYN_OK;
}

/* flatten: evaluate() and contact_forces() are inlined here (two call
 * levels less per right-hand side) but stay out of line for the other
 * callers, whose registers and frame would otherwise grow. */
__attribute__((flatten)) nsdyn_status nsd_model_rhs(void *ctx, double t, const double *y,
                                                    double *ydot) {
    nsd_model *m = ctx;
    m->rhs_evals++;
    double *zdot = ydot + m->nq + m->nv;
    for (size_t i = 0; i < m->nz; ++i) zdot[i] = 0.0;
    nsdyn_status st = evaluate(m, t, y, ydot, ydot + m->nq, zdot);
    if (st > NSDYN_WARNING) return st;
    /* A NaN or infinity anywhere makes the sum non-finite: one test on the
     * hot path, the search only on failure. */
    double sum = 0.0;
    for (size_t i = 0; i < m->n; ++i) sum += ydot[i];
    if (isfinite(sum)) return NSDYN_OK;
    for (size_t i = 0; i < m->n; ++i)
        if (!isfinite(ydot[i])) {
            snprintf(m->failure, sizeof m->failure, "non-finite derivative of '%s' at t = %.9g s",
                     m->channels[1 + i].name, t);
            return NSDYN_REJECT_STEP;
        }
    return NSDYN_OK; /* finite terms whose sum overflowed */
}

nsdyn_status nsd_model_event_functions(void *ctx, double t, const double *y, double *g) {
    nsd_model *m = ctx;
    if (m->layout.n_stops && m->sys->stops) {
        nsdyn_status st = m->sys->stops(m->sys_inst, t, y, y + m->nq, g);
        if (st > NSDYN_WARNING) return fail(m, st, t, "system stops()");
    }
    if (m->layout.n_switches && m->sys->switches) {
        nsdyn_status st = evaluate(m, t, y, NULL, m->vdot_sample, NULL);
        if (st > NSDYN_WARNING) return st;
        st = m->sys->switches(m->sys_inst, t, y, y + m->nq, m->lambda,
                              g + m->event_first[NSD_SOURCE_SWITCH]);
        if (st > NSDYN_WARNING) return fail(m, st, t, "system switches()");
    }
    if (m->event_driven) return nsd_modes_events(m, t, y, g + m->event_first[NSD_SOURCE_CONTACT]);
    return NSDYN_OK;
}

void nsd_model_ode(nsd_model *m, nsdyn_ode *ode) {
    *ode = (nsdyn_ode){
        .struct_size = sizeof *ode,
        .n = m->n,
        .n_events = m->n_events,
        .ctx = m,
        .rhs = nsd_model_rhs,
        .events = nsd_model_event_functions,
        .event_direction = m->event_direction,
        .atol_scale = NULL,
        .mech = NULL,
    };
}

nsdyn_status nsd_model_sample(nsd_model *m, double t, const double *y, double *row) {
    nsdyn_status st = evaluate(m, t, y, NULL, m->vdot_sample, NULL);
    if (st > NSDYN_WARNING) return st;
    size_t k = 0;
    row[k++] = t;
    for (size_t i = 0; i < m->n; ++i) row[k++] = y[i];
    for (size_t j = 0; m->step_impulse && m->step_h > 0.0 && j < m->n_mech; ++j)
        for (size_t a = 0; a < 3; ++a)
            m->lambda[3 * m->mech_contact[j] + a] = m->step_impulse[3 * j + a] / m->step_h;
    for (size_t c = 0; c < m->nc; ++c) {
        row[k++] = m->lambda[3 * c];
        for (size_t d = 0; d < m->layout.contacts[c].tangent_dim && d < 2; ++d)
            row[k++] = m->lambda[3 * c + 1 + d];
    }
    if (m->layout.n_outputs && m->sys->outputs) {
        st = m->sys->outputs(m->sys_inst, t, y, y + m->nq, m->lambda, row + k);
        if (st > NSDYN_WARNING) return fail(m, st, t, "system outputs()");
    }
    for (size_t i = 1; i < m->n_channels; ++i) {
        if (isfinite(row[i])) continue;
        snprintf(m->failure, sizeof m->failure,
                 "channel '%s' is %g at t = %.9g s (a plugin returned a non-finite value)",
                 m->channels[i].name, row[i], t);
        return NSDYN_ERROR;
    }
    return NSDYN_OK;
}

/* ---- the mechanics view for time-stepping integrators ------------------- */

/* Unilateral contacts only; persistent contacts and compliant forces stay
 * in the free acceleration. ctx = nsd_model. */
static nsdyn_status mech_qdot(void *ctx, double t, const double *q, const double *v, double *qdot) {
    nsd_model *m = ctx;
    memset(m->lambda, 0, 3 * m->nc * sizeof *m->lambda);
    nsdyn_status st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, qdot, NULL);
    return st > NSDYN_WARNING ? fail(m, st, t, "system derivatives()") : NSDYN_OK;
}

/* v' with the unilateral forces zero: persistent loads (and their smooth
 * friction) as in the ODE right-hand side. */
static nsdyn_status mech_free_acceleration(void *ctx, double t, const double *q, const double *v,
                                           double *vdot) {
    nsd_model *m = ctx;
    m->rhs_evals++;
    for (size_t i = 0; i < m->nq; ++i) m->mech_y[i] = q[i];
    for (size_t i = 0; i < m->nv; ++i) m->mech_y[m->nq + i] = v[i];
    nsdyn_status st = contact_forces(m, t, m->mech_y, NULL, 0);
    if (st > NSDYN_WARNING) return st;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_UNILATERAL)
            m->lambda[3 * c] = m->lambda[3 * c + 1] = m->lambda[3 * c + 2] = 0.0;
    st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, NULL, vdot);
    return st > NSDYN_WARNING ? fail(m, st, t, "system derivatives()") : NSDYN_OK;
}

static nsdyn_status mech_contacts(void *ctx, double t, const double *q, const double *v,
                                  double *gap, double *u, double *W, double *MinvWt) {
    nsd_model *m = ctx;
    size_t nv = m->nv;
    for (size_t c = 0; c < m->nc; ++c) {
        m->ce[c].active = 1;
        m->ce[c].want_geometry = 0;
        m->ce[c].W = m->W + c * 3 * nv;
    }
    nsdyn_status st = m->sys->contacts(m->sys_inst, t, q, v, m->ce);
    if (st > NSDYN_WARNING) return fail(m, st, t, "system contacts()");
    if (W) {
        memset(m->lambda, 0, 3 * m->nc * sizeof *m->lambda);
        st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, NULL, m->a0);
        if (st > NSDYN_WARNING) return fail(m, st, t, "system derivatives()");
    }
    for (size_t k = 0; k < m->n_mech; ++k) {
        size_t c = m->mech_contact[k];
        /* A contact switched off by the system's mode is reported open. */
        gap[k] = m->ce[c].active ? m->ce[c].gap : INFINITY;
        for (size_t a = 0; a < 3; ++a) u[3 * k + a] = m->ce[c].u[a];
        if (!W) continue;
        memcpy(W + k * 3 * nv, m->W + c * 3 * nv, 3 * nv * sizeof *W);
        for (size_t a = 0; a < 3; ++a) {
            m->lambda[3 * c + a] = 1.0;
            st = m->sys->derivatives(m->sys_inst, t, q, v, m->lambda, NULL, m->vdot_unit);
            m->lambda[3 * c + a] = 0.0;
            if (st > NSDYN_WARNING) return fail(m, st, t, "system derivatives()");
            for (size_t i = 0; i < nv; ++i)
                MinvWt[(k * 3 + a) * nv + i] = m->vdot_unit[i] - m->a0[i];
        }
    }
    return NSDYN_OK;
}

/* The contact law's impulse at mechanics contact k alone (contact.h), with
 * the friction law's kinetic coefficient for stick and slip alike: the
 * Moreau-Jean problem has a single mu, and a static mu above it makes the
 * Gauss-Seidel sweeps cycle between stick and slip at a wedge (two
 * contacts pressing against each other) instead of converging. */
static nsdyn_status mech_local_impulse(void *ctx, size_t k, const double *G, const double *u_free,
                                       const double *u_start, double *P) {
    nsd_model *m = ctx;
    nsdyn_local_impact p = {.struct_size = sizeof p,
                            .tangent_dim = m->mech_tangent_dim[k],
                            .G = G,
                            .u_free = u_free,
                            .u_start = u_start,
                            .mu_static = m->mu_kinetic,
                            .mu_kinetic = m->mu_kinetic};
    nsdyn_status st = m->contact->local_impulse(m->contact_inst, &p, P);
    if (st > NSDYN_WARNING)
        snprintf(m->failure, sizeof m->failure, "contact law '%s' found no impulse at contact '%s'",
                 m->contact->info.id, m->mech_name[k]);
    return st;
}

void nsd_model_mechanics(nsd_model *m, nsdyn_mechanics *mech) {
    if (!m->mech_contact) {
        m->mech_contact = xcalloc(m->nc, sizeof *m->mech_contact);
        m->mech_tangent_dim = xcalloc(m->nc, sizeof *m->mech_tangent_dim);
        m->mech_name = xcalloc(m->nc, sizeof *m->mech_name);
        m->mech_mu = xcalloc(m->nc, sizeof *m->mech_mu);
        m->mech_y = xcalloc(m->n, sizeof *m->mech_y);
    }
    /* The law's coefficients and local impulses (compose.c checks it has
     * them); the friction law's bounds per unit normal force. */
    m->law_coefficients = (nsdyn_rigid_coefficients){.struct_size = sizeof m->law_coefficients};
    m->contact->coefficients(m->contact_inst, &m->law_coefficients);
    m->mu_static = m->mu_kinetic = 0.0;
    if (m->friction) m->friction->bounds(m->friction_inst, 1.0, &m->mu_static, &m->mu_kinetic);
    m->n_mech = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        if (m->layout.contacts[c].type != NSDYN_CONTACT_UNILATERAL) continue;
        size_t k = m->n_mech++;
        m->mech_contact[k] = c;
        m->mech_tangent_dim[k] = m->layout.contacts[c].tangent_dim;
        m->mech_name[k] = m->layout.contacts[c].name;
        m->mech_mu[k] = m->mu_kinetic;
    }
    *mech = (nsdyn_mechanics){
        .struct_size = sizeof *mech,
        .nq = m->nq,
        .nv = m->nv,
        .n_contacts = m->n_mech,
        .tangent_dim = m->mech_tangent_dim,
        .contact_name = m->mech_name,
        .mu = m->mech_mu,
        .law = &m->law_coefficients,
        .ctx = m,
        .qdot = mech_qdot,
        .free_acceleration = mech_free_acceleration,
        .contacts = mech_contacts,
        .local_impulse = mech_local_impulse,
    };
}
