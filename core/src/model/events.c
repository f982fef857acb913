#include "events.h"

size_t nsd_event_sources_build(nsd_event_source *sources, int *direction, size_t n_stops,
                               size_t n_switches, const int *switch_direction, size_t nc,
                               int event_driven) {
    size_t n = 0;
    for (size_t i = 0; i < n_stops; ++i) sources[n++] = (nsd_event_source){NSD_SOURCE_STOP, i, -1};
    for (size_t i = 0; i < n_switches; ++i)
        sources[n++] =
            (nsd_event_source){NSD_SOURCE_SWITCH, i, switch_direction ? switch_direction[i] : 0};
    for (size_t i = 0; event_driven && i < 2 * nc; ++i)
        sources[n++] = (nsd_event_source){NSD_SOURCE_CONTACT, i, -1};
    for (size_t i = 0; i < n; ++i) direction[i] = sources[i].direction;
    return n;
}
