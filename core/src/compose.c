#include "compose.h"

#include <string.h>

/* "a, b, c" of the registry's plugins of `kind` having all bits of `caps`
 * and none of `without`. */
static void list_ids(const nsd_registry *reg, nsdyn_kind kind, uint32_t caps, uint32_t without,
                     char *buf, size_t len) {
    buf[0] = '\0';
    size_t k = 0;
    for (size_t i = 0; i < reg->n; ++i) {
        const nsdyn_plugin_info *p = reg->plugins[i].info;
        if (p->kind != kind || (p->provides & caps) != caps || (p->provides & without)) continue;
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k++ ? ", " : "", p->id);
    }
    if (!k) snprintf(buf, len, "none installed");
}

static const nsd_toml_node *where(const nsd_section *s, const nsd_config *cfg) {
    if (s->table) {
        const nsd_toml_node *id = nsd_toml_get(s->table, "id");
        return id ? id : s->table;
    }
    return &cfg->root;
}

/* The rigid laws that give the impulse at one contact alone. */
static int has_local_impulse(const nsdyn_plugin_info *p) {
    const nsdyn_contact_law *law = (const nsdyn_contact_law *)p;
    return p->kind == NSDYN_KIND_CONTACT && (p->provides & NSDYN_CAP_RIGID_IMPACT) &&
           law->local_impulse && law->coefficients;
}

/* A time-stepping integrator needs a rigid law with local_impulse and
 * coefficients: the message names both plugins and the laws that work. */
static size_t check_local_impulse(const nsd_registry *reg, const nsdyn_plugin_info *ct,
                                  const nsdyn_plugin_info *ig, const nsd_config *cfg,
                                  nsd_diag *diag) {
    if (ct && has_local_impulse(ct)) return 0;
    char list[1024] = "";
    for (size_t i = 0, k = 0; i < reg->n; ++i) {
        if (!has_local_impulse(reg->plugins[i].info)) continue;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", k++ ? ", " : "",
                 reg->plugins[i].info->id);
    }
    if (ct)
        nsd_diag_at(diag, where(&cfg->contact, cfg),
                    "contact law '%s' cannot run under the time-stepping integrator '%s': it gives "
                    "no impulse at one contact alone (local_impulse, coefficients; contact.h); "
                    "rigid laws that do: %s",
                    ct->id, ig->id, list[0] ? list : "none installed");
    else
        nsd_diag_at(diag, where(&cfg->integrator, cfg),
                    "integrator '%s' is time-stepping: it needs a rigid contact law that gives the "
                    "impulse at one contact alone (%s)",
                    ig->id, list[0] ? list : "none installed");
    return 1;
}

size_t nsd_compose_check(const nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag) {
    if (!cfg->system.plugin || !cfg->integrator.plugin) return 0; /* reported already */
    const nsdyn_plugin_info *sys = cfg->system.plugin->info;
    const nsdyn_plugin_info *ig = cfg->integrator.plugin->info;
    const nsdyn_plugin_info *ct = cfg->contact.plugin ? cfg->contact.plugin->info : NULL;
    const nsdyn_plugin_info *fr = cfg->friction.plugin ? cfg->friction.plugin->info : NULL;
    int hold_stick = cfg->settings.hold_stick;
    size_t errors = 0;
    char list[1024];

    if ((sys->provides & NSDYN_CAP_UNILATERAL_CONTACTS) && !ct) {
        list_ids(reg, NSDYN_KIND_CONTACT, 0, 0, list, sizeof list);
        nsd_diag_at(diag, &cfg->root,
                    "system '%s' has unilateral contacts and needs a [contact] section with a "
                    "contact law (available: %s)",
                    sys->id, list);
        errors++;
    }
    if (ct && !(sys->provides & NSDYN_CAP_UNILATERAL_CONTACTS)) {
        nsd_diag_at(diag, where(&cfg->contact, cfg),
                    "[contact] (%s): system '%s' has no unilateral contacts for a contact law to "
                    "act on; remove the [contact] section",
                    ct->id, sys->id);
        errors++;
    }
    if ((sys->provides & NSDYN_CAP_PERSISTENT_CONTACTS) && !fr) {
        list_ids(reg, NSDYN_KIND_FRICTION, 0, 0, list, sizeof list);
        nsd_diag_at(diag, &cfg->root,
                    "system '%s' has a persistent frictional contact and needs a [friction] "
                    "section (available: %s)",
                    sys->id, list);
        errors++;
    }
    if (fr && (sys->provides & NSDYN_CAP_TANGENT_2D) && !(fr->provides & NSDYN_CAP_FRICTION_2D)) {
        list_ids(reg, NSDYN_KIND_FRICTION, NSDYN_CAP_FRICTION_2D, 0, list, sizeof list);
        nsd_diag_at(diag, where(&cfg->friction, cfg),
                    "[friction] (%s) handles 1-D slip only, but system '%s' slips in 2-D; friction "
                    "laws for spatial slip: %s",
                    fr->id, sys->id, list);
        errors++;
    }
    uint32_t locates = ig->provides & NSDYN_CAP_EVENT_LOCATION;
    uint32_t steps = ig->provides & NSDYN_CAP_TIME_STEPPING;
    int rigid = ct && (ct->provides & NSDYN_CAP_RIGID_IMPACT) &&
                !(ct->provides & NSDYN_CAP_COMPLIANT_NORMAL);
    int set_valued = fr && (fr->provides & NSDYN_CAP_FRICTION_SET_VALUED);
    char locating[512];
    list_ids(reg, NSDYN_KIND_INTEGRATOR, NSDYN_CAP_EVENT_LOCATION, 0, locating, sizeof locating);
    /* Set-valued friction needs something that resolves stick: the
     * event-driven runner (an integrator that locates events), a
     * time-stepping integrator, or a contact held in stick. */
    if (set_valued && !locates && !steps &&
        !(hold_stick && !(sys->provides & NSDYN_CAP_UNILATERAL_CONTACTS))) {
        list_ids(reg, NSDYN_KIND_FRICTION, 0, NSDYN_CAP_FRICTION_SET_VALUED, list, sizeof list);
        nsd_diag_at(
            diag, where(&cfg->friction, cfg),
            "[friction] (%s) is set-valued: its stick-slip switches must be located, which "
            "integrator '%s' cannot do; use an integrator that locates events (%s), a "
            "single-valued law (%s), or set run.hold_stick = true to hold the contact in stick",
            fr->id, ig->id, locating, list);
        errors++;
    }
    /* The event-driven runner holds stick at rigid and persistent contacts;
     * under a compliant law the normal force is not a constraint force. */
    if (set_valued && ct && !rigid && !steps) {
        list_ids(reg, NSDYN_KIND_FRICTION, 0, NSDYN_CAP_FRICTION_SET_VALUED, list, sizeof list);
        nsd_diag_at(
            diag, where(&cfg->friction, cfg),
            "[friction] (%s) is set-valued, which the runner supports with rigid contact laws and "
            "persistent contacts; with the compliant law '%s' use a single-valued law (%s)",
            fr->id, ct->id, list);
        errors++;
    }
    /* Rigid laws need velocity jumps: event location or time-stepping. */
    if (rigid && !locates && !steps) {
        list_ids(reg, NSDYN_KIND_INTEGRATOR, NSDYN_CAP_TIME_STEPPING, 0, list, sizeof list);
        char compliant[1024];
        list_ids(reg, NSDYN_KIND_CONTACT, NSDYN_CAP_COMPLIANT_NORMAL, 0, compliant,
                 sizeof compliant);
        nsd_diag_at(
            diag, where(&cfg->contact, cfg),
            "[contact] (%s) is a rigid impact law and needs an integrator that locates events (%s) "
            "or a time-stepping integrator (%s); with '%s' use a compliant law (%s)",
            ct->id, locating, list, ig->id, compliant);
        errors++;
    }
    /* Rigid contact uses a friction law's force() while a contact slips and
     * its bounds() at stick; internal states (LuGre's bristles) have no
     * meaning there. */
    if (rigid && fr && (fr->provides & NSDYN_CAP_FRICTION_STATEFUL)) {
        list_ids(reg, NSDYN_KIND_FRICTION, 0, NSDYN_CAP_FRICTION_STATEFUL, list, sizeof list);
        nsd_diag_at(diag, where(&cfg->friction, cfg),
                    "[friction] (%s) carries internal states, which rigid contact (%s) does not "
                    "integrate; use a stateless law (%s)",
                    fr->id, ct->id, list);
        errors++;
    }
    /* Time-stepping asks the contact law for the impulse at each contact
     * alone (contact.h local_impulse, ABI 2.0). */
    if (steps) errors += check_local_impulse(reg, ct, ig, cfg, diag);
    /* Generic declared needs: each plugin's needs must be provided by the
     * others. */
    const nsdyn_plugin_info *all[4] = {sys, ct, fr, ig};
    for (int i = 0; i < 4; ++i) {
        if (!all[i] || !all[i]->needs) continue;
        uint32_t have = 0;
        for (int j = 0; j < 4; ++j)
            if (j != i && all[j]) have |= all[j]->provides;
        uint32_t missing = all[i]->needs & ~have;
        /* 2-D friction is needed only if a friction law is present. */
        if (!fr) missing &= ~(uint32_t)NSDYN_CAP_FRICTION_2D;
        if (missing && !(missing == NSDYN_CAP_FRICTION_2D)) {
            nsd_diag_at(
                diag, &cfg->root,
                "%s '%s' needs capabilities (0x%x) that no other plugin of this config provides",
                nsd_kind_name(all[i]->kind), all[i]->id, missing);
            errors++;
        }
    }
    if (hold_stick && !(sys->provides & NSDYN_CAP_PERSISTENT_CONTACTS)) {
        nsd_diag_at(diag, &cfg->root,
                    "run.hold_stick = true needs a system with persistent contacts; '%s' has none",
                    sys->id);
        errors++;
    }
    return errors;
}
