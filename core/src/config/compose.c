#include "compose.h"

#include <string.h>

#include "plugin_calls.h"

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
    if (s->table) return s->id ? s->id : s->table;
    return &cfg->root;
}

/* A time-stepping integrator needs a rigid law with the impulse at one
 * contact alone (impact() from ABI 2.4, local_impulse() before) and
 * coefficients: the message names both plugins and the laws that work. */
static size_t check_local_impulse(const nsd_registry *reg, const nsdyn_plugin_info *ct,
                                  const nsdyn_plugin_info *ig, const nsd_config *cfg,
                                  nsd_diag *diag) {
    if (ct && nsd_contact_has_local_impulse(ct)) return 0;
    char list[1024] = "";
    for (size_t i = 0, k = 0; i < reg->n; ++i) {
        if (!nsd_contact_has_local_impulse(reg->plugins[i].info)) continue;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", k++ ? ", " : "",
                 reg->plugins[i].info->id);
    }
    if (ct)
        nsd_diag_at(diag, where(&cfg->contact, cfg),
                    "contact law '%s' cannot run under the time-stepping integrator '%s': it gives "
                    "no impulse at one contact alone (impact() and coefficients(); contact.h); "
                    "rigid laws that do: %s",
                    ct->id, ig->id, list[0] ? list : "none installed");
    else
        nsd_diag_at(diag, where(&cfg->integrator, cfg),
                    "integrator '%s' is time-stepping: it needs a rigid contact law that gives the "
                    "impulse at one contact alone (%s)",
                    ig->id, list[0] ? list : "none installed");
    return 1;
}

/* The plugins of one config, by role. */
typedef enum { ROLE_SYSTEM = 0, ROLE_CONTACT, ROLE_FRICTION, ROLE_INTEGRATOR, ROLE_NONE } role;

typedef struct combo {
    const nsd_config *cfg;
    const nsd_registry *reg;
    const nsdyn_plugin_info *p[4]; /* by role; NULL: no such section */
    int hold_stick;
    const char *locating; /* integrators that locate events */
} combo;

static const nsd_section *section_of(const nsd_config *cfg, role r) {
    const nsd_section *s[4] = {&cfg->system, &cfg->contact, &cfg->friction, &cfg->integrator};
    return s[r];
}

static const nsdyn_kind role_kind[4] = {NSDYN_KIND_SYSTEM, NSDYN_KIND_CONTACT, NSDYN_KIND_FRICTION,
                                        NSDYN_KIND_INTEGRATOR};

/* A capability rule: when `subject` is present, provides every bit of
 * `has` and none of `lacks`, its `partner` must be present (required), and
 * if present provide every bit of `provides` and none of `forbids`.
 * Otherwise the message `fmt` is reported at `at` (ROLE_NONE: the
 * config's root) with the ids of args[0], args[1] and, for ROLE_NONE, the
 * partners that would fit (of the partner's kind, with `provides`,
 * without `forbids`). */
typedef struct cap_rule {
    role subject;
    uint32_t has, lacks;
    role partner;
    int required;
    uint32_t provides, forbids;
    role at;
    role args[3];
    const char *fmt;
} cap_rule;

static const cap_rule cap_rules[] = {
    {ROLE_SYSTEM,
     NSDYN_CAP_UNILATERAL_CONTACTS,
     0,
     ROLE_CONTACT,
     1,
     0,
     0,
     ROLE_NONE,
     {ROLE_SYSTEM, ROLE_NONE, ROLE_NONE},
     "system '%s' has unilateral contacts and needs a [contact] section with a contact law "
     "(available: %s)"},
    {ROLE_CONTACT,
     0,
     0,
     ROLE_SYSTEM,
     1,
     NSDYN_CAP_UNILATERAL_CONTACTS,
     0,
     ROLE_CONTACT,
     {ROLE_CONTACT, ROLE_SYSTEM, ROLE_NONE},
     "[contact] (%s): system '%s' has no unilateral contacts for a contact law to act on; "
     "remove the [contact] section"},
    {ROLE_SYSTEM,
     NSDYN_CAP_PERSISTENT_CONTACTS,
     0,
     ROLE_FRICTION,
     1,
     0,
     0,
     ROLE_NONE,
     {ROLE_SYSTEM, ROLE_NONE, ROLE_NONE},
     "system '%s' has a persistent frictional contact and needs a [friction] section "
     "(available: %s)"},
    {ROLE_SYSTEM,
     NSDYN_CAP_TANGENT_2D,
     0,
     ROLE_FRICTION,
     0,
     NSDYN_CAP_FRICTION_2D,
     0,
     ROLE_FRICTION,
     {ROLE_FRICTION, ROLE_SYSTEM, ROLE_NONE},
     "[friction] (%s) handles 1-D slip only, but system '%s' slips in 2-D; friction laws for "
     "spatial slip: %s"},
    /* Rigid contact uses a friction law's force() while a contact slips
     * and its bounds() at stick; internal states (LuGre's bristles) have
     * no meaning there. */
    {ROLE_CONTACT,
     NSDYN_CAP_RIGID_IMPACT,
     NSDYN_CAP_COMPLIANT_NORMAL,
     ROLE_FRICTION,
     0,
     0,
     NSDYN_CAP_FRICTION_STATEFUL,
     ROLE_FRICTION,
     {ROLE_FRICTION, ROLE_CONTACT, ROLE_NONE},
     "[friction] (%s) carries internal states, which rigid contact (%s) does not integrate; use "
     "a stateless law (%s)"},
    /* ... and scales force() at N = 1 by the normal force. */
    {ROLE_CONTACT,
     NSDYN_CAP_RIGID_IMPACT,
     NSDYN_CAP_COMPLIANT_NORMAL,
     ROLE_FRICTION,
     0,
     0,
     NSDYN_CAP_FRICTION_LOAD_FREE,
     ROLE_FRICTION,
     {ROLE_FRICTION, ROLE_CONTACT, ROLE_NONE},
     "[friction] (%s) gives a force that does not scale with the normal force; rigid contact "
     "(%s) evaluates force() at N = 1 and scales it by N; use a law proportional to N (%s)"},
};

static size_t check_cap_rule(const combo *k, const cap_rule *r, nsd_diag *diag) {
    const nsdyn_plugin_info *s = k->p[r->subject], *q = k->p[r->partner];
    if (!s || (s->provides & r->has) != r->has || (s->provides & r->lacks)) return 0;
    if (q ? (q->provides & r->provides) == r->provides && !(q->provides & r->forbids)
          : !r->required)
        return 0;
    char list[1024];
    list_ids(k->reg, role_kind[r->partner], r->provides, r->forbids, list, sizeof list);
    const char *arg[3];
    for (int i = 0; i < 3; ++i) arg[i] = r->args[i] == ROLE_NONE ? list : k->p[r->args[i]]->id;
    const nsd_toml_node *at =
        r->at == ROLE_NONE ? &k->cfg->root : where(section_of(k->cfg, r->at), k->cfg);
    nsd_diag_at(diag, at, r->fmt, arg[0], arg[1], arg[2]);
    return 1;
}

static int is_rigid(const nsdyn_plugin_info *ct);

/* Set-valued friction needs something that resolves stick: the
 * event-driven runner (an integrator that locates events), a time-stepping
 * integrator, or a contact held in stick. */
static size_t check_set_valued_located(const combo *k, nsd_diag *diag) {
    const nsdyn_plugin_info *sys = k->p[ROLE_SYSTEM], *fr = k->p[ROLE_FRICTION],
                            *ig = k->p[ROLE_INTEGRATOR];
    const nsdyn_plugin_info *ct = k->p[ROLE_CONTACT];
    if (!fr || !(fr->provides & NSDYN_CAP_FRICTION_SET_VALUED) || (ct && !is_rigid(ct)) ||
        (ig->provides & (NSDYN_CAP_EVENT_LOCATION | NSDYN_CAP_TIME_STEPPING)) ||
        (k->hold_stick && !(sys->provides & NSDYN_CAP_UNILATERAL_CONTACTS)))
        return 0;
    char list[1024];
    list_ids(k->reg, NSDYN_KIND_FRICTION, 0, NSDYN_CAP_FRICTION_SET_VALUED, list, sizeof list);
    nsd_diag_at(diag, where(&k->cfg->friction, k->cfg),
                "[friction] (%s) is set-valued: its stick-slip switches must be located, which "
                "integrator '%s' cannot do; use an integrator that locates events (%s), a "
                "single-valued law (%s), or set run.hold_stick = true to hold the contact in stick",
                fr->id, ig->id, k->locating, list);
    return 1;
}

static int is_rigid(const nsdyn_plugin_info *ct) {
    return ct && (ct->provides & NSDYN_CAP_RIGID_IMPACT) &&
           !(ct->provides & NSDYN_CAP_COMPLIANT_NORMAL);
}

/* Set-valued friction on compliant contacts runs in the event-driven
 * runner only (modes.h: the normal force from the law, stick and slip as
 * at persistent contacts, the contact's opening located): an integrator
 * that locates events and the modes left free (no run.hold_stick).
 * Time-stepping is refused by its own check (it needs a rigid law). */
static size_t check_set_valued_compliant(const combo *k, nsd_diag *diag) {
    const nsdyn_plugin_info *ct = k->p[ROLE_CONTACT], *fr = k->p[ROLE_FRICTION],
                            *ig = k->p[ROLE_INTEGRATOR];
    if (!fr || !(fr->provides & NSDYN_CAP_FRICTION_SET_VALUED) || !ct || is_rigid(ct) ||
        (ig->provides & NSDYN_CAP_TIME_STEPPING) ||
        ((ig->provides & NSDYN_CAP_EVENT_LOCATION) && !k->hold_stick))
        return 0;
    char list[1024];
    list_ids(k->reg, NSDYN_KIND_FRICTION, 0, NSDYN_CAP_FRICTION_SET_VALUED, list, sizeof list);
    if (k->hold_stick)
        nsd_diag_at(diag, where(&k->cfg->friction, k->cfg),
                    "[friction] (%s) is set-valued and the contact law '%s' compliant: the "
                    "event-driven runner resolves its stick and slip, which run.hold_stick = true "
                    "turns off; remove hold_stick, or use a single-valued law (%s)",
                    fr->id, ct->id, list);
    else
        nsd_diag_at(diag, where(&k->cfg->friction, k->cfg),
                    "[friction] (%s) is set-valued: on the compliant contact law '%s' its "
                    "stick-slip switches and the contact's opening must be located, which "
                    "integrator '%s' cannot do; use an integrator that locates events (%s) or a "
                    "single-valued law (%s)",
                    fr->id, ct->id, ig->id, k->locating, list);
    return 1;
}

/* Rigid laws need velocity jumps: event location or time-stepping. */
static size_t check_rigid_located(const combo *k, nsd_diag *diag) {
    const nsdyn_plugin_info *ct = k->p[ROLE_CONTACT], *ig = k->p[ROLE_INTEGRATOR];
    if (!is_rigid(ct) || (ig->provides & (NSDYN_CAP_EVENT_LOCATION | NSDYN_CAP_TIME_STEPPING)))
        return 0;
    char list[1024], compliant[1024];
    list_ids(k->reg, NSDYN_KIND_INTEGRATOR, NSDYN_CAP_TIME_STEPPING, 0, list, sizeof list);
    list_ids(k->reg, NSDYN_KIND_CONTACT, NSDYN_CAP_COMPLIANT_NORMAL, 0, compliant,
             sizeof compliant);
    nsd_diag_at(
        diag, where(&k->cfg->contact, k->cfg),
        "[contact] (%s) is a rigid impact law and needs an integrator that locates events (%s) "
        "or a time-stepping integrator (%s); with '%s' use a compliant law (%s)",
        ct->id, k->locating, list, ig->id, compliant);
    return 1;
}

/* Generic declared needs: each plugin's needs must be provided by the
 * others. */
static size_t check_declared_needs(const combo *k, nsd_diag *diag) {
    size_t errors = 0;
    for (int i = 0; i < 4; ++i) {
        const nsdyn_plugin_info *p = k->p[i];
        if (!p || !p->needs) continue;
        uint32_t have = 0;
        for (int j = 0; j < 4; ++j)
            if (j != i && k->p[j]) have |= k->p[j]->provides;
        uint32_t missing = p->needs & ~have;
        /* 2-D friction is needed only if a friction law is present. */
        if (!k->p[ROLE_FRICTION]) missing &= ~(uint32_t)NSDYN_CAP_FRICTION_2D;
        if (missing && !(missing == NSDYN_CAP_FRICTION_2D)) {
            nsd_diag_at(
                diag, &k->cfg->root,
                "%s '%s' needs capabilities (0x%x) that no other plugin of this config provides",
                nsd_kind_name(p->kind), p->id, missing);
            errors++;
        }
    }
    return errors;
}

/* Time-stepping asks the contact law for the impulse at each contact
 * alone (contact.h local_impulse, ABI 2.0). */
static size_t check_time_stepping(const combo *k, nsd_diag *diag) {
    if (!(k->p[ROLE_INTEGRATOR]->provides & NSDYN_CAP_TIME_STEPPING)) return 0;
    return check_local_impulse(k->reg, k->p[ROLE_CONTACT], k->p[ROLE_INTEGRATOR], k->cfg, diag);
}

static size_t check_hold_stick(const combo *k, nsd_diag *diag) {
    if (!k->hold_stick || (k->p[ROLE_SYSTEM]->provides & NSDYN_CAP_PERSISTENT_CONTACTS)) return 0;
    nsd_diag_at(diag, &k->cfg->root,
                "run.hold_stick = true needs a system with persistent contacts; '%s' has none",
                k->p[ROLE_SYSTEM]->id);
    return 1;
}

/* Every check, in the order of its messages: a capability rule (data), or
 * a combination the rules cannot express (which integrator resolves
 * what). */
static const struct {
    const cap_rule *rule;
    size_t (*check)(const combo *k, nsd_diag *diag);
} compose_checks[] = {
    {&cap_rules[0], NULL},
    {&cap_rules[1], NULL},
    {&cap_rules[2], NULL},
    {&cap_rules[3], NULL},
    {NULL, check_set_valued_located},
    {NULL, check_set_valued_compliant},
    {NULL, check_rigid_located},
    {&cap_rules[4], NULL},
    {&cap_rules[5], NULL},
    {NULL, check_time_stepping},
    {NULL, check_declared_needs},
    {NULL, check_hold_stick},
};

size_t nsd_compose_check(const nsd_config *cfg, const nsd_registry *reg, nsd_diag *diag) {
    if (!cfg->system.plugin || !cfg->integrator.plugin) return 0; /* reported already */
    char locating[512];
    list_ids(reg, NSDYN_KIND_INTEGRATOR, NSDYN_CAP_EVENT_LOCATION, 0, locating, sizeof locating);
    combo k = {
        .cfg = cfg, .reg = reg, .hold_stick = cfg->settings.hold_stick, .locating = locating};
    for (int r = 0; r < 4; ++r) {
        const nsd_section *s = section_of(cfg, (role)r);
        k.p[r] = s->plugin ? s->plugin->info : NULL;
    }
    size_t errors = 0;
    for (size_t i = 0; i < NSDYN_COUNT(compose_checks); ++i)
        errors += compose_checks[i].rule ? check_cap_rule(&k, compose_checks[i].rule, diag)
                                         : compose_checks[i].check(&k, diag);
    return errors;
}
