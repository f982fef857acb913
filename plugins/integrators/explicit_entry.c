/* Entry point of nsdyn_integrators_explicit.so: the rk4 and dopri5
 * integrators. Descriptors are immutable; nothing here has state. */
#include "nsdyn/integrator.h"

extern const nsdyn_integrator nsdyn_integrator_rk4;
extern const nsdyn_integrator nsdyn_integrator_dopri5;

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index);

NSDYN_EXPORT const nsdyn_plugin_info *NSDYN_PLUGIN_ENTRY(uint32_t host_abi_major, uint32_t index) {
    if (host_abi_major != NSDYN_ABI_MAJOR) return NULL;
    switch (index) {
        case 0: return &nsdyn_integrator_rk4.info;
        case 1: return &nsdyn_integrator_dopri5.info;
        default: return NULL;
    }
}
