/* The conformance checks (conformance.h): the driver, systems and friction
 * laws; contact laws and integrators in conformance_laws.c. */
#define _GNU_SOURCE
#include "conformance.h"
#include "conformance_batch.h"
#include "conformance_laws.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contact_eval.h"
#include "params.h"
#include "param_fields.h"
#include "plugin_calls.h"

/* ---- systems ----------------------------------------------------------- */

enum { MAXN = NSD_CF_MAXN, MAXC = NSD_CF_MAXC };

static int distinct_names(const nsdyn_system_layout *L, char *dup, size_t len) {
    const char *names[3 * MAXN];
    size_t n = 0;
    for (size_t i = 0; i < L->nq && n < 3 * MAXN; ++i) names[n++] = L->q[i].name;
    for (size_t i = 0; i < L->nv && n < 3 * MAXN; ++i) names[n++] = L->v[i].name;
    for (size_t i = 0; i < L->n_outputs && n < 3 * MAXN; ++i) names[n++] = L->outputs[i].name;
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < i; ++j)
            if (strcmp(names[i], names[j]) == 0) {
                snprintf(dup, len, "%s", names[i]);
                return 0;
            }
    return 1;
}

static int channels_named(const nsdyn_channel *c, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!c[i].name || !c[i].name[0] || !c[i].unit || !c[i].unit[0]) return 0;
    return 1;
}

static void check_layout(nsd_cf *c, const nsdyn_system *s, const nsdyn_system_layout *L) {
    const uint32_t caps = c->p->provides;
    char dup[64];
    if (L->nq + L->nv == 0) nsd_cf_finding(c, "layout() declares no states");
    if (!channels_named(L->q, L->nq) || !channels_named(L->v, L->nv) ||
        !channels_named(L->outputs, L->n_outputs))
        nsd_cf_finding(c, "a state or output channel has no name or no unit");
    else if (!distinct_names(L, dup, sizeof dup))
        nsd_cf_finding(c, "channel name '%s' is declared twice (states and outputs share names)",
                       dup);
    for (size_t k = 0; k < L->n_contacts; ++k) {
        const nsdyn_contact_decl *d = &L->contacts[k];
        if (!d->name || (d->tangent_dim != 1 && d->tangent_dim != 2))
            nsd_cf_finding(c, "contact %zu: no name or tangent_dim not 1 or 2", k);
        else if ((d->type == NSDYN_CONTACT_PERSISTENT && !(caps & NSDYN_CAP_PERSISTENT_CONTACTS)) ||
                 (d->type == NSDYN_CONTACT_UNILATERAL && !(caps & NSDYN_CAP_UNILATERAL_CONTACTS)) ||
                 (d->tangent_dim == 2 && !(caps & NSDYN_CAP_TANGENT_2D)))
            nsd_cf_finding(c, "contact '%s' is not covered by the declared capabilities", d->name);
    }
    if ((caps & NSDYN_CAP_DRAWS) && !s->draw) nsd_cf_finding(c, "declares DRAWS but has no draw()");
    if (L->n_stops && !s->stops) nsd_cf_finding(c, "declares stops but has no stops()");
    if (L->n_switches && (!s->switches || !s->on_switch))
        nsd_cf_finding(c, "declares switches but lacks switches() or on_switch()");
}

/* derivatives() is affine in the contact forces (the host's stick, modes
 * and mechanics build on it), the halves agree with the whole, and it is
 * deterministic and allocation-free. */
static void check_derivatives(nsd_cf *c, const nsdyn_system *s, void *inst,
                              const nsdyn_system_layout *L, const double *q, const double *v) {
    nsd_cf_at(c, "derivatives() at the initial state");
    double f0[3 * MAXC] = {0}, f1[3 * MAXC], fm[3 * MAXC];
    double a0[MAXN], a1[MAXN], am[MAXN], again[MAXN], qd[MAXN], qd_only[MAXN], ab[MAXN];
    for (size_t k = 0; k < 3 * L->n_contacts; ++k) {
        f1[k] = 10.0 + 3.0 * (double)k;
        fm[k] = 0.5 * f1[k];
    }
    nsdyn_status st = s->derivatives(inst, 0.1, q, v, f0, NULL, a0);
    nsd_cf_probe_start(c);
    st |= s->derivatives(inst, 0.1, q, v, f1, NULL, a1);
    nsd_cf_probe_stop(c, "derivatives()");
    st |= s->derivatives(inst, 0.1, q, v, fm, NULL, am);
    st |= s->derivatives(inst, 0.1, q, v, f1, NULL, again);
    st |= s->derivatives(inst, 0.1, q, v, f1, qd, ab);
    st |= s->derivatives(inst, 0.1, q, v, f1, qd_only, NULL);
    if (st > NSDYN_WARNING) {
        nsd_cf_finding(c, "derivatives() fails at the initial state");
        return;
    }
    for (size_t k = 0; k < L->nv; ++k)
        if (!(fabs(am[k] - 0.5 * (a0[k] + a1[k])) <= 1e-9 * (1 + fabs(a1[k])))) {
            nsd_cf_finding(c, "derivatives() is not affine in the contact forces (v'[%zu])", k);
            break;
        }
    if (!nsd_cf_same(a1, again, L->nv)) nsd_cf_finding(c, "derivatives() is not deterministic");
    if (!nsd_cf_same(qd, qd_only, L->nq) || !nsd_cf_same(ab, a1, L->nv))
        nsd_cf_finding(c, "derivatives() gives other values when asked for q' or v' alone");
}

static void check_contacts(nsd_cf *c, const nsdyn_system *s, void *inst,
                           const nsdyn_system_layout *L, const double *q, const double *v) {
    nsdyn_contact_eval e1[MAXC], e2[MAXC];
    double rows[MAXC][3 * MAXN], *jac[MAXC];
    for (size_t k = 0; k < L->n_contacts; ++k) jac[k] = rows[k];
    nsd_cf_at(c, "contacts() at the initial state");
    nsd_contacts_evaluate(s, inst, 0.1, q, v, L->n_contacts, 1, jac, e1);
    nsd_cf_probe_start(c);
    nsdyn_status st = nsd_contacts_evaluate(s, inst, 0.1, q, v, L->n_contacts, 1, jac, e2);
    nsd_cf_probe_stop(c, "contacts()");
    if (st > NSDYN_WARNING) {
        nsd_cf_finding(c, "contacts() fails at the initial state");
        return;
    }
    for (size_t k = 0; k < L->n_contacts; ++k) {
        if (!isfinite(e1[k].gap) || !isfinite(e1[k].u[0]) || !isfinite(e1[k].u[1]) ||
            !isfinite(e1[k].u[2]))
            nsd_cf_finding(c, "contacts(): contact %zu has a non-finite gap or velocity", k);
        if (e1[k].gap != e2[k].gap || !nsd_cf_same(e1[k].u, e2[k].u, 3))
            nsd_cf_finding(c, "contacts() is not deterministic (contact %zu)", k);
    }
}

static void check_system(nsd_cf *c, const nsdyn_system *s, void *inst) {
    nsdyn_system_layout L = {.struct_size = sizeof L};
    nsd_cf_at(c, "layout()");
    if (s->layout(inst, &L) > NSDYN_WARNING) {
        nsd_cf_finding(c, "layout() fails with the default parameters");
        return;
    }
    check_layout(c, s, &L);
    if (L.nq > MAXN || L.nv > MAXN || L.n_contacts > MAXC) {
        nsd_cf_finding(c, "more than %d states or %d contacts: the checks below are skipped", MAXN,
                       MAXC);
        return;
    }
    double q[MAXN] = {0}, v[MAXN] = {0};
    nsd_cf_at(c, "initial_state()");
    if (s->initial_state(inst, q, v) > NSDYN_WARNING || !isfinite(q[0]) ||
        !isfinite(L.nv ? v[0] : 0.0)) {
        nsd_cf_finding(c, "initial_state() fails or is not finite");
        return;
    }
    double v0[MAXN];
    memcpy(v0, v, sizeof v0);
    for (size_t k = 0; k < L.nv; ++k) v[k] += 0.1 * (double)(k + 1);
    check_derivatives(c, s, inst, &L, q, v);
    check_contacts(c, s, inst, &L, q, v);
    nsd_cf_system_states(c, s, inst, &L, 0.0, 1.0, q, v0, NSD_CF_STATES, 20261127u);
}

/* ---- friction laws -------------------------------------------------------- */

static void check_states(nsd_cf *c, const nsdyn_friction_law *f, void *inst) {
    for (uint32_t dim = 1; dim <= 2; ++dim) {
        size_t n = f->n_states(inst, dim);
        if (!n) continue;
        nsdyn_channel ch[MAXN] = {{0}};
        if (!f->state_channels || n > MAXN || f->state_channels(inst, dim, ch) > NSDYN_WARNING) {
            nsd_cf_finding(c, "has %zu internal states (%u-D) but does not name them", n, dim);
            continue;
        }
        for (size_t k = 0; k < n; ++k) {
            const char *nm = ch[k].name;
            int bad =
                !nm || !nm[0] ||
                strspn(nm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                    strlen(nm) ||
                !ch[k].unit || !ch[k].unit[0] || !ch[k].label;
            for (size_t j = 0; j < k && !bad; ++j) bad = strcmp(ch[j].name, nm) == 0;
            if (bad)
                nsd_cf_finding(c, "internal state %zu (%u-D) has a bad or repeated name", k, dim);
        }
    }
}

/* A stateless law on a ring of slip directions: F.slip <= 0, |F| <= the
 * kinetic bound, F proportional to N (rigid contact scales F(N = 1))
 * unless it declares NSDYN_CAP_FRICTION_LOAD_FREE. */
static void check_stateless(nsd_cf *c, const nsdyn_friction_law *f, void *inst, double Fk) {
    for (int k = 0; k < 36; ++k) {
        double a = k * NSDYN_PI / 18, s = 0.2 * (1 + k % 4), F[2], F2[2];
        nsdyn_friction_input in = {2, {s * cos(a), s * sin(a)}, 100.0, NULL};
        nsd_cf_probe_start(c);
        nsdyn_status st = f->force(inst, &in, F, NULL);
        nsd_cf_probe_stop(c, "force()");
        st |= f->force(inst, &in, F2, NULL);
        if (st > NSDYN_WARNING) {
            nsd_cf_finding(c, "force() fails at slip (%g, %g) m/s", in.slip[0], in.slip[1]);
            return;
        }
        if (F[0] * in.slip[0] + F[1] * in.slip[1] > 0.0) {
            nsd_cf_finding(c, "force() does work on the contact (F.slip > 0)");
            return;
        }
        if (hypot(F[0], F[1]) > Fk * (1 + 1e-12)) {
            nsd_cf_finding(c, "|force()| exceeds the kinetic bound %g N", Fk);
            return;
        }
        if (!nsd_cf_same(F, F2, 2)) {
            nsd_cf_finding(c, "force() is not deterministic");
            return;
        }
    }
    if (c->p->provides & NSDYN_CAP_FRICTION_LOAD_FREE) return; /* declared: not proportional */
    nsdyn_friction_input one = {2, {0.3, -0.4}, 1.0, NULL}, big = one;
    big.normal_force = 250.0;
    double F1[2], Fb[2];
    if (f->force(inst, &one, F1, NULL) <= NSDYN_WARNING &&
        f->force(inst, &big, Fb, NULL) <= NSDYN_WARNING)
        for (int k = 0; k < 2; ++k)
            if (!(fabs(Fb[k] - 250.0 * F1[k]) <= 1e-12 * (1 + fabs(Fb[k])))) {
                nsd_cf_finding(c, "force() is not proportional to the normal force");
                return;
            }
}

/* Any law, with its internal states at zero: deterministic, no allocation. */
static void check_force_call(nsd_cf *c, const nsdyn_friction_law *f, void *inst) {
    double z[MAXN] = {0}, rate[MAXN], F[2], F2[2];
    if (f->n_states(inst, 2) > MAXN) return;
    nsdyn_friction_input in = {2, {0.2, -0.1}, 50.0, z};
    nsd_cf_probe_start(c);
    nsdyn_status st = f->force(inst, &in, F, rate);
    nsd_cf_probe_stop(c, "force()");
    st |= f->force(inst, &in, F2, rate);
    if (st > NSDYN_WARNING)
        nsd_cf_finding(c, "force() fails at slip (0.2, -0.1) m/s, N = 50 N");
    else if (!nsd_cf_same(F, F2, 2))
        nsd_cf_finding(c, "force() is not deterministic");
}

/* Any law, its internal states at zero: a finite force (and finite state
 * rates) at rest, at creeping and at fast slip (to 100 m/s), at zero and
 * at large normal load; |F| within the static bound where the slip is
 * zero. A NaN from a law poisons every state it touches. */
static void check_finite_force(nsd_cf *c, const nsdyn_friction_law *f, void *inst) {
    static const double speeds[] = {0.0, 1e-12, 1e-6, 1e-3, 0.1, 1.0, 10.0, 30.0, 100.0};
    static const double loads[] = {0.0, 1e-9, 1.0, 100.0, 1e6};
    double z[MAXN] = {0}, rate[MAXN];
    size_t nz = f->n_states(inst, 2);
    if (nz > MAXN) return;
    for (size_t a = 0; a < sizeof speeds / sizeof *speeds; ++a)
        for (size_t b = 0; b < sizeof loads / sizeof *loads; ++b)
            for (uint32_t dim = 1; dim <= 2; ++dim) {
                double F[2] = {0, 0}, s = speeds[a], Fs = 0.0, Fk = 0.0;
                nsdyn_friction_input in = {dim, {0.6 * s, dim == 2 ? -0.8 * s : 0.0}, loads[b], z};
                nsd_cf_at(c, "force() at slip %g m/s, N = %g N", s, loads[b]);
                if (f->force(inst, &in, F, nz ? rate : NULL) > NSDYN_WARNING) continue;
                size_t bad = nz;
                for (size_t k = 0; k < f->n_states(inst, dim) && k < MAXN; ++k)
                    if (!isfinite(rate[k])) bad = k;
                if (!isfinite(F[0]) || (dim == 2 && !isfinite(F[1])) || bad < nz) {
                    nsd_cf_finding(c,
                                   "force() gives a non-finite %s at slip (%g, %g) m/s, N = %g N "
                                   "(%u-D)",
                                   bad < nz ? "internal state rate" : "force", in.slip[0],
                                   in.slip[1], loads[b], dim);
                    return;
                }
                char why[256];
                if (nsd_friction_bounds(f, inst, loads[b], &Fs, &Fk, why, sizeof why) >
                    NSDYN_WARNING) {
                    nsd_cf_finding(c, "%s", why);
                    return;
                }
                if (nz == 0 && hypot(F[0], dim == 2 ? F[1] : 0.0) > fmax(Fs, Fk) * (1 + 1e-12)) {
                    nsd_cf_finding(c,
                                   "|force()| = %g N at slip %g m/s, N = %g N: outside the "
                                   "friction cone (bounds %g, %g N)",
                                   hypot(F[0], F[1]), s, loads[b], Fs, Fk);
                    return;
                }
            }
}

static void check_friction(nsd_cf *c, const nsdyn_friction_law *f, void *inst) {
    double Fs = -1, Fk = -1;
    nsd_cf_at(c, "bounds(), n_states(), force()");
    char why[256];
    if (nsd_friction_bounds(f, inst, 100.0, &Fs, &Fk, why, sizeof why) > NSDYN_WARNING)
        nsd_cf_finding(c, "%s", why);
    else if (!(Fs >= 0 && Fk >= 0))
        nsd_cf_finding(c, "bounds() gives a negative bound");
    check_force_call(c, f, inst);
    check_finite_force(c, f, inst);
    if (f->n_states(inst, 2) == 0) check_stateless(c, f, inst, Fk);
    check_states(c, f, inst);
    nsd_cf_friction_batch(c, f, inst);
}

/* ---- the driver ------------------------------------------------------------- */

static void drop_message(void *ctx, nsdyn_log_level level, const char *message) {
    (void)ctx, (void)level, (void)message;
}

nsd_conformance nsd_conformance_check(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                      nsd_diag *diag) {
    return nsd_conformance_run(p, probe, diag, -1, NULL);
}

nsd_conformance nsd_conformance_run(const nsdyn_plugin_info *p, const nsd_alloc_probe *probe,
                                    nsd_diag *diag, int fd, char *where) {
    nsd_cf c = {.p = p, .probe = probe, .diag = diag, .fd = fd, .where = where};
    nsd_cf_at(&c, "the parameter declarations");
    if (nsd_params_check_decls(p->params, p->n_params, p->id, diag)) c.out.findings++;
    int required = 0;
    for (size_t k = 0; k < p->n_params; ++k)
        required |= (p->params[k].flags & NSDYN_PARAM_REQUIRED) != 0;
    if (required || c.out.findings) return c.out;
    nsd_params defaults = {0};
    nsd_diag quiet = {0};
    /* Messages of the plugins (a rigid law refusing a random impact) are
     * not findings: a host whose log drops them. */
    const nsdyn_host host = {.struct_size = sizeof host, .log = drop_message};
    nsd_params_resolve(&defaults, p->params, p->n_params, NULL, "", NULL, &quiet);
    nsd_diag_free(&quiet);
    char err[256] = "";
    nsd_cf_at(&c, "create()");
    void *inst = nsd_plugin_create(p, defaults.values, &host, err, sizeof err);
    if (!inst) {
        nsd_cf_finding(&c, "create() with the default parameters fails: %s", err);
    } else {
        c.out.instance_checked = 1;
        switch (p->kind) {
            case NSDYN_KIND_SYSTEM: check_system(&c, (const nsdyn_system *)p, inst); break;
            case NSDYN_KIND_FRICTION:
                check_friction(&c, (const nsdyn_friction_law *)p, inst);
                break;
            case NSDYN_KIND_CONTACT: nsd_cf_contact(&c, (const nsdyn_contact_law *)p, inst); break;
            case NSDYN_KIND_INTEGRATOR:
                nsd_cf_integrator(&c, (const nsdyn_integrator *)p, inst, defaults.values, &host);
                break;
        }
        nsd_cf_at(&c, "destroy()");
        p->destroy(inst);
    }
    nsd_params_free(&defaults);
    return c.out;
}
