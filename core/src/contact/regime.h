/* The contact regimes (model.h nsd_regime), one ops table each, and the
 * model's creation, which chooses one (regime.c). */
#ifndef NSD_REGIME_H
#define NSD_REGIME_H

#include "model.h"

/* The table of a regime kind. */
const nsd_regime *nsd_regime_of(nsd_regime_kind kind);

/* The stick hold released after creation: every force from the laws, the
 * friction law's at the persistent contacts too (`nsdyn limits` traces the
 * slipping flow off the set-valued point). */
void nsd_regime_release_stick(nsd_model *m);

#endif
