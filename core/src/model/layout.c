/* The system's layout, checked before the host sizes anything by it
 * (layout.h). */
#include "layout.h"

#include <stdio.h>

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
int nsd_layout_check(const nsd_model *m, char *why, size_t len) {
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
        size_t z = m->friction ? m->friction->n_states(m->own.friction, d->tangent_dim) : 0;
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
