#define _GNU_SOURCE
#include "model.h"

#include "conformance_probe.h"

#include "layout.h"
#include "param_fields.h"
#include "plugin_calls.h"

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
    void *inst = nsd_plugin_create(s->plugin->info, s->params.values, host, err, sizeof err);
    if (!inst) {
        nsd_diag_at(diag, s->table, "[%s] (%s): %s", nsd_kind_section(s->kind), s->plugin->info->id,
                    err[0] ? err : "the plugin refused these parameters");
        (*errors)++;
    }
    return inst;
}

size_t nsd_model_read_initial(const nsd_model *m, const nsd_config *cfg, double *y0,
                              unsigned char *y0_set, nsd_diag *diag) {
    if (!cfg->n_initial) return 0;
    size_t errors = 0, ns = m->nq + m->nv;
    const char **names = xcalloc(ns, sizeof *names);
    for (size_t i = 0; i < m->nq; ++i) names[i] = m->layout.q[i].name;
    for (size_t i = 0; i < m->nv; ++i) names[m->nq + i] = m->layout.v[i].name;
    for (size_t k = 0; k < cfg->n_initial; ++k) { /* the file's, then the overrides */
        const nsd_toml_node *e = cfg->initial[k];
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
        /* A state so large that the spacing of doubles around it exceeds
         * 1e-6 of its unit (|x| >= 2^33 = 8.6e9) cannot take the increments
         * of a step: the body "moves" (its velocity says so) while its
         * position stays put (issue 28: x = 1e300 ran at 5 m/s, exit 0). */
        double gap = nextafter(fabs(e->real), INFINITY) - fabs(e->real);
        if (gap > 1e-6) {
            const nsdyn_channel *ch = i < m->nq ? &m->layout.q[i] : &m->layout.v[i - m->nq];
            nsd_diag_at(diag, e,
                        "[initial] key '%s': %g %s cannot change by less than %.3g %s (the spacing "
                        "of doubles at that magnitude), so the run would lose every smaller "
                        "motion; a state must stay below %.3g in its unit",
                        e->key, e->real, ch->unit, gap, ch->unit, ldexp(1.0, 33));
            errors++;
            continue;
        }
        y0[i] = e->real;
        if (y0_set) y0_set[i] = 1;
    }
    free(names);
    return errors;
}

/* The energy audit applies to a conservative system with an energy output
 * whose friction law keeps no internal states (LuGre's bristles store
 * energy the output does not count). */
static void setup_energy_audit(nsd_model *m, const nsd_config *cfg) {
    m->audit.output = -1;
    m->audit.mode = cfg->settings.energy_audit;
    m->audit.tolerance = cfg->settings.energy_tolerance;
    m->audit.contact_compliant =
        m->contact && (m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
    m->ed.contact_tolerance = cfg->settings.contact_tolerance;
    m->audit.time_stepping = cfg->integrator.plugin &&
                             (cfg->integrator.plugin->info->provides & NSDYN_CAP_TIME_STEPPING);
    m->audit.penetration_mode = cfg->settings.penetration_audit;
    m->audit.penetration_tolerance = cfg->settings.penetration_tolerance;
    int stateful = m->friction && (m->friction->info.provides & NSDYN_CAP_FRICTION_STATEFUL);
    size_t has = offsetof(nsdyn_system_layout, energy_output) + sizeof m->layout.energy_output;
    if (!(m->sys->info.provides & NSDYN_CAP_CONSERVATIVE) || stateful ||
        m->layout.struct_size < has || !m->layout.energy_output)
        return;
    for (size_t i = 0; i < m->layout.n_outputs; ++i)
        if (strcmp(m->layout.outputs[i].name, m->layout.energy_output) == 0)
            m->audit.output = (int)i;
}

/* The plugin instances of the config's system, contact and friction
 * sections. Returns the errors added to diag. */
static size_t create_plugins(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    size_t errors = 0;
    m->quiet = (nsdyn_host){.struct_size = sizeof m->quiet};
    const nsdyn_host *host = &m->quiet;
    m->sys = (const nsdyn_system *)cfg->system.plugin->info;
    m->params[NSD_PART_SYSTEM] = cfg->system.params.values;
    m->own.sys = create_plugin(&cfg->system, host, diag, &errors);
    if (cfg->contact.plugin) {
        m->contact = (const nsdyn_contact_law *)cfg->contact.plugin->info;
        m->params[NSD_PART_CONTACT] = cfg->contact.params.values;
        m->own.contact = create_plugin(&cfg->contact, host, diag, &errors);
    }
    if (cfg->friction.plugin) {
        m->friction = (const nsdyn_friction_law *)cfg->friction.plugin->info;
        m->params[NSD_PART_FRICTION] = cfg->friction.params.values;
        m->own.friction = create_plugin(&cfg->friction, host, diag, &errors);
    }
    return errors;
}

/* The system's layout, checked (layout.h) before anything is sized by it.
 * Returns 0, or 1 with the error in diag. */
static size_t load_layout(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    m->layout.struct_size = sizeof m->layout;
    char bad_layout[320] = "it returned an error status";
    int bad = m->sys->layout(m->own.sys, &m->layout) > NSDYN_WARNING
                  ? 1
                  : nsd_layout_check(m, bad_layout, sizeof bad_layout);
    if (!bad) return 0;
    const nsd_section *sec = bad == 2 ? &cfg->friction : &cfg->system;
    nsd_diag_at(diag, sec->table, "[%s] (%s): the plugin reported an invalid %s: %s (%s)",
                nsd_kind_section(sec->kind), sec->plugin->info->id,
                bad == 2 ? "state count" : "layout", bad_layout, sec->plugin->path);
    return 1;
}

/* Which mode runs the contacts: stick held (run.hold_stick), or
 * event-driven contact: a rigid law, or set-valued friction left free to
 * switch, over an integrator that locates events (compose.c has refused
 * the combinations that nothing can run); else the smooth laws. */
static void choose_contact_mode(nsd_model *m, const nsd_config *cfg) {
    m->stick.hold = cfg->settings.hold_stick;
    m->friction_states_open = cfg->settings.friction_states_open;
    uint32_t ig_caps = cfg->integrator.plugin ? cfg->integrator.plugin->info->provides : 0;
    int rigid = m->contact && (m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT) &&
                !(m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
    int set_valued = m->friction && (m->friction->info.provides & NSDYN_CAP_FRICTION_SET_VALUED);
    m->ed.on = (rigid || (set_valued && !m->stick.hold)) && (ig_caps & NSDYN_CAP_EVENT_LOCATION) &&
               !(ig_caps & NSDYN_CAP_TIME_STEPPING);
    m->ed.compliant = m->ed.on && m->contact && !rigid &&
                      (m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL);
}

/* The friction law's forces of all contacts in one call (friction_batch.h),
 * where force() would be called for each contact alone: a law without
 * internal states at any contact, stick not held (a held contact skips
 * its law, which the batch cannot say). NULL: force() per contact. */
static void choose_friction_batch(nsd_model *m) {
    m->friction_batch = NULL;
    if (!m->friction || m->nz || m->stick.hold) return;
    const nsdyn_friction_forces *b =
        nsd_plugin_extension(&m->friction->info, NSDYN_EXT_FRICTION_FORCES);
    if (b && b->struct_size >= offsetof(nsdyn_friction_forces, forces) + sizeof b->forces &&
        b->forces)
        m->friction_batch = b;
}

/* The state y = [q | v | friction states]: each contact's internal
 * states (none for a contact held in stick). Returns the errors added. */
static size_t size_state(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    m->z_offset = xcalloc(m->nc, sizeof *m->z_offset);
    m->z_count = xcalloc(m->nc, sizeof *m->z_count);
    size_t nz = 0, n_persistent = 0;
    for (size_t c = 0; c < m->nc; ++c) {
        const nsdyn_contact_decl *d = &m->layout.contacts[c];
        m->z_offset[c] = m->nq + m->nv + nz;
        int stick = m->stick.hold && d->type == NSDYN_CONTACT_PERSISTENT;
        if (m->friction && !stick)
            m->z_count[c] = m->friction->n_states(m->own.friction, d->tangent_dim);
        nz += m->z_count[c];
        if (d->type == NSDYN_CONTACT_PERSISTENT) n_persistent++;
    }
    m->nz = nz;
    m->n = m->nq + m->nv + nz;
    if (!m->stick.hold || n_persistent) return 0;
    nsd_diag_at(diag, cfg->run.from[NSD_RUN_HOLD_STICK],
                "[run] key 'hold_stick' = true, but system '%s' has no persistent contact to "
                "hold in stick",
                m->sys->info.id);
    return 1;
}

/* The stick components (affine.h) of every tangential direction of every
 * persistent contact: the tangential response buffers (nsd_data's stick)
 * serve stick and limit directions. */
static void stick_components(nsd_model *m) {
    size_t m_all = 0;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT)
            m_all += m->layout.contacts[c].tangent_dim;
    m->stick.m = m_all;
    m->stick.comp = xcalloc(m_all, sizeof *m->stick.comp);
    size_t k = 0;
    for (size_t c = 0; c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_PERSISTENT)
            for (size_t d = 0; d < m->layout.contacts[c].tangent_dim; ++d)
                m->stick.comp[k++] = 3 * c + 1 + d;
}

/* The event-source table (events.h): the system's stop conditions (when
 * it has stops()), its switches (when it has switches() and on_switch()),
 * the contact events of the event-driven modes. */
static void build_events(nsd_model *m) {
    size_t n_stops = m->sys->stops ? m->layout.n_stops : 0;
    size_t n_switches = m->sys->switches && m->sys->on_switch ? m->layout.n_switches : 0;
    if (n_stops < m->layout.n_stops) m->layout.n_stops = 0;
    if (n_switches < m->layout.n_switches) m->layout.n_switches = 0;
    /* gap_rate = 0 of each unilateral contact under a compliant law with a
     * rate discontinuity (plugin.h), also under the event-driven modes
     * (set-valued friction on compliant contacts: the stick bound jumps) */
    size_t n_rate = 0;
    int rate_law = m->contact && (m->contact->info.provides & NSDYN_CAP_RATE_DISCONTINUITY) &&
                   (m->contact->info.provides & NSDYN_CAP_COMPLIANT_NORMAL) &&
                   (!m->ed.on || m->ed.compliant);
    for (size_t c = 0; rate_law && c < m->nc; ++c)
        n_rate += m->layout.contacts[c].type == NSDYN_CONTACT_UNILATERAL;
    size_t room = n_stops + n_switches + 2 * m->nc + n_rate;
    m->event_sources = xcalloc(room, sizeof *m->event_sources);
    m->event_direction = xcalloc(room, sizeof *m->event_direction);
    m->n_events = nsd_event_sources_build(m->event_sources, m->event_direction, n_stops, n_switches,
                                          m->layout.switch_direction, m->nc, m->ed.on);
    m->event_first[NSD_SOURCE_STOP] = 0;
    m->event_first[NSD_SOURCE_SWITCH] = n_stops;
    m->event_first[NSD_SOURCE_CONTACT] = n_stops + n_switches;
    m->event_first[NSD_SOURCE_RATE] = m->n_events;
    m->n_rate_events = n_rate;
    for (size_t c = 0; rate_law && c < m->nc; ++c)
        if (m->layout.contacts[c].type == NSDYN_CONTACT_UNILATERAL) {
            m->event_sources[m->n_events] = (nsd_event_source){NSD_SOURCE_RATE, c, 0};
            m->event_direction[m->n_events++] = 0;
        }
}

/* Does the system declare output `name` computed without the contact
 * forces (system.h NSDYN_EXT_FORCE_FREE_OUTPUTS)? A table cut short, or
 * none: no (the output is taken to read them). */
static int force_free(const nsd_model *m, const char *name) {
    const nsdyn_force_free_outputs *f =
        nsd_plugin_extension(&m->sys->info, NSDYN_EXT_FORCE_FREE_OUTPUTS);
    if (!f || f->struct_size < offsetof(nsdyn_force_free_outputs, names) + sizeof f->names ||
        !f->names)
        return 0;
    for (const char *const *n = f->names; *n; ++n)
        if (!strcmp(*n, name)) return 1;
    return 0;
}

/* Channels of a sample: t, q, v, friction states, contact forces (normal,
 * tangential), the system's outputs; which of them read the contact
 * forces (nsd_channel reads_contacts). */
static void build_channels(nsd_model *m) {
    size_t nch = 1 + m->n + 3 * m->nc + m->layout.n_outputs;
    m->channels = xcalloc(nch, sizeof *m->channels);
    add_channel(m, "t", "s", "time t");
    for (size_t i = 0; i < m->nq; ++i)
        add_channel(m, m->layout.q[i].name, m->layout.q[i].unit, m->layout.q[i].label);
    for (size_t i = 0; i < m->nv; ++i)
        add_channel(m, m->layout.v[i].name, m->layout.v[i].unit, m->layout.v[i].label);
    char name[64], label[112];
    for (size_t c = 0; c < m->nc; ++c)
        for (size_t i = 0; i < m->z_count[c]; ++i) {
            snprintf(name, sizeof name, "%s.z%zu", m->layout.contacts[c].name, i + 1);
            snprintf(label, sizeof label, "friction state %zu at %s", i + 1,
                     m->layout.contacts[c].name);
            add_channel(m, name, "m", label);
        }
    size_t first_force = m->n_channels;
    for (size_t c = 0; c < m->nc; ++c) {
        const char *cn = m->layout.contacts[c].name;
        snprintf(name, sizeof name, "%s.N", cn);
        snprintf(label, sizeof label, "normal force at %s", cn);
        add_channel(m, name, "N", label);
        for (size_t d = 0; d < m->layout.contacts[c].tangent_dim && d < 2; ++d) {
            snprintf(name, sizeof name, "%s.Ft%zu", cn, d + 1);
            snprintf(label, sizeof label, "friction force %zu at %s", d + 1, cn);
            add_channel(m, name, "N", label);
        }
    }
    for (size_t i = first_force; i < m->n_channels; ++i) m->channels[i].reads_contacts = 1;
    for (size_t i = 0; i < m->layout.n_outputs; ++i) {
        add_channel(m, m->layout.outputs[i].name, m->layout.outputs[i].unit,
                    m->layout.outputs[i].label);
        m->channels[m->n_channels - 1].reads_contacts = !force_free(m, m->layout.outputs[i].name);
    }
}

/* The kinematic checks of `nsdyn check` (conformance.h) on the config's
 * system at a few states around its initial state: a wrong Jacobian row is
 * a config error before it is a wrong answer ([run] precheck = false skips
 * it). Each finding at the [system] table. */
static size_t precheck(const nsd_model *m, const nsd_data *d, const nsd_config *cfg,
                       nsd_diag *diag) {
    nsd_diag found = {0};
    size_t n = nsd_conformance_precheck(m->sys, d->sys_inst, cfg->settings.t_start, d->y0,
                                        d->y0 + m->nq, 4, &found);
    for (size_t i = 0; i < found.n; ++i)
        nsd_diag_at(diag, cfg->system.table, "%s ([run] precheck = false runs it anyway)",
                    found.lines[i]);
    nsd_diag_free(&found);
    return n;
}

/* A rigid contact that starts penetrated cannot push the body out: known
 * from the config alone, so a config error (exit 2, at [system]) rather
 * than a run that fails at its first step. */
static size_t initial_gaps(const nsd_model *m, nsd_data *data, const nsd_config *cfg,
                           nsd_diag *diag) {
    if (!m->contact || !(m->contact->info.provides & NSDYN_CAP_RIGID_IMPACT)) return 0;
    if (nsd_model_check_initial_gaps(m, data, cfg->settings.t_start, data->y0,
                                     cfg->settings.contact_tolerance) <= NSDYN_WARNING)
        return 0;
    nsd_diag_at(diag, cfg->system.table, "the initial state: %s", data->failure);
    data->failure[0] = '\0';
    return 1;
}

size_t nsd_model_check_start(const nsd_model *m, nsd_data *d, const nsd_config *cfg,
                             nsd_diag *diag) {
    size_t errors = cfg->settings.precheck ? precheck(m, d, cfg, diag) : 0;
    return errors ? errors : initial_gaps(m, d, cfg, diag);
}

size_t nsd_model_build(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    memset(m, 0, sizeof *m);
    size_t errors = create_plugins(m, cfg, diag);
    if (errors) return errors;
    if (load_layout(m, cfg, diag)) return 1;
    m->nq = m->layout.nq;
    m->nv = m->layout.nv;
    m->nc = m->layout.n_contacts;
    choose_contact_mode(m, cfg);
    errors += size_state(m, cfg, diag);
    choose_friction_batch(m);
    stick_components(m);
    build_events(m);
    build_channels(m);
    m->y0 = xcalloc(m->n, sizeof *m->y0);
    m->y0_set = xcalloc(m->n, sizeof *m->y0_set);
    if (m->sys->initial_state) m->sys->initial_state(m->own.sys, m->y0, m->y0 + m->nq);
    errors += nsd_model_read_initial(m, cfg, m->y0, m->y0_set, diag);
    if (!errors) { /* in data of its own: the model keeps none (no regime yet: no modes) */
        nsd_data *check = nsd_data_create_checks(m);
        if (check->failure[0]) { /* the friction law's bounds() failed (ABI 2.5 status) */
            nsd_diag_at(diag, cfg->friction.table, "[friction] %s", check->failure);
            ++errors;
        } else
            errors += nsd_model_check_start(m, check, cfg, diag);
        nsd_data_destroy(m, check);
    }
    setup_energy_audit(m, cfg);
    return errors;
}

void nsd_model_destroy(nsd_model *m) {
    if (m->sys && m->own.sys) m->sys->info.destroy(m->own.sys);
    if (m->contact && m->own.contact) m->contact->info.destroy(m->own.contact);
    if (m->friction && m->own.friction) m->friction->info.destroy(m->own.friction);
    free(m->z_offset);
    free(m->z_count);
    free(m->channels);
    free(m->y0);
    free(m->y0_set);
    free(m->stick.comp);
    free(m->event_sources);
    free(m->event_direction);
    memset(m, 0, sizeof *m);
}
