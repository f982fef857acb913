/* The conformance checks of contact laws and integrators (conformance.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_laws.h"
#include "integrator_calls.h"
#include "param_fields.h"
#include "plugin_calls.h"

/* A compliant law: never pulls, nothing while separated, finite while
 * penetrating; deterministic; normal_force() allocates nothing. */
static void check_compliant(nsd_cf *c, const nsdyn_contact_law *law, void *inst) {
    const double gaps[] = {1e-3, 0.0, -1e-5, -1e-3}, rates[] = {-1.0, 0.0, 1.0};
    for (size_t a = 0; a < 4; ++a)
        for (size_t b = 0; b < 3; ++b) {
            double N = -1.0, N2 = -2.0;
            nsd_cf_probe_start(c);
            nsdyn_status st = law->normal_force(inst, gaps[a], rates[b], &N);
            nsd_cf_probe_stop(c, "normal_force()");
            st |= law->normal_force(inst, gaps[a], rates[b], &N2);
            if (st > NSDYN_WARNING || !isfinite(N) || N < 0.0 || (gaps[a] >= 0.0 && N != 0.0)) {
                nsd_cf_finding(c,
                               "normal_force(gap %g m, rate %g m/s) = %g N: it must be finite, "
                               "never negative (pulling), and zero while separated",
                               gaps[a], rates[b], N);
                return;
            }
            if (N != N2) {
                nsd_cf_finding(c, "normal_force() is not deterministic");
                return;
            }
        }
}

/* A pseudo-random number in [-1, 1] (rand_r: no shared state). */
static double uniform(unsigned *seed) { return (rand_r(seed) % 2001) / 1000.0 - 1.0; }

/* The contract of a single approaching impact (u_n- < 0): finite; P_n >=
 * 0; no approach after it; the tangential impulse within the cone; u+ =
 * u- + G P; and no kinetic energy gained: dT = P . (u- + u+) / 2 <= 0 (the
 * energy in the metric G^-1 without inverting G). Tolerances: 1e-9 of
 * the sizes involved (a direct solve of a 3 x 3 problem). Returns 0 with
 * a finding. */
static int impact_contract(nsd_cf *c, int trial, uint32_t dim, const double *G, const double *u,
                           const double *P, const double *up, double mu) {
    const uint32_t k = dim + 1; /* components in play */
    double size_u = 0.0, size_P = 0.0, dT = 0.0, resid = 0.0;
    for (uint32_t i = 0; i < k; ++i) {
        if (!isfinite(P[i]) || !isfinite(up[i])) {
            nsd_cf_finding(c, "trial %d: impact() gives a non-finite impulse or velocity", trial);
            return 0;
        }
        size_u = fmax(size_u, fmax(fabs(u[i]), fabs(up[i]))), size_P = fmax(size_P, fabs(P[i]));
        double GP = 0.0;
        for (uint32_t j = 0; j < k; ++j) GP += G[3 * i + j] * P[j];
        resid = fmax(resid, fabs(up[i] - u[i] - GP));
        dT += 0.5 * P[i] * (u[i] + up[i]);
    }
    double tol_u = 1e-9 * (size_u + 1e-300), tol_P = 1e-9 * (size_P + 1e-300);
    double Pt = hypot(P[1], dim == 2 ? P[2] : 0.0);
    const char *bad = P[0] < -tol_P                 ? "a pulling normal impulse (P_n < 0)"
                      : up[0] < -tol_u              ? "an approach after the impact (u_n+ < 0)"
                      : Pt > mu * P[0] + tol_P      ? "a tangential impulse outside the cone"
                      : resid > tol_u               ? "u+ that is not u- + G P"
                      : dT > 1e-9 * size_u * size_P ? "a gain of kinetic energy"
                                                    : NULL;
    if (!bad) return 1;
    nsd_cf_finding(c,
                   "trial %d: impact() gives %s (u- = (%.6g, %.6g), P = (%.6g, %.6g), u+ = (%.6g, "
                   "%.6g), energy change %.3g J)",
                   trial, bad, u[0], u[1], P[0], P[1], up[0], up[1], dT);
    return 0;
}

/* A random one-contact problem: G = L L^T positive definite (L lower
 * triangular with a unit-ish diagonal), u in [-2, 2]^3. */
static void random_block(unsigned *seed, double *G, double *u) {
    double L[9] = {0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j <= i; ++j) L[3 * i + j] = (i == j) + 0.5 * uniform(seed);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            G[3 * i + j] = 0.0;
            for (int k = 0; k < 3; ++k) G[3 * i + j] += L[3 * i + k] * L[3 * j + k];
        }
    for (int i = 0; i < 3; ++i) u[i] = 2.0 * uniform(seed);
}

/* A law built before ABI 2.4: its local_impulse() with u_free = u_start =
 * u- is its impact() for that one contact (contact.h), so the
 * event-driven runner and time-stepping run the same law. Returns 0 with
 * a finding. */
static int same_local(nsd_cf *c, const nsdyn_contact_law *law, void *inst, int trial,
                      const nsdyn_impact_problem *pr, nsdyn_status a, const double *P_imp) {
    double P_loc[3] = {0};
    nsdyn_local_impact lp = {sizeof lp,   pr->tangent_dim,  pr->delassus,     pr->u_minus,
                             pr->u_minus, pr->mu_static[0], pr->mu_kinetic[0]};
    nsd_cf_probe_start(c);
    nsdyn_status b = law->local_impulse(inst, &lp, P_loc);
    nsd_cf_probe_stop(c, "local_impulse()");
    if ((a > NSDYN_WARNING) == (b > NSDYN_WARNING) &&
        (a > NSDYN_WARNING || nsd_cf_same(P_imp, P_loc, 3)))
        return 1;
    nsd_cf_finding(c,
                   "trial %d: local_impulse() differs from impact() for one contact "
                   "(P_n %.17g against %.17g)",
                   trial, P_loc[0], P_imp[0]);
    return 0;
}

/* A law built with ABI 2.4 or later takes the one-contact impulse of
 * time-stepping from impact() with the problem's restitution_scale
 * (contact.h): scale 1 must give what a problem without the field gives,
 * bit for bit, and scale 0 (a contact at rest, Moreau's rule) a plastic
 * impact, u_n+ = 0 within 1e-9 of the velocities. A law that ignores the
 * field bounces contacts at rest under time-stepping. Returns 0 with a
 * finding. */
static int honours_scale(nsd_cf *c, const nsdyn_contact_law *law, void *inst, int trial,
                         const nsdyn_impact_problem *pr, nsdyn_status a, const double *P_imp) {
    nsdyn_impact_problem old = *pr, plastic = *pr;
    old.struct_size = (uint32_t)offsetof(nsdyn_impact_problem, restitution_scale);
    const double zero = 0.0;
    plastic.restitution_scale = &zero;
    double P_old[3] = {0}, P0[3] = {0}, up[3] = {0}, up0[3] = {0};
    nsdyn_status b = law->impact(inst, &old, P_old, up);
    nsd_cf_probe_start(c);
    nsdyn_status z = law->impact(inst, &plastic, P0, up0);
    nsd_cf_probe_stop(c, "impact() for one contact");
    const double size_u = fmax(fabs(pr->u_minus[0]), fmax(fabs(up0[0]), 1e-300));
    const char *bad = (a > NSDYN_WARNING) != (b > NSDYN_WARNING) ||
                              (a <= NSDYN_WARNING && !nsd_cf_same(P_imp, P_old, 3))
                          ? "restitution_scale = 1 changes the impulse of a problem without it"
                      : z <= NSDYN_WARNING && pr->u_minus[0] < 0.0 && fabs(up0[0]) > 1e-9 * size_u
                          ? "restitution_scale = 0 leaves a bounce (u_n+ is not 0)"
                          : NULL;
    if (!bad) return 1;
    nsd_cf_finding(c, "trial %d: impact(): %s (u_n- = %.6g, u_n+ = %.6g at scale 0)", trial, bad,
                   pr->u_minus[0], up0[0]);
    return 0;
}

/* A rigid law: coefficients() sane; impact() for one contact keeps the
 * contract (random positive definite blocks and velocities, approaching
 * and not), and its one-contact impulse for time-stepping is its impact()
 * (same_local before ABI 2.4, honours_scale from 2.4). */
static void check_rigid(nsd_cf *c, const nsdyn_contact_law *law, void *inst) {
    const int new_abi = nsd_plugin_abi_2_4(&law->info);
    if (!new_abi && !law->local_impulse) return; /* not for time-stepping */
    if (!law->coefficients) {
        nsd_cf_finding(c, "has impact() but no coefficients()");
        return;
    }
    nsdyn_rigid_coefficients co = {sizeof co, 0, -1.0};
    char why[256];
    if (nsd_contact_coefficients(law, inst, &co, why, sizeof why) > NSDYN_WARNING &&
        co.restitution >= 0.0) {
        nsd_cf_finding(c, "%s", why);
        return;
    }
    if (!(co.kind >= NSDYN_RESTITUTION_NEWTON && co.kind <= NSDYN_RESTITUTION_OTHER) ||
        !(co.restitution >= 0.0))
        nsd_cf_finding(c, "coefficients() gives an unknown kind or a negative restitution");
    /* pass 0: the contract (and, before 2.4, local_impulse); pass 1 (2.4):
     * the scale on the same problems, so a broken contract is named as
     * such first */
    for (int pass = 0; pass < 1 + new_abi; ++pass) {
        unsigned seed = 12345u;
        for (int trial = 0; trial < 200; ++trial) {
            double G[9], u[3];
            random_block(&seed, G, u);
            uint32_t dim = 1 + (uint32_t)(trial % 2);
            double mu_s = 0.5, mu_k = 0.4, gap = 0.0, P_imp[3] = {0}, up[3];
            const double one = 1.0;
            nsdyn_impact_problem pr = {.struct_size = sizeof pr,
                                       .n_contacts = 1,
                                       .tangent_dim = dim,
                                       .delassus = G,
                                       .u_minus = u,
                                       .mu_static = &mu_s,
                                       .mu_kinetic = &mu_k,
                                       .gaps = &gap,
                                       .restitution_scale = &one};
            nsdyn_status a = law->impact(inst, &pr, P_imp, up);
            if (pass == 1) {
                if (!honours_scale(c, law, inst, trial, &pr, a, P_imp)) return;
                continue;
            }
            if (a <= NSDYN_WARNING && u[0] < 0.0 &&
                !impact_contract(c, trial, dim, G, u, P_imp, up, fmax(mu_s, mu_k)))
                return;
            if (!new_abi && !same_local(c, law, inst, trial, &pr, a, P_imp)) return;
        }
    }
}

void nsd_cf_contact(nsd_cf *c, const nsdyn_contact_law *law, void *inst) {
    const uint32_t caps = c->p->provides;
    nsd_cf_at(c, "normal_force(), impact(), local_impulse()");
    if ((caps & NSDYN_CAP_COMPLIANT_NORMAL) && !law->normal_force)
        nsd_cf_finding(c, "declares COMPLIANT_NORMAL but has no normal_force()");
    if ((caps & NSDYN_CAP_RIGID_IMPACT) && !law->impact)
        nsd_cf_finding(c, "declares RIGID_IMPACT but has no impact()");
    if (law->normal_force) check_compliant(c, law, inst);
    if (law->impact) check_rigid(c, law, inst);
}

/* ---- integrators: y'' = -y, y(0) = 1, y'(0) = 0, to t = 1 ------------------ */

static nsdyn_status oscillator(void *ctx, double t, const double *y, double *ydot) {
    (void)ctx, (void)t;
    ydot[0] = y[1];
    ydot[1] = -y[0];
    return NSDYN_OK;
}

/* Run inst on the oscillator to t = 1; the final state and step count.
 * Returns 0, or -1 with a finding. */
static int integrate(nsd_cf *c, const nsdyn_integrator *ig, void *inst, double y[2],
                     unsigned long *steps) {
    const nsdyn_ode ode = {.struct_size = sizeof ode, .n = 2, .rhs = oscillator};
    const double y0[2] = {1.0, 0.0};
    nsd_ig_call call;
    nsd_ig_bind(&call, ig, inst);
    if (nsd_ig_setup(&call, &ode, 0.0, y0, 1.0) > NSDYN_WARNING) {
        nsd_cf_finding(c, "setup() refuses a two-state ODE: %s", nsd_ig_message(&call));
        return -1;
    }
    nsdyn_step_report rep = {0};
    /* The first step outside the probe: a solver may finish its set-up
     * there (CVODE does); the steps after it are the hot path. */
    nsdyn_status st = nsd_ig_step(&call, 1.0, &rep);
    *steps = 1;
    nsd_cf_probe_start(c);
    while (rep.t < 1.0 && *steps < 1000000 && st <= NSDYN_WARNING) {
        st = nsd_ig_step(&call, 1.0, &rep);
        ++*steps;
    }
    nsd_cf_probe_stop(c, "step()");
    if (st > NSDYN_WARNING || rep.t < 1.0 || !rep.y) {
        nsd_cf_finding(c, "step() does not reach t = 1 on y'' = -y: %s", nsd_ig_message(&call));
        return -1;
    }
    memcpy(y, rep.y, 2 * sizeof *y);
    return 0;
}

void nsd_cf_integrator(nsd_cf *c, const nsdyn_integrator *ig, void *inst,
                       const nsdyn_value *defaults, const nsdyn_host *host) {
    const uint32_t caps = c->p->provides;
    nsd_cf_at(c, "setup(), step() on y'' = -y");
    if ((caps & NSDYN_CAP_DENSE_OUTPUT) && !ig->dense)
        nsd_cf_finding(c, "declares DENSE_OUTPUT but has no dense()");
    nsdyn_integrator_stats st = {.struct_size = sizeof st};
    ig->stats(inst, &st);
    if (st.steps != 0) nsd_cf_finding(c, "stats() counts steps before any was taken");
    if (caps & NSDYN_CAP_TIME_STEPPING) return; /* needs a mechanics problem, not an ODE */
    double y[2], y2[2];
    unsigned long n, n2;
    if (integrate(c, ig, inst, y, &n) != 0) return;
    if (!(hypot(y[0] - cos(1.0), y[1] + sin(1.0)) <= 1e-3))
        nsd_cf_finding(c, "y'' = -y at t = 1: (%.9g, %.9g), exact (%.9g, %.9g)", y[0], y[1],
                       cos(1.0), -sin(1.0));
    char err[256] = "";
    void *other = nsd_plugin_create(&ig->info, defaults, host, err, sizeof err);
    if (!other) return;
    if (integrate(c, ig, other, y2, &n2) == 0 && (n != n2 || !nsd_cf_same(y, y2, 2)))
        nsd_cf_finding(c, "two instances give different results on the same problem");
    ig->info.destroy(other);
}
