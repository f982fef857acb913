/* The system's layout, checked before the host sizes anything by it:
 * plugins are checked, not trusted (docs/architecture.md). */
#ifndef NSD_LAYOUT_H
#define NSD_LAYOUT_H

#include "model.h"

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

/* Called right after the system's layout() returns: non-zero, with the
 * reason in `why`, if anything the host would size or read by is wrong
 * (counts out of bounds, a table missing, a NULL name or unit); 2 when it
 * is the friction law's states per contact. */
int nsd_layout_check(const nsd_model *m, char *why, size_t len);

#endif
