/* What one run leaves: the sampled series, the outcome, the counters and
 * audits (run_result.c: event counts, freeing). The runner (run.c) fills
 * it; the audits (run_audit.c) and every output read it. */
#ifndef NSD_RUN_RESULT_H
#define NSD_RUN_RESULT_H

#include "model.h"
#include "modes.h"
#include "runlog.h"

typedef struct nsd_series {
    size_t n_channels;
    size_t rows, cap;
    double *data; /* rows x n_channels, row-major */
    /* NULL: every channel was sampled. Else n_channels flags (run settings
     * sample_channels, copied): the channels not sampled are NaN, and
     * nothing may read them as values (the study's summaries refuse them,
     * sweep_summary.c). t and the states are always sampled. */
    unsigned char *sampled;
} nsd_series;

typedef enum nsd_run_outcome {
    NSD_RUN_COMPLETE = 0, /* reached t_end */
    NSD_RUN_STOPPED = 1,  /* a stop condition of the system fired */
    NSD_RUN_FAILED = 2    /* numerical failure: data are incomplete */
} nsd_run_outcome;

typedef struct nsd_run_result {
    nsd_series series;
    /* The state the run started from (q, v, z: the model's n), copied from
     * its data (shooting sets it there), or NULL: the config's (run.toml's
     * [initial] says which). */
    double *y0;
    nsd_run_outcome outcome;
    char message[2048]; /* failure or stop description, with time and state */
    double t_reached;
    nsdyn_integrator_stats stats;
    double wall_seconds;
    double *event_times; /* located switches and stops (contact events: contact_log) */
    size_t n_events;
    nsd_event_log contact_log;  /* event-driven contact: impacts and mode changes */
    size_t n_switches, n_stops; /* system mode switches applied, stop conditions fired */
    int stop_index;             /* the stop condition that ended the run (layout index), or -1 */
    /* Event-function returns of the integrator (located roots, and
     * crossings the runner found inside a step) and, of those, the ones
     * that changed nothing (no contact event logged, no switch, no stop):
     * restarts the log does not show. */
    uint64_t root_returns, unlogged_roots;
    /* Sustained contacts projected back into the touching band after
     * their gaps drifted (modes.h nsd_modes_correct_drift). */
    uint64_t drift_corrections;
    /* The energy audit (run.energy_audit): samples checked, the lowest
     * energy so far and the energy scale [J], samples above the allowed
     * bound and the largest rise [J]. */
    uint64_t energy_checked, energy_rises;
    double energy_min, energy_scale, energy_worst;
    /* Applications of the model's section switch (model.h
     * section_switch); the run stopped at the section when this reached
     * section_count. */
    size_t section_crossings;
    /* Integrator restarts at gap_rate = 0 of a compliant law with a rate
     * discontinuity (events.h NSD_SOURCE_RATE). */
    uint64_t rate_restarts;
    /* Holds entered at gap_rate = 0 (Filippov's sliding mode of such a
     * law at rest, contact/rate_hold.h); each is also a rate restart. */
    uint64_t rate_holds;
    /* Drift corrections that found an open contact penetrating deeper
     * than twice the tolerance (not an impact: the step guard did not see
     * it fall through, e.g. a gap that rises again by the step's end), and
     * the deepest such gap [m] (0: none). A possible missed impact: the
     * summary line warns. */
    uint64_t open_projections;
    double deepest_open;
    /* The step guard's cost (step_guard.h): evaluations of every contact's
     * gap, of some contacts' (those it follows), the contact gaps evaluated
     * over both, and the impacts it located. */
    uint64_t guard_evaluations, guard_evaluations_some, guard_gaps, guard_hits;
    /* Velocity resets by the system when contacts opened or closed
     * (system.h on_contact_modes; logged as system_reset events): the
     * sum of the energy changes they made [J]; the energy audit's floor
     * rose by their rises. */
    double reset_energy;
    /* Time-stepping runs (run_audit.h): step ends whose rigid contacts
     * were measured, the deepest penetration [m] (>= 0; 0: none), its time
     * [s] and contact (layout index; valid when the depth is > 0), whether it went past
     * run.penetration_tolerance; the system's energy output at the
     * start and at the last step end [J] (energy_steps: how many were read). */
    uint64_t penetration_checked;
    double deepest_penetration, t_deepest_penetration;
    int deepest_contact, penetration_exceeded;
    uint64_t energy_steps;
    double energy_first, energy_last;
    /* The run's log: its plugins' messages (create's and the run's) and
     * the host's (runlog.h); filled by the scenario (nsd_scenario_run). */
    nsd_runlog log;
} nsd_run_result;

/* Events of a run by kind: the contact log's kinds (impact, rest, close,
 * open, stick, slip), system switches and stops. */
typedef struct nsd_event_counts {
    size_t contact[NSD_EVENT_KIND_COUNT];
    size_t switches, stops;
    size_t total;
} nsd_event_counts;

void nsd_run_count_events(const nsd_run_result *res, nsd_event_counts *out);

void nsd_run_result_free(nsd_run_result *res);

/* Value of channel c at row r. */
static inline double nsd_series_at(const nsd_series *s, size_t r, size_t c) {
    return s->data[r * s->n_channels + c];
}

#endif
