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
#include <stdlib.h>
#include <string.h>

#include "nsdyn/nsdyn.h"

/* The declarations of mu_s and mu_k (flags_: NSDYN_PARAM_MIN_EXCLUSIVE where
 * a law divides by the coefficient). */
#define FRICTION_MU_S(default_, flags_, help_) \
    NSDYN_REAL_F("mu_s", "1", default_, 0.0, HUGE_VAL, flags_, help_)
#define FRICTION_MU_K(default_, flags_, help_) \
    NSDYN_REAL_F("mu_k", "1", default_, 0.0, HUGE_VAL, flags_, help_)

/* 0, or -1 with the reason in err when kinetic friction exceeds static
 * friction (mu_k = mu_s is allowed: no Stribeck dip, no stick-slip gap). */
static inline int friction_mu_check(double mu_s, double mu_k, char *err, size_t len) {
    if (mu_k <= mu_s) return 0;
    snprintf(err, len, "mu_k = %g exceeds mu_s = %g: kinetic friction cannot exceed static", mu_k,
             mu_s);
    return -1;
}

/* An instance that holds a copy of the law's parameter struct (size
 * bytes; the host's block lives only during create()), or NULL with the
 * reason in err. */
static inline void *friction_copy(const void *params, size_t size, char *err, size_t len) {
    void *inst = malloc(size);
    if (!inst) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    memcpy(inst, params, size);
    return inst;
}

/* The optional interfaces of a law (nsdyn_friction_law.extension): its
 * parameter struct table (ABI 2.6) and, for the laws that called mu_k
 * "mu_c" before ABI 2.4 (mu_c_alias != 0), the former name as an alias. */
static inline const void *friction_extension(const char *name, const nsdyn_param_fields *fields,
                                             int mu_c_alias) {
    static const nsdyn_param_alias alias[] = {{.old_name = "mu_c", .name = "mu_k"}};
    static const nsdyn_param_aliases table = {
        .struct_size = sizeof table, .n = NSDYN_COUNT(alias), .alias = alias};
    if (!name) return NULL;
    if (strcmp(name, NSDYN_EXT_PARAM_FIELDS) == 0) return fields;
    return mu_c_alias && strcmp(name, NSDYN_EXT_PARAM_ALIASES) == 0 ? &table : NULL;
}

#endif
