/* The contact regimes (regime.h) and the creation of a model, which
 * chooses its regime once; the runner, the right-hand side and the model's
 * reset and end call through the chosen table. */
#include "regime.h"

#include "limit_directions.h"
#include "modes.h"
#include "rate_hold.h"
#include "stick.h"

static const nsd_regime regimes[] = {
    /* the laws' forces, and those of the contacts held at gap_rate = 0
     * (rate_hold.h) solved while any is held */
    [NSD_REGIME_COMPLIANT] = {.kind = NSD_REGIME_COMPLIANT,
                              .name = "compliant",
                              .hold_solve = nsd_rate_hold_solve},
    [NSD_REGIME_HOLD_STICK] = {.kind = NSD_REGIME_HOLD_STICK,
                               .name = "hold-stick",
                               .solve = nsd_stick_solve},
    [NSD_REGIME_EVENT_DRIVEN] = {.kind = NSD_REGIME_EVENT_DRIVEN,
                                 .name = "event-driven",
                                 .logs_events = 1,
                                 .solve = nsd_modes_forces,
                                 .events = nsd_modes_events,
                                 .data_init = nsd_modes_alloc,
                                 .reset = nsd_modes_reset,
                                 .release = nsd_modes_free},
    /* The integrator handles contact itself through the mechanics view
     * (mechanics.c); between its steps, forces come from the laws. */
    [NSD_REGIME_TIME_STEPPING] = {.kind = NSD_REGIME_TIME_STEPPING,
                                  .name = "time-stepping",
                                  .hold_solve = nsd_rate_hold_solve},
};

const nsd_regime *nsd_regime_of(nsd_regime_kind kind) { return &regimes[kind]; }

/* The flags model_create.c set from the config (choose_contact_mode):
 * event-driven contact, the stick hold on persistent contacts, a
 * time-stepping integrator, else the compliant laws. */
static nsd_regime_kind regime_kind(const nsd_model *m, const nsd_config *cfg) {
    uint32_t ig_caps = cfg->integrator.plugin ? cfg->integrator.plugin->info->provides : 0;
    if (m->ed.on) return NSD_REGIME_EVENT_DRIVEN;
    if (m->stick.hold && m->stick.m) return NSD_REGIME_HOLD_STICK;
    if (ig_caps & NSDYN_CAP_TIME_STEPPING) return NSD_REGIME_TIME_STEPPING;
    return NSD_REGIME_COMPLIANT;
}

size_t nsd_model_create(nsd_model *m, const nsd_config *cfg, nsd_diag *diag) {
    size_t errors = nsd_model_build(m, cfg, diag);
    if (!m->y0) return errors; /* the plugins or the layout failed */
    m->regime = nsd_regime_of(regime_kind(m, cfg));
    if (m->regime->kind == NSD_REGIME_EVENT_DRIVEN)
        nsd_modes_init(m, cfg->settings.rest_ratio, cfg->settings.rest_velocity,
                       cfg->settings.contact_tolerance);
    /* the paper's limit-direction test, checked at every stick/slip switch
     * (docs/towed-wheel.md); the modes only call the hook */
    m->ed.switch_check = nsd_limit_switch_check;
    return errors;
}

void nsd_regime_release_stick(nsd_model *m) {
    m->stick.hold = 0;
    if (m->regime && m->regime->kind == NSD_REGIME_HOLD_STICK)
        m->regime = nsd_regime_of(NSD_REGIME_COMPLIANT);
}
