/* Shared by the rigid-law tests of the rimless wheel's impacts
 * (test_pc_impact.c, test_bistiffness_limit.c): a contact law instance
 * from the registry, and the wheel's Delassus operator at theta = 0. */
#ifndef NSDYN_TEST_RIMLESS_IMPACT_UTIL_H
#define NSDYN_TEST_RIMLESS_IMPACT_UTIL_H

#include <check.h>
#include <math.h>

#include "registry.h"
#include "param_fields.h"

/* A host table without services. */
static const nsdyn_host test_bare_host = {sizeof(nsdyn_host), NULL, NULL};

/* The law `id` of reg, created with its one parameter p. */
static inline const nsdyn_contact_law *test_law_of(nsd_registry *reg, const char *id, double p,
                                                   void **inst) {
    const nsd_plugin *pl = nsd_registry_find(reg, id);
    ck_assert_ptr_nonnull(pl);
    const nsdyn_contact_law *C = (const nsdyn_contact_law *)pl->info;
    nsdyn_value v[1] = {{.num = p}};
    char err[256] = "";
    *inst = nsd_plugin_create(&C->info, v, &test_bare_host, err, sizeof err);
    ck_assert_msg(*inst != NULL, "%s", err);
    return C;
}

/* G = J M^-1 J^T (6 x 6, rows n, t1, t2 of Q_f then Q_b) for the tips of
 * (A.2) at theta = 0, m = L = 1, I = lam (Barjau & Batlle 2022). */
static inline void rimless_delassus(double lam, double beta, double G[36]) {
    const double s = sin(beta), c = cos(beta);
    const double J[6][3] = {{0, 1, -s}, {1, 0, -c}, {0, 0, 0}, {0, 1, s}, {1, 0, -c}, {0, 0, 0}};
    const double Mi[3] = {1, 1, 1 / lam};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            G[6 * i + j] = 0;
            for (int k = 0; k < 3; ++k) G[6 * i + j] += J[i][k] * Mi[k] * J[j][k];
        }
}

#endif
