/* The conformance check of a friction law's batch interface
 * (conformance_batch.h). The host trusts forces() to equal force() per
 * contact: a batch that drifts from it would change every run that uses
 * the law without a sign, so the check compares the two bit for bit. */
#define _GNU_SOURCE
#include "conformance_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_calls.h"

enum { CF_MAXC = 4, CF_TRIALS = 400 };

/* A value from the draws the host meets: slips at rest, around a
 * regularization width, fast; loads zero, negative (an open compliant
 * contact) or positive. */
static double draw(unsigned *seed, int load) {
    double u = rand_r(seed) / (RAND_MAX + 1.0);
    switch (rand_r(seed) % 4) {
        case 0: return load ? -50.0 * u : 0.0;
        case 1: return load ? 0.0 : 6e-3 * u - 3e-3;
        case 2: return load ? 1e6 * u : 2e-6 * u - 1e-6;
        default: return load ? 1e3 * u : 20.0 * u - 10.0;
    }
}

/* One random call: n contacts through forces() and through force(). 0 when
 * they agree; else a finding is made. */
static int one_call(nsd_cf *c, const nsdyn_friction_law *f, const nsdyn_friction_forces *b,
                    void *inst, unsigned *seed, int trial) {
    nsdyn_contact_decl decl[CF_MAXC];
    nsdyn_contact_eval ev[CF_MAXC];
    double batch[3 * CF_MAXC], each[3 * CF_MAXC], scratch[8];
    size_t n = 1 + (size_t)(rand_r(seed) % CF_MAXC);
    memset(ev, 0, sizeof ev);
    for (size_t k = 0; k < n; ++k) {
        decl[k] =
            (nsdyn_contact_decl){"c", NSDYN_CONTACT_UNILATERAL, (uint32_t)(1 + rand_r(seed) % 2)};
        ev[k].u[1] = draw(seed, 0);
        ev[k].u[2] = draw(seed, 0);
        batch[3 * k] = each[3 * k] = draw(seed, 1);
        batch[3 * k + 1] = batch[3 * k + 2] = each[3 * k + 1] = each[3 * k + 2] = 0.0;
        if (each[3 * k] <= 0.0) continue; /* the host calls no law unloaded */
        nsdyn_friction_input in = {decl[k].tangent_dim, {ev[k].u[1], 0.0}, each[3 * k], NULL};
        if (in.dim == 2) in.slip[1] = ev[k].u[2];
        if (f->force(inst, &in, each + 3 * k + 1, scratch) > NSDYN_WARNING) return 0;
    }
    const nsdyn_friction_batch in = {
        .struct_size = sizeof in, .n = n, .contacts = decl, .eval = ev, .force = batch};
    nsd_cf_probe_start(c);
    nsdyn_status st = b->forces(inst, &in);
    nsd_cf_probe_stop(c, "forces() of " NSDYN_EXT_FRICTION_FORCES);
    if (st > NSDYN_WARNING) {
        nsd_cf_finding(c, "%s forces() fails where force() does not (trial %d)",
                       NSDYN_EXT_FRICTION_FORCES, trial);
        return 1;
    }
    for (size_t i = 0; i < 3 * n; ++i) {
        if (nsd_cf_same(&batch[i], &each[i], 1)) continue;
        nsd_cf_finding(c,
                       "%s forces() differs from force() at contact %zu of %zu (%u-D, slip "
                       "(%g, %g) m/s, N = %g N): entry %zu is %.17g N, force() gives %.17g N",
                       NSDYN_EXT_FRICTION_FORCES, i / 3, n, decl[i / 3].tangent_dim, ev[i / 3].u[1],
                       ev[i / 3].u[2], each[3 * (i / 3)], i % 3, batch[i], each[i]);
        return 1;
    }
    return 0;
}

void nsd_cf_friction_batch(nsd_cf *c, const nsdyn_friction_law *f, void *inst) {
    const nsdyn_friction_forces *b = nsd_plugin_extension(&f->info, NSDYN_EXT_FRICTION_FORCES);
    if (!b) return;
    nsd_cf_at(c, "the %s interface", NSDYN_EXT_FRICTION_FORCES);
    if (b->struct_size < offsetof(nsdyn_friction_forces, forces) + sizeof b->forces || !b->forces) {
        nsd_cf_finding(c, "its table is cut short or has no forces()");
        return;
    }
    if (f->n_states(inst, 1) || f->n_states(inst, 2)) {
        nsd_cf_finding(c, "offered by a law with internal states: the host uses it only for "
                          "stateless laws, so it is never called");
        return;
    }
    unsigned seed = 2106u;
    for (int trial = 0; trial < CF_TRIALS; ++trial)
        if (one_call(c, f, b, inst, &seed, trial)) return;
}
