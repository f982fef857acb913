/* nsdyn: umbrella header for plugin authors. */
#ifndef NSDYN_H
#define NSDYN_H
#include "nsdyn/plugin.h"
#include "nsdyn/system.h"
#include "nsdyn/contact.h"
#include "nsdyn/friction.h"
#include "nsdyn/friction_batch.h"
#include "nsdyn/integrator.h"
#endif
