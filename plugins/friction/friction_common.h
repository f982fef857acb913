/* What the friction laws of plugins/friction share: one name per physical
 * coefficient and the check that ties them, written once.
 *   mu_s  static coefficient [1]: the largest force stick holds, mu_s N;
 *   mu_k  kinetic coefficient [1]: the force of steady slip, mu_k N (well
 *         above the Stribeck velocity for stribeck and lugre; the papers'
 *         mu_c, "Coulomb level", which those two laws called it before
 *         ABI 2.4 and still accept, with a warning, through the alias).
 * Header-only: each law is its own shared object. */
#ifndef NSDYN_FRICTION_COMMON_H
#define NSDYN_FRICTION_COMMON_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

/* The declarations of mu_s and mu_k (flags_: NSDYN_PARAM_MIN_EXCLUSIVE where
 * a law divides by the coefficient). */
#define FRICTION_MU_S(default_, flags_, help_) \
    NSDYN_REAL_F("mu_s", "1", default_, 0.0, HUGE_VAL, flags_, help_)
#define FRICTION_MU_K(default_, flags_, help_) \
    NSDYN_REAL_F("mu_k", "1", default_, 0.0, HUGE_VAL, flags_, help_)

/* The coefficients at p[i_s] and p[i_k] into *mu_s and *mu_k; 0, or -1 with
 * the reason in err when kinetic friction exceeds static friction (mu_k =
 * mu_s is allowed: no Stribeck dip, no stick-slip gap). */
static inline int friction_coefficients(const nsdyn_value *p, size_t i_s, size_t i_k, double *mu_s,
                                        double *mu_k, char *err, size_t len) {
    if (p[i_k].num > p[i_s].num) {
        snprintf(err, len, "mu_k = %g exceeds mu_s = %g: kinetic friction cannot exceed static",
                 p[i_k].num, p[i_s].num);
        return -1;
    }
    *mu_s = p[i_s].num;
    *mu_k = p[i_k].num;
    return 0;
}

/* The optional interfaces of a law that called mu_k "mu_c" before ABI 2.4
 * (nsdyn_friction_law.extension): the former name as an alias. */
static inline const void *friction_mu_c_extension(const char *name) {
    static const nsdyn_param_alias alias[] = {{.old_name = "mu_c", .name = "mu_k"}};
    static const nsdyn_param_aliases table = {
        .struct_size = sizeof table, .n = NSDYN_COUNT(alias), .alias = alias};
    return name && strcmp(name, NSDYN_EXT_PARAM_ALIASES) == 0 ? &table : NULL;
}

#endif
