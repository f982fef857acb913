/* The event sources of a composed model: one table, built once at model
 * creation, that says what each event function of the nsdyn_ode is.
 *
 * The integrator sees one vector g of event functions (integrator.h). Its
 * entries come from three sources: the system's stop conditions
 * (terminal), its mode switches (non-terminal, on_switch() applies them),
 * and, for event-driven contact (modes.h), two functions per contact. The
 * runner looks an event up here and dispatches on its kind; nothing else
 * knows the order of the entries. */
#ifndef NSD_EVENTS_H
#define NSD_EVENTS_H

#include <stddef.h>

typedef enum nsd_event_source_kind {
    NSD_SOURCE_STOP = 0, /* index: the system's stop condition */
    NSD_SOURCE_SWITCH,   /* index: the system's mode switch */
    NSD_SOURCE_CONTACT,  /* index: contact event function, 0 .. 2 nc - 1, as in
                            nsd_modes_events (contact index / 2; even: normal,
                            odd: tangential) */
    NSD_SOURCE_RATE      /* index: a unilateral contact under a compliant law with
                            NSDYN_CAP_RATE_DISCONTINUITY: its gap rate while it
                            penetrates (both directions); the runner restarts the
                            integrator there (model.c appends these after the rest) */
} nsd_event_source_kind;

typedef struct nsd_event_source {
    nsd_event_source_kind kind;
    size_t index;
    int direction; /* -1 falling, +1 rising, 0 both (integrator.h) */
} nsd_event_source;

/* The table, in the order of g: n_stops stops, n_switches switches (their
 * directions from switch_direction, NULL: both), then 2 nc contact events
 * when event_driven (falling). Fills sources (n_stops + n_switches +
 * 2 nc entries of room) and direction (the same length, the nsdyn_ode's
 * event_direction); returns the count. */
size_t nsd_event_sources_build(nsd_event_source *sources, int *direction, size_t n_stops,
                               size_t n_switches, const int *switch_direction, size_t nc,
                               int event_driven);

#endif
